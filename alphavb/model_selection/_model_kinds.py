r"""What :class:`~alphavb.model_selection.AlphaSelector` needs of each kind of model, one
class per kind: the log loss of new rows under a fitted ``q`` (R-log: averaged over ``q``;
I-log: at the posterior mean), their log predictive density (cross-validation), the
parameters whose intervals calibration checks, and information matching.

* Gaussian regression (:class:`~alphavb.AlphaLinearRegression`,
  :class:`~alphavb.AlphaSpikeSlabRegression`): R-log in closed form,
  ``-E_q[log N(y | b + x' beta, sigma2)] = log(2 pi) / 2 - E_q[log 1/sigma2] / 2 +
  E_q[1/sigma2] ((y - yhat)^2 + Var_q(x' beta)) / 2``; I-log ``-log N(y | yhat, 1 /
  E_q[1/sigma2])``.
* Logistic regression (:class:`~alphavb.AlphaSpikeSlabClassifier`,
  :class:`~alphavb.AlphaLogisticRegression`, :class:`~alphavb.AlphaSuSiEClassifier`): with
  ``s = +-1`` the label and ``t = b + x' beta``, R-log ``E_q[log(1 + exp(-s t))]`` by
  ``DRAWS`` draws of ``q`` (``t`` is not normal under a spike-and-slab ``q``); I-log
  ``log(1 + exp(-s E_q[t]))``.
* Gaussian mixture (:class:`~alphavb.AlphaGaussianMixture`): a row is a point ``x``; R-log
  ``-E_q[log sum_k pi_k N(x | mu_k, Lambda_k^{-1})]`` by ``DRAWS`` draws of ``q``, I-log
  the same at the plug-in ``weights_``, ``means_``, ``precisions_`` (``E_q[Lambda_k]``).
* LDA (:class:`~alphavb.AlphaLDA`): a row is a document; its log loss has no closed form
  (``theta_d`` is integrated out), so both use minus the document's variational bound (its
  part of ``AlphaLDA.score``, an upper bound on the loss): R-log with
  ``E_q[log beta_kv]``, I-log with ``log E_q[beta_kv]``.
"""

import numpy as np
from scipy.special import digamma

from .._validation import bad_parameter, column_squares
from .._warnings import quietly

DRAWS = 200  # draws of q where the R-log loss or the CV density is a Monte Carlo average
DRAW_CHUNK = 25  # draws of a mixture's q evaluated together
# the advice when a first prefix leaves no row to predict (the linear model has its own)
MORE_ROWS = "The prequential loss needs more rows than its first prefix."


def gaussian_row_losses(tau, elt, residual, coef_variance, kind):
    """The log loss of new rows under ``q`` (R-log) or its plug-in (I-log): minus the
    expected Gaussian log-likelihood of one row, with ``E_q (y - x' beta)^2 = residual^2 +
    Var_q(x' beta)`` and ``E_q[log 1/sigma2]`` (R-log), or the plug-in ``1/sigma2 = tau``
    and no coefficient variance (I-log)."""
    from ..linear_model._base import expected_gaussian_loglik

    if kind == "safebayes":
        return -expected_gaussian_loglik(1, tau, elt, residual**2 + coef_variance)
    return -expected_gaussian_loglik(1, tau, np.log(tau), residual**2)


def coefficient_target(model):
    """Calibration's parameters for a regression or classifier: the coefficients of the
    alpha = 1 fit ``model``; for a spike-and-slab model only those it includes (PIP > 1/2),
    since the others' intervals hold the atom at 0 and cannot cover a posterior mean that
    is small but not 0."""
    target = {"coef": np.ravel(model.coef_)}
    pips = getattr(model, "inclusion_probabilities_", None)
    if pips is not None:
        target["included"] = np.asarray(pips) > 0.5
        if not target["included"].any():
            raise ValueError("AlphaSelector(method='calibrate'): the alpha = 1 fit includes "
                             "no variable (every inclusion probability <= 1/2), so no "
                             "coefficient is there to calibrate. Use method='safebayes'.")
    return target


def coefficient_estimates(model, target, level):
    """The intervals of ``model`` for the parameters of :func:`coefficient_target`."""
    from .._estimates import coefficient_estimates as all_coefficients

    values = all_coefficients(model, {"coef": target["coef"]}, level)
    keep = target.get("included", slice(None))
    return {name: np.asarray(values[name])[keep] for name in ("lower", "upper", "true")}


