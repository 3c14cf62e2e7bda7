"""alpha-SuSiE on summary statistics: z-scores and an LD matrix (Zou, Carbonetto, Wang &
Stephens 2022, PLoS Genetics 18:e1010299).

From the z-scores ``z_j`` of ``n`` univariate regressions and the correlation matrix ``R``,
``z~_j = z_j sqrt((n - 1) / (z_j^2 + n - 2))`` is ``sqrt(n - 1)`` times the sample
correlation of ``x_j`` and ``y`` (the t-statistic's identity ``z^2 = r^2 (n - 2) / (1 -
r^2)``), so standardized data have the sufficient statistics

    X'X = (n - 1) R,   X'y = sqrt(n - 1) z~,   y'y = n - 1,

and the sweep of :mod:`alphavb.linear_model._susie` runs on them (susieR's ``susie_rss``
with ``n``, through ``susie_suff_stat``). With the in-sample ``R`` these are the data's own
statistics, so the fit is the individual-data fit of the standardized data (which has the
same PIPs and credible sets as the fit of the raw data). The tempered likelihood is
tempered there in the same way: the single effects see the residual variance ``sigma2 /
alpha``. ``regularization`` ``lambda`` replaces ``R`` by ``(1 - lambda) R + lambda I``.
"""

from typing import NamedTuple

import numpy as np

from .._validation import Integer, bad_parameter, float_values, validate_params
from ._susie import CONSTANT_TOLERANCE, standard_deviations

# eigenvalues of R below this count as 0 in the LD diagnostic (susieR's r_tol); R is
# positive semi-definite when its smallest is above -p times it (p bounds the largest)
EIGENVALUE_TOLERANCE = 1e-8
# from this many variables on, R's check factorises in single precision first
SINGLE_PRECISION_SIZE = 2000


class SummaryStatistics(NamedTuple):
    """The sufficient statistics that summary statistics or a data set's cross-products give
    (module docstring), as the sweep reads them: ``Z'Z = diag(c) gram diag(c)`` (``c =
    gram_columns``, None for ones; ``gram`` is the caller's matrix where it can be), ``zty =
    Z'y``, ``yty = y'y`` of ``n_samples`` centred rows whose columns are those of ``X``
    divided by ``column_scale``; ``variance_y`` (``Var(y)``, divisor ``n - 1``), the columns
    that carry no information (``uninformative``: ``d_j = 0``) and the start of ``V`` as a
    share of ``Var(y)`` where the data fix it (``prior_variance_share``: susieR's 50 for
    z-scores without ``n``; None: the estimator's ``scaled_prior_variance``)."""

    gram: np.ndarray
    gram_columns: np.ndarray | None
    zty: np.ndarray
    yty: float
    n_samples: float
    variance_y: float
    column_scale: np.ndarray
    uninformative: np.ndarray
    prior_variance_share: float | None = None


# susieR's susie_rss without n: V starts at 50 on the z scale (its prior_variance)
Z_ONLY_PRIOR_VARIANCE = 50.0


def check_ld(owner, R, n_features, regularization=0.0, name="R", gram=False):
    """``R`` as a float array, checked: square of side ``n_features``, finite, symmetric,
    unit diagonal, positive semi-definite; then ``(1 - lambda) R + lambda I`` (a new array;
    without ``regularization`` the caller's own float64 array, which is read and never
    changed: a copy of a biobank's LD matrix costs seconds). The ``ValueError`` names
    ``name`` (the argument the caller gave: ``R``, or ``reference_X`` whose correlations
    ``R`` are), says how far ``R`` is from each and offers the fix. ``gram``: ``R`` is the
    correlation matrix of a data set, positive semi-definite by construction, which is not
    factorised to check it."""
    R = np.asarray(R, dtype=float)
    if R.shape != (n_features, n_features):
        raise bad_parameter(owner, name, f"a ({n_features}, {n_features}) correlation "
                            "matrix, one row and column per z-score", f"shape {R.shape}")
    check_symmetric(owner, name, R, "A variable without correlations is constant in the LD "
                    "sample (np.corrcoef gives NaN): drop it from z and R.")
    diagonal = np.diag(R)
    if np.max(np.abs(diagonal - 1.0)) > 1e-6:
        raise bad_parameter(owner, name, "a correlation matrix (unit diagonal)",
                            f"diagonal entries from {diagonal.min():.4g} to "
                            f"{diagonal.max():.4g}",
                            "Pass the correlations (e.g. np.corrcoef of the reference "
                            "genotypes), not covariances.")
    if regularization:
        R = (1.0 - regularization) * R
        R[np.diag_indices(n_features)] += regularization
    if not gram:
        check_positive_semi_definite(owner, name, R, regularization)
    return R


