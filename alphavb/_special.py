"""Closed forms shared by the CAVI solvers, each written once.

Every function here is a textbook identity; each is tested against a direct numerical
evaluation (quadrature or Monte Carlo) in ``tests/test_special.py``.

Parametrisations
----------------
* ``InvGamma(a, b)``: density ``b^a / Gamma(a) x^(-a-1) exp(-b/x)``; if
  ``sigma2 ~ InvGamma(a, b)`` then ``1/sigma2 ~ Gamma(a, rate=b)``.
* ``Beta(a, b)`` and ``Dirichlet(a)``: the usual densities.
* ``Normal(m, V)``: mean ``m``, covariance ``V``; priors are given by their precision.
"""

import numpy as np
from scipy.special import betaln, digamma, gammaln

__all__ = [
    "beta_expectations",
    "inv_gamma_expectations",
    "inv_gamma_mean",
    "kl_beta",
    "kl_gaussian_diag_prior",
    "kl_inv_gamma",
]


def inv_gamma_expectations(shape, scale):
    """Return ``E[1/sigma2]`` and ``E[log(1/sigma2)]`` under ``InvGamma(shape, scale)``.

    ``1/sigma2 ~ Gamma(shape, rate=scale)``, so the two expectations are
    ``shape/scale`` and ``digamma(shape) - log(scale)`` (spec §2).
    """
    return shape / scale, digamma(shape) - np.log(scale)


def inv_gamma_mean(shape, scale):
    """Mean of ``InvGamma(shape, scale)``: ``scale/(shape-1)``, ``inf`` when ``shape <= 1``."""
    return scale / (shape - 1.0) if shape > 1.0 else np.inf


def kl_inv_gamma(shape, scale, prior_shape, prior_scale):
    """``KL(InvGamma(shape, scale) || InvGamma(prior_shape, prior_scale))``.

    The map ``x -> 1/x`` is a bijection, so this equals the KL between the Gamma
    laws of the precision, ``KL(Gamma(a, b) || Gamma(a0, b0))`` with rates ``b, b0``::

        (a - a0) psi(a) - lnGamma(a) + lnGamma(a0) + a0 (log b - log b0) + a (b0 - b) / b
    """
    a, b, a0, b0 = shape, scale, prior_shape, prior_scale
    return (
        (a - a0) * digamma(a)
        - gammaln(a)
        + gammaln(a0)
        + a0 * (np.log(b) - np.log(b0))
        + a * (b0 - b) / b
    )


def beta_expectations(a, b):
    """Return ``E[log pi]`` and ``E[log(1 - pi)]`` under ``Beta(a, b)``."""
    total = digamma(a + b)
    return digamma(a) - total, digamma(b) - total


def kl_beta(a, b, prior_a, prior_b):
    """``KL(Beta(a, b) || Beta(prior_a, prior_b))``.

    ``ln B(a0, b0) - ln B(a, b) + (a - a0) psi(a) + (b - b0) psi(b) + (a0 - a + b0 - b) psi(a + b)``.
    """
    return (
        betaln(prior_a, prior_b)
        - betaln(a, b)
        + (a - prior_a) * digamma(a)
        + (b - prior_b) * digamma(b)
        + (prior_a - a + prior_b - b) * digamma(a + b)
    )


def kl_gaussian_diag_prior(mean, cov_diag, log_det_cov, prior_precision):
    """``KL(N(mean, V) || N(0, diag(1/prior_precision)))``.

    ``0.5 [ tr(P0 V) + m' P0 m - d - log|P0| - log|V| ]`` with ``P0 = diag(prior_precision)``;
    only the diagonal and the log-determinant of ``V`` enter.

    Parameters
    ----------
    mean : ndarray of shape (d,)
    cov_diag : ndarray of shape (d,)
        Diagonal of the covariance ``V``.
    log_det_cov : float
        ``log |V|``.
    prior_precision : ndarray of shape (d,)
    """
    return 0.5 * (
        np.dot(prior_precision, cov_diag)
        + np.dot(prior_precision, mean * mean)
        - mean.shape[0]
        - np.sum(np.log(prior_precision))
        - log_det_cov
    )
