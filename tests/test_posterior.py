"""``sample_posterior`` on every estimator: named draws from the fitted q, reproducible, with
the moments of q; and the risk module reads nothing private."""

import inspect
import re

import autograd.numpy as anp
import numpy as np
import pytest

import alphavb.risk
from alphavb import (
    AADMRegressor,
    AlphaGaussianMixture,
    AlphaGaussianVB,
    AlphaLDA,
    AlphaLinearRegression,
    AlphaLogisticRegression,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
    BBAlphaClassifier,
    BBAlphaRegressor,
)
from alphavb.datasets import make_gmm, make_lda_corpus, make_sparse_regression

N_DRAWS = 4000


def normal_log_likelihood(theta, X, y):
    return -0.5 * anp.sum((y[None, :] - anp.dot(theta, X.T)) ** 2, axis=1)


def regression_data():
    X, y, _ = make_sparse_regression(n_samples=60, n_features=8, n_informative=3,
                                     random_state=0)
    return X, y


def fitted(name):
    X, y = regression_data()
    fast = {"n_epochs": 5, "tol": None, "random_state": 0}
    if name == "linear":
        return AlphaLinearRegression(alpha=0.5).fit(X, y)
    if name == "spike-slab":
        return AlphaSpikeSlabRegression(alpha=0.5, inclusion_prior=(1.0, 1.0)).fit(X, y)
    if name == "spike-slab-grid":
        Z = np.random.default_rng(1).normal(size=(len(y), 2))
        return AlphaSpikeSlabRegression(alpha=0.5, prior_log_odds=[-1.0, -0.5, 0.0]).fit(
            X, y + Z @ [1.0, -1.0], covariates=Z)
    if name == "spike-slab-classifier":
        return AlphaSpikeSlabClassifier(alpha=0.5, prior_log_odds=[-1.0, 0.0]).fit(X, y > 0)
    if name.startswith("mixture"):
        covariance_type = name.split("-")[1]
        X, _, _ = make_gmm(n_samples=200, random_state=0)
        return AlphaGaussianMixture(3, alpha=0.7, covariance_type=covariance_type,
                                    random_state=0).fit(X)
    if name == "lda":
        counts, _, _ = make_lda_corpus(n_documents=40, n_topics=3, n_words=12, random_state=0)
        return AlphaLDA(3, max_iter=5, random_state=0).fit(counts)
    if name == "bbalpha-regressor":
        return BBAlphaRegressor(hidden_layer_sizes=(4,), **fast).fit(X, y)
    if name == "bbalpha-classifier":
        return BBAlphaClassifier(**fast).fit(X, y > 0)
    if name == "aadm":
        return AADMRegressor(hidden_layer_sizes=(4,), generator_hidden=(5,), noise_dim=3,
                             discriminator_hidden=(5,), **fast).fit(X, y)
    if name == "gaussian-vb":
        return AlphaGaussianVB(normal_log_likelihood, X.shape[1], n_mc_samples=20,
                               random_state=0).fit(X, y)
    return AlphaLogisticRegression(n_mc_samples=20, random_state=0).fit(X, y > 0)


NAMES = ["linear", "spike-slab", "spike-slab-grid", "spike-slab-classifier", "mixture-full",
         "mixture-tied", "mixture-diag", "mixture-spherical", "mixture-fixed", "lda",
         "bbalpha-regressor", "bbalpha-classifier", "aadm", "gaussian-vb", "logistic"]


@pytest.mark.parametrize("name", NAMES)
def test_draws_are_named_arrays_and_reproducible(name):
    model = fitted(name)
    draws = model.sample_posterior(7, random_state=3)
    assert isinstance(draws, dict) and draws
    for key, value in draws.items():
        assert isinstance(key, str)
        assert value.shape[0] == 7 and np.all(np.isfinite(value.astype(float)))
    again = model.sample_posterior(7, random_state=3)
    for key in draws:
        np.testing.assert_array_equal(draws[key], again[key])
    with pytest.raises(ValueError, match="'n_samples'"):
        model.sample_posterior(0)


def test_regression_draws_have_the_moments_of_q():
    model = fitted("linear")
    draws = model.sample_posterior(N_DRAWS, random_state=0)
    se = np.sqrt(np.diag(model.coef_cov_) / N_DRAWS)
    assert np.all(np.abs(draws["coef"].mean(axis=0) - model.coef_) < 5 * se)
    # the flat-prior intercept of a draw is mean(y) - mean(X)' beta: its mean is intercept_
    assert draws["intercept"].mean() == pytest.approx(
        model.intercept_, abs=5 * draws["intercept"].std() / np.sqrt(N_DRAWS))
    assert np.median(draws["noise_variance"]) == pytest.approx(model.noise_variance_, rel=0.1)


