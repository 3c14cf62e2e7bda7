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
from scipy.special import betaln, digamma, gammaln, logsumexp, polygamma

LOG_2PI = float(np.log(2.0 * np.pi))

__all__ = [
    "beta_expectations",
    "dirichlet_expected_log",
    "inv_gamma_expectations",
    "inv_gamma_mean",
    "kl_beta",
    "kl_dirichlet",
    "kl_gamma",
    "kl_gaussian_diag_prior",
    "kl_inv_gamma",
    "kl_wishart",
    "log_dirichlet_density",
    "log_dirichlet_draws",
    "log_multigamma",
    "optimize_symmetric_prior",
    "student_t_log_pdf",
    "upper_cholesky_of_inverse",
    "wishart_expected_log_det",
]


# above this, lgamma(x + a) - lgamma(x) is taken from Stirling's series: the difference of
# two numbers of size x log x loses log10(x log x) digits (all of them near x = 1e16)
_STIRLING_FROM = 1e3


def log_sum_exp(values):
    """``log sum_i exp(values_i)`` of a 1-D array, in float64 without overflow (a float; a
    fraction of scipy's ``logsumexp``'s time on the few values of a prior grid)."""
    largest = float(np.max(values))
    if not np.isfinite(largest):
        return largest
    return largest + float(np.log(np.sum(np.exp(values - largest))))


def log_gamma_ratio(x, a):
    """``log Gamma(x + a) - log Gamma(x)`` for ``x > 0``, ``a >= 0``, without cancellation.

    For ``x > 1e3`` Stirling's series, ``(x - 1/2) log1p(a/x) + a log(x + a) - a
    + 1/(12 (x + a)) - 1/(12 x)``, whose truncation error is below ``a / (120 x^4)``; below it
    the difference of ``gammaln``.
    """
    x, a = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(a, dtype=float))
    large = x > _STIRLING_FROM
    safe_x = np.where(large, x, _STIRLING_FROM + 1.0)
    series = ((safe_x - 0.5) * np.log1p(a / safe_x) + a * np.log(safe_x + a) - a
              + 1.0 / (12.0 * (safe_x + a)) - 1.0 / (12.0 * safe_x))
    direct = gammaln(np.where(large, 1.0, x) + a) - gammaln(np.where(large, 1.0, x))
    result = np.where(large, series, direct)
    return result if result.ndim else float(result)


def inv_gamma_expectations(shape, scale):
    """Return ``E[1/sigma2]`` and ``E[log(1/sigma2)]`` under ``InvGamma(shape, scale)``.

    ``1/sigma2 ~ Gamma(shape, rate=scale)``, so the two expectations are
    ``shape/scale`` and ``digamma(shape) - log(scale)`` (the noise block of Yang, Pati &
    Bhattacharya 2020, Cor. 4.1).
    """
    return shape / scale, digamma(shape) - np.log(scale)


def inv_gamma_mean(shape, scale):
    """Mean of ``InvGamma(shape, scale)``: ``scale/(shape-1)``, ``inf`` when ``shape <= 1``."""
    return scale / (shape - 1.0) if shape > 1.0 else np.inf


def kl_gamma(shape, rate, prior_shape, prior_rate):
    """``KL(Gamma(shape, rate) || Gamma(prior_shape, prior_rate))`` (rates, not scales)::

        (a - a0) psi(a) - lnGamma(a) + lnGamma(a0) + a0 (log b - log b0) + a (b0 - b) / b
    """
    a, b, a0, b0 = shape, rate, prior_shape, prior_rate
    return (
        (a - a0) * digamma(a)
        - gammaln(a)
        + gammaln(a0)
        + a0 * (np.log(b) - np.log(b0))
        + a * (b0 - b) / b
    )


def kl_inv_gamma(shape, scale, prior_shape, prior_scale):
    """``KL(InvGamma(shape, scale) || InvGamma(prior_shape, prior_scale))``.

    The map ``x -> 1/x`` is a bijection, so this is the KL between the Gamma laws of the
    precision, whose rates are the inverse-gamma scales: :func:`kl_gamma`.
    """
    return kl_gamma(shape, scale, prior_shape, prior_scale)


def beta_expectations(a, b):
    """Return ``E[log pi]`` and ``E[log(1 - pi)]`` under ``Beta(a, b)``."""
    total = digamma(a + b)
    return digamma(a) - total, digamma(b) - total


