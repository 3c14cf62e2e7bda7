"""Batch LDA over a corpus in blocks of documents, on a dask cluster (``pip install
"alphavb[dask]"``).

A batch sweep's E-step is per document, so it runs once per block of documents on the
workers of the active ``dask.distributed`` client (dask's local scheduler without one):
each task reads its block of counts (a scipy.sparse CSR matrix), receives the block's rows
of ``gamma`` and the topics, and returns the updated rows and the block's topic statistics
and ``sum n log Z``; the client adds the blocks' statistics in block order and runs the
global step. The documents' ``gamma`` (n_documents x K) stays on the client, as it is the
state the monotone restart guard of :class:`~alphavb.AlphaLDA` needs; the counts are read
block by block. The sums differ from the in-memory fit's only in the order of additions.
"""

import numpy as np
import scipy.sparse as sp

from .._validation import is_dask_collection
from ._estep import bound_terms, e_step


class DocumentBlocks:
    """A corpus as delayed CSR blocks of consecutive documents (``blocks``), with their row
    counts, the corpus's ``shape``, word count and largest count: the row source of a fit on
    blocks, with the methods of the in-memory
    :class:`~alphavb.topics._estep.DocumentRows`."""

    in_memory = False  # a batch fit reads it block by block; it is not cut into mini-batches

    def __init__(self, blocks, n_rows, n_features, word_count, largest_count):
        self.blocks = list(blocks)
        self.n_rows = [int(n) for n in n_rows]
        self.offsets = np.concatenate(([0], np.cumsum(self.n_rows))).astype(int)
        self.shape = (int(self.offsets[-1]), int(n_features))
        self.word_count = float(word_count)
        self.largest_count = float(largest_count)

    def e_step(self, gamma, word_factors, settings, fresh_gamma=None):
        """:func:`blockwise_e_step`: one task per block of documents."""
        return blockwise_e_step(self, gamma, word_factors, settings, fresh_gamma)

    def bound(self, topics, max_doc_update_iter, mean_change_tol, n_threads=None):
        """:func:`blockwise_bound` (each worker uses its own numba threads)."""
        return blockwise_bound(self, topics, max_doc_update_iter, mean_change_tol)


def is_block_corpus(X):
    """Whether ``X`` is a dask array (or a list of delayed / CSR blocks) of documents."""
    return is_dask_collection(X) or (isinstance(X, list) and len(X) > 0)


def _block_summary(block):
    block = sp.csr_matrix(block)
    data = block.data
    return (block.shape, bool(np.all(np.isfinite(data))), bool(np.all(data >= 0)),
            float(data.sum()), float(data.max()) if data.size else 0.0)


def as_document_blocks(owner, X, n_features=None):
    """Validated :class:`DocumentBlocks` from a dask array whose chunks are CSR matrices (one
    chunk across the words) or a list of CSR matrices / delayed CSR matrices; one pass that
    checks shapes, finiteness and non-negative counts."""
    import dask

    if is_dask_collection(X):
        if X.ndim != 2 or len(X.chunks[1]) != 1:
            raise ValueError(f"{owner}: a dask X must be 2D with one chunk across the words "
                             f"(X.rechunk({{1: -1}})); got chunks {X.chunks}.")
        blocks = list(X.to_delayed().ravel())
    else:
        blocks = [block if is_dask_collection(block) else dask.delayed(block) for block in X]
    summaries = dask.compute(*[dask.delayed(_block_summary)(block) for block in blocks])
    widths = {shape[1] for shape, *_ in summaries}
    if len(widths) != 1 or (n_features is not None and widths != {n_features}):
        raise ValueError(f"{owner}: every block of X must have the same number of words"
                         + (f" ({n_features}, as in fit)" if n_features is not None else "")
                         + f"; got {sorted(widths)}.")
    if not all(finite for _, finite, *_ in summaries):
        raise ValueError(f"{owner}: X contains NaN or infinity; counts must be finite.")
    if not all(positive for _, _, positive, *_ in summaries):
        raise ValueError(f"Negative values in data passed to {owner} (X must hold word "
                         "counts >= 0).")
    return DocumentBlocks(blocks, [shape[0] for shape, *_ in summaries], widths.pop(),
                          sum(total for *_, total, _ in summaries),
                          max(largest for *_, largest in summaries))


def _block_e_step(block, gamma, word_factors, settings, fresh_gamma):
    """The E-step of one block (on a worker, the in-memory
    :func:`~alphavb.topics._estep.e_step`): the block's updated ``gamma`` rows, its
    statistics ``S`` (K, V) and ``sum n log Z``."""
    block = sp.csr_matrix(block, dtype=np.float64)
    gamma = np.array(gamma)
    statistics, log_norm, _ = e_step(block, block.tocsc(), gamma, word_factors,
                                      fresh_gamma=fresh_gamma, **settings)
    return gamma, statistics, log_norm


def blockwise_e_step(corpus, gamma, word_factors, settings, fresh_gamma=None):
    """:func:`_block_e_step` over every block; ``gamma`` updated in place; the summed
    statistics and ``sum n log Z``."""
    import dask

    task = dask.delayed(_block_e_step, pure=True)
    tasks = []
    for block, start, stop in zip(corpus.blocks, corpus.offsets[:-1], corpus.offsets[1:],
                                  strict=True):
        fresh = None if fresh_gamma is None else fresh_gamma[start:stop]
        tasks.append(task(block, gamma[start:stop], word_factors, settings, fresh))
    parts = dask.compute(*tasks)
    statistics = np.zeros((word_factors.shape[1], word_factors.shape[0]))
    log_norm = 0.0
    for (start, stop), (block_gamma, block_statistics, block_log_norm) in zip(
            zip(corpus.offsets[:-1], corpus.offsets[1:], strict=True), parts, strict=True):
        gamma[start:stop] = block_gamma
        statistics += block_statistics
        log_norm += block_log_norm
    return statistics, log_norm


def _block_bound(block, components, doc_topic_prior, topic_word_prior, max_doc_update_iter,
                 mean_change_tol):
    return bound_terms(components, doc_topic_prior, topic_word_prior, block,
                        max_doc_update_iter, mean_change_tol)


def blockwise_bound(corpus, topics, max_doc_update_iter, mean_change_tol):
    """The alpha = 1 bound's documents part, topics part and word count of a corpus in
    blocks (:func:`~alphavb.topics._estep.bound_terms` per block; the topics part is the
    same for every block)."""
    import dask

    task = dask.delayed(_block_bound, pure=True)
    parts = dask.compute(*[task(block, topics.components, topics.doc_topic_prior,
                                topics.topic_word_prior, max_doc_update_iter, mean_change_tol)
                           for block in corpus.blocks])
    return (float(sum(part[0] for part in parts)), parts[0][1],
            float(sum(part[2] for part in parts)))
