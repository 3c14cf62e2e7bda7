r"""Adversarial alpha-divergence minimization (AADM) with an implicit ``q``
(Rodríguez-Santana & Hernández-Lobato 2022).

Rodríguez-Santana & Hernández-Lobato, "Adversarial alpha-divergence minimization for
Bayesian approximate inference", Neurocomputing 2022 (AADM); the KL estimator is the
adaptive contrast of Mescheder, Nowozin & Geiger, "Adversarial variational Bayes", ICML 2017
(AVB).

Implicit posterior
------------------
``w = g_phi(z)``, ``z = mu + s * e``, ``e ~ N(0, I_D)``: ``g_phi`` is an MLP (leaky ReLU)
that emits the weights of the Bayesian network, and the input noise's mean ``mu`` and
log-variance ``log s^2`` are learned with it. With ``bias_posterior="point"`` (the authors'
code) the network's biases are point estimates learned beside ``phi``, and ``q``, the prior
and the KL cover the weight matrices only; with ``"implicit"`` the generator emits the
biases too.

Objective (to be minimized, a mini-batch ``B`` of ``N`` rows, ``K`` draws per row)
--------------------------------------------------------------------------------
::

    E(phi) = beta KL_hat - (N / (alpha B)) sum_{n in B} [lse_k(alpha log p(y_n | w_nk)) - log K]

(the data term of :func:`~alphavb.blackbox.energies.tempered_data_term`; ``alpha = 0`` is its
VB limit, i.e. AVB), ``beta`` the KL weight of the warm-up. With ``draws_per_row=True`` (the
authors' code) every row ``n`` has its own ``K`` draws ``w_nk``, ``B K`` draws per step;
otherwise the ``K`` draws are shared by the rows. With adaptive contrast, over all draws
``w_s`` of the step,

    KL_hat = mean_s [T(w~_s) + log r(w_s) - log p0(w_s)],   w~_s = (w_s - m) / s,

``r = N(m, diag(s^2))`` the factorized Gaussian with the draws' mean and standard deviation
(held constant in the gradient, as in the authors' code), ``p0 = N(0, v0 I)`` and ``T`` the
logit of a discriminator trained to tell ``w~`` from ``N(0, I)`` draws:
``max E_q~[log sigmoid T] + E_N(0,I)[log(1 - sigmoid T)]``, whose optimum is
``T* = log q~ - log N(0, I)``, so ``E_q[T*(w~)] = KL(q~ || N(0, I)) = KL(q || r)``. The gradient
of ``E`` holds the discriminator's weights fixed but differentiates ``T`` through ``w~``.
Each step takes one Adam step of the discriminator, then one of ``phi`` (and of the point
biases, ``log sigma^2`` and ``log v0``), on the same draws.
"""

import autograd.numpy as anp
import numpy as np
from autograd.extend import defvjp, primitive
from autograd.tracer import getval

from .._special import LOG_2PI
from ._mlp import mlp_forward, mlp_n_weights
from ._training import Objective, stacked_value_and_grad
from .energies import (
    gaussian_log_likelihood,
    per_coordinate,
    tempered_data_and_gradient,
    tempered_data_term,
)

AUXILIARY_ACTIVATION = "leaky_relu"  # the generator's and the discriminator's (the authors' choice)
VARIANCE_FLOOR = 1e-12  # keeps r a proper Gaussian when a coordinate does not vary


def init_mlp(layer_shapes, rng, scale=None):
    """Flat MLP weights: ``N(0, scale^2)`` entries, or ``N(0, 1/n_in)`` weights and zero
    biases when ``scale`` is None (the layout of :mod:`alphavb.blackbox._mlp`)."""
    parts = []
    for n_in, n_out in layer_shapes:
        sd = 1.0 / np.sqrt(n_in) if scale is None else scale
        parts += [sd * rng.standard_normal(n_in * n_out),
                  (0.0 if scale is None else scale) * rng.standard_normal(n_out)]
    return np.concatenate(parts)


def sigmoid_cross_entropy(logits_q, logits_reference):
    """The discriminator's loss ``-(mean log sigmoid(T_q) + mean log(1 - sigmoid(T_ref)))``,
    i.e. ``mean softplus(-T_q) + mean softplus(T_ref)`` (q-draws labelled 1), averaged over
    the last axis (one loss per leading entry)."""
    return (anp.mean(anp.logaddexp(0.0, -logits_q), axis=-1)
            + anp.mean(anp.logaddexp(0.0, logits_reference), axis=-1))


