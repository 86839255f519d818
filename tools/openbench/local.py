"""A local OpenBench instance on 127.0.0.1: OpenBench's own server and worker, unmodified, in a folder
of their own, running Ponderosa's tests and data generation (docs/OPENBENCH.md).

    python -m tools.openbench.local up --dir INST --openbench OB_SNAPSHOT --fastchess FASTCHESS [--threads 1]
    python -m tools.openbench.local test --dir INST --dev REF --base REF --games 32 --tc 8+0.08 --wait
    python -m tools.openbench.local test --dir INST --dev REF --base REF --sprt --bounds 0,5 --wait
    python -m tools.openbench.local datagen --dir INST --dev REF --games 512 --tc N=5000 --wait
    python -m tools.openbench.local spsa --dir INST --dev REF --params RazorMargin,LmrBase --wait
    python -m tools.openbench.local status --dir INST ID
    python -m tools.openbench.local stop --dir INST ID
    python -m tools.openbench.local pgns --dir INST ID OUT.pgn.tar
    python -m tools.openbench.local down --dir INST

`up` copies the snapshot into INST/server (its code as it is; only its configuration files are
written: Config/config.json, Engines/Ponderosa.json from openbench/Ponderosa.json, and a book entry
for the repository's tests/data/openings/noob_2moves.epd), makes INST/venv from OpenBench's
requirements, migrates the database, creates a user, and starts three processes, each in a process
group of its own, their ids in INST/pids/: a file server for INST/zips (the commits' zips and the
book), the Django server and one worker (Client/client.py with --no-client-downloads, fastchess
copied as Client/fastchess-ob). Everything listens on 127.0.0.1 only. `down` ends those process
groups by id. A workload is created through the server's own models (`manage.py shell`), field for
field as OpenBench/workloads/create_workload.py does from the web form, which asks GitHub's API and
so cannot be used offline.

The worker builds each commit with `make -j EXE=Ponderosa-SHA8 CC=gcc` in the environment `up` was
started in: PONDEROSA_PGO=0 there skips the profile-guided build (minutes faster, a few per cent
slower). `test` measures each commit's bench from a build of its own (INST/builds/, the same make
line) unless --dev-bench/--base-bench give it; --prebuilt puts that build where the worker looks
for it, so the worker does not build the commit again.

Hazard: OpenBench's worker ends `fastchess-ob` and `Ponderosa-SHA8` processes by name after every
workload (pkill -f): run no other program of those names beside it."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

from tools import ROOT
from tools.openbench import spsa

ENGINE = "Ponderosa"
BOOK = "noob_2moves.epd"
BOOK_FILE = ROOT / "tests" / "data" / "openings" / BOOK
USER, PASSWORD = "ponderosa", "ponderosa-local"
OPTIONS = "Threads=1 Hash=8 OwnBook=false Learn=0"
PROCESSES = ("worker", "server", "zips")   # the order `down` ends them in


# ----------------------------------------------------------------------------------------- state

def _state(inst: Path) -> dict:
    return json.loads((inst / "state.json").read_text())


def _python(inst: Path) -> str:
    return str(inst / "venv" / "bin" / "python")


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=True, **kwargs)


def _shell(inst: Path, code: str, args: dict) -> dict:
    """Runs `code` in the server's `manage.py shell`; it reads its arguments from ARGS and prints one
    JSON line starting with RESULT=, which is returned."""
    prelude = "import json, os\nARGS = json.loads(os.environ['OB_LOCAL_ARGS'])\n"
    env = {**os.environ, "OB_LOCAL_ARGS": json.dumps(args)}
    done = subprocess.run([_python(inst), "manage.py", "shell", "-c", prelude + code], cwd=inst / "server",
                          env=env, capture_output=True, text=True)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT="):
            return json.loads(line[len("RESULT="):])
    raise RuntimeError(f"manage.py shell failed:\n{done.stdout}\n{done.stderr}")


# ----------------------------------------------------------------------------------------- setup

def _book_zip(inst: Path) -> str:
    """The book as OpenBench's book sources are: a zip holding the one file. Returns its sha256 as the
    client computes it (of the text)."""
    target = inst / "zips" / "books" / f"{BOOK}.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(BOOK_FILE, BOOK)
    return hashlib.sha256(BOOK_FILE.read_text().encode("utf-8")).hexdigest().upper()


def _configure(inst: Path, zip_port: int) -> None:
    server = inst / "server"
    base = f"http://127.0.0.1:{zip_port}"
    config = json.loads((server / "Config" / "config.json").read_text())
    # Nothing may be fetched from outside: the worker runs with --no-client-downloads and finds
    # fastchess-ob in place, and these addresses lead nowhere but the loopback file server.
    config["client_repo_url"] = f"{base}/openbench"
    config["fastchess_repo_url"] = f"{base}/fastchess"
    config["engines"] = [ENGINE]
    config["books"] = [BOOK]
    (server / "Config" / "config.json").write_text(json.dumps(config, indent=4) + "\n")
    sha = _book_zip(inst)
    (server / "Books" / f"{BOOK}.json").write_text(
        json.dumps({"sha": sha, "source": f"{base}/books/{BOOK}.zip"}, indent=4) + "\n")
    entry = json.loads((ROOT / "openbench" / "Ponderosa.json").read_text())
    entry["source"] = f"{base}/"
    for presets in ("test_presets", "tune_presets"):
        entry[presets]["default"]["book_name"] = BOOK
    (server / "Engines" / f"{ENGINE}.json").write_text(json.dumps(entry, indent=4) + "\n")


def setup(inst: Path, openbench: Path, fastchess: Path, port: int, zip_port: int) -> None:
    inst.mkdir(parents=True, exist_ok=True)
    for name in ("pids", "logs", "zips", "builds"):
        (inst / name).mkdir(exist_ok=True)
    if not (inst / "server").exists():
        shutil.copytree(openbench, inst / "server", ignore=shutil.ignore_patterns(".git"))
    if not (inst / "client").exists():
        shutil.copytree(openbench / "Client", inst / "client")
        (inst / "client" / "Books").mkdir(exist_ok=True)
        (inst / "client" / "Engines").mkdir(exist_ok=True)
    shutil.copy2(BOOK_FILE, inst / "client" / "Books" / BOOK)
    shutil.copy2(fastchess, inst / "client" / "fastchess-ob")
    if not (inst / "venv" / "bin" / "python").exists():
        _run([sys.executable, "-m", "venv", str(inst / "venv")])
        _run([_python(inst), "-m", "pip", "install", "-q", "-r", str(inst / "server" / "requirements.txt"),
              "-r", str(inst / "client" / "requirements.txt")])
    _configure(inst, zip_port)
    _run([_python(inst), "manage.py", "migrate", "-v", "0"], cwd=inst / "server")
    _shell(inst, """