def test_spike_slab_draws_have_the_moments_of_q():
    model = fitted("spike-slab")
    draws = model.sample_posterior(N_DRAWS, random_state=0)
    phi = model.inclusion_probabilities_
    np.testing.assert_allclose(draws["inclusion"].mean(axis=0), phi,
                               atol=5 * np.sqrt(0.25 / N_DRAWS))
    assert np.all(draws["coef"][~draws["inclusion"]] == 0.0)
    a, b = model.inclusion_posterior_
    assert draws["prior_inclusion"].mean() == pytest.approx(a / (a + b), rel=0.05)


@pytest.mark.parametrize("name", ["spike-slab-grid", "spike-slab-classifier"])
def test_grid_draws_have_the_moments_of_the_mixture(name):
    model = fitted(name)
    draws = model.sample_posterior(N_DRAWS, random_state=0)
    counts = np.bincount(draws["setting"], minlength=len(model.hyper_weights_)) / N_DRAWS
    np.testing.assert_allclose(counts, model.hyper_weights_, atol=5 * np.sqrt(0.25 / N_DRAWS))
    np.testing.assert_allclose(draws["inclusion"].mean(axis=0),
                               model.inclusion_probabilities_, atol=5 * np.sqrt(0.25 / N_DRAWS))
    sd = np.sqrt(model._coef_variances())
    assert np.all(np.abs(draws["coef"].mean(axis=0) - model.coef_)
                  <= 5 * sd / np.sqrt(N_DRAWS) + 1e-12)


def test_classifier_intercept_draws_follow_q_gamma_given_beta():
    X, y = regression_data()
    Z = np.random.default_rng(2).normal(size=(len(y), 1))
    model = AlphaSpikeSlabClassifier(alpha=0.5).fit(X, y > 0, covariates=Z)
    draws = model.sample_posterior(N_DRAWS, random_state=0)
    for key, mean in (("intercept", model.intercept_), ("covariate_coef", model.covariate_coef_)):
        values = draws[key]
        se = values.std(axis=0) / np.sqrt(N_DRAWS)
        assert np.all(np.abs(values.mean(axis=0) - mean) < 5 * se)
    # the logit of a draw has the moments that predict_proba's approximation uses
    t = (draws["coef"] @ X[:5].T + draws["intercept"][:, None]
         + draws["covariate_coef"] @ Z[:5].T)
    means, variances = model._decision_moments(X[:5], Z[:5])
    np.testing.assert_allclose(t.mean(axis=0), means[0], atol=5 * np.sqrt(variances[0].max()
                                                                        / N_DRAWS))
    np.testing.assert_allclose(t.var(axis=0), variances[0], rtol=0.1)


def test_covariate_draws_have_the_moments_of_q():
    model = fitted("spike-slab-grid")
    draws = model.sample_posterior(N_DRAWS, random_state=0)
    gamma = draws["covariate_coef"]
    assert gamma.shape == (N_DRAWS, 2)
    se = gamma.std(axis=0) / np.sqrt(N_DRAWS)
    assert np.all(np.abs(gamma.mean(axis=0) - model.covariate_coef_) < 5 * se)
    assert draws["intercept"].mean() == pytest.approx(
        model.intercept_, abs=5 * draws["intercept"].std() / np.sqrt(N_DRAWS))


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical", "fixed"])
def test_mixture_draws_have_the_moments_of_q(covariance_type):
    model = fitted(f"mixture-{covariance_type}")
    draws = model.sample_posterior(N_DRAWS, random_state=0)
    np.testing.assert_allclose(draws["weights"].mean(axis=0), model.weights_, atol=0.01)
    np.testing.assert_allclose(draws["means"].mean(axis=0), model.means_, atol=0.05)
    # E_q[Lambda_k] = precisions_ (nu_k Psi_k^{-1}, the shared factor's for tied, or the
    # known precision)
    expected = model.precisions_ if covariance_type not in ("fixed", "tied") else np.broadcast_to(
        model.precisions_, (3, *model.precisions_.shape))
    np.testing.assert_allclose(draws["precisions"].mean(axis=0), expected, rtol=0.05,
                               atol=0.01)


def test_lda_draws_have_the_moments_of_q():
    model = fitted("lda")
    draws = model.sample_posterior(N_DRAWS, random_state=0)["topic_word"]
    np.testing.assert_allclose(draws.sum(axis=-1), 1.0)
    expected = model.components_ / model.components_.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(draws.mean(axis=0), expected, atol=0.01)


def test_bbalpha_draws_have_the_moments_of_q():
    model = fitted("bbalpha-regressor")
    weights = model.sample_posterior(N_DRAWS, random_state=0)["weights"]
    se = np.sqrt(model.posterior_var_ / N_DRAWS)
    assert np.all(np.abs(weights.mean(axis=0) - model.posterior_mean_) < 5 * se + 1e-12)


def test_risk_reads_only_public_attributes():
    source = inspect.getsource(alphavb.risk)
    assert not re.findall(r"model\._\w+", source)
    assert "hasattr" not in source
