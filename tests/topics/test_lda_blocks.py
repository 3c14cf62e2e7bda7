"""AlphaLDA on a corpus in blocks (a dask array of CSR blocks, or a list of blocks): the
same batch fit as in memory, on a 2-worker LocalCluster."""

import numpy as np
import pytest
import scipy.sparse as sp

from alphavb import AlphaLDA
from alphavb.datasets import make_lda_corpus

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

RTOL = 1e-10
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def corpus():
    X, _, _ = make_lda_corpus(n_documents=300, n_topics=3, n_words=40, document_length=60,
                              random_state=0)
    return sp.csr_matrix(X)


def dask_blocks(X, rows):
    """A dask array whose chunks are CSR blocks of ``rows`` documents."""
    parts = [da.from_delayed(dask.delayed(X.__getitem__)(slice(start, start + rows)),
                             shape=(min(rows, X.shape[0] - start), X.shape[1]),
                             dtype=np.float64, meta=sp.csr_matrix((0, X.shape[1])))
             for start in range(0, X.shape[0], rows)]
    return da.concatenate(parts, axis=0)


@pytest.mark.parametrize("settings", [{}, {"alpha": 0.6, "optimize_priors": True},
                                      {"objective": "fractional", "alpha": 0.5}])
def test_blocks_on_a_cluster_give_the_in_memory_fit(dask_client, settings):
    X = corpus()
    common = {"n_components": 3, "max_iter": 12, "random_state": 0, **settings}
    reference = AlphaLDA(**common).fit(X)
    for blocks in ([X[start:start + 70] for start in range(0, 300, 70)], dask_blocks(X, 100)):
        ours = AlphaLDA(**common).fit(blocks)
        assert ours.n_iter_ == reference.n_iter_
        assert ours.n_guarded_sweeps_ == reference.n_guarded_sweeps_
        np.testing.assert_allclose(ours.elbo_history_, reference.elbo_history_, rtol=RTOL)
        np.testing.assert_allclose(ours.components_, reference.components_, rtol=RTOL)
        assert ours.bound_ == pytest.approx(reference.bound_, rel=RTOL)
        assert ours.doc_topic_prior_ == pytest.approx(reference.doc_topic_prior_, rel=RTOL)
        np.testing.assert_allclose(ours.transform(blocks), reference.transform(X), rtol=1e-9)
        assert ours.perplexity(blocks) == pytest.approx(reference.perplexity(X), rel=1e-9)


def test_bad_blocks_are_refused_with_the_fix():
    X = corpus()
    with pytest.raises(ValueError, match=r"'learning_method' parameter .* 'batch'"):
        AlphaLDA(3, learning_method="online").fit([X[:100], X[100:]])
    with pytest.raises(ValueError, match="same number of words"):
        AlphaLDA(3).fit([X[:100], X[100:, :30]])
    negative = X[:50].copy()
    negative.data[0] = -1.0
    with pytest.raises(ValueError, match="Negative values"):
        AlphaLDA(3).fit([negative, X[50:]])


def test_partial_fit_takes_a_mini_batch_in_blocks():
    """partial_fit on a list of CSR blocks or a dask array of them raised AttributeError
    ('DocumentBlocks' object has no attribute 'tocsc'); it now equals partial_fit on the
    same rows in memory."""
    X = corpus()
    common = {"n_components": 3, "random_state": 0, "total_samples": 3000}
    memory, listed, chunked = (AlphaLDA(**common) for _ in range(3))
    for rows in np.array_split(np.arange(X.shape[0]), 3):
        memory.partial_fit(X[rows])
        listed.partial_fit([X[rows[:40]], X[rows[40:]]])
        chunked.partial_fit(dask_blocks(X[rows], 30))
    for other in (listed, chunked):
        np.testing.assert_allclose(other.components_, memory.components_, rtol=RTOL)
