"""An LD matrix from another sample: the finite-reference and mismatch variance of SuSiE 2.0
(susieR 0.16.5's ``susie_rss(..., R_finite = B, R_mismatch = "eb")``; Sun et al.), on the
alpha-VB objective: the math.

On the z-score scale (``Z'Z = (n - 1) R``, ``R`` the reference's correlations), the fitted
signal ``(R b)_j`` that the single-effect regression of effect ``l`` subtracts is off by the
error of ``R``: a sample correlation of ``B`` individuals has ``Var((R^ b)_j) ~ ((R b)_j^2 +
b'R b) / B`` (Wishart), and a reference from another population adds a variance
``lambda`` of the same shape. So each variable's residual variance is inflated,

    tau_j^2 = sigma2 + (1 / B + lambda) s_j,   s_j = eta_j^2 + v,
    eta_j = (Z'Z b_{-l})_j / sqrt(n - 1),   v = max(b_{-l}' Z'Z b_{-l}, 0),

and the SER of effect ``l`` uses ``shat2_j = tau_j^2 / (alpha d_j)`` (tempered as the
residual variance is): only variables near fitted signal are inflated, none before an
effect is fitted. ``lambda`` (``ld_mismatch="eb"``) is estimated once per sweep, after the
effects, by maximum likelihood on the z-scale residual of the whole fit, ``r_j = (z~_j -
(Z'Z E[b])_j / sqrt(n - 1))`` with ``r_j ~ N(0, sigma2 + s_j / B + lambda s_j)`` (``s`` of
the whole fit), set to 0 when the likelihood at 0 is as high or the estimate is below a
tenth of its standard error at 0 (``1 / sqrt(sum_j (s_j / base_j)^2 / 2)``); the fit starts
with effect 1's SER at ``lambda = 0``, whose ``lambda`` is multiplied by the LD coherence of
that effect's variables (``a' (R o R) a`` over its variables with ``alpha_j >= 2 pi_j``,
renormalised), as 0.16.5 starts. ``B`` is ``reference_n_samples`` (infinite without: the
mismatch variance alone). The fit stops when neither the probabilities nor ``lambda`` move
by ``tol``.

Diagnostics after the fit (0.16.5's ``R_finite_diagnostics``): the share ``Q`` of the
residual's square on the eigenvectors of ``R`` whose eigenvalues are at most ``1e-3`` of the
largest (directions ``R`` says are empty; flagged above 0.1), and per credible set the
largest loss of log Bayes factor that the inflation causes at one of its variables (flagged
at ``log 20``).

:func:`ld_mismatch_diagnostic` is susieR's ``kriging_rss``: under the null ``z ~ N(0,
R_s)``, ``R_s = (1 - s) R + s I`` with ``s`` estimated by maximum likelihood, each ``z_j``
given the others is normal (its conditional mean and variance from the precision
``R_s^{-1}``); a ``z_j`` far from its conditional mean, whose sign flip is much likelier
under a scale mixture of that conditional (the log-likelihood ratio), points to an allele
coded the other way or an ``R`` that does not match the sample.
"""

from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize_scalar

from .._validation import bad_parameter
from ._susie_rss import EIGENVALUE_TOLERANCE, check_ld, check_n_samples, check_z, real_scalar
from ._susie_sources import summary_names

# a credible set whose variables lose this much log Bayes factor to the inflation is flagged
SENSITIVITY_THRESHOLD = np.log(20.0)
# Q above this flags the region (residual on directions R leaves empty)
ARTIFACT_THRESHOLD = 0.1
ARTIFACT_EIGENVALUE_SHARE = 1e-3


class MismatchModel(NamedTuple):
    """``reference_n_samples`` ``B`` (``inf``: the mismatch variance alone), whether
    ``lambda`` is estimated (``"eb"``) and ``n - 1``."""

    reference_n_samples: float
    estimate: bool
    n_minus_one: float


def signal_spread(fit, coef, n_minus_one):
    """``s_j = (Z'Z b)_j^2 / (n - 1) + max(b' Z'Z b, 0)`` from ``fit = Z'Z b``."""
    return fit**2 / n_minus_one + max(float(coef @ fit), 0.0)


