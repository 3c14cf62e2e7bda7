"""BB-alpha estimators: Bayesian neural networks and probit/softmax regression fitted by
black-box alpha (Hernández-Lobato et al. 2016).

``BBAlphaRegressor`` and ``BBAlphaClassifier`` fit a factorized Gaussian ``q`` over the
weights of an MLP (``hidden_layer_sizes=()`` is the linear model) by minimizing the
BB-alpha energy of :mod:`alphavb.blackbox.energies` with Adam on mini-batches, the
gradient coming from autograd, in the training loop of :mod:`alphavb.blackbox._training`.
Predictions average the network over draws from ``q``.

The objective is built by :func:`make_bbalpha_objective` as pure functions of the
parameters of a stack of fits (:func:`~alphavb.blackbox.fit_stacked` trains several fits
of one architecture together; ``fit`` is a stack of one).
"""

from typing import ClassVar

import numpy as np
from scipy.special import log_ndtr, logsumexp
from sklearn.base import ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from .._validation import (
    Boolean,
    Integer,
    LayerSizes,
    Options,
    RandomState,
    Real,
    bad_parameter,
    validate_params,
)
from ._mlp import ACTIVATIONS, mlp_forward, mlp_layer_shapes, mlp_n_weights
from ._networks import (
    DIVERGENCE_ORDER_CONSTRAINTS,
    DTYPES,
    _BNNRegressorMixin,
    _mixture_log_density,
    _MonteCarloNetwork,
    _PreparedFit,
    fit_generator,
    layer_sizes,
    resolve_epochs,
)
from ._training import (
    Objective,
    Schedule,
    train,
)
from .energies import (
    ENERGIES,
    bbalpha_energy_and_gradient,
    probit_log_likelihood,
    softmax_log_likelihood,
)

INITIAL_LOG_VARIANCE = -10.0  # the BB-alpha paper: q starts nearly a point mass
INITIAL_MEAN_SCALE = 0.1


def make_bbalpha_objective(likelihood, layer_shapes, activation, n_mc_samples, n_total,
                           alpha, energy, noise, prior_variance, learn_noise, learn_prior):
    """The BB-alpha energy of a stack of ``M`` fits as pure functions
    (Hernández-Lobato et al. 2016, eq. 12; :mod:`alphavb.blackbox.energies`).

    ``params`` is ``[means (M, P), log-variances (M, P)]``, then ``log sigma^2`` (M,) when
    ``learn_noise`` and ``log v0`` (M,) when ``learn_prior``. The energy and its gradient
    come from :func:`~alphavb.blackbox.energies.bbalpha_energy_and_gradient` (derived by
    hand, equal to autograd's gradient of
    :func:`~alphavb.blackbox.energies.bbalpha_energy`).

    Parameters
    ----------
    likelihood : {"gaussian", "probit", "softmax"}
    layer_shapes, activation : the network's
    n_mc_samples : int
        Draws ``K`` per step.
    n_total : int
        Training rows ``N`` of every fit.
    alpha : ndarray of shape (M,)
        Divergence orders (zeros give the VB energy).
    energy : {"exact", "reparametrized"}
    noise, prior_variance : ndarray of shape (M,)
        Fixed values (or unused when learned).
    learn_noise, learn_prior : bool

    Returns
    -------
    objective : Objective
    unpack : callable
        ``unpack(params) -> (means, log-variances, sigma^2 (M,), v0 (M,))``.
    """
    n_weights = mlp_n_weights(layer_shapes)

    def unpack(params):
        mean, log_variance, *scales = params
        noise_variance = np.exp(scales.pop(0)) if learn_noise else noise
        prior = np.exp(scales.pop(0)) if learn_prior else prior_variance
        return mean, log_variance, noise_variance, prior

    def draw(rng, n_rows):
        return (rng.standard_normal((n_mc_samples, n_weights)),)

    def value_and_grad(params, adversary, batch, draws, kl_weight):
        mean, log_variance, noise_variance, prior = unpack(params)
        value, (grad_mean, grad_log_variance, grad_prior, grad_noise) = \
            bbalpha_energy_and_gradient(mean, log_variance, prior, noise_variance, draws[0],
                                        batch[0], batch[1], alpha, n_total, energy,
                                        layer_shapes, activation, likelihood)
        gradients = [grad_mean, grad_log_variance]
        if learn_noise:  # d/d log s = s d/ds
            gradients.append(grad_noise * noise_variance)
        if learn_prior:
            gradients.append(grad_prior * prior)
        return value[:, None], gradients

    return Objective(draw, value_and_grad), unpack


