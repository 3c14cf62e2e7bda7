"""alpha-SuSiE: the sum of single effects (Wang, Sarkar, Carbonetto & Stephens 2020) fitted
on the alpha-VB objective, as a scikit-learn estimator.

The math (the single effect, the sweep, the objective, PIPs and credible sets) is in
:mod:`alphavb.linear_model._susie`, the summary and sufficient statistics and the
LD-mismatch diagnostic in :mod:`alphavb.linear_model._susie_rss`, what a fit reads and
where it starts in :mod:`alphavb.linear_model._susie_sources`, the posterior read off the
fit in :mod:`alphavb.linear_model._susie_posterior`; this module prepares the data, runs
the package's CAVI loop (with susieR's refinement) and publishes the fit.

Marginals. Under ``q`` the effects are independent, so ``b_j = sum_l gamma_lj beta_lj``
is a sum of ``L`` independent spike-and-slab variables: a mixture over the subsets of
effects that include ``j``, with an atom at 0 (:func:`~alphavb.linear_model.
_susie_posterior.coefficient_marginals`). Its mean and variance are exact; its quantiles
(credible intervals) and ``lfsr_`` are exact up to the mixture's components of weight below
``1e-12``, which are dropped, and beyond its 255 heaviest, which are merged into one normal
of their mass and moments (many diffuse effects).
"""

import warnings
from dataclasses import replace
from typing import ClassVar

import numpy as np
from sklearn.utils import check_random_state

from .._approximation import publish_check
from .._parallel import one_blas_thread
from .._validation import (
    Boolean,
    FiniteArray,
    FittedWith,
    Integer,
    Options,
    Real,
    VarianceBounds,
    bad_parameter,
    caller_stacklevel,
)
from ..base import CAVIEstimator, CAVIResult, ExactSampler, feature_labels
from ._base import AlphaRegressionBase, Centring, check_means_pair, weighted_variance
from ._covariates import GaussianCovariatesMixin
from ._inclusion import InclusionSummaryMixin
from ._susie import (
    CONSTANT_TOLERANCE,
    LOG_PRIOR_VARIANCE_BOUNDS,
    PRIOR_WEIGHT_FLOOR,
    PriorVarianceRule,
    credible_sets,
    cycle_lag,
    cycle_mean,
    ibss_data,
    ibss_sweep,
    inclusion_probabilities,
    initial_state,
    prior_log_weights,
    remembered,
    residual_variance_update,
    standard_deviations,
    state_from_effects,
    sufficient_statistics_data,
)
from ._susie_exact import check_cost_share, offer_target
from ._susie_posterior import SuSiEPosteriorMixin
from ._susie_sources import (
    SuSiEData,
    data_digest,
    known_rows,
    purity_correlation,
    state_from_init,
    summary_names,
)

# AlphaRegressionBase's parameters that this model does not have: sigma2 is a point
# estimate here, as in susieR (residual_variance, estimate_residual_variance)
_NOT_PARAMETERS = ("noise_variance", "noise_prior", "n_init")
# refinement: most rounds (susieR's block coordinate ascent)
_REFINE_ROUNDS = 100


