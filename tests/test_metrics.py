"""alphavb.metrics: the log predictive density of each kind of model against its exact
form or an independent route, and the scorer that lets GridSearchCV weigh uncertainty."""

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import invgamma, norm
from sklearn.model_selection import GridSearchCV

from alphavb import (
    AlphaGaussianMixture,
    AlphaLDA,
    AlphaLinearRegression,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
)
from alphavb.metrics import log_predictive_density, log_predictive_scorer


def regression(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    Z = rng.normal(size=(n, 2)) + 3.0
    y = X @ [1.0, -0.5, 0.0, 0.0] + Z @ [0.3, 0.0] + 2.0 + rng.normal(size=n)
    return X, y, Z


def test_linear_known_noise_is_the_exact_gaussian_predictive():
    X, y, _ = regression()
    model = AlphaLinearRegression(alpha=0.5, noise_variance=0.8).fit(X[:40], y[:40])
    mean, sd = model.predict(X[40:], return_std=True)
    np.testing.assert_allclose(log_predictive_density(model, X[40:], y[40:]),
                               norm.logpdf(y[40:], mean, sd), rtol=1e-12)


def test_linear_learned_noise_integrates_q_sigma2():
    """Against quadrature over q(sigma2) of N(y | yhat, Var(x' beta) + sigma2 (1 + 1/(alpha n)))."""
    X, y, _ = regression(seed=1)
    model = AlphaLinearRegression(alpha=0.5).fit(X[:40], y[:40])
    got = log_predictive_density(model, X[40:43], y[40:43], n_draws=200_000)
    mean = model.predict(X[40:43])
    beta_var = model._coef_variance_along(X[40:43] - model._centring.X_offset)
    factor = 1.0 + 1.0 / (0.5 * 40)
    for i in range(3):
        density, _ = integrate.quad(
            lambda s2, i=i: norm.pdf(y[40 + i], mean[i], np.sqrt(beta_var[i] + s2 * factor))
            * invgamma.pdf(s2, model.noise_shape_, scale=model.noise_scale_), 0, np.inf)
        assert got[i] == pytest.approx(np.log(density), abs=2e-3)


def test_spike_slab_predictive_has_the_mean_and_sd_of_predict():
    """The Monte-Carlo predictive density (covariates, a grid, learned noise) integrates to
    1 over y and has predict's mean and standard deviation (within Monte Carlo error)."""
    X, y, Z = regression(seed=2)
    model = AlphaSpikeSlabRegression(alpha=0.7, prior_inclusion=[0.2, 0.5]).fit(
        X, y, covariates=Z)
    mean, sd = model.predict(X[:2], return_std=True, covariates=Z[:2])
    for i in range(2):
        grid = np.linspace(mean[i] - 12 * sd[i], mean[i] + 12 * sd[i], 801)
        density = np.exp(log_predictive_density(model, np.repeat(X[i:i + 1], len(grid), 0),
                                                grid, covariates=np.repeat(Z[i:i + 1],
                                                                           len(grid), 0),
                                                n_draws=20_000))
        step = grid[1] - grid[0]
        total = density.sum() * step
        first = (grid * density).sum() * step
        second = ((grid - first) ** 2 * density).sum() * step
        assert total == pytest.approx(1.0, abs=1e-6)
        assert first == pytest.approx(mean[i], abs=0.03 * sd[i])
        assert np.sqrt(second) == pytest.approx(sd[i], rel=0.02)


def test_classifier_and_mixture_use_their_predictive_probabilities():
    X, y, Z = regression(seed=3)
    labels = np.where(y > np.median(y), "high", "low")
    model = AlphaSpikeSlabClassifier(alpha=0.8).fit(X, labels, covariates=Z)
    proba = model.predict_proba(X, covariates=Z)
    expected = np.log(proba[np.arange(len(y)), (labels == "low").astype(int)])
    np.testing.assert_allclose(log_predictive_density(model, X, labels, covariates=Z),
                               expected, rtol=1e-14)
    mixture = AlphaGaussianMixture(2, random_state=0).fit(X)
    np.testing.assert_array_equal(log_predictive_density(mixture, X), mixture.score_samples(X))


def test_bnn_rows_average_to_its_log_likelihood():
    from alphavb import BBAlphaRegressor

    X, y, _ = regression(seed=4)
    model = BBAlphaRegressor(hidden_layer_sizes=(5,), n_epochs=5, tol=None,
                             random_state=0).fit(X, y)
    rows = log_predictive_density(model, X, y)
    assert rows.shape == (len(y),)
    assert rows.mean() == pytest.approx(model.log_likelihood(X, y), rel=1e-12)


def test_the_scorer_chooses_what_r2_cannot_see():
    """A known noise variance barely moves the predictions (R^2 equal to 1e-3 over a grid
    from 0.01 to 100), but it sets the predictive spread: the log score picks the true 1."""
    X, y, _ = regression(n=200, seed=5)
    grid = {"noise_variance": [0.01, 1.0, 100.0]}
    by_r2 = GridSearchCV(AlphaLinearRegression(prior_precision=1e-3), grid, cv=5).fit(X, y)
    assert np.ptp(by_r2.cv_results_["mean_test_score"]) < 1e-3
    by_log_score = GridSearchCV(AlphaLinearRegression(prior_precision=1e-3), grid, cv=5,
                                scoring=log_predictive_scorer).fit(X, y)
    assert by_log_score.best_params_ == {"noise_variance": 1.0}


def test_dataframe_rows_keep_their_feature_names():
    """Scored on the DataFrame it was fitted on, no model warns that X lost its feature
    names (scikit-learn's UserWarning), inside GridSearchCV too."""
    import warnings

    import pandas as pd

    from alphavb import AlphaLogisticRegression, AlphaSuSiE

    X, y, Z = regression(seed=7)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    covariates = pd.DataFrame(Z, columns=["z1", "z2"])
    labels = (y > np.median(y)).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fitting's own warnings are not the point here
        fitted = [(AlphaLinearRegression().fit(frame, y), y, {}),
                  (AlphaLinearRegression(noise_variance=1.0).fit(frame, y), y, {}),
                  (AlphaSpikeSlabRegression().fit(frame, y, covariates=covariates), y,
                   {"covariates": covariates}),
                  (AlphaSuSiE(n_effects=2).fit(frame, y), y, {}),
                  (AlphaSpikeSlabClassifier().fit(frame, labels), labels, {}),
                  (AlphaLogisticRegression(random_state=0).fit(frame, labels), labels, {}),
                  (AlphaGaussianMixture(2, random_state=0).fit(frame), None, {})]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for model, target, extra in fitted:
            rows = log_predictive_density(model, frame, target, n_draws=50, **extra)
            assert log_predictive_scorer(model, frame, target, **extra) == pytest.approx(
                log_predictive_density(model, frame, target, **extra).mean())
            assert rows.shape == (len(y),) and np.all(np.isfinite(rows))
        known_noise = fitted[1][0]
        mean, sd = known_noise.predict(frame, return_std=True)
        np.testing.assert_allclose(log_predictive_density(known_noise, frame, y),
                                   norm.logpdf(y, mean, sd), rtol=1e-12)
        GridSearchCV(AlphaLinearRegression(), {"alpha": [0.5, 1.0]}, cv=3, error_score="raise",
                     scoring=log_predictive_scorer).fit(frame, y)


def test_bad_calls_name_the_parameter():
    X, y, Z = regression(seed=6)
    model = AlphaLinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="'y'"):
        log_predictive_density(model, X)
    with pytest.raises(ValueError, match="covariates"):
        log_predictive_density(model, X, y, covariates=Z)
    with pytest.raises(ValueError, match="'y'"):
        log_predictive_density(model, X, y[:-1])
    with pytest.raises(ValueError, match="n_draws"):
        log_predictive_density(model, X, y, n_draws=0)
    lda = AlphaLDA(n_components=2, random_state=0).fit(np.random.default_rng(0).poisson(
        2.0, size=(20, 8)))
    with pytest.raises(ValueError, match="perplexity"):
        log_predictive_density(lda, np.ones((2, 8)), np.ones(2))