def stick_breaking_expected_log(a, b):
    """``E[log pi_k]`` for stick-breaking weights ``pi_k = v_k prod_{j<k} (1 - v_j)`` with
    independent ``v_k ~ Beta(a_k, b_k)``: ``E[log v_k] + sum_{j<k} E[log(1 - v_j)]``
    (Blei & Jordan 2006, eq. 17)."""
    log_v, log_rest = beta_expectations(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    return log_v + np.concatenate(([0.0], np.cumsum(log_rest)[:-1]))


def stick_breaking_mean(a, b):
    """``E[pi_k] = E[v_k] prod_{j<k} (1 - E[v_j])`` for independent ``v_k ~ Beta(a_k, b_k)``."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    stick = a / (a + b)
    return stick * np.concatenate(([1.0], np.cumprod(1.0 - stick)[:-1]))


def kl_beta(a, b, prior_a, prior_b):
    """``KL(Beta(a, b) || Beta(prior_a, prior_b))``.

    ``ln B(a0, b0) - ln B(a, b) + (a - a0) psi(a) + (b - b0) psi(b)
    + (a0 - a + b0 - b) psi(a + b)``.
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


def dirichlet_expected_log(concentration):
    """``E[log pi_k] = psi(a_k) - psi(sum_l a_l)`` under ``Dirichlet(a)``.

    ``concentration`` may hold one Dirichlet per row (the sum runs over the last axis).
    """
    concentration = np.asarray(concentration, dtype=float)
    return digamma(concentration) - digamma(np.sum(concentration, axis=-1, keepdims=True))


def log_dirichlet_density(log_weights, concentration):
    """``log Dirichlet(pi | a)`` from the logs of ``pi``, one density per row of the last
    axis (``a`` may hold one Dirichlet per row, broadcasting against the draws)."""
    concentration = np.asarray(concentration, dtype=float)
    return (np.sum((concentration - 1.0) * log_weights, axis=-1)
            + gammaln(concentration.sum(axis=-1)) - gammaln(concentration).sum(axis=-1))


def log_dirichlet_draws(concentration, n_draws, rng):
    """``log pi`` of ``n_draws`` draws of ``Dirichlet(a)`` (shape ``(n_draws, *a.shape)``;
    ``a`` may hold one Dirichlet per row), on the log scale throughout: the logs of
    ``Gamma(a_k)`` draws as ``log Gamma(a_k + 1) + log(U) / a_k`` (Marsaglia & Tsang 2000,
    Sec. 6), normalised over the last axis, so that a concentration of 0.001 gives finite
    logs where the weights themselves underflow to 0."""
    concentration = np.asarray(concentration, dtype=float)
    shape = (n_draws, *concentration.shape)
    logs = (np.log(rng.gamma(concentration + 1.0, size=shape))
            + np.log(rng.random_sample(shape)) / concentration)
    return logs - logsumexp(logs, axis=-1, keepdims=True)


def kl_dirichlet(concentration, prior_concentration):
    """``KL(Dirichlet(a) || Dirichlet(a0))``::

        lnGamma(sum a) - sum lnGamma(a) - lnGamma(sum a0) + sum lnGamma(a0)
        + sum (a - a0) (psi(a) - psi(sum a))

    With a stack of Dirichlets (one per row of ``a``; ``a0`` broadcasts) the result has one
    KL per row.
    """
    a = np.asarray(concentration, dtype=float)
    a0 = np.broadcast_to(np.asarray(prior_concentration, dtype=float), a.shape)
    return (
        gammaln(np.sum(a, axis=-1)) - np.sum(gammaln(a), axis=-1)
        - gammaln(np.sum(a0, axis=-1)) + np.sum(gammaln(a0), axis=-1)
        + np.sum((a - a0) * dirichlet_expected_log(a), axis=-1)
    )


def wishart_expected_log_det(dof, log_det_inv_scale, n_features):
    """``E[log |Lambda|]`` under the Wishart with ``dof`` degrees of freedom and scale matrix
    ``W = Psi^{-1}``, given ``log |Psi|`` (Bishop, PRML eq. B.81)::

        sum_{i=0}^{p-1} psi((dof - i) / 2) + p log 2 - log |Psi|

    ``dof`` and ``log_det_inv_scale`` broadcast (one value per mixture component).
    """
    dof = np.asarray(dof, dtype=float)
    shifts = np.arange(n_features)
    return (np.sum(digamma(0.5 * (dof[..., None] - shifts)), axis=-1)
            + n_features * np.log(2.0) - log_det_inv_scale)


def log_multigamma(a, p):
    """``lnGamma_p(a) = p (p - 1)/4 log pi + sum_{i<p} lnGamma(a - i/2)``, broadcasting over
    ``a``."""
    a = np.asarray(a, dtype=float)
    return 0.25 * p * (p - 1) * np.log(np.pi) + np.sum(gammaln(a[..., None] - 0.5 * np.arange(p)),
                                                       axis=-1)


def kl_wishart(inv_scale, dof, prior_inv_scale, prior_dof):
    """``KL(Wishart(Psi^{-1}, nu) || Wishart(Psi0^{-1}, nu0))`` for ``p x p`` matrices.

    With the scale matrices written through their inverses ``Psi`` (the form the conjugate
    update produces)::

        (nu0/2)(log|Psi| - log|Psi0|) + ((nu - nu0)/2) sum_{i<p} psi((nu - i)/2)
        - lnGamma_p(nu/2) + lnGamma_p(nu0/2) + (nu/2)(tr(Psi0 Psi^{-1}) - p)

    For ``p = 1`` this is :func:`kl_gamma` of ``Gamma(nu/2, rate=Psi/2)``. ``inv_scale``
    may hold a stack of matrices (..., p, p) with ``dof`` of shape (...); the result then
    has shape (...).
    """
    p = inv_scale.shape[-1]
    dof = np.asarray(dof, dtype=float)
    chol = np.linalg.cholesky(inv_scale)
    log_det = 2.0 * np.sum(np.log(np.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
    log_det_prior = np.linalg.slogdet(prior_inv_scale)[1]
    trace = np.trace(np.linalg.solve(inv_scale, np.broadcast_to(prior_inv_scale,
                                                                inv_scale.shape)),
                     axis1=-2, axis2=-1)
    return (
        0.5 * prior_dof * (log_det - log_det_prior)
        + 0.5 * (dof - prior_dof) * np.sum(digamma(0.5 * (dof[..., None] - np.arange(p))),
                                           axis=-1)
        - log_multigamma(0.5 * dof, p) + log_multigamma(0.5 * prior_dof, p)
        + 0.5 * dof * (trace - p)
    )


def bisect_quantile(cdf, p, low, high, tolerance, max_iter=200):
    """Bracket the ``p``-quantile of a distribution function, elementwise: bisect
    ``[low, high]`` (arrays) on ``cdf(x) < p`` until every bracket is at most ``tolerance``
    wide (an array or a number) or ``max_iter`` halvings. Returns the final ``(low,
    high)``; the quantile is ``high`` (the smallest ``x`` with ``cdf(x) >= p``, for a cdf
    with atoms) or the midpoint (a continuous one)."""
    low, high = np.array(low, dtype=float), np.array(high, dtype=float)
    for _ in range(max_iter):
        middle = 0.5 * (low + high)
        below = cdf(middle) < p
        low, high = np.where(below, middle, low), np.where(below, high, middle)
        if np.all(high - low <= tolerance):
            break
    return low, high


def upper_cholesky_of_inverse(matrix):
    """Upper-triangular ``U`` with ``U U' = matrix^{-1}``, and ``log |matrix|``.

    ``matrix`` may be a stack (..., p, p) of symmetric positive definite matrices.
    """
    lower = np.linalg.cholesky(matrix)
    eye = np.broadcast_to(np.eye(matrix.shape[-1]), matrix.shape)
    inverse_lower = np.tril(np.linalg.solve(lower, eye))
    log_det = 2.0 * np.sum(np.log(np.diagonal(lower, axis1=-2, axis2=-1)), axis=-1)
    return np.swapaxes(inverse_lower, -1, -2), log_det


def student_t_log_pdf(maha, dof, dim, log_det_scale):
    """Log density of a ``dim``-variate Student-t with squared Mahalanobis distance ``maha``."""
    return (log_gamma_ratio(0.5 * dof, 0.5 * dim)
            - 0.5 * dim * np.log(dof * np.pi) - 0.5 * log_det_scale
            - 0.5 * (dof + dim) * np.log1p(maha / dof))


def optimize_symmetric_prior(current, sum_expected_log, n_groups, dim):
    """Empirical-Bayes value of a symmetric Dirichlet parameter (Minka 2000; Blei et al. 2003
    §5.3): the maximiser over ``c > 0`` of the concave

        n_groups (lnGamma(dim c) - dim lnGamma(c)) + (c - 1) sum_expected_log

    by safeguarded Newton steps.
    """
    if dim == 1:  # a Dirichlet over one category is a point mass: c does not enter
        return float(current)
    value = current
    for _ in range(100):
        gradient = n_groups * dim * (digamma(dim * value) - digamma(value)) + sum_expected_log
        hessian = n_groups * dim * (dim * polygamma(1, dim * value) - polygamma(1, value))
        step = gradient / hessian
        updated = value - step
        while updated <= 0:
            step /= 2
            updated = value - step
        if abs(updated - value) <= 1e-12 * value:
            return float(updated)
        value = updated
    return float(value)
