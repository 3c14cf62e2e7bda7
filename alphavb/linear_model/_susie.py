"""The sum of single effects on the alpha-VB objective: the math of alpha-SuSiE.

Model (Wang, Sarkar, Carbonetto & Stephens 2020, JRSSB 82:1273, eqs. 2.4-2.6)::

    y = X b + e,  e ~ N(0, sigma2 I),  b = sum_l b_l,  b_l = gamma_l beta_l,
    gamma_l ~ Multinomial(1, pi),  beta_l ~ N(0, V_l),

with the likelihood raised to the temperature ``alpha`` (Yang, Pati & Bhattacharya 2020,
eq. 2.6). The variational family is SuSiE's, ``q = prod_l q(gamma_l, beta_l)``, and the
objective

    F = alpha E_q[log N(y | X b, sigma2 I)] - sum_l KL(q_l || prior_l).

Since ``N(y | m, sigma2)^alpha`` is ``N(y | m, sigma2 / alpha)`` up to a factor free of
``b``, each ``q_l`` maximising ``F`` with the others fixed is SuSiE's single-effect
regression (SER) of the residual ``r_l = y - X E[b_{-l}]`` with residual variance
``s2 = sigma2 / alpha`` (iterative Bayesian stepwise selection, Algorithm 2 there):

    betahat_j = x_j'r_l / d_j,   shat2_j = s2 / d_j,   d_j = x_j'x_j,
    lbf_j = log N(betahat_j; 0, V + shat2_j) - log N(betahat_j; 0, shat2_j),
    alpha_lj ∝ pi_j exp(lbf_j),   beta_l | gamma_lj = 1 ~ N(mu_lj, v_lj),
    v_lj = (1 / V + d_j / s2)^{-1},   mu_lj = v_lj x_j'r_l / s2.

``V_l`` is chosen to maximise the SER's evidence ``log sum_j pi_j exp(lbf_j)`` over
``log V`` in ``[-30, 15]`` (susieR's ``estimate_prior_method="optim"``), and set to 0 when
that is no better than ``V = 0``. ``sigma2`` maximises ``F``: ``sigma2 = E||y - X b||^2 / n``
(the ``alpha`` cancels), floored at ``Var(y) / 10^4`` as susieR does. ``KL(q_l || prior_l)``
is ``-(the SER's log evidence) + E_{q_l}[log N(r_l | X b_l, s2)]`` (the identity susieR
uses), exact for any ``s2``. At ``alpha = 1`` every step is susieR 0.12.35's (``susie``),
which the tests check to 1e-6 on N3finemapping.

The PIP of variable ``j`` is ``1 - prod_l (1 - alpha_lj)`` over the effects with ``V_l >
1e-9``; a level-``rho`` credible set of effect ``l`` is its fewest variables whose
``alpha_lj`` sum to at least ``rho``, kept when its purity (the smallest absolute
correlation between two of its variables) is at least ``min_abs_corr`` (susieR's
``susie_get_cs``).
"""

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from .._special import LOG_2PI

# susieR adds sqrt(machine epsilon) to the prior weights inside the log
PRIOR_WEIGHT_FLOOR = np.sqrt(np.finfo(float).eps)
# effects whose prior variance is at most this are left out of PIPs and credible sets
PRIOR_VARIANCE_TOLERANCE = 1e-9
# the search interval of log V (susieR's Brent bounds)
LOG_PRIOR_VARIANCE_BOUNDS = (-30.0, 15.0)


class SingleEffect(NamedTuple):
    """One fitted single effect: ``alpha`` (p,) the probabilities of its variable, ``mean``
    and ``second_moment`` (p,) of ``beta_l`` given each variable, its prior variance, and
    its log evidence (``log sum_j pi_j exp(lbf_j)``)."""

    alpha: np.ndarray
    mean: np.ndarray
    second_moment: np.ndarray
    prior_variance: float
    log_evidence: float


def log_bayes_factors(betahat, shat2, prior_variance):
    """``lbf_j`` of ``beta_j ~ N(0, V)`` against ``beta_j = 0`` (module docstring)."""
    if prior_variance <= 0.0:
        return np.zeros_like(betahat)
    ratio = prior_variance / shat2
    return -0.5 * np.log1p(ratio) + 0.5 * betahat**2 / shat2 * ratio / (1.0 + ratio)


