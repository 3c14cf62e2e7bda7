"""Pieces shared by the alpha-VB linear regression estimators.

Both models have the Gaussian likelihood ``y | beta, sigma2 ~ N(X beta, sigma2 I_n)`` with
either a known ``sigma2`` or ``sigma2 ~ InvGamma(a0, b0)`` and ``q(sigma2) = InvGamma(a_n, b_n)``.

Intercept: it gets a flat prior and is integrated out, which is the same as centring ``X``
and ``y``: with a known ``sigma2`` this gives exactly the fractional posterior of ``beta``
marginal over the intercept. Given ``beta`` and ``sigma2`` the intercept is ``N(mean(y) -
mean(X)' beta, sigma2 / (alpha n))`` (the tempered likelihood counts ``alpha n`` rows), so
``intercept_ = mean(y) - mean(X)' E[beta]`` and its variance, the predictive variance and
the draws include ``E[sigma2] / (alpha n)``.
"""

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.stats import invgamma, norm
from sklearn.base import RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._coefficient_summary import CoefficientSummaryMixin
from .._special import (
    LOG_2PI,
    bisect_quantile,
    inv_gamma_expectations,
    inv_gamma_mean,
    kl_inv_gamma,
)
from .._validation import (
    Boolean,
    Integer,
    Options,
    PositivePair,
    Real,
    bad_parameter,
    caller_stacklevel,
    column_squares,
    validate_params,
)
from ..base import CAVIEstimator

# noise_prior="auto": the inverse-gamma prior InvGamma(a0, a0 Var(y)) of the noise variance,
# vague (a0 = 1e-6, as the Gamma(1e-6, 1e-6) of scikit-learn's BayesianRidge) and in the units
# of y, so that a fit on c y is the fit on y with sigma2 scaled by c^2; and the share of
# q(sigma2)'s scale above which the prior's scale is said to set the noise level
AUTO_NOISE_SHAPE = 1e-6
# the smallest shape c of the noise variance's exact posterior InvGamma(c, r) that is drawn:
# a Gamma(c, 1) draw underflows to 0 (sigma2 = r / 0) with probability about exp(-745 c),
# 1e-16 at c = 0.05 but nearly 1 at the default a0 = 1e-6 when alpha n equals the number
# of flat columns (one row and an intercept); at c <= 0 the posterior does not exist
MIN_NOISE_SHAPE = 0.05


def exact_noise_shape(prior_shape, alpha, n_observations, n_flat):
    """The shape ``a0 + (alpha n - k) / 2`` of the noise variance's exact alpha-posterior
    ``InvGamma``, with ``k`` flat-prior columns (the intercept, covariates) integrated out,
    each taking 1/2 (the exact samplers' and the fit-time checks')."""
    return prior_shape + 0.5 * (alpha * n_observations - n_flat)
# sample weights are row counts; a larger total overflowed the objective (1e200 per row
# did, 1e150 per row did not, on 60 rows)
MAX_WEIGHT_TOTAL = 1e150
PRIOR_SCALE_SHARE = 0.01


def expected_gaussian_loglik(n_samples, tau, elt, expected_sq_residual):
    """``E_q[log N(y | X beta, sigma2 I)]``: ``-(n/2) log 2pi + (n/2) Elt - (tau/2) ESS`` with
    ``tau = E[1/sigma2]``, ``Elt = E[log 1/sigma2]`` and ``ESS = E_q ||y - X beta||^2``."""
    return -0.5 * n_samples * LOG_2PI + 0.5 * n_samples * elt - 0.5 * tau * expected_sq_residual


@dataclass(frozen=True)
class NoiseFactor:
    """``q(sigma2)`` and what the other blocks read from it: ``tau = E[1/sigma2]``,
    ``elt = E[log 1/sigma2]``, ``kl = KL(q || prior)``, and the ``shape`` and ``scale`` of
    ``q(sigma2) = InvGamma(shape, scale)`` (``None`` when the variance is known or before the
    first update)."""

    tau: float
    elt: float
    kl: float = 0.0
    shape: float | None = None
    scale: float | None = None


