"""run_study: reproducible seeding, parallel runs, the disk cache; fit_rate's regression."""

import numpy as np
import pandas as pd
import pytest

from alphavb import AlphaLDA, AlphaLinearRegression
from alphavb.simulation import (
    _cells,
    _runner,
    bound_slope,
    fit_rate,
    lda_problem,
    linear_regression_problem,
    rate_normalized_risk,
    run_study,
    study_cell,
)

GRID = {"n_samples": [50, 200], "alpha": [0.5, 1.0]}


def _study(**kwargs):
    options = {"n_replications": 3, "random_state": 7, "progress": False, "n_draws": 50}
    options.update(kwargs)
    return run_study(linear_regression_problem(n_features=3), AlphaLinearRegression(), GRID,
                     **options)


def _same_results(a, b):
    pd.testing.assert_frame_equal(a.drop(columns="fit_seconds"), b.drop(columns="fit_seconds"))


def test_rows_columns_and_order():
    df = _study()
    assert list(df.columns) == ["n_samples", "alpha", "replication", "risk", "error",
                                "fit_seconds", "n_iter", "converged", "status", "message",
                                "warnings"]
    assert len(df) == 2 * 2 * 3
    assert df[["n_samples", "alpha", "replication"]].values.tolist()[:4] == [
        [50, 0.5, 0], [50, 0.5, 1], [50, 0.5, 2], [50, 1.0, 0]]
    assert np.all(df["risk"] > 0) and np.all(df["error"] > 0) and df["converged"].all()
    # more data, less risk (averaged over replications)
    means = df.groupby("n_samples")["risk"].mean()
    assert means[200] < means[50] / 2


def test_results_do_not_depend_on_n_jobs():
    _same_results(_study(n_jobs=1), _study(n_jobs=2))


def test_seeds_do_not_depend_on_the_rest_of_the_grid():
    full = _study()
    alone = run_study(linear_regression_problem(n_features=3), AlphaLinearRegression(),
                      {"n_samples": [200], "alpha": [1.0]}, n_replications=3, random_state=7,
                      progress=False, n_draws=50)
    part = full[(full.n_samples == 200) & (full.alpha == 1.0)].reset_index(drop=True)
    _same_results(part, alone)
    # another seed gives other data
    other = _study(random_state=8)
    assert not np.allclose(other["risk"], full["risk"])


def test_alphas_share_data_and_seeds():
    # common random numbers: the data of a replication is the same for every alpha, so at
    # alpha = 1 with a learned noise and alpha = 1 twice the rows agree exactly
    grid = {"n_samples": [100], "alpha": [1.0, 1.0]}
    df = run_study(linear_regression_problem(), AlphaLinearRegression(), grid,
                   n_replications=2, progress=False)
    np.testing.assert_array_equal(df["risk"].to_numpy()[:2], df["risk"].to_numpy()[2:])


def _rows(folder):
    """The cached rows (beside them, the study's manifest.json)."""
    return [path for path in folder.glob("*.json") if path.name != "manifest.json"]


class _Counter:
    def __init__(self, monkeypatch):
        self.calls = 0
        original = _runner._fit_one

        def counted(*args):
            self.calls += 1
            return original(*args)

        monkeypatch.setattr(_runner, "_fit_one", counted)


def test_cache_resumes_and_skips_computed_rows(tmp_path, monkeypatch):
    counter = _Counter(monkeypatch)
    first = _study(cache_dir=tmp_path)
    assert counter.calls == 12 and len(_rows(tmp_path)) == 12
    again = _study(cache_dir=tmp_path)
    assert counter.calls == 12  # nothing refitted
    pd.testing.assert_frame_equal(first, again)  # fit times included: read from the cache
    # an interrupted run: two rows lost, only they are recomputed, with the same results
    for path in sorted(_rows(tmp_path))[:2]:
        path.unlink()
    resumed = _study(cache_dir=tmp_path)
    assert counter.calls == 14
    _same_results(first, resumed)
    # a larger grid reuses every row it already has
    bigger = run_study(linear_regression_problem(n_features=3), AlphaLinearRegression(),
                       {"n_samples": [50, 200, 400], "alpha": [0.5, 1.0]}, n_replications=3,
                       random_state=7, progress=False, n_draws=50, cache_dir=tmp_path)
    assert counter.calls == 14 + 6
    _same_results(bigger[bigger.n_samples < 400].reset_index(drop=True), first)
    # a changed estimator parameter is a different study: nothing is reused
    run_study(linear_regression_problem(n_features=3), AlphaLinearRegression(tol=1e-6), GRID,
              n_replications=3, random_state=7, progress=False, n_draws=50, cache_dir=tmp_path)
    assert counter.calls == 20 + 12


