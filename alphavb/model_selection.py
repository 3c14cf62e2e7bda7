r"""Choosing alpha from the data: SafeBayes, calibration, information matching and CV.

:class:`AlphaSelector` wraps an alphavb estimator, scores every ``alpha`` of a grid by one of
four criteria, picks the best and refits on all the data, as ``GridSearchCV`` does.

* ``"safebayes"`` (R-log-SafeBayes; Grünwald & van Ommen 2017, Bayesian Analysis 12,
  Sec. 4) and ``"safebayes-ilog"`` (I-log): the cumulative prequential log loss of the
  alpha-posterior on the data in their order, each row predicted from the fit to the rows
  before it. R-log averages the row's log loss over ``q``,

      ``-E_q[log N(y_i | b + x_i' beta, sigma2)] = log(2 pi) / 2 - E_q[log 1/sigma2] / 2
      + E_q[1/sigma2] ((y_i - yhat_i)^2 + Var_q(x_i' beta)) / 2``,

  I-log plugs in the posterior mean, ``-log N(y_i | yhat_i, 1 / E_q[1/sigma2])``. For
  :class:`~alphavb.AlphaLinearRegression` every prefix is fitted exactly and cheaply: the
  CAVI fixed point on a prefix depends on the data only through its centred sufficient
  statistics, and with one eigendecomposition of the whitened Gram matrix per prefix (shared
  by every alpha) each CAVI sweep costs O(d): the pass costs O(n d^3) in all, equal to
  refitting the estimator on every prefix (tested). For the other Gaussian regressions
  (:class:`~alphavb.AlphaSpikeSlabRegression`) the estimator is refitted, warm-started, on
  prefixes of geometrically growing length (factor ``prefix_growth``), each scoring the
  block of rows up to the next prefix: about ``log(n / min_prefix) / log(prefix_growth)``
  fits per alpha.
* ``"information"`` (Holmes & Walker 2017, Biometrika 104; Lyddon, Holmes & Walker 2019,
  Biometrika 106, Sec. 3): ``alpha = tr(J I^{-1} J) / tr(J)`` with ``J`` the mean Hessian of
  the negative log-likelihood and ``I`` the mean outer product of the per-row scores at the
  least-squares estimate of ``(b, beta)``, the noise variance profiled out at its
  maximum-likelihood value. No fits; 1 for a correct model in large samples; capped at 1.
* ``"calibrate"`` (Syring & Martin 2019, Biometrika 106): the alpha whose ``level``
  credible intervals cover the full-data estimate (the posterior mean at alpha = 1) at the
  rate ``level`` over ``n_bootstrap`` bootstrap resamples, coverage averaged over the
  coefficients; the same resamples at every alpha, bisection on log alpha between the
  grid's ends (``calibration_steps`` halvings; alpha = 1 when it already covers):
  ``n_bootstrap x (2 + calibration_steps)`` fits at most.
* ``"cv"``: ``cv``-fold held-out log predictive density of ``q`` (Monte Carlo over 200 draws
  of ``sample_posterior`` for a regressor, ``log predict_proba`` for a classifier), the
  baseline; McLatchie et al. (2024) show it goes flat in alpha at moderate n.
"""

import itertools
import numbers

import numpy as np
from scipy.special import digamma, logsumexp
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._validation import bad_parameter

METHODS = ("safebayes", "safebayes-ilog", "information", "calibrate", "cv")
CV_DRAWS = 200


def default_alphas():
    """The default grid: ``2^(-k/2)``, k = 0..12 (1 down to 1/64)."""
    return 2.0 ** (-np.arange(13) / 2.0)


def _check_alphas(alphas):
    grid = default_alphas() if alphas is None else np.asarray(alphas, dtype=float).ravel()
    if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0) or np.any(grid > 1):
        raise bad_parameter("AlphaSelector", "alphas", "a non-empty list of values in (0, 1]",
                            alphas)
    return np.unique(grid)[::-1]  # largest first: ties go to the larger alpha


# ---------------------------------------------------------------- prequential log loss


