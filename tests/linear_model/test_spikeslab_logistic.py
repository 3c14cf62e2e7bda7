"""AlphaSpikeSlabClassifier: varbvs's binomial model under alpha-VB."""

import pickle
import warnings

import numpy as np
import pytest
from scipy.special import logit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

from alphavb import AlphaSpikeSlabClassifier
from alphavb.linear_model._spike_slab_logistic import bound_weights
from tests import naive
from tests.conftest import assert_draws_rescaled


def logistic_problem(n=100, d=6, seed=3, covariates=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Z = rng.normal(size=(n, covariates))
    t = 1.5 * X[:, 0] - X[:, 1] + 0.3 + Z @ np.linspace(1.0, -0.5, covariates)
    y = (t + rng.logistic(size=n) > 0).astype(float)
    return X, y, Z


def design(n, fit_intercept, Z):
    return np.hstack(([np.ones((n, 1))] if fit_intercept else []) + [Z])


@pytest.mark.parametrize("alpha", [0.4, 1.0])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_covariates", [0, 2])
def test_iterations_equal_the_naive_varbvs_updates(alpha, fit_intercept, n_covariates):
    X, y, Z = logistic_problem(n=60, d=7, covariates=n_covariates)
    model = AlphaSpikeSlabClassifier(alpha=alpha, prior_inclusion=0.3, slab_variance=2.0,
                                     fit_intercept=fit_intercept, n_init=1, max_iter=6, tol=0.0,
                                     standardize=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y, covariates=Z if n_covariates else None)
    F = design(len(y), fit_intercept, Z)
    phi, mu, s2, eta = np.zeros(7), np.zeros(7), np.full(7, 2.0), np.ones(len(y))
    history = []
    for _ in range(6):
        phi, mu, s2, eta = naive.logistic_spike_slab_iteration(X, y, F, phi, mu, s2, eta,
                                                              logit(0.3), alpha, 2.0)
        history.append(naive.logistic_spike_slab_alpha_elbo(X, y, F, phi, mu, s2, eta, 0.3,
                                                            alpha, 2.0))
    np.testing.assert_allclose(model.inclusion_probabilities_, phi, atol=1e-10)
    np.testing.assert_allclose(model.slab_means_, mu, atol=1e-10)
    np.testing.assert_allclose(model.slab_variances_, s2, rtol=1e-10)
    np.testing.assert_allclose(model.bound_parameters_, eta, rtol=1e-10)
    # the collapsed objective (2) equals the uncollapsed one written out term by term
    np.testing.assert_allclose(model.elbo_history_, history, rtol=1e-11)


@pytest.mark.parametrize("alpha", [0.3, 0.7, 1.0])
@pytest.mark.parametrize("case", ["intercept", "none", "covariates", "learned_pi"])
def test_objective_never_decreases(alpha, case):
    X, y, Z = logistic_problem(n=80, d=30, seed=5, covariates=3)
    params = {"fit_intercept": case != "none", "n_init": 3, "tol": 1e-12}
    if case == "learned_pi":
        params["inclusion_prior"] = (1.0, 5.0)
    model = AlphaSpikeSlabClassifier(alpha=alpha, **params)
    model.fit(X, y, covariates=Z if case == "covariates" else None)
    history = model.elbo_history_
    assert model.converged_
    assert np.all(np.diff(history) >= -1e-10 * np.abs(history[1:]))


@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_pips_come_close_to_enumerating_all_models(alpha):
    """The 2^6 models of the alpha-fractional posterior, each integrated numerically: the
    mean-field PIPs within 0.06 (measured 0.056 at alpha 0.5, 0.022 at 1); alpha x ELBO is
    a lower bound of the log normaliser, within 1 nat."""
    X, y, _ = logistic_problem()
    exact, log_normaliser = naive.logistic_spike_slab_enumeration(X, y, alpha, 1.0, 0.2,
                                                                  n_draws=4000)
    model = AlphaSpikeSlabClassifier(alpha=alpha, prior_inclusion=0.2).fit(X, y)
    assert np.max(np.abs(model.inclusion_probabilities_ - exact)) < 0.06
    assert np.all((model.inclusion_probabilities_ > 0.5) == (exact > 0.5))
    bound = alpha * model.elbo_
    assert log_normaliser - 1.0 < bound < log_normaliser + 0.01


def test_recovers_the_true_variables_and_predicts():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 40))
    logit_true = 2 * X[:, 3] - 2 * X[:, 10] + X[:, 20]
    y = logit_true + rng.logistic(size=300) > 0
    labels = np.where(y, "case", "control")
    model = AlphaSpikeSlabClassifier(alpha=0.8).fit(X, labels)
    assert sorted(np.flatnonzero(model.inclusion_probabilities_ > 0.5)) == [3, 10, 20]
    assert list(model.classes_) == ["case", "control"]
    # classes_[1] = "control" is the modelled y = 1, so its coefficients flip sign
    assert model.coef_[3] < 0 < model.coef_[10]
    proba = model.predict_proba(X)
    assert proba.shape == (300, 2) and np.allclose(proba.sum(axis=1), 1.0)
    assert np.all(model.predict(X) == model.classes_[(proba[:, 1] > 0.5).astype(int)])
    # as accurate as the true logit's sign (0.84 here); beats unpenalised-ish logistic
    # regression out of sample (0.833 against 0.760 with 3 folds, measured)
    assert model.score(X, labels) >= np.mean((logit_true > 0) == y) - 0.01
    assert cross_val_score(clone(model), X, labels, cv=3).mean() > cross_val_score(
        LogisticRegression(), X, labels, cv=3).mean() + 0.03


