"""The adaptive-shrinkage background of SuSiE-ash on the alpha-VB objective: the math.

Model (susieR 0.16.5's ``unmappable_effects = "ash"``; its background is Mr.ASH, Kim, Wang,
Carbonetto & Stephens 2024, JASA 119:2557)::

    y = Z sum_l c_l b_l + Z theta + e,          e ~ N(0, sigma2 I_n),
    theta_j ~iid sum_k pi_k N(0, sigma2 s_k),   s_1 = 0 < s_2 < ... < s_K,
    c_l | rho ~ Bernoulli(rho),  rho ~ Beta(1, 2)   (the slot prior),

``b_l`` the single effects (:mod:`alphavb.linear_model._susie`), ``theta`` a dense
background with a mixture-of-normals prior whose weights ``pi`` are estimated (empirical
Bayes), ``c_l`` whether effect ``l`` is in the model at all. The grid is Mr.ASH's,
``s_k = (2^((k - 1) / 25) - 1)^2 n / median_j(w_j)``, ``k = 1..25``, ``w_j = z_j'z_j``.

The fit is not the ascent of one objective: it alternates, as susieR does,

1. a sweep of the single effects on ``y - Z theta_hat`` (``theta_hat`` the background's
   posterior mean), each effect against the others' fits weighted by their slot weights
   ``c_l = q(c_l = 1)``; after effect ``l``'s SER, ``logit c_l = log(1 + k_{-l}) - log(2 +
   L - 1 - k_{-l}) + lbf_l`` (``k_{-l} = sum_{m != l} c_m``, ``lbf_l`` the SER's log
   evidence, the logit held within +-20);
2. between sweeps, Mr.ASH's coordinate ascent for ``theta`` (mean-field, ``q(theta_j) =
   sum_k phi_jk N(m_jk, v_jk)``, ``pi`` and ``sigma2`` by their M-steps) on the residual of
   the *confident* effects only, ``y - Z sum_{l confident} c_l E[b_l]``, with ``theta`` held
   at 0 on the *masked* variables: those in LD (``|r| > 0.5``) with an effect that is not
   yet resolved, so that the background does not absorb what the single effects are
   fine-mapping (:func:`masked_variables`: susieR's three cases, an effect diffuse (the
   purity of its 90% set below 0.1), uncertain (below 0.5, or it collided with another
   effect or flipped between cases) or confident; an uncertain effect's tight-LD block is
   exposed to the background after two steady iterations, and masked once more three
   iterations later; a variable unmasked after two unwanted iterations stays unmasked);
3. once the probabilities have converged, a last Mr.ASH fit on the residual of every
   effect, unmasked, which gives ``theta``, ``pi`` and ``tau2 = sigma2 sum_k pi_k s_k``.

The probabilities have converged (susieR 0.16.5's ``check_alpha_pip_cycle_convergence``)
when ``alpha`` and the PIPs are within ``tol`` of those of one of the last five sweeps: of
the last (a fixed point) or of the one ``lag = 2..5`` sweeps back (a cycle, which the
masking's memory can drive), whose ``alpha`` is then the mean of the cycle's ``lag`` sweeps
(the effects' means and slot weights the last sweep's) before step 3.

The PIPs are ``1 - prod_l (1 - c_l alpha_lj)``; the credible sets read ``alpha_l`` alone.

alpha-VB raises the likelihood to the temperature ``alpha``. The single effects see ``sigma2 /
alpha`` (as without a background), and Mr.ASH runs on the tempered likelihood of ``theta``
with the grid of the untempered ``w`` (the prior does not change with ``alpha``). With
``xr_j = z_j'(y - Z theta_{-j} - ...)``:

    m_jk  = alpha xr_j s_k / (1 + alpha w_j s_k),   v_jk = sigma2 s_k / (1 + alpha w_j s_k),
    log phi_jk = log pi_k - 1/2 log(1 + alpha w_j s_k) + alpha^2 xr_j^2 s_k
                 / (2 sigma2 (1 + alpha w_j s_k)),
    sigma2 = (||r||^2 - sum_j w_j E[theta_j]^2 + sum_j xr_j E[theta_j]) / n,

the last the power likelihood's M-step (the ``alpha n / 2 log sigma2`` of the tempered
likelihood makes the ``alpha`` cancel). At ``alpha = 1`` these are Mr.ASH's updates (its
``caisa`` on rows; on sufficient statistics ``mr_ash_sufficient``, whose ``sigma2`` update
is ``(y'y - theta' Z'y) / n``, with a uniform start of ``pi`` and at least two sweeps).
Mr.ASH stops when ``theta`` moves by less than ``tol max(u, ||theta||)``: susieR's
``max(1, ||theta||)`` in the units of ``theta``, ``u = sd(y)`` over the root mean
column variance (the square root of the fit's variance unit; ``sd(y)``, to rounding, for
standardized columns), so that the fit is the same in any units of ``y`` and ``X`` (and
susieR's for standardized columns and ``y`` of sd 1); ``tau2`` reads ``sigma2`` after its
bounds (susieR's before: on summary statistics Mr.ASH's ``sigma2`` can fall below 0 when
``z`` and ``R`` disagree).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ._susie import design_times, held_within

# susieR 0.16.5's constants of the masking (update_ash_variance_components)
PURITY_THRESHOLD = 0.5  # an effect's 90% set at least this pure can be confident
DIFFUSE_PURITY = 0.1  # below it: diffuse
PIP_THRESHOLD = 0.1  # a variable whose protected PIP exceeds it is masked
LD_THRESHOLD = 0.5  # |r| of an LD neighbourhood
WORKING_COVERAGE = 0.9  # the working credible set whose purity is read
NEIGHBOURHOOD_PIP = 0.4  # a neighbourhood with more protected PIP is masked
COLLISION_LD = 0.9  # two effects' sentinels in this LD collide
TIGHT_LD = 0.95  # the block exposed by wait-then-expose
STEADY_ITERATIONS = 2  # an uncertain effect's steady iterations before its block is exposed
SECOND_CHANCE_WAIT = 3  # iterations after an exposure before the block is masked again
UNMASK_DELAY = 2  # iterations a masked variable is unwanted before it is unmasked
ACTIVE_SPREAD = 5e-5  # an effect is active when its probabilities spread at least this much
GRID_SIZE = 25
MIXTURE_EPSILON = 1e-12  # Mr.ASH's epstol on rows
INNER_MAX_ITER = 1000


def mixture_grid(d, n_samples):
    """Mr.ASH's grid ``s_k = (2^((k - 1) / 25) - 1)^2 n / median(d)``, ``k = 1..25``, the
    median over the columns with data (susieR's over all: 0, and an infinite grid, when
    more than half are constant)."""
    steps = (2.0 ** (np.arange(GRID_SIZE) / GRID_SIZE) - 1.0) ** 2
    informative = d[d > 0]
    return steps * float(n_samples) / (float(np.median(informative)) if informative.size
                                       else 1.0)


class AshBackground(NamedTuple):
    """What the background reads of one fit's data: the variables' ``correlation`` (p, p;
    0 with a constant column, 1 on the diagonal), Mr.ASH's ``grid`` (K,), on rows ``Z'``
    (p, n; each variable's column contiguous) and the unit of ``theta``'s stopping rule,
    ``sd(y)`` over the root mean column variance (module docstring)."""

    correlation: np.ndarray
    grid: np.ndarray
    transposed: np.ndarray | None
    unit: float


@njit(cache=True)
def _to_correlation(gram, informative):
    """``gram``'s upper triangle (as BLAS's ``syrk`` leaves it) made the full correlation
    matrix in place: 0 at an uninformative column, 1 on the diagonal."""
    p = gram.shape[0]
    scale = np.zeros(p)
    for j in range(p):
        if informative[j]:
            scale[j] = 1.0 / np.sqrt(gram[j, j])
    for j in range(p):
        for i in range(j):
            value = gram[i, j] * scale[i] * scale[j]
            gram[i, j] = value
            gram[j, i] = value
        gram[j, j] = 1.0
    return gram


@njit(cache=True)
def _neighbourhood_sums(correlation, values):
    """``(|R| > 0.5) values``: each variable's sum of ``values`` over its LD neighbours."""
    p = correlation.shape[0]
    sums = np.zeros(p)
    for j in range(p):
        if values[j] != 0.0:
            for i in range(p):  # R is symmetric: row j is column j
                if abs(correlation[j, i]) > LD_THRESHOLD:
                    sums[i] += values[j]
    return sums