def _default_first(n, minimum):
    """The first prefix of refits: a tenth of the rows, at least ``minimum`` and 10."""
    return max(10, n // 10, minimum)


class _ModelKind:
    """What AlphaSelector asks of one kind of model: ``check_data``, ``first_prefix``,
    ``row_losses`` (R-log or I-log of new rows under a fit), ``log_predictive`` (CV),
    ``target`` and ``estimates`` (calibration; here the coefficients'), ``information``."""

    supervised = True
    exact = False

    def __init__(self, estimator):
        self.estimator = estimator

    def target(self, model, X):
        return coefficient_target(model)

    def estimates(self, model, target, level):
        return coefficient_estimates(model, target, level)

    @staticmethod
    def keeps_selections(model, target):
        """Whether ``model`` (a fit at some alpha) still includes every variable the alpha =
        1 fit includes (always, for a model that selects none): calibration only returns
        such an alpha, since a model that drops them has "covered" by collapsing to 0."""
        included = target.get("included")
        if included is None:
            return True
        return bool(np.all(np.asarray(model.inclusion_probabilities_)[included] > 0.5))


class GaussianRegressionKind(_ModelKind):
    """AlphaSpikeSlabRegression and AlphaSuSiE (its sigma2 a point estimate: no q(sigma2) to
    average over); :class:`LinearRegressionKind` for AlphaLinearRegression."""

    def check_data(self, X, y):
        from sklearn.utils.validation import check_X_y

        X, y = check_X_y(X, y, dtype=np.float64, y_numeric=True)
        column_squares("AlphaSelector", X, y)  # refused as the estimator's own fit refuses it
        return X, y

    def first_prefix(self, X, y, requested):
        """The first prefix of the prequential loss (None: this kind's default) and the
        advice given when it leaves no row to predict."""
        if requested is not None:
            return requested, MORE_ROWS
        n, d = X.shape
        # the linear model's first prefix with more rows than parameters: on fewer, a vague
        # noise prior lets alpha = 1 interpolate with sigma2 -> 0, and those rows' losses
        # (1e7 on 5 features) would decide the selection
        intercept = bool(self.estimator.get_params()["fit_intercept"])
        if self.exact:
            return d + 1 + intercept, ("With fewer rows than parameters pass min_prefix "
                                       "(e.g. 1) together with an informative noise_prior, "
                                       "as Grunwald & van Ommen's experiment does.")
        return _default_first(n, 0), (f"With {n} rows pass a smaller min_prefix (at least "
                                      "2: each prefix is fitted), or more rows.")

    def row_losses(self, model, X, y, kind, seed):
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
        variance = model._coef_variance_along(X - model._centring.X_offset)
        return gaussian_row_losses(tau, elt, residual, variance, kind)

    def log_predictive(self, model, X, y, seed):
        from ..metrics import log_predictive_density

        return log_predictive_density(model, X, y, n_draws=DRAWS, random_state=seed)

    def information(self, X, y):
        from ._information import information_alpha

        params = self.estimator.get_params()
        return information_alpha(X, y, params["fit_intercept"], params.get("noise_variance"))


class LinearRegressionKind(GaussianRegressionKind):
    """AlphaLinearRegression: a Gaussian regression whose prequential pass is exact (one
    conjugate update per row, no refits)."""

    exact = True


class FineMappingKind(GaussianRegressionKind):
    """AlphaSuSiE: its calibration aims at the credible sets, by a parametric bootstrap from
    the alpha = 1 fit with a background where the data give evidence for one, without one
    where not (:mod:`alphavb.linear_model._susie_calibration`), not at the coefficients'
    intervals."""

    # replicates per alpha scanned when n_bootstrap is None
    DEFAULT_REPLICATES = 10

    def check_data(self, X, y):
        """The rows the estimator fits: with its ``missing="drop"`` those whose ``y`` is
        known (the selection sees the rows the refit fits); with ``"raise"`` a NaN in ``y``
        is refused as the estimator's fit refuses it, naming ``missing``."""
        from ..linear_model._susie_sources import known_rows

        # getattr: a subclass whose __init__ leaves missing out has it, not in get_params
        X, y, _, _ = known_rows(type(self.estimator).__name__,
                                getattr(self.estimator, "missing", "raise"), X, y, None, None)
        return super().check_data(X, y)

    def calibrate(self, X, y, alphas, level, n_replicates, rng, on_fit, source=None):
        """The credible-set calibration's :class:`~alphavb.linear_model._susie_calibration.
        Calibration` (on the rows, or on a ``source`` of sufficient statistics)."""
        from ..linear_model._susie_calibration import calibrated_alpha

        generator = np.random.default_rng(rng.randint(2**31 - 1))
        return calibrated_alpha(self.estimator, X, y, alphas, level,
                                n_replicates or self.DEFAULT_REPLICATES, generator, on_fit,
                                source=source)

    def calibration_text(self, selector, settings, coverage, reached):
        """How a fitted ``selector`` chose alpha (its ``selection_text``; ``settings`` its
        parameters at that fit): the model the replicates came from, by the background's
        evidence, and the coverage found."""
        replicates = settings["n_bootstrap"] or self.DEFAULT_REPLICATES
        gain, threshold = selector.calibration_evidence_
        if gain > threshold:
            drawn = (f"the SuSiE-inf fit (the background raised the objective by {gain:.3g}, "
                     f"more than log(n)/2 = {threshold:.3g})")
        else:
            drawn = (f"the SuSiE fit without a background (the background changed the "
                     f"objective by {gain:.3g}, not more than log(n)/2 = {threshold:.3g})")
        chosen = ("the largest alpha whose credible sets show no evidence (a binomial test) "
                  "of covering less often than" if reached else
                  "no alpha of the grid gave credible sets that cover; the alpha of the "
                  "highest coverage, whose credible sets cover less often than")
        return (f"{chosen} {settings['level']:.3g} in {replicates} replicates drawn from "
                f"{drawn}; {coverage}")


class LogisticRegressionKind(_ModelKind):
    """AlphaSpikeSlabClassifier, AlphaLogisticRegression and AlphaSuSiEClassifier (binary
    labels)."""

    def check_data(self, X, y):
        from sklearn.utils.multiclass import type_of_target
        from sklearn.utils.validation import check_X_y

        X, y = check_X_y(X, y, dtype=None)
        X = np.asarray(X, dtype=np.float64)
        classes, counts = np.unique(y, return_counts=True)
        if type_of_target(y) != "binary" or len(classes) != 2:
            raise bad_parameter("AlphaSelector", "y", "two classes (binary labels)",
                                f"{len(classes)} class(es)")
        if counts.min() < 2:
            raise bad_parameter("AlphaSelector", "y", "two classes with at least 2 rows each",
                                f"{counts.min()} row of class "
                                f"{classes[np.argmin(counts)].tolist()!r}",
                                "A class of one row leaves every fit without it but one.")
        return X, y

    def first_prefix(self, X, y, requested):
        # a prefix needs both classes to be fitted
        both = int(np.flatnonzero(y != y[0])[0]) + 1
        if requested is None:
            return _default_first(len(y), both), MORE_ROWS
        if requested < both:
            raise bad_parameter("AlphaSelector", "min_prefix", "a first prefix with both "
                                f"classes (the first {both} rows in this order)", requested)
        return requested, MORE_ROWS

    @staticmethod
    def _signs_and_mean(model, X, y):
        sign = np.where(y == model.classes_[1], 1.0, -1.0)
        mean = X @ np.ravel(model.coef_) + float(np.ravel(model.intercept_)[0])
        return sign, mean

    def row_losses(self, model, X, y, kind, seed):
        sign, mean = self._signs_and_mean(model, X, y)
        if kind == "safebayes-ilog":
            return np.logaddexp(0.0, -sign * mean)
        draws = model.sample_posterior(DRAWS, random_state=seed)
        decision = draws["coef"] @ X.T + np.asarray(draws["intercept"])[:, None]
        return np.mean(np.logaddexp(0.0, -sign * decision), axis=0)

    def log_predictive(self, model, X, y, seed):
        from ..metrics import log_predictive_density

        return log_predictive_density(model, X, y, n_draws=DRAWS, random_state=seed)

    def information(self, X, y):
        from ._information import logistic_information_alpha

        positive = (y == np.unique(y)[1]).astype(float)
        return logistic_information_alpha(X, positive,
                                          self.estimator.get_params()["fit_intercept"])


class GaussianMixtureKind(_ModelKind):
    """AlphaGaussianMixture (a row is a point; no y)."""

    supervised = False

    def check_data(self, X, y):
        from sklearn.utils.validation import check_array

        return check_array(X, dtype=np.float64, ensure_min_samples=2), None

    def first_prefix(self, X, y, requested):
        n_components = self.estimator.get_params()["n_components"]
        if requested is not None:
            if requested < n_components:  # a prefix must hold a point per component
                raise bad_parameter("AlphaSelector", "min_prefix", "at least the mixture's "
                                    f"n_components ({n_components})", requested)
            return requested, MORE_ROWS
        return _default_first(len(X), 2 * n_components), MORE_ROWS

    def _log_density(self, model, X, weights, means, precisions):
        """The mixture density at parameters with leading axis r (see
        :func:`~alphavb.mixture._density.draws_log_density`)."""
        from ..mixture._density import draws_log_density

        return draws_log_density(model, X, weights, means, precisions)

    def row_losses(self, model, X, y, kind, seed):
        if kind == "safebayes-ilog":
            return -self._log_density(model, X, model.weights_[None], model.means_[None],
                                      model.precisions_[None])
        draws = model.sample_posterior(DRAWS, random_state=seed)
        total = np.zeros(X.shape[0])
        for start in range(0, DRAWS, DRAW_CHUNK):  # (chunk, n, K, p) at a time
            chunk = slice(start, start + DRAW_CHUNK)
            total += self._log_density(model, X, draws["weights"][chunk, None],
                                       draws["means"][chunk, None],
                                       draws["precisions"][chunk, None]).sum(axis=0)
        return -total / DRAWS

    def log_predictive(self, model, X, y, seed):
        from ..metrics import log_predictive_density

        return log_predictive_density(model, X)  # closed form: score_samples

    @staticmethod
    def used_components(model, n_samples):
        """The components the fit gives at least one expected row (``weights_ n >= 1``):
        the others (a Dirichlet process's spare components) carry no information."""
        return np.flatnonzero(model.weights_ * n_samples >= 1.0)

    def target(self, model, X):
        return {"means": model.means_[self.used_components(model, len(X))]}

    def estimates(self, model, target, level):
        from .._estimates import mixture_mean_estimates

        return mixture_mean_estimates(model, target, level)

    def information(self, X, y):

        from sklearn.base import clone
        from sklearn.exceptions import ConvergenceWarning

        from ._information import mixture_information_alpha

        with quietly(ConvergenceWarning):
            start = clone(self.estimator).set_params(alpha=1.0).fit(X)
        return mixture_information_alpha(start, X, self.used_components(start, len(X)))


class TopicModelKind(_ModelKind):
    """AlphaLDA (a row is a document of word counts; no y)."""

    supervised = False

    def check_data(self, X, y):
        import scipy.sparse as sp
        from sklearn.utils.validation import check_array

        X = check_array(X, accept_sparse="csr", dtype=np.float64, ensure_min_samples=2)
        return (sp.csr_matrix(X) if sp.issparse(X) else X), None

    def first_prefix(self, X, y, requested):
        return (_default_first(X.shape[0], 2) if requested is None else requested), MORE_ROWS

    def row_losses(self, model, X, y, kind, seed):
        from .._special import dirichlet_expected_log
        from ..topics._estep import document_bounds

        if kind == "safebayes":
            log_words = dirichlet_expected_log(np.asarray(model.components_, dtype=float))
        else:
            log_words = np.log(self._topic_word_means(model))
        return -document_bounds(log_words, model.doc_topic_prior_, X,
                                model.max_doc_update_iter, model.mean_change_tol)

    def log_predictive(self, model, X, y, seed):
        return -self.row_losses(model, X, y, "safebayes", seed)

    @staticmethod
    def _topic_word_means(model):
        """``E_q[beta_k]``: the rows of ``components_`` normalised."""
        components = np.asarray(model.components_, dtype=float)
        return components / components.sum(axis=1, keepdims=True)

    def target(self, model, X):
        return {"topic_word": self._topic_word_means(model)}

    def estimates(self, model, target, level):
        from .._estimates import topic_word_estimates

        return topic_word_estimates(model, target, level)

    def information(self, X, y):
        raise bad_parameter(
            "AlphaSelector", "estimator", "an estimator with a per-row log-likelihood for "
            "method='information'", "AlphaLDA", "A document's log-likelihood integrates its "
            "topic proportions out and has no closed form to differentiate; use "
            "method='safebayes' or 'calibrate'.")


# the model kinds by the name a model gives as its ``_model_kind``
KINDS = {"fine_mapping": FineMappingKind, "gaussian_regression": GaussianRegressionKind,
         "linear_regression": LinearRegressionKind,
         "logistic_regression": LogisticRegressionKind,
         "gaussian_mixture": GaussianMixtureKind, "topic_model": TopicModelKind}


def kind_of(estimator):
    """The model kind of an alphavb estimator (the one it names as ``_model_kind``), or a
    ValueError naming the estimators that have one."""
    kind = KINDS.get(getattr(estimator, "_model_kind", None))
    if kind is not None:
        return kind(estimator)
    from ..base import models_with

    names = [model.__name__ for model in models_with("_model_kind")]
    raise bad_parameter("AlphaSelector", "estimator", f"one of {names} (an alpha-VB "
                        "temperature in (0, 1])", type(estimator).__name__,
                        "AlphaSelector chooses alpha, the likelihood's temperature, of "
                        "these models (not a penalty that another estimator calls alpha).")
