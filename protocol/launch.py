"""The `ponderosa` program's entry point: it answers an XBoard GUI's `protover` before the
engine has loaded, then runs the program (protocol/cli.py).

XBoard, cutechess and python-chess give an engine about 2 s from `protover` to `feature ...
done=1`, and python-chess then starts the game without the features it needs. Loading the
engine (Python, numpy, python-chess, the compiled core, the book) takes a few tenths of a second
on a quiet machine and many times that on a busy one. The protocol's way out is `feature done=0`
("wait for done=1"): a thread started before anything heavy is imported reads the input, sends
it the moment `protover` arrives, and hands every line on, unchanged and in order, through a
pipe that becomes the program's standard input."""
from __future__ import annotations

import os
import stat
import sys
import threading
from typing import BinaryIO

WAIT_FOR_DONE = b"feature done=0\n"


def main() -> int:
    relay_input()
    from ponderosa.protocol.cli import main as run_program  # the engine loads here
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
    threading.Thread(target=relay, args=(source, sink), name="input relay", daemon=True).start()


def relay(source: BinaryIO, sink: BinaryIO) -> None:
    """Copy source to sink line by line, answering the first `protover` at once; the end of
    source closes sink, which the program reads as the end of its input."""
    answered = False
    with source, sink:
        for line in source:
            if not answered and line.split(maxsplit=1)[:1] == [b"protover"]:
                os.write(1, WAIT_FOR_DONE)
                answered = True
            try:
                sink.write(line)
                sink.flush()
            except BrokenPipeError:
                return   # the program closed its input: nothing more to hand on


if __name__ == "__main__":
    sys.exit(main())
