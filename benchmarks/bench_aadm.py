"""AADM training: time per step of alphavb against the same step in plain PyTorch.

One step = one Adam step of the discriminator and one of the generator on a mini-batch, as
``AADMRegressor.fit`` takes them. The set-up is the AADM paper's UCI experiment on boston
(split 0 of ``alphavb.datasets.load_uci``: 455 rows, 13 features, standardized), batch 10,
K = 10 weight draws, alpha = 1, and the default networks of ``AADMRegressor`` (the
paper's):
- a BNN with two hidden layers of 50 leaky-ReLU units: 3,200 weights from the generator and
  101 point-estimated biases (the defaults, as in the authors' code);
- a generator 100 -> 50 -> 50 -> 3,200;
- a discriminator 3,200 -> 50 -> 50 -> 1.

* **alphavb, 1 fit**: ``AADMRegressor(n_epochs=E, tol=None).fit``, float64 and float32
  (``dtype``), time divided by the steps taken; "autograd step (before)" trains on the
  readable objective differentiated by autograd, the step before the closed-form one.
* **alphavb, M stacked fits**: ``alphavb.blackbox.fit_stacked`` of ``--stack`` fits (other
  seeds, as ``alphavb reproduce aadm-uci`` trains the splits and alphas of a data set
  together), time divided by the steps and by M: the time per step of one fit.
* **PyTorch**: the same objective written in plain PyTorch on the same flat parameter
  layouts, ``torch.optim.Adam`` with the same step sizes, in float64 and float32, one fit.
  Before timing, its objective is compared with alphavb's on the same parameters and draws
  (the output states the relative difference).

Threads: timed with 1 thread (``torch.set_num_threads`` and threadpoolctl for NumPy's BLAS)
and with 2. Median over ``--repeats`` runs of ``--epochs`` epochs each, after a warm-up
epoch. The last column is the ratio to PyTorch float32 on the same thread count.

Needs ``pip install torch==2.13.0`` (not a dependency of alphavb) and the UCI splits in the
data home (``ALPHAVB_DATA``).

Run: python benchmarks/bench_aadm.py [--epochs E] [--repeats R] [--stack M]
"""

import argparse
import math
import time

import numpy as np
from threadpoolctl import threadpool_limits

from alphavb import AADMRegressor
from alphavb.blackbox import fit_stacked
from alphavb.blackbox._aadm_objective import make_aadm_objective
from alphavb.blackbox._mlp import LEAKY_SLOPE, mlp_layer_shapes
from alphavb.datasets import load_uci

ALPHA, BATCH, DRAWS = 1.0, 10, 10


def standardized_split(name="boston"):
    data = load_uci(name)
    train = data.train_indices[0]
    X, y = data.data[train], data.target[train]
    scale = X.std(axis=0)
    return ((X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0),
            (y - y.mean()) / y.std())


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
    """The AADM step of ``AADMRegressor.fit`` (default settings) in plain PyTorch, from a
    fitted model's parameters (so both start from the same point)."""

    def __init__(self, torch, model, dtype, n_total):
        self.torch, self.model, self.n_total, self.dtype = torch, model, n_total, dtype

        def as_tensor(values):
            return torch.tensor(np.asarray(values)[0], dtype=dtype, requires_grad=True)

        self.theta = [as_tensor(part) for part in model._params]
        self.disc = torch.tensor(model.discriminator_params_, dtype=dtype, requires_grad=True)
        self.disc_shapes = _discriminator_shapes(model)
        self.opt_gen = torch.optim.Adam(self.theta, lr=model.learning_rate)
        self.opt_disc = torch.optim.Adam([self.disc], lr=model.discriminator_learning_rate)

    def generate(self, eps):
        mean, log_variance, generator = self.theta[:3]
        noise = mean + self.torch.exp(0.5 * log_variance) * eps
        return torch_mlp(self.torch, generator[None, :], noise,
                         self.model.generator_layer_shapes_)[0]

    def network(self, generated):
        """The BNN's flat weights: generated matrices and the shared point biases."""
        layout = self.model._layout
        full = self.torch.empty(generated.shape[0], layout.n_network, dtype=self.dtype)
        for full_part, part in layout.weight_runs:
            full[:, full_part] = generated[:, part]
        for full_part, part in layout.bias_runs:
            full[:, full_part] = self.theta[3][part]
        return full

    def logit(self, standardized):
        return torch_mlp(self.torch, self.disc[None, :], standardized, self.disc_shapes)[0, :, 0]

    def objective(self, eps, X, y, kl_weight):
        torch = self.torch
        weights = self.generate(eps)
        mean, sd = weights.detach().mean(0), torch.sqrt(weights.detach().var(0, unbiased=False)
                                                        + 1e-12)
        standardized = (weights - mean) / sd
        n_weights = weights.shape[1]
        scales = torch.exp(self.theta[4])
        noise, prior = scales[0], scales[1]
        log_r = (-0.5 * (standardized**2).sum(1) - torch.log(sd).sum()
                 - 0.5 * n_weights * math.log(2 * math.pi))
        log_p0 = -0.5 * ((weights**2).sum(1) / prior
                         + n_weights * (torch.log(prior) + math.log(2 * math.pi)))
        kl = (self.logit(standardized) + log_r - log_p0).mean()
        outputs = torch_mlp(torch, self.network(weights), X, self.model.layer_shapes_)[..., 0]
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
    n_generated = model._layout.n_generated
    return mlp_layer_shapes(n_generated, model.discriminator_hidden, 1)


