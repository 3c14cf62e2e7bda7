"""What a study keeps beyond the risk: per-parameter estimates, failures as rows, cache keys
that follow the code, provenance, shards of an array job, one cell replayed."""

import importlib
import json
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta as beta_distribution

from alphavb import (
    AlphaGaussianMixture,
    AlphaLDA,
    AlphaLinearRegression,
    AlphaSpikeSlabRegression,
)
from alphavb.blackbox import AlphaLogisticRegression
from alphavb.simulation import (
    Problem,
    _cells,
    collect_study,
    gaussian_mixture_problem,
    lda_problem,
    linear_regression_problem,
    logistic_regression_problem,
    run_study,
    spike_slab_problem,
    study_cell,
    summarise_study,
)
from tests.simulation.test_simulation import _Counter, _nan_risk

GRID = {"n_samples": [40, 80], "alpha": [0.5, 1.0]}
OPTIONS = {"n_replications": 3, "random_state": 5, "progress": False, "n_draws": 20}


def _problem():
    return linear_regression_problem(n_features=2)


def _without_times(frame):
    return frame.drop(columns="fit_seconds").reset_index(drop=True)


# ------------------------------------------------------------------ per-parameter rows


def test_estimates_are_the_estimators_own_summaries():
    fits, estimates = run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS,
                                return_estimates=True)
    assert list(estimates.columns) == ["n_samples", "alpha", "replication", "parameter",
                                       "estimate", "se", "lower", "upper", "true", "status"]
    assert len(estimates) == len(fits) * 2
    # the cell's model gives the same numbers: its coefficients, sds and intervals
    cell = study_cell(_problem(), AlphaLinearRegression(), {"n_samples": 80, "alpha": 0.5},
                      2, random_state=5, n_draws=20)
    rows = estimates[(estimates.n_samples == 80) & (estimates.alpha == 0.5)
                     & (estimates.replication == 2)]
    interval = cell.model.credible_intervals(0.95)
    np.testing.assert_array_equal(rows["estimate"], cell.model.coef_)
    np.testing.assert_array_equal(rows[["lower", "upper"]].to_numpy(), interval)
    np.testing.assert_allclose(rows["se"], np.sqrt(np.diag(cell.model.coef_cov_)), rtol=1e-12)
    np.testing.assert_array_equal(rows["true"], cell.truth["coef"])
    # a level of 0.5 gives narrower intervals of the same fits
    _, half = run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS, level=0.5,
                        return_estimates=True)
    np.testing.assert_array_equal(half["estimate"], estimates["estimate"])
    assert np.all(half["upper"] - half["lower"] < estimates["upper"] - estimates["lower"])


def test_coverage_of_the_conjugate_model_is_nominal():
    # known noise, flat-ish prior: q is the exact posterior at alpha = 1, so the 95%
    # intervals cover at 0.95 up to Monte Carlo error; at alpha = 0.5 q is sqrt(2) wider
    problem = linear_regression_problem(n_features=2)
    _, estimates = run_study(problem, AlphaLinearRegression(noise_variance=1.0),
                             {"n_samples": [50], "alpha": [0.5, 1.0]}, n_replications=200,
                             random_state=1, progress=False, n_draws=5, return_estimates=True)
    table = summarise_study(estimates, by="parameter").set_index(["parameter", "alpha",
                                                                  "stat"])
    for name in ("coef[0]", "coef[1]"):
        cover, mcse = table.loc[(name, 1.0, "cover"), ["est", "mcse"]]
        assert abs(cover - 0.95) < 3.5 * mcse
        # relerror: the model SE matches the empirical SE at alpha = 1, 41% above at 0.5
        relerror = table.loc[(name, 1.0, "relerror"), ["est", "mcse"]]
        assert abs(relerror["est"]) < 3.5 * relerror["mcse"]
        relerror = table.loc[(name, 0.5, "relerror"), ["est", "mcse"]]
        assert abs(relerror["est"] - 100 * (np.sqrt(2) - 1)) < 3.5 * relerror["mcse"]
        assert table.loc[(name, 0.5, "cover"), "est"] > 0.98