def inflation(model, sigma2, mismatch_variance, fit_without, coef_without):
    """``tau_j^2 / sigma2`` (p,) for the SER whose other effects are ``coef_without`` (their
    ``Z'Z`` product ``fit_without``)."""
    spread = signal_spread(fit_without, coef_without, model.n_minus_one)
    return 1.0 + (1.0 / model.reference_n_samples + mismatch_variance) * spread / sigma2


def estimated_mismatch_variance(model, zty, fit, coef, sigma2):
    """``lambda`` by maximum likelihood on the fit's z-scale residual (module docstring)."""
    from scipy.optimize import minimize_scalar

    residual = (zty - fit) / np.sqrt(model.n_minus_one)
    spread = signal_spread(fit, coef, model.n_minus_one)
    keep = np.isfinite(residual) & np.isfinite(spread) & (spread > np.finfo(float).eps)
    if not keep.any() or not sigma2 > np.finfo(float).eps:
        return 0.0
    squares, spread = residual[keep] ** 2, spread[keep]
    base = sigma2 + spread / model.reference_n_samples
    excess = (squares - base) / spread
    excess = excess[np.isfinite(excess) & (excess > 0)]
    information = 0.5 * float(np.sum((spread / base) ** 2))
    boundary_error = np.sqrt(1.0 / information) if information > 0 else np.inf

    def negative_log_likelihood(value):
        total = base + value * spread
        return 0.5 * float(np.sum(np.log(total) + squares / total))

    upper = max(1.0, 100.0 / model.reference_n_samples,
                10.0 * float(excess.max()) if excess.size else 0.0)
    while upper < np.finfo(float).max / 10 and (negative_log_likelihood(upper)
                                                 < negative_log_likelihood(upper / 2)):
        upper *= 10.0
    found = minimize_scalar(negative_log_likelihood, bounds=(0.0, upper), method="bounded",
                            options={"xatol": 1e-8})
    if negative_log_likelihood(0.0) <= found.fun or found.x < 0.1 * boundary_error:
        return 0.0
    return float(found.x)


def ld_coherence(probabilities, prior_weights, correlations):
    """``a' (R o R) a`` over the variables with ``alpha_j >= 2 pi_j`` (``a`` their
    renormalised probabilities; ``correlations(variables)`` their ``R``), clipped to [0,
    1]; 1 when no variable qualifies."""
    prior = prior_weights / prior_weights.sum()
    keep = (probabilities > 0) & (probabilities >= 2.0 * prior)
    if not keep.any():
        return 1.0
    weights = probabilities[keep] / probabilities[keep].sum()
    R = correlations(np.flatnonzero(keep))
    return float(np.clip(weights @ (R * R) @ weights, 0.0, 1.0))


class MismatchDiagnostics(NamedTuple):
    """After a fit with ``ld_mismatch`` or ``reference_n_samples``: ``mismatch_variance``
    (``lambda``), ``effective_reference_size`` (``1 / (1 / B + lambda)``),
    ``artifact_share`` (``Q``) and ``artifact_flag``, per credible set the largest loss of
    log Bayes factor (``set_sensitivity``) and ``sensitivity_flag``."""

    mismatch_variance: float
    effective_reference_size: float
    artifact_share: float
    artifact_flag: bool
    set_sensitivity: list
    sensitivity_flag: bool

    @property
    def flagged(self):
        """Whether 0.16.5 would warn of a mismatch (either flag)."""
        return bool(self.artifact_flag or self.sensitivity_flag)


def artifact_share(correlation_matrix, residual):
    """``Q``: the share of ``||r||^2`` on the eigenvectors of ``R`` with eigenvalues at most
    ``1e-3`` of the largest (0 when there are none, or ``r`` is 0): what is left of
    ``||r||^2`` after its projection on the eigenvectors above that share, from
    :func:`~alphavb.linear_model._susie_inf.gram_eigen` (fast for the low-rank ``R`` of a
    small panel; not kept, so that a background's kept decomposition of the same variables
    stays)."""
    from ._susie_inf import gram_eigen

    values, vectors = gram_eigen(correlation_matrix)
    informative = values > ARTIFACT_EIGENVALUE_SHARE * values.max(initial=0.0)
    total = float(residual @ residual)
    if informative.sum() == residual.size or total <= 1e-12:
        return 0.0
    kept = float(np.sum((vectors[:, informative].T @ residual) ** 2))
    return float(max(total - kept, 0.0) / total)