_LAST_CORRELATION = {}  # the last design's digest, its correlation and (rows) Z'


def ash_background(data):
    """The :class:`AshBackground` of an :class:`~alphavb.linear_model._susie.IBSSData`; the
    correlation (and on rows ``Z'``) of the last design is kept, as SuSiE-inf's
    eigenstructure (:func:`~alphavb.linear_model._susie_inf.design_key`), so the fits of a
    selection of alpha compute them once. From rows it is BLAS's ``syrk`` (half of
    ``Z'Z``)."""
    from scipy.linalg import blas

    from ._susie_inf import design_key

    design = data.Z if data.gram is None else data.gram
    key = (*design_key(design, data.gram is not None),
           None if data.gram_columns is None else data.gram_columns.tobytes())
    if _LAST_CORRELATION.get("key") != key:
        transposed = np.ascontiguousarray(data.Z.T) if data.gram is None else None
        if data.gram is None:
            gram = blas.dsyrk(1.0, transposed.T, trans=1)
        else:
            gram = np.array(data.gram, dtype=float, order="C")
        correlation = _to_correlation(gram, data.d > 0)  # symmetric: its transpose is
        if not correlation.flags.c_contiguous:  # the row-ordered array the masking reads
            correlation = correlation.T
        _LAST_CORRELATION.clear()
        _LAST_CORRELATION.update(key=key, value=(correlation, transposed))
    correlation, transposed = _LAST_CORRELATION["value"]
    return AshBackground(correlation, mixture_grid(data.d, data.n_samples), transposed,
                         float(np.sqrt(data.variance_unit)))


