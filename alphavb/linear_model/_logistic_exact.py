"""The exact alpha-posterior of an :class:`~alphavb.AlphaSuSiEClassifier` fit's effects, by
Polya-Gamma Gibbs sampling at the fit's prior variances, and the fit-time check built on it.

Polson, Scott & Windle (2013), Theorem 1 with ``b = alpha``: given ``omega_i ~ PG(alpha,
psi_i)`` the tempered logistic likelihood is Gaussian in the logit ``psi``, with precision
``omega_i`` and pseudo-response ``z_i = alpha (y_i - 1/2) / omega_i``. With the flat
coefficients ``gamma`` (intercept, covariates ``F``) integrated out by the weighted
projection ``P v = v - F A^{-1} F' Omega v`` (``A = F' Omega F``), the effects' positions and
coefficients have SuSiE's collapsed target on the rows ``sqrt(omega_i) (P X, P z)_i`` with
unit noise (:mod:`alphavb.linear_model._susie_exact`), whose sweep updates the positions
and draws ``b``; then ``gamma | b, omega ~ N(A^{-1} F' Omega (z - X b), A^{-1})`` and
``omega | psi ~ PG(alpha, psi)`` (the ``polyagamma`` package, ``pip install
"alphavb[exact]"``). The sweep leaves the joint alpha-posterior invariant.
"""

import time

import numpy as np
from scipy.linalg import cho_solve, cholesky, solve_triangular

from ._susie import prior_log_weights
from ._susie_exact import SingleEffectTarget, run_chains, starting_positions

# the fit-time check: chains, sweeps discarded, sweeps kept per chain (as SuSiE's)
CHECK_CHAINS, CHECK_TUNE, CHECK_SWEEPS = 2, 50, 200
# the smallest shape the polyagamma package draws PG(shape, psi) for (it refuses <= 1e-4)
MIN_PG_SHAPE = 1e-4
CAUSE = ("the usual cause: correlated variables whose effects q splits between its single "
         "effects independently, and the bound's narrower curvature")


