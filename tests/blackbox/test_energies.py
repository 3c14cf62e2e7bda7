"""BB-alpha energies against the closed form of the linear-Gaussian model (spec §7)."""

import autograd.numpy as anp
import numpy as np
import pytest
from autograd import grad, value_and_grad
from scipy.optimize import minimize

from alphavb.blackbox._mlp import mlp_forward, mlp_layer_shapes, mlp_n_weights
from alphavb.blackbox.energies import bbalpha_energy, gaussian_log_likelihood
from tests.naive import linear_gaussian_exact_energy, traced_mlp_forward

NOISE_VARIANCE, PRIOR_VARIANCE = 0.25, 1.0


@pytest.fixture
def linear_data(rng):
    X = rng.standard_normal((30, 2))
    y = X @ np.array([1.0, -0.5]) + 0.3 + 0.5 * rng.standard_normal(30)
    return X, y


def linear_log_likelihood(X, y):
    shapes = mlp_layer_shapes(X.shape[1], (), 1)

    def log_likelihood(weights):
        return gaussian_log_likelihood(mlp_forward(weights, X, shapes)[..., 0], y,
                                       NOISE_VARIANCE)

    return log_likelihood


def some_q(rng, n_weights):
    return np.r_[0.5 * rng.standard_normal(n_weights), np.log(rng.uniform(0.005, 0.05, n_weights))]


@pytest.mark.parametrize("alpha", [0.0, 1e-3, 0.5, 1.0])
def test_exact_energy_monte_carlo_converges_to_closed_form(rng, linear_data, alpha):
    X, y = linear_data
    q_params = some_q(rng, 3)
    closed = linear_gaussian_exact_energy(q_params, X, y, NOISE_VARIANCE, PRIOR_VARIANCE, alpha)
    replicates = [bbalpha_energy(q_params, linear_log_likelihood(X, y),
                                 rng.standard_normal((50_000, 3)), len(y), alpha,
                                 PRIOR_VARIANCE, "exact") for _ in range(8)]
    # the estimate of log E[p^alpha] has O(1/K) bias and O(1/sqrt(K)) noise: at K = 50,000
    # the bias is far below the noise, so the replicates scatter around the closed form
    standard_error = np.std(replicates, ddof=1) / np.sqrt(len(replicates))
    assert standard_error < 1e-3 * abs(closed)
    assert abs(np.mean(replicates) - closed) < 5 * standard_error + 1e-9 * abs(closed)


@pytest.mark.parametrize("energy", ["exact", "reparametrized"])
def test_small_alpha_tends_to_the_vb_energy(rng, linear_data, energy):
    X, y = linear_data
    q_params = some_q(rng, 3)
    eps = rng.standard_normal((50, 3))
    log_lik = linear_log_likelihood(X, y)
    vb = bbalpha_energy(q_params, log_lik, eps, len(y), 0.0, PRIOR_VARIANCE, energy)
    for alpha, tolerance in ((1e-3, 1e-2), (1e-6, 1e-5)):
        value = bbalpha_energy(q_params, log_lik, eps, len(y), alpha, PRIOR_VARIANCE, energy)
        assert abs(value - vb) < tolerance * abs(vb)
    # and the alpha = 0 energy is the VB energy's closed form, to Monte-Carlo accuracy
    eps = rng.standard_normal((200_000, 3))
    vb = bbalpha_energy(q_params, log_lik, eps, len(y), 0.0, PRIOR_VARIANCE, energy)
    closed = linear_gaussian_exact_energy(q_params, X, y, NOISE_VARIANCE, PRIOR_VARIANCE, 0.0)
    assert vb == pytest.approx(closed, rel=2e-3)


def test_reparametrized_energy_at_alpha_one_is_kl_minus_log_predictive(rng, linear_data):
    """At alpha = 1 the reparametrized energy's data term is the log of the Gaussian
    predictive N(y; x'm, s2 + sum x^2 v), in closed form."""
    X, y = linear_data
    q_params = some_q(rng, 3)
    design = np.column_stack([X, np.ones(len(y))])
    mean, variance = q_params[:3], np.exp(q_params[3:])
    kl = 0.5 * np.sum(variance + mean**2 - 1 - np.log(variance))
    predictive_var = NOISE_VARIANCE + design**2 @ variance
    log_pred = -0.5 * np.log(2 * np.pi * predictive_var) - (y - design @ mean)**2 / (
        2 * predictive_var)
    eps = rng.standard_normal((200_000, 3))
    value = bbalpha_energy(q_params, linear_log_likelihood(X, y), eps, len(y), 1.0,
                           PRIOR_VARIANCE, "reparametrized")
    assert value == pytest.approx(kl - log_pred.sum(), rel=2e-3)


