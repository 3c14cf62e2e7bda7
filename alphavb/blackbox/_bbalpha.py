"""BB-alpha estimators: Bayesian neural networks and probit/softmax regression (spec §7).

``BBAlphaRegressor`` and ``BBAlphaClassifier`` fit a factorized Gaussian ``q`` over the
weights of an MLP (``hidden_layer_sizes=()`` is the linear model) by minimizing the
BB-alpha energy of :mod:`alphavb.blackbox.energies` with Adam on mini-batches, the
gradient coming from autograd. Predictions average the network over draws from ``q``.
"""

import numbers

import autograd.numpy as anp
import numpy as np
from autograd import value_and_grad
from scipy.special import log_ndtr, logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from tqdm.auto import tqdm

from ..base import _bad_parameter, check_positive_int, check_scalar_in_range
from ._mlp import ACTIVATIONS, mlp_forward, mlp_layer_shapes, mlp_n_weights
from ._optim import Adam
from .energies import (
    ENERGIES,
    bbalpha_energy,
    gaussian_log_likelihood,
    probit_log_likelihood,
    softmax_log_likelihood,
)

INITIAL_LOG_VARIANCE = -10.0  # spec §7 and the BB-alpha paper: q starts nearly a point mass
INITIAL_MEAN_SCALE = 0.1
ROWS_PER_CHUNK = 1024  # rows evaluated at once at prediction time, to bound memory


def check_layer_sizes(owner, name, sizes):
    """``sizes`` as a tuple of ints >= 1 (an int is one layer, ``()`` no hidden layer)."""
    if isinstance(sizes, numbers.Integral) and not isinstance(sizes, bool):
        sizes = (sizes,)
    try:
        valid = all(isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 1
                    for s in sizes)
    except TypeError:
        valid = False
    if not valid:
        raise _bad_parameter(owner, name, "a tuple of ints >= 1 (() for no hidden layer)",
                             sizes)
    return tuple(int(s) for s in sizes)


def check_activation(owner, activation):
    if activation not in ACTIVATIONS:
        raise _bad_parameter(owner, "activation", f"one of {tuple(ACTIVATIONS)}", activation)


def check_finite_step(estimator, epoch, value, gradient):
    """Refuse a non-finite objective or gradient with one error that says what to do."""
    if not (np.isfinite(value) and np.all(np.isfinite(gradient))):
        raise FloatingPointError(
            f"{type(estimator).__name__}: the objective or its gradient is not finite at epoch "
            f"{epoch + 1}; lower learning_rate (now {estimator.learning_rate}) or standardize "
            "the data (normalize=True).")


class _MonteCarloNetwork(BaseEstimator):
    """Prediction by averaging an MLP over weight draws.

    Subclasses set ``layer_shapes_``, ``activation``, ``n_predict_samples`` and implement
    ``_weight_draws(n_draws, random_state)``.
    """

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
        chunks = [mlp_forward(weights, X_model[start:start + ROWS_PER_CHUNK],
                              self.layer_shapes_, self.activation)
                  for start in range(0, X_model.shape[0], ROWS_PER_CHUNK)]
        return np.concatenate(chunks, axis=1)


