"""Spike-and-slab alpha-VB: fit time and per-sweep time against the memory-bandwidth bound.

One sweep of the coordinate updates reads each column of X once (the column is re-read for
the residual update while it is still in cache), so it cannot be faster than streaming the
8 n d bytes of X. The bound is measured here with a NumPy copy of an array of the same size:
a copy moves 16 n d bytes (read + write), so reading 8 n d bytes takes half the copy time.

Peer (optional): ``sparsevb`` (PyPI; C++/Armadillo port of Ray & Szabo's R package; building
it needs liblapack-dev, libblas-dev and gfortran). Its Gaussian-slab fit with a known noise
level and a fixed inclusion probability is the same coordinate update as
AlphaSpikeSlabRegression(alpha=1, noise_variance=1, prior_inclusion=pi, fit_intercept=False);
both run the same number of sweeps from the same start (mu = 0) in the same order, and the
table reports the time ratio and the largest PIP difference.

Run: python benchmarks/bench_spikeslab.py [--repeats R] [--sizes 100x500 1000x10000]
"""

import argparse
import dataclasses
import time
import warnings

import numpy as np

from alphavb import AlphaSpikeSlabRegression
from alphavb.datasets import make_sparse_regression
from alphavb.linear_model._kernels import spike_slab_sweep


