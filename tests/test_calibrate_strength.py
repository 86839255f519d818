"""The strength calibration: tools/match/calibrate_strength.py turns match scores into measured ratings
and a fit, and engine/strength.py inverts measured points into the level to set. The matches
themselves run under the slow marker (the full table: docs/STRENGTH.md's command)."""
from __future__ import annotations

import math
import shutil

import pytest

from ponderosa.engine.strength import StrengthLevel, calibrated_level

from tools.match import calibrate_strength as calibrate

REPORT = """## Gauntlet: ponderosa

| opponent | games | W | D | L | score | Elo | ±95% | time losses (E/O) | illegal moves (E/O) \
| crashes (E/O) | errors (E/O) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| fairymax (Fairy-Max 5.0b) | 100 | 60 | 10 | 30 | 65.0% | +108 | 68 | 0/0 | 0/0 | 0/0 | 0/0 |
"""


def test_a_match_report_becomes_a_measured_rating() -> None:
    wins, draws, losses = calibrate.parse_table(REPORT, "fairymax")
    assert (wins, draws, losses) == (60, 10, 30)
    measured = calibrate.Measurement(1800, "fairymax", 2050, wins, draws, losses)
    assert measured.score == 0.65
    assert measured.elo() == pytest.approx(2050 + 400 * math.log10(0.65 / 0.35))
    low, high = measured.interval()
    assert low < measured.elo() < high and 100 < high - low < 300
    with pytest.raises(ValueError):
        calibrate.parse_table(REPORT, "phalanx")


def test_a_whitewash_is_kept_within_half_a_game() -> None:
    swept = calibrate.Measurement(1200, "fairymax", 2050, 0, 0, 20)
    assert swept.elo() == pytest.approx(2050 + 400 * math.log10(0.025 / 0.975))
    low, high = swept.interval()
    assert low == swept.elo() < high   # no zero-width interval for a whitewash


def test_fit_and_report_of_several_levels() -> None:
    points = [calibrate.Measurement(level, "x", 2000, wins, 0, 100 - wins)
              for level, wins in ((1500, 10), (2000, 50), (2500, 90))]
    intercept, slope = calibrate.fit(points)
    assert slope == pytest.approx(((points[2].elo() - points[0].elo()) / 1000), rel=1e-9)
    assert intercept + slope * 2000 == pytest.approx(2000, abs=1)
    text = calibrate.report(points)
    assert text.count("\n| ") == 4 and "(1500, 1618)" in text and "Fit: measured" in text


def test_plan_and_ratings_are_checked() -> None:
    assert calibrate.parse_plan("1400:fairymax, 2200:phalanx") == [(1400, "fairymax"), (2200, "phalanx")]
    for bad in ("1400", "x:fairymax"):
        with pytest.raises(ValueError):
            calibrate.parse_plan(bad)
    assert calibrate.parse_ratings(["fairymax=2050"]) == {"fairymax": 2050.0}
    with pytest.raises(SystemExit):
        calibrate.main(["--plan", "1400:fairymax"])   # no rating for it


def test_limited_stockfish_is_rated_by_its_name() -> None:
    assert calibrate.known_rating("stockfish-elo-1800") == 1800
    assert calibrate.known_rating("fairymax") is None and calibrate.known_rating("stockfish-elo-18") is None
    from tools.match import engines as match_engines
    spec = match_engines.opponent_spec("stockfish-elo-1800")
    assert spec is not None and dict(spec.options)["UCI_Elo"] == 1800 and dict(spec.options)["UCI_LimitStrength"]
    assert match_engines.opponent_spec("fairymax") is match_engines.OPPONENTS["fairymax"]
    assert match_engines.opponent_spec("stockfish-elo") is None


def test_calibrated_level_inverts_the_measured_points() -> None:
    points = ((1400, 1200), (2000, 1900), (2600, 2400))
    assert calibrated_level(1900, points) == 2000
    assert calibrated_level(1550, points) == 1700                  # halfway between the first two
    assert calibrated_level(2650, points) == 2900                  # beyond the last: its segment's slope
    assert calibrated_level(1100, points) == round(1400 - 100 * 600 / 700)
    assert calibrated_level(1750, ()) == 1750 and calibrated_level(1750, ((1500, 1600),)) == 1750


def test_a_level_plays_at_the_calibrated_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    level = StrengthLevel(limit=True, target=1900)
    monkeypatch.setattr("ponderosa.engine.strength.CALIBRATION", ())
    uncalibrated = level.node_cap()
    monkeypatch.setattr("ponderosa.engine.strength.CALIBRATION", ((1400, 1200), (2000, 1900), (2600, 2400)))
    assert level.design_elo() == 2000 and level.node_cap() > uncalibrated
    assert level.elo == 1900   # what the user asked for is what the options show


@pytest.mark.slow
def test_the_calibration_command_plays_and_reports(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The command of docs/STRENGTH.md on a small scale: two levels, four games each."""
    if shutil.which("fairymax", path="/usr/games:/usr/bin") is None:
        pytest.skip("fairymax is not installed (apt-get install fairymax)")
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = calibrate.main(["--plan", "1200:fairymax,2600:fairymax", "--rating", "fairymax=2050",
                               "--games", "4", "--tc", "10+0.1"])
    assert code == 0
    rows = [line for line in out.getvalue().splitlines() if line.startswith("| 1200 ") or line.startswith("| 2600 ")]
    assert len(rows) == 2 and all("/4 (" in row for row in rows), out.getvalue()
