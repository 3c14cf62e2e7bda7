"""Adversarial alpha-divergence minimization (AADM; Rodríguez-Santana & Hernández-Lobato
2022): :class:`AADMRegressor`, a Bayesian neural network with an implicit posterior. Its
posterior, objective and adaptive-contrast KL estimator are in
:mod:`alphavb.blackbox._aadm_objective`.
"""

from typing import ClassVar

import numpy as np

from .._validation import Boolean, Integer, LayerSizes, Options, RandomState, Real
from ._aadm_objective import (
    _GeneratorLayout,
    generated_weights,
    init_mlp,
    make_fast_aadm_objective,
)
from ._mlp import ACTIVATIONS, mlp_layer_shapes
from ._networks import (
    DIVERGENCE_ORDER_CONSTRAINTS,
    DTYPES,
    _BNNRegressorMixin,
    _MonteCarloNetwork,
    _PreparedFit,
    fit_generator,
    layer_sizes,
    resolve_epochs,
)
from ._training import (
    Schedule,
    train,
)

INITIAL_SCALE = 0.1  # the authors' initial standard deviation of the generator's weights
INITIAL_NOISE_LOG_VARIANCE = -5.0  # the authors' initial log-variance of the input noise
# Adam steps of the default budget (n_epochs=None), for interactive use: with the defaults
# (one hidden layer of 50, batch 50, step sizes 1e-3 / 1e-2, tol=1e-3) every fit of seeds
# 0-3 on diabetes (353 training rows) and boston (404) converged, after 3,700-10,100 steps
# in 6-21 s on one core (benchmarks/bench_aadm_defaults.py); with 6,000 steps 1 of 3
# boston seeds ran out, and with the paper's two layers of 50, 2 of 3 diabetes seeds (the
# training objective kept improving as the noise variance fell). A budget ending first
# gives a ConvergenceWarning
DEFAULT_AADM_STEPS = 12_000
# The AADM paper's UCI protocol (Rodríguez-Santana & Hernández-Lobato 2022, Sec. 5.2, and
# the authors' code): AADMRegressor(**AADM_PAPER_SETTINGS), every epoch trained
AADM_PAPER_SETTINGS = {"hidden_layer_sizes": (50, 50), "batch_size": 10, "n_epochs": 2000,
                       "learning_rate": 1e-4, "discriminator_learning_rate": 1e-3, "tol": None}
BIAS_POSTERIORS = ("point", "implicit")


