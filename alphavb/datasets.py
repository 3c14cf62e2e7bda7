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
