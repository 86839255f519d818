"""The results ledger: every measurement (bench, perft, start-up, matches, SPRTs, suites, calibration,
test runs) is one row of docs/results/ledger.jsonl, and the documents' current tables are written from it.

    python -m tools.results append --measure bench --what "ponderosa bench, default build" \\
        --command "ponderosa bench" --figure nodes=3632557 --figure nps=1805398 [--signature 3632557]
    python -m tools.results render            # writes every table between the documents' markers
    python -m tools.results check             # exits 1 when a document's table differs from the ledger
    python -m tools.results history bench     # every row of one measure, oldest first

A row is one JSON object a line (docs/results/README.md describes the fields). A document asks for a
table with two marker comments, `<!-- results: NAME -->` and `<!-- /results -->`; NAME is a key of
TABLES below, which says which measures the table shows and which columns. Standard library only.
"""
from __future__ import annotations

import argparse
import datetime
import difflib
import fnmatch
import json
import os
import platform
import re
import string
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Union

from tools import ROOT as REPO

LEDGER = Path("docs") / "results" / "ledger.jsonl"   # under the repository's root
DOCUMENTS = "docs/*.md"                              # the documents searched for markers

Figure = Union[int, float, str, list]   # a list holds numbers: the pentanomial pair counts of an SPRT
Row = dict[str, Any]

# Every row has these fields (games and note may be empty strings), with these types.
REQUIRED: dict[str, type] = {"measure": str, "what": str, "commit": str, "date": str, "machine": str,
                             "command": str, "figures": dict, "games": str, "note": str}
# And may have these: the bench signature of the build measured, the build the ratios are against
# (measured in the same run), the commit whose documents first gave the figure, a patch kept in history.
OPTIONAL: dict[str, type] = {"signature": int, "base": str, "recorded": str, "patch": str}
MEASURE = re.compile(r"^[a-z0-9][a-z0-9_.+-]*$")
COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
FIGURE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


SPEED = ("what", "result", "commit", "date", "bench", "command")


class Table(NamedTuple):
    """One generated table: the measures it shows (fnmatch patterns, in the order of its rows), its
    columns, whether only the newest row of each measure is shown, and figure filters."""
    measures: tuple[str, ...]
    columns: tuple[str, ...] = SPEED
    latest: bool = True
    where: tuple[tuple[str, str], ...] = ()   # (figure, fnmatch pattern of its value)


HEADINGS = {"what": "what", "result": "result", "commit": "build", "date": "date", "bench": "bench",
            "command": "command", "games": "games", "note": "note", "base": "against",
            "machine": "machine", "measure": "measure", "recorded": "recorded"}

