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
``log V`` in ``[-30, 15] + log u`` and kept at its current value when that is better
(susieR's ``estimate_prior_method="optim"``), or by EM (``V_l = E_q[beta_l^2]``, "em"), or
kept ("simple"); after "optim" and "simple" it is set to 0 when the evidence at ``V = 0``
plus ``check_null_threshold`` is at least that at ``V_l``. ``u`` is ``Var(y)`` over the
mean column variance: susieR's bounds are in absolute units, which is ``u = 1`` for
standardized columns and ``Var(y) = 1``; relative to ``u`` the fit is the same in any units
of ``y`` and ``X``. ``sigma2`` maximises ``F``: ``sigma2 = E||y - X b||^2 / n`` (the
``alpha`` cancels), held within the residual-variance bounds. ``KL(q_l || prior_l)`` is
``-(the SER's log evidence) + E_{q_l}[log N(r_l | X b_l, s2)]`` (the identity susieR uses),
exact for any ``s2``. A column with ``x_j'x_j = 0`` (a constant column kept, or the null
variable of ``null_weight``, a column of zeros) has Bayes factor 1 and ``beta_j = 0``. At
``alpha = 1`` every step is susieR's (``susie``), which the tests check on N3finemapping and
on susieR 0.16.5's options (``tests/data/susier_options.json``).

The PIP of variable ``j`` is ``1 - prod_l (1 - alpha_lj)`` over the effects with ``V_l >
prior_tol u``; a level-``rho`` credible set of effect ``l`` is its fewest variables whose
``alpha_lj`` sum to at least ``rho``, kept when its purity (the smallest absolute
correlation between two of its variables) is at least ``min_abs_corr`` (susieR's
``susie_get_cs``).
"""

from typing import NamedTuple

import numpy as np

from .._special import LOG_2PI, log_sum_exp

# susieR adds sqrt(machine epsilon) to the prior weights inside the log
PRIOR_WEIGHT_FLOOR = np.sqrt(np.finfo(float).eps)
# a column whose centred sum of squares is at most this share of its uncentred one is
# constant (rounding is all that centring, or projecting out covariates, left of it)
CONSTANT_TOLERANCE = 1e-24
# effects whose prior variance is at most this are left out of PIPs and credible sets
PRIOR_VARIANCE_TOLERANCE = 1e-9
# the search interval of log V (susieR's Brent bounds, in absolute units; alpha-SuSiE shifts
# them by log u, the variance unit)
LOG_PRIOR_VARIANCE_BOUNDS = (-30.0, 15.0)


class SingleEffect(NamedTuple):
    """One fitted single effect: ``probabilities`` (p,) of its variable (susieR's
    ``alpha``), ``mean`` and ``second_moment`` (p,) of ``beta_l`` given each variable, its
    prior variance (the one the next sweep uses: with ``"em"`` the update made after this
    fit), its log evidence (``log sum_j pi_j exp(lbf_j)``, the null variable's term
    included) and the probability of the null variable (0 without ``null_weight``)."""

    probabilities: np.ndarray
    mean: np.ndarray
    second_moment: np.ndarray
    prior_variance: float
    log_evidence: float
    null_probability: float = 0.0


def log_bayes_factors(betahat, shat2, prior_variance):
    """``lbf_j`` of ``beta_j ~ N(0, V)`` against ``beta_j = 0`` (module docstring); 0 where
    ``shat2`` is infinite (a column with ``d_j = 0``: no information)."""
    if prior_variance <= 0.0:
        return np.zeros_like(betahat)
    ratio = prior_variance / shat2
    return -0.5 * np.log1p(ratio) + 0.5 * betahat**2 / shat2 * ratio / (1.0 + ratio)


class PriorVarianceRule(NamedTuple):
    """How each sweep sets ``V_l`` (susieR's ``estimate_prior_method`` and
    ``check_null_threshold``): ``method`` ``"optim"`` (the evidence's maximiser over ``log
    V`` in ``log_bounds``, kept only if it beats the current ``V``), ``"em"`` (``V = sum_j
    alpha_j E[beta_j^2 | gamma_j]`` after the SER), ``"simple"`` (the current ``V``) or
    ``"fixed"``; after ``"optim"`` and ``"simple"``, ``V = 0`` when the evidence at 0 plus
    ``null_threshold`` is at least that at ``V``."""

    method: str = "optim"
    null_threshold: float = 0.0
    log_bounds: tuple = LOG_PRIOR_VARIANCE_BOUNDS
    linear_bounds: tuple | None = None  # search V in them, not log V (SuSiE-inf's)


def _with_null(betahat, shat2, log_prior, log_null_prior):
    """The SER's arrays with the null variable (``betahat = 0``, ``shat2 = inf``: Bayes
    factor 1) appended when it has prior mass."""
    if log_null_prior == -np.inf:
        return betahat, shat2, log_prior
    return (np.append(betahat, 0.0), np.append(shat2, np.inf),
            np.append(log_prior, log_null_prior))


def ser_log_evidence(betahat, shat2, log_prior, prior_variance):
    """The SER's log evidence ``log sum_j pi_j BF_j(V)`` (``log sum_j pi_j`` at ``V = 0``)."""
    return log_sum_exp(log_bayes_factors(betahat, shat2, prior_variance) + log_prior)