class AADMRegressor(_BNNRegressorMixin, _MonteCarloNetwork):
    __doc__ = """Bayesian neural-network regression with an implicit posterior, by AADM.

    Model ``y = f_w(x) + N(0, sigma^2)`` with an MLP ``f_w`` and the prior ``N(0, v0)`` on
    every generated weight. ``q(w)`` is implicit: a generator network maps Gaussian noise
    with learned mean and variance to the weights of ``f``. Training minimizes the
    reparametrized alpha-energy with the KL term estimated adversarially by adaptive
    contrast (Rodríguez-Santana & Hernández-Lobato 2022;
    :mod:`~alphavb.blackbox._aadm_objective`),
    alternating one Adam step of the discriminator and one of the generator per
    mini-batch, with the KL weight ramped from 0 to 1 over the first ``warmup_fraction`` of
    the epochs. An order ``alpha -> 0`` is adversarial variational Bayes (AVB); with
    ``alpha`` near 1 the predictive can be bimodal or heteroscedastic.

    Parameters
    ----------
    divergence_order : float, default=1.0
        The order ``alpha >= 0`` of the alpha-divergence minimized (AADM): ``0`` uses the VB
        data term (AVB). (Not the likelihood temperature ``alpha`` of the alpha-VB models.)
    hidden_layer_sizes : tuple of int, default=(50,)
        Hidden layers of the Bayesian network ``f`` (the paper's UCI networks: ``(50,
        50)``).
    activation : {"leaky_relu", "relu", "tanh", "logistic", "identity"}, default="leaky_relu"
        Of ``f``'s hidden layers (the generator and discriminator use leaky ReLU).
    generator_hidden : tuple of int, default=(50, 50)
        Hidden layers of the generator ``g``; ``()`` makes ``g`` linear, so ``q`` is a
        Gaussian.
    noise_dim : int, default=100
        Dimension of the generator's input noise.
    discriminator_hidden : tuple of int, default=(50, 50)
    bias_posterior : {"point", "implicit"}, default="point"
        ``"point"``: the biases are point estimates outside ``q`` and its KL (the authors'
        code); ``"implicit"``: the generator emits the network's biases with its weights.
        On 5 boston splits at alpha = 1 and 200 epochs, point biases gave test LL -2.47 and
        RMSE 3.20 against -2.51 and 3.39 (``alphavb reproduce aadm-ablation``).
    draws_per_row : bool, default=False
        Give every row of a mini-batch its own ``n_mc_samples`` draws (the authors' code:
        ``batch_size * n_mc_samples`` draws per step, also used by the discriminator and
        the KL); otherwise the rows share ``n_mc_samples`` draws.
    n_mc_samples : int, default=10
        Draws ``K`` of the weights per row (or per mini-batch), for the data term, the KL
        estimate and the discriminator's step (with as many ``N(0, I)`` draws).
    n_predict_samples : int, default=100
        Weight draws averaged at prediction time (with a seed fixed at fit time, so
        predictions are repeatable).
    batch_size : int, default=50
        Rows per Adam step (the paper: 10).
    n_epochs : int or None, default=None
        The budget: the most passes over the data. ``None`` allows enough epochs for
        ``DEFAULT_AADM_STEPS`` (12,000) Adam steps, a fit of well under a minute on a few
        hundred rows (diabetes and boston, 353 and 404 rows: 6-21 s on one core of this
        machine, converged before the budget ended). The paper's
        UCI protocol is two hidden layers of 50, 2,000 epochs at batch 10 and step size
        1e-4, every epoch trained: ``AADMRegressor(**alphavb.blackbox.AADM_PAPER_SETTINGS)``
        (72,000 steps on 353 rows; ``alphavb reproduce aadm-uci`` runs it).
    warmup_fraction : float, default=0.1
        Fraction of the epochs over which the KL weight rises linearly from 0 to 1.
    learning_rate : float, default=1e-3
        Adam step size of the generator, the noise parameters, the point biases,
        ``log sigma^2`` and ``log v0`` (the paper: 1e-4).
    discriminator_learning_rate : float, default=1e-2
        Adam step size of the discriminator (the authors use 10 times the generator's).
    discriminator_init_scale : float or None, default=None
        Standard deviation of the discriminator's initial weights and biases (the authors:
        0.1); ``None``: ``N(0, 1/n_in)`` weights and zero biases.
    tol : float or None, default=1e-3
        Convergence: training stops when the objective per training row, averaged over
        blocks of at least 100 steps after the warm-up, has not improved by more than
        ``tol`` for ``n_iter_no_change`` blocks; ``None`` trains all ``n_epochs`` (the
        paper's protocol). A ``ConvergenceWarning`` says when the budget ends first.
    n_iter_no_change : int, default=5
    n_lr_decays : int, default=2
        At each plateau both step sizes are divided by 5, up to ``n_lr_decays`` times;
        training stops at the next plateau (:mod:`alphavb.blackbox._training`).
    noise_variance : float or None, default=None
        ``sigma^2`` on the scale of ``y``: the starting value when
        ``learn_noise_variance=True``, else the fixed value; ``None`` means ``0.01 var(y)``.
        At the authors' step size (1e-4) ``log sigma^2`` moves at most 0.92 in 200 boston
        epochs, so the start matters: from ``0.1 var(y)`` alpha = 1 fitted boston with RMSE
        7.6, from ``0.01 var(y)`` with 3.4 (``alphavb reproduce aadm-ablation``).
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
    dtype : {"float64", "float32"}, default="float64"
        Precision of training (parameters, Adam's moments, data, draws and the network
        passes): float32 halves the memory traffic of each step (``benchmarks/``); the fitted
        attributes are float64 either way.

    Attributes
    ----------
    generator_params_ : ndarray
        ``[mu, log s^2, generator weights]`` (the layout of :mod:`alphavb.blackbox._mlp`).
    bias_ : ndarray
        The point biases (empty with ``bias_posterior="implicit"``), layer by layer.
    discriminator_params_ : ndarray
    layer_shapes_, generator_layer_shapes_ : list of (n_in, n_out)
    noise_variance_ : float
        ``sigma^2`` on the scale of ``y``.
    prior_variance_ : float
    energy_history_ : ndarray of shape (``n_iter_``,)
        Mean over each epoch's mini-batches of the objective ``E`` (with that epoch's KL
        weight).
    kl_history_ : ndarray of shape (``n_iter_``,)
        Mean over each epoch of the adaptive-contrast estimate of ``KL(q || p0)``.
    discriminator_loss_history_ : ndarray of shape (``n_iter_``,)
    n_iter_ : int
        Epochs run.
    n_steps_ : int
    converged_ : bool
    n_features_in_ : int

    Examples
    --------
    >>> from alphavb import AADMRegressor
    >>> from alphavb.datasets import make_bimodal
    >>> X, y = make_bimodal(200, random_state=0)
    >>> model = AADMRegressor(hidden_layer_sizes=(20,), generator_hidden=(20,), noise_dim=10,
    ...                       discriminator_hidden=(20,), n_epochs=5, tol=None, random_state=0)
    >>> model.fit(X, y).sample_predictive(X[:3], n_samples=4).shape
    (4, 3)
    """

    def __init__(self, divergence_order=1.0, hidden_layer_sizes=(50,), activation="leaky_relu",
                 generator_hidden=(50, 50), noise_dim=100, discriminator_hidden=(50, 50),
                 bias_posterior="point", draws_per_row=False, n_mc_samples=10,
                 n_predict_samples=100, batch_size=50, n_epochs=None, warmup_fraction=0.1,
                 learning_rate=1e-3, discriminator_learning_rate=1e-2,
                 discriminator_init_scale=None, tol=1e-3, n_iter_no_change=5, n_lr_decays=2,
                 noise_variance=None, learn_noise_variance=True, prior_variance=1.0,
                 learn_prior_variance=True, normalize=True, random_state=None, verbose=False,
                 dtype="float64"):
        self.divergence_order = divergence_order
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.generator_hidden = generator_hidden
        self.noise_dim = noise_dim
        self.discriminator_hidden = discriminator_hidden
        self.bias_posterior = bias_posterior
        self.draws_per_row = draws_per_row
        self.n_mc_samples = n_mc_samples
        self.n_predict_samples = n_predict_samples
        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.warmup_fraction = warmup_fraction
        self.learning_rate = learning_rate
        self.discriminator_learning_rate = discriminator_learning_rate
        self.discriminator_init_scale = discriminator_init_scale
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.n_lr_decays = n_lr_decays
        self.noise_variance = noise_variance
        self.learn_noise_variance = learn_noise_variance
        self.prior_variance = prior_variance
        self.learn_prior_variance = learn_prior_variance
        self.normalize = normalize
        self.random_state = random_state
        self.verbose = verbose
        self.dtype = dtype

    _parameter_constraints: ClassVar[dict] = {
        **DIVERGENCE_ORDER_CONSTRAINTS,
        "hidden_layer_sizes": [LayerSizes()],
        "activation": [Options(*ACTIVATIONS)],
        "generator_hidden": [LayerSizes()],
        "noise_dim": [Integer(1, None)],
        "discriminator_hidden": [LayerSizes()],
        "bias_posterior": [Options(*BIAS_POSTERIORS)],
        "draws_per_row": [Boolean()],
        "n_mc_samples": [Integer(1, None)],
        "n_predict_samples": [Integer(1, None)],
        "batch_size": [Integer(1, None)],
        "n_epochs": [None, Integer(1, None)],
        "warmup_fraction": [Real(0, 1)],
        "learning_rate": [Real(0, None, closed="neither")],
        "discriminator_learning_rate": [Real(0, None, closed="neither")],
        "discriminator_init_scale": [None, Real(0, None, closed="neither")],
        "tol": [None, Real(0, None)],
        "n_iter_no_change": [Integer(1, None)],
        "n_lr_decays": [Integer(0, None)],
        "noise_variance": [None, Real(0, None, closed="neither")],
        "learn_noise_variance": [Boolean()],
        "prior_variance": [Real(0, None, closed="neither")],
        "learn_prior_variance": [Boolean()],
        "normalize": [Boolean()],
        "random_state": [RandomState()],
        "verbose": [Integer(0, None), Boolean()],
        "dtype": [Options(*DTYPES)],
    }
    _parameter_hints: ClassVar[dict] = {
        "divergence_order": "0 (or 1e-4) is AVB, 1 the paper's choice for multimodal "
                            "predictives.",
        "warmup_fraction": "Use 0 for no warm-up.",
        "discriminator_init_scale": "Or None for N(0, 1/n_in) weights.",
        "tol": "Or None to train every epoch of the budget.",
        "noise_variance": "Or pass None for 0.01 var(y).",
    }

    def _prepare_fit(self, X, y):
        self._validate_params()
        order = self._divergence_order()
        sizes = {name: layer_sizes(getattr(self, name))
                 for name in ("hidden_layer_sizes", "generator_hidden", "discriminator_hidden")}
        X, y, noise_variance = self._regression_data(X, y, default_fraction=0.01)
        n_epochs = resolve_epochs(self.n_epochs, X.shape[0], self.batch_size,
                                  DEFAULT_AADM_STEPS)
        key = (type(self), tuple(sizes.items()), self.activation, self.noise_dim,
               self.bias_posterior, self.draws_per_row, self.n_mc_samples,
               self.n_predict_samples, self.batch_size, n_epochs, self.warmup_fraction,
               self.discriminator_init_scale is None, self.tol, self.n_iter_no_change,
               self.n_lr_decays,
               self.learn_noise_variance, self.learn_prior_variance, self.dtype, X.shape)
        return _PreparedFit(X, y, None, 1, order, noise_variance,
                            fit_generator(self.random_state), n_epochs, key)

    @classmethod
    def _fit_prepared(cls, estimators, prepared):
        """Train the stack of ``estimators`` (equal keys) on their ``prepared`` data."""
        first, head = estimators[0], prepared[0]
        sizes = dict(head.key[1])
        n_rows, n_features = head.X.shape
        layer_shapes = mlp_layer_shapes(n_features, sizes["hidden_layer_sizes"], 1)
        layout = _GeneratorLayout(layer_shapes, first.bias_posterior)
        generator_shapes = mlp_layer_shapes(first.noise_dim, sizes["generator_hidden"],
                                            layout.n_generated)
        discriminator_shapes = mlp_layer_shapes(layout.n_generated,
                                                sizes["discriminator_hidden"], 1)
        noise = np.array([p.noise for p in prepared])
        prior = np.array([e.prior_variance for e in estimators], dtype=float)
        params, adversary = _initial_parameters(estimators, prepared, layout, generator_shapes,
                                                discriminator_shapes, noise, prior)
        objective, unpack_scales = make_fast_aadm_objective(
            layer_shapes, first.activation, generator_shapes, discriminator_shapes,
            first.bias_posterior, first.n_mc_samples, first.draws_per_row, n_rows,
            np.array([p.order for p in prepared]), noise, prior, first.learn_noise_variance,
            first.learn_prior_variance)
        predict_seeds = [int(p.rng.integers(np.iinfo(np.int32).max)) for p in prepared]
        schedule = Schedule(
            batch_size=first.batch_size, learning_rate=[e.learning_rate for e in estimators],
            adversary_learning_rate=[e.discriminator_learning_rate for e in estimators],
            max_epochs=head.n_epochs, warmup_epochs=round(first.warmup_fraction
                                                          * head.n_epochs),
            tol=first.tol, n_iter_no_change=first.n_iter_no_change,
            n_decays=first.n_lr_decays)
        result = train(objective, params, [np.stack([p.X for p in prepared]),
                                           np.stack([p.targets for p in prepared])],
                       [p.rng for p in prepared], schedule, adversary=adversary,
                       name=cls.__name__, verbose=any(e.verbose for e in estimators),
                       dtype=np.dtype(first.dtype))
        noise_variance, prior_variance = map(np.asarray, unpack_scales(result.params))
        for index, estimator in enumerate(estimators):
            estimator.layer_shapes_ = layer_shapes
            estimator.generator_layer_shapes_ = generator_shapes
            estimator._layout = layout
            estimator._predict_seed = predict_seeds[index]
            estimator._params = [part[index:index + 1].copy() for part in result.params]
            estimator.generator_params_ = np.concatenate([part[index] for part in
                                                          result.params[:3]])
            estimator.bias_ = result.params[3][index].copy()
            estimator.discriminator_params_ = result.adversary[0][index].copy()
            estimator._model_noise = float(noise_variance[index])
            estimator.prior_variance_ = float(prior_variance[index])
            history = estimator._set_training_results(result, index, head.n_epochs)
            estimator.kl_history_ = history[:, 1]
            estimator.discriminator_loss_history_ = history[:, 2]
        return estimators

    def fit(self, X, y):
        """Fit the generator (and discriminator) to ``X`` (n_samples, n_features) and ``y``."""
        type(self)._fit_prepared([self], [self._prepare_fit(X, y)])
        return self

    def _weight_draws(self, n_draws, random_state=None):
        eps = self._prediction_generator(random_state).standard_normal(
            (1, n_draws, self.noise_dim))
        generated = generated_weights(self._params, eps, self.generator_layer_shapes_)
        return self._layout.assemble(generated, self._params[3])[0]