@dataclass(frozen=True)
class Centring:
    """What a fitted regression keeps of its training rows, published once with the fitted
    state: the (weighted) column means ``X_offset`` and ``y_offset`` that the fit took off
    (zeros without ``fit_intercept``), ``weight_total`` (``sum_i w_i``, ``n`` without
    weights), and, with covariates, their :class:`~alphavb.linear_model._covariates.
    CovariateSolve` and column names."""

    X_offset: np.ndarray
    y_offset: float
    weight_total: float
    covariates: object = None
    covariate_names: tuple = ()

    def intercept(self, coef):
        """The flat-prior intercept ``mean(y) - mean(X)' coef`` given ``coef`` (a float) or
        each draw of it (the last axis)."""
        value = self.y_offset - coef @ self.X_offset
        return float(value) if np.ndim(value) == 0 else value

    def intercept_leverage(self, alpha):
        """``1 / (alpha n)``: the flat-prior intercept's variance given ``beta``, in units of
        ``sigma2`` (the tempered likelihood counts ``alpha n`` rows)."""
        return 1.0 / (alpha * self.weight_total)


@dataclass(frozen=True)
class TrainingRows:
    """The validated training rows as :meth:`AlphaRegressionBase._prepare_data` returns them:
    ``X`` and ``y`` centred (with ``fit_intercept``) and multiplied by ``sqrt_weight`` (the
    square roots of the rows' weights, ones without ``sample_weight``; ``weighted`` says
    whether there were weights), the squared column norms of ``X`` and the
    :class:`Centring` the fitted model keeps."""

    X: np.ndarray
    y: np.ndarray
    col_sq_norms: np.ndarray
    sqrt_weight: np.ndarray
    weighted: bool
    centring: Centring


@dataclass(frozen=True)
class StatisticsRows:
    """What sufficient statistics give a Gaussian model's fit (:func:`statistics_rows`):
    ``p + 1`` rows ``X``, ``y`` with the statistics' ``X'X``, ``X'y``, ``y'y``; ``gram`` and
    ``xty`` themselves, ``n_samples``, the :class:`Centring` the fit keeps, ``Var(y)`` and
    the columns' standard deviations (1 for a constant column)."""

    X: np.ndarray
    y: np.ndarray
    gram: np.ndarray
    xty: np.ndarray
    n_samples: float
    centring: Centring
    variance_y: float
    column_sd: np.ndarray


def check_means_pair(owner, X_mean, y_mean):
    """Sufficient statistics' means come both or neither (the intercept needs both)."""
    if (X_mean is None) != (y_mean is None):
        given, missing = ("X_mean", "y_mean") if y_mean is None else ("y_mean", "X_mean")
        raise bad_parameter(owner, missing, f"given with {given}", None,
                            "Pass both means (the intercept needs both), or neither.")


