"""Random and malformed input for `ponderosa --xboard` (hypothesis): one engine process per
mode (force, playing, pondering, analysing, edit), batches of generated lines, and after each
batch the process must be alive, answer `ping N` with `pong N`, print only well-formed lines,
and have written no traceback. At least 10,000 lines per run.

Every option the engine declares is set (and `egtpath`), with values that include device files,
FIFOs, folders, a file too large for anything, huge numbers and junk; `variant fischerandom` and
Chess960 positions come too. The engine runs in a 2 GB address space (a small machine), so a hash
beyond it is refused and the old table kept; its peak resident memory (VmHWM) must stay within the
tables its options may ask for (64 MB of hash, and 64 threads' own tables) plus 500 MB.

The generator never sends `quit` (it would end the process, rightly) and keeps the hash sizes it
sends small or beyond the address space (a legal `memory 1000` makes every later `new` clear a
1 GB table)."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.uci_harness import bad_files, peak_megabytes
from tests.xboard_harness import F_CASTLE, F_EPFEN, F_MID, F_PROMO, F_W1, MOVE, PONG, XBoardEngine

# 5 modes: 10,500 lines a run
# PONDEROSA_FUZZ_LINES sets another count per mode for a long run (with PONDEROSA_FUZZ_RANDOM=1)
LINES_PER_MODE = int(os.environ.get("PONDEROSA_FUZZ_LINES", "2100"))
BATCH = 150
PONG_SECONDS = 10.0            # after `?`: a thinking engine moves first, then pongs

COMMAND_WORDS = [
    "xboard", "protover", "accepted", "rejected", "new", "variant", "force", "go", "playother", "white", "black",
    "level", "st", "sd", "nps", "time", "otim", "usermove", "?", "ping", "draw", "result", "setboard", "edit",
    "hint", "bk", "undo", "remove", "hard", "easy", "post", "nopost", "analyze", "exit", ".", "name", "rating",
    "ics", "computer", "random", "pause", "resume", "memory", "cores", "egtpath", "option", "exclude",
    "include", "hover", "lift", "put", "setscore", "uci", "isready", "stop", "#", "c", "Ka1", "xa4", "Pa7",
]
SQUARES = [f + r for f in "abcdefgh" for r in "12345678"]
CHESS960 = ["bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 9",
            "nnrbbkqr/2pppp1p/p7/6p1/1p2P3/4QPP1/PPPP3P/NNRBBK1R w HChc - 0 9",
            "bn1brqkr/pppp2p1/3npp2/7p/PPP5/8/3PPPPP/BNNBRQKR w KQkq - 0 9"]
FENS = [F_W1, F_CASTLE, F_EPFEN, F_MID, F_PROMO, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", *CHESS960]
OPTION_NAMES = ["Hash", "Ponder", "OwnBook", "Contempt", "Threads", "Log", "Resign", "Learn", "BookLearnThreshold",
                "MultiPV", "UCI_LimitStrength", "UCI_Elo", "EvalFile", "SyzygyPath", "SyzygyProbeDepth",
                "KingSafety", "KingTropism", "PawnStructure", "PassedPawns", "BlockedPawns", "Asymmetry",
                "Nonexistent", "", "Hash Size"]
# Paths a careless GUI sends; {FIFO}, {BIG} and {FOLDER} become files of the test's own.
PATHS = ["/dev/zero", "/dev/null", "/dev/urandom", "/", "/proc/self/mem", "{FIFO}", "{BIG}", "{FOLDER}",
         "<default>", "no-such-file.nnue", "~", "C:\\Program Files\\x.bin"]
ADDRESS_SPACE = 2 << 30
# The memory the options ask for: the largest hash the generator lets through, and for every search
# thread (`cores`, option Threads: up to 64) its own pawn hash (4 MB), 1 MB evaluation cache and
# about 3 MB of search statistics and stack; the peak stays within that plus 500 MB.
PEAK_MB = 64 + 64 * (4 + 4) + 500

numbers = st.one_of(
    st.integers(-10**30, 10**30).map(str),
    st.integers(-5, 100).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["inf", "-inf", "nan", "1e308", "1e-308", "0x10", "00", "-0", "1_000", "5:", ":30", "0:60",
                     "1:2:3", "99999999999999999999999999999999", "+1", "١٢٣"]),
)
garbage = st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=12)
tokens = st.one_of(numbers, garbage, st.sampled_from(SQUARES + COMMAND_WORDS))
option_values = st.one_of(tokens, st.sampled_from(PATHS))


@st.composite
def moves(draw: st.DrawFn) -> str:
    """A move in one of many notations, often illegal or impossible."""
    a, b = draw(st.sampled_from(SQUARES)), draw(st.sampled_from(SQUARES))
    piece = draw(st.sampled_from(["", "N", "B", "R", "Q", "K", "P"]))
    promo = draw(st.sampled_from(["", "q", "Q", "=Q", "=n", "k", "x"]))
    text = draw(st.sampled_from([
        f"{a}{b}{promo}", f"{piece}{b}", f"{piece}x{b}", f"{a}-{b}", f"{piece}{a}{b}", "O-O", "O-O-O", "0-0",
        "0-0-0", "o-o", f"{piece or 'P'}@{b}", "@@@@", f"{a}{b},{b}{a}", f"{a}{b}+", f"{piece}{b}#", "e2e4",
        "e7e5", "g1f3", "Nf3", "e4", "i9j0", "a0a9", "e2e4e5",
    ]))
    return draw(st.sampled_from(["", "usermove ", "usermove  "])) + text


@st.composite
def fens(draw: st.DrawFn) -> str:
    """A FEN, mangled: characters replaced, fields dropped or added, counters absurd."""
    fields = draw(st.sampled_from(FENS)).split()
    choice = draw(st.integers(0, 5))
    if choice == 0:
        fields = fields[:draw(st.integers(0, len(fields)))]
    elif choice == 1:
        board = list(fields[0])
        for _ in range(draw(st.integers(1, 4))):
            board[draw(st.integers(0, len(board) - 1))] = draw(st.sampled_from(list("pnbrqkPNBRQK12345678/9x ")))
        fields[0] = "".join(board)
    elif choice == 2:
        fields += draw(st.lists(tokens, max_size=3))
    elif choice == 3 and len(fields) >= 6:
        fields[4], fields[5] = draw(numbers), draw(numbers)
    elif choice == 4:
        fields[1:4] = [draw(st.sampled_from(["w", "b", "x", "W", ""])), draw(st.sampled_from(["KQkq", "-", "HAha",
                                                                                             "KQkqKQ", "z"])),
                       draw(st.sampled_from(["-", "e3", "e6", "d6", "z9", "a1"]))]
    return "setboard " + " ".join(fields)


def command_lines() -> st.SearchStrategy[str]:
    word = st.sampled_from(COMMAND_WORDS)
    return st.one_of(
        st.builds(lambda w, args: " ".join([w, *args]), word, st.lists(tokens, max_size=4)),
        st.builds(lambda name, value: f"option {name}={value}", st.sampled_from(OPTION_NAMES), option_values),
        st.builds(lambda name: f"option {name}", st.sampled_from(OPTION_NAMES)),
        st.builds(lambda path: f"egtpath syzygy {path}", st.sampled_from(PATHS)),
        st.builds(lambda fen: f"setboard {fen}", st.sampled_from(CHESS960)),
        st.sampled_from(["variant fischerandom", "variant normal", "variant", "variant 3check", "new"]),
    )


lines = st.one_of(
    st.binary(max_size=40).map(lambda raw: raw.decode("utf-8", errors="replace")),
    st.binary(max_size=40).map(lambda raw: raw.decode("latin-1")),
    command_lines(), command_lines(), command_lines(),
    moves(), moves(), fens(),
    st.sampled_from(["", " ", "\t", "\r", "   \r", "ping", "ping -1", "ping x", "result", "result 1-0",
                     "result * {", "level 0 0 0", "st 0", "time 0", "sd 1", "nps 1", "post", "go", "?", "edit",
                     "." , "exclude all", "include all", "analyze", "exit", "new"]),
    st.builds(lambda line: line + "\r", command_lines()),
)


def sendable(line: str, files: dict[str, str]) -> list[str]:
    """The generated text as the lines the engine will read: no `quit`, no hash tables between 64
    MB and the address space (those beyond it are refused), the test's files named."""
    for name, path in files.items():
        line = line.replace(name, path)
    kept = []
    for piece in line.replace("\r\n", "\n").replace("\r", "\r\n").split("\n"):
        word = piece.strip().partition(" ")[0]
        if word == "quit":
            continue
        if re.match(r"^\s*(memory|option\s+Hash)", piece) and any(
                n.isdigit() and 64 < int(n) < 100_000 for n in re.findall(r"\d+", piece)):
            piece = "memory 16"
        kept.append(piece)
    return kept