def test_predictive_probability_is_moderated_by_the_logit_variance():
    X, y, _ = logistic_problem(n=40, d=5)
    model = AlphaSpikeSlabClassifier(alpha=0.5).fit(X, y)
    moments = model._decision_moments(X, None)
    mean, variance = moments[0][0], moments[1][0]
    # E[t] agrees with the plug-in logit and Var(t) > 0; MacKay's factor pulls to 1/2
    np.testing.assert_allclose(mean, X @ model.coef_ + model.intercept_, atol=1e-12)
    assert np.all(variance > 0)
    plug_in = 1.0 / (1.0 + np.exp(-mean))
    assert np.all(np.abs(model.predict_proba(X)[:, 1] - 0.5) <= np.abs(plug_in - 0.5) + 1e-15)


def test_tempering_widens_the_posterior():
    X, y, _ = logistic_problem(n=200, d=4)
    sd = {alpha: np.sqrt(AlphaSpikeSlabClassifier(alpha=alpha, prior_inclusion=0.5)
                         .fit(X, y).slab_variances_[:2]) for alpha in (0.25, 1.0)}
    # alpha multiplies the data's precision: the slab sd grows by about 1 / sqrt(alpha)
    np.testing.assert_allclose(sd[0.25] / sd[1.0], 2.0, rtol=0.15)


def test_covariates_are_integrated_and_predicted_with():
    X, y, Z = logistic_problem(n=300, d=10, seed=2, covariates=2)
    model = AlphaSpikeSlabClassifier().fit(X, y, covariates=Z)
    assert model.n_covariates_in_ == 2 and model.covariate_coef_.shape == (2,)
    # the covariates' true effects are 1 and -0.5; their posterior means carry the sign
    assert model.covariate_coef_[0] > 0.5 and model.covariate_coef_[1] < -0.2
    assert sorted(np.flatnonzero(model.inclusion_probabilities_ > 0.5)) == [0, 1]
    # E[gamma] solves the flat-prior normal equations of the bound: Z'(y - 1/2 - D t) = 0
    F = design(len(y), True, Z)
    u = bound_weights(model.bound_parameters_)
    gamma = np.concatenate(([model.intercept_], model.covariate_coef_))
    residual = (y - 0.5) - u * (X @ model.coef_ + F @ gamma)
    np.testing.assert_allclose(F.T @ residual, 0.0, atol=1e-9)
    with pytest.raises(ValueError, match="fitted with 2 covariate"):
        model.predict(X)
    with pytest.raises(ValueError, match="same covariate columns"):
        model.predict(X, covariates=Z[:, :1])
    assert model.score(X, y, covariates=Z) > 0.7
    with pytest.raises(ValueError, match="collinear"):
        AlphaSpikeSlabClassifier().fit(X, y, covariates=np.column_stack([Z, Z[:, 0]]))
    with pytest.raises(ValueError, match="one row per row of X"):
        AlphaSpikeSlabClassifier().fit(X, y, covariates=Z[:10])
    with pytest.raises(ValueError, match="fitted without covariates"):
        AlphaSpikeSlabClassifier().fit(X, y).predict(X, covariates=Z)