class _BBAlphaBase(_MonteCarloNetwork):
    """Shared fitting loop; subclasses define the targets and the likelihood."""

    def _check_parameters(self):
        owner = type(self).__name__
        alpha = check_scalar_in_range(
            owner, "alpha", self.alpha, 0.0, None, low_open=False,
            fix="alpha is the divergence order: 0 is VB, 0.5 the paper's choice, 1 EP-like.")
        if self.energy not in ENERGIES:
            raise _bad_parameter(owner, "energy", f"one of {ENERGIES}", self.energy)
        sizes = check_layer_sizes(owner, "hidden_layer_sizes", self.hidden_layer_sizes)
        check_activation(owner, self.activation)
        for name in ("n_mc_samples", "batch_size", "n_epochs", "n_predict_samples",
                     "n_iter_no_change"):
            check_positive_int(owner, name, getattr(self, name))
        check_scalar_in_range(owner, "learning_rate", self.learning_rate, 0.0, None,
                              low_open=True)
        check_scalar_in_range(owner, "prior_variance", self.prior_variance, 0.0, None,
                              low_open=True)
        check_scalar_in_range(owner, "validation_fraction", self.validation_fraction, 0.0, 1.0,
                              low_open=True, high_open=True)
        return alpha, sizes

    # -- fitting -------------------------------------------------------------------------

    def _fit(self, X, targets, n_outputs, initial_noise_variance=None):
        """Minimize the energy; ``targets`` are already on the model's (standardized) scale."""
        alpha, hidden = self._check_parameters()
        n_samples = X.shape[0]
        rng = check_random_state(self.random_state)
        validation = None
        if self.early_stopping:
            order = rng.permutation(n_samples)
            n_valid = max(1, round(self.validation_fraction * n_samples))
            if n_samples - n_valid < 1:
                raise ValueError(f"early_stopping needs at least 2 samples, got {n_samples}.")
            validation = (X[order[:n_valid]], targets[order[:n_valid]])
            X, targets = X[order[n_valid:]], targets[order[n_valid:]]
            n_samples = X.shape[0]
        if self.energy == "exact" and alpha > n_samples:
            raise _bad_parameter(type(self).__name__, "alpha", f"<= n_samples={n_samples} for "
                                 "the exact energy (the cavity is no longer a Gaussian)", alpha,
                                 "Use energy='reparametrized' or more data.")
        self.layer_shapes_ = mlp_layer_shapes(X.shape[1], hidden, n_outputs)
        n_weights = mlp_n_weights(self.layer_shapes_)
        learn_noise = initial_noise_variance is not None
        theta = np.concatenate([
            INITIAL_MEAN_SCALE * rng.standard_normal(n_weights),
            np.full(n_weights, INITIAL_LOG_VARIANCE),
            [np.log(initial_noise_variance)] if learn_noise else [],
            [np.log(self.prior_variance)] if self.learn_prior_variance else [],
        ])
        self._learn_noise = learn_noise

        def energy(theta, X_batch, target_batch, eps):
            q_params, noise_variance, prior_variance = self._unpack(theta, n_weights)

            def log_likelihood(weights):
                outputs = mlp_forward(weights, X_batch, self.layer_shapes_, self.activation)
                return self._log_likelihood(outputs, target_batch, noise_variance)

            return bbalpha_energy(q_params, log_likelihood, eps, n_samples, alpha,
                                  prior_variance, self.energy)

        energy_and_gradient = value_and_grad(energy)
        optimizer = Adam(self.learning_rate)
        batch_size = min(self.batch_size, n_samples)
        history, best, n_bad_epochs = [], (-np.inf, theta), 0
        self._predict_seed = int(rng.randint(np.iinfo(np.int32).max))
        epochs = tqdm(range(self.n_epochs), disable=not self.verbose, desc=type(self).__name__)
        for epoch in epochs:
            order = rng.permutation(n_samples)
            total = 0.0
            for start in range(0, n_samples, batch_size):
                rows = order[start:start + batch_size]
                eps = rng.standard_normal((self.n_mc_samples, n_weights))
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                    # an overflow is reported below, as one error that says what to do
                    value, gradient = energy_and_gradient(theta, X[rows], targets[rows], eps)
                check_finite_step(self, epoch, value, gradient)
                theta = optimizer.step(theta, gradient)
                total += value * len(rows)
            history.append(total / n_samples)
            epochs.set_postfix(energy=f"{history[-1]:.4g}", refresh=False)
            if validation is not None:
                self._store(theta, n_weights)
                score = self._mean_log_predictive(self._outputs(validation[0]), validation[1])
                if score > best[0]:
                    best, n_bad_epochs = (score, theta), 0
                else:
                    n_bad_epochs += 1
                    if n_bad_epochs >= self.n_iter_no_change:
                        break
        if validation is not None:
            theta = best[1]
            self.best_validation_score_ = best[0]
        self._store(theta, n_weights)
        self.energy_history_ = np.array(history)
        self.n_iter_ = len(history)
        self.n_steps_ = optimizer.n_steps
        return self

    def _unpack(self, theta, n_weights):
        """``(q_params, noise_variance, prior_variance)`` from the flat vector."""
        position = 2 * n_weights
        noise_variance = getattr(self, "_fixed_noise", None)
        if self._learn_noise:
            noise_variance = anp.exp(theta[position])
            position += 1
        prior_variance = (anp.exp(theta[position]) if self.learn_prior_variance
                          else self.prior_variance)
        return theta[:2 * n_weights], noise_variance, prior_variance

    def _store(self, theta, n_weights):
        q_params, noise_variance, prior_variance = self._unpack(theta, n_weights)
        self.theta_ = theta
        self.posterior_mean_ = q_params[:n_weights].copy()
        self.posterior_var_ = np.exp(q_params[n_weights:])
        self.prior_variance_ = float(prior_variance)
        self._model_noise = None if noise_variance is None else float(noise_variance)

    # -- prediction ----------------------------------------------------------------------

    def _weight_draws(self, n_draws, random_state=None):
        rng = check_random_state(self._predict_seed if random_state is None else random_state)
        eps = rng.standard_normal((n_draws, self.posterior_mean_.size))
        return self.posterior_mean_ + np.sqrt(self.posterior_var_) * eps


