"""The exact alpha-posterior of a SuSiE fit's effects, by collapsed Gibbs sampling.

With the fit's hyper-parameters held (the residual variance ``sigma2``, the prior variances
``V_l`` of the kept effects, the prior weights ``pi``), SuSiE's model (Wang et al. 2020,
eqs. 2.4-2.6) with the likelihood raised to ``alpha`` is a Gaussian linear model once the
positions ``gamma = (gamma_1, ..., gamma_L)`` of the effects are given: the coefficients of
the distinct variables ``T`` they occupy are ``N(0, D)``, ``D_t`` the summed ``V_l`` of the
effects at ``t``, and the noise variance is ``s2 = sigma2 / alpha``. Integrating them out,
with ``A = D^{-1} + Z_T' Z_T / s2`` and ``u = Z_T' y / s2``::

    log p(gamma | y) = sum_l log pi_{gamma_l} - (log|D| + log|A|) / 2 + u' A^{-1} u / 2 + c,

and ``b_T | gamma, y ~ N(A^{-1} u, A^{-1})``. The product ``q = prod_l q(gamma_l, b_l)``
that the fit maximises over cannot say "effect 1 at ``j`` only when effect 2 is not"
(correlated variables shared between effects), which this joint posterior says.

The sampler updates one effect's position at a time from its full conditional over the
``p`` variables and the null variable (``null_weight``): with the other effects' factor
``A_{-l} = L L'`` and ``w = L^{-1} u``, a variable ``j`` outside their support adds the row
``a = Z_T' z_j / s2`` and the Schur complement ``s_j = 1 / V_l + z_j'z_j / s2 - |L^{-1}
a|^2``, so ``log|A|`` grows by ``log s_j`` and ``u'A^{-1}u`` by ``(u_j - (L^{-1} a)'w)^2 /
s_j``: ``O(p k^2)`` per update for ``k`` occupied variables; joining a variable another
effect holds adds ``V_l`` to its ``D_t``. The rows ``Z'z_t`` are computed once for each
variable an effect visits (a bounded cache). The inclusion probabilities are
Rao-Blackwellised (each update's conditional probabilities); the mass of an interval of
``b_j`` is the conditional normal's, averaged over sweeps.
"""

import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

# the rows Z'z_t the sampler keeps at once (bytes; at least 4 rows per effect)
ROW_CACHE_BYTES = 64e6
# the fit-time check: chains, sweeps discarded, sweeps kept per chain
CHECK_CHAINS = 2
CHECK_TUNE = 50
CHECK_SWEEPS = 200
# one candidate's score in the sampler (a log, an exp, a division: about 30 ns here) costs
# as much as this many of the fit's multiply-adds (BLAS products, about 0.3 ns), measured on
# N3finemapping (there check_cost_share predicts 1.5-8.7 where the measured ratio is
# 0.3-8.1: it errs towards skipping the check, most with one or two effects)
CANDIDATE_WORK = 100.0


def check_cost_share(n_iter, n_effects, n_kept, n_rows):
    """The check's predicted work over the fit's: ``CHECK_CHAINS (CHECK_TUNE +
    CHECK_SWEEPS) L' p`` candidate scores of ``CANDIDATE_WORK`` each against ``n_iter L``
    single-effect regressions of ``2 n p`` multiply-adds (``n_rows`` is ``n``, or ``p`` for
    sufficient statistics, whose products are ``p x p``)."""
    check = CHECK_CHAINS * (CHECK_TUNE + CHECK_SWEEPS) * n_kept * CANDIDATE_WORK
    fit = max(n_iter, 1) * max(n_effects, 1) * 2.0 * n_rows
    return check / fit


