"""The engine's options, declared once: one row per setting, with its kind, default, range, the
names each front end shows it under, when it applies, a line of help and its effect (Stockfish's
OptionsMap). `uci`, `setoption`, XBoard's `feature option=` and `option NAME=VALUE`, and the
console's setting commands all render and parse from these rows; docs/PROTOCOL.md and the
README list them from here (`python -m tools.options_doc render`).

Light on purpose: the XBoard handshake renders the rows before the core has loaded, so this
module imports only engine/limits.py and engine/errors.py. A row's effect is a function of the engine's parts
(engine/engine_options.py, OptionParts) or, for a front end's own setting (Ponder, Log, ...), of
the front end attached to them (its FrontEndSettings)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ponderosa.engine.errors import EngineError
from ponderosa.engine.limits import (
    DEFAULT_BOOK_RANDOM,
    DEFAULT_BOOK_WIDTH,
    DEFAULT_HASH_BYTES,
    DEFAULT_MOVE_OVERHEAD_MS,
    DEFAULT_PAWN_HASH_BYTES,
    DEFAULT_PROBE_DEPTH,
    DEMOTE_THRESHOLD,
    DEMOTE_THRESHOLD_RANGE,
    FULL_ELO,
    LEARN_ALL,
    LEARN_DEFAULT,
    MAX_MULTI_PV,
    MAX_THREADS,
    MEGABYTE,
    MIN_ELO,
    MOVE_OVERHEAD_RANGE_MS,
    PROBE_DEPTH_RANGE,
)

if TYPE_CHECKING:
    from ponderosa.engine.engine_options import FrontEndSettings, OptionParts

SPIN, CHECK, STRING, BUTTON = "spin", "check", "string", "button"
NOW, AT_SEARCH_END = "now", "at the search's end"   # when a change applies (engine/settings.py has the rule)
DEFAULT = "<default>"    # the book, learned store or network the engine picks itself
EMPTY = "<empty>"        # UCI's way to show an empty string


class OptionError(EngineError):
    """A value an option cannot take, or one the engine refuses (the message says why)."""


class Option:
    """One setting. name is the table's key and UCI's name; xboard the name in XBoard's `option`
    (None: not offered there), xboard_kind its control when not the row's kind (file, path) and
    xboard_command the XBoard command that sets it too (memory, cores, egtpath); console the
    words of the console's command for it (None: none). report says which of a
    change's messages a front end shows as what (tablebases, evaluation, threads). A front end's
    own row starts at its default when the front end is attached, unless keeps_value (the log
    may be on before the front end starts)."""

    __slots__ = ("name", "kind", "default", "low", "high", "help", "applies", "uci", "xboard", "xboard_kind",
                 "xboard_rank", "xboard_command", "console", "report", "front_end", "keeps_value", "_get",
                 "_set")

    def __init__(self, name: str, kind: str, default: Any, low: int = 0, high: int = 0, *, help: str,
                 get: Callable[[Any], Any] | None = None, set: Callable[[Any, Any], Any] | None = None,
                 applies: str = NOW, uci: bool = True, xboard: str | None = None, xboard_kind: str | None = None,
                 xboard_rank: int = 0, xboard_command: str | None = None, console: str | None = None, report: str = "",
                 front_end: bool = False, keeps_value: bool = False) -> None:
        self.name, self.kind, self.default, self.low, self.high = name, kind, default, low, high
        self.help, self.applies, self.uci, self.xboard, self.xboard_kind = help, applies, uci, xboard, xboard_kind
        self.xboard_rank, self.xboard_command, self.console = xboard_rank, xboard_command, console
        self.report, self.front_end, self.keeps_value = report, front_end, keeps_value
        self._get, self._set = get, set

    def __repr__(self) -> str:
        return f"Option({self.name!r})"

    def value(self, target: OptionParts | FrontEndSettings | None) -> Any:
        """The value in use (the default without an engine, or for a front end not attached)."""
        return self.default if target is None or self._get is None else self._get(target)

    def apply(self, target: OptionParts | FrontEndSettings, value: Any) -> Any:
        if self._set is None:
            raise OptionError(f"option {self.name} cannot be set here")
        return self._set(target, value)

    # -- parsing ---------------------------------------------------------------

    def parse(self, text: str) -> tuple[Any, str]:
        """The value a front end's text stands for, and a note when it was clamped into range
        ('' if none). Raises OptionError for text the option cannot take."""
        text = text.strip()
        if self.kind == SPIN:
            try:
                number = int(text)
            except ValueError:
                raise OptionError(f"{text!r} is not a whole number") from None
            clamped = min(max(number, self.low), self.high)
            note = f"option {self.name}: {number} is outside {self.low}..{self.high}, {clamped} used" \
                if clamped != number else ""
            return clamped, note
        if self.kind == CHECK:
            word = text.lower()
            if word not in ("true", "false", "1", "0", "on", "off"):
                raise OptionError(f"{text!r} is not true or false")
            return word in ("true", "1", "on"), ""
        if self.kind == STRING:
            return ("" if text == EMPTY else text), ""
        return None, ""   # a button has no value

    # -- what the front ends declare --------------------------------------------

    def uci_line(self, value: Any) -> str:
        text = f"option name {self.name} type {self.kind}"
        if self.kind == BUTTON:
            return text
        if self.kind == CHECK:
            value = "true" if value else "false"
        text += f" default {value if value != '' else EMPTY}"
        if self.kind == SPIN:
            text += f" min {self.low} max {self.high}"
        return text

    def xboard_feature(self, value: Any) -> str:
        assert self.xboard is not None
        if self.kind == SPIN:
            return f'option="{self.xboard} -spin {value} {self.low} {self.high}"'
        if self.kind == CHECK:
            return f'option="{self.xboard} -check {int(bool(value))}"'
        return f'option="{self.xboard} -{self.xboard_kind or self.kind} {value}"'

def _megabytes(size_bytes: int) -> int | float:
    value = size_bytes / MEGABYTE
    return int(value) if value == int(value) else value


def _multi_pv(parts: OptionParts, lines: int) -> None:
    if lines < 1:
        raise OptionError(f"MultiPV must be 1 or more, got {lines}")
    parts.searcher.multi_pv = lines


def _chess960(parts: OptionParts, on: bool) -> list[str]:
    parts.set_chess960(on)   # a change starts a new game
    return ["Chess960: castling as king takes rook; the book and learning are off"] if on else []


def _uci_opponent(parts: OptionParts, text: str) -> None:
    """UCI_Opponent: `TITLE ELO computer|human NAME`; ValueError for text it is not."""
    from ponderosa.engine.opponent import parse_uci_opponent  # not at the handshake: only when set
    if text.strip():
        parts.set_opponent(parse_uci_opponent(text))


def _opening_books(parts: OptionParts, value: str) -> list[str]:
    if value in ("", DEFAULT):
        return parts.book.open_defaults()
    parts.book.use_book(value)
    return []


def _learned_store(parts: OptionParts, value: str) -> None:
    if value not in ("", DEFAULT):
        parts.books.use_learned_store(value)


def _scale(name: str, option: str, default: int, low: int, help: str, rank: int) -> Option:
    """One of Crafty's evaluation scales (percent), `evaluation NAME N` in the console."""
    return Option(option, SPIN, default, low, 1000 if name != "asymmetry" else 500, help=help,
                  get=lambda parts: parts.evaluator.scales()[name],
                  set=lambda parts, value: parts.evaluator.set_scale(name, value),
                  xboard=option, xboard_rank=rank, console=f"evaluation {name}")


