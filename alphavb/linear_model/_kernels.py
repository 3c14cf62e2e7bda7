"""numba kernels of the spike-and-slab CAVI sweep (spec §3).

Plain functions over arrays; the estimator calls :func:`spike_slab_sweep` once per sweep.
The NumPy reference used in the tests is ``tests/naive.py``.
"""

import math

import numba
import numpy as np


@numba.njit(cache=True)
def _expit(x):
    """Logistic function without overflow."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@numba.njit(cache=True)
def _xlogx(p):
    return p * math.log(p) if p > 0.0 else 0.0


@numba.njit(cache=True)
def spike_slab_sweep(X, col_sq_norms, residual, phi, mu, s2, tau, elt, logit_pi, alpha,
                     slab_variance):
    """One pass of the coordinate updates ``j = 0..d-1`` of ``q(beta_j, z_j)`` (spec §3).

    For each ``j``, with ``r_j = y - sum_{k != j} X_k phi_k mu_k``::

        s2_j = 1 / (tau (alpha ||X_j||^2 + 1/nu))
        mu_j = s2_j alpha tau X_j' r_j
        logit(phi_j) = logit_pi + 0.5 log(s2_j/nu) + 0.5 elt + mu_j^2 / (2 s2_j)

    ``residual = y - X (phi * mu)`` is kept up to date (O(n) per coordinate), so one sweep
    reads each column of ``X`` (Fortran order) from memory once. ``phi``, ``mu``, ``s2`` and
    ``residual`` are updated in place.

    Returns
    -------
    expected_sq_residual : float
        ``E_q ||y - X beta||^2 = ||residual||^2 + sum_j ||X_j||^2 Var_q(beta_j)``.
    slab_second_moment : float
        ``sum_j phi_j (mu_j^2 + s2_j)``.
    phi_sum : float
        ``sum_j phi_j``.
    phi_log_s2 : float
        ``sum_j phi_j log s2_j``.
    neg_entropy_z : float
        ``sum_j phi_j log phi_j + (1 - phi_j) log(1 - phi_j)``.
    """
    n, d = X.shape
    inv_nu = 1.0 / slab_variance
    log_nu = math.log(slab_variance)
    for j in range(d):
        old_mean = phi[j] * mu[j]
        dot = 0.0
        for i in range(n):
            dot += X[i, j] * residual[i]
        x_r = dot + col_sq_norms[j] * old_mean
        s2_j = 1.0 / (tau * (alpha * col_sq_norms[j] + inv_nu))
        mu_j = s2_j * alpha * tau * x_r
        logit = logit_pi + 0.5 * (math.log(s2_j) - log_nu) + 0.5 * elt + 0.5 * mu_j * mu_j / s2_j
        phi_j = _expit(logit)
        delta = phi_j * mu_j - old_mean
        if delta != 0.0:
            for i in range(n):
                residual[i] -= X[i, j] * delta
        phi[j] = phi_j
        mu[j] = mu_j
        s2[j] = s2_j

    sq_residual = 0.0
    for i in range(n):
        sq_residual += residual[i] * residual[i]
    variance_term = 0.0
    slab_second_moment = 0.0
    phi_sum = 0.0
    phi_log_s2 = 0.0
    neg_entropy_z = 0.0
    for j in range(d):
        second = phi[j] * (mu[j] * mu[j] + s2[j])
        # Var_q(beta_j) = phi (mu^2 + s2) - (phi mu)^2, written without cancellation
        variance_term += col_sq_norms[j] * phi[j] * (s2[j] + (1.0 - phi[j]) * mu[j] * mu[j])
        slab_second_moment += second
        phi_sum += phi[j]
        phi_log_s2 += phi[j] * math.log(s2[j])
        neg_entropy_z += _xlogx(phi[j]) + _xlogx(1.0 - phi[j])
    return sq_residual + variance_term, slab_second_moment, phi_sum, phi_log_s2, neg_entropy_z
