"""numba kernel of the Gaussian-mixture local step and its sufficient statistics
(Yang, Pati & Bhattacharya 2020, Cor. 4.4; the updates are in
:mod:`alphavb.mixture._gaussian_mixture`).

One pass over the rows computes, for each row ``i`` and component ``k``,

    log rho_ik = scale * (log_const_k - 0.5 * || U_k' (x_i - c_k) ||^2),
    r_ik       = softmax_k(log rho_ik),

and accumulates the weighted statistics the global step needs, *shifted* by the current
component means ``c_k``:

    N_k = sum_i w_i r_ik,   s_k = sum_i w_i r_ik (x_i - c_k),
    T_k = sum_i w_i r_ik (x_i - c_k)(x_i - c_k)'.

Shifting by ``c_k`` (close to the new ``ybar_k``) keeps the centred scatter
``T_k - s_k s_k' / N_k`` free of the cancellation a raw second moment ``sum r x x'`` suffers
when components sit far from the origin; the differences ``x_i - c_k`` are the ones the
Mahalanobis distance already needs. ``U_k`` is upper triangular with
``U_k U_k' = E[Lambda_k]`` (scikit-learn's ``precisions_cholesky_``); ``diagonal`` says only
its diagonal is non-zero and only the diagonal of ``T_k`` is wanted.

The NumPy reference used in the tests is ``tests/naive.py::mixture_local_step``.
"""

import math

import numba
import numpy as np

_REDUCTION_FLAGS = {"reassoc", "contract"}

# Rows are handled in blocks of ROW_BLOCK, transposed so that every inner loop runs over the
# rows of the block with a unit stride: LLVM turns those loops into SIMD instructions.
ROW_BLOCK = 128


@numba.njit(cache=True, nogil=True, fastmath=_REDUCTION_FLAGS)
def _differences(x_block, mean, diff, n_rows):
    """``diff[j, b] = x_block[j, b] - mean[j]`` for the first ``n_rows`` columns."""
    for j in range(x_block.shape[0]):
        centre = mean[j]
        for b in range(n_rows):
            diff[j, b] = x_block[j, b] - centre


@numba.njit(cache=True, nogil=True, fastmath=_REDUCTION_FLAGS)
def mixture_local_step(X, sample_weight, means, prec_chol, log_const, scale, diagonal,
                       start, stop, resp, nk, sums, scatter, accumulate):
    """Responsibilities of rows ``start:stop`` and their shifted statistics.

    Writes ``resp[start:stop]`` and, if ``accumulate``, *adds* into ``nk`` (K,), ``sums``
    (K, p) and the upper triangle of ``scatter`` (K, p, p) (only its diagonal when
    ``diagonal``). Releases the GIL, so disjoint row ranges can run on several threads with
    separate output arrays.

    Returns
    -------
    weighted_neg_entropy : float
        ``sum_i w_i sum_k r_ik log r_ik`` over the rows, with ``0 log 0 = 0``.
    """
    n_components, n_features = means.shape
    x_block = np.empty((n_features, ROW_BLOCK))
    diff = np.empty((n_features, ROW_BLOCK))
    # log rho_kb during the distance pass, then w_b r_kb during the statistics pass
    work = np.empty((n_components, ROW_BLOCK))
    z = np.empty(ROW_BLOCK)
    maha = np.empty(ROW_BLOCK)
    neg_entropy = 0.0
    for first in range(start, stop, ROW_BLOCK):
        n_rows = min(ROW_BLOCK, stop - first)
        for b in range(n_rows):
            for j in range(n_features):
                x_block[j, b] = X[first + b, j]
        # log rho_kb = scale (log_const_k - 0.5 ||U_k' (x_b - m_k)||^2)
        for k in range(n_components):
            _differences(x_block, means[k], diff, n_rows)
            for b in range(n_rows):
                maha[b] = 0.0
            for j in range(n_features):
                if diagonal:
                    u = prec_chol[k, j, j]
                    for b in range(n_rows):
                        z[b] = u * diff[j, b]
                else:
                    for b in range(n_rows):
                        z[b] = 0.0
                    for m in range(j + 1):
                        u = prec_chol[k, m, j]
                        for b in range(n_rows):
                            z[b] += u * diff[m, b]
                for b in range(n_rows):
                    maha[b] += z[b] * z[b]
            for b in range(n_rows):
                work[k, b] = scale * (log_const[k] - 0.5 * maha[b])
        # r_kb = softmax_k(log rho_kb); keep w_b r_kb in work
        for b in range(n_rows):
            largest = -np.inf
            for k in range(n_components):
                largest = max(largest, work[k, b])
            total = 0.0
            for k in range(n_components):
                total += math.exp(work[k, b] - largest)
            log_norm = largest + math.log(total)
            weight = sample_weight[first + b]
            for k in range(n_components):
                log_r = work[k, b] - log_norm
                r = math.exp(log_r)
                resp[first + b, k] = r
                work[k, b] = weight * r
                if r > 0.0:
                    neg_entropy += weight * r * log_r
        if not accumulate:
            continue
        # shifted statistics
        for k in range(n_components):
            _differences(x_block, means[k], diff, n_rows)
            total = 0.0
            for b in range(n_rows):
                total += work[k, b]
            nk[k] += total
            for j in range(n_features):
                total = 0.0
                for b in range(n_rows):
                    z[b] = work[k, b] * diff[j, b]
                    total += z[b]
                sums[k, j] += total
                for m in range(j, j + 1 if diagonal else n_features):
                    total = 0.0
                    for b in range(n_rows):
                        total += z[b] * diff[m, b]
                    scatter[k, j, m] += total
    return neg_entropy