def estimated_prior_variance(betahat, shat2, log_prior, current, rule):
    """``V`` before the SER's posterior, by ``rule`` (:class:`PriorVarianceRule`; ``"em"``
    and ``"fixed"`` keep ``current`` here). ``"optim"``: Brent's bounded search over ``log
    V`` (over ``V`` with ``linear_bounds``; numba kernel), to ``1e-8``; the current ``V`` is
    kept when its evidence is higher (susieR's ``optimize_prior_variance``)."""
    prior_variance = current
    if rule.method == "optim":
        from ._kernels import ser_best_log_prior_variance  # numba loads on the first fit

        linear = rule.linear_bounds is not None  # (its tolerance in units of its bound)
        log_v, best = ser_best_log_prior_variance(
            betahat, shat2, log_prior, *(rule.linear_bounds if linear else rule.log_bounds),
            1e-8 * (rule.linear_bounds[1] if linear else 1.0), linear)
        if best >= ser_log_evidence(betahat, shat2, log_prior, current):
            prior_variance = float(np.exp(log_v))
    if rule.method in ("optim", "simple") and prior_variance > 0.0 and (
            log_sum_exp(log_prior) + rule.null_threshold
            >= ser_log_evidence(betahat, shat2, log_prior, prior_variance)):
        prior_variance = 0.0
    return prior_variance


def single_effect_regression(xtr, d, residual_variance, prior_variance, log_prior,
                             estimate_prior_variance=True, *, rule=None,
                             log_null_prior=-np.inf):
    """The SER of a residual with ``xtr = X'r`` and ``d = diag(X'X)`` (module docstring);
    ``residual_variance`` is the tempered ``sigma2 / alpha``. A column with ``d_j = 0``
    carries no information: Bayes factor 1, ``beta_j`` at 0. ``log_null_prior``: the null
    variable's ``log(pi_0 + sqrt(eps))`` (``null_weight``), -inf without. ``rule``
    (:class:`PriorVarianceRule`) sets ``V``; without it ``"optim"`` when
    ``estimate_prior_variance``, else ``V`` fixed."""
    if rule is None:
        rule = PriorVarianceRule("optim" if estimate_prior_variance else "fixed")
    informative = d > 0.0
    if informative.all():
        betahat, shat2 = xtr / d, residual_variance / d
    else:
        safe = np.where(informative, d, 1.0)
        betahat = np.where(informative, xtr / safe, 0.0)
        shat2 = np.where(informative, residual_variance / safe, np.inf)
    searched = _with_null(betahat, shat2, log_prior, log_null_prior)
    prior_variance = estimated_prior_variance(*searched, prior_variance, rule)
    log_posterior = log_bayes_factors(betahat, shat2, prior_variance) + log_prior
    log_evidence = log_sum_exp(np.append(log_posterior, log_null_prior))
    alpha = np.exp(log_posterior - log_evidence)
    if prior_variance > 0.0:
        variance = np.where(informative, 1.0 / (1.0 / prior_variance + d / residual_variance),
                            0.0)
    else:
        variance = np.zeros_like(d)
    mean = variance * xtr / residual_variance
    second_moment = variance + mean**2
    null_probability = float(np.exp(log_null_prior - log_evidence))
    if rule.method == "em":  # E_q[beta_l^2]; beta is its prior N(0, V) where it has no data
        uninformed = null_probability + float(np.sum(alpha[~informative]))
        next_variance = float(np.sum(alpha * second_moment)) + uninformed * prior_variance
    else:
        next_variance = float(prior_variance)
    return SingleEffect(alpha, mean, second_moment, next_variance, log_evidence,
                        null_probability)