# (weights, inputs, outputs) shapes: draws sharing the rows; one set of rows per draw (AADM's
# generator and discriminator); stacked models, each with K draws sharing its own rows; and
# one draw per row (each row of a mini-batch with its own K draws)
BROADCAST_SHAPES = {"X shared": ((6,), (7,)), "X per draw": ((6,), (6, 7)),
                    "stacked models": ((2, 3), (2, 1, 7)),
                    "draws per row": ((2, 7, 3), (2, 7, 1, 1))}


@pytest.mark.parametrize("layout", list(BROADCAST_SHAPES))
@pytest.mark.parametrize("activation", ["relu", "leaky_relu", "tanh", "logistic", "identity"])
def test_mlp_gradients_match_the_traced_network(rng, activation, layout):
    """Both vector-Jacobian products of the primitive (weights and inputs, with their
    leading axes broadcast against each other in every way the estimators use) equal those
    of the op-by-op traced network."""
    shapes = mlp_layer_shapes(3, (4, 5), 2)
    n_weights = mlp_n_weights(shapes)
    lead_weights, lead_inputs = BROADCAST_SHAPES[layout]
    weights = rng.standard_normal((*lead_weights, n_weights))
    X = rng.standard_normal((*lead_inputs, 3))  # the last leading axis holds the rows
    outputs = traced_mlp_forward(weights, X, shapes, activation)
    upstream = rng.standard_normal(outputs.shape)
    for argnum in (0, 1):
        ours = grad(lambda w, x: anp.sum(mlp_forward(w, x, shapes, activation) * upstream),
                    argnum)(weights, X)
        traced = grad(lambda w, x: anp.sum(traced_mlp_forward(w, x, shapes, activation)
                                           * upstream), argnum)(weights, X)
        assert ours.shape == (weights if argnum == 0 else X).shape
        np.testing.assert_allclose(ours, traced, atol=1e-10)
    np.testing.assert_allclose(mlp_forward(weights, X, shapes, activation), outputs,
                               atol=1e-12)


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("energy", ["exact", "reparametrized"])
def test_energy_gradient_matches_finite_differences(rng, alpha, energy):
    shapes = mlp_layer_shapes(3, (4,), 1)
    n_weights = mlp_n_weights(shapes)
    X, y = rng.standard_normal((9, 3)), rng.standard_normal(9)
    eps = rng.standard_normal((5, n_weights))

    def energy_of(theta):  # q parameters, then log noise variance and log prior variance
        def log_lik(weights):
            return gaussian_log_likelihood(mlp_forward(weights, X, shapes, "tanh")[..., 0], y,
                                           anp.exp(theta[-2]))

        return bbalpha_energy(theta[:-2], log_lik, eps, 40, alpha, anp.exp(theta[-1]), energy)

    theta = np.r_[some_q(rng, n_weights), np.log(0.3), np.log(2.0)]
    _, gradient = value_and_grad(energy_of)(theta)
    step = 1e-5  # central differences: O(step^2) error, and round-off well below 1e-6
    numeric = np.array([(energy_of(theta + step * e) - energy_of(theta - step * e)) / (2 * step)
                        for e in np.eye(theta.size)])
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-6)


def test_closed_form_minimizer_is_stationary_and_moment_matches(linear_data):
    """Self-check of the reference used by the fit test: at the minimizer of the closed-form
    exact energy, q matches the average of the tilted distributions' moments (the BB-alpha
    fixed point, Hernández-Lobato et al. 2016, Sec. 3)."""
    X, y = linear_data
    alpha, n_total = 0.5, len(y)
    energy = value_and_grad(lambda q: linear_gaussian_exact_energy(
        q, X, y, NOISE_VARIANCE, PRIOR_VARIANCE, alpha))
    result = minimize(energy, np.r_[np.zeros(3), np.full(3, -3.0)], jac=True,
                      method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000})
    mean, variance = result.x[:3], np.exp(result.x[3:])
    ratio = alpha / n_total
    cav_precision = (1 - ratio) / variance + ratio / PRIOR_VARIANCE
    cav_natural = (1 - ratio) * mean / variance
    design = np.column_stack([X, np.ones(n_total)])
    first, second = np.zeros(3), np.zeros(3)
    # tilted: cavity times N(y; x'w, s2)^alpha, Gaussian
    for x, target in zip(design, y, strict=True):
        precision = np.diag(cav_precision) + alpha * np.outer(x, x) / NOISE_VARIANCE
        covariance = np.linalg.inv(precision)
        tilted_mean = covariance @ (cav_natural + alpha * x * target / NOISE_VARIANCE)
        first += tilted_mean / n_total
        second += (np.diag(covariance) + tilted_mean**2) / n_total
    np.testing.assert_allclose(mean, first, atol=1e-7)
    np.testing.assert_allclose(variance + mean**2, second, rtol=1e-7)


