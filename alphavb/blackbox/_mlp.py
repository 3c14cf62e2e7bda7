"""A multilayer perceptron evaluated for K weight draws at once, as one autograd primitive.

Flat weight layout (the ordering of ``posterior_mean_`` / ``posterior_var_``): layer by
layer, first the weight matrix of shape ``(n_in, n_out)`` in row-major order, then the
bias of length ``n_out``. Every weight and bias has the same prior ``N(0, prior_variance)``.

``mlp_forward`` is an autograd primitive with hand-written vector-Jacobian products
(back-propagation through the layers, batched over the K draws) for the weights and for
the inputs (AADM differentiates through its generator's input noise and through the
discriminator's input). Tracing
the network op by op gives the same gradient (``tests/naive.py`` keeps that version and
the tests compare them) but costs about 15 traced operations per layer; the BB-alpha
training loop is dominated by that per-operation overhead at the paper's sizes.
"""

import itertools

import numpy as np
from autograd.extend import defvjp_argnums, primitive


def _relu(z):
    return np.maximum(z, 0.0)


LEAKY_SLOPE = 0.2  # the slope of tf.nn.leaky_relu, used by the AADM authors' networks


def _leaky_relu(z):
    return np.where(z > 0, z, LEAKY_SLOPE * z)


def _logistic(z):
    return 0.5 * (np.tanh(0.5 * z) + 1.0)


# name -> (activation, derivative as a function of (pre-activation z, activation a))
ACTIVATIONS = {
    "relu": (_relu, lambda z, a: (z > 0).astype(z.dtype)),
    "leaky_relu": (_leaky_relu, lambda z, a: np.where(z > 0, 1.0, LEAKY_SLOPE)),
    "tanh": (np.tanh, lambda z, a: 1.0 - a**2),
    "logistic": (_logistic, lambda z, a: a * (1.0 - a)),
    "identity": (lambda z: z, lambda z, a: np.ones_like(z)),
}


def mlp_layer_shapes(n_inputs, hidden_layer_sizes, n_outputs):
    """``[(n_in, n_out), ...]`` of every layer; ``hidden_layer_sizes=()`` is a linear model."""
    sizes = [n_inputs, *hidden_layer_sizes, n_outputs]
    return list(itertools.pairwise(sizes))


def mlp_n_weights(layer_shapes):
    """Number of weights and biases of the network."""
    return sum(n_in * n_out + n_out for n_in, n_out in layer_shapes)


def _unflatten(weights, layer_shapes):
    """Views ``(W of shape (K, n_in, n_out), b of shape (K, n_out))`` per layer."""
    n_draws, start, layers = weights.shape[0], 0, []
    for n_in, n_out in layer_shapes:
        stop = start + n_in * n_out
        layers.append((weights[:, start:stop].reshape(n_draws, n_in, n_out),
                       weights[:, stop:stop + n_out]))
        start = stop + n_out
    return layers


def _forward_pass(weights, X, layer_shapes, activation):
    """Outputs and, per hidden layer, ``(pre-activation, activation)`` for the backward pass."""
    act = ACTIVATIONS[activation][0]
    layers = _unflatten(weights, layer_shapes)
    hidden, saved = X, []
    for W, b in layers[:-1]:
        z = np.matmul(hidden, W) + b[:, None, :]
        hidden = act(z)
        saved.append((z, hidden))
    W, b = layers[-1]
    return np.matmul(hidden, W) + b[:, None, :], saved


@primitive
def mlp_forward(weights, X, layer_shapes, activation="relu"):
    """Outputs of the network for each of K weight draws.

    Parameters
    ----------
    weights : array of shape (K, n_weights)
        K flat weight vectors in the layout of the module docstring.
    X : array of shape (n_samples, n_inputs), shared by the draws, or (K, n_samples, n_inputs)
    layer_shapes : list of (n_in, n_out)
    activation : {"relu", "leaky_relu", "tanh", "logistic", "identity"}
        Applied after every hidden layer; the output layer is linear.

    Returns
    -------
    ndarray of shape (K, n_samples, n_outputs)
    """
    return _forward_pass(weights, X, layer_shapes, activation)[0]


def _backward(upstream, weights, X, layer_shapes, activation, argnums=(0, 1)):
    """Gradients of ``sum(upstream * mlp_forward(weights, X))`` with respect to the weights
    (argnum 0) and the inputs (argnum 1), in the order of ``argnums``; only those asked for
    are computed."""
    derivative = ACTIVATIONS[activation][1]
    layers = _unflatten(weights, layer_shapes)
    saved = _forward_pass(weights, X, layer_shapes, activation)[1]
    inputs = [X] + [hidden for _, hidden in saved]
    grads = []
    delta = upstream  # gradient with respect to the current layer's pre-activation
    for layer in range(len(layers) - 1, -1, -1):
        W, _ = layers[layer]
        if 0 in argnums:
            layer_input = inputs[layer]
            if layer_input.ndim == 2:  # X, shared by the draws
                grad_W = np.matmul(layer_input.T, delta)
            else:
                grad_W = np.matmul(np.swapaxes(layer_input, 1, 2), delta)
            grads.append(delta.sum(axis=1))
            grads.append(grad_W.reshape(W.shape[0], -1))
        if layer > 0:
            z, a = saved[layer - 1]
            delta = np.matmul(delta, np.swapaxes(W, 1, 2)) * derivative(z, a)
    gradients = {}
    if 0 in argnums:
        gradients[0] = np.concatenate(grads[::-1], axis=1)
    if 1 in argnums:
        grad_X = np.matmul(delta, np.swapaxes(layers[0][0], 1, 2))
        gradients[1] = grad_X.sum(axis=0) if X.ndim == 2 else grad_X
    return tuple(gradients[argnum] for argnum in argnums)


def _mlp_forward_vjp(argnums, outputs, args, kwargs):
    """One backward pass serves the weights (argnum 0) and the inputs (argnum 1)."""
    weights, X, layer_shapes = args[:3]
    activation = args[3] if len(args) > 3 else kwargs.get("activation", "relu")
    return lambda upstream: _backward(upstream, weights, X, layer_shapes, activation, argnums)


defvjp_argnums(mlp_forward, _mlp_forward_vjp)
