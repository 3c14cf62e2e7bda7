"""The mixture's fit-time check (alphavb.mixture._check): importance weights p / q that are
constant where q is exact (one component: the conjugate posterior), the Dirichlet and stick
densities against scipy's, a check that stays silent on separated clusters and fires on
overlapping ones, and "auto" leaving the dear check to an explicit request."""

import warnings

import numpy as np
import pytest
from scipy import stats

import alphavb
from alphavb import AlphaGaussianMixture, PosteriorApproximationWarning
from alphavb._special import log_dirichlet_density, log_dirichlet_draws
from alphavb.mixture._check import check_cost_share, importance_draws


def _clusters(separation, n_components=3, seed=0):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(size=(200, 2)) + separation * k
                           for k in range(n_components)]) * [1.0, 1000.0]  # any units


@pytest.mark.parametrize("covariance_type", ["full", "diag", "spherical", "fixed"])
@pytest.mark.parametrize("weights", ["dirichlet_process", "dirichlet_distribution"])
@pytest.mark.parametrize("alpha", [1.0, 0.4])
def test_one_component_q_is_the_exact_posterior(covariance_type, weights, alpha):
    """With one component the tempered posterior is conjugate and q is it: every draw's
    log p - log q is the same number, which checks each density against the fit's update."""
    X = _clusters(0.0, n_components=1)
    extra = {"fixed_covariance": np.diag([1.0, 1e6])} if covariance_type == "fixed" else {}
    model = AlphaGaussianMixture(n_components=1, covariance_type=covariance_type, alpha=alpha,
                                 weight_concentration_prior_type=weights, random_state=0,
                                 **extra).fit(X)
    _, _, log_weights = importance_draws(model, X, np.ones(len(X)), np.random.RandomState(0))
    assert np.all(np.isfinite(log_weights))
    assert np.ptp(log_weights) < 1e-6 * max(1.0, np.abs(log_weights).max())


def test_dirichlet_density_and_draws_are_scipys():
    """The density equals scipy's; the draws on the log scale have Dirichlet moments and
    stay finite at a concentration of 0.001, where the weights underflow to 0."""
    rng = np.random.default_rng(1)
    concentration = np.array([0.7, 2.0, 5.5])
    weights = rng.dirichlet(concentration, size=5)
    expected = [stats.dirichlet.logpdf(w, concentration) for w in weights]
    np.testing.assert_allclose(log_dirichlet_density(np.log(weights), concentration), expected,
                               rtol=1e-12)
    draws = np.exp(log_dirichlet_draws(concentration, 200_000, np.random.RandomState(0)))
    mean = concentration / concentration.sum()
    np.testing.assert_allclose(draws.mean(axis=0), mean, atol=2e-3)
    np.testing.assert_allclose(draws.var(axis=0),
                               mean * (1 - mean) / (concentration.sum() + 1), rtol=0.03)
    tiny = log_dirichlet_draws(np.array([0.001, 0.001, 50.0]), 1000, np.random.RandomState(0))
    assert np.isfinite(tiny).all() and (np.exp(tiny[:, :2]) == 0.0).any()


def test_small_concentration_keeps_every_draw():
    """A symmetric Dirichlet of concentration 0.001 over 8 components on 2 clusters: every
    draw of q has a density (the weights of the empty components underflow, their logs do
    not), and the weights' k-hat is finite."""
    X = _clusters(6.0, n_components=2)
    with alphavb.approximation_checks("always"), warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorApproximationWarning)
        model = AlphaGaussianMixture(n_components=8, covariance_type="diag",
                                     weight_concentration_prior_type="dirichlet_distribution",
                                     weight_concentration_prior=0.001,
                                     random_state=0).fit(X)
    _, _, log_weights = importance_draws(model, X, np.ones(len(X)), np.random.RandomState(0))
    assert np.isfinite(log_weights).all()
    assert "with a density" not in model.approximation_check_.method
    assert np.isfinite(model.approximation_check_.khat)


def test_silent_on_separated_clusters_and_fires_on_overlapping_ones():
    """Separated clusters: the allocations are known and q is nearly exact (masses >= 0.9,
    k-hat <= 0.7). Overlapping ones: q(S) q(theta) treats the allocations as known, its
    intervals too narrow; NUTS (compare_to_exact, 1,000 draws after 1,000) agrees,
    benchmarks/README.rst."""
    with alphavb.approximation_checks("always"):
        model = AlphaGaussianMixture(n_components=3, covariance_type="diag",
                                     random_state=0).fit(_clusters(6.0))
        check = model.approximation_check_
        assert check.reliable and check.khat <= 0.7 and check.min_interval_mass >= 0.9
        assert check.corrected_means is not None
        with pytest.warns(PosteriorApproximationWarning, match="overlapping components"):
            overlapping = AlphaGaussianMixture(n_components=3, covariance_type="diag",
                                               random_state=0).fit(_clusters(1.5))
    assert overlapping.approximation_check_.min_interval_mass < 0.8
    assert "means[0, x0]" in overlapping.approximation_check_.feature_names


def test_auto_leaves_the_dear_check_to_a_request():
    """A thousand likelihood passes against the fit's tens: "auto" does not run it."""
    X = _clusters(6.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = AlphaGaussianMixture(n_components=3, random_state=0).fit(X)
    assert check_cost_share(model) > 0.2 and model.approximation_check_ is None
    tied = AlphaGaussianMixture(n_components=3, covariance_type="tied", random_state=0)
    with alphavb.approximation_checks("always"):
        assert tied.fit(X).approximation_check_ is None  # its q and target differ in kind