def _row_losses(tau, elt, residual, coef_variance, kind):
    """The log loss of new rows under ``q`` (R-log) or its plug-in (I-log): minus the
    expected Gaussian log-likelihood of one row, with ``E_q (y - x' beta)^2 = residual^2 +
    Var_q(x' beta)`` and ``E_q[log 1/sigma2]`` (R-log), or the plug-in ``1/sigma2 = tau``
    and no coefficient variance (I-log)."""
    from .linear_model._base import expected_gaussian_loglik

    if kind == "safebayes":
        return -expected_gaussian_loglik(1, tau, elt, residual**2 + coef_variance)
    return -expected_gaussian_loglik(1, tau, np.log(tau), residual**2)


def linear_prequential_losses(estimator, X, y, alphas, min_prefix, kind):
    """Per alpha, the log loss of each row ``i >= min_prefix`` predicted from the
    :class:`~alphavb.AlphaLinearRegression` fit to rows ``0..i-1`` (R-log or I-log).

    Returns an array of shape (len(alphas), n - min_prefix). The eigendecompositions run
    on one BLAS thread: at these sizes (d x d per prefix) threads only add synchronisation
    (measured at n = 100, d = 51 with the other core busy: 1.9 s with OpenBLAS's threads,
    0.05 s with one).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _linear_prequential_losses(estimator, X, y, alphas, min_prefix, kind)


def _linear_prequential_losses(estimator, X, y, alphas, min_prefix, kind):
    from .linear_model._base import response_variance
    from .linear_model._bayes_linear import resolve_prior_precision
    from .linear_model._kernels import linear_prefix_fixed_points

    n, d = X.shape
    params = estimator.get_params(deep=False)
    fixed = params["noise_variance"]
    fixed = None if fixed is None else float(fixed)
    noise_prior = tuple(float(v) for v in params["noise_prior"])
    whiten = 1.0 / np.sqrt(resolve_prior_precision("AlphaSelector",
                                                   params["prior_precision"], d))
    intercept = params["fit_intercept"]
    max_iter, tol = int(params["max_iter"]), 1e-14
    losses = np.empty((len(alphas), n - min_prefix))
    a0, b0 = noise_prior
    shapes = a0 + 0.5 * alphas[:, None] * np.arange(min_prefix, n)[None]
    for i in range(min_prefix, n):
        Xp, yp = X[:i], y[:i]
        x_offset = Xp.mean(axis=0) if intercept else np.zeros(d)
        y_offset = yp.mean() if intercept else 0.0
        Xc, yc = (Xp - x_offset) * whiten, yp - y_offset
        eigenvalues, vectors = np.linalg.eigh(Xc.T @ Xc)
        taus, means, variances = linear_prefix_fixed_points(
            alphas, np.clip(eigenvalues, 0.0, None), vectors.T @ (Xc.T @ yc),
            vectors.T @ ((X[i] - x_offset) * whiten), yc @ yc, i, a0, b0,
            1.0 / response_variance(yc), 0.0 if fixed is None else 1.0 / fixed, max_iter, tol)
        if fixed is None:
            elt = digamma(shapes[:, i - min_prefix]) - np.log(shapes[:, i - min_prefix] / taus)
        else:
            elt = np.log(taus)
        losses[:, i - min_prefix] = _row_losses(taus, elt, y[i] - y_offset - means, variances,
                                                kind)
    return losses


def _gaussian_row_losses(model, X, y, kind):
    """R-log or I-log losses of rows ``X, y`` under a fitted Gaussian regression's ``q``."""
    if model.noise_shape_ is None:
        tau = 1.0 / model.noise_variance_
        elt = np.log(tau)
    else:
        shape, scale = np.asarray(model.noise_shape_), np.asarray(model.noise_scale_)
        if shape.ndim:
            raise ValueError("AlphaSelector's SafeBayes scores one prior setting; fit the "
                             "estimator without a grid of prior settings.")
        tau, elt = float(shape / scale), float(digamma(shape) - np.log(scale))
    residual = y - model.predict(X)
    variance = model._coef_variance_along(X - model._X_offset)
    return _row_losses(tau, elt, residual, variance, kind)


