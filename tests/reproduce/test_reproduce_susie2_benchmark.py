"""``alphavb reproduce susie2-benchmark --quick``: its files, its table's rows and values,
the scenarios' data as SuSiE 2.0's script makes them, and a rerun read from the cache."""

import csv

import numpy as np
import pytest

from alphavb import cli
from alphavb.reproduce import _susie2_data as data
from alphavb.reproduce._output import FEW_REPLICATIONS_STAMP
from tests.conftest import needs_plink_data
from tests.test_cli import png_description


def read(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow(25)
def test_quick_run_writes_the_table_and_reruns_from_the_cache(tmp_path):
    needs_plink_data()
    assert cli.main(["reproduce", "susie2-benchmark", "--quick", "--out", str(tmp_path)]) == 0
    rows = read(tmp_path / "susie2_benchmark.csv")
    methods = {(row["scenario"], row["method"]) for row in rows}
    for scenario in ("sparse3", "S1"):
        for name in ("SuSiE", "SuSiE-inf", "SuSiE-ash"):
            assert (scenario, f"{name}, calibrated") in methods
            for alpha in ("1", "0.75", "0.5"):
                assert (scenario, f"{name}, alpha = {alpha}") in methods
    # summary statistics with another sample's LD: the fixed alphas only
    assert ("ld_mismatch", "SuSiE, alpha = 1") in methods
    assert ("ld_mismatch", "SuSiE, calibrated") not in methods
    for row in rows:
        assert row["replicates"] == "2"
        # the sets pooled into the coverage: none leaves it undefined
        assert (int(row["n_sets"]) == 0) == (row["coverage"] in ("", "nan"))
        if "calibrated" in row["method"]:
            assert 0.5 <= float(row["alpha"]) <= 1.0
        elif row["alpha"]:
            assert float(row["alpha"]) == pytest.approx(float(row["method"].rsplit("= ")[1]))
        if row["coverage"] not in ("", "nan"):
            assert 0.0 <= float(row["coverage"]) <= 1.0
        assert float(row["seconds"]) > 0 and float(row["seconds_se"]) >= 0
    for name in ("susie2_benchmark.png", "susie2_benchmark.md", "susie2_benchmark_pips.csv"):
        assert (tmp_path / name).exists()
    # the PIPs' calibration is drawn too, stamped as a quick run as the main figure is
    for name in ("susie2_benchmark.png", "susie2_benchmark_pips.png"):
        assert png_description(tmp_path / name) == FEW_REPLICATIONS_STAMP
    assert cli.main(["reproduce", "susie2-benchmark", "--quick", "--out", str(tmp_path)]) == 0
    assert read(tmp_path / "susie2_benchmark.csv") == rows or all(
        {k: v for k, v in a.items() if k not in ("seconds", "seconds_se")}
        == {k: v for k, v in b.items() if k not in ("seconds", "seconds_se")}
        for a, b in zip(read(tmp_path / "susie2_benchmark.csv"), rows, strict=True))


def test_oligo_scenario_partitions_the_heritability():
    """S1 as the script draws it: the sparse, oligogenic and infinitesimal genetic values
    have sample variances 0.5, 0.35 and 0.15 of h2g = 0.25 of Var(g) / h2g, the sparse and
    oligogenic variants are nearly unlinked, and the causal variants by power include the
    top 3."""
    rng = np.random.default_rng(0)
    genotypes = rng.binomial(2, rng.uniform(0.1, 0.5, 400), size=(500, 400)).astype(float)
    X, _ = data.window_genotypes(genotypes, rng, n_samples=400, window=300)
    assert X.shape == (400, 300)
    np.testing.assert_allclose(X.std(axis=0, ddof=1), 1.0)
    y, coef, causal, top, sparse, oligo = data.oligo_response(X, "S1", rng)
    assert len(sparse) == 3 and len(oligo) == 5
    rest = np.setdiff1d(np.arange(300), np.concatenate([sparse, oligo]))
    shares = [np.var(X[:, part] @ coef[part], ddof=1) for part in (sparse, oligo, rest)]
    np.testing.assert_allclose(shares, [0.5 * 0.25, 0.35 * 0.25, 0.15 * 0.25], rtol=1e-10)
    assert np.count_nonzero(coef) == 300
    genetic = np.var(X @ coef, ddof=1)
    noise = np.var(y - X @ coef, ddof=1)
    assert genetic / (genetic + noise) == pytest.approx(0.25, abs=0.08)
    both = np.concatenate([sparse, oligo])
    r = np.abs(np.corrcoef(X[:, both], rowvar=False)[np.triu_indices(8, 1)])
    assert r.max() < 0.5
    assert set(top.tolist()) == set(np.argsort(-np.abs(coef))[:3].tolist())
    from scipy import stats

    noise_variance = genetic * (1 - 0.25) / 0.25  # the script's sigma^2, from Var(g)
    power = stats.ncx2.sf(stats.chi2.isf(0.05 / 300, 1), 1, 400 * coef**2 / noise_variance)
    assert causal.tolist() == np.flatnonzero(power >= 0.8).tolist()
    assert len(causal) >= 1


def oligo_response_computing_every_try(X, shares, n_oligo, rng):
    """The oligo scenarios' draw as the script makes it: every try computes its effects,
    the infinitesimal component's pool and the bound's check; the kept try is the first to
    pass, or the last one once the bound has risen past 0.5."""
    n, p = X.shape
    sparse_share, oligo_share, inf_share = (data.H2G * share for share in shares)
    bound = 0.1
    while True:
        for _ in range(500):
            sparse = rng.choice(p, size=3, replace=False)
            coef = np.zeros(p)
            coef[sparse] = data._scaled(X, sparse, rng.normal(0.0, 0.5, 3), sparse_share)
            rest = np.setdiff1d(np.arange(p), sparse)
            oligo = rng.choice(rest, size=n_oligo, replace=False) if n_oligo else rest[:0]
            if n_oligo:
                spread = np.where(rng.random(n_oligo) < 0.75, 0.05, 0.15)
                coef[oligo] = data._scaled(X, oligo, rng.normal(0.0, spread), oligo_share)
            pool = np.setdiff1d(rest, oligo)
            background = rng.normal(0.0, 0.01, pool.size) if inf_share > 0 else None
            noise = rng.standard_normal(n)
            if data._pairwise_below(X, np.concatenate([sparse, oligo]), bound, strict=True):
                break
        else:
            bound += 0.1
            if bound <= 0.5 + 1e-12:
                continue
        if background is not None:
            coef[pool] = data._scaled(X, pool, background, inf_share)
        genetic = X @ coef
        noise_variance = np.var(genetic, ddof=1) * (1.0 - data.H2G) / data.H2G
        return genetic + np.sqrt(noise_variance) * noise, coef, sparse, oligo


@pytest.mark.parametrize("linkage", ["weak", "strong"])
def test_oligo_draws_are_those_of_computing_every_try(linkage):
    """Only the kept try rescales its effects (data.oligo_response): S1, S2 and the
    polygenic background draw bit for bit what computing every try draws, and leave the
    generator in the same state, where some of the first tries pass the bound (weak LD) and
    where none ever does (strong LD: 2,500 tries, the last one kept; S1 once)."""
    rng = np.random.default_rng(3)
    if linkage == "weak":
        X = rng.standard_normal((120, 60))
    else:  # 3 blocks of 20 near-copies: every try has a pair with |r| near 1
        X = np.repeat(rng.standard_normal((120, 3)), 20, axis=1)
        X += 0.05 * rng.standard_normal(X.shape)
    X = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    cases = [*data.OLIGO.items(), ("polygenic", data.POLYGENIC)]
    for scenario, (shares, n_oligo) in cases if linkage == "weak" else cases[:1]:
        for seed in range(2 if linkage == "weak" else 1):
            ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
            drawn = (data.polygenic_response(X, ours) if scenario == "polygenic"
                     else data.oligo_response(X, scenario, ours))
            y, coef, sparse, oligo = oligo_response_computing_every_try(X, shares, n_oligo,
                                                                        theirs)
            assert drawn.y.tobytes() == y.tobytes() and drawn.coef.tobytes() == coef.tobytes()
            assert drawn.sparse.tolist() == sorted(sparse) and drawn.oligo.tolist() == sorted(
                oligo)
            assert ours.bit_generator.state == theirs.bit_generator.state


def test_sparse_scenario_is_unlinked_with_unit_effects():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 80))
    y, coef, causal = data.sparse_response(X, 4, rng)
    assert len(causal) == 4 and np.all(coef[causal] == 1.0)
    r = np.corrcoef(X[:, causal], rowvar=False)[np.triu_indices(4, 1)]
    assert np.all(np.abs(r) <= 0.1)
    h2 = np.var(X @ coef, ddof=1) / np.var(y, ddof=1)
    assert h2 == pytest.approx(0.12, abs=0.06)


