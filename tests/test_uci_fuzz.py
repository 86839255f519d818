"""Random and malformed input for `ponderosa --uci` (hypothesis), like the XBoard fuzz test: one
engine process per mode (idle, searching, pondering), batches of generated lines (600 per mode); after each
batch `stop` and `isready` must bring `readyok`, every line printed must be a UCI line, and no
traceback may appear. Every option the engine declares is set, with values that include device
files, FIFOs, folders, a file too large for anything, huge numbers and junk; positions include
Chess960 ones. The engine runs in a 2 GB address space (a small machine): a Hash beyond it is
refused and the old table kept. Its peak resident memory (VmHWM) must stay within the tables its
options ask for (the largest Hash it accepted, and each search thread's own tables) plus 500 MB.
The generator never sends `quit`."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.uci_harness import UciEngine, bad_files, peak_megabytes

# 3 modes: 1,800 lines a run
# PONDEROSA_FUZZ_LINES sets another count per mode for a long run (with PONDEROSA_FUZZ_RANDOM=1)
LINES_PER_MODE = int(os.environ.get("PONDEROSA_FUZZ_LINES", "600"))
BATCH = 120
READY_SECONDS = 10.0
MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"
CHESS960 = ["bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 9",
            "nnrbbkqr/2pppp1p/p7/6p1/1p2P3/4QPP1/PPPP3P/NNRBBK1R w HChc - 0 9",
            "bn1brqkr/pppp2p1/3npp2/7p/PPP5/8/3PPPPP/BNNBRQKR w HEhe - 0 9"]
FENS = [MIDGAME, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "8/P7/8/8/8/8/8/k6K w - - 0 1", *CHESS960]
ADDRESS_SPACE = 2 << 30
# The memory the options ask for: Hash, and for every search thread its own pawn hash (4 MB), its
# 1 MB evaluation cache and about 3 MB of search statistics and stack; the peak stays within that
# plus 500 MB.
PEAK_ABOVE_TABLES_MB = 500
PER_THREAD_MB = 4 + 4
COMMANDS = ["uci", "isready", "setoption", "ucinewgame", "position", "go", "stop", "ponderhit", "register", "debug",
            "xboard", "new", "usermove", "ping", "", "info", "bestmove"]
GO_WORDS = ["wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime", "infinite",
            "ponder", "searchmoves"]
OPTION_NAMES = ["Hash", "Clear Hash", "Threads", "Ponder", "OwnBook", "BookFile", "BookRandom", "BookWidth", "Learn",
                "BookLearnThreshold", "LearnStore", "Contempt", "MultiPV", "UCI_AnalyseMode", "UCI_Opponent", "Log",
                "UCI_Chess960", "UCI_LimitStrength", "UCI_Elo", "EvalFile", "SyzygyPath", "SyzygyProbeDepth",
                "KingSafety", "KingTropism", "PawnStructure", "PassedPawns", "BlockedPawns", "Asymmetry",
                "Nonexistent", ""]
# Paths a careless GUI sends; {FIFO}, {BIG} and {FOLDER} become files of the test's own.
PATHS = ["/dev/zero", "/dev/null", "/dev/urandom", "/", "/proc/self/mem", "{FIFO}", "{BIG}", "{FOLDER}",
         "<default>", "<empty>", "no-such-file.nnue", "tests/../..", "~", "C:\\Program Files\\x.bin"]
SQUARES = [f + r for f in "abcdefgh" for r in "12345678"]

numbers = st.one_of(
    st.integers(-10**20, 10**20).map(str), st.integers(-5, 3000).map(str), st.floats().map(repr),
    st.sampled_from(["nan", "inf", "-0", "1e9", "0x10", "", "١٢٣"]),
)
garbage = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=12)
uci_moves = st.builds(lambda a, b, promo: a + b + promo, st.sampled_from(SQUARES), st.sampled_from(SQUARES),
                      st.sampled_from(["", "", "q", "n", "k", "Q"]))
tokens = st.one_of(numbers, garbage, uci_moves, st.sampled_from(GO_WORDS + COMMANDS + ["moves", "fen", "startpos"]))
option_values = st.one_of(tokens, st.sampled_from(PATHS), st.sampled_from(["true", "false", "TRUE", "1", "0"]))


@st.composite
def position_lines(draw: st.DrawFn) -> str:
    fen = draw(st.sampled_from(FENS)).split()
    if draw(st.booleans()):
        fen = fen[:draw(st.integers(0, len(fen)))] + draw(st.lists(tokens, max_size=2))
    start = draw(st.sampled_from(["startpos", "fen " + " ".join(fen), "fen", "", "moves"]))
    moves = draw(st.lists(st.one_of(uci_moves, st.sampled_from(["e2e4", "e7e5", "g1f3", "b8c6"]), tokens),
                          max_size=6))
    return f"position {start} moves {' '.join(moves)}" if draw(st.booleans()) else f"position {start}"


@st.composite
def go_lines(draw: st.DrawFn) -> str:
    words = []
    for _ in range(draw(st.integers(0, 5))):
        word = draw(st.sampled_from(GO_WORDS))
        words.append(word)
        if word not in ("infinite", "ponder") and draw(st.integers(0, 5)):
            words.append(draw(st.one_of(st.integers(-100, 400).map(str), numbers, uci_moves)))
    return "go " + " ".join(words)


@st.composite
def setoption_lines(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(OPTION_NAMES))
    if name == "Hash":   # small ones, or beyond the address space (refused); none in between, which clears take long
        return f"setoption name Hash value {draw(st.sampled_from(['1', '8', '16', 'x', '-4', '', '4096', '10' * 20]))}"
    if name == "Threads":   # a few, or more than the address space holds (refused)
        return f"setoption name Threads value {draw(st.sampled_from(['1', '2', '0', '-3', 'x', '64', '99999']))}"
    return f"setoption name {name} value {draw(option_values)}" if draw(st.booleans()) else f"setoption name {name}"


lines = st.one_of(
    st.binary(max_size=40).map(lambda raw: raw.decode("utf-8", errors="replace")),
    st.builds(lambda word, args: " ".join([word, *args]), st.sampled_from(COMMANDS), st.lists(tokens, max_size=4)),
    position_lines(), position_lines(), go_lines(), go_lines(), setoption_lines(),
    st.sampled_from(["", " ", "\t", "stop", "ponderhit", "isready", "ucinewgame", "go infinite", "go ponder",
                     "go depth 2", "go movetime 50", "debug on", "debug off", "uci"]),
)

ALLOWED_OUTPUT = re.compile(r"^(id (name|author) .*|option name .*|uciok|readyok|bestmove \S+( ponder \S+)?|"
                            r"info .*|registration ok)$")
MODES = {
    "idle": ["ucinewgame", "position startpos"],
    "searching": [f"position fen {MIDGAME}", "go infinite"],
    "pondering": ["position startpos moves e2e4 e7e5", "go ponder wtime 5000 btime 5000"],
}


def sendable(line: str, files: dict[str, str]) -> list[str]:
    """The generated text as the lines the engine reads, without `quit`, the test's files named."""
    for name, path in files.items():
        line = line.replace(name, path)
    return [piece for piece in line.replace("\r", "\n").split("\n") if piece.strip().partition(" ")[0] != "quit"]