def mismatch_diagnostics(model, data, state, alpha, sets):
    """:class:`MismatchDiagnostics` of a fitted ``state`` on the sufficient statistics
    ``data`` (:class:`~alphavb.linear_model._susie.IBSSData` of the summary) at the
    temperature ``alpha``, with its credible ``sets`` (module docstring)."""
    from ._susie import design_times, log_bayes_factors

    sigma2, variance = state.residual_variance, state.mismatch_variance
    coef_by_effect = state.probabilities * state.mean
    coef = coef_by_effect.sum(axis=0)
    gram = np.array(data.gram, dtype=float)
    if data.gram_columns is not None:
        gram = data.gram_columns[:, None] * gram * data.gram_columns
    residual = (data.zty - state.fit) / np.sqrt(model.n_minus_one)
    share = artifact_share(gram / model.n_minus_one, residual)
    sensitivity = []
    informative = data.d > 0
    safe = np.where(informative, data.d, 1.0)
    for found in sets:
        effect = found["effect"]
        without = coef - coef_by_effect[effect]
        factor = inflation(model, sigma2, variance, state.fit
                           - design_times(data, coef_by_effect[effect]), without)
        xtr = data.zty - state.fit + design_times(data, coef_by_effect[effect])
        betahat = np.where(informative, xtr / safe, 0.0)
        shat2 = np.where(informative, sigma2 / (alpha * safe), np.inf)
        loss = (log_bayes_factors(betahat, shat2, state.prior_variance[effect])
                - log_bayes_factors(betahat, shat2 * factor, state.prior_variance[effect]))
        sensitivity.append(float(np.max(np.maximum(loss[found["variables"]], 0.0))))
    reference = 1.0 / (1.0 / model.reference_n_samples + variance) \
        if (1.0 / model.reference_n_samples + variance) > 0 else np.inf
    return MismatchDiagnostics(
        float(variance), float(reference), share, bool(share > ARTIFACT_THRESHOLD),
        sensitivity, bool(any(value >= SENSITIVITY_THRESHOLD for value in sensitivity)))


class LDMismatch(NamedTuple):
    """:func:`ld_mismatch_diagnostic`'s result: per variable the (adjusted) ``z``, its
    conditional mean and variance given the others, the standardized difference and the
    log-likelihood ratio of a flipped sign; ``s`` the estimated inconsistency."""

    z: np.ndarray
    conditional_mean: np.ndarray
    conditional_variance: np.ndarray
    standardized_difference: np.ndarray
    log_lr: np.ndarray
    s: float

    def flagged(self):
        """The variables susieR marks: ``log_lr > 2`` and ``|z| > 2``."""
        return np.flatnonzero((self.log_lr > 2.0) & (np.abs(self.z) > 2.0))


def _mixture_weights(log_likelihood, gap=1e-10):
    """The maximum-likelihood weights ``w`` of a mixture whose components have the given
    log likelihoods (rows: observations), to a duality gap below ``gap`` (susieR solves the
    same concave problem with mixsqp).

    With ``L`` the likelihoods (each row scaled by its largest entry) and ``n`` rows, ``max_w
    sum_i log (L w)_i`` on the simplex is ``min_{w >= 0} g(w) = -sum_i log (L w)_i + n 1'w``,
    whose minimiser sums to 1 (at the optimum ``w_k dg/dw_k = 0``; sum over ``k``). That is
    solved by a barrier method: Newton's method on ``g(w) - mu sum_k log w_k`` (the Hessian
    ``A'A + mu diag(1 / w^2)``, ``A = diag(1 / L w) L``: ``k x k``), with ``mu`` divided by 10
    until ``k mu``, the gap it leaves, is below ``gap``."""
    likelihood = np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))
    n, k = likelihood.shape

    def barrier(weights, mu):
        return (-float(np.sum(np.log(likelihood @ weights))) + n * float(weights.sum())
                - mu * float(np.sum(np.log(weights))))

    weights, mu = np.full(k, 1.0 / k), 1.0
    while True:
        for _ in range(100):
            scaled = likelihood / (likelihood @ weights)[:, None]
            gradient = n - scaled.sum(axis=0) - mu / weights
            hessian = scaled.T @ scaled
            hessian[np.diag_indices(k)] += mu / weights**2
            step = -np.linalg.solve(hessian, gradient)
            decrement = -float(gradient @ step)
            if decrement < 1e-14 * n:
                break
            shrinking = step < 0
            length = min(1.0, 0.99 * float(np.min(-weights[shrinking] / step[shrinking],
                                                  initial=np.inf)))
            start = barrier(weights, mu)
            while barrier(weights + length * step, mu) > start - 0.25 * length * decrement:
                length *= 0.5
                if length < 1e-20:
                    break
            weights = weights + length * step
        if k * mu < gap:
            return weights / weights.sum()
        mu *= 0.1