MATCH = ("what", "result", "commit", "date", "bench", "command", "games")
# The scripts moved twice: from tests/ to tools/, then into the packages of tools/, run as modules. A
# table's command column names each as it runs now (a recorded `python tests/sprt.py` or `python
# tools/sprt.py` as `python -m tools.match.sprt`), so that it can be run as shown; the ledger keeps
# each command as it was run. The keys are the scripts' old names.
MOVED_SCRIPTS: dict[str, str] = {
    "match": "tools.match.gauntlet", "match_engines": "tools.match.engines", "match_games": "tools.match.games",
    "match_openings": "tools.match.openings", "match_report": "tools.match.report", "sprt": "tools.match.sprt",
    "cutechess_gauntlet": "tools.match.cutechess", "node_match": "tools.match.node_match",
    "clock_report": "tools.match.clock_report", "move_times": "tools.match.move_times",
    "calibrate_strength": "tools.match.calibrate_strength", "lichess_bot_game": "tools.match.lichess_bot_game",
    "bench_binary": "tools.bench.binary", "bench_book": "tools.bench.book",
    "bench_book_export": "tools.bench.book_export", "bench_evaluate": "tools.bench.evaluate",
    "bench_peers": "tools.bench.peers", "bench_perft": "tools.bench.perft", "bench_resize": "tools.bench.resize",
    "bench_search": "tools.bench.search", "bench_smp": "tools.bench.smp", "bench_startup": "tools.bench.startup",
    "bench_syzygy": "tools.bench.syzygy", "bench_uci": "tools.bench.uci",
    "datagen": "tools.nnue.datagen", "datagen_round": "tools.nnue.datagen_round", "nnue_data": "tools.nnue.data",
    "nnue_train": "tools.nnue.train", "nnue_backends": "tools.nnue.backends",
    "nnue_trainer_speed": "tools.nnue.trainer_speed", "packed_games": "tools.nnue.packed_games",
    "tune": "tools.tune.texel", "tune_positions": "tools.tune.positions", "eval_weights": "tools.tune.eval_weights",
    "label": "tools.tune.label", "selfplay": "tools.tune.selfplay", "fit_wdl": "tools.tune.fit_wdl",
    "build_binary": "tools.binary.build", "binary_entry": "tools.binary.entry",
    "make_logo": "tools.generate.logo", "long_game": "tools.generate.long_game",
    "chess960_perft_table": "tools.generate.chess960_perft",
}
MOVED_COMMAND = re.compile(r"\b(python3?) (?:tests|tools)/(" + "|".join(MOVED_SCRIPTS) + r")\.py\b")
TABLES: dict[str, Table] = {
    "speed": Table(("bench", "bench.classic", "perft.start6", "perft.kiwipete5", "peers.crafty",
                    "peers.ethereal", "startup.pong", "startup.engine", "nnue.speed.net-093", "bench.noise")),
    "suite": Table(("suite.wac",)),
    "perft-peers": Table(("perft.stockfish.*",)),
    "smp": Table(("smp.bench", "smp.bench16", "smp.uci16", "smp.uci20")),
    "protocols": Table(("uci.*", "xboard.*", "client.*")),
    "books": Table(("book.*",)),
    "operations": Table(("tt.clear", "annotate", "syzygy.*")),
    "soak": Table(("soak.*",), columns=("what", "result", "commit", "date", "command", "note")),
    "timeloss": Table(("timeloss.*",), columns=MATCH),
    "won-time": Table(("clock.won-position",), columns=("what", "result", "commit", "date", "bench", "command")),
    "tests": Table(("tests.*",), columns=("what", "result", "commit", "date", "command", "note")),
    "build": Table(("build.*",), columns=("what", "result", "commit", "date", "command")),
    "binary": Table(("binary.make", "binary.startup"), columns=("what", "result", "commit", "date", "command")),
    "profile": Table(("profile.bench",), columns=("what", "result", "commit", "date", "bench", "command")),
    "strength": Table(("match.ethereal12", "match.ethereal12-cutechess", "match.stockfish11", "match.toga2",
                       "match.crafty", "match.base-571b793", "match.threads2", "match.debian*"), columns=MATCH),
    "accepted": Table(("sprt.*",), where=(("decision", "H1*"),), columns=MATCH),
    "calibration": Table(("calibration.net-093.level*", "calibration.net-189.check*"),
                         columns=("what", "result", "commit", "date", "command")),
    "nnue": Table(("sprt.net-189", "nnue.train.net-189", "sprt.net-130", "nnue.train.net-130", "sprt.net-093",
                   "match.ethereal12", "nnue.speed.net-093"), columns=MATCH),
    "nnue-curve": Table(("nnue.curve.250000", "nnue.curve.500000", "nnue.curve.900000", "nnue.curve.1516276",
                         "nnue.curve.2874911", "nnue.curve.4685782"), columns=MATCH),
    "nnue-networks": Table(("nnue.train.net-046", "nnue.train.net-093", "nnue.train.net-093b8", "nnue.speed.net-093",
                            "nnue.speed.net-093b8", "nnue.train.net-118", "nnue.screen.net-118"), columns=MATCH),
    "nnue-lambda": Table(("nnue.train.net-093l*", "nnue.screen.net-093l*"), columns=MATCH),
    "nnue-king-buckets": Table(("nnue.train.net-093k4*", "nnue.screen.net-093k4*", "nnue.speed.net-093k4"),
                               columns=MATCH),
    "nnue-width": Table(("nnue.train.net-189h384", "nnue.speed.net-189h384", "nnue.screen.net-189h384"),
                        columns=MATCH),
    "nnue-labels": Table(("nnue.labels.*",), columns=MATCH),
    "nnue-trainer": Table(("nnue.trainer.speed", "nnue.trainer.backends", "nnue.train.memory"), columns=MATCH),
    "nnue-sprt": Table(("sprt.net-031", "sprt.net-046", "sprt.net-046w", "sprt.net-093", "sprt.net-130",
                        "sprt.net-189"), columns=MATCH),
}

