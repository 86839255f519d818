"""XBoard's engine settings: `option`, `memory`, `cores`, `exclude`/`include`, and the protocol
log; the settings a running search uses wait for its end."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ponderosa.engine.engine import IllegalMoveError
from ponderosa.engine.worker import MAX_THREADS
from ponderosa.protocol.xboard_records import set_game_files

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.xboard import ActiveSearch, Output

MEGABYTE = 1 << 20
# Evaluation scales offered as options: option name -> the core's scale name.
SCALE_OPTIONS = {"KingSafety": "kscale", "KingTropism": "tropism", "PawnStructure": "pscale",
                 "PassedPawns": "ppscale", "BlockedPawns": "bscale", "Asymmetry": "asymmetry"}
# Engine options offered to the GUI: name -> (type, default, min, max); a check is 0..1.
OPTIONS: dict[str, tuple[str, int, int, int]] = {
    "Hash": ("spin", 64, 1, 4096), "Ponder": ("check", 1, 0, 1), "OwnBook": ("check", 1, 0, 1),
    "Contempt": ("spin", 0, -500, 500), "Threads": ("spin", 1, 1, MAX_THREADS), "Log": ("check", 0, 0, 1),
    "Resign": ("spin", 0, 0, 50), "Learn": ("spin", 7, 0, 7), "MultiPV": ("spin", 1, 1, 256),
    **{name: ("spin", 0, -100, 500) if name == "Asymmetry" else ("spin", 100, 0, 1000) for name in SCALE_OPTIONS},
}


class XBoardOptions:
    """Mixin of XBoardSession: engine options, hash size, threads and root-move exclusion."""

    engine: Engine
    out: Output
    active: ActiveSearch | None
    analyzing: bool
    ponder_enabled: bool
    resign_pawns: int
    excluded: set[str]

    if TYPE_CHECKING:   # provided by XBoardSession and its other mixins
        def _abandon(self) -> None: ...
        def start_analysis(self) -> None: ...
        def request_threads(self, count: int) -> None: ...
        def report_threads(self) -> None: ...
        def tablebase_option(self, name: str, value: str) -> bool: ...
        def report_tablebase_problems(self) -> None: ...
        def report_tablebase_path(self, messages: list[str] | None) -> None: ...

    def cmd_memory(self, args: str) -> None:
        if args.isdigit() and int(args) > 0:
            _, _, low, high = OPTIONS["Hash"]
            self.engine.set_hash_size(min(max(low, int(args) - 4), high) * MEGABYTE)   # the pawn hash keeps 4 MB
            self._apply_deferred_settings()

    def cmd_cores(self, args: str) -> None:
        if args.isdigit():
            self.request_threads(int(args))

    def cmd_option(self, args: str) -> None:
        name, _, value = args.partition("=")
        name, value = name.strip(), value.strip()
        if self.tablebase_option(name, value):
            return
        try:
            number = int(value) if value else 0
        except ValueError:
            self.out.line(f"Error (bad option value): option {args}")
            return
        if name in OPTIONS:   # out of range: the nearest allowed value, as xboard itself clamps
            _, _, low, high = OPTIONS[name]
            number = min(max(number, low), high)
        if name == "Hash":
            self.engine.set_hash_size(max(1, number) * MEGABYTE)
            self._apply_deferred_settings()
        elif name == "Ponder":
            self.ponder_enabled = bool(number)
            if not number and self.active is not None and self.active.kind == "ponder":
                self._abandon()
        elif name == "Contempt":
            self.engine.draw_score = -number
        elif name == "Resign":
            self.resign_pawns = max(0, number)
        elif name in SCALE_OPTIONS:
            try:
                self.engine.set_eval_scale(SCALE_OPTIONS[name], number)
            except ValueError as error:
                self.out.line(f"Error ({error}): option {args}")
        elif name == "OwnBook":
            self.engine.book.enabled = bool(number)
        elif name == "Learn":
            self.engine.learner.mask = number   # 1 book, 2 position, 4 result learning
        elif name == "Threads":
            self.request_threads(number)
        elif name == "Log":
            set_logging(bool(number))
            set_game_files(self, bool(number))
        elif name == "MultiPV":
            self.engine.multi_pv = number       # lines per iteration, each a thinking line
        else:
            self.out.line(f"Error (unknown option): option {args}")

    def _apply_deferred_settings(self) -> None:
        """What waited for the search's end is applied now that none runs (the engine's rule);
        the threads and the tables are reported, with problems the search found in the tables."""
        applied = self.engine.apply_pending_settings()
        if applied.threads:
            self.report_threads()
        self.report_tablebase_problems()
        self.report_tablebase_path(applied.tablebase_messages)

    def cmd_exclude(self, args: str) -> None:
        self._include_exclude(args, exclude=True)

    def cmd_include(self, args: str) -> None:
        self._include_exclude(args, exclude=False)

    def _include_exclude(self, args: str, exclude: bool) -> None:
        legal = self.engine.legal_moves()
        if args == "all":
            self.excluded = set(legal) if exclude else set()
        else:
            try:
                uci = self.engine.parse_move(args)
            except IllegalMoveError:
                self.out.line(f"Illegal move: {args}")
                return
            (self.excluded.add if exclude else self.excluded.discard)(uci)
        if self.analyzing:
            self.start_analysis() if len(self.excluded) < len(legal) else self._abandon()


def set_logging(enabled: bool, path: str = "ponderosa.log") -> None:
    """Log every protocol line to a file in the working directory (option Log / `log on`)."""
    logger = logging.getLogger("ponderosa")
    for handler in list(logger.handlers):
        if isinstance(handler, logging.FileHandler):
            logger.removeHandler(handler)
            handler.close()
    if enabled:
        handler = logging.FileHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