def single_effect_kl(single, xtr, d, residual_variance):
    """``KL(q_l || prior_l)`` of a fitted :class:`SingleEffect` by susieR's identity: minus
    (its log evidence + ``log N(r | 0, s2)``) plus ``E_q[log N(r | Z b_l, s2)]``, from ``xtr
    = Z'r``, ``d = diag(Z'Z)`` and the SER's residual variance (a scalar, or one per
    variable where the SER inflated it), exact for any of them."""
    values = single.probabilities * single.mean
    return -single.log_evidence + float(np.sum(
        (2.0 * xtr * values - d * single.probabilities * single.second_moment)
        / (2.0 * residual_variance)))


class IBSSState(NamedTuple):
    """The variational parameters of the sum of single effects and what a sweep reuses: (L,
    p) ``probabilities`` (susieR's ``alpha``), ``mean``, ``second_moment``; (L,)
    ``prior_variance``, ``kl`` and ``null_alpha`` (the null variable's probability);
    ``residual_variance`` (``sigma2``, untempered); ``fit``, ``Z E[b]`` (n,) on individual
    data or ``Z'Z E[b]`` (p,) on sufficient statistics, and ``effect_fits`` (L, n or p),
    each effect's share of it; ``erss`` (``E ||y - Z b||^2`` at the end of the last sweep,
    None before the first); ``infinitesimal_variance`` (``tau2`` of SuSiE-inf's background,
    0 without; :mod:`~alphavb.linear_model._susie_inf`, whose sweep keeps ``W' E[b]`` in
    ``fit``); ``residual_scales`` (L,), each effect's ``E[sigma2]`` under the NIG prior
    (None without it; :mod:`~alphavb.linear_model._susie_nig`), by which its ``V`` is
    reported; ``mismatch_variance``, ``lambda`` of an LD matrix from another sample
    (:mod:`~alphavb.linear_model._susie_mismatch`); ``slot_weights`` (L,), each effect's
    ``q(c_l = 1)`` under SuSiE-ash's slot prior (None: every effect is in, ``c_l = 1``), by
    which ``fit`` weights the effects, and ``ash``, SuSiE-ash's background
    (:class:`~alphavb.linear_model._susie_ash.AshState`; None without), whose ``fit`` the
    sweep subtracts from ``y``; ``history``, what the stopping rule on the probabilities
    compared over the last sweeps (:func:`remembered`; empty for a fit that stops on its
    objective)."""

    probabilities: np.ndarray
    mean: np.ndarray
    second_moment: np.ndarray
    prior_variance: np.ndarray
    kl: np.ndarray
    residual_variance: float
    fit: np.ndarray
    erss: float | None
    effect_fits: np.ndarray
    null_alpha: np.ndarray
    infinitesimal_variance: float = 0.0
    residual_scales: np.ndarray | None = None
    mismatch_variance: float = 0.0
    slot_weights: np.ndarray | None = None
    ash: object = None
    history: tuple = ()


CYCLE_WINDOW = 5  # sweeps back the rule on the probabilities seeks a cycle (pip_stall_window)


def remembered(state, probabilities):
    """``state`` with a sweep's stopping ``probabilities`` (alpha raveled, the PIPs,
    ``lambda``) last in its ``history`` of the last :data:`CYCLE_WINDOW` sweeps."""
    return state._replace(history=(*state.history, probabilities)[-CYCLE_WINDOW:])