# The rows in the order of UCI's `uci` answer; xboard_rank orders XBoard's feature lines.
OPTIONS: tuple[Option, ...] = (
    Option("Hash", SPIN, DEFAULT_HASH_BYTES // MEGABYTE, 1, 4096, applies=AT_SEARCH_END,
           help="transposition table in MB (XBoard's `memory` is the whole budget, pawn hashes included)",
           get=lambda parts: _megabytes(parts.settings.hash_request),
           set=lambda parts, mb: parts.settings.set_hash_size(int(mb * MEGABYTE)),
           xboard="Hash", xboard_rank=1, xboard_command="memory", console="hash", report="resources"),
    Option("Clear Hash", BUTTON, None, applies=AT_SEARCH_END,
           help="empty the transposition table and the search statistics",
           set=lambda parts, _: parts.settings.clear_tables()),
    Option("Threads", SPIN, 1, 1, MAX_THREADS, applies=AT_SEARCH_END,
           help="search threads (Lazy SMP; XBoard's `cores`)",
           get=lambda parts: parts.helpers.threads, set=lambda parts, count: parts.settings.set_threads(count),
           xboard="Threads", xboard_rank=5, xboard_command="cores", console="smpmt", report="threads"),
    Option("Ponder", CHECK, True, help="think on the opponent's time (XBoard's `hard`/`easy`)",
           get=lambda front: front.ponder, set=lambda front, on: front.set_ponder(on),
           xboard="Ponder", xboard_rank=2, front_end=True),
    Option("OwnBook", CHECK, True, help="play from the opening books",
           get=lambda parts: parts.book.enabled, set=lambda parts, on: setattr(parts.book, "enabled", on),
           xboard="OwnBook", xboard_rank=3, console="book"),
    Option("BookFile", STRING, DEFAULT, help="the opening book (Ponderosa's or Polyglot); <default>: the shipped one",
           set=_opening_books, console="book use"),
    Option("BookRandom", SPIN, DEFAULT_BOOK_RANDOM, 0, 2, help="book move choice: 0 best, 1 weighted, 2 uniform",
           get=lambda parts: parts.book.settings.random_mode,
           set=lambda parts, mode: setattr(parts.book.settings, "random_mode", mode), console="book random"),
    Option("BookWidth", SPIN, DEFAULT_BOOK_WIDTH, 1, 100, help="book moves considered in each position",
           get=lambda parts: parts.book.settings.width,
           set=lambda parts, width: setattr(parts.book.settings, "width", width), console="book width"),
    Option("Learn", SPIN, LEARN_DEFAULT, 0, LEARN_ALL, help="what is learned: 1 book, 2 positions, 4 results (a sum)",
           get=lambda parts: parts.learner.mask, set=lambda parts, mask: setattr(parts.learner, "mask", mask),
           xboard="Learn", xboard_rank=8, console="learn"),
    Option("BookLearnThreshold", SPIN, DEMOTE_THRESHOLD, *DEMOTE_THRESHOLD_RANGE,
           help="a book move learned below this (cp) is not played, nor counted as an alternative by learning "
                "(docs/LEARNING.md)",
           get=lambda parts: parts.books.learn_threshold,
           set=lambda parts, cp: setattr(parts.books, "learn_threshold", cp),
           xboard="BookLearnThreshold", xboard_rank=9, console="learn threshold"),
    Option("LearnStore", STRING, DEFAULT, help="where learned data is kept: a SQLite file or postgresql://...",
           set=_learned_store, console="learn store"),
    Option("Contempt", SPIN, 0, -500, 500, help="the draw score is minus this (cp): above 0 a draw is worth less "
                                                "than equality",
           get=lambda parts: -parts.searcher.core.draw_score,
           set=lambda parts, cp: setattr(parts.searcher.core, "draw_score", -cp), xboard="Contempt", xboard_rank=4),
    Option("MultiPV", SPIN, 1, 1, MAX_MULTI_PV, help="lines searched and shown per iteration, each its own thinking "
                                                     "line",
           get=lambda parts: parts.searcher.multi_pv,
           set=lambda parts, lines: _multi_pv(parts, lines),
           xboard="MultiPV", xboard_rank=10, console="multipv"),
    # XBoard's name has no space: python-chess reads an XBoard option's name up to the first one.
    Option("Move Overhead", SPIN, DEFAULT_MOVE_OVERHEAD_MS, *MOVE_OVERHEAD_RANGE_MS,
           help="ms each move costs besides the search (GUI, pipes, network), kept back from every move's time; "
                "raise it if the engine loses on time (docs/TIME.md)",
           get=lambda front: front.move_overhead_ms, set=lambda front, ms: front.set_move_overhead(ms),
           xboard="MoveOverhead", xboard_rank=11, front_end=True),
    Option("UCI_AnalyseMode", CHECK, False, help="analysis: no book moves, nothing learned",
           get=lambda front: front.analyse_mode, set=lambda front, on: front.set_analyse_mode(on), front_end=True),
    Option("UCI_ShowWDL", CHECK, False, help="info lines carry `wdl W D L`, the side to move's chances per mille "
                                             "(docs/WDL.md)",
           get=lambda front: front.show_wdl, set=lambda front, on: front.set_show_wdl(on), front_end=True),
    Option("UCI_Opponent", STRING, "", help="the opponent (`TITLE ELO computer|human NAME`): the name to the "
                                            "learner, the rest to the server rules (docs/ICS.md)",
           set=_uci_opponent),
    Option("Log", CHECK, False, help="log the protocol (ponderosa.log) and, in XBoard, the game files",
           get=lambda front: front.log, set=lambda front, on: front.set_log(on),
           xboard="Log", xboard_rank=6, front_end=True, keeps_value=True),
    Option("UCI_Chess960", CHECK, False, help="Chess960: castling as king takes rook; no book or learning",
           get=lambda parts: parts.state.chess960, set=_chess960),
    Option("UCI_LimitStrength", CHECK, False, help="play at the level UCI_Elo sets",
           get=lambda parts: parts.strength.limit, set=lambda parts, on: setattr(parts.strength, "limit", on),
           xboard="UCI_LimitStrength", xboard_rank=12),
    Option("UCI_Elo", SPIN, FULL_ELO, MIN_ELO, FULL_ELO, help="the level in Elo (CCRL 40/4); the top is full "
                                                              "strength (docs/STRENGTH.md)",
           get=lambda parts: parts.strength.target, set=lambda parts, elo: parts.strength.set_target(elo),
           xboard="UCI_Elo", xboard_rank=13),
    Option("EvalFile", STRING, DEFAULT, applies=AT_SEARCH_END,
           help="a neural network file (docs/NNUE.md), `<default>` the shipped one; a file that cannot be used "
                "keeps the evaluation in use",
           set=lambda parts, name: parts.settings.set_eval_file(name or DEFAULT),
           xboard="EvalFile", xboard_kind="file", xboard_rank=20, console="eval", report="evaluation"),
    Option("SyzygyPath", STRING, "", applies=AT_SEARCH_END, help="folders of Syzygy tables (`:` or `;` between "
                                                                 "them), like XBoard's `egtpath syzygy`",
           get=lambda parts: parts.tablebases.path, set=lambda parts, path: parts.settings.set_tablebase_path(path),
           xboard="SyzygyPath", xboard_kind="path", xboard_rank=22, xboard_command="egtpath", console="egtb",
           report="tablebases"),
    Option("SyzygyProbeDepth", SPIN, DEFAULT_PROBE_DEPTH, *PROBE_DEPTH_RANGE,
           help="plies of remaining depth a node needs to probe the tables",
           get=lambda parts: parts.tablebases.probe_depth,
           set=lambda parts, plies: parts.tablebases.set_probe_depth(plies),
           xboard="SyzygyProbeDepth", xboard_rank=23),
    _scale("kscale", "KingSafety", 100, 0, "king safety weight (percent)", 14),
    _scale("tropism", "KingTropism", 100, 0, "king tropism weight (percent)", 15),
    _scale("pscale", "PawnStructure", 100, 0, "pawn structure weight (percent)", 16),
    _scale("ppscale", "PassedPawns", 100, 0, "passed pawn weight (percent)", 17),
    _scale("bscale", "BlockedPawns", 100, 0, "blocked pawn weight (percent)", 18),
    _scale("asymmetry", "Asymmetry", 0, -100, "own king safety counted against the opponent's (percent)", 19),
    # XBoard's own: resign when this many pawns behind (0: never); the console's `resign N`.
    Option("Resign", SPIN, 0, 0, 50, help="resign after three searches in a row at or below minus this many pawns "
                                          "(0: never)",
           get=lambda front: front.resign_pawns, set=lambda front, pawns: front.set_resign(pawns),
           uci=False, xboard="Resign", xboard_rank=7, front_end=True),
    # The console's own (Crafty's commands), offered to no GUI.
    Option("PawnHash", SPIN, DEFAULT_PAWN_HASH_BYTES // MEGABYTE, 0, 1024, applies=AT_SEARCH_END,
           help="each search thread's pawn hash in MB",
           get=lambda parts: _megabytes(parts.settings.pawn_hash_bytes),
           set=lambda parts, mb: parts.settings.set_pawn_hash_size(int(mb * MEGABYTE)),
           uci=False, console="hashp", report="resources"),
    Option("DrawScore", SPIN, 0, -500, 500, help="what a draw is worth (cp, + to like draws): minus Contempt",
           get=lambda parts: parts.searcher.core.draw_score,
           set=lambda parts, cp: setattr(parts.searcher.core, "draw_score", cp), uci=False, console="drawscore"),
    Option("Skill", SPIN, 100, 1, 100, help="Crafty's skill: 1 weakest, 100 full strength",
           get=lambda parts: parts.strength.skill, set=lambda parts, skill: parts.strength.set_skill(skill),
           uci=False, console="skill"),
    Option("HelperMinDepth", SPIN, 1, 1, 100, help="helper threads search only iterations this deep or deeper",
           get=lambda parts: parts.helpers.min_depth,
           set=lambda parts, depth: setattr(parts.helpers, "min_depth", depth),
           uci=False, console="smpmin"),
    Option("ClaimFlag", CHECK, False, help="claim the win when the opponent's clock runs out (XBoard)",
           get=lambda parts: parts.state.record.claim_flag,
           set=lambda parts, on: setattr(parts.state.record, "claim_flag", on), uci=False, console="flag"),
    Option("Whisper", SPIN, 0, 0, 6, help="on a server: what is whispered after each move (0 nothing .. 6 most)",
           get=lambda parts: parts.ics.whisper_level,
           set=lambda parts, level: setattr(parts.ics, "whisper_level", level), uci=False, console="whisper"),
    Option("Kibitz", SPIN, 0, 0, 6, help="on a server: what is kibitzed after each move (0 nothing .. 6 most)",
           get=lambda parts: parts.ics.kibitz_level,
           set=lambda parts, level: setattr(parts.ics, "kibitz_level", level), uci=False, console="kibitz"),
    Option("Noise", SPIN, 0, 0, 1 << 62, help="nodes a search makes before its thinking, whispers and kibitzes show",
           get=lambda parts: parts.ics.noise_nodes,
           set=lambda parts, nodes: setattr(parts.ics, "noise_nodes", nodes), uci=False, console="noise"),
    Option("MaxHelpers", SPIN, MAX_THREADS - 1, 0, MAX_THREADS - 1, help="the most helper threads one search uses",
           get=lambda parts: parts.helpers.max_helpers,
           set=lambda parts, helpers: setattr(parts.helpers, "max_helpers", helpers), uci=False, console="smpmax"),
)

