"""numba kernels of alpha-VB LDA (Yang, Pati & Bhattacharya 2020, Cor. 4.5; the updates
are in :mod:`alphavb.topics._lda`): the per-document E-step and the topic statistics.

Both are serial, cached (``cache=True``) and release the GIL (``nogil=True``); each handles
a range of documents (:func:`lda_document_step`) or of words (:func:`lda_word_statistics`)
and writes only that range's rows (a document's ``gamma_d``, a word's row of the
statistics), so :mod:`alphavb.topics._lda` runs ranges on a thread pool and the results do
not depend on the number of threads. (numba's ``parallel=True`` kernels are recompiled in
every process, ~2.4 s for these two, because caching them is unsafe when the thread count
changes, pynndescent #175; serial cached kernels load from disk in milliseconds.)

Notation: ``B[v, k] = exp(s * Elog_beta_kv)`` (vocabulary-major, so a word's K values are
contiguous) and ``T[d, k] = exp(s * Elog_theta_dk)``, with ``s = 1`` for the alpha-ELBO and
``s = alpha`` for the fractional objective. Then ``phi_dvk = T[d, k] B[v, k] / Z_dv`` with
``Z_dv = sum_k T[d, k] B[v, k]``. The NumPy reference is ``tests/naive.py::lda_e_step``.
"""

import math

import numba
import numpy as np

# Reassociation lets LLVM vectorise the sums over topics; no flag that assumes away NaN or
# inf is set, so non-finite values still reach the objective's check. error_model="numpy":
# a division by zero gives inf/nan (checked by the caller) instead of raising in a worker
# thread.
_REDUCTION_FLAGS = {"reassoc", "contract"}


@numba.njit(cache=True, error_model="numpy")
def digamma(x):
    """``psi(x)`` for ``x > 0``: the recurrence ``psi(x) = psi(x + 1) - 1/x`` up to 10, then
    the asymptotic series to ``x^-12`` (checked against scipy to 1e-13 in the tests)."""
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (
        1.0 / 240 - inv2 * (1.0 / 132 - inv2 * (691.0 / 32760))))))
    return result + math.log(x) - 0.5 * inv - series


@numba.njit(cache=True, fastmath=_REDUCTION_FLAGS, error_model="numpy")
def _document_loop(start, stop, indices, counts, word_factors, gamma_d, doc_topic_prior, alpha,
                   scale, max_iter, mean_change_tol, theta_factor, accumulated):
    """Alternate the phi- and gamma-updates of one document, ``gamma_d`` updated in place;
    returns the number of passes."""
    n_topics = gamma_d.shape[0]
    for it in range(max_iter):
        total = 0.0
        for k in range(n_topics):
            total += gamma_d[k]
        psi_total = digamma(total)
        for k in range(n_topics):
            theta_factor[k] = math.exp(scale * (digamma(gamma_d[k]) - psi_total))
            accumulated[k] = 0.0
        for position in range(start, stop):
            v = indices[position]
            norm = 0.0
            for k in range(n_topics):
                norm += theta_factor[k] * word_factors[v, k]
            ratio = counts[position] / norm
            for k in range(n_topics):
                accumulated[k] += ratio * word_factors[v, k]
        change = 0.0
        for k in range(n_topics):
            updated = doc_topic_prior + alpha * theta_factor[k] * accumulated[k]
            change += abs(updated - gamma_d[k])
            gamma_d[k] = updated
        if change / n_topics < mean_change_tol:
            return it + 1
    return max_iter


@numba.njit(cache=True, fastmath=_REDUCTION_FLAGS, error_model="numpy")
def _document_objective(start, stop, indices, counts, word_factors, gamma_d, doc_topic_prior,
                        scale, kl_weight, theta_factor):
    """``sum_v n_dv log Z_dv - kl_weight KL(Dir(gamma_d) || Dir(a))``: the document's share of
    the objective with phi at its update given ``gamma_d`` (module docstring of ``_lda``)."""
    n_topics = gamma_d.shape[0]
    total = 0.0
    for k in range(n_topics):
        total += gamma_d[k]
    psi_total = digamma(total)
    kl = math.lgamma(total) - math.lgamma(n_topics * doc_topic_prior)
    for k in range(n_topics):
        expected_log = digamma(gamma_d[k]) - psi_total
        theta_factor[k] = math.exp(scale * expected_log)
        kl += (math.lgamma(doc_topic_prior) - math.lgamma(gamma_d[k])
               + (gamma_d[k] - doc_topic_prior) * expected_log)
    value = -kl_weight * kl
    for position in range(start, stop):
        v = indices[position]
        norm = 0.0
        for k in range(n_topics):
            norm += theta_factor[k] * word_factors[v, k]
        value += counts[position] * math.log(norm)
    return value