from django.contrib.auth.models import User
from OpenBench.models import Profile
user = User.objects.filter(username=ARGS['user']).first()
if user is None:
    user = User.objects.create_user(ARGS['user'], '', ARGS['password'])
profile = Profile.objects.filter(user=user).first() or Profile(user=user)
profile.enabled = profile.approver = True
profile.save()
print('RESULT=' + json.dumps({'user': user.username}))
""", {"user": USER, "password": PASSWORD})
    state = {"openbench": str(openbench), "fastchess": str(fastchess), "port": port, "zip_port": zip_port,
             "user": USER, "password": PASSWORD}
    (inst / "state.json").write_text(json.dumps(state, indent=2) + "\n")


# ------------------------------------------------------------------------------------- processes

def _pid_file(inst: Path, name: str) -> Path:
    return inst / "pids" / f"{name}.pid"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _start(inst: Path, name: str, command: list[str], cwd: Path, env: dict | None = None) -> int:
    pid_file = _pid_file(inst, name)
    if pid_file.exists() and _alive(int(pid_file.read_text())):
        return int(pid_file.read_text())
    log = open(inst / "logs" / f"{name}.log", "ab")
    process = subprocess.Popen(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               env=env, start_new_session=True)
    pid_file.write_text(f"{process.pid}\n")
    return process.pid


def _stop(inst: Path, name: str) -> None:
    """Ends the process group `up` started for `name` (its leader's id is the group's), by id only."""
    pid_file = _pid_file(inst, name)
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text())
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            continue
        break
    pid_file.unlink()


def _wait_http(url: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def start_servers(inst: Path) -> None:
    state = _state(inst)
    _start(inst, "zips", [_python(inst), "-m", "http.server", str(state["zip_port"]), "--bind", "127.0.0.1",
                          "--directory", str(inst / "zips")], inst)
    _start(inst, "server", [_python(inst), "manage.py", "runserver", f"127.0.0.1:{state['port']}", "--noreload"],
           inst / "server")
    _wait_http(f"http://127.0.0.1:{state['zip_port']}/")
    _wait_http(f"http://127.0.0.1:{state['port']}/index/")


def start_worker(inst: Path, threads: int) -> None:
    state = _state(inst)
    command = [_python(inst), "client.py", "-U", state["user"], "-P", state["password"],
               "-S", f"http://127.0.0.1:{state['port']}", "--no-client-downloads",
               "-T", str(threads), "-N", "1", "-I", "local"]
    _start(inst, "worker", command, inst / "client", env={**os.environ, "PYTHONUNBUFFERED": "1"})


def down(inst: Path) -> None:
    for name in PROCESSES:
        _stop(inst, name)


# --------------------------------------------------------------------------------------- commits

def _sha(ref: str) -> str:
    return _run(["git", "rev-parse", f"{ref}^{{commit}}"], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def serve_commit(inst: Path, sha: str) -> str:
    """The commit's zip in INST/zips (one root folder holding the Makefile, as GitHub's zipball);
    returns the address the worker downloads it from."""
    name = f"{ENGINE}-{sha[:8]}"
    target = inst / "zips" / f"{name}.zip"
    if not target.exists():
        _run(["git", "archive", "--format=zip", f"--prefix={name}/", "-o", str(target), sha], cwd=ROOT)
    return f"http://127.0.0.1:{_state(inst)['zip_port']}/{name}.zip"


def build_commit(inst: Path, sha: str) -> Path:
    """The one-file program of the commit, built as the worker builds it: its zip unpacked, then
    `make -j EXE=Ponderosa-SHA8 CC=gcc` in it."""
    exe_name = f"{ENGINE}-{sha[:8].upper()}"
    out = inst / "builds" / exe_name
    if out.exists():
        return out
    source = inst / "builds" / f"src-{sha[:8]}"
    shutil.rmtree(source, ignore_errors=True)
    with zipfile.ZipFile(inst / "zips" / f"{ENGINE}-{sha[:8]}.zip") as archive:
        archive.extractall(source)
    root = next(source.iterdir())
    log = inst / "logs" / f"build-{sha[:8]}.log"
    with open(log, "wb") as output:
        subprocess.run(["make", "-j", f"EXE={exe_name}", "CC=gcc"], cwd=root, stdout=output,
                       stderr=subprocess.STDOUT, check=True)
    shutil.move(str(root / exe_name), out)
    shutil.rmtree(source)
    return out


def measure_bench(executable: Path) -> int:
    """The node count OpenBench checks: the last `N nodes` of `EXE bench`."""
    output = _run([str(executable), "bench"], capture_output=True, text=True, timeout=300).stdout
    return int(re.findall(r"(\d+) nodes", output)[-1])


def commit_bench(inst: Path, sha: str, given: int | None, prebuilt: bool) -> int:
    benches_file = inst / "benches.json"
    benches = json.loads(benches_file.read_text()) if benches_file.exists() else {}
    if given is not None and not prebuilt:
        return given
    executable = build_commit(inst, sha)
    if prebuilt:
        target = inst / "client" / "Engines" / executable.name
        if not target.exists():
            shutil.copy2(executable, target)
    if given is not None:
        return given
    if sha not in benches:
        benches[sha] = measure_bench(executable)
        benches_file.write_text(json.dumps(benches, indent=2) + "\n")
    return benches[sha]


# -------------------------------------------------------------------------------------- workloads

# The Django scripts that make a workload, field for field as OpenBench/workloads/create_workload.py
# does (create_new_test, create_new_datagen; tools/openbench/spsa.py adds create_new_tune): a new
# Test with the form's fields, its engines and mode, then the creation's record and approval.
NEW_TEST = """
import math
import OpenBench.utils
from django.contrib.auth.models import User
from OpenBench.models import Engine, LogEvent, Profile, Test
a = ARGS
test = Test()
test.author      = a['user']
test.book_name   = a['book_name']
test.upload_pgns = a['upload_pgns']
test.info        = a['info']
"""

TEST_SETTINGS = """
test.workload_size = a['workload_size']
test.priority      = 0
test.throughput    = 1000
test.syzygy_wdl    = 'DISABLED'
test.syzygy_adj    = 'DISABLED'
test.win_adj       = a['win_adj']
test.draw_adj      = a['draw_adj']
test.scale_method  = 'BASE'
test.scale_nps     = a['scale_nps']
test.test_mode     = a['mode']
"""

RECORD_CREATION = """
profile = Profile.objects.get(user=User.objects.get(username=a['user']))
profile.tests += 1
profile.save()
LogEvent.objects.create(author=a['user'], summary='CREATE P=%d TP=%d' % (test.priority, test.throughput),
                        log_file='', test_id=test.id)
