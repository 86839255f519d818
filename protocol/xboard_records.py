"""XBoard-mode pieces of the game-record work: the flag claim (Crafty's `flag on`) and the Log
option's game files. Kept apart from xboard.py, which only calls these."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.xboard import Output


class _HasEngine(Protocol):
    """What set_game_files uses of XBoardSession (its option mixin passes `self`)."""

    engine: Engine


class _FlagSession(_HasEngine, Protocol):
    """What the flag claim uses of XBoardSession (its clock mixin passes `self`)."""

    out: Output
    engine_side: bool | None
    opponent_seconds: float | None

    def _abandon(self) -> None: ...


def claim_flag_if_fallen(session: _FlagSession) -> None:
    """With `flag on`, an opponent clock at zero while the engine plays is a win claimed on time."""
    engine = session.engine
    if not engine.record.claim_flag or session.engine_side is None or session.opponent_seconds is None:
        return
    if session.opponent_seconds > 0 or engine.outcome() is not None:
        return
    loser = "Black" if session.engine_side else "White"
    result = "1-0" if session.engine_side else "0-1"
    session._abandon()
    session.engine_side = None
    session.out.line(f"{result} {{{loser}'s flag fell}}")
    engine.finish_game(result)


def set_game_files(session: _HasEngine, enabled: bool) -> None:
    """Option Log: the protocol log (ponderosa.log) and the game's log.NNN/game.NNN together."""
    files = session.engine.game_files
    files.enabled = enabled
    if enabled:
        session.engine.save_record()
