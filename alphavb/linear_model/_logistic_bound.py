"""The math of logistic SuSiE on the alpha-VB objective (:class:`~alphavb.AlphaSuSiEClassifier`):
the Jaakkola-Jordan bound, the flat coefficients and the objective.

Model, for 0/1 labels ``y_i`` and the logit ``t_i = f_i' gamma + x_i' b``::

    y_i | t_i ~ Bernoulli(sigmoid(t_i)),   b = sum_l b_l,  b_l = gamma_l beta_l,
    gamma_l ~ Multinomial(1, pi),  beta_l ~ N(0, V_l),  gamma (intercept, covariates F) flat,

SuSiE's prior (Wang et al. 2020, eqs. 2.4-2.6) on the logit scale, with the likelihood
raised to ``alpha`` (Yang, Pati & Bhattacharya 2020, eq. 2.6). The tempered log-likelihood
has no closed-form expectation; the Jaakkola-Jordan bound (Jaakkola & Jordan 2000, eq. 11;
:mod:`alphavb.linear_model._spike_slab_logistic`, eq. 1), for every ``eta_i > 0``, is
quadratic in ``t``, and ``alpha`` times it is a Gaussian likelihood with precision ``w_i``
and pseudo-response ``z_i``::

    alpha log p(y_i | t_i) >= C_i - w_i (z_i - t_i)^2 / 2,                                (1)
    u_i = tanh(eta_i / 2) / (2 eta_i),  w_i = alpha u_i,  z_i = (y_i - 1/2) / u_i,
    C_i = alpha [log sigmoid(eta_i) - eta_i / 2 + u_i eta_i^2 / 2] + w_i z_i^2 / 2

(the Polya-Gamma augmentation's ``E[omega_i]`` is ``alpha u_i``). Given ``eta`` the model is
a weighted linear regression with unit residual variance. With ``A = F' W F`` the optimal
``q(gamma | b)`` under the flat prior is ``N(A^{-1} F' W (z - X b), A^{-1})``; integrating it
out projects ``F`` off the rows (``P v = v - F A^{-1} F' W v``) and the objective is::

    F(q, eta) = sum_i C_i - E_q ||W^{1/2} (P z - P X b)||^2 / 2 + (k / 2) log 2 pi
                - log|A| / 2 - sum_l KL(q_l || prior_l),                                  (2)

``k`` the columns of ``F``. In ``q = prod_l q(gamma_l, beta_l)`` this is the alpha-ELBO of
SuSiE on the rows ``W^{1/2} (P X, P z)`` with residual variance 1, so each ``q_l`` update
is SuSiE's single-effect regression there (:func:`~alphavb.linear_model._susie.ibss_sweep`,
``V_l`` by its rule). Then each ``eta_i`` maximises the bound with ``q`` fixed::

    eta_i^2 = E[t_i^2] = E[t_i]^2 + Var(t_i),                                             (3)
    E[t] = z - P z + P X E[b],   Var(t_i) = Var((P X)_i b) + (F A^{-1} F')_ii,

the moments under ``q(b) q(gamma | b)``. Each step raises (2), which is tight after (3),
so the objective never decreases; one sweep of the effects then (3) is one iteration.
Prediction: ``t`` of a new row has ``E t = f' E[gamma] + x' E[b]`` and ``Var t = Var((x - G
f)' b) + f' A^{-1} f`` (``G = X' W F A^{-1}``), and ``P(y = 1 | x) = sigmoid(E t / sqrt(1 +
pi Var(t) / 8))`` (MacKay 1992), as :class:`~alphavb.AlphaSpikeSlabClassifier` predicts.
PIPs and credible sets are SuSiE's (their purity from the correlations of ``X``'s columns).
At ``alpha = 1`` this is the variational logistic SuSiE of the ``logisticsusie`` package
(Tayeb & Stephens), which bounds each single effect's likelihood the same way.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from .._special import LOG_2PI
from ._spike_slab_logistic import bound_weights
from ._susie import ibss_data, state_from_effects


@dataclass(frozen=True)
class Labels:
    """The validated data: ``X`` on the scale the effects see (standardized columns when
    ``standardize``), ``y_centred = y - 1/2``, the flat design ``F`` (the intercept's column
    first), the covariates' names, the prior weights ``pi`` (normalised; None: uniform),
    the variance unit that ``V`` is relative to (1 for standardized columns, else over the
    columns' mean variance) and ``L`` (``n_effects`` capped at the variables)."""

    X: np.ndarray
    y_centred: np.ndarray
    F: np.ndarray
    covariate_names: tuple
    prior_weights: np.ndarray | None = None
    variance_unit: float = 1.0
    n_effects: int = 1
    # what preparation resolved, published once with the fitted state (the estimator's
    # n_samples_fit_, column_scale_ and n_covariates_in_)
    fitted_attributes: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Bound:
    """What the bound (1) at ``eta`` makes of the data (module docstring): the weights
    ``w``, the pseudo-response ``z``, the projected rows ``P X`` and ``P z``, the
    :class:`~alphavb.linear_model._susie.IBSSData` of ``W^{1/2} (P X, P z)``, ``A``'s
    Cholesky factor and log-determinant, ``diag(F A^{-1} F')``, ``sum_i C_i``, the number
    of flat columns integrated out and ``flat_point``. With ``flat_point`` (a point estimate
    of ``gamma``, ``intercept_estimate="point"``) nothing is projected: the rows are ``X``
    and ``z - F gamma``, and the flat columns add neither variance nor terms to (2)."""

    eta: np.ndarray
    w: np.ndarray
    z: np.ndarray
    X_projected: np.ndarray
    z_projected: np.ndarray
    ibss: object
    factor: tuple
    log_det: float
    flat_variance: np.ndarray
    constant: float
    n_integrated: int = 0
    flat_point: np.ndarray | None = None


def weighted_flat_fit(labels, w, residual):
    """``A^{-1} F' W residual``: the flat coefficients' weighted least squares (the mean of
    ``q(gamma | b)``, and the point estimate), with ``A``'s Cholesky factor."""
    F = labels.F
    factor = cho_factor(F.T @ (w[:, None] * F), lower=True)
    return cho_solve(factor, (w[:, None] * F).T @ residual), factor


def bound_of(labels, eta, alpha, flat_point=None):
    """:class:`Bound` at ``eta`` (module docstring, eqs. 1-2); ``flat_point``: ``gamma``
    held at a point (``intercept_estimate="point"``), else integrated out."""
    u = bound_weights(eta)
    w = alpha * u
    z = labels.y_centred / u
    F, X = labels.F, labels.X
    factor = cho_factor(F.T @ (w[:, None] * F), lower=True)
    weighted_F = w[:, None] * F
    if flat_point is None:
        log_det = 2.0 * float(np.sum(np.log(np.diag(factor[0]))))
        X_projected = X - F @ cho_solve(factor, weighted_F.T @ X)
        z_projected = z - F @ cho_solve(factor, weighted_F.T @ z)
        flat_variance = np.einsum("ij,ji->i", F, cho_solve(factor, F.T))
        n_integrated = F.shape[1]
    else:
        log_det, X_projected, z_projected = 0.0, X, z - F @ flat_point
        flat_variance, n_integrated = np.zeros(X.shape[0]), 0
    root = np.sqrt(w)
    ibss = ibss_data(root[:, None] * X_projected, root * z_projected, labels.prior_weights)
    # V and its bounds in the labels' unit (the logit scale of a standardized column),
    # whatever the weights
    ibss = ibss._replace(variance_y=labels.variance_unit, variance_unit=labels.variance_unit)
    constant = float(np.sum(alpha * (-np.logaddexp(0.0, -eta) - 0.5 * eta
                                     + 0.5 * u * eta * eta) + 0.5 * w * z * z))
    return Bound(eta, w, z, X_projected, z_projected, ibss, factor, log_det, flat_variance,
                  constant, n_integrated, flat_point)


def null_bound_parameters(labels, alpha, max_iter=100, tol=1e-8):
    """The bound's ``eta`` at the fit of the flat coefficients alone (eq. 3 with ``b = 0``,
    iterated to its fixed point): where the fit starts. At ``eta = 0`` the bound's weights
    are the 1/4 of a balanced trait, far from those of a rare one (prevalence 5%: 0.15 at
    the null fit), and the first sweeps would drop effects (``V_l = 0``) that the bound,
    once adapted, no longer brings back: a local optimum (on a mouse window at prevalence
    5%, -422.3 against -418.0 with a second effect at a causal variant)."""
    F = labels.F
    eta = np.zeros(F.shape[0])
    for _ in range(max_iter):
        u = bound_weights(eta)
        w = alpha * u
        factor = cho_factor(F.T @ (w[:, None] * F), lower=True)
        mean = F @ cho_solve(factor, (w[:, None] * F).T @ (labels.y_centred / u))
        variance = np.einsum("ij,ji->i", F, cho_solve(factor, F.T))
        updated = np.sqrt(mean * mean + variance)
        if np.max(np.abs(updated - eta)) <= tol * (1.0 + np.max(np.abs(updated))):
            return updated
        eta = updated
    return eta


@dataclass(frozen=True)
class State:
    """The effects (:class:`~alphavb.linear_model._susie.IBSSState` on the bound's rows)
    and the bound they were fitted under."""

    effects: object
    bound: Bound


def logit_moments(bound, effects):
    """``E[t]`` and ``Var(t)`` of the training rows (module docstring, eq. 3)."""
    coef = np.sum(effects.probabilities * effects.mean, axis=0)
    projected = bound.X_projected
    mean = bound.z - bound.z_projected + projected @ coef
    second = (effects.probabilities * effects.second_moment) @ (projected * projected).T
    first = (effects.probabilities * effects.mean) @ projected.T
    variance = np.sum(second - first * first, axis=0) + bound.flat_variance
    return mean, np.maximum(variance, 0.0)


def objective_at(bound, effects):
    """``F(q, eta)`` (module docstring, eq. 2) with the effects refitted on ``bound``'s
    rows (their ``E ||.||^2`` there)."""
    refitted = state_from_effects(bound.ibss, effects.probabilities, effects.mean,
                                  effects.second_moment, effects.prior_variance, 1.0,
                                  effects.null_alpha)._replace(kl=effects.kl)
    k = bound.n_integrated
    return (bound.constant - 0.5 * refitted.erss + 0.5 * k * LOG_2PI - 0.5 * bound.log_det
            - float(np.sum(effects.kl))), refitted
