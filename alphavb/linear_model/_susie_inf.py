"""The infinitesimal background of SuSiE-inf on the alpha-VB objective: the math.

Model (Cui et al. 2024, Nat. Genet. 56:162, eq. 1; susieR 0.16.5's ``unmappable_effects =
"inf"``)::

    y = Z b + Z theta + e,   theta ~ N(0, tau2 I_p),   e ~ N(0, sigma2 I_n),

``b`` the sum of single effects (:mod:`alphavb.linear_model._susie`), ``theta`` a small
effect on every variable. alpha-VB raises the likelihood to the temperature ``alpha``; the
fractional posterior of ``(b, theta)`` integrates ``theta`` exactly, since

    int N(y | Z b + Z theta, sigma2 I)^alpha N(theta | 0, tau2 I) dtheta
        = C_alpha N(y | Z b, Sigma_alpha),   Sigma_alpha = s I + tau2 Z Z',   s = sigma2 / alpha,
    log C_alpha = -(n alpha / 2) log(2 pi sigma2) + (n / 2) log(2 pi s).

With ``q(b, theta) = prod_l q_l(b_l) p_alpha(theta | b, y)`` (``theta``'s exact conditional)
the objective is

    F = log C_alpha - 1/2 log |2 pi Sigma_alpha| - 1/2 E_q[(y - Z b)' Omega (y - Z b)]
        - sum_l KL(q_l || prior_l),   Omega = Sigma_alpha^{-1},

which is alpha-SuSiE's when ``tau2 = 0`` (``theta`` is tempered as ``b`` is: the noise
variance is divided by ``alpha``, ``tau2`` is not). Each ``q_l`` maximising ``F`` is the
single-effect regression of the residual ``r_l = y - Z E[b_{-l}]`` under the covariance
``Sigma_alpha``: ``betahat_j = z_j' Omega r_l / z_j' Omega z_j``, ``shat2_j = 1 / z_j' Omega
z_j`` (Cui et al.'s ``XtOmegar`` and ``diag(XtOmegaX)``), i.e. the SER of the sufficient
statistics ``Z' Omega Z``, ``Z' Omega y`` with residual variance 1.

Everything is read off the eigendecomposition ``Z'Z = W diag(lambda) W'`` (rank ``r``; ``W``
is ``p x r``), with ``w_k = 1 / (s + tau2 lambda_k)``, ``c = W' Z' y`` and ``U = W' E[b]``:

    Z' Omega r = W diag(w) (c - lambda U),   diag(Z' Omega Z) = (W o W)(lambda w),
    E[(y - Z b)' Omega (y - Z b)] = (E||y - Z b||^2 - tau2 sum_k w_k m_k) / s,
    m_k = E[(c - lambda W' b)_k^2] = (c - lambda U)_k^2 + lambda_k^2 Var_q[(W' b)_k],
    log |Sigma_alpha| = n log s + sum_k log(1 + tau2 lambda_k / s),

(the Woodbury identity; ``Z'(y - Z b)`` lies in the span of ``W``). ``theta``'s posterior
mean is ``tau2 Z' Omega (y - Z E[b])`` (Cui et al.'s ``alpha``).

``(sigma2, tau2)`` are estimated after each sweep, as SuSiE-inf does, by the method of
moments (Cui et al., Methods: ``E||y - Z b||^2 = n sigma2 + tau2 tr(Z'Z)`` and ``E||Z'(y -
Z b)||^2 = sigma2 tr(Z'Z) + tau2 tr((Z'Z)^2)``, solved; when a solution is not positive,
``tau2 = 0`` and ``sigma2 = E||y - Z b||^2 / n``), untempered (the moments are the data's),
or by maximising ``F`` (``"mle"``, where ``F`` never falls).
"""

from typing import NamedTuple

import numpy as np

from .._special import LOG_2PI
from ._susie import held_within, single_effect_kl, single_effect_regression

# eigenvalues of Z'Z at or below this share of the largest (times p) are taken as 0
EIGENVALUE_TOLERANCE = np.finfo(float).eps
# a Z'Z whose pivoted Cholesky factor has at most this share of p columns is decomposed
# through the factor (O(p^2 r)), a larger one by a full eigendecomposition (O(p^3)); at p =
# 1,000 the factor's way took 0.62 of the full one's time at rank 449, 0.92 at 550
LOW_RANK_SHARE = 0.5
# the factor is taken for Z'Z when it reproduces Z'Z on PROBES random vectors to within
# this many times p eps max_j (Z'Z)_jj (gram_eigen)
RECONSTRUCTION_TOLERANCE = 100.0
PROBES = 4


