"""Exact alpha-posteriors of the logistic models by Polya-Gamma data augmentation.

Polson, Scott & Windle (2013, JASA 108:1339-1349), Theorem 1, with ``b = alpha``: for the
tempered logistic likelihood of a 0/1 label ``y`` and linear predictor ``psi``,

    (e^psi)^(alpha y) / (1 + e^psi)^alpha
        = 2^(-alpha) exp(kappa psi) ∫ exp(-omega psi^2 / 2) PG(omega | alpha, 0) d omega,

``kappa = alpha (y - 1/2)``. Given ``omega``, the likelihood is Gaussian in the
coefficients, and ``omega_i | psi_i ~ PG(alpha, psi_i)`` (drawn by the ``polyagamma``
package, any ``b > 0``), so:

* :class:`~alphavb.AlphaLogisticRegression` (``N(0, v)`` on every coefficient of the
  standardized design and on the intercept): ``theta | omega ~ N(V D' kappa, V)``, ``V =
  (D' Omega D + I / v)^{-1}``;
* :class:`~alphavb.AlphaSpikeSlabClassifier` (flat intercept and covariates, slab ``N(0,
  sa)``): given ``omega``, the Gaussian model of :mod:`alphavb.exact._kernels` with rows
  ``sqrt(omega_i) (z_i, x_i)``, response ``kappa_i / sqrt(omega_i)`` and known unit scale,
  whose collapsed sweep updates ``z`` with the coefficients integrated out and then draws
  them; ``omega`` follows from the drawn linear predictor. The sweep (``z | omega``, then
  ``beta | z, omega``, then ``omega | beta``) leaves the joint alpha-posterior invariant;
* :class:`~alphavb.AlphaSuSiEClassifier` (SuSiE's single effects at the fit's prior
  variances ``V_l``, flat intercept and covariates ``F``): given ``omega``, SuSiE's Gaussian
  model with unit noise on the rows ``sqrt(omega_i) (P X, P z)_i``, ``z = kappa / omega``
  and ``P v = v - F A^{-1} F' Omega v`` (``A = F' Omega F``: the flat coefficients
  integrated out), whose collapsed sweep over the effects' positions
  (:mod:`alphavb.linear_model._susie_exact`) updates them and draws ``b``; then ``gamma |
  b, omega ~ N(A^{-1} F' Omega (z - X b), A^{-1})`` and ``omega | psi``.
"""

import numpy as np
from sklearn.base import clone

from .._approximation import without_checks
from .._validation import bad_parameter
from ..linear_model._inclusion import grid_arrays
from ..linear_model._logistic_exact import MIN_PG_SHAPE
from ._draws import ExactDraws
from ._spike_slab import (
    MAX_MODEL_SIZE,
    correlated_neighbours,
    dispersed_start,
    outgrown,
    spike_slab_result,
)


def _polya_gamma_sampler():
    """``polyagamma.random_polyagamma``, or an ImportError naming the extra (before any
    work is done)."""
    try:
        from polyagamma import random_polyagamma
    except ImportError as error:
        raise ImportError('sample_exact of a logistic model draws Polya-Gamma variables: '
                          'pip install "alphavb[exact]" (the polyagamma package)') from error
    return random_polyagamma




def check_pg_alpha(alpha):
    """Refuse an ``alpha`` whose ``PG(alpha, psi)`` the sampler cannot draw."""
    if alpha <= MIN_PG_SHAPE:
        raise bad_parameter("sample_exact", "alpha", f"above {MIN_PG_SHAPE:g} for the "
                            "Polya-Gamma sampler of a logistic model (it draws PG(alpha, psi), "
                            "which the polyagamma package refuses at or below it)", alpha,
                            fix="Sample at alpha = 1e-3 or more; at such an alpha the data "
                                "weigh as a thousandth of a row or less each.")


def _polya_gamma(draw, shape, psi, rng):
    """``PG(shape, psi_i)`` draws, seeded from the RandomState ``rng``."""
    return draw(shape, psi, random_state=np.random.default_rng(rng.randint(2**31 - 1)))