test.approved = True   # create_workload approves an approver's workload when cross approval is off
test.save()
print('RESULT=' + json.dumps({'id': test.id}))
"""

CREATE = NEW_TEST + """
for side in ('dev', 'base'):
    engine = Engine.objects.create(name=a[side + '_name'], source=a[side + '_source'], sha=a[side + '_sha'],
                                   bench=a[side + '_bench'])
    setattr(test, side, engine)
    setattr(test, side + '_repo', a['repo'])
    setattr(test, side + '_engine', a['engine'])
    setattr(test, side + '_options', a['options'])
    setattr(test, side + '_network', '')
    setattr(test, side + '_time_control', OpenBench.utils.TimeControl.parse(a['time_control']))
""" + TEST_SETTINGS + """
if test.test_mode == 'SPRT':
    test.elolower = a['bounds'][0]
    test.eloupper = a['bounds'][1]
    test.alpha    = a['confidence'][1]
    test.beta     = a['confidence'][0]
    test.lowerllr = math.log(test.beta / (1.0 - test.alpha))
    test.upperllr = math.log((1.0 - test.beta) / test.alpha)
if test.test_mode == 'GAMES':
    test.max_games = a['max_games']
if test.test_mode == 'DATAGEN':
    test.max_games     = a['max_games']
    test.genfens_args  = a['genfens_args']
    test.play_reverses = a['play_reverses']
    test.use_tri       = not test.play_reverses
    test.use_penta     = test.play_reverses