def statistics_rows(owner, XtX, Xty, yty, n_samples, X_mean, y_mean, fit_intercept):
    """The :class:`StatisticsRows` of sufficient statistics (centred with
    ``fit_intercept``, of the rows as they are without; the means, when given, are the
    intercept's offsets with it and centre ``Var(y)`` and the columns' deviations without).
    A Gaussian model reads its rows only through ``X'X``, ``X'y``, ``y'y`` and ``n``, so it
    fits ``p + 1`` rows that have them: ``X~ = Lambda^{1/2} V'`` from ``X'X = V Lambda V'``,
    ``y~ = Lambda^{-1/2} V'X'y`` (0 where ``Lambda`` is), and one row ``(0, ..., 0, r)``
    with ``r^2 = y'y - |y~|^2``, counting ``n`` observations; statistics with ``y'X (X'X)^+
    X'y > y'y``, which no rows have, are refused naming ``yty``."""
    from ._susie_rss import checked_sufficient_statistics

    check_means_pair(owner, X_mean, y_mean)
    checked_sufficient_statistics(owner, XtX, Xty, yty, n_samples, X_mean=X_mean,
                                  y_mean=y_mean, fit_intercept=fit_intercept,
                                  standardize=False)
    gram = np.array(XtX, dtype=float)
    xty, yty, n = np.array(Xty, dtype=float), float(yty), float(n_samples)
    p = gram.shape[0]
    # on the correlation scale (columns of any units: 1e6 beside 1 lost a column's
    # eigenvalues below 1e-12 of the largest), then back: X~ = Lambda^{1/2} V' D
    diagonal = np.diag(gram)
    unit = np.sqrt(np.where(diagonal > 0.0, diagonal, 1.0))
    values, vectors = np.linalg.eigh((gram + gram.T) / 2.0 / np.outer(unit, unit))
    positive = values > 1e-12 * max(values.max(initial=0.0), np.finfo(float).tiny)
    root = np.sqrt(np.where(positive, values, 0.0))
    response = np.where(positive, (vectors.T @ (xty / unit)) / np.where(positive, root, 1.0),
                        0.0)
    rest = yty - float(response @ response)
    if rest < -1e-9 * max(yty, 1.0):
        raise bad_parameter(owner, "yty", f"at least y'X (X'X)^+ X'y = {yty - rest:.6g} "
                            "(statistics of one set of rows)", yty)
    design = np.vstack([root[:, None] * vectors.T * unit, np.zeros((1, p))])
    response = np.append(response, np.sqrt(max(rest, 0.0)))
    means = (np.zeros(p), 0.0) if X_mean is None else (
        np.asarray(X_mean, dtype=float).reshape(p), float(np.ravel(y_mean)[0]))
    offsets = means if fit_intercept else (np.zeros(p), 0.0)
    about = (np.zeros(p), 0.0) if fit_intercept else means
    sd = np.sqrt(np.maximum(diagonal / n - about[0] ** 2, 0.0))
    size = np.sqrt(np.abs(diagonal) / n + np.square(offsets[0]))
    return StatisticsRows(design, response, gram, xty, n, Centring(*offsets, n),
                          max(yty / n - about[1] ** 2, 0.0),
                          np.where(sd > 1e-12 * size, sd, 1.0))


def noise_block(fixed_variance, prior, shape_increment, scale_increment):
    """CAVI update of ``q(sigma2)`` (Yang, Pati & Bhattacharya 2020, Cor. 4.1-4.2).

    Parameters
    ----------
    fixed_variance : float or None
        Known noise variance; ``None`` when ``sigma2`` is learned.
    prior : tuple (a0, b0)
        Inverse-gamma prior of ``sigma2`` (unused when the variance is known).
    shape_increment, scale_increment : float
        What the data and the rest of the model add to ``a0`` and ``b0`` (already multiplied
        by ``alpha`` where they come from the likelihood), e.g. ``alpha n / 2`` and
        ``alpha (||y - X m||^2 + tr(X'X V)) / 2`` for Bayesian linear regression.

    Returns
    -------
    NoiseFactor
    """
    if fixed_variance is not None:
        tau = 1.0 / fixed_variance
        return NoiseFactor(tau, np.log(tau))
    prior_shape, prior_scale = prior
    shape = prior_shape + shape_increment
    scale = prior_scale + scale_increment
    tau, elt = inv_gamma_expectations(shape, scale)
    return NoiseFactor(tau, elt, kl_inv_gamma(shape, scale, prior_shape, prior_scale), shape,
                       scale)


def weighted_variance(rows, sqrt_weight):
    """The weighted variance (about the weighted mean) of each column of data given as its
    rows times ``sqrt(w_i)`` (as :class:`TrainingRows` holds them):
    ``sum_i w_i x_i^2 / W - (sum_i w_i x_i / W)^2`` with ``W = sum_i w_i``, never below 0."""
    total = float(sqrt_weight @ sqrt_weight)
    mean = sqrt_weight @ rows / total
    return np.maximum(np.sum(rows * rows, axis=0) / total - mean * mean, 0.0)