# How each measure's figures read in a table's result column: the first pattern that matches the
# measure. `{name}` and `{name:,}` are figures (or the row's base and signature); a part in [...] is left
# out when a figure in it is missing. A row that misses a figure outside [...] shows all its figures.
RESULTS: tuple[tuple[str, str], ...] = (
    ("bench.tried.*", "[{ratio}×][{instructions_change_pct:+}% instructions][ ({nps:,} against {base_nps:,} nodes/s)]"
                      "[, {pairs} pairs]"),
    ("bench", "**{nps:,}** nodes/s[ ({nps_low:,}-{nps_high:,})][ ({nps_m_low:.2f}-{nps_m_high:.2f} M)], {nodes:,} nodes"
              "[; **{ratio}×** {base}'s {base_nps:,}][ in {pairs} alternating pairs][, {runs} runs each]"),
    ("bench.classic", "**{nps:,}** nodes/s[ ({nps_m_low:.2f}-{nps_m_high:.2f} M)], {nodes:,} nodes"
                      "[; {ratio}× {base}'s {base_nps:,}][, {runs} runs each]"),
    ("bench.noise", "{runs} runs: {nps_m_low:.2f}-{nps_m_high:.2f} M nodes/s, median {nps_m_median:.2f} M"),
    ("evaluate.*", "**{ns} ns**[ ({ns_low}-{ns_high})][ against {base}'s {base_ns} ns][, {runs} runs each]"),
    ("perft.stockfish.*", "**{seconds} s, {mnps} M nodes/s** ({nodes:,} nodes); Stockfish `go perft` "
                          "{stockfish_s} s ({stockfish_ratio}×); python-chess {python_chess_s} s "
                          "({python_chess_ratio}×)"),
    ("perft.*", "**{mnps} M nodes/s**[ ({mnps_low}-{mnps_high})][; **{ratio}×**][ {base}'s {base_mnps}]"
                "[, {runs} alternating runs]"),
    ("peers.*", "Ponderosa {nps_m:.2f} M nodes/s[ ({nps_m_low:.2f}-{nps_m_high:.2f})], {peer} {peer_nps_m:.2f} M"
                "[ ({peer_nps_m_low:.2f}-{peer_nps_m_high:.2f})]: **{share_pct}%** of its speed[, {runs} runs]"),
    ("startup.pong", "`pong` after **{ms} ms**[ ({ms_low}-{ms_high})]; Crafty {crafty_ms} ms, Fairy-Max "
                     "{fairymax_ms} ms: **{ratio}×** Crafty's[, {starts} starts each]"),
    ("startup.engine", "`pong` after `new` at **{ms} ms**[ ({ms_low}-{ms_high})]"),
    ("binary.make", "**{size_mb} MB** file in **{build_s} s** (install {install_s} s, bundle {bundle_s} s)"),
    ("binary.startup", "**{ratio}×** the pip program ({file_ms} against {pip_ms} ms), two at once "
                       "{two_at_once_ratio}×; bench {bench_ratio}×, {bench_nodes:,} nodes"),
    ("nnue.speed*", "[network **{network_nps_m:.2f} M** nodes/s][ ({network_nps_m_low:.2f}-{network_nps_m_high:.2f})]"
                    "[, hand-written {classic_nps_m:.2f} M][ ({classic_nps_m_low:.2f}-{classic_nps_m_high:.2f})][: ]"
                    "**{ratio}×** the hand-written evaluation's[, {runs} runs each]"),
    ("suite.*", "**{solved}**/{positions}, {nodes:,} nodes, {seconds} s, {mnps} M nodes/s; failed: {failed}"),
    ("smp.uci*", "time to depth 2T/1T **{time_ratio}** (per position {time_ratio_geomean}), from outside"),
    ("smp.*", "nodes to depth 2T/1T **{nodes_ratio}×**[; time to depth **{time_ratio}**][ (per position "
              "{time_ratio_geomean})][; nodes/s **{nps_ratio}×**][ ({nps_1t_k:,} → {nps_2t_k:,} k)]"),
    ("uci.stop", "`stop` to `bestmove` median **{median_ms} ms**, max {max_ms} ms over {stops} stops"),
    ("uci.resize", "first search after the resize **{first_nps:,}** nodes/s, the tenth {last_nps:,} "
                   "(**{ratio}×**); setoption to readyok {configure_s} s"),
    ("xboard.repeats", "{repeats} repeats in **{repeats_s} s**, {lines} lines printed; the first {first_s} s"),
    ("client.*", "**{passed}** of {runs} runs: {summary}"),
    ("uci.multipv", "MultiPV {lines} against 1: {nodes_ratio}× the nodes ({nodes:,} / {base_nodes:,}), "
                    "{time_ratio}× the time"),
    ("book.create*", "**{seconds} s**[ ({games_per_s:,} games/s)][, {peak_mb:,} MB peak][; {positions:,} "
                     "positions, {moves:,} moves][, {book_mb} MB][; books.bin {books_bin_s} s]"),
    ("book.entries", "median **{median_us} µs** a lookup over {lookups:,} positions"),
    ("book.probe", "median **{median_ms} ms**[ (p90 {p90_ms} ms)]"),
    ("book.export*", "**{seconds} s**[ ({cpu_s} s CPU)][, {entries:,} entries][, {gb} GB][, {ratio}× the bulk export]"),
    ("book.sizes", "M=20 N=2 {m20n2_mb} MB, M=20 N=3 {m20n3_mb} MB, M=25 N=3 {m25n3_mb} MB, M=30 N=3 "
                   "{m30n3_mb} MB, M=30 N=2 {m30n2_mb} MB"),
    ("tt.clear", "`clear()` {clear_ms_low}-{clear_ms_high} ms; `new_game()` {new_game_ms} ms; full wipe "
                 "{wipe_ms_low}-{wipe_ms_high} ms"),
    ("annotate", "**{seconds} s** ({wall_s} s wall, {cpu_s} s CPU), {comments} comments"),
    ("syzygy.probes", "core **{core_per_s:,}**/s with its cache, {core_nocache_per_s:,} without; "
                      "python-chess {python_chess_per_s:,}"),
    ("syzygy.search", "no tables depth {depth}, {nps:,} nodes/s; 3-4 piece tables depth {tb_depth}, "
                      "{tb_nps:,} nodes/s, {tbhits:,} tbhits"),
    ("soak.300", "**{games}** games, {plies:,} plies, {minutes} min {seconds} s; memory {rss_kib_20:,} → "
                 "**{rss_kib:,} KiB** (+{rss_growth_pct}%); {fds} descriptors, {threads} threads; W/D/L {wins} / "
                 "{draws} / {losses}; **{time_losses} time losses, {illegal_moves} illegal moves**"),
    ("clock.won-position", "a move **{median_s} s** at the median, at most {max_s} s, over {positions} positions; "
                           "{base} {base_median_s} s, at most {base_max_s} s"),
    ("timeloss.*", "**{time_losses} time losses**, {illegal_moves} illegal moves, {crashes} crashes in {games:,} "
                   "games (W/D/L {wins} / {draws} / {losses})[; a move {move_ms} ms on average, the opponent's "
                   "{opponent_move_ms} ms][; lowest clock {min_clock_s} s]"),
    ("soak.time-loss", "{time_losses} time loss, game {game}, ply {ply}: {clock_s} s on the clock, the move sent "
                       "{sent_ms} ms after the opponent's, received {arrived_s} s after"),
    ("soak.gc", "full collections median **{median_ms} ms**, longest {max_ms} ms ({collections}); before "
                "`gc.freeze()` {before_median_ms} and {before_max_ms} ms"),
    ("tests.*", "**{minutes} min {seconds} s**[ and {second_run_minutes} min {second_run_seconds} s]: "
                "{passed:,} passed, {skipped} skipped[; `timing` run {timing_s} s ({timing_passed} passed)]"),
    ("build.*", "{ratio}×[ ({nps:,} against {base_nps:,} nodes/s)][ ({mnps} against {base_mnps} M nodes/s)]"
                "[, {pairs} pairs]"),
    ("profile.*", "search {search_pct}%[, evaluation {evaluation_pct}%][, network {network_pct}%], quiescence "
                  "{quiescence_pct}%, generation {generation_pct}%, move scoring {scoring_pct}%, SEE {see_pct}%"
                  "[, make and unmake {make_unmake_pct}%][, table probes {tt_probe_pct}%][, table clearing "
                  "{tt_clear_pct}%]"),
    ("match.*", "{wins} / {draws} / {losses} in {games:,} games: **{score_pct}%**[ ({score_low}-{score_high})]"
                "[, Elo {elo:+}[ ± {elo_margin}]][, Elo about {elo_about:+} ({elo_low:+} … {elo_high:+})]"),
    ("sprt.*", "[{wins} / {draws} / {losses} in {games:,} games, ][**{elo:+} ± {elo_margin}**, ]"
               "[LLR {llr:.2f}, ]{decision}"),
    ("calibration.*", "{score}/{games} against {opponent} ({opponent_elo})[: **{elo}** ({elo_low} .. "
                      "{elo_high})][, {off:+} off]"),
    ("tune.*", "held-out error {error_before} → **{error_after}**[, K {k}][, ridge {ridge}][, {changed} weights "
               "changed][, {minutes} min]; {outcome}"),
    ("nnue.train.*", "{positions:,} positions of {games:,} games, {epochs} epochs, validation loss "
                     "**{validation_loss}**"),
)