def test_grid_average_equals_fitting_each_setting_by_hand():
    X, y, _ = logistic_problem(n=120, d=12, seed=4)
    log_odds = np.array([-1.5, -1.0, -0.5])
    prior = np.array([1.0, 2.0, 1.0])
    for alpha in (0.6, 1.0):
        grid = AlphaSpikeSlabClassifier(alpha=alpha, prior_log_odds=log_odds,
                                        hyper_prior=prior).fit(X, y)
        by_hand = AlphaSpikeSlabClassifier(alpha=alpha, warm_start=True)
        elbos, pips, coefs, probas = [], [], [], []
        for value in log_odds:  # warm-started from the previous setting, as the grid is
            by_hand.set_params(prior_inclusion=1.0 / (1.0 + 10.0 ** -value)).fit(X, y)
            elbos.append(by_hand.elbo_)
            pips.append(by_hand.inclusion_probabilities_.copy())
            coefs.append(by_hand.coef_.copy())
            probas.append(by_hand.predict_proba(X)[:, 1])
        np.testing.assert_allclose(grid.setting_elbo_, elbos, rtol=1e-12)
        log_weights = np.log(prior / prior.sum()) + alpha * np.asarray(elbos)
        weights = np.exp(log_weights - log_weights.max())
        weights /= weights.sum()
        np.testing.assert_allclose(grid.hyper_weights_, weights, rtol=1e-10)
        np.testing.assert_allclose(grid.inclusion_probabilities_, weights @ pips, atol=1e-12)
        np.testing.assert_allclose(grid.coef_, weights @ coefs, atol=1e-12)
        np.testing.assert_allclose(grid.predict_proba(X)[:, 1], weights @ probas, atol=1e-12)
        np.testing.assert_allclose(grid.setting_inclusion_probabilities_, pips, atol=1e-12)
        np.testing.assert_allclose(grid.setting_prior_inclusion_,
                                   1.0 / (1.0 + 10.0 ** -log_odds))


def test_grid_credible_intervals_are_quantiles_of_the_mixture():
    X, y, _ = logistic_problem(n=60, d=8, seed=6)
    model = AlphaSpikeSlabClassifier(prior_inclusion=[0.05, 0.2, 0.5]).fit(X, y)
    interval = model.credible_intervals(0.9)
    draws = model.sample_posterior(200_000, random_state=0)["coef"]
    for j in range(8):
        for bound, p in zip(interval[j], (0.05, 0.95), strict=True):
            # the mixture's CDF at its quantile is p (the atom at 0 may jump over it)
            below, at_most = np.mean(draws[:, j] < bound), np.mean(draws[:, j] <= bound)
            assert below - 0.004 <= p <= at_most + 0.004
    sd = np.sqrt(model._coef_variances())
    np.testing.assert_allclose(sd, draws.std(axis=0), rtol=0.02, atol=1e-3)


def test_leukemia_finds_varbvs_top_variable():
    """varbvs's vignette data (72 x 3,571): with varbvs's default grid of 20 prior log-odds,
    the top variable is varbvs's (column 956, 1-based) and every PIP is within 0.05 of
    varbvs's (measured 0.0013)."""
    from alphavb.datasets import get_data_home, load_leukemia

    if not (get_data_home() / "leukemia" / "X.csv").exists():
        pytest.skip(f"the Leukemia data are not in the data home {get_data_home()}")
    leukemia = load_leukemia()
    X, y, reference = leukemia.data, leukemia.target, leukemia.varbvs_pips
    grid = np.linspace(-np.log10(X.shape[1]), -1, 20)
    model = AlphaSpikeSlabClassifier(prior_log_odds=grid).fit(X, y)
    assert int(np.argmax(model.inclusion_probabilities_)) == 955
    assert np.max(np.abs(model.inclusion_probabilities_ - reference)) <= 0.05
    assert model.score(X, y) == pytest.approx(68 / 72)  # varbvs: 46/47 and 22/25


def test_pickle_round_trip_and_summary():
    X, y, Z = logistic_problem(n=50, d=5, covariates=1)
    model = AlphaSpikeSlabClassifier(prior_log_odds=[-1, 0]).fit(X, y, covariates=Z)
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.predict_proba(X, covariates=Z),
                                  model.predict_proba(X, covariates=Z))
    text = model.summary(sort_by="PIP").as_text()
    assert "Prior settings averaged:" in text and "x0" in text


