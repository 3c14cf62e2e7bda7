"""Data generators of the paper's simulations."""

import numpy as np
from sklearn.utils import check_random_state

from .base import _bad_parameter, check_positive_int, check_scalar_in_range


def make_sparse_regression(n_samples=100, n_features=500, n_informative=4, coef=None, noise=1.0,
                           random_state=None):
    """Sparse high-dimensional linear regression (Yang, Pati & Bhattacharya 2020, Sec. 5).

    ``X`` has independent standard-normal entries, ``y = X beta* + noise * eps`` with
    ``eps ~ N(0, I_n)``, and only the first ``n_informative`` coefficients are non-zero.
    The defaults are the paper's set-up (n = 100, d = 500, 4 non-zero coefficients,
    sigma = 1).

    Parameters
    ----------
    n_samples, n_features, n_informative : int
    coef : array-like of shape (n_informative,) or None, default=None
        Values of the non-zero coefficients; ``None`` gives ``n_informative`` values evenly
        spaced from 1.5 to 3 (1.5, 2, 2.5, 3 for four).
    noise : float, default=1.0
        Standard deviation ``sigma`` of the Gaussian noise.
    random_state : int, RandomState or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    coef : ndarray of shape (n_features,)
        The true coefficient vector ``beta*``.
    """
    owner = "make_sparse_regression"
    n_samples = check_positive_int(owner, "n_samples", n_samples)
    n_features = check_positive_int(owner, "n_features", n_features)
    n_informative = check_positive_int(owner, "n_informative", n_informative)
    if n_informative > n_features:
        raise _bad_parameter(owner, "n_informative", f"an int <= n_features={n_features}",
                             n_informative)
    noise = check_scalar_in_range(owner, "noise", noise, 0.0, None, low_open=False)
    if coef is None:
        values = np.linspace(1.5, 3.0, n_informative)
    else:
        values = np.asarray(coef, dtype=float)
        if values.shape != (n_informative,) or not np.all(np.isfinite(values)):
            raise _bad_parameter(owner, "coef", f"a finite array of shape ({n_informative},)",
                                 coef)
    rng = check_random_state(random_state)
    true_coef = np.zeros(n_features)
    true_coef[:n_informative] = values
    X = rng.standard_normal((n_samples, n_features))
    y = X @ true_coef + noise * rng.standard_normal(n_samples)
    return X, y, true_coef


def make_gmm(n_samples=1000, n_components=3, n_features=2, weights=None, mean_scale=5.0,
             min_separation=3.0, random_state=None):
    """Gaussian mixture with unit covariances (Yang, Pati & Bhattacharya 2020, Sec. 5.2).

    The paper's set-up: ``n = 1000`` bivariate points from ``K = 3`` components with weights
    ``1/3`` and covariance ``I``, the means drawn from ``N(0, c^2 I)``. The paper's text does
    not give ``c``; the default ``mean_scale = c = 5`` puts the median closest pair of means
    4.9 units (4.9 standard deviations) apart. Means are redrawn until every pair is at
    least ``min_separation`` apart, so the components are distinguishable (77% of draws
    pass at the defaults); ``min_separation=0`` keeps the first draw.

    Parameters
    ----------
    n_samples, n_components, n_features : int
    weights : array-like of shape (n_components,) or None, default=None
        Mixing weights; ``None`` is ``1 / n_components`` each.
    mean_scale : float, default=5.0
        Standard deviation ``c`` of the prior the means are drawn from.
    min_separation : float, default=3.0
        Smallest allowed distance between two means.
    random_state : int, RandomState or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
        The component of each row.
    means : ndarray of shape (n_components, n_features)
    """
    owner = "make_gmm"
    n_samples = check_positive_int(owner, "n_samples", n_samples)
    n_components = check_positive_int(owner, "n_components", n_components)
    n_features = check_positive_int(owner, "n_features", n_features)
    mean_scale = check_scalar_in_range(owner, "mean_scale", mean_scale, 0.0, None,
                                       low_open=True)
    min_separation = check_scalar_in_range(owner, "min_separation", min_separation, 0.0, None,
                                           low_open=False)
    if weights is None:
        weights = np.full(n_components, 1.0 / n_components)
    else:
        weights = np.asarray(weights, dtype=float)
        if (weights.shape != (n_components,) or not np.all(np.isfinite(weights))
                or np.any(weights < 0) or abs(weights.sum() - 1.0) > 1e-8):
            raise _bad_parameter(owner, "weights",
                                 f"{n_components} non-negative weights summing to 1", weights)
    rng = check_random_state(random_state)
    for _ in range(1000):
        means = mean_scale * rng.standard_normal((n_components, n_features))
        gaps = np.linalg.norm(means[:, None] - means[None], axis=-1)
        if n_components == 1 or gaps[np.triu_indices(n_components, 1)].min() >= min_separation:
            break
    else:
        raise _bad_parameter(owner, "min_separation",
                             "small enough for 1000 draws of the means to satisfy it",
                             min_separation, "Lower min_separation or raise mean_scale.")
    labels = rng.choice(n_components, size=n_samples, p=weights)
    X = means[labels] + rng.standard_normal((n_samples, n_features))
    return X, labels, means