def test_trade_off_alphas_run_on_the_first_replicates_only(tmp_path, monkeypatch):
    """The fixed alphas below 1 (the trade-off curve) run on the first
    ``CURVE_REPLICATIONS`` replicates, alpha = 1 and the calibrated choices on all; the
    alpha = 1 rows are the cells of the full grid (read from its cache)."""
    needs_plink_data()
    from alphavb.reproduce import susie2_benchmark as benchmark

    monkeypatch.setattr(benchmark, "CURVE_REPLICATIONS", 1)
    found = benchmark.run_benchmark_scenario("sparse3", n_replications=2, quick=True,
                                             cache_dir=tmp_path)
    counts = found[found["parameter"] == "n_cs"].groupby("method")["replication"].nunique()
    assert counts["SuSiE, alpha = 1"] == counts["SuSiE-inf, calibrated"] == 2
    assert counts["SuSiE, alpha = 0.5"] == counts["SuSiE-ash, alpha = 0.75"] == 1


def test_seconds_are_the_median_fit():
    """The table's seconds are each method's median fit over the fits that ran: a fit that
    spans a pause of the run (here 400 s) does not move them, as it moves a mean, nor does a
    failed fit's NaN; the error is the order statistics' 95% interval over 3.92."""
    import pandas as pd

    from alphavb.reproduce.susie2_benchmark import median_seconds

    estimates = pd.DataFrame({
        "setting": ["S1"] * 4 + ["S2"] * 2, "method": ["SuSiE, alpha = 1"] * 3 + ["x"] * 3,
        "parameter": ["seconds", "seconds", "seconds", "seconds", "seconds", "power"],
        "estimate": [1.0, 2.0, 400.0, 5.0, 3.0, 1.0]})
    found = median_seconds(estimates)
    assert {key: value[0] for key, value in found.items()} == {
        ("S1", "SuSiE, alpha = 1"): 2.0, ("S1", "x"): 5.0, ("S2", "x"): 3.0}
    assert np.isnan(found[("S1", "x")][1])  # one fit: unknown
    # 3 fits: the interval's ranks reach both ends, so the error is (400 - 1) / 3.92
    assert found[("S1", "SuSiE, alpha = 1")][1] == pytest.approx(399.0 / 3.92)
    # 101 fits, 100 of them 1.0 s, one paused and one failed: neither moves the median
    many = pd.DataFrame({"setting": "S1", "method": "m", "parameter": "seconds",
                         "estimate": [1.0] * 100 + [400.0, np.nan],
                         "status": ["ok"] * 101 + ["error"]})
    assert median_seconds(many)[("S1", "m")] == (1.0, 0.0)
    # 11 fits 0..10: ranks floor(5.5 - 3.25) = 2 and ceil(6.5 + 3.25) = 10 (1-based), the
    # values 1 and 9, centred on the median 5
    eleven = pd.DataFrame({"setting": "S1", "method": "m", "parameter": "seconds",
                           "estimate": np.arange(11.0), "status": "ok"})
    assert median_seconds(eleven)[("S1", "m")] == (5.0, pytest.approx(8.0 / 3.92))


