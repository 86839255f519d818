"""OpenBench's SPSA tuning on the local instance (tools/openbench/local.py): a tuning build of a
commit, a TUNE workload of some of its search parameters, and the server's values read back.

    python -m tools.openbench.local spsa --dir INST --dev REF --params RazorMargin,LmrBase \
        --iterations 50 --pairs-per 4 --tc 2.0+0.02 --wait
    python -m tools.openbench.local spsa-values --dir INST ID

The tuning build is the commit with engine/tuning.py's LISTED set to True, so that `uci` lists the
search parameters and fastchess sends them (it sends only the options an engine lists). It is made
as a commit object of its own on top of REF (same tree but that one line, REF's dates: the same
REF always gives the same commit), kept reachable by refs/tuning/SHA8, and served as any commit.
On a public instance, push such a commit to a branch and give it as the tune's dev branch."""
from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
from pathlib import Path

from tools import ROOT

TUNING_FILE = "engine/tuning.py"
UNLISTED, LISTED = "LISTED = False", "LISTED = True"


def _git(*args: str, env: dict | None = None, text_input: str | None = None) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, input=text_input).stdout.strip()


def tuning_commit(ref: str) -> str:
    """The tuning build of ref as a commit (made once; refs/tuning/SHA8 keeps it)."""
    sha = _git("rev-parse", f"{ref}^{{commit}}")
    text = _git("show", f"{sha}:{TUNING_FILE}") + "\n"
    if text.count(UNLISTED) != 1:
        raise SystemExit(f"{sha[:8]}:{TUNING_FILE} has no single `{UNLISTED}` line: not a commit with tunable "
                         "search parameters")
    blob = _git("hash-object", "-w", "--stdin", text_input=text.replace(UNLISTED, LISTED))
    with tempfile.TemporaryDirectory() as folder:
        index = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
        _git("read-tree", sha, env=index)
        _git("update-index", "--cacheinfo", f"100644,{blob},{TUNING_FILE}", env=index)
        tree = _git("write-tree", env=index)
    date = _git("show", "-s", "--format=%cI", sha)
    who = {"GIT_AUTHOR_NAME": "Ponderosa tuning build", "GIT_AUTHOR_EMAIL": "tuning@ponderosa.invalid",
           "GIT_COMMITTER_NAME": "Ponderosa tuning build", "GIT_COMMITTER_EMAIL": "tuning@ponderosa.invalid",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    message = f"Tuning build of {sha[:8]}: the search parameters listed as UCI options\n"
    commit = _git("commit-tree", tree, "-p", sha, env=who, text_input=message)
    _git("update-ref", f"refs/tuning/{sha[:8]}", commit)
    return commit


def spsa_inputs(names: list[str]) -> str:
    """OpenBench's SPSA input lines for the named parameters, from the table of the commit in use
    (engine/tuning.py: start at the default, the table's range and step, R_END 0.002)."""
    from ponderosa.engine.tuning import spsa_inputs as table_inputs
    lines = {line.split(",")[0].lower(): line for line in table_inputs().splitlines()}
    missing = [name for name in names if name.lower() not in lines]
    if missing:
        raise SystemExit(f"not a search parameter: {', '.join(missing)} (engine/tuning.py lists them)")
    return "\n".join(lines[name.lower()] for name in names)


# create_new_tune and OpenBench/spsa_utils.py: create_spsa_run, between local.py's NEW_TEST,
# TEST_SETTINGS (mode SPSA, the workload size the pairs per iteration) and RECORD_CREATION.
TUNE_FIELDS = """
from django.db import transaction
from OpenBench.models import SPSAParameter, SPSARun
test.dev = test.base = Engine.objects.create(name=a['name'], source=a['source'], sha=a['sha'], bench=a['bench'])
test.dev_repo = test.base_repo = a['repo']
test.dev_engine = test.base_engine = a['engine']
test.dev_options = test.base_options = a['options']
test.dev_network = test.base_network = ''
test.dev_time_control = test.base_time_control = OpenBench.utils.TimeControl.parse(a['time_control'])
"""

SPSA_RUN = """
with transaction.atomic():
    test.save()
    iterations = a['iterations']
    run = SPSARun.objects.create(tune=test, reporting_type=a['reporting_type'],
                                 distribution_type=a['distribution_type'], alpha=a['alpha'], gamma=a['gamma'],
                                 iterations=iterations, pairs_per=a['pairs_per'], a_ratio=a['a_ratio'])
    params = []
    for index, line in enumerate(a['inputs'].splitlines()):
        name, dtype, value, min_value, max_value, c_end, r_end = map(str.strip, line.split(','))
        c_value = float(c_end) * iterations ** a['gamma']
        a_end = float(r_end) * float(c_end) ** 2
        a_value = float(a_end) * (a['a_ratio'] * iterations + iterations) ** a['alpha']
        params.append(SPSAParameter(spsa_run=run, name=name, index=index, value=float(value),
                                    is_float=dtype == 'float', start=float(value), min_value=float(min_value),
                                    max_value=float(max_value), c_end=float(c_end), r_end=float(r_end),
                                    c_value=c_value, a_value=a_value))
    SPSAParameter.objects.bulk_create(params)
"""


VALUES = """
import OpenBench.spsa_utils
from OpenBench.models import Test
t = Test.objects.get(id=ARGS['id'])
params = [{'name': p.name, 'value': p.value, 'start': p.start, 'min': p.min_value, 'max': p.max_value,
           'c_end': p.c_end, 'r_end': p.r_end} for p in t.spsa_run.parameters.order_by('index')]
print('RESULT=' + json.dumps({'id': t.id, 'games': t.games, 'finished': t.finished,
                              'iterations': t.spsa_run.iterations, 'pairs_per': t.spsa_run.pairs_per,
                              'optimal': OpenBench.spsa_utils.spsa_optimal_values(t),
                              'digest': OpenBench.spsa_utils.spsa_param_digest(t), 'parameters': params}))
"""


def create(inst: Path, args: argparse.Namespace) -> tuple[int, str]:
    """The TUNE workload of args.params on the tuning build of args.dev; returns (id, the build's sha)."""
    import json

    from tools.openbench import local
    state = local._state(inst)
    entry = json.loads((inst / "server" / "Engines" / f"{local.ENGINE}.json").read_text())
    sha = tuning_commit(args.dev)
    fields = {
        "user": state["user"], "engine": local.ENGINE, "repo": entry["source"], "info": args.info or "",
        "options": args.options, "time_control": args.tc, "scale_nps": entry["nps"],
        "book_name": local.BOOK, "upload_pgns": args.upload_pgns, "win_adj": args.win_adj, "draw_adj": args.draw_adj,
        "name": f"tune-{sha[:8]}", "source": local.serve_commit(inst, sha), "sha": sha,
        "bench": local.commit_bench(inst, sha, args.dev_bench, args.prebuilt),
        "inputs": spsa_inputs([name.strip() for name in args.params.split(",") if name.strip()]),
        "iterations": args.iterations, "pairs_per": args.pairs_per, "alpha": args.alpha, "gamma": args.gamma,
        "a_ratio": args.a_ratio, "reporting_type": args.reporting, "distribution_type": args.distribution,
        "mode": "SPSA", "workload_size": args.pairs_per,
    }
    script = local.NEW_TEST + TUNE_FIELDS + local.TEST_SETTINGS + SPSA_RUN + local.RECORD_CREATION
    return local._shell(inst, script, fields)["id"], sha


def values(inst: Path, test_id: int) -> dict:
    """The server's current values of a tune's parameters (OpenBench's optimal values and digest)."""
    from tools.openbench import local
    return local._shell(inst, VALUES, {"id": test_id})


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--params", required=True, help="comma-separated search parameters (engine/tuning.py)")
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--pairs-per", type=int, default=4, help="game pairs a worker plays per iteration")
    p.add_argument("--alpha", type=float, default=0.602)
    p.add_argument("--gamma", type=float, default=0.101)
    p.add_argument("--a-ratio", type=float, default=0.1)
    p.add_argument("--reporting", default="BATCHED", choices=("BATCHED", "BULK"))
    p.add_argument("--distribution", default="SINGLE", choices=("SINGLE", "MULTIPLE"))
    p.add_argument("--tc", default="2.0+0.02")
    p.add_argument("--upload-pgns", default="FALSE", choices=("FALSE", "COMPACT", "VERBOSE"))
    p.add_argument("--win-adj", default="movecount=3 score=400")
    p.add_argument("--draw-adj", default="movenumber=40 movecount=8 score=10")