def cycle_lag(history, probabilities, tol):
    """susieR 0.16.5's rule (``check_alpha_pip_cycle_convergence``, with its guard on
    ``lambda``, the last entry): the least ``lag`` with alpha and the PIPs within ``tol`` of
    those ``lag`` sweeps back in ``history`` (1: a fixed point; up to :data:`CYCLE_WINDOW`:
    a cycle); 0 if none, or if ``lambda`` moved by more than ``tol`` since the last sweep."""
    if history and abs(probabilities[-1] - history[-1][-1]) > tol:
        return 0
    for lag in range(1, len(history) + 1):
        if float(np.max(np.abs(probabilities[:-1] - history[-lag][:-1]))) < tol:
            return lag
    return 0


def cycle_mean(state, lag):
    """``state`` with ``alpha`` the mean over a cycle of ``lag`` sweeps (the last ``lag -
    1`` of its ``history``, then its own: susieR's sum) as susieR leaves such a fit."""
    if lag < 2:
        return state
    size = state.probabilities.size
    total = 0.0
    for probabilities in state.history[-(lag - 1):]:
        total = total + probabilities[:size].reshape(state.probabilities.shape)
    return state._replace(probabilities=(total + state.probabilities) / lag)


class IBSSData(NamedTuple):
    """What every sweep reads: the centred (scaled) ``Z`` (n, p) and ``y`` (n,) of individual data,
    or (``Z`` and ``y`` None) their sufficient statistics ``Z'Z = diag(c) gram diag(c)``
    (``gram`` as given, e.g. the caller's LD matrix, which is never copied or changed, and
    ``c = gram_columns``, ones when None), ``zty = Z'y`` and ``yty = y'y``; ``d =
    diag(Z'Z)`` (0 for a column that carries no information), the prior weights ``pi`` and
    ``log(pi + sqrt(eps))``, ``Var(y)`` (about its mean, divisor ``n - 1``), the number of
    observations ``n`` (the total weight of weighted rows), the
    :class:`~alphavb.linear_model._covariates.Covariates` projected out of ``Z`` and ``y``
    (None without), the null variable's log prior weight (-inf without ``null_weight``) and
    ``variance_unit``, the scale of ``V`` (``Var(y)`` over the mean column variance
    ``mean(d) / (n - 1)``) that the search bounds of ``log V``, the prior-variance tolerance
    and the residual-variance bounds are relative to, so that a fit is the same in any units
    of ``y`` and ``X``."""

    Z: np.ndarray | None
    y: np.ndarray | None
    d: np.ndarray
    prior_weights: np.ndarray
    log_prior: np.ndarray
    variance_y: float
    n_samples: float
    gram: np.ndarray | None = None
    zty: np.ndarray | None = None
    yty: float | None = None
    covariates: object = None
    log_null_prior: float = -np.inf
    variance_unit: float = 1.0
    gram_columns: np.ndarray | None = None


def prior_log_weights(p, prior_weights=None, null_weight=0.0):
    """``pi`` (p,), its log as susieR takes it, ``log(pi + sqrt(eps))`` (``-inf`` where
    ``pi`` is 0: a variable that cannot be an effect's), and the null variable's log weight:
    with ``null_weight`` ``w`` the variables share ``1 - w`` (in proportion to
    ``prior_weights``, uniform when None) and the null variable has ``w``."""
    weights = np.full(p, 1.0 / p) if prior_weights is None else np.asarray(prior_weights)
    weights = weights / weights.sum() * (1.0 - null_weight)
    with np.errstate(divide="ignore"):
        log_prior = np.where(weights > 0, np.log(weights + PRIOR_WEIGHT_FLOOR), -np.inf)
    log_null = np.log(null_weight + PRIOR_WEIGHT_FLOOR) if null_weight > 0 else -np.inf
    return weights, log_prior, float(log_null)


def standard_deviations(centred_squares, n_samples, constant):
    """Column standard deviations from their sums of squares about the means (divisor ``n -
    1``), 1 for a ``constant`` column (susieR's ``csd[csd == 0] <- 1``); each column on its
    own, whatever the others' units."""
    deviation = np.sqrt(np.maximum(centred_squares, 0.0) / (n_samples - 1.0))
    return np.where(constant | (deviation == 0.0), 1.0, deviation)


