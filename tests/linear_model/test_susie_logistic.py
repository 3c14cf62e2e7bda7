"""AlphaSuSiEClassifier: logistic SuSiE on the alpha-VB objective, against the exact
alpha-posterior (by quadrature and by its Polya-Gamma sampler) and on simulated traits."""

import numpy as np
import pytest
from scipy.special import expit, log_expit

from alphavb import AlphaSuSiE, AlphaSuSiEClassifier
from alphavb.exact import compare_to_exact, sample_exact
from alphavb.linear_model._logistic_bound import logit_moments
from alphavb.linear_model._spike_slab_logistic import bound_weights
from tests.conftest import needs_plink_data


def _trait(n=300, p=8, effects=((1, 1.0), (5, -0.8)), intercept=0.3, seed=1):
    """Columns 1 and 2 correlated (0.9), a binary trait from two of the columns."""
    rng = np.random.default_rng(seed)
    shared = rng.standard_normal(n)
    X = rng.standard_normal((n, p))
    X[:, 1] = shared + 0.3 * rng.standard_normal(n)
    X[:, 2] = shared + 0.3 * rng.standard_normal(n)
    logit = intercept + sum(b * X[:, j] for j, b in effects)
    return X, (rng.random(n) < expit(logit)).astype(int)


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_the_objective_rises_every_sweep_and_equals_the_bound_it_states(alpha):
    """Eq. (2) against the bound (1) summed directly from E[t], E[t^2] (eq. 3), the flat
    coefficients' entropy and the effects' KL: the projection and E||.||^2 algebra."""
    X, y = _trait()
    model = AlphaSuSiEClassifier(n_effects=3, alpha=alpha, tol=1e-8, max_iter=300).fit(X, y)
    history = model.elbo_history_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    assert model.converged_
    state = model._state
    mean, variance = logit_moments(state.bound, state.effects)
    eta = state.bound.eta
    u = bound_weights(eta)
    direct = alpha * np.sum(log_expit(eta) - eta / 2 + u * eta**2 / 2
                            + (y - 0.5) * mean - u * (mean**2 + variance) / 2)
    k = state.bound.factor[0].shape[0]
    entropy = 0.5 * k * np.log(2 * np.pi * np.e) - 0.5 * state.bound.log_det
    assert model.elbo_ == pytest.approx(direct + entropy - state.effects.kl.sum(), abs=1e-8)
    # converged: the bound is tight, eta^2 = E[t^2]
    np.testing.assert_allclose(eta**2, mean**2 + variance, rtol=1e-4, atol=1e-6)


def _quadrature_single_effect(X, y, alpha, variance, size=241):
    """The exact alpha-posterior of one effect (L = 1) at prior variance ``variance`` with a
    flat intercept: per variable, (intercept, beta) on a grid around the mode."""
    p = X.shape[1]
    log_evidence, means = np.empty(p), np.empty(p)
    for j in range(p):
        b0 = np.linspace(-2.5, 2.5, size)
        beta = np.linspace(-3.0, 3.0, size)
        t = b0[:, None, None] + beta[None, :, None] * X[None, None, :, j]
        log_lik = alpha * np.sum(y * log_expit(t) + (1 - y) * log_expit(-t), axis=2)
        log_joint = log_lik - 0.5 * beta[None, :] ** 2 / variance - 0.5 * np.log(
            2 * np.pi * variance)
        top = log_joint.max()
        weights = np.exp(log_joint - top)
        cell = (b0[1] - b0[0]) * (beta[1] - beta[0])
        log_evidence[j] = top + np.log(weights.sum() * cell)
        means[j] = float((weights.sum(axis=0) @ beta) / weights.sum())
    pip = np.exp(log_evidence - log_evidence.max())
    return pip / pip.sum(), means


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_the_polya_gamma_sampler_matches_quadrature_with_one_effect(alpha):
    """L = 1 on 4 variables (two correlated): the sampler's single-effect probabilities and
    the effect's mean against a grid over (intercept, beta) at the fit's V."""
    pytest.importorskip("polyagamma")
    X, y = _trait(n=120, p=4, effects=((1, 1.0),), intercept=0.2, seed=3)
    model = AlphaSuSiEClassifier(n_effects=1, alpha=alpha, standardize=False).fit(X, y)
    idata = sample_exact(model, X, y, n_draws=1500, n_chains=2, n_tune=200, random_state=0)
    pip, means = _quadrature_single_effect(X, y, alpha, model.prior_variances_[0])
    inclusion = idata.posterior["inclusion"].values
    np.testing.assert_allclose(inclusion.mean(axis=(0, 1)), pip, atol=0.03)
    heaviest = int(np.argmax(pip))
    held = inclusion[..., heaviest] == 1
    coef = idata.posterior["coef"].values[..., heaviest]
    assert coef[held].mean() == pytest.approx(means[heaviest], abs=0.05)