@dataclass(frozen=True)
class SingleEffectTarget:
    """The collapsed target of a SuSiE fit (module docstring), on the fit's scaled columns:
    ``Z`` (n, p) of individual data or ``gram`` with ``gram_scale`` (``Z'Z = diag(c) gram
    diag(c)``); ``zty``, ``d = diag(Z'Z)``, ``log_prior`` (p,), ``log_null`` (-inf without
    a null variable), the kept effects' ``variances`` and ``s2 = sigma2 / alpha``."""

    Z: np.ndarray
    gram: np.ndarray
    gram_scale: np.ndarray
    zty: np.ndarray
    d: np.ndarray
    log_prior: np.ndarray
    log_null: float
    variances: np.ndarray
    s2: float

    @classmethod
    def of_fit(cls, ibss, state, alpha, kept):
        """The target of a fit's data (:class:`~alphavb.linear_model._susie.IBSSData`) and
        final state (``kept``: the effects above the prior-variance floor)."""
        p = ibss.d.shape[0]
        if ibss.Z is not None:
            Z = ibss.Z if (ibss.Z.flags.c_contiguous or ibss.Z.flags.f_contiguous) \
                else np.ascontiguousarray(ibss.Z)
            gram, gram_scale, zty = np.zeros((0, 0)), np.ones(p), Z.T @ ibss.y
        else:
            gram = np.asarray(ibss.gram)
            if gram.dtype not in (np.float32, np.float64):  # (the caller's LD: no copy of it)
                gram = gram.astype(float)
            Z = np.zeros((0, 0))
            gram_scale = (np.ones(p) if ibss.gram_columns is None
                          else np.asarray(ibss.gram_columns, dtype=float))
            zty = np.asarray(ibss.zty, dtype=float)
        return cls(Z.astype(float, copy=False), gram, gram_scale, zty, ibss.d,
                   np.asarray(ibss.log_prior, dtype=float), float(ibss.log_null_prior),
                   np.asarray(state.prior_variance, dtype=float)[kept],
                   float(state.residual_variance) / float(alpha))

    @property
    def n_features(self):
        return self.d.shape[0]


@dataclass(frozen=True)
class SingleEffectChains:
    """What :func:`run_chains` returns: per chain the kept sweeps' ``positions`` (chain,
    draw, effect; ``p`` is the null variable), ``log_posterior`` (chain, draw), ``coef``
    (chain, draw, p) on the scaled columns or None; the Rao-Blackwellised
    ``inclusion_probabilities`` (chain, p) and the exact ``interval_mass`` (p,) of the
    intervals given, over all chains."""

    positions: np.ndarray
    log_posterior: np.ndarray
    coef: np.ndarray | None
    inclusion_probabilities: np.ndarray
    interval_mass: np.ndarray

    @property
    def n_models(self):
        """Distinct sets of variables the kept sweeps visited."""
        flat = np.sort(self.positions.reshape(-1, self.positions.shape[-1]), axis=1)
        return len(np.unique(flat, axis=0))


def starting_positions(probabilities, null_probabilities, n_chains, rng):
    """One start per chain: the first at each effect's most probable variable, the others
    drawn from ``q`` (``probabilities`` (L, p) of the kept effects, their null variable's
    ``null_probabilities`` (L,), position ``p``)."""
    full = np.column_stack([probabilities, null_probabilities])
    full = full / full.sum(axis=1, keepdims=True)
    starts = [np.argmax(full, axis=1)]
    for _ in range(1, n_chains):
        cumulative = np.cumsum(full, axis=1)
        starts.append(np.minimum((cumulative < rng.random_sample((len(full), 1))).sum(axis=1),
                                 full.shape[1] - 1))
    return [start.astype(np.int64) for start in starts]