def _variance_unit(variance_y, d, n):
    """``Var(y)`` over the mean variance of the informative columns (``d_j / (n - 1)``)."""
    informative = d[d > 0]
    column_variance = float(informative.mean()) / (n - 1.0) if informative.size else 1.0
    return variance_y / column_variance


def ibss_data(Z, y, prior_weights=None, n_samples=None, covariates=None, *, variance_y=None,
              null_weight=0.0):
    """:class:`IBSSData` of individual data ``Z`` and ``y``, centred (uniform ``pi`` unless
    ``prior_weights``; ``n_samples`` the count of observations, ``len(y)`` unless weighted
    rows count otherwise; ``covariates`` already projected out of both; ``variance_y``
    ``Var(y)`` when ``y`` is not centred, else ``y'y / (n - 1)``). A column of ``Z`` that is
    all zeros has ``d_j = 0``."""
    weights, log_prior, log_null = prior_log_weights(Z.shape[1], prior_weights, null_weight)
    n = float(y.shape[0] if n_samples is None else n_samples)
    d = np.einsum("ij,ij->j", Z, Z)
    if variance_y is None:
        variance_y = float(y @ y) / (n - 1.0)
    return IBSSData(Z, y, d, weights, log_prior, float(variance_y), n,
                    covariates=covariates, log_null_prior=log_null,
                    variance_unit=_variance_unit(variance_y, d, n))


def sufficient_statistics_data(gram, zty, yty, n_samples, prior_weights=None, *,
                               variance_y=None, null_weight=0.0, gram_columns=None):
    """:class:`IBSSData` of the sufficient statistics ``Z'Z = diag(c) gram diag(c)`` (``c =
    gram_columns``, ones when None), ``Z'y``, ``y'y`` of ``n`` centred observations
    (susieR's ``susie_ss``): the sweep then runs on them, with the same numbers as on the
    data they summarise (``variance_y``: ``y'y / (n - 1)`` unless given)."""
    weights, log_prior, log_null = prior_log_weights(gram.shape[0], prior_weights,
                                                     null_weight)
    n = float(n_samples)
    d = np.diag(gram).copy()
    if gram_columns is not None:
        d *= gram_columns**2
    if variance_y is None:
        variance_y = float(yty) / (n - 1.0)
    return IBSSData(None, None, d, weights, log_prior, float(variance_y), n, gram, zty,
                    float(yty), log_null_prior=log_null,
                    variance_unit=_variance_unit(variance_y, d, n), gram_columns=gram_columns)


def initial_state(data, n_effects, residual_variance=None, scaled_prior_variance=0.2):
    """susieR's start: every ``alpha_l = pi``, means 0, ``V_l = scaled_prior_variance
    Var(y)``, ``sigma2 = Var(y)`` unless ``residual_variance`` is given."""
    p = data.d.shape[0]
    sigma2 = data.variance_y if residual_variance is None else float(residual_variance)
    size = p if data.Z is None else data.Z.shape[0]
    return IBSSState(np.tile(data.prior_weights, (n_effects, 1)), np.zeros((n_effects, p)),
                     np.zeros((n_effects, p)),
                     np.full(n_effects, scaled_prior_variance * data.variance_y),
                     np.zeros(n_effects), sigma2, np.zeros(size), None,
                     np.zeros((n_effects, size)), np.zeros(n_effects))


def state_from_effects(data, alpha, mean, second_moment, prior_variance, residual_variance,
                       null_alpha=None, *, estimate=True):
    """The state that starts from the given effects: their fits on ``data`` and, when
    ``estimate`` (a warm start continuing the loop), ``E ||y - Z b||^2`` there, so that the
    next sweep estimates ``sigma2`` on ``data``; otherwise (susieR's ``model_init``) the
    first sweep uses ``residual_variance``."""
    effect_fits = np.stack([design_times(data, a * m) for a, m in zip(alpha, mean,
                                                                      strict=True)])
    fit = effect_fits.sum(axis=0)
    null_alpha = np.zeros(alpha.shape[0]) if null_alpha is None else null_alpha
    effect_squares = np.array([_squared_norm(data, a * m, f)
                               for a, m, f in zip(alpha, mean, effect_fits, strict=True)])
    erss = expected_residual_sum_of_squares(data, fit, effect_squares, alpha, mean,
                                            second_moment) if estimate else None
    return IBSSState(alpha, mean, second_moment, np.asarray(prior_variance, dtype=float),
                     np.zeros(alpha.shape[0]), float(residual_variance), fit, erss,
                     effect_fits, null_alpha)