def test_q_is_close_to_the_exact_posterior_on_separated_effects():
    """compare_to_exact: PIPs within 0.05 and the means within a third of an exact sd."""
    pytest.importorskip("polyagamma")
    X, y = _trait()
    table = compare_to_exact(AlphaSuSiEClassifier(n_effects=3), X, y, n_draws=600,
                             n_chains=2, n_tune=100, random_state=0)
    assert table.attrs["largest_pip_error"] < 0.05
    sampled = table["exact_sd"] > 0  # a variable never drawn in has mean error +-inf
    assert np.abs(table["mean_error"][sampled]).max() < 0.35


def test_two_causal_variables_each_in_a_credible_set():
    X, y = _trait(n=600, p=40, effects=((3, 1.0), (20, -1.0)), seed=7)
    model = AlphaSuSiEClassifier(n_effects=5).fit(X, y)
    held = sorted(j for found in model.credible_sets_ for j in found["variables"])
    assert held == [3, 20]
    assert model.inclusion_probabilities_[[3, 20]].min() > 0.95


def test_predict_proba_is_calibrated_on_the_training_distribution():
    """Predicted probabilities against the true ones on new rows of the same design."""
    X, y = _trait(n=2000, p=10, effects=((1, 1.0), (5, -0.8)), seed=11)
    model = AlphaSuSiEClassifier(n_effects=3).fit(X[:1500], y[:1500])
    truth = expit(0.3 + X[1500:, 1] - 0.8 * X[1500:, 5])
    predicted = model.predict_proba(X[1500:])[:, 1]
    assert np.abs(predicted - truth).mean() < 0.03
    assert set(model.predict(X[:5])) <= {0, 1}


def test_covariates_are_integrated_out_and_predict_needs_them():
    rng = np.random.default_rng(4)
    X, y = _trait(n=500, p=10, seed=4)
    pcs = rng.standard_normal((500, 2))
    model = AlphaSuSiEClassifier(n_effects=3).fit(X, y, covariates=pcs)
    assert model.covariate_coef_.shape == (2,)
    assert np.all(np.abs(model.covariate_coef_) < 0.3)  # the trait does not depend on them
    frame = model.summary_frame()
    assert list(frame.index[-3:]) == ["intercept", "z0", "z1"]
    with pytest.raises(ValueError, match="covariates"):
        model.predict_proba(X)


def test_at_alpha_one_the_linear_model_of_a_fixed_bound_is_susies():
    """Given the fitted bound, one more sweep of the effects is AlphaSuSiE's fit (residual
    variance 1, no intercept) on the bound's weighted, projected rows: the same SER."""
    X, y = _trait()
    model = AlphaSuSiEClassifier(n_effects=3, tol=1e-10, max_iter=300).fit(X, y)
    bound = model._state.bound
    rows = bound.ibss
    linear = AlphaSuSiE(n_effects=3, residual_variance=1.0, estimate_residual_variance=False,
                        fit_intercept=False, standardize=False, tol=1e-10,
                        max_iter=300).fit(rows.Z, rows.y)
    np.testing.assert_allclose(linear.inclusion_probabilities_,
                               model.inclusion_probabilities_, atol=1e-5)
    np.testing.assert_allclose(linear.coef_, model.coef_ * model.column_scale_, atol=1e-4)


@pytest.mark.parametrize("bad, match", [
    (lambda X, y: (X, np.where(y == 1, 2, y) + (np.arange(len(y)) % 3 == 0)), "binary"),
    (lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 5, np.nan, X), y), "NaN"),
])
def test_bad_input_names_the_problem(bad, match):
    X, y = _trait(n=60, p=6)
    X, y = bad(X, y)
    with pytest.raises(ValueError, match=match):
        AlphaSuSiEClassifier().fit(X, y)


def test_predictions_of_rows_that_overflow_are_refused():
    """Rows in units 1e155 times the fitted ones overflow the logit's variance: the
    probabilities were NaN (570 of 600) and predict gave classes_[0] for each; now a
    ValueError says so, as fit says of such an X."""
    X, y = _trait(n=60, p=6)
    model = AlphaSuSiEClassifier(n_effects=2).fit(X, y)
    for method in (model.predict_proba, model.predict):
        with pytest.raises(ValueError, match="overflows float64"):
            method(X * 1e155)
    assert np.all(np.isfinite(model.predict_proba(X)))


