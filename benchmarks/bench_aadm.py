"""AADM training: time per step of alphavb (autograd) against the same step in plain PyTorch.

One step = one Adam step of the discriminator and one of the generator on a mini-batch, as
``AADMRegressor.fit`` takes them. The set-up is the AADM paper's bimodal toy problem:
1,000 points of ``alphavb.datasets.make_bimodal``, batch 10, K = 10 weight draws, alpha = 1,
and the default networks of ``AADMRegressor``:
- a BNN with two hidden layers of 50 leaky-ReLU units, 2,701 weights;
- a generator 100 -> 50 -> 50 -> 2,701;
- a discriminator 2,701 -> 50 -> 50 -> 1.

* **alphavb**: ``AADMRegressor(n_epochs=E).fit``, float64, time divided by the steps taken.
* **PyTorch**: the same objective written in plain PyTorch on the same flat parameter
  layouts, ``torch.optim.Adam`` with the same step sizes, in float64 and float32. Before
  timing, its objective is compared with alphavb's on the same parameters and draws (the
  output states the relative difference).

Threads: both are timed with 1 thread (``torch.set_num_threads`` and threadpoolctl for
NumPy's BLAS) and with 2. Median over ``--repeats`` runs of ``--epochs`` epochs each, after a
warm-up epoch.

Needs ``pip install torch==2.13.0`` (not a dependency of alphavb).

Run: python benchmarks/bench_aadm.py [--epochs E] [--repeats R]
"""

import argparse
import math
import time

import numpy as np
from threadpoolctl import threadpool_limits

from alphavb import AADMRegressor
from alphavb.blackbox._aadm import adaptive_contrast_kl, contrast_moments
from alphavb.blackbox._mlp import LEAKY_SLOPE, mlp_forward
from alphavb.blackbox.energies import gaussian_log_likelihood, tempered_data_term
from alphavb.datasets import make_bimodal

ALPHA, BATCH, DRAWS = 1.0, 10, 10


def torch_mlp(torch, weights, X, layer_shapes):
    """The flat-layout MLP of ``alphavb.blackbox._mlp`` for weights (K, P), leaky ReLU."""
    start, hidden = 0, X
    for layer, (n_in, n_out) in enumerate(layer_shapes):
        W = weights[:, start:start + n_in * n_out].reshape(-1, n_in, n_out)
        b = weights[:, start + n_in * n_out:start + n_in * n_out + n_out]
        start += n_in * n_out + n_out
        hidden = torch.matmul(hidden, W) + b[:, None, :]
        if layer < len(layer_shapes) - 1:
            hidden = torch.nn.functional.leaky_relu(hidden, LEAKY_SLOPE)
    return hidden


class TorchAADM:
    """The AADM step of ``AADMRegressor.fit`` in plain PyTorch, from a fitted model's
    parameters (so both start from the same point)."""

    def __init__(self, torch, model, dtype, n_total):
        self.torch, self.model, self.n_total = torch, model, n_total
        def as_tensor(values):
            return torch.tensor(np.asarray(values), dtype=dtype, requires_grad=True)

        self.theta = [as_tensor(part) for part in model._theta]
        self.disc = as_tensor(model.discriminator_params_)
        self.disc_shapes = _discriminator_shapes(model)
        self.opt_gen = torch.optim.Adam(self.theta, lr=model.learning_rate)
        self.opt_disc = torch.optim.Adam([self.disc], lr=model.discriminator_learning_rate)
        self.dtype = dtype

    def generate(self, eps):
        mean, log_variance, generator, _ = self.theta
        noise = mean + self.torch.exp(0.5 * log_variance) * eps
        return torch_mlp(self.torch, generator[None, :], noise,
                         self.model.generator_layer_shapes_)[0]

    def logit(self, standardized):
        return torch_mlp(self.torch, self.disc[None, :], standardized, self.disc_shapes)[0, :, 0]

    def objective(self, eps, X, y, kl_weight):
        torch = self.torch
        weights = self.generate(eps)
        mean, sd = weights.detach().mean(0), torch.sqrt(weights.detach().var(0, unbiased=False)
                                                        + 1e-12)
        standardized = (weights - mean) / sd
        n_weights = weights.shape[1]
        scales = torch.exp(self.theta[3])
        noise, prior = scales[0], scales[1]
        log_r = (-0.5 * (standardized**2).sum(1) - torch.log(sd).sum()
                 - 0.5 * n_weights * math.log(2 * math.pi))
        log_p0 = -0.5 * ((weights**2).sum(1) / prior
                         + n_weights * (torch.log(prior) + math.log(2 * math.pi)))
        kl = (self.logit(standardized) + log_r - log_p0).mean()
        outputs = torch_mlp(torch, weights, X, self.model.layer_shapes_)[..., 0]
        log_lik = (-0.5 * (math.log(2 * math.pi) + torch.log(noise))
                   - (y - outputs)**2 / (2 * noise))
        data = (self.n_total / (ALPHA * X.shape[0])) * (
            torch.logsumexp(ALPHA * log_lik, 0) - math.log(DRAWS)).sum()
        return kl_weight * kl - data

    def step(self, eps, reference, X, y, kl_weight):
        torch = self.torch
        with torch.no_grad():
            weights = self.generate(eps)
            mean = weights.mean(0)
            sd = torch.sqrt(weights.var(0, unbiased=False) + 1e-12)
        logits = self.logit(torch.cat([(weights - mean) / sd, reference]))
        loss = (torch.nn.functional.softplus(-logits[:DRAWS]).mean()
                + torch.nn.functional.softplus(logits[DRAWS:]).mean())
        self.opt_disc.zero_grad()
        loss.backward()
        self.opt_disc.step()
        self.disc.requires_grad_(False)
        value = self.objective(eps, X, y, kl_weight)
        self.opt_gen.zero_grad()
        value.backward()
        self.opt_gen.step()
        self.disc.requires_grad_(True)


