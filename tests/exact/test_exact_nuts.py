"""alphavb.exact's NUTS samplers (Gaussian mixture, LDA) against exact answers: the
conjugate closed form of one component or one topic, and quadrature of two components or
two topics, within the Monte Carlo error at fixed seeds."""

import sys

import numpy as np
import pytest
from scipy.stats import beta as beta_distribution
from scipy.stats import norm

from alphavb import AlphaGaussianMixture, AlphaLDA

pytest.importorskip("arviz")
pytest.importorskip("numpyro")
from alphavb.exact import _draw, compare_to_exact, sample_exact
from alphavb.exact._draws import mcse_mean

pytestmark = pytest.mark.slow(8)  # NUTS compiles its programs (5-25 s a test)

SAMPLING = {"n_draws": 1000, "n_chains": 2, "n_tune": 500}


def exact_draws(estimator, X, seed=0, **fit_params):
    return _draw(estimator, X, None, fit_params, random_state=seed, thin=1, **SAMPLING)[1]


def within_mcse(draws, expected, tolerance=0.0):
    """Each entry's mean within 4 Monte Carlo SEs (plus ``tolerance``) of ``expected``."""
    error = np.abs(draws.mean(axis=(0, 1)) - expected)
    return np.all(error <= 4.0 * mcse_mean(draws) + tolerance), error


def test_one_component_mixture_is_the_normal_wishart_posterior():
    """K = 1, full covariance, alpha = 0.5, integer sample weights: the alpha-posterior is
    Normal-Wishart with the tempered weighted statistics (Bishop, PRML 10.60-10.63)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2)) @ np.array([[1.0, 0.4], [0.0, 0.6]]) + [1.0, -2.0]
    weight = rng.integers(1, 4, size=40).astype(float)
    m0, b0, nu0, psi0, alpha = np.zeros(2), 0.5, 3.0, np.eye(2), 0.5
    estimator = AlphaGaussianMixture(1, alpha=alpha, mean_prior=m0, mean_precision_prior=b0,
                                     degrees_of_freedom_prior=nu0, covariance_prior=psi0,
                                     random_state=0)
    exact = exact_draws(estimator, X, sample_weight=weight)
    n = alpha * weight.sum()
    xbar = weight @ X / weight.sum()
    scatter = (X - xbar).T @ ((X - xbar) * weight[:, None])
    b, nu = b0 + n, nu0 + n
    m = (b0 * m0 + n * xbar) / b
    psi = psi0 + alpha * scatter + b0 * n / b * np.outer(xbar - m0, xbar - m0)
    ok, error = within_mcse(exact.draws["means"][:, :, 0], m)
    assert ok, error
    ok, error = within_mcse(exact.draws["precisions"][:, :, 0], nu * np.linalg.inv(psi))
    assert ok, error
    ok, error = within_mcse(exact.draws["covariances"][:, :, 0], psi / (nu - 3.0))
    assert ok, error


@pytest.mark.parametrize("covariance_type", ["diag", "spherical", "fixed"])
def test_one_component_mixture_equals_its_exact_vb(covariance_type):
    """K = 1: q(mu, Lambda) is the exact (Normal-Gamma, Gaussian) alpha-posterior, so the
    comparison finds every mean within its Monte Carlo error and sd ratios near 1."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 2)) * [1.0, 0.5] + [0.5, 1.0]
    frame = compare_to_exact(AlphaGaussianMixture(1, covariance_type=covariance_type,
                                                  alpha=0.5, random_state=0),
                             X, random_state=1, **SAMPLING)
    varying = frame["exact_sd"] > 0
    assert np.all(np.abs(frame["vb_mean"] - frame["exact_mean"])[varying]
                  <= 4.0 * frame["exact_mean_se"][varying] + 1e-3)
    assert np.all(np.abs(frame["sd_ratio"][varying] - 1.0)
                  <= 4.0 * (frame["exact_sd_se"] / frame["exact_sd"])[varying] + 0.02)
    assert frame.index[0] == "means[0, x0]"


