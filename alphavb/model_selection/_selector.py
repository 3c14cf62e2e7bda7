"""AlphaSelector: the scikit-learn meta-estimator that chooses alpha (the criteria are
described in the package docstring, :mod:`alphavb.model_selection`)."""

import warnings
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    Integer,
    Options,
    RandomState,
    Real,
    ValidatedParametersMixin,
    bad_parameter,
)
from ._families import family_of
from ._prequential import linear_prequential_losses, prefix_schedule, refit_prequential_losses

METHODS = ("safebayes", "safebayes-ilog", "information", "calibrate", "cv")


def default_alphas():
    """The default grid: ``2^(-k/2)``, k = 0..12 (1 down to 1/64)."""
    return 2.0 ** (-np.arange(13) / 2.0)


def _check_alphas(alphas):
    grid = default_alphas() if alphas is None else np.asarray(alphas, dtype=float).ravel()
    if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0) or np.any(grid > 1):
        raise bad_parameter("AlphaSelector", "alphas", "a non-empty list of likelihood "
                            "temperatures in (0, 1]", alphas)
    return np.unique(grid)[::-1]  # largest first: ties go to the larger alpha


# ------------------------------------------------------------------- the meta-estimator


def _estimator_has(name):
    """For ``available_if``: the wrapped (or fitted) estimator has method ``name``."""
    def check(selector):
        return hasattr(getattr(selector, "best_estimator_", selector.estimator), name)

    return check