class _Missing(Exception):
    """A template names a figure the row does not have."""


class _Fields(string.Formatter):
    def get_value(self, key: int | str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if isinstance(key, str) and key in kwargs:
            return kwargs[key]
        raise _Missing(str(key))

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, list):
            return ", ".join(_number(item) for item in value)
        if isinstance(value, str):   # a word where a number may stand ("no upper bound") takes no number format
            return value
        if isinstance(value, float) and not format_spec:
            return _float(value)
        return str(super().format_field(value, format_spec))


def _fill(template: str, values: Mapping[str, Any]) -> str:
    """The template with the values; a [...] part that names a missing value is left out."""
    formatter = _Fields()
    parts = []
    depth, start, pieces = 0, 0, []
    for index, char in enumerate(template):   # split into plain text and top-level [...] parts
        if char == "[":
            if depth == 0:
                pieces.append((template[start:index], False))
                start = index + 1
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                pieces.append((template[start:index], True))
                start = index + 1
    pieces.append((template[start:], False))
    for text, optional in pieces:
        if not optional:
            parts.append(formatter.vformat(text, (), values))   # a missing value raises _Missing
            continue
        try:
            parts.append(_fill(text, values))
        except _Missing:
            pass
    return "".join(parts)


def _number(value: Figure) -> str:
    if isinstance(value, list):
        return ", ".join(_number(item) for item in value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:,}"