def test_two_component_mixture_matches_quadrature():
    """K = 2 in one dimension, known unit variance, Dirichlet(2, 2) weights, alpha = 0.5, on
    overlapping clusters: E and sd of the weight and the means of the component matched to
    the fit's (the one with the smaller mean first, as the fit's are ordered) against
    quadrature on a (w, mu_1, mu_2) grid."""
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.normal(-1.2, 1.0, 8), rng.normal(1.5, 1.0, 12)])
    alpha, b0 = 0.5, 0.1
    estimator = AlphaGaussianMixture(
        2, covariance_type="fixed", alpha=alpha, mean_prior=[0.0], mean_precision_prior=b0,
        weight_concentration_prior_type="dirichlet_distribution",
        weight_concentration_prior=2.0, random_state=0)
    exact = exact_draws(estimator, x[:, None])
    first = int(np.argmin(exact.reference_fit.means_[:, 0]))

    w = (np.arange(40) + 0.5) / 40
    mu = np.linspace(-6.0, 6.0, 121)
    W, M1, M2 = np.meshgrid(w, mu, mu, indexing="ij")
    # the mixture's density at each point, summed directly: |x - mu| < 12 here, so no
    # density underflows (a log-sum-exp over the 23M terms took 4 s of this test)
    density = norm.pdf(x[None, :] - mu[:, None])  # (mu, point)
    log_lik = np.stack([np.log(weight * density[:, None, :]
                               + (1.0 - weight) * density[None, :, :]).sum(axis=-1)
                        for weight in w])
    log_post = (alpha * log_lik + beta_distribution.logpdf(W, 2.0, 2.0)
                + norm.logpdf(M1, 0.0, b0**-0.5) + norm.logpdf(M2, 0.0, b0**-0.5))
    p = np.exp(log_post - log_post.max())
    p /= p.sum()
    low = M1 <= M2  # the component with the smaller mean, as the fit's ``first``
    matched = {"mean": np.where(low, M1, M2), "weight": np.where(low, W, 1.0 - W)}
    draws = {"mean": exact.draws["means"][:, :, first, 0],
             "weight": exact.draws["weights"][:, :, first]}
    for name in ("mean", "weight"):
        expected = np.sum(p * matched[name])
        sd = np.sqrt(np.sum(p * matched[name] ** 2) - expected**2)
        ok, error = within_mcse(draws[name][..., None], np.array([expected]), 0.01)
        assert ok, (name, error)
        assert abs(draws[name].std() / sd - 1.0) < 0.1, name


def test_one_topic_lda_is_the_dirichlet_posterior():
    """K = 1: theta is 1 and the topic's alpha-posterior is Dir(eta + alpha sum_d n_dv)."""
    rng = np.random.default_rng(6)
    X = rng.poisson(2.0, size=(4, 5))
    eta, alpha = 0.7, 0.5
    exact = exact_draws(AlphaLDA(1, alpha=alpha, topic_word_prior=eta, random_state=0), X)
    concentration = eta + alpha * X.sum(axis=0)
    ok, error = within_mcse(exact.draws["topic_word"][:, :, 0],
                            concentration / concentration.sum())
    assert ok, error
    assert np.allclose(exact.draws["doc_topic"], 1.0)


def test_two_topic_lda_matches_quadrature():
    """K = 2 topics on two words and one document (counts 6 and 2), priors Dir(1.5),
    alpha = 0.5: the matched topics' word probabilities and the document's proportion
    against quadrature on a (theta, beta_1, beta_2) grid; the fit's topics are ordered by
    their first word's probability, so are the matched draws."""
    counts = np.array([[6, 2]])
    alpha, a, eta = 0.5, 1.5, 1.5
    estimator = AlphaLDA(2, alpha=alpha, doc_topic_prior=a, topic_word_prior=eta,
                         max_iter=200, random_state=0)
    exact = exact_draws(estimator, counts)
    fitted = exact.reference_fit.components_
    first = int(np.argmin(fitted[:, 0] / fitted.sum(axis=1)))

    grid = (np.arange(100) + 0.5) / 100
    T, B1, B2 = np.meshgrid(grid, grid, grid, indexing="ij")
    word = T * B1 + (1.0 - T) * B2
    log_post = (alpha * (6 * np.log(word) + 2 * np.log1p(-word))
                + beta_distribution.logpdf(T, a, a) + beta_distribution.logpdf(B1, eta, eta)
                + beta_distribution.logpdf(B2, eta, eta))
    p = np.exp(log_post - log_post.max())
    p /= p.sum()
    low = B1 <= B2
    matched = {"word": np.where(low, B1, B2), "share": np.where(low, T, 1.0 - T)}
    draws = {"word": exact.draws["topic_word"][:, :, first, 0],
             "share": exact.draws["doc_topic"][:, :, 0, first]}
    for name in ("word", "share"):
        ok, error = within_mcse(draws[name][..., None], np.array([np.sum(p * matched[name])]),
                                0.01)
        assert ok, (name, error)


def test_a_single_chain_runs():
    """n_chains=1: the chain's start is not stacked (it was, and NUTS failed inside the model
    with an einsum error about the extra axis)."""
    X = np.random.default_rng(10).poisson(2.0, size=(3, 4))
    idata = sample_exact(AlphaLDA(2, random_state=0), X, n_draws=20, n_chains=1, n_tune=20,
                         random_state=0)
    assert idata.posterior["topic_word"].shape == (1, 20, 2, 4)
    assert np.all(np.isfinite(idata.posterior["doc_topic"].values))


