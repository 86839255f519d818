"""Files and folders that input names, as a careless GUI or user names them: a device that never
ends (/dev/zero), a FIFO nobody writes, a folder where a file is meant, and a file far larger than
its kind (a sparse 5 GB file). Given as network (UCI, XBoard, console), book, PGN (`read`,
`reada`, `annotate`), EPD (`test`), learned-data import and Syzygy path, each must be answered
within 2 s by one clear line naming the file and the reason; the engine's peak resident memory
(VmHWM) stays under 500 MB, and it goes on answering and playing with what it had."""
from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.uci_harness import UciEngine, program
from tests.wall_clock import allowed
from tests.xboard_harness import PONG, XBoardEngine

ANSWER_SECONDS = 2.0
PEAK_MEGABYTES = 500
BIG_BYTES = 5 << 30     # beyond every kind's cap (the largest: a book, 4 GB)
DATA = Path(__file__).parent / "data"
POLYGLOT = DATA / "books" / "gnuchess_book.bin"
SYZYGY = DATA / "syzygy"
KINDS = ["dev-zero", "fifo", "folder", "too-large"]
REASONS = {"dev-zero": "not a regular file (a character device)", "fifo": "not a regular file (a FIFO)",
           "folder": "not a regular file (a folder)", "too-large": ""}


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bad-input")
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    (folder / "folder").mkdir()
    big = folder / "big.bin"
    with open(big, "wb") as handle:   # sparse: no disk, but stat() says 5 GB and reading gives zeros
        handle.truncate(BIG_BYTES)
    return {"dev-zero": Path("/dev/zero"), "fifo": fifo, "folder": folder / "folder", "too-large": big}