@pytest.mark.parametrize(("params", "fit_y", "match"), [
    ({}, "three", "Only binary classification"),
    ({}, "one", "1 class"),
    ({"prior_inclusion": 0.1, "prior_log_odds": -1}, None, "'prior_log_odds'"),
    ({"prior_log_odds": [[-1.0]]}, None, "'prior_log_odds'"),
    ({"prior_log_odds": [-1.0, -2.0], "hyper_prior": [1.0]}, None, "'hyper_prior'"),
    ({"prior_inclusion": [0.1, 1.0]}, None, "'prior_inclusion'"),
    ({"slab_variance": 0.0}, None, "'slab_variance'"),
])
def test_bad_input_raises(params, fit_y, match):
    X, y, _ = logistic_problem(n=30, d=4)
    if fit_y == "three":
        y = np.arange(30) % 3
    elif fit_y == "one":
        y = np.zeros(30)
    with pytest.raises(ValueError, match=match):
        AlphaSpikeSlabClassifier(**params).fit(X, y)


def test_nan_and_overflow_raise_and_inputs_are_not_modified():
    X, y, Z = logistic_problem(n=30, d=4, covariates=1)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        AlphaSpikeSlabClassifier().fit(bad, y)
    with pytest.raises(ValueError, match="NaN"):
        AlphaSpikeSlabClassifier().fit(X, y, covariates=np.where(Z > 0, np.nan, Z))
    with pytest.raises(ValueError, match="overflow"):
        AlphaSpikeSlabClassifier().fit(X * 1e200, y)
    X0, y0, Z0 = X.copy(), y.copy(), Z.copy()
    AlphaSpikeSlabClassifier(prior_log_odds=[-1, 0]).fit(X, y, covariates=Z).predict(
        X, covariates=Z)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(Z, Z0)


def test_slab_variance_grid_is_paired_with_the_log_odds_as_varbvs_does():
    X, y, _ = logistic_problem(n=100, d=10, seed=8)
    log_odds, slab = [-1.5, -1.0, -1.0], [0.5, 0.5, 4.0]
    grid = AlphaSpikeSlabClassifier(alpha=0.7, prior_log_odds=log_odds,
                                    slab_variance=slab).fit(X, y)
    by_hand = AlphaSpikeSlabClassifier(alpha=0.7, warm_start=True)
    elbos = []
    for value, sa in zip(log_odds, slab, strict=True):
        elbos.append(by_hand.set_params(prior_log_odds=value, slab_variance=sa).fit(X, y).elbo_)
    np.testing.assert_allclose(grid.setting_elbo_, elbos, rtol=1e-12)
    np.testing.assert_allclose(grid.setting_slab_variance_, slab)
    # one slab variance for every log-odds, or one log-odds for every slab variance
    assert AlphaSpikeSlabClassifier(prior_log_odds=-1.0, slab_variance=[0.5, 2.0]).fit(
        X, y).setting_elbo_.shape == (2,)
    with pytest.raises(ValueError, match=r"'slab_variance'.*paired"):
        AlphaSpikeSlabClassifier(prior_log_odds=[-1.0, -2.0], slab_variance=[1, 2, 3]).fit(X, y)


