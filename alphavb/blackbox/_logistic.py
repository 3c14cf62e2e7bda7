"""Bayesian logistic regression by Gaussian alpha-VB (Yang, Pati & Bhattacharya 2020,
Cor. 4.3): :class:`AlphaLogisticRegression`, a classifier whose ``q`` is fitted by
:class:`~alphavb.blackbox._gaussian_vb.AlphaGaussianVB` on the Bernoulli-logit likelihood.
"""

from typing import ClassVar

import autograd.numpy as anp
import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._coefficient_summary import CoefficientSummaryMixin
from .._validation import (
    Boolean,
    Integer,
    Options,
    RandomState,
    Real,
    ValidatedParametersMixin,
    validate_params,
)
from ..base import ExactSampler, feature_labels
from ._gaussian_families import FAMILIES
from ._gaussian_vb import OPTIMIZERS, AlphaGaussianVB


def _logistic_log_likelihood(theta, design, y):
    """Bernoulli-logit log-likelihood, vectorized over the rows of ``theta`` (S, p), for the
    design matrix (n, p): the features, with a column of ones for the intercept."""
    logits = anp.dot(theta, design.T)
    return anp.sum(y * logits - anp.logaddexp(0.0, logits), axis=1)


def _design(X, fit_intercept):
    return np.column_stack([X, np.ones(X.shape[0])]) if fit_intercept else X


