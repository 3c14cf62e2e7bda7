"""AlphaSelector: the scikit-learn meta-estimator that chooses alpha (the criteria are
described in the package docstring, :mod:`alphavb.model_selection`)."""

from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._approximation import without_checks
from .._validation import (
    Boolean,
    Integer,
    Options,
    RandomState,
    Real,
    TemperatureGrid,
    ValidatedParametersMixin,
    bad_parameter,
    check_estimator_instance,
    check_estimator_options,
)
from .._warnings import quietly
from ._calibration import highest_coverage
from ._model_kinds import kind_of
from ._prequential import linear_prequential_losses, refit_prequential_losses

METHODS = ("safebayes", "safebayes-ilog", "information", "calibrate", "cv")


def default_alphas():
    """The default grid: ``2^(-k/2)``, k = 0..12 (1 down to 1/64)."""
    return 2.0 ** (-np.arange(13) / 2.0)


def _check_alphas(alphas):
    """The grid (declared by ``TemperatureGrid``), largest first: ties go to the larger."""
    grid = default_alphas() if alphas is None else np.asarray(alphas, dtype=float).ravel()
    return np.unique(grid)[::-1]


# ------------------------------------------------------------------- the meta-estimator


def _estimator_has(name):
    """For ``available_if``: the wrapped (or fitted) estimator has method ``name``."""
    def check(selector):
        return hasattr(getattr(selector, "best_estimator_", selector.estimator), name)

    return check



# The selector passes its fitted attributes (names ending in "_") and the methods of its
# best estimator on (``__getattr__``), except these, which would fit or reconfigure it.
_NOT_PASSED_ON = ("fit", "partial_fit", "fit_predict", "fit_transform", "set_params",
                  "get_params", "set_output")


def _fit_quietly(estimator, alpha, X, y, on_fit=None):
    """``clone(estimator)`` at ``alpha`` fitted quietly: no warning (a fold's or a prefix's,
    of a fit the user does not get) and no check against the exact posterior (the refit on
    all rows has both)."""
    with quietly(), without_checks():
        model = clone(estimator).set_params(alpha=alpha).fit(X, y)
    if on_fit is not None:
        on_fit()
    return model


def _take(y, rows):
    return None if y is None else y[rows]


