"""Log predictive density: the score that judges a fitted posterior by its uncertainty too.

:func:`log_predictive_density` gives, per row, ``log p(y_i | x_i, D)`` under the fitted
variational posterior ``q`` (the posterior predictive ``∫ p(y | x, theta) q(theta)
dtheta``); :func:`log_predictive_scorer` is its mean, as a scikit-learn scorer
(``GridSearchCV(..., scoring=log_predictive_scorer)``), so that choosing ``alpha`` or a
prior by cross-validation weighs the spread that ``alpha`` controls, which R^2 and accuracy
ignore. Larger is better; it is the expected log predictive density of Gelman, Hwang &
Vehtari (2014) estimated on held-out rows.

How each estimator's predictive is computed:

* :class:`~alphavb.AlphaLinearRegression`: ``q(beta)`` is Gaussian and independent of
  ``q(sigma2)``, so given ``sigma2`` the predictive is ``N(yhat, Var_q(x' beta) + sigma2 (1 +
  1 / (alpha n)))``; it is averaged over ``n_draws`` draws of ``q(sigma2)`` (exact with a
  known noise variance).
* :class:`~alphavb.AlphaSpikeSlabRegression` and :class:`~alphavb.AlphaSuSiE`: the Monte-Carlo
  mixture ``mean_s N(y | b_s + x' beta_s + z' gamma_s, sigma2_s)`` over ``n_draws`` draws of
  ``q`` (``x' beta`` is not normal under a spike-and-slab ``q``).
* Classifiers (:class:`~alphavb.AlphaSpikeSlabClassifier`,
  :class:`~alphavb.AlphaLogisticRegression`, :class:`~alphavb.BBAlphaClassifier`): the log
  of the predictive probability of the observed class.
* :class:`~alphavb.BBAlphaRegressor` and :class:`~alphavb.AADMRegressor`: the Monte-Carlo
  mixture over ``n_predict_samples`` network draws, as their ``log_likelihood`` (per row).
* :class:`~alphavb.AlphaGaussianMixture`: ``score_samples(X)``, the posterior predictive
  (Student-t mixture) density in closed form; ``y`` is not used.

Draws come from ``random_state`` (0 by default), so a score is repeatable.
"""

import numpy as np
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from ._validation import Integer, bad_parameter, check_targets, validate_params

__all__ = ["DEFAULT_DRAWS", "class_log_probability", "draws_log_likelihood", "draws_predictive",
           "gaussian_draws_density", "log_predictive_density", "log_predictive_scorer",
           "make_log_predictive_scorer"]

DEFAULT_DRAWS = 1000