def test_dask_backend_on_a_local_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster):
        on_dask = _study(backend="dask")
    _same_results(on_dask, _study())


def test_n_init_keeps_the_fit_with_the_best_objective():
    problem = lda_problem(n_documents=20, n_topics=2, n_words=15)
    estimator = AlphaLDA(2, alpha=0.5, max_iter=30)
    point = {"n_samples": 30}
    cell = study_cell(problem, estimator, point, 0, random_state=3, n_draws=10, n_init=4)
    row = cell.row
    data_seed, fit_seed, risk_seed = _cells._seeds(3, 0, point)
    X, _, truth = problem.simulate(30, data_seed, **problem.settings)
    fits = [AlphaLDA(2, alpha=0.5, max_iter=30, random_state=fit_seed + i).fit(X)
            for i in range(4)]
    best = max(fits, key=lambda fit: fit.elbo_)
    assert row["risk"] == problem.risk(best, X, truth, 10, risk_seed)
    assert len({round(fit.elbo_, 6) for fit in fits}) > 1  # the starts differ


def test_fit_rate_recovers_a_known_slope():
    rng = np.random.default_rng(0)
    n = np.repeat([100, 200, 400, 800, 1600], 20)
    rows = []
    for alpha, slope in ((0.5, -1.0), (1.0, -0.5)):
        risk = 3.0 * n**slope * np.exp(0.1 * rng.standard_normal(n.size))
        rows.append(pd.DataFrame({"n_samples": n, "alpha": alpha, "risk": risk}))
    df = pd.concat(rows, ignore_index=True)
    table = fit_rate(df, complexity=4)
    assert list(table["alpha"]) == [0.5, 1.0]
    for (_, row), slope in zip(table.iterrows(), (-1.0, -0.5), strict=True):
        assert row.slope_low < slope < row.slope_high
        assert row.slope_high - row.slope_low < 0.05
        assert abs(row.slope - slope) < 0.03
    assert table["n_fits"].tolist() == [100, 100]
    # the same fit by hand (numpy least squares)
    part = df[df.alpha == 0.5]
    by_hand = np.polyfit(np.log(part.n_samples), np.log(part.risk), 1)[0]
    assert table.loc[0, "slope"] == pytest.approx(by_hand, rel=1e-10)
    assert fit_rate(df, level=0.5).eval("slope_high - slope_low").lt(
        table.eval("slope_high - slope_low")).all()


def test_fit_rate_gives_a_group_with_one_sample_size_a_nan_row():
    """A group whose "ok" fits all share one sample size (the others failed) has no slope:
    its row is NaN, with a warning naming it, and the other groups are fitted as before."""
    n = np.array([100, 200, 400, 800])
    df = pd.DataFrame({"n_samples": np.r_[n, n], "alpha": np.repeat([0.5, 1.0], 4),
                       "risk": np.r_[2.0 / n, 3.0 / n],
                       "status": ["ok"] * 5 + ["error"] * 3})
    original = df.copy()
    with pytest.warns(UserWarning, match=r"alpha=1\.0.*one value of 'n_samples'.*at least two"):
        table = fit_rate(df, complexity=2)
    pd.testing.assert_frame_equal(df, original)
    assert list(table["alpha"]) == [0.5, 1.0]
    assert table.loc[0, "slope"] == pytest.approx(-1.0)
    nan_row = table.loc[1]
    assert nan_row[["slope", "slope_low", "slope_high", "intercept", "r_squared",
                    "bound_slope"]].isna().all()
    assert nan_row["n_fits"] == 1
    assert nan_row["normalized_risk"] == pytest.approx(100 * 0.03 / (2 * np.log(200)))
    # the same with two replications at the one size (no constant column for OLS either)
    df.loc[5, "status"], df.loc[5, "n_samples"] = "ok", 100
    with pytest.warns(UserWarning, match="one value of 'n_samples'"):
        assert fit_rate(df)["slope"].isna().tolist() == [False, True]


