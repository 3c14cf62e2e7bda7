r"""Adversarial alpha-divergence minimization (AADM) with an implicit ``q`` (spec §8).

Rodríguez-Santana & Hernández-Lobato, "Adversarial alpha-divergence minimization for
Bayesian approximate inference", Neurocomputing 2022 (AADM); the KL estimator is the
adaptive contrast of Mescheder, Nowozin & Geiger, "Adversarial variational Bayes", ICML 2017
(AVB).

Implicit posterior
------------------
``w = g_phi(z)``, ``z = mu + s * e``, ``e ~ N(0, I_D)``: ``g_phi`` is an MLP (leaky ReLU)
that emits every weight and bias of the Bayesian network, and the input noise's mean ``mu``
and log-variance ``log s^2`` are learned with it.

Objective (to be minimized, a mini-batch ``B`` of ``N`` rows, ``K`` draws ``w_k``)
--------------------------------------------------------------------------------
::

    E(phi) = beta KL_hat - (N / (alpha B)) sum_{n in B} [lse_k(alpha log p(y_n | w_k)) - log K]

(the data term of :func:`~alphavb.blackbox.energies.tempered_data_term`; ``alpha = 0`` is its
VB limit, i.e. AVB), ``beta`` the KL weight of the warm-up, and with adaptive contrast

    KL_hat = mean_k [T(w~_k) + log r(w_k) - log p0(w_k)],   w~_k = (w_k - m) / s,

``r = N(m, diag(s^2))`` the factorized Gaussian with the draws' mean and standard deviation
(held constant in the gradient, as in the authors' code), ``p0 = N(0, v0 I)`` and ``T`` the
logit of a discriminator trained to tell ``w~`` from ``N(0, I)`` draws:
``max E_q~[log sigmoid T] + E_N(0,I)[log(1 - sigmoid T)]``, whose optimum is
``T* = log q~ - log N(0, I)``, so ``E_q[T*(w~)] = KL(q~ || N(0, I)) = KL(q || r)``. The gradient
of ``E`` holds the discriminator's weights fixed but differentiates ``T`` through ``w~``.
"""

import autograd.numpy as anp
import numpy as np
from autograd import value_and_grad
from autograd.tracer import getval
from sklearn.utils import check_random_state
from tqdm.auto import tqdm

from ..base import check_positive_int, check_scalar_in_range
from ._bbalpha import (
    _BNNRegressorMixin,
    _MonteCarloNetwork,
    check_activation,
    check_finite_step,
    check_layer_sizes,
)
from ._mlp import mlp_forward, mlp_layer_shapes, mlp_n_weights
from ._optim import Adam
from .energies import LOG_2PI, gaussian_log_likelihood, tempered_data_term

AUXILIARY_ACTIVATION = "leaky_relu"  # the generator's and the discriminator's (the authors' choice)
INITIAL_SCALE = 0.1  # the authors' initial standard deviation of the generator's weights
INITIAL_NOISE_LOG_VARIANCE = -5.0  # the authors' initial log-variance of the input noise
VARIANCE_FLOOR = 1e-12  # keeps r a proper Gaussian when a coordinate does not vary


def init_mlp(layer_shapes, rng, scale=None):
    """Flat MLP weights: ``N(0, scale^2)`` entries, or ``N(0, 1/n_in)`` when ``scale`` is
    None (the layout of :mod:`alphavb.blackbox._mlp`)."""
    parts = []
    for n_in, n_out in layer_shapes:
        sd = 1.0 / np.sqrt(n_in) if scale is None else scale
        parts += [sd * rng.standard_normal(n_in * n_out),
                  (0.0 if scale is None else scale) * rng.standard_normal(n_out)]
    return np.concatenate(parts)


def sigmoid_cross_entropy(logits_q, logits_reference):
    """The discriminator's loss ``-(mean log sigmoid(T_q) + mean log(1 - sigmoid(T_ref)))``,
    i.e. ``mean softplus(-T_q) + mean softplus(T_ref)`` (q-draws labelled 1)."""
    return (anp.mean(anp.logaddexp(0.0, -logits_q))
            + anp.mean(anp.logaddexp(0.0, logits_reference)))


