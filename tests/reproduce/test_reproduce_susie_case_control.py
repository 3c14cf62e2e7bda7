"""``alphavb reproduce susie-case-control --quick``: its files, its rows, the exact
comparison and its cache; the simulated designs themselves."""

import csv

import numpy as np
import pytest

from alphavb import cli
from tests.conftest import needs_plink_data


@pytest.fixture(autouse=True)
def plink_data():
    needs_plink_data()


def read(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow(22)
def test_quick_run_writes_the_tables_and_resumes_from_its_cache(tmp_path):
    from tests.test_cli import png_description

    arguments = ["reproduce", "susie-case-control", "--quick", "--out", str(tmp_path)]
    assert cli.main(arguments) == 0
    assert png_description(tmp_path / "susie_case_control.png") == \
        "quick run: few replications, not the study"
    rows = read(tmp_path / "susie_case_control.csv")
    assert [(row["design"], row["method"]) for row in rows] == [
        (design, method) for design in ("balanced", "case_control", "rare")
        for method in ("logistic, alpha = 1", "logistic, alpha = 0.5", "linear, alpha = 1")]
    for row in rows:
        for key in ("coverage", "power", "purity"):
            if row[key] not in ("", "nan"):
                assert 0.0 <= float(row[key]) <= 1.0
    exact = read(tmp_path / "susie_case_control_exact.csv")
    assert [row["design"] for row in exact] == ["balanced", "case_control", "rare"]
    assert all(0.0 <= float(row["largest_pip_error"]) <= 1.0 for row in exact)
    cached = sorted((tmp_path / "cache").rglob("*.json"))
    before = {path: path.stat().st_mtime_ns for path in cached}
    assert cli.main(arguments) == 0
    assert read(tmp_path / "susie_case_control.csv") == rows
    assert {path: path.stat().st_mtime_ns for path in cached} == before


def test_the_designs_have_their_prevalence_and_causal_variants():
    """A cohort's share of cases is its prevalence (within sampling error); the
    case-control sample is half cases, drawn from a population at 5%; the trait follows
    the causal variants (their log odds ratio's sign)."""
    from scipy.special import expit

    from alphavb.reproduce.susie_case_control import _simulate_binary

    shares = []
    for seed in range(6):
        X, y, truth = _simulate_binary(1940, seed, "rare", 100)
        shares.append(y.mean())
        assert X.shape == (1940, 100) and truth["causal"].size in (1, 2, 3)
    assert np.mean(shares) == pytest.approx(0.1, abs=0.01)
    X, y, truth = _simulate_binary(1940, 0, "case_control", 100)
    assert y.sum() == 970 and X.shape == (1940, 100)
    logit = X @ truth["coef"]
    # cases carry the causal variants' risk more than controls (the ascertainment)
    assert expit(logit[y == 1]).mean() > expit(logit[y == 0]).mean()