def test_rate_normalized_risk_and_bound_slope():
    df = pd.DataFrame({"n_samples": [100, 1000], "risk": [0.5, 0.05], "s": [4, 4]})
    expected = df.n_samples * df.risk / (4 * np.log(200 * df.n_samples))
    np.testing.assert_allclose(rate_normalized_risk(df, "s", 200), expected)
    np.testing.assert_allclose(rate_normalized_risk(df, 4), df.n_samples * df.risk
                               / (4 * np.log(4 * df.n_samples)))
    # the rate log(d n)/n itself has exactly the bound's slope
    n_low, n_high, d = 100, 1600, 5
    rate = np.log(d * np.array([n_low, n_high])) / np.array([n_low, n_high])
    assert bound_slope(n_low, n_high, d) == pytest.approx(
        np.diff(np.log(rate))[0] / np.log(n_high / n_low))
    assert -1 < bound_slope(n_low, n_high, d) < -1 + 1 / np.log(d * n_low)


@pytest.mark.parametrize("kwargs, message", [
    ({"grid": {"alpha": [0.5]}}, "'grid'.*n_samples"),
    ({"grid": {"n_samples": [50], "colour": [1]}}, "'grid'.*colour"),
    ({"grid": {"n_samples": []}}, "'grid'.*non-empty"),
    ({"grid": {"n_samples": [0]}}, "n_samples"),
    ({"problem": "poisson"}, "'problem'"),
    ({"random_state": None}, "'random_state'"),
    ({"n_replications": 0}, "'n_replications'"),
    ({"n_init": 0}, "'n_init'"),
    ({"n_draws": 1.5}, "'n_draws'"),
])
def test_bad_study_input(kwargs, message):
    options = {"problem": "linear_regression", "estimator": AlphaLinearRegression(),
               "grid": {"n_samples": [50]}, "n_replications": 1, "progress": False}
    options.update(kwargs)
    with pytest.raises(ValueError, match=message):
        run_study(**options)


def test_bad_rate_input():
    df = pd.DataFrame({"n_samples": [10, 20], "risk": [0.1, 0.0]})
    with pytest.raises(ValueError, match=r"'risk'.*positive"):
        fit_rate(df)
    with pytest.raises(ValueError, match="two values"):
        fit_rate(pd.DataFrame({"n_samples": [10, 10], "risk": [0.1, 0.2]}))
    with pytest.raises(ValueError, match="'y'"):
        fit_rate(df, y="loss")
    with pytest.raises(ValueError, match="'complexity'"):
        rate_normalized_risk(df, "d")


def test_a_non_finite_risk_is_an_error_with_on_error_raise():
    from alphavb.simulation import Problem

    base = linear_regression_problem(n_features=2)
    broken = Problem("broken", base.simulate, _nan_risk, base.error, base.settings)
    with pytest.raises(FloatingPointError, match="replication 0"):
        run_study(broken, AlphaLinearRegression(), {"n_samples": [30]}, n_replications=1,
                  progress=False, on_error="raise")


def _nan_risk(model, X, truth, n_draws, random_state):
    return float("nan")


def test_the_approximation_checks_mode_reaches_the_workers():
    """approximation_checks("always") around run_study checks every fit in the workers too:
    they are handed the caller's mode (a loky worker starts from "auto", which leaves the
    mixture's dear check out and so records no PosteriorApproximationWarning)."""
    import alphavb
    from alphavb import AlphaGaussianMixture

    with alphavb.approximation_checks("always"):
        fits = run_study("gaussian_mixture", AlphaGaussianMixture(5), {"n_samples": [60]},
                         n_replications=2, n_jobs=2, progress=False, random_state=0)
    assert fits["warnings"].fillna("").str.contains("PosteriorApproximationWarning").all()
