r"""Divergences between densities, in closed form and by Monte Carlo.

Two divergences measure the risk in Yang, Pati & Bhattacharya (2020, Theorems 3.1-3.2):

* the **squared Hellinger distance**, as in the paper,
  ``h^2(p, q) = \int (sqrt p - sqrt q)^2 = 2 (1 - BC(p, q))`` with the Bhattacharyya
  coefficient ``BC = \int sqrt(p q)``; it lies in [0, 2];
* the **Rényi divergence** of order ``a`` in (0, 1),
  ``D_a(p || q) = (1 / (a - 1)) log \int p^a q^(1-a)``. ``D_{1/2} = -2 log BC =
  -2 log(1 - h^2 / 2) >= h^2``.

Closed forms are given for (multivariate) normals and for categorical (Bernoulli)
distributions; for univariate normals, with ``s_a^2 = a s2^2 + (1 - a) s1^2``,

    D_a(N(m1, s1^2) || N(m2, s2^2)) = a (m1 - m2)^2 / (2 s_a^2)
                                      + (1 / (1 - a)) log(s_a / (s1^(1-a) s2^a))

(Gil, Alajaji & Linder 2013). The Monte-Carlo versions cover any pair of densities one can
evaluate, given draws from the first. :mod:`alphavb.risk` averages them over the fitted ``q``.
"""

import warnings

import numpy as np
from scipy.special import logsumexp
from sklearn.utils import check_random_state

from ._validation import (
    CallableValue,
    Integer,
    Options,
    Real,
    as_float_array,
    bad_parameter,
    caller_stacklevel,
    check_probabilities,
    validate_params,
)

__all__ = [
    "DIVERGENCES",
    "categorical_divergence",
    "hellinger_categorical",
    "hellinger_monte_carlo",
    "hellinger_mvn",
    "hellinger_normal",
    "log_ratio_divergence",
    "mixture_log_density",
    "normal_divergence",
    "renyi_categorical",
    "renyi_monte_carlo",
    "renyi_mvn",
    "renyi_normal",
]

# the divergences every function with a ``divergence`` argument offers
DIVERGENCES = ("hellinger", "renyi")


# the declared constraints shared by the public functions (alphavb._validation)
_ORDER = [Real(0.0, 1.0, closed="neither")]
_ORDER_HINT = {"order": "The Rényi order must lie in (0, 1)."}
_MONTE_CARLO = {"log_p": [CallableValue()], "log_q": [CallableValue()],
                "sample_p": [CallableValue()], "n_samples": [Integer(1, None)]}
_WHICH = {"divergence": [Options(*DIVERGENCES)], "order": _ORDER}


def _finite_array(owner, name, value):
    array = as_float_array(value)
    if array is None:
        raise bad_parameter(owner, name, "an array-like of numbers", value)
    if not np.all(np.isfinite(array)):
        raise bad_parameter(owner, name, "finite", "an array with NaN or inf")
    return array


def _normal_arguments(owner, mean1, var1, mean2, var2):
    """The four arguments as finite float arrays broadcast together; variances > 0."""
    names = ("mean1", "var1", "mean2", "var2")
    arrays = [_finite_array(owner, name, value)
              for name, value in zip(names, (mean1, var1, mean2, var2), strict=True)]
    for name, array in zip(names[1::2], arrays[1::2], strict=True):
        if np.any(array <= 0):
            raise bad_parameter(owner, name, "positive (a variance)",
                                 f"a minimum of {array.min():.3g}")
    try:
        return np.broadcast_arrays(*arrays)
    except ValueError:
        raise ValueError(f"{owner}: mean1, var1, mean2 and var2 must broadcast together; got "
                         f"shapes {[a.shape for a in arrays]}.") from None


def _warn_if_overflowed(owner, value):
    if np.any(np.isinf(value)):
        warnings.warn(f"{owner}: the divergence exceeds float64's range for some pairs (their "
                      "means are more than ~1e154 standard deviations apart) and is inf there.",
                      UserWarning, stacklevel=caller_stacklevel())
    return value