class AlphaLogisticRegression(CoefficientSummaryMixin, ValidatedParametersMixin, ClassifierMixin,
                              BaseEstimator):
    """Bayesian logistic regression by Gaussian alpha-VB (Yang, Pati & Bhattacharya 2020, Cor. 4.3).

    ``p(y = 1 | x, beta, b) = sigmoid(x' beta + b)`` with the prior ``N(0, prior_variance)``
    on every coefficient and the intercept; ``q`` is fitted by :class:`AlphaGaussianVB`.
    With ``standardize=True`` (the default) the prior is on the coefficients of the
    standardized columns ``(x_j - mean_j) / sd_j`` and on the intercept at the mean of
    ``X``, so the fit does not depend on the units or the origin of ``X``; the fitted
    attributes are on the original scale. ``summary()``, ``summary_frame()`` and
    ``credible_intervals()`` give the marginals of ``q`` there (exact: normal, or for a
    mixture ``q`` its quantiles by bisection).

    Parameters
    ----------
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature (alpha-VB): the data count as ``alpha * n`` observations;
        1 is ordinary VB. (Not BB-alpha's and AADM's ``divergence_order``.)
    prior_variance : float, default=1.0
    fit_intercept : bool, default=True
        ``False`` fixes the intercept at 0 (``q`` is then over the coefficients only).
    standardize : bool, default=True
        Put the prior on the standardized columns (centred too, with ``fit_intercept``);
        ``False`` puts it on the raw coefficients and intercept (the earlier default).
    family : {"full", "diag"}, default="full"
    n_components : int, default=1
    optimizer : {"lbfgs", "adam"}, default="lbfgs"
    n_mc_samples : int, default=100
    max_iter : int, default=500
    n_predict_samples : int, default=1000
        Draws from ``q`` averaged by ``predict_proba`` (seeded at fit time).
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, n_features)
        Posterior mean of the coefficients (under ``q``).
    intercept_ : ndarray of shape (1,)
    vb_ : AlphaGaussianVB
        The fitted approximation over ``(coef, intercept)`` (``coef`` alone without the
        intercept), of the standardized columns with ``standardize=True``.
    column_scale_, column_offset_ : ndarray of shape (n_features,)
        The standard deviation (1 for a constant column) and mean (0 without
        ``fit_intercept``) taken off each column with ``standardize=True``; ones and
        zeros otherwise.
    n_samples_fit_ : int
        Rows of ``X`` in the fit.
    n_iter_ : int
        Iterations of the optimizer.
    converged_ : bool
    approximation_check_, khat_ : as :class:`AlphaGaussianVB`'s (named by feature).
    """

    # what alphavb.exact and AlphaSelector ask of the model (base.ExactSampler, KINDS)
    _exact_sampler: ClassVar[ExactSampler] = ExactSampler(
        "_polya_gamma", "sample_logistic")
    _model_kind: ClassVar[str] = "logistic_regression"

    def __init__(self, alpha=1.0, prior_variance=1.0, fit_intercept=True, standardize=True,
                 family="full", n_components=1, optimizer="lbfgs", n_mc_samples=100,
                 max_iter=500, n_predict_samples=1000, random_state=None):
        self.alpha = alpha
        self.prior_variance = prior_variance
        self.fit_intercept = fit_intercept
        self.standardize = standardize
        self.family = family
        self.n_components = n_components
        self.optimizer = optimizer
        self.n_mc_samples = n_mc_samples
        self.max_iter = max_iter
        self.n_predict_samples = n_predict_samples
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Real(0, 1, closed="right")],
        "prior_variance": [Real(0, None, closed="neither")],
        "fit_intercept": [Boolean()],
        "standardize": [Boolean()],
        "family": [Options(*FAMILIES)],
        "n_components": [Integer(1, None)],
        "optimizer": [Options(*OPTIMIZERS)],
        "n_mc_samples": [Integer(1, None)],
        "max_iter": [Integer(1, None)],
        "n_predict_samples": [Integer(1, None)],
        "random_state": [RandomState()],
    }
    _parameter_hints: ClassVar[dict] = {
        "alpha": "alpha is the likelihood's temperature (alpha-VB): 1 is ordinary VB.",
    }

    def fit(self, X, y):
        """Fit ``q`` over ``(coef, intercept)`` to ``X`` and binary labels ``y``."""
        design, labels = self._prepare_fit(X, y)
        n_features = design.shape[1] - bool(self.fit_intercept)
        prior_variance = float(self.prior_variance)
        vb = AlphaGaussianVB(
            _logistic_log_likelihood, n_features + bool(self.fit_intercept), alpha=self.alpha,
            family=self.family, n_components=self.n_components, prior_variance=prior_variance,
            optimizer=self.optimizer, n_mc_samples=self.n_mc_samples, max_iter=self.max_iter,
            random_state=self.random_state)
        fix = "rescale X (e.g. with sklearn.preprocessing.StandardScaler) or prior_variance"
        vb._blame, vb._exact_call = (type(self).__name__, fix), "compare_to_exact(model, X, y)"
        # the check's names: the coefficients, and the intercept at the mean of X (the
        # masses of the standardized coefficients' intervals are those of the raw ones)
        vb._parameter_names = (*(str(name) for name in feature_labels(self)),
                               *(["intercept (at the mean of X)"] if self.fit_intercept
                                 else []))
        self.vb_ = vb.fit(design, labels.astype(float))
        self.approximation_check_, self.khat_ = vb.approximation_check_, vb.khat_
        mean = self._original_scale(self.vb_.weights_ @ self.vb_.mean_)
        self.coef_ = mean[None, :n_features]
        self.intercept_ = mean[n_features:] if self.fit_intercept else np.zeros(1)
        self.n_samples_fit_ = design.shape[0]
        self.n_iter_ = self.vb_.n_iter_
        self.converged_ = self.vb_.converged_
        self._predict_draws = self.vb_.sample(self.n_predict_samples,
                                              random_state=check_random_state(
                                                  self.random_state).randint(2**31 - 1))
        return self

    def _prepare_fit(self, X, y):
        """Validate; set ``classes_`` and the standardization; the design ``q`` is fitted
        on and the 0/1 labels (also what :func:`alphavb.exact.sample_exact` samples
        from)."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, labels = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            raise ValueError(f"Only binary classification is supported by "
                             f"{type(self).__name__}: y has {len(self.classes_)} class(es); "
                             "it needs 2. For more classes fit one model per class (e.g. "
                             "sklearn.multiclass.OneVsRestClassifier).")
        n_features = X.shape[1]
        if self.standardize:
            from ..base import column_standard_deviations

            self.column_offset_ = X.mean(axis=0) if self.fit_intercept else np.zeros(n_features)
            self.column_scale_ = column_standard_deviations(X - self.column_offset_, None,
                                                            self.column_offset_)
        else:
            self.column_offset_, self.column_scale_ = np.zeros(n_features), np.ones(n_features)
        return self._model_design(X), labels

    def _model_design(self, X):
        """The design ``q`` is fitted on: the standardized columns, then the ones."""
        return _design((X - self.column_offset_) / self.column_scale_, self.fit_intercept)

    def _original_scale(self, theta):
        """Parameters ``(coef, intercept)`` of the standardized columns (last axis) on the
        original scale: ``beta = coef / sd``, ``b = intercept - mean' beta``."""
        n_features = len(self.column_scale_)
        theta = np.array(theta, dtype=float)
        theta[..., :n_features] /= self.column_scale_
        if self.fit_intercept:
            theta[..., n_features] -= theta[..., :n_features] @ self.column_offset_
        return theta

    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws from the fitted ``q``: ``"coef"`` (n_samples, n_features) and
        ``"intercept"`` (n_samples,; zeros without ``fit_intercept``), on the original
        scale of ``X``."""
        check_is_fitted(self, "vb_")
        theta = self._original_scale(self.vb_.sample(n_samples, random_state))
        n_features = self.coef_.shape[1]
        intercept = theta[:, n_features] if self.fit_intercept else np.zeros(len(theta))
        return {"coef": theta[:, :n_features], "intercept": intercept}

    def predict_proba(self, X):
        """``E_q[sigmoid(x' beta + b)]`` by Monte Carlo over draws from ``q``."""
        check_is_fitted(self, "vb_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        logits = self._predict_draws @ self._model_design(X).T
        positive = expit(logits).mean(axis=0)
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X):
        positive = self.predict_proba(X)[:, 1]
        return self.classes_[(positive > 0.5).astype(int)]

    def _marginals(self):
        """Weights (n_components,), means and sds (n_components, n_params) of the components
        of ``q`` on the original scale of ``X``: ``(coef, intercept)`` is the linear map
        :meth:`_original_scale` of ``q``'s parameters, so each Gaussian component maps to a
        Gaussian."""
        vb = self.vb_
        transposed_map = self._original_scale(np.eye(vb.mean_.shape[1]))  # row i: A e_i
        means = self._original_scale(vb.mean_)
        variances = np.einsum("ip,kij,jp->kp", transposed_map, vb.covariance_,
                              transposed_map)
        return np.asarray(vb.weights_, dtype=float), means, np.sqrt(variances)

    def _parameter_summaries(self, level):
        """Mean, sd and equal-tailed ``level`` interval of each of ``(coef, intercept)``
        under ``q``: normal, or over a mixture its mean, sd (total variance) and quantiles
        (bisection)."""
        from scipy.stats import norm

        from .._estimates import _normal_mixture_quantiles

        check_is_fitted(self, "vb_")
        weights, means, sds = self._marginals()
        if len(weights) == 1:
            mean, sd = means[0], sds[0]
            z = norm.ppf(0.5 + 0.5 * level)
            return mean, sd, mean - z * sd, mean + z * sd
        mean = weights @ means
        sd = np.sqrt(weights @ (sds**2 + (means - mean) ** 2))
        tail = 0.5 - 0.5 * level
        lower, upper = _normal_mixture_quantiles(weights, means, sds, (tail, 1.0 - tail))
        return mean, sd, lower, upper

    @validate_params({"level": [Real(0.0, 1.0, closed="neither")]})
    def credible_intervals(self, level=0.95):
        """Equal-tailed credible intervals of each coefficient under ``q``.

        Parameters
        ----------
        level : float in (0, 1), default=0.95
            Probability mass of each interval (0.95: from the 2.5% to the 97.5% quantile).

        Returns
        -------
        ndarray of shape (n_features, 2)
            On the original scale of ``X``.
        """
        _, _, lower, upper = self._parameter_summaries(level)
        n_features = self.n_features_in_
        return np.column_stack([lower[:n_features], upper[:n_features]])

    def _summary_columns(self, level):
        n_features = self.n_features_in_
        return dict(zip(("coef", "sd", "lower", "upper"),
                        (column[:n_features] for column in self._parameter_summaries(level)),
                        strict=True))

    def _other_summary_rows(self, level):
        """The intercept (with ``fit_intercept``): its marginal under ``q``, as the
        coefficients'."""
        if not self.fit_intercept:
            return []
        values = [float(column[self.n_features_in_])
                  for column in self._parameter_summaries(level)]
        return [("intercept", dict(zip(("coef", "sd", "lower", "upper"), values,
                                       strict=True)))]

    def _other_rows_note(self, others):
        return " Below the coefficients: the intercept, summarised as they are."

    def _summary_header(self):
        components = len(self.vb_.weights_)
        family = "Gaussian" if components == 1 else f"mixture of {components} Gaussians"
        objective = "alpha-ELBO" if components == 1 else "alpha-ELBO (Jensen bound)"
        return [("Model:", type(self).__name__),
                ("alpha:", f"{self.alpha:g}"),
                ("Posterior q:", f"{family} ({self.family})"),
                ("No. observations:", str(self.n_samples_fit_)),
                (f"{objective}:", f"{self.vb_.elbo_:.4f}"),
                ("Iterations (converged):", f"{self.n_iter_} ({self.converged_})")]