@numba.njit(cache=True, nogil=True, fastmath=_REDUCTION_FLAGS, error_model="numpy")
def lda_document_step(indptr, indices, counts, word_factors, gamma, fresh_gamma,
                      doc_topic_prior, alpha, scale, kl_weight, max_iter, mean_change_tol,
                      first, last, n_passes):
    """Coordinate ascent on each document's ``(phi_d, gamma_d)`` with ``q(beta)`` fixed, for
    the documents ``first <= d < last``.

    For each document ``d`` (CSR row), starting from ``gamma[d]`` and repeating until the
    mean absolute change of ``gamma_d`` is below ``mean_change_tol`` (or ``max_iter`` times)::

        phi_dvk  = T_dk B_vk / Z_dv,        T_dk = exp(s (psi(gamma_dk) - psi(sum_k gamma_dk)))
        gamma_dk = doc_topic_prior + alpha sum_v n_dv phi_dvk

    If ``fresh_gamma`` has rows, the loop is run from ``fresh_gamma[d]`` instead (scikit-learn
    restarts every document this way each sweep, which finds much better optima than
    warm starts do), and its end point is kept if its document objective
    (:func:`_document_objective`) is at least that of ``gamma[d]``; otherwise the loop is run
    from ``gamma[d]``, which cannot lower it. Either way the objective does not decrease.
    ``gamma`` is updated in place, and ``n_passes[d]`` set to the passes document ``d`` took.
    """
    n_topics = gamma.shape[1]
    restart = fresh_gamma.shape[0] > 0
    theta_factor = np.empty(n_topics)
    accumulated = np.empty(n_topics)
    for d in range(first, last):
        start, stop = indptr[d], indptr[d + 1]
        n_passes[d] = 0
        current = gamma[d].copy()
        run_from_current = True
        if restart:
            baseline = _document_objective(start, stop, indices, counts, word_factors, current,
                                           doc_topic_prior, scale, kl_weight, theta_factor)
            fresh = fresh_gamma[d].copy()
            n_passes[d] += _document_loop(start, stop, indices, counts, word_factors, fresh,
                                          doc_topic_prior, alpha, scale, max_iter,
                                          mean_change_tol, theta_factor, accumulated)
            if (_document_objective(start, stop, indices, counts, word_factors, fresh,
                                    doc_topic_prior, scale, kl_weight, theta_factor)
                    >= baseline):
                current = fresh
                run_from_current = False
        if run_from_current:
            n_passes[d] += _document_loop(start, stop, indices, counts, word_factors, current,
                                          doc_topic_prior, alpha, scale, max_iter,
                                          mean_change_tol, theta_factor, accumulated)
        for k in range(n_topics):
            gamma[d, k] = current[k]


@numba.njit(cache=True, nogil=True, fastmath=_REDUCTION_FLAGS, error_model="numpy")
def lda_word_statistics(col_indptr, col_docs, col_counts, doc_factors, word_factors,
                        statistics, log_norm_per_word, first, last):
    """``statistics[v, k] = sum_d n_dv phi_dvk`` and ``log_norm_per_word[v] = sum_d n_dv log Z_dv``
    for the words ``first <= v < last``.

    Runs over the columns of the count matrix (CSC), so each word's output row is written by
    one iteration only. ``phi`` is computed from ``doc_factors`` ``T`` (the documents' final
    ``gamma``), i.e. it is the exact phi-update given those ``gamma``.
    """
    n_topics = word_factors.shape[1]
    for v in range(first, last):
        log_norm = 0.0
        for k in range(n_topics):
            statistics[v, k] = 0.0
        for position in range(col_indptr[v], col_indptr[v + 1]):
            d = col_docs[position]
            norm = 0.0
            for k in range(n_topics):
                norm += doc_factors[d, k] * word_factors[v, k]
            count = col_counts[position]
            ratio = count / norm
            for k in range(n_topics):
                statistics[v, k] += ratio * doc_factors[d, k]
            log_norm += count * math.log(norm)
        for k in range(n_topics):
            statistics[v, k] *= word_factors[v, k]
        log_norm_per_word[v] = log_norm