def discriminator_logit(params, X, layer_shapes):
    """``T(x)`` of discriminators ``params`` (..., P_T) for the rows of ``X`` (..., n, d):
    shape (..., n); differentiable in both."""
    return mlp_forward(params, X, layer_shapes, AUXILIARY_ACTIVATION)[..., 0]


def contrast_moments(weights):
    """Mean and standard deviation of the draws over their second-to-last axis (the draws of
    one ``q``), as constants: the adaptive-contrast Gaussian ``r`` (module docstring)."""
    weights = getval(weights)
    return (weights.mean(axis=-2, keepdims=True),
            np.sqrt(weights.var(axis=-2, keepdims=True) + VARIANCE_FLOOR))


def adaptive_contrast_kl(weights, mean, sd, logit, prior_variance):
    """Per-draw terms ``T(w~_k) + log r(w_k) - log p0(w_k)`` whose mean estimates
    ``KL(q || p0)`` (module docstring; AVB, Mescheder et al. 2017, Sec. 4).

    Parameters
    ----------
    weights : array of shape (..., K, P)
        Draws of ``q``.
    mean, sd : ndarray of shape (..., 1, P)
        The moments of ``r`` (:func:`contrast_moments`).
    logit : callable
        ``T``, mapping standardized draws (..., K, P) to (..., K).
    prior_variance : float or array of the leading shape
        ``v0`` of the prior ``N(0, v0 I)`` (may be an autograd value).

    Returns
    -------
    array of shape (..., K)
    """
    standardized = (weights - mean) / sd
    n_weights = weights.shape[-1]
    prior_variance = per_coordinate(prior_variance)
    log_r = (-0.5 * anp.sum(standardized**2, axis=-1) - np.sum(np.log(sd), axis=-1)
             - 0.5 * n_weights * LOG_2PI)
    log_p0 = -0.5 * (anp.sum(weights**2, axis=-1) / prior_variance
                     + n_weights * (anp.log(prior_variance) + LOG_2PI))
    return logit(standardized) + log_r - log_p0


class _GeneratorLayout:
    """Where the generated weights and the point biases go in the network's flat layout.

    The network's layout alternates each layer's weight matrix and bias; with point biases
    the generator emits the matrices only. ``weight_runs`` and ``bias_runs`` hold, per
    layer, ``(slice of the full layout, slice of the generated or bias vector)``: copies
    between the two layouts are one slice per layer, not a gather over every column."""

    def __init__(self, layer_shapes, bias_posterior):
        self.layer_shapes = layer_shapes
        self.point_biases = bias_posterior == "point"
        self.n_network = mlp_n_weights(layer_shapes)
        weight_runs, bias_runs, start, n_matrix, n_bias = [], [], 0, 0, 0
        for n_in, n_out in layer_shapes:
            size = n_in * n_out
            weight_runs.append((slice(start, start + size), slice(n_matrix, n_matrix + size)))
            bias_runs.append((slice(start + size, start + size + n_out),
                              slice(n_bias, n_bias + n_out)))
            start, n_matrix, n_bias = start + size + n_out, n_matrix + size, n_bias + n_out
        self.weight_runs, self.bias_runs = tuple(weight_runs), tuple(bias_runs)
        self.n_biases = n_bias if self.point_biases else 0
        self.n_generated = self.n_network - self.n_biases

    def assemble(self, generated, biases):
        """Full network weights (..., S, n_network) from generated draws (..., S,
        n_generated) and point biases (..., n_biases), shared by the S draws."""
        if not self.point_biases:
            return generated
        return _insert_biases(generated, biases, self.weight_runs, self.bias_runs)


def _gather(gradient, runs):
    """The columns of ``gradient`` (..., n_network) that ``runs`` name, in their order."""
    return np.concatenate([gradient[..., full] for full, _ in runs], axis=-1)


def _bias_gradient(gradient, bias_runs):
    """The biases' columns of ``gradient`` (..., S, n_network) summed over the S draws they
    are shared by, (..., n_biases). The sum runs along the draws held contiguous, the order
    (NumPy's pairwise summation) in which the former column gather summed them."""
    columns = np.ascontiguousarray(np.moveaxis(_gather(gradient, bias_runs), -1, 0))
    return np.moveaxis(columns.sum(axis=-1), 0, -1)