def _fit_quietly(estimator, alpha, X, y):
    """``clone(estimator)`` at ``alpha`` fitted to ``X`` (and ``y``), its ConvergenceWarning
    silenced (a selection fits many resamples and folds; the final refit is not silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return clone(estimator).set_params(alpha=alpha).fit(X, y)


def _take(y, rows):
    return None if y is None else y[rows]


class AlphaSelector(ValidatedParametersMixin, MetaEstimatorMixin, BaseEstimator):
    """Choose an estimator's ``alpha`` from the data, then refit on all of it.

    Parameters
    ----------
    estimator : estimator
        An alpha-VB estimator (``alpha`` the temperature in (0, 1]):
        :class:`~alphavb.AlphaLinearRegression` (SafeBayes exact),
        :class:`~alphavb.AlphaSpikeSlabRegression`, :class:`~alphavb.AlphaSpikeSlabClassifier`,
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
    n_bootstrap : int, default=50
        ``"calibrate"``: bootstrap resamples.
    calibration_steps : int, default=8
        ``"calibrate"``: bisection steps on log alpha.
    cv : int, default=5
        ``"cv"``: folds.
    random_state : int, RandomState or None, default=None
        Permutations, bootstrap resamples, folds and the draws of ``q`` behind Monte Carlo
        losses.

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
        Fits used by the selection (0 for the exact linear pass; the alpha = 1 start of a
        mixture's information matching counts 1).
    """

    _parameter_constraints: ClassVar[dict] = {
        "method": [Options(*METHODS)],
        "n_permutations": [Integer(1, None)],
        "min_prefix": [None, Integer(1, None)],
        "prefix_growth": [Real(1.0, None, closed="neither")],
        "level": [Real(0.0, 1.0, closed="neither")],
        "n_bootstrap": [Integer(1, None)],
        "calibration_steps": [Integer(1, None)],
        "cv": [Integer(2, None)],
        "random_state": [RandomState()],
    }

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

        owner = "AlphaSelector"
        self._validate_params()
        if "alpha" not in self.estimator.get_params(deep=False):
            raise bad_parameter(owner, "estimator", "an estimator with an 'alpha' parameter",
                                type(self.estimator).__name__)
        family = family_of(self.estimator)
        X, y = family.check_data(X, y)
        alphas = _check_alphas(self.alphas)
        return family, X, y, alphas, check_random_state(self.random_state)

    def _first_prefix(self, family, X, y):
        first, fix = family.first_prefix(X, y, self.min_prefix)
        n = X.shape[0]
        if first >= n:
            raise bad_parameter("AlphaSelector", "min_prefix", f"below the number of rows "
                                f"({n}), so that some rows are predicted", first, fix)
        return first

    # ------------------------------------------------------------------ criteria

    def _safebayes(self, family, X, y, alphas, rng):
        total, fits = np.zeros(len(alphas)), 0
        seed = None if family.exact else rng.randint(2**31 - 1)  # draws of q for R-log
        for permutation in range(self.n_permutations):
            order = np.arange(X.shape[0]) if permutation == 0 else rng.permutation(X.shape[0])
            Xo, yo = X[order], _take(y, order)
            first = self._first_prefix(family, Xo, yo)
            if family.exact:
                losses = linear_prequential_losses(self.estimator, Xo, yo, alphas, first,
                                                   self.method)
            else:
                losses = refit_prequential_losses(self.estimator, Xo, yo, alphas, first,
                                                  self.prefix_growth, self.method, seed)
                fits += len(alphas) * (len(prefix_schedule(X.shape[0], first,
                                                           self.prefix_growth)) - 1)
            if not np.all(np.isfinite(losses)):
                raise FloatingPointError("AlphaSelector: a prequential loss is not finite "
                                         "(a prefix fit with no finite noise variance); "
                                         "raise min_prefix or pass an informative "
                                         "noise_prior.")
            total += losses.sum(axis=1)
        criterion = total / self.n_permutations
        return float(alphas[np.argmin(criterion)]), criterion, fits

    def _calibrate(self, family, X, y, alphas, rng):
        """Bisection on log alpha for the alpha whose bootstrap coverage of the full-data
        estimate is ``level``: between the grid's ends when they bracket the level, otherwise
        between the first grid alpha (from the top) that reaches it and the one above."""
        target = family.target(_fit_quietly(self.estimator, 1.0, X, y), X)
        n = X.shape[0]
        resamples = [rng.randint(n, size=n) for _ in range(self.n_bootstrap)]
        evaluated = {}

        def coverage(alpha):
            hits = []
            for rows in resamples:
                model = _fit_quietly(self.estimator, alpha, X[rows], _take(y, rows))
                values = family.estimates(model, target, self.level)
                hits.append(np.mean((values["lower"] <= values["true"])
                                    & (values["true"] <= values["upper"])))
            evaluated[alpha] = float(np.mean(hits))
            return evaluated[alpha]

        high, low = float(alphas[0]), float(alphas[-1])
        if coverage(high) >= self.level:
            return self._calibrated(high, evaluated)
        if coverage(low) < self.level:
            # coverage need not rise all the way down: a spike-and-slab q at a small alpha
            # drops the variables it included (the interval shrinks to the atom at 0), so
            # look for the first alpha of the grid, from the top, that reaches the level
            for alpha in alphas[1:-1]:
                if coverage(float(alpha)) >= self.level:
                    low = float(alpha)
                    break
                high = float(alpha)
            else:
                best = max(evaluated, key=evaluated.get)
                warnings.warn(f"AlphaSelector(method='calibrate'): the bootstrap coverage at "
                              f"the smallest alpha of the grid ({low:.3g}) is "
                              f"{evaluated[low]:.3f}, below level={self.level}, and no alpha "
                              "of the grid reaches the level; alpha_ is the alpha of the "
                              f"highest coverage ({best:.3g}: {evaluated[best]:.3f}). Extend "
                              "alphas downwards or raise n_bootstrap.", UserWarning,
                              stacklevel=3)
                return self._calibrated(best, evaluated)
        for _ in range(self.calibration_steps):  # coverage(low) >= level > coverage(high)
            middle = float(np.sqrt(low * high))
            if coverage(middle) >= self.level:
                low = middle
            else:
                high = middle
        return self._calibrated(low, evaluated)

    def _calibrated(self, chosen, evaluated):
        """The calibration's result: alpha, the coverage at each alpha evaluated, fits."""
        self.calibration_alphas_ = np.array(list(evaluated))
        return chosen, np.array(list(evaluated.values())), len(evaluated) * self.n_bootstrap

    def _cross_validate(self, family, X, y, alphas, rng):
        from sklearn.base import is_classifier
        from sklearn.model_selection import KFold, StratifiedKFold

        splitter = (StratifiedKFold if is_classifier(self.estimator) else KFold)(
            self.cv, shuffle=True, random_state=rng.randint(2**31 - 1))
        folds = list(splitter.split(X, y))
        seed = rng.randint(2**31 - 1)
        score = np.zeros(len(alphas))
        for a, alpha in enumerate(alphas):
            for train, test in folds:
                model = _fit_quietly(self.estimator, alpha, X[train], _take(y, train))
                score[a] += np.sum(family.log_predictive(model, X[test], _take(y, test), seed))
        score /= X.shape[0]
        return float(alphas[np.argmax(score)]), score, len(alphas) * len(folds)

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
        family, X, y, alphas, rng = self._check(X, y)
        self.__dict__.pop("calibration_alphas_", None)  # only a calibration sets it
        if self.method in ("safebayes", "safebayes-ilog"):
            alpha, criterion, fits = self._safebayes(family, X, y, alphas, rng)
        elif self.method == "information":
            value = family.information(X, y)
            alpha, criterion = min(1.0, value), np.array([value])
            fits = 0 if family.supervised else 1
        elif self.method == "calibrate":
            alpha, criterion, fits = self._calibrate(family, X, y, alphas, rng)
        else:
            alpha, criterion, fits = self._cross_validate(family, X, y, alphas, rng)
        self.alphas_, self.criterion_, self.n_fits_ = alphas, criterion, fits
        self.alpha_ = alpha
        self.best_estimator_ = clone(self.estimator).set_params(alpha=alpha).fit(X, y)
        self.n_features_in_ = X.shape[1]
        return self

    @available_if(_estimator_has("predict"))
    def predict(self, X):
        """``best_estimator_.predict(X)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def score(self, X, y=None):
        """``best_estimator_.score(X, y)`` (``score(X)`` for the mixture and LDA)."""
        check_is_fitted(self, "best_estimator_")
        if y is None:
            return self.best_estimator_.score(X)
        return self.best_estimator_.score(X, y)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """``best_estimator_.predict_proba(X)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)

    @available_if(_estimator_has("score_samples"))
    def score_samples(self, X):
        """``best_estimator_.score_samples(X)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.score_samples(X)

    @available_if(_estimator_has("transform"))
    def transform(self, X):
        """``best_estimator_.transform(X)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.transform(X)

    @available_if(_estimator_has("summary"))
    def summary(self, *args, **kwargs):
        """``best_estimator_.summary(...)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.summary(*args, **kwargs)

    @available_if(_estimator_has("summary_frame"))
    def summary_frame(self, level=0.95):
        """``best_estimator_.summary_frame(level)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.summary_frame(level)

    @available_if(_estimator_has("select"))
    def select(self, fdr=0.05):
        """``best_estimator_.select(fdr)``."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.select(fdr)

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