def check_symmetric(owner, name, matrix, nonfinite_fix):
    """Refuse a square matrix that has NaN or infinite entries (``nonfinite_fix`` says what
    to do) or is not symmetric up to rounding (``1e-8`` of its largest entry), in one pass
    over blocks of rows against the same columns, in one buffer (no (p, p) temporary)."""
    p = matrix.shape[0]
    step = max(1, 2**20 // max(p, 1))
    buffer = np.empty((min(step, p), p))
    largest = asymmetry = 0.0
    finite = True
    for start in range(0, p, step):
        rows = matrix[start:start + step]
        out = buffer[:rows.shape[0]]
        np.abs(rows, out=out)
        block_largest = float(out.max())  # NaN for a NaN entry (Python's max() drops it)
        np.subtract(rows, matrix[:, start:start + step].T, out=out)
        np.abs(out, out=out)
        block_asymmetry = float(out.max())
        finite = finite and np.isfinite(block_largest) and np.isfinite(block_asymmetry)
        largest, asymmetry = max(largest, block_largest), max(asymmetry, block_asymmetry)
    if not finite:
        finite = np.isfinite(matrix)  # only on the way to the error
        missing = np.flatnonzero(~finite.all(axis=1))
        raise bad_parameter(owner, name, "finite entries",
                            f"{int(np.sum(~finite))} NaN or infinite entries, in the rows of "
                            f"variables {missing[:5].tolist()}", nonfinite_fix)
    if asymmetry > 1e-8 * max(1.0, largest):
        raise bad_parameter(owner, name, "a symmetric matrix", f"|{name} - {name}'| up to "
                            f"{asymmetry:.3g}", f"Pass ({name} + {name}.T) / 2 if the "
                            "asymmetry is rounding.")


def check_positive_semi_definite(owner, name, R, regularization=0.0, root=None):
    """Refuse a correlation matrix ``R`` (unit diagonal, regularised already) whose
    smallest eigenvalue is below ``-1e-8 p`` (``p`` bounds the largest): a Cholesky
    factorisation of ``R + 1e-8 p I``, in single precision first when ``p`` is large (half
    the time; a pass there can be wrong only for a smallest eigenvalue within single
    precision's rounding of the threshold), in double precision when that fails; only when
    that fails too, the eigenvalues, to say how far ``R`` is and which ``regularization``
    makes it positive semi-definite. With ``root``, ``R`` is given as ``D R D`` (``D =
    diag(root)``; a column whose entries are all 0 counts as independent of the others)."""
    from scipy.linalg import LinAlgError, cholesky

    def correlation(dtype=np.float64):
        scaled = R.astype(dtype, copy=True)
        if root is not None:
            scaled /= root[:, None].astype(dtype)
            scaled /= root[None, :].astype(dtype)
            scaled[np.diag_indices(p)] = 1.0
        return scaled

    p = R.shape[0]
    for dtype in (np.float32, np.float64) if p >= SINGLE_PRECISION_SIZE else (np.float64,):
        shifted = correlation(dtype)
        shifted[np.diag_indices(p)] += EIGENVALUE_TOLERANCE * p
        try:
            cholesky(shifted, lower=True, overwrite_a=True, check_finite=False)
            return
        except LinAlgError:
            pass
    del shifted
    smallest = float(np.linalg.eigvalsh(correlation())[0])
    if regularization:  # the smallest eigenvalue of the matrix before regularisation
        smallest = (smallest - regularization) / (1.0 - regularization)
    needed = -smallest / (1.0 - smallest)
    if not regularization:
        raise bad_parameter(owner, name, "a positive semi-definite matrix",
                            f"a smallest eigenvalue of {smallest:.3g} (on the correlation "
                            "scale)", f"Pass regularization={needed:.2g} or more (the matrix "
                            "is then (1 - lambda) R + lambda I, whose smallest eigenvalue is 0 "
                            "at that lambda), or an R from more reference samples.")
    raise bad_parameter(owner, "regularization", "a lambda that makes R positive "
                        "semi-definite", regularization,
                        f"Its smallest eigenvalue is still "
                        f"{(1.0 - regularization) * smallest + regularization:.3g}; pass "
                        f"at least {needed:.2g}.")


def check_z(owner, z, name="z"):
    """``z`` (or another per-variable vector, ``name``) as a finite 1-D float array (a
    copy)."""
    z = np.array(float_values(owner, name, z))
    if z.ndim != 1 or z.size == 0:
        raise bad_parameter(owner, name, "a 1-D array, one value per variable",
                            f"shape {z.shape}")
    missing = np.flatnonzero(~np.isfinite(z))
    if missing.size:
        fix = ("Drop those variables from z and R (or impute their z-scores, e.g. as 0, "
               "which susieR does silently)." if name in ("z", "bhat", "shat")
               else "Pass finite values.")
        raise bad_parameter(owner, name, "finite values",
                            f"NaN or infinite values at {missing[:5].tolist()}", fix)
    return z


def real_scalar(value):
    """``value`` as a float when it is one real number (a Python or numpy number, or a 0-d
    array; not a bool or a string), else None."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or np.ndim(value) != 0:
        return None
    try:
        number = np.asarray(value)
        return float(number) if number.dtype.kind in "iuf" else None
    except (TypeError, ValueError):
        return None


def check_n_samples(owner, n_samples, required=True):
    """``n`` as a float above 2 (None when not ``required`` and not given)."""
    if n_samples is None:
        if not required:
            return None
        raise bad_parameter(owner, "n_samples", "the number of rows behind the z-scores",
                            None, "Pass n_samples (a rough value is better than none: "
                            "without it the fit would assume n is infinite).")
    number = real_scalar(n_samples)
    if number is None or not (np.isfinite(number) and number > 2):
        raise bad_parameter(owner, "n_samples", "a number of rows above 2", n_samples)
    return number


def reference_ld(owner, reference_X):
    """The correlation matrix of a reference panel's columns; a constant column (no
    correlation) is refused."""
    from sklearn.utils import check_array

    panel = check_array(reference_X, dtype=np.float64, input_name="reference_X")
    constant = np.flatnonzero(panel.std(axis=0) <= 1e-12 * np.abs(panel).max(initial=1.0))
    if constant.size or panel.shape[0] < 2:
        raise bad_parameter(owner, "reference_X", "at least 2 rows and columns that vary",
                            f"constant column(s) {constant[:5].tolist()}" if constant.size
                            else f"{panel.shape[0]} row", "Drop those variants from z and "
                            "the panel: their correlations are undefined.")
    return np.corrcoef(panel, rowvar=False)


def check_regularization(owner, regularization):
    """``lambda`` as a float in [0, 1), or the ``ValueError`` naming it."""
    number = real_scalar(regularization)
    if number is None or not 0.0 <= number < 1.0:
        raise bad_parameter(owner, "regularization", "a lambda in [0, 1)", regularization)
    return number


def z_from_effects(owner, z, bhat, shat):
    """The z-scores: ``z``, or ``bhat / shat`` (checked: finite, the same length, ``shat >
    0``); giving both is refused."""
    if bhat is None and shat is None:
        if z is None:
            raise bad_parameter(owner, "z", "the z-scores, or bhat and shat", None,
                                "Pass z, or the effect estimates bhat with their standard "
                                "errors shat.")
        return check_z(owner, z), None
    if z is not None:
        raise bad_parameter(owner, "z", "None when bhat and shat are given", "z-scores",
                            "Pass z, or bhat and shat, not both.")
    if bhat is None or shat is None:
        missing = "bhat" if bhat is None else "shat"
        raise bad_parameter(owner, missing, "given with the other of bhat and shat", None)
    bhat, shat = check_z(owner, bhat, "bhat"), check_z(owner, shat, "shat")
    if bhat.shape != shat.shape:
        raise bad_parameter(owner, "shat", f"one standard error per estimate in bhat "
                            f"({bhat.size})", f"{shat.size} values")
    if np.any(shat <= 0):
        raise bad_parameter(owner, "shat", "standard errors > 0",
                            f"values <= 0 at {np.flatnonzero(shat <= 0)[:5].tolist()}")
    return bhat / shat, shat


def summary_statistics(owner, z, R, n_samples, regularization=0.0, *, shat=None,
                       var_y=None, standardize=True, R_name="R", R_is_gram=False):
    """:class:`SummaryStatistics` of z-scores and LD, checked (susieR's ``susie_rss``).

    With ``n``: ``z~ = z sqrt((n - 1) / (z^2 + n - 2))`` and ``Z'Z = (n - 1) R``, ``Z'y =
    sqrt((n - 1) Var(y)) z~``, ``y'y = (n - 1) Var(y)``, where ``Var(y)`` is ``var_y`` (with
    ``shat``: the effects on y's scale, each column's scale ``sqrt(Var(y) (n - 1) / (z^2 +
    n - 2)) / shat_j``) or 1 (the standardized scale). Without ``n`` (susieR's "z only"):
    ``Z'Z = R``, ``Z'y = z``, ``y'y = 1``, ``n = 2`` and ``V`` starts at 50."""
    n = check_n_samples(owner, n_samples, required=False)
    regularization = check_regularization(owner, regularization)
    R = check_ld(owner, R, z.size, regularization, R_name, R_is_gram)
    p = z.size
    if var_y is not None:
        if shat is None:
            raise bad_parameter(owner, "var_y", "given with bhat and shat (it puts the "
                                "effects on y's scale)", var_y, "Pass bhat and shat, or "
                                "leave var_y out for effects on the standardized scale.")
        number = real_scalar(var_y)
        if number is None or not (np.isfinite(number) and number > 0):
            raise bad_parameter(owner, "var_y", "a variance > 0", var_y)
        var_y = number
        if n is None:
            raise bad_parameter(owner, "n_samples", "given with var_y", None)
    if n is None:
        return SummaryStatistics(R, None, z.copy(), 1.0, 2.0, 1.0, np.ones(p),
                                 np.zeros(p, bool), Z_ONLY_PRIOR_VARIANCE)
    adjustment = (n - 1.0) / (z * z + n - 2.0)
    adjusted = z * np.sqrt(adjustment)
    variance_y = 1.0 if var_y is None else float(var_y)
    columns = np.full(p, np.sqrt(n - 1.0))  # Z'Z = (n - 1) R: standardized columns
    zty = np.sqrt((n - 1.0) * variance_y) * adjusted
    # with bhat, shat and var_y the effects are on the scale of y and the original columns
    # (susieR's "original scale"); otherwise on the standardized scale
    original = shat is not None and var_y is not None
    scale = (np.sqrt(variance_y * adjustment / (n - 1.0)) / shat if original
             else np.ones(p))
    if original and not standardize:  # the columns on their own scale
        columns *= scale
        zty *= scale
        scale = np.ones(p)
    return SummaryStatistics(R, columns, zty, (n - 1.0) * variance_y, n, variance_y, scale,
                             np.zeros(p, bool))


def checked_sufficient_statistics(owner, XtX, Xty, yty, n_samples, *, X_mean=None,
                                  y_mean=None, fit_intercept=True, standardize=True,
                                  regularization=0.0):
    """:class:`SummaryStatistics` of a data set's cross-products (susieR's ``susie_ss``),
    checked: ``X'X`` (p, p) symmetric and positive semi-definite, ``X'y`` (p,), ``y'y`` and
    ``n`` consistent with them (``|x_j'y| <= sqrt(x_j'x_j y'y)``). With ``fit_intercept``
    they are those of the centred rows (``X - mean``, ``y - mean``); without, of the rows
    as they are, and ``X_mean``, ``y_mean`` (when given) centre ``Var(y)`` and the columns'
    standard deviations. ``standardize`` divides the columns by their standard deviations
    (divisor ``n - 1``); ``regularization`` ``lambda`` shrinks every cross-product of two
    different variables by ``1 - lambda``: ``X'X`` to ``(1 - lambda) X'X + lambda
    diag(X'X)`` (on the correlation scale ``(1 - lambda) R + lambda I``) and ``X'y`` to
    ``(1 - lambda) X'y``, so that they stay consistent with ``y'y``."""
    gram, zty, yty, n = _checked_cross_products(owner, XtX, Xty, yty, n_samples)
    p = gram.shape[0]
    regularization = check_regularization(owner, regularization)
    squares = np.diag(gram).copy()
    if np.any(squares < 0):
        raise bad_parameter(owner, "XtX", "a positive semi-definite matrix (its diagonal, "
                            "sums of squares, >= 0)", f"negative diagonal entries at "
                            f"{np.flatnonzero(squares < 0)[:5].tolist()}")
    _check_correlations_bounded(owner, zty, squares, yty)
    means = {}
    for name, value, size in (("X_mean", X_mean, p), ("y_mean", y_mean, 1)):
        if value is not None:
            value = check_z(owner, np.atleast_1d(value), name)
            if value.size != size:
                raise bad_parameter(owner, name, f"{size} mean(s)", f"{value.size} values")
        means[name] = value
    centred_yty = yty
    centred_squares = squares
    if not fit_intercept and means["y_mean"] is not None:
        centred_yty = yty - n * float(means["y_mean"][0]) ** 2
    if not fit_intercept and means["X_mean"] is not None:
        centred_squares = squares - n * means["X_mean"] ** 2
    variance_y = centred_yty / (n - 1.0)
    if not variance_y > 0:
        raise bad_parameter(owner, "yty", "the sum of squares of a y that varies",
                            yty, "A constant y has nothing to fine-map.")
    # a column is constant when centring left rounding of its own size (sum of x^2 before
    # centring: with X_mean, whatever the other columns' units; without, the largest)
    if not fit_intercept:
        magnitude = squares
    elif means["X_mean"] is not None:
        magnitude = squares + n * means["X_mean"] ** 2
    else:
        magnitude = np.full(p, float(squares.max()))
    uninformative = squares <= CONSTANT_TOLERANCE * magnitude
    scale = (standard_deviations(centred_squares, n, uninformative) if standardize
             else np.ones(p))
    columns = np.where(uninformative, 0.0, 1.0 / scale)  # Z'Z = diag(c) X'X diag(c)
    zty = np.where(uninformative, 0.0, zty / scale)
    if regularization:  # a new matrix; the caller's is never changed
        gram = (1.0 - regularization) * gram
        gram[np.diag_indices(p)] += regularization * squares
        zty *= 1.0 - regularization  # the cross-products with y shrink with the others
    check_positive_semi_definite(owner, "XtX", gram, regularization,
                                 root=np.sqrt(np.where(uninformative, 1.0, squares)))
    return SummaryStatistics(gram, columns, zty, yty, n, variance_y, scale, uninformative)


@validate_params({"block_rows": [Integer(1, None)]})
def sufficient_statistics(X, y, *, block_rows=4096):
    """The sufficient statistics of the rows ``X``, ``y`` for
    :meth:`~alphavb.AlphaSuSiE.fit_sufficient` (susieR's ``compute_suff_stat``): ``X'X``,
    ``X'y`` and ``y'y`` of the centred rows, ``n`` and the means, accumulated over blocks of
    ``block_rows`` rows (no centred copy of ``X``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    block_rows : int, default=4096

    Returns
    -------
    dict
        ``XtX``, ``Xty``, ``yty``, ``n_samples``, ``X_mean``, ``y_mean``: the keyword
        arguments of ``fit_sufficient``.
    """
    from sklearn.utils import check_X_y

    X, y = check_X_y(X, y, dtype=np.float64, y_numeric=True)
    n, p = X.shape
    X_mean, y_mean = X.mean(axis=0), float(y.mean())
    XtX, Xty, yty = np.zeros((p, p)), np.zeros(p), 0.0
    for start in range(0, n, block_rows):
        block = X[start:start + block_rows] - X_mean
        target = y[start:start + block_rows] - y_mean
        XtX += block.T @ block
        Xty += block.T @ target
        yty += float(target @ target)
    return {"XtX": (XtX + XtX.T) / 2.0, "Xty": Xty, "yty": yty, "n_samples": n,
            "X_mean": X_mean, "y_mean": y_mean}


def summary_sufficient_statistics(z, R, n_samples):
    """The standardized rows' sufficient statistics that z-scores and their in-sample LD
    give, for ``fit_sufficient`` of :class:`~alphavb.AlphaSuSiE` and of
    ``AlphaSelector(method="calibrate")`` (alpha for the credible sets from summary data):
    ``X'X = (n - 1) R``, ``X'y = sqrt(n - 1) z~``, ``y'y = n - 1``, ``z~`` as in
    :meth:`~alphavb.AlphaSuSiE.fit_summary` (susieR's ``susie_rss``). ``R`` must be the
    correlation of the same ``n`` rows; with a reference panel's, a calibration's
    replicates would carry the panel's LD (use ``fit_summary(..., ld_mismatch="eb")``).

    Parameters
    ----------
    z : array-like of shape (n_features,)
        z-scores of the univariate regressions.
    R : array-like of shape (n_features, n_features)
        Their correlation matrix, in-sample.
    n_samples : int > 2
        The number of rows.

    Returns
    -------
    dict
        ``XtX``, ``Xty``, ``yty``, ``n_samples``: keyword arguments of ``fit_sufficient``.
    """
    owner = "summary_sufficient_statistics"
    if n_samples is None:
        raise bad_parameter(owner, "n_samples", "the number of rows behind z", None,
                            "The statistics of the rows are sums over n of them.")
    stats = summary_statistics(owner, check_z(owner, z), R, n_samples)
    return {"XtX": (stats.n_samples - 1.0) * stats.gram, "Xty": stats.zty, "yty": stats.yty,
            "n_samples": stats.n_samples}


def _checked_cross_products(owner, XtX, Xty, yty, n_samples):
    """``X'X`` (the caller's float64 array, read and never changed: square, finite,
    symmetric), ``X'y`` (a finite copy, one per column), ``y'y > 0`` and ``n > 1``, or the
    ``ValueError`` that names the one that is not."""
    from scipy import sparse

    if sparse.issparse(XtX) or np.iscomplexobj(XtX):
        raise bad_parameter(owner, "XtX", "a dense real (p, p) matrix X'X",
                            type(XtX).__name__ if sparse.issparse(XtX) else "complex values",
                            "Pass XtX.toarray() for a sparse matrix (X'X of genotypes is "
                            "dense).")
    gram = float_values(owner, "XtX", XtX, "a square (p, p) matrix X'X of numbers")
    if gram.ndim != 2 or gram.shape[0] != gram.shape[1] or gram.size == 0:
        raise bad_parameter(owner, "XtX", "a square (p, p) matrix X'X", f"shape {gram.shape}")
    p = gram.shape[0]
    zty = check_z(owner, Xty, "Xty")
    if zty.size != p:
        raise bad_parameter(owner, "Xty", f"a vector of {p} values X'y, one per column of "
                            "XtX", f"{zty.size} values")
    numbers = []
    for name, value, low in (("yty", yty, 0.0), ("n_samples", n_samples, 1.0)):
        number = real_scalar(value)
        if number is None or not (np.isfinite(number) and number > low):
            raise bad_parameter(owner, name, f"a finite number > {low:g}", value)
        numbers.append(number)
    check_symmetric(owner, "XtX", gram, "Compute X'X from finite data.")
    return gram, zty, numbers[0], numbers[1]


def _check_correlations_bounded(owner, zty, squares, yty):
    """Refuse ``X'y`` that no data could give with these ``X'X`` and ``y'y``: each
    ``|x_j'y|`` is at most ``sqrt(x_j'x_j y'y)`` (a correlation of at most 1)."""
    bound = np.sqrt(squares * yty)
    excess = np.abs(zty) - bound * (1.0 + 1e-8) - 1e-12 * np.sqrt(float(squares.max()) * yty)
    if np.any(excess > 0):
        worst = int(np.argmax(excess))
        raise bad_parameter(owner, "Xty", "consistent with XtX and yty (|x_j'y| <= "
                            "sqrt(x_j'x_j y'y))", f"|x'y| / sqrt(x'x y'y) = "
                            f"{abs(zty[worst]) / max(bound[worst], 1e-300):.4g} at column "
                            f"{worst}", "Compute XtX, Xty and yty from the same rows "
                            "(centred with the same means), and pass their n_samples.")