test.save()
""" + RECORD_CREATION

STATUS = """
from OpenBench.models import PGN, Result, Test
t = Test.objects.get(id=ARGS['id'])
fields = ('id', 'test_mode', 'games', 'wins', 'draws', 'losses', 'LL', 'LD', 'DD', 'DW', 'WW', 'currentllr',
          'lowerllr', 'upperllr', 'elolower', 'eloupper', 'max_games', 'passed', 'failed', 'finished', 'error',
          'approved', 'dev_time_control', 'dev_options', 'book_name', 'upload_pgns', 'genfens_args')
out = {f: getattr(t, f) for f in fields}
out['dev'] = {'name': t.dev.name, 'sha': t.dev.sha, 'bench': t.dev.bench}
out['base'] = {'name': t.base.name, 'sha': t.base.sha, 'bench': t.base.bench}
rows = Result.objects.filter(test=t)
out['crashes'] = sum(r.crashes for r in rows)
out['timeloss'] = sum(r.timeloss for r in rows)
out['pgns_pending'] = PGN.objects.filter(test_id=t.id, processed=False).count()
out['pgns_stored'] = PGN.objects.filter(test_id=t.id).count()
out['creation'] = str(t.creation)
out['updated'] = str(t.updated)
print('RESULT=' + json.dumps(out))
"""


STOP = """
from OpenBench.models import LogEvent, Test
# As OpenBench/workloads/modify_workload.py's STOP: the worker is told to stop at its next report.
t = Test.objects.get(id=ARGS['id'])
t.finished = True
LogEvent.objects.create(author=ARGS['user'], summary='STOP', log_file='', test_id=t.id)
t.save()
print('RESULT=' + json.dumps({'id': t.id, 'finished': t.finished}))
"""


def stop(inst: Path, test_id: int) -> dict:
    return _shell(inst, STOP, {"id": test_id, "user": _state(inst)["user"]})


def status(inst: Path, test_id: int) -> dict:
    return _shell(inst, STATUS, {"id": test_id})


def create(inst: Path, args: argparse.Namespace, mode: str) -> int:
    state = _state(inst)
    entry = json.loads((inst / "server" / "Engines" / f"{ENGINE}.json").read_text())
    dev_sha = _sha(args.dev)
    base_sha = _sha(getattr(args, "base", None) or args.dev)
    fields = {
        "user": state["user"], "engine": ENGINE, "repo": entry["source"], "info": args.info or "",
        "options": args.options, "time_control": args.tc, "workload_size": args.workload_size,
        "scale_nps": entry["nps"], "mode": mode,
    }
    for side, ref, sha, bench in (("dev", args.dev, dev_sha, args.dev_bench),
                                  ("base", getattr(args, "base", None) or args.dev, base_sha,
                                   getattr(args, "base_bench", None) or args.dev_bench)):
        fields[f"{side}_source"] = serve_commit(inst, sha)
        fields[f"{side}_sha"] = sha
        fields[f"{side}_name"] = ref if ref != sha else sha[:8]
        fields[f"{side}_bench"] = commit_bench(inst, sha, bench, args.prebuilt)
    if mode == "DATAGEN":
        fields.update(book_name="NONE", upload_pgns=args.upload_pgns, win_adj="None", draw_adj="None",
                      max_games=args.games, genfens_args=args.genfens_args, play_reverses=args.play_reverses)
    else:
        fields.update(book_name=BOOK, upload_pgns=args.upload_pgns, win_adj=args.win_adj, draw_adj=args.draw_adj)
        if mode == "SPRT":
            fields["bounds"] = [float(x) for x in args.bounds.strip("[]").split(",")]
            fields["confidence"] = [float(x) for x in args.confidence.strip("[]").split(",")]
        else:
            fields["max_games"] = args.games
    return _shell(inst, CREATE, fields)["id"]


def wait(inst: Path, test_id: int, poll: float = 20.0, timeout: float | None = None) -> dict:
    """Polls the server's record of the workload until it has finished and its PGNs are in the
    archive (or it has stopped with an error); returns the last status."""
    started = time.monotonic()
    while True:
        result = status(inst, test_id)
        print(json.dumps({k: result[k] for k in ("id", "games", "wins", "draws", "losses", "currentllr",
                                                  "finished", "passed", "failed", "error", "pgns_pending")}),
              flush=True)
        if result["error"] or (result["finished"] and result["pgns_pending"] == 0):
            return result
        if timeout is not None and time.monotonic() - started > timeout:
            raise TimeoutError(f"workload {test_id} did not finish in {timeout} s")
        time.sleep(poll)


def pgn_archive(inst: Path, test_id: int) -> Path:
    """The server's archive of the workload's uploaded PGNs (one .pgn.bz2 per upload), as
    `api/pgns/ID/` serves it."""
    return inst / "server" / "Media" / "PGNs" / f"{test_id}.pgn.tar"


def pgn_text(archive: Path) -> str:
    """The games of the archive's uploads, in the archive's order (the uploads'), as one PGN text."""
    from tools.nnue.data import pgn_texts
    # Each upload ends without a blank line: joined bare, two games would run together.
    return "".join(text.read().strip() + "\n\n" for text in pgn_texts(archive))


# -------------------------------------------------------------------------------------------- CLI

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    def with_dir(p):
        p.add_argument("--dir", type=Path, required=True, help="the instance's folder")
        return p

    up = with_dir(sub.add_parser("up", help="set up (once) and start the server, the zip server and a worker"))
    up.add_argument("--openbench", type=Path, help="an unpacked OpenBench snapshot (first `up` only)")
    up.add_argument("--fastchess", type=Path, help="a fastchess 1.8.1+ executable (first `up` only)")
    up.add_argument("--port", type=int, default=8000)
    up.add_argument("--zip-port", type=int, default=8001)
    up.add_argument("--threads", type=int, default=1, help="the worker's threads (games at once)")
    up.add_argument("--no-worker", action="store_true")

    def workload(p, games_default):
        with_dir(p)
        p.add_argument("--dev", required=True, help="a commit of this repository")
        p.add_argument("--dev-bench", type=int, help="its bench (default: measured from a build)")
        p.add_argument("--games", type=int, default=games_default)
        p.add_argument("--workload-size", type=int, default=8,
                       help="OpenBench's workload size: a worker plays 4 x this many games for each game it "
                            "plays at once, then reports and asks again")
        p.add_argument("--info", default="")
        p.add_argument("--prebuilt", action="store_true",
                       help="hand the worker the build `test` made for the bench, so it does not build again")
        p.add_argument("--wait", action="store_true", help="poll until finished, then print the result")
        p.add_argument("--timeout", type=float)
        return p

    test = workload(sub.add_parser("test", help="an SPRT or fixed-games test of two commits"), 32)
    test.add_argument("--base", required=True)
    test.add_argument("--base-bench", type=int)
    test.add_argument("--sprt", action="store_true", help="an SPRT instead of --games games")
    test.add_argument("--bounds", default="0.00,5.00")
    test.add_argument("--confidence", default="0.05,0.05")
    test.add_argument("--tc", default="8.0+0.08")
    test.add_argument("--options", default=OPTIONS)
    test.add_argument("--upload-pgns", default="VERBOSE", choices=("FALSE", "COMPACT", "VERBOSE"))
    test.add_argument("--win-adj", default="movecount=3 score=400")
    test.add_argument("--draw-adj", default="movenumber=40 movecount=8 score=10")

    data = workload(sub.add_parser("datagen", help="a DATAGEN workload with genfens openings"), 512)
    data.add_argument("--tc", default="N=5000")
    data.add_argument("--options", default="Threads=1 Hash=16 OwnBook=false Learn=0")
    data.add_argument("--genfens-args", default="")
    data.add_argument("--play-reverses", action="store_true")
    data.add_argument("--upload-pgns", default="COMPACT", choices=("COMPACT", "VERBOSE"))

    tune = workload(sub.add_parser("spsa", help="an SPSA tune of search parameters (tools/openbench/spsa.py)"), 0)
    tune.add_argument("--options", default=OPTIONS)
    spsa.add_arguments(tune)
    sv = with_dir(sub.add_parser("spsa-values", help="a tune's current values, as the server has them"))
    sv.add_argument("id", type=int)

    st = with_dir(sub.add_parser("status", help="the server's record of a workload, as JSON"))
    st.add_argument("id", type=int)
    sp = with_dir(sub.add_parser("stop", help="stop a workload, as the web page's STOP does"))
    sp.add_argument("id", type=int)
    pg = with_dir(sub.add_parser("pgns", help="copy a workload's PGN archive (ID.pgn.tar)"))
    pg.add_argument("id", type=int)
    pg.add_argument("out", type=Path)
    with_dir(sub.add_parser("down", help="stop everything `up` started"))

    args = parser.parse_args(argv)
    inst = args.dir.resolve()
    if args.command == "up":
        if not (inst / "state.json").exists():
            if not args.openbench or not args.fastchess:
                parser.error("the first `up` needs --openbench and --fastchess")
            setup(inst, args.openbench.resolve(), args.fastchess.resolve(), args.port, args.zip_port)
        try:
            start_servers(inst)
            if not args.no_worker:
                start_worker(inst, args.threads)
        except BaseException:
            down(inst)
            raise
        state = _state(inst)
        print(json.dumps({"server": f"http://127.0.0.1:{state['port']}/", "user": state["user"],
                          "password": state["password"],
                          "pids": {n: int(_pid_file(inst, n).read_text()) for n in PROCESSES
                                   if _pid_file(inst, n).exists()}}))
    elif args.command in ("test", "datagen"):
        mode = "DATAGEN" if args.command == "datagen" else ("SPRT" if args.sprt else "GAMES")
        test_id = create(inst, args, mode)
        print(json.dumps({"id": test_id, "url": f"http://127.0.0.1:{_state(inst)['port']}/"
                          f"{'datagen' if mode == 'DATAGEN' else 'test'}/{test_id}/"}), flush=True)
        if args.wait:
            print(json.dumps(wait(inst, test_id, timeout=args.timeout)))
    elif args.command == "spsa":
        test_id, sha = spsa.create(inst, args)
        print(json.dumps({"id": test_id, "tuning_build": sha,
                          "url": f"http://127.0.0.1:{_state(inst)['port']}/tune/{test_id}/"}), flush=True)
        if args.wait:
            wait(inst, test_id, timeout=args.timeout)
            print(json.dumps(spsa.values(inst, test_id), indent=2))
    elif args.command == "spsa-values":
        print(json.dumps(spsa.values(inst, args.id), indent=2))
    elif args.command == "status":
        print(json.dumps(status(inst, args.id), indent=2))
    elif args.command == "stop":
        print(json.dumps(stop(inst, args.id)))
    elif args.command == "pgns":
        shutil.copy2(pgn_archive(inst, args.id), args.out)
    elif args.command == "down":
        down(inst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
