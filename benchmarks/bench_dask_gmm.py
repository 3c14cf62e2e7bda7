"""A Gaussian mixture fitted out of core: AlphaGaussianMixture over a dask array read from
disk, against the same fit in memory.

The data (``make_gmm``-style: K well-spread unit-covariance components in p dimensions) are
written once, block by block, to a ``.npy`` file in ``--dir``. The dask array reads each
block of ``--block-rows`` rows from the file inside its task (a copy of a memory map that is
closed again), so a process holds only the blocks in flight. Each fit starts from the same
rows (``init_params="random_from_data"``) and runs ``--sweeps`` sweeps (full covariances,
``tol=0``); the table reports the seconds per sweep, their ratio to the in-memory fit, the
overhead per block (the extra seconds per sweep divided by the number of blocks), the peak
resident memory (sampled every 10 ms) of the process that ran the local step (the largest
worker's for a cluster), and the largest relative difference of the means from the
in-memory fit. Seconds per sweep are the whole fit's time (validation, priors and start
included) divided by the sweeps.

Rows: in memory (the whole array loaded, numba threads = all cores); dask's threaded local
scheduler in this process; a ``distributed.LocalCluster`` of 1 and 2 worker processes (one
thread each, numba limited to one thread per worker).

Run: python benchmarks/bench_dask_gmm.py [--n-samples 20000000] [--features 10]
     [--components 10] [--block-rows 1000000] [--sweeps 3] [--dir /tmp/alphavb-bench]
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from alphavb import AlphaGaussianMixture


def write_data(path, n_samples, n_features, n_components, block_rows, seed=0):
    """Write the rows to ``path`` (a .npy file) block by block; return the true means."""
    rng = np.random.default_rng(seed)
    means = rng.normal(scale=4.0, size=(n_components, n_features))
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64,
                                    shape=(n_samples, n_features))
    for start in range(0, n_samples, block_rows):
        stop = min(start + block_rows, n_samples)
        labels = rng.integers(n_components, size=stop - start)
        out[start:stop] = means[labels] + rng.standard_normal((stop - start, n_features))
    out.flush()
    del out
    return means


def read_block(path, start, stop):
    """Rows ``start:stop`` of the .npy file, as an in-memory copy (the map is closed)."""
    mapped = np.load(path, mmap_mode="r")
    block = np.array(mapped[start:stop])
    del mapped
    return block


def blocks_from_disk(path, block_rows):
    import dask
    import dask.array as da

    n_samples, n_features = np.load(path, mmap_mode="r").shape
    parts = []
    for start in range(0, n_samples, block_rows):
        stop = min(start + block_rows, n_samples)
        parts.append(da.from_delayed(dask.delayed(read_block)(str(path), start, stop),
                                     shape=(stop - start, n_features), dtype=np.float64))
    return da.concatenate(parts, axis=0)


class PeakMemory:
    """The peak resident memory of this process while a block of code runs, sampled every
    10 ms (``ru_maxrss`` cannot be reset, and forked workers inherit their parent's)."""

    def __enter__(self):
        import threading

        import psutil

        self.peak, self._running = 0.0, True
        process = psutil.Process()

        def sample():
            while self._running:
                self.peak = max(self.peak, process.memory_info().rss / 1e6)
                time.sleep(0.01)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._running = False
        self._thread.join()


def start_worker_sampler(dask_worker):
    dask_worker.alphavb_peak = PeakMemory().__enter__()


def read_worker_sampler(dask_worker):
    dask_worker.alphavb_peak.__exit__()
    return dask_worker.alphavb_peak.peak


def timed_fit(X, settings):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = AlphaGaussianMixture(**settings).fit(X)
    return model, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=20_000_000)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--components", type=int, default=10)
    parser.add_argument("--block-rows", type=int, default=1_000_000)
    parser.add_argument("--sweeps", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/alphavb-bench")
    parser.add_argument("--skip-memory", action="store_true",
                        help="skip the in-memory fit (data larger than memory)")
    args = parser.parse_args()

    import distributed

    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"gmm_{args.n_samples}x{args.features}.npy"
    start = time.perf_counter()
    if not path.exists():
        write_data(path, args.n_samples, args.features, args.components, args.block_rows)
    print(f"data: {args.n_samples} x {args.features} ({path.stat().st_size / 1e9:.2f} GB on "
          f"disk, written in {time.perf_counter() - start:.1f} s), K = {args.components}, "
          f"blocks of {args.block_rows} rows, {args.sweeps} sweeps, full covariances")
    settings = {"n_components": args.components, "init_params": "random_from_data",
                "random_state": 0, "tol": 0.0, "max_iter": args.sweeps}
    n_blocks = -(-args.n_samples // args.block_rows)
    rows = []

    X = blocks_from_disk(path, args.block_rows)
    with PeakMemory() as memory:
        model, seconds = timed_fit(X, settings)
    reference = model
    rows.append(("dask, local threaded scheduler", seconds, memory.peak))

    for n_workers in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                               dashboard_address=":0",
                                               env={"NUMBA_NUM_THREADS": "1"})
            client = distributed.Client(cluster)
        client.run(start_worker_sampler)
        model, seconds = timed_fit(blocks_from_disk(path, args.block_rows), settings)
        worker_peaks = client.run(read_worker_sampler)
        rows.append((f"dask, LocalCluster of {n_workers} worker(s)", seconds,
                     max(worker_peaks.values())))
        np.testing.assert_allclose(model.means_, reference.means_, rtol=1e-10)
        client.close()
        cluster.close()

    memory_seconds = None
    if not args.skip_memory:
        with PeakMemory() as memory:
            X = np.load(path)
            model, memory_seconds = timed_fit(X, settings)
        rows.insert(0, ("in memory (numpy, load included)", memory_seconds, memory.peak))
        difference = np.max(np.abs(model.means_ - reference.means_) / np.abs(model.means_))
        print(f"largest relative difference of the means, dask vs in memory: {difference:.1e}")

    print(f"blocks in flight per wave: 2 per thread; {n_blocks} blocks of "
          f"{args.block_rows * args.features * 8 / 1e6:.0f} MB")
    print("| fit | s per sweep | ratio to in memory | overhead per block (s) | peak RSS (MB) |")
    print("|---|---|---|---|---|")
    for name, seconds, rss in rows:
        per_sweep = seconds / args.sweeps
        if memory_seconds is None:
            ratio = overhead = "n/a"
        else:
            ratio = f"{per_sweep / (memory_seconds / args.sweeps):.2f}"
            overhead = f"{(per_sweep - memory_seconds / args.sweeps) / n_blocks:.3f}"
        print(f"| {name} | {per_sweep:.2f} | {ratio} | {overhead} | {rss:.0f} |")


if __name__ == "__main__":
    main()
