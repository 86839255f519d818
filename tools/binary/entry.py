"""The start of the one-file Ponderosa (tools/binary/build.py puts this file in it as `__main__.py`).

The file is a zip application: a `#!` line naming the Python that built it, then a zip holding this
module and `payload.zip`, the installed packages (ponderosa, python-chess, numpy) as one folder
each, named by distribution, version and a hash of the folder's contents. The compiled core cannot
be imported from inside a zip, so each folder is unpacked once into a cache
($XDG_CACHE_HOME/ponderosa, else ~/.cache/ponderosa; a folder in the temporary directory if that
cannot be written) and every later start only checks that the folders are there: a start costs
what a pip-installed program's does. Builds share the folders that did not change (numpy, chess);
a folder no start has used for STALE_DAYS is removed when a new one is unpacked."""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator

UNITS: tuple[str, ...] = ()  # filled in by tools/binary/build.py
CACHE_NAME = "ponderosa"
STALE_DAYS = 14
LEFTOVER_SECONDS = 3600   # an unpacking folder this old belongs to a start that died


def archive_path() -> str:
    """This file's zip application (the one-file program itself)."""
    return os.path.dirname(os.path.abspath(__file__))


def cache_roots() -> Iterator[str]:
    """Where the folders may be unpacked, in order of preference."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    yield os.path.join(base, CACHE_NAME)
    import tempfile  # only now: the fallback is rare, and start-up pays for every import
    uid = getattr(os, "getuid", lambda: 0)()
    yield os.path.join(tempfile.gettempdir(), f"{CACHE_NAME}-cache-{uid}")


def unpack(root: str, units: list[str]) -> None:
    """Unpack the named folders into root. Each is unpacked into a private folder first and renamed
    into place, so a start never sees half a folder; when two starts race, one rename wins and the
    other drops its copy."""
    import shutil
    import tempfile
    import zipfile
    with zipfile.ZipFile(archive_path()) as outer, outer.open("payload.zip") as stored, \
            zipfile.ZipFile(stored) as payload:
        for unit in units:
            staging = tempfile.mkdtemp(prefix=".unpacking-", dir=root)
            try:
                for info in payload.infolist():
                    if info.filename.startswith(unit + "/"):
                        extracted = payload.extract(info, staging)
                        mode = info.external_attr >> 16
                        if mode and not info.is_dir():
                            os.chmod(extracted, mode)
                target = os.path.join(root, unit)
                try:
                    os.rename(os.path.join(staging, unit), target)
                except OSError:
                    if not os.path.isdir(target):
                        raise
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    prune(root)


def prune(root: str) -> None:
    """Remove the folders of other builds that no start has used for STALE_DAYS, and the leftovers
    of unpacking that died."""
    import shutil
    import time
    now = time.time()
    for name in os.listdir(root):
        path = os.path.join(root, name)
        try:
            age = now - os.stat(path).st_mtime
        except OSError:
            continue
        stale = age > STALE_DAYS * 86400 and name not in UNITS
        if stale or (name.startswith(".unpacking-") and age > LEFTOVER_SECONDS):
            shutil.rmtree(path, ignore_errors=True)


def install_paths() -> list[str]:
    """The unpacked folders, unpacking what is missing."""
    problems = []
    for root in cache_roots():
        paths = [os.path.join(root, unit) for unit in UNITS]
        try:
            os.makedirs(root, mode=0o700, exist_ok=True)
            # Code is run from here: a folder someone else made (the shared temporary directory) is not used.
            if hasattr(os, "getuid") and os.stat(root).st_uid != os.getuid():
                raise OSError("the folder belongs to another user")
            missing = [unit for unit, path in zip(UNITS, paths) if not os.path.isdir(path)]
            if missing:
                unpack(root, missing)
        except OSError as error:
            problems.append(f"{root}: {error}")
            continue
        for path in paths:
            try:
                os.utime(path)   # in use: pruning goes by this time
            except OSError:
                pass   # a cache the user may read but not write
        return paths
    raise SystemExit("ponderosa: cannot unpack the program's files (" + "; ".join(problems) + ")")


def main() -> None:
    # Each folder is added as a site directory (after the standard library, as a virtual environment's
    # site-packages is; its .pth files read as there). The file runs with -S, so importing site
    # here does no more than that.
    import site
    for path in install_paths():
        site.addsitedir(path)
    from ponderosa.protocol.launch import main as run_program
    sys.exit(run_program())


if __name__ == "__main__":
    main()