class AlphaSuSiE(SuSiEPosteriorMixin, InclusionSummaryMixin, GaussianCovariatesMixin,
                 AlphaRegressionBase):
    """Sum of single effects regression (SuSiE) fitted by alpha-VB: fine-mapping with
    credible sets.

    The model of Wang, Sarkar, Carbonetto & Stephens (2020, JRSSB 82:1273, eqs. 2.4-2.6),
    ``y = X b + e``, ``b = sum_l b_l``, each ``b_l`` one variable ``gamma_l ~ Mult(1, pi)``
    with effect ``N(0, V_l)``, ``e ~ N(0, sigma2 I)``, with the likelihood raised to the
    temperature ``alpha`` (Yang, Pati & Bhattacharya 2020, eq. 2.6), fitted by iterative
    Bayesian stepwise selection over SuSiE's family ``prod_l q(gamma_l, beta_l)``: each
    single effect's update is SuSiE's with the residual variance ``sigma2 / alpha``
    (:mod:`alphavb.linear_model._susie`). At ``alpha = 1`` it is susieR's ``susie``,
    ``susie_ss`` (:meth:`fit_sufficient`) and ``susie_rss`` (:meth:`fit_summary`), option
    for option (checked against susieR 0.16.5 and 0.12.35; the user guide's "switching
    from susieR" table lists the names and where the versions differ).

    Units. susieR searches ``log V`` in ``[-30, 15]`` and drops effects with ``V <= 1e-9``
    in absolute units, so its credible sets change when ``y`` is rescaled. Here both are
    relative to ``u = Var(y) / (mean column variance)`` (``u = 1`` on standardized data
    with ``Var(y) = 1``, where the two agree), so a fit is the same in any units of ``y``
    and ``X``.

    Parameters
    ----------
    n_effects : int, default=10
        ``L``, the largest number of effects (susieR's ``L``). Above the number of
        variables (plus the null variable) it is capped there, with a warning.
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
    null_weight : float in [0, 1), default=0.0
        Prior probability of the null variable, a column of zeros whose Bayes factor is 1
        (susieR's ``null_weight``): each effect may rest on it, and a credible set that
        holds it is dropped. ``null_effect_probabilities_`` are its probabilities.
    estimate_prior_variance : bool, default=True
        Estimate each ``V_l`` by ``prior_variance_method``; False keeps it at its start.
    prior_variance_method : {"optim", "em", "simple"}, default="optim"
        susieR's ``estimate_prior_method``: "optim" maximises the single effect's evidence
        over ``log V`` (keeping the current ``V`` when it is better); "em" sets ``V_l`` to
        ``E_q[beta_l^2]``; "simple" keeps ``V_l`` unless 0 is better. An effect whose
        ``V_l`` ends at 0 drops out of the PIPs and credible sets.
    check_null_threshold : float >= 0, default=0.0
        After "optim" and "simple", ``V_l`` is set to 0 when the log evidence at ``V = 0``
        plus this is at least that at ``V_l`` (susieR's ``check_null_threshold``).
    prior_tol : float >= 0, default=1e-9
        Effects with ``V_l <= prior_tol * u`` (``u`` above) are left out of the PIPs,
        credible sets, intervals and draws (susieR's ``prior_tol``, there absolute).
    estimate_residual_variance : bool or "auto", default="auto"
        Estimate ``sigma2``; ``"auto"``: yes on individual data (``fit``) and sufficient
        statistics (``fit_sufficient``), no on z-scores (``fit_summary``, susieR's
        ``susie_rss`` default, which keeps ``sigma2 = Var(y)``).
    residual_variance_bounds : (float, float or None), default=(1e-4, None)
        ``sigma2``'s estimate is held within (lower, upper) times ``Var(y)`` (susieR's
        ``residual_variance_lowerbound`` and ``_upperbound``, there absolute; the default
        is its ``susie``'s floor ``Var(y) / 10^4``, which keeps ``sigma2`` from collapsing to
        0 when the effects explain ``y`` exactly; None: no upper bound).
    fit_intercept : bool, default=True
        Centre ``X`` and ``y`` (a flat-prior intercept).
    standardize : bool, default=True
        Scale the columns to unit standard deviation (about their means, divisor ``n -
        1``, susieR's, also without ``fit_intercept``) before fitting; ``coef_`` and the
        effect means are on the original columns, the prior variances on the standardized
        ones.
    coverage : float in (0, 1), default=0.95
        The level of the credible sets.
    min_abs_corr : float in [0, 1], default=0.5
        The purity a credible set must have to be reported: the smallest absolute
        correlation between two of its variables (susieR's).
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        ``elbo_``: the alpha-ELBO, or ``alpha`` times it (``F``, susieR's ELBO at alpha = 1).
    max_iter : int, default=100
        Most sweeps (susieR's ``max_iter``).
    tol : float, default=1e-4
        Stop when ``F`` rises by less than ``tol`` in a sweep; a fall does not stop the fit
        (susieR 0.16.5's rule and default; 0.12.35 had ``tol=1e-3`` and stopped on a fall,
        which an exact sweep makes only when ``residual_variance_bounds`` hold ``sigma2``
        away from its update).
    refine : bool, default=False
        After the fit, leave a local optimum of the credible sets (susieR's ``refine``):
        for each credible set, fit with its variables' prior weights set to 0, then fit
        with the original weights from there; keep the best candidate when its ``F`` is
        higher by more than ``tol``, and repeat (at most 100 rounds).
    init : fitted AlphaSuSiE or None, default=None
        A fit whose effects (probabilities, means, variances, prior variances and, when
        it is estimated, ``sigma2``) start this one (susieR's ``model_init``), e.g. a fit
        of another trait or with other settings on the same variables. With more effects
        than ``n_effects`` the fit has as many; with fewer, the rest start fresh.
    constant_columns : {"keep", "raise", "exclude"}, default="keep"
        A column that is constant (after the intercept and covariates are taken out)
        carries no information on an effect: ``"keep"`` gives it Bayes factor 1 (susieR's
        way: its PIP then follows its prior weight), ``"exclude"`` prior weight 0 (PIP 0),
        ``"raise"`` refuses it.
    missing : {"raise", "drop"}, default="raise"
        NaN in ``y``: refuse it, or fit the rows where ``y`` is known (susieR's
        ``na.rm``).
    unmappable_effects : {None, "inf", "ash"}, default=None
        ``"inf"``: an infinitesimal background (SuSiE-inf, Cui et al. 2024, Nat. Genet.;
        susieR 0.16.5's ``unmappable_effects = "inf"``): every variable also has a small
        effect ``theta_j ~ N(0, tau2)``, integrated out exactly, so each single effect is
        fitted against the covariance ``(sigma2 / alpha) I + tau2 X X'``
        (:mod:`alphavb.linear_model._susie_inf`); ``sigma2`` and ``tau2`` are estimated
        after each sweep, and the fit stops when no single effect's probability moves by
        ``tol`` (susieR's rule with a background). From rows, sufficient statistics or
        summary statistics (with ``n_samples``); not with covariates or ``refine``.
        ``"ash"``: an adaptive-shrinkage background (susieR 0.16.5's SuSiE-ash,
        :mod:`alphavb.linear_model._susie_ash`): ``theta_j`` from a mixture of normals
        fitted by Mr.ASH between sweeps on the residual of the confident effects, held at
        0 in the LD neighbourhoods of unresolved ones, and once more after convergence;
        each effect has a slot weight ``c_l`` under a Beta(1, 2) prior on how many are in,
        the PIPs read ``c_l alpha_lj``. Mr.ASH runs only when ``sigma2`` is estimated (from
        z-scores, where ``"auto"`` keeps it fixed, only after convergence, as susieR).
        Mr.ASH updates the variables one by one in column order, so, as susieR's, the fit
        depends on the order of the columns. Not with covariates, ``refine``,
        ``prior_variance_method="em"`` or the NIG prior; a warm start starts cold.
    residual_variance_method : {"mom", "mle", "nig"}, default="mom"
        With the infinitesimal background, how ``(sigma2, tau2)`` are estimated: the
        method of moments (SuSiE-inf's and susieR's) or by maximising ``F`` (``"mle"``,
        Cui et al.'s ``method="MLE"``; ``F`` then never falls); with ``"ash"`` Mr.ASH's
        own updates estimate them (``"mom"`` only). Without a background, ``sigma2``'s
        update is both. ``"nig"``: the normal-inverse-gamma prior for small samples (Denault et
        al. 2025; susieR 0.16.5's ``estimate_residual_method = "NIG"``,
        :mod:`alphavb.linear_model._susie_nig`): each effect is ``N(0, sigma2 V_l)``
        with ``sigma2 ~ IG(a0 / 2, b0 / 2)`` integrated out of every single effect
        (Student-t posteriors; ``a0 = 1 / sqrt(n)``, ``b0 = Var(y) / sqrt(n)``), ``V_l``
        by EM from ``scaled_prior_variance`` (a share of ``sigma2``), ``sigma2``
        reported as its posterior mean; with more than one effect the fit stops on the
        probabilities (susieR's default ``tol`` there is ``1e-6``). Not with a
        background.
    warm_start : bool, default=False
        Continue from the last fit's ``q`` (same kind of fit, ``n_effects`` and features);
        on new data the first sweep's ``sigma2`` is estimated on them and convergence is
        judged afresh.
    random_state : int, RandomState or None, default=None
        The purity of a credible set of more than 100 variables is that of 100 of them drawn
        at random (susieR 0.12.35's ``n_purity``); this seeds the draw (None: seed 0, so a
        fit is reproducible). The fit itself is deterministic.
    verbose : int, default=0

    Attributes
    ----------
    inclusion_probabilities_ : ndarray of shape (n_features,)
        PIPs ``1 - prod_l (1 - c_l single_effect_probabilities_[l, j])`` over the kept
        effects (``c_l = slot_weights_``, 1 unless ``unmappable_effects="ash"``).
    single_effect_probabilities_ : ndarray of shape (``n_effects_``, n_features)
        ``q(gamma_lj = 1)`` (susieR's ``alpha``, renamed: ``alpha`` is the temperature).
    null_effect_probabilities_ : ndarray of shape (``n_effects_``,)
        The null variable's ``q(gamma_l = null)`` (zeros without ``null_weight``).
    effect_means_, effect_variances_ : ndarray of shape (``n_effects_``, n_features)
        Mean and variance of ``beta_l`` given ``gamma_lj = 1``, on the original columns.
    prior_variances_ : ndarray of shape (``n_effects_``,)
        ``V_l`` (on the standardized columns with ``standardize=True``); with
        ``residual_variance_method="nig"`` the slab's variance ``V_l E[sigma2]``
        (susieR's ``V * rv``).
    kept_effects_ : ndarray of bool of shape (``n_effects_``,)
        The effects with ``V_l > prior_tol * u``, those the PIPs and credible sets read.
    n_effects_ : int
        The number of effects fitted (``n_effects``, capped, or grown by ``init``).
    noise_variance_ : float
        ``sigma2`` (susieR's ``sigma2``; untempered).
    infinitesimal_variance_ : float
        ``tau2`` of the background (on the standardized columns with ``standardize=True``,
        as ``prior_variances_``; SuSiE-ash's ``sigma2 sum_k pi_k s_k``, its prior
        variance); 0 without one.
    slot_weights_ : ndarray of shape (``n_effects_``,)
        ``q(c_l = 1)``, each effect's weight in the PIPs and the fit under SuSiE-ash's slot
        prior (susieR's ``slot_weights``); ones otherwise.
    ld_mismatch_ : MismatchDiagnostics or None
        After :meth:`fit_summary` with ``ld_mismatch`` or ``reference_n_samples``: the
        mismatch variance ``lambda``, the effective reference size ``1 / (1 / B +
        lambda)``, the share of the residual where ``R`` has no variance (flagged above
        0.1) and per credible set the largest loss of log Bayes factor to the inflation
        (flagged at ``log 20``); None otherwise.
    infinitesimal_effects_ : ndarray of shape (n_features,)
        ``E[theta]``, the background's effects on the original columns (zeros without
        one); :meth:`predict` adds ``X @ infinitesimal_effects_`` to ``X @ coef_`` and
        ``intercept_`` is that of the sum (susieR's ``coef`` holds the sum).
    coef_ : ndarray of shape (n_features,)
        ``E_q[b]``, the single effects (the background is ``infinitesimal_effects_``).
    intercept_ : float
        NaN after :meth:`fit_sufficient` without ``X_mean`` and ``y_mean``.
    credible_sets_ : list of dict
        The level-``coverage`` credible sets with purity at least ``min_abs_corr``, purest
        first: ``effect``, ``variables`` (indices), ``names`` (feature names), ``coverage``
        (their summed probability), ``min_abs_corr``, ``mean_abs_corr``,
        ``median_abs_corr``.
    lfsr_ : ndarray of shape (n_features,)
        Local false sign rates ``min(q(b_j >= 0), q(b_j <= 0))`` (computed when first
        read: it needs the mixture marginals).
    elbo_, elbo_history_, n_iter_, converged_ : the objective after the last sweep, after
        every sweep, the sweeps run, whether ``tol`` was met (with ``refine``: of the
        accepted fit, and whether the refinement converged).
    covariate_coef_ : ndarray of shape (n_covariates,)
    column_scale_ : ndarray of shape (n_features,)
    n_features_in_, feature_names_in_ : as scikit-learn's (after :meth:`fit_summary`, the
        names of a pandas ``z``, ``R`` or ``reference_X``).

    Examples
    --------
    >>> from alphavb import AlphaSuSiE
    >>> from alphavb.datasets import make_sparse_regression
    >>> X, y, coef = make_sparse_regression(n_samples=200, n_features=50, random_state=0)
    >>> model = AlphaSuSiE(n_effects=5).fit(X, y)
    >>> sorted(v for cs in model.credible_sets_ for v in cs["variables"])
    [0, 1, 2, 3]
    """

    # what alphavb.exact and AlphaSelector ask of the model (base.ExactSampler, KINDS)
    _exact_sampler: ClassVar[ExactSampler] = ExactSampler(
        "_susie", "sample_susie", ("covariates", "sample_weight"))
    _model_kind: ClassVar[str] = "fine_mapping"

    _parameter_constraints: ClassVar[dict] = {
        **{name: rule for name, rule in AlphaRegressionBase._parameter_constraints.items()
           if name not in _NOT_PARAMETERS},
        "n_effects": [Integer(1, None)],
        "scaled_prior_variance": [Real(0, None, closed="neither")],
        "residual_variance": [None, Real(0, None, closed="neither")],
        "prior_weights": [None, FiniteArray(positive=True)],
        "null_weight": [Real(0, 1, closed="left")],
        "estimate_prior_variance": [Boolean()],
        "prior_variance_method": [Options("optim", "em", "simple")],
        "check_null_threshold": [Real(0, None)],
        "prior_tol": [Real(0, None)],
        "estimate_residual_variance": [Boolean(), Options("auto")],
        "residual_variance_bounds": [VarianceBounds()],
        "standardize": [Boolean()],
        "coverage": [Real(0, 1, closed="neither")],
        "min_abs_corr": [Real(0, 1, closed="both")],
        "refine": [Boolean()],
        "init": [None, FittedWith("single_effect_probabilities_", "a fitted AlphaSuSiE")],
        "constant_columns": [Options("keep", "raise", "exclude")],
        "missing": [Options("raise", "drop")],
        "unmappable_effects": [None, Options("inf", "ash")],
        "residual_variance_method": [Options("mom", "mle", "nig")],
    }
    _parameter_hints: ClassVar[dict] = {
        **CAVIEstimator._parameter_hints,
        "n_effects": "It is L, the largest number of effects (susieR's default is 10).",
        "null_weight": "It is the null variable's prior probability (susieR's null_weight).",
        "residual_variance_bounds": "Pass (lower, upper) as shares of Var(y), 0 <= lower "
                                    "< upper, or (lower, None) for no upper bound.",
    }
    _state_parameters: ClassVar[tuple] = ("standardize", "n_effects", "null_weight")

    def __init__(self, n_effects=10, alpha=1.0, *, scaled_prior_variance=0.2,
                 residual_variance=None, prior_weights=None, null_weight=0.0,
                 estimate_prior_variance=True, prior_variance_method="optim",
                 check_null_threshold=0.0, prior_tol=1e-9, estimate_residual_variance="auto",
                 residual_variance_bounds=(1e-4, None), fit_intercept=True, standardize=True,
                 coverage=0.95, min_abs_corr=0.5, objective="alpha-vb", max_iter=100,
                 tol=1e-4, refine=False, init=None, constant_columns="keep", missing="raise",
                 unmappable_effects=None, residual_variance_method="mom",
                 warm_start=False, random_state=None, verbose=0):
        self.n_effects = n_effects
        self.alpha = alpha
        self.scaled_prior_variance = scaled_prior_variance
        self.residual_variance = residual_variance
        self.prior_weights = prior_weights
        self.null_weight = null_weight
        self.estimate_prior_variance = estimate_prior_variance
        self.prior_variance_method = prior_variance_method
        self.check_null_threshold = check_null_threshold
        self.prior_tol = prior_tol
        self.estimate_residual_variance = estimate_residual_variance
        self.residual_variance_bounds = residual_variance_bounds
        self.fit_intercept = fit_intercept
        self.standardize = standardize
        self.coverage = coverage
        self.min_abs_corr = min_abs_corr
        self.objective = objective
        self.max_iter = max_iter
        self.tol = tol
        self.refine = refine
        self.init = init
        self.constant_columns = constant_columns
        self.missing = missing
        self.unmappable_effects = unmappable_effects
        self.residual_variance_method = residual_variance_method
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_clone__(self):
        """scikit-learn's clone, but ``init`` (a fitted model, the start) is passed on as it
        is: cloning would unfit it (``cross_val_score`` and grid searches clone)."""
        from sklearn.base import clone

        params = {name: value if name == "init" else clone(value, safe=False)
                  for name, value in self.get_params(deep=False).items()}
        return type(self)(**params)

    # ------------------------------------------------------------------ fitting

    def fit(self, X, y, covariates=None, sample_weight=None):
        """Fit alpha-SuSiE to individual data (susieR's ``susie``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The candidate variables (e.g. genotypes); a constant column is handled by
            ``constant_columns``.
        y : array-like of shape (n_samples,)
            NaN allowed with ``missing="drop"``.
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
        self._check_options()
        X, y, covariates, sample_weight = known_rows(type(self).__name__, self.missing, X, y,
                                                   covariates, sample_weight)
        rows = self._prepare_data(X, y, sample_weight=sample_weight)
        n_samples = rows.centring.weight_total
        if n_samples <= 1.0:
            raise ValueError(f"AlphaSuSiE needs more than one sample (Var(y) divides by n - "
                             f"1); got n_samples = {n_samples:g}.")
        # each column's own size (sum of w x^2 before centring): a column is constant when
        # centring and the covariates leave rounding of it, whatever the other columns' units
        magnitude = rows.col_sq_norms + n_samples * rows.centring.X_offset**2
        rows, projected = self._take_out_covariates(rows, covariates)
        fitted_attributes = {"n_samples_fit_": rows.X.shape[0],
                             "n_covariates_in_": 0 if projected is None else projected.n_columns}
        squares = np.einsum("ij,ij->j", rows.X, rows.X)
        uninformative = squares <= CONSTANT_TOLERANCE * magnitude
        weights = self._prior_weights(rows.X.shape[1], uninformative)
        if self.fit_intercept:  # the rows are centred already
            centred_squares, y_squares = squares, float(rows.y @ rows.y)
        else:
            centred_squares = weighted_variance(rows.X, rows.sqrt_weight) * n_samples
            y_squares = float(weighted_variance(rows.y[:, None], rows.sqrt_weight)[0]
                              * n_samples)
        variance_y = y_squares / (n_samples - 1.0)
        self._check_y_varies(variance_y, float(np.max(np.abs(rows.y), initial=0.0)))
        scale = (standard_deviations(centred_squares, n_samples, uninformative)
                 if self.standardize else np.ones(rows.X.shape[1]))
        # the centred (weighted, projected) rows are ours: scaled in place, which saves an
        # (n, p) array (at n = p = 10,000 its first touch costs 1.7 s here); the caller's X
        # (no intercept, weights or covariates) is copied, never changed
        ours = self.fit_intercept or sample_weight is not None or projected is not None
        design = np.divide(rows.X, scale, out=rows.X if ours else None)
        design[:, uninformative] = 0.0
        y, centring = rows.y, rows.centring
        del rows  # the centred copy: at most two (n, p) arrays besides the caller's
        ibss = ibss_data(design, y, weights, n_samples, projected,
                         variance_y=None if self.fit_intercept else variance_y,
                         null_weight=self.null_weight)
        self._fit_cavi(replace(self._susie_data(
            ibss, centring, scale, "rows", self.estimate_residual_variance in ("auto", True),
            column_means=None if self.fit_intercept else design.mean(axis=0)),
            fitted_attributes=fitted_attributes))
        return self

    def fit_sufficient(self, XtX, Xty, yty, n_samples, *, X_mean=None, y_mean=None,
                       regularization=0.0, n_covariates=0, covariates_log_det=0.0):
        """Fit alpha-SuSiE to sufficient statistics ``X'X``, ``X'y``, ``y'y`` and ``n``
        (susieR's ``susie_ss``): the same fit as :meth:`fit` on the rows they summarise,
        from ``p x p`` numbers (:func:`~alphavb.linear_model.sufficient_statistics`
        computes them; a biobank's are computed once, in blocks of rows). Except with
        ``unmappable_effects="ash"``, where Mr.ASH on sufficient statistics is another
        algorithm than on rows, as in susieR 0.16.5 (module
        :mod:`~alphavb.linear_model._susie_ash`): the two fits differ as susieR's two do.

        Parameters
        ----------
        XtX : array-like of shape (n_features, n_features)
            ``X'X`` of the centred rows (with ``fit_intercept``, as susieR's
            ``compute_suff_stat`` gives it), or of the rows as they are (without):
            symmetric, positive semi-definite.
        Xty : array-like of shape (n_features,)
            ``X'y`` of the same rows.
        yty : float
            ``y'y`` of the same rows.
        n_samples : float > 1
            The number of rows.
        X_mean, y_mean : array-like of shape (n_features,), float, default=None
            The rows' means: they give ``intercept_`` (NaN without them; ``predict`` then
            refuses) and, without ``fit_intercept``, centre ``Var(y)`` and the columns'
            standard deviations.
        regularization : float in [0, 1), default=0.0
            ``lambda``: fit with ``(1 - lambda) X'X + lambda diag(X'X)`` (on the
            correlation scale ``(1 - lambda) R + lambda I``) and ``(1 - lambda) X'y``, the
            fix for an ``X'X`` that is not positive semi-definite.
        n_covariates : int, default=0
            Covariates already projected out of the statistics (as
            :func:`alphavb.genotypes.sufficient_statistics` does): their flat prior takes
            ``k`` degrees of freedom from ``sigma2`` (``E RSS / (n - k / alpha)``), so that the
            fit equals ``fit(X, y, covariates=Z)``.
        covariates_log_det : float, default=0.0
            ``log|Z_c'Z_c|`` of those covariates (centred): its part of the objective
            (``elbo_``), which the PIPs do not read.

        Returns
        -------
        self
        """
        self._validate_params()
        self._check_options()
        stats = self._checked_statistics(type(self).__name__, XtX, Xty, yty, n_samples,
                                         X_mean, y_mean, regularization)
        self._check_y_varies(stats.variance_y, 1.0)
        p = stats.gram.shape[0]
        known_means = X_mean is not None
        offsets = (np.asarray(X_mean, dtype=float).reshape(p), float(np.ravel(y_mean)[0])) \
            if known_means and self.fit_intercept else (np.zeros(p), 0.0)
        column_means = None
        if not self.fit_intercept and X_mean is not None:
            column_means = np.asarray(X_mean, dtype=float).reshape(p) / stats.column_scale
        self._fit_statistics(stats, Centring(*offsets, stats.n_samples),
                             "sufficient" if known_means or not self.fit_intercept
                             else "sufficient-no-means",
                             self.estimate_residual_variance in ("auto", True), None,
                             column_means, covariates=self._projected_covariates(
                                 n_covariates, covariates_log_det, stats.n_samples))
        return self

    def fit_summary(self, z=None, R=None, n_samples=None, *, bhat=None, shat=None,
                    var_y=None, reference_X=None, regularization=0.0, ld_mismatch=None,
                    reference_n_samples=None):
        """Fit alpha-SuSiE to summary statistics: z-scores (or effect estimates and their
        standard errors) and an LD matrix (susieR's ``susie_rss``).

        With ``n_samples``, the z-scores of univariate regressions on ``n`` rows and the
        correlation matrix ``R`` give the sufficient statistics of standardized data,
        ``X'X = (n - 1) R``, ``X'y = sqrt(n - 1) z~``, ``y'y = n - 1`` with ``z~_j = z_j
        sqrt((n - 1) / (z_j^2 + n - 2))`` (the correlation of ``x_j`` and ``y`` times
        ``sqrt(n - 1)``), and the sweep runs on them (:mod:`~alphavb.linear_model.
        _susie_rss`). With ``bhat``, ``shat`` and ``var_y`` the effects are on the scale of
        ``y`` and the original variables. Without ``n_samples`` (susieR's "z only"):
        ``X'X = R``, ``X'y = z``, ``y'y = 1``, ``n = 2``, ``V`` starting at 50; a rough
        ``n`` is better than none.

        With ``R`` the in-sample correlation and ``estimate_residual_variance=True``, the
        fit is :meth:`fit` of the standardized data (same PIPs, credible sets and objective;
        :meth:`fit` of the raw ``y`` has the same PIPs and credible sets, and an objective
        lower by ``alpha n log sd(y)``). At the default (``"auto"``), as ``susie_rss``,
        ``sigma2`` stays at ``Var(y)`` (1 on the standardized scale): another fit.
        ``R`` from a reference panel is an approximation: check it with
        :func:`~alphavb.linear_model.ld_mismatch_diagnostic`.

        Parameters
        ----------
        z : array-like of shape (n_features,), default=None
            z-scores (no NaN: impute or drop the variable); a pandas Series names the
            variables.
        R : array-like of shape (n_features, n_features), default=None
            The variables' correlation matrix: symmetric, positive semi-definite (its
            smallest eigenvalue above ``-1e-8 p``), unit diagonal; a DataFrame names the
            variables. None: the correlations of ``reference_X``.
        n_samples : number > 2, default=None
            The number of rows behind ``z`` (an effective sample size may be fractional,
            as susieR's ``n``).
        bhat, shat : array-like of shape (n_features,), default=None
            Effect estimates and their standard errors, instead of ``z`` (``z = bhat /
            shat``); with ``var_y`` the fit's effects are on their scale.
        var_y : float > 0, default=None
            ``Var(y)``, with ``bhat``, ``shat`` and ``n_samples``.
        reference_X : array-like of shape (n_reference, n_features), default=None
            A reference panel's genotypes, whose correlations stand in for ``R`` (give
            one of the two).
        regularization : float in [0, 1), default=0.0
            ``lambda``: fit with ``(1 - lambda) R + lambda I``, the fix for an ``R`` that is
            not positive semi-definite or does not match ``z``.
        ld_mismatch : {None, "eb"}, default=None
            ``"eb"``: ``R`` is from another sample, so the signal each effect subtracts is
            off by a variance that grows with the fitted signal, estimated from the data
            (susieR 0.16.5's ``R_mismatch = "eb"``;
            :mod:`~alphavb.linear_model._susie_mismatch`): the effects near fitted signal
            get wider single-effect regressions. ``ld_mismatch_`` holds the estimate and the
            diagnostics, and a warning names the sets they flag. ``sigma2`` stays fixed.
        reference_n_samples : int or None, default=None
            The reference panel's size ``B`` (susieR's ``R_finite``): a sample correlation
            of ``B`` rows is off by ``1 / B`` of the signal, which inflates each SER as
            above, with or without ``ld_mismatch``. With ``reference_X`` and
            ``ld_mismatch``, None is its number of rows.

        Returns
        -------
        self
        """
        from ._susie_rss import reference_ld, summary_statistics, z_from_effects

        self._validate_params()
        owner = type(self).__name__
        if (R is None) == (reference_X is None):
            raise bad_parameter(owner, "R", "the LD matrix, or None with reference_X given",
                                "both" if R is not None else "neither",
                                "Pass R (correlations) or reference_X (a reference panel's "
                                "genotypes), not both.")
        names = summary_names(owner, (("z", z), ("bhat", bhat), ("shat", shat), ("R", R),
                                      ("reference_X", reference_X)))
        z, shat = z_from_effects(owner, z, bhat, shat)
        if self.unmappable_effects is not None and n_samples is None:
            raise bad_parameter(owner, "n_samples", f"the sample size with unmappable_effects="
                                f"'{self.unmappable_effects}'", None, "The background's "
                                "variance is identified only by n: pass n_samples (a rough "
                                "n is better than none), or fit without the background.")
        if self.residual_variance_method == "nig" and n_samples is None:
            raise bad_parameter(owner, "n_samples", "the sample size with residual_variance_"
                                "method='nig'", None, "The NIG prior's posterior of sigma2 "
                                "counts the rows: pass n_samples (a rough n is better than "
                                "none), or use residual_variance_method='mom'.")
        mismatch = self._mismatch_model(ld_mismatch, reference_n_samples, n_samples,
                                        reference_X)
        self._check_options()  # after the mismatch's: it names ld_mismatch with a background
        if R is None:
            R = reference_ld(owner, reference_X)
        stats = summary_statistics(owner, z, R, n_samples, regularization, shat=shat,
                                   var_y=var_y, standardize=self.standardize,
                                   R_name="R" if reference_X is None else "reference_X",
                                   R_is_gram=reference_X is not None)
        p = stats.gram.shape[0]
        self._fit_statistics(stats, Centring(np.zeros(p), 0.0, stats.n_samples),
                             "summary", self.estimate_residual_variance is True, names,
                             mismatch=mismatch)
        return self

    def _mismatch_model(self, ld_mismatch, reference_n_samples, n_samples, reference_X):
        """The :class:`~alphavb.linear_model._susie_mismatch.MismatchModel` of
        :meth:`fit_summary`'s ``ld_mismatch`` and ``reference_n_samples`` (None: neither)."""
        from ._susie_mismatch import MismatchModel
        from ._susie_rss import real_scalar

        owner = type(self).__name__
        if ld_mismatch not in (None, "eb"):
            raise bad_parameter(owner, "ld_mismatch", "None or 'eb'", ld_mismatch)
        if ld_mismatch is None and reference_n_samples is None:
            return None
        if reference_n_samples is None and reference_X is not None:
            reference_n_samples = np.shape(reference_X)[0]
        if reference_n_samples is not None:
            size = real_scalar(reference_n_samples)
            if size is None or not np.isfinite(size) or size < 2:
                raise bad_parameter(owner, "reference_n_samples", "the reference panel's "
                                    "rows, at least 2 (a correlation needs two)",
                                    reference_n_samples)
        if n_samples is None:
            raise bad_parameter(owner, "n_samples", "the sample size with ld_mismatch or "
                                "reference_n_samples", None, "The inflation is on the "
                                "z-score scale of n rows: pass n_samples.")
        if self.unmappable_effects is not None or self.residual_variance_method == "nig":
            name = "ld_mismatch" if ld_mismatch is not None else "reference_n_samples"
            given = [option for option, value in (("ld_mismatch", ld_mismatch),
                                                  ("reference_n_samples", reference_n_samples))
                     if value is not None]
            raise bad_parameter(owner, name, "None with a background or the NIG prior",
                                ld_mismatch if ld_mismatch is not None else
                                reference_n_samples, f"Drop {' and '.join(given)} to keep "
                                "them, or fit the mismatch without them (unmappable_effects="
                                "None, residual_variance_method='mom').")
        if self.estimate_residual_variance is True:
            raise bad_parameter(owner, "estimate_residual_variance", "'auto' or False with "
                                "ld_mismatch or reference_n_samples", True, "sigma2 and the "
                                "mismatch variance are hardly told apart (susieR fixes sigma2 "
                                "too).")
        if reference_n_samples is None:
            warnings.warn("AlphaSuSiE.fit_summary(ld_mismatch='eb') without "
                          "reference_n_samples: the reference panel's own sampling error is "
                          "taken as 0 (B infinite, susieR's default), so the mismatch "
                          "variance alone widens the single effects; pass "
                          "reference_n_samples (the panel's rows) to count both.",
                          UserWarning, stacklevel=caller_stacklevel())
        return MismatchModel(np.inf if reference_n_samples is None
                             else float(real_scalar(reference_n_samples)),
                             ld_mismatch == "eb", float(n_samples) - 1.0)

    def _fit_statistics(self, stats, centring, kind, estimate_residual_variance, names,
                        column_means=None, mismatch=None, covariates=None):
        """Fit the :class:`~alphavb.linear_model._susie_rss.SummaryStatistics` ``stats``
        (from :meth:`fit_sufficient` or :meth:`fit_summary`)."""
        p = stats.gram.shape[0]
        self.n_features_in_ = p
        self.__dict__.pop("feature_names_in_", None)
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        weights = self._prior_weights(p, stats.uninformative)
        ibss = sufficient_statistics_data(stats.gram, stats.zty, stats.yty, stats.n_samples,
                                          weights, variance_y=stats.variance_y,
                                          null_weight=self.null_weight,
                                          gram_columns=stats.gram_columns)
        if covariates is not None:
            ibss = ibss._replace(covariates=covariates)
        data = self._susie_data(ibss, centring, stats.column_scale, kind,
                                estimate_residual_variance, stats.prior_variance_share,
                                column_means)
        self._fit_cavi(replace(data, mismatch=mismatch, fitted_attributes={
            "n_samples_fit_": int(stats.n_samples), "n_covariates_in_": 0}))

    def _susie_data(self, ibss, centring, scale, kind, estimate_residual_variance,
                    prior_variance_share=None, column_means=None):
        """The :class:`_SuSiEData` of a fit: the effects' number (``n_effects`` capped at
        the variables, plus the null one), their start (``init``) and a digest of the data
        (a warm start on other data is judged afresh)."""
        p = ibss.d.shape[0]
        limit = p + (self.null_weight > 0)
        n_effects = self.n_effects
        if n_effects > limit:
            warnings.warn(f"AlphaSuSiE: n_effects={self.n_effects} is more than the "
                          f"{limit} variables{' (with the null one)' if limit > p else ''}; "
                          f"fitting {limit} effects (susieR caps L at p).", UserWarning,
                          stacklevel=caller_stacklevel())
            n_effects = limit
        share = self.scaled_prior_variance if prior_variance_share is None \
            else prior_variance_share
        background = None
        if self.residual_variance_method == "nig":
            estimate_residual_variance = True
        if self.unmappable_effects is not None:
            background = self._background(ibss)
            # "inf": tau2 and sigma2 together, as susieR; "ash": Mr.ASH's sigma2 between
            # sweeps, only when sigma2 is estimated (susieR's gate)
            estimate_residual_variance = (self.unmappable_effects == "inf"
                                          or estimate_residual_variance)
        data = SuSiEData(ibss, centring, estimate_residual_variance, scale, kind,
                          n_effects, share, data_digest(ibss), column_means=column_means,
                          background=background)
        if self.init is not None:
            data = replace(data, start=state_from_init(type(self).__name__, self.init, data,
                                                       self.standardize,
                                                       self.residual_variance))
            data = replace(data, n_effects=data.start.probabilities.shape[0])
        return data

    def _checked_statistics(self, owner, XtX, Xty, yty, n_samples, X_mean, y_mean,
                            regularization=0.0):
        """``fit_sufficient``'s arguments checked (``owner`` names the caller in an error),
        as :class:`~alphavb.linear_model._susie_rss.SummaryStatistics`."""
        from ._susie_rss import checked_sufficient_statistics

        stats = checked_sufficient_statistics(owner, XtX, Xty, yty, n_samples, X_mean=X_mean,
                                              y_mean=y_mean, fit_intercept=self.fit_intercept,
                                              standardize=self.standardize,
                                              regularization=regularization)
        check_means_pair(owner, X_mean, y_mean)
        return stats

    def _check_options(self):
        """Refuse the pairs of options that cannot be fitted together, whatever the data:
        the NIG prior with a fixed ``sigma2`` or a background, SuSiE-inf with a fixed
        ``sigma2``, a background with ``refine``, SuSiE-ash with ``"em"`` or ``"mle"``
        (each refused by susieR too). :meth:`fit`, :meth:`fit_sufficient`,
        :meth:`fit_summary` and ``AlphaSelector`` call it before any fit."""
        owner, kind = type(self).__name__, self.unmappable_effects
        if self.residual_variance_method == "nig":
            if self.estimate_residual_variance is False:
                raise bad_parameter(owner, "estimate_residual_variance", "True or 'auto' with "
                                    "residual_variance_method='nig'", False, "The NIG prior "
                                    "integrates sigma2 out of every single effect; to fix "
                                    "sigma2, use residual_variance_method='mom' with "
                                    "estimate_residual_variance=False.")
            if kind is not None:
                allowed = "'mom'" if kind == "ash" else "'mom' or 'mle'"
                raise bad_parameter(owner, "residual_variance_method", f"{allowed} with "
                                    f"unmappable_effects='{kind}'", "nig", "The NIG prior is "
                                    "for small samples without a background (susieR refuses "
                                    "the pair too); drop one of the two.")
        if kind is None:
            return
        if kind == "inf" and self.estimate_residual_variance is False:
            raise bad_parameter(owner, "estimate_residual_variance", "True or 'auto' with "
                                "unmappable_effects='inf'", False, "SuSiE-inf estimates "
                                "sigma2 and tau2 together (susieR forces it too); fit without "
                                "the background to keep sigma2 fixed.")
        if self.refine:
            raise bad_parameter(owner, "refine", f"False with unmappable_effects='{kind}'",
                                True, "The refinement compares fits by F, which the "
                                "background's updates do not raise (susieR refuses the pair "
                                "too).")
        if kind == "ash" and self.prior_variance_method == "em":
            raise bad_parameter(owner, "prior_variance_method", "'optim' or 'simple' with "
                                "unmappable_effects='ash'", "em", "susieR refuses the pair "
                                "too: use the default 'optim'.")
        if kind == "ash" and self.residual_variance_method == "mle":
            raise bad_parameter(owner, "residual_variance_method", "'mom' with "
                                "unmappable_effects='ash'", "mle", "Mr.ASH's own updates "
                                "estimate sigma2 and the background (as susieR's); the "
                                "maximum-likelihood variances are SuSiE-inf's: "
                                "unmappable_effects='inf'.")

    def _background(self, ibss):
        """What the background reads: SuSiE-inf's eigenstructure or SuSiE-ash's
        :class:`~alphavb.linear_model._susie_ash.AshBackground`; refused with covariates
        (their flat prior and the background do not separate by projection; the pairs of
        options are refused before, by :meth:`_check_options`)."""
        owner, kind = type(self).__name__, self.unmappable_effects
        if ibss.covariates is not None:
            raise bad_parameter(owner, "covariates", f"None with unmappable_effects='{kind}'",
                                "covariates", "Regress the covariates out of y and X first, "
                                "then fit without them.")
        if kind == "ash":
            from ._susie_ash import ash_background

            return ash_background(ibss)
        from ._susie_inf import eigenstructure

        return eigenstructure(ibss)

    def _check_y_varies(self, variance_y, size):
        """Refuse a constant ``y`` (its variance rounding of its size), and one whose variance
        lies beyond ``1e+-200``, where float64's range cuts into the sweep's products (the
        fit is the same in any units: rescale ``y``)."""
        if not variance_y > 1e-30 * max(size * size, 1e-300):
            raise bad_parameter(type(self).__name__, "y", "a response that varies (after "
                                "the intercept and covariates are taken out)",
                                f"Var(y) = {variance_y:.3g}",
                                "A constant y has nothing to fine-map.")
        if not 1e-200 <= variance_y <= 1e200:
            raise bad_parameter(type(self).__name__, "y", "a variance in [1e-200, 1e200]",
                                f"Var(y) = {variance_y:.3g}", "Rescale y (e.g. divide it by "
                                "its standard deviation): the fit is the same in any units.")

    def _prior_weights(self, n_features, uninformative):
        """``pi`` (None: uniform), 0 at the uninformative (constant) columns with
        ``constant_columns="exclude"``; such columns refused with ``"raise"``."""
        if uninformative.any() and self.constant_columns == "raise":
            raise bad_parameter(type(self).__name__, "X", "columns that vary (after the "
                                "intercept and covariates are taken out)",
                                f"constant column(s) {np.flatnonzero(uninformative)[:5].tolist()}",
                                "Drop them, or pass constant_columns='keep' (Bayes factor 1, "
                                "susieR's way) or 'exclude' (prior weight 0).")
        excluded = uninformative if self.constant_columns == "exclude" else None
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

    def _rule(self, data):
        method = self.prior_variance_method if self.estimate_prior_variance else "fixed"
        unit = np.log(data.ibss.variance_unit)
        # SuSiE-inf searches V itself in [0, 1] (susieR 0.16.5's, here in units of u)
        linear = ((0.0, float(data.ibss.variance_unit))
                  if self.unmappable_effects == "inf" and data.background is not None else None)
        return PriorVarianceRule(method, float(self.check_null_threshold),
                                 (LOG_PRIOR_VARIANCE_BOUNDS[0] + unit,
                                  LOG_PRIOR_VARIANCE_BOUNDS[1] + unit), linear)

    def _initialize(self, data, random_state, start, previous=None):
        if previous is not None:  # a warm start: sigma2 of the next sweep from these data
            state = state_from_effects(data.ibss, previous.probabilities, previous.mean,
                                       previous.second_moment, previous.prior_variance,
                                       previous.residual_variance, previous.null_alpha
                                       )._replace(infinitesimal_variance=float(
                                           previous.infinitesimal_variance),
                                           mismatch_variance=previous.mismatch_variance,
                                           history=previous.history)  # as one long fit
        elif data.start is not None:  # init=
            state = data.start
        else:
            state = initial_state(data.ibss, data.n_effects, self.residual_variance,
                                  data.prior_variance_share)
            if self.residual_variance_method == "nig":  # V a share of sigma2 (susieR's)
                state = state._replace(prior_variance=np.full(data.n_effects,
                                                              data.prior_variance_share))
            if data.mismatch is not None and data.mismatch.estimate:
                state = self._mismatch_start(data, state)
        if self.unmappable_effects == "ash":  # every start: the background from 0
            from ._susie_ash import ash_start

            state = ash_start(state, data.ibss.d.shape[0])
        return state

    def _mismatch_start(self, data, state):
        """susieR 0.16.5's start of ``ld_mismatch="eb"``: effect 1's SER at ``lambda = 0``,
        then ``lambda`` from it, times that effect's LD coherence."""
        from ._susie_mismatch import ld_coherence

        state, _ = ibss_sweep(data.ibss, state, alpha=float(self.alpha),
                              rule=self._rule(data), estimate_residual_variance=False,
                              effects=[0])
        variance = self._mismatch_variance(data, state)
        coherence = ld_coherence(state.probabilities[0], data.ibss.prior_weights,
                                 lambda variables: purity_correlation(data, variables))
        return state._replace(mismatch_variance=coherence * variance)

    @staticmethod
    def _mismatch_variance(data, state):
        from ._susie_mismatch import estimated_mismatch_variance

        coef = np.sum(state.probabilities * state.mean, axis=0)
        return estimated_mismatch_variance(data.mismatch, data.ibss.zty, state.fit, coef,
                                           state.residual_variance)

    def _state_fits(self, data):
        return (getattr(self, "_fit_kind", None) == data.kind
                and self._state.probabilities.shape == (data.n_effects, data.ibss.d.shape[0]))

    def _warm_start_result(self, data):
        """A warm start continues from the fitted ``q``; on other data (another digest) its
        first sweep is judged afresh, not against the last fit's objective. SuSiE-ash
        starts cold: its masking's memory has no restart."""
        if self.unmappable_effects == "ash":
            return None
        result = super()._warm_start_result(data)
        if result is not None and getattr(self, "_data_digest", None) != data.digest:
            result = CAVIResult(result.state._replace(history=()), np.array([-np.inf]), 0,
                                False, [])  # (the stopping rule's history is the old data's)
        return result

    def _cavi_step(self, data, state):
        alpha = float(self.alpha)
        if state.erss is not None and self._stops_on_probabilities(data, state):
            # the last sweep's probabilities: the stopping rule's cycles
            state = remembered(state, self._stopping_value(data, state, None)[0])
        if self.residual_variance_method == "nig":
            from ._susie_nig import default_prior, nig_sweep

            state, fractional = nig_sweep(
                data.ibss, state, alpha=alpha,
                prior=default_prior(data.ibss.n_samples, data.ibss.variance_y),
                estimate_prior_variance=bool(self.estimate_prior_variance))
            return state, self._objective_without_latents(fractional / alpha)
        if self.unmappable_effects == "ash":
            return self._ash_step(data, state)
        if data.background is not None:
            from ._susie_inf import infinitesimal_sweep

            state, fractional = infinitesimal_sweep(
                data.ibss, data.background, state, alpha=alpha, rule=self._rule(data),
                method=self.residual_variance_method,
                residual_variance_bounds=self._bounds(data))
            return state, self._objective_without_latents(fractional / alpha)
        inflate = None
        if data.mismatch is not None:
            from functools import partial

            from ._susie_mismatch import inflation

            inflate = partial(inflation, data.mismatch, state.residual_variance,
                              state.mismatch_variance)
        state, fractional = ibss_sweep(
            data.ibss, state, alpha=alpha, rule=self._rule(data),
            estimate_residual_variance=data.estimate_residual_variance,
            residual_variance_bounds=self._bounds(data), inflate=inflate)
        if data.mismatch is not None and data.mismatch.estimate:
            state = state._replace(mismatch_variance=self._mismatch_variance(data, state))
        return state, self._objective_without_latents(fractional / alpha)

    def _ash_step(self, data, state):
        """SuSiE-ash's step (:mod:`~alphavb.linear_model._susie_ash`): after the first sweep,
        the background's update (when ``sigma2`` is estimated: susieR's gate), then a sweep
        of the single effects on ``y - Z theta`` with ``sigma2`` as it left it."""
        from ._susie_ash import ash_update

        alpha = float(self.alpha)
        if state.erss is not None and data.estimate_residual_variance:
            state = ash_update(data.ibss, data.background, state, alpha,
                               residual_variance_bounds=self._bounds(data))
        state, fractional = ibss_sweep(data.ibss, state, alpha=alpha, rule=self._rule(data),
                                       estimate_residual_variance=False)
        return state, self._objective_without_latents(fractional / alpha)

    def _bounds(self, data):
        """``residual_variance_bounds`` in the units of ``sigma2`` (times ``Var(y)``)."""
        lower, upper = self.residual_variance_bounds
        variance_y = data.ibss.variance_y
        return lower * variance_y, None if upper is None else upper * variance_y

    def _stops_on_probabilities(self, data, state):
        """Whether the fit stops on its probabilities, not on ``F``: with a background,
        with the NIG prior and more than one effect, or with an LD mismatch (susieR 0.16.5
        and SuSiE-inf do: the method of moments need not raise ``F``, and the NIG and
        mismatch fits' recorded objectives are no bounds)."""
        return data.mismatch is not None or data.background is not None or (
            self.residual_variance_method == "nig" and state.probabilities.shape[0] > 1)

    def _stopping_value(self, data, state, objective):
        """``F`` (susieR's ELBO at alpha = 1), whose rise ``tol`` bounds; for a fit that
        stops on its probabilities (:meth:`_stops_on_probabilities`), the single effects'
        probabilities, the PIPs and the mismatch variance, with the lag of a fixed point or
        cycle through them (:func:`~alphavb.linear_model._susie.cycle_lag`; 0: none)."""
        if self._stops_on_probabilities(data, state):
            # 0.16.5's rule: the probabilities and the PIPs, and lambda (its guard)
            pips = inclusion_probabilities(self._weighted(state),
                                           self._reported_variances(state),
                                           self._prior_variance_floor_of(data))
            found = np.concatenate([state.probabilities.ravel(), pips, [state.mismatch_variance]])
            return found, cycle_lag(state.history, found, self.tol)
        return self._compared_objective(objective)

    def _compared_objective(self, objective):
        """``F`` as the stopping rule and the refinement compare it: the fractional
        objective, or ``alpha`` times it (``objective="alpha-vb"``)."""
        return objective if self.objective == "fractional" else self.alpha * objective

    @staticmethod
    def _weighted(state):
        """``c_l alpha_l``, the probabilities the PIPs read (``alpha`` without slot
        weights)."""
        if state.slot_weights is None:
            return state.probabilities
        return state.slot_weights[:, None] * state.probabilities

    def _has_converged(self, current, previous):
        """susieR 0.16.5's rule: ``F`` rose by less than ``tol``; a fall is no convergence
        (a bounded ``sigma2`` can lower ``F``), unless it is rounding (``1e-12 |F|``). On the
        probabilities: no probability moved by ``tol`` or more since the last sweep, or
        since one of a cycle's (:func:`~alphavb.linear_model._susie.cycle_lag`)."""
        if isinstance(current, tuple):  # (probabilities, lag of a fixed point or cycle, or 0)
            return current[1] > 0
        rise = current - previous
        return -1e-12 * max(1.0, abs(current)) <= rise < self.tol

    def _prior_variance_floor_of(self, data):
        """``prior_tol u``: the prior variance at or below which an effect is left out of
        the PIPs and credible sets (and reset after the loop)."""
        return self.prior_tol * data.ibss.variance_unit

    def _finished(self, data, result):
        """What susieR 0.16.5 does after the loop: a fit that ``max_iter`` stopped has its
        ``sigma2`` updated after the last sweep (a converged one keeps the sweep's), and the
        effects with ``V_l`` below ``prior_tol u`` are reset (``V_l = 0``, ``alpha_l = pi``,
        means 0: its ``trim_null_effects``)."""
        state = result.state
        if result.converged and self._stops_on_probabilities(data, state):
            state = cycle_mean(state, result.checked[-1][1])  # susieR's mean over a cycle
        if not result.converged and data.estimate_residual_variance:
            state = self._last_variance_update(data, state)
        elif result.converged and self.unmappable_effects == "ash":  # not after max_iter
            from ._susie_ash import final_ash_pass  # (as susieR): every effect, unmasked

            state = final_ash_pass(data.ibss, data.background, state, float(self.alpha),
                                   data.estimate_residual_variance, self._bounds(data))
        trimmed = self._reported_variances(state) < self._prior_variance_floor_of(data)
        if trimmed.any():
            keep = ~trimmed[:, None]
            state = state._replace(
                probabilities=np.where(keep, state.probabilities, data.ibss.prior_weights),
                mean=np.where(keep, state.mean, 0.0),
                second_moment=np.where(keep, state.second_moment, 0.0),
                prior_variance=np.where(trimmed, 0.0, state.prior_variance),
                null_alpha=np.where(trimmed, 0.0, state.null_alpha))
        if not self.warm_start:  # the stopping rule's history serves a continued fit alone
            state = state._replace(history=())
        return replace(result, state=state)

    def _last_variance_update(self, data, state):
        """``sigma2`` (and ``tau2``) updated from the last sweep's ``q``."""
        if self.residual_variance_method == "nig":
            from ._susie_nig import default_prior, nig_residual_variance

            prior = default_prior(data.ibss.n_samples, data.ibss.variance_y)
            return state._replace(residual_variance=nig_residual_variance(
                state.erss, data.ibss.n_samples, prior, float(self.alpha)))
        if self.unmappable_effects == "ash":
            from ._susie_ash import ash_update

            return ash_update(data.ibss, data.background, state, float(self.alpha),
                              residual_variance_bounds=self._bounds(data))
        if data.background is None:
            return state._replace(residual_variance=residual_variance_update(
                data.ibss, state.erss, float(self.alpha), self._bounds(data)))
        from ._susie_inf import updated_variances

        sigma2, tau2 = updated_variances(data.background, state, float(self.alpha),
                                         self.residual_variance_method, self._bounds(data))
        return state._replace(residual_variance=sigma2, infinitesimal_variance=tau2)

    @staticmethod
    def _reported_variances(state):
        """``V_l``; with the NIG prior ``s_l E[sigma2]`` (susieR's ``V * rv``)."""
        if state.residual_scales is None:
            return state.prior_variance
        return state.prior_variance * state.residual_scales

    def _set_parameters(self, state):
        scale = self.column_scale_
        probabilities = state.probabilities
        means = state.mean / scale
        variances = np.maximum(state.second_moment - state.mean**2, 0.0) / scale**2
        coef = np.sum(probabilities * means, axis=0)
        self.single_effect_probabilities_ = probabilities
        self.null_effect_probabilities_ = state.null_alpha.copy()
        self.effect_means_, self.effect_variances_ = means, variances
        self.prior_variances_ = np.array(self._reported_variances(state), dtype=float)
        self.n_effects_ = int(probabilities.shape[0])
        self.kept_effects_ = self.prior_variances_ > self._prior_variance_floor
        self.noise_variance_ = float(state.residual_variance)
        self.noise_shape_ = self.noise_scale_ = None  # sigma2 is a point estimate
        self.slot_weights_ = (np.ones(self.n_effects_) if state.slot_weights is None
                              else state.slot_weights.copy())
        self.inclusion_probabilities_ = inclusion_probabilities(
            self._weighted(state), self.prior_variances_, self._prior_variance_floor)
        self.coef_ = coef
        self.__dict__.update(self._covariate_attributes(coef))
        if self._fit_kind == "sufficient-no-means":
            self.intercept_ = float("nan")
        self.__dict__.pop("_lfsr", None)  # lfsr_ is computed when it is first read

    def _publish_results(self, data, results):
        """Finish the fit (the last half step, ``refine``), publish its state, then its
        credible sets: their purities read the design (or LD) of ``data``, which the
        fitted model does not keep."""
        (result,) = results
        result = self._finished(data, result)
        if self.refine:
            result = self._refined(data, result)
        self.column_scale_ = data.scale
        self._fit_kind = data.kind
        self._data_digest = data.digest
        self._prior_variance_floor = self._prior_variance_floor_of(data)
        super()._publish_results(data, [result])
        names = feature_labels(self)
        sets = self._credible_sets(data, self.single_effect_probabilities_,
                                   self.prior_variances_, self.null_effect_probabilities_)
        for found in sets:
            found["names"] = [names[j] for j in found["variables"]]
        self.credible_sets_ = sets
        self._publish_background(data, result.state)
        self._publish_mismatch(data, result.state)
        offer_target(data, result.state, self.alpha, self.kept_effects_,
                     self._has_exact_target(data, result.state))
        publish_check(self, lambda: self._approximation_check(data, result.state),
                      cost_share=check_cost_share(
                          self.n_iter_, self.n_effects_, int(self.kept_effects_.sum()),
                          data.ibss.Z.shape[0] if data.ibss.Z is not None
                          else data.ibss.d.shape[0]))

    @staticmethod
    def _has_exact_target(data, state):
        """No background, no mismatched LD and no NIG prior: the settings whose exact
        posterior :mod:`~alphavb.linear_model._susie_exact` samples."""
        return (data.background is None and data.mismatch is None
                and state.residual_scales is None)

    def _approximation_check(self, data, state):
        """The exact alpha-posterior of the effects at the fit's variances beside ``q``
        (:mod:`~alphavb.linear_model._susie_exact`); None with a background, the NIG prior
        or a mismatched LD, whose exact posteriors that sampler does not know."""
        if not self._has_exact_target(data, state):
            return None
        from ._susie_exact import susie_check  # numba compiles the sampler when first used

        with one_blas_thread():
            return susie_check(self, data, state, np.random.RandomState(self._purity_seed()))

    def _publish_mismatch(self, data, state):
        """``ld_mismatch_`` (None for an LD of the sample) and a warning naming what it
        flags (susieR 0.16.5's "possible mismatch" warning)."""
        self.ld_mismatch_ = None
        if data.mismatch is None:
            return
        from ._susie_mismatch import SENSITIVITY_THRESHOLD, mismatch_diagnostics

        found = mismatch_diagnostics(data.mismatch, data.ibss, state, float(self.alpha),
                                     self.credible_sets_)
        self.ld_mismatch_ = found
        if not found.flagged:
            return
        flagged = [index for index, value in enumerate(found.set_sensitivity)
                   if value >= SENSITIVITY_THRESHOLD]
        sets = (f"credible sets {flagged} (of credible_sets_) rest on Bayes factors that the "
                "LD's uncertainty shrinks 20-fold or more" if flagged else "")
        if found.artifact_flag or found.mismatch_variance > 0:
            warnings.warn(
                f"AlphaSuSiE.fit_summary: the LD matrix and the z-scores may not match "
                f"(mismatch variance {found.mismatch_variance:.3g}, effective reference size "
                f"{found.effective_reference_size:.3g}; {found.artifact_share:.0%} of the "
                f"residual lies where R has no variance" + (f"; {sets}" if sets else "")
                + "). Check the variants with ld_mismatch_diagnostic(z, R, n) and drop "
                "those it flags; where it flags none, the panel itself is short (too few "
                "individuals for the variants, or another population): use an LD matrix of "
                "the sample or a larger panel.", UserWarning,
                stacklevel=caller_stacklevel())
        else:  # no mismatch found: the reference's own sampling error alone (1 / B)
            warnings.warn(
                f"AlphaSuSiE.fit_summary: {sets}: the reference panel's sampling error "
                f"alone (reference_n_samples {found.effective_reference_size:.3g}; no "
                "mismatch variance) makes them this uncertain. A larger panel, or the LD "
                "of the sample with reference_n_samples=None, would make them firmer.",
                UserWarning, stacklevel=caller_stacklevel())

    def _publish_background(self, data, state):
        """``infinitesimal_variance_`` and ``infinitesimal_effects_`` (``E[theta]`` on the
        original columns; zeros without a background), and the intercept of the whole fit
        ``E[b] + E[theta]``, which :meth:`predict` uses."""
        p = self.coef_.shape[0]
        self.infinitesimal_variance_ = float(state.infinitesimal_variance)
        if data.background is None:
            self.infinitesimal_effects_ = np.zeros(p)
            return
        if self.unmappable_effects == "ash":
            self.infinitesimal_effects_ = state.ash.theta / data.scale
        else:
            from ._susie_inf import infinitesimal_effects

            self.infinitesimal_effects_ = infinitesimal_effects(
                data.background, state, float(self.alpha)) / data.scale
        if self.infinitesimal_variance_ == 0.0 and self.unmappable_effects == "inf":
            estimate = ("maximum likelihood estimate" if self.residual_variance_method == "mle"
                        else "method of moments")
            warnings.warn("AlphaSuSiE(unmappable_effects='inf'): the infinitesimal variance "
                          f"tau2 was estimated at 0, its boundary (the {estimate} found "
                          "no background beyond the single effects). The fit is then SuSiE's "
                          "without a background, and so are its credible sets: they carry no "
                          "allowance for a polygenic background. Fit without the background, "
                          "or choose alpha for the credible sets (AlphaSelector(method="
                          "'calibrate')).", UserWarning, stacklevel=caller_stacklevel())
        if np.isfinite(self.intercept_):
            self.intercept_ = self._intercept(self.coef_ + self.infinitesimal_effects_)

    def _credible_sets(self, data, alpha, prior_variance, null_alpha):
        return credible_sets(alpha, prior_variance, coverage=self.coverage,
                             min_abs_corr=self.min_abs_corr,
                             correlation=lambda variables: purity_correlation(data, variables),
                             random_state=self._purity_seed(),
                             threshold=self._prior_variance_floor_of(data),
                             null_alpha=null_alpha if self.null_weight > 0 else None)

    def _refined(self, data, result):
        """susieR 0.16.5's refinement (its ``run_refine``): per credible set of the fit, a
        fit with the set's prior weights at 0 (susieR keeps ``sqrt(eps)`` of them), then a
        fit with the original weights from its effects (``V`` and ``sigma2`` fresh); the
        best candidate replaces the fit when its ``F`` is higher by more than ``tol``; stop
        when none is, when the gain is below ``tol`` relative to ``max(1, |F|)``, or after
        100 rounds. ``converged`` is then whether the refinement converged."""
        def score(found):  # F, as susieR's run_refine (whatever the fit stops on)
            return self._compared_objective(found.objective)

        weights = data.ibss.prior_weights
        fresh = initial_state(data.ibss, data.n_effects, self.residual_variance,
                              data.prior_variance_share)  # each candidate's V and sigma2
        converged = False
        for _ in range(_REFINE_ROUNDS):
            state = result.state
            sets = self._credible_sets(data, state.probabilities, state.prior_variance,
                                       state.null_alpha)
            candidates = []
            for found in sets:
                zeroed = weights.copy()
                zeroed[found["variables"]] = 0.0
                if not zeroed.any():
                    break
                _, log_prior, _ = prior_log_weights(zeroed.size, zeroed, self.null_weight)
                log_prior = np.where(zeroed == 0.0, np.log(PRIOR_WEIGHT_FLOOR), log_prior)
                log_prior[weights == 0.0] = -np.inf  # excluded columns stay excluded
                first = self._finished(data, self._run_cavi(replace(
                    data, ibss=data.ibss._replace(log_prior=log_prior), start=None)))
                start = state_from_effects(data.ibss, first.state.probabilities, first.state.mean,
                                           first.state.second_moment, fresh.prior_variance,
                                           fresh.residual_variance, estimate=False)
                candidates.append(self._finished(data, self._run_cavi(replace(
                    data, start=start))))
            if not candidates:
                converged = True
                break
            best = max(candidates, key=score)  # the first of equals, as which.max
            gain = score(best) - score(result)
            if not gain > self.tol:
                converged = True
                break
            result = best
            if abs(gain) / max(1.0, abs(score(result))) < self.tol:
                converged = True
                break
        return replace(result, converged=converged)

    def _purity_seed(self):
        """A seed for the purity subsample, from ``random_state`` (0 when None, so that a
        fit is reproducible)."""
        if self.random_state is None:
            return 0
        return check_random_state(self.random_state).randint(2**31 - 1)
