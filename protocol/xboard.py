"""XBoard/WinBoard protocol version 2 (CECP): translates the GUI's commands into engine calls
and the engine's reports into protocol lines. See ../shared/PROTOCOL.md."""
from __future__ import annotations

import logging
import queue
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, TextIO

import chess

from ponderosa.engine.book.opening_book import BookProbe, book_moves_text, book_table
from ponderosa.engine.clock import TimeControl
from ponderosa.engine.engine import Engine, IllegalMoveError
from ponderosa.engine.fen import FenError
from ponderosa.engine.identity import FULL_NAME
from ponderosa.engine.notation import san_moves
from ponderosa.engine.search import SearchLimits, SearchResult, Thinking, mate_distance
from ponderosa.protocol.xboard_clock import XBoardClock
from ponderosa.protocol.xboard_ics import XBoardIcs
from ponderosa.protocol.xboard_options import OPTIONS, XBoardOptions
from ponderosa.protocol.xboard_tablebases import XBoardTablebases
from ponderosa.protocol.xboard_threads import XBoardThreads

log = logging.getLogger("ponderosa.xboard")

ENGINE_NAME = FULL_NAME
MOVE_LIKE = re.compile(r"^([a-h][1-8][a-h][1-8](=?[qrbnQRBN])?|[KQRBNP]?[a-h]?[1-8]?x?[a-h][1-8](=?[QRBN])?[+#]?"
                       r"|[O0]-[O0](-[O0])?[+#]?)$")
EDIT_PASSTHROUGH = ("ping", "quit")   # still obeyed inside edit mode, where no piece command looks like them
RESIGN_CONFIRMATIONS = 3        # searches in a row below the resign threshold


@dataclass
class ActiveSearch:
    serial: int
    kind: str                   # "think", "ponder" or "analyze"
    ponder_move: str | None = None
    started: float = 0.0