def test_table_says_n_a_for_an_error_it_cannot_estimate():
    """A coverage from one replicate's sets has no MCSE, and a method without sets has no
    coverage: the table says n/a, not nan."""
    from alphavb.reproduce._output import _markdown_table

    rows = [{"method": "a", "coverage": 0.95, "coverage_se": 0.01, "size": 2.5},
            {"method": "b", "coverage": 1.0, "coverage_se": float("nan"), "size": 3.0},
            {"method": "c", "coverage": float("nan"), "coverage_se": float("nan"),
             "size": float("nan")}]
    lines = _markdown_table("t", "d", rows, ["method", "coverage", "size"]).splitlines()
    assert lines[-3:] == ["| a | 0.950 +- 0.010 | 2.5 |", "| b | 1.000 +- n/a | 3 |",
                          "| c | n/a | n/a |"]
    assert "nan" not in "\n".join(lines)


def test_pooled_shares_have_their_mcse_over_the_replicates():
    """Coverage pooled over the sets of 3 replicates (2 of 3, 1 of 1, 0 of 2 sets cover):
    the ratio estimator's MCSE, sqrt(R / (R - 1) sum_r (S_r - p n_r)^2) / N = 0.25 by hand,
    not the rows' 0.224; the rows summarise_study uses (a failed fit's left out); with
    one row per replicate (the sets per fit) the replicates' MCSE is the rows'."""
    import pandas as pd

    from alphavb.reproduce.susie_calibration import summarise_finemapping

    rows = [(0, "cs_covers", 1.0), (0, "cs_covers", 1.0), (0, "cs_covers", 0.0),
            (1, "cs_covers", 1.0), (2, "cs_covers", 0.0), (2, "cs_covers", 0.0),
            (0, "n_cs", 3.0), (1, "n_cs", 1.0), (2, "n_cs", 2.0), (3, "n_cs", 0.0)]
    frame = pd.DataFrame([{"n_samples": 100, "alpha": 1.0, "replication": r, "parameter": name,
                           "estimate": value, "se": 0.0, "lower": value, "upper": value,
                           "true": 0.0, "status": "ok", "method": "m", "setting": "s"}
                          for r, name, value in rows])
    failed = frame.iloc[[0]].assign(replication=4, estimate=1.0, status="failed")
    frame = pd.concat([frame, failed], ignore_index=True)
    frame.loc[0, "lower"] = np.nan  # summarise_study reads no interval here: the row counts
    naive = summarise_finemapping(frame).set_index("parameter")
    clustered = summarise_finemapping(frame, clustered=True).set_index("parameter")
    assert clustered.loc["cs_covers", "mean"] == pytest.approx(0.5)
    assert clustered.loc["cs_covers", "rows"] == 6
    assert clustered.loc["cs_covers", "mcse"] == pytest.approx(0.25, rel=1e-12)
    assert naive.loc["cs_covers", "mcse"] == pytest.approx(np.sqrt(0.3 / 6), rel=1e-12)
    assert clustered.loc["n_cs", "mcse"] == pytest.approx(naive.loc["n_cs", "mcse"],
                                                          rel=1e-12)
