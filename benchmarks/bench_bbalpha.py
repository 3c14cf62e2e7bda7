"""BB-alpha training: time per epoch of alphavb against plain PyTorch and Pyro.

The same network and data for all three: one hidden layer of 50 ReLU units on the
standardized training set of a UCI split (boston, split 0: 455 rows, 13 features, via
``alphavb.datasets.load_uci``), factorized Gaussian ``q`` over the 751 weights, mini-batches
of 32, K = 10 draws per step, Adam with step 1e-3, alpha = 0.5, learned noise variance.

* **alphavb**: ``BBAlphaRegressor(energy="exact", tol=None)``, float64 and float32
  (``dtype``), time of
  ``fit(n_epochs=E)`` divided by E; its energy and gradient are computed in closed form
  (``energies.bbalpha_energy_and_gradient``, checked against autograd in the tests).
* **alphavb, M stacked fits**: ``alphavb.blackbox.fit_stacked`` of ``--stack`` fits (alpha
  0, 0.5 and 1 in turn, one seed each, as ``alphavb reproduce bbalpha-uci`` trains the
  alphas and splits of a data set together), time divided by E and by M: the time per
  epoch of one fit.
* **PyTorch**: the same exact BB-alpha energy (cavity, tied sites, ``logsumexp`` over the
  draws) written in plain PyTorch with the same flat parametrization, ``torch.optim.Adam``,
  in float64 and in float32. Before timing, its energy is compared with alphavb's on the same
  parameters and base draws (the table states the largest relative difference).
* **Pyro**: ``RenyiELBO(alpha=0.5, num_particles=10, vectorize_particles=True)`` with an
  ``AutoDiagonalNormal`` guide on the same model (Normal(0, 1) prior on every weight,
  learned noise scale), float32 (Pyro's default), ``pyro.optim.Adam``. This is the
  Rényi-bound (VR) objective of Li & Turner (2016), the closest built-in relative of BB-alpha.

Threads: all three are timed with 1 thread (``torch.set_num_threads(1)`` and threadpoolctl
for NumPy's BLAS), and again with 2. Median over ``--repeats`` runs of ``--epochs`` epochs
each, after one warm-up epoch.

Needs ``pip install torch==2.13.0 pyro-ppl`` (not dependencies of alphavb) and the UCI splits
in the data home (``ALPHAVB_DATA``).

The last column is the ratio to PyTorch float32 on the same thread count.

Run: python benchmarks/bench_bbalpha.py [--epochs E] [--repeats R] [--stack M]
     [--dataset boston]
"""

import argparse
import math
import time

import numpy as np
from threadpoolctl import threadpool_limits

from alphavb import BBAlphaRegressor
from alphavb.blackbox import fit_stacked
from alphavb.blackbox._mlp import mlp_forward, mlp_layer_shapes, mlp_n_weights
from alphavb.blackbox.energies import bbalpha_energy, gaussian_log_likelihood
from alphavb.datasets import load_uci

ALPHA, HIDDEN, BATCH, DRAWS, STEP = 0.5, 50, 32, 10, 1e-3


def standardized_split(name):
    data = load_uci(name)
    train = data.train_indices[0]
    X, y = data.data[train], data.target[train]
    scale = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
    return X, (y - y.mean()) / y.std()


def time_alphavb(X, y, epochs, n_fits=1, dtype="float64"):
    """Seconds per epoch of one fit, ``n_fits`` trained together (alpha 0, 0.5, 1 in turn)."""
    def models(n_epochs):
        return [BBAlphaRegressor(divergence_order=(0.0, ALPHA, 1.0)[i % 3] if n_fits > 1 else ALPHA,
                                 hidden_layer_sizes=(HIDDEN,), n_mc_samples=DRAWS,
                                 batch_size=BATCH, learning_rate=STEP, normalize=False,
                                 n_epochs=n_epochs, tol=None, random_state=i, dtype=dtype)
                for i in range(n_fits)]

    fit_stacked(models(1), [X] * n_fits, [y] * n_fits)  # warm-up
    start = time.perf_counter()
    fit_stacked(models(epochs), [X] * n_fits, [y] * n_fits)
    return (time.perf_counter() - start) / (epochs * n_fits)