def ld_mismatch_diagnostic(z, R, n_samples, s=None):
    """susieR's ``kriging_rss``: does ``z`` agree with ``R``? (module docstring).

    Parameters
    ----------
    z : array-like of shape (n_features,)
    R : array-like of shape (n_features, n_features)
        The LD matrix the fit would use (checked as :meth:`AlphaSuSiE.fit_summary` checks
        it).
    n_samples : int
    s : float in [0, 1) or None, default=None
        The inconsistency; None estimates it by maximum likelihood under the null (susieR's
        ``estimate_s_rss``, ``method="null-mle"``): 0 when ``z`` lies in ``R``'s column
        space with the spread ``R`` implies.

    Returns
    -------
    LDMismatch
    """
    owner = "ld_mismatch_diagnostic"
    n = check_n_samples(owner, n_samples)
    summary_names(owner, [("z", z), ("R", R)])  # named inputs: the same variables, in order
    if s is not None:
        number = real_scalar(s)
        if number is None or not 0.0 <= number < 1.0:
            raise bad_parameter(owner, "s", "a value in [0, 1) or None", s)
        s = number
    z = check_z(owner, z)
    R = check_ld(owner, R, z.size)
    z = z * np.sqrt((n - 1.0) / (z * z + n - 2.0))
    eigenvalues, vectors = np.linalg.eigh(R)
    eigenvalues = np.where(eigenvalues < EIGENVALUE_TOLERANCE, 0.0, eigenvalues)
    projected = vectors.T @ z
    if s is None:
        def negative_log_likelihood(value):
            spread = (1.0 - value) * eigenvalues + value
            return 0.5 * np.sum(np.log(spread)) + 0.5 * np.sum(projected**2 / spread)

        s = float(minimize_scalar(negative_log_likelihood, bounds=(0.0, 1.0),
                                  method="bounded", options={"xatol": 1e-8}).x)
    spread = (1.0 - s) * eigenvalues + s
    inverse = np.where(spread > 0, 1.0 / np.where(spread > 0, spread, 1.0), 0.0)
    precision = (vectors * inverse) @ vectors.T
    diagonal = np.diag(precision)
    conditional_mean = -(precision @ z - diagonal * z) / diagonal
    conditional_variance = 1.0 / diagonal
    difference = (z - conditional_mean) / np.sqrt(conditional_variance)
    largest = float(np.max(difference**2))
    a_max = 2.0 if largest < 1.0 else 2.0 * np.sqrt(largest)
    n_points = int(np.ceil(np.log2(a_max / 0.8) / np.log2(1.05)))
    grid = 1.05 ** np.arange(-n_points, 1) * a_max
    sd = np.sqrt(conditional_variance)[:, None] * grid

    def log_normal(x):
        return -0.5 * np.log(2.0 * np.pi) - np.log(sd) - 0.5 * (x[:, None] / sd) ** 2

    def log_mixture(log_likelihood):
        top = log_likelihood.max(axis=1)
        return np.log(np.exp(log_likelihood - top[:, None]) @ (weights + 1e-15)) + top

    null = log_normal(z - conditional_mean)
    weights = _mixture_weights(null)
    log_lr = log_mixture(log_normal(z + conditional_mean)) - log_mixture(null)
    return LDMismatch(z, conditional_mean, conditional_variance, difference, log_lr, s)
