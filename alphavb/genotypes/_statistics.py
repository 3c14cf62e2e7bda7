"""Sufficient statistics of a locus, computed over the blocks of a dask array: one pass over
the individuals where no call is missing (imputed or cleaned genotypes); where some are, a
second pass over the blocks that hold them.

With ``m_j`` the mean of variant ``j``'s called genotypes (over the rows whose trait is
known), a missing call is imputed by ``m_j`` (PLINK's and GCTA's mean imputation), so the
centred column ``x_j - m_j`` is 0 there. The first pass gives each block's column sums and
counts of called genotypes (so the means ``m``) and, for a block with every call made, its
``B'B``, ``B'y_c`` and ``B'Q`` (``y_c`` the centred trait, ``Q`` an orthonormal basis of
the centred covariates: the intercept is the centring), which centre by the means once they
are known::

    sum over the block of (x_i - m)(x_i - m)' = B'B - s m' - m s' + n_b m m'

(``s`` the block's column sums, ``n_b`` its rows). A block with a missing call is read again
once the means are known, centred and its missing calls set to 0, for its products. The
covariates then need only ``p x k`` numbers::

    X'X = X_c'X_c - (X_c'Q)(X_c'Q)',   X'y = X_c'y_c - (X_c'Q)(Q'y_c),
    y'y = ||y_c||^2 - ||Q'y_c||^2.

Each pass runs one task per block of rows (every variant of them: at most 2**23 genotypes,
64 MB; with its decoding about 150 MB) and adds the partial sums in a tree of pairs, so that
a task holds one block and two partial sums whatever ``n`` (dask's scheduler, or the active
``dask.distributed`` client when there is one). Genotypes are 0, 1 or 2, so the
cancellation in ``B'B - ...`` costs at most the digits of ``mean^2 / variance`` (a variant
at frequency 0.99: 2 of float64's 16).
"""

import warnings

import numpy as np

from .._validation import bad_parameter, caller_stacklevel, float_values
from ._plink import BLOCK_ENTRIES, MAX_BLOCK_ROWS

# a centred covariate whose part outside the others' span is below this share of its norm
# is collinear with them (or with the intercept)
COLLINEAR_TOLERANCE = 1e-8
# a variant whose centred sum of squares is at most this share of its raw one is constant
# (what is left is the rounding of B'B - n m^2: about 1e-16 of B'B)
CONSTANT_TOLERANCE = 1e-12
# a value above this has a square that float64 cannot sum over many rows
SQUARE_LIMIT = 1e150


def _numbers(name, value):
    """``value`` as a float array (``pd.NA`` as NaN), or the ``ValueError`` naming ``name``
    (strings, objects)."""
    return float_values("sufficient_statistics", name, value)


def _covariate_basis(covariates, n_rows, basis=True):
    """An orthonormal basis ``Q`` (n, k) of the centred covariates; a ``ValueError`` naming
    the first covariate that the intercept and the earlier ones already span (``basis=False``:
    the covariates as a 2-D array of ``n_rows`` numbers, their values not yet checked: a
    covariate may be NaN where the trait is, in the rows that are dropped)."""
    Z = _numbers("covariates", covariates)
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.ndim != 2 or Z.shape[0] != n_rows:
        raise bad_parameter("sufficient_statistics", "covariates", f"an array of {n_rows} "
                            "rows (one per individual of X)", f"shape {Z.shape}")
    if not basis:
        return Z
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