class Eigenstructure(NamedTuple):
    """``Z'Z = W diag(lambda) W'`` on its range: ``values`` (r,), ``vectors`` ``W`` (p, r),
    ``projected`` ``c = W' Z'y`` (r,), ``trace`` ``tr(Z'Z)`` and ``trace_squares``
    ``tr((Z'Z)^2)``, and the data's ``Z'y`` (p,), ``y'y`` and ``n``."""

    values: np.ndarray
    vectors: np.ndarray
    projected: np.ndarray
    trace: float
    trace_squares: float
    zty: np.ndarray
    yty: float
    n_samples: float


def eigenstructure(data):
    """The :class:`Eigenstructure` of an :class:`~alphavb.linear_model._susie.IBSSData`: from
    the rows ``Z`` (the smaller of ``Z Z'`` and ``Z'Z`` is decomposed) or from ``Z'Z``. The
    decomposition of the last design is kept (:func:`design_eigen`), so fits of other
    responses on the same variables (a bootstrap, a selection of alpha) decompose once."""
    if data.gram is None:
        design = data.Z
        zty, yty = data.Z.T @ data.y, float(data.y @ data.y)
    else:
        design = data.gram if data.gram_columns is None else (
            data.gram_columns[:, None] * data.gram * data.gram_columns)
        zty, yty = data.zty, float(data.yty)
    values, vectors = design_eigen(design, is_gram=data.gram is not None)
    return Eigenstructure(values, vectors, vectors.T @ zty, float(values.sum()),
                          float(np.sum(values**2)), zty, yty, float(data.n_samples))


_LAST_DESIGN = {}  # the last design's digest and its decomposition


def design_key(design, is_gram):
    """A digest of a design's numbers (rows, or ``Z'Z`` when ``is_gram``), by which the
    last decomposition (and SuSiE-ash's correlation) is reused."""
    import hashlib

    contiguous = np.ascontiguousarray(design)
    return (is_gram, contiguous.shape, hashlib.blake2b(memoryview(contiguous).cast("B"),
                                                       digest_size=16).hexdigest())


def design_eigen(design, is_gram=False):
    """``(lambda, W)``: the eigenvalues of ``Z'Z`` above rounding and their eigenvectors,
    from the rows ``Z`` or (``is_gram``) from ``Z'Z``; the last result is reused for the same
    numbers (a digest of the array)."""
    key = design_key(design, is_gram)
    if _LAST_DESIGN.get("key") == key:
        return _LAST_DESIGN["value"]
    if not is_gram and design.shape[0] < design.shape[1]:
        # W = Z' U diag(lambda^-1/2) from Z Z' = U diag(lambda) U'
        values, left = np.linalg.eigh(design @ design.T)
        kept = values > EIGENVALUE_TOLERANCE * max(design.shape) * max(values.max(), 0.0)
        values, left = values[kept], left[:, kept]
        vectors = (design.T @ left) / np.sqrt(values)
    elif is_gram:
        values, vectors = gram_eigen(design)
    else:
        values, vectors = np.linalg.eigh(design.T @ design)
    kept = values > EIGENVALUE_TOLERANCE * vectors.shape[0] * max(values.max(), 0.0)
    value = (values[kept], np.ascontiguousarray(vectors[:, kept]))
    _LAST_DESIGN.clear()
    _LAST_DESIGN.update(key=key, value=value)
    return value


def gram_eigen(gram):
    """``(lambda, W)`` of a positive semi-definite ``gram`` (p, p), ascending as
    ``np.linalg.eigh``'s. A low-rank one (an LD matrix from a panel of fewer individuals
    than variables, or from the rows of a summary) is decomposed through its pivoted
    Cholesky factor ``gram = F F'`` (LAPACK's ``dpstrf``, stopped at a remaining diagonal of
    ``EIGENVALUE_TOLERANCE p max_j gram_jj``): the left singular vectors of ``F`` (p, r) are
    the eigenvectors of the ``r`` eigenvalues above rounding, in ``O(p^2 r)`` instead of the
    full decomposition's ``O(p^3)`` (``benchmarks/bench_low_rank_ld.py``).

    The factor is used only where it is ``gram`` to rounding: at most ``LOW_RANK_SHARE p``
    columns, and ``||(gram - F F') v||`` within ``RECONSTRUCTION_TOLERANCE`` of ``p eps
    max_j gram_jj ||v||`` on ``PROBES`` random vectors. A ``gram`` low-rank only up to noise
    above rounding (an ``R`` kept in single precision, or perturbed) has noise eigenvalues
    above the tolerance that the factor would stop short of; it is decomposed in full, as
    before, so that a fit does not depend on which way it went."""
    from scipy.linalg import lapack

    gram = np.asarray(gram, dtype=float)
    p = gram.shape[0]
    largest = float(np.max(np.diagonal(gram), initial=0.0))
    if p and largest > 0.0:
        factor, pivots, rank, info = lapack.dpstrf(
            gram, tol=EIGENVALUE_TOLERANCE * p * largest, lower=1)
        if info >= 0 and 0 < rank <= LOW_RANK_SHARE * p:
            columns = np.zeros((p, rank))
            columns[pivots - 1] = np.tril(factor[:, :rank])
            probes = np.random.default_rng(0).standard_normal((p, PROBES))
            misfit = np.linalg.norm(gram @ probes - columns @ (columns.T @ probes), axis=0)
            bound = (RECONSTRUCTION_TOLERANCE * p * np.finfo(float).eps * largest
                     * np.linalg.norm(probes, axis=0))
            if np.all(misfit <= bound):
                left, singular, _ = np.linalg.svd(columns, full_matrices=False)
                return singular[::-1] ** 2, left[:, ::-1]
    return np.linalg.eigh(gram)


