"""Pareto-smoothed importance sampling (alphavb._psis) against ArviZ's implementation and
against weights of known tail shape."""

import numpy as np
import pytest

from alphavb._psis import generalized_pareto_fit, pareto_khat


def pareto_log_weights(shape, n, seed):
    """Log weights whose upper tail is generalized Pareto with the given shape."""
    u = np.random.default_rng(seed).uniform(size=n)
    return np.log1p((u ** -shape - 1.0) / shape)


@pytest.mark.parametrize("shape", [0.2, 0.5, 0.8, 1.2])
def test_khat_and_smoothed_weights_equal_arviz(shape):
    az = pytest.importorskip("arviz")
    log_weights = pareto_log_weights(shape, 4000, 0)
    khat, weights = pareto_khat(log_weights)
    smoothed, az_khat = az.psislw(log_weights.copy())
    assert khat == pytest.approx(float(az_khat), abs=1e-10)
    np.testing.assert_allclose(weights, np.exp(smoothed), rtol=1e-9, atol=1e-15)
    assert weights.sum() == pytest.approx(1.0)


def test_the_fit_recovers_a_known_shape():
    rng = np.random.default_rng(1)
    for shape, sigma in [(0.3, 2.0), (0.9, 0.5)]:
        u = rng.uniform(size=20000)
        exceedances = sigma / shape * (u ** -shape - 1.0)
        _, fitted_sigma, raw = generalized_pareto_fit(exceedances)
        assert raw == pytest.approx(shape, abs=0.05)
        assert fitted_sigma == pytest.approx(sigma, rel=0.1)


def test_equal_weights_have_no_tail_and_bad_input_is_named():
    khat, weights = pareto_khat(np.zeros(100))
    assert np.isnan(khat) and np.allclose(weights, 0.01)
    with pytest.raises(ValueError, match="log_weights"):
        pareto_khat([0.0, np.nan])