def torch_energy_function(torch, shapes, n_total):
    n_weights = mlp_n_weights(shapes)
    log_2pi = math.log(2 * math.pi)

    def log_z(mean, variance):
        return (0.5 * (log_2pi + variance.log()) + mean**2 / (2 * variance)).sum()

    def energy(theta, X, y, eps):
        mean, variance = theta[:n_weights], theta[n_weights:2 * n_weights].exp()
        noise = theta[2 * n_weights].exp()
        ratio = ALPHA / n_total
        cav_var = 1 / ((1 - ratio) / variance + ratio)  # prior variance 1
        cav_mean = (1 - ratio) * mean / variance * cav_var
        weights = cav_mean + cav_var.sqrt() * eps
        hidden, start = X, 0
        for layer, (n_in, n_out) in enumerate(shapes):
            W = weights[:, start:start + n_in * n_out].reshape(-1, n_in, n_out)
            b = weights[:, start + n_in * n_out:start + n_in * n_out + n_out]
            start += n_in * n_out + n_out
            hidden = torch.matmul(hidden, W) + b[:, None, :]
            if layer < len(shapes) - 1:
                hidden = torch.relu(hidden)
        log_lik = (-0.5 * (log_2pi + noise.log()) - (y - hidden[..., 0])**2 / (2 * noise))
        lz_q = log_z(mean, variance)
        sites = (0.5 * n_weights * log_2pi - lz_q
                 - (n_total / ALPHA) * (log_z(cav_mean, cav_var) - lz_q))
        data = (torch.logsumexp(ALPHA * log_lik, 0) - math.log(len(eps))).sum()
        return sites - n_total / (ALPHA * len(y)) * data

    return energy


def check_same_energy(X, y):
    """Largest relative difference between the PyTorch and alphavb energies."""
    import torch

    shapes = mlp_layer_shapes(X.shape[1], (HIDDEN,), 1)
    n_weights = mlp_n_weights(shapes)
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(5):
        theta = np.r_[0.3 * rng.standard_normal(n_weights),
                      np.log(rng.uniform(1e-3, 0.1, n_weights)), np.log(0.2)]
        eps = rng.standard_normal((DRAWS, n_weights))
        rows = rng.choice(len(y), BATCH, replace=False)

        noise_variance = np.exp(theta[-1])

        def log_lik(weights, rows=rows, noise_variance=noise_variance):
            return gaussian_log_likelihood(mlp_forward(weights, X[rows], shapes)[..., 0],
                                           y[rows], noise_variance)

        ours = bbalpha_energy(theta[:-1], log_lik, eps, len(y), ALPHA, 1.0, "exact")
        energy = torch_energy_function(torch, shapes, len(y))
        theirs = energy(torch.tensor(theta), torch.tensor(X[rows]), torch.tensor(y[rows]),
                        torch.tensor(eps)).item()
        worst = max(worst, abs(ours - theirs) / abs(ours))
    return worst


def time_torch(X, y, epochs, dtype_name):
    import torch

    dtype = getattr(torch, dtype_name)
    torch.manual_seed(0)
    shapes = mlp_layer_shapes(X.shape[1], (HIDDEN,), 1)
    n_weights = mlp_n_weights(shapes)
    energy = torch_energy_function(torch, shapes, len(y))
    theta = torch.cat([0.1 * torch.randn(n_weights, dtype=dtype),
                       torch.full((n_weights,), -10.0, dtype=dtype),
                       torch.tensor([math.log(0.1)], dtype=dtype)]).requires_grad_()
    optimizer = torch.optim.Adam([theta], lr=STEP)
    X_t, y_t = torch.tensor(X, dtype=dtype), torch.tensor(y, dtype=dtype)

    def epoch():
        order = torch.randperm(len(y))
        for start in range(0, len(y), BATCH):
            rows = order[start:start + BATCH]
            eps = torch.randn(DRAWS, n_weights, dtype=dtype)
            optimizer.zero_grad()
            value = energy(theta, X_t[rows], y_t[rows], eps)
            value.backward()
            optimizer.step()

    epoch()  # warm-up
    start = time.perf_counter()
    for _ in range(epochs):
        epoch()
    return (time.perf_counter() - start) / epochs


