"""UCI's search commands: `go` (its parameters, the limits and the clock's budget, the book move),
`stop` and `ponderhit`. Each handler is given the session, whose searches they start and end."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ponderosa.engine.book.opening_book import BookProbe
from ponderosa.engine.clock import (
    TimeBudget,
    budget_for_move_time,
    budget_from_clocks,
    deadline_seconds,
)
from ponderosa.engine.engine import IllegalMoveError
from ponderosa.engine.search import MAX_DEPTH, SearchLimits
from ponderosa.protocol.uci.options import report_applied

if TYPE_CHECKING:
    from ponderosa.protocol.uci.session import ActiveSearch, UciSession

MAX_MATE_MOVES = 50          # `go mate N` searches 2N plies; more than this is no mate search
MATE_DEPTH_MARGIN = 4        # ...and this many more: pruning can hide a mate at exactly 2N plies
MAX_NODES = 1 << 62          # a node limit the core's 64-bit counter can hold
GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime")


@dataclass
class GoCommand:
    """A parsed `go` line; `problems` lists what was wrong with it (reported, then ignored)."""

    numbers: dict[str, int] = field(default_factory=dict)
    infinite: bool = False
    ponder: bool = False
    searchmoves: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def parse_go(args: str) -> GoCommand:
    """`go` parameters in any order; a bad number or unknown word is a problem, not a failure."""
    go = GoCommand()
    words = args.split()
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word in GO_NUMBERS:
            if index >= len(words):
                go.problems.append(f"go {word} needs a number")
                break
            text = words[index]
            index += 1
            try:
                value = int(text)
            except ValueError:
                go.problems.append(f"go {word} {text}: not a whole number, ignored")
                continue
            if value < 0:
                if word in ("depth", "nodes", "mate", "movestogo"):
                    go.problems.append(f"go {word} {value}: negative, ignored")
                    continue
                go.problems.append(f"go {word} {value}: negative time counted as 0")
                value = 0
            go.numbers[word] = value
        elif word == "infinite":
            go.infinite = True
        elif word == "ponder":
            go.ponder = True
        elif word == "searchmoves":
            while index < len(words) and words[index] not in GO_NUMBERS + ("infinite", "ponder"):
                go.searchmoves.append(words[index])
                index += 1
        else:
            go.problems.append(f"go: unknown parameter {word!r} ignored")
    return go


def move_budget(go: GoCommand, white: bool, pondering: bool, move_overhead: float,
                waited: float = 0.0) -> TimeBudget | None:
    """The time for the move from movetime or the side to move's clock, less the move overhead
    (one allocation for both protocols: engine/clock.py); None when the GUI gave neither.
    waited: seconds the `go` waited to be read, gone from the clock (or the movetime) already."""
    numbers = go.numbers
    if "movetime" in numbers:
        return budget_for_move_time(max(0.0, numbers["movetime"] / 1000 - waited), move_overhead)
    own, other = ("wtime", "btime") if white else ("btime", "wtime")
    if own not in numbers:
        return None
    increment = numbers.get("winc" if white else "binc", 0)
    opponent = numbers[other] / 1000 if other in numbers else None
    return budget_from_clocks(numbers[own] / 1000 - waited, opponent, increment / 1000,
                              numbers.get("movestogo") or None, pondering=pondering, move_overhead=move_overhead)


def search_limits(go: GoCommand, kind: str, white: bool, pondering: bool,
                  move_overhead: float, waited: float = 0.0) -> SearchLimits:
    """The limits of a `go` search of this kind (think, ponder or infinite); waited: seconds the
    `go` waited to be read (move_budget)."""
    numbers = go.numbers
    depth = min(numbers.get("depth") or 0, MAX_DEPTH) or None
    mate = None
    if "mate" in numbers and numbers["mate"] > 0:
        mate = min(numbers["mate"], MAX_MATE_MOVES)
        mate_depth = 2 * mate + MATE_DEPTH_MARGIN
        depth = min(depth, mate_depth) if depth else mate_depth
    nodes = min(numbers.get("nodes") or 0, MAX_NODES) or None   # the core counts in 64 bits
    if kind == "infinite":
        return SearchLimits()
    if kind == "ponder":
        return SearchLimits(depth=depth, nodes=nodes, mate=mate)   # open-ended until ponderhit or stop
    budget = move_budget(go, white, pondering, move_overhead, waited)
    if budget is None:
        if depth is not None or nodes is not None:
            return SearchLimits(depth=depth, nodes=nodes, mate=mate)
        budget = budget_for_move_time(None, move_overhead)   # a bare `go`: the engine's default time
    soft, hard = deadline_seconds(budget.soft_seconds), deadline_seconds(budget.hard_seconds)
    return SearchLimits(depth=depth, nodes=nodes, soft_seconds=min(soft, hard), hard_seconds=hard, mate=mate)


# -- commands ---------------------------------------------------------------------

def go(session: UciSession, args: str) -> None:
    session.finish_active()
    report_applied(session)   # settings that waited for the last search's end
    engine = session.engine
    command = parse_go(args)
    for problem in command.problems:
        session.info_string(problem)
    legal = engine.legal_moves()
    if not legal:
        mated = engine.position(stack=False).is_check()
        certain = (" wdl 0 0 1000" if mated else " wdl 0 1000 0") if session.show_wdl else ""   # mated or stalemate
        session.out.line(f"info depth 0 score {'mate 0' if mated else 'cp 0'}{certain}")
        session.out.line("bestmove 0000")
        return
    excluded: set[str] = set()
    if command.searchmoves:
        chosen = set()
        for text in command.searchmoves:
            try:
                chosen.add(engine.parse_move(text))
            except IllegalMoveError:
                session.info_string(f"searchmoves: illegal move {text} ignored")
        excluded = set(legal) - chosen if chosen else set()
    kind = "ponder" if command.ponder else "infinite" if command.infinite else "think"
    # The GUI's clock ran from the `go` on: time it waited to be read is gone from it.
    limits = search_limits(command, kind, engine.white_to_move, session.ponder_enabled, session.move_overhead,
                           session.waited_seconds())
    if kind == "think" and not excluded and not session.analyse_mode and engine.options.book_enabled:
        probe = engine.book_probe()   # once per move: a probe also ages the learned data
        if probe.move is not None:
            _play_book_move(session, probe)
            return
        if probe.search_only:
            limits, excluded = engine.book_search(probe, limits)
            session.info_string(f"searching only the book moves {' '.join(probe.search_only)}")
    session.start(kind, command, limits, excluded)


def _play_book_move(session: UciSession, probe: BookProbe) -> None:
    """The book's move, answered at once and noted for book learning."""
    assert probe.move is not None
    session.info_string(f"book move {session.engine.san(probe.move)} ({probe.chance * 100:.0f}%)")
    reply = session.engine.book_reply(after=probe.move)   # the GUI ponders on the book's likely answer
    session.out.line(f"bestmove {probe.move}" + (f" ponder {reply}" if reply else ""))
    session.engine.note_own_move(probe.move, None)   # after the answer (see UciSession.send_bestmove)


