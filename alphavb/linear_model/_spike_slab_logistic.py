"""alpha-VB spike-and-slab logistic regression (varbvs's ``family = "binomial"``, tempered).

Model, for binary ``y_i`` and ``t_i = x_i' beta + z_i' gamma``::

    y_i | t_i ~ Bernoulli(sigmoid(t_i))
    z_j ~ Bernoulli(pi),  beta_j | z_j = 1 ~ N(0, sa),  beta_j | z_j = 0 = 0
    gamma (intercept and covariates Z) ~ flat

The alpha-ELBO (Yang, Pati & Bhattacharya 2020, eq. 2.6) of ``q(beta, z) q(gamma | beta)`` is
``L = E_q[log p(y | t)] - (1/alpha) KL(q || p)``. It has no closed form; the
Jaakkola-Jordan bound (Jaakkola & Jordan 2000, eq. 11), for every ``eta_i > 0``::

    log p(y_i | t_i) >= log sigmoid(eta_i) - eta_i / 2 + u_i eta_i^2 / 2
                        + (y_i - 1/2) t_i - u_i t_i^2 / 2,                                  (1)
    u_i = tanh(eta_i / 2) / (2 eta_i),

is quadratic in ``t``, so the bounded, tempered likelihood ``alpha x (1)`` is Gaussian in
``(beta, gamma)`` (Carbonetto & Stephens 2012, Sec. 2.4, at ``alpha = 1``). Write ``D =
diag(u)``, ``A = Z' D Z``. The optimal ``q(gamma | beta)`` under the flat prior is
``N(A^{-1} Z'(y - 1/2 - D X beta), (alpha A)^{-1})``; putting it in, ``alpha L`` is bounded
below by (the covariates integrated out)::

    alpha L >= alpha [c(eta) + y^' X r - r' X' D^ X r / 2 - sum_j (X' D^ X)_jj v_j / 2]
               + (k/2) log(2 pi / alpha) - log|A| / 2 - KL(q(beta, z) || p(beta, z)),      (2)

    c(eta) = sum_i [log sigmoid(eta_i) - eta_i/2 + u_i eta_i^2/2]
             + (y - 1/2)' Z A^{-1} Z' (y - 1/2) / 2,
    D^ = D - D Z A^{-1} Z' D,    y^ = (y - 1/2) - D Z A^{-1} Z' (y - 1/2),

with ``r_j = E[beta_j] = phi_j mu_j``, ``v_j = Var_q(beta_j) = phi_j (s2_j + (1 - phi_j)
mu_j^2)`` and ``k`` the number of columns of ``Z`` (the intercept's column of ones included;
with no ``Z``, ``D^ = D``, ``y^ = y - 1/2`` and the ``k`` terms vanish). The objective is
(2) divided by ``alpha``; ``KL(q(beta, z) || p)`` is that of the Gaussian model
(:mod:`alphavb.linear_model._inclusion`) with the slab ``N(0, sa)``.

CAVI. (2) is, in ``q(beta, z)``, the alpha-ELBO of a Gaussian model with precision matrix
``X' D^ X`` and linear term ``X' y^``, so the block update of ``q(beta_j, z_j)`` is in closed
form (kernel :func:`~alphavb.linear_model._kernels.logistic_spike_slab_sweep`)::

    s2_j = 1 / (alpha (X' D^ X)_jj + 1/sa)
    mu_j = s2_j alpha (X_j' y^ - sum_{k != j} (X' D^ X)_jk r_k)                              (3)
    logit(phi_j) = logit(pi) + log(s2_j / sa) / 2 + mu_j^2 / (2 s2_j)

(varbvs's ``varbvsbinupdate`` at ``alpha = 1``; ``logit(pi)`` becomes ``E log pi - E log(1 -
pi)`` under a Beta prior). Then each ``eta_i`` maximises the bound with ``q`` fixed: the
bound (1) in expectation is maximal at::

    eta_i^2 = E_q[t_i^2] = E[t_i]^2 + Var(t_i),                                              (4)
    E[t] = X r + Z A^{-1} Z' (y - 1/2 - D X r),
    Var(t_i) = sum_j ((I - Z A^{-1} Z' D) X)_ij^2 v_j + (Z A^{-1} Z')_ii / alpha,

the moments under the joint ``q(beta, z) q(gamma | beta)`` (the tempering widens
``q(gamma | beta)`` by ``1/alpha``). Each step raises a lower bound of (2) that is tight
before the step, so the objective never decreases; the sweep of (3) for j = 1..d, then (4),
then ``q(pi)`` is one CAVI iteration. Prediction: ``P(y = 1 | x) = E_q[sigmoid(t)]`` with
``t ~ N(E t, Var t)`` approximated by ``sigmoid(E t / sqrt(1 + pi Var(t) / 8))`` (MacKay
1992); the label is the sign of ``E t`` (varbvs's plug-in rule gives the same labels).
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.linalg import cholesky, solve_triangular
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._coefficient_summary import CoefficientSummaryMixin
from .._special import LOG_2PI
from .._validation import Boolean, Integer, validate_params
from ..base import CAVIEstimator, ExactSampler, column_scales
from ._base import normal_quantile
from ._binary import BinaryPredictionsMixin, covariate_count, moderated_sigmoid
from ._covariates import (
    check_covariates,
    covariate_names,
)
from ._inclusion import (
    InclusionFactor,
    SpikeSlabMixin,
    coef_variance,
    inclusion_factor,
    inclusion_kl,
    slab_kl,
)


@dataclass(frozen=True)
class _LogisticData:
    """The validated data and resolved priors: ``X`` (Fortran order), ``X_sq = X * X``,
    ``y_centred = y - 1/2``, the flat-prior design ``Z`` (the intercept's column first) and
    the covariates' names."""

    X: np.ndarray
    X_sq: np.ndarray
    y_centred: np.ndarray
    Z: np.ndarray
    slab_variance: float
    fixed_pi: float | None
    pi_prior: tuple | None
    covariate_names: tuple
    # what preparation resolved, published once with the fitted state: n_samples_fit_,
    # column_scale_ and n_covariates_in_
    fitted_attributes: dict
    grid: tuple  # the prior settings, resolved once (_inclusion_parameters)


@dataclass(frozen=True)
class _BoundTerms:
    """What the bound (1) with parameters ``eta`` makes of the data (module docstring):
    ``weights`` ``u``, ``Z_white = Z L^{-T}`` (``A = L L'``), ``W = D Z_white`` (so
    ``D Z A^{-1} Z' D = W W'``), ``XtW = X' W``, ``xdx = diag(X' D^ X)``, ``xty = X' y^``,
    ``y_hat``, ``constant = c(eta)``, ``log_det = log|A|`` and its labels ``y - 1/2``."""

    eta: np.ndarray
    weights: np.ndarray
    cholesky: np.ndarray
    Z_white: np.ndarray
    W: np.ndarray
    XtW: np.ndarray
    xdx: np.ndarray
    xty: np.ndarray
    y_hat: np.ndarray
    constant: float
    log_det: float
    y_centred: np.ndarray


@dataclass(frozen=True)
class _LogisticState:
    """``q(beta_j, z_j)`` (``phi``, ``mu``, ``s2``, updated in place by the kernel),
    ``neg_Xr = -X r`` and ``neg_w = -W' X r`` (kept current by the kernel), the bound's
    terms at the current ``eta``, and ``q(pi)``."""

    phi: np.ndarray
    mu: np.ndarray
    s2: np.ndarray
    neg_Xr: np.ndarray
    neg_w: np.ndarray
    bound: _BoundTerms
    pi: InclusionFactor


def bound_weights(eta):
    """``u = tanh(eta/2) / (2 eta)`` (twice the Jaakkola-Jordan ``lambda``), 1/4 at 0."""
    eta = np.abs(eta)
    small = eta < 1e-4
    safe = np.where(small, 1.0, eta)
    return np.where(small, 0.25 - eta * eta / 48.0, np.tanh(0.5 * safe) / (2.0 * safe))


def _bound_terms(data, eta):
    """The quantities of (2) and (3) at the bound parameters ``eta``."""
    X, Z, y_centred = data.X, data.Z, data.y_centred
    u = bound_weights(eta)
    if Z.shape[1]:
        L = cholesky(Z.T @ (u[:, None] * Z), lower=True)
        Z_white = solve_triangular(L, Z.T, lower=True).T
        log_det = 2.0 * float(np.sum(np.log(np.diag(L))))
    else:
        L, Z_white, log_det = np.zeros((0, 0)), np.zeros((X.shape[0], 0)), 0.0
    W = u[:, None] * Z_white
    XtW = np.ascontiguousarray(X.T @ W)
    projected_y = Z_white.T @ y_centred
    y_hat = y_centred - W @ projected_y
    xdx = data.X_sq.T @ u - np.sum(XtW * XtW, axis=1)
    constant = float(np.sum(-np.logaddexp(0.0, -eta) - 0.5 * eta + 0.5 * u * eta * eta)
                     + 0.5 * projected_y @ projected_y)
    return _BoundTerms(eta, u, L, Z_white, W, XtW, xdx, X.T @ y_hat, y_hat, constant, log_det,
                       data.y_centred)


class AlphaSpikeSlabClassifier(SpikeSlabMixin, CoefficientSummaryMixin, BinaryPredictionsMixin,
                               ClassifierMixin, CAVIEstimator):
    """Binary logistic spike-and-slab regression fitted by alpha-VB (varbvs, tempered).

    Maximises the alpha-ELBO (Yang, Pati & Bhattacharya 2020, eq. 2.6) under the
    Jaakkola-Jordan bound over the block family of Carbonetto & Stephens (2012): one
    ``q(beta_j, z_j)`` per feature (``phi_j N(mu_j, s2_j)`` or 0), the intercept and the
    covariates integrated out under a flat prior, the bound's parameters ``eta`` updated in
    closed form. Derivation and updates: module docstring, eqs. (1)-(4). At ``alpha = 1`` the
    updates are varbvs's (``family = "binomial"``); a grid of prior log-odds is averaged as in
    varbvs (:mod:`alphavb.linear_model._inclusion`).

    Parameters
    ----------
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature (alpha-VB): the data count as ``alpha * n`` observations;
        1 is ordinary VB (varbvs). (Not BB-alpha's and AADM's ``divergence_order``.)
    slab_variance : float, default=1.0
        ``sa`` in the slab ``N(0, sa)`` (varbvs's ``sa``; no noise variance scales it). With
        ``standardize=True`` the slab is on the coefficient of the standardized column (the
        original column's ``beta_j`` has the slab ``N(0, sa / sd_j^2)``), so selection does
        not depend on the units of ``X``; with ``standardize=False`` it is in the units of
        ``X`` (varbvs's convention).
        A 1-D array is a grid of slab variances, averaged over as ``prior_inclusion``'s
        grid is (paired with it entry by entry when both are grids, as varbvs pairs ``sa``
        and ``logodds``).
    prior_inclusion : float in (0, 1), 1-D array of them, or None, default=None
        Fixed prior inclusion probability ``pi``, or a grid of them to average over;
        ``None`` means ``1 / n_features`` (1/2 for a single feature).
    prior_log_odds : float or 1-D array, default=None
        The same as base-10 log-odds ``log10(pi / (1 - pi))`` (varbvs's ``logodds``; its
        default grid is ``np.linspace(-np.log10(n_features), -1, 20)``).
    inclusion_prior : tuple (a, b) or None, default=None
        Beta hyper-prior on ``pi``, which is then learned.
    hyper_prior : array of shape (n_settings,) or None, default=None
        Prior weights of the grid's settings (normalised); ``None`` is uniform (varbvs).
    fit_intercept : bool, default=True
        Add an intercept (a column of ones in the flat-prior design).
    standardize : bool, default=True
        Scale each column of ``X`` to unit standard deviation before fitting (susieR's
        default); every fitted attribute and prediction is reported on the original scale
        (``column_scale_``). ``False`` fits the raw columns, as varbvs does.
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        The alpha-ELBO or ``alpha`` times it (:mod:`alphavb.base`); the same maximiser.
    n_init : int, default=10
        Number of starts (of the first setting of a grid; the others start from their
        neighbour's fit); the start with the best objective is kept. The posterior of a
        few strongly correlated variables has one mode per variable that can explain the
        labels, and CAVI stays in the mode it enters first, so the starts enter different
        ones: start 0 has ``phi = 0``, ``mu = 0``, ``eta = 1``; start ``s = 1..d`` includes
        only the variable with the ``s``-th largest single-variable Bayes factor; later
        starts draw ``phi`` uniformly (normalised to sum to 1) and ``mu`` standard normal,
        as varbvs does.
    max_iter : int, default=1000
        Maximum number of CAVI iterations per start and setting.
    tol : float, default=1e-8
        Stop when the relative change of the objective is at most ``tol``.
    warm_start : bool, default=False
        If True, ``fit`` continues from the previous fit's ``q`` and ``eta``.
    random_state : int, RandomState or None, default=None
    verbose : int, default=0

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the positive class (``y = 1`` in the model).
    coef_ : ndarray of shape (n_features,)
        Posterior means ``E[beta_j]`` (over a grid: the weighted average).
    inclusion_probabilities_ : ndarray of shape (n_features,)
        Posterior inclusion probabilities (PIPs).
    slab_means_, slab_variances_ : ndarray of shape (n_features,)
        ``mu_j`` and ``s2_j``: mean and variance of ``beta_j`` given ``z_j = 1`` (over a
        grid, under the averaged posterior).
    intercept_ : float
        Posterior mean of the intercept (0 without ``fit_intercept``).
    covariate_coef_ : ndarray of shape (n_covariates,)
        Posterior means of the covariates' coefficients.
    column_scale_ : ndarray of shape (n_features,)
        The standard deviation of each column of ``X`` (1 for a constant column) with
        ``standardize=True``, else ones.
    bound_parameters_ : ndarray of shape (n_samples,)
        The Jaakkola-Jordan ``eta`` of the fit (of the selected setting of a grid).
    prior_inclusion_, slab_variance_ : float
        The resolved ``pi`` (``nan`` when it is learned) and slab variance; over a grid
        their posterior means.
    hyper_weights_ : ndarray of shape (n_settings,)
        Posterior weights of the settings, ``∝ hyper_prior x exp(alpha x alpha-ELBO)``.
    lfsr_ : ndarray of shape (n_features,)
        Local false sign rates, ``min(q(beta_j >= 0), q(beta_j <= 0))`` (Stephens 2017):
        the posterior probability of getting the sign of ``beta_j`` wrong (at least ``1 -
        PIP_j``). :meth:`select` selects variables at a Bayesian FDR from the PIPs.
    inclusion_posterior_ : tuple (a, b) or None
        ``q(pi) = Beta(a, b)`` when ``inclusion_prior`` is given.
    elbo_ : float
        The objective at the end of the fit (over a grid, of the selected setting).
    elbo_history_, n_iter_, converged_ : as :class:`AlphaSpikeSlabRegression`.
    setting_elbo_, setting_inclusion_probabilities_, ... : as
        :class:`AlphaSpikeSlabRegression` (one row per setting, for a single setting too;
        also ``setting_bound_parameters_``).
    approximation_check_ : as :class:`AlphaSpikeSlabRegression` (models scored by Laplace).
    n_features_in_, n_covariates_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from alphavb import AlphaSpikeSlabClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 20))
    >>> y = (X[:, 0] - 2 * X[:, 1] + rng.logistic(size=200) > 0).astype(int)
    >>> model = AlphaSpikeSlabClassifier(alpha=0.5).fit(X, y)
    >>> [int(j) for j in (model.inclusion_probabilities_ > 0.5).nonzero()[0]]
    [0, 1]
    """

    # what alphavb.exact and AlphaSelector ask of the model (base.ExactSampler, KINDS)
    _exact_sampler: ClassVar[ExactSampler] = ExactSampler(
        "_polya_gamma", "sample_spike_slab_logistic", ("covariates",))
    _model_kind: ClassVar[str] = "logistic_regression"

    _parameter_constraints: ClassVar[dict] = {
        **CAVIEstimator._parameter_constraints,
        **SpikeSlabMixin._inclusion_constraints,
        "fit_intercept": [Boolean()],
    }
    _parameter_hints: ClassVar[dict] = {
        **CAVIEstimator._parameter_hints,
        **SpikeSlabMixin._inclusion_hints,
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        slab_variance=1.0,
        prior_inclusion=None,
        prior_log_odds=None,
        inclusion_prior=None,
        hyper_prior=None,
        fit_intercept=True,
        standardize=True,
        objective="alpha-vb",
        n_init=10,
        max_iter=1000,
        tol=1e-8,
        warm_start=False,
        random_state=None,
        verbose=0,
    ):
        self.alpha = alpha
        self.slab_variance = slab_variance
        self.prior_inclusion = prior_inclusion
        self.prior_log_odds = prior_log_odds
        self.inclusion_prior = inclusion_prior
        self.hyper_prior = hyper_prior
        self.fit_intercept = fit_intercept
        self.standardize = standardize
        self.objective = objective
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, covariates=None):
        """Fit the logistic spike-and-slab alpha-VB approximation by CAVI.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The candidate variables (each gets the spike-and-slab prior).
        y : array-like of shape (n_samples,)
            Two classes; ``classes_[1]`` (the larger label) is the modelled ``y = 1``.
        covariates : array-like of shape (n_samples, n_covariates), default=None
            Unpenalised covariates ``Z`` (flat prior, integrated out of the bound, module
            docstring); ``predict`` and ``predict_proba`` then need them too. In
            ``GridSearchCV`` they reach each fold through scikit-learn's metadata routing
            (``sklearn.set_config(enable_metadata_routing=True)``,
            ``set_fit_request(covariates=True)`` and ``set_score_request(covariates=True)``;
            the README has the lines).

        Returns
        -------
        self
        """
        self._fit_cavi(self._prepare_fit(X, y, covariates))
        return self

    def _prepare_fit(self, X, y, covariates):
        self._validate_params()
        X, X_sq, labels, Z, design = self._binary_inputs(X, y, covariates, order="F")
        scale = column_scales(X, self.standardize)
        if self.standardize:
            X = np.asfortranarray(X / scale)
            X_sq = X * X
        n_covariates = covariate_count(Z)
        return _LogisticData(X, X_sq, labels - 0.5, design, self._scalar_slab_variance(),
                             None, None, tuple(covariate_names(covariates, n_covariates)),
                             {"n_samples_fit_": X.shape[0], "column_scale_": scale,
                              "n_covariates_in_": n_covariates},
                             self._inclusion_parameters(X.shape[1]))

    _collapsed_description = ("the exact alpha-posterior by Laplace approximations at each "
                              "model's mode")

    def _collapsed_model(self, data, results):
        """The logistic model on ``[Z, X]`` (flat columns first), each set of variables
        scored by the Laplace approximation of its tempered marginal likelihood
        (:mod:`~alphavb.linear_model._neighbourhood`): the exact likelihood, not the bound."""
        from ._neighbourhood import CollapsedModel

        design = np.hstack([data.Z, data.X])
        return CollapsedModel(design, np.zeros(design.shape[0]), data.Z.shape[1],
                              *self._collapsed_prior(data.grid), ("known", 1.0),
                              labels=data.y_centred + 0.5, alpha=float(self.alpha))

    def _publish_data(self, data):
        """What preparation resolved, and the names of the covariate columns, which the
        summary rows read."""
        super()._publish_data(data)
        self._covariate_names = data.covariate_names

    def _flat_coefficients(self, intercept, covariate_coef):
        """``E[gamma]`` in the order of :meth:`_flat_design`."""
        return np.concatenate(([intercept] if self.fit_intercept else [], covariate_coef))

    def _initialize(self, data, random_state, start, previous=None):
        n_samples, n_features = data.X.shape
        if previous is not None and previous.bound.eta.shape == (n_samples,):
            eta = previous.bound.eta  # warm start: the fitted eta on this data
        else:
            eta = np.ones(n_samples)  # a fresh start, or a warm start on other rows
        bound = _bound_terms(data, eta)
        if previous is not None:  # warm start: the fitted q
            phi, mu, s2 = previous.phi.copy(), previous.mu.copy(), previous.s2.copy()
            pi = previous.pi if data.pi_prior is not None else inclusion_factor(
                data.fixed_pi, None, None, n_features)
        else:
            phi, mu = np.zeros(n_features), np.zeros(n_features)
            s2 = np.full(n_features, data.slab_variance)
            if 1 <= start <= n_features:
                # start s: only the s-th strongest single variable, at its own update (3)
                j, mean = self._single_variable_start(data, bound, start)
                phi[j], mu[j] = 1.0, mean
            elif start > n_features:  # varbvs's random start
                phi = random_state.uniform(size=n_features)
                phi /= phi.sum()
                mu = random_state.standard_normal(n_features)
            pi = inclusion_factor(data.fixed_pi, data.pi_prior, None, n_features)
        neg_Xr = -(data.X @ (phi * mu))
        return _LogisticState(phi, mu, s2, neg_Xr, bound.W.T @ neg_Xr, bound, pi)

    def _single_variable_start(self, data, bound, start):
        """The variable with the ``start``-th largest single-variable log Bayes factor under
        ``bound`` (update (3) with every other ``phi = 0``), and its mean."""
        s2 = 1.0 / (self.alpha * bound.xdx + 1.0 / data.slab_variance)
        mean = s2 * self.alpha * bound.xty
        log_factor = 0.5 * np.log(s2 / data.slab_variance) + 0.5 * mean * mean / s2
        j = np.argsort(-log_factor, kind="stable")[start - 1]
        return j, mean[j]

    def _cavi_step(self, data, state):
        """One iteration: (3) for j = 1..d, then (4), then ``q(pi)``; returns the new state
        and the objective (2) / alpha (module docstring)."""
        from ._kernels import logistic_spike_slab_sweep

        alpha, sa = float(self.alpha), data.slab_variance
        n_features = data.X.shape[1]
        phi, mu, s2, bound = state.phi, state.mu, state.s2, state.bound
        neg_entropy_z = logistic_spike_slab_sweep(
            data.X, bound.weights, bound.xty, bound.xdx, bound.XtW, state.neg_Xr, state.neg_w,
            phi, mu, s2, state.pi.elog - state.pi.elog1m, alpha, sa)
        variances = coef_variance(phi, mu, s2)
        Xr = -state.neg_Xr
        bound = _bound_terms(data, self._bound_parameters(data, bound, Xr, variances))
        W_Xr = bound.W.T @ Xr
        phi_sum = float(phi.sum())
        pi = inclusion_factor(data.fixed_pi, data.pi_prior, phi_sum, n_features)
        k = data.Z.shape[1]
        expected_bound = (bound.constant + bound.y_hat @ Xr
                          - 0.5 * (Xr @ (bound.weights * Xr) - W_Xr @ W_Xr)
                          - 0.5 * bound.xdx @ variances)
        kl = (inclusion_kl(neg_entropy_z, phi_sum, n_features, pi) + slab_kl(phi, mu, s2, sa)
              - 0.5 * k * (LOG_2PI - np.log(alpha)) + 0.5 * bound.log_det)
        alpha_elbo = expected_bound - kl / alpha
        new_state = _LogisticState(phi, mu, s2, state.neg_Xr, -W_Xr, bound, pi)
        return new_state, self._objective_without_latents(alpha_elbo)

    def _bound_parameters(self, data, bound, Xr, variances):
        """Update (4): ``eta_i = sqrt(E_q[t_i^2])`` under the joint ``q`` at the previous
        bound's ``D`` and ``A``."""
        Z_white, XtW = bound.Z_white, bound.XtW
        mean = Xr + Z_white @ (Z_white.T @ (data.y_centred - bound.weights * Xr))
        # rows of (I - Z A^{-1} Z' D) X are X_i - (Z_white XtW')_i
        cross = data.X @ (variances[:, None] * XtW)              # (n, k)
        inner = XtW.T @ (variances[:, None] * XtW)               # (k, k)
        variance = (data.X_sq @ variances - 2.0 * np.sum(Z_white * cross, axis=1)
                    + np.sum((Z_white @ inner) * Z_white, axis=1)
                    + np.sum(Z_white * Z_white, axis=1) / self.alpha)
        return np.sqrt(mean * mean + np.maximum(variance, 0.0))

    def _state_attributes(self, state):
        bound = state.bound
        # E[gamma] = A^{-1} Z'(y - 1/2 - D X r); x' beta + z' gamma has mean m and variance
        # sum_j (x_j - (G z)_j)^2 v_j + |L^{-1} z|^2 / alpha, G = XtW L^{-1}
        Xr = -state.neg_Xr
        k = bound.Z_white.shape[1]
        L = bound.cholesky
        if k:
            rhs = bound.Z_white.T @ (bound.y_centred - bound.weights * Xr)
            gamma = solve_triangular(L.T, rhs, lower=False)
            inverse = solve_triangular(L, np.eye(k), lower=True)
        else:
            gamma, inverse = np.zeros(0), np.zeros((0, 0))
        # G on the original scale of X (bound.XtW is on the standardized columns)
        G = self.column_scale_[:, None] * (bound.XtW @ inverse)
        return {**self._block_attributes(state), "bound_parameters_": bound.eta,
                "intercept_": float(gamma[0]) if self.fit_intercept else 0.0,
                "covariate_coef_": gamma[int(self.fit_intercept):],
                "_predictive": {"G": G, "inverse": inverse}}

    def _other_summary_rows(self, level):
        """The intercept and covariates: ``gamma | beta ~ N(E[gamma] - G'(beta - E[beta]),
        (alpha A)^{-1})`` (module docstring), so per setting ``Var(gamma_k) = sum_j
        Var(beta_j) G_jk^2 + [(alpha A)^{-1}]_kk``; over a grid the mixture's moments.
        Normal intervals from the mean and sd."""
        intercept, covariate_coef, predictive, phi, mu, s2 = self._setting_arrays(
            "intercept_", "covariate_coef_", "_predictive", "inclusion_probabilities_",
            "slab_means_", "slab_variances_")
        coef_variances = coef_variance(phi, mu, s2)
        means = np.array([self._flat_coefficients(intercept[h], covariate_coef[h])
                          for h in range(len(phi))])
        variances = np.array([coef_variances[h] @ predictive[h]["G"] ** 2
                              + np.sum(predictive[h]["inverse"] ** 2, axis=0) / self.alpha
                              for h in range(len(phi))])
        mean = self.hyper_weights_ @ means
        sd = np.sqrt(self.hyper_weights_ @ (variances + (means - mean) ** 2))
        names = (["intercept"] if self.fit_intercept else []) + list(self._covariate_names)
        z = normal_quantile(level)
        return [(name, {"coef": m, "sd": s, "lower": m - z * s, "upper": m + z * s})
                for name, m, s in zip(names, mean, sd, strict=True)]

    def _decision_moments(self, X, covariates):
        """Per setting, the mean and variance of the logit ``t`` of each row."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Z = check_covariates(type(self).__name__, covariates, X.shape[0],
                             self.n_covariates_in_)
        design = self._flat_design(X.shape[0], Z)
        coef, intercept, covariate_coef, predictive, phi, mu, s2 = self._setting_arrays(
            "coef_", "intercept_", "covariate_coef_", "_predictive",
            "inclusion_probabilities_", "slab_means_", "slab_variances_")
        coef_variances = coef_variance(phi, mu, s2)
        means, variances = [], []
        for h in range(len(coef)):
            pieces = predictive[h]
            gamma = self._flat_coefficients(intercept[h], covariate_coef[h])
            means.append(X @ coef[h] + design @ gamma)
            rows = X - design @ pieces["G"].T
            variances.append((rows * rows) @ coef_variances[h]
                             + np.sum((design @ pieces["inverse"].T) ** 2, axis=1) / self.alpha)
        return np.asarray(means), np.asarray(variances)

    def predict_proba(self, X, covariates=None):
        """``P(y = classes_[1] | x)`` under ``q``: ``sigmoid(E t / sqrt(1 + pi Var(t) / 8))``
        (module docstring), averaged over the settings of a grid with ``hyper_weights_``.

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        means, variances = self._decision_moments(X, covariates)
        positive = self.hyper_weights_ @ moderated_sigmoid(means, variances)
        return np.column_stack([1.0 - positive, positive])

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws of the parameters from the fitted ``q``.

        Returns
        -------
        dict of str to ndarray
            ``"coef"`` (n_samples, n_features), ``"inclusion"`` (n_samples, n_features) of
            bools, ``"intercept"`` (n_samples,; zeros without ``fit_intercept``) and
            ``"covariate_coef"`` (n_samples, n_covariates) drawn from ``q(gamma | beta)``,
            ``"setting"`` (grids only) and ``"prior_inclusion"`` (n_samples,) when ``pi``
            is learned.
        """
        check_is_fitted(self)
        rng = check_random_state(random_state)
        draws = self._draw_coef(n_samples, rng)
        # gamma | beta ~ N(E[gamma] - G'(beta - E[beta]), (alpha A)^{-1}) (module docstring),
        # A^{-1} Z' D X = G' and (alpha A)^{-1/2} = L^{-T} / sqrt(alpha), per setting
        coef, intercept, covariate_coef, predictive = self._setting_arrays(
            "coef_", "intercept_", "covariate_coef_", "_predictive")
        setting = draws.get("setting", np.zeros(n_samples, dtype=int))
        k = int(self.fit_intercept) + self.n_covariates_in_
        gamma = np.zeros((n_samples, k))
        noise = rng.standard_normal((n_samples, k))
        for h in range(len(coef)):
            rows = setting == h
            pieces = predictive[h]
            mean = self._flat_coefficients(intercept[h], covariate_coef[h])
            gamma[rows] = (mean - (draws["coef"][rows] - coef[h]) @ pieces["G"]
                           + noise[rows] @ pieces["inverse"] / np.sqrt(self.alpha))
        draws["intercept"] = gamma[:, 0] if self.fit_intercept else np.zeros(n_samples)
        if self.n_covariates_in_:
            draws["covariate_coef"] = gamma[:, int(self.fit_intercept):]
        if self.inclusion_posterior_ is not None:
            draws["prior_inclusion"] = rng.beta(*self.inclusion_posterior_, size=n_samples)
        return draws
