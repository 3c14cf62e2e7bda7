"""AlphaSuSiEClassifier: SuSiE for a binary trait (logistic SuSiE) on the alpha-VB objective.

The model, the bound and the updates (eqs. 1-3) are in
:mod:`alphavb.linear_model._logistic_bound`; this module is the estimator: its two starts
(no effect, and linear SuSiE's fit carried to the logit scale), the loop of a sweep of the
effects (SuSiE's single-effect regressions on the bound's rows,
:func:`~alphavb.linear_model._susie.ibss_sweep`) and the bound's update, and what the fit
publishes (PIPs, credible sets, the intercept and covariates, predictions).
"""

import warnings
from typing import ClassVar

import numpy as np
from scipy.linalg import cho_solve
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._approximation import publish_check
from .._coefficient_summary import CoefficientSummaryMixin
from .._validation import (
    Boolean,
    FiniteArray,
    Integer,
    Options,
    Real,
    caller_stacklevel,
    validate_params,
)
from .._warnings import quietly
from ..base import CAVIEstimator, ExactSampler, column_scales, feature_labels
from ._base import normal_quantile
from ._binary import BinaryPredictionsMixin, covariate_count, moderated_sigmoid
from ._covariates import check_covariates, covariate_names
from ._inclusion import InclusionSummaryMixin
from ._logistic_bound import (
    Labels,
    State,
    bound_of,
    logit_moments,
    null_bound_parameters,
    objective_at,
    weighted_flat_fit,
)
from ._logistic_exact import check_cost_share, logistic_susie_check
from ._spike_slab_logistic import bound_weights
from ._susie import (
    LOG_PRIOR_VARIANCE_BOUNDS,
    PRIOR_VARIANCE_TOLERANCE,
    PriorVarianceRule,
    credible_sets,
    ibss_sweep,
    inclusion_probabilities,
    initial_state,
    state_from_effects,
)
from ._susie_posterior import SuSiEPosteriorMixin

# the largest V on the logit scale of a standardized column (AlphaSuSiEClassifier._rule)
LOG_MAX_PRIOR_VARIANCE = float(np.log(150.0))


def linear_start(estimator, labels, bound, max_iter=50, tol=1e-6):
    """A start from linear SuSiE (:class:`~alphavb.AlphaSuSiE`, same ``L``, ``alpha`` and
    prior weights) fitted to the 0/1 trait with the flat columns as covariates: its effects
    carried to the logit scale (divided by ``ybar (1 - ybar)``, the slope of the logit at
    the mean), then the bound's ``eta`` iterated to its fixed point for them (eq. 3), so
    that the first sweep sees a bound tuned to the effects it starts from. From the null
    start alone the sweeps can stop at a worse optimum: a rare trait's bound, tuned to a
    fit without an effect, lowers that effect's evidence below the null's, and its ``V_l``
    stays 0. None where linear SuSiE cannot be fitted (covariates beside a tiny alpha)."""
    from .._approximation import without_checks
    from ._alpha_susie import AlphaSuSiE

    y = labels.y_centred + 0.5
    slope = max(float(y.mean() * (1.0 - y.mean())), 1e-3)
    flat = labels.F[:, 1:] if estimator.fit_intercept else labels.F
    linear = AlphaSuSiE(n_effects=labels.n_effects, alpha=estimator.alpha,
                        prior_weights=labels.prior_weights,
                        fit_intercept=estimator.fit_intercept, standardize=False,
                        constant_columns="keep", max_iter=100)
    with without_checks(), quietly():  # its convergence is not the fit's
        try:
            linear.fit(labels.X, y, covariates=flat if flat.shape[1] else None)
        except (ValueError, FloatingPointError):  # a linear model's limit, not the fit's
            return None
    alpha = linear.single_effect_probabilities_
    mean = linear.effect_means_ / slope
    second = linear.effect_variances_ / slope**2 + mean * mean
    start_variance = estimator.scaled_prior_variance * labels.variance_unit
    variances = np.where(linear.prior_variances_ > 0, linear.prior_variances_ / slope**2,
                         start_variance)
    if not estimator.estimate_prior_variance:
        variances = np.full(labels.n_effects, start_variance)
    coef = np.sum(alpha * mean, axis=0)
    bound = estimator._bound(labels, bound.eta, coef)
    effects = state_from_effects(bound.ibss, alpha, mean, second, variances, 1.0,
                                 estimate=False)
    for _ in range(max_iter):
        mean_t, variance_t = logit_moments(bound, effects)
        eta = np.sqrt(mean_t * mean_t + variance_t)
        done = np.max(np.abs(eta - bound.eta)) <= tol * (1.0 + np.max(eta))
        bound = estimator._bound(labels, eta, coef)
        effects = state_from_effects(bound.ibss, alpha, mean, second, variances, 1.0,
                                     estimate=False)
        if done:
            break
    return State(effects, bound)