class AshState(NamedTuple):
    """The background's state between sweeps: ``theta`` (p,) its posterior mean, ``fit``
    ``Z theta`` (n,) or ``Z'Z theta`` (p,), Mr.ASH's mixture ``weights`` (K,; None before
    the first fit), ``tau2``, the iteration count and the masking's memory (susieR's
    ``prev_case``, ``prev_sentinel``, ``ever_diffuse``, ``diffuse_iter_count`` per effect;
    ``masked``, ``ever_unmasked``, ``unmask_candidate_iters``, ``force_exposed_iter``,
    ``second_chance_used`` per variable)."""

    theta: np.ndarray
    fit: np.ndarray
    weights: np.ndarray | None
    tau2: float
    iteration: int
    previous_case: np.ndarray
    previous_sentinel: np.ndarray
    ever_diffuse: np.ndarray
    steady: np.ndarray
    masked: np.ndarray
    ever_unmasked: np.ndarray
    unwanted: np.ndarray
    exposed_at: np.ndarray
    second_chance_used: np.ndarray


def ash_start(state, p):
    """The single effects' start ``state`` (of ``p`` variables) with SuSiE-ash's: the slot
    weights at the prior mean of the slot prior (susieR's, below 1) and the background's."""
    from ._susie import SLOT_PRIOR

    a, b = SLOT_PRIOR
    n_effects = state.probabilities.shape[0]
    weights = np.full(n_effects, min(a / (a + b), 1.0 - 1e-10))
    # the fit weighted by them (susieR's recompute_fitted_weighted): a start from init's
    # effects kept them at weight 1 in the fit, and each sweep took away only their share
    # c_l, leaving the rest of its own effect in its residual (the fits fell apart)
    return state._replace(slot_weights=weights, fit=weights @ state.effect_fits,
                          ash=initial_ash_state(n_effects, p, state.fit.shape[0]))


def initial_ash_state(n_effects, p, fit_size):
    """The background before the first sweep: theta 0, nothing masked, no history."""
    effects, variables = np.zeros(n_effects, dtype=np.int64), np.zeros(p, dtype=np.int64)
    return AshState(np.zeros(p), np.zeros(fit_size), None, 0.0, 0, effects,
                    effects - 1, effects.copy(), effects.copy(), np.zeros(p, dtype=bool),
                    np.zeros(p, dtype=bool), variables, variables.copy(),
                    np.zeros(p, dtype=bool))