def test_spike_slab_and_logistic_estimates():
    problem = spike_slab_problem(n_features=30, n_informative=2)
    cell = study_cell(problem, AlphaSpikeSlabRegression(alpha=0.5), {"n_samples": 60}, 0)
    interval = cell.model.credible_intervals(0.95)
    np.testing.assert_array_equal(cell.estimates[["lower", "upper"]].to_numpy(), interval)
    # the zero coefficients' intervals are the atom [0, 0] when their PIP is small
    small = cell.model.inclusion_probabilities_ < 0.02
    assert small.any() and np.all(interval[small] == 0.0)
    # logistic: the Gaussian q's marginals, intercept left out
    problem = logistic_regression_problem(n_features=2)
    cell = study_cell(problem, AlphaLogisticRegression(alpha=0.5, n_mc_samples=20),
                      {"n_samples": 100}, 0)
    vb = cell.model.vb_
    sd = np.sqrt(np.diag(vb.covariance_[0]))[:2] / cell.model.column_scale_  # raw units
    np.testing.assert_allclose(cell.estimates["se"], sd, rtol=1e-12)
    np.testing.assert_allclose(cell.estimates["upper"] - cell.estimates["estimate"],
                               1.959963984540054 * sd, rtol=1e-9)
    # a two-component q: the mixture's quantiles hold 2.5% and 97.5% of its mass
    cell = study_cell(problem, AlphaLogisticRegression(n_components=2, n_mc_samples=20),
                      {"n_samples": 100}, 0)
    vb = cell.model.vb_
    from scipy.stats import norm

    for bound, mass in (("lower", 0.025), ("upper", 0.975)):
        x = cell.estimates[bound].to_numpy() * cell.model.column_scale_  # q's units
        cdf = sum(w * norm.cdf((x - m[:2]) / np.sqrt(np.diag(c)[:2]))
                  for w, m, c in zip(vb.weights_, vb.mean_, vb.covariance_, strict=True))
        np.testing.assert_allclose(cdf, mass, atol=1e-10)


def test_mixture_and_lda_estimates_follow_the_true_labels():
    problem = gaussian_mixture_problem(3, 2, means_seed=4)
    estimator = AlphaGaussianMixture(3, covariance_type="fixed",
                                     fixed_weights=np.full(3, 1 / 3), mean_prior=np.zeros(2),
                                     n_init=3)
    cells = [study_cell(problem, estimator, {"n_samples": 300}, r) for r in (0, 1)]
    np.testing.assert_array_equal(cells[0].truth["means"], cells[1].truth["means"])
    for cell in cells:
        rows = cell.estimates
        assert list(rows["parameter"][:2]) == ["means[0,0]", "means[0,1]"]
        # matched: each true mean's estimate is within 0.5 of it (n = 300, unit noise)
        assert np.all(np.abs(rows["estimate"] - rows["true"]) < 0.5)
        sd = np.sqrt(np.diagonal(cell.model.mean_covariances_, axis1=1, axis2=2))
        assert set(np.round(rows["se"], 12)) == set(np.round(sd.ravel(), 12))
    problem = lda_problem(n_documents=30, n_topics=2, n_words=12)
    cell = study_cell(problem, AlphaLDA(2, max_iter=50), {"n_samples": 60}, 0)
    lam = cell.model.components_
    row = cell.estimates.iloc[5]
    k = int(np.argmin([abs(lam[j, 5] / lam[j].sum() - row.estimate) for j in range(2)]))
    a, b = lam[k, 5], lam[k].sum() - lam[k, 5]
    assert row.estimate == pytest.approx(a / (a + b), rel=1e-12)
    assert row.upper == pytest.approx(beta_distribution.ppf(0.975, a, b), rel=1e-10)
    assert row.parameter == "topic_word[0,5]"


# -------------------------------------------------------------------- failures as rows


def _fails_when_first_entry_positive(model, X, truth, n_draws, random_state):
    if X[0, 0] > 0:
        raise ValueError("a fit that cannot be scored")
    return _problem().risk(model, X, truth, n_draws, random_state)


def _always_fails(model, X, truth, n_draws, random_state):
    raise ArithmeticError("never works")


def _broken(risk):
    base = _problem()
    return Problem("broken", base.simulate, risk, base.error, base.settings, base.estimates)


