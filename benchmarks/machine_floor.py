"""The arithmetic and memory rates of this machine that bound one AADM step.

Measures, on 1 BLAS thread, the matrix-product rate (GFLOP/s) in float64 and float32 at the
shapes of the AADM step on boston with the paper's networks (``benchmarks/bench_aadm.py``:
generator 100-50-50-3,200 on K = 10 draws, discriminator 3,200-50-50-1 on 20 draws) and at
1000 x 1000, and the copy bandwidth (GB/s, bytes read plus written) on arrays far larger
than the caches. The README's floor for the step divides its FLOPs by the first and its
bytes by the second.

Run: python benchmarks/machine_floor.py [--repeats R]
"""

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

# (rows, inner, columns) of the step's large products: the generator's last layer forward
# and its weight gradient, the discriminator's first layer forward and its weight gradient
STEP_SHAPES = ((10, 50, 3200), (50, 10, 3200), (20, 3200, 50), (3200, 20, 50))


def gemm_rate(shape, dtype, repeats):
    """Best GFLOP/s of ``a @ b`` for ``a`` of (m, k) and ``b`` of (k, n)."""
    m, k, n = shape
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
    out = np.empty((m, n), dtype)
    calls = max(1, int(2e8 / (2 * m * k * n)))
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            np.matmul(a, b, out=out)
        best = min(best, (time.perf_counter() - start) / calls)
    return 2 * m * k * n / best / 1e9


def copy_bandwidth(repeats, megabytes=256):
    """Best GB/s of ``np.copyto`` (bytes read plus bytes written)."""
    source = np.ones(megabytes * 2**20 // 8)
    target = np.empty_like(source)
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        np.copyto(target, source)
        best = min(best, time.perf_counter() - start)
    return 2 * source.nbytes / best / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with threadpool_limits(limits=1):
        print("| shape (m, k, n) | float64 GFLOP/s | float32 GFLOP/s |")
        print("|---|---|---|")
        for shape in (*STEP_SHAPES, (1000, 1000, 1000)):
            print(f"| {shape} | {gemm_rate(shape, np.float64, args.repeats):.1f} | "
                  f"{gemm_rate(shape, np.float32, args.repeats):.1f} |")
        print(f"\ncopy bandwidth, 1 thread: {copy_bandwidth(args.repeats):.1f} GB/s")


if __name__ == "__main__":
    main()