class AlphaSuSiEClassifier(BinaryPredictionsMixin, SuSiEPosteriorMixin, InclusionSummaryMixin,
                           CoefficientSummaryMixin, ClassifierMixin, CAVIEstimator):
    """SuSiE for a binary trait (logistic sum of single effects), fitted by alpha-VB.

    Maximises the alpha-ELBO (Yang, Pati & Bhattacharya 2020, eq. 2.6) of SuSiE's model on
    the logit scale under the Jaakkola-Jordan bound
    (:mod:`~alphavb.linear_model._logistic_bound`, eqs. 1-3): given the bound's parameters
    each effect's update is SuSiE's single-effect regression on weighted rows (Wang et al.
    2020, Algorithm 2), the intercept and covariates are integrated out under a flat prior,
    and the bound's parameters follow in closed form.

    Parameters
    ----------
    n_effects : int, default=10
        ``L``, the most effects the fit can find (susieR's ``L``).
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature; 1 is ordinary VB.
    scaled_prior_variance : float, default=0.2
        Each ``V_l`` at the start, on the logit scale of a standardized column (with
        ``standardize=False``, relative to the columns' mean variance), estimated after the
        first sweep unless ``estimate_prior_variance=False``.
    prior_weights : array-like of shape (n_features,), default=None
        ``pi``; uniform when None.
    estimate_prior_variance : bool, default=True
        Estimate each ``V_l`` (by ``prior_variance_method``); else hold it at
        ``scaled_prior_variance``.
    prior_variance_method : {"optim", "em"}, default="optim"
        ``"optim"``: ``V_l`` maximises each single effect's evidence (susieR's default), 0
        when no variable beats the null; ``"em"``: ``V_l = E_q[beta_l^2]`` after each
        single effect (logisticsusie's ``binsusie``), which shrinks an unused effect's
        ``V_l`` towards 0 without reaching it (its PIPs stay above 0, and it converges
        slowly).
    intercept_estimate : {"integrated", "point"}, default="integrated"
        ``"integrated"``: the intercept and covariates have a flat prior and are integrated
        out (:mod:`~alphavb.linear_model._logistic_bound`); ``"point"``: they are a point
        estimate (their weighted least squares after each sweep, no uncertainty), as
        logisticsusie's ``binsusie`` estimates its intercept.
    fit_intercept : bool, default=True
        A flat-prior intercept (needed unless the classes are balanced by design).
    standardize : bool, default=True
        Effects on standardized columns (``V_l`` then does not depend on ``X``'s units).
    coverage : float, default=0.95
    min_abs_corr : float, default=0.5
        A credible set's purity threshold (susieR's ``min_abs_corr``).
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        ``"fractional"`` reports ``alpha`` times the alpha-ELBO (no local latents).
    max_iter : int, default=500
        Iterations (a sweep of the effects, then the bound). Separable classes take the
        most (iris's setosa against the rest: 228).
    tol : float, default=1e-3
        Stop when the objective rises by less than ``tol`` (susieR's rule and default).
    warm_start : bool, default=False
    random_state : int, RandomState or None, default=None
        Only for the purity subsample of a large credible set.
    verbose : int, default=0

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    inclusion_probabilities_ : ndarray of shape (n_features,)
    single_effect_probabilities_ : ndarray of shape (n_effects, n_features)
    effect_means_, effect_variances_ : ndarray of shape (n_effects, n_features)
        ``q(beta_l | gamma_lj = 1)`` on the original columns' scale.
    prior_variances_ : ndarray of shape (n_effects,)
    kept_effects_ : ndarray of bool
        Effects with ``V_l`` above ``1e-9``: the ones PIPs and sets count.
    credible_sets_ : list of dict
        As :class:`~alphavb.AlphaSuSiE`'s (``effect``, ``variables``, ``names``,
        ``coverage``, purities).
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    covariate_coef_ : ndarray of shape (n_covariates,)
    bound_parameters_ : ndarray of shape (n_samples,)
        ``eta``.
    elbo_, elbo_history_, n_iter_, converged_
    approximation_check_ : ApproximationCheck or None
        The fit's PIPs and 95% intervals against a short run of the Polya-Gamma Gibbs
        sampler of its exact alpha-posterior at the fit's prior variances
        (:mod:`~alphavb.linear_model._logistic_exact`; 2 chains of 200 sweeps after 50).
        It costs several fits, so ``alphavb.approximation_checks("auto")``, the default,
        skips it (None) and ``approximation_checks("always")`` runs it; None without the
        ``polyagamma`` package. :func:`alphavb.exact.compare_to_exact` is the full
        comparison.

    Examples
    --------
    >>> import numpy as np
    >>> from alphavb import AlphaSuSiEClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((400, 30))
    >>> y = (rng.random(400) < 1 / (1 + np.exp(-1.5 * X[:, 3]))).astype(int)
    >>> model = AlphaSuSiEClassifier(n_effects=3).fit(X, y)
    >>> [found["variables"] for found in model.credible_sets_]
    [[3]]
    """

    # what alphavb.exact and AlphaSelector ask of the model (base.ExactSampler, KINDS)
    _exact_sampler: ClassVar[ExactSampler] = ExactSampler(
        "_polya_gamma", "sample_susie_logistic", ("covariates",))
    _model_kind: ClassVar[str] = "logistic_regression"

    _parameter_constraints: ClassVar[dict] = {
        **{name: rule for name, rule in CAVIEstimator._parameter_constraints.items()
           if name != "n_init"},
        "n_effects": [Integer(1, None)],
        "scaled_prior_variance": [Real(0, None, closed="neither")],
        "prior_weights": [None, FiniteArray(positive=True)],
        "estimate_prior_variance": [Boolean()],
        "prior_variance_method": [Options("optim", "em")],
        "intercept_estimate": [Options("integrated", "point")],
        "fit_intercept": [Boolean()],
        "standardize": [Boolean()],
        "coverage": [Real(0, 1, closed="neither")],
        "min_abs_corr": [Real(0, 1, closed="both")],
    }
    _fit_kind = "individual"

    def __init__(self, n_effects=10, alpha=1.0, *, scaled_prior_variance=0.2,
                 prior_weights=None, estimate_prior_variance=True,
                 prior_variance_method="optim", intercept_estimate="integrated",
                 fit_intercept=True,
                 standardize=True, coverage=0.95, min_abs_corr=0.5, objective="alpha-vb",
                 max_iter=500, tol=1e-3, warm_start=False, random_state=None, verbose=0):
        self.n_effects = n_effects
        self.alpha = alpha
        self.scaled_prior_variance = scaled_prior_variance
        self.prior_weights = prior_weights
        self.estimate_prior_variance = estimate_prior_variance
        self.prior_variance_method = prior_variance_method
        self.intercept_estimate = intercept_estimate
        self.fit_intercept = fit_intercept
        self.standardize = standardize
        self.coverage = coverage
        self.min_abs_corr = min_abs_corr
        self.objective = objective
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y, covariates=None):
        """Fit by alternating SuSiE sweeps on the bound's weighted rows with the bound's
        update (:mod:`~alphavb.linear_model._logistic_bound`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes; ``classes_[1]``, the second in sorted order, is the modelled ``y =
            1`` (pass 0/1 or booleans to say which are the cases: with "case" and
            "control" it would be "control").
        covariates : array-like of shape (n_samples, n_covariates), default=None
            Flat-prior covariates (e.g. principal components), integrated out;
            ``predict_proba`` then needs them too.

        Returns
        -------
        self
        """
        self._fit_cavi(self._prepare_fit(X, y, covariates))
        return self

    def _prepare_fit(self, X, y, covariates):
        self._validate_params()
        owner = type(self).__name__
        X, _, labels, Z, F = self._binary_inputs(X, y, covariates)
        weights = None
        if self.prior_weights is not None:
            weights = np.asarray(self.prior_weights, dtype=float)
            if weights.shape != (X.shape[1],):
                raise ValueError(f"{owner}: prior_weights must be {X.shape[1]} positive "
                                 f"finite numbers, one per column of X, not shape "
                                 f"{weights.shape}.")
            weights = weights / weights.max()   # no overflow in the sum of huge weights
            weights = weights / weights.sum()
        n_effects = self.n_effects
        if n_effects > X.shape[1]:
            warnings.warn(f"{owner}: n_effects={n_effects} is more than the {X.shape[1]} "
                          f"variables; fitting {X.shape[1]} effects (susieR caps L at p).",
                          UserWarning, stacklevel=caller_stacklevel())
            n_effects = X.shape[1]
        scale = column_scales(X, self.standardize)
        variance_unit = 1.0
        if not self.standardize:  # V relative to the columns' mean variance
            variances = X.var(axis=0)
            varying = variances[variances > 0]
            variance_unit = 1.0 / float(varying.mean()) if varying.size else 1.0
        n_covariates = covariate_count(Z)
        return Labels(X / scale, labels - 0.5, F,
                      tuple(covariate_names(covariates, n_covariates)), weights, variance_unit,
                      n_effects, {"n_samples_fit_": X.shape[0], "column_scale_": scale,
                                  "n_covariates_in_": n_covariates,
                                  "_variance_unit": variance_unit})

    def _rule(self, data):
        """susieR's ``"optim"`` over ``log V`` in ``[-30, log 150]`` on the logit scale (plus
        the log of the variance unit): a standardized column's effect of sd 12 (odds ratio
        ``e^12`` per sd) is already beyond any trait's, and with no upper bound ``V`` grows
        without end where the classes are separable (the likelihood then has no
        maximum)."""
        if not self.estimate_prior_variance:
            return PriorVarianceRule("fixed")
        if self.prior_variance_method == "em":
            return PriorVarianceRule("em")
        shift = float(np.log(data.variance_unit))
        return PriorVarianceRule("optim", log_bounds=(LOG_PRIOR_VARIANCE_BOUNDS[0] + shift,
                                                      LOG_MAX_PRIOR_VARIANCE + shift))

    def _n_starts(self):
        return 2

    def _initialize(self, data, random_state, start, previous=None):
        """Start 0 from linear SuSiE's fit to the 0/1 trait (:func:`linear_start`), start 1
        from no effect (every ``alpha_l = pi``, susieR's start); the fit keeps the start
        with the higher objective. Both start at the bound of the flat fit."""
        if previous is not None:
            return previous
        bound = self._bound(data, null_bound_parameters(data, self.alpha),
                            np.zeros(data.X.shape[1]))
        if start == 0:
            started = linear_start(self, data, bound)
            if started is not None:
                return started
        # initial_state's V is scaled_prior_variance times the bound's variance_y (the unit)
        return State(initial_state(bound.ibss, data.n_effects, 1.0,
                                   self.scaled_prior_variance), bound)

    def _state_fits(self, data):
        return self._state.bound.X_projected.shape == data.X.shape and (
            self._state.effects.probabilities.shape[0] == data.n_effects)

    def _cavi_step(self, data, state):
        # the effects' fits are on state.bound's rows (objective_at refitted them)
        effects, _ = ibss_sweep(state.bound.ibss, state.effects, alpha=1.0,
                                estimate_residual_variance=False, rule=self._rule(data))
        coef = np.sum(effects.probabilities * effects.mean, axis=0)
        bound = state.bound
        if bound.flat_point is not None:  # the point estimate given the new effects
            bound = self._bound(data, bound.eta, coef)
        mean, variance = logit_moments(bound, effects)
        bound = self._bound(data, np.sqrt(mean * mean + variance), coef)
        value, effects = objective_at(bound, effects)
        return State(effects, bound), self._objective_without_latents(value)

    def _bound(self, data, eta, coef):
        """:func:`bound_of` at ``eta``; with ``intercept_estimate="point"`` the flat
        coefficients at their weighted least squares given ``coef`` (standardized ``E[b]``)
        under that bound."""
        if self.intercept_estimate == "integrated":
            return bound_of(data, eta, self.alpha)
        u = bound_weights(eta)
        point, _ = weighted_flat_fit(data, self.alpha * u, data.y_centred / u - data.X @ coef)
        return bound_of(data, eta, self.alpha, flat_point=point)

    def _has_converged(self, current, previous):
        """susieR's rule: the objective rose by less than ``tol`` (a fall beyond rounding
        is no convergence)."""
        rise = current - previous
        return -1e-12 * max(1.0, abs(current)) <= rise < self.tol

    def _set_parameters(self, state):
        effects, bound = state.effects, state.bound
        scale = self.column_scale_
        self.single_effect_probabilities_ = effects.probabilities
        self.null_effect_probabilities_ = effects.null_alpha.copy()
        self.effect_means_ = effects.mean / scale
        self.effect_variances_ = np.maximum(effects.second_moment - effects.mean**2,
                                            0.0) / scale**2
        self.prior_variances_ = np.asarray(effects.prior_variance, dtype=float)
        self.n_effects_ = int(effects.probabilities.shape[0])
        self._prior_variance_floor = PRIOR_VARIANCE_TOLERANCE * self._variance_unit
        self.kept_effects_ = self.prior_variances_ > self._prior_variance_floor
        self.inclusion_probabilities_ = inclusion_probabilities(
            effects.probabilities, self.prior_variances_, self._prior_variance_floor)
        self.coef_ = np.sum(effects.probabilities * effects.mean, axis=0) / scale
        self.bound_parameters_ = bound.eta
        self.__dict__.pop("_lfsr", None)

    def _publish_data(self, data):
        super()._publish_data(data)
        self._covariate_names = data.covariate_names

    def _publish_results(self, data, results):
        super()._publish_results(data, results)
        state = self._state
        bound = state.bound
        coef_scaled = self.coef_ * self.column_scale_
        F, w = data.F, bound.w
        # gamma | b ~ N(mean - G'(b - E b), A^{-1}), G' = A^{-1} F' W X (standardized X);
        # a point estimate has no spread and does not move with b
        gamma, factor = weighted_flat_fit(data, w, bound.z - data.X @ coef_scaled)
        if bound.flat_point is None:
            G_t = cho_solve(factor, (w[:, None] * F).T @ data.X)
            inverse = cho_solve(factor, np.eye(F.shape[1]))
        else:
            G_t, inverse = np.zeros((F.shape[1], data.X.shape[1])), np.zeros((F.shape[1],) * 2)
        self._predictive = {"G_t": G_t, "inverse": inverse, "gamma": gamma}
        self.intercept_ = float(gamma[0]) if self.fit_intercept else 0.0
        self.covariate_coef_ = gamma[int(self.fit_intercept):]
        names = feature_labels(self)
        sets = credible_sets(self.single_effect_probabilities_, self.prior_variances_,
                             coverage=self.coverage, min_abs_corr=self.min_abs_corr,
                             correlation=lambda variables: _absolute_correlations(
                                 data.X[:, variables]),
                             random_state=self._purity_seed(),
                             threshold=self._prior_variance_floor)
        for found in sets:
            found["names"] = [names[j] for j in found["variables"]]
        self.credible_sets_ = sets
        publish_check(self, lambda: logistic_susie_check(
            self, data, check_random_state(self._purity_seed())),
            cost_share=check_cost_share(self.n_iter_, self.n_effects_))

    def _purity_seed(self):
        if self.random_state is None:
            return 0
        return check_random_state(self.random_state).randint(2**31 - 1)

    def _flat_rows(self, n_samples, covariates):
        """The flat-prior design of new rows (their covariates checked against the fit's)."""
        return self._flat_design(n_samples, check_covariates(
            type(self).__name__, covariates, n_samples, self.n_covariates_in_))

    def _other_summary_rows(self, level):
        """The intercept and covariates: ``Var(gamma_k) = sum_j Var(b_j) G_jk^2 +
        [A^{-1}]_kk`` (:mod:`~alphavb.linear_model._logistic_bound`); normal intervals."""
        pieces = self._predictive
        variances = ((self._coef_variances() * self.column_scale_**2) @ (pieces["G_t"].T ** 2)
                     + np.diag(pieces["inverse"]))
        names = (["intercept"] if self.fit_intercept else []) + list(self._covariate_names)
        z = normal_quantile(level)
        sd = np.sqrt(variances)
        return [(name, {"coef": m, "sd": s, "lower": m - z * s, "upper": m + z * s})
                for name, m, s in zip(names, pieces["gamma"], sd, strict=True)]

    def _other_rows_note(self, others):
        return (" Below the coefficients: the intercept and covariates (normal intervals "
                "from their posterior mean and sd).")

    def decision_moments(self, X, covariates=None):
        """The mean and variance of the logit ``t`` of each row of ``X`` under ``q``
        (:mod:`~alphavb.linear_model._logistic_bound`).

        Returns
        -------
        mean, variance : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        F = self._flat_rows(X.shape[0], covariates)
        pieces = self._predictive
        with np.errstate(over="ignore", invalid="ignore"):
            standardized = X / self.column_scale_
            mean = standardized @ (self.coef_ * self.column_scale_) + F @ pieces["gamma"]
            variance = self._coef_variance_along(X - F @ pieces["G_t"] * self.column_scale_)
            variance = variance + np.einsum("ij,jk,ik->i", F, pieces["inverse"], F)
        if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(variance))):
            raise ValueError(f"Input X of {type(self).__name__} has values so large that the "
                             "logit's mean or variance overflows float64 (a probability "
                             "would be NaN). Pass X in the units it was fitted in.")
        return mean, np.maximum(variance, 0.0)

    def predict_proba(self, X, covariates=None):
        """``P(y = classes_[1] | x)`` under ``q``: ``sigmoid(E t / sqrt(1 + pi Var(t) /
        8))`` (:mod:`~alphavb.linear_model._logistic_bound`).

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        positive = moderated_sigmoid(*self.decision_moments(X, covariates))
        return np.column_stack([1.0 - positive, positive])

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws from ``q``: ``"coef"`` (n_samples, n_features), then ``"intercept"`` and
        ``"covariate_coef"`` from ``q(gamma | b)``."""
        check_is_fitted(self)
        rng = check_random_state(random_state)
        coef = self._draw_coef(n_samples, rng)["coef"]
        pieces = self._predictive
        shift = (coef - self.coef_) * self.column_scale_
        centre = pieces["gamma"] - shift @ pieces["G_t"].T
        # a point estimate of the flat coefficients (intercept_estimate="point") has no spread
        root = (np.linalg.cholesky(pieces["inverse"]) if pieces["inverse"].any()
                else None)
        flat = centre if root is None else centre + rng.standard_normal(centre.shape) @ root.T
        intercept = flat[:, 0] if self.fit_intercept else np.zeros(n_samples)
        return {"coef": coef, "intercept": intercept,
                "covariate_coef": flat[:, int(self.fit_intercept):]}


def _absolute_correlations(columns):
    """Pearson's absolute correlations of the columns, 0 beside a column without variance
    (the purity of a credible set that holds one is then 0, as AlphaSuSiE's)."""
    centred = columns - columns.mean(axis=0)
    block = centred.T @ centred
    norms = np.sqrt(np.maximum(np.diag(block), 0.0))
    scale = np.outer(norms, norms)
    return np.abs(np.divide(block, scale, out=np.zeros_like(block), where=scale > 0))