def _discriminator_shapes(model):
    from alphavb.blackbox._mlp import mlp_layer_shapes, mlp_n_weights

    return mlp_layer_shapes(mlp_n_weights(model.layer_shapes_), model.discriminator_hidden, 1)


def alphavb_objective(model, eps, X, y, kl_weight):
    """The objective of ``AADMRegressor.fit`` from its public building blocks."""
    from alphavb.blackbox._aadm import Discriminator

    weights = model._generate(model._theta, eps)
    noise, prior = model._unpack_scales(model._theta)
    mean, sd = contrast_moments(weights)
    discriminator = Discriminator(weights.shape[1], model.discriminator_hidden, 1e-3,
                                  np.random.RandomState(0))
    discriminator.params = model.discriminator_params_
    kl = np.mean(adaptive_contrast_kl(weights, mean, sd, discriminator.logit, prior))
    outputs = mlp_forward(weights, X, model.layer_shapes_, model.activation)
    data = tempered_data_term(gaussian_log_likelihood(outputs[..., 0], y, noise), ALPHA,
                              1000)
    return kl_weight * kl - data


def main():
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X, y = make_bimodal(1000, random_state=0)
    X = (X - X.mean()) / X.std()
    y = (y - y.mean()) / y.std()
    steps_per_epoch = math.ceil(len(y) / BATCH)
    model = AADMRegressor(alpha=ALPHA, n_epochs=1, normalize=False, random_state=0).fit(X, y)

    rng = np.random.default_rng(0)
    eps = rng.standard_normal((DRAWS, model.noise_dim))
    rows = rng.choice(len(y), BATCH, replace=False)
    ours = float(alphavb_objective(model, eps, X[rows], y[rows], 1.0))
    reference = TorchAADM(torch, model, torch.float64, len(y))
    theirs = reference.objective(torch.tensor(eps), torch.tensor(X[rows]),
                                 torch.tensor(y[rows]), 1.0).item()
    print(f"objective: alphavb {ours!r}, PyTorch float64 {theirs!r}, relative "
          f"difference {abs(ours - theirs) / abs(ours):.1e}")

    print(f"\n{steps_per_epoch} steps per epoch; ms per step, median of {args.repeats} runs "
          f"of {args.epochs} epochs")
    print("| threads | implementation | ms per step | ratio to PyTorch float64 |")
    print("|---|---|---|---|")
    for threads in (1, 2):
        torch.set_num_threads(threads)
        with threadpool_limits(threads):
            times = {}
            for _ in range(args.repeats):
                start = time.perf_counter()
                model.set_params(n_epochs=args.epochs).fit(X, y)
                times.setdefault("alphavb (autograd, float64)", []).append(
                    (time.perf_counter() - start) / (args.epochs * steps_per_epoch))
                for name, dtype in (("PyTorch float64", torch.float64),
                                    ("PyTorch float32", torch.float32)):
                    net = TorchAADM(torch, model, dtype, len(y))
                    Xt, yt = torch.tensor(X, dtype=dtype), torch.tensor(y, dtype=dtype)
                    generator = torch.Generator().manual_seed(0)
                    start = time.perf_counter()
                    for _ in range(args.epochs):
                        order = torch.randperm(len(y), generator=generator)
                        for begin in range(0, len(y), BATCH):
                            batch = order[begin:begin + BATCH]
                            eps_t = torch.randn(DRAWS, model.noise_dim, generator=generator,
                                                dtype=dtype)
                            ref = torch.randn(DRAWS, net.disc_shapes[0][0],
                                              generator=generator, dtype=dtype)
                            net.step(eps_t, ref, Xt[batch], yt[batch], 1.0)
                    times.setdefault(name, []).append(
                        (time.perf_counter() - start) / (args.epochs * steps_per_epoch))
            base = np.median(times["PyTorch float64"])
            for name, values in times.items():
                median = np.median(values)
                print(f"| {threads} | {name} | {1e3 * median:.2f} | {median / base:.2f} |")


if __name__ == "__main__":
    main()
