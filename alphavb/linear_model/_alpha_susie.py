"""alpha-SuSiE: the sum of single effects (Wang, Sarkar, Carbonetto & Stephens 2020) fitted
on the alpha-VB objective, as a scikit-learn estimator.

The math (the single effect, the sweep, the objective, PIPs and credible sets) is in
:mod:`alphavb.linear_model._susie`, the summary-statistics likelihood and the LD-mismatch
diagnostic in :mod:`alphavb.linear_model._susie_rss`; this module prepares the data,
runs the package's CAVI loop and publishes the fit.

Marginals. Under ``q`` the effects are independent, so ``b_j = sum_l gamma_lj beta_lj``
is a sum of ``L`` independent spike-and-slab variables: a mixture over the subsets of
effects that include ``j``, with an atom at 0 (:func:`~alphavb.linear_model._susie.
coefficient_marginals`). Its mean and variance are exact; its quantiles (credible
intervals) and ``lfsr_`` are exact up to the mixture's components of weight below
``1e-12``, which are dropped.
"""

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.stats import norm
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    Boolean,
    FiniteArray,
    Integer,
    Options,
    Real,
    bad_parameter,
    validate_params,
)
from ..base import CAVIEstimator
from ._base import AlphaRegressionBase, Centring
from ._covariates import GaussianCovariatesMixin
from ._inclusion import InclusionSummaryMixin, mixture_intervals
from ._susie import (
    IBSSData,
    coefficient_marginals,
    credible_sets,
    design_times,
    ibss_data,
    ibss_sweep,
    inclusion_probabilities,
    initial_state,
    sufficient_statistics_data,
)

# AlphaRegressionBase's parameters that this model does not have: sigma2 is a point
# estimate here, as in susieR (residual_variance, estimate_residual_variance)
_NOT_PARAMETERS = ("noise_variance", "noise_prior", "n_init")