@primitive
def _insert_biases(generated, biases, weight_runs, bias_runs):
    """The flat network weights with the biases put in their columns: one copy, and a VJP
    that splits the gradient back (slicing by autograd would fill a zero array the size of
    all the draws for every layer)."""
    n_network = bias_runs[-1][0].stop
    full = np.empty((*generated.shape[:-1], n_network),
                    dtype=np.result_type(generated, biases))
    for full_part, part in weight_runs:
        full[..., full_part] = generated[..., part]
    for full_part, part in bias_runs:
        full[..., full_part] = biases[..., None, part]
    return full


defvjp(_insert_biases,
       lambda ans, generated, biases, weight_runs, bias_runs:
       lambda g: _gather(g, weight_runs),
       lambda ans, generated, biases, weight_runs, bias_runs:
       lambda g: _bias_gradient(g, bias_runs))


def generated_weights(params, eps, generator_shapes):
    """Generator outputs (M, S, P_g) for base noise ``eps`` (M, S, D), from ``params =
    [noise mean (M, D), noise log-variance (M, D), generator (M, P_gen), ...]``."""
    noise_mean, noise_log_variance, generator = params[:3]
    base = noise_mean[:, None] + anp.exp(0.5 * noise_log_variance)[:, None] * eps
    return mlp_forward(generator, base, generator_shapes, AUXILIARY_ACTIVATION)


def scales_unpacker(noise, prior_variance, learn_noise, learn_prior):
    """``unpack_scales(params) -> (sigma^2, v0)`` of a stack: learned (``exp`` of
    ``params[4]``: ``log sigma^2`` first, ``log v0`` last) or the fixed values."""
    def unpack_scales(params):
        scales = anp.exp(params[4])
        noise_variance = scales[:, 0] if learn_noise else noise
        prior = scales[:, -1] if learn_prior else prior_variance
        return noise_variance, prior

    return unpack_scales


def step_draws(layout, generator_shapes, n_mc_samples, draws_per_row):
    """``Objective.draw`` of AADM: a step's generator base noise and as many ``N(0, I)``
    reference draws for the discriminator."""
    noise_dim = generator_shapes[0][0]

    def draw(rng, n_rows):
        n_draws = n_rows * n_mc_samples if draws_per_row else n_mc_samples
        return (rng.standard_normal((n_draws, noise_dim)),
                rng.standard_normal((n_draws, layout.n_generated)))

    return draw


def make_aadm_objective(layer_shapes, activation, generator_shapes, discriminator_shapes,
                        bias_posterior, n_mc_samples, draws_per_row, n_total, alpha,
                        noise, prior_variance, learn_noise, learn_prior):
    """The AADM objective of a stack of ``M`` fits as pure functions (module docstring).

    ``params`` is ``[noise mean (M, D), noise log-variance (M, D), generator (M, P_g),
    point biases (M, P_b) or (M, 0), learned log-scales (M, L)]`` (``log sigma^2`` when
    ``learn_noise``, then ``log v0`` when ``learn_prior``); the adversary is ``[discriminator
    (M, P_T)]``; a step's draws are the generator's base noise and as many ``N(0, I)``
    reference draws for the discriminator.

    Returns
    -------
    objective : Objective
        Its values are ``[E, KL_hat]`` per fit (the loop adds the discriminator's loss).
    unpack_scales : callable
        ``unpack_scales(params) -> (sigma^2 (M,), v0 (M,))`` on the model's scale.
    """
    layout = _GeneratorLayout(layer_shapes, bias_posterior)
    unpack_scales = scales_unpacker(noise, prior_variance, learn_noise, learn_prior)
    draw = step_draws(layout, generator_shapes, n_mc_samples, draws_per_row)

    def standardized_draws(params, eps):
        weights = generated_weights(params, eps, generator_shapes)
        mean, sd = contrast_moments(weights)
        return weights, mean, sd

    def discriminator_loss(discriminator, params, batch, draws):
        weights, mean, sd = standardized_draws(params, draws[0])
        logits = discriminator_logit(discriminator, np.concatenate(
            [(weights - mean) / sd, draws[1]], axis=1), discriminator_shapes)
        n_q = weights.shape[1]
        return sigmoid_cross_entropy(logits[:, :n_q], logits[:, n_q:])

    def values(params, adversary, batch, draws, kl_weight):
        X_batch, y_batch = batch
        weights, mean, sd = standardized_draws(params, draws[0])
        noise_variance, prior = unpack_scales(params)
        discriminator = adversary[0]
        kl = anp.mean(adaptive_contrast_kl(
            weights, mean, sd,
            lambda x: discriminator_logit(discriminator, x, discriminator_shapes), prior),
            axis=-1)
        network = layout.assemble(weights, params[3])
        if draws_per_row:  # (M, B K, P) -> (M, B, K, P); row b meets its own draws
            n_rows = X_batch.shape[1]
            network = anp.reshape(network, (network.shape[0], n_rows, -1, network.shape[-1]))
            outputs = mlp_forward(network, X_batch[:, :, None, None, :], layer_shapes,
                                  activation)[..., 0, 0]
            outputs = anp.swapaxes(outputs, 1, 2)  # (M, K, B)
        else:
            outputs = mlp_forward(network, X_batch[:, None], layer_shapes, activation)[..., 0]
        log_lik = gaussian_log_likelihood(outputs, y_batch[:, None],
                                          anp.reshape(noise_variance, (-1, 1, 1)))
        energy = kl_weight * kl - tempered_data_term(log_lik, alpha, n_total)
        return anp.stack([energy, kl], axis=1)

    loss_and_gradient = stacked_value_and_grad(discriminator_loss)

    def adversary_value_and_grad(adversary, params, batch, draws):
        # differentiated as one array, not as a list: autograd would first fill a list of
        # zeros the size of the discriminator and add the gradient into it
        loss, gradient = loss_and_gradient(adversary[0], params, batch, draws)
        return loss, [gradient]

    return (Objective(draw, stacked_value_and_grad(values), adversary_value_and_grad),
            unpack_scales)