def alphavb_objective(model, eps, X, y, kl_weight, n_total):
    """The objective of ``AADMRegressor.fit`` from its factory, at a fitted model's
    parameters."""
    objective, _ = make_aadm_objective(
        model.layer_shapes_, model.activation, model.generator_layer_shapes_,
        _discriminator_shapes(model), model.bias_posterior, DRAWS, False, n_total,
        np.array([ALPHA]), None, None, True, True)
    values, _ = objective.value_and_grad(model._params, [model.discriminator_params_[None]],
                                         (X[None], y[None]), (eps[None],), kl_weight)
    return float(values[0, 0])


def time_alphavb(X, y, epochs, n_fits, steps_per_epoch, dtype="float64", autograd=False):
    """ms per step of one fit; ``autograd=True`` trains on the readable objective
    differentiated by autograd (the step before the closed-form one), for the before/after
    rows."""
    from alphavb.blackbox import _aadm

    def models(n_epochs):
        return [AADMRegressor(divergence_order=ALPHA, n_epochs=n_epochs, tol=None, normalize=False,
                              random_state=i, dtype=dtype) for i in range(n_fits)]

    closed_form = _aadm.make_fast_aadm_objective
    if autograd:
        _aadm.make_fast_aadm_objective = make_aadm_objective
    try:
        fit_stacked(models(1), [X] * n_fits, [y] * n_fits)  # warm-up
        start = time.perf_counter()
        fit_stacked(models(epochs), [X] * n_fits, [y] * n_fits)
    finally:
        _aadm.make_fast_aadm_objective = closed_form
    return (time.perf_counter() - start) / (epochs * steps_per_epoch * n_fits)


def time_torch(torch, model, X, y, epochs, dtype, steps_per_epoch):
    net = TorchAADM(torch, model, dtype, len(y))
    Xt, yt = torch.tensor(X, dtype=dtype), torch.tensor(y, dtype=dtype)
    generator = torch.Generator().manual_seed(0)
    start = time.perf_counter()
    for _ in range(epochs):
        order = torch.randperm(len(y), generator=generator)
        for begin in range(0, len(y), BATCH):
            batch = order[begin:begin + BATCH]
            eps = torch.randn(DRAWS, model.noise_dim, generator=generator, dtype=dtype)
            ref = torch.randn(DRAWS, net.disc_shapes[0][0], generator=generator, dtype=dtype)
            net.step(eps, ref, Xt[batch], yt[batch], 1.0)
    return (time.perf_counter() - start) / (epochs * steps_per_epoch)


def main():
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stack", type=int, default=4,
                        help="fits trained together (4: the methods of one split)")
    args = parser.parse_args()
    X, y = standardized_split()
    steps_per_epoch = math.ceil(len(y) / BATCH)
    model = AADMRegressor(divergence_order=ALPHA, n_epochs=1, tol=None, normalize=False,
                          random_state=0).fit(X, y)

    rng = np.random.default_rng(0)
    eps = rng.standard_normal((DRAWS, model.noise_dim))
    rows = rng.choice(len(y), BATCH, replace=False)
    ours = alphavb_objective(model, eps, X[rows], y[rows], 1.0, len(y))
    reference = TorchAADM(torch, model, torch.float64, len(y))
    theirs = reference.objective(torch.tensor(eps), torch.tensor(X[rows]),
                                 torch.tensor(y[rows]), 1.0).item()
    print(f"objective: alphavb {ours!r}, PyTorch float64 {theirs!r}, relative "
          f"difference {abs(ours - theirs) / abs(ours):.1e}")

    print(f"\n{steps_per_epoch} steps per epoch; ms per step of one fit, median of "
          f"{args.repeats} runs of {args.epochs} epochs")
    print("| threads | implementation | ms per step of one fit | ratio to PyTorch float32 |")
    print("|---|---|---|---|")
    for threads in (1, 2):
        torch.set_num_threads(threads)
        with threadpool_limits(threads):
            runs = {
                "alphavb float64, 1 fit, autograd step (before)":
                    lambda: time_alphavb(X, y, args.epochs, 1, steps_per_epoch, autograd=True),
                f"alphavb float64, {args.stack} fits stacked, autograd step (before)":
                    lambda: time_alphavb(X, y, args.epochs, args.stack, steps_per_epoch,
                                         autograd=True),
            }
            for dtype in ("float64", "float32"):
                runs[f"alphavb {dtype}, 1 fit"] = (
                    lambda dtype=dtype: time_alphavb(X, y, args.epochs, 1, steps_per_epoch,
                                                     dtype))
                runs[f"alphavb {dtype}, {args.stack} fits stacked"] = (
                    lambda dtype=dtype: time_alphavb(X, y, args.epochs, args.stack,
                                                     steps_per_epoch, dtype))
            runs["PyTorch float64"] = lambda: time_torch(torch, model, X, y, args.epochs,
                                                         torch.float64, steps_per_epoch)
            runs["PyTorch float32"] = lambda: time_torch(torch, model, X, y, args.epochs,
                                                         torch.float32, steps_per_epoch)
            times = {name: float(np.median([run() for _ in range(args.repeats)]))
                     for name, run in runs.items()}
        base = times["PyTorch float32"]
        for name, seconds in times.items():
            print(f"| {threads} | {name} | {1e3 * seconds:.2f} | {seconds / base:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
