"""A locus past memory: a PLINK file read lazily, its sufficient statistics on a dask
cluster, and the fit, beside PLINK's own LD matrix of the same locus.

The file: ``--rows`` individuals resampled (with replacement) from mouse_hs1940's 1,940 at
its first ``--variants`` variants of minor-allele frequency >= 0.05 on chromosomes 1 and up,
written by this script to ``--dir`` as PLINK 1 binary files, with ``--missing`` (1%) of the
calls set missing (with none, ``sufficient_statistics`` reads the file once, else twice);
the trait is three causal variants plus noise (h2 = 0.05). The dense matrix of
200,000 x 2,000 is 3.2 GB as float64.

Steps timed: ``alphavb.genotypes.read_plink`` (lazy), ``sufficient_statistics`` on a
``dask.distributed.LocalCluster`` of ``--workers`` worker processes of one thread each,
``AlphaSuSiE().fit_sufficient``; the peak resident memory of this process and every worker
together is sampled every 20 ms. Beside it, PLINK 1.9's ``--r square`` (the variants'
correlation matrix; ``apt-get install plink1.9``) on the same files with the same threads:
Debian's plink2 (2.00a3.5) computes no variant LD matrix (its ``--r-unphased`` came in a
later alpha). The floor: ``X'X``'s ``n p (p + 1) / 2`` multiply-adds (BLAS's symmetric
rank-k update) at this machine's measured dgemm rate per thread, times the workers; the
means' pass and the decoding come on top.

Run: ALPHAVB_DATA=../shared/data python benchmarks/bench_genotypes.py [--rows 200000]
     [--variants 2000] [--workers 2] [--missing 0.01] [--dir /tmp/alphavb-genotypes]
"""

import argparse
import contextlib
import shutil
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import psutil

from alphavb import AlphaSuSiE
from alphavb.datasets import load_mouse_hs1940

CODES = np.array([3, 2, 0], dtype=np.uint8)  # A1 count 0, 1, 2 -> 0b11, 0b10, 0b00
MISSING_CODE = 1


def write_locus(prefix, n_rows, n_variants, seed=0, missing=0.01):
    """Write the resampled locus (module docstring); return the trait."""
    rng = np.random.default_rng(seed)
    mice = load_mouse_hs1940()
    genotypes = mice.genotypes
    frequency = genotypes.mean(axis=0) / 2.0
    common = np.flatnonzero(np.minimum(frequency, 1 - frequency) >= 0.05)[:n_variants]
    rows = rng.integers(0, genotypes.shape[0], size=n_rows)
    width = (n_rows + 3) // 4
    causal = rng.choice(len(common), size=3, replace=False)
    signal = np.zeros(n_rows)
    with open(prefix.with_suffix(".bed"), "wb") as bed:
        bed.write(bytes([0x6C, 0x1B, 0x01]))
        for start in range(0, len(common), 64):
            columns = common[start:start + 64]
            calls = genotypes[np.ix_(rows, columns)]                 # (n, 64)
            for j in np.flatnonzero(np.isin(np.arange(start, start + len(columns)), causal)):
                signal += calls[:, j] - calls[:, j].mean()
            codes = CODES[calls.astype(np.int64)]
            codes[rng.random(codes.shape) < missing] = MISSING_CODE
            padded = np.zeros((width * 4, len(columns)), dtype=np.uint8)
            padded[:n_rows] = codes
            quads = padded.reshape(width, 4, len(columns))
            packed = (quads[:, 0] | quads[:, 1] << 2 | quads[:, 2] << 4 | quads[:, 3] << 6)
            bed.write(np.ascontiguousarray(packed.T).tobytes())
    with open(prefix.with_suffix(".bim"), "w") as bim:
        for j in common:
            bim.write(f"{mice.chromosome[j]}\t{mice.variant_id[j]}\t0\t{mice.position[j]}\t"
                      f"{mice.allele1[j]}\t{mice.allele2[j]}\n")
    with open(prefix.with_suffix(".fam"), "w") as fam:
        for i in range(n_rows):
            fam.write(f"f{i}\ti{i}\t0\t0\t0\t-9\n")
    noise_sd = np.sqrt(signal.var() * 0.95 / 0.05)   # h2 = 0.05
    return signal + noise_sd * rng.standard_normal(n_rows)


