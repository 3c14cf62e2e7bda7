"""Sufficient statistics of a locus, computed over the blocks of a dask array: the only
pass over the individuals that :meth:`~alphavb.AlphaSuSiE.fit_sufficient` needs.

With ``m_j`` the mean of variant ``j``'s called genotypes (over the rows whose trait is
known), a missing call is imputed by ``m_j`` (PLINK's and GCTA's mean imputation), so the
centred column ``x_j - m_j`` is 0 there: each block is centred and its NaN set to 0, and
``X_c'X_c``, ``X_c'y_c`` and ``X_c'Q`` are sums of the blocks' products (dask's matrix
products; on the active ``dask.distributed`` client when there is one), where ``Q`` is an
orthonormal basis of the centred covariates (the intercept is the centring). Projecting the
covariates out of the centred rows then needs only ``p x k`` numbers::

    X'X = X_c'X_c - (X_c'Q)(X_c'Q)',   X'y = X_c'y_c - (X_c'Q)(Q'y_c),
    y'y = ||y_c||^2 - ||Q'y_c||^2.

Two passes over ``X`` (the called means, then the products): the second in one task per
block of rows (every variant of them: at most 2**23 genotypes, 64 MB; with its decoding
and its centred copy about 150 MB), whose ``p x p`` products are summed in a tree of
pairs, so that a task holds one block and two partial sums whatever ``n``.
"""

import warnings

import numpy as np

from .._validation import bad_parameter, caller_stacklevel
from ._plink import BLOCK_ENTRIES, MAX_BLOCK_ROWS

# a centred covariate whose part outside the others' span is below this share of its norm
# is collinear with them (or with the intercept)
COLLINEAR_TOLERANCE = 1e-8


def _covariate_basis(covariates, n_rows):
    """An orthonormal basis ``Q`` (n, k) of the centred covariates; a ``ValueError`` naming
    the first covariate that the intercept and the earlier ones already span."""
    Z = np.asarray(covariates, dtype=float)
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.ndim != 2 or Z.shape[0] != n_rows:
        raise bad_parameter("sufficient_statistics", "covariates", f"an array of {n_rows} "
                            "rows (one per individual with a known trait)",
                            f"shape {Z.shape}")
    if not np.isfinite(Z).all():
        raise bad_parameter("sufficient_statistics", "covariates", "finite values",
                            "NaN or inf", fix="Impute or drop the individuals first.")
    centred = Z - Z.mean(axis=0)
    Q, R = np.linalg.qr(centred)   # Z_c = Q R: log|Z_c'Z_c| = 2 sum log|R_jj|
    norms = np.linalg.norm(Z, axis=0)  # the raw column's: a constant 0.1 centres to rounding
    for j in range(Z.shape[1]):
        if abs(R[j, j]) <= COLLINEAR_TOLERANCE * max(norms[j], np.finfo(float).tiny):
            raise bad_parameter("sufficient_statistics", "covariates", "columns that the "
                                "intercept and one another do not span", f"column {j}",
                                fix="It is constant or a combination of the others: drop "
                                    "it (the intercept is always projected out).")
    return Q, 2.0 * float(np.sum(np.log(np.abs(np.diag(R)))))