@pytest.mark.parametrize("n_covariates", [0, 2])
def test_standardize_is_a_fit_on_scaled_columns_reported_on_the_original_scale(n_covariates):
    """standardize=True equals a raw fit on X / sd with the coefficients divided by sd: PIPs,
    objective, intercept, covariates and probabilities equal, draws rescaled."""
    X, y, Z = logistic_problem(n=80, d=5, covariates=n_covariates)
    X = X * np.array([0.01, 1.0, 40.0, 1.0, 1e3]) + 2.0
    Z = Z if n_covariates else None
    scale = X.std(axis=0)
    # the same 300 iterations (tol=0), which in exact arithmetic are the same numbers
    common = {"alpha": 0.7, "prior_inclusion": 0.3, "n_init": 3, "tol": 0.0, "max_iter": 300}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = AlphaSpikeSlabClassifier(**common).fit(X, y, covariates=Z)
        scaled = AlphaSpikeSlabClassifier(standardize=False, **common).fit(X / scale, y,
                                                                          covariates=Z)
    np.testing.assert_allclose(model.inclusion_probabilities_,
                               scaled.inclusion_probabilities_, rtol=1e-8, atol=1e-12)
    assert model.elbo_ == pytest.approx(scaled.elbo_, rel=1e-10)
    np.testing.assert_allclose(model.coef_ * scale, scaled.coef_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(model.credible_intervals() * scale[:, None],
                               scaled.credible_intervals(), rtol=1e-7, atol=1e-10)
    assert model.intercept_ == pytest.approx(scaled.intercept_, rel=1e-8)
    np.testing.assert_allclose(model.covariate_coef_, scaled.covariate_coef_, rtol=1e-8)
    np.testing.assert_allclose(model.predict_proba(X, covariates=Z),
                               scaled.predict_proba(X / scale, covariates=Z), rtol=1e-9)
    assert_draws_rescaled(model, scaled, scale)


def test_covariates_without_a_posterior_are_refused():
    """A covariate that separates y gave coefficients of 100 (3,332 with k + 1 = n) and only
    'increase max_iter': under the flat prior that posterior does not exist."""
    rng = np.random.default_rng(0)
    X, z = rng.normal(size=(60, 5)), rng.normal(size=60)
    y = (z > 0).astype(int)
    with pytest.raises(ValueError, match="separate the two classes"):
        AlphaSpikeSlabClassifier().fit(X, y, covariates=z[:, None])
    labels = np.tile([0, 1], 5)
    with pytest.raises(ValueError, match=r"10 flat-prior columns .* for 10 rows"):
        AlphaSpikeSlabClassifier().fit(X[:10], labels, covariates=rng.normal(size=(10, 9)))
    with pytest.raises(ValueError, match="13 flat-prior columns"):
        AlphaSpikeSlabClassifier().fit(X[:10], labels, covariates=rng.normal(size=(10, 12)))


@pytest.mark.parametrize("model_class", ["regression", "classifier"])
def test_the_units_of_a_covariate_do_not_matter(model_class):
    """A covariate x 1e11 or x 1e-11 was called collinear (the rank test was not
    scale-invariant); the fit is now the unscaled one, its coefficient rescaled. More
    columns than rows is a ValueError naming them (a LinAlgError before)."""
    from alphavb import AlphaSpikeSlabRegression

    rng = np.random.default_rng(1)
    X, Z = rng.normal(size=(80, 4)), rng.normal(size=(80, 2))
    signal = X[:, 0] + Z @ [0.8, -0.5] + rng.normal(size=80)
    y = signal if model_class == "regression" else (signal > 0).astype(int)
    estimator = (AlphaSpikeSlabRegression(tol=1e-12) if model_class == "regression"
                 else AlphaSpikeSlabClassifier(n_init=3, tol=1e-12))
    reference = clone(estimator).fit(X, y, covariates=Z)
    for factor in (1e11, 1e-11):
        scaled = clone(estimator).fit(X, y, covariates=Z * [factor, 1.0])
        np.testing.assert_allclose(scaled.inclusion_probabilities_,
                                   reference.inclusion_probabilities_, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(scaled.covariate_coef_ * [factor, 1.0],
                                   reference.covariate_coef_, rtol=1e-5)
    with pytest.raises(ValueError, match="flat-prior columns"):
        clone(estimator).fit(X[:10], y[:10], covariates=rng.normal(size=(10, 12)))


@pytest.mark.parametrize("spread", [1e-9, 6e-8])
def test_a_covariate_near_the_intercept_is_called_collinear(spread):
    """A covariate 1 + spread z lies within ``spread`` of the intercept's column: their Gram
    matrix is singular to rounding (condition about 1 / spread^2). The classifier raised
    scipy's LinAlgError from its fit at 1e-9, and at 6e-8 its exact check's PIPs moved by
    0.06 with the LAPACK routine; now it is refused as collinear, naming the fix. The
    regression centres its covariates, which takes the intercept out exactly: there the
    same covariate is spread z, a column like any other, and it fits."""
    from alphavb import AlphaSpikeSlabRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    signal = X[:, 0] + rng.normal(size=40)
    covariates = 1.0 + spread * rng.normal(size=(40, 1))
    with pytest.raises(ValueError, match=r"'covariates'.*collinear.*Drop the redundant"):
        AlphaSpikeSlabClassifier().fit(X, (signal > 0).astype(int), covariates=covariates)
    fitted = AlphaSpikeSlabRegression().fit(X, signal, covariates=covariates)
    assert np.all(np.isfinite(fitted.covariate_coef_))
    # a covariate 1e-5 from the intercept keeps a usable Gram matrix: the classifier fits
    AlphaSpikeSlabClassifier().fit(X, (signal > 0).astype(int),
                                   covariates=1.0 + 1e-5 * rng.normal(size=(40, 1)))