def test_failures_are_recorded_cached_and_counted(tmp_path, monkeypatch):
    counter = _Counter(monkeypatch)
    problem = _broken(_fails_when_first_entry_positive)
    grid = {"n_samples": [30], "alpha": [0.5, 1.0]}
    fits, estimates = run_study(problem, AlphaLinearRegression(), grid, n_replications=8,
                                progress=False, cache_dir=tmp_path, return_estimates=True)
    failed = fits[fits.status == "error"]
    assert 0 < len(failed) < len(fits) and counter.calls == 16
    assert failed["message"].str.startswith("ValueError: a fit that cannot be scored").all()
    assert failed["risk"].isna().all() and fits.loc[fits.status == "ok", "risk"].gt(0).all()
    # common random numbers: the same replications fail at both alphas
    by_alpha = fits.pivot(index="replication", columns="alpha", values="status")
    assert (by_alpha[0.5] == by_alpha[1.0]).all()
    # failed fits keep their parameter rows, with NaN, and summaries count them
    assert len(estimates) == 2 * len(fits)
    assert estimates.loc[estimates.status == "error", "estimate"].isna().all()
    table = summarise_study(estimates, by="parameter").set_index(["parameter", "alpha",
                                                                  "stat"])
    n_failed = (by_alpha[1.0] == "error").sum()
    assert table.loc[("coef[0]", 1.0, "nsim"), "est"] == 8 - n_failed
    assert table.loc[("coef[0]", 1.0, "failure_rate"), "est"] == n_failed / 8
    # failed rows are cached: a rerun fits nothing and gives the same table
    again = run_study(problem, AlphaLinearRegression(), grid, n_replications=8,
                      progress=False, cache_dir=tmp_path)
    assert counter.calls == 16
    pd.testing.assert_frame_equal(fits, again)
    # collecting them says they failed, not that shards are missing (a rerun of the shards
    # reads the same failures)
    with pytest.warns(UserWarning) as said:
        collect_study(tmp_path, problem, AlphaLinearRegression(), grid, n_replications=8)
    message = str(said[0].message)
    assert f"{len(failed)} failed" in message and "missing" not in message
    # on_error="raise" stops at the first failure, cached or not
    with pytest.raises(RuntimeError, match=r"cached fit.*failed.*ValueError"):
        run_study(problem, AlphaLinearRegression(), grid, n_replications=8, progress=False,
                  cache_dir=tmp_path, on_error="raise")
    with pytest.raises(ValueError, match="cannot be scored"):
        run_study(problem, AlphaLinearRegression(), grid, n_replications=8, progress=False,
                  on_error="raise")


def test_warnings_of_a_fit_are_kept_in_its_row():
    fits = run_study(_problem(), AlphaLinearRegression(max_iter=1), {"n_samples": [30]},
                     n_replications=2, progress=False)
    assert fits["warnings"].str.contains("ConvergenceWarning: AlphaLinearRegression").all()
    assert (fits["status"] == "ok").all() and (~fits["converged"]).all()


class _Warner(AlphaLinearRegression):
    """Warns with its own grid point, then sleeps, so that fits in threads overlap."""

    def fit(self, X, y):
        import time

        warnings.warn(f"fit of n={len(y)} alpha={self.alpha}", RuntimeWarning, stacklevel=2)
        time.sleep(0.02)
        return super().fit(X, y)


class _FailsBelowOne(AlphaLinearRegression):
    def fit(self, X, y):
        if self.alpha < 1.0:
            raise RuntimeError("no fit below alpha = 1")
        return super().fit(X, y)


def test_fits_in_threads_keep_their_own_warnings():
    """Cells run in threads: each row holds its own fit's warning, as a serial run's does
    (catch_warnings swapped the process's hook: 6-10 of 24 rows held another's)."""
    grid = {"n_samples": [20, 40], "alpha": [0.5, 1.0]}
    options = {"n_replications": 4, "n_draws": 20, "progress": False}
    serial = run_study(_problem(), _Warner(), grid, **options)
    threaded = run_study(_problem(), _Warner(), grid, n_jobs=2, backend="threading", **options)
    assert serial["warnings"].str.contains("fit of n=").all()
    pd.testing.assert_series_equal(threaded["warnings"], serial["warnings"])
    with warnings.catch_warnings(record=True) as after:  # the process's state is restored
        warnings.simplefilter("always")
        warnings.warn("after the study", UserWarning, stacklevel=1)
    assert [str(w.message) for w in after] == ["after the study"]
    with _cells._RECORDED as outer:  # a record within a record keeps each its own
        warnings.warn("a", UserWarning, stacklevel=1)
        with _cells._RECORDED as inner:
            warnings.warn("b", UserWarning, stacklevel=1)
        warnings.warn("c", UserWarning, stacklevel=1)
    assert [str(w.message) for w in outer] == ["a", "c"]
    assert [str(w.message) for w in inner] == ["b"]