def test_adam_matches_autograds_adam(rng):
    """alphavb's Adam takes the same steps as autograd.misc.optimizers.adam, for each fit of
    a stack with its own step size, and leaves inactive fits as they are."""
    from autograd.misc.optimizers import adam

    from alphavb.blackbox._optim import Adam

    target = rng.standard_normal(5)

    def gradient(x, i):
        return np.sin(i) * (x - target) + 0.1 * x**3

    step_sizes = (0.05, 0.01)
    references = [adam(gradient, np.ones(5), num_iters=50, step_size=step)
                  for step in step_sizes]
    params = [np.ones((3, 5))]
    ours = Adam(params, np.array([*step_sizes, 0.05]))
    for i in range(50):
        ours.step(params, [np.stack([gradient(x, i) for x in params[0]])],
                  active=np.array([True, True, False]))
    np.testing.assert_allclose(params[0][:2], references, rtol=1e-12)
    np.testing.assert_array_equal(params[0][2], np.ones(5))


@pytest.mark.parametrize("energy", ["exact", "reparametrized"])
@pytest.mark.parametrize("likelihood", ["gaussian", "probit", "softmax"])
def test_hand_derived_gradient_equals_autograd(rng, energy, likelihood):
    """The training hot path (bbalpha_energy_and_gradient) computes the energy of
    bbalpha_energy and autograd's gradient of it, for a stack of fits with alpha = 0, 0.5,
    1 and 3, through a two-layer network, with respect to the means, log-variances, prior
    variances and noise variances."""
    from alphavb.blackbox.energies import (
        bbalpha_energy_and_gradient,
        probit_log_likelihood,
        softmax_log_likelihood,
    )

    alphas = np.array([0.0, 0.5, 1.0, 3.0])
    n_fits, n_total, batch, draws = len(alphas), 40, 6, 5
    n_outputs = 3 if likelihood == "softmax" else 1
    shapes = mlp_layer_shapes(2, (4,), n_outputs)
    n_weights = mlp_n_weights(shapes)
    mean = 0.5 * rng.standard_normal((n_fits, n_weights))
    log_variance = np.log(rng.uniform(0.01, 0.3, (n_fits, n_weights)))
    prior, noise = rng.uniform(0.5, 2.0, n_fits), rng.uniform(0.2, 1.0, n_fits)
    eps = rng.standard_normal((n_fits, draws, n_weights))
    X = rng.standard_normal((n_fits, batch, 2))
    if likelihood == "gaussian":
        targets = rng.standard_normal((n_fits, batch))
    elif likelihood == "probit":
        targets = rng.choice([-1.0, 1.0], (n_fits, batch))
    else:
        targets = np.eye(3)[rng.integers(0, 3, (n_fits, batch))]

    def total(mean, log_variance, prior, noise):
        def log_lik(weights):
            outputs = mlp_forward(weights, X[:, None], shapes, "tanh")
            if likelihood == "gaussian":
                return gaussian_log_likelihood(outputs[..., 0], targets[:, None],
                                               noise[:, None, None])
            if likelihood == "probit":
                return probit_log_likelihood(outputs[..., 0], targets[:, None])
            return softmax_log_likelihood(outputs, targets[:, None])

        return bbalpha_energy(anp.concatenate([mean, log_variance], axis=1), log_lik, eps,
                              n_total, alphas, prior, energy)

    expected = total(mean, log_variance, prior, noise)
    value, gradients = bbalpha_energy_and_gradient(
        mean, log_variance, prior, noise, eps, X, targets, alphas, n_total, energy, shapes,
        "tanh", likelihood)
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    for argnum, ours in enumerate(gradients):
        if argnum == 3 and likelihood != "gaussian":  # no noise variance in the model
            np.testing.assert_array_equal(ours, 0.0)
            continue
        reference = grad(lambda *args: anp.sum(total(*args)), argnum)(mean, log_variance,
                                                                      prior, noise)
        np.testing.assert_allclose(ours, reference, rtol=1e-9, atol=1e-11)


def test_an_unknown_energy_is_refused_by_name():
    import numpy as np

    with pytest.raises(ValueError, match="'energy' parameter of bbalpha_energy must be one of"):
        bbalpha_energy(np.zeros(4), lambda w: np.zeros((*w.shape[:-1], 3)), np.zeros((2, 2)),
                       3, 0.5, 1.0, energy="exakt")
