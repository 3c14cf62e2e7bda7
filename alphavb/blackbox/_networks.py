"""What the Monte-Carlo BNN estimators share (:class:`~alphavb.BBAlphaRegressor`,
:class:`~alphavb.BBAlphaClassifier`, :class:`~alphavb.AADMRegressor`): the layer sizes and
the training budget, the base class that validates, trains (one fit or a stack of fits) and
predicts by averaging the network over draws, and the regressors' standardization and
predictive mixture.
"""

import numbers
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (
    Integer,
    Real,
    ValidatedParametersMixin,
    bad_parameter,
    column_squares,
    validate_params,
)
from ._mlp import mlp_forward
from ._training import (
    warn_if_not_converged,
)
from .energies import (
    gaussian_log_likelihood,
)

ROWS_PER_CHUNK = 1024  # rows evaluated at once at prediction time, to bound memory
# Adam steps of the default budget (n_epochs=None): the README's 50-unit BNN on boston
# split 0 and one on scikit-learn's diabetes data converge (tol=1e-4) after 34,020 and
# 24,420 steps; 20,000 stopped both before, with a ConvergenceWarning
DEFAULT_STEPS = 50_000
DTYPES = ("float64", "float32")  # the precisions training takes (dtype)


def layer_sizes(sizes):
    """Hidden-layer sizes (an int or a sequence of ints, checked by ``LayerSizes``) as a
    tuple."""
    return (int(sizes),) if isinstance(sizes, numbers.Integral) else tuple(int(s) for s in sizes)