class PeakMemory:
    """The largest total resident memory of this process and its children, sampled."""

    def __init__(self, pid=None, interval=0.02):
        self.root = psutil.Process(pid)
        self.interval, self.peak, self._stop = interval, 0, threading.Event()

    def _sample(self):
        while not self._stop.is_set():
            total = 0
            with contextlib.suppress(psutil.Error):   # a process may end between the calls
                for process in [self.root, *self.root.children(recursive=True)]:
                    with contextlib.suppress(psutil.Error):
                        total += process.memory_info().rss
            self.peak = max(self.peak, total)
            time.sleep(self.interval)

    def __enter__(self):
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def run_alphavb(prefix, y, workers):
    from dask.distributed import Client, LocalCluster

    from alphavb.genotypes import read_plink, sufficient_statistics

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0", memory_limit=None) as cluster, \
            Client(cluster), PeakMemory() as memory:
        started = time.perf_counter()
        data = read_plink(prefix)
        read = time.perf_counter() - started
        stats = sufficient_statistics(data.X, y)
        statistics = time.perf_counter() - started - read
        model = AlphaSuSiE().fit_sufficient(**stats)
        total = time.perf_counter() - started
    return {"read": read, "statistics": statistics, "fit": total - read - statistics,
            "total": total, "peak_gb": memory.peak / 1e9, "sets": model.credible_sets_}


def run_plink(prefix, workers, out):
    command = ["plink1.9", "--bfile", str(prefix), "--r", "square", "--threads",
               str(workers), "--out", str(out), "--silent", "--allow-no-sex"]
    started = time.perf_counter()
    process = subprocess.Popen(command)
    with PeakMemory(process.pid) as memory:
        process.wait()
    return {"total": time.perf_counter() - started, "peak_gb": memory.peak / 1e9,
            "returncode": process.returncode}


def main():
    from machine_floor import gemm_rate

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--variants", type=int, default=2_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dir", default="/tmp/alphavb-genotypes")
    parser.add_argument("--missing", type=float, default=0.01,
                        help="the share of calls set missing (0: one pass over the file)")
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    prefix = folder / f"locus_{args.rows}x{args.variants}_{round(1e4 * args.missing)}bp"
    started = time.perf_counter()
    y = write_locus(prefix, args.rows, args.variants, missing=args.missing)
    print(f"wrote {prefix}.bed ({prefix.with_suffix('.bed').stat().st_size / 1e6:.0f} MB) in "
          f"{time.perf_counter() - started:.1f} s; dense float64: "
          f"{8 * args.rows * args.variants / 1e9:.1f} GB")
    rate = gemm_rate((1000, 1000, 1000), np.float64, 3)           # GFLOP/s, one thread
    # X'X by BLAS's symmetric rank-k update: n p (p + 1) / 2 multiply-adds, n p^2 flops
    flops = float(args.rows) * args.variants * (args.variants + 1)
    floor = flops / (rate * 1e9 * args.workers)
    ours = run_alphavb(prefix, y, args.workers)
    print(f"alphavb: read {ours['read']:.2f} s, sufficient statistics "
          f"{ours['statistics']:.1f} s, fit {ours['fit']:.2f} s, total {ours['total']:.1f} s, "
          f"peak memory {ours['peak_gb']:.2f} GB (all processes); "
          f"{len(ours['sets'])} credible sets")
    print(f"floor: X'X's n p (p + 1) = {flops / 1e9:.0f} GFLOP at "
          f"{rate:.1f} GFLOP/s per thread x {args.workers}: {floor:.1f} s "
          f"({floor / ours['statistics']:.0%} of it reached)")
    if shutil.which("plink1.9"):
        theirs = run_plink(prefix, args.workers, folder / "plink_ld")
        print(f"PLINK 1.9 --r square: {theirs['total']:.1f} s, peak memory "
              f"{theirs['peak_gb']:.2f} GB (return code {theirs['returncode']}); "
              f"alphavb / PLINK: {ours['total'] / theirs['total']:.2f}")


if __name__ == "__main__":
    main()