def median_seconds(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def bench(n, d, repeats, alpha=0.5):
    X, y, _ = make_sparse_regression(n_samples=n, n_features=d, random_state=0)

    # fit (numba compilation excluded: one warm-up fit on a small problem first)
    # raw columns (standardize=False): the timed sweep reads the data as fit passes it
    AlphaSpikeSlabRegression(alpha=alpha, standardize=False).fit(X[:20, :30], y[:20])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        start = time.perf_counter()
        model = AlphaSpikeSlabRegression(alpha=alpha, standardize=False).fit(X, y)
        fit_seconds = time.perf_counter() - start

    # the data exactly as fit passes it to the CAVI steps (centred, Fortran order, the
    # resolved pi of the single setting)
    data = dataclasses.replace(model._prepare_fit(X, y), fixed_pi=model.prior_inclusion_,
                               slab_variance=float(model.slab_variance))

    # one sweep of the kernel alone, from the fitted state
    phi = model.inclusion_probabilities_.copy()
    mu = model.slab_means_.copy()
    s2 = model.slab_variances_.copy()
    residual = data.y - data.X @ (phi * mu)
    tau = 1.0 / model.noise_variance_
    logit_pi = np.log(data.fixed_pi) - np.log1p(-data.fixed_pi)

    def one_sweep():
        spike_slab_sweep(data.X, data.col_sq_norms, residual, phi, mu, s2, tau,
                         np.log(tau), logit_pi, alpha, data.slab_variance)

    sweep_seconds = median_seconds(one_sweep, repeats)

    # one full CAVI iteration (kernel + noise block + objective, Python included)
    # (each call continues from the state the previous one returned, as fit does)
    states = [model._initialize(data, np.random.RandomState(0), 0)]

    def one_iteration():
        states[0] = model._cavi_step(data, states[0])[0]

    iteration_seconds = median_seconds(one_iteration, repeats)

    copy_target = np.empty_like(data.X)
    copy_seconds = median_seconds(lambda: np.copyto(copy_target, data.X), repeats)
    bound_seconds = copy_seconds / 2.0
    return {
        "n": n, "d": d, "fit_s": fit_seconds, "sweeps": model.n_iter_,
        "sweep_ms": 1e3 * sweep_seconds, "iteration_ms": 1e3 * iteration_seconds,
        "bound_ms": 1e3 * bound_seconds, "ratio": sweep_seconds / bound_seconds,
        "GBps": 8.0 * n * d / sweep_seconds / 1e9,
    }


def bench_peer(n, d, sweeps=20, repeats=7):
    """Same model and start, at most ``sweeps`` sweeps each: alphavb vs sparsevb.

    Times are per sweep of a whole fit (input checks included), since alphavb stops early
    once its objective is exactly stationary. Returns None when sparsevb is absent.
    """
    try:
        from sparsevb import svb_fit_linear
    except ImportError:
        return None
    X, y, _ = make_sparse_regression(n_samples=n, n_features=d, random_state=0)
    pi = 1.0 / d
    ours = AlphaSpikeSlabRegression(alpha=1.0, noise_variance=1.0, prior_inclusion=pi,
                                    fit_intercept=False, standardize=False, n_init=1,
                                    max_iter=sweeps, tol=0.0)
    # sparsevb's log-odds are log(a/b) + 1/2: choose a/b so that they equal logit(pi)
    peer_kwargs = {"max_iter": sweeps, "tol": -1.0, "slab": "gaussian", "intercept": False,
                       "mu": np.zeros(d), "sigma": np.ones(d), "gamma": np.full(d, pi),
                       "alpha": np.exp(-0.5) * pi / (1 - pi), "beta": 1.0, "prior_scale": 1.0,
                       "noise_sd": 1.0, "update_order": np.arange(d)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours.fit(X, y)
        ours_seconds = median_seconds(lambda: ours.fit(X, y), repeats)
    peer = svb_fit_linear(X, y, **peer_kwargs)
    peer_seconds = median_seconds(lambda: svb_fit_linear(X, y, **peer_kwargs), repeats)
    ours_per_sweep = ours_seconds / ours.n_iter_
    peer_per_sweep = peer_seconds / sweeps
    return {"n": n, "d": d, "ours_sweeps": ours.n_iter_, "peer_sweeps": sweeps,
            "ours_ms": 1e3 * ours_per_sweep, "peer_ms": 1e3 * peer_per_sweep,
            "ratio": peer_per_sweep / ours_per_sweep,
            "pip_diff": np.max(np.abs(peer["gamma"] - ours.inclusion_probabilities_))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--sizes", nargs="*", default=["100x500", "1000x10000"])
    args = parser.parse_args()
    header = (f"{'n':>6} {'d':>7} {'fit (s)':>9} {'sweeps*':>8} {'sweep (ms)':>11} "
              f"{'iter (ms)':>10} {'bound (ms)':>11} {'sweep/bound':>12} {'X read GB/s':>12}")
    print(header)
    for size in args.sizes:
        n, d = (int(v) for v in size.split("x"))
        r = bench(n, d, args.repeats)
        print(f"{r['n']:>6} {r['d']:>7} {r['fit_s']:>9.4f} {r['sweeps']:>8} "
              f"{r['sweep_ms']:>11.4f} {r['iteration_ms']:>10.4f} {r['bound_ms']:>11.4f} "
              f"{r['ratio']:>12.2f} {r['GBps']:>12.2f}")
    print("* sweeps of the best of the 3 default starts; fit time covers all starts.")
    print("bound: half the time of a NumPy copy of an array of X's size (= reading 8 n d bytes).")
    print()
    peer_rows = []
    for size in args.sizes:
        n, d = (int(v) for v in size.split("x"))
        peer_rows.append(bench_peer(n, d))
    if peer_rows[0] is None:
        print("peer sparsevb not installed: pip install sparsevb (needs liblapack-dev, "
              "libblas-dev, gfortran)")
        return
    print("same model, same start: time per sweep of a whole fit, alphavb vs sparsevb")
    print(f"{'n':>6} {'d':>7} {'sweeps (ours/peer)':>19} {'alphavb (ms)':>13} "
          f"{'sparsevb (ms)':>14} {'sparsevb/alphavb':>17} {'max |PIP diff|':>15}")
    for r in peer_rows:
        sweeps = f"{r['ours_sweeps']}/{r['peer_sweeps']}"
        print(f"{r['n']:>6} {r['d']:>7} {sweeps:>19} {r['ours_ms']:>13.4f} "
              f"{r['peer_ms']:>14.4f} {r['ratio']:>17.2f} {r['pip_diff']:>15.2e}")


if __name__ == "__main__":
    main()
