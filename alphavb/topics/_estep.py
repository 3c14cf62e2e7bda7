"""LDA's E-step and bound terms in memory (Yang, Pati & Bhattacharya 2020, Cor. 4.5; the
updates are in :mod:`alphavb.topics._lda`): per-document coordinate ascent and the topic
statistics on the numba kernels of :mod:`~alphavb.topics._kernels`, over ranges of documents
and words on threads (:func:`~alphavb._parallel.in_ranges`: each range writes only its own
rows, so results do not depend on the thread count). The in-memory estimator and the dask
block tasks (:mod:`alphavb.topics._blocks`) both call it."""

from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .._parallel import in_ranges
from .._special import dirichlet_expected_log, kl_dirichlet


def word_factors_of(elog_beta, scale):
    """``B[v, k] = exp(s Elog_beta_kv)``, vocabulary-major for the kernels."""
    return np.ascontiguousarray(np.exp(scale * elog_beta).T)


def e_step(X, csc, gamma, word_factors, doc_topic_prior, alpha, scale, max_doc_update_iter,
            mean_change_tol, fresh_gamma=None, kl_weight=1.0, n_threads=1):
    """Per-document coordinate ascent (``gamma`` updated in place; with ``fresh_gamma``, the
    better of a warm and a fresh start, see ``lda_document_step``), then the statistics, on
    ``n_threads`` threads.

    Returns ``S`` (K, V), ``sum_dv n_dv log Z_dv`` and the passes each document took.
    """
    # numba and the kernels load on the first fit, not on `import alphavb`
    from ._kernels import lda_document_step, lda_word_statistics

    if fresh_gamma is None:
        fresh_gamma = np.empty((0, gamma.shape[1]))
    n_passes = np.zeros(gamma.shape[0], dtype=np.int64)
    in_ranges(lambda first, last: lda_document_step(
        X.indptr, X.indices, X.data, word_factors, gamma, fresh_gamma, doc_topic_prior, alpha,
        scale, kl_weight, max_doc_update_iter, mean_change_tol, first, last, n_passes),
        gamma.shape[0], n_threads)
    doc_factors = np.exp(scale * dirichlet_expected_log(gamma))
    n_words, n_topics = word_factors.shape
    statistics = np.empty((n_words, n_topics))
    log_norm_per_word = np.empty(n_words)
    in_ranges(lambda first, last: lda_word_statistics(
        csc.indptr, csc.indices, csc.data, doc_factors, word_factors, statistics,
        log_norm_per_word, first, last), n_words, n_threads)
    log_norm = float(np.sum(log_norm_per_word))
    if not (np.isfinite(log_norm) and np.all(np.isfinite(gamma))):
        raise FloatingPointError(
            "AlphaLDA: the E-step left float64's range (a word's probability under q "
            "underflowed to 0, or the counts, up to "
            f"{X.data.max() if X.nnz else 0.0:.3g} in X, overflowed the statistics). Rescale "
            "the counts of X, or use larger doc_topic_prior / topic_word_prior.")
    return statistics.T, log_norm, n_passes


def document_bounds(log_word_probabilities, doc_topic_prior, X, max_doc_update_iter,
                    mean_change_tol, n_threads=1):
    """Per document, the alpha = 1 bound ``sum_v n_dv log Z_dv - KL(q(theta_d) || Dir(a))``
    with ``Z_dv = sum_k exp(E_q[log theta_dk] + w_kv)`` and each ``q(theta_d)`` fitted from
    ``gamma_d = 1`` (Blei, Ng & Jordan 2003, eq. 15, ``phi`` at its optimum given ``gamma``).

    ``log_word_probabilities`` (K, V) is ``w``: ``E_q[log beta_kv]`` under ``q(beta) =
    Dir(lambda)`` for the bound of a fit's ``q``, or ``log beta_kv`` for topics given as
    points (a plug-in). Returns an ndarray of shape (n_documents,).
    """
    X = sp.csr_matrix(X, dtype=np.float64)
    word_factors = word_factors_of(np.asarray(log_word_probabilities, dtype=np.float64), 1.0)
    gamma = np.ones((X.shape[0], word_factors.shape[1]))
    e_step(X, X.tocsc(), gamma, word_factors, doc_topic_prior, 1.0, 1.0, max_doc_update_iter,
            mean_change_tol, n_threads=n_threads)
    doc_factors = np.exp(dirichlet_expected_log(gamma))
    documents = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    log_norm = X.data * np.log(np.einsum("ik,ik->i", doc_factors[documents],
                                         word_factors[X.indices]))
    return (np.bincount(documents, weights=log_norm, minlength=X.shape[0])
            - kl_dirichlet(gamma, doc_topic_prior))