class Output:
    """One locked writer: whole lines, flushed at once, each one logged."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.lock = threading.Lock()

    def line(self, text: str) -> None:
        with self.lock:
            self.stream.write(text + "\n")
            self.stream.flush()
        log.debug("> %s", text)


class XBoardSession(XBoardClock, XBoardOptions, XBoardIcs, XBoardThreads, XBoardTablebases):
    """The state machine of PROTOCOL.md §2 over an Engine."""

    def __init__(self, engine: Engine, out: TextIO = sys.stdout) -> None:
        self.engine = engine
        self.out = Output(out)
        self.events: queue.Queue = queue.Queue()
        self.running = True
        self.engine_side: bool | None = chess.BLACK   # None = force mode
        self.analyzing = False
        self.post = False              # thinking output only after `post` (§2.1)
        self.ponder_enabled = True
        self.control = TimeControl()
        self.own_seconds: float | None = None
        self.opponent_seconds: float | None = None
        self.moves_played = 0
        self.depth_limit: int | None = None
        self.node_rate: int | None = None
        self.excluded: set[str] = set()
        self.pending_pings: list[str] = []
        self.active: ActiveSearch | None = None
        self.ponder_result: SearchResult | None = None
        self.paused_kind: str | None = None
        self.invalid_position = False
        self.editing: dict | None = None
        self.draw_offered = False
        self.last_scores: list[int] = []
        self.last_report: Thinking | None = None
        self.resign_pawns = 0
        self.usage_percent = 0
        self.operator_seconds = 0.0
        self.ics_init()

    # -- the loop ---------------------------------------------------------------

    def run(self, stream: TextIO) -> None:
        """Read commands from stream on a thread of its own and execute them in order."""
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # xboard may send SIGINT; features say so
        except ValueError:
            pass   # not in the main thread (tests)
        tolerate_bad_bytes(stream, self.out.stream)
        threading.Thread(target=self._read, args=(stream,), name="xboard-input", daemon=True).start()
        while self.running:
            kind, *payload = self.events.get()
            try:
                if kind == "line":
                    self.handle(payload[0])
                elif kind == "done":
                    self._search_finished(payload[0], payload[1])
                elif kind == "eof":
                    self.quit()
            except Exception:   # a bug must never end a game: log it and keep playing
                log.exception("error while handling %r", payload)
        self.engine.end_search()

    def _read(self, stream: TextIO) -> None:
        for raw in stream:
            self.events.put(("line", raw))
        self.events.put(("eof",))

    def handle(self, raw: str) -> None:
        line = raw.strip()
        log.debug("< %s", line)
        if not line:
            return
        word, _, rest = line.partition(" ")
        if self.editing is not None and word not in EDIT_PASSTHROUGH:
            self._edit_line(line)
            return
        handler = COMMANDS.get(word)
        if handler is not None:
            handler(self, rest.strip())
        elif MOVE_LIKE.match(word) and not rest:
            self.user_move(word)
        else:
            self.out.line(f"Error (unknown command): {word}")

    # -- searches ---------------------------------------------------------------

    def _start(self, kind: str, limits: SearchLimits, ponder_move: str | None = None,
               excluded: set[str] | None = None) -> None:
        started = time.monotonic()
        # The positions the PV is printed from, fixed now: the search thread must not read the
        # game while the protocol thread plays moves on it (a ponder hit does).
        before_ponder = self.engine.game.copy(stack=False)
        searched = before_ponder.copy(stack=False)
        if ponder_move is not None:
            searched.push_uci(ponder_move)
        search = ActiveSearch(0, kind, ponder_move, started)

        def thinking(report: Thinking) -> None:
            try:
                predicted = search.ponder_move   # None again after a ponder hit
                if predicted is not None:
                    self._show_thinking(report, before_ponder, [predicted])
                else:
                    self._show_thinking(report, searched, [])
                    self.ics_on_thinking(report, searched)
            except Exception:   # a report must never end the search (no move would follow)
                log.exception("thinking report failed")

        def finished(serial: int, result: SearchResult) -> None:
            self.events.put(("done", serial, result))

        self.ponder_result = None
        if kind == "ponder":
            serial = self.engine.ponder(ponder_move, limits, thinking, finished)
            if serial is None:
                return
            search.serial = serial
        else:
            search.serial = self.engine.start_search(limits, thinking, finished,
                                                     self.excluded if excluded is None else excluded)
        self.active = search

    def _abandon(self) -> None:
        """Stop any search; its result will be ignored. Pings held back for the move that now
        never comes are answered (every command before them is done)."""
        self.active = None
        self.engine.end_search()
        self.ponder_result = None
        self._apply_deferred_settings()
        self._flush_pings()

    def start_thinking(self) -> None:
        """The engine is on move: claim a finished game, or search and later play a move."""
        if self.invalid_position:
            return
        self.ics_start_game()
        outcome = self.engine.outcome()
        if outcome is not None or not self.engine.legal_moves():
            self._claim(outcome)
            return
        probe = self.engine.book_probe()
        if probe.move is not None:
            self._play_book_move(probe)
            return
        if probe.search_only:
            limits, excluded = self.engine.book_search(probe, self._think_limits())
            self._send_debug(f"book moves {{{probe.search_only_text(self.engine.game)}}}: searching them")
            self._start("think", limits, excluded=excluded | self.excluded)
            return
        self._start("think", self._think_limits())

    def _play_book_move(self, probe: BookProbe) -> None:
        """Play the book's move at once; with post on, a thinking line tells the GUI it was book."""
        assert probe.decision is not None and probe.move is not None
        chance = probe.chance
        san = self.engine.san(probe.move)
        moves = book_moves_text(probe.decision, self.engine.game)
        self._send_debug(f"book move {san} ({chance * 100:.0f}%) from {{{moves}}}")
        if self.post:
            self.out.line(f"0 0 0 0 {san} {{book {chance * 100:.0f}%}}")
        self._send_move(probe.move, None)
        self.ics_book_move(san, chance, moves)

    def _send_move(self, uci: str, searched: SearchResult | None) -> bool:
        """Play the engine's move and send it, then any claim and the held pongs; True while
        the game goes on. The move line goes out first: the learner may write to its store
        when it notes the move, and that time is not the engine's to spend on the clock."""
        self.out.line(f"move {uci}")
        self.engine.play_own_move(uci, searched)
        self.moves_played += 1
        outcome = self.engine.outcome()
        if outcome is not None:
            self._claim(outcome)
        self._flush_pings()
        return outcome is None

    def _send_debug(self, text: str) -> None:
        """A `#` line: GUIs ignore it (feature debug=1), xboard's debug file keeps it."""
        self.out.line(f"# {text}")

    def start_pondering(self, expected: str | None) -> None:
        if not (self.ponder_enabled and self.engine_side is not None and self.engine.can_ponder(expected)):
            return
        self._start("ponder", SearchLimits(depth=self.depth_limit), ponder_move=expected)

    def start_analysis(self) -> None:
        if self.invalid_position or not self.engine.legal_moves():
            return
        self._start("analyze", SearchLimits())

    def _search_finished(self, serial: int, result: SearchResult) -> None:
        active = self.active
        if active is None or active.serial != serial:
            return   # a search that was abandoned
        if active.kind == "ponder":
            self.ponder_result = result   # kept for a ponder hit
            return
        if active.kind == "analyze":
            return
        self.active = None
        self._apply_deferred_settings()
        self._play(result)

    def _play(self, result: SearchResult) -> None:
        """Send the engine's move (or resign), then claims, pongs, and start pondering."""
        if result.best_move is None:
            self._claim(self.engine.outcome())
            self._flush_pings()
            return
        self.ics_keep_score(result.score)
        resign = self.ics_should_resign(result)   # None outside server mode
        if resign is None:
            resign = self._should_resign()
        if resign:
            self.out.line("resign")
            self.engine.finish_game("0-1" if self.engine.white_to_move else "1-0")
            self.engine_side = None
            self._flush_pings()
            return
        if (self.draw_offered and self._accepts_draw(result.score)) or self.ics_offers_draw():
            self.out.line("offer draw")
        self.draw_offered = False
        chatter = self.ics_move_chatter(result)
        going_on = self._send_move(result.best_move, result)
        self.ics_say(chatter)
        if going_on:
            self.start_pondering(result.ponder_move)

    def _claim(self, outcome: tuple[str, str] | None) -> None:
        if outcome is not None:
            self.out.line(f"{outcome[0]} {{{outcome[1]}}}")
            self.engine.finish_game(outcome[0])

    def _flush_pings(self) -> None:
        for number in self.pending_pings:
            self.out.line(f"pong {number}".rstrip())
        self.pending_pings.clear()

    def _should_resign(self) -> bool:
        limit = -100 * self.resign_pawns
        recent = self.last_scores[-RESIGN_CONFIRMATIONS:]
        return (self.resign_pawns > 0 and len(recent) == RESIGN_CONFIRMATIONS
                and all(score <= limit for score in recent))

    def _accepts_draw(self, score: int) -> bool:
        """Take a draw when the position is dead drawn or the engine stands worse than a draw."""
        on_server = self.ics_accepts_draw(score)
        if on_server is not None:
            return on_server
        return self.engine.game.is_insufficient_material() or score <= self.engine.draw_score - 25

    def _show_thinking(self, report: Thinking, board: chess.Board, prefix: list[str]) -> None:
        """One thinking line; the PV (prefix, then the search's PV) is printed in SAN from board."""
        self.last_report = report
        # With one line, fail-high lines are shown too: they name a new best move, perhaps the one
        # played when time runs out. Several lines show only exact scores, one per line and depth.
        shown = report.bound == "exact" or (report.bound == "lower" and report.lines == 1)
        if not self.post or not shown:
            return
        mate = mate_distance(report.score)
        score = report.score if mate is None else (100000 + mate if mate > 0 else -100000 + mate)
        pv = self._pv_text(board, prefix + report.pv)
        if report.tbhits is not None:   # seldepth, speed and tbhits go together (PROTOCOL.md), then a tab
            nps = int(report.nodes / report.seconds) if report.seconds > 0 else 0
            self.out.line(f"{report.depth} {score} {int(report.seconds * 100)} {report.nodes} "
                          f"{report.seldepth} {nps} {report.tbhits}\t{pv}")
            return
        self.out.line(f"{report.depth} {score} {int(report.seconds * 100)} {report.nodes} {pv}")

    @staticmethod
    def _pv_text(start: chess.Board, pv: list[str]) -> str:
        return " ".join(san_moves(start, pv))

    # -- moves from the GUI -----------------------------------------------------

    def user_move(self, text: str) -> None:
        if self.invalid_position:
            self.out.line(f"Illegal move: {text}")
            return
        try:
            uci = self.engine.parse_move(text)
        except IllegalMoveError:
            self.out.line(f"Illegal move: {text}")
            return
        active = self.active
        if active is not None and active.kind == "ponder":
            if uci == active.ponder_move:
                self._ponder_hit(uci)
                return
            self._abandon()
        elif active is not None:
            self._abandon()
        self.engine.make_move(uci)
        self.excluded.clear()
        if self.analyzing:
            self.start_analysis()
        elif self.engine_side is not None and self.engine_side == self.engine.game.turn:
            self.start_thinking()

    def _ponder_hit(self, uci: str) -> None:
        """The opponent played the expected move: the ponder search becomes the real search."""
        self.engine.make_move(uci)
        self.excluded.clear()
        assert self.active is not None
        self.active.kind = "think"
        self.active.ponder_move = None
        if self.ponder_result is not None:
            # The ponder search already ended (a forced line or depth limit): play its move.
            result, self.ponder_result = self.ponder_result, None
            self.active = None
            self._play(result)
            return
        soft, hard = self._budget()
        if self.node_rate:
            self.engine.set_time_budget(0.0, 0.0)   # node clock: play what pondering found
            return
        # The budget counts from the start of pondering: time already spent thinking on the
        # expected move is spent, and a long ponder makes an instant reply.
        self.engine.set_time_budget(soft, hard)

    # -- edit mode --------------------------------------------------------------

    def _edit_line(self, line: str) -> None:
        state = self.editing
        assert state is not None
        if line == ".":
            self.editing = None
            try:
                self.engine.set_pieces(state["pieces"], self.engine.game.turn == chess.WHITE)
                self.invalid_position = False
            except (FenError, ValueError):
                self.invalid_position = True
                self.out.line("tellusererror Illegal position")
            self.excluded.clear()
            if self.analyzing:
                self.start_analysis()
        elif line == "#":
            state["pieces"].clear()
        elif line == "c":
            state["white"] = not state["white"]
        elif re.match(r"^[PNBRQKX][a-h][1-8]$", line, re.IGNORECASE):
            square = chess.parse_square(line[1:3])
            if line[0] in "xX":
                state["pieces"].pop(square, None)
            else:
                state["pieces"][square] = line[0].upper() if state["white"] else line[0].lower()
        else:
            self.out.line(f"Error (bad edit command): {line}")

    # -- commands ---------------------------------------------------------------

    def cmd_protover(self, args: str) -> None:
        options = [f'option="{name} -spin {default} {low} {high}"' if kind == "spin" else
                   f'option="{name} -check {default}"' for name, (kind, default, low, high) in OPTIONS.items()]
        self.out.line(f'feature ping=1 setboard=1 playother=1 san=0 usermove=1 time=1 draw=1 sigint=0 '
                      f'sigterm=0 reuse=1 analyze=1 myname="{ENGINE_NAME}" variants="normal" colors=0 ics=1 '
                      f'name=1 pause=1 nps=1 debug=1 memory=1 smp=1 exclude=1 setscore=0')
        for option in options + self.tablebase_features():
            self.out.line(f"feature {option}")
        self.out.line("feature done=1")

    def cmd_new(self, args: str) -> None:
        self._abandon()
        self.engine.new_game()
        self.engine_side = chess.BLACK
        self.depth_limit = None
        self.node_rate = None
        self.moves_played = 0
        self.excluded.clear()
        self.invalid_position = False
        self.draw_offered = False
        self.last_scores = []
        self.own_seconds = self.opponent_seconds = None
        self.ics_new_game()
        if self.analyzing:
            self.start_analysis()

    def cmd_variant(self, args: str) -> None:
        if args.strip() not in ("normal", "standard"):
            self.out.line(f"Error (command not legal now): variant {args}")

    def cmd_force(self, args: str) -> None:
        self._abandon()
        self.engine_side = None

    def cmd_go(self, args: str) -> None:
        if self.active is not None and self.active.kind == "think":
            return   # already thinking: a second `go` must not make a second move
        self._abandon()
        self.analyzing = False
        self.engine_side = self.engine.game.turn
        self.start_thinking()

    def cmd_playother(self, args: str) -> None:
        self._abandon()
        self.engine_side = not self.engine.game.turn

    def _set_side_to_move(self, white: bool) -> None:
        try:
            self.engine.give_move_to(white)
        except FenError:
            self.invalid_position = True

    def cmd_white(self, args: str) -> None:
        self._abandon()
        self._set_side_to_move(chess.WHITE)
        self.engine_side = chess.BLACK

    def cmd_black(self, args: str) -> None:
        self._abandon()
        self._set_side_to_move(chess.BLACK)
        self.engine_side = chess.WHITE

    def cmd_usermove(self, args: str) -> None:
        self.user_move(args)

    def cmd_move_now(self, args: str) -> None:
        if self.active is not None and self.active.kind == "think":
            self.engine.searcher.stop()   # the search returns its best move, which is then played

    def cmd_ping(self, args: str) -> None:
        number = args.split()[0] if args.split() else ""   # echo N itself, never trailing junk
        if self.active is not None and self.active.kind == "think":
            self.pending_pings.append(number)
        else:
            self.out.line(f"pong {number}".rstrip())

    def cmd_draw(self, args: str) -> None:
        self.draw_offered = True
        if self.active is None or self.active.kind != "think":
            score = self.last_scores[-1] if self.last_scores else 0
            if self.engine_side is not None and self._accepts_draw(score):
                self.out.line("offer draw")
                self.draw_offered = False

    def cmd_result(self, args: str) -> None:
        self._abandon()
        self.ics_result(args)
        self.engine_side = None
        words = args.split()
        if words:
            self.engine.finish_game(words[0])   # the engine learns from the game (a loss above all)

    def cmd_setboard(self, args: str) -> None:
        self._abandon()
        try:
            self.engine.set_position(args)
            self.invalid_position = False
        except FenError:
            self.invalid_position = True
            self.out.line("tellusererror Illegal position")
        self.excluded.clear()
        self.last_scores = []
        if self.analyzing:
            self.start_analysis()

    def cmd_edit(self, args: str) -> None:
        self._abandon()
        pieces = {square: piece.symbol() for square, piece in self.engine.game.piece_map().items()}
        self.editing = {"pieces": pieces, "white": True}

    def cmd_hint(self, args: str) -> None:
        move = self.active.ponder_move if self.active is not None and self.active.kind == "ponder" else None
        if move is None and self.last_report is not None and self.last_report.pv:
            candidate = self.last_report.pv[0]
            if candidate in self.engine.legal_moves():
                move = candidate
        if move is not None:
            self.out.line(f"Hint: {move}")

    def cmd_bk(self, args: str) -> None:
        """The book's candidates for the position, as a popup text (lines start with a space)."""
        decision = self.engine.book_decision() if self.engine.book.enabled else None
        lines = (book_table(decision, self.engine.game) if decision is not None
                 else ["no book moves in this position"])
        for line in lines:
            self.out.line(f" {line}")
        self.out.line("")

    def cmd_undo(self, args: str) -> None:
        self._take_back(1)

    def cmd_remove(self, args: str) -> None:
        self._take_back(2)

    def _take_back(self, plies: int) -> None:
        self._abandon()
        for _ in range(plies):
            try:
                self.engine.undo()
            except IndexError:
                break
        self.excluded.clear()
        self.invalid_position = False
        if self.analyzing:
            self.start_analysis()

    def cmd_hard(self, args: str) -> None:
        self.ponder_enabled = True

    def cmd_easy(self, args: str) -> None:
        self.ponder_enabled = False
        if self.active is not None and self.active.kind == "ponder":
            self._abandon()

    def cmd_post(self, args: str) -> None:
        self.post = True

    def cmd_nopost(self, args: str) -> None:
        self.post = False

    def cmd_analyze(self, args: str) -> None:
        self._abandon()
        self.analyzing = True
        self.engine_side = None
        self.start_analysis()

    def cmd_exit(self, args: str) -> None:
        if self.analyzing:
            self._abandon()
            self.analyzing = False

    def cmd_status(self, args: str) -> None:
        """`.` in analyze mode: a stat01 line from the latest report."""
        if not (self.analyzing and self.active is not None and self.last_report is not None):
            return
        report = self.last_report
        total = len(self.engine.legal_moves())
        self.out.line(f"stat01: {int(report.seconds * 100)} {report.nodes} {report.depth} 0 {total}")

    def cmd_silent(self, args: str) -> None:
        """Commands that need no reply and change nothing here (random, ics, accepted, ...)."""

    def cmd_pause(self, args: str) -> None:
        if self.active is not None:
            self.paused_kind = self.active.kind
            if self.active.kind == "ponder":
                self.paused_kind = None
            self._abandon()

    def cmd_resume(self, args: str) -> None:
        kind, self.paused_kind = self.paused_kind, None
        if kind == "think":
            self.start_thinking()
        elif kind == "analyze":
            self.start_analysis()

    def quit(self, args: str = "") -> None:
        self.running = False
        self.active = None
        self.engine.searcher.stop()