def _book_move_on_ponderhit(session: UciSession, active: ActiveSearch) -> bool:
    """A ponder hit into a book position is a book hit: the ponder search is dropped and the
    book's move answered at once, as a `go` in that position would have been."""
    engine = session.engine
    if session.analyse_mode or active.go.searchmoves or not engine.options.book_enabled:
        return False
    probe = engine.book_probe()
    if probe.move is None:
        return False
    session.active = None
    engine.end_search()   # its result (a stale `done`) is ignored: the search is no longer active
    _play_book_move(session, probe)
    return True


def stop(session: UciSession, args: str) -> None:
    """bestmove at once: the search stops at its next poll (the same bound as XBoard's `?`)."""
    active = session.active
    if active is None:
        return
    record = active.kind == "think"   # a stopped ponder search is a ponder miss: not played
    active.stop_sent = True
    if active.kind == "ponder":
        active.kind = "ponder-miss"
        session.restore_predicted_move(active)
    if active.result is not None:
        session.active = None
        session.send_bestmove(active.result, record)
        return
    session.engine.stop()


def ponderhit(session: UciSession, args: str) -> None:
    """The opponent played the expected move: the ponder search becomes the real search, its
    budget counted from the start of pondering (time spent pondering is already used)."""
    active = session.active
    if active is None or active.kind != "ponder":
        return
    active.kind = "think"
    active.hit = True
    session.restore_predicted_move(active)   # the predicted move was played: the game has it again
    if _book_move_on_ponderhit(session, active):
        return
    if active.result is not None:
        result, session.active = active.result, None
        session.send_bestmove(result, record=True, search=active)
        return
    budget = move_budget(active.go, session.engine.white_to_move, session.ponder_enabled, session.move_overhead)
    if budget is None:
        if "depth" in active.go.numbers or "nodes" in active.go.numbers or "mate" in active.go.numbers:
            return   # the depth or node limit ends it, as it would have without pondering
        budget = budget_for_move_time(None, session.move_overhead)
    hard = deadline_seconds(budget.hard_seconds)
    session.engine.set_time_budget(min(deadline_seconds(budget.soft_seconds), hard), hard)


SEARCH_COMMANDS: dict[str, Callable[[UciSession, str], None]] = {"go": go, "stop": stop, "ponderhit": ponderhit}