def test_a_fit_that_silences_its_inner_fits_keeps_other_threads_warnings():
    """alphavb's own silencing of inner fits (``_warnings.quietly``: the calibration's
    replicates, the selector's fits, the logistic SuSiE's start) used catch_warnings and
    simplefilter("ignore"), which act on the whole process: a cell in another thread lost
    its warnings while one cell was quiet, and an "ignore" outlived the block when two
    threads left theirs out of order. Forced interleaving: thread A is quiet while thread B
    records and warns; B keeps its warning, A drops only its quiet one."""
    import threading

    from alphavb._warnings import RECORDED, quietly

    filters = list(warnings.filters)
    quiet, spoken = threading.Event(), threading.Event()
    caught = {}

    def a():
        with RECORDED as mine:
            with quietly():
                warnings.warn("a, quiet", UserWarning, stacklevel=1)
                quiet.set()
                spoken.wait(10)
            warnings.warn("a, heard", UserWarning, stacklevel=1)
        caught["a"] = [str(w.message) for w in mine]

    def b():
        quiet.wait(10)
        with RECORDED as mine:
            warnings.warn("b", UserWarning, stacklevel=1)
        spoken.set()
        caught["b"] = [str(w.message) for w in mine]

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert caught == {"a": ["a, heard"], "b": ["b"]}
    assert list(warnings.filters) == filters
    # a quiet block outlives the last record: it stays quiet, then the state is restored
    started, done = threading.Event(), threading.Event()

    def recorder():
        with RECORDED:
            started.set()
            done.wait(10)

    with warnings.catch_warnings():
        heard = []
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *rest: heard.append(str(message))
        shown = warnings.showwarning
        thread = threading.Thread(target=recorder)
        thread.start()
        started.wait(10)
        with quietly(UserWarning):
            done.set()
            thread.join()
            warnings.warn("still quiet", UserWarning, stacklevel=1)
        assert warnings.showwarning is shown
        warnings.warn("heard", UserWarning, stacklevel=1)
    assert heard == ["heard"] and list(warnings.filters) == filters
    # quiet while nothing records, a recorder starts, the quiet block ends first: the
    # recorder keeps its warning and the list is as before (an "ignore" stayed for good)
    entered, left = threading.Event(), threading.Event()
    row = []

    def late_recorder():
        with RECORDED as mine:
            entered.set()
            left.wait(10)
            warnings.warn("recorded", UserWarning, stacklevel=1)
        row.extend(str(w.message) for w in mine)

    thread = threading.Thread(target=late_recorder)
    with quietly():
        thread.start()
        entered.wait(10)
        warnings.warn("quiet", UserWarning, stacklevel=1)
    left.set()
    thread.join()
    assert row == ["recorded"] and list(warnings.filters) == filters
    # a record that ends while another thread is inside catch_warnings (which swaps in a
    # copy of the list and puts the first back when it ends): the entry was left in force
    inside, ended = threading.Event(), threading.Event()
    shown = warnings.showwarning

    def other_thread():
        with warnings.catch_warnings():
            inside.set()
            ended.wait(10)

    thread = threading.Thread(target=other_thread)
    with RECORDED:
        thread.start()
        inside.wait(10)
    ended.set()
    thread.join()
    assert list(warnings.filters) == filters
    assert warnings.showwarning in (shown, RECORDED.show)
    with warnings.catch_warnings(record=True) as outside:  # outside a record: as before
        warnings.simplefilter("always")
        with quietly(RuntimeWarning):
            warnings.warn("dropped", RuntimeWarning, stacklevel=1)
            warnings.warn("kept", UserWarning, stacklevel=1)
    assert [str(w.message) for w in outside] == ["kept"]