class AlphaSelector(ValidatedParametersMixin, MetaEstimatorMixin, BaseEstimator):
    """Choose an estimator's ``alpha`` from the data, then refit on all of it.

    Parameters
    ----------
    estimator : estimator
        An alpha-VB estimator (``alpha`` the temperature in (0, 1]):
        :class:`~alphavb.AlphaLinearRegression` (SafeBayes exact),
        :class:`~alphavb.AlphaSpikeSlabRegression`, :class:`~alphavb.AlphaSuSiE`,
        :class:`~alphavb.AlphaSpikeSlabClassifier`, :class:`~alphavb.AlphaSuSiEClassifier`,
        :class:`~alphavb.AlphaLogisticRegression`, :class:`~alphavb.AlphaGaussianMixture` or
        :class:`~alphavb.AlphaLDA` (the last two take no ``y``). Every method takes every one
        of them, except ``"information"`` for AlphaLDA (a document's likelihood has no
        closed form).
    method : {"safebayes", "safebayes-ilog", "information", "calibrate", "cv"},
        default="safebayes"
        The criterion (package docstring).
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
        ``max(10, n // 10)`` (and at least twice ``n_components`` for a mixture, and long
        enough to hold both classes for a classifier). Grünwald & van Ommen score from the
        first row (``1``), with a proper noise prior.
    prefix_growth : float > 1, default=1.25
        SafeBayes by refits: the factor between successive prefix lengths.
    level : float in (0, 1), default=0.95
        ``"calibrate"``: the target coverage.
    n_bootstrap : int or None, default=None
        ``"calibrate"``: bootstrap resamples (None: 50), or for
        :class:`~alphavb.AlphaSuSiE` parametric replicates, the same at every alpha
        scanned (None: 10).
    calibration_steps : int, default=8
        ``"calibrate"``: bisection steps on log alpha.
    cv : int, default=5
        ``"cv"``: folds.
    random_state : int, RandomState or None, default=None
        Permutations, bootstrap resamples, folds and the draws of ``q`` behind Monte Carlo
        losses.
    verbose : bool, default=False
        Show a progress bar over the selection's fits (tqdm; a calibration of a mixture
        runs hundreds).

    Attributes
    ----------
    alpha_ : float
        The selected alpha.
    alphas_ : ndarray
        The alphas scored, largest first: the grid (SafeBayes, cv); for ``"calibrate"`` the
        alphas the search evaluated (grid points and bisection midpoints); for
        ``"information"`` the one value, capped at 1.
    criterion_ : ndarray
        Per alpha of ``alphas_``: the cumulative prequential log loss (SafeBayes), the mean
        held-out log predictive density (cv), the bootstrap coverage (calibrate) or, for
        ``"information"``, the uncapped value.
    calibration_background_ : str or None
        ``"calibrate"`` with an :class:`~alphavb.AlphaSuSiE` only: the background chosen
        (the estimator's ``unmappable_effects``, ``"inf"`` or ``"ash"``), None when the
        data give no evidence for one or the estimator has none (``best_estimator_`` is then
        fitted without it).
    calibration_evidence_ : tuple of float
        ``"calibrate"`` with an :class:`~alphavb.AlphaSuSiE` only: ``(gain, threshold)``,
        how much the infinitesimal background raises the objective at alpha = 1 (SuSiE-inf's
        less SuSiE's) and the ``log(n) / 2`` it must beat to count; the replicates come from
        the SuSiE-inf fit when it does, from the SuSiE fit when not.
    calibration_alphas_ : ndarray
        ``"calibrate"`` only: the alphas in the order the search evaluated them (its
        coverages are ``criterion_`` at the same alphas of ``alphas_``).
    best_estimator_ : estimator
        ``estimator`` with ``alpha=alpha_`` fitted on all the data (as it was passed: a
        DataFrame keeps its column names).
    n_fits_ : int
        Fits used by the selection (0 for the exact linear pass; the alpha = 1 start of a
        mixture's information matching counts 1).
    n_features_in_, n_rows_ : int
        Columns and rows of ``X``.
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.

    Notes
    -----
    The fitted selector stands in for ``best_estimator_``: its fitted attributes (``coef_``,
    ``inclusion_probabilities_``, ``classes_``, ...) and methods (``predict(X,
    return_std=True)``, ``credible_intervals``, ``select``, ...) are the best estimator's,
    with the same arguments, and the plots, :mod:`alphavb.metrics`, :mod:`alphavb.risk` and
    :func:`~alphavb.to_inference_data` accept it in its place. ``summary()`` adds how alpha
    was chosen.
    """

    _parameter_constraints: ClassVar[dict] = {
        "method": [Options(*METHODS)],
        "alphas": [None, TemperatureGrid()],
        "n_permutations": [Integer(1, None)],
        "min_prefix": [None, Integer(1, None)],
        "prefix_growth": [Real(1.0, None, closed="neither")],
        "level": [Real(0.0, 1.0, closed="neither")],
        "n_bootstrap": [None, Integer(1, None)],
        "calibration_steps": [Integer(1, None)],
        "cv": [Integer(2, None)],
        "random_state": [RandomState()],
        "verbose": [Boolean()],
    }

    def __init__(self, estimator, method="safebayes", alphas=None, *, n_permutations=1,
                 min_prefix=None, prefix_growth=1.25, level=0.95, n_bootstrap=None,
                 calibration_steps=8, cv=5, random_state=None, verbose=False):
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
        self.verbose = verbose

    # --------------------------------------------------------------------- checks

    def _check(self, X, y):
        from sklearn.utils import check_random_state

        owner = "AlphaSelector"
        self._validate_params()
        check_estimator_instance(owner, self.estimator,
                                 "AlphaSelector(AlphaLinearRegression())")
        params = self.estimator.get_params(deep=False)
        if "alpha" not in params:
            raise bad_parameter(owner, "estimator", "an estimator with an 'alpha' parameter "
                                "(an alpha-VB temperature in (0, 1])",
                                type(self.estimator).__name__,
                                "BB-alpha and AADM take a divergence order (divergence_order), "
                                "not a temperature." if "divergence_order" in params else "")
        check_estimator_options(self.estimator)
        model_kind = kind_of(self.estimator)
        X, y = model_kind.check_data(X, y)
        alphas = _check_alphas(self.alphas)
        return model_kind, X, y, alphas, check_random_state(self.random_state)

    def _first_prefix(self, model_kind, X, y, permutation=0):
        try:
            first, fix = model_kind.first_prefix(X, y, self.min_prefix)
        except ValueError as error:
            if permutation == 0:
                raise
            raise type(error)(f"{error} (in permutation {permutation} of the rows, "
                              f"n_permutations={self.n_permutations}: lower min_prefix or "
                              "leave it None so that each order gets its own)") from None
        n = X.shape[0]
        if first >= n:
            raise bad_parameter("AlphaSelector", "min_prefix", f"below the number of rows "
                                f"({n}), so that some rows are predicted", first, fix)
        return first

    # ------------------------------------------------------------------ criteria

    def _safebayes(self, model_kind, X, y, alphas, rng):
        total = np.zeros(len(alphas))
        seed = None if model_kind.exact else rng.randint(2**31 - 1)  # draws of q for R-log
        for permutation in range(self.n_permutations):
            order = np.arange(X.shape[0]) if permutation == 0 else rng.permutation(X.shape[0])
            Xo, yo = X[order], _take(y, order)
            first = self._first_prefix(model_kind, Xo, yo, permutation)
            if model_kind.exact:
                losses = linear_prequential_losses(self.estimator, Xo, yo, alphas, first,
                                                   self.method)
            else:
                losses = refit_prequential_losses(self.estimator, Xo, yo, alphas, first,
                                                  self.prefix_growth, self.method, seed,
                                                  self._on_fit)
            if not np.all(np.isfinite(losses)):
                raise FloatingPointError("AlphaSelector: a prequential loss is not finite "
                                         "(a prefix fit with no finite noise variance); "
                                         "raise min_prefix or pass an informative "
                                         "noise_prior.")
            total += losses.sum(axis=1)
        criterion = total / self.n_permutations
        return float(alphas[np.argmin(criterion)]), criterion

    def _calibrate_credible_sets(self, model_kind, X, y, alphas, rng, source=None):
        """A fine-mapping model's calibration (its kind's ``calibrate``): the alpha and the
        pooled coverage of each alpha scanned (NaN where no replicate had a set)."""
        found = model_kind.calibrate(X, y, alphas, self.level, self.n_bootstrap, rng,
                                     self._on_fit, source=source)
        self.calibration_background_ = found.background
        self._refit_params = {"unmappable_effects": found.background}
        self.calibration_evidence_ = found.evidence
        self._calibration_fell_short = not found.reached
        alphas, counts = list(found.evaluated), list(found.evaluated.values())
        self.calibration_alphas_ = np.array(alphas)
        return found.alpha, np.array([covering / total if total else np.nan
                                      for covering, total in counts])

    def _calibrate(self, model_kind, X, y, alphas, rng):
        """Bisection on log alpha for the alpha whose bootstrap coverage of the full-data
        estimate is ``level``, among the alphas whose full-data fit keeps the alpha = 1
        fit's selections (:meth:`_Family.keeps_selections`; every alpha for models that
        select nothing), between the first grid alpha (from the top) that reaches the level
        and the grid alpha above it (the grid is scanned downwards until one does). An
        alpha that drops selections counts as not reaching the level, and the downward
        scan stops there (coverage is not monotone in alpha: a spike-and-slab q at a small
        alpha drops its variables and "covers" with the atom at 0)."""
        target = model_kind.target(_fit_quietly(self.estimator, 1.0, X, y, self._on_fit), X)
        n = X.shape[0]
        resamples = [rng.randint(n, size=n) for _ in range(self.n_bootstrap or 50)]
        evaluated, eligible = {}, {1.0: True}

        def keeps(alpha):
            if "included" not in target:  # a model without selections: nothing to keep
                return True
            if alpha not in eligible:
                full = _fit_quietly(self.estimator, alpha, X, y, self._on_fit)
                eligible[alpha] = model_kind.keeps_selections(full, target)
            return eligible[alpha]

        def coverage(alpha):
            if alpha not in evaluated:
                hits = []
                for rows in resamples:
                    model = _fit_quietly(self.estimator, alpha, X[rows], _take(y, rows),
                                         self._on_fit)
                    values = model_kind.estimates(model, target, self.level)
                    hits.append(np.mean((values["lower"] <= values["true"])
                                        & (values["true"] <= values["upper"])))
                evaluated[alpha] = float(np.mean(hits))
            return evaluated[alpha]

        def reaches(alpha):
            return keeps(alpha) and coverage(alpha) >= self.level

        high, low = float(alphas[0]), None
        if reaches(high):
            return self._calibrated(high, evaluated)
        for alpha in (float(a) for a in alphas[1:]):
            if not keeps(alpha):
                break  # smaller alphas drop the selections too, or the search would
            if coverage(alpha) >= self.level:
                low = alpha
                break
            high = alpha
        if low is None:  # none reaches it: what to return, and the warning (_calibration.py)
            best = highest_coverage(self.level, alphas, evaluated, eligible, coverage)
            return self._calibrated(best, evaluated)
        for _ in range(self.calibration_steps):  # reaches(low), not reaches(high)
            middle = float(np.sqrt(low * high))
            if reaches(middle):
                low = middle
            else:
                high = middle
        return self._calibrated(low, evaluated)

    def _calibrated(self, chosen, evaluated):
        """The calibration's result: alpha and the coverage at each alpha evaluated."""
        self.calibration_alphas_ = np.array(list(evaluated))
        return chosen, np.array(list(evaluated.values()))

    def _cross_validate(self, model_kind, X, y, alphas, rng):
        from sklearn.base import is_classifier
        from sklearn.model_selection import KFold, StratifiedKFold

        if self.cv > X.shape[0] // 2:  # every fold's training part needs 2 rows or more
            raise bad_parameter("AlphaSelector", "cv", f"at most {X.shape[0] // 2} folds (half "
                                f"the {X.shape[0]} rows)", self.cv, "Lower cv.")
        splitter = (StratifiedKFold if is_classifier(self.estimator) else KFold)(
            self.cv, shuffle=True, random_state=rng.randint(2**31 - 1))
        folds = list(splitter.split(X, y))
        seed = rng.randint(2**31 - 1)
        score = np.zeros(len(alphas))
        for a, alpha in enumerate(alphas):
            for train, test in folds:
                model = _fit_quietly(self.estimator, alpha, X[train], _take(y, train),
                                     self._on_fit)
                score[a] += np.sum(model_kind.log_predictive(model, X[test], _take(y, test), seed))
        score /= X.shape[0]
        return float(alphas[np.argmax(score)]), score

    # ----------------------------------------------------------------------- API

    def fit(self, X, y=None):
        """Score every alpha, keep the best and refit ``estimator`` at it on all rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            (a sparse matrix of counts for AlphaLDA)
        y : array-like of shape (n_samples,) or None
            The response or labels; None for AlphaGaussianMixture and AlphaLDA.
        """
        from tqdm.auto import tqdm

        X_given, y_given = X, y
        model_kind, X, y, alphas, rng = self._check(X, y)
        for name in ("calibration_alphas_", "calibration_background_",
                     "calibration_evidence_", "_calibration_fell_short",
                     "feature_names_in_"):  # set below if they apply
            self.__dict__.pop(name, None)
        self._refit_params = {}
        bar = tqdm(disable=not self.verbose, unit="fit",
                   desc=f"AlphaSelector(method={self.method!r})")
        fits = 0

        def on_fit():  # every fit of the selection reports here: the bar and n_fits_
            nonlocal fits
            fits += 1
            bar.update()

        self._on_fit = on_fit
        try:
            if self.method in ("safebayes", "safebayes-ilog"):
                alpha, criterion = self._safebayes(model_kind, X, y, alphas, rng)
            elif self.method == "information":
                value = model_kind.information(X, y)
                alpha, criterion = min(1.0, value), np.array([value])
                alphas = np.array([alpha])
                fits += 0 if model_kind.supervised else 1  # the mixture's alpha = 1 start
            elif self.method == "calibrate":
                calibrate = (self._calibrate_credible_sets if hasattr(model_kind, "calibrate")
                             else self._calibrate)
                alpha, criterion = calibrate(model_kind, X, y, alphas, rng)
                order = np.argsort(-self.calibration_alphas_, kind="stable")
                alphas, criterion = self.calibration_alphas_[order], criterion[order]
            else:
                alpha, criterion = self._cross_validate(model_kind, X, y, alphas, rng)
        finally:
            bar.close()
            del self._on_fit
        self.alphas_, self.criterion_, self.n_fits_, self.alpha_ = alphas, criterion, fits, alpha
        self._selected_with = self.get_params(deep=False)
        # refit on the data as given, so that a DataFrame's column names reach the model
        refit = clone(self.estimator).set_params(alpha=alpha, **self._refit_params)
        self.best_estimator_ = refit.fit(X_given) if y is None else refit.fit(X_given, y_given)
        self.n_features_in_, self.n_rows_ = X.shape[1], X.shape[0]
        names = getattr(self.best_estimator_, "feature_names_in_", None)
        if names is not None:
            self.feature_names_in_ = names
        return self

    def fit_sufficient(self, XtX, Xty, yty, n_samples, *, X_mean=None, y_mean=None,
                       n_covariates=0, covariates_log_det=0.0):
        """Choose alpha from sufficient statistics and refit ``estimator`` at it by its
        ``fit_sufficient`` (``method="calibrate"`` with :class:`~alphavb.AlphaSuSiE`: its
        replicates are drawn as sufficient statistics, exactly as the rows' would be;
        :func:`~alphavb.linear_model.sufficient_statistics` computes the arguments).

        Parameters
        ----------
        XtX, Xty, yty, n_samples, X_mean, y_mean
            As :meth:`AlphaSuSiE.fit_sufficient <alphavb.AlphaSuSiE.fit_sufficient>`.
        n_covariates, covariates_log_det
            0 and 0.0 only: the calibration's replicates do not yet take covariates
            projected out of the statistics (their degrees of freedom leave the noise).
        """
        from sklearn.utils import check_random_state
        from tqdm.auto import tqdm

        from ..linear_model._susie_calibration import SufficientSource

        self._validate_params()
        if n_covariates:
            raise bad_parameter("AlphaSelector", "n_covariates", "0 with fit_sufficient (the "
                                "calibration's replicates carry no covariates yet)",
                                n_covariates, "Calibrate on the rows, or fit AlphaSuSiE's "
                                "fit_sufficient at a chosen alpha.")
        fine_mapping = getattr(self.estimator, "_model_kind", None) == "fine_mapping"
        if not fine_mapping or self.method != "calibrate":
            raise bad_parameter("AlphaSelector", "method", "'calibrate' with an AlphaSuSiE "
                                "for fit_sufficient", self.method, "The other criteria need "
                                "rows (fit(X, y)).")
        check_estimator_options(self.estimator)  # and the statistics, as its fit_sufficient
        self.estimator._checked_statistics("AlphaSelector", XtX, Xty, yty, n_samples, X_mean,
                                           y_mean)
        XtX = np.asarray(XtX, dtype=float)
        Xty = np.asarray(Xty, dtype=float)
        alphas = _check_alphas(self.alphas)
        rng = check_random_state(self.random_state)
        for name in ("calibration_background_", "calibration_evidence_",
                     "_calibration_fell_short", "feature_names_in_"):
            self.__dict__.pop(name, None)
        bar = tqdm(disable=not self.verbose, unit="fit",
                   desc="AlphaSelector(method='calibrate')")
        fits = 0

        def on_fit():
            nonlocal fits
            fits += 1
            bar.update()

        self._on_fit = on_fit
        try:
            source = SufficientSource(XtX, float(n_samples), X_mean, y_mean)
            alpha, criterion = self._calibrate_credible_sets(
                kind_of(self.estimator), None, (Xty, float(yty)), alphas, rng, source=source)
        finally:
            bar.close()
            del self._on_fit
        order = np.argsort(-self.calibration_alphas_, kind="stable")
        self.alphas_, self.criterion_ = self.calibration_alphas_[order], criterion[order]
        self.n_fits_, self.alpha_, self._selected_with = fits, alpha, self.get_params(False)
        self.best_estimator_ = clone(self.estimator).set_params(
            alpha=alpha, **self._refit_params).fit_sufficient(
            XtX, Xty, yty, n_samples, X_mean=X_mean, y_mean=y_mean)
        self.n_features_in_, self.n_rows_ = XtX.shape[0], int(n_samples)
        return self

    def __getattr__(self, name):
        """The best estimator's fitted attributes and methods (class docstring, Notes)."""
        fitted = self.__dict__.get("best_estimator_")
        if (fitted is not None and not name.startswith("__") and name not in _NOT_PASSED_ON
                and (name.endswith("_") or not name.startswith("_"))):
            return getattr(fitted, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}"
                             + ("" if fitted is not None else " (it is not fitted, or the "
                                "name is none of its best estimator's)"))

    def __sklearn_tags__(self):
        """The wrapped estimator's type (regressor, classifier, density) and input tags, so
        that scikit-learn treats the selector as the model it stands in for."""
        tags = super().__sklearn_tags__()
        try:
            inner = self.estimator.__sklearn_tags__()
        except AttributeError:  # not an estimator: fit says so
            return tags
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags, tags.regressor_tags = inner.classifier_tags, inner.regressor_tags
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.target_tags.required = inner.target_tags.required
        return tags

    @available_if(_estimator_has("predict"))
    def predict(self, X, **kwargs):
        """``best_estimator_.predict(X, **kwargs)`` (e.g. ``return_std=True``)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X, **kwargs)

    def score(self, X, y=None, **kwargs):
        """``best_estimator_.score(X, y, **kwargs)`` (``score(X)`` for the mixture and
        LDA)."""
        check_is_fitted(self, "best_estimator_")
        if y is None:
            return self.best_estimator_.score(X, **kwargs)
        return self.best_estimator_.score(X, y, **kwargs)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X, **kwargs):
        """``best_estimator_.predict_proba(X, **kwargs)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X, **kwargs)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X, **kwargs):
        """``best_estimator_.predict_log_proba(X, **kwargs)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_log_proba(X, **kwargs)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X, **kwargs):
        """``best_estimator_.decision_function(X, **kwargs)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X, **kwargs)

    @available_if(_estimator_has("score_samples"))
    def score_samples(self, X, **kwargs):
        """``best_estimator_.score_samples(X, **kwargs)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.score_samples(X, **kwargs)

    @available_if(_estimator_has("transform"))
    def transform(self, X, **kwargs):
        """``best_estimator_.transform(X, **kwargs)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.transform(X, **kwargs)

    def selection_text(self):
        """One sentence: how ``alpha_`` was chosen (the last line of :meth:`summary`)."""
        check_is_fitted(self, "best_estimator_")
        method = self._selected_with["method"]  # the fit's, not set_params' since
        grid = (f"a grid of {len(self.alphas_)} alphas from {self.alphas_[0]:.4g} to "
                f"{self.alphas_[-1]:.4g}")
        how = {
            "safebayes": lambda: f"the smallest cumulative prequential R-log loss on {grid}",
            "safebayes-ilog": lambda: f"the smallest cumulative prequential I-log loss on {grid}",
            "information": lambda: (f"information matching, tr(J I^-1 J) / tr(J) = "
                                    f"{self.criterion_[0]:.4g}, capped at 1"),
            "calibrate": self._calibration_text,
            "cv": lambda: f"the largest {self._selected_with['cv']}-fold held-out log "
                          f"predictive density on {grid}",
        }[method]()
        return (f"alpha = {self.alpha_:.4g} was selected by AlphaSelector(method="
                f"{method!r}): {how}; the model was then refitted at it on all "
                f"{self.n_rows_} rows.")

    def _calibration_text(self):
        evaluated = f"{len(self.alphas_)} alpha(s) evaluated"
        if np.all(np.isnan(self.criterion_)):
            coverage, reached = f"no credible set in any replicate; {evaluated}", True
        else:
            best = float(np.nanmax(self.criterion_))
            coverage = f"coverage {best:.3f} at best over {evaluated}"
            reached = not getattr(self, "_calibration_fell_short", False)
        settings = self._selected_with
        if hasattr(kind_of(self.estimator), "calibration_text"):
            return kind_of(self.estimator).calibration_text(self, settings, coverage, reached)
        return (f"bootstrap calibration of the {settings['level']:.0%} intervals "
                f"({settings['n_bootstrap'] or 50} resamples; {coverage})")

    @available_if(_estimator_has("summary"))
    def summary(self, *args, **kwargs):
        """``best_estimator_.summary(...)``, with a line on how alpha was chosen."""
        check_is_fitted(self, "best_estimator_")
        result = self.best_estimator_.summary(*args, **kwargs)
        if hasattr(result, "add_extra_txt"):  # statsmodels' Summary: it replaces the text
            result.add_extra_txt([text for text in (result.extra_txt, self.selection_text())
                                  if text])
            return result
        return f"{result}\n{self.selection_text()}"