def _initial_parameters(estimators, prepared, layout, generator_shapes, discriminator_shapes,
                        noise, prior):
    """The starting point of each fit, stacked: the authors' N(0, 0.1^2) generator and noise
    mean, noise log-variance -5 + N(0, 0.1^2), N(0, 0.1^2) point biases, the learned scales
    at their starting values, and the discriminator at ``discriminator_init_scale``."""
    first = estimators[0]
    dim = first.noise_dim
    parts, discriminators = [], []
    for estimator, fit in zip(estimators, prepared, strict=True):
        rng = fit.rng
        parts.append([INITIAL_SCALE * rng.standard_normal(dim),
                      INITIAL_NOISE_LOG_VARIANCE + INITIAL_SCALE * rng.standard_normal(dim),
                      init_mlp(generator_shapes, rng, INITIAL_SCALE),
                      INITIAL_SCALE * rng.standard_normal(layout.n_biases)])
        discriminators.append(init_mlp(discriminator_shapes, rng,
                                       estimator.discriminator_init_scale))
    params = [np.stack(column) for column in zip(*parts, strict=True)]
    scales = [np.log(noise)] * first.learn_noise_variance \
        + [np.log(prior)] * first.learn_prior_variance
    params.append(np.column_stack(scales) if scales else np.zeros((len(estimators), 0)))
    return params, [np.stack(discriminators)]