def design_times(data, coef):
    """``Z coef`` on individual data, ``Z'Z coef`` on sufficient statistics (the form the
    state's ``fit`` has)."""
    if data.gram is None:
        return data.Z @ coef
    if data.gram_columns is None:
        return data.gram @ coef
    return data.gram_columns * (data.gram @ (data.gram_columns * coef))


def _correlation_with_residual(data, fit):
    """``Z'(y - Z b)`` from the ``fit`` of ``b``."""
    return data.Z.T @ (data.y - fit) if data.gram is None else data.zty - fit


def _squared_norm(data, coef, times_design):
    """``||Z coef||^2`` from ``times_design = design_times(data, coef)``."""
    return float(times_design @ (times_design if data.gram is None else coef))


def expected_residual_sum_of_squares(data, fit, effect_squares, alpha, mean, second_moment,
                                     weights=None, ash=None):
    """``E_q ||y - Z b||^2`` (``fit`` of ``E[b] = sum_l alpha_l mean_l``): the squared
    residual of the mean (``y'y - 2 E[b]'Z'y + E[b]'Z'Z E[b]`` on sufficient statistics),
    less each effect's square ``||Z E[b_l]||^2`` (``effect_squares``, kept by the sweep,
    which computed ``Z E[b_l]``), plus every effect's second moments. With slot
    ``weights`` ``c`` (``b = sum_l c_l b_l``, ``c_l ~ Bernoulli``; ``fit`` then weighted)
    the squares are weighted by ``c_l^2`` and the second moments by ``c_l``; with SuSiE-ash's
    background ``ash``, of ``y - Z theta`` at its posterior mean."""
    weights = np.ones(alpha.shape[0]) if weights is None else weights
    if data.gram is None:
        residual = data.y - fit if ash is None else data.y - fit - ash.fit
        residual_squares = float(np.sum(residual**2))
    else:
        coef = np.sum(weights[:, None] * alpha * mean, axis=0)
        total_fit = fit
        if ash is not None:
            coef, total_fit = coef + ash.theta, fit + ash.fit
        residual_squares = data.yty - 2.0 * float(coef @ data.zty) + float(coef @ total_fit)
    return (residual_squares - float(np.sum(weights**2 * effect_squares))
            + float(np.sum(weights * ((alpha * second_moment) @ data.d))))


def ibss_objective(data, erss, sigma2, kl, alpha):
    """``F = alpha E_q[log N(y | Z b, sigma2 I)] - sum_l KL_l``, plus, with covariates
    projected out, what integrating their flat prior adds (module docstring;
    :mod:`alphavb.linear_model._covariates`)."""
    objective = (alpha * (-0.5 * data.n_samples * (LOG_2PI + np.log(sigma2))
                          - 0.5 * erss / sigma2) - float(np.sum(kl)))
    if data.covariates is not None:
        objective += data.covariates.objective_constant(alpha, -np.log(sigma2))
    return objective


def held_within(sigma2, bounds):
    """``sigma2`` held within ``bounds`` (lower, upper; None: no upper bound), as susieR's
    ``residual_variance_lowerbound`` and ``_upperbound``."""
    lower, upper = bounds
    sigma2 = max(sigma2, lower)
    return sigma2 if upper is None else min(sigma2, upper)


def residual_variance_update(data, erss, alpha, bounds=(0.0, None)):
    """The ``sigma2`` maximising ``F``: ``E RSS / (n - k / alpha)`` (``k`` covariates; the
    ``alpha`` cancels without them), then :func:`held_within` ``bounds``."""
    k = 0 if data.covariates is None else data.covariates.n_columns
    return held_within(erss / (data.n_samples - k / alpha), bounds)


SLOT_PRIOR = (1.0, 2.0)  # Beta(a, b) of the slot weights (susieR's default with "ash")
SLOT_LOGIT_BOUND = 20.0


