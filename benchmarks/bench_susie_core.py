"""alpha-SuSiE's IBSS sweep (alphavb.linear_model._susie) beside susieR's ``susie`` at
alpha = 1, in one run, on both N3finemapping responses (L = 10, susieR's defaults), and the
sweep against its floor.

A sweep runs, per effect, two products with the (n, p) standardized genotypes, ``Z'r`` and
``Z (alpha mu)``: ``4 L n p`` FLOPs and ``2 L`` reads of ``Z`` (``16 L n p`` bytes). The
floors are those over this machine's 1-thread matrix-vector rate and copy bandwidth
(``machine_floor.py``); a matrix-vector product reads each entry of ``Z`` once for two FLOPs,
so the bytes, not the FLOPs, bound it. Both fits are timed on one thread (susieR with R's
reference BLAS, as Debian ships it; ``bench_varbvs_parity.run_susie``, timed inside R),
medians of the repeats, from the raw genotypes to the PIPs; the core's time includes its
standardization of ``X``. The first part of issue 44 has no estimator yet, so
this measures the math module only.

Run: ALPHAVB_DATA=../shared/data python benchmarks/bench_susie_core.py [--repeats R]
"""

import argparse

import numpy as np
from bench_spikeslab import median_seconds  # benchmarks/ is the script's folder
from bench_varbvs_parity import run_susie
from machine_floor import copy_bandwidth
from threadpoolctl import threadpool_limits

from alphavb.datasets import load_n3finemapping
from alphavb.linear_model._susie import (
    ibss_data,
    ibss_sweep,
    inclusion_probabilities,
    initial_state,
)


def fit_core(X, y, n_effects=10, tol=1e-3, max_iter=100):
    """susieR's defaults through the core: standardized columns, centred y, sweeps until
    the objective rises by less than ``tol``; (PIPs, sweeps)."""
    scale = X.std(axis=0, ddof=1)
    scale[scale == 0] = 1.0
    data = ibss_data((X - X.mean(axis=0)) / scale, y - y.mean())
    state = initial_state(data, n_effects)
    last = -np.inf
    for sweep in range(1, max_iter + 1):
        state, objective = ibss_sweep(data, state)
        if objective - last < tol:
            break
        last = objective
    return inclusion_probabilities(state.alpha, state.prior_variance), sweep


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    data = load_n3finemapping()
    X = data.data
    n, p = X.shape
    with threadpool_limits(1):
        bandwidth = copy_bandwidth(3)
        print(f"copy bandwidth (1 thread): {bandwidth:.1f} GB/s; sweep floor "
              f"{1e3 * 16 * 10 * n * p / (bandwidth * 1e9):.2f} ms (L = 10, {n} x {p})")
        print(f"{'response':9s} {'alphavb s':>10s} {'sweeps':>6s} {'ms/sweep':>9s} "
              f"{'susieR s':>9s} {'iter':>5s} {'ratio':>6s}")
        for k in (1, 2):
            y = data.target[:, k - 1]
            theirs = run_susie(X, y, args.repeats)
            if theirs is None:
                print(f"y{k}: susieR did not run")
                continue
            _, seconds, iterations, _ = theirs
            sweeps = fit_core(X, y)[1]
            ours = median_seconds(lambda y=y: fit_core(X, y), args.repeats)
            print(f"y{k:<8d} {ours:10.3f} {sweeps:6d} {1e3 * ours / sweeps:9.2f} "
                  f"{seconds:9.3f} {iterations:5d} {ours / seconds:6.2f}")


if __name__ == "__main__":
    main()
