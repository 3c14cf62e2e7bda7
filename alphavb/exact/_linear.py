"""Exact alpha-posterior of :class:`~alphavb.AlphaLinearRegression`'s model.

``y = X beta + eps`` with the likelihood raised to ``alpha``, ``beta ~ N(0, s Lambda0^{-1})``
(``s = sigma2`` for ``coef_prior="conjugate"``, 1 for ``"independent"``), ``sigma2 ~
InvGamma(a0, b0)`` or known, and a flat intercept integrated out (centring ``X`` and ``y``;
it takes ``1/2`` off the shape of ``sigma2``'s posterior). With ``A = alpha X'X +
Lambda0`` and ``m = A^{-1} alpha X'y``:

* conjugate prior (the alpha-posterior is normal-inverse-gamma; independent draws)::

      sigma2 | y ~ InvGamma(a0 + (alpha n - k) / 2, b0 + alpha (y'y - m'X'y) / 2),
      beta | sigma2, y ~ N(m, sigma2 A^{-1});

* known ``sigma2``: ``beta | y ~ N(m_s, A_s^{-1})`` with ``A_s = alpha X'X / sigma2 + t
  Lambda0`` (``t = 1/sigma2`` conjugate, 1 independent), ``m_s = A_s^{-1} alpha X'y /
  sigma2`` (independent draws; this is also what alpha-VB finds, exactly);
* independent prior, unknown ``sigma2``: Gibbs, ``beta | sigma2`` as above and ``sigma2 |
  beta ~ InvGamma(a0 + (alpha n - k) / 2, b0 + alpha ||y - X beta||^2 / 2)``.

``k`` is 1 with ``fit_intercept`` (0 without); ``n`` the total of ``sample_weight``. The
intercept given ``beta`` and ``sigma2`` is ``N(mean(y) - mean(X)' beta, sigma2 / (alpha
n))``.
"""

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular
from sklearn.base import clone

from .._validation import bad_parameter
from ..linear_model._base import exact_noise_shape
from ._draws import ExactDraws
from ._spike_slab import check_noise_shape, flat_parameters

# the largest number of coefficients whose (d, d) posterior precision is factorised
MAX_FEATURES = 4000


def _gaussian_draws(mean, precision, n, rng):
    """``n`` draws of ``N(mean, precision^{-1})`` through the Cholesky factor of the
    precision."""
    chol = cholesky(precision, lower=True)
    noise = rng.standard_normal((mean.shape[0], n))
    return mean + solve_triangular(chol.T, noise, lower=False).T


def sample_linear(estimator, X, y, *, n_draws, n_chains, n_tune, thin, rng,
                  sample_weight=None):
    """Draws of the exact alpha-posterior (module docstring); an ``ExactDraws``."""
    model = clone(estimator)
    data = model._prepare_fit(X, y, sample_weight)
    n_features = data.X.shape[1]
    if n_features > MAX_FEATURES:
        raise bad_parameter("sample_exact", "X", f"at most {MAX_FEATURES} columns for the "
                            "linear model's exact posterior (a dense (d, d) factorisation)",
                            f"{n_features} columns")
    alpha = float(model.alpha)
    gram = data.X.T @ data.X
    xty = data.X.T @ data.y
    n_flat = int(model.fit_intercept)
    shape = exact_noise_shape(data.noise_prior[0], alpha, data.n_observations, n_flat)
    if data.fixed_variance is None:
        check_noise_shape(model, shape, data.noise_prior[0], data.X.shape[0],
                          data.n_observations, n_flat)
    total = n_chains * n_draws
    iid = data.conjugate or data.fixed_variance is not None
    if data.fixed_variance is not None:
        variance = data.fixed_variance
        scale = 1.0 / variance if data.conjugate else 1.0
        precision = alpha * gram / variance + np.diag(scale * data.prior_precision)
        chol = cholesky(precision, lower=True)
        mean = cho_solve((chol, True), alpha * xty / variance)
        coef = _gaussian_draws(mean, precision, total, rng)
        noise = np.full(total, variance)
    elif data.conjugate:
        precision = alpha * gram + np.diag(data.prior_precision)
        chol = cholesky(precision, lower=True)
        mean = cho_solve((chol, True), alpha * xty)
        rate = data.noise_prior[1] + 0.5 * alpha * (data.y @ data.y - mean @ xty)
        noise = rate / rng.gamma(shape, 1.0, size=total)
        whitened = solve_triangular(chol.T, rng.standard_normal((n_features, total)),
                                    lower=False).T
        coef = mean + np.sqrt(noise)[:, None] * whitened
    else:
        coef, noise = _independent_gibbs(data, alpha, gram, xty, shape, n_chains, n_draws,
                                         n_tune, thin, rng)
    coef = coef.reshape(n_chains, n_draws, n_features)
    noise = noise.reshape(n_chains, n_draws)
    draws = {"coef": coef, **flat_parameters(model, data.centring, coef, noise, rng),
             "noise_variance": noise}
    method = ("independent draws (closed form)" if iid else "Gibbs (beta | sigma2, sigma2 | beta)")
    return ExactDraws(model, draws, method=method, iid=iid,
                      info={} if iid else {"n_tune": n_tune, "thin": thin})


def _independent_gibbs(data, alpha, gram, xty, shape, n_chains, n_draws, n_tune, thin, rng):
    """Gibbs for the independent prior with ``sigma2`` learned: chains started at ``sigma2 =
    Var(y)`` times a random factor in [0.1, 10]."""
    prior_scale = data.noise_prior[1]
    start = float(np.var(data.y)) or 1.0
    coef = np.empty((n_chains, n_draws, gram.shape[0]))
    noise = np.empty((n_chains, n_draws))
    diagonal = np.diag(data.prior_precision)
    for chain in range(n_chains):
        variance = start * 10.0 ** rng.uniform(-1.0, 1.0)
        kept = 0
        for sweep in range(n_tune + n_draws * thin):
            precision = alpha * gram / variance + diagonal
            chol = cholesky(precision, lower=True)
            mean = cho_solve((chol, True), alpha * xty / variance)
            beta = mean + solve_triangular(chol.T, rng.standard_normal(gram.shape[0]),
                                           lower=False)
            residual = data.y - data.X @ beta
            variance = (prior_scale + 0.5 * alpha * residual @ residual) / rng.gamma(shape)
            if sweep >= n_tune and (sweep - n_tune) % thin == 0:
                coef[chain, kept], noise[chain, kept] = beta, variance
                kept += 1
    return coef.reshape(-1, gram.shape[0]), noise.ravel()