class Moments(NamedTuple):
    """What ``q(b)`` gives the variance components: ``E||y - Z b||^2`` (``squares``), ``m``
    (r,) of the module docstring and ``U = W' E[b]`` (r,)."""

    squares: float
    projected_squares: np.ndarray
    coef_projected: np.ndarray


def residual_moments(eig, alpha, mean, second_moment):
    """:class:`Moments` of the residual ``y - Z b`` under ``q`` (SuSiE-inf's
    ``diag(V'MV)``, ``M = E[b b']``)."""
    W, values = eig.vectors, eig.values
    coef = np.sum(alpha * mean, axis=0)
    projected = W.T @ coef
    effects = (alpha * mean) @ W  # (L, r): W' E[b_l]
    # Var_q[(W'b)_k] = sum_l (sum_j W_jk^2 E[b_lj^2] - (W' E[b_l])_k^2)
    variance = (W**2).T @ np.sum(alpha * second_moment, axis=0) - np.sum(effects**2, axis=0)
    variance = np.maximum(variance, 0.0)
    residual = eig.projected - values * projected
    squares = (eig.yty - 2.0 * float(coef @ eig.zty) + float(np.sum(values * projected**2))
               + float(np.sum(values * variance)))
    return Moments(squares, residual**2 + values**2 * variance, projected)


def moment_estimates(eig, moments, estimate_infinitesimal=True, tau2=0.0):
    """SuSiE-inf's method of moments for ``(sigma2, tau2)`` (module docstring); with
    ``estimate_infinitesimal`` False, ``sigma2`` alone at the given ``tau2``."""
    n = eig.n_samples
    first, second = moments.squares, float(moments.projected_squares.sum())
    if not estimate_infinitesimal:
        return max((first - eig.trace * tau2) / n, 0.0), tau2
    determinant = n * eig.trace_squares - eig.trace**2
    if determinant > 0.0:
        sigma2 = (eig.trace_squares * first - eig.trace * second) / determinant
        tau2 = (n * second - eig.trace * first) / determinant
        if sigma2 > 0.0 and tau2 > 0.0:
            return float(sigma2), float(tau2)
    return first / n, 0.0


def collapsed_objective(eig, moments, sigma2, tau2, alpha, kl):
    """``F`` of the module docstring at ``(sigma2, tau2)``."""
    n, s = eig.n_samples, sigma2 / alpha
    ratio = tau2 * eig.values
    weights = 1.0 / (s + ratio)
    quadratic = (moments.squares - tau2 * float(weights @ moments.projected_squares)) / s
    return (-0.5 * n * alpha * (LOG_2PI + np.log(sigma2))
            - 0.5 * float(np.sum(np.log1p(ratio / s))) - 0.5 * quadratic - float(np.sum(kl)))


def likelihood_estimates(eig, moments, sigma2, tau2, alpha, estimate_infinitesimal=True,
                         sigma2_bounds=(0.0, None)):
    """The ``(sigma2, tau2)`` maximising ``F`` with ``q`` fixed (``"mle"``): L-BFGS-B on
    ``(log sigma2, tau2 >= 0)`` from the current values, kept when it is not better."""
    from scipy.optimize import minimize

    unit = eig.yty / eig.n_samples

    def negative(x):
        return -collapsed_objective(eig, moments, unit * np.exp(x[0]), unit * x[1], alpha,
                                    0.0)

    lower = np.log(max(sigma2_bounds[0], 1e-12 * unit) / unit)
    upper = None if sigma2_bounds[1] is None else np.log(sigma2_bounds[1] / unit)
    start = np.array([np.clip(np.log(sigma2 / unit), lower, upper if upper is not None
                              else np.inf), tau2 / unit])
    bounds = [(lower, upper), (0.0, None) if estimate_infinitesimal else (start[1], start[1])]
    found = minimize(negative, start, method="L-BFGS-B", bounds=bounds,
                     options={"ftol": 1e-15, "gtol": 1e-12})
    if found.fun <= negative(start):
        return float(unit * np.exp(found.x[0])), float(unit * found.x[1])
    return float(sigma2), float(tau2)