def largest_tables_mb(lines: list[str], tables: dict[str, int]) -> None:
    """The largest Hash (one the engine accepted: below the address space) and thread count
    (1 to 64) these lines may have set, folded into tables."""
    for line in lines:
        match = re.match(r"^\s*setoption\s+name\s+(Hash|Threads)\s+value\s+(\d+)\s*$", line)
        if match is None:
            continue
        value = int(match.group(2))
        if match.group(1) == "Hash" and value * (1 << 20) < ADDRESS_SPACE:
            tables["hash"] = max(tables["hash"], value)
        elif match.group(1) == "Threads":
            tables["threads"] = max(tables["threads"], min(value, 64))


@pytest.mark.parametrize("mode", list(MODES))
def test_fuzz_mode(mode: str, tmp_path: Path) -> None:
    files = bad_files(tmp_path)
    engine = UciEngine(("--uci",), address_space=ADDRESS_SPACE)
    engine.send("setoption name OwnBook value false")
    tables = {"hash": 64, "threads": 1}
    sent = {"lines": 0, "batches": 0}

    def check(batch_lines: list[str]) -> None:
        engine.send("stop", "isready")
        deadline = time.monotonic() + READY_SECONDS
        while True:
            line = engine.read(deadline - time.monotonic())
            if line is None:
                raise engine.fail("no readyok after a batch; the batch was:\n"
                                  + "\n".join(repr(text) for text in batch_lines[-40:]))
            assert ALLOWED_OUTPUT.match(line.text), f"stray output {line.text!r}"
            if line.text == "readyok":
                break
        assert engine.process.poll() is None, "the engine ended"
        assert "Traceback" not in engine.stderr, engine.stderr
        assert "internal error" not in "\n".join(engine.transcript[-400:]), engine.transcript[-60:]
        largest_tables_mb(batch_lines, tables)
        peak, bound = peak_megabytes(engine.process.pid), tables["hash"] + tables["threads"] * PER_THREAD_MB
        assert peak < bound + PEAK_ABOVE_TABLES_MB, f"peak {peak:.0f} MB with Hash and threads' tables of {bound} MB"

    @settings(max_examples=LINES_PER_MODE // BATCH + 1, deadline=None, database=None,
              derandomize=os.environ.get("PONDEROSA_FUZZ_RANDOM") is None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.lists(lines, min_size=BATCH, max_size=BATCH))
    def batch(generated: list[str]) -> None:
        engine.send(*MODES[mode])
        to_send = [piece for line in generated for piece in sendable(line, files)]
        assert engine.process.stdin is not None
        engine.process.stdin.write("".join(piece + "\n" for piece in to_send).encode("utf-8", errors="surrogateescape"))
        engine.process.stdin.flush()
        sent["lines"] += len(to_send)
        sent["batches"] += 1
        check(to_send)

    try:
        batch()
    finally:
        engine.close()
    assert sent["lines"] >= LINES_PER_MODE