def _hellinger_from_renyi_half(renyi_half):
    """``h^2 = 2 (1 - BC)`` with ``BC = exp(-D_{1/2} / 2)``, accurate for small ``D``."""
    return -2.0 * np.expm1(-0.5 * renyi_half)


# ----------------------------------------------------------------------------- normals


@validate_params({"order": _ORDER}, _ORDER_HINT)
def renyi_normal(mean1, var1, mean2, var2, order=0.5):
    """Rényi divergence ``D_a(N(mean1, var1) || N(mean2, var2))`` of univariate normals.

    With ``s_a^2 = a var2 + (1 - a) var1`` (Gil, Alajaji & Linder 2013),

        D_a = a (mean1 - mean2)^2 / (2 s_a^2) + (1 / (1 - a)) log(s_a / (s1^(1-a) s2^a)).

    Parameters
    ----------
    mean1, var1, mean2, var2 : array-like, broadcast together
        Means and (positive) variances.
    order : float in (0, 1), default=0.5

    Returns
    -------
    ndarray (or float) of the broadcast shape
    """
    a = float(order)
    mean1, var1, mean2, var2 = _normal_arguments("renyi_normal", mean1, var1, mean2, var2)
    return _warn_if_overflowed("renyi_normal", _renyi_normal(mean1, var1, mean2, var2, a))


def _renyi_normal(mean1, var1, mean2, var2, a):
    var_a = a * var2 + (1.0 - a) * var1
    log_ratio = 0.5 * (np.log(var_a) - (1.0 - a) * np.log(var1) - a * np.log(var2))
    with np.errstate(over="ignore"):
        return a * (mean1 - mean2) ** 2 / (2.0 * var_a) + log_ratio / (1.0 - a)


def hellinger_normal(mean1, var1, mean2, var2):
    """Squared Hellinger distance ``h^2 = 2 (1 - BC)`` between univariate normals.

    ``BC = sqrt(2 s1 s2 / (s1^2 + s2^2)) exp(-(mean1 - mean2)^2 / (4 (s1^2 + s2^2)))``,
    i.e. ``exp(-D_{1/2} / 2)`` (:func:`renyi_normal` at order 1/2).

    Returns
    -------
    ndarray (or float) of the broadcast shape, in [0, 2]
    """
    arguments = _normal_arguments("hellinger_normal", mean1, var1, mean2, var2)
    return _hellinger_from_renyi_half(_renyi_normal(*arguments, 0.5))


@validate_params({"order": _ORDER}, _ORDER_HINT)
def renyi_mvn(mean1, cov1, mean2, cov2, order=0.5):
    """Rényi divergence ``D_a(N(mean1, cov1) || N(mean2, cov2))`` of multivariate normals.

    With ``S_a = a cov2 + (1 - a) cov1`` and ``delta = mean1 - mean2``::

        D_a = (a/2) delta' S_a^{-1} delta
              + (1 / (2 (1 - a))) log(|S_a| / (|cov1|^(1-a) |cov2|^a)),

    which for one dimension is :func:`renyi_normal`.

    Parameters
    ----------
    mean1, mean2 : array-like of shape (..., p)
    cov1, cov2 : array-like of shape (..., p, p), symmetric positive definite
    order : float in (0, 1), default=0.5

    Returns
    -------
    ndarray of the broadcast batch shape (a float for single pairs)
    """
    a = float(order)
    return _warn_if_overflowed("renyi_mvn", _renyi_mvn(
        *_mvn_arguments("renyi_mvn", mean1, cov1, mean2, cov2), a))