# -- the training hot path: the AADM step with its gradients derived by hand ---------------
#
# ``make_aadm_objective`` above is the readable definition, differentiated by autograd; the
# factory below computes the same values and gradients by the chain rule through the same
# steps (generator, contrast, discriminator, network, likelihood, log-sum-exp) in plain
# NumPy on the MLP passes of ``_mlp``, and takes the generator's forward pass once per step
# (the discriminator's step and the objective's share it). tests/blackbox/test_aadm.py
# checks both against autograd.


def _softplus_derivative(z):
    """``d softplus(z) / dz = sigmoid(z)``."""
    return 0.5 * (np.tanh(0.5 * z) + 1.0)


def make_fast_aadm_objective(layer_shapes, activation, generator_shapes, discriminator_shapes,
                             bias_posterior, n_mc_samples, draws_per_row, n_total, alpha,
                             noise, prior_variance, learn_noise, learn_prior):
    """:func:`make_aadm_objective` with gradients in closed form (same arguments, same
    ``Objective`` and ``unpack_scales``, values and gradients equal to autograd's)."""
    from ._mlp import _backward, _forward_pass

    layout = _GeneratorLayout(layer_shapes, bias_posterior)
    unpack_scales = scales_unpacker(noise, prior_variance, learn_noise, learn_prior)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), np.shape(noise) or (1,))
    n_generated = layout.n_generated
    shared = {}  # the generator pass of the step, from the discriminator's step to E's

    def generator_pass(params, draws):
        if shared.get("draws") is draws:  # the discriminator's step just took this pass
            del shared["draws"]
            return shared.pop("pass")
        noise_mean, noise_log_variance, generator = params[:3]
        scale = np.exp(0.5 * noise_log_variance)[:, None]
        base = noise_mean[:, None] + scale * draws[0]
        weights, saved = _forward_pass(generator, base, generator_shapes, AUXILIARY_ACTIVATION)
        mean, sd = contrast_moments(weights)
        return base, scale, weights, saved, sd, (weights - mean) / sd

    def adversary_value_and_grad(adversary, params, batch, draws):
        step = generator_pass(params, draws)
        shared.update(draws=draws, **{"pass": step})
        standardized = step[-1]
        inputs = np.concatenate([standardized, draws[1]], axis=1)
        logits, saved = _forward_pass(adversary[0], inputs, discriminator_shapes,
                                      AUXILIARY_ACTIVATION)
        logits = logits[..., 0]
        n_q = standardized.shape[1]
        q, ref = logits[:, :n_q], logits[:, n_q:]
        loss = (np.mean(np.logaddexp(0.0, -q), axis=-1)
                + np.mean(np.logaddexp(0.0, ref), axis=-1))
        upstream = np.concatenate([-_softplus_derivative(-q) / n_q,
                                   _softplus_derivative(ref) / ref.shape[1]], axis=1)
        (gradient,) = _backward(upstream[..., None], adversary[0], inputs,
                                discriminator_shapes, AUXILIARY_ACTIVATION, saved, argnums=(0,))
        return loss, [gradient]

    def value_and_grad(params, adversary, batch, draws, kl_weight):
        X_batch, y_batch = batch
        base, scale, weights, saved_generator, sd, standardized = generator_pass(
            params, draws)
        n_fits, n_draws = weights.shape[:2]
        # (in the parameters' precision: float32 training stays float32)
        noise_variance, prior = (np.broadcast_to(np.asarray(value, dtype=weights.dtype),
                                                 (n_fits,)) for value in unpack_scales(params))
        v0 = prior[:, None, None]
        # KL_hat = mean_s [T(w~_s) + log r(w_s) - log p0(w_s)]
        logits, saved_d = _forward_pass(adversary[0], standardized, discriminator_shapes,
                                        AUXILIARY_ACTIVATION)
        square_norm = np.sum(weights**2, axis=-1)
        log_r = (-0.5 * np.sum(standardized**2, axis=-1) - np.sum(np.log(sd), axis=-1)
                 - 0.5 * n_generated * LOG_2PI)
        log_p0 = -0.5 * (square_norm / v0[..., 0]
                         + n_generated * (np.log(v0[..., 0]) + LOG_2PI))
        kl = np.mean(logits[..., 0] + log_r - log_p0, axis=1)
        # the network's outputs for the batch, (M, K, B)
        network = layout.assemble(weights, params[3])
        if draws_per_row:
            n_rows = X_batch.shape[1]
            network = network.reshape(n_fits, n_rows, -1, network.shape[-1])
            X_draws = X_batch[:, :, None, None, :]
            outputs, saved_f = _forward_pass(network, X_draws, layer_shapes, activation)
            outputs = np.swapaxes(outputs[..., 0, 0], 1, 2)
        else:
            X_draws = X_batch[:, None]
            outputs, saved_f = _forward_pass(network, X_draws, layer_shapes, activation)
            outputs = outputs[..., 0]
        s2 = noise_variance[:, None, None]
        residual = y_batch[:, None] - outputs
        log_lik = -0.5 * (LOG_2PI + np.log(s2)) - residual**2 / (2.0 * s2)
        data, d_data = tempered_data_and_gradient(log_lik, alpha.astype(weights.dtype),
                                                  n_total)
        energy = kl_weight * kl - data
        d_log_lik = -d_data
        d_outputs = d_log_lik * residual / s2
        if draws_per_row:
            upstream = np.swapaxes(d_outputs, 1, 2)[..., None, None]
        else:
            upstream = d_outputs[..., None]
        (d_network,) = _backward(upstream, network, X_draws, layer_shapes, activation, saved_f,
                                 argnums=(0,))
        d_network = d_network.reshape(n_fits, n_draws, -1)
        # dE/dw: the KL's (through T, log r and log p0; r's moments held constant) and the
        # network's weight columns
        c = kl_weight / n_draws
        (d_standardized,) = _backward(np.full((n_fits, n_draws, 1), c, dtype=weights.dtype),
                                      adversary[0],
                                      standardized, discriminator_shapes, AUXILIARY_ACTIVATION,
                                      saved_d, argnums=(1,))
        d_weights = (d_standardized - c * standardized) / sd + c * weights / v0
        if layout.point_biases:
            for full, part in layout.weight_runs:
                d_weights[..., part] += d_network[..., full]
            d_biases = _bias_gradient(d_network, layout.bias_runs)
        else:
            d_weights += d_network
            d_biases = np.zeros_like(params[3])
        d_generator, d_base = _backward(d_weights, params[2], base, generator_shapes,
                                        AUXILIARY_ACTIVATION, saved_generator, argnums=(0, 1))
        d_noise_mean = d_base.sum(axis=1)
        d_noise_log_variance = 0.5 * np.sum(d_base * draws[0], axis=1) * scale[:, 0]
        d_scales = []
        if learn_noise:  # d/d log s2 = s2 dE/ds2, dl/ds2 = -1/(2 s2) + r^2 / (2 s2^2)
            d_scales.append(np.sum(d_log_lik * (-0.5 + residual**2 / (2.0 * s2)), axis=(1, 2)))
        if learn_prior:  # d(-log p0)/d log v0 = n/2 - |w|^2 / (2 v0), per draw, times c
            d_scales.append(c * np.sum(0.5 * n_generated - 0.5 * square_norm / prior[:, None],
                                       axis=1))
        d_scales = np.column_stack(d_scales) if d_scales else np.zeros_like(params[4])
        return (np.stack([energy, kl], axis=1),
                [d_noise_mean, d_noise_log_variance, d_generator, d_biases, d_scales])

    return (Objective(step_draws(layout, generator_shapes, n_mc_samples, draws_per_row),
                      value_and_grad, adversary_value_and_grad), unpack_scales)