def test_a_grid_point_whose_fits_all_failed_is_counted():
    """Every fit at alpha = 0.5 fails: its rows are in the estimates (the parameters of the
    points that fitted, NaN), so the summary's failure rate there is 1 (the point was
    missing from the frame)."""
    fits, estimates = run_study(_problem(), _FailsBelowOne(), {"n_samples": [30],
                                                              "alpha": [0.5, 1.0]},
                                n_replications=3, n_draws=20, progress=False,
                                return_estimates=True)
    assert (fits.loc[fits.alpha == 0.5, "status"] == "error").all()
    assert len(estimates[estimates.alpha == 0.5]) == len(estimates[estimates.alpha == 1.0])
    table = summarise_study(estimates, by="parameter").set_index(["parameter", "alpha",
                                                                  "stat"])
    assert table.loc[("coef[0]", 0.5, "failure_rate"), "est"] == 1.0
    assert table.loc[("coef[0]", 1.0, "failure_rate"), "est"] == 0.0


def test_a_summary_does_not_pool_different_parameters():
    """run_study's estimates hold a row per parameter: summarised without 'parameter' in
    ``by`` the empirical SE was across coefficients; now refused by name. Several rows of
    one parameter per replication (credible sets) are pooled as before."""
    _, estimates = run_study(_problem(), AlphaLinearRegression(), {"n_samples": [30]},
                             n_replications=3, n_draws=20, progress=False,
                             return_estimates=True)
    with pytest.raises(ValueError, match=r"'by' parameter.*Add 'parameter' to by"):
        summarise_study(estimates, method=None)
    one = estimates[estimates.parameter == "coef[0]"]
    pooled = summarise_study(pd.concat([one, one]), method=None).set_index("stat")
    assert pooled.loc["nsim", "est"] == 6


def test_the_estimator_must_be_an_instance(tmp_path):
    for estimator, fix in ((AlphaLinearRegression, r"Pass an instance"), (None, "e.g."),
                           ("linear", "e.g.")):
        with pytest.raises(ValueError, match=f"'estimator' parameter of run_study.*{fix}"):
            run_study(_problem(), estimator, {"n_samples": [30]}, progress=False)
    a_file = tmp_path / "rows"
    a_file.write_text("")
    with pytest.raises(ValueError, match=r"'cache_dir' parameter.*It is a file"):
        collect_study(a_file, _problem(), AlphaLinearRegression(), {"n_samples": [30]})


def test_max_errors_ends_a_grid_point_after_consecutive_failures(monkeypatch):
    counter = _Counter(monkeypatch)
    problem = _broken(_always_fails)
    fits = run_study(problem, AlphaLinearRegression(), {"n_samples": [30], "alpha": [0.5, 1]},
                     n_replications=7, progress=False, max_errors=3)
    assert counter.calls == 2 * 3  # three failures per grid point, then nothing
    statuses = fits.groupby("alpha")["status"].apply(list)
    assert statuses[0.5] == ["error"] * 3 + ["skipped"] * 4
    assert fits.loc[fits.status == "skipped", "message"].str.contains(
        "replications 0 to 2 failed in a row \\(max_errors=3\\)").all()
    # without a limit every replication runs (and fails)
    fits = run_study(problem, AlphaLinearRegression(), {"n_samples": [30]},
                     n_replications=7, progress=False, max_errors=None)
    assert (fits.status == "error").all() and counter.calls == 6 + 7


def test_a_non_finite_risk_is_a_row(tmp_path):
    fits = run_study(_broken(_nan_risk), AlphaLinearRegression(), {"n_samples": [30]},
                     n_replications=2, progress=False, cache_dir=tmp_path)
    assert (fits.status == "non-finite").all() and fits["risk"].isna().all()
    assert fits["error"].gt(0).all() and fits["message"].str.contains("risk nan").all()


# --------------------------------------------------- cache keys that follow the code