def _float(value: float) -> str:
    """A float as written: 1e-07 as 1e-7."""
    text = repr(value)
    return re.sub(r"e([+-])0*(\d)", lambda match: "e" + match.group(1).replace("+", "") + match.group(2), text)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def result_text(row: Row) -> str:
    """The figures of a row as its measure's template writes them (all of them when none fits)."""
    values: dict[str, Any] = dict(row["figures"])
    for field in ("base", "signature"):
        if field in row:
            values.setdefault(field, row[field])
    for pattern, template in RESULTS:
        if fnmatch.fnmatchcase(row["measure"], pattern):
            try:
                text = _fill(template, values)
            except _Missing:
                break
            if text:
                return text
            break
    return "; ".join(f"{name} {_number(value)}" for name, value in row["figures"].items())


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _column(row: Row, column: str) -> str:
    if column == "result":
        return result_text(row)
    if column == "bench":   # the signature of the build measured, else of the candidate a row tried
        signature = row.get("signature", row["figures"].get("bench_after"))
        return f"{signature:,}" if isinstance(signature, int) else ""
    if column == "command":
        return f"`{current_command(row['command'])}`"
    if column in ("games", "patch") and re.match(r"(git show |data/|tests/)", str(row.get(column, ""))):
        return f"`{row[column]}`"
    return str(row.get(column, ""))


def current_command(command: str) -> str:
    """A recorded command with each moved script named as it runs now (MOVED_SCRIPTS)."""
    return MOVED_COMMAND.sub(lambda found: f"{found.group(1)} -m {MOVED_SCRIPTS[found.group(2)]}", command)


def load(root: Path = REPO) -> list[Row]:
    """The ledger's rows, oldest first (file order)."""
    path = root / LEDGER
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not a JSON object: {error}") from error
    return rows