class _BBAlphaBase(_MonteCarloNetwork):
    """Shared fitting; subclasses define the targets and the likelihood."""

    _parameter_constraints: ClassVar[dict] = {
        **DIVERGENCE_ORDER_CONSTRAINTS,
        "hidden_layer_sizes": [LayerSizes()],
        "activation": [Options(*ACTIVATIONS)],
        "energy": [Options(*ENERGIES)],
        "n_mc_samples": [Integer(1, None)],
        "batch_size": [Integer(1, None)],
        "n_epochs": [None, Integer(1, None)],
        "learning_rate": [Real(0, None, closed="neither")],
        "tol": [None, Real(0, None)],
        "n_iter_no_change": [Integer(1, None)],
        "n_lr_decays": [Integer(0, None)],
        "prior_variance": [Real(0, None, closed="neither")],
        "learn_prior_variance": [Boolean()],
        "normalize": [Boolean()],
        "n_predict_samples": [Integer(1, None)],
        "early_stopping": [Boolean()],
        "validation_fraction": [Real(0, 1, closed="neither")],
        "random_state": [RandomState()],
        "verbose": [Integer(0, None), Boolean()],
        "dtype": [Options(*DTYPES)],
    }
    _parameter_hints: ClassVar[dict] = {
        "divergence_order": "0 is VB, 0.5 the paper's choice, 1 EP-like.",
        "tol": "Or None to train every epoch of the budget.",
    }

    # -- fitting -------------------------------------------------------------------------

    def _prepare(self, X, targets, n_outputs, noise=None):
        """Hold out the validation rows and draw the starting point's
        seed; ``targets`` are already on the model's (standardized) scale."""
        divergence, hidden = self._divergence_order(), layer_sizes(self.hidden_layer_sizes)
        n_samples = X.shape[0]
        rng = fit_generator(self.random_state)
        validation = None
        if self.early_stopping:
            order = rng.permutation(n_samples)
            n_valid = max(1, round(self.validation_fraction * n_samples))
            if n_samples - n_valid < 1:
                raise ValueError(f"early_stopping needs at least 2 samples, got {n_samples}.")
            validation = (X[order[:n_valid]], targets[order[:n_valid]])
            X, targets = X[order[n_valid:]], targets[order[n_valid:]]
            n_samples = X.shape[0]
        if self.energy == "exact" and divergence > n_samples:
            raise bad_parameter(type(self).__name__, "divergence_order",
                                f"a divergence order <= n_samples={n_samples} for the exact "
                                "energy (the cavity is no longer a Gaussian)", divergence,
                                "Use energy='reparametrized' or more data.")
        n_epochs = resolve_epochs(self.n_epochs, n_samples, self.batch_size)
        structure = (type(self), hidden, self.activation, self.energy, self.n_mc_samples,
                     self.batch_size, n_epochs, self.tol, self.n_iter_no_change,
                     self.n_lr_decays, self.learn_prior_variance, self._learns_noise(),
                     self.n_predict_samples, self.dtype,
                     X.shape, targets.shape[1:], n_outputs,
                     None if validation is None else validation[0].shape)
        return _PreparedFit(X, targets, validation, n_outputs, divergence, noise, rng, n_epochs,
                            structure)

    @classmethod
    def _fit_prepared(cls, estimators, prepared):
        """Train the stack of ``estimators`` (one class, equal keys) on their ``prepared``
        data; each estimator ends as if fitted alone."""
        first, head = estimators[0], prepared[0]
        hidden = head.key[1]
        layer_shapes = mlp_layer_shapes(head.X.shape[1], hidden, head.n_outputs)
        n_weights = mlp_n_weights(layer_shapes)
        learn_noise = first._learns_noise()
        learn_prior = first.learn_prior_variance
        noise = np.array([p.noise if p.noise is not None else np.nan for p in prepared])
        prior = np.array([e.prior_variance for e in estimators], dtype=float)
        params = [np.stack([INITIAL_MEAN_SCALE * p.rng.standard_normal(n_weights)
                            for p in prepared]),
                  np.full((len(prepared), n_weights), INITIAL_LOG_VARIANCE)]
        if learn_noise:
            params.append(np.log(noise))
        if learn_prior:
            params.append(np.log(prior))
        objective, unpack = make_bbalpha_objective(
            first._likelihood, layer_shapes, first.activation, first.n_mc_samples,
            head.X.shape[0], np.array([p.order for p in prepared]), first.energy, noise, prior,
            learn_noise, learn_prior)
        predict_seeds = [int(p.rng.integers(np.iinfo(np.int32).max)) for p in prepared]
        validation_score = None
        if head.validation is not None:
            X_valid = np.stack([p.validation[0] for p in prepared])
            targets_valid = np.stack([p.validation[1] for p in prepared])
            eps_valid = np.stack([np.random.default_rng(seed).standard_normal(
                (first.n_predict_samples, n_weights)) for seed in predict_seeds])

            def validation_score(params, adversary):
                mean, log_variance, noise_variance, _ = unpack(params)
                weights = mean[:, None] + np.exp(0.5 * log_variance)[:, None] * eps_valid
                outputs = mlp_forward(weights, X_valid[:, None], layer_shapes, first.activation)
                log_lik = first._log_likelihood(outputs, targets_valid[:, None],
                                                np.reshape(noise_variance, (-1, 1, 1)))
                return np.mean(logsumexp(log_lik, axis=1) - np.log(log_lik.shape[1]), axis=-1)

        schedule = Schedule(batch_size=first.batch_size,
                            learning_rate=[e.learning_rate for e in estimators],
                            max_epochs=head.n_epochs, tol=first.tol,
                            n_iter_no_change=first.n_iter_no_change,
                            n_decays=first.n_lr_decays)
        result = train(objective, params, [np.stack([p.X for p in prepared]),
                                           np.stack([p.targets for p in prepared])],
                       [p.rng for p in prepared], schedule, validation_score=validation_score,
                       name=cls.__name__, verbose=any(e.verbose for e in estimators),
                       dtype=np.dtype(first.dtype))
        mean, log_variance, noise_variance, prior_variance = unpack(result.params)
        for index, estimator in enumerate(estimators):
            estimator.layer_shapes_ = layer_shapes
            estimator._predict_seed = predict_seeds[index]
            estimator.theta_ = np.concatenate([part[index].ravel() for part in result.params])
            estimator.posterior_mean_ = mean[index].copy()
            estimator.posterior_var_ = np.exp(log_variance[index])
            estimator.prior_variance_ = float(prior_variance[index])
            estimator._model_noise = (None if prepared[index].noise is None
                                      else float(noise_variance[index]))
            estimator._set_training_results(result, index, head.n_epochs)
        return estimators

    def _learns_noise(self):
        return False

    def fit(self, X, y):
        """Fit ``q`` to the training data ``X`` (n_samples, n_features) and ``y``."""
        type(self)._fit_prepared([self], [self._prepare_fit(X, y)])
        return self

    # -- prediction ----------------------------------------------------------------------

    def _weight_draws(self, n_draws, random_state=None):
        eps = self._prediction_generator(random_state).standard_normal(
            (n_draws, self.posterior_mean_.size))
        return self.posterior_mean_ + np.sqrt(self.posterior_var_) * eps


