"""Speed of the exact spike-and-slab samplers (alphavb.exact) against their floor.

One sweep of the collapsed Gibbs kernel reads every column of X once (the score of each flip
needs ``X_g' x_j``, with the model's few columns in cache) and does ``O(n k + k^2)`` work
per variable, ``k`` the model size (``2 d (n k + k^2)`` FLOPs a sweep, which the bytes'
floor ignores and which dominates once ``k`` is in the tens); the Polya-Gamma sweep of the
classifier also writes the
reweighted copy ``sqrt(omega) X`` (read X, write the copy, which the kernel then reads). The
floor per sweep is those bytes over the machine's copy bandwidth
(``benchmarks/machine_floor.py``'s ``copy_bandwidth``), and the arithmetic ``2 n k d``
FLOPs over one core's scalar rate is beside it. Problems: varbvs's Leukemia (logistic, 72 x
3,571, 10,000 sweeps per chain is the target: within a minute on one core), susieR's
N3finemapping genotypes (574 x 1,001, the first response) and the paper's Figure 1 design
(n = 100, d = 500).

The side-by-side run with a public sampler of the same model (BGLR's BayesC, built from its
source: neither it nor BoomSpikeSlab is in Debian's packages) is
``benchmarks/bench_exact_vs_bglr.py``.

Run: ALPHAVB_DATA=../shared/data python benchmarks/bench_exact_sampler.py [--sweeps S]
"""

import argparse
import time

from machine_floor import copy_bandwidth
from threadpoolctl import threadpool_limits

from alphavb import AlphaSpikeSlabClassifier, AlphaSpikeSlabRegression
from alphavb.datasets import load_leukemia, load_n3finemapping, make_sparse_regression
from alphavb.exact import _draw
from alphavb.reproduce.varbvs import VIGNETTE_LOG_ODDS


def time_sampler(estimator, X, y, sweeps):
    """Seconds per sweep (after one short warm-up run, so numba's compile is not counted),
    the mean model size and the PIPs."""
    _draw(estimator, X, y, {}, 20, 1, 0, 1, 0)
    start = time.perf_counter()
    exact = _draw(estimator, X, y, {}, sweeps, 1, 0, 1, 1)[1]
    seconds = time.perf_counter() - start
    return seconds / sweeps, float(exact.stats["model_size"].mean())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sweeps", type=int, default=2000)
    args = parser.parse_args()
    with threadpool_limits(1):
        bandwidth = copy_bandwidth(3)
        problems = []
        leukemia = load_leukemia()
        problems.append(("Leukemia, classifier", AlphaSpikeSlabClassifier(alpha=1.0),
                         leukemia["data"], leukemia["target"], 3))
        problems.append(("Leukemia, classifier alpha=0.5", AlphaSpikeSlabClassifier(alpha=0.5),
                         leukemia["data"], leukemia["target"], 3))
        # varbvs's vignette prior (sa = 1 on the raw columns, 21 log-odds): larger models
        problems.append(("Leukemia, vignette grid", AlphaSpikeSlabClassifier(
            alpha=1.0, prior_log_odds=VIGNETTE_LOG_ODDS,
            slab_variance=1.0, standardize=False), leukemia["data"], leukemia["target"], 3))
        try:
            n3 = load_n3finemapping()
            X, y = n3.data, n3.target[:, 0]
            problems.append(("N3finemapping y1", AlphaSpikeSlabRegression(alpha=1.0), X, y, 1))
        except OSError as error:
            print(f"N3finemapping skipped: {error}")
        X, y, _ = make_sparse_regression(random_state=0)
        problems.append(("Figure 1 design", AlphaSpikeSlabRegression(alpha=0.5), X, y, 1))
        print(f"copy bandwidth (1 thread): {bandwidth:.1f} GB/s\n")
        print(f"{'problem':32s} {'n x d':>12s} {'ms/sweep':>9s} {'size':>5s} "
              f"{'floor ms':>9s} {'of floor':>8s} {'10k sweeps s':>12s}")
        for name, estimator, X, y, passes in problems:
            per_sweep, size = time_sampler(estimator, X, y, args.sweeps)
            n, d = X.shape
            floor = passes * 8.0 * n * d / (bandwidth * 1e9)
            print(f"{name:32s} {f'{n} x {d}':>12s} {1e3 * per_sweep:9.3f} {size:5.1f} "
                  f"{1e3 * floor:9.3f} {floor / per_sweep:8.1%} {1e4 * per_sweep:12.1f}")


if __name__ == "__main__":
    main()