@njit(cache=True)
def _coordinate_tables(w, grid, temperature):
    """What a Mr.ASH sweep reads per variable and component and that no sweep changes
    (``w``, the grid and ``alpha`` are fixed within a fit), computed once per call instead
    of in every sweep: ``log(1 + alpha w_j s_k)`` (``log_scale``), the posterior mean's
    factor ``s_k / (1 + alpha w_j s_k)`` (``shrink``) and the entropy's ``log(1/s_k + alpha
    w_j)`` (``k > 0``; ``log_precision``), each (p, K)."""
    p, K = w.shape[0], grid.shape[0]
    log_scale, shrink, log_precision = np.empty((p, K)), np.empty((p, K)), np.zeros((p, K))
    for j in range(p):
        tempered_w = temperature * w[j]
        for k in range(K):
            shrink[j, k] = grid[k] / (1.0 + tempered_w * grid[k])
            log_scale[j, k] = np.log(1.0 + tempered_w * grid[k])
            if k > 0:
                log_precision[j, k] = np.log(1.0 / grid[k] + temperature * w[j])
    return log_scale, shrink, log_precision


@njit(cache=True)
def _mixture_coordinate(xr, log_scale, shrink, log_weights, sigma2, temperature, phi):
    """One coordinate of Mr.ASH (module docstring): fills ``phi`` (K,) with ``q(k)`` and
    returns ``E[theta_j]``; ``xr`` is ``z_j'`` times the residual without ``theta_j``,
    ``log_scale`` and ``shrink`` the variable's rows of :func:`_coordinate_tables`."""
    tempered_xr = temperature * xr
    largest = -np.inf
    K = shrink.shape[0]
    means = np.empty(K)
    for k in range(K):
        means[k] = tempered_xr * shrink[k]
        phi[k] = (log_weights[k] - 0.5 * log_scale[k]
                  + means[k] * tempered_xr / (2.0 * sigma2))
        largest = max(largest, phi[k])
    total = 0.0
    for k in range(K):
        phi[k] = np.exp(phi[k] - largest)
        total += phi[k]
    mean = 0.0
    for k in range(K):
        phi[k] /= total
        mean += phi[k] * means[k]
    return mean


@njit(cache=True)
def _rows_objective(fitted, sigma2, weights, grid, entropy, p, n_tempered):
    """Mr.ASH's negative ELBO after a sweep on rows (susieR's ``varobj``): ``fitted`` is
    ``alpha (||r||^2 - sum_j w_j theta_j^2) + sum_j alpha xr_j theta_j`` and ``entropy``
    the sweep's ``sum_jk phi_jk (log phi_jk + 1/2 log(1/s_k + alpha w_j))``."""
    objective = fitted / sigma2 / 2.0 + np.log(2.0 * np.pi * sigma2) / 2.0 * n_tempered
    for k in range(grid.shape[0]):
        objective -= p * weights[k] * np.log(weights[k] + MIXTURE_EPSILON)
        if k > 0:
            objective += weights[k] * np.log(grid[k]) * p / 2.0
    return objective + entropy


@njit(cache=True)
def _mr_ash_rows(Zt, residual, w, grid, weights, theta, sigma2, temperature, n, max_iter,
                 tol, unit, update_sigma):
    """Mr.ASH on rows (susieR's ``caisa_cpp``, ``sigma_dep_q``, variables in order) of
    ``Zt = Z'`` (p, n) and ``n`` observations (the total weight of weighted rows):
    ``residual`` is ``r0 - Z theta`` (changed in place). Stops when ``theta`` moves by less
    than ``tol max(unit, ||theta||)`` or the negative objective rises (keeping that
    sweep)."""
    p = Zt.shape[0]
    K = grid.shape[0]
    phi, log_weights = np.empty(K), np.empty(K)
    log_scale, shrink, log_precision = _coordinate_tables(w, grid, temperature)
    previous = np.inf
    for _ in range(max_iter):
        old_theta = theta.copy()
        for k in range(K):
            log_weights[k] = np.log(weights[k] + MIXTURE_EPSILON)
        new_weights = np.zeros(K)
        first, entropy = 0.0, 0.0
        for j in range(p):
            xr = theta[j] * w[j] + np.dot(Zt[j], residual)
            mean = _mixture_coordinate(xr, log_scale[j], shrink[j], log_weights, sigma2,
                                       temperature, phi)
            if mean != theta[j]:
                change = mean - theta[j]
                for i in range(residual.shape[0]):  # in place: no temporary row
                    residual[i] -= change * Zt[j, i]
            theta[j] = mean
            first += temperature * xr * mean
            for k in range(K):
                new_weights[k] += phi[k] / p
                entropy += phi[k] * np.log(phi[k] + MIXTURE_EPSILON)
                if k > 0:
                    entropy += 0.5 * phi[k] * log_precision[j, k]
        fitted = temperature * (np.dot(residual, residual) - np.dot(w, theta**2)) + first
        if update_sigma:
            sigma2 = fitted / (temperature * n)
        weights = new_weights
        objective = _rows_objective(fitted, sigma2, weights, grid, entropy, p,
                                    temperature * n)
        if np.sqrt(np.sum((theta - old_theta) ** 2)) < tol * max(unit, np.sqrt(
                np.sum(theta**2))) or objective > previous:
            break
        previous = objective
    return theta, weights, sigma2