def test_parameters_are_checked_by_name():
    X, y = _trait(n=60, p=6)
    for name, value in (("n_effects", 0), ("alpha", 1.5), ("coverage", 1.0)):
        with pytest.raises(ValueError, match=name):
            AlphaSuSiEClassifier(**{name: value}).fit(X, y)


def _logisticsusie_reference():
    import json
    from pathlib import Path

    return json.loads((Path(__file__).parents[1] / "data" / "logisticsusie.json").read_text())


@pytest.mark.parametrize("name", ["simulated", "n3finemapping"])
def test_equals_logisticsusie_binsusie_at_alpha_one(name):
    """With logisticsusie's choices (a point intercept, V by EM, unscaled columns, V = 1 at
    the start) the fit is binsusie's (benchmarks/logisticsusie_reference.py): the same
    single-effect probabilities, V, intercept and objective (the bound less the KLs)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    reference = _logisticsusie_reference()
    fit = reference["fits"][name]
    data = reference["data"][name]
    if name == "simulated":
        X = np.array(data["X"])
    else:
        from alphavb.datasets import get_data_home, load_n3finemapping

        if not (get_data_home() / "susie" / "N3finemapping_X.csv").exists():
            pytest.skip("the susie data are not in the data home (set ALPHAVB_DATA)")
        X = load_n3finemapping().data[:, :data["columns"]]
    y = np.array(data["y"])
    model = AlphaSuSiEClassifier(n_effects=5, intercept_estimate="point",
                                 prior_variance_method="em", standardize=False,
                                 scaled_prior_variance=1.0, tol=1e-10,
                                 max_iter=fit["n_iter"] + 5)
    from alphavb import PosteriorApproximationWarning

    with warnings.catch_warnings():  # binsusie stopped at 5,000 on the simulated set too
        warnings.simplefilter("ignore", ConvergenceWarning)
        # its many sweeps make the fit-time check cheap beside it: it runs, and on
        # N3finemapping finds q's intervals too narrow (the bound's curvature)
        warnings.simplefilter("ignore", PosteriorApproximationWarning)
        model.fit(X, y)
    alpha = np.array(fit["alpha"])
    order = np.argsort(-np.array(fit["prior_variance"]), kind="stable")
    ours = np.argsort(-model.prior_variances_, kind="stable")
    np.testing.assert_allclose(model.single_effect_probabilities_[ours], alpha[order],
                               atol=1e-5)
    np.testing.assert_allclose(model.prior_variances_[ours],
                               np.array(fit["prior_variance"])[order], rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(model.coef_, np.sum(alpha * np.array(fit["mu"]), axis=0),
                               atol=1e-4)
    assert model.intercept_ == pytest.approx(fit["intercept"], abs=1e-3)
    assert model.elbo_ == pytest.approx(fit["elbo"], abs=0.02)


@pytest.mark.parametrize("options", [{"intercept_estimate": "point"},
                                     {"prior_variance_method": "em"}])
def test_the_other_choices_raise_the_objective_every_sweep(options):
    X, y = _trait()
    pcs = np.random.default_rng(2).standard_normal((len(y), 2))
    model = AlphaSuSiEClassifier(n_effects=3, tol=1e-6, max_iter=3000, **options).fit(
        X, y, covariates=pcs)
    history = model.elbo_history_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    assert 1 in [j for found in model.credible_sets_ for j in found["variables"]] or \
        2 in [j for found in model.credible_sets_ for j in found["variables"]]


def test_the_start_from_linear_susie_escapes_the_null_starts_optimum():
    """A rare trait on mouse genotypes (the vignette's design, replication 5): from no
    effect the sweeps keep one effect (objective -668.07); from linear SuSiE's fit they
    keep two (-666.01), and the fit keeps that start."""
    from alphavb.reproduce.susie_case_control import _simulate_binary

    needs_plink_data()

    class NullStart(AlphaSuSiEClassifier):
        def _n_starts(self):
            return 1

        def _initialize(self, data, random_state, start, previous=None):
            return super()._initialize(data, random_state, 1, previous)

    X, y, _ = _simulate_binary(1940, 5, "rare", 100)
    null = NullStart(5).fit(X, y)
    model = AlphaSuSiEClassifier(5).fit(X, y)
    assert model.elbo_ > null.elbo_ + 1.0
    assert model.kept_effects_.sum() == 2 and null.kept_effects_.sum() == 1


def test_hostile_round_on_the_classifier():
    """Defects a hostile test of the new classifier found, each fixed (defect numbers of its
    report): fixed V is the given V in both starts (1); draws and the exact comparison
    work with a point intercept (2); a constant column neither warns nor hides a set (3);
    V's floor and cap follow the units of unstandardized columns (4); n_effects above p is
    capped with a warning, whichever start wins (6); the linear start's limits and huge
    prior weights do not stop the fit (7)."""
    import warnings

    X, y = _trait(n=200, p=10, effects=((3, 1.5),), seed=0)
    for v in (0.2, 1e4):
        fixed = AlphaSuSiEClassifier(n_effects=3, estimate_prior_variance=False,
                                     scaled_prior_variance=v).fit(X, y)
        np.testing.assert_allclose(fixed.prior_variances_, v)
    point = AlphaSuSiEClassifier(n_effects=2, intercept_estimate="point").fit(X, y)
    draws = point.sample_posterior(5, random_state=0)
    assert np.all(draws["intercept"] == point.intercept_)        # no spread at a point
    constant = X.copy()
    constant[:, 2] = 5.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = AlphaSuSiEClassifier(n_effects=3).fit(constant, y)
    assert [found["variables"] for found in model.credible_sets_] == [[3]]
    raw = AlphaSuSiEClassifier(n_effects=3, standardize=False).fit(X * 1e5, y)
    assert raw.inclusion_probabilities_[3] > 0.99 and raw.credible_sets_[0]["variables"] == [3]
    assert raw.coef_[3] * 1e5 == pytest.approx(
        AlphaSuSiEClassifier(n_effects=3, standardize=False).fit(X, y).coef_[3], rel=1e-4)
    with pytest.warns(UserWarning, match="n_effects=20 is more than the 10 variables"):
        assert AlphaSuSiEClassifier(n_effects=20).fit(X, y).n_effects_ == 10
    pcs = np.random.default_rng(0).standard_normal((200, 2))
    tiny = AlphaSuSiEClassifier(n_effects=3, alpha=0.005).fit(X, y, covariates=pcs)
    assert np.isfinite(tiny.elbo_)                           # the linear start could not run
    huge = AlphaSuSiEClassifier(n_effects=2, prior_weights=np.full(10, 1e308)).fit(X, y)
    np.testing.assert_allclose(huge.inclusion_probabilities_,
                               AlphaSuSiEClassifier(n_effects=2).fit(X, y)
                               .inclusion_probabilities_, atol=1e-8)


@pytest.mark.parametrize("method", ["cv", "safebayes", "calibrate", "information"])
def test_alpha_selector_chooses_the_classifiers_temperature(method):
    """AlphaSelector takes the classifier as a logistic model: each method picks an alpha
    of the grid and stands in for the fit at it (its credible sets hold the causal
    variable)."""
    from alphavb.model_selection import AlphaSelector

    X, y = _trait(n=300, p=12, effects=((3, 1.2),), seed=5)
    small = {"n_bootstrap": 8, "calibration_steps": 2} if method == "calibrate" else {}
    selector = AlphaSelector(AlphaSuSiEClassifier(n_effects=3), method=method,
                             alphas=[0.5, 1.0], random_state=0, **small).fit(X, y)
    assert selector.alpha_ in (0.5, 1.0) or 0.5 <= selector.alpha_ <= 1.0
    chosen = selector.best_estimator_
    assert chosen.alpha == pytest.approx(selector.alpha_)
    assert 3 in [j for found in chosen.credible_sets_ for j in found["variables"]]
    assert selector.predict_proba(X[:4]).shape == (4, 2)


def test_the_fit_time_check_agrees_with_compare_to_exact():
    """Under approximation_checks("always") the fit checks itself by a short Polya-Gamma
    run: its exact PIPs are compare_to_exact's within 0.05 on two nearly equal columns
    (r = 0.999), and "auto" skips it on a fit this small (it costs several fits)."""
    pytest.importorskip("polyagamma")
    from alphavb import approximation_checks

    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 8))
    shared = rng.standard_normal(300)
    X[:, 1] = shared + 0.05 * rng.standard_normal(300)
    X[:, 2] = shared + 0.05 * rng.standard_normal(300)
    y = (rng.random(300) < expit(0.3 + X[:, 1] - 0.8 * X[:, 5])).astype(int)
    assert AlphaSuSiEClassifier(3).fit(X, y).approximation_check_ is None
    with approximation_checks("always"):
        model = AlphaSuSiEClassifier(3).fit(X, y)
    check = model.approximation_check_
    assert check.exact_pips[1] + check.exact_pips[2] == pytest.approx(1.0, abs=0.02)
    table = compare_to_exact(AlphaSuSiEClassifier(3), X, y, n_draws=1000, n_chains=2,
                             n_tune=100, random_state=0)
    np.testing.assert_allclose(check.exact_pips, table["exact_pip"].to_numpy()[:8],
                               atol=0.05)
    assert check.min_interval_mass > 0.8 and "PIP error" in model.summary().as_text()