def polya_gamma_draws(model, data, n_chains, n_sweeps, n_tune, thin, rng, draw):
    """Draws of the exact alpha-posterior of a fitted classifier ``model`` on its prepared
    ``data`` (module docstring), each chain started from the fit's most probable positions
    or a draw of ``q``; ``draw`` is ``polyagamma.random_polyagamma``. Returns the kept
    sweeps' ``coef`` (chain, draw, p; on the standardized columns), ``flat`` (chain, draw,
    k), ``inclusion`` (0/1) and the Rao-Blackwellised inclusion probabilities averaged over
    batches of sweeps (chain, batch, p)."""
    alpha = float(model.alpha)
    kept = model.kept_effects_
    variances = model.prior_variances_[kept]
    _, log_prior, _ = prior_log_weights(data.X.shape[1], data.prior_weights)
    n_samples, n_features = data.X.shape
    F, kappa = data.F, alpha * data.y_centred
    n_draws = n_sweeps // thin
    coef = np.zeros((n_chains, n_draws, n_features))
    flat = np.zeros((n_chains, n_draws, F.shape[1]))
    inclusion = np.zeros((n_chains, n_draws, n_features), dtype=np.int8)
    n_batches = 20 if n_sweeps >= 20 else 1
    rao_blackwell = np.zeros((n_chains, n_batches, n_features))
    starts = starting_positions(model.single_effect_probabilities_[kept],
                                model.null_effect_probabilities_[kept], n_chains, rng)
    for chain in range(n_chains):
        positions = starts[chain]
        omega = np.full(n_samples, 0.25 * alpha)  # PG(alpha, 0)'s mean
        for sweep in range(n_tune + n_sweeps):
            lower = cholesky(F.T @ (omega[:, None] * F), lower=True)
            weighted = (omega[:, None] * F).T
            z = kappa / omega
            root = np.sqrt(omega)
            rows = root[:, None] * (data.X - F @ cho_solve((lower, True), weighted @ data.X))
            response = root * (z - F @ cho_solve((lower, True), weighted @ z))
            b = np.zeros(n_features)
            if len(variances):
                target = SingleEffectTarget(
                    np.ascontiguousarray(rows), np.zeros((0, 0)), np.ones(n_features),
                    rows.T @ response, np.einsum("ij,ij->j", rows, rows), log_prior, -np.inf,
                    variances, 1.0)
                chains = run_chains(target, [positions], 1, 0, rng, draw_coef=True)
                positions = chains.positions[0, 0].copy()
                b = chains.coef[0, 0]
            centre = cho_solve((lower, True), weighted @ (z - data.X @ b))
            gamma = centre + solve_triangular(lower.T, rng.standard_normal(F.shape[1]),
                                              lower=False)
            omega = draw(alpha, F @ gamma + data.X @ b,
                         random_state=np.random.default_rng(rng.randint(2**31 - 1)))
            if sweep >= n_tune:
                done = sweep - n_tune
                if len(variances):
                    rao_blackwell[chain, done * n_batches // n_sweeps] += \
                        chains.inclusion_probabilities[0]
                if done % thin == 0 and done // thin < n_draws:
                    r = done // thin
                    coef[chain, r], flat[chain, r] = b, gamma
                    inclusion[chain, r, positions[positions < n_features]] = 1
    rao_blackwell /= np.maximum(np.bincount(np.arange(n_sweeps) * n_batches // n_sweeps,
                                            minlength=n_batches), 1)[None, :, None]
    return {"coef": coef, "flat": flat, "inclusion": inclusion,
            "rao_blackwell": rao_blackwell}


def check_cost_share(n_iter, n_effects):
    """The check's predicted work over the fit's: ``CHECK_CHAINS (CHECK_TUNE +
    CHECK_SWEEPS)`` Gibbs sweeps of about three passes over the ``n x p`` rows each (the
    projection, the rows' products, the draw of ``psi``) against ``n_iter`` iterations of
    ``2 L + 3`` passes (each effect's two products, the bound's rows)."""
    check = CHECK_CHAINS * (CHECK_TUNE + CHECK_SWEEPS) * 3.0
    return check / (max(n_iter, 1) * (2.0 * max(n_effects, 1) + 3.0))


def logistic_susie_check(estimator, data, rng):
    """The :class:`~alphavb._approximation.ApproximationCheck` of a classifier's fit: a short
    run of :func:`polya_gamma_draws` (``CHECK_CHAINS`` chains of ``CHECK_SWEEPS`` sweeps
    after ``CHECK_TUNE``): its Rao-Blackwellised PIPs and the share of its draws inside
    each 95% interval of ``q``. None without the ``polyagamma`` package or below its
    smallest shape (``alpha`` at most 1e-4)."""
    from .._approximation import CHECK_LEVEL, ApproximationCheck
    from ..base import feature_labels

    try:
        from polyagamma import random_polyagamma
    except ImportError:
        return None
    if float(estimator.alpha) <= MIN_PG_SHAPE:
        return None
    started = time.perf_counter()
    draws = polya_gamma_draws(estimator, data, CHECK_CHAINS, CHECK_SWEEPS, CHECK_TUNE, 1,
                              rng, random_polyagamma)
    intervals = estimator.credible_intervals(CHECK_LEVEL)
    coef = draws["coef"] / estimator.column_scale_
    inside = (coef >= intervals[:, 0]) & (coef <= intervals[:, 1])
    flat = draws["inclusion"].reshape(-1, coef.shape[-1])
    return ApproximationCheck(
        method=(f"Polya-Gamma Gibbs over the single effects at the fit's prior variances, "
                f"{CHECK_CHAINS} chains of {CHECK_SWEEPS} sweeps"),
        feature_names=tuple(str(name) for name in feature_labels(estimator)),
        variational_pips=np.array(estimator.inclusion_probabilities_, dtype=float),
        exact_pips=draws["rao_blackwell"].mean(axis=(0, 1)),
        interval_mass=inside.mean(axis=(0, 1)), level=CHECK_LEVEL,
        n_models=len(np.unique(flat, axis=0)), seconds=time.perf_counter() - started,
        cause=CAUSE, call="compare_to_exact(model, X, y)")
