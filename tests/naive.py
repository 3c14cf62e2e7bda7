"""Slow, obviously correct NumPy references for the tests.

Nothing here is fast or clever: each function follows the formula of the spec line by line
(recomputing residuals from scratch, enumerating models) so that the kernels and the
estimators can be compared against it.
"""

import itertools

import numpy as np
from scipy.special import digamma, expit, logsumexp
from scipy.stats import multivariate_normal

from alphavb._special import kl_beta, kl_inv_gamma


def spike_slab_sweep(X, y, phi, mu, s2, tau, elt, logit_pi, alpha, nu):
    """Spec §3 coordinate updates j = 0..d-1, with r_j recomputed from scratch each time."""
    phi, mu, s2 = phi.copy(), mu.copy(), s2.copy()
    for j in range(X.shape[1]):
        mean = phi * mu
        r_j = y - X @ mean + X[:, j] * mean[j]
        xx_j = X[:, j] @ X[:, j]
        s2[j] = 1.0 / (tau * (alpha * xx_j + 1.0 / nu))
        mu[j] = s2[j] * alpha * tau * (X[:, j] @ r_j)
        phi[j] = expit(logit_pi + 0.5 * np.log(s2[j] / nu) + 0.5 * elt + mu[j] ** 2 / (2 * s2[j]))
    return phi, mu, s2


def spike_slab_alpha_elbo(X, y, phi, mu, s2, alpha, nu, noise, pi):
    """The alpha-ELBO of spec §3, term by term, with a sum over j for every KL piece.

    ``noise`` is ``("fixed", sigma2)`` or ``("learned", a_n, b_n, a0, b0)``;
    ``pi`` is ``("fixed", pi)`` or ``("learned", a, b, a0, b0)``.
    """
    n = X.shape[0]
    if noise[0] == "fixed":
        tau, elt, kl_noise = 1.0 / noise[1], -np.log(noise[1]), 0.0
    else:
        _, a_n, b_n, a0, b0 = noise
        tau, elt, kl_noise = a_n / b_n, digamma(a_n) - np.log(b_n), kl_inv_gamma(a_n, b_n, a0, b0)
    if pi[0] == "fixed":
        elog, elog1m, kl_pi = np.log(pi[1]), np.log(1 - pi[1]), 0.0
    else:
        _, a, b, a0, b0 = pi
        elog, elog1m = digamma(a) - digamma(a + b), digamma(b) - digamma(a + b)
        kl_pi = kl_beta(a, b, a0, b0)
    mean = phi * mu
    var = phi * (mu ** 2 + s2) - mean ** 2
    ess = np.sum((y - X @ mean) ** 2) + np.sum(np.sum(X ** 2, axis=0) * var)
    kl_total = 0.0
    for j in range(X.shape[1]):
        p = phi[j]
        ent = (p * np.log(p) if p > 0 else 0.0) + ((1 - p) * np.log(1 - p) if p < 1 else 0.0)
        kl_total += ent - p * elog - (1 - p) * elog1m
        kl_total += p * (-0.5 * np.log(s2[j]) - 0.5 + 0.5 * np.log(nu) - 0.5 * elt
                         + tau * (mu[j] ** 2 + s2[j]) / (2 * nu))
    kl_total += kl_noise + kl_pi
    return -0.5 * n * np.log(2 * np.pi) + 0.5 * n * elt - 0.5 * tau * ess - kl_total / alpha


def spike_slab_enumeration(X, y, alpha, sigma2, nu, pi):
    """Exact PIPs and log-normaliser of the alpha-fractional spike-and-slab posterior.

    Sums over all 2^d models ``z``: with the tempered likelihood
    ``N(y | X beta, sigma2)^alpha`` and the slab ``N(0, nu sigma2)``, the model weight is
    ``pi^|z| (1-pi)^(d-|z|) int N(y | X_z b, sigma2)^alpha N(b | 0, nu sigma2 I) db``.

    Returns
    -------
    pips : ndarray of shape (d,)
    log_normaliser : float
        ``log sum_z p(z) int p(y | beta)^alpha p(beta | z) dbeta``.
    """
    n, d = X.shape
    log_weights, models = [], []
    for z in itertools.product([0, 1], repeat=d):
        idx = np.flatnonzero(z)
        k = len(idx)
        value = k * np.log(pi) + (d - k) * np.log1p(-pi)
        value += -0.5 * n * alpha * np.log(2 * np.pi * sigma2) - alpha * (y @ y) / (2 * sigma2)
        if k:
            Xz = X[:, idx]
            A = alpha * Xz.T @ Xz / sigma2 + np.eye(k) / (nu * sigma2)
            b = alpha * Xz.T @ y / sigma2
            value += 0.5 * b @ np.linalg.solve(A, b) - 0.5 * np.linalg.slogdet(A)[1]
            value -= 0.5 * k * np.log(nu * sigma2)
        log_weights.append(value)
        models.append(z)
    log_weights = np.array(log_weights)
    log_norm = logsumexp(log_weights)
    probs = np.exp(log_weights - log_norm)
    return probs @ np.array(models, dtype=float), log_norm


def fractional_gaussian_posterior(X, y, alpha, sigma2, prior_precision):
    """Mean and covariance of the alpha-fractional posterior of Bayesian linear regression."""
    precision = alpha * X.T @ X / sigma2 + np.diag(prior_precision)
    cov = np.linalg.inv(precision)
    return cov @ (alpha * X.T @ y / sigma2), cov


def fractional_gaussian_log_normaliser(X, y, alpha, sigma2, prior_precision):
    """``log int N(y | X beta, sigma2 I)^alpha N(beta | 0, diag(1/prior_precision)) dbeta``.

    ``N(y | m, s I)^alpha = (2 pi s)^(n (1 - alpha) / 2) alpha^(-n/2) N(y | m, (s/alpha) I)``,
    and the Gaussian integral of the last factor is ``N(y | 0, (s/alpha) I + X P0^-1 X')``.
    """
    n = X.shape[0]
    cov = sigma2 / alpha * np.eye(n) + X @ np.diag(1.0 / prior_precision) @ X.T
    return (0.5 * n * (1 - alpha) * np.log(2 * np.pi * sigma2) - 0.5 * n * np.log(alpha)
            + multivariate_normal(np.zeros(n), cov).logpdf(y))
