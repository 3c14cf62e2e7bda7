"""The mixture's local step (E-step) in memory: responsibilities and the sufficient
statistics they give (:mod:`alphavb.mixture._gaussian_mixture`, "Updates"), over row chunks
on threads, and :class:`MemoryRows`, the rows a fit in memory reads. The estimator and the
dask block tasks (:mod:`alphavb.mixture._blocks`) both call it."""

from typing import NamedTuple

import numpy as np

from .._parallel import fixed_slots

# Rows are processed in chunks of CHUNK_ROWS; chunk c adds into accumulator c % N_SLOTS and
# each accumulator is filled in chunk order by one task, so the sums, and every fitted
# number, do not depend on how many threads run the tasks.
CHUNK_ROWS = 4096
N_SLOTS = 16


class Statistics:
    """Weighted sufficient statistics of the responsibilities (the model's module docstring),
    with the full scatter: ``nk`` (K,), ``means`` (K, p) (``ybar_k``; the given shift where
    ``N_k = 0``) and ``scatter`` (K, p, p).

    :class:`DiagonalStatistics` keeps only the scatter's diagonal (K, p); a covariance
    family names the layout it needs (``statistics`` of :mod:`~alphavb.mixture._families`).
    """

    keeps_diagonal = False  # the layout flag of the kernels (mixture._kernels)

    def __init__(self, nk, means, scatter):
        self.nk, self.means, self.scatter = nk, means, scatter

    @staticmethod
    def _weighted_outer(weights, gap):
        """``weights_k gap_k gap_k'`` in this layout."""
        return weights[:, None, None] * gap[:, :, None] * gap[:, None, :]

    @staticmethod
    def _symmetric(scatter_upper):
        """The scatter in this layout from the kernels' upper triangles."""
        upper = np.triu(scatter_upper)
        return upper + np.swapaxes(np.triu(scatter_upper, 1), 1, 2)

    @staticmethod
    def _scatter_of(diff, weights):
        """``sum_i w_i d_i d_i'`` of the rows ``diff`` in this layout."""
        return (diff * weights[:, None]).T @ diff

    @staticmethod
    def _scatter_shape(n_components, n_features):
        return (n_components, n_features, n_features)

    @classmethod
    def from_shifted(cls, shift, nk, sums, scatter_upper):
        """From sums shifted by ``shift``: ``C = T - s s' / N``, ``ybar = shift + s / N``."""
        safe = np.where(nk > 0, nk, 1.0)
        delta = sums / safe[:, None]
        scatter = cls._symmetric(scatter_upper)
        scatter -= cls._weighted_outer(nk, delta)
        return cls(nk, shift + delta, scatter)

    @classmethod
    def from_responsibilities(cls, X, sample_weight, resp):
        """Two-pass NumPy statistics of given responsibilities (used to initialise)."""
        weighted = resp * sample_weight[:, None]
        nk = weighted.sum(axis=0)
        safe = np.where(nk > 0, nk, 1.0)
        means = (weighted.T @ X) / safe[:, None]
        scatter = np.empty(cls._scatter_shape(*means.shape))
        for k in range(means.shape[0]):
            scatter[k] = cls._scatter_of(X - means[k], weighted[:, k])
        return cls(nk, means, scatter)

    @classmethod
    def of_points(cls, rows, nk):
        """Each component one point ``rows[k]`` of weight ``nk[k]`` (no scatter)."""
        return cls(nk, rows, np.zeros(cls._scatter_shape(*rows.shape)))

    def scaled(self, factor):
        return type(self)(factor * self.nk, self.means, factor * self.scatter)

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
        between = self._weighted_outer(na * nb / safe, gap)
        scatter = (1.0 - step) * self.scatter + step * other.scatter + between
        return type(self)(nk, means, scatter)


class DiagonalStatistics(Statistics):
    """:class:`Statistics` keeping only the scatter's diagonal, (K, p) (``"diag"`` and
    ``"spherical"``)."""

    keeps_diagonal = True

    @staticmethod
    def _weighted_outer(weights, gap):
        return weights[:, None] * gap**2

    @staticmethod
    def _symmetric(scatter_upper):
        return np.diagonal(scatter_upper, axis1=1, axis2=2).copy()

    @staticmethod
    def _scatter_of(diff, weights):
        return weights @ (diff * diff)

    @staticmethod
    def _scatter_shape(n_components, n_features):
        return (n_components, n_features)


def local_step(X, sample_weight, means, prec_chol, log_const, scale, statistics,
               accumulate=True, n_threads=None):
    """Responsibilities, their statistics and ``sum_i w_i sum_k r_ik log r_ik``
    (``accumulate=False`` skips the statistics, which are then zero).

    Runs :func:`~alphavb.mixture._kernels.mixture_local_step` over row chunks on
    ``n_threads`` threads (``None``: ``numba.get_num_threads()``, set by
    ``numba.set_num_threads`` or ``NUMBA_NUM_THREADS``); results do not depend on the thread
    count (:func:`~alphavb._parallel.fixed_slots`).
    """
    resp, nk, sums, scatter, neg_entropy = shifted_sums(
        X, sample_weight, means, prec_chol, log_const, scale, statistics.keeps_diagonal,
        accumulate, n_threads)
    return resp, statistics.from_shifted(means, nk, sums, scatter), neg_entropy


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


class MemoryRows(NamedTuple):
    """Validated rows in memory, the weights every sum uses and the user's weights (or None):
    the row source of a fit in memory (:class:`~alphavb.mixture._blocks.BlockRows` is the
    one of a dask array, with the same methods)."""

    X: np.ndarray
    weight: np.ndarray
    user_weight: np.ndarray | None

    def local_step(self, post, statistics, scale, accumulate=True, n_threads=None):
        """:func:`local_step` of these rows at ``q(theta) = post``, in the ``statistics``
        layout: responsibilities, statistics and ``sum_i w_i sum_k r_ik log r_ik``."""
        return local_step(self.X, self.weight, post.means, post.prec_chol, post.log_const,
                          scale, statistics, accumulate, n_threads)

    def initial_statistics(self, model, statistics, random_state):
        """The statistics, in the ``statistics`` layout, of ``model``'s first
        responsibilities (its ``_initial_responsibilities``, drawn by ``init_params``)."""
        resp = model._initial_responsibilities(self.X, self.weight, self.user_weight,
                                               random_state)
        return statistics.from_responsibilities(self.X, self.weight, resp)