@njit(cache=True)
def _mr_ash_gram(gram, columns, zty, yty, n, grid, weights, theta, sigma2, temperature,
                 max_iter, tol, unit, update_sigma):
    """Mr.ASH on sufficient statistics (susieR's ``mr_ash_sufficient``): ``Z'Z = diag(c)
    gram diag(c)`` (``c = columns``), ``Z'r0``, ``r0'r0``; at least two sweeps, then until
    ``theta`` moves by less than ``tol max(unit, ||theta||)``."""
    p = gram.shape[0]
    K = grid.shape[0]
    phi = np.empty(K)
    log_weights = np.empty(K)
    correlation = zty.copy()  # Z'(r0 - Z theta)
    diagonal = np.empty(p)
    for j in range(p):
        diagonal[j] = columns[j] * gram[j, j] * columns[j]
    log_scale, shrink, _ = _coordinate_tables(diagonal, grid, temperature)
    for j in range(p):
        if theta[j] != 0.0:
            for i in range(p):
                correlation[i] -= columns[i] * gram[i, j] * columns[j] * theta[j]
    for sweep in range(1, max_iter + 1):
        old_theta = theta.copy()
        for k in range(K):
            log_weights[k] = np.log(weights[k])
        new_weights = np.zeros(K)
        for j in range(p):
            xr = correlation[j] + diagonal[j] * theta[j]
            mean = _mixture_coordinate(xr, log_scale[j], shrink[j], log_weights, sigma2,
                                       temperature, phi)
            change = mean - theta[j]
            if change != 0.0:
                for i in range(p):
                    correlation[i] -= columns[i] * gram[i, j] * columns[j] * change
            theta[j] = mean
            for k in range(K):
                new_weights[k] += phi[k] / p
        weights = new_weights
        if update_sigma:
            sigma2 = (yty - np.dot(zty, theta)) / n
        moved = 0.0
        for j in range(p):
            moved += (theta[j] - old_theta[j]) ** 2
        if sweep >= 2 and np.sqrt(moved) < tol * max(unit, np.sqrt(np.sum(theta**2))):
            break
    return theta, weights, sigma2


@njit(cache=True)
def _purity(correlation, variables, floor):
    """``min |r|`` over the pairs of ``variables``; once below ``floor`` the search stops
    (the value is then some ``|r| < floor``, all that the masking reads)."""
    smallest = 1.0
    size = variables.shape[0]
    for a in range(size):
        row = variables[a]
        for b in range(a + 1, size):
            value = abs(correlation[row, variables[b]])
            if value < smallest:
                smallest = value
                if smallest < floor:
                    return smallest
    return smallest


def working_purities(correlation, alpha):
    """Each effect's sentinel (its most probable variable) and the purity of its working
    90% set (the most probable variables, one past 0.9 of the mass; 1 for one variable)."""
    L, p = alpha.shape
    purity = np.ones(L)
    for effect in range(L):
        order = np.argsort(-alpha[effect], kind="stable")
        size = min(int(np.sum(np.cumsum(alpha[effect, order]) <= WORKING_COVERAGE)) + 1, p)
        if size > 1:
            purity[effect] = _purity(correlation, order[:size], DIFFUSE_PURITY)
    return np.argmax(alpha, axis=1), purity


