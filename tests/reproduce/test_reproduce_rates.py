"""The rate vignettes in quick mode: their files, their slopes, their cache; ``all``."""

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from alphavb import cli
from alphavb.reproduce.rates import RATE_STUDIES

# The theory's range for a fitted log-log slope: the bound c log(dn)/n falls with slope
# between -1 and bound_slope (about -0.87 over the quick n = 100..1600), and a parametric
# risk falls like 1/n. TOLERANCE widens it for the quick studies' noise: over 20 seeds of
# the quick regression and spike-and-slab studies the slopes ranged from -1.157 to -0.900
# (standard deviation 0.03 to 0.06 per alpha), so 0.2 is more than 3 standard deviations.
TOLERANCE = 0.2


def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("name", sorted(RATE_STUDIES))
def test_quick_rate_vignette_writes_its_files(name, tmp_path, capsys):
    assert cli.main(["reproduce", name, "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    files = [tmp_path / f"{name}.png", tmp_path / f"{name}_slopes.csv",
             tmp_path / f"{name}_slopes.md", tmp_path / f"{name}_fits.csv"]
    for path in files:
        assert f"wrote {path}" in out
    assert files[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from tests.test_cli import png_description

    assert png_description(files[0]) == "quick run: few replications, not the study"
    study = RATE_STUDIES[name]
    fits = _rows(files[3])
    n_series = 2 * int(np.prod([len(v) for v in study.extra_grid.values()]))
    assert len(fits) == 3 * n_series * study.quick_replications
    assert all(float(row["risk"]) > 0 for row in fits)
    slopes = _rows(files[1])
    assert len(slopes) == n_series
    assert all(float(row["slope_low"]) < float(row["slope"]) < float(row["slope_high"])
               for row in slopes)
    assert "| slope | 95% CI |" in files[2].read_text()
    if name in ("regression-rate", "spike-slab-rate"):
        for row in slopes:
            assert -1 - TOLERANCE < float(row["slope"]) < float(row["bound_slope"]) + TOLERANCE
        # the tempered fit is wider, so its risk is larger (bound: 1/min(alpha, 1 - alpha))
        normalized = {float(row["alpha"]): float(row["normalized_risk"]) for row in slopes}
        assert normalized[0.5] > normalized[1.0]
    # a re-run takes every fit from the cache
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "cache").iterdir()}
    assert cli.main(["reproduce", name, "--quick", "--out", str(tmp_path)]) == 0
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "cache").iterdir()} == stamps
    assert _rows(files[1]) == slopes


def test_rate_vignette_script_runs(tmp_path):
    script = Path(__file__).parents[2] / "vignettes" / "regression_rate.py"
    result = subprocess.run([sys.executable, str(script), str(tmp_path), "--quick"],
                            capture_output=True, text=True, check=True)
    assert f"wrote {tmp_path / 'regression-rate.png'}" in result.stdout


def test_all_runs_every_target_with_the_flags_it_takes(tmp_path, monkeypatch, capsys):
    calls = []

    def with_quick(out_dir, random_state, quick=False, n_jobs=1):
        calls.append(("with_quick", out_dir, quick, n_jobs))
        return {"files": [Path(out_dir) / "a.png"]}

    def needs_data(out_dir, random_state):
        calls.append(("needs_data", out_dir))
        raise FileNotFoundError("the data set is not in the data home (set ALPHAVB_DATA)")

    def plain(out_dir, random_state):
        calls.append(("plain", out_dir))
        return {"files": []}

    monkeypatch.setattr(cli, "TARGETS", {"one": with_quick, "two": needs_data,
                                         "three": plain})
    code = cli.main(["reproduce", "all", "--quick", "--jobs", "2", "--out", str(tmp_path)])
    assert code == 2  # one target could not run, and the others still ran
    assert calls == [("with_quick", f"{tmp_path}/one", True, 2), ("needs_data", f"{tmp_path}/two"),
                     ("plain", f"{tmp_path}/three")]
    captured = capsys.readouterr()
    assert f"wrote {tmp_path}/one/a.png" in captured.out
    assert "could not run: two" in captured.err and "ALPHAVB_DATA" in captured.err