_COMMON_PARAMETERS = """
    energy : {"exact", "reparametrized"}, default="exact"
        ``"exact"`` is the BB-alpha energy with the cavity (spec §7); ``"reparametrized"``
        draws from ``q`` instead (Li & Gal 2017), valid when ``alpha / n_samples -> 0``.
    n_mc_samples : int, default=10
        Weight draws ``K`` per mini-batch for the energy.
    batch_size : int, default=32
    n_epochs : int, default=500
    learning_rate : float, default=1e-3
        Adam step size.
    prior_variance : float, default=1.0
        ``v0`` of the prior ``N(0, v0)`` on every weight and bias (the starting value when
        ``learn_prior_variance=True``).
    learn_prior_variance : bool, default=False
        Minimize the energy over ``log v0`` too.
    normalize : bool, default=True
        Standardize the features (and, for the regressor, the target) on the training set;
        ``posterior_mean_`` then refers to the standardized scale.
    n_predict_samples : int, default=100
        Weight draws ``S`` averaged at prediction time (with a seed fixed at fit time, so
        predictions are repeatable).
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the training data, stop after
        ``n_iter_no_change`` epochs without a better mean validation log-likelihood and keep
        the best epoch's ``q``.
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=10
    random_state : int, RandomState or None, default=None
        Seeds the initial means, mini-batches and Monte-Carlo draws.
    verbose : bool, default=False
        Show a progress bar over epochs (tqdm).
"""

_COMMON_ATTRIBUTES = """
    posterior_mean_, posterior_var_ : ndarray of shape (n_weights,)
        Means and variances of ``q``, layer by layer: the ``(n_in, n_out)`` weight matrix in
        row-major order, then the ``n_out`` biases (:mod:`alphavb.blackbox._mlp`).
    prior_variance_ : float
    layer_shapes_ : list of (n_in, n_out)
    energy_history_ : ndarray of shape (n_iter_,)
        The mean over each epoch's mini-batches of the energy estimate.
    n_iter_ : int
        Epochs run.
    n_steps_ : int
        Adam steps taken.
    best_validation_score_ : float
        With ``early_stopping`` only.
    n_features_in_ : int
"""


def _mean_mixture_log_density(log_lik):
    """``mean_i [lse_s log_lik[s, i] - log S]``: the mean log density of the Monte-Carlo
    mixture predictive over S draws (spec §7)."""
    return float(np.mean(logsumexp(log_lik, axis=0) - np.log(log_lik.shape[0])))


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

    def _regression_data(self, X, y, noise_fix):
        """Checked, standardized ``(X, y)`` and ``sigma^2`` on that scale: ``noise_variance``
        rescaled, or ``0.1 var(y)`` when it is ``None``."""
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        self.y_mean_, self.y_scale_ = map(float, _standardization(y, self.normalize))
        y_model = (y - self.y_mean_) / self.y_scale_
        if self.noise_variance is None:
            noise = 0.1 * max(float(np.var(y_model)), 1e-12)
        else:
            noise = check_scalar_in_range(type(self).__name__, "noise_variance",
                                          self.noise_variance, 0.0, None, low_open=True,
                                          fix=noise_fix) / self.y_scale_**2
        return self._standardized(X, reset=True), y_model, noise

    @property
    def noise_variance_(self):
        check_is_fitted(self, "layer_shapes_")
        return self._model_noise * self.y_scale_**2

    def _log_likelihood(self, outputs, y, noise_variance):
        return gaussian_log_likelihood(outputs[..., 0], y, noise_variance)

    def _mean_log_predictive(self, outputs, y_model):
        return _mean_mixture_log_density(
            gaussian_log_likelihood(outputs[..., 0], y_model, self._model_noise))

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

    def sample_predictive(self, X, n_samples=100, random_state=None):
        """Draws ``y ~ N(f_w(x), sigma^2)``, ``w ~ q``: ndarray of shape (n_samples, n_rows)."""
        n_samples = check_positive_int(type(self).__name__, "n_samples", n_samples)
        rng = check_random_state(random_state)
        draws = self._function_draws(X, n_samples, rng)
        return draws + np.sqrt(self.noise_variance_) * rng.standard_normal(draws.shape)

    def log_likelihood(self, X, y):
        """Mean test log-likelihood of the Monte-Carlo mixture predictive on the scale of y:
        ``mean_i [lse_s log N(y_i; f_s(x_i), sigma^2) - log S]`` (spec §7)."""
        draws = self._function_draws(X)
        y = _check_targets(type(self).__name__, y, draws.shape[1])
        return _mean_mixture_log_density(gaussian_log_likelihood(draws, y,
                                                                 self.noise_variance_))