def test_a_changed_function_body_invalidates_its_rows(tmp_path, monkeypatch):
    module = tmp_path / "my_study_problem.py"
    body = ("import numpy as np\n\ndef simulate(n_samples, random_state):\n"
            "    rng = np.random.RandomState(random_state)\n"
            "    X = rng.standard_normal((n_samples, 2))\n"
            "    return X, X @ [1.0, -1.0] + rng.standard_normal(n_samples), "
            "{'coef': np.array([1.0, -1.0]), 'noise_variance': NOISE}\n")
    module.write_text(body.replace("NOISE", "1.0"))
    monkeypatch.syspath_prepend(str(tmp_path))
    mine = importlib.import_module("my_study_problem")
    base = _problem()

    def study():
        problem = Problem("mine", mine.simulate, base.risk, base.error)
        return run_study(problem, AlphaLinearRegression(), {"n_samples": [30]},
                         n_replications=2, progress=False, cache_dir=tmp_path / "cache")

    counter = _Counter(monkeypatch)
    first = study()
    study()
    assert counter.calls == 2  # the same code: read from the cache
    # the same name, another body (one more statement; the results do not change)
    changed = body.replace("NOISE", "1.0").replace("    return", "    _ = 0\n    return")
    module.write_text(changed)
    importlib.reload(mine)
    second = study()
    assert counter.calls == 4
    pd.testing.assert_frame_equal(_without_times(first), _without_times(second))
    # moved down the file (lines added above it, as an edit during a run does): the same
    # code, the same key, even in the process that imported the old file
    module.write_text("# a comment\n\n" + changed)
    study()
    importlib.reload(mine)
    study()
    assert counter.calls == 4
    sys.modules.pop("my_study_problem", None)


def _scaled_simulate(scale):
    base = _problem().simulate

    def simulate(n_samples, random_state):
        X, y, truth = base(n_samples, random_state)
        return X, scale * y, truth

    return simulate


def test_a_closure_or_partial_is_keyed_by_what_it_captured():
    """A closure's captured values and a partial's arguments are in the fingerprint (a
    closure of another scale served the first one's rows from the cache); a plain
    function's fingerprint is its code and defaults alone, as before, so that caches of
    plain functions keep their keys."""
    import functools
    import hashlib

    from alphavb import cache

    fingerprint = cache.function_fingerprint
    assert fingerprint(_scaled_simulate(1.0)) == fingerprint(_scaled_simulate(1.0))
    assert fingerprint(_scaled_simulate(1.0)) != fingerprint(_scaled_simulate(50.0))
    simulate = _problem().simulate
    assert fingerprint(functools.partial(simulate, n_samples=3)) != fingerprint(
        functools.partial(simulate, n_samples=4))
    plain = repr((cache._code_description(simulate.__code__),
                  repr(simulate.__defaults__), repr(simulate.__kwdefaults__)))
    assert fingerprint(simulate) == hashlib.sha256(plain.encode()).hexdigest()


def test_the_cache_key_holds_alphavbs_version(tmp_path, monkeypatch):
    import alphavb

    counter = _Counter(monkeypatch)
    run_study(_problem(), AlphaLinearRegression(), {"n_samples": [30]}, n_replications=1,
              progress=False, cache_dir=tmp_path)
    monkeypatch.setattr(alphavb, "__version__", "99.0")
    run_study(_problem(), AlphaLinearRegression(), {"n_samples": [30]}, n_replications=1,
              progress=False, cache_dir=tmp_path)
    assert counter.calls == 2


def test_manifest_records_versions_threads_and_arguments(tmp_path):
    fits = run_study(_problem(), AlphaLinearRegression(), {"n_samples": [30]},
                     n_replications=1, progress=False, cache_dir=tmp_path)
    manifest = fits.attrs["manifest"]
    assert set(manifest["versions"]) >= {"python", "numpy", "scipy", "numba", "scikit-learn",
                                         "alphavb"}
    assert manifest["threads"]["cpu_count"] >= 1 and manifest["threads"]["numba"] >= 1
    assert manifest["arguments"]["grid"] == {"n_samples": [30]}
    assert manifest["arguments"]["estimator"] == "AlphaLinearRegression()"
    assert set(manifest["problem"]["code_sha256"]) == {"simulate", "risk", "error",
                                                         "estimates"}
    on_disk = json.loads((tmp_path / "manifest.json").read_text())
    assert on_disk["arguments"] == manifest["arguments"]
    assert on_disk["versions"] == manifest["versions"]


# ------------------------------------------------------------------ shards and cells