def slot_weight(weights, effect, log_evidence, prior=SLOT_PRIOR):
    """Effect ``effect``'s new slot weight under SuSiE-ash's slot prior (``c_l | rho ~
    Bernoulli(rho)``, ``rho ~ Beta(a, b)``; :mod:`~alphavb.linear_model._susie_ash`):
    ``logit c_l = log(a + k_{-l}) - log(b + L - 1 - k_{-l}) + lbf_l`` from its SER's log
    evidence and the other effects' weights ``k_{-l}``, the logit held within +-20."""
    a, b = prior
    others = float(np.sum(weights)) - float(weights[effect])
    lbf = log_evidence if np.isfinite(log_evidence) else 0.0
    log_odds = np.log(a + others) - np.log(b + weights.shape[0] - 1 - others) + lbf
    return float(1.0 / (1.0 + np.exp(-np.clip(log_odds, -SLOT_LOGIT_BOUND,
                                              SLOT_LOGIT_BOUND))))


def ibss_sweep(data, state, *, alpha=1.0, estimate_prior_variance=True,
               estimate_residual_variance=True, rule=None, residual_variance_bounds=(0.0, None),
               inflate=None, effects=None):
    """One sweep of iterative Bayesian stepwise selection on the alpha-VB objective (module
    docstring), on individual data or sufficient statistics: ``sigma2`` from the last
    sweep's ``E RSS`` (not before the first sweep), then each effect's SER in turn, its
    ``V_l`` by ``rule`` (:class:`PriorVarianceRule`; without it ``"optim"`` or fixed, by
    ``estimate_prior_variance``). Returns the new state and the objective ``F`` after the
    sweep, at the ``sigma2`` it used (susieR's order: its loop updates ``sigma2`` after
    checking the objective, so a converged fit keeps the ``sigma2`` of its last sweep).

    Each effect's fit ``Z E[b_l]`` is kept in the state, so an effect's update costs one
    product with ``Z`` and one with ``Z'`` (one with ``Z'Z`` on sufficient statistics).

    ``inflate(fit_without, coef_without)``, when given, is each variable's factor on the
    residual variance of an effect's SER, from the other effects (``Z'Z b_{-l}`` and
    ``b_{-l}``; :mod:`~alphavb.linear_model._susie_mismatch`); ``effects``: the effects
    updated (all when None)."""
    if rule is None:
        rule = PriorVarianceRule("optim" if estimate_prior_variance else "fixed")
    sigma2 = state.residual_variance
    if estimate_residual_variance and state.erss is not None:
        sigma2 = residual_variance_update(data, state.erss, alpha, residual_variance_bounds)
    tempered = sigma2 / alpha
    probabilities, mean = state.probabilities.copy(), state.mean.copy()
    second_moment, prior_variance = state.second_moment.copy(), state.prior_variance.copy()
    kl, fit, effect_fits = state.kl.copy(), state.fit.copy(), state.effect_fits.copy()
    null_alpha = state.null_alpha.copy()
    weights = None if state.slot_weights is None else state.slot_weights.copy()
    background = None if state.ash is None else state.ash.fit
    if effects is None:  # every effect's square is computed in the loop
        effect_squares = np.empty(probabilities.shape[0])
    else:  # the effects left alone keep theirs
        effect_squares = np.array([_squared_norm(data, a * m, f) for a, m, f in
                                   zip(probabilities, mean, effect_fits, strict=True)])
    coef = np.sum(probabilities * mean, axis=0) if inflate is not None else None
    for effect in range(probabilities.shape[0]) if effects is None else effects:
        weight = 1.0 if weights is None else weights[effect]
        fit -= weight * effect_fits[effect]
        xtr = _correlation_with_residual(data, fit if background is None else fit + background)
        variance = tempered
        if inflate is not None:
            coef = coef - probabilities[effect] * mean[effect]
            variance = tempered * inflate(fit, coef)
        single = single_effect_regression(xtr, data.d, variance, prior_variance[effect],
                                          data.log_prior, rule=rule,
                                          log_null_prior=data.log_null_prior)
        probabilities[effect], mean[effect] = single.probabilities, single.mean
        second_moment[effect] = single.second_moment
        prior_variance[effect] = single.prior_variance
        null_alpha[effect] = single.null_probability
        values = single.probabilities * single.mean
        effect_fits[effect] = design_times(data, values)
        kl[effect] = single_effect_kl(single, xtr, data.d, variance)
        effect_squares[effect] = _squared_norm(data, values, effect_fits[effect])
        if weights is not None:  # SuSiE-ash's slot weight, from the SER's evidence
            weight = weights[effect] = slot_weight(weights, effect, single.log_evidence)
        fit += weight * effect_fits[effect]
        if inflate is not None:
            coef = coef + values
    erss = expected_residual_sum_of_squares(data, fit, effect_squares, probabilities, mean,
                                            second_moment, weights, state.ash)
    return (state._replace(probabilities=probabilities, mean=mean, second_moment=second_moment,
                           prior_variance=prior_variance, kl=kl, residual_variance=sigma2,
                           fit=fit, erss=erss, effect_fits=effect_fits,
                           null_alpha=null_alpha, slot_weights=weights),
            ibss_objective(data, erss, sigma2, kl, alpha))


