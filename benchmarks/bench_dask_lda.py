"""LDA on a corpus larger than the AP corpus, in blocks read from disk, against the same
fit in memory.

The corpus: ``--documents`` documents drawn with replacement from the AP corpus
(``alphavb.datasets.load_ap``), written as CSR blocks of ``--block-docs`` documents to
``.npz`` files in ``--dir``. Batch learning (``max_iter=--sweeps``, K = ``--topics``)
runs in memory (the whole CSR matrix) and over the blocks (each task loads its ``.npz``) on
dask's local scheduler and on a ``distributed.LocalCluster`` of 2 workers; online learning
is one pass of ``partial_fit`` over the blocks (each block a mini-batch, ``total_samples``
the corpus size). The table reports seconds per sweep (setup included), the ratio to the
in-memory fit, the peak resident memory (sampled every 10 ms; the largest worker's for the
cluster) and the largest relative difference of the topics from the in-memory fit.

Run: python benchmarks/bench_dask_lda.py [--documents 1000000] [--block-docs 100000]
     [--topics 10] [--sweeps 2] [--dir /tmp/alphavb-bench-lda] [--data-home DIR]
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from bench_dask_gmm import PeakMemory, read_worker_sampler, start_worker_sampler

from alphavb import AlphaLDA
from alphavb.datasets import load_ap


def write_blocks(folder, n_documents, block_docs, data_home, seed=0):
    ap = load_ap(data_home).data.tocsr()
    rng = np.random.default_rng(seed)
    paths = []
    for number, start in enumerate(range(0, n_documents, block_docs)):
        rows = rng.integers(ap.shape[0], size=min(block_docs, n_documents - start))
        path = folder / f"block_{number:04d}.npz"
        sp.save_npz(path, ap[rows])
        paths.append(path)
    return paths


def blocks_from_disk(paths):
    import dask

    return [dask.delayed(sp.load_npz)(str(path)) for path in paths]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1_000_000)
    parser.add_argument("--block-docs", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=10)
    parser.add_argument("--sweeps", type=int, default=2)
    parser.add_argument("--dir", default="/tmp/alphavb-bench-lda")
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args()

    import distributed

    folder = Path(args.dir) / f"{args.documents}_{args.block_docs}"
    folder.mkdir(parents=True, exist_ok=True)
    paths = sorted(folder.glob("block_*.npz"))
    if not paths:
        paths = write_blocks(folder, args.documents, args.block_docs, args.data_home)
    settings = {"n_components": args.topics, "max_iter": args.sweeps, "random_state": 0}
    size = sum(path.stat().st_size for path in paths) / 1e9
    print(f"corpus: {args.documents} documents from AP in {len(paths)} blocks "
          f"({size:.2f} GB of .npz), K = {args.topics}, {args.sweeps} sweeps")
    rows = []
    with PeakMemory() as memory:
        corpus = sp.vstack([sp.load_npz(path) for path in paths]).tocsr()
        start = time.perf_counter()
        reference = AlphaLDA(**settings).fit(corpus)
        seconds = time.perf_counter() - start
    rows.append(("batch, in memory", seconds / args.sweeps, memory.peak, 0.0))
    del corpus
    with PeakMemory() as memory:
        start = time.perf_counter()
        model = AlphaLDA(**settings).fit(blocks_from_disk(paths))
        seconds = time.perf_counter() - start
    difference = np.max(np.abs(model.components_ - reference.components_)
                        / reference.components_)
    rows.append(("batch, blocks, local scheduler", seconds / args.sweeps, memory.peak,
                 difference))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                           dashboard_address=":0",
                                           env={"NUMBA_NUM_THREADS": "1"})
        client = distributed.Client(cluster)
    client.run(start_worker_sampler)
    start = time.perf_counter()
    model = AlphaLDA(**settings).fit(blocks_from_disk(paths))
    seconds = time.perf_counter() - start
    peak = max(client.run(read_worker_sampler).values())
    difference = np.max(np.abs(model.components_ - reference.components_)
                        / reference.components_)
    rows.append(("batch, blocks, LocalCluster of 2 workers", seconds / args.sweeps, peak,
                 difference))
    client.close()
    cluster.close()
    with PeakMemory() as memory:
        start = time.perf_counter()
        online = AlphaLDA(args.topics, learning_method="online", total_samples=args.documents,
                          random_state=0)
        for path in paths:
            online.partial_fit(sp.load_npz(path))
        seconds = time.perf_counter() - start
    rows.append(("online, one pass of partial_fit over the blocks", seconds, memory.peak,
                 float("nan")))
    base = rows[0][1]
    print("| fit | s per sweep (pass) | ratio to in memory | peak RSS (MB) | "
          "max relative difference of the topics |")
    print("|---|---|---|---|---|")
    for name, per_sweep, rss, diff in rows:
        print(f"| {name} | {per_sweep:.1f} | {per_sweep / base:.2f} | {rss:.0f} | {diff:.1e} |")


if __name__ == "__main__":
    main()
