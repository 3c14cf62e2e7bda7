"""A multilayer perceptron evaluated for many weight draws at once, as one autograd primitive.

Flat weight layout (the ordering of ``posterior_mean_`` / ``posterior_var_``): layer by
layer, first the weight matrix of shape ``(n_in, n_out)`` in row-major order, then the
bias of length ``n_out``. Every weight and bias has the same prior ``N(0, prior_variance)``.

``mlp_forward(weights, X)`` takes weights of shape ``(..., n_weights)`` and inputs of shape
``(..., n_rows, n_inputs)`` whose leading axes broadcast against each other, as NumPy's
``matmul`` does: ``(K, P)`` draws with shared rows ``(n, d)``; ``(M, K, P)`` draws of ``M``
stacked models with ``(M, 1, n, d)`` rows per model; ``(M, P)`` generator networks with
``(M, S, D)`` noise.

``mlp_forward`` is an autograd primitive with hand-written vector-Jacobian products
(back-propagation through the layers, batched over the leading axes and summed over the
axes an argument was broadcast along) for the weights and for the inputs (AADM
differentiates through its generator's input noise and through the discriminator's input).
Tracing the network op by op gives the same gradient (``tests/naive.py`` keeps that version
and the tests compare them) but costs about 15 traced operations per layer; the training
loop is dominated by that per-operation overhead at the papers' sizes. The forward pass
keeps its hidden activations for the backward pass, so a gradient costs one forward pass,
not two.
"""

import itertools
import threading

import numpy as np
from autograd.extend import defvjp_argnums, primitive
from autograd.tracer import isbox


def _relu(z):
    return np.maximum(z, 0.0)


LEAKY_SLOPE = 0.2  # the slope of tf.nn.leaky_relu, used by the AADM authors' networks


def _leaky_relu(z):
    return np.where(z > 0, z, z.dtype.type(LEAKY_SLOPE) * z)


def _logistic(z):
    return 0.5 * (np.tanh(0.5 * z) + 1.0)


# name -> (activation, derivative as a function of (pre-activation z, activation a))
ACTIVATIONS = {
    "relu": (_relu, lambda z, a: (z > 0).astype(z.dtype)),
    # (the slopes in z's precision, so a float32 pass stays float32)
    "leaky_relu": (_leaky_relu, lambda z, a: np.where(z > 0, z.dtype.type(1.0),
                                                      z.dtype.type(LEAKY_SLOPE))),
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
    """Views ``(W of shape (..., n_in, n_out), b of shape (..., n_out))`` per layer."""
    lead, start, layers = weights.shape[:-1], 0, []
    for n_in, n_out in layer_shapes:
        stop = start + n_in * n_out
        layers.append((weights[..., start:stop].reshape(*lead, n_in, n_out),
                       weights[..., stop:stop + n_out]))
        start = stop + n_out
    return layers


def _forward_pass(weights, X, layer_shapes, activation):
    """Outputs and, per hidden layer, ``(pre-activation, activation)`` for the backward pass."""
    act = ACTIVATIONS[activation][0]
    layers = _unflatten(weights, layer_shapes)
    hidden, saved = X, []
    for W, b in layers[:-1]:
        z = np.matmul(hidden, W) + b[..., None, :]
        hidden = act(z)
        saved.append((z, hidden))
    W, b = layers[-1]
    return np.matmul(hidden, W) + b[..., None, :], saved


def mlp_forward(weights, X, layer_shapes, activation="relu"):
    """Outputs of the network for each weight draw.

    Parameters
    ----------
    weights : array of shape (..., n_weights)
        Flat weight vectors in the layout of the module docstring.
    X : array of shape (..., n_samples, n_inputs)
        Leading axes broadcast against those of ``weights``.
    layer_shapes : list of (n_in, n_out)
    activation : {"relu", "leaky_relu", "tanh", "logistic", "identity"}
        Applied after every hidden layer; the output layer is linear.

    Returns
    -------
    array of shape (broadcast leading axes..., n_samples, n_outputs)
    """
    if isbox(weights) or isbox(X):  # traced by autograd: the primitive with its VJPs
        return _traced_mlp(weights, X, layer_shapes, activation)
    return _forward_pass(weights, X, layer_shapes, activation)[0]


# The last traced forward pass of this thread: autograd builds the VJP right after the
# forward call, and the VJP takes the hidden activations from here instead of recomputing.
_LAST_PASS = threading.local()


@primitive
def _traced_mlp(weights, X, layer_shapes, activation):
    outputs, saved = _forward_pass(weights, X, layer_shapes, activation)
    _LAST_PASS.value = (outputs, saved)
    return outputs


def _sum_to_shape(array, shape):
    """Sum ``array`` over the axes along which an argument of ``shape`` was broadcast."""
    extra = array.ndim - len(shape)
    if extra:
        array = array.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and array.shape[i] != 1)
    return array.sum(axis=axes, keepdims=True) if axes else array


def _backward(upstream, weights, X, layer_shapes, activation, saved, argnums=(0, 1)):
    """Gradients of ``sum(upstream * mlp_forward(weights, X))`` with respect to the weights
    (argnum 0) and the inputs (argnum 1), in the order of ``argnums``; only those asked for
    are computed. ``saved`` holds the forward pass's hidden activations. Each layer's
    weight gradient is written in place into the flat gradient (no concatenation pass over
    the largest matrices)."""
    derivative = ACTIVATIONS[activation][1]
    layers = _unflatten(weights, layer_shapes)
    inputs = [X] + [hidden for _, hidden in saved]
    lead = weights.shape[:-1]
    if 0 in argnums:
        grad_weights = np.empty(weights.shape, dtype=np.result_type(weights, upstream))
        gradient_layers = _unflatten(grad_weights, layer_shapes)
    delta = upstream  # gradient with respect to the current layer's pre-activation
    for layer in range(len(layers) - 1, -1, -1):
        W, _ = layers[layer]
        if 0 in argnums:
            grad_W, grad_b = gradient_layers[layer]
            layer_input = np.swapaxes(inputs[layer], -1, -2)
            if np.broadcast_shapes(layer_input.shape[:-2], delta.shape[:-2]) == lead:
                np.matmul(layer_input, delta, out=grad_W)  # no broadcast axis to sum over
            else:
                grad_W[...] = _sum_to_shape(np.matmul(layer_input, delta), W.shape)
            grad_b[...] = _sum_to_shape(delta.sum(axis=-2), (*lead, W.shape[-1]))
        if layer > 0 or 1 in argnums:
            delta_in = np.matmul(delta, np.swapaxes(W, -1, -2))
            if layer > 0:
                z, a = saved[layer - 1]
                delta = delta_in * derivative(z, a)
    gradients = {}
    if 0 in argnums:
        gradients[0] = grad_weights
    if 1 in argnums:
        gradients[1] = _sum_to_shape(delta_in, X.shape)
    return tuple(gradients[argnum] for argnum in argnums)


def _mlp_forward_vjp(argnums, outputs, args, kwargs):
    """One backward pass serves the weights (argnum 0) and the inputs (argnum 1)."""
    weights, X, layer_shapes, activation = args
    last = getattr(_LAST_PASS, "value", None)
    if last is not None and last[0] is outputs:
        saved = last[1]
    else:  # not the pass just taken: recompute the activations
        saved = _forward_pass(weights, X, layer_shapes, activation)[1]
    _LAST_PASS.value = None
    return lambda upstream: _backward(upstream, weights, X, layer_shapes, activation, saved,
                                      argnums)


defvjp_argnums(_traced_mlp, _mlp_forward_vjp)
