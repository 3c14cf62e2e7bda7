"""Mixture fits over dask arrays (``pip install "alphavb[dask]"``).

CAVI for the mixture is a map-reduce: the local step of a block of rows needs only the
current ``q(theta)`` and returns sufficient statistics that add up over blocks (shifted by
the current means, as the in-memory step's are: :mod:`alphavb.mixture._kernels`). Each sweep
runs :func:`block_sums` once per block of rows, on the workers of the active
``dask.distributed`` client (or dask's local scheduler without one), and adds the blocks'
sums on the client in block order; the global step is the in-memory one. Blocks are read
as the tasks run, so data larger than memory (a ``.npy`` memmap or a zarr store wrapped by
dask) is streamed once per sweep. The sums differ from the in-memory fit's only in the order
of additions (about 1e-15 relative).

:class:`BlockRows` is the row source of such a fit (the in-memory one is
:class:`~alphavb.mixture._estep.MemoryRows`), chosen once when the input is validated;
:func:`lazy_over_row_blocks` makes a prediction method give a lazy dask array for a dask
``X``.
"""

import functools
from typing import NamedTuple

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._validation import bad_parameter, is_dask_collection
from ..base import column_standard_deviations
from ._estep import shifted_sums

# rows of a dask X that k-means (or k-means++) starts from: all of them (read into memory,
# the in-memory start exactly) up to this many, else a uniform sample of this many
KMEANS_SAMPLE_ROWS = 100_000


def as_row_blocks(owner, X, sample_weight, check_values=True):
    """Validated float64 dask array with one chunk across the features, and its weights as a
    dask array with the same row chunks (ones when ``sample_weight`` is None).

    Raises ``ValueError`` naming the problem for a wrong shape, unknown chunk sizes and, with
    ``check_values`` (one pass over the data), NaN or infinite values, squares that overflow
    float64 or negative weights. Lazy predictions skip that pass: each block's own
    validation checks its values when it is computed.
    """
    import dask
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"{owner}: expected a 2D dask array X (n_samples, n_features); got "
                         f"{X.ndim} dimensions.")
    if any(np.isnan(size) for size in X.chunks[0]):
        raise ValueError(f"{owner}: the row chunks of X are unknown; call "
                         "X.compute_chunk_sizes() first.")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{owner}: X has 0 {'rows' if X.shape[0] == 0 else 'features'}; a "
                         "minimum of 1 is required.")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{owner}: X holds {X.dtype} values; it needs numbers.")
    X = X.astype(np.float64).rechunk({1: -1})
    if sample_weight is None:
        weight = da.ones(X.shape[0], chunks=(X.chunks[0],))
    else:
        weight = sample_weight if is_dask_collection(sample_weight) else np.asarray(
            sample_weight, dtype=np.float64)
        if weight.shape != (X.shape[0],):
            raise ValueError(f"{owner}: sample_weight must have shape ({X.shape[0]},), one "
                             f"weight per row of X; got {weight.shape}.")
        if not is_dask_collection(weight):
            weight = da.from_array(weight, chunks=(X.chunks[0],))
        weight = weight.astype(np.float64).rechunk((X.chunks[0],))
    if not check_values:
        return X, weight
    finite, squares_finite, weights_ok, weighted_sum, total_weight = dask.compute(
        da.isfinite(X).all(), da.isfinite(X * X).all(),
        (da.isfinite(weight) & (weight >= 0)).all(), (weight[:, None] * (X * X)).sum(),
        weight.sum())
    if not finite:
        raise ValueError(f"{owner}: Input X contains NaN or infinity; remove or impute those "
                         "rows first.")
    if not squares_finite:
        raise ValueError(f"{owner}: the squares of X overflow float64. Rescale X (e.g. "
                         "standardise it) before fitting.")
    if not weights_ok:
        raise ValueError(f"{owner}: sample_weight must be finite and non-negative.")
    check_weight_scale(owner, total_weight, weighted_sum)
    return X, weight


# the largest total weight (rows counted): the objective's terms grow with its square,
# and at 6e156 (60 rows of 1e155) the diagonal and spherical fits overflowed to nan
MAX_TOTAL_WEIGHT = 1e150


def check_weight_scale(owner, total_weight, weighted_squares):
    """Refuse weights so large that the fit's statistics or objective overflow float64:
    ``sum_i w_i`` above ``MAX_TOTAL_WEIGHT`` or ``sum_i w_i |x_i|^2`` infinite."""
    with np.errstate(invalid="ignore"):
        fine = total_weight <= MAX_TOTAL_WEIGHT and np.isfinite(weighted_squares)
    if not fine:
        raise ValueError(
            f"{owner}: sample_weight sums to {float(total_weight):.3g}; weights count rows, "
            f"and beyond {MAX_TOTAL_WEIGHT:.0e} in total (or with sum w |x|^2 infinite) the "
            "fit's statistics and objective overflow float64. Rescale sample_weight to the "
            "scale of row counts.")


