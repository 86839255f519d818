"""The `ponderosa` program's entry point: it answers an XBoard GUI's handshake before the engine
has loaded, then runs the program (protocol/cli.py).

Loading the engine (Python, python-chess, the compiled core, the book) takes about a tenth of a
second on a quiet machine and many times that on a busy one; tournament managers and bot clients
start engines often, and XBoard, cutechess and python-chess give one about 2 s from `protover`
to `feature ... done=1`. So a thread started before anything heavy is imported reads the input
and hands every line on, unchanged and in order, through a pipe that becomes the program's
standard input. While nothing but the handshake has arrived it answers it itself:
- `protover`: every feature line, `done=1` last (protocol/xboard/features.py; the session then
  stays silent). With a .ponderosarc, which may change the settings the features show, it sends
  `feature done=0` ("wait for done=1") instead and the session answers once it has loaded.
- `ping N` after that: `pong N` (everything before it, `xboard`, `protover`, `accepted`,
  `rejected`, has been answered or needs no answer), and the ping is not handed on.
The first other line ends this: from then on every line, pings included, goes to the program.
Until the program starts reading, each line handed on is noted with the time it came
(protocol/arrivals.py): a move asked for while the engine loaded is charged the wait."""
from __future__ import annotations

import os
import stat
import sys
import threading
from typing import BinaryIO

from ponderosa.protocol.arrivals import ARRIVALS, ArrivalNotes
from ponderosa.protocol.xboard.features import EarlyAnswer, feature_lines

WAIT_FOR_DONE = b"feature done=0\n"
HANDSHAKE = {b"xboard", b"protover", b"accepted", b"rejected"}   # lines that need no engine
STARTUP_SWITCH_INTERVAL = 0.0005   # s: the relay gets the interpreter soon while the engine loads


def main() -> int:
    relay_input()
    usual = sys.getswitchinterval()
    sys.setswitchinterval(STARTUP_SWITCH_INTERVAL)
    try:
        from ponderosa.protocol.cli import main as run_program  # the engine loads here
    finally:
        sys.setswitchinterval(usual)
    return run_program()


def relay_input() -> None:
    """Put the relay between a GUI's pipe and the program's standard input (a person at a
    terminal and a file given as input need none)."""
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return   # no standard input at all
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return
    source = os.fdopen(os.dup(0), "rb")
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)   # sys.stdin has read nothing yet: from now on it reads the relay's pipe
    os.close(read_end)
    sink = os.fdopen(write_end, "wb")
    ARRIVALS.start_recording()
    threading.Thread(target=relay, args=(source, sink, not has_startup_file()), name="input relay",
                     daemon=True).start()


def has_startup_file() -> bool:
    """A .ponderosarc where the program looks for one (protocol/cli.py's startup_file)."""
    # os.path, not pathlib: pathlib's import alone costs a start-up about 10 ms.
    folders = (os.getcwd(), os.path.expanduser("~"))
    return any(os.path.isfile(os.path.join(folder, ".ponderosarc")) for folder in folders)


def relay(source: BinaryIO, sink: BinaryIO, answer_features: bool = True, arrivals: ArrivalNotes = ARRIVALS) -> None:
    """Copy source to sink line by line, answering the handshake while it is all that came (see
    the module's text), and noting in arrivals when each line handed on came; the end of source
    closes sink, which the program reads as the end of its input."""
    answered = False       # the first protover
    handshake_only = True  # nothing but handshake lines so far
    with source, sink:
        for line in source:
            words = line.split()
            word = words[0] if words else b""
            if handshake_only and answered and word == b"ping" and answer_features:
                os.write(1, b" ".join([b"pong", *words[1:2]]) + b"\n")
                continue
            if word and word not in HANDSHAKE:
                handshake_only = False
            if not answered and word == b"protover":
                if answer_features:
                    EarlyAnswer.sent = True   # before the line reaches the session's protover
                    os.write(1, "".join(f"{text}\n" for text in feature_lines()).encode())
                else:
                    os.write(1, WAIT_FOR_DONE)
                answered = True
            arrivals.note(line)   # before the reader can see it (protocol/arrivals.py)
            try:
                sink.write(line)
                sink.flush()
            except BrokenPipeError:
                return   # the program closed its input: nothing more to hand on


if __name__ == "__main__":
    sys.exit(main())