def test_shards_together_equal_the_whole_study(tmp_path, monkeypatch):
    whole, whole_estimates = run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS,
                                       return_estimates=True)
    parts = [run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS, shard=(k, 3),
                       cache_dir=tmp_path) for k in range(3)]
    assert sorted(len(part) for part in parts) == [4, 4, 4]  # balanced, disjoint
    keys = [set(map(tuple, p[["n_samples", "alpha", "replication"]].to_numpy()))
            for p in parts]
    assert not (keys[0] & keys[1]) and not (keys[1] & keys[2])
    counter = _Counter(monkeypatch)
    fits, estimates = collect_study(tmp_path, _problem(), AlphaLinearRegression(), GRID,
                                    n_replications=3, random_state=5, n_draws=20,
                                    return_estimates=True)
    assert counter.calls == 0
    pd.testing.assert_frame_equal(_without_times(fits), _without_times(whole))
    pd.testing.assert_frame_equal(estimates, whole_estimates)
    # a rerun without shard reads every row
    rerun = run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS, cache_dir=tmp_path)
    assert counter.calls == 0
    pd.testing.assert_frame_equal(rerun, fits)


def test_shard_from_slurm_and_missing_rows(tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "2")
    monkeypatch.setenv("SLURM_ARRAY_TASK_MIN", "1")
    monkeypatch.setenv("SLURM_ARRAY_TASK_COUNT", "2")
    part = run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS, cache_dir=tmp_path)
    monkeypatch.delenv("SLURM_ARRAY_TASK_ID")
    explicit = run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS, shard=(1, 2),
                         cache_dir=tmp_path / "other")
    pd.testing.assert_frame_equal(_without_times(part), _without_times(explicit))
    with pytest.warns(UserWarning, match="6 of 12 missing"):
        fits = collect_study(tmp_path, _problem(), AlphaLinearRegression(), GRID,
                             n_replications=3, random_state=5, n_draws=20)
    assert (fits.status == "missing").sum() == 6 and len(fits.attrs["missing"]) == 6
    assert fits.attrs["missing"][0] == {"n_samples": 40, "alpha": 0.5, "replication": 0}
    with pytest.raises(ValueError, match=r"'cache_dir'.*shared by the shards"):
        run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS, shard=(0, 2))
    for bad in ((2, 2), (0, 0), (1.0, 2), "0/2"):
        with pytest.raises(ValueError, match="'shard'"):
            run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS, shard=bad,
                      cache_dir=tmp_path)