def optimal_prior_variance(betahat, shat2, log_prior):
    """The ``V`` maximising the SER's log evidence over ``log V`` in ``[-30, 15]`` (Brent's
    bounded search, numba kernel), or 0 when ``V = 0`` is at least as good."""
    from ._kernels import ser_best_log_prior_variance  # numba loads on the first fit

    log_v, best = ser_best_log_prior_variance(betahat, shat2, log_prior,
                                              *LOG_PRIOR_VARIANCE_BOUNDS, 1e-8)
    if float(logsumexp(log_prior)) >= best:  # the evidence at V = 0
        return 0.0
    return float(np.exp(log_v))


def single_effect_regression(xtr, d, residual_variance, prior_variance, log_prior,
                             estimate_prior_variance=True):
    """The SER of a residual with ``xtr = X'r`` and ``d = diag(X'X)`` (module docstring);
    ``residual_variance`` is the tempered ``sigma2 / alpha``."""
    betahat = xtr / d
    shat2 = residual_variance / d
    if estimate_prior_variance:
        prior_variance = optimal_prior_variance(betahat, shat2, log_prior)
    log_posterior = log_bayes_factors(betahat, shat2, prior_variance) + log_prior
    log_evidence = float(logsumexp(log_posterior))
    alpha = np.exp(log_posterior - log_evidence)
    if prior_variance > 0.0:
        variance = 1.0 / (1.0 / prior_variance + d / residual_variance)
    else:
        variance = np.zeros_like(d)
    mean = variance * xtr / residual_variance
    return SingleEffect(alpha, mean, variance + mean**2, float(prior_variance), log_evidence)


class IBSSState(NamedTuple):
    """The variational parameters of the sum of single effects and what a sweep reuses:
    (L, p) ``alpha``, ``mean``, ``second_moment``; (L,) ``prior_variance`` and ``kl``;
    ``residual_variance`` (``sigma2``, untempered); ``fit = Z E[b]`` (n,); ``erss`` (``E
    ||y - Z b||^2`` at the end of the last sweep, None before the first)."""

    alpha: np.ndarray
    mean: np.ndarray
    second_moment: np.ndarray
    prior_variance: np.ndarray
    kl: np.ndarray
    residual_variance: float
    fit: np.ndarray
    erss: float | None


class IBSSData(NamedTuple):
    """What every sweep reads: the centred (scaled) ``Z`` (n, p) and ``y`` (n,), ``d =
    diag(Z'Z)``, the prior weights ``pi`` and ``log(pi + sqrt(eps))``, ``Var(y)`` (with
    ``n - 1``)."""

    Z: np.ndarray
    y: np.ndarray
    d: np.ndarray
    prior_weights: np.ndarray
    log_prior: np.ndarray
    variance_y: float


def ibss_data(Z, y, prior_weights=None):
    """:class:`IBSSData` of ``Z`` and ``y`` (uniform ``pi`` unless ``prior_weights``)."""
    p = Z.shape[1]
    weights = np.full(p, 1.0 / p) if prior_weights is None else np.asarray(prior_weights)
    return IBSSData(Z, y, np.einsum("ij,ij->j", Z, Z), weights,
                    np.log(weights + PRIOR_WEIGHT_FLOOR), float(np.var(y, ddof=1)))


def initial_state(data, n_effects, residual_variance=None, scaled_prior_variance=0.2):
    """susieR's start: every ``alpha_l = pi``, means 0, ``V_l = scaled_prior_variance
    Var(y)``, ``sigma2 = Var(y)`` unless ``residual_variance`` is given."""
    n, p = data.Z.shape
    sigma2 = data.variance_y if residual_variance is None else float(residual_variance)
    return IBSSState(np.tile(data.prior_weights, (n_effects, 1)), np.zeros((n_effects, p)),
                     np.zeros((n_effects, p)),
                     np.full(n_effects, scaled_prior_variance * data.variance_y),
                     np.zeros(n_effects), sigma2, np.zeros(n), None)


def expected_residual_sum_of_squares(data, fit, effect_squares, alpha, second_moment):
    """``E_q ||y - Z b||^2`` (``fit = Z E[b]``): the squared residual of the mean, less
    each effect's square ``||Z E[b_l]||^2`` (``effect_squares``, kept by the sweep, which
    computed ``Z E[b_l]``), plus every effect's second moments."""
    return (float(np.sum((data.y - fit) ** 2)) - float(np.sum(effect_squares))
            + float(np.sum(data.d * (alpha * second_moment))))


