"""Random and malformed input for `ponderosa --uci` (hypothesis), like the XBoard fuzz test: one
engine process per mode (idle, searching, pondering), batches of generated lines (600 per mode); after each
batch `stop` and `isready` must bring `readyok`, every line printed must be a UCI line, and no
traceback may appear. The generator never sends `quit` and keeps Hash small."""
from __future__ import annotations

import os
import re
import time

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from uci_harness import UciEngine

LINES_PER_MODE = 600           # 3 modes: 1,800 lines a run
BATCH = 120
READY_SECONDS = 10.0
MIDGAME = "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1"
FENS = [MIDGAME, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "8/P7/8/8/8/8/8/k6K w - - 0 1"]
COMMANDS = ["uci", "isready", "setoption", "ucinewgame", "position", "go", "stop", "ponderhit", "register", "debug",
            "xboard", "new", "usermove", "ping", "", "info", "bestmove"]
GO_WORDS = ["wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime", "infinite",
            "ponder", "searchmoves"]
OPTION_NAMES = ["Hash", "Clear Hash", "Threads", "Ponder", "OwnBook", "BookFile", "BookRandom", "BookWidth", "Learn",
                "BookLearnThreshold", "Contempt", "MultiPV", "UCI_AnalyseMode", "UCI_Opponent", "Log", "KingSafety",
                "Nonexistent", ""]
SQUARES = [f + r for f in "abcdefgh" for r in "12345678"]

numbers = st.one_of(
    st.integers(-10**20, 10**20).map(str), st.integers(-5, 3000).map(str), st.floats().map(repr),
    st.sampled_from(["nan", "inf", "-0", "1e9", "0x10", "", "١٢٣"]),
)
garbage = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=12)
uci_moves = st.builds(lambda a, b, promo: a + b + promo, st.sampled_from(SQUARES), st.sampled_from(SQUARES),
                      st.sampled_from(["", "", "q", "n", "k", "Q"]))
tokens = st.one_of(numbers, garbage, uci_moves, st.sampled_from(GO_WORDS + COMMANDS + ["moves", "fen", "startpos"]))


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
    if name == "Hash":
        return f"setoption name Hash value {draw(st.sampled_from(['1', '8', '16', 'x', '-4', '']))}"
    return f"setoption name {name} value {draw(tokens)}" if draw(st.booleans()) else f"setoption name {name}"


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


def sendable(line: str) -> list[str]:
    """The generated text as the lines the engine reads, without `quit`."""
    return [piece for piece in line.replace("\r", "\n").split("\n") if piece.strip().partition(" ")[0] != "quit"]


@pytest.mark.parametrize("mode", list(MODES))
def test_fuzz_mode(mode: str) -> None:
    engine = UciEngine(("--uci",))
    engine.send("setoption name OwnBook value false")
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

    @settings(max_examples=LINES_PER_MODE // BATCH + 1, deadline=None, database=None,
              derandomize=os.environ.get("PONDEROSA_FUZZ_RANDOM") is None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.lists(lines, min_size=BATCH, max_size=BATCH))
    def batch(generated: list[str]) -> None:
        engine.send(*MODES[mode])
        to_send = [piece for line in generated for piece in sendable(line)]
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