def updated_variances(eig, state, alpha, method="mom", residual_variance_bounds=(0.0, None),
                      estimate_infinitesimal=True):
    """``(sigma2, tau2)`` from ``q`` of ``state`` by ``method`` (``"mom"``, ``"mle"``),
    ``sigma2`` held within ``residual_variance_bounds``."""
    moments = residual_moments(eig, state.probabilities, state.mean, state.second_moment)
    sigma2, tau2 = state.residual_variance, state.infinitesimal_variance
    if method == "mle":
        return likelihood_estimates(eig, moments, sigma2, tau2, alpha, estimate_infinitesimal,
                                    residual_variance_bounds)
    sigma2, tau2 = moment_estimates(eig, moments, estimate_infinitesimal, tau2)
    return held_within(sigma2, residual_variance_bounds), tau2


class OmegaStatistics(NamedTuple):
    """``w = 1 / (s + tau2 lambda)`` (r,), ``lambda w`` and ``diag(Z' Omega Z)`` (p,) at one
    ``(sigma2, tau2, alpha)``."""

    weights: np.ndarray
    scaled: np.ndarray
    diagonal: np.ndarray


def omega_statistics(eig, sigma2, tau2, alpha):
    weights = 1.0 / (sigma2 / alpha + tau2 * eig.values)
    scaled = eig.values * weights
    return OmegaStatistics(weights, scaled, (eig.vectors**2) @ scaled)


def infinitesimal_sweep(data, eig, state, *, alpha, rule, estimate_residual_variance=True,
                        estimate_infinitesimal=True, method="mom",
                        residual_variance_bounds=(0.0, None)):
    """One sweep of alpha-SuSiE-inf: ``(sigma2, tau2)`` from the last sweep's ``q`` (not
    before the first sweep; ``method`` ``"mom"`` or ``"mle"``, ``sigma2`` held within its
    bounds), then each effect's SER under ``Omega`` (module docstring). ``state`` is an
    :class:`~alphavb.linear_model._susie.IBSSState` whose ``fit`` is ``W' E[b]`` (r,) and
    ``effect_fits`` ``W' E[b_l]`` (L, r), recomputed here from its effects. Returns the new
    state (its ``erss`` ``E||y - Z b||^2``) and ``F`` at the variances the sweep used."""
    sigma2, tau2 = state.residual_variance, state.infinitesimal_variance
    W = eig.vectors
    if state.erss is not None and (estimate_residual_variance or estimate_infinitesimal):
        sigma2, tau2 = updated_variances(eig, state, alpha, method, residual_variance_bounds,
                                         estimate_infinitesimal)
    omega = omega_statistics(eig, sigma2, tau2, alpha)
    probabilities, mean = state.probabilities.copy(), state.mean.copy()
    second_moment, prior_variance = state.second_moment.copy(), state.prior_variance.copy()
    kl, null_alpha = state.kl.copy(), state.null_alpha.copy()
    effect_fits = (probabilities * mean) @ W
    fit = effect_fits.sum(axis=0)
    whitened_y = omega.weights * eig.projected
    for effect in range(probabilities.shape[0]):
        fit -= effect_fits[effect]
        xtr = W @ (whitened_y - omega.scaled * fit)
        single = single_effect_regression(xtr, omega.diagonal, 1.0, prior_variance[effect],
                                          data.log_prior, rule=rule,
                                          log_null_prior=data.log_null_prior)
        probabilities[effect], mean[effect] = single.probabilities, single.mean
        second_moment[effect] = single.second_moment
        prior_variance[effect] = single.prior_variance
        null_alpha[effect] = single.null_probability
        kl[effect] = single_effect_kl(single, xtr, omega.diagonal, 1.0)
        effect_fits[effect] = W.T @ (single.probabilities * single.mean)
        fit += effect_fits[effect]
    moments = residual_moments(eig, probabilities, mean, second_moment)
    new = state._replace(probabilities=probabilities, mean=mean, second_moment=second_moment,
                         prior_variance=prior_variance, kl=kl, residual_variance=sigma2,
                         fit=fit, erss=moments.squares, effect_fits=effect_fits,
                         null_alpha=null_alpha, infinitesimal_variance=tau2)
    return new, collapsed_objective(eig, moments, sigma2, tau2, alpha, kl)


def infinitesimal_effects(eig, state, alpha):
    """``E[theta]``: ``tau2 Z' Omega (y - Z E[b])`` (p,)."""
    tau2 = state.infinitesimal_variance
    if tau2 == 0.0:
        return np.zeros(eig.vectors.shape[0])
    omega = omega_statistics(eig, state.residual_variance, tau2, alpha)
    projected = eig.vectors.T @ np.sum(state.probabilities * state.mean, axis=0)
    return tau2 * (eig.vectors @ (omega.weights * eig.projected - omega.scaled * projected))