_COMMON_PARAMETERS = """
    energy : {"exact", "reparametrized"}, default="exact"
        ``"exact"`` is the BB-alpha energy with the cavity (the paper's eq. 12);
        ``"reparametrized"`` draws from ``q`` instead (Li & Gal 2017), valid when
        ``alpha / n_samples -> 0``.
    n_mc_samples : int, default=10
        Weight draws ``K`` per mini-batch for the energy.
    batch_size : int, default=32
    n_epochs : int or None, default=None
        The budget: the most passes over the data. ``None`` allows enough epochs for
        50,000 Adam steps (e.g. 3,334 epochs of 455 rows in batches of 32, 25,000 epochs of
        40 rows); training stops earlier when it converges (``tol``): a 50-unit BNN on
        boston or diabetes converges after 25,000-35,000 steps.
    learning_rate : float, default=1e-3
        Adam step size.
    tol : float or None, default=1e-4
        Convergence (:mod:`alphavb.blackbox._training`): a plateau is ``n_iter_no_change``
        blocks of at least 100 Adam steps in which the energy per training row, averaged
        over the block, has not improved by more than ``tol`` (with ``early_stopping``: the
        validation log-likelihood). ``None`` trains all ``n_epochs`` at a constant step. A
        ``ConvergenceWarning`` says when the budget ends first.
    n_iter_no_change : int, default=10
        Blocks without improvement that make a plateau.
    n_lr_decays : int, default=2
        At each plateau Adam's step size is divided by 5, up to ``n_lr_decays`` times
        (with a constant step the iterates keep wandering around the optimum); training
        stops at the next plateau. Not with ``tol=None``.
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
        Hold out ``validation_fraction`` of the training data and judge convergence by the
        mean validation log-likelihood instead of the energy, keeping the best block's
        ``q``.
    validation_fraction : float, default=0.1
    random_state : int, RandomState or None, default=None
        Seeds the initial means, mini-batches and Monte-Carlo draws.
    verbose : bool, default=False
        Show a progress bar over epochs (tqdm).
    dtype : {"float64", "float32"}, default="float64"
        Precision of training (parameters, Adam's moments, data, draws and the network
        passes): float32 halves the memory traffic of each step (``benchmarks/``); the fitted
        attributes are float64 either way.
"""

