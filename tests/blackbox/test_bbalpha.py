"""BBAlphaRegressor and BBAlphaClassifier: the fitted q, real data, the API and bad input."""

import warnings

import numpy as np
import pytest
from autograd import value_and_grad
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from alphavb import BBAlphaClassifier, BBAlphaRegressor
from tests.naive import linear_gaussian_exact_energy

NOISE_VARIANCE, PRIOR_VARIANCE = 0.25, 1.0


def closed_form_minimizer(X, y, alpha):
    """Minimizer of the closed-form exact energy (tests/naive.py), by L-BFGS."""
    n_weights = X.shape[1] + 1
    energy = value_and_grad(lambda q: linear_gaussian_exact_energy(
        q, X, y, NOISE_VARIANCE, PRIOR_VARIANCE, alpha))
    result = minimize(energy, np.r_[np.zeros(n_weights), np.full(n_weights, -3.0)], jac=True,
                      method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000})
    return result.x[:n_weights], np.exp(result.x[n_weights:])


@pytest.mark.slow(5)
def test_fit_reaches_the_minimizer_of_the_exact_energy():
    """Linear-Gaussian model, full batch, K = 100 draws: Adam on the Monte-Carlo energy ends
    at the closed-form minimizer, to within the Monte-Carlo noise of the iterates, for
    alpha in {1e-3, 0.5, 1}; the three minimizers differ by more than that tolerance."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 2))
    y = X @ np.array([1.0, -0.5]) + 0.3 + 0.5 * rng.standard_normal(30)
    sds = []
    for alpha in (1e-3, 0.5, 1.0):
        mean, variance = closed_form_minimizer(X, y, alpha)
        model = BBAlphaRegressor(divergence_order=alpha, hidden_layer_sizes=(),
                                 noise_variance=NOISE_VARIANCE,
                                 normalize=False, prior_variance=PRIOR_VARIANCE, batch_size=30,
                                 n_epochs=2000, learning_rate=0.01, n_mc_samples=100,
                                 tol=None, random_state=0).fit(X, y)
        sd = np.sqrt(variance)
        assert np.max(np.abs(model.posterior_mean_ - mean) / sd) < 0.2
        assert np.max(np.abs(np.log(model.posterior_var_ / variance))) < 0.1
        sds.append(sd)
    assert np.all(np.abs(np.log(sds[1] / sds[0])) > 0.1)
    assert np.all(np.abs(np.log(sds[2] / sds[1])) > 0.1)


def predictive_at(mean, variance, x):
    """Mean and standard deviation of y at x under a factorized Gaussian q over (slope,
    intercept) and the known noise variance."""
    design = np.column_stack([x, np.ones_like(x)])
    return design @ mean, np.sqrt(design**2 @ variance + NOISE_VARIANCE)


def test_defaults_reach_the_closed_form_minimizer_on_40_rows():
    """Linear-Gaussian model, 40 rows, default settings (K = 10 draws, batches of 32, Adam
    1e-3, the default budget and convergence rule): the predictive mean and standard
    deviation at x = -10 and 10 are within 0.1 and 8% of those of the minimizer of the exact
    (K -> infinity) energy, for alpha in {1e-3, 0.5, 1}, and the fits say they converged.
    Measured: mean errors 0.010, 0.014, 0.029; standard deviations 0.8%, 2.7%, 5.4% off, after
    10,400 steps each. On this data set the minimizer of the expected K = 10 energy is itself
    0.001 / 0.014 and 1.8% / 4.1% away at alpha = 0.5 / 1 (the O(1/K) bias of the
    log-mean-exp estimate); on other draws of the 40 rows that bias reaches 0.14 and 7.5%.
    The budget of the former default (500 epochs, 1,000 steps) ends with a
    ConvergenceWarning that names n_epochs."""
    from alphavb.blackbox import fit_stacked

    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 1))
    y = 2 * X[:, 0] + 1 + 0.5 * rng.standard_normal(40)
    alphas = (1e-3, 0.5, 1.0)
    settings = {"hidden_layer_sizes": (), "noise_variance": NOISE_VARIANCE, "normalize": False,
                "random_state": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        models = fit_stacked([BBAlphaRegressor(divergence_order=alpha, **settings)
                              for alpha in alphas], [X] * 3, [y] * 3)
    x = np.array([-10.0, 10.0])
    for alpha, model in zip(alphas, models, strict=True):
        assert model.converged_ and model.n_steps_ < 20_000
        mean, std = predictive_at(*closed_form_minimizer(X, y, alpha), x)
        fitted_mean, fitted_std = predictive_at(model.posterior_mean_, model.posterior_var_, x)
        assert np.max(np.abs(fitted_mean - mean)) < 0.1
        assert np.max(np.abs(fitted_std / std - 1)) < 0.08
    with pytest.warns(ConvergenceWarning, match="n_epochs=500"):
        short = BBAlphaRegressor(divergence_order=0.5, n_epochs=500, **settings).fit(X, y)
    assert not short.converged_ and short.n_steps_ == 1000


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return train_test_split(X, y, test_size=0.25, random_state=0)


@pytest.mark.slow(4)
@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_small_bnn_fits_diabetes(diabetes, alpha):
    """A 20-unit BNN on scikit-learn's diabetes data: better test log-likelihood than the
    Gaussian fitted to the training targets, and a positive R^2."""
    X_train, X_test, y_train, y_test = diabetes
    model = BBAlphaRegressor(divergence_order=alpha, hidden_layer_sizes=(20,), n_epochs=150,
                             learning_rate=0.01, random_state=0).fit(X_train, y_train)
    baseline = np.mean(-0.5 * np.log(2 * np.pi * y_train.var())
                       - (y_test - y_train.mean())**2 / (2 * y_train.var()))
    assert model.log_likelihood(X_test, y_test) > baseline + 0.1
    assert model.score(X_test, y_test) > 0.25  # least squares: 0.36 on this split
    assert 35 < np.sqrt(model.noise_variance_) < 70  # least squares leaves sd 54 here
    _mean, std = model.predict(X_test, return_std=True)
    assert np.all(std > np.sqrt(model.noise_variance_))


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_probit_regression_fits_breast_cancer(alpha):
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    model = BBAlphaClassifier(divergence_order=alpha, n_epochs=30, learning_rate=0.01,
                              random_state=0).fit(X_train, y_train)
    assert model.score(X_test, y_test) > 0.94
    assert model.log_likelihood(X_test, y_test) > -0.15  # log(0.5) = -0.69 is chance
    proba = model.predict_proba(X_test)
    assert np.allclose(proba.sum(axis=1), 1.0) and np.all((proba >= 0) & (proba <= 1))


def test_softmax_bnn_classifies_iris():
    X, y = load_iris(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                        stratify=y)
    model = BBAlphaClassifier(hidden_layer_sizes=(10,), link="softmax", n_epochs=100,
                              learning_rate=0.01, random_state=0).fit(X_train, y_train)
    assert model.score(X_test, y_test) > 0.9
    assert model.log_likelihood(X_test, y_test) > -0.4  # log(1/3) = -1.1 is chance
    assert model.predict_proba(X_test).shape == (len(y_test), 3)


def test_mixture_predictive_log_likelihood_is_the_spec_formula(rng):
    """log_likelihood = mean_i [lse_s log N(y_i; f_s, s2) - log S] on the original scale."""
    X = rng.standard_normal((60, 3))
    y = 100 + 20 * (X[:, 0] + 0.3 * rng.standard_normal(60))
    model = BBAlphaRegressor(hidden_layer_sizes=(5,), n_epochs=20, n_predict_samples=7,
                             random_state=0).fit(X, y)
    draws = model._function_draws(X)
    assert draws.shape == (7, 60)
    s2 = model.noise_variance_
    log_n = -0.5 * np.log(2 * np.pi * s2) - (y - draws)**2 / (2 * s2)
    expected = np.mean(np.log(np.mean(np.exp(log_n), axis=0)))
    assert model.log_likelihood(X, y) == pytest.approx(expected, rel=1e-12)


def test_predictions_repeatable_and_sampling_matches_predictive(rng):
    X = rng.standard_normal((40, 2))
    y = X[:, 0] + 0.5 * rng.standard_normal(40)
    model = BBAlphaRegressor(hidden_layer_sizes=(8,), n_epochs=30, learning_rate=0.01,
                             random_state=3).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), model.predict(X))
    np.testing.assert_allclose(model.predict(X[:5]), model.predict(X)[:5], rtol=1e-12)
    samples = model.sample_predictive(X[:3], n_samples=20_000, random_state=0)
    assert samples.shape == (20_000, 3)
    mean, std = model.predict(X[:3], return_std=True)
    np.testing.assert_allclose(samples.mean(axis=0), mean, atol=5 * std.max() / np.sqrt(20_000)
                               + 0.05 * std.max())
    np.testing.assert_allclose(samples.std(axis=0), std, rtol=0.1)
    refit = clone(model).fit(X, y)
    np.testing.assert_array_equal(refit.posterior_mean_, model.posterior_mean_)


def test_learned_hyperparameters_and_early_stopping(rng):
    X = rng.standard_normal((200, 2))
    y = 3 * X[:, 0] + 0.5 * rng.standard_normal(200)
    model = BBAlphaRegressor(hidden_layer_sizes=(), learn_prior_variance=True, n_epochs=400,
                             learning_rate=0.02, early_stopping=True, n_iter_no_change=5,
                             n_lr_decays=0, random_state=0).fit(X, y)
    assert model.n_iter_ < 400  # stopped early
    assert np.isfinite(model.best_validation_score_)
    assert model.prior_variance_ != 1.0
    assert 0.3 < np.sqrt(model.noise_variance_) < 0.75  # the truth is 0.5
    assert model.energy_history_.shape == (model.n_iter_,)
    assert model.energy_history_[-1] < model.energy_history_[0]


def test_posterior_var_layout_follows_layer_shapes():
    X, y = np.random.default_rng(0).standard_normal((20, 3)), np.arange(20.0)
    model = BBAlphaRegressor(hidden_layer_sizes=(4, 2), n_epochs=2, random_state=0).fit(X, y)
    assert model.layer_shapes_ == [(3, 4), (4, 2), (2, 1)]
    assert model.posterior_mean_.shape == model.posterior_var_.shape == (3 * 4 + 4 + 4 * 2 + 2
                                                                         + 2 + 1,)


@pytest.mark.parametrize("params, match", [
    ({"divergence_order": -0.5}, "'divergence_order'"),
    ({"divergence_order": float("nan")}, "'divergence_order'"),
    ({"divergence_order": 50.0}, "'divergence_order'"),
    ({"energy": "approx"}, "'energy'"),
    ({"hidden_layer_sizes": (10, 0)}, "'hidden_layer_sizes'"),
    ({"activation": "gelu"}, "'activation'"),
    ({"n_mc_samples": 0}, "'n_mc_samples'"),
    ({"learning_rate": 0.0}, "'learning_rate'"),
    ({"prior_variance": -1.0}, "'prior_variance'"),
    ({"noise_variance": 0.0}, "'noise_variance'"),
    ({"validation_fraction": 1.0}, "'validation_fraction'"),
    ({"validation_fraction": 1.0, "early_stopping": True}, "'validation_fraction'"),
])
def test_regressor_bad_parameters(params, match):
    X, y = np.random.default_rng(0).standard_normal((20, 2)), np.arange(20.0)
    with pytest.raises(ValueError, match=match):
        BBAlphaRegressor(n_epochs=1, **params).fit(X, y)


def test_bad_data_and_caller_arrays_untouched(rng):
    X, y = rng.standard_normal((20, 2)), rng.standard_normal(20)
    X_copy, y_copy = X.copy(), y.copy()
    model = BBAlphaRegressor(n_epochs=2, tol=None, random_state=0).fit(X, y)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(y, y_copy)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BBAlphaRegressor(n_epochs=1).fit(bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        BBAlphaRegressor(n_epochs=1).fit(X, y[:-1])
    with pytest.raises(ValueError, match="shape"):
        model.log_likelihood(X, y[:-1])
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :1])
    with pytest.raises(ValueError, match="n_samples"):
        model.sample_predictive(X, n_samples=0)


def test_classifier_bad_input(rng):
    X = rng.standard_normal((30, 2))
    three = np.repeat([0, 1, 2], 10)
    with pytest.raises(ValueError, match=r"Only binary.*link='softmax'"):
        BBAlphaClassifier(n_epochs=1).fit(X, three)
    with pytest.raises(ValueError, match="'link'"):
        BBAlphaClassifier(link="logit", n_epochs=1).fit(X, three)
    with pytest.raises(ValueError, match="at least 2 classes"):
        BBAlphaClassifier(n_epochs=1).fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="Unknown label type"):
        BBAlphaClassifier(n_epochs=1).fit(X, rng.standard_normal(30))
    model = BBAlphaClassifier(n_epochs=1, tol=None, random_state=0).fit(X, three % 2)
    with pytest.raises(ValueError, match="labels not seen"):
        model.log_likelihood(X, three)


def test_non_finite_energy_is_an_error_not_nan(rng):
    X, y = rng.standard_normal((20, 2)), 1e150 * rng.standard_normal(20)  # squares finite
    with pytest.raises(FloatingPointError, match="learning_rate"):
        BBAlphaRegressor(normalize=False, n_epochs=1, noise_variance=1e-300).fit(X, y)


def test_verbose_shows_a_progress_bar(rng, capsys):
    X, y = rng.standard_normal((20, 2)), rng.standard_normal(20)
    BBAlphaRegressor(n_epochs=2, tol=None, verbose=True, random_state=0).fit(X, y)
    assert "BBAlphaRegressor" in capsys.readouterr().err


def test_classifier_warns_when_the_budget_ends_first():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="n_epochs=3 .*Raise n_epochs"):
        model = BBAlphaClassifier(n_epochs=3, random_state=0).fit(X, y)
    assert not model.converged_ and model.n_iter_ == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # a fixed budget asks no rule
        assert not BBAlphaClassifier(n_epochs=3, tol=None, random_state=0).fit(X, y).converged_


@pytest.mark.parametrize("estimator, likelihood", [
    (BBAlphaRegressor(hidden_layer_sizes=(10,), n_epochs=30, tol=None, random_state=0),
     "gaussian"),
    (BBAlphaClassifier(n_epochs=30, tol=None, random_state=0), "probit"),
    (BBAlphaClassifier(link="softmax", hidden_layer_sizes=(5,), energy="reparametrized",
                       n_epochs=30, tol=None, random_state=0), "softmax"),
], ids=["regressor", "probit", "softmax"])
def test_float32_training_tracks_float64(estimator, likelihood, rng):
    # float32 training meets the same draws (rounded) and stays within float32 rounding of
    # float64 over 30 short epochs; its energy and gradient are float32 throughout (one
    # float64 constant would make every array of the step float64)
    from alphavb.blackbox._mlp import mlp_layer_shapes, mlp_n_weights
    from alphavb.blackbox.energies import bbalpha_energy_and_gradient

    X = rng.standard_normal((80, 3))
    n_classes = 3 if likelihood == "softmax" else 2
    signal = X[:, 0] - X[:, 1] + 0.3 * rng.standard_normal(80)
    y = signal if likelihood == "gaussian" else np.digitize(signal, np.quantile(
        signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    double = clone(estimator).fit(X, y)
    single = clone(estimator).set_params(dtype="float32").fit(X, y)
    assert single.posterior_mean_.dtype == np.float64
    np.testing.assert_allclose(single.energy_history_, double.energy_history_, rtol=1e-4)
    np.testing.assert_allclose(single.posterior_mean_, double.posterior_mean_, atol=1e-3)
    shapes = mlp_layer_shapes(3, (10,) if likelihood == "gaussian" else
                              ((5,) if likelihood == "softmax" else ()),
                              n_classes if likelihood == "softmax" else 1)
    n_weights = mlp_n_weights(shapes)
    targets = {"gaussian": rng.standard_normal((1, 8)),
               "probit": np.sign(rng.standard_normal((1, 8))),
               "softmax": np.eye(3)[rng.integers(3, size=(1, 8))]}[likelihood]
    f32 = np.float32
    for energy in ("exact", "reparametrized"):
        value, gradients = bbalpha_energy_and_gradient(
            rng.standard_normal((1, n_weights)).astype(f32),
            np.full((1, n_weights), -3.0, dtype=f32), np.array([1.0]), np.array([0.5]),
            rng.standard_normal((1, 4, n_weights)).astype(f32),
            rng.standard_normal((1, 8, 3)).astype(f32), targets.astype(f32), np.array([0.5]),
            80, energy, shapes, "relu", likelihood)
        assert {a.dtype for a in (value, *gradients)} == {np.dtype(f32)}


@pytest.mark.slow(11)
def test_a_typical_bnn_converges_in_the_default_budget():
    """A first-time user's BNN (50 hidden units, every default) on scikit-learn's diabetes
    data converges without a ConvergenceWarning: it needs about 24,000 Adam steps, more than
    the former default budget of 20,000 (the README's boston example needs about 34,000;
    the README test runs it with warnings as errors)."""
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = BBAlphaRegressor(divergence_order=0.5, hidden_layer_sizes=(50,),
                                 random_state=0).fit(X[:330], y[:330])
    assert model.converged_ and 20_000 < model.n_steps_ < 50_000
    # a sensible fit: better than predicting the training mean on the held-out rows
    held_out = np.mean((model.predict(X[330:]) - y[330:]) ** 2)
    assert held_out < 0.7 * np.var(y[330:])