class Discriminator:
    """An MLP logit ``T(x)`` fitted by logistic regression of draws of ``q`` against draws of
    a reference density ``r``: at the optimum ``T(x) = log q(x) - log r(x)`` (AVB, Prop. 1).

    Parameters
    ----------
    n_inputs : int
    hidden_layer_sizes : tuple of int
    learning_rate : float
        Adam step size.
    rng : numpy.random.RandomState
        Draws the initial weights ``N(0, 1/n_in)`` (biases 0).
    """

    def __init__(self, n_inputs, hidden_layer_sizes, learning_rate, rng):
        self.layer_shapes = mlp_layer_shapes(n_inputs, hidden_layer_sizes, 1)
        self.params = init_mlp(self.layer_shapes, rng)
        self._optimizer = Adam(learning_rate)
        self._loss_and_gradient = value_and_grad(self._loss)

    def logit(self, X, params=None):
        """``T(x)`` for the rows of ``X`` (n, n_inputs); differentiable in ``X``."""
        params = self.params if params is None else params
        return anp.reshape(mlp_forward(anp.reshape(params, (1, -1)), X, self.layer_shapes,
                                       AUXILIARY_ACTIVATION), (-1,))

    def _loss(self, params, draws_q, draws_reference):
        logits = self.logit(np.concatenate([draws_q, draws_reference]), params)
        n_q = draws_q.shape[0]
        return sigmoid_cross_entropy(logits[:n_q], logits[n_q:])

    def step(self, draws_q, draws_reference):
        """One Adam step on the cross-entropy; returns the loss before the step."""
        loss, gradient = self._loss_and_gradient(self.params, draws_q, draws_reference)
        if not (np.isfinite(loss) and np.all(np.isfinite(gradient))):
            raise FloatingPointError("The discriminator's loss or gradient is not finite; "
                                     "lower discriminator_learning_rate.")
        self.params = self._optimizer.step(self.params, gradient)
        return float(loss)


def contrast_moments(weights):
    """Mean and standard deviation per coordinate of the draws (K, P), as constants: the
    adaptive-contrast Gaussian ``r`` (spec §8)."""
    weights = getval(weights)
    return weights.mean(axis=0), np.sqrt(weights.var(axis=0) + VARIANCE_FLOOR)


def adaptive_contrast_kl(weights, mean, sd, logit, prior_variance):
    """Per-draw terms ``T(w~_k) + log r(w_k) - log p0(w_k)`` whose mean estimates
    ``KL(q || p0)`` (spec §8; AVB Sec. 4).

    Parameters
    ----------
    weights : array of shape (K, P)
        Draws of ``q``.
    mean, sd : ndarray of shape (P,)
        The moments of ``r`` (:func:`contrast_moments`).
    logit : callable
        ``T``, mapping standardized draws (K, P) to (K,).
    prior_variance : float
        ``v0`` of the prior ``N(0, v0 I)`` (may be an autograd value).

    Returns
    -------
    array of shape (K,)
    """
    standardized = (weights - mean) / sd
    n_weights = weights.shape[1]
    log_r = -0.5 * anp.sum(standardized**2, axis=1) - anp.sum(np.log(sd)) \
        - 0.5 * n_weights * LOG_2PI
    log_p0 = -0.5 * (anp.sum(weights**2, axis=1) / prior_variance
                     + n_weights * (anp.log(prior_variance) + LOG_2PI))
    return logit(standardized) + log_r - log_p0


def warmup_weight(epoch, n_warmup_epochs):
    """The KL weight ``beta`` of epoch ``epoch`` (0-based): ``epoch / n_warmup`` during the
    warm-up, then 1 (the authors' schedule)."""
    return 1.0 if epoch >= n_warmup_epochs else epoch / n_warmup_epochs


