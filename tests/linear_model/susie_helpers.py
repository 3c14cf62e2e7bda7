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