def run_chains(target, starts, n_sweeps, n_tune, rng, lower=None, upper=None,
               draw_coef=False):
    """Run one chain of :func:`~alphavb.linear_model._susie_exact_kernels.single_effect_gibbs`
    from each start; ``lower``, ``upper`` (p,) the intervals whose exact mass is measured
    (on the scaled columns)."""
    from ._susie_exact_kernels import single_effect_gibbs

    p = target.n_features
    lower = np.zeros(p) if lower is None else np.ascontiguousarray(lower, dtype=float)
    upper = np.zeros(p) if upper is None else np.ascontiguousarray(upper, dtype=float)
    n_effects = len(target.variances)
    capacity = int(min(p, max(4 * n_effects + 4, ROW_CACHE_BYTES // (8 * p))))
    out = {"positions": [], "log_posterior": [], "coef": [], "inclusion": []}
    in_count, in_mass, zero_count = np.zeros(p), np.zeros(p), np.zeros(p)
    for start in starts:
        positions = np.array(start, dtype=np.int64)
        kept_positions = np.zeros((n_sweeps, n_effects), dtype=np.int64)
        log_posterior = np.zeros(n_sweeps)
        coef = np.zeros((n_sweeps if draw_coef else 0, p))
        inclusion = np.zeros(p)
        status = single_effect_gibbs(
            target.Z, target.gram, target.gram_scale, target.zty, target.d, target.log_prior,
            target.log_null, target.variances, target.s2, positions, n_sweeps, n_tune,
            int(rng.randint(2**31 - 1)), lower, upper, capacity, kept_positions,
            log_posterior, coef, inclusion, in_count, in_mass, zero_count)
        if status != 0:
            raise FloatingPointError(
                "the SuSiE sampler met a set of variables whose posterior precision "
                "D^{-1} + Z_T'Z_T / s2 is singular in floating point: identical or collinear "
                f"columns held by two effects with a noise variance s2 = {target.s2:.3g} too "
                "small beside their sums of squares")
        out["positions"].append(kept_positions)
        out["log_posterior"].append(log_posterior)
        out["coef"].append(coef)
        out["inclusion"].append(inclusion / max(n_sweeps * n_effects, 1))
    n_kept = n_sweeps * len(starts)
    return SingleEffectChains(
        np.stack(out["positions"]), np.stack(out["log_posterior"]),
        np.stack(out["coef"]) if draw_coef else None, np.stack(out["inclusion"]),
        (in_mass + zero_count) / n_kept)


def susie_check(estimator, data, state, rng):
    """The :class:`~alphavb._approximation.ApproximationCheck` of a SuSiE fit: a short run
    of the sampler (``CHECK_CHAINS`` chains of ``CHECK_SWEEPS`` sweeps after
    ``CHECK_TUNE``) from the fit's most probable positions and from a draw of ``q``, for
    the fit's PIPs and 95% intervals (whose time it counts); None where the sampler meets a
    numerically singular model (identical columns with a noise variance near 0)."""
    from .._approximation import CHECK_LEVEL, ApproximationCheck
    from ..base import feature_labels

    started = time.perf_counter()
    kept = estimator.kept_effects_
    names = tuple(str(name) for name in feature_labels(estimator))
    pips = np.array(estimator.inclusion_probabilities_, dtype=float)  # a copy: the check's
    if not kept.any():  # no effect: both posteriors are the prior's point mass at 0
        return ApproximationCheck(
            method="no effect above the prior-variance floor", feature_names=names,
            variational_pips=pips, exact_pips=np.zeros_like(pips),
            interval_mass=np.ones_like(pips), level=CHECK_LEVEL, n_models=1,
            seconds=time.perf_counter() - started, cause=SUSIE_CAUSE)
    target = SingleEffectTarget.of_fit(data.ibss, state, estimator.alpha, kept)
    starts = starting_positions(state.probabilities[kept], state.null_alpha[kept], CHECK_CHAINS,
                                rng)
    scaled = estimator.credible_intervals(CHECK_LEVEL) * data.scale[:, None]
    try:
        chains = run_chains(target, starts, CHECK_SWEEPS, CHECK_TUNE, rng, scaled[:, 0],
                            scaled[:, 1])
    except FloatingPointError:  # the fit stands; its check cannot be computed
        return None
    return ApproximationCheck(
        method=(f"collapsed Gibbs over the single effects at the fit's variances, "
                f"{CHECK_CHAINS} chains of {CHECK_SWEEPS} sweeps"),
        feature_names=names, variational_pips=pips,
        exact_pips=chains.inclusion_probabilities.mean(axis=0),
        interval_mass=chains.interval_mass, level=CHECK_LEVEL, n_models=chains.n_models,
        seconds=time.perf_counter() - started, cause=SUSIE_CAUSE)


# inside capture_targets(): the list the fits append their (target, q's probabilities) to
_CAPTURED = ContextVar("alphavb_susie_targets", default=None)


@contextmanager
def capture_targets():
    """Collect the collapsed target of every SuSiE fit inside (``(target, probabilities,
    null_probabilities)`` of its kept effects, or None where the fit has no exact target):
    :func:`alphavb.exact.sample_exact` fits the model and samples its effects."""
    found = []
    token = _CAPTURED.set(found)
    try:
        yield found
    finally:
        _CAPTURED.reset(token)


def offer_target(data, state, alpha, kept, exact):
    """Hand a finished fit's target to :func:`capture_targets` when one is collecting
    (``exact``: the fit's setting has the exact target of this module)."""
    found = _CAPTURED.get()
    if found is not None:
        found.append((SingleEffectTarget.of_fit(data.ibss, state, alpha, kept),
                      state.probabilities[kept], state.null_alpha[kept]) if exact else None)


SUSIE_CAUSE = ("the usual cause: correlated variables whose effects q splits between its "
               "single effects independently, where the exact posterior ties them")