def tolerate_bad_bytes(*streams: TextIO) -> None:
    """Undecodable input bytes (a GUI may send Latin-1) become U+FFFD instead of killing the
    reader thread; unencodable output characters become `?`. Only possible before the first read
    of a stream, so the program calls this at start-up too (the console reads first)."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):
                pass   # already read from: keep the stream as it is





Handler = Callable[[XBoardSession, str], None]
COMMANDS: dict[str, Handler] = {
    "xboard": XBoardSession.cmd_silent, "protover": XBoardSession.cmd_protover,
    "accepted": XBoardSession.cmd_silent, "rejected": XBoardSession.cmd_silent,
    "new": XBoardSession.cmd_new, "variant": XBoardSession.cmd_variant, "force": XBoardSession.cmd_force,
    "go": XBoardSession.cmd_go, "playother": XBoardSession.cmd_playother,
    "white": XBoardSession.cmd_white, "black": XBoardSession.cmd_black,
    "level": XBoardSession.cmd_level, "st": XBoardSession.cmd_st, "sd": XBoardSession.cmd_sd,
    "nps": XBoardSession.cmd_nps, "time": XBoardSession.cmd_time, "otim": XBoardSession.cmd_otim,
    "usermove": XBoardSession.cmd_usermove, "?": XBoardSession.cmd_move_now, "ping": XBoardSession.cmd_ping,
    "draw": XBoardSession.cmd_draw, "result": XBoardSession.cmd_result, "setboard": XBoardSession.cmd_setboard,
    "edit": XBoardSession.cmd_edit, "hint": XBoardSession.cmd_hint, "bk": XBoardSession.cmd_bk,
    "undo": XBoardSession.cmd_undo, "remove": XBoardSession.cmd_remove, "hard": XBoardSession.cmd_hard,
    "easy": XBoardSession.cmd_easy, "post": XBoardSession.cmd_post, "nopost": XBoardSession.cmd_nopost,
    "analyze": XBoardSession.cmd_analyze, "exit": XBoardSession.cmd_exit, ".": XBoardSession.cmd_status,
    "name": XBoardSession.cmd_name, "rating": XBoardSession.cmd_rating, "ics": XBoardSession.cmd_ics,
    "computer": XBoardSession.cmd_computer, "random": XBoardSession.cmd_silent,
    "pause": XBoardSession.cmd_pause, "resume": XBoardSession.cmd_resume, "memory": XBoardSession.cmd_memory,
    "cores": XBoardSession.cmd_cores, "egtpath": XBoardSession.cmd_egtpath, "option": XBoardSession.cmd_option,
    "exclude": XBoardSession.cmd_exclude, "include": XBoardSession.cmd_include, "quit": XBoardSession.quit,
    "hover": XBoardSession.cmd_silent, "lift": XBoardSession.cmd_silent, "put": XBoardSession.cmd_silent,
}
