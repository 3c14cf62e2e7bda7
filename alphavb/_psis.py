"""Pareto-smoothed importance sampling (Vehtari, Simpson, Gelman, Yao & Gabry 2024, JMLR;
the diagnostic of Yao, Vehtari, Simpson & Gelman 2018, "Yes, but did it work?").

Draws ``theta_s ~ q`` weighted by ``w_s = p(theta_s) / q(theta_s)`` (``p`` unnormalised)
estimate expectations under ``p``; how well depends on the right tail of the weights. A
generalized Pareto distribution fitted to the ``M`` largest weights (``M = min(S / 5, 3
sqrt(S))``, above the ``(M + 1)``-th largest) has shape ``k``: below 0.5 the estimates
converge fast, up to 0.7 usefully, above 0.7 not at all (``q`` misses mass of ``p``). The
fitted ``k`` is :func:`pareto_khat`'s; the smoothed weights replace the ``M`` largest by the
fitted distribution's quantiles at ``(i - 1/2) / M`` above the threshold (truncated at the
largest raw weight).

The generalized Pareto fit is Zhang & Stephens' (2009, Technometrics) empirical Bayes
estimate: with ``b = k / sigma``, the profile likelihood of ``b`` is ``n (log(b / k(b)) -
k(b) - 1)`` with ``k(b) = mean log(1 + b x_i)``; the estimate averages ``b`` over a grid of
``30 + sqrt(n)`` values with weights proportional to the profile likelihood, and ``k`` is
shrunk towards 0.5 as by 10 prior observations (Vehtari et al.'s weakly informative prior).
"""

import numpy as np

KHAT_LIMIT = 0.7


def generalized_pareto_fit(exceedances):
    """``(k, sigma)`` of a generalized Pareto distribution fitted to positive
    ``exceedances`` (module docstring); the shape before the prior's shrinkage is
    ``k_raw``, returned third."""
    x = np.sort(np.asarray(exceedances, dtype=float))
    n = len(x)
    grid_size = 30 + int(np.sqrt(n))
    quartile = x[max(int(n / 4 + 0.5) - 1, 0)]
    j = np.arange(1, grid_size + 1)
    # theta = -b (Zhang & Stephens' parametrisation): 1 - theta x > 0 for every x
    theta = 1.0 / x[-1] + (1.0 - np.sqrt(grid_size / (j - 0.5))) / (3.0 * quartile)
    k_theta = np.log1p(-theta[:, None] * x[None, :]).mean(axis=1)
    profile = n * (np.log(-theta / k_theta) - k_theta - 1.0)
    weights = np.exp(profile - profile.max())
    weights /= weights.sum()
    theta_hat = float(weights @ theta)
    k_raw = float(np.log1p(-theta_hat * x).mean())
    sigma = -k_raw / theta_hat
    k = (n * k_raw + 10 * 0.5) / (n + 10)
    return k, sigma, k_raw


def pareto_khat(log_weights):
    """The Pareto ``k`` of importance weights and the smoothed, normalised weights.

    Parameters
    ----------
    log_weights : array-like of shape (n_draws,)
        ``log p(theta_s) - log q(theta_s)`` up to a constant; ``-inf`` allowed.

    Returns
    -------
    khat : float
        NaN when the tail cannot be fitted (fewer than 5 tail draws, or all equal).
    weights : ndarray of shape (n_draws,)
        Smoothed weights summing to 1.
    """
    log_weights = np.asarray(log_weights, dtype=float)
    if not np.all(np.isfinite(log_weights) | (log_weights == -np.inf)) or np.all(
            log_weights == -np.inf):
        raise ValueError("pareto_khat: log_weights must be finite or -inf, not all -inf.")
    n_draws = len(log_weights)
    shifted = log_weights - log_weights.max()
    tail = int(np.ceil(min(0.2 * n_draws, 3.0 * np.sqrt(n_draws))))
    order = np.argsort(shifted, kind="stable")
    smoothed = shifted.copy()
    khat = np.nan
    if tail >= 5 and n_draws > tail:
        threshold = shifted[order[-tail - 1]]
        top = order[-tail:]
        exceedances = np.exp(shifted[top]) - np.exp(threshold)
        if threshold > -np.inf and np.all(exceedances > 0) and np.ptp(exceedances) > 0:
            khat, sigma, _ = generalized_pareto_fit(exceedances)
            p = (np.arange(1, tail + 1) - 0.5) / tail
            quantiles = np.exp(threshold) + (sigma / khat * np.expm1(-khat * np.log1p(-p))
                                             if abs(khat) > 1e-12
                                             else -sigma * np.log1p(-p))
            smoothed[top] = np.log(np.minimum(quantiles, 1.0))  # 1 = the largest raw weight
    weights = np.exp(smoothed - smoothed.max())
    return float(khat), weights / weights.sum()
