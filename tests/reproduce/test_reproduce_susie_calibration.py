"""``alphavb reproduce susie-calibration --quick``: its files, its table's rows and values,
the study's rows against the fits they come from, and its cache."""

import csv

import numpy as np
import pytest

from alphavb import cli
from alphavb.datasets import get_data_home


@pytest.fixture(autouse=True)
def needs_susie_data():
    if not (get_data_home() / "susie" / "N3finemapping_X.csv").exists():
        pytest.skip("the susie data are not in the data home (set ALPHAVB_DATA)")


def read(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow(30)
def test_quick_run_writes_the_table_and_resumes_from_its_cache(tmp_path):
    from tests.test_cli import png_description

    assert cli.main(["reproduce", "susie-calibration", "--quick", "--out", str(tmp_path)]) == 0
    assert png_description(tmp_path / "susie_calibration.png") == \
        "quick run: few replications, not the study"
    rows = read(tmp_path / "susie_calibration.csv")
    assert [(row["setting"], row["method"]) for row in rows] == [
        (setting, method) for setting in ("correct", "ld_mismatch", "t3", "polygenic")
        for method in ("alpha = 1", "alpha = 0.5",
                       *(() if setting == "ld_mismatch" else ("safebayes",)))]
    for row in rows:
        for key in ("coverage", "power", "purity"):
            if row[key] not in ("", "nan"):
                assert 0.0 <= float(row[key]) <= 1.0
        if row["method"] == "safebayes":
            assert float(row["alpha"]) in (0.5, 1.0) or 0.5 < float(row["alpha"]) < 1.0
    # correct model, alpha = 1: the sets hold causal variants nearly always (10 replications)
    correct = rows[0]
    assert float(correct["coverage"]) > 0.7 and float(correct["power"]) > 0.3
    bins = read(tmp_path / "susie_calibration_pips.csv")
    assert all(0.1 <= float(b["mean_pip"]) <= 1.0 for b in bins)
    assert all(0.0 <= float(b["causal_share"]) <= 1.0 for b in bins)
    fitted = sorted((tmp_path / "cache").rglob("*.json"))
    assert fitted  # a second run reads every fit from the cache
    before = {path: path.stat().st_mtime_ns for path in fitted}
    assert cli.main(["reproduce", "susie-calibration", "--quick", "--out", str(tmp_path)]) == 0
    assert read(tmp_path / "susie_calibration.csv") == rows
    assert {path: path.stat().st_mtime_ns for path in fitted} == before


def test_a_fit_s_rows_are_its_credible_sets():
    """The estimates hook's rows of one replication equal what the fitted model shows:
    one coverage row per credible set (1 when it holds a causal variant), power per causal
    variant, and PIP-bin rows for every PIP above 0.1."""
    from alphavb import AlphaSuSiE
    from alphavb.reproduce.susie_calibration import (
        _simulate_finemapping,
        finemapping_rows,
    )

    X, y, truth = _simulate_finemapping(574, 3, "correct", 200)
    model = AlphaSuSiE().fit(X, y)
    rows = finemapping_rows(model, truth, 0.95)
    values = dict.fromkeys(rows["parameter"])
    values = {name: [v for n, v in zip(rows["parameter"], rows["estimate"], strict=True)
                     if n == name] for name in values}
    causal = set(truth["causal"].tolist())
    assert values["cs_covers"] == [float(bool(set(s["variables"]) & causal))
                                   for s in model.credible_sets_]
    assert len(values["power"]) == len(causal)
    assert values["n_cs"] == [len(model.credible_sets_)]
    binned = [v for name, vs in values.items() if name.startswith("pip[") for v in vs]
    assert sorted(binned) == sorted(model.inclusion_probabilities_[
        model.inclusion_probabilities_ >= 0.1].tolist())
    assert np.all(np.asarray(rows["true"]) == 0.0)
