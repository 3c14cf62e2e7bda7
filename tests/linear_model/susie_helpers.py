"""Data helpers of the alpha-SuSiE tests."""

import numpy as np


def z_scores(X, y):
    """The z-scores of the univariate regressions of ``y`` on each column (with an
    intercept), susieR's ``univariate_regression``."""
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    r = Xc.T @ yc / np.sqrt(np.sum(Xc**2, axis=0) * (yc @ yc))
    return r * np.sqrt((len(y) - 2) / (1 - r**2))


def correlated(n, p, rng, rho=0.8):
    """AR(1) columns with correlation ``rho`` between neighbours (linked variants)."""
    X = rng.standard_normal((n, p))
    for j in range(1, p):
        X[:, j] = rho * X[:, j - 1] + np.sqrt(1 - rho**2) * X[:, j]
    return X


def ar_background_locus(seed, n=400, p=100, effects=(5, 50), size=0.5, tau2=0.01):
    """A locus with a background (``benchmarks/susier_inf_search_reference.py`` writes
    susieR 0.16.5's SuSiE-inf on it): ``p`` AR(1) columns (rho 0.8) of ``n`` rows drawn by
    ``RandomState(seed)``, effects of ``size`` on ``effects``, unit noise, and a Gaussian
    background of variance ``tau2`` per variable."""
    rng = np.random.RandomState(seed)
    Z = rng.randn(n, p)
    X = Z.copy()
    for j in range(1, p):
        X[:, j] = 0.8 * X[:, j - 1] + 0.6 * Z[:, j]
    coef = np.zeros(p)
    coef[list(effects)] = size
    y = X @ coef + rng.randn(n)
    return X, y + X @ (rng.randn(p) * np.sqrt(tau2))