def problems(row: Any) -> list[str]:
    """What is wrong with one row (empty when nothing is)."""
    if not isinstance(row, dict):
        return ["a row is a JSON object"]
    found = []
    for field, kind in REQUIRED.items():
        if not isinstance(row.get(field), kind):
            found.append(f"{field}: missing or not a {kind.__name__}")
    for field, kind in OPTIONAL.items():
        if field in row and (not isinstance(row[field], kind) or isinstance(row[field], bool)):
            found.append(f"{field}: not a {kind.__name__}")
    for field in set(row) - set(REQUIRED) - set(OPTIONAL):
        found.append(f"{field}: not a field of the ledger")
    if found:
        return found
    if not MEASURE.match(row["measure"]):
        found.append(f"measure {row['measure']!r}: lower-case words joined by dots")
    for field in ("commit", "base", "recorded"):
        if field in row and not (COMMIT.match(row[field]) or (field == "base" and row[field])):
            found.append(f"{field} {row[field]!r}: an abbreviated commit hash")
    try:
        datetime.date.fromisoformat(row["date"])
    except ValueError:
        found.append(f"date {row['date']!r}: YYYY-MM-DD")
    for field in ("what", "machine", "command"):
        if not row[field].strip():
            found.append(f"{field}: empty")
    figures = row["figures"]
    if not any(_is_number(value) for value in figures.values()):
        found.append("figures: no number")
    for name, value in figures.items():
        if not FIGURE_NAME.match(name):
            found.append(f"figure {name!r}: lower-case name")
        if not (_is_number(value) or isinstance(value, str)
                or (isinstance(value, list) and value and all(_is_number(item) for item in value))):
            found.append(f"figure {name!r}: a number, a string or a list of numbers")
    return found


def _rows_for(table: Table, rows: Sequence[Row]) -> list[Row]:
    chosen = [row for row in rows
              if all(fnmatch.fnmatchcase(str(row["figures"].get(name, "")), pattern) for name, pattern in table.where)]
    ordered = []
    for pattern in table.measures:
        matching = [row for row in chosen if fnmatch.fnmatchcase(row["measure"], pattern) and row not in ordered]
        if table.latest:
            newest: dict[str, Row] = {}
            for row in matching:   # file order: a later row of the same date is the newer one
                if row["measure"] not in newest or row["date"] >= newest[row["measure"]]["date"]:
                    newest[row["measure"]] = row
            matching = [row for row in matching if newest[row["measure"]] is row]
        ordered.extend(matching)
    return ordered


def table_lines(name: str, rows: Sequence[Row]) -> list[str]:
    """The Markdown lines of the table NAME, from the ledger's rows."""
    if name not in TABLES:
        raise ValueError(f"no table {name!r} in TABLES of tools/results.py")
    table = TABLES[name]
    shown = _rows_for(table, rows)
    if not shown:
        raise ValueError(f"table {name!r}: no row of the ledger matches {table.measures}")
    lines = ["| " + " | ".join(HEADINGS[column] for column in table.columns) + " |",
             "|" + "|".join(" --- " for _ in table.columns) + "|"]
    for row in shown:
        lines.append("| " + " | ".join(_cell(_column(row, column)) for column in table.columns) + " |")
    return lines


BLOCK = re.compile(r"(<!-- results: ([A-Za-z0-9_.-]+) -->\n)(.*?)(<!-- /results -->)", re.DOTALL)


def rendered(text: str, rows: Sequence[Row]) -> str:
    """A document's text with every marked table written from the rows."""
    return BLOCK.sub(lambda match: match.group(1) + "\n".join(table_lines(match.group(2), rows)) + "\n"
                     + match.group(4), text)


def documents(root: Path = REPO) -> list[Path]:
    """The documents that hold at least one marked table."""
    return [path for path in sorted(root.glob(DOCUMENTS)) if BLOCK.search(path.read_text(encoding="utf-8"))]


def render(root: Path = REPO) -> list[Path]:
    """Writes every marked table from the ledger; returns the documents it changed."""
    rows = load(root)
    changed = []
    for path in documents(root):
        text = path.read_text(encoding="utf-8")
        new = rendered(text, rows)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def check(root: Path = REPO) -> list[str]:
    """What differs between the documents and the ledger, and what is wrong with the ledger's rows."""
    rows = load(root)
    found = [f"{LEDGER}:{number}: {problem}" for number, row in enumerate(rows, 1) for problem in problems(row)]
    for path in documents(root):
        text = path.read_text(encoding="utf-8")
        try:
            new = rendered(text, rows)
        except ValueError as error:
            found.append(f"{path.relative_to(root)}: {error}")
            continue
        if new != text:
            diff = difflib.unified_diff(text.splitlines(), new.splitlines(), "document", "ledger", lineterm="", n=0)
            found.append(f"{path.relative_to(root)}: a table differs from the ledger (python -m tools.results "
                         "render writes it):\n" + "\n".join(list(diff)[:12]))
    return found