BY_NAME: dict[str, Option] = {option.name.lower(): option for option in OPTIONS}
BY_XBOARD: dict[str, Option] = {option.xboard.lower(): option for option in OPTIONS if option.xboard}
BY_CONSOLE: dict[str, Option] = {option.console: option for option in OPTIONS if option.console}
BY_XBOARD_COMMAND: dict[str, Option] = {option.xboard_command: option for option in OPTIONS if option.xboard_command}
UCI_ROWS: tuple[Option, ...] = tuple(option for option in OPTIONS if option.uci)
XBOARD_ROWS: tuple[Option, ...] = tuple(sorted((option for option in OPTIONS if option.xboard),
                                               key=lambda option: option.xboard_rank))


def find(name: str, front_end: str = "uci") -> Option | None:
    """The row a front end's name for it stands for (case-insensitive; the console's words as typed;
    front_end "xboard command": the XBoard command that sets it)."""
    if front_end == "console":
        return BY_CONSOLE.get(name.lower())
    if front_end == "xboard command":
        return BY_XBOARD_COMMAND.get(name)
    table = BY_XBOARD if front_end == "xboard" else BY_NAME
    option = table.get(name.strip().lower())
    if option is None and front_end == "xboard":
        option = BY_NAME.get(name.strip().lower())   # UCI's name ("Move Overhead"), typed by hand, works too
        return option if option is not None and option.xboard else None
    return option if option is not None and (front_end != "uci" or option.uci) else None