def _checked_inputs(X, y, covariates):
    """``X`` (a dask array), ``y`` and the covariates checked (a ``ValueError`` naming the
    one that is wrong), without the rows of a NaN trait (a warning gives their count)."""
    import dask.array as da

    y = _numbers("y", y)
    X = X if isinstance(X, da.Array) else da.from_array(_numbers("X", X))
    if X.dtype.kind not in "biuf" or X.ndim != 2 or np.isnan(X.shape[0]):
        unknown = X.ndim == 2 and np.isnan(X.shape[0])
        raise bad_parameter("sufficient_statistics", "X", "a 2-D array of allele counts "
                            "(individuals, variants) with known row chunks",
                            f"dtype {X.dtype}, shape {X.shape}",
                            fix="Call X.compute_chunk_sizes() first." if unknown else "")
    if y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise bad_parameter("sufficient_statistics", "y", f"one value per row of X "
                            f"({X.shape[0]} rows)", f"shape {y.shape}")
    if covariates is not None:  # checked on every row, before the rows of a NaN trait go
        covariates = _covariate_basis(covariates, len(y), basis=False)
    known = ~np.isnan(y)
    if np.isinf(y).any() or np.max(np.abs(y[known]), initial=0.0) > SQUARE_LIMIT:
        raise bad_parameter("sufficient_statistics", "y", "finite values whose squares "
                            "float64 holds, or NaN (dropped)", "inf or values above 1e150",
                            fix="Rescale the trait.")
    if not known.all():
        warnings.warn(f"sufficient_statistics: {int((~known).sum())} of {len(y)} rows have a "
                      "NaN trait and are left out.", UserWarning, stacklevel=caller_stacklevel())
        X, y = X[np.flatnonzero(known)], y[known]
        if covariates is not None:
            covariates = covariates[known]
    n = len(y)
    if n < 2:
        raise bad_parameter("sufficient_statistics", "y", "at least 2 known values", n)
    if np.ptp(y) <= COLLINEAR_TOLERANCE * np.max(np.abs(y)):
        raise bad_parameter("sufficient_statistics", "y", "a trait that varies",
                            f"the constant {y[0]:g}", fix="A constant trait has nothing to "
                            "fine-map.")
    return X, y, covariates


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
        variants the covariates span (their rows of ``X'X`` are 0: the data say nothing of
        them, a Bayes factor of 1), with their counts.

    Raises
    ------
    ValueError
        A constant trait, an infinite value in ``X``, a variant missing in every row, or a
        covariate that the intercept and the others span.
    """
    X, y, covariates = _checked_inputs(X, y, covariates)
    n = len(y)
    Q, log_det = (None, 0.0) if covariates is None else _covariate_basis(covariates, n)
    y_centred = y - y.mean()
    sums = _tree_sum(X, lambda block, a, b: _first_pass(block, y_centred[a:b],
                                                        None if Q is None else Q[a:b],
                                                        block_index=a))
    if sums["infinite"]:
        raise bad_parameter("sufficient_statistics", "X", "allele counts or NaN (a missing "
                            "call)", f"{int(sums['infinite'])} infinite values or values "
                            "beyond 1e150, whose squares overflow float64")
    called = sums["called"]
    if (called == 0).any():
        raise bad_parameter("sufficient_statistics", "X", "variants with a called genotype",
                            f"{int((called == 0).sum())} variants missing in every row",
                            fix="Drop them (Genotypes.select(max_missing=...)).")
    means = sums["sums"] / called
    XtX, Xty, XtQ = _centred_complete_blocks(sums, means, None if Q is None else Q.shape[1])
    if sums["incomplete"]:  # the blocks with a missing call, read again, centred
        incomplete = set(sums["incomplete"])
        XtX_b, Xty_b, XtQ_b = _tree_sum(
            X, lambda block, a, b: _block_products(block, means, y_centred[a:b],
                                                   None if Q is None else Q[a:b]),
            keep=lambda a: a in incomplete)
        XtX, Xty = XtX + XtX_b, Xty + Xty_b
        XtQ = None if XtQ is None else XtQ + XtQ_b
    yty = float(y_centred @ y_centred)
    # one genotype in every called row: its centred squares are the rounding of the sums
    # (exactly 0 for allele counts, not always for dosages), and its row of X'X is set to 0
    constant = np.diag(XtX) <= CONSTANT_TOLERANCE * sums["squares"]
    XtX[constant, :] = 0.0
    XtX[:, constant] = 0.0
    Xty[constant] = 0.0
    if XtQ is not None:
        XtQ[constant] = 0.0
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
                          "the data say nothing of them (a Bayes factor of 1).",
                          UserWarning,
                          stacklevel=caller_stacklevel())
    if constant.any():
        warnings.warn(f"sufficient_statistics: {int(constant.sum())} variants (first: column "
                      f"{int(np.flatnonzero(constant)[0])}) have one genotype in every called "
                      "row: their X'X rows are 0, so the data say nothing of them (a Bayes "
                      "factor of 1).",
                      UserWarning, stacklevel=caller_stacklevel())
    stats = {"XtX": (XtX + XtX.T) / 2.0, "Xty": Xty, "yty": yty, "n_samples": n,
             "X_mean": None if Q is not None else means,
             "y_mean": None if Q is not None else float(y.mean())}
    if Q is not None:  # what the covariates' flat prior still does to the fit
        stats.update(n_covariates=Q.shape[1], covariates_log_det=log_det)
    return stats


def _tree_sum(X, task, keep=None):
    """``task(block, start, stop)`` of each block of rows of ``X`` (every variant of them:
    read_plink's default blocks, else rechunked) whose ``start`` is kept, one task each, the
    results added in a tree of pairs (:func:`_summed`)."""
    import dask

    n, p = X.shape
    rows = max(4, min(MAX_BLOCK_ROWS, BLOCK_ENTRIES // max(p, 1)) // 4 * 4)
    by_rows = X if len(X.chunks[1]) == 1 else X.rechunk((min(rows, n), p))
    blocks = by_rows.to_delayed()[:, 0]
    starts = np.cumsum([0, *by_rows.chunks[0]])
    partials = [dask.delayed(task)(block, int(a), int(b))
                for block, a, b in zip(blocks, starts[:-1], starts[1:], strict=True)
                if keep is None or keep(int(a))]
    while len(partials) > 1:
        partials = [dask.delayed(_summed)(*partials[i:i + 2])
                    for i in range(0, len(partials), 2)]
    return dask.compute(partials[0])[0]


def _first_pass(block, y_centred, Q, block_index):
    """One block's column sums and counts (missing calls at 0), and, where every call is
    made, its products and the sums that centre them (module docstring); a block with a
    missing call is named in ``incomplete`` for the second pass."""
    block = np.asarray(block, dtype=float)
    missing = np.isnan(block)
    values = np.where(missing, 0.0, block)
    unusable = np.abs(values) > SQUARE_LIMIT  # infinite, or squares that overflow: refused
    if unusable.any():
        values = np.where(unusable, 0.0, values)
    terms = {"infinite": int(unusable.sum()),
             "called": block.shape[0] - missing.sum(axis=0), "sums": values.sum(axis=0),
             "squares": np.einsum("ij,ij->j", values, values), "incomplete": [],
             "rows": 0, "complete_sums": None, "ysum": 0.0, "Qsum": None,
             "BtB": None, "Bty": None, "BtQ": None}
    if missing.any() or unusable.any():
        terms["incomplete"] = [block_index] if missing.any() else []
        return terms
    terms.update(rows=block.shape[0], complete_sums=terms["sums"],
                 ysum=float(y_centred.sum()), Qsum=None if Q is None else Q.sum(axis=0),
                 BtB=values.T @ values, Bty=values.T @ y_centred,
                 BtQ=None if Q is None else values.T @ Q)
    return terms


def _centred_complete_blocks(sums, means, n_covariates):
    """``X_c'X_c``, ``X_c'y_c`` and ``X_c'Q`` (None without covariates) over the blocks with
    every call made, centred by the means (module docstring); zeros where there are none."""
    p = means.shape[0]
    if sums["BtB"] is None:
        return (np.zeros((p, p)), np.zeros(p),
                None if n_covariates is None else np.zeros((p, n_covariates)))
    s, n = sums["complete_sums"], sums["rows"]
    outer = np.outer(s, means)
    XtX = sums["BtB"] - outer - outer.T + n * np.outer(means, means)
    Xty = sums["Bty"] - means * sums["ysum"]
    XtQ = None if sums["BtQ"] is None else sums["BtQ"] - np.outer(means, sums["Qsum"])
    return XtX, Xty, XtQ


def _block_products(block, means, y_centred, Q):
    """The products of one block of rows, centred by the means, its missing calls at 0."""
    centred = np.asarray(block, dtype=float) - means
    centred[np.isnan(centred)] = 0.0
    return (centred.T @ centred, centred.T @ y_centred,
            None if Q is None else centred.T @ Q)


def _summed(first, second=None):
    """Two partial results added: dicts of the first pass (a term one of them lacks, None,
    is 0 there; the lists of incomplete blocks joined) or tuples of products."""
    if second is None:
        return first
    if isinstance(first, tuple):
        return tuple(None if a is None else a + b for a, b in zip(first, second, strict=True))
    out = {}
    for name, value in first.items():
        other = second[name]
        out[name] = (other if value is None else value if other is None
                     else value + other)
    return out