def masked_variables(background, alpha, mean, slot_weights, ash):
    """susieR 0.16.5's classification of the effects and the mask (module docstring): the
    confident effects' slot-weighted means (p,), which the background's residual leaves
    out, the masked variables (p,) and the masking's memory (an :class:`AshState` whose
    other fields are unchanged)."""
    correlation = background.correlation
    L, p = alpha.shape
    iteration = ash.iteration + 1
    sentinels, purity = working_purities(correlation, alpha)
    active = np.flatnonzero(alpha.max(axis=1) - alpha.min(axis=1) >= ACTIVE_SPREAD)
    ever_diffuse, steady = ash.ever_diffuse.copy(), ash.steady.copy()
    exposed_at = ash.exposed_at.copy()
    collision = np.zeros(L, dtype=bool)
    for effect in active:
        others = sentinels[active[active != effect]]
        if others.size and np.any(np.abs(correlation[sentinels[effect], others])
                                  > COLLISION_LD):
            collision[effect] = True
            ever_diffuse[effect] += 1
    confident = np.zeros(p)
    protected = np.zeros((L, p))
    force_unmask, force_mask = np.zeros(p, dtype=bool), np.zeros(p, dtype=bool)
    case = np.zeros(L, dtype=np.int64)
    for effect in range(L):
        sentinel, previous = sentinels[effect], ash.previous_sentinel[effect]
        if previous >= 0 and sentinel != previous and abs(
                correlation[sentinel, previous]) < TIGHT_LD:
            steady[effect] = 0
        ld = np.abs(correlation[sentinel])
        if purity[effect] < DIFFUSE_PURITY:  # diffuse: protect its sentinel's LD block
            case[effect], steady[effect] = 1, 0
            moderate = ld > LD_THRESHOLD
            kept = moderate | (alpha[effect] > 5.0 / p)
            protected[effect, kept] = alpha[effect, kept]
            force_mask |= moderate
        elif purity[effect] < PURITY_THRESHOLD or ever_diffuse[effect] > 0:  # uncertain
            case[effect] = 2
            if collision[effect]:
                steady[effect] = 0
                continue
            steady[effect] += 1
            protected[effect] = alpha[effect]
            if steady[effect] >= STEADY_ITERATIONS:  # wait, then expose its tight block
                expose = (ld > TIGHT_LD) & ~ash.second_chance_used
                newly = expose & (exposed_at == 0)
                exposed_at[newly] = iteration
                if newly.any():
                    steady[effect] = 0
                protected[effect, expose] = 0.0
                force_unmask |= expose
        else:  # confident: the background's residual leaves it out
            case[effect], steady[effect] = 3, 0
            protected[effect] = alpha[effect]
            confident += slot_weights[effect] * alpha[effect] * mean[effect]
    flipped = (ash.previous_case != 0) & (case != 0) & (
        ((ash.previous_case == 2) & (case == 3)) | ((ash.previous_case == 3) & (case == 2)))
    ever_diffuse[flipped] += 1
    for effect in np.flatnonzero(flipped & (case == 3)):
        confident -= slot_weights[effect] * alpha[effect] * mean[effect]
    protected_pips = 1.0 - np.prod(1.0 - protected, axis=0)
    neighbourhood = _neighbourhood_sums(correlation, protected_pips)
    wanted = ((neighbourhood > NEIGHBOURHOOD_PIP) | (protected_pips > PIP_THRESHOLD)
              | force_mask)
    unwanted = np.where(wanted | ~ash.masked, 0, ash.unwanted + 1)
    ready = ash.masked & (((unwanted >= UNMASK_DELAY) & ~ash.ever_unmasked) | force_unmask)
    ever_unmasked = ash.ever_unmasked | ready
    masked = (ash.masked | wanted) & ~ready & ~ever_unmasked
    second_chance_used = ash.second_chance_used.copy()
    restore = (exposed_at > 0) & (iteration - exposed_at >= SECOND_CHANCE_WAIT) \
        & ~second_chance_used
    second_chance_used |= restore
    exposed_at[restore] = 0
    ever_unmasked[restore] = False
    masked[restore] = True
    memory = ash._replace(iteration=iteration, previous_case=case,
                          previous_sentinel=sentinels, ever_diffuse=ever_diffuse,
                          steady=steady, masked=masked, ever_unmasked=ever_unmasked,
                          unwanted=unwanted, exposed_at=exposed_at,
                          second_chance_used=second_chance_used)
    return confident, masked, memory