_COMMON_ATTRIBUTES = """
    posterior_mean_, posterior_var_ : ndarray of shape (n_weights,)
        Means and variances of ``q``, layer by layer: the ``(n_in, n_out)`` weight matrix in
        row-major order, then the ``n_out`` biases (:mod:`alphavb.blackbox._mlp`).
    prior_variance_ : float
    layer_shapes_ : list of (n_in, n_out)
    energy_history_ : ndarray of shape (``n_iter_``,)
        The mean over each epoch's mini-batches of the energy estimate.
    n_iter_ : int
        Epochs run.
    n_steps_ : int
        Adam steps taken.
    converged_ : bool
        Whether the convergence rule (``tol``) was met.
    best_validation_score_ : float
        With ``early_stopping`` only.
    n_features_in_ : int
"""


class BBAlphaRegressor(_BNNRegressorMixin, _BBAlphaBase):
    __doc__ = f"""Bayesian neural-network regression by black-box alpha (BB-alpha).

    Model ``y = f_w(x) + N(0, sigma^2)`` with an MLP ``f_w`` and the prior ``N(0, v0)`` on
    every weight; ``q(w)`` is a factorized Gaussian fitted by minimizing the BB-alpha energy
    (Hernández-Lobato et al. 2016, eq. 12) with Adam. ``hidden_layer_sizes=()`` is
    Bayesian linear regression.

    Parameters
    ----------
    divergence_order : float, default=0.5
        The order ``alpha >= 0`` of the alpha-divergence minimized (BB-alpha): ``0`` is VB
        (computed as the limit), ``1`` is EP-like. (Not the likelihood temperature ``alpha``
        of the alpha-VB models.)
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

    def __init__(self, divergence_order=0.5, hidden_layer_sizes=(50,), activation="relu",
                 energy="exact", n_mc_samples=10, batch_size=32, n_epochs=None,
                 learning_rate=1e-3, tol=1e-4, n_iter_no_change=10, n_lr_decays=2,
                 prior_variance=1.0, learn_prior_variance=False, noise_variance=None,
                 normalize=True, n_predict_samples=100, early_stopping=False,
                 validation_fraction=0.1, random_state=None, verbose=False, dtype="float64"):
        self.divergence_order = divergence_order
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.energy = energy
        self.n_mc_samples = n_mc_samples
        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.n_lr_decays = n_lr_decays
        self.prior_variance = prior_variance
        self.learn_prior_variance = learn_prior_variance
        self.noise_variance = noise_variance
        self.normalize = normalize
        self.n_predict_samples = n_predict_samples
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.verbose = verbose
        self.dtype = dtype

    _parameter_constraints: ClassVar[dict] = {
        **_BBAlphaBase._parameter_constraints,
        "noise_variance": [None, Real(0, None, closed="neither")],
    }
    _parameter_hints: ClassVar[dict] = {
        **_BBAlphaBase._parameter_hints,
        "noise_variance": "Or pass None to learn it.",
    }

    def _learns_noise(self):
        return self.noise_variance is None

    def _prepare_fit(self, X, y):
        self._validate_params()
        X_model, y_model, noise = self._regression_data(X, y)
        return self._prepare(X_model, y_model, 1, noise)

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws of the network's weights from the fitted ``q``.

        Returns
        -------
        dict
            ``"weights"`` (n_samples, n_weights) on the standardized scale, in the layout of
            ``layer_shapes_``; for a linear model (``hidden_layer_sizes=()``) also
            ``"coef"`` (n_samples, n_features) and ``"intercept"`` (n_samples,) on the
            original scale of ``X`` and ``y``: ``y = y_mean_ + y_scale_ (((x - x_mean_) /
            x_scale_)' w + b)``.
        """
        draws = super().sample_posterior(n_samples, random_state)
        if len(self.layer_shapes_) == 1:
            n_features = self.layer_shapes_[0][0]
            weights = draws["weights"]
            coef = weights[:, :n_features] * (self.y_scale_ / self.x_scale_)
            draws["coef"] = coef
            draws["intercept"] = (self.y_mean_ + self.y_scale_ * weights[:, n_features]
                                  - coef @ self.x_mean_)
        return draws