def block_sums(X_block, weight_block, means, prec_chol, log_const, scale, diagonal):
    """The local step of one block (on a worker, by the in-memory
    :func:`~alphavb.mixture._estep.shifted_sums` on the worker's numba threads): its shifted
    sums ``(N_k, s_k, T_k)`` and ``sum_i w_i sum_k r_ik log r_ik``."""
    X_block = np.ascontiguousarray(X_block, dtype=np.float64)
    weight_block = np.ascontiguousarray(weight_block, dtype=np.float64)
    _, nk, sums, scatter, neg_entropy = shifted_sums(
        X_block, weight_block, means, prec_chol, log_const, scale, diagonal, True)
    return nk, sums, scatter, neg_entropy


def _blocks_in_flight():
    """Blocks one wave of tasks may hold: two per thread of the active client's workers, or
    of dask's local thread pool."""
    import os

    try:
        from distributed import get_client

        return 2 * sum(get_client().nthreads().values())
    except (ImportError, ValueError):
        return 2 * (os.cpu_count() or 1)


def _sum_over_blocks(X, weight, function, *args):
    """``function(X_block, weight_block, *args)`` (a tuple of arrays or numbers) over every
    block of rows, added on the client in block order.

    The blocks are submitted in waves of :func:`_blocks_in_flight` so that no more blocks
    are read than can be worked on (dask may otherwise read ahead)."""
    import dask

    blocks = X.to_delayed().ravel()
    weights = weight.to_delayed().ravel()
    task = dask.delayed(function, pure=True)
    wave = _blocks_in_flight()
    parts = []
    for first in range(0, len(blocks), wave):
        parts += dask.compute(*[task(block, w, *args)
                                for block, w in zip(blocks[first:first + wave],
                                                    weights[first:first + wave], strict=True)])
    return tuple(sum(part[i] for part in parts) for i in range(len(parts[0])))


def local_sums(X, weight, means, prec_chol, log_const, scale, diagonal):
    """:func:`block_sums` over every block of rows, added on the client in block order."""
    nk, sums, scatter, neg_entropy = _sum_over_blocks(
        X, weight, block_sums, means, prec_chol, log_const, scale, diagonal)
    return nk, sums, scatter, float(neg_entropy)


def block_nearest_sums(X_block, weight_block, centers, column_scale):
    """One block's rows assigned to their nearest center (k-means' labels) in the units
    ``x / column_scale`` that k-means ran in: per center the weight ``N_k``, and the
    weighted sums of ``x - c_k`` and ``(x - c_k)(x - c_k)'`` (shifted by the centers, as
    :func:`block_sums`'s, so that they add up over blocks)."""
    X_block = np.asarray(X_block, dtype=np.float64)
    weight_block = np.asarray(weight_block, dtype=np.float64)
    units, unit_centers = X_block / column_scale, centers / column_scale
    distances = ((units * units).sum(axis=1)[:, None] - 2.0 * units @ unit_centers.T
                 + (unit_centers * unit_centers).sum(axis=1)[None, :])
    labels = np.argmin(distances, axis=1)
    n_components, n_features = centers.shape
    nk = np.bincount(labels, weights=weight_block, minlength=n_components)
    diff = X_block - centers[labels]
    sums = np.zeros((n_components, n_features))
    scatter = np.zeros((n_components, n_features, n_features))
    for k in range(n_components):
        rows = labels == k
        weighted = diff[rows] * weight_block[rows, None]
        sums[k] = weighted.sum(axis=0)
        scatter[k] = weighted.T @ diff[rows]
    return nk, sums, scatter


def nearest_center_sums(X, weight, centers, column_scale):
    """:func:`block_nearest_sums` over every block of rows."""
    return _sum_over_blocks(X, weight, block_nearest_sums, centers, column_scale)


def rows_of(X, indices):
    """The rows ``indices`` of a dask array, in memory."""
    order = np.argsort(indices)
    rows = X[np.sort(indices)].compute()
    out = np.empty_like(rows)
    out[order] = rows
    return out


def map_rows(X, function, n_columns):
    """``function`` (rows -> (rows, n_columns) or (rows,)) over the row blocks of ``X``, lazily."""
    if n_columns is None:
        return X.map_blocks(function, drop_axis=1, dtype=np.float64)
    return X.map_blocks(function, chunks=(X.chunks[0], (n_columns,)), dtype=np.float64)