# Everything the engine may print (§5): anything else is stray output.
ALLOWED_OUTPUT = re.compile(
    r"^(feature .*|move \S+|pong( \S+)?|Error \([^)]*\): .*|Illegal move(\s*\([^)]*\))?: .*|"
    r"\s*\d+[ \t]+-?\d+[ \t]+\d+[ \t]+\d+([ \t].*)?|(1-0|0-1|1/2-1/2) \{[^}]*\}|offer draw|resign|"
    r"tellusererror .*|telluser .*|Hint: \S+|stat01: .*| .*|#.*|"
    r"(tellall|tellothers|tellics|tellicsnoalias) .*|)$", re.DOTALL)   # server mode (`ics HOST`) talks

MODES = {
    # mode: (commands that enter it, whether to wait for the engine's move first)
    "force": (["new", "force", "e2e4", "e7e5"], False),
    "playing": (["new", f"setboard {F_MID}", "level 0 1 0", "time 6000", "otim 6000", "go"], False),
    "pondering": (["new", "hard", "st 0.2", "e2e4"], True),
    "analysing": (["new", "force", "post", "analyze"], False),
    "edit": (["new", "force", "edit", "#", "Ka1"], False),
}


@pytest.mark.parametrize("mode", list(MODES))
def test_fuzz_mode(mode: str, tmp_path: Path) -> None:
    files = bad_files(tmp_path)
    engine = XBoardEngine(cwd=str(tmp_path), address_space=ADDRESS_SPACE)   # option Log writes its file there
    engine.init("P")
    sent = {"lines": 0, "batches": 0}

    def check(batch_lines: list[str]) -> None:
        number = 1000 + sent["batches"]
        engine.send(".", "exit", "resume", "?", f"ping {number}")
        deadline = time.monotonic() + PONG_SECONDS
        while True:
            line = engine.read(max(0.0, deadline - time.monotonic()), keep_thinking=True)
            if line is None:
                engine.fail(f"no pong {number} after a batch (alive: {engine.alive()}); the batch was:\n"
                            + "\n".join(repr(text) for text in batch_lines[-40:]))
            assert ALLOWED_OUTPUT.match(line.text), f"stray output {line.text!r}"
            match = PONG.match(line.text)
            if match and match.group(1) == str(number):
                break
        crash = engine.crash_report()
        assert crash is None, f"traceback after a batch:\n{crash}\nbatch:\n" + "\n".join(map(repr, batch_lines))
        peak = peak_megabytes(engine.process.pid)
        assert peak < PEAK_MB, f"peak resident memory {peak:.0f} MB"

    @settings(max_examples=LINES_PER_MODE // BATCH + 1, deadline=None, database=None,
              derandomize=os.environ.get("PONDEROSA_FUZZ_RANDOM") is None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.lists(lines, min_size=BATCH, max_size=BATCH))
    def batch(generated: list[str]) -> None:
        setup, wait_for_move = MODES[mode]
        engine.send(*setup)
        if wait_for_move:
            engine.expect_line(MOVE, 3.0)
        to_send = [piece for line in generated for piece in sendable(line, files)]
        engine.write_raw("".join(piece + "\n" for piece in to_send).encode("utf-8", errors="surrogateescape"))
        sent["lines"] += len(to_send)
        sent["batches"] += 1
        check(to_send)

    try:
        batch()
    finally:
        engine.close()
    assert sent["lines"] >= LINES_PER_MODE