LINKS = ("probit", "softmax")


class BBAlphaClassifier(ClassifierMixin, _BBAlphaBase):
    __doc__ = f"""Bayesian probit / softmax classification (or a classifier BNN) by BB-alpha.

    ``link="probit"``: ``p(y = +1 | x, w) = Phi(f_w(x))`` for two classes; with
    ``hidden_layer_sizes=()`` this is the Bayesian probit regression of the BB-alpha paper
    (Hernández-Lobato et al. 2016, Sec. 5.1). ``link="softmax"``: a categorical likelihood
    over ``C`` classes. ``q(w)`` is a factorized Gaussian fitted by minimizing the BB-alpha
    energy (Hernández-Lobato et al. 2016, eq. 12).

    Parameters
    ----------
    divergence_order : float, default=0.5
        The order ``alpha >= 0`` of the alpha-divergence minimized (BB-alpha): 0 is VB.
        (Not the likelihood temperature ``alpha`` of the alpha-VB models.)
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
    >>> probit = BBAlphaClassifier(divergence_order=0.5, n_epochs=10, learning_rate=0.01, tol=None,
    ...                            random_state=0)
    >>> print(round(probit.fit(X, y).score(X, y), 2), probit.posterior_mean_.shape)
    0.99 (31,)
    """

    def __init__(self, divergence_order=0.5, hidden_layer_sizes=(), link="probit",
                 activation="relu", energy="exact", n_mc_samples=10, batch_size=32, n_epochs=None,
                 learning_rate=1e-3, tol=1e-4, n_iter_no_change=10, n_lr_decays=2,
                 prior_variance=1.0, learn_prior_variance=False, normalize=True,
                 n_predict_samples=100,
                 early_stopping=False, validation_fraction=0.1, random_state=None,
                 verbose=False, dtype="float64"):
        self.divergence_order = divergence_order
        self.hidden_layer_sizes = hidden_layer_sizes
        self.link = link
        self.activation = activation
        self.energy = energy
        self.n_mc_samples = n_mc_samples
        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.learning_rate = learning_rate
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.n_lr_decays = n_lr_decays
        self.prior_variance = prior_variance
        self.learn_prior_variance = learn_prior_variance
        self.normalize = normalize
        self.n_predict_samples = n_predict_samples
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.verbose = verbose
        self.dtype = dtype

    _parameter_constraints: ClassVar[dict] = {
        **_BBAlphaBase._parameter_constraints,
        "link": [Options(*LINKS)],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self.link != "probit"
        return tags

    @property
    def _likelihood(self):
        return self.link

    def _prepare_fit(self, X, y):
        owner = type(self).__name__
        self._validate_params()
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
        return self._prepare(self._standardized(X, reset=True), self._encode(labels),
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

    def _rows_log_predictive(self, outputs, target):
        if self.link == "probit":
            log_lik = log_ndtr(target * outputs[..., 0])
        else:
            log_lik = np.sum(outputs * target, axis=-1) - logsumexp(outputs, axis=-1)
        return _mixture_log_density(log_lik)

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
        return float(np.mean(self._row_log_predictive(X, y)))

    def _row_log_predictive(self, X, y, n_draws=None, random_state=None):
        """Per row, ``log p(y_i | x_i, D)`` under the Monte-Carlo predictive, over the
        network's own ``n_predict_samples`` draws (``n_draws`` and ``random_state``, which
        other models' draws take, are not used)."""
        outputs = self._network_outputs(X)
        y = np.asarray(y)
        if y.shape != (outputs.shape[1],):
            raise ValueError(f"{type(self).__name__}: y must have shape ({outputs.shape[1]},), "
                             f"one label per row of X; got shape {y.shape}.")
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(f"{type(self).__name__}: y holds labels not seen in fit, e.g. "
                             f"{y[unknown][0]!r}; known classes are {list(self.classes_)}.")
        return self._rows_log_predictive(outputs, self._encode(np.searchsorted(self.classes_,
                                                                                y)))