def _mvn_arguments(owner, mean1, cov1, mean2, cov2):
    """Finite means of shape (..., p) and symmetric positive definite covariances."""
    mean1, mean2 = (_finite_array(owner, name, value)
                    for name, value in (("mean1", mean1), ("mean2", mean2)))
    cov1, cov2 = (_finite_array(owner, name, value)
                  for name, value in (("cov1", cov1), ("cov2", cov2)))
    if (mean1.ndim == 0 or mean2.ndim == 0 or cov1.shape[-2:] != (mean1.shape[-1],) * 2
            or cov2.shape[-2:] != (mean2.shape[-1],) * 2):
        raise ValueError(f"{owner} needs covariances of shape (..., p, p) for means of shape "
                         f"(..., p); got means {mean1.shape}, {mean2.shape} and covariances "
                         f"{cov1.shape}, {cov2.shape}.")
    for name, cov in (("cov1", cov1), ("cov2", cov2)):
        if not np.allclose(cov, np.swapaxes(cov, -1, -2), rtol=1e-10, atol=1e-12):
            raise bad_parameter(owner, name, "symmetric (a covariance)", "an asymmetric "
                                 "matrix", "Symmetrize it, e.g. (C + C.T) / 2.")
        if np.any(np.linalg.eigvalsh(cov) <= 0):
            raise bad_parameter(owner, name, "positive definite (a covariance)",
                                 "a matrix with an eigenvalue <= 0")
    return mean1, cov1, mean2, cov2


def _renyi_mvn(mean1, cov1, mean2, cov2, a):
    cov_a = a * cov2 + (1.0 - a) * cov1
    delta = mean1 - mean2
    chol = np.linalg.cholesky(cov_a)
    white = np.linalg.solve(chol, delta[..., None])[..., 0]
    log_det = [np.linalg.slogdet(c)[1] for c in (cov_a, cov1, cov2)]
    with np.errstate(over="ignore"):
        value = (0.5 * a * np.sum(white**2, axis=-1)
                 + (log_det[0] - (1.0 - a) * log_det[1] - a * log_det[2]) / (2.0 * (1.0 - a)))
    return value[()] if np.ndim(value) == 0 else value


def hellinger_mvn(mean1, cov1, mean2, cov2):
    """Squared Hellinger distance between multivariate normals, ``2 (1 - exp(-D_{1/2}/2))``
    with ``D_{1/2}`` from :func:`renyi_mvn`."""
    arguments = _mvn_arguments("hellinger_mvn", mean1, cov1, mean2, cov2)
    return _hellinger_from_renyi_half(_renyi_mvn(*arguments, 0.5))


# ------------------------------------------------------------------------- categorical


def hellinger_categorical(p, q):
    """Squared Hellinger distance ``sum_v (sqrt p_v - sqrt q_v)^2`` between categorical
    distributions along the last axis (a Bernoulli is ``[1 - p, p]``).

    Returns
    -------
    ndarray of the broadcast batch shape (a float for single pairs), in [0, 2]
    """
    p = check_probabilities("hellinger_categorical", "p", p)
    q = check_probabilities("hellinger_categorical", "q", q)
    _check_categories("hellinger_categorical", p, q)
    return _hellinger_categorical(p, q)[()]


@validate_params({"order": _ORDER}, _ORDER_HINT)
def renyi_categorical(p, q, order=0.5):
    """Rényi divergence ``(1/(a-1)) log sum_v p_v^a q_v^(1-a)`` between categorical
    distributions along the last axis (computed in logs; ``0^a = 0``)."""
    a = float(order)
    p = check_probabilities("renyi_categorical", "p", p)
    q = check_probabilities("renyi_categorical", "q", q)
    _check_categories("renyi_categorical", p, q)
    return _renyi_categorical(p, q, a)[()]


def _check_categories(owner, p, q):
    """``p`` and ``q`` over the same categories, with batch shapes that broadcast."""
    try:
        np.broadcast_shapes(p.shape, q.shape)
        same = p.shape[-1] == q.shape[-1]
    except ValueError:
        same = False
    if not same:
        raise bad_parameter(owner, "q", f"probabilities over the {p.shape[-1]} categories of p "
                            "(the same last axis, batch shapes that broadcast)",
                            f"an array of shape {q.shape} (p: {p.shape})")


def _hellinger_categorical(p, q):
    """:func:`hellinger_categorical` without the input checks (for internal loops)."""
    return np.sum((np.sqrt(p) - np.sqrt(q)) ** 2, axis=-1)


def _renyi_categorical(p, q, a):
    """:func:`renyi_categorical` without the input checks (for internal loops)."""
    p, q = np.broadcast_arrays(p, q)
    both = (p > 0) & (q > 0)
    with np.errstate(divide="ignore"):
        terms = np.where(both, a * np.log(p) + (1.0 - a) * np.log(q), -np.inf)
    return logsumexp(terms, axis=-1) / (a - 1.0)