def fit_generator(random_state):
    """The ``numpy.random.Generator`` of one fit, seeded from a scikit-learn
    ``random_state`` (None, an int or a RandomState)."""
    return np.random.default_rng(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def resolve_epochs(n_epochs, n_rows, batch_size, default_steps=DEFAULT_STEPS):
    """The epoch budget: ``n_epochs``, or (None) enough epochs for ``default_steps`` steps."""
    if n_epochs is not None:
        return n_epochs
    steps_per_epoch = -(-n_rows // min(batch_size, n_rows))
    return max(1, -(-default_steps // steps_per_epoch))


DIVERGENCE_ORDER_CONSTRAINTS = {"divergence_order": [Real(0, None)]}


class _MonteCarloNetwork(ValidatedParametersMixin, BaseEstimator):
    """Prediction by averaging an MLP over weight draws.

    Subclasses set ``layer_shapes_``, ``activation``, ``n_predict_samples`` and implement
    ``_weight_draws(n_draws, random_state)``; they take the divergence order as
    ``divergence_order``.
    """

    def _divergence_order(self):
        """The order of the alpha-divergence to fit."""
        return float(self.divergence_order)

    def _standardized(self, X, reset=False):
        """``X`` on the model's scale; ``reset`` (in fit) first learns the column scaling."""
        if reset:
            self.x_mean_, self.x_scale_ = _standardization(X, self.normalize)
        return (X - self.x_mean_) / self.x_scale_

    def _network_outputs(self, X, n_draws=None, random_state=None):
        """Outputs (S, n, n_outputs) for new rows ``X``, checked and scaled as in fit."""
        check_is_fitted(self, "layer_shapes_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._outputs(self._standardized(X), n_draws, random_state)

    def _outputs(self, X_model, n_draws=None, random_state=None):
        """Network outputs (S, n, n_outputs) on the model's scale for S draws from ``q``."""
        weights = self._weight_draws(n_draws or self.n_predict_samples, random_state)
        chunks = [self._forward(weights, X_model[start:start + ROWS_PER_CHUNK])
                  for start in range(0, X_model.shape[0], ROWS_PER_CHUNK)]
        return np.concatenate(chunks, axis=1)

    def _prediction_generator(self, random_state=None):
        """The generator of prediction-time draws: the seed fixed at fit time (repeatable
        predictions), or ``random_state`` when given."""
        return (np.random.default_rng(self._predict_seed) if random_state is None
                else check_random_state(random_state))

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws of the network's weights from the fitted ``q``.

        Parameters
        ----------
        n_samples : int, default=1
        random_state : int, RandomState or None, default=None

        Returns
        -------
        dict
            ``"weights"``: ndarray of shape (n_samples, n_weights), every weight and bias of
            the MLP on the standardized scale, in the layout of ``layer_shapes_`` (layer by
            layer, each a (n_in, n_out) matrix then n_out biases).
        """
        check_is_fitted(self, "layer_shapes_")
        return {"weights": self._weight_draws(n_samples, random_state)}

    def _forward(self, weights, X_model):
        """The network's outputs (S, n, n_outputs) for weight draws (S, P)."""
        return mlp_forward(weights, X_model, self.layer_shapes_, self.activation)

    def _set_training_results(self, result, index, n_epochs_budget):
        """The histories and convergence of fit ``index`` of a training result."""
        history = result.history[index]
        self.energy_history_ = history[:, 0]
        self.n_iter_ = int(result.n_epochs[index])
        self.n_steps_ = int(result.n_steps[index])
        self.converged_ = bool(result.converged[index])
        if result.best_score is not None:
            self.best_validation_score_ = float(result.best_score[index])
        warn_if_not_converged(self, "n_epochs", n_epochs_budget, self.tol)
        return history


@dataclass
class _PreparedFit:
    """One estimator's checked training data and settings, ready to be stacked."""

    X: np.ndarray
    targets: np.ndarray
    validation: tuple
    n_outputs: int
    order: float  # the divergence order
    noise: float  # sigma^2 on the model's scale (start or fixed value), None for classifiers
    rng: np.random.Generator
    n_epochs: int
    key: tuple  # fits with equal keys can be trained as one stack


def _mixture_log_density(log_lik):
    """``lse_s log_lik[s, i] - log S`` per row ``i``: the log density of the Monte-Carlo
    mixture predictive over S draws."""
    return logsumexp(log_lik, axis=0) - np.log(log_lik.shape[0])


def _standardization(values, enabled):
    """Mean and scale of the columns (scale 1 for constant columns, or when disabled)."""
    if not enabled:
        return np.zeros(values.shape[1:]), np.ones(values.shape[1:])
    scale = values.std(axis=0)
    return values.mean(axis=0), np.where(scale > 0, scale, 1.0)


class _BNNRegressorMixin(RegressorMixin):
    """Gaussian-likelihood regression with a Monte-Carlo predictive over network draws.

    Used with :class:`_MonteCarloNetwork`; the subclass stores ``_model_noise`` (``sigma^2``
    on the standardized scale) when it fits.
    """

    def _regression_data(self, X, y, default_fraction=0.1):
        """Checked, standardized ``(X, y)`` and ``sigma^2`` on that scale: ``noise_variance``
        rescaled, or ``default_fraction * var(y)`` when it is ``None``."""
        if np.asarray(y).dtype.kind in "USV":  # y_numeric converts only object arrays
            raise bad_parameter(type(self).__name__, "y", "numbers (a regression target)",
                                f"{np.asarray(y).dtype} values",
                                "Encode the target as numbers, or use BBAlphaClassifier.")
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        column_squares(type(self).__name__, X, y)
        self.y_mean_, self.y_scale_ = map(float, _standardization(y, self.normalize))
        y_model = (y - self.y_mean_) / self.y_scale_
        if self.noise_variance is None:
            noise = default_fraction * max(float(np.var(y_model)), 1e-12)
        else:
            noise = float(self.noise_variance) / self.y_scale_**2
        return self._standardized(X, reset=True), y_model, noise

    _likelihood = "gaussian"

    @property
    def noise_variance_(self):
        check_is_fitted(self, "layer_shapes_")
        return self._model_noise * self.y_scale_**2

    def _log_likelihood(self, outputs, y, noise_variance):
        return gaussian_log_likelihood(outputs[..., 0], y, noise_variance)

    def _function_draws(self, X, n_draws=None, random_state=None):
        """``f_w(x)`` on the scale of ``y`` for ``S`` draws of ``w``: shape (S, n)."""
        outputs = self._network_outputs(X, n_draws, random_state)
        return outputs[..., 0] * self.y_scale_ + self.y_mean_

    def predict(self, X, return_std=False):
        """Mean of the Monte-Carlo predictive; with ``return_std``, also its standard deviation
        ``sqrt(var_s f_s(x) + sigma^2)``."""
        draws = self._function_draws(X)
        mean = draws.mean(axis=0)
        if not return_std:
            return mean
        return mean, np.sqrt(draws.var(axis=0) + self.noise_variance_)

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_predictive(self, X, n_samples=100, random_state=None):
        """Draws ``y ~ N(f_w(x), sigma^2)``, ``w ~ q``: ndarray of shape (n_samples, n_rows)."""
        rng = check_random_state(random_state)
        draws = self._function_draws(X, n_samples, rng)
        return draws + np.sqrt(self.noise_variance_) * rng.standard_normal(draws.shape)

    def log_likelihood(self, X, y):
        """Mean test log-likelihood of the Monte-Carlo mixture predictive on the scale of y:
        ``mean_i [lse_s log N(y_i; f_s(x_i), sigma^2) - log S]``."""
        return float(np.mean(self._row_log_predictive(X, y)))

    def _row_log_predictive(self, X, y, n_draws=None, random_state=None):
        """Per row, the log density of the Monte-Carlo mixture predictive at ``y``, over the
        network's own ``n_predict_samples`` draws (``n_draws`` and ``random_state``, which
        other models' draws take, are not used)."""
        draws = self._function_draws(X)
        y = _check_targets(type(self).__name__, y, draws.shape[1])
        return _mixture_log_density(gaussian_log_likelihood(draws, y, self.noise_variance_))


def _check_targets(owner, y, n_rows):
    y = np.asarray(y)
    if y.shape != (n_rows,) or not np.issubdtype(y.dtype, np.number) or not np.all(
            np.isfinite(y)):
        raise ValueError(f"{owner}: y must be a finite numeric array of shape ({n_rows},), "
                         f"one value per row of X; got shape {y.shape}.")
    return y.astype(float)