def lazy_over_row_blocks(n_columns=None):
    """Decorate a prediction method ``method(self, X)`` of a fitted mixture so that a dask
    ``X`` gives a lazy dask array: the method over each row block, on the workers.

    ``n_columns(model)`` is the number of output columns (None: one value per row)."""
    def decorate(method):
        @functools.wraps(method)
        def over_blocks(model, X):
            if not is_dask_collection(X):
                return method(model, X)
            check_is_fitted(model)
            owner = type(model).__name__
            X, _ = as_row_blocks(owner, X, None, check_values=False)
            if X.shape[1] != model.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but {owner} is expecting "
                                 f"{model.n_features_in_} features as input.")
            columns = None if n_columns is None else n_columns(model)
            return map_rows(X, getattr(model, method.__name__), columns)
        return over_blocks
    return decorate


class BlockRows(NamedTuple):
    """A validated dask array of rows (one chunk across the features), its weights with the
    same row chunks and the user's weights (or None): the row source of a fit on blocks."""

    X: object
    weight: object
    user_weight: object | None

    def local_step(self, post, statistics, scale, accumulate=True, n_threads=None):
        """:func:`local_sums` over the blocks at ``q(theta) = post``: no responsibilities
        are kept (None), then the statistics in the ``statistics`` layout and ``sum_i w_i
        sum_k r_ik log r_ik``. ``accumulate`` and ``n_threads`` are the in-memory step's
        (each worker uses its own numba threads)."""
        nk, sums, scatter, neg_entropy = local_sums(
            self.X, self.weight, post.means, post.prec_chol, post.log_const, scale,
            statistics.keeps_diagonal)
        return None, statistics.from_shifted(post.means, nk, sums, scatter), neg_entropy

    def initial_statistics(self, model, statistics, random_state):
        """The start of ``model`` (its ``init_params``) on a dask array, in the
        ``statistics`` layout. ``"random_from_data"``: the same rows, and so the same
        statistics, as in memory (one row per component, weight ``w_i``, no scatter).
        ``"kmeans"`` and ``"k-means++"``: the in-memory start (the model's
        ``_initial_responsibilities``) on the rows themselves when there are at most
        ``KMEANS_SAMPLE_ROWS`` (read once), else on a uniform sample of that many rows
        (with their weights), every row then assigned, block by block, to its nearest
        k-means center (``"k-means++"`` keeps its sampled rows alone, as in memory)."""
        owner, n_components = type(model).__name__, model.n_components
        if model.init_params in ("kmeans", "k-means++"):
            return self._kmeans_statistics(model, statistics, random_state)
        if model.init_params != "random_from_data":
            raise bad_parameter(owner, "init_params", "'kmeans', 'k-means++' or "
                                "'random_from_data' for a dask array X", model.init_params,
                                "Responsibilities drawn at random need the rows in memory.")
        n_samples = self.X.shape[0]
        probabilities = None
        if self.user_weight is not None:
            weight = self.weight.compute()
            if np.count_nonzero(weight) < n_components:
                raise ValueError(f"{owner}: init_params='random_from_data' needs at least "
                                 f"n_components={n_components} rows of positive "
                                 "sample_weight.")
            probabilities = weight / weight.sum()
        indices = random_state.choice(n_samples, size=n_components, replace=False,
                                      p=probabilities)
        return statistics.of_points(rows_of(self.X, indices),
                                    rows_of(self.weight[:, None], indices)[:, 0])

    def _kmeans_statistics(self, model, statistics, random_state):
        """``init_params`` "kmeans" or "k-means++" (see :meth:`initial_statistics`)."""
        from sklearn.cluster import KMeans

        responsibilities = model._initial_responsibilities
        n_samples = self.X.shape[0]
        user_weight = None if self.user_weight is None else self.weight
        if n_samples <= KMEANS_SAMPLE_ROWS:  # the rows fit: exactly the in-memory start
            X, weight = self.X.compute(), self.weight.compute()
            resp = responsibilities(X, weight, None if user_weight is None else weight,
                                    random_state)
            return statistics.from_responsibilities(X, weight, resp)
        indices = np.sort(random_state.choice(n_samples, size=KMEANS_SAMPLE_ROWS,
                                              replace=False))
        sample = rows_of(self.X, indices)
        sample_weight = None if user_weight is None else rows_of(self.weight[:, None],
                                                                 indices)[:, 0]
        if model.init_params == "k-means++":
            weight = np.ones(len(sample)) if sample_weight is None else sample_weight
            resp = responsibilities(sample, weight, sample_weight, random_state)
            return statistics.from_responsibilities(sample, weight, resp)
        # k-means on unit columns, as in memory (there the whole X's deviations, here the
        # sample's), so that the start does not depend on the features' units
        column_scale = column_standard_deviations(sample)
        centers = column_scale * KMeans(n_clusters=model.n_components, n_init=1,
                                        random_state=random_state).fit(
            sample / column_scale, sample_weight=sample_weight).cluster_centers_
        nk, sums, scatter = nearest_center_sums(self.X, self.weight, centers, column_scale)
        return statistics.from_shifted(centers, nk, sums, scatter)