def test_study_cell_is_the_studys_cell():
    fits, estimates = run_study(_problem(), AlphaLinearRegression(), GRID, **OPTIONS,
                                return_estimates=True)
    point = {"n_samples": 80, "alpha": 1.0}
    cell = study_cell(_problem(), AlphaLinearRegression(), point, 1, random_state=5,
                      n_draws=20)
    row = fits[(fits.n_samples == 80) & (fits.alpha == 1.0) & (fits.replication == 1)]
    expected = row.drop(columns="fit_seconds").iloc[0].to_dict()
    assert {k: v for k, v in cell.row.items() if k != "fit_seconds"} == expected
    rows = estimates[(estimates.n_samples == 80) & (estimates.alpha == 1.0)
                     & (estimates.replication == 1)].reset_index(drop=True)
    pd.testing.assert_frame_equal(cell.estimates, rows, check_dtype=False)
    # the data are the study's: refitting them by hand gives the same risk
    data_seed, fit_seed, risk_seed = _cells._seeds(5, 1, {"n_samples": 80})
    assert cell.seeds == {"data": data_seed, "fit": fit_seed, "risk": risk_seed}
    X, y, _ = _problem().simulate(80, data_seed, **_problem().settings)
    np.testing.assert_array_equal(cell.X, X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = AlphaLinearRegression(alpha=1.0, random_state=fit_seed).fit(X, y)
    np.testing.assert_array_equal(model.coef_, cell.model.coef_)
    for bad in ([80], {"alpha": 1.0}):
        with pytest.raises(ValueError, match="'point'"):
            study_cell(_problem(), AlphaLinearRegression(), bad, 0)
    with pytest.raises(ValueError, match="'replication'"):
        study_cell(_problem(), AlphaLinearRegression(), point, -1)


@pytest.mark.parametrize("kwargs, message", [
    ({"on_error": "ignore"}, "'on_error'"),
    ({"max_errors": 0}, "'max_errors'"),
    ({"level": 0.0}, "'level'"),
    # numpy's "expected non-negative integer" before: SeedSequence takes integers >= 0
    ({"random_state": -1}, "'random_state' parameter of run_study must be an int >= 0"),
])
def test_bad_failure_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        run_study(_problem(), AlphaLinearRegression(), {"n_samples": [30]}, n_replications=1,
                  progress=False, **kwargs)


def test_a_shard_stops_on_its_own_consecutive_failures(tmp_path, monkeypatch):
    """Another shard's cells ended every run of failures, so max_errors never stopped a
    shard; it counts the shard's own replications (every K-th) in a row."""
    counter = _Counter(monkeypatch)
    fits = run_study(_broken(_always_fails), AlphaLinearRegression(), {"n_samples": [30]},
                     n_replications=12, progress=False, max_errors=2, shard=(0, 2),
                     cache_dir=tmp_path)
    assert counter.calls == 2  # replications 0 and 2, then the shard stops
    assert list(fits.status) == ["error", "error"] + ["skipped"] * 4
    assert fits.loc[fits.status == "skipped", "message"].str.contains(
        "replications 0 to 2 failed in a row").all()


def test_a_negative_risk_is_a_failed_row():
    """A problem whose risk is negative (a bug) was recorded "ok"."""
    fits = run_study(_broken(lambda model, X, truth, n_draws, seed: -0.5),
                     AlphaLinearRegression(), {"n_samples": [30]}, n_replications=2,
                     progress=False)
    assert (fits.status == "error").all()
    assert fits["message"].str.contains("risk \\(-0.5\\).*must be >= 0").all()


def test_numpy_and_tuple_grid_values_are_their_python_selves(tmp_path, monkeypatch):
    """np.int64 grid values drew other seeds than the same Python ints under the same cache
    key (and study_cell did not replay them); tuple values never matched their cached
    JSON lists, so they were refitted on every run."""
    python = run_study(_problem(), AlphaLinearRegression(), {"n_samples": [30, 40]},
                       **OPTIONS, cache_dir=tmp_path)
    counter = _Counter(monkeypatch)
    numpy = run_study(_problem(), AlphaLinearRegression(),
                      {"n_samples": np.array([30, 40])}, **OPTIONS, cache_dir=tmp_path)
    assert counter.calls == 0
    pd.testing.assert_frame_equal(_without_times(numpy), _without_times(python))
    cell = study_cell(_problem(), AlphaLinearRegression(), {"n_samples": np.int64(30)}, 1,
                      random_state=5, n_draws=20)
    assert cell.estimates["estimate"].tolist() == pytest.approx(
        study_cell(_problem(), AlphaLinearRegression(), {"n_samples": 30}, 1, random_state=5,
                   n_draws=20).estimates["estimate"].tolist())
    grid = {"n_samples": [30], "prior_precision": [(1.0, 2.0)]}
    first = run_study(linear_regression_problem(n_features=2), AlphaLinearRegression(),
                      grid, **OPTIONS, cache_dir=tmp_path / "tuples")
    calls = counter.calls
    again = run_study(linear_regression_problem(n_features=2), AlphaLinearRegression(),
                      grid, **OPTIONS, cache_dir=tmp_path / "tuples")
    assert counter.calls == calls  # read back, not refitted
    assert (first.status == "ok").all()
    pd.testing.assert_frame_equal(_without_times(first), _without_times(again))


def test_fewer_fitted_than_true_components_is_said():
    """A mixture or LDA fitted with fewer components than the truth ended in a reshape
    error of the matching."""
    problem = gaussian_mixture_problem(3, 2, means_seed=0)
    with pytest.raises(ValueError, match="fitted mixture has 2 components and the truth 3"):
        study_cell(problem, AlphaGaussianMixture(2), {"n_samples": 200}, 0)
    fits = run_study(problem, AlphaGaussianMixture(2), {"n_samples": [200]}, n_replications=1,
                     progress=False)
    assert fits.status.iloc[0] == "error" and "n_components >= 3" in fits.message.iloc[0]
    with pytest.raises(ValueError, match="2 topics and the truth 3"):
        study_cell(lda_problem(30, 3, 20), AlphaLDA(2), {"n_samples": 30}, 0)