class AADMRegressor(_BNNRegressorMixin, _MonteCarloNetwork):
    """Bayesian neural-network regression with an implicit posterior, by AADM.

    Model ``y = f_w(x) + N(0, sigma^2)`` with an MLP ``f_w`` and the prior ``N(0, v0)`` on
    every weight and bias. ``q(w)`` is implicit: a generator network maps Gaussian noise with
    learned mean and variance to all the weights of ``f``. Training minimizes the
    reparametrized alpha-energy with the KL term estimated adversarially by adaptive
    contrast (Rodríguez-Santana & Hernández-Lobato 2022; spec §8; module docstring),
    alternating one Adam step of the discriminator and one of the generator per
    mini-batch, with the KL weight ramped from 0 to 1 over the first ``warmup_fraction`` of
    the epochs. ``alpha -> 0`` is adversarial variational Bayes (AVB); with ``alpha`` near 1
    the predictive can be bimodal or heteroscedastic.

    Parameters
    ----------
    alpha : float, default=1.0
        Order of the alpha-divergence, ``alpha >= 0``; ``0`` uses the VB data term (AVB).
    hidden_layer_sizes : tuple of int, default=(50, 50)
        Hidden layers of the Bayesian network ``f``.
    activation : {"leaky_relu", "relu", "tanh", "logistic", "identity"}, default="leaky_relu"
        Of ``f``'s hidden layers (the generator and discriminator use leaky ReLU).
    generator_hidden : tuple of int, default=(50, 50)
        Hidden layers of the generator ``g``; ``()`` makes ``g`` linear, so ``q`` is a
        Gaussian.
    noise_dim : int, default=100
        Dimension of the generator's input noise.
    discriminator_hidden : tuple of int, default=(50, 50)
    n_mc_samples : int, default=10
        Draws ``K`` of the weights per mini-batch, for the data term, the KL estimate and the
        discriminator's step (with as many ``N(0, I)`` draws).
    n_predict_samples : int, default=100
        Weight draws averaged at prediction time (with a seed fixed at fit time, so
        predictions are repeatable).
    batch_size : int, default=10
    n_epochs : int, default=2000
    warmup_fraction : float, default=0.1
        Fraction of the epochs over which the KL weight rises linearly from 0 to 1.
    learning_rate : float, default=1e-4
        Adam step size of the generator, the noise parameters, ``log sigma^2`` and ``log v0``.
    discriminator_learning_rate : float, default=1e-3
        Adam step size of the discriminator (the authors use 10 times the generator's).
    noise_variance : float or None, default=None
        ``sigma^2`` on the scale of ``y``: the starting value when
        ``learn_noise_variance=True``, else the fixed value; ``None`` means ``0.1 var(y)``.
    learn_noise_variance : bool, default=True
    prior_variance : float, default=1.0
        ``v0``: the starting value when ``learn_prior_variance=True``, else the fixed value.
    learn_prior_variance : bool, default=True
    normalize : bool, default=True
        Standardize ``X`` and ``y`` on the training set.
    random_state : int, RandomState or None, default=None
        Seeds the initial weights, mini-batches and Monte-Carlo draws.
    verbose : bool, default=False
        Show a progress bar over epochs (tqdm).

    Attributes
    ----------
    generator_params_ : ndarray
        ``[mu, log s^2, generator weights]`` (the layout of :mod:`alphavb.blackbox._mlp`).
    discriminator_params_ : ndarray
    layer_shapes_, generator_layer_shapes_ : list of (n_in, n_out)
    noise_variance_ : float
        ``sigma^2`` on the scale of ``y``.
    prior_variance_ : float
    energy_history_ : ndarray of shape (n_iter_,)
        Mean over each epoch's mini-batches of the objective ``E`` (with that epoch's KL
        weight).
    kl_history_ : ndarray of shape (n_iter_,)
        Mean over each epoch of the adaptive-contrast estimate of ``KL(q || p0)``.
    discriminator_loss_history_ : ndarray of shape (n_iter_,)
    n_iter_ : int
        Epochs run.
    n_features_in_ : int

    Examples
    --------
    >>> from alphavb import AADMRegressor
    >>> from alphavb.datasets import make_bimodal
    >>> X, y = make_bimodal(200, random_state=0)
    >>> model = AADMRegressor(hidden_layer_sizes=(20,), generator_hidden=(20,), noise_dim=10,
    ...                       discriminator_hidden=(20,), n_epochs=5, random_state=0)
    >>> model.fit(X, y).sample_predictive(X[:3], n_samples=4).shape
    (4, 3)
    """

    def __init__(self, alpha=1.0, hidden_layer_sizes=(50, 50), activation="leaky_relu",
                 generator_hidden=(50, 50), noise_dim=100, discriminator_hidden=(50, 50),
                 n_mc_samples=10, n_predict_samples=100, batch_size=10, n_epochs=2000,
                 warmup_fraction=0.1, learning_rate=1e-4, discriminator_learning_rate=1e-3,
                 noise_variance=None, learn_noise_variance=True, prior_variance=1.0,
                 learn_prior_variance=True, normalize=True, random_state=None, verbose=False):
        self.alpha = alpha
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.generator_hidden = generator_hidden
        self.noise_dim = noise_dim
        self.discriminator_hidden = discriminator_hidden
        self.n_mc_samples = n_mc_samples
        self.n_predict_samples = n_predict_samples
        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.warmup_fraction = warmup_fraction
        self.learning_rate = learning_rate
        self.discriminator_learning_rate = discriminator_learning_rate
        self.noise_variance = noise_variance
        self.learn_noise_variance = learn_noise_variance
        self.prior_variance = prior_variance
        self.learn_prior_variance = learn_prior_variance
        self.normalize = normalize
        self.random_state = random_state
        self.verbose = verbose

    def _check_parameters(self):
        owner = type(self).__name__
        alpha = check_scalar_in_range(
            owner, "alpha", self.alpha, 0.0, None, low_open=False,
            fix="alpha is the divergence order: 0 (or 1e-4) is AVB, 1 the paper's choice for "
                "multimodal predictives.")
        sizes = {name: check_layer_sizes(owner, name, getattr(self, name))
                 for name in ("hidden_layer_sizes", "generator_hidden", "discriminator_hidden")}
        check_activation(owner, self.activation)
        for name in ("noise_dim", "n_mc_samples", "n_predict_samples", "batch_size",
                     "n_epochs"):
            check_positive_int(owner, name, getattr(self, name))
        check_scalar_in_range(owner, "warmup_fraction", self.warmup_fraction, 0.0, 1.0,
                              low_open=False, fix="Use 0 for no warm-up.")
        for name in ("learning_rate", "discriminator_learning_rate", "prior_variance"):
            check_scalar_in_range(owner, name, getattr(self, name), 0.0, None, low_open=True)
        return alpha, sizes

    def fit(self, X, y):
        """Fit the generator (and discriminator) to ``X`` (n_samples, n_features) and ``y``."""
        alpha, sizes = self._check_parameters()
        X, y, noise_variance = self._regression_data(X, y, "Or pass None for 0.1 var(y).")
        n_samples = X.shape[0]
        rng = check_random_state(self.random_state)
        self.layer_shapes_ = mlp_layer_shapes(X.shape[1], sizes["hidden_layer_sizes"], 1)
        n_weights = mlp_n_weights(self.layer_shapes_)
        self.generator_layer_shapes_ = mlp_layer_shapes(self.noise_dim,
                                                        sizes["generator_hidden"], n_weights)
        dim = self.noise_dim
        # theta: [noise mean, noise log-variance, generator weights, learned log-scales], kept
        # as separate arrays (autograd's gradient of a slice scatters into the whole vector)
        theta = [INITIAL_SCALE * rng.standard_normal(dim),
                 INITIAL_NOISE_LOG_VARIANCE + INITIAL_SCALE * rng.standard_normal(dim),
                 init_mlp(self.generator_layer_shapes_, rng, INITIAL_SCALE),
                 np.log([noise_variance] * self.learn_noise_variance
                        + [self.prior_variance] * self.learn_prior_variance)]
        sizes_of_theta = np.cumsum([part.size for part in theta])[:-1]
        self._fixed_noise = noise_variance
        discriminator = Discriminator(n_weights, sizes["discriminator_hidden"],
                                      self.discriminator_learning_rate, rng)

        last_kl = {}

        def objective(theta, eps, X_batch, y_batch, kl_weight):
            weights = self._generate(theta, eps)
            noise, prior = self._unpack_scales(theta)
            mean, sd = contrast_moments(weights)
            kl = anp.mean(adaptive_contrast_kl(weights, mean, sd, discriminator.logit, prior))
            last_kl["value"] = float(getval(kl))  # recorded, not differentiated
            outputs = mlp_forward(weights, X_batch, self.layer_shapes_, self.activation)
            log_lik = gaussian_log_likelihood(outputs[..., 0], y_batch, noise)
            return kl_weight * kl - tempered_data_term(log_lik, alpha, n_samples)

        objective_and_gradient = value_and_grad(objective)
        optimizer = Adam(self.learning_rate)
        batch_size = min(self.batch_size, n_samples)
        n_warmup = round(self.warmup_fraction * self.n_epochs)
        history, kl_history, loss_history = [], [], []
        self._predict_seed = int(rng.randint(np.iinfo(np.int32).max))
        epochs = tqdm(range(self.n_epochs), disable=not self.verbose, desc=type(self).__name__)
        for epoch in epochs:
            kl_weight = warmup_weight(epoch, n_warmup)
            order = rng.permutation(n_samples)
            totals = np.zeros(3)
            for start in range(0, n_samples, batch_size):
                rows = order[start:start + batch_size]
                eps = rng.standard_normal((self.n_mc_samples, dim))
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                    # an overflow is reported below, as one error that says what to do
                    weights = self._generate(theta, eps)
                    mean, sd = contrast_moments(weights)
                    reference = rng.standard_normal(weights.shape)
                    disc_loss = discriminator.step((weights - mean) / sd, reference)
                    value, gradient = objective_and_gradient(theta, eps, X[rows], y[rows],
                                                             kl_weight)
                gradient = np.concatenate(gradient)
                check_finite_step(self, epoch, value, gradient)
                theta = np.split(optimizer.step(np.concatenate(theta), gradient),
                                 sizes_of_theta)
                totals += len(rows) * np.array([value, last_kl["value"], disc_loss])
            history.append(totals[0] / n_samples)
            kl_history.append(totals[1] / n_samples)
            loss_history.append(totals[2] / n_samples)
            epochs.set_postfix(objective=f"{history[-1]:.4g}", refresh=False)
        self.generator_params_ = np.concatenate(theta[:3])
        self._theta = theta
        self._model_noise, prior = map(float, self._unpack_scales(theta))
        self.prior_variance_ = prior
        self.discriminator_params_ = discriminator.params
        self.energy_history_ = np.array(history)
        self.kl_history_ = np.array(kl_history)
        self.discriminator_loss_history_ = np.array(loss_history)
        self.n_iter_ = len(history)
        return self

    def _generate(self, theta, eps):
        """Weight draws (K, P) from the generator for base noise ``eps`` (K, noise_dim)."""
        noise_mean, noise_log_variance, generator = theta[:3]
        noise = noise_mean + anp.exp(0.5 * noise_log_variance) * eps
        return mlp_forward(anp.reshape(generator, (1, -1)), noise, self.generator_layer_shapes_,
                           AUXILIARY_ACTIVATION)[0]

    def _unpack_scales(self, theta):
        """``(sigma^2, v0)`` on the model's scale, learned (the last entries of ``theta``)
        or fixed."""
        scales = anp.exp(theta[3])
        noise = scales[0] if self.learn_noise_variance else self._fixed_noise
        prior = scales[-1] if self.learn_prior_variance else self.prior_variance
        return noise, prior

    def _weight_draws(self, n_draws, random_state=None):
        rng = check_random_state(self._predict_seed if random_state is None else random_state)
        return self._generate(self._theta, rng.standard_normal((n_draws, self.noise_dim)))