def bound_terms(components, doc_topic_prior, topic_word_prior, X, max_doc_update_iter,
                 mean_change_tol, n_threads=1):
    """The alpha = 1 bound of documents ``X`` under topics ``q(beta) = Dir(components)``,
    split into the documents' part (the sum of :func:`document_bounds`) and the topics' part
    ``-sum_k KL(q(beta_k) || p)``.
    """
    components = np.asarray(components, dtype=np.float64)
    documents = document_bounds(dirichlet_expected_log(components), doc_topic_prior, X,
                                max_doc_update_iter, mean_change_tol, n_threads)
    topics = -np.sum(kl_dirichlet(components, topic_word_prior))
    return float(np.sum(documents)), float(topics), float(sp.csr_matrix(X).sum())


class DocumentRows:
    """A corpus in memory, the row source of an in-memory fit: its counts ``X`` (float64 CSR)
    and, made when first read, their CSC copy for the word-major pass of the statistics.
    :class:`~alphavb.topics._blocks.DocumentBlocks` is the corpus in dask blocks, with the
    same methods; the estimator chooses one when it checks ``X``."""

    in_memory = True  # its documents can be taken as mini-batches (online learning)

    def __init__(self, X):
        self.X = X

    @property
    def shape(self):
        return self.X.shape

    @cached_property
    def csc(self):
        return self.X.tocsc()

    @property
    def word_count(self):
        """The corpus's number of words (the sum of its counts)."""
        return float(self.X.sum())

    @property
    def largest_count(self):
        return float(self.X.data.max()) if self.X.nnz else 0.0

    def take(self, documents):
        """The documents ``documents`` (a slice or indices) as a corpus of their own."""
        return DocumentRows(self.X[documents])

    def e_step(self, gamma, word_factors, settings, fresh_gamma=None):
        """:func:`e_step` of these documents (``gamma`` updated in place): ``S`` (K, V) and
        ``sum_dv n_dv log Z_dv``."""
        statistics, log_norm, _ = e_step(self.X, self.csc, gamma, word_factors,
                                         fresh_gamma=fresh_gamma, **settings)
        return statistics, log_norm

    def bound(self, topics, max_doc_update_iter, mean_change_tol, n_threads):
        """:func:`bound_terms` of these documents under ``topics``."""
        return bound_terms(topics.components, topics.doc_topic_prior, topics.topic_word_prior,
                           self.X, max_doc_update_iter, mean_change_tol, n_threads)


def heldout_perplexity(components, doc_topic_prior, topic_word_prior, X,
                       max_doc_update_iter=100, mean_change_tol=1e-3):
    """Held-out per-word perplexity of documents ``X`` under the topics ``q(beta)``.

    One function for every model (alphavb, scikit-learn, gensim), so their numbers compare:
    ``components`` is the (K, V) matrix of Dirichlet parameters ``lambda`` of ``q(beta_k)``
    (scikit-learn's ``components_``, gensim's ``state.get_lambda()``). Each document's
    ``q(theta_d)`` is fitted by the alpha = 1 E-step from ``gamma_d = 1``, and the result is
    ``exp(-B / N)`` with ``B = sum_dv n_dv log Z_dv - sum_d KL(q(theta_d) || Dir(a))`` the
    documents' part of the bound and ``N`` their number of words. Unlike scikit-learn's
    ``perplexity`` it leaves out ``sum_k KL(q(beta_k) || Dir(eta))``, a constant of the
    training fit that would otherwise swamp a small test set (``AlphaLDA.perplexity`` keeps
    scikit-learn's definition).
    """
    documents, _, n_words = bound_terms(components, doc_topic_prior, topic_word_prior, X,
                                         max_doc_update_iter, mean_change_tol)
    if n_words == 0:
        raise ValueError("heldout_perplexity: X has no words (all counts are 0), so the "
                         "perplexity per word is undefined.")
    return float(np.exp(-documents / n_words))