def peak_megabytes(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc status")


def check_one_line(lines: list[str], path: Path, kind: str, seconds: float) -> None:
    assert seconds <= allowed(ANSWER_SECONDS), f"answered after {seconds:.2f} s: {lines}"
    assert len(lines) == 1, lines
    assert str(path) in lines[0] and REASONS[kind] in lines[0], lines
    if kind == "too-large":
        assert re.search(r"too large|not a directory \(a regular file\)|binary data|not a text file|"
                         r"line longer|neither a Ponderosa book|not a database", lines[0]), lines


def not_a_folder(kind: str) -> str:
    """The reason given for a bad input named where a folder (the Syzygy path) is meant."""
    what = "a regular file" if kind in ("folder", "too-large") else REASONS[kind].split("(")[1][:-1]
    return f"not a directory ({what})"


# -- UCI ----------------------------------------------------------------------------------

def uci_answer(engine: UciEngine, command: str) -> tuple[list[str], float]:
    """The lines before `readyok` that answer command, and how long the first took."""
    sent = time.monotonic()
    engine.send(command, "isready")
    lines: list[str] = []
    first = None
    while True:
        line = engine.read(sent + allowed(10) - time.monotonic())
        assert line is not None, f"no readyok after {command!r}"
        if line.text == "readyok":
            return lines, (first or line.at) - sent
        first = first or line.at
        lines.append(line.text)


@pytest.fixture(scope="module")
def uci() -> UciEngine:
    engine = UciEngine(("--uci",))
    yield engine
    engine.close()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("option", ["EvalFile", "BookFile", "SyzygyPath", "LearnStore"])
def test_uci_option_names_a_bad_file(uci: UciEngine, bad: dict[str, Path], option: str, kind: str) -> None:
    path = bad[kind]
    if option == "SyzygyPath" and kind == "folder":
        path = Path(__file__)   # a folder is what SyzygyPath wants: give it a file instead
    lines, seconds = uci_answer(uci, f"setoption name {option} value {path}")
    if option == "SyzygyPath":
        assert lines == [f"info string Syzygy: {path}: {not_a_folder(kind)}"], lines
        assert seconds <= allowed(ANSWER_SECONDS)
        return
    if option == "LearnStore" and kind == "too-large":   # a regular file: SQLite says what it is not
        assert len(lines) == 1 and str(path) in lines[0] and seconds <= allowed(ANSWER_SECONDS), lines
        return
    check_one_line(lines, path, kind, seconds)
    if option == "EvalFile":
        assert lines[0].endswith("; keeping the network ponderosa.nnue"), lines


def test_uci_keeps_answering_playing_and_its_memory_small(uci: UciEngine, bad: dict[str, Path]) -> None:
    for kind in KINDS:   # again, in a row, then a search: what it had is still in use
        uci_answer(uci, f"setoption name EvalFile value {bad[kind]}")
    lines, _ = uci_answer(uci, "setoption name EvalFile value <default>")
    assert lines == [] or lines[0].startswith("info string evaluation: network ponderosa.nnue"), lines
    uci.send("ucinewgame", "position startpos moves e2e4", "go depth 6")
    line = uci.read(allowed(20))
    while line is not None and not line.text.startswith("bestmove"):
        line = uci.read(allowed(20))
    assert line is not None and re.match(r"bestmove [a-h][1-8][a-h][1-8]", line.text)
    assert peak_megabytes(uci.process.pid) < PEAK_MEGABYTES


# -- XBoard -------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_xboard_evalfile_and_egtpath_name_a_bad_file(bad: dict[str, Path], kind: str) -> None:
    engine = XBoardEngine()
    try:
        engine.init()
        for number, (command, prefix) in enumerate([(f"option EvalFile={bad[kind]}", "telluser EvalFile: "),
                                                    (f"egtpath syzygy {bad[kind]}", "telluser Syzygy: ")], 1):
            if "egtpath" in command and kind == "folder":
                continue   # a folder is what egtpath wants
            sent = engine.send(command, f"ping {number}")
            told = []
            while True:
                line = engine.read(sent + allowed(10) - time.monotonic())
                assert line is not None, engine.transcript[-20:]
                if PONG.match(line.text):
                    break
                if not line.text.startswith("#"):
                    told.append((line.at, line.text))
            assert len(told) == 1 and told[0][1].startswith(prefix), told
            if "egtpath" in command:
                assert told[0][1] == f"telluser Syzygy: {bad[kind]}: {not_a_folder(kind)}", told
            else:
                check_one_line([told[0][1]], bad[kind], kind, told[0][0] - sent)
                assert told[0][1].endswith("keeping the network ponderosa.nnue")
        engine.send("new", "st 0.2", "go")
        engine.expect_move(allowed(10))
        assert peak_megabytes(engine.process.pid) < PEAK_MEGABYTES
    finally:
        engine.close()


# -- console ------------------------------------------------------------------------------

class ConsoleProcess:
    """`ponderosa` at its console over pipes; each command is followed by `echo MARK-n`, so its
    answer is the lines before the mark."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(program(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, cwd=cwd, text=True, bufsize=1)
        self.lines: list[tuple[float, str]] = []
        self.cond = threading.Condition()
        self.marks = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            with self.cond:
                self.lines.append((time.monotonic(), text.rstrip("\n")))
                self.cond.notify_all()

    def answer(self, command: str, seconds: float = 10.0) -> tuple[list[str], float]:
        """The lines that answer command (the banner and prompts left out), and how long the first took."""
        self.marks += 1
        mark = f"MARK-{self.marks}"
        with self.cond:
            start = len(self.lines)
        assert self.process.stdin is not None
        sent = time.monotonic()
        self.process.stdin.write(f"{command}\necho {mark}\n")
        self.process.stdin.flush()
        with self.cond:
            assert self.cond.wait_for(lambda: any(text == mark for _, text in self.lines[start:]),
                                      allowed(seconds)), self.lines[-20:]
            got = self.lines[start:]
        answer = [(at, text) for at, text in got[:[text for _, text in got].index(mark)] if text.strip()]
        return [text for _, text in answer], (answer[0][0] if answer else time.monotonic()) - sent

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write("quit\n")
            self.process.stdin.flush()
            try:
                self.process.wait(allowed(10))
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> ConsoleProcess:
    console = ConsoleProcess(tmp_path_factory.mktemp("console"))
    console.answer("log off")
    yield console
    console.close()


CONSOLE_COMMANDS = {
    "network": "eval {}",
    "book": "book use {}",
    "polyglot": "book polyglot {}",
    "pgn-read": "read {}",
    "pgn-reada": "reada {}",
    "pgn-annotate": "annotate {} wb 1-999 0.5 1",
    "pgn-book-create": "book create {} 10",
    "epd": "test {}",
    "lrn-import": "import {}",
    "syzygy": "tbpath {}",
    "position-file": "setboard {}",
    "command-file": "input {}",
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("what", list(CONSOLE_COMMANDS))
def test_console_command_names_a_bad_file(console: ConsoleProcess, bad: dict[str, Path], what: str,
                                          kind: str) -> None:
    path = bad[kind]
    if what == "syzygy" and kind == "folder":
        path = Path(__file__)
    lines, seconds = console.answer(CONSOLE_COMMANDS[what].format(path))
    if what == "syzygy":
        # tbpath reports the message, then what it found: nothing, the old tables being replaced
        assert lines[0] == f"Syzygy: {path}: {not_a_folder(kind)}", lines
        assert seconds <= allowed(ANSWER_SECONDS), lines
        assert len(lines) == 2 and lines[1].startswith("no tablebase files found"), lines
        return
    check_one_line(lines, path, kind, seconds)
    assert lines[0].startswith("Error: "), lines
    if what == "network":
        assert lines[0].endswith("keeping the network ponderosa.nnue")


def test_console_keeps_its_book_network_and_game(console: ConsoleProcess, bad: dict[str, Path]) -> None:
    lines, _ = console.answer(f"book polyglot {POLYGLOT}")
    for kind in KINDS:
        console.answer(f"book use {bad[kind]}")
        console.answer(f"eval {bad[kind]}")
    lines, _ = console.answer("eval")
    assert lines[-1].startswith("evaluation: network ponderosa.nnue"), lines
    lines, _ = console.answer("new")
    lines, _ = console.answer("bmoves")   # the Polyglot book is still the one in use (its weights)
    assert lines[0].startswith("move") and re.match(r"^e4 +12135 ", lines[1]), lines
    console.answer("st 0.2")
    lines, _ = console.answer("e4", seconds=20)
    assert re.match(r"^Black\(1\): \S+$", lines[-1]), lines
    assert peak_megabytes(console.process.pid) < PEAK_MEGABYTES