def inclusion_probabilities(alpha, prior_variance, threshold=PRIOR_VARIANCE_TOLERANCE):
    """PIPs ``1 - prod_l (1 - alpha_lj)`` over the effects with ``V_l > threshold``."""
    kept = alpha[prior_variance > threshold]
    return 1.0 - np.prod(1.0 - kept, axis=0)


def credible_sets(alpha, prior_variance, X=None, coverage=0.95, min_abs_corr=0.5, *,
                  correlation=None, n_purity=100, random_state=None,
                  threshold=PRIOR_VARIANCE_TOLERANCE, null_alpha=None):
    """susieR's ``susie_get_cs``: per effect with ``V_l > threshold``, its fewest variables
    whose ``alpha_lj`` reach ``coverage``; duplicates dropped (the first kept); each set's
    purity (min, mean, median absolute correlation of its variables; 1 for one variable);
    the sets with purity at least ``min_abs_corr``, purest first. With ``null_alpha`` (L,),
    the null variable's probabilities (``null_weight``), the null variable takes part in
    each set and a set that holds it is dropped (susieR gives it purity -9).

    The correlations are those of the columns of ``X`` (Pearson's), or
    ``correlation(variables)``, the matrix of absolute correlations of a list of variables
    (from an LD matrix, or data already centred). A set of more than ``n_purity`` variables
    is judged by ``n_purity`` of them drawn at random (``random_state``), as susieR does.

    Returns
    -------
    list of dict
        ``effect``, ``variables`` (sorted), ``coverage`` (their summed ``alpha_l``),
        ``min_abs_corr``, ``mean_abs_corr``, ``median_abs_corr``.
    """
    if correlation is None:
        def correlation(variables):
            return np.abs(np.corrcoef(X[:, variables], rowvar=False))
    rng = np.random.default_rng(random_state)
    p = alpha.shape[1]
    if null_alpha is not None:
        alpha = np.column_stack([alpha, null_alpha])
    sets, seen = [], set()
    for effect in np.flatnonzero(prior_variance > threshold):
        order = np.argsort(-alpha[effect], kind="stable")
        size = int(np.sum(np.cumsum(alpha[effect][order]) < coverage)) + 1
        variables = tuple(sorted(order[:size].tolist()))
        if variables in seen:
            continue
        seen.add(variables)
        if variables[-1] >= p:  # the null variable
            continue
        if len(variables) == 1:
            purity = (1.0, 1.0, 1.0)
        else:
            judged = list(variables)
            if len(judged) > n_purity:
                judged = sorted(rng.choice(judged, size=n_purity, replace=False).tolist())
            upper = correlation(judged)[np.triu_indices(len(judged), 1)]
            purity = (float(upper.min()), float(upper.mean()), float(np.median(upper)))
        if purity[0] >= min_abs_corr:
            sets.append({"effect": int(effect), "variables": list(variables),
                         "coverage": float(alpha[effect][list(variables)].sum()),
                         "min_abs_corr": purity[0], "mean_abs_corr": purity[1],
                         "median_abs_corr": purity[2]})
    return sorted(sets, key=lambda found: -found["min_abs_corr"])