@validate_params({"n_draws": [Integer(1, None)]})
def log_predictive_density(estimator, X, y=None, *, covariates=None, n_draws=DEFAULT_DRAWS,
                           random_state=0):
    """Per row, the log posterior predictive density ``log p(y_i | x_i, D)`` under ``q``.

    Parameters
    ----------
    estimator : fitted alphavb estimator
        A regression, classifier or mixture model (module docstring), or a fitted
        :class:`~alphavb.model_selection.AlphaSelector` of one.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), default=None
        The observed responses or labels (not used by the mixture, which scores ``X``).
    covariates : array-like of shape (n_samples, n_covariates), default=None
        The rows' covariates, for a model fitted with ``covariates=``.
    n_draws : int, default=1000
        Draws of ``q`` where the density is a Monte-Carlo average (module docstring).
    random_state : int, RandomState or None, default=0

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    from .base import fitted_model

    estimator = fitted_model(estimator)  # a fitted AlphaSelector: its best estimator
    name = type(estimator).__name__
    check_is_fitted(estimator)
    estimator_type = estimator.__sklearn_tags__().estimator_type
    if estimator_type == "density_estimator":  # a density of X alone (the mixture)
        return estimator.score_samples(X)
    if y is None:
        raise bad_parameter("log_predictive_density", "y", f"the observed targets of the rows "
                            f"of X (a {name} predicts y from X)", None)
    fitted_covariates = getattr(estimator, "n_covariates_in_", 0)
    if covariates is not None and not fitted_covariates:
        raise bad_parameter("log_predictive_density", "covariates", f"None ({name} was "
                            "fitted without covariates)", "an array")
    extra = {"covariates": covariates} if fitted_covariates else {}
    if hasattr(estimator, "_row_log_predictive"):  # the model's own (a closed form, networks)
        return estimator._row_log_predictive(X, y, n_draws, random_state)
    if hasattr(estimator, "predict_proba") and hasattr(estimator, "classes_"):
        return class_log_probability(estimator, estimator.predict_proba(X, **extra), y)
    if estimator_type == "regressor" and hasattr(estimator, "sample_posterior"):
        return gaussian_draws_density(estimator, X, y, covariates, n_draws, random_state)
    raise bad_parameter("log_predictive_density", "estimator", "a fitted alphavb regression, "
                        "classifier or mixture model", name,
                        fix="AlphaLDA has no closed-form predictive density of a document; "
                            "use its perplexity.")


def class_log_probability(estimator, proba, y):
    """``log proba[i, class of y_i]``, refusing labels the estimator has not seen."""
    y = np.asarray(y)
    unknown = ~np.isin(y, estimator.classes_)
    if y.shape != (proba.shape[0],) or unknown.any():
        raise bad_parameter("log_predictive_density", "y", f"one label per row of X among "
                            f"the classes {list(estimator.classes_)}", y)
    index = np.searchsorted(estimator.classes_, y)
    with np.errstate(divide="ignore"):
        return np.log(proba[np.arange(len(y)), index])


def gaussian_draws_density(model, X, y, covariates, n_draws, random_state):
    """The Monte-Carlo mixture ``mean_s N(y | b_s + x' beta_s + z' gamma_s, sigma2_s)`` over
    ``n_draws`` draws of ``q`` (a fitted Gaussian regression with ``sample_posterior``)."""
    draws = model.sample_posterior(n_draws, random_state=random_state)
    log_density = draws_log_likelihood(model, draws, X, y, covariates)
    return logsumexp(log_density, axis=0) - np.log(n_draws)


def draws_log_likelihood(model, draws, X, y=None, covariates=None):
    """``log p(y_i | theta_s)`` of each row at each draw ``theta_s`` of ``q``.

    ``draws`` is a dict of ``model.sample_posterior``. A Gaussian regression (draws with
    ``"coef"``; the noise variance drawn, or the model's own when it is fixed, as for a
    linear BB-alpha model): ``N(y | b_s + x' beta_s + z' gamma_s, sigma2_s)``; a binary
    classifier: ``log sigmoid(+-(b_s + x' beta_s + z' gamma_s))``; a Gaussian mixture (no
    ``y``): the mixture density of ``x``. Returns an array of shape (n_draws, n_rows).
    """
    if hasattr(model, "_draws_log_likelihood"):  # the model's own (the mixture's)
        return model._draws_log_likelihood(draws, X)
    linear = _linear_predictor(model, draws, X, covariates)
    if hasattr(model, "classes_"):
        y = np.asarray(y)
        if y.shape != (linear.shape[1],) or not np.all(np.isin(y, model.classes_)):
            raise bad_parameter("draws_log_likelihood", "y", f"one label per row of X among "
                                f"the classes {list(model.classes_)}", y)
        sign = np.where(y == model.classes_[1], 1.0, -1.0)
        return -np.logaddexp(0.0, -sign * linear)
    y = check_targets("log_predictive_density", y, linear.shape[1])
    variance = _draws_noise(model, draws, len(linear))
    return -0.5 * (np.log(2.0 * np.pi * variance) + (y - linear) ** 2 / variance)


def draws_predictive(model, draws, X, covariates=None, random_state=None):
    """One new response per draw of ``q`` and row of ``X`` (n_draws, n_rows): ``y ~ N(b_s + x'
    beta_s + z' gamma_s, sigma2_s)`` for a Gaussian regression, the 0/1 indicator of
    ``classes_[1]`` for a binary classifier (the models of :func:`draws_log_likelihood`
    but the mixture)."""
    from scipy.special import expit
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    linear = _linear_predictor(model, draws, X, covariates)
    if hasattr(model, "classes_"):
        return (rng.random_sample(linear.shape) < expit(linear)).astype(np.int8)
    noise = np.sqrt(_draws_noise(model, draws, len(linear)))
    return linear + noise * rng.standard_normal(linear.shape)


def _linear_predictor(model, draws, X, covariates):
    """``b_s + x' beta_s + z' gamma_s`` (n_draws, n_rows) for draws with ``"coef"``."""
    from sklearn.utils.validation import validate_data

    from .linear_model._covariates import check_covariates

    name = type(model).__name__
    if "coef" not in draws or np.ndim(draws["coef"]) != 2:
        raise bad_parameter("draws_log_likelihood", "model", "a fitted regression or binary "
                            "classifier with coefficients, or a Gaussian mixture", name,
                            fix="A network's or a topic model's pointwise likelihood at draws "
                                "of q is not available here.")
    X = validate_data(model, X, dtype=np.float64, reset=False)
    Z = check_covariates(name, covariates, X.shape[0], getattr(model, "n_covariates_in_", 0))
    linear = draws["coef"] @ X.T + np.asarray(draws["intercept"])[:, None]
    if Z is not None:
        linear = linear + draws["covariate_coef"] @ Z.T
    return linear


def _draws_noise(model, draws, n_draws):
    """The drawn noise variances (n_draws, 1), or the model's fixed one."""
    if "noise_variance" in draws:
        return np.asarray(draws["noise_variance"], dtype=float)[:, None]
    return np.full((n_draws, 1), float(model.noise_variance_))


def make_log_predictive_scorer(n_draws=DEFAULT_DRAWS, random_state=0):
    """A scikit-learn scorer: the mean of :func:`log_predictive_density` over the rows.

    Usable as ``scoring=`` in ``GridSearchCV``, ``cross_val_score`` and
    :class:`~alphavb.model_selection.AlphaSelector`'s peers; larger is better. Covariates
    reach it through scikit-learn's metadata routing (``sklearn.set_config(
    enable_metadata_routing=True)`` and ``estimator.set_fit_request(covariates=True)``).

    Parameters
    ----------
    n_draws : int, default=1000
    random_state : int, RandomState or None, default=0

    Returns
    -------
    callable ``scorer(estimator, X, y=None, covariates=None) -> float``
    """

    def log_predictive_scorer(estimator, X, y=None, covariates=None):
        return float(np.mean(log_predictive_density(
            estimator, X, y, covariates=covariates, n_draws=n_draws,
            random_state=random_state)))

    return log_predictive_scorer


log_predictive_scorer = make_log_predictive_scorer()
