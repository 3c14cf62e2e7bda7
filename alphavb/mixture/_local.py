"""The mixture's local step in memory: responsibilities and the sufficient statistics they
give (:mod:`alphavb.mixture._gaussian_mixture`, "Updates"), over row chunks on threads. The
in-memory estimator and the dask block tasks (:mod:`alphavb.mixture._dask`) both call it."""

import numpy as np

from .._parallel import fixed_slots

# Rows are processed in chunks of CHUNK_ROWS; chunk c adds into accumulator c % N_SLOTS and
# each accumulator is filled in chunk order by one task, so the sums, and every fitted
# number, do not depend on how many threads run the tasks.
CHUNK_ROWS = 4096
N_SLOTS = 16


class Statistics:
    """Weighted sufficient statistics of the responsibilities (the model's module docstring).

    ``nk`` (K,), ``means`` (K, p) (``ybar_k``; the given shift where ``N_k = 0``) and
    ``scatter`` (K, p, p), or (K, p) holding only the diagonal for diag/spherical models.
    """

    def __init__(self, nk, means, scatter):
        self.nk, self.means, self.scatter = nk, means, scatter

    @classmethod
    def from_shifted(cls, shift, nk, sums, scatter_upper, diagonal):
        """From sums shifted by ``shift``: ``C = T - s s' / N``, ``ybar = shift + s / N``."""
        safe = np.where(nk > 0, nk, 1.0)
        delta = sums / safe[:, None]
        if diagonal:
            scatter = np.diagonal(scatter_upper, axis1=1, axis2=2) - nk[:, None] * delta**2
        else:
            upper = np.triu(scatter_upper)
            scatter = upper + np.swapaxes(np.triu(scatter_upper, 1), 1, 2)
            scatter -= nk[:, None, None] * delta[:, :, None] * delta[:, None, :]
        return cls(nk, shift + delta, scatter)

    @classmethod
    def from_responsibilities(cls, X, sample_weight, resp, diagonal):
        """Two-pass NumPy statistics of given responsibilities (used to initialise)."""
        weighted = resp * sample_weight[:, None]
        nk = weighted.sum(axis=0)
        safe = np.where(nk > 0, nk, 1.0)
        means = (weighted.T @ X) / safe[:, None]
        n_components, n_features = means.shape
        if diagonal:
            scatter = np.empty((n_components, n_features))
        else:
            scatter = np.empty((n_components, n_features, n_features))
        for k in range(n_components):
            diff = X - means[k]
            if diagonal:
                scatter[k] = weighted[:, k] @ (diff * diff)
            else:
                scatter[k] = (diff * weighted[:, k, None]).T @ diff
        return cls(nk, means, scatter)

    def scaled(self, factor):
        return Statistics(factor * self.nk, self.means, factor * self.scatter)

    def blend(self, other, step):
        """``(1 - step) self + step other`` in ``(N, N ybar, C + N ybar ybar')``.

        Written in the centred form of Chan et al.'s pooled-variance update, so no raw
        second moment is ever formed.
        """
        na, nb = (1.0 - step) * self.nk, step * other.nk
        nk = na + nb
        safe = np.where(nk > 0, nk, 1.0)
        gap = other.means - self.means
        means = self.means + (nb / safe)[:, None] * gap
        pooled = na * nb / safe
        if self.scatter.ndim == 2:
            between = pooled[:, None] * gap**2
        else:
            between = pooled[:, None, None] * gap[:, :, None] * gap[:, None, :]
        scatter = (1.0 - step) * self.scatter + step * other.scatter + between
        return Statistics(nk, means, scatter)


def local_step(X, sample_weight, means, prec_chol, log_const, scale, diagonal,
               accumulate=True, n_threads=None):
    """Responsibilities, their statistics and ``sum_i w_i sum_k r_ik log r_ik``
    (``accumulate=False`` skips the statistics, which are then zero).

    Runs :func:`~alphavb.mixture._kernels.mixture_local_step` over row chunks on
    ``n_threads`` threads (``None``: ``numba.get_num_threads()``, set by
    ``numba.set_num_threads`` or ``NUMBA_NUM_THREADS``); results do not depend on the thread
    count (:func:`~alphavb._parallel.fixed_slots`).
    """
    resp, nk, sums, scatter, neg_entropy = shifted_sums(
        X, sample_weight, means, prec_chol, log_const, scale, diagonal, accumulate, n_threads)
    return resp, Statistics.from_shifted(means, nk, sums, scatter, diagonal), neg_entropy


def shifted_sums(X, sample_weight, means, prec_chol, log_const, scale, diagonal, accumulate,
                 n_threads=None):
    """The local step's responsibilities and its sums shifted by ``means`` (``N_k``, ``s_k``,
    ``T_k`` of :mod:`~alphavb.mixture._kernels`), which add up over blocks of rows, and
    ``sum_i w_i sum_k r_ik log r_ik``."""
    # numba and the kernels load on the first fit, not on `import alphavb`
    import numba

    from ._kernels import mixture_local_step

    n_samples = X.shape[0]
    n_components, n_features = means.shape
    resp = np.empty((n_samples, n_components))
    chunk_starts = range(0, n_samples, CHUNK_ROWS)
    n_slots = min(N_SLOTS, len(chunk_starts))
    nk = np.zeros((n_slots, n_components))
    sums = np.zeros((n_slots, n_components, n_features))
    scatter = np.zeros((n_slots, n_components, n_features, n_features))

    def fill_slot(slot):
        neg_entropy = 0.0
        for start in chunk_starts[slot::n_slots]:
            stop = min(start + CHUNK_ROWS, n_samples)
            neg_entropy += mixture_local_step(
                X, sample_weight, means, prec_chol, log_const, scale, diagonal, start, stop,
                resp, nk[slot], sums[slot], scatter[slot], accumulate,
            )
        return neg_entropy

    n_threads = numba.get_num_threads() if n_threads is None else n_threads
    neg_entropies = fixed_slots(fill_slot, n_slots, n_threads)
    return (resp, nk.sum(axis=0), sums.sum(axis=0), scatter.sum(axis=0),
            float(sum(neg_entropies)))