def time_pyro(X, y, epochs):
    import pyro
    import pyro.distributions as dist
    import torch
    from pyro.infer import SVI, RenyiELBO
    from pyro.infer.autoguide import AutoDiagonalNormal

    pyro.clear_param_store()
    pyro.set_rng_seed(0)
    n_total, n_features = X.shape
    X_t, y_t = torch.tensor(X, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)

    def model(X_batch, y_batch):
        W1 = pyro.sample("W1", dist.Normal(0.0, 1.0).expand([n_features, HIDDEN]).to_event(2))
        b1 = pyro.sample("b1", dist.Normal(0.0, 1.0).expand([HIDDEN]).to_event(1))
        W2 = pyro.sample("W2", dist.Normal(0.0, 1.0).expand([HIDDEN, 1]).to_event(2))
        b2 = pyro.sample("b2", dist.Normal(0.0, 1.0).expand([1]).to_event(1))
        log_noise = pyro.param("log_noise", torch.tensor(math.log(0.1)))
        hidden = torch.relu(X_batch @ W1 + b1.unsqueeze(-2))
        mean = (hidden @ W2 + b2.unsqueeze(-2))[..., 0]
        with pyro.plate("data", n_total, subsample_size=len(y_batch)):
            pyro.sample("y", dist.Normal(mean, (0.5 * log_noise).exp()), obs=y_batch)

    guide = AutoDiagonalNormal(model, init_scale=math.exp(-5.0))
    svi = SVI(model, guide, pyro.optim.Adam({"lr": STEP}),
              RenyiELBO(alpha=ALPHA, num_particles=DRAWS, vectorize_particles=True,
                        max_plate_nesting=1))

    def epoch():
        order = torch.randperm(n_total)
        for start in range(0, n_total, BATCH):
            rows = order[start:start + BATCH]
            svi.step(X_t[rows], y_t[rows])

    epoch()  # warm-up (also creates the guide's parameters)
    start = time.perf_counter()
    for _ in range(epochs):
        epoch()
    return (time.perf_counter() - start) / epochs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stack", type=int, default=15,
                        help="fits trained together (15: 5 splits x 3 alphas)")
    parser.add_argument("--dataset", default="boston")
    args = parser.parse_args()
    import torch

    X, y = standardized_split(args.dataset)
    print(f"{args.dataset}: {X.shape[0]} rows, {X.shape[1]} features, "
          f"{mlp_n_weights(mlp_layer_shapes(X.shape[1], (HIDDEN,), 1))} weights; "
          f"steps per epoch {math.ceil(X.shape[0] / BATCH)}")
    print(f"PyTorch {torch.__version__}; energy check, largest relative difference from "
          f"alphavb: {check_same_energy(X, y):.2e}")
    print("\n| threads | implementation | ms per epoch of one fit | ratio to PyTorch float32 |")
    print("|---|---|---|---|")
    for threads in (1, 2):
        torch.set_num_threads(threads)
        with threadpool_limits(threads):
            runs = {
                "alphavb float64, 1 fit": lambda: time_alphavb(X, y, args.epochs),
                f"alphavb float64, {args.stack} fits stacked":
                    lambda: time_alphavb(X, y, args.epochs, args.stack),
                "alphavb float32, 1 fit": lambda: time_alphavb(X, y, args.epochs,
                                                               dtype="float32"),
                f"alphavb float32, {args.stack} fits stacked":
                    lambda: time_alphavb(X, y, args.epochs, args.stack, "float32"),
                "PyTorch float64": lambda: time_torch(X, y, args.epochs, "float64"),
                "PyTorch float32": lambda: time_torch(X, y, args.epochs, "float32"),
                "Pyro RenyiELBO float32": lambda: time_pyro(X, y, args.epochs),
            }
            times = {name: float(np.median([run() for _ in range(args.repeats)]))
                     for name, run in runs.items()}
        reference = times["PyTorch float32"]
        for name, seconds in times.items():
            print(f"| {threads} | {name} | {1e3 * seconds:.1f} | {seconds / reference:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