def prefix_schedule(n, min_prefix, growth):
    """Prefix lengths ``min_prefix, ceil(min_prefix growth), ...`` below ``n``: prefix k
    is fitted and scores the rows up to prefix k + 1 (the last one up to ``n``)."""
    lengths = [min_prefix]
    while lengths[-1] < n:
        lengths.append(min(n, max(lengths[-1] + 1, int(np.ceil(lengths[-1] * growth)))))
    return lengths


def refit_prequential_losses(estimator, X, y, alphas, min_prefix, growth, kind):
    """Per alpha, the losses of rows ``min_prefix..n-1``, each scored by the fit on the
    largest scheduled prefix before it (:func:`prefix_schedule`); an estimator with
    ``warm_start`` starts each prefix's CAVI from the previous prefix's ``q``."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    n = X.shape[0]
    lengths = prefix_schedule(n, min_prefix, growth)
    losses = np.empty((len(alphas), n - min_prefix))
    warm = "warm_start" in estimator.get_params(deep=False)
    for a, alpha in enumerate(alphas):
        # one model per alpha, each prefix's fit started from the previous prefix's q
        model = clone(estimator).set_params(alpha=alpha)
        for index, (start, stop) in enumerate(itertools.pairwise(lengths)):
            if warm:
                model.set_params(warm_start=index > 0)
            else:
                model = clone(model)
            with warnings.catch_warnings():
                # a short prefix may leave q(sigma2) without a finite mean (a UserWarning);
                # the row losses use its shape and scale, which are finite
                warnings.simplefilter("ignore", ConvergenceWarning)
                warnings.simplefilter("ignore", UserWarning)
                model.fit(X[:start], y[:start])
            losses[a, start - min_prefix:stop - min_prefix] = _gaussian_row_losses(
                model, X[start:stop], y[start:stop], kind)
    return losses


# --------------------------------------------------------------- information matching


def information_alpha(X, y, fit_intercept=True):
    """``tr(J I^{-1} J) / tr(J)`` for Gaussian linear regression (Lyddon, Holmes & Walker
    2019, Sec. 3) at the least-squares ``(b, beta)``, ``sigma2`` profiled at the mean squared
    residual: per row the score is ``x_i r_i / sigma2`` and the Hessian ``x_i x_i' /
    sigma2``, so ``J = X'X / (n sigma2)`` and ``I = sum_i r_i^2 x_i x_i' / (n sigma2^2)``
    (``x_i`` with a leading 1 for the intercept). Not capped."""
    from scipy.linalg import pinvh

    design = np.column_stack([np.ones(len(X)), X]) if fit_intercept else np.asarray(X)
    n, p = design.shape
    if n < 2 * p:
        raise ValueError(f"Information matching estimates a {p} x {p} score covariance from "
                         f"{n} rows; it needs at least 2 rows per parameter ({2 * p}). Use "
                         "method='safebayes' when n is close to the number of parameters.")
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ coef
    variance = residual @ residual / n
    J = design.T @ design / (n * variance)
    I = (design * residual[:, None] ** 2).T @ design / (n * variance**2)
    return float(np.trace(J @ pinvh(I) @ J) / np.trace(J))


# ------------------------------------------------------------------- the meta-estimator


def _estimator_has(name):
    """For ``available_if``: the wrapped (or fitted) estimator has method ``name``."""
    def check(selector):
        return hasattr(getattr(selector, "best_estimator_", selector.estimator), name)

    return check



class AlphaSelector(MetaEstimatorMixin, BaseEstimator):
    """Choose an estimator's ``alpha`` from the data, then refit on all of it.

    Parameters
    ----------
    estimator : estimator
        An alphavb estimator with an ``alpha`` parameter. SafeBayes and information
        matching need a Gaussian regression (:class:`~alphavb.AlphaLinearRegression`,
        :class:`~alphavb.AlphaSpikeSlabRegression`; information matching the linear one);
        ``"calibrate"`` any estimator with ``credible_intervals``; ``"cv"`` a regressor with
        ``sample_posterior`` or a classifier with ``predict_proba``.
    method : {"safebayes", "safebayes-ilog", "information", "calibrate", "cv"},
        default="safebayes"
        The criterion (module docstring).
    alphas : array-like or None, default=None
        The grid; None: ``2^(-k/2)``, k = 0..12. ``"information"`` returns its closed form
        capped at 1, not a grid value.
    n_permutations : int, default=1
        SafeBayes: average the prequential loss over this many orders of the rows (the first
        is the data's own order).
    min_prefix : int or None, default=None
        SafeBayes: the first row scored (predicted from the rows before it). None: for the
        exact linear pass, the first prefix with more rows than parameters (``n_features +
        1``, plus 1 with an intercept; on fewer rows a vague noise prior lets the fit at
        alpha = 1 interpolate, and those rows would decide the selection); for refits
        ``max(10, n // 10)``. Grünwald & van Ommen score from the first row (``1``), with a
        proper noise prior.
    prefix_growth : float > 1, default=1.25
        SafeBayes by refits: the factor between successive prefix lengths.
    level : float in (0, 1), default=0.95
        ``"calibrate"``: the target coverage.
    n_bootstrap : int, default=50
        ``"calibrate"``: bootstrap resamples.
    calibration_steps : int, default=8
        ``"calibrate"``: bisection steps on log alpha.
    cv : int, default=5
        ``"cv"``: folds.
    random_state : int, RandomState or None, default=None
        Permutations, bootstrap resamples, folds and CV draws.

    Attributes
    ----------
    alpha_ : float
        The selected alpha.
    alphas_ : ndarray
        The grid, largest first.
    criterion_ : ndarray
        Per alpha of ``alphas_``: the cumulative prequential log loss (SafeBayes) or the
        mean held-out log predictive density (cv); for ``"calibrate"`` the bootstrap
        coverage at each alpha of ``calibration_alphas_`` (in the order evaluated); for
        ``"information"`` the single uncapped value.
    best_estimator_ : estimator
        ``estimator`` with ``alpha=alpha_`` fitted on all the data.
    n_fits_ : int
        Fits used by the selection (0 for the exact linear pass and information matching).
    """

    def __init__(self, estimator, method="safebayes", alphas=None, *, n_permutations=1,
                 min_prefix=None, prefix_growth=1.25, level=0.95, n_bootstrap=50,
                 calibration_steps=8, cv=5, random_state=None):
        self.estimator = estimator
        self.method = method
        self.alphas = alphas
        self.n_permutations = n_permutations
        self.min_prefix = min_prefix
        self.prefix_growth = prefix_growth
        self.level = level
        self.n_bootstrap = n_bootstrap
        self.calibration_steps = calibration_steps
        self.cv = cv
        self.random_state = random_state

    # --------------------------------------------------------------------- checks

    def _check(self, X, y):
        from sklearn.utils import check_random_state
        from sklearn.utils.validation import check_X_y

        from .base import check_positive_int, check_scalar_in_range

        owner = "AlphaSelector"
        if "alpha" not in self.estimator.get_params(deep=False):
            raise bad_parameter(owner, "estimator", "an estimator with an 'alpha' parameter",
                                type(self.estimator).__name__)
        if self.method not in METHODS:
            raise bad_parameter(owner, "method", f"one of {list(METHODS)}", self.method)
        X, y = check_X_y(X, y, dtype=np.float64, y_numeric=False)
        alphas = _check_alphas(self.alphas)
        check_positive_int(owner, "n_permutations", self.n_permutations)
        check_positive_int(owner, "n_bootstrap", self.n_bootstrap)
        check_positive_int(owner, "calibration_steps", self.calibration_steps)
        if isinstance(self.cv, (bool, np.bool_)) or not isinstance(self.cv, numbers.Integral) \
                or self.cv < 2:
            raise bad_parameter(owner, "cv", "an int >= 2", self.cv)
        check_scalar_in_range(owner, "prefix_growth", self.prefix_growth, 1.0, None,
                              low_open=True)
        check_scalar_in_range(owner, "level", self.level, 0.0, 1.0, low_open=True,
                              high_open=True)
        return X, y, alphas, check_random_state(self.random_state)

    def _min_prefix(self, n, n_features, exact):
        from .base import check_positive_int

        if self.min_prefix is None:
            # the linear model's first prefix with more rows than parameters: on fewer, a
            # vague noise prior lets alpha = 1 interpolate with sigma2 -> 0, and those rows'
            # losses (1e7 on 5 features) would decide the selection
            intercept = bool(self.estimator.get_params()["fit_intercept"])
            first = n_features + 1 + intercept if exact else max(10, n // 10)
            fix = ("With fewer rows than parameters pass min_prefix (e.g. 1) together with an "
                   "informative noise_prior, as Grunwald & van Ommen's experiment does.")
        else:
            first = check_positive_int("AlphaSelector", "min_prefix", self.min_prefix)
            fix = "The prequential loss needs more rows than its first prefix."
        if first >= n:
            raise bad_parameter("AlphaSelector", "min_prefix", f"below the number of rows "
                                f"({n}), so that some rows are predicted", first, fix)
        return first

    # ------------------------------------------------------------------ criteria

    def _safebayes(self, X, y, alphas, rng):
        from .linear_model import AlphaLinearRegression, AlphaSpikeSlabRegression

        if not isinstance(self.estimator, (AlphaLinearRegression, AlphaSpikeSlabRegression)):
            raise bad_parameter("AlphaSelector", "estimator", "AlphaLinearRegression or "
                                f"AlphaSpikeSlabRegression for method={self.method!r}",
                                type(self.estimator).__name__, "method='calibrate' or "
                                "'cv' take other estimators.")
        exact = isinstance(self.estimator, AlphaLinearRegression)
        first = self._min_prefix(len(y), X.shape[1], exact)
        total, fits = np.zeros(len(alphas)), 0
        for permutation in range(self.n_permutations):
            order = np.arange(len(y)) if permutation == 0 else rng.permutation(len(y))
            if exact:
                losses = linear_prequential_losses(self.estimator, X[order], y[order], alphas,
                                                   first, self.method)
            else:
                losses = refit_prequential_losses(self.estimator, X[order], y[order], alphas,
                                                  first, self.prefix_growth, self.method)
                fits += len(alphas) * (len(prefix_schedule(len(y), first,
                                                           self.prefix_growth)) - 1)
            if not np.all(np.isfinite(losses)):
                raise FloatingPointError("AlphaSelector: a prequential loss is not finite "
                                         "(a prefix fit with no finite noise variance); "
                                         "raise min_prefix or pass an informative "
                                         "noise_prior.")
            total += losses.sum(axis=1)
        criterion = total / self.n_permutations
        return float(alphas[np.argmin(criterion)]), criterion, fits

    def _calibrate(self, X, y, alphas, rng):
        """Bisection on log alpha between the grid's ends for the alpha whose bootstrap
        coverage of the full-data estimate is ``level`` (coverage falls as alpha grows)."""
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        if not hasattr(self.estimator, "credible_intervals"):
            raise bad_parameter("AlphaSelector", "estimator", "an estimator with "
                                "credible_intervals for method='calibrate'",
                                type(self.estimator).__name__)
        target = np.ravel(clone(self.estimator).set_params(alpha=1.0).fit(X, y).coef_)
        resamples = [rng.randint(len(y), size=len(y)) for _ in range(self.n_bootstrap)]
        evaluated = {}

        def coverage(alpha):
            hits = []
            for rows in resamples:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    model = clone(self.estimator).set_params(alpha=alpha).fit(X[rows], y[rows])
                interval = model.credible_intervals(self.level)
                hits.append(np.mean((interval[:, 0] <= target) & (target <= interval[:, 1])))
            evaluated[alpha] = float(np.mean(hits))
            return evaluated[alpha]

        high, low = float(alphas[0]), float(alphas[-1])
        if coverage(high) >= self.level:
            chosen = high
        elif coverage(low) < self.level:
            chosen = low
            warnings.warn(f"AlphaSelector(method='calibrate'): the bootstrap coverage at the "
                          f"smallest alpha of the grid ({low:.3g}) is {evaluated[low]:.3f}, "
                          f"below level={self.level}; alpha_ is that end of the grid. Extend "
                          "alphas downwards or raise n_bootstrap.", UserWarning, stacklevel=3)
        else:  # coverage(low) >= level > coverage(high)
            for _ in range(self.calibration_steps):
                middle = float(np.sqrt(low * high))
                if coverage(middle) >= self.level:
                    low = middle
                else:
                    high = middle
            chosen = low
        self.calibration_alphas_ = np.array(list(evaluated))
        return chosen, np.array(list(evaluated.values())), len(evaluated) * self.n_bootstrap

    def _cross_validate(self, X, y, alphas, rng):
        import warnings

        from sklearn.base import is_classifier
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.model_selection import KFold, StratifiedKFold

        classifier = is_classifier(self.estimator)
        splitter = (StratifiedKFold if classifier else KFold)(
            self.cv, shuffle=True, random_state=rng.randint(2**31 - 1))
        folds = list(splitter.split(X, y))
        seed = rng.randint(2**31 - 1)
        score = np.zeros(len(alphas))
        for a, alpha in enumerate(alphas):
            for train, test in folds:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    model = clone(self.estimator).set_params(alpha=alpha).fit(X[train],
                                                                              y[train])
                score[a] += np.sum(_log_predictive(model, X[test], y[test], classifier, seed))
        score /= len(y)
        return float(alphas[np.argmax(score)]), score, len(alphas) * len(folds)

    # ----------------------------------------------------------------------- API

    def fit(self, X, y):
        """Score every alpha, keep the best and refit ``estimator`` at it on all rows."""
        X, y, alphas, rng = self._check(X, y)
        self.__dict__.pop("calibration_alphas_", None)  # only a calibration sets it
        if self.method in ("safebayes", "safebayes-ilog"):
            alpha, criterion, fits = self._safebayes(X, y, alphas, rng)
        elif self.method == "information":
            from .linear_model import AlphaLinearRegression

            if not isinstance(self.estimator, AlphaLinearRegression):
                raise bad_parameter("AlphaSelector", "estimator", "AlphaLinearRegression for "
                                    "method='information'", type(self.estimator).__name__)
            value = information_alpha(X, y, self.estimator.get_params()["fit_intercept"])
            alpha, criterion, fits = min(1.0, value), np.array([value]), 0
        elif self.method == "calibrate":
            alpha, criterion, fits = self._calibrate(X, y, alphas, rng)
        else:
            alpha, criterion, fits = self._cross_validate(X, y, alphas, rng)
        self.alphas_, self.criterion_, self.n_fits_ = alphas, criterion, fits
        self.alpha_ = alpha
        self.best_estimator_ = clone(self.estimator).set_params(alpha=alpha).fit(X, y)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        """``best_estimator_.predict(X)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def score(self, X, y):
        """``best_estimator_.score(X, y)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.score(X, y)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """``best_estimator_.predict_proba(X)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)

    @available_if(_estimator_has("summary"))
    def summary(self, *args, **kwargs):
        """``best_estimator_.summary(...)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.summary(*args, **kwargs)

    @available_if(_estimator_has("credible_intervals"))
    def credible_intervals(self, level=0.95):
        """``best_estimator_.credible_intervals(level)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.credible_intervals(level)

    @available_if(_estimator_has("sample_posterior"))
    def sample_posterior(self, n_samples=1, random_state=None):
        """``best_estimator_.sample_posterior(n_samples, random_state)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.sample_posterior(n_samples, random_state)


def _log_predictive(model, X, y, classifier, seed):
    """Held-out log predictive density of each row under ``q``."""
    if classifier:
        proba = model.predict_proba(X)
        index = np.searchsorted(model.classes_, y)
        with np.errstate(divide="ignore"):
            return np.log(proba[np.arange(len(y)), index])
    from .linear_model._base import expected_gaussian_loglik

    draws = model.sample_posterior(CV_DRAWS, random_state=seed)
    mean = draws["coef"] @ X.T + draws["intercept"][:, None]
    variance = draws["noise_variance"][:, None]
    log_density = expected_gaussian_loglik(1, 1.0 / variance, -np.log(variance),
                                           (y - mean) ** 2)
    return logsumexp(log_density, axis=0) - np.log(CV_DRAWS)