def git_commit(root: Path = REPO) -> str:
    """The abbreviated hash of the checkout's HEAD."""
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                          check=True, timeout=30).stdout.strip()


def machine() -> str:
    """PONDEROSA_MACHINE when set, else the processor, cores, architecture and Python version."""
    if os.environ.get("PONDEROSA_MACHINE"):
        return os.environ["PONDEROSA_MACHINE"]
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}"


def append(measure: str, command: str, figures: Mapping[str, Figure], *, what: str, games: str = "",
           note: str = "", commit: str | None = None, date: str | None = None, machine_name: str | None = None,
           signature: int | None = None, base: str | None = None, root: Path = REPO) -> Row:
    """Adds one measurement to the ledger (the commit of HEAD, today and this machine unless given)."""
    row: Row = {"measure": measure, "what": what, "commit": commit or git_commit(root),
                "date": date or datetime.date.today().isoformat(), "machine": machine_name or machine(),
                "command": command, "figures": dict(figures), "games": games, "note": note}
    if signature is not None:
        row["signature"] = signature
    if base is not None:
        row["base"] = base
    wrong = problems(row)
    if wrong:
        raise ValueError("; ".join(wrong))
    path = root / LEDGER
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(row, ensure_ascii=False) + "\n")
    return row


def _figure(text: str) -> tuple[str, Figure]:
    name, separator, value = text.partition("=")
    if not separator:
        raise argparse.ArgumentTypeError(f"{text!r}: NAME=VALUE")
    for kind in (int, float):
        try:
            return name, kind(value)
        except ValueError:
            pass
    return name, value


def history(measure: str, rows: Iterable[Row]) -> list[str]:
    """Every row of one measure (a fnmatch pattern), oldest first, as a Markdown table."""
    columns = ("date", "commit", "bench", "result", "command", "games", "note")
    lines = ["| " + " | ".join(HEADINGS[column] for column in columns) + " |",
             "|" + "|".join(" --- " for _ in columns) + "|"]
    for row in rows:
        if fnmatch.fnmatchcase(row["measure"], measure):
            lines.append("| " + " | ".join(_cell(_column(row, column)) for column in columns) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=REPO, help="the repository (default: this one)")
    commands = parser.add_subparsers(dest="action", required=True)
    add = commands.add_parser("append", help="add one measurement to the ledger")
    add.add_argument("--measure", required=True, help="a stable key: bench, match.ethereal12, sprt.NAME, ...")
    add.add_argument("--what", required=True, help="what was measured, in a few words")
    add.add_argument("--command", required=True, help="the exact command that measured it")
    add.add_argument("--figure", action="append", type=_figure, required=True, metavar="NAME=VALUE")
    add.add_argument("--games", default="", help="where the games are (a path, or how to remake them)")
    add.add_argument("--note", default="")
    add.add_argument("--commit", help="the build measured (default: git rev-parse --short HEAD)")
    add.add_argument("--date", help="YYYY-MM-DD (default: today)")
    add.add_argument("--machine", help="default: PONDEROSA_MACHINE, else the processor and Python version")
    add.add_argument("--signature", type=int, help="the bench signature of the build measured")
    add.add_argument("--base", help="what the ratios are against, measured in the same run")
    commands.add_parser("render", help="write the documents' tables from the ledger")
    commands.add_parser("check", help="exit 1 when a document's table differs from the ledger")
    show = commands.add_parser("history", help="every row of a measure (a pattern: 'match.*')")
    show.add_argument("measure")
    args = parser.parse_args(argv)
    if args.action == "append":
        row = append(args.measure, args.command, dict(args.figure), what=args.what, games=args.games,
                     note=args.note, commit=args.commit, date=args.date, machine_name=args.machine,
                     signature=args.signature, base=args.base, root=args.root)
        print(json.dumps(row, ensure_ascii=False))
    elif args.action == "render":
        for path in render(args.root):
            print(f"wrote {path.relative_to(args.root)}")
    elif args.action == "check":
        found = check(args.root)
        for problem in found:
            print(problem, file=sys.stderr)
        return 1 if found else 0
    else:
        print("\n".join(history(args.measure, load(args.root))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