class BBAlphaRegressor(_BNNRegressorMixin, _BBAlphaBase):
    __doc__ = f"""Bayesian neural-network regression by black-box alpha (BB-alpha).

    Model ``y = f_w(x) + N(0, sigma^2)`` with an MLP ``f_w`` and the prior ``N(0, v0)`` on
    every weight; ``q(w)`` is a factorized Gaussian fitted by minimizing the BB-alpha energy
    (Hernández-Lobato et al. 2016, eq. 12; spec §7) with Adam. ``hidden_layer_sizes=()`` is
    Bayesian linear regression.

    Parameters
    ----------
    alpha : float, default=0.5
        Order of the alpha-divergence, ``alpha >= 0``: ``0`` is VB (computed as the limit),
        ``1`` is EP-like.
    hidden_layer_sizes : tuple of int, default=(50,)
    activation : {{"relu", "tanh", "logistic", "identity"}}, default="relu"
    {_COMMON_PARAMETERS}
    noise_variance : float or None, default=None
        ``sigma^2`` on the scale of ``y``; ``None`` learns it (starting at ``0.1 var(y)``).

    Attributes
    ----------
    {_COMMON_ATTRIBUTES}
    noise_variance_ : float
        ``sigma^2`` on the scale of ``y``.
    """

    def __init__(self, alpha=0.5, hidden_layer_sizes=(50,), activation="relu", energy="exact",
                 n_mc_samples=10, batch_size=32, n_epochs=500, learning_rate=1e-3,
                 prior_variance=1.0, learn_prior_variance=False, noise_variance=None,
                 normalize=True, n_predict_samples=100, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=10, random_state=None,
                 verbose=False):
        self.alpha = alpha
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.energy = energy
        self.n_mc_samples = n_mc_samples
        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.prior_variance = prior_variance
        self.learn_prior_variance = learn_prior_variance
        self.noise_variance = noise_variance
        self.normalize = normalize
        self.n_predict_samples = n_predict_samples
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y):
        """Fit ``q`` to the training data ``X`` (n_samples, n_features) and ``y`` (n_samples,)."""
        X_model, y_model, noise = self._regression_data(X, y, "Or pass None to learn it.")
        initial_noise = None
        if self.noise_variance is None:
            initial_noise = noise
        else:
            self._fixed_noise = noise
        return self._fit(X_model, y_model, 1, initial_noise)


def _check_targets(owner, y, n_rows):
    y = np.asarray(y)
    if y.shape != (n_rows,) or not np.issubdtype(y.dtype, np.number) or not np.all(
            np.isfinite(y)):
        raise ValueError(f"{owner}: y must be a finite numeric array of shape ({n_rows},), "
                         f"one value per row of X; got shape {y.shape}.")
    return y.astype(float)


LINKS = ("probit", "softmax")