@pytest.mark.filterwarnings("ignore::alphavb.exact.MixingWarning")  # 10 draws a chain
def test_the_chains_share_one_compiled_sampling_loop(caplog):
    """NumPyro wraps its sampling loop in a new jit for every chain it runs in sequence, and
    XLA compiled the same loop once per chain (4-6 s each for a mixture); run_nuts hands the
    chains one wrapper, so the loop is compiled once, and NumPyro's own wrapper is back
    afterwards."""
    import logging

    import jax
    import numpyro.util

    original = numpyro.util.maybe_jit
    X = np.random.default_rng(11).poisson(2.0, size=(3, 4))
    previous = jax.config.jax_log_compiles
    jax.config.update("jax_log_compiles", True)
    try:
        with caplog.at_level(logging.WARNING, logger="jax"):
            idata = sample_exact(AlphaLDA(2, random_state=0), X, n_draws=10, n_chains=3,
                                 n_tune=10, random_state=0)
    finally:
        jax.config.update("jax_log_compiles", previous)
    loops = [record for record in caplog.records
             if record.getMessage().startswith("Compiling jit(_fori_collect_loop)")]
    assert len(loops) == 1
    assert idata.posterior["topic_word"].shape == (3, 10, 2, 4)
    assert numpyro.util.maybe_jit is original


def test_nuts_samplers_check_size_data_and_dependency(monkeypatch):
    import dask.array as da

    import alphavb.exact._nuts as nuts

    X = np.random.default_rng(7).poisson(2.0, size=(6, 40))
    with pytest.raises(ValueError, match="at most 5000 free parameters"):
        sample_exact(AlphaLDA(200), X)
    with pytest.raises(ValueError, match="in-memory array"):
        sample_exact(AlphaGaussianMixture(2), da.from_array(X.astype(float), chunks=3))
    import scipy.sparse as sp

    blocks = [sp.csr_matrix(X[:3].astype(float)), sp.csr_matrix(X[3:].astype(float))]
    with pytest.raises(ValueError, match="in-memory corpus"):
        sample_exact(AlphaLDA(2), blocks)
    monkeypatch.setattr(nuts, "MAX_PARAMETERS", 10)
    with pytest.raises(ValueError, match="at most 10 free parameters"):
        sample_exact(AlphaGaussianMixture(2), X[:, :3].astype(float))
    monkeypatch.setitem(sys.modules, "numpyro", None)
    with pytest.raises(ImportError, match=r"alphavb\[exact\]"):
        sample_exact(AlphaLDA(2), X)


def test_mixture_draws_as_inference_data_and_caller_arrays_unchanged():
    rng = np.random.default_rng(8)
    X = np.concatenate([rng.normal(-3.0, 1.0, (50, 2)), rng.normal(3.0, 1.0, (50, 2))])
    before = X.copy()
    fitted = AlphaGaussianMixture(2, random_state=0).fit(X)
    idata = sample_exact(AlphaGaussianMixture(2, random_state=0), X, random_state=0,
                         **{**SAMPLING, "n_tune": 1000})
    assert np.array_equal(X, before)
    posterior = idata.posterior
    assert posterior["means"].dims == ("chain", "draw", "component", "feature")
    assert posterior["covariances"].shape == (2, 1000, 2, 2, 2)
    # labels matched to the fit: the draws' component k sits at the fit's cluster k (the
    # clusters are 8.5 sds apart; with 15 rows each, some draws put one broad component
    # over both, a mode of the exact posterior under the default prior that the fit lacks)
    assert np.median(np.abs(posterior["means"].values - fitted.means_)) < 0.5
    assert posterior.attrs["max_rhat"] < 1.01
    assert set(idata.sample_stats) >= {"log_posterior", "diverging", "n_steps"}


def test_mixture_in_years_and_dollars_samples_as_well_as_standardized_data():
    """Columns in years and dollars (scales 5 and 9,000): the sampler works in standardized
    units, so NUTS's trees stay short (in the raw units they hit the 1,023-step limit and
    R-hat was 2.4), and the draws in the data's units equal the standardized data's draws
    mapped back, within their Monte Carlo error."""
    rng = np.random.default_rng(9)
    group = rng.integers(0, 2, 150)
    X = np.column_stack([np.where(group, 55.0, 30.0) + 5.0 * rng.normal(size=150),
                         np.where(group, 80e3, 35e3) + 9e3 * rng.normal(size=150)])
    centre, scale = X.mean(axis=0), X.std(axis=0)
    raw = exact_draws(AlphaGaussianMixture(2, random_state=0), X)
    standardized = exact_draws(AlphaGaussianMixture(2, random_state=0), (X - centre) / scale)
    assert raw.stats["n_steps"].mean() < 64
    assert max(np.nanmax(rhat) for rhat, _ in raw.diagnostics.values()) < 1.01
    mapped = centre + scale * standardized.draws["means"]
    error = np.abs(raw.draws["means"].mean(axis=(0, 1)) - mapped.mean(axis=(0, 1)))
    assert np.all(error <= 4.0 * np.hypot(mcse_mean(raw.draws["means"]), mcse_mean(mapped)))