class AlphaSuSiE(InclusionSummaryMixin, GaussianCovariatesMixin, AlphaRegressionBase):
    """Sum of single effects regression (SuSiE) fitted by alpha-VB: fine-mapping with
    credible sets.

    The model of Wang, Sarkar, Carbonetto & Stephens (2020, JRSSB 82:1273, eqs. 2.4-2.6),
    ``y = X b + e``, ``b = sum_l b_l``, each ``b_l`` one variable ``gamma_l ~ Mult(1, pi)``
    with effect ``N(0, V_l)``, ``e ~ N(0, sigma2 I)``, with the likelihood raised to the
    temperature ``alpha`` (Yang, Pati & Bhattacharya 2020, eq. 2.6), fitted by iterative
    Bayesian stepwise selection over SuSiE's family ``prod_l q(gamma_l, beta_l)``: each
    single effect's update is SuSiE's with the residual variance ``sigma2 / alpha``
    (:mod:`alphavb.linear_model._susie`). At ``alpha = 1`` every number is susieR
    0.12.35's ``susie`` (checked on N3finemapping to 1e-6 in the PIPs).

    Parameters
    ----------
    n_effects : int, default=10
        ``L``, the largest number of effects (susieR's ``L``); at most ``n_features``.
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature; 1 is SuSiE. Smaller values count the data as ``alpha
        * n`` observations, which widens the credible sets and shrinks the PIPs of
        variables the data support weakly.
    scaled_prior_variance : float > 0, default=0.2
        Each ``V_l``'s start (its value when not estimated) as a share of ``Var(y)``
        (susieR's default).
    residual_variance : float > 0 or None, default=None
        ``sigma2``'s start (its value when not estimated); None: ``Var(y)``.
    prior_weights : array of shape (n_features,) or None, default=None
        ``pi``, the prior probability of each variable being an effect's (normalised);
        None: uniform.
    estimate_prior_variance : bool, default=True
        Choose each ``V_l`` by maximising its single effect's evidence (susieR's
        ``estimate_prior_method="optim"``); an effect whose best ``V_l`` is 0 drops out of
        the PIPs and credible sets.
    estimate_residual_variance : bool or "auto", default="auto"
        Estimate ``sigma2``; ``"auto"``: yes on individual data (``susie``), no on summary
        statistics (``susie_rss``, which keeps ``sigma2 = 1`` on the z scale).
    fit_intercept : bool, default=True
        Centre ``X`` and ``y`` (a flat-prior intercept).
    standardize : bool, default=True
        Scale the columns to unit standard deviation (divisor ``n - 1``, susieR's) before
        fitting; ``coef_`` and the effect means are on the original columns, the prior
        variances on the standardized ones.
    coverage : float in (0, 1), default=0.95
        The level of the credible sets.
    min_abs_corr : float in [0, 1], default=0.5
        The purity a credible set must have to be reported: the smallest absolute
        correlation between two of its variables (susieR's).
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        ``elbo_``: the alpha-ELBO, or ``alpha`` times it (``F``, susieR's ELBO at alpha = 1).
    max_iter : int, default=100
        Most sweeps (susieR's ``max_iter``).
    tol : float, default=1e-3
        Stop when ``F`` rises by at most ``tol`` in a sweep (susieR's rule and default).
    constant_columns : {"raise", "exclude"}, default="raise"
        A column that is constant in the data (after the intercept and covariates are
        taken out) carries no information on an effect: ``"raise"`` refuses it (drop it),
        ``"exclude"`` gives it prior weight 0 (PIP 0). Resampled genotypes often have
        such columns, so :class:`~alphavb.model_selection.AlphaSelector` needs
        ``"exclude"`` there.
    warm_start : bool, default=False
        Continue from the last fit's ``q`` (same ``n_effects`` and features).
    random_state : int, RandomState or None, default=None
        The purity of a credible set of more than 100 variables is that of 100 of them drawn
        at random (susieR's ``n_purity``); this seeds the draw (None: seed 0, so a fit is
        reproducible). The fit itself is deterministic.
    verbose : int, default=0

    Attributes
    ----------
    inclusion_probabilities_ : ndarray of shape (n_features,)
        PIPs ``1 - prod_l (1 - single_effect_probabilities_[l, j])`` over the effects with
        ``V_l > 1e-9``.
    single_effect_probabilities_ : ndarray of shape (n_effects, n_features)
        ``q(gamma_lj = 1)`` (susieR's ``alpha``, renamed: ``alpha`` is the temperature).
    effect_means_, effect_variances_ : ndarray of shape (n_effects, n_features)
        Mean and variance of ``beta_l`` given ``gamma_lj = 1``, on the original columns.
    prior_variances_ : ndarray of shape (n_effects,)
        ``V_l`` (on the standardized columns with ``standardize=True``).
    noise_variance_ : float
        ``sigma2`` (susieR's ``sigma2``; untempered).
    coef_ : ndarray of shape (n_features,)
        ``E_q[b]``.
    intercept_ : float
    credible_sets_ : list of dict
        The level-``coverage`` credible sets with purity at least ``min_abs_corr``, purest
        first: ``effect``, ``variables`` (indices), ``names`` (feature names), ``coverage``
        (their summed probability), ``min_abs_corr``, ``mean_abs_corr``,
        ``median_abs_corr``.
    lfsr_ : ndarray of shape (n_features,)
        Local false sign rates ``min(q(b_j >= 0), q(b_j <= 0))`` (computed when first
        read: it needs the mixture marginals).
    elbo_, elbo_history_, n_iter_, converged_ : the objective after the last sweep, after
        every sweep, the sweeps run, whether ``tol`` was met.
    covariate_coef_ : ndarray of shape (n_covariates,)
    column_scale_ : ndarray of shape (n_features,)
    n_features_in_, feature_names_in_ : as scikit-learn's.

    Examples
    --------
    >>> from alphavb import AlphaSuSiE
    >>> from alphavb.datasets import make_sparse_regression
    >>> X, y, coef = make_sparse_regression(n_samples=200, n_features=50, random_state=0)
    >>> model = AlphaSuSiE(n_effects=5).fit(X, y)
    >>> sorted(v for cs in model.credible_sets_ for v in cs["variables"])
    [0, 1, 2, 3]
    """

    _parameter_constraints: ClassVar[dict] = {
        **{name: rule for name, rule in AlphaRegressionBase._parameter_constraints.items()
           if name not in _NOT_PARAMETERS},
        "n_effects": [Integer(1, None)],
        "scaled_prior_variance": [Real(0, None, closed="neither")],
        "residual_variance": [None, Real(0, None, closed="neither")],
        "prior_weights": [None, FiniteArray(positive=True)],
        "estimate_prior_variance": [Boolean()],
        "estimate_residual_variance": [Boolean(), Options("auto")],
        "standardize": [Boolean()],
        "coverage": [Real(0, 1, closed="neither")],
        "min_abs_corr": [Real(0, 1, closed="both")],
        "constant_columns": [Options("raise", "exclude")],
    }
    _parameter_hints: ClassVar[dict] = {
        **CAVIEstimator._parameter_hints,
        "n_effects": "It is L, the largest number of effects (susieR's default is 10).",
    }
    _state_parameters: ClassVar[tuple] = ("standardize", "n_effects")

    def __init__(self, n_effects=10, alpha=1.0, *, scaled_prior_variance=0.2,
                 residual_variance=None, prior_weights=None, estimate_prior_variance=True,
                 estimate_residual_variance="auto", fit_intercept=True, standardize=True,
                 coverage=0.95, min_abs_corr=0.5, objective="alpha-vb", max_iter=100,
                 tol=1e-3, constant_columns="raise", warm_start=False, random_state=None,
                 verbose=0):
        self.n_effects = n_effects
        self.alpha = alpha
        self.scaled_prior_variance = scaled_prior_variance
        self.residual_variance = residual_variance
        self.prior_weights = prior_weights
        self.estimate_prior_variance = estimate_prior_variance
        self.estimate_residual_variance = estimate_residual_variance
        self.fit_intercept = fit_intercept
        self.standardize = standardize
        self.coverage = coverage
        self.min_abs_corr = min_abs_corr
        self.objective = objective
        self.max_iter = max_iter
        self.tol = tol
        self.constant_columns = constant_columns
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ fitting

    def fit(self, X, y, covariates=None, sample_weight=None):
        """Fit alpha-SuSiE to individual data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The candidate variables (e.g. genotypes); a constant column is refused unless
            ``constant_columns="exclude"``.
        y : array-like of shape (n_samples,)
        covariates : array-like of shape (n_samples, n_covariates), default=None
            Unpenalised covariates with a flat prior, integrated out (projected out of
            ``X`` and ``y``; :mod:`~alphavb.linear_model._covariates`).
        sample_weight : array-like of shape (n_samples,), default=None
            Row counts in the likelihood (an integer weight repeats its row).

        Returns
        -------
        self
        """
        self._validate_params()
        rows = self._prepare_data(X, y, sample_weight=sample_weight)
        n_samples = rows.centring.weight_total
        if n_samples <= 1.0:
            raise ValueError(f"AlphaSuSiE needs more than one sample (Var(y) divides by n - "
                             f"1); got n_samples = {n_samples:g}.")
        self._check_n_effects(rows.X.shape[1])
        rows, projected = self._take_out_covariates(rows, covariates)
        norms = np.sqrt(np.einsum("ij,ij->j", rows.X, rows.X))
        constant = norms <= 1e-12 * max(float(norms.max()), 1e-300)
        if constant.any() and self.constant_columns == "raise":
            raise bad_parameter(type(self).__name__, "X", "columns that vary (after the "
                                "intercept and covariates are taken out)",
                                f"constant column(s) {np.flatnonzero(constant)[:5].tolist()}",
                                "Drop them (a constant column carries no information on "
                                "an effect), or pass constant_columns='exclude' to give them "
                                "prior weight 0.")
        norms = np.where(constant, 1.0, norms)
        self.column_scale_ = (norms / np.sqrt(n_samples - 1.0) if self.standardize
                              else np.ones(rows.X.shape[1]))
        design = rows.X / self.column_scale_
        y, centring = rows.y, rows.centring
        del rows  # the centred copy: at most two (n, p) arrays besides the caller's
        self._summary_fit = False
        ibss = ibss_data(design, y, self._prior_weights(design.shape[1], constant),
                         n_samples, projected)
        self._fit_cavi(_SuSiEData(ibss, centring,
                                  self.estimate_residual_variance in ("auto", True)))
        return self

    def fit_summary(self, z, R=None, n_samples=None, *, reference_X=None, regularization=0.0):
        """Fit alpha-SuSiE to summary statistics: z-scores and an LD matrix (susieR's
        ``susie_rss`` with ``n``).

        The z-scores of univariate regressions on ``n`` rows and the correlation matrix
        ``R`` of the variables give the sufficient statistics of standardized data,
        ``X'X = (n - 1) R``, ``X'y = sqrt(n - 1) z~``, ``y'y = n - 1`` with ``z~_j = z_j
        sqrt((n - 1) / (z_j^2 + n - 2))`` (the correlation of ``x_j`` and ``y`` times
        ``sqrt(n - 1)``), and the sweep runs on them (:mod:`~alphavb.linear_model.
        _susie_rss`). With ``R`` the in-sample correlation the fit is the individual-data
        fit (same PIPs, credible sets and objective). ``R`` from a reference panel is an
        approximation: check it with :func:`~alphavb.linear_model.ld_mismatch_diagnostic`.

        Parameters
        ----------
        z : array-like of shape (n_features,)
            z-scores (no NaN: impute or drop the variable).
        R : array-like of shape (n_features, n_features), default=None
            The variables' correlation matrix: symmetric, positive semi-definite (its
            smallest eigenvalue above ``-1e-8 p``), unit diagonal. None: the correlations
            of ``reference_X``.
        n_samples : int > 2
            The number of rows behind ``z`` (required).
        reference_X : array-like of shape (n_reference, n_features), default=None
            A reference panel's genotypes, whose correlations stand in for ``R`` (give
            one of the two).
        regularization : float in [0, 1), default=0.0
            ``lambda``: fit with ``(1 - lambda) R + lambda I`` (susieR's ``lambda``), the
            fix for an ``R`` that is not positive semi-definite or does not match ``z``.

        Returns
        -------
        self
        """
        from ._susie_rss import reference_ld, summary_statistics

        self._validate_params()
        if (R is None) == (reference_X is None):
            raise bad_parameter(type(self).__name__, "R", "the LD matrix, or None with "
                                "reference_X given", "both" if R is not None else "neither",
                                "Pass R (correlations) or reference_X (a reference panel's "
                                "genotypes), not both.")
        if R is None:
            R = reference_ld(type(self).__name__, reference_X)
        stats = summary_statistics(type(self).__name__, z, R, n_samples, regularization)
        p = stats.gram.shape[0]
        self._check_n_effects(p)
        self.n_features_in_ = p
        self.__dict__.pop("feature_names_in_", None)
        self.n_samples_fit_ = int(n_samples)
        self.n_covariates_in_ = 0
        self.column_scale_ = np.ones(p)
        self._summary_fit = True
        ibss = sufficient_statistics_data(stats.gram, stats.zty, stats.yty, n_samples,
                                          self._prior_weights(p))
        self._fit_cavi(_SuSiEData(ibss, Centring(np.zeros(p), 0.0, float(n_samples)),
                                  self.estimate_residual_variance is True))
        return self

    def _check_n_effects(self, n_features):
        if self.n_effects > n_features:
            raise bad_parameter(type(self).__name__, "n_effects", f"at most n_features = "
                                f"{n_features}", self.n_effects,
                                f"Pass n_effects={n_features} or fewer.")

    def _prior_weights(self, n_features, excluded=None):
        """``pi`` normalised (None: uniform), 0 at the ``excluded`` (constant) columns."""
        if self.prior_weights is None and (excluded is None or not excluded.any()):
            return None
        weights = (np.ones(n_features) if self.prior_weights is None
                   else np.asarray(self.prior_weights, dtype=float))
        if weights.shape != (n_features,):
            raise bad_parameter(type(self).__name__, "prior_weights", f"an array of "
                                f"{n_features} positive weights, one per feature",
                                f"shape {weights.shape}")
        if excluded is not None:
            if excluded.all():
                raise bad_parameter(type(self).__name__, "X", "at least one column that "
                                    "varies", "only constant columns")
            weights = np.where(excluded, 0.0, weights)
        return weights / weights.sum()

    def _n_starts(self):
        return 1

    def _initialize(self, data, random_state, start, previous=None):
        if previous is not None:
            coef = np.sum(previous.alpha * previous.mean, axis=0)
            return previous._replace(fit=design_times(data.ibss, coef), erss=None)
        return initial_state(data.ibss, self.n_effects, self.residual_variance,
                             self.scaled_prior_variance)

    def _state_fits(self, data):
        return self._state.alpha.shape == (self.n_effects, data.ibss.d.shape[0])

    def _cavi_step(self, data, state):
        alpha = float(self.alpha)
        state, fractional = ibss_sweep(
            data.ibss, state, alpha=alpha, estimate_prior_variance=self.estimate_prior_variance,
            estimate_residual_variance=data.estimate_residual_variance)
        return state, self._objective_without_latents(fractional / alpha)

    def _stopping_value(self, data, state, objective):
        """``F`` (susieR's ELBO at alpha = 1), whose rise ``tol`` bounds."""
        return objective if self.objective == "fractional" else self.alpha * objective

    def _has_converged(self, current, previous):
        return current - previous < self.tol

    def _set_parameters(self, state):
        scale = self.column_scale_
        probabilities = state.alpha
        means = state.mean / scale
        variances = np.maximum(state.second_moment - state.mean**2, 0.0) / scale**2
        coef = np.sum(probabilities * means, axis=0)
        self.single_effect_probabilities_ = probabilities
        self.effect_means_, self.effect_variances_ = means, variances
        self.prior_variances_ = state.prior_variance.copy()
        self.noise_variance_ = float(state.residual_variance)
        self.noise_shape_ = self.noise_scale_ = None  # sigma2 is a point estimate
        self.inclusion_probabilities_ = inclusion_probabilities(probabilities,
                                                                state.prior_variance)
        self.coef_ = coef
        self.__dict__.update(self._covariate_attributes(coef))
        self.__dict__.pop("_lfsr", None)  # lfsr_ is computed when it is first read

    def _publish_results(self, data, results):
        """Publish the fitted state, then its credible sets: their purities read the
        design (or LD) of ``data``, which the fitted model does not keep."""
        super()._publish_results(data, results)
        names = self._feature_labels()
        sets = credible_sets(self.single_effect_probabilities_, self.prior_variances_,
                             coverage=self.coverage, min_abs_corr=self.min_abs_corr,
                             correlation=lambda variables: _correlation(data.ibss, variables),
                             random_state=self._purity_seed())
        for found in sets:
            found["names"] = [names[j] for j in found["variables"]]
        self.credible_sets_ = sets

    def _purity_seed(self):
        """A seed for the purity subsample, from ``random_state`` (0 when None, so that a
        fit is reproducible)."""
        if self.random_state is None:
            return 0
        return check_random_state(self.random_state).randint(2**31 - 1)

    def _feature_labels(self):
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            return [str(name) for name in names]
        return [f"x{j}" for j in range(self.n_features_in_)]

    # --------------------------------------------------------------- the posterior

    def _kept(self):
        from ._susie import PRIOR_VARIANCE_TOLERANCE

        return self.prior_variances_ > PRIOR_VARIANCE_TOLERANCE

    def _marginals(self):
        """The mixture ``q(b_j)``: (weights, means, variances) of shape (p, M)."""
        kept = self._kept()
        return coefficient_marginals(self.single_effect_probabilities_[kept],
                                     self.effect_means_[kept], self.effect_variances_[kept])

    def _coef_variances(self):
        """``Var_q(b_j) = sum_l [a_lj (v_lj + m_lj^2) - (a_lj m_lj)^2]`` (effects
        independent)."""
        kept = self._kept()
        a, m = self.single_effect_probabilities_[kept], self.effect_means_[kept]
        v = self.effect_variances_[kept]
        return np.sum(a * (v + m * m) - (a * m) ** 2, axis=0)

    def _coef_variance_along(self, X_centred):
        """``Var_q(x' b) = sum_l Var(x' b_l)``, ``Var(x' b_l) = sum_j a_lj x_j^2 (v_lj +
        m_lj^2) - (x' (a_l m_l))^2``."""
        kept = self._kept()
        a, m = self.single_effect_probabilities_[kept], self.effect_means_[kept]
        v = self.effect_variances_[kept]
        second = (a * (v + m * m)) @ (X_centred * X_centred).T
        first = (a * m) @ X_centred.T
        return np.sum(second - first * first, axis=0)

    @property
    def lfsr_(self):
        """Local false sign rates ``min(q(b_j >= 0), q(b_j <= 0))`` of the mixture
        marginals (module docstring), computed when first read."""
        check_is_fitted(self, "single_effect_probabilities_")
        if "_lfsr" not in self.__dict__:
            self._lfsr = self._local_false_sign_rates()
        return self._lfsr

    def _local_false_sign_rates(self):
        weights, means, variances = self._marginals()
        sd = np.sqrt(variances)
        atom = np.sum(np.where(sd > 0, 0.0, weights), axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(sd > 0, means / np.where(sd > 0, sd, 1.0), 0.0)
        slab = np.where(sd > 0, weights, 0.0)
        below = np.sum(slab * norm.cdf(-z), axis=1)
        above = np.sum(slab * norm.sf(-z), axis=1)
        return np.minimum(atom + below, atom + above).clip(0.0, 1.0)

    @validate_params({"level": [Real(0.0, 1.0, closed="neither")]})
    def credible_intervals(self, level=0.95):
        """Equal-tailed credible intervals of each ``b_j`` under ``q``: quantiles of the
        mixture ``q(b_j)`` (module docstring; an atom at 0, so an interval may be
        ``[0, 0]``), by bisection to ``1e-12`` of its scale.

        Parameters
        ----------
        level : float in (0, 1), default=0.95

        Returns
        -------
        ndarray of shape (n_features, 2)
        """
        check_is_fitted(self)
        weights, means, variances = self._marginals()
        return mixture_intervals(weights, means, np.sqrt(variances), level)

    def _summary_row_names(self):
        return self._feature_labels()

    def _other_summary_rows(self, level):
        """The intercept and covariates; none after :meth:`fit_summary` (z-scores carry
        no intercept)."""
        return [] if self._summary_fit else super()._other_summary_rows(level)

    def _draw_coef(self, n_samples, rng):
        """Per draw and effect ``l`` (with ``V_l > 1e-9``), ``gamma_l ~ Mult(1, a_l)`` and
        ``beta_l ~ N(m_lj, v_lj)`` at its variable; ``b`` the sum."""
        kept = np.flatnonzero(self._kept())
        coef = np.zeros((n_samples, self.n_features_in_))
        rows = np.arange(n_samples)
        for effect in kept:
            probabilities = self.single_effect_probabilities_[effect]
            chosen = rng.choice(probabilities.size, size=n_samples,
                                p=probabilities / probabilities.sum())
            coef[rows, chosen] += (self.effect_means_[effect, chosen]
                                   + np.sqrt(self.effect_variances_[effect, chosen])
                                   * rng.standard_normal(n_samples))
        return {"coef": coef}

    def predict(self, X, return_std=False, covariates=None):
        """Posterior-predictive mean (and standard deviation, ``sqrt(Var_q(x' b + z'
        gamma) + sigma2 (1 + ...))`` with the intercept's and covariates' spread) under
        ``q``; not after :meth:`fit_summary`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        return_std : bool, default=False
        covariates : array-like of shape (n_samples, n_covariates), default=None

        Returns
        -------
        y_mean : ndarray of shape (n_samples,)
        y_std : ndarray of shape (n_samples,), only when ``return_std``
        """
        check_is_fitted(self)
        if self._summary_fit:
            raise ValueError("This AlphaSuSiE was fitted on summary statistics "
                             "(fit_summary): its effects are on the scale of standardized "
                             "variables and response, with no intercept, so it cannot "
                             "predict y. Fit it with fit(X, y) to predict.")
        return super().predict(X, return_std=return_std, covariates=covariates)

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws from ``q``: ``"coef"`` (n_samples, n_features), ``"intercept"``,
        ``"noise_variance"`` (the point estimate ``sigma2``, repeated) and, with
        covariates, ``"covariate_coef"`` (given each draw's ``b``, as
        :class:`~alphavb.AlphaSpikeSlabRegression` draws them)."""
        check_is_fitted(self)
        rng = check_random_state(random_state)
        draws = self._draw_covariates(super().sample_posterior(n_samples, rng), rng)
        if self._summary_fit:  # z-scores carry no intercept
            draws["intercept"] = np.zeros(n_samples)
        return draws


@dataclass(frozen=True)
class _SuSiEData:
    """What one alpha-SuSiE fit reads: the sweeps' :class:`~alphavb.linear_model._susie.
    IBSSData`, the :class:`~alphavb.linear_model._base.Centring` the fitted model keeps and
    whether the sweeps estimate the residual variance."""

    ibss: IBSSData
    centring: Centring
    estimate_residual_variance: bool


def _correlation(data, variables):
    """The absolute correlations of the variables (indices) in the :class:`IBSSData` being
    fitted: ``|x_j'x_k| / sqrt(d_j d_k)`` of its centred columns, or of ``Z'Z`` (``(n - 1)
    R``)."""
    index = np.asarray(variables)
    if data.gram is None:
        block = data.Z[:, index].T @ data.Z[:, index]
    else:
        block = data.gram[np.ix_(index, index)]
    norms = np.sqrt(data.d[index])
    return np.abs(block / np.outer(norms, norms))