# ------------------------------------------------------------------------- Monte Carlo


def _log_ratio_draws(owner, log_p, log_q, sample_p, n_samples, random_state):
    """``log q(x) - log p(x)`` at ``n_samples`` draws ``x ~ p``."""
    draws = sample_p(n_samples, check_random_state(random_state))
    log_p_values = np.asarray(log_p(draws), dtype=float)
    log_q_values = np.asarray(log_q(draws), dtype=float)
    for name, values in (("log_p", log_p_values), ("log_q", log_q_values)):
        if values.shape != (n_samples,) or np.any(np.isnan(values)):
            raise ValueError(f"{owner}: {name} must map the {n_samples} draws of sample_p to "
                             f"{n_samples} log densities without NaN; got shape "
                             f"{values.shape}.")
    # a draw of p has p(x) > 0 and finite; q may be 0 there (log_q = -inf), not infinite
    bad = [f"{name} is {value} at a draw of sample_p ({why})" for name, value, why, mask in (
        ("log_p", "-inf", "sample_p drew where p has no mass: log_p and sample_p disagree",
         np.isneginf(log_p_values)),
        ("log_p", "+inf", "a density is finite", np.isposinf(log_p_values)),
        ("log_q", "+inf", "a density is finite", np.isposinf(log_q_values))) if mask.any()]
    if bad:
        raise ValueError(f"{owner}: {bad[0]}; the divergence would be a meaningless "
                         "infinity or NaN. Check log_p, log_q and sample_p.")
    return log_q_values - log_p_values


@validate_params(_MONTE_CARLO)
def hellinger_monte_carlo(log_p, log_q, sample_p, n_samples=10_000, random_state=None):
    """Monte-Carlo squared Hellinger distance between two densities.

    Uses ``h^2(p, q) = E_p[(sqrt(q(x)/p(x)) - 1)^2]`` (exact wherever ``q`` puts no mass
    outside the support of ``p``): every term is non-negative, and the estimator's variance
    vanishes as ``q -> p``.

    Parameters
    ----------
    log_p, log_q : callable
        Map an array of draws to their log densities (shape (n_samples,)).
    sample_p : callable
        ``sample_p(n, rng)`` returns ``n`` draws from ``p`` (``rng`` a ``RandomState``).
    n_samples : int, default=10000
    random_state : int, RandomState or None

    Returns
    -------
    estimate : float
    standard_error : float
    """
    log_ratio = _log_ratio_draws("hellinger_monte_carlo", log_p, log_q, sample_p, n_samples,
                                 random_state)
    terms = _hellinger_terms(log_ratio)
    return float(terms.mean()), float(terms.std(ddof=1) / np.sqrt(n_samples))


@validate_params({**_MONTE_CARLO, "order": _ORDER}, _ORDER_HINT)
def renyi_monte_carlo(log_p, log_q, sample_p, order=0.5, n_samples=10_000, random_state=None):
    """Monte-Carlo Rényi divergence ``(1/(a-1)) log E_p[(q(x)/p(x))^(1-a)]`` (log-sum-exp).

    Parameters are those of :func:`hellinger_monte_carlo`, with ``order`` in (0, 1).

    Returns
    -------
    float (biased by O(1/n_samples), as the log of an average)
    """
    a = float(order)
    log_ratio = _log_ratio_draws("renyi_monte_carlo", log_p, log_q, sample_p, n_samples,
                                 random_state)
    return float(_renyi_from_log_ratios(log_ratio, a))


def _hellinger_terms(log_ratio):
    """``(sqrt(q/p) - 1)^2`` at draws from ``p``, given ``log q - log p``: their mean is the
    Monte-Carlo squared Hellinger distance."""
    return np.expm1(0.5 * log_ratio) ** 2


def _renyi_from_log_ratios(log_ratio, a):
    """``(1/(a-1)) log mean((q/p)^(1-a))`` over the last axis of ``log q - log p`` at draws
    from ``p`` (log-sum-exp)."""
    return (logsumexp((1.0 - a) * log_ratio, axis=-1) - np.log(log_ratio.shape[-1])) / (a - 1.0)