def sample_logistic(estimator, X, y, *, n_draws, n_chains, n_tune, thin, rng):
    """Gibbs ``omega | theta``, ``theta | omega`` for :class:`AlphaLogisticRegression`."""
    from scipy.linalg import cho_solve, cholesky, solve_triangular

    draw = _polya_gamma_sampler()
    model = clone(estimator)
    design, labels = model._prepare_fit(X, y)
    alpha = float(model.alpha)
    check_pg_alpha(alpha)
    kappa = alpha * (labels - 0.5)
    prior_precision = 1.0 / float(model.prior_variance)
    n_parameters = design.shape[1]
    theta_draws = np.empty((n_chains, n_draws, n_parameters))
    for chain in range(n_chains):
        theta = 0.5 * rng.standard_normal(n_parameters)
        kept = 0
        for sweep in range(n_tune + n_draws * thin):
            omega = _polya_gamma(draw, alpha, design @ theta, rng)
            precision = (design * omega[:, None]).T @ design
            precision[np.diag_indices_from(precision)] += prior_precision
            chol = cholesky(precision, lower=True)
            theta = (cho_solve((chol, True), design.T @ kappa)
                     + solve_triangular(chol.T, rng.standard_normal(n_parameters),
                                        lower=False))
            if sweep >= n_tune and (sweep - n_tune) % thin == 0:
                theta_draws[chain, kept] = theta
                kept += 1
    original = model._original_scale(theta_draws)
    n_features = n_parameters - int(model.fit_intercept)
    intercept = (original[..., n_features] if model.fit_intercept
                 else np.zeros((n_chains, n_draws)))
    return ExactDraws(model, {"coef": original[..., :n_features], "intercept": intercept},
                      method="Polya-Gamma Gibbs", info={"n_tune": n_tune, "thin": thin})