def ibss_sweep(data, state, *, alpha=1.0, estimate_prior_variance=True,
               estimate_residual_variance=True):
    """One sweep of iterative Bayesian stepwise selection on the alpha-VB objective (module
    docstring): ``sigma2`` from the last sweep's ``E RSS`` (not before the first sweep),
    then each effect's SER in turn. Returns the new state and the objective ``F`` after the
    sweep, at the ``sigma2`` it used (susieR's order: its loop updates ``sigma2`` after
    checking the objective, so a converged fit keeps the ``sigma2`` of its last sweep)."""
    Z, y, d = data.Z, data.y, data.d
    sigma2 = state.residual_variance
    if estimate_residual_variance and state.erss is not None:
        sigma2 = max(data.variance_y / 1e4, state.erss / y.shape[0])  # susieR's floor
    tempered = sigma2 / alpha
    probabilities, mean = state.alpha.copy(), state.mean.copy()
    second_moment, prior_variance = state.second_moment.copy(), state.prior_variance.copy()
    kl, fit = state.kl.copy(), state.fit.copy()
    effect_squares = np.empty(probabilities.shape[0])
    for effect in range(probabilities.shape[0]):
        fit -= Z @ (probabilities[effect] * mean[effect])
        residual = y - fit
        single = single_effect_regression(Z.T @ residual, d, tempered, prior_variance[effect],
                                          data.log_prior, estimate_prior_variance)
        probabilities[effect], mean[effect] = single.alpha, single.mean
        second_moment[effect] = single.second_moment
        prior_variance[effect] = single.prior_variance
        effect_fit = Z @ (single.alpha * single.mean)
        # KL = -(log evidence + log N(r | 0, s2)) + E_q[log N(r | Z b_l, s2)]
        kl[effect] = -single.log_evidence + (
            2.0 * float(residual @ effect_fit)
            - float(np.sum(d * single.alpha * single.second_moment))) / (2.0 * tempered)
        effect_squares[effect] = float(effect_fit @ effect_fit)
        fit += effect_fit
    erss = expected_residual_sum_of_squares(data, fit, effect_squares, probabilities,
                                            second_moment)
    n = y.shape[0]
    objective = (alpha * (-0.5 * n * (LOG_2PI + np.log(sigma2)) - 0.5 * erss / sigma2)
                 - float(kl.sum()))
    return IBSSState(probabilities, mean, second_moment, prior_variance, kl, sigma2, fit,
                     erss), objective


def inclusion_probabilities(alpha, prior_variance):
    """PIPs ``1 - prod_l (1 - alpha_lj)`` over the effects with ``V_l > 1e-9``."""
    kept = alpha[prior_variance > PRIOR_VARIANCE_TOLERANCE]
    return 1.0 - np.prod(1.0 - kept, axis=0)


def credible_sets(alpha, prior_variance, X, coverage=0.95, min_abs_corr=0.5):
    """susieR's ``susie_get_cs``: per effect with ``V_l > 1e-9``, its fewest variables
    whose ``alpha_lj`` reach ``coverage``; duplicates dropped (the first kept); each set's
    purity (min, mean, median absolute correlation of its variables' columns of ``X``; 1
    for one variable); the sets with purity at least ``min_abs_corr``, purest first.

    Returns
    -------
    list of dict
        ``effect``, ``variables`` (sorted), ``coverage`` (their summed ``alpha_l``),
        ``min_abs_corr``, ``mean_abs_corr``, ``median_abs_corr``.
    """
    sets, seen = [], set()
    for effect in np.flatnonzero(prior_variance > PRIOR_VARIANCE_TOLERANCE):
        order = np.argsort(-alpha[effect], kind="stable")
        size = int(np.sum(np.cumsum(alpha[effect][order]) < coverage)) + 1
        variables = tuple(sorted(order[:size].tolist()))
        if variables in seen:
            continue
        seen.add(variables)
        if len(variables) == 1:
            purity = (1.0, 1.0, 1.0)
        else:
            correlation = np.abs(np.corrcoef(X[:, list(variables)], rowvar=False))
            upper = correlation[np.triu_indices(len(variables), 1)]
            purity = (float(upper.min()), float(upper.mean()), float(np.median(upper)))
        if purity[0] >= min_abs_corr:
            sets.append({"effect": int(effect), "variables": list(variables),
                         "coverage": float(alpha[effect][list(variables)].sum()),
                         "min_abs_corr": purity[0], "mean_abs_corr": purity[1],
                         "median_abs_corr": purity[2]})
    return sorted(sets, key=lambda found: -found["min_abs_corr"])