class BBAlphaClassifier(ClassifierMixin, _BBAlphaBase):
    __doc__ = f"""Bayesian probit / softmax classification (or a classifier BNN) by BB-alpha.

    ``link="probit"``: ``p(y = +1 | x, w) = Phi(f_w(x))`` for two classes; with
    ``hidden_layer_sizes=()`` this is the Bayesian probit regression of the BB-alpha paper
    (Hernández-Lobato et al. 2016, Sec. 5.1). ``link="softmax"``: a categorical likelihood
    over ``C`` classes. ``q(w)`` is a factorized Gaussian fitted by minimizing the BB-alpha
    energy (spec §7).

    Parameters
    ----------
    alpha : float, default=0.5
        Order of the alpha-divergence, ``alpha >= 0`` (0 is VB).
    hidden_layer_sizes : tuple of int, default=()
    link : {{"probit", "softmax"}}, default="probit"
    activation : {{"relu", "tanh", "logistic", "identity"}}, default="relu"
    {_COMMON_PARAMETERS}

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    {_COMMON_ATTRIBUTES}

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from alphavb import BBAlphaClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> probit = BBAlphaClassifier(alpha=0.5, n_epochs=10, learning_rate=0.01, random_state=0)
    >>> print(round(probit.fit(X, y).score(X, y), 2), probit.posterior_mean_.shape)
    0.98 (31,)
    """

    def __init__(self, alpha=0.5, hidden_layer_sizes=(), link="probit", activation="relu",
                 energy="exact", n_mc_samples=10, batch_size=32, n_epochs=500,
                 learning_rate=1e-3, prior_variance=1.0, learn_prior_variance=False,
                 normalize=True, n_predict_samples=100, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=10, random_state=None,
                 verbose=False):
        self.alpha = alpha
        self.hidden_layer_sizes = hidden_layer_sizes
        self.link = link
        self.activation = activation
        self.energy = energy
        self.n_mc_samples = n_mc_samples
        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.prior_variance = prior_variance
        self.learn_prior_variance = learn_prior_variance
        self.normalize = normalize
        self.n_predict_samples = n_predict_samples
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self.link != "probit"
        return tags

    def fit(self, X, y):
        """Fit ``q`` to ``X`` (n_samples, n_features) and the class labels ``y``."""
        owner = type(self).__name__
        if self.link not in LINKS:
            raise _bad_parameter(owner, "link", f"one of {LINKS}", self.link)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, labels = np.unique(y, return_inverse=True)
        n_classes = len(self.classes_)
        if n_classes < 2:
            raise ValueError(f"{owner} needs samples of at least 2 classes in y; got one "
                             f"class, {self.classes_[0]!r}.")
        if self.link == "probit" and n_classes > 2:
            raise ValueError(f"Only binary classification is supported with link='probit': y "
                             f"has {n_classes} classes. Set link='softmax' (the 'link' "
                             f"parameter of {owner}) for more than two.")
        return self._fit(self._standardized(X, reset=True), self._encode(labels),
                         1 if self.link == "probit" else n_classes)

    def _encode(self, labels):
        """Targets on the model's scale: signs for probit, one-hot rows for softmax."""
        if self.link == "probit":
            return 2.0 * labels - 1.0
        return np.eye(len(self.classes_))[labels]

    def _log_likelihood(self, outputs, target, noise_variance):
        if self.link == "probit":
            return probit_log_likelihood(outputs[..., 0], target)
        return softmax_log_likelihood(outputs, target)

    def _mean_log_predictive(self, outputs, target):
        if self.link == "probit":
            log_lik = log_ndtr(target * outputs[..., 0])
        else:
            log_lik = np.sum(outputs * target, axis=-1) - logsumexp(outputs, axis=-1)
        return _mean_mixture_log_density(log_lik)

    def predict_proba(self, X):
        """Monte-Carlo predictive class probabilities, shape (n_rows, n_classes)."""
        outputs = self._network_outputs(X)
        if self.link == "probit":
            positive = np.exp(log_ndtr(outputs[..., 0])).mean(axis=0)
            return np.column_stack([1.0 - positive, positive])
        log_prob = outputs - logsumexp(outputs, axis=-1, keepdims=True)
        return np.exp(log_prob).mean(axis=0)

    def predict(self, X):
        """The class of highest predictive probability."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def log_likelihood(self, X, y):
        """Mean test log-likelihood ``mean_i log p(y_i | x_i, D)`` of the Monte-Carlo
        predictive."""
        outputs = self._network_outputs(X)
        y = np.asarray(y)
        if y.shape != (outputs.shape[1],):
            raise ValueError(f"{type(self).__name__}: y must have shape ({outputs.shape[1]},), "
                             f"one label per row of X; got shape {y.shape}.")
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(f"{type(self).__name__}: y holds labels not seen in fit, e.g. "
                             f"{y[unknown][0]!r}; known classes are {list(self.classes_)}.")
        return self._mean_log_predictive(outputs, self._encode(np.searchsorted(self.classes_,
                                                                                y)))