def auto_noise_prior(variance):
    """``noise_prior="auto"``: ``InvGamma(a0, a0 v)`` with ``a0 = AUTO_NOISE_SHAPE`` and ``v``
    the variance of the response (1 when it is 0), as ``(shape, scale)``."""
    return AUTO_NOISE_SHAPE, AUTO_NOISE_SHAPE * (variance if variance > 0.0 else 1.0)


def response_variance(y):
    """Scale of the starting noise variance: ``Var(y)``, or 1 when ``y`` is constant."""
    variance = float(np.var(y))
    return variance if variance > 0.0 else 1.0


def fixed_noise_start(fixed_variance, initial_variance):
    """The ``tau``/``elt`` used by the first sweep: the known variance or a starting guess."""
    variance = initial_variance if fixed_variance is None else fixed_variance
    return NoiseFactor(1.0 / variance, -np.log(variance))


class AlphaRegressionBase(CoefficientSummaryMixin, RegressorMixin, CAVIEstimator):
    """Data handling, noise parameters and prediction shared by the regression estimators.

    Subclasses set ``coef_`` and implement ``_coef_variance_along(X)``, the variance of
    ``x' beta`` under ``q`` for each centred row ``x`` of ``X``, and ``_draw_coef(n, rng)``,
    a dict of named draws from ``q`` with ``"coef"`` among them.
    """

    _parameter_constraints: ClassVar[dict] = {
        **CAVIEstimator._parameter_constraints,
        "noise_variance": [None, Real(0, None, closed="neither")],
        "noise_prior": [Options("auto"), PositivePair()],
        "fit_intercept": [Boolean()],
    }
    _parameter_hints: ClassVar[dict] = {
        **CAVIEstimator._parameter_hints,
        "noise_variance": "Pass None to learn it with an inverse-gamma prior.",
        "noise_prior": "It is 'auto' or the (shape, scale) of the inverse-gamma prior of "
                       "the noise variance: pass two finite positive floats, e.g. (1.0, 0.1).",
    }

    def _prepare_data(self, X, y, order=None, sample_weight=None):
        """Validate ``X, y`` and centre them when ``fit_intercept`` (never in place).

        ``order="F"`` returns ``X`` in Fortran order (one copy at most, centring included).
        With ``sample_weight`` ``w``: the centring uses weighted means and the rows are
        multiplied by ``sqrt(w_i)``, so that every sum of squares the updates read is the
        weighted one (``w_i`` copies of row ``i`` for an integer ``w_i``); the count the
        likelihood's normaliser and the noise update use is ``sum_i w_i`` (``n`` without
        weights). Returns the :class:`TrainingRows`, which the fit publishes (its
        :class:`Centring`) once, when it publishes the fitted state.
        """
        if np.asarray(y).dtype.kind in "USO":
            try:  # numbers written as strings are read as numbers
                y = np.asarray(y, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{type(self).__name__} is a regressor: y must hold numbers, got "
                    f"{np.asarray(y).dtype} values such as {np.ravel(y)[:1]!r}. Encode the "
                    "target as numbers (a classifier fits labels)."
                ) from None
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, order=order)
        if sample_weight is None:
            weight = np.ones(X.shape[0])
        else:
            from sklearn.utils.validation import _check_sample_weight

            weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                          ensure_non_negative=True)
            if not weight.sum() > 0:
                raise bad_parameter(type(self).__name__, "sample_weight", "weights with a "
                                    "positive sum", "all zeros")
            if not weight.sum() <= MAX_WEIGHT_TOTAL:  # the objective scales with it
                raise bad_parameter(type(self).__name__, "sample_weight", "row counts (w_i "
                                    f"copies of row i) summing to at most {MAX_WEIGHT_TOTAL:g}",
                                    f"weights summing to {weight.sum():.3g}",
                                    "The objective grows with the total and left float64's "
                                    "range; divide relative weights by a constant.")
        if self.fit_intercept:
            X_offset = np.average(X, axis=0, weights=None if sample_weight is None else weight)
            y_offset = float(np.average(y, weights=None if sample_weight is None else weight))
            X = X - X_offset
            y = y - y_offset
        else:
            X_offset = np.zeros(X.shape[1])
            y_offset = 0.0
        sqrt_weight = np.sqrt(weight)
        if sample_weight is not None:
            X = np.asarray(X * sqrt_weight[:, None], order=order or "C")
            y = y * sqrt_weight
        col_sq_norms, _ = column_squares(type(self).__name__, X, y)
        return TrainingRows(X, y, col_sq_norms, sqrt_weight, sample_weight is not None,
                            Centring(X_offset, y_offset, float(weight.sum())))

    def _publish_data(self, data):
        """Publish what preparation resolved (``data.fitted_attributes``) and what
        predictions, intervals and draws need of the training rows: the fit's
        :class:`Centring` (``data.centring``), the model's one private fitted attribute."""
        super()._publish_data(data)
        self._centring = data.centring

    def _stopping_value(self, data, state, objective):
        """The alpha-ELBO per observation (:meth:`_has_converged` stops on its change): the
        fractional objective is ``alpha`` times the alpha-ELBO here, so both objectives stop
        at the same sweep."""
        scale = self.alpha if getattr(self, "objective", "alpha-vb") == "fractional" else 1.0
        return objective / (scale * data.centring.weight_total)

    def _has_converged(self, current, previous):
        return abs(current - previous) <= self.tol

    def _statistics_rows(self, XtX, Xty, yty, n_samples, X_mean, y_mean):
        """:func:`statistics_rows` for ``fit_sufficient``, setting what validation sets of
        rows (``n_features_in_``; no feature names)."""
        rows = statistics_rows(type(self).__name__, XtX, Xty, yty, n_samples, X_mean, y_mean,
                               self.fit_intercept)
        self.n_features_in_ = len(rows.xty)
        self.__dict__.pop("feature_names_in_", None)
        return rows

    def _noise_from_variance(self, variance_y):
        """The known noise variance (or None) and the inverse-gamma prior given ``Var(y)``
        (of the rows, or of sufficient statistics); the prior is published as
        ``noise_prior_``."""
        fixed = None if self.noise_variance is None else float(self.noise_variance)
        if isinstance(self.noise_prior, str):  # "auto"
            shape, scale = auto_noise_prior(float(variance_y))
        else:
            shape, scale = np.asarray(self.noise_prior, dtype=float)
        return fixed, (float(shape), float(scale))

    def _noise_parameters(self, rows):
        """The known noise variance (or None) and the inverse-gamma prior, as floats:
        ``noise_prior="auto"`` is ``InvGamma(1e-6, 1e-6 Var(y))`` with the (weighted)
        variance of the response of the :class:`TrainingRows` ``rows``."""
        return self._noise_from_variance(float(weighted_variance(rows.y, rows.sqrt_weight)))

    def _noise_attributes(self, noise):
        """The attributes of ``q(sigma2)`` (or of the known variance, when ``noise.shape`` is
        None): ``noise_shape_``, ``noise_scale_``, ``noise_variance_``."""
        if noise.shape is None:
            return {"noise_shape_": None, "noise_scale_": None,
                    "noise_variance_": float(self.noise_variance)}
        shape, scale = float(noise.shape), float(noise.scale)
        variance = float(inv_gamma_mean(noise.shape, noise.scale))
        if not np.isfinite(variance):
            warnings.warn(
                f"{type(self).__name__}: q(sigma2) = InvGamma({shape:.3g}, {scale:.3g}) has no "
                "finite mean (its shape a0 + alpha n / 2 is <= 1), so noise_variance_ and the "
                "predictive standard deviation are inf. Fit more rows, or pass noise_variance "
                "or an informative noise_prior.", UserWarning, stacklevel=caller_stacklevel())
        prior_scale = self.noise_prior_[1]
        if isinstance(self.noise_prior, str) and prior_scale > PRIOR_SCALE_SHARE * scale:
            warnings.warn(
                f"{type(self).__name__}: the default noise_prior='auto' has the scale "
                f"1e-6 Var(y) = {prior_scale:.3g}, {prior_scale / scale:.0%} of q(sigma2)'s "
                f"scale {scale:.3g}: the prior, not the data, sets the noise level (the "
                "fit leaves almost no residual). Pass a known noise_variance, or a "
                "noise_prior (shape, scale) that states the noise level you expect.",
                UserWarning, stacklevel=caller_stacklevel())
        return {"noise_shape_": shape, "noise_scale_": scale, "noise_variance_": variance}

    def _intercept(self, coef):
        """The flat-prior intercept ``mean(y) - mean(X)' coef`` (0 without one)."""
        return self._centring.intercept(coef) if self.fit_intercept else 0.0

    def predict(self, X, return_std=False):
        """Posterior-predictive mean (and standard deviation) under ``q``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        return_std : bool, default=False
            Also return the standard deviation of a new response (infinite when
            ``q(sigma2)`` has no finite mean).

        Returns
        -------
        y_mean : ndarray of shape (n_samples,)
        y_std : ndarray of shape (n_samples,)
            Only when ``return_std``:
            ``sqrt(Var_q(x' beta) + E[sigma2] (1 + 1 / (alpha n)))`` with
            ``fit_intercept`` (the intercept's own spread, module docstring).
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        y_mean = X @ self.coef_ + self.intercept_
        if not return_std:
            return y_mean
        variance = (self._coef_variance_along(X - self._centring.X_offset)
                    + self.noise_variance_ * (1.0 + self._intercept_leverage()))
        return y_mean, np.sqrt(variance)

    def _intercept_leverage(self):
        """``1 / (alpha n)``: the flat-prior intercept's variance given ``beta``, in units of
        ``sigma2`` (0 without ``fit_intercept``; ``n`` the total weight)."""
        return self._centring.intercept_leverage(self.alpha) if self.fit_intercept else 0.0

    def _flat_parameter_moments(self):
        """Names, posterior means and standard deviations of the flat-prior parameters: the
        intercept ``mean(y) - mean(X)' beta + e``, ``e | sigma2 ~ N(0, sigma2 / (alpha n))``
        (module docstring), so its variance is ``Var(mean(X)' beta) + E[sigma2] / (alpha
        n)``."""
        if not self.fit_intercept:
            return [], np.zeros(0), np.zeros(0)
        variance = (self._coef_variance_along(self._centring.X_offset[None, :])[0]
                    + self.noise_variance_ * self._intercept_leverage())
        return ["intercept"], np.array([self.intercept_]), np.sqrt([variance])

    def _other_summary_rows(self, level):
        """The intercept and covariates (normal intervals from their mean and sd), then the
        noise variance when it is learned (the mean and sd of ``q(sigma2)``, over a grid of
        the mixture of the settings' inverse gammas, and its exact quantiles)."""
        names, means, sds = self._flat_parameter_moments()
        z = normal_quantile(level)
        rows = [(name, {"coef": mean, "sd": sd, "lower": mean - z * sd, "upper": mean + z * sd})
                for name, mean, sd in zip(names, means, sds, strict=True)]
        if self.noise_shape_ is not None:
            rows.append(("sigma2", self._noise_summary(level)))
        return rows

    def _noise_summary(self, level):
        """Mean, sd and equal-tailed interval of ``q(sigma2)``: over a grid, of the mixture
        ``sum_h w_h InvGamma(a_h, b_h)`` (its quantiles by bisection)."""
        # one q(sigma2) per setting (a model without a grid of settings has one)
        weights = getattr(self, "hyper_weights_", np.ones(1))
        shapes = np.atleast_1d(np.asarray(getattr(self, "setting_noise_shape_",
                                                  self.noise_shape_), dtype=float))
        scales = np.atleast_1d(np.asarray(getattr(self, "setting_noise_scale_",
                                                  self.noise_scale_), dtype=float))
        means = np.array([inv_gamma_mean(a, b) for a, b in zip(shapes, scales, strict=True)])
        # E[sigma2^2] = b^2 / ((a - 1)(a - 2)), infinite for a <= 2
        second = np.where(shapes > 2.0, means * scales / np.where(shapes > 2.0, shapes - 2.0,
                                                                   1.0), np.inf)
        mean, second_moment = float(weights @ means), float(weights @ second)
        sd = np.sqrt(max(second_moment - mean * mean, 0.0)) if np.isfinite(second_moment) \
            else np.inf
        bounds = []
        for p in (0.5 - 0.5 * level, 0.5 + 0.5 * level):
            quantiles = invgamma.ppf(p, shapes, scale=scales)
            if len(shapes) == 1:  # one inverse gamma: its exact quantile, no bisection
                bounds.append(float(quantiles[0]))
                continue
            _, high = bisect_quantile(
                lambda x: weights @ invgamma.cdf(x, shapes, scale=scales), p,
                quantiles.min(), quantiles.max(), 1e-12 * quantiles.max())
            bounds.append(float(high))
        return {"coef": mean, "sd": float(sd), "lower": bounds[0], "upper": bounds[1]}

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws of the parameters from the fitted ``q``.

        Parameters
        ----------
        n_samples : int, default=1
        random_state : int, RandomState or None, default=None

        Returns
        -------
        dict of str to ndarray
            ``"coef"`` (n_samples, n_features); ``"intercept"`` (n_samples,), the
            flat-prior intercept given each draw, ``N(mean(y) - mean(X)' beta, sigma2 /
            (alpha n))`` (0 without ``fit_intercept``); ``"noise_variance"`` (n_samples,),
            ``sigma2 ~ q(sigma2)`` (the known variance when it is fixed); the spike-and-slab
            model adds ``"inclusion"`` (n_samples, n_features) of bools ``z`` and, when ``pi`` is
            learned, ``"prior_inclusion"`` (n_samples,) drawn from ``q(pi)``.
        """
        check_is_fitted(self)
        rng = check_random_state(random_state)
        draws = self._draw_coef(n_samples, rng)
        if self.noise_shape_ is not None:  # 1/sigma2 ~ Gamma(shape, rate=scale)
            shape, scale = self.noise_shape_, self.noise_scale_
            if "setting" in draws:  # a grid of settings: each draw's own q(sigma2)
                shape = self.setting_noise_shape_[draws["setting"]]
                scale = self.setting_noise_scale_[draws["setting"]]
            draws["noise_variance"] = 1.0 / rng.gamma(shape, 1.0 / scale, size=n_samples)
        else:
            draws["noise_variance"] = np.full(n_samples, float(self.noise_variance_))
        # given beta and sigma2: N(mean(y) - mean(X)' beta, sigma2/(alpha n))
        if self.fit_intercept:
            draws["intercept"] = (self._centring.intercept(draws["coef"])
                                  + np.sqrt(draws["noise_variance"] * self._intercept_leverage())
                                  * rng.standard_normal(n_samples))
        else:
            draws["intercept"] = np.zeros(n_samples)
        return draws


def normal_quantile(level):
    """Two-sided standard-normal quantile ``z`` with ``P(|Z| <= z) = level``."""
    return norm.ppf(0.5 + 0.5 * level)


def resolve_prior_precision(owner, value, n_features):
    """``prior_precision`` (a positive float or one per feature) as an array of shape (d,)."""
    precision = np.asarray(value, dtype=float)
    if precision.ndim == 0:
        return np.full(n_features, float(precision))
    if precision.shape != (n_features,):
        raise bad_parameter(
            owner, "prior_precision", f"a positive float or an array of shape ({n_features},) "
            "of positive floats, one per feature", value,
        )
    return precision.copy()