# ------------------------------------------------ one of the two, by name (alphavb.risk)


@validate_params(_WHICH, _ORDER_HINT)
def normal_divergence(mean1, var1, mean2, var2, divergence="hellinger", order=0.5):
    """:func:`hellinger_normal` or :func:`renyi_normal` (of ``order``), by ``divergence``.

    Returns
    -------
    ndarray (or float) of the broadcast shape
    """
    if divergence == "hellinger":
        return hellinger_normal(mean1, var1, mean2, var2)
    return renyi_normal(mean1, var1, mean2, var2, order)


@validate_params(_WHICH, _ORDER_HINT)
def categorical_divergence(p, q, divergence="hellinger", order=0.5, check_input=True):
    """:func:`hellinger_categorical` or :func:`renyi_categorical` (of ``order``), by
    ``divergence``, along the last axis.

    ``check_input=False`` skips the checks of ``p`` and ``q`` (probabilities summing to 1
    along the last axis), for distributions the caller has built itself, in a loop.

    Returns
    -------
    ndarray of the broadcast batch shape (a float for single pairs)
    """
    if check_input:
        owner = "categorical_divergence"
        p, q = check_probabilities(owner, "p", p), check_probabilities(owner, "q", q)
    if divergence == "hellinger":
        return _hellinger_categorical(p, q)[()]
    return _renyi_categorical(p, q, float(order))[()]


@validate_params(_WHICH, _ORDER_HINT)
def log_ratio_divergence(log_ratio, divergence="hellinger", order=0.5):
    """The Monte-Carlo divergence from ``log q(x) - log p(x)`` at draws ``x ~ p``.

    Each row (the last axis) is one estimate of the divergence of ``q`` from ``p``
    (``mean((sqrt(q/p) - 1)^2)`` for Hellinger, as :func:`hellinger_monte_carlo`;
    ``(1/(a-1)) log mean((q/p)^(1-a))`` for Rényi, as :func:`renyi_monte_carlo`); the
    estimates of all rows are averaged, e.g. over draws of ``q`` from a posterior.

    Parameters
    ----------
    log_ratio : array-like of shape (..., n_points)
    divergence : {"hellinger", "renyi"}, default="hellinger"
    order : float in (0, 1), default=0.5

    Returns
    -------
    float
    """
    log_ratio = np.asarray(log_ratio, dtype=float)
    if log_ratio.ndim == 0 or log_ratio.shape[-1] == 0 or np.any(np.isnan(log_ratio)):
        raise bad_parameter("log_ratio_divergence", "log_ratio", "an array of shape (..., "
                            "n_points) with n_points >= 1 and no NaN", f"shape {log_ratio.shape}")
    if divergence == "hellinger":
        return float(np.mean(_hellinger_terms(log_ratio)))
    return float(np.mean(_renyi_from_log_ratios(log_ratio, float(order))))


def mixture_log_density(points, weights, means, covariances):
    """Log density of a batch of Gaussian mixtures at ``points``.

    Parameters
    ----------
    points : ndarray of shape (m, p)
    weights : ndarray of shape (S, K)
        Each mixture's weights (a zero weight drops its component).
    means : ndarray of shape (S, K, p)
    covariances : ndarray of shape (S, K, p, p)
        Positive definite.

    Returns
    -------
    ndarray of shape (S, m)
    """
    chol = np.linalg.cholesky(covariances)                           # (S, K, p, p)
    diff = points[None, None, :, :] - means[:, :, None, :]           # (S, K, m, p)
    white = np.linalg.solve(chol[:, :, None], diff[..., None])[..., 0]
    log_det = 2.0 * np.sum(np.log(np.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)  # (S, K)
    p = points.shape[1]
    log_component = -0.5 * (np.sum(white**2, axis=-1) + log_det[..., None]
                            + p * np.log(2 * np.pi))
    with np.errstate(divide="ignore"):
        return logsumexp(log_component + np.log(weights)[..., None], axis=1)