def sample_spike_slab_logistic(estimator, X, y, *, n_draws, n_chains, n_tune, thin, rng,
                               covariates=None, n_neighbours=10):
    """Polya-Gamma Gibbs with the collapsed spike-and-slab sweep for
    :class:`AlphaSpikeSlabClassifier` (module docstring)."""
    from ._kernels import collapsed_gibbs

    draw = _polya_gamma_sampler()
    model = clone(estimator)
    data = model._prepare_fit(X, y, covariates)
    n_samples, n_features = data.X.shape
    settings, pi_prior, log_prior = data.grid
    alpha = float(model.alpha)
    check_pg_alpha(alpha)
    kappa = alpha * data.y_centred
    flat = data.Z
    n_fixed = flat.shape[1]
    columns = np.asfortranarray(np.hstack([flat, data.X]))
    prior_pi, slabs, beta_a, beta_b = grid_arrays(settings, pi_prior)
    neighbours = correlated_neighbours(data.X - data.X.mean(axis=0), n_neighbours)
    capacity = min(n_features, MAX_MODEL_SIZE) + n_fixed
    n_sweeps = n_draws * thin
    n_batches = 20 if n_sweeps >= 20 else 1
    rao_blackwell = np.zeros((n_chains, n_batches, n_features))
    kept_coef = np.zeros((n_chains, n_draws, n_fixed + n_features))
    kept_inclusion = np.zeros((n_chains, n_draws, n_features), dtype=np.int8)
    kept_setting = np.zeros((n_chains, n_draws), dtype=np.int64)
    kept_log_posterior = np.zeros((n_chains, n_draws))
    swaps = np.zeros(n_chains, dtype=np.int64)
    one = {"inclusion": np.zeros((1, n_features), dtype=np.int8),
           "setting": np.zeros(1, dtype=np.int64), "coef": np.zeros((1, n_fixed + n_features)),
           "noise": np.zeros(1), "log_posterior": np.zeros(1)}
    conditional = np.zeros((1, n_features))
    for chain in range(n_chains):
        inclusion, setting = dispersed_start(rng, n_features, len(settings))
        omega = np.full(n_samples, 0.25 * alpha)  # PG(alpha, 0)'s mean
        accepted = np.zeros(1, dtype=np.int64)
        for sweep in range(n_tune + n_sweeps):
            root = np.sqrt(omega)
            conditional[:] = 0.0
            status = collapsed_gibbs(
                np.ascontiguousarray((columns * root[:, None]).T), kappa / root, n_fixed,
                inclusion, setting, slabs, log_prior, prior_pi, beta_a, beta_b, 0, 1.0, 0.0,
                neighbours, 1, 0, 1, int(rng.randint(2**31 - 1)), capacity,
                one["inclusion"], one["setting"], one["coef"], one["noise"],
                one["log_posterior"], conditional, accepted)
            if status != 0:
                raise outgrown(capacity - n_fixed)
            omega = _polya_gamma(draw, alpha, columns @ one["coef"][0], rng)
            if sweep >= n_tune:
                done = sweep - n_tune
                rao_blackwell[chain, done * n_batches // n_sweeps] += conditional[0]
                if done % thin == 0:
                    r = done // thin
                    kept_coef[chain, r] = one["coef"][0]
                    kept_inclusion[chain, r] = one["inclusion"][0]
                    kept_setting[chain, r] = one["setting"][0]
                    kept_log_posterior[chain, r] = one["log_posterior"][0]
        swaps[chain] = accepted[0]
    coef = kept_coef[..., n_fixed:] / data.fitted_attributes["column_scale_"]
    draws = {"coef": coef, "inclusion": kept_inclusion,
             "intercept": (kept_coef[..., 0] if model.fit_intercept
                           else np.zeros((n_chains, n_draws)))}
    if data.fitted_attributes["n_covariates_in_"]:
        draws["covariate_coef"] = kept_coef[..., int(model.fit_intercept):n_fixed]
    return spike_slab_result(
        model, draws, inclusion=kept_inclusion, setting=kept_setting,
        log_posterior=kept_log_posterior, rao_blackwell=rao_blackwell, n_sweeps=n_sweeps,
        pi_prior=pi_prior, n_settings=len(settings), rng=rng,
        method="Polya-Gamma Gibbs with collapsed spike-and-slab sweeps",
        info={"n_tune": n_tune, "thin": thin, "n_neighbours": n_neighbours,
              "swap_acceptances": swaps.tolist()})


def sample_susie_logistic(estimator, X, y, *, n_draws, n_chains, n_tune, thin, rng,
                          covariates=None):
    """Polya-Gamma Gibbs with the collapsed single-effect sweep for
    :class:`~alphavb.AlphaSuSiEClassifier` at its fit's prior variances
    (:mod:`alphavb.linear_model._logistic_exact`); the fit is the draws' ``reference_fit``."""
    from ..linear_model._logistic_exact import polya_gamma_draws

    draw = _polya_gamma_sampler()
    model = clone(estimator)
    check_pg_alpha(float(model.alpha))
    with without_checks():
        model.fit(X, y, covariates=covariates)
    data = clone(model)._prepare_fit(X, y, covariates)
    found = polya_gamma_draws(model, data, n_chains, n_draws * thin, n_tune, thin, rng, draw)
    flat = found["flat"]
    draws = {"coef": found["coef"] / model.column_scale_, "inclusion": found["inclusion"],
             "intercept": (flat[..., 0] if model.fit_intercept
                           else np.zeros((n_chains, n_draws)))}
    if model.n_covariates_in_:
        draws["covariate_coef"] = flat[..., int(model.fit_intercept):]
    return ExactDraws(model, draws, method="Polya-Gamma Gibbs with collapsed single-effect "
                      "sweeps", stats={"model_size": found["inclusion"].sum(axis=2)},
                      rao_blackwell_pip=found["rao_blackwell"],
                      info={"n_tune": n_tune, "thin": thin}, reference_fit=model)
