"""LDA on the Associated Press corpus: AlphaLDA against scikit-learn and gensim.

The corpus is read by ``alphavb.datasets.load_ap`` (data home or ``ALPHAVB_DATA``); 10% of
the documents, drawn with a fixed seed, are held out. Every model gets the same symmetric
priors (``doc_topic_prior = topic_word_prior = 1/K``, scikit-learn's and gensim's defaults),
10 passes over the training documents, at most 100 per-document iterations with the 1e-3
``gamma`` tolerance, and is scored by one function,
:func:`alphavb.topics.heldout_perplexity`, on its topic Dirichlet parameters ``lambda``
(scikit-learn's ``components_``, gensim's ``state.get_lambda()``):

* alphavb batch and online (``alpha = 1``, batch size 128), on 1 thread and on all cores
  (``numba.set_num_threads``);
* scikit-learn ``LatentDirichletAllocation`` batch and online (batch size 128; ``n_jobs=1``);
* gensim ``LdaModel`` batch (``update_every=0``) and online (``chunksize=128``), single
  process.

Wall time is the whole ``fit``, the median of ``--repeats`` runs; the ratio column divides
scikit-learn's time (same learning method) by the row's.

Run: python benchmarks/bench_lda.py [--repeats R] [--topics 10 50] [--data-home DIR]
"""

import argparse
import time
import warnings

import numba
import numpy as np

from alphavb import AlphaLDA
from alphavb.datasets import load_ap
from alphavb.topics import heldout_perplexity


def split(X, seed=0):
    order = np.random.default_rng(seed).permutation(X.shape[0])
    n_test = X.shape[0] // 10
    return X[order[n_test:]], X[order[:n_test]]


def to_bow(X):
    """CSR counts -> gensim's bag of words (a list of (word id, count) per document)."""
    return [list(zip(X.indices[X.indptr[d]:X.indptr[d + 1]].tolist(),
                     X.data[X.indptr[d]:X.indptr[d + 1]].tolist(), strict=True))
            for d in range(X.shape[0])]


def fitters(k, n_passes):
    """name -> (function fitting the training matrix and returning lambda, thread count)."""
    from gensim.models import LdaModel
    from sklearn.decomposition import LatentDirichletAllocation

    prior = 1.0 / k

    def alphavb(method, threads):
        def fit(train):
            numba.set_num_threads(threads)
            model = AlphaLDA(k, learning_method=method, max_iter=n_passes, batch_size=128,
                             random_state=0).fit(train)
            return model.components_
        return fit

    def sklearn(method):
        def fit(train):
            model = LatentDirichletAllocation(k, learning_method=method, max_iter=n_passes,
                                              batch_size=128, n_jobs=1, random_state=0)
            return model.fit(train).components_
        return fit

    def gensim(online):
        def fit(train):
            model = LdaModel(to_bow(train), num_topics=k, id2word=None, alpha="symmetric",
                             eta=prior, passes=n_passes, iterations=100,
                             gamma_threshold=1e-3, update_every=1 if online else 0,
                             chunksize=128 if online else train.shape[0],
                             eval_every=None, random_state=0)
            return model.state.get_lambda()
        return fit

    all_threads = numba.config.NUMBA_NUM_THREADS
    entries = {
        "sklearn batch": (sklearn("batch"), 1),
        "alphavb batch": (alphavb("batch", 1), 1),
        f"alphavb batch ({all_threads} threads)": (alphavb("batch", all_threads), all_threads),
        "gensim batch": (gensim(False), 1),
        "sklearn online": (sklearn("online"), 1),
        "alphavb online": (alphavb("online", 1), 1),
        f"alphavb online ({all_threads} threads)": (alphavb("online", all_threads),
                                                      all_threads),
        "gensim online": (gensim(True), 1),
    }
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 50])
    parser.add_argument("--passes", type=int, default=10)
    parser.add_argument("--data-home", default=None)
    args = parser.parse_args()
    corpus = load_ap(args.data_home)
    train, test = split(corpus.data)
    print(f"AP corpus: {train.shape[0]} training and {test.shape[0]} held-out documents, "
          f"{train.shape[1]} words, {int(train.sum())} training tokens")
    AlphaLDA(2, max_iter=1).fit(train[:20])  # compile the numba kernels
    print("| K | model | threads | fit s | sklearn s / fit s | held-out perplexity |")
    print("|---|---|---|---|---|---|")
    for k in args.topics:
        seconds = {}
        for name, (fit, threads) in fitters(k, args.passes).items():
            times = []
            for _ in range(args.repeats):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    start = time.perf_counter()
                    components = fit(train)
                    times.append(time.perf_counter() - start)
            seconds[name] = float(np.median(times))
            reference = seconds["sklearn " + ("batch" if "batch" in name else "online")]
            perplexity = heldout_perplexity(components, 1.0 / k, 1.0 / k, test)
            print(f"| {k} | {name} | {threads} | {seconds[name]:.2f} | "
                  f"{reference / seconds[name]:.2f} | {perplexity:.1f} |", flush=True)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


if __name__ == "__main__":
    main()