def sufficient_statistics(X, y, covariates=None):
    """``X'X``, ``X'y``, ``y'y``, ``n`` and the means of a locus, blockwise (module
    docstring), for :meth:`~alphavb.AlphaSuSiE.fit_sufficient`.

    Parameters
    ----------
    X : dask or NumPy array of shape (n_samples, n_variants)
        Genotypes (e.g. :attr:`Genotypes.X <alphavb.genotypes.Genotypes.X>`), NaN for a
        missing call.
    y : array-like of shape (n_samples,)
        The trait; rows where it is NaN are dropped (a warning gives their count).
    covariates : array-like of shape (n_samples, n_covariates), default=None
        Projected out with the intercept (rows as ``y``'s).

    Returns
    -------
    dict
        ``XtX``, ``Xty``, ``yty``, ``n_samples``, ``X_mean`` (the called genotypes' means)
        and ``y_mean``: the keyword arguments of ``fit_sufficient``; without covariates the
        same numbers as :func:`alphavb.linear_model.sufficient_statistics` on the imputed
        rows. With covariates ``X_mean`` and ``y_mean`` are None (an intercept from them
        would leave the covariates' effects out; ``predict`` then refuses), and
        ``n_covariates`` and ``covariates_log_det`` say what their flat prior still does to
        the fit, so that ``fit_sufficient`` equals ``fit(X, y, covariates=Z)``.

    Warns
    -----
    UserWarning
        Rows dropped for a NaN trait, variants with one genotype in every called row and
        variants the covariates span (their rows of ``X'X`` are 0: the fit learns nothing of
        them), with their counts.

    Raises
    ------
    ValueError
        A constant trait, an infinite value in ``X``, a variant missing in every row, or a
        covariate that the intercept and the others span.
    """
    import dask
    import dask.array as da

    y = np.asarray(y, dtype=float)
    X = X if isinstance(X, da.Array) else da.from_array(np.asarray(X, dtype=float))
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise bad_parameter("sufficient_statistics", "y", f"one value per row of X "
                            f"({X.shape[0]} rows)", f"shape {y.shape}")
    known = ~np.isnan(y)
    if np.isinf(y).any():
        raise bad_parameter("sufficient_statistics", "y", "finite values or NaN (dropped)",
                            "inf")
    if not known.all():
        warnings.warn(f"sufficient_statistics: {int((~known).sum())} of {len(y)} rows have a "
                      "NaN trait and are left out.", UserWarning, stacklevel=caller_stacklevel())
        X, y = X[np.flatnonzero(known)], y[known]
        if covariates is not None:
            covariates = np.asarray(covariates, dtype=float)[known]
    n = len(y)
    if n < 2:
        raise bad_parameter("sufficient_statistics", "y", "at least 2 known values", n)
    if np.ptp(y) <= COLLINEAR_TOLERANCE * np.max(np.abs(y)):
        raise bad_parameter("sufficient_statistics", "y", "a trait that varies",
                            f"the constant {y[0]:g}", fix="A constant trait has nothing to "
                            "fine-map.")
    Q, log_det = (None, 0.0) if covariates is None else _covariate_basis(covariates, n)
    called = da.sum(~da.isnan(X), axis=0)
    means = da.nansum(X, axis=0) / called
    infinite = da.sum(da.isinf(X))
    called, means, infinite = dask.compute(called, means, infinite)
    if infinite:
        raise bad_parameter("sufficient_statistics", "X", "allele counts or NaN (a missing "
                            "call)", f"{int(infinite)} infinite values")
    if (called == 0).any():
        raise bad_parameter("sufficient_statistics", "X", "variants with a called genotype",
                            f"{int((called == 0).sum())} variants missing in every row",
                            fix="Drop them (Genotypes.select(max_missing=...)).")
    y_centred = y - y.mean()
    XtX, Xty, XtQ = _products(X, means, y_centred, Q)
    yty = float(y_centred @ y_centred)
    centred_squares = np.diag(XtX).copy()
    if Q is not None:
        Qty = Q.T @ y_centred
        XtX, Xty, yty = XtX - XtQ @ XtQ.T, Xty - XtQ @ Qty, yty - float(Qty @ Qty)
        # a variant the covariates span (one conditioned on, passed as a covariate) keeps
        # rounding of its row: set to 0, as a monomorphic variant's is
        spanned = (centred_squares > 0) & (np.diag(XtX) <= COLLINEAR_TOLERANCE
                                           * centred_squares)
        if spanned.any():
            XtX[spanned, :] = 0.0
            XtX[:, spanned] = 0.0
            Xty[spanned] = 0.0
            warnings.warn(f"sufficient_statistics: {int(spanned.sum())} variants (first: "
                          f"column {int(np.flatnonzero(spanned)[0])}) are spanned by the "
                          "covariates (a variant conditioned on): their rows of X'X are 0, so "
                          "the fit learns nothing of them (their PIPs stay the prior's).",
                          UserWarning,
                          stacklevel=caller_stacklevel())
    constant = centred_squares <= 0.0
    if constant.any():
        warnings.warn(f"sufficient_statistics: {int(constant.sum())} variants (first: column "
                      f"{int(np.flatnonzero(constant)[0])}) have one genotype in every called "
                      "row: their X'X rows are 0, so the fit learns nothing of them (their "
                      "PIPs stay the prior's).",
                      UserWarning, stacklevel=caller_stacklevel())
    stats = {"XtX": (XtX + XtX.T) / 2.0, "Xty": Xty, "yty": yty, "n_samples": n,
             "X_mean": None if Q is not None else means,
             "y_mean": None if Q is not None else float(y.mean())}
    if Q is not None:  # what the covariates' flat prior still does to the fit
        stats.update(n_covariates=Q.shape[1], covariates_log_det=log_det)
    return stats


def _products(X, means, y_centred, Q):
    """``X_c'X_c``, ``X_c'y_c`` and ``X_c'Q`` (None without ``Q``): one task per block of
    rows (every variant), its ``p x p`` product summed in a tree of pairs, so that a task
    holds one block of rows and two partial sums, whatever ``n``."""
    import dask

    n, p = X.shape
    rows = max(4, min(MAX_BLOCK_ROWS, BLOCK_ENTRIES // max(p, 1)) // 4 * 4)
    # read_plink's default blocks are these already: then no rechunk
    by_rows = X if len(X.chunks[1]) == 1 else X.rechunk((min(rows, n), p))
    blocks = by_rows.to_delayed()[:, 0]
    starts = np.cumsum([0, *by_rows.chunks[0]])
    partials = [dask.delayed(_block_products)(block, means, y_centred[a:b],
                                              None if Q is None else Q[a:b])
                for block, a, b in zip(blocks, starts[:-1], starts[1:], strict=True)]
    while len(partials) > 1:
        partials = [dask.delayed(_summed)(*partials[i:i + 2])
                    for i in range(0, len(partials), 2)]
    return dask.compute(partials[0])[0]


def _block_products(block, means, y_centred, Q):
    """The products of one block of rows, centred, its missing calls at 0."""
    centred = block - means
    centred[np.isnan(centred)] = 0.0
    return (centred.T @ centred, centred.T @ y_centred,
            None if Q is None else centred.T @ Q)


def _summed(first, second=None):
    if second is None:
        return first
    return tuple(None if a is None else a + b for a, b in zip(first, second, strict=True))