def mr_ash(data, background, leave_out, theta, weights, sigma2, temperature, tol,
           update_sigma):
    """Mr.ASH (module docstring) of the residual ``y - Z leave_out`` from ``theta`` and the
    mixture ``weights`` (None: Mr.ASH's start), on rows or sufficient statistics: the
    background's posterior mean, its mixture weights and ``sigma2``."""
    grid, theta = background.grid, np.array(theta, dtype=float)
    if data.gram is None:
        residual = data.y - data.Z @ (leave_out + theta)
        informative = data.d > 0  # the variables with data (a constant one has none)
        if weights is None and not informative.any():  # no data on any variable
            weights = np.full(grid.shape[0], 1.0 / grid.shape[0])
        if weights is None:  # susieR's mr.ash start: q(k) of theta's start, averaged over
            spread = (1.0 / (temperature * data.d[informative, None]) + grid[None, :]) \
                * sigma2
            log_phi = -theta[informative, None] ** 2 / spread / 2.0 - np.log(spread) / 2.0
            phi = np.exp(log_phi - log_phi.max(axis=1, keepdims=True))
            weights = (phi / phi.sum(axis=1, keepdims=True)).mean(axis=0)
        return _mr_ash_rows(background.transposed, residual, data.d, grid,
                            np.array(weights, dtype=float), theta, float(sigma2),
                            float(temperature), float(data.n_samples), INNER_MAX_ITER,
                            float(tol), background.unit, update_sigma)
    left_fit = design_times(data, leave_out)
    zty = data.zty - left_fit
    yty = float(data.yty) - 2.0 * float(leave_out @ data.zty) + float(leave_out @ left_fit)
    if weights is None:
        weights = np.full(grid.shape[0], 1.0 / grid.shape[0])
    columns = np.ones(data.d.shape[0]) if data.gram_columns is None else data.gram_columns
    return _mr_ash_gram(np.asarray(data.gram, dtype=float), columns, zty, yty,
                        float(data.n_samples), grid, np.array(weights, dtype=float), theta,
                        float(sigma2), float(temperature), INNER_MAX_ITER, float(tol),
                        background.unit, update_sigma)


def ash_update(data, background, state, temperature, update_sigma=True,
               residual_variance_bounds=(0.0, None)):
    """The background's update between sweeps (module docstring, step 2): the mask, then
    Mr.ASH on the residual of the confident effects, ``theta`` 0 where masked. Returns the
    state with the new background, ``sigma2`` (held within its bounds) and ``tau2``."""
    ash = state.ash
    confident, masked, ash = masked_variables(background, state.probabilities, state.mean,
                                              state.slot_weights, ash)
    tol = 1e-3 if ash.iteration < 2 else 1e-4
    theta, weights, sigma2 = mr_ash(data, background, confident,
                                    np.where(masked, 0.0, ash.theta), ash.weights,
                                    state.residual_variance, temperature, tol, update_sigma)
    theta[masked] = 0.0
    ash, sigma2 = _fitted_background(data, background, ash, theta, weights, sigma2,
                                     residual_variance_bounds)
    return state._replace(residual_variance=sigma2, ash=ash, infinitesimal_variance=ash.tau2)


def _fitted_background(data, background, ash, theta, weights, sigma2, bounds):
    """``ash`` with Mr.ASH's ``theta``, its fit and mixture ``weights``, and ``tau2 =
    sigma2 sum_k pi_k s_k`` at Mr.ASH's ``sigma2`` held within ``bounds``; and that
    ``sigma2``."""
    sigma2 = float(held_within(sigma2, bounds))
    tau2 = float(sigma2 * np.sum(background.grid * weights))
    return ash._replace(theta=theta, fit=design_times(data, theta), weights=weights,
                        tau2=tau2), sigma2


def final_ash_pass(data, background, state, temperature, update_sigma=True,
                   residual_variance_bounds=(0.0, None)):
    """Step 3 (module docstring), after a cycle's ``alpha`` is averaged
    (:func:`~alphavb.linear_model._susie.cycle_mean`, as for every fit that stops on its
    probabilities): Mr.ASH on the residual of every single effect (their means, without
    the slot weights, as susieR), nothing masked; ``sigma2`` is kept (``tau2`` reads
    Mr.ASH's, held within its bounds)."""
    ash = state.ash
    coef = np.sum(state.probabilities * state.mean, axis=0)
    theta, weights, sigma2 = mr_ash(data, background, coef, ash.theta, ash.weights,
                                    state.residual_variance, temperature, 1e-4, update_sigma)
    ash, _ = _fitted_background(data, background, ash, theta, weights, sigma2,
                                residual_variance_bounds)
    return state._replace(ash=ash, infinitesimal_variance=ash.tau2)
