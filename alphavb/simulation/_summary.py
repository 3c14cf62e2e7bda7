r"""Performance measures of a simulation study with their Monte Carlo standard errors.

:func:`summarise_study` computes, per method and group, the measures of Morris, White &
Crowther (2019, "Using simulation studies to evaluate statistical methods", Statistics in
Medicine 38, Table 6) under the names and formulas of R's rsimsum (Gasparini 2018,
``simsum``). With ``n`` usable replications of the estimate ``theta_i``, its standard error
``se_i`` and the truth ``theta``, ``thetabar`` the mean of the ``theta_i`` and ``c`` the
normal quantile of ``(1 + level) / 2``:

==============  =========================================  =================================================
stat            est                                        mcse
==============  =========================================  =================================================
nsim            ``n``                                      --
thetamean       ``thetabar``                               --
thetamedian     median of ``theta_i``                      --
se2mean         mean of ``se_i^2``                         --
se2median       median of ``se_i^2``                       --
bias            ``mean(theta_i - theta)``                  ``sqrt(sum (theta_i - thetabar)^2 / (n (n-1)))``
rbias           ``mean((theta_i - theta) / theta)``        ``sd((theta_i - theta) / theta) / sqrt(n)``
empse           ``sd(theta_i)`` (divisor ``n - 1``)        ``empse / sqrt(2 (n - 1))``
mse             ``mean((theta_i - theta)^2)``              ``sqrt(sum ((theta_i - theta)^2 - mse)^2 / (n (n-1)))``
relprec         ``100 ((empse_ref / empse)^2 - 1)``        ``200 (empse_ref / empse)^2 sqrt((1 - rho^2) / (n - 1))``
modelse         ``sqrt(mean(se_i^2))``                     ``sqrt(var(se_i^2) / (4 n modelse^2))``
relerror        ``100 (modelse / empse - 1)``              ``100 (modelse / empse) sqrt(var(se_i^2) / (4 n modelse^4) + 1 / (2 (n - 1)))``
cover           share of intervals holding ``theta``       ``sqrt(cover (1 - cover) / n)``
becover         share of intervals holding ``thetabar``    ``sqrt(becover (1 - becover) / n)``
power           share with ``|theta_i| >= c se_i``         ``sqrt(power (1 - power) / n)``
width           mean interval width                        ``sd(width_i) / sqrt(n)``
failure_rate    share of the group's rows not used         ``sqrt(f (1 - f) / N)``, ``N`` rows
==============  =========================================  =================================================

``var`` and ``sd`` have divisor ``n - 1``. The interval is ``theta_i +- c se_i`` unless
``lower`` and ``upper`` name the estimator's own limits (rsimsum's ``ci.limits``). ``rho``
is the correlation, across replications, of the method's estimates with those of the
reference method ``ref`` (paired by replication, so common random numbers across methods
show up as a large ``rho`` and a small MCSE of ``relprec``), and ``empse_ref`` the
reference's empirical SE. ``width`` and ``failure_rate`` are alphavb's additions:
``failure_rate`` is the share of rows of the group that are not among the ``n`` (a fit
that failed, was skipped or is missing, or an estimate or standard error that is NaN);
rsimsum drops those (``na.rm``) and reports ``nsim`` alone.
"""

import numpy as np
from scipy.stats import norm

from .._validation import Real, bad_parameter, validate_params

STATS = ("nsim", "thetamean", "thetamedian", "se2mean", "se2median", "bias", "rbias", "empse",
         "mse", "relprec", "modelse", "relerror", "cover", "becover", "power", "width",
         "failure_rate")
NEEDS_TRUE = ("bias", "rbias", "mse", "cover")
NEEDS_SE = ("se2mean", "se2median", "modelse", "relerror", "power")


def _binomial(p, n):
    return p, np.sqrt(p * (1.0 - p) / n)


def _mean_and_mcse(values):
    n = values.size
    return values.mean(), (values.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan)


def _performance(theta, se, true, lower, upper, crit, reference, total):
    """``{stat: (est, mcse)}`` for one method in one group (rsimsum's ``perfms``)."""
    n = theta.size
    dof = np.float64(n - 1)  # a float: with one replication the MCSEs are NaN, as rsimsum's
    nan = (np.nan, np.nan)
    out = dict.fromkeys(STATS, nan)
    out["failure_rate"] = _binomial((total - n) / total, total) if total else nan
    out["nsim"] = (float(n), np.nan)
    if n == 0:
        return out
    mean = theta.mean()
    out["thetamean"], out["thetamedian"] = (mean, np.nan), (np.median(theta), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        empse = theta.std(ddof=1) if n > 1 else np.nan
        out["empse"] = (empse, empse / np.sqrt(2.0 * dof))
        if true is not None:
            error = theta - true
            out["bias"] = (error.mean(), np.sqrt(np.sum((theta - mean) ** 2) / (n * dof)))
            relative = error / true
            if np.all(np.isfinite(relative)):  # else a true value of 0: undefined
                out["rbias"] = (relative.mean(),
                                relative.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan)
            squared = error**2
            mse = squared.mean()
            out["mse"] = (mse, np.sqrt(np.sum((squared - mse) ** 2) / (n * dof)))
        if reference is not None:
            empse_ref, rho = reference
            ratio = (empse_ref / empse) ** 2
            out["relprec"] = (100.0 * (ratio - 1.0),
                              200.0 * ratio * np.sqrt((1.0 - rho**2) / dof))
        if se is not None:
            se2 = se**2
            se2_var = se2.var(ddof=1) if n > 1 else np.nan
            out["se2mean"], out["se2median"] = (se2.mean(), np.nan), (np.median(se2), np.nan)
            modelse = np.sqrt(se2.mean())
            out["modelse"] = (modelse, np.sqrt(se2_var / (4.0 * n * modelse**2)))
            out["relerror"] = (100.0 * (modelse / empse - 1.0),
                               100.0 * (modelse / empse)
                               * np.sqrt(se2_var / (4.0 * n * modelse**4) + 1.0 / (2.0 * dof)))
            out["power"] = _binomial(np.mean(np.abs(theta) >= crit * se), n)
    if lower is None and se is not None:
        lower, upper = theta - crit * se, theta + crit * se
    if lower is not None:
        if true is not None:
            out["cover"] = _binomial(np.mean((true >= lower) & (true <= upper)), n)
        out["becover"] = _binomial(np.mean((mean >= lower) & (mean <= upper)), n)
        out["width"] = _mean_and_mcse(upper - lower)
    return out


def _column(frame, owner, name, value, allow_number=False):
    """The column label ``value`` of ``frame`` (a string, or any label of its columns such as
    an int; a number for ``true``), None for None."""
    if value is None:
        return None
    if isinstance(value, str) or (not allow_number and np.ndim(value) == 0
                                  and not isinstance(value, bool) and value in frame.columns):
        if value not in frame.columns:
            fix = ("Pass method=None to summarise the rows as one method, or the column "
                   "that names the methods." if name == "method" else "")
            raise bad_parameter(owner, name, f"a column of frame ({list(frame.columns)})",
                                value, fix)
        return value
    if allow_number and np.isscalar(value) and np.isfinite(float(value)):
        return float(value)
    raise bad_parameter(owner, name, "a column name" + (" or a number" if allow_number else ""),
                        value)


def _check_values(frame, owner, estimate, se, lower, upper, true):
    """Numeric columns, standard errors >= 0 and lower <= upper where both are finite (a
    negative se or crossed limits made cover and width silently wrong)."""
    import pandas as pd

    for name, column in (("estimate", estimate), ("se", se), ("lower", lower),
                         ("upper", upper), ("true", true if isinstance(true, str) else None)):
        if column is not None and not (pd.api.types.is_numeric_dtype(frame[column])
                                       and not pd.api.types.is_bool_dtype(frame[column])):
            raise bad_parameter(owner, name, "the name of a numeric column", column,
                                f"Column {column!r} has dtype {frame[column].dtype}.")
    if se is not None and np.any(frame[se].to_numpy(dtype=float) < 0):
        raise bad_parameter(owner, "se", "a column of standard errors >= 0", se,
                            f"{int(np.sum(frame[se].to_numpy(dtype=float) < 0))} rows have "
                            "a negative one.")
    if lower is not None:
        crossed = frame[lower].to_numpy(dtype=float) > frame[upper].to_numpy(dtype=float)
        if crossed.any():
            raise bad_parameter(owner, "lower", f"a column of limits <= those of {upper!r}",
                                lower, f"{int(crossed.sum())} rows have lower > upper (first: "
                                f"row {frame.index[np.flatnonzero(crossed)[0]]!r}); swap the "
                                "columns or fix the intervals.")


def _checked_columns(frame, estimate, true, se, method, ref, by, lower, upper, replication):
    """:func:`summarise_study`'s column arguments, checked against ``frame``: ``(estimate,
    true, se, method, lower, upper, by)`` with ``by`` a list."""
    import pandas as pd

    owner = "summarise_study"
    if not isinstance(frame, pd.DataFrame):
        raise bad_parameter(owner, "frame", "a pandas DataFrame", type(frame).__name__)
    if frame.empty:
        raise ValueError("summarise_study got an empty frame; pass the rows of a study.")
    estimate = _column(frame, owner, "estimate", estimate)
    true = _column(frame, owner, "true", true, allow_number=True)
    se = _column(frame, owner, "se", se)
    method = _column(frame, owner, "method", method)
    lower, upper = _column(frame, owner, "lower", lower), _column(frame, owner, "upper", upper)
    if (lower is None) != (upper is None):
        raise bad_parameter(owner, "lower" if lower is None else "upper",
                            "given together with the other limit", None,
                            "Pass both lower= and upper= (or neither).")
    by = [] if by is None else list(by) if isinstance(by, (list, tuple)) else [by]
    for name in by:
        _column(frame, owner, "by", name)
    if ref is not None:
        if method is None:
            raise bad_parameter(owner, "ref", "None when method is None", ref)
        if not (frame[method] == ref).any():
            raise bad_parameter(owner, "ref", f"a value of the {method!r} column "
                                f"({sorted(frame[method].unique().tolist())})", ref)
        _column(frame, owner, "replication", replication)
    _check_values(frame, owner, estimate, se, lower, upper, true)
    return estimate, true, se, method, lower, upper, by


def usable_rows(part, estimate="estimate", true="true", se="se", lower=None, upper=None,
                status="status"):
    """The rows of ``part`` that :func:`summarise_study` summarises: finite ``estimate``
    and, where named, ``se``, ``lower``, ``upper`` and ``true`` (a column's name; a number
    is the same for every row); ``status`` ``"ok"`` where the column exists."""
    keep = np.isfinite(part[estimate].to_numpy(dtype=float))
    for name in (se, lower, upper, true if isinstance(true, str) else None):
        if name is not None:
            keep &= np.isfinite(part[name].to_numpy(dtype=float))
    if status in part:
        keep &= (part[status] == "ok").to_numpy()
    return part[keep]


def _refuse_pooled_parameters(frame, by, method):
    """A ``ValueError`` when a group would pool the rows of different parameters (the
    ``parameter`` column of :func:`run_study`'s estimates, left out of ``by``): their
    empirical SE and coverage are across coefficients, not replications. Several rows of one
    parameter per replication (the credible sets of a fit) are pooled on purpose."""
    if "parameter" not in frame or "parameter" in by or method == "parameter":
        return
    keys = [*by, method] if method is not None else by
    counts = (frame.groupby(keys, dropna=False)["parameter"].nunique() if keys
              else frame["parameter"].nunique())
    if np.max(counts) > 1:
        raise bad_parameter("summarise_study", "by", "the columns that tell the rows' "
                            "parameters apart", by, fix="Add 'parameter' to by (e.g. by="
                            f"{[*by, 'parameter']!r}): the groups hold several parameters.")


def _reference(reference_rows, part, is_reference, estimate, replication, group_name):
    """What ``relprec`` needs of the reference method: its empirical SE and the correlation
    of its estimates with this method's, paired by replication (1 for the reference)."""
    for name, rows in (("the reference", reference_rows), ("a method", part)):
        if rows[replication].duplicated().any():
            raise ValueError(
                f"summarise_study pairs methods by {replication!r} for relprec, but {name} "
                f"has several rows per replication in group {group_name}; add the column "
                "that tells them apart (e.g. 'parameter') to by.")
    paired = reference_rows[[replication, estimate]].merge(part[[replication, estimate]],
                                                            on=replication)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = (1.0 if is_reference  # exactly: rounding would give relprec an MCSE
               else np.corrcoef(paired[f"{estimate}_x"], paired[f"{estimate}_y"])[0, 1]
               if len(paired) > 1 else np.nan)
    return reference_rows[estimate].to_numpy(dtype=float).std(ddof=1), rho


def _reported_stats(true, se, lower):
    """The statistics of :data:`STATS` that the given columns define."""
    for stat in STATS:
        if (true is None and stat in NEEDS_TRUE) or (se is None and stat in NEEDS_SE):
            continue
        if lower is None and se is None and stat in ("becover", "width"):
            continue
        yield stat


@validate_params({"level": [Real(0.0, 1.0, closed="neither")]})
def summarise_study(frame, estimate="estimate", true="true", se="se", method="alpha",
                    ref=None, by=None, level=0.95, lower=None, upper=None, *,
                    replication="replication", status="status"):
    """Performance measures with Monte Carlo standard errors, as R's rsimsum ``simsum``.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per replication (and group), e.g. the estimates of
        ``run_study(..., return_estimates=True)``.
    estimate : str, default="estimate"
        Column of the point estimates ``theta_i``.
    true : str, float or None, default="true"
        Column (or value) of the true parameter; None omits the measures that need it
        (bias, rbias, mse, cover).
    se : str or None, default="se"
        Column of the standard errors (for a variational posterior, its sd); None omits
        se2mean, se2median, modelse, relerror and power (and cover without limits).
    method : str or None, default="alpha"
        Column whose values are the methods compared (the default suits ``run_study``'s
        frames over a grid of ``alpha``); None: the rows are one method.
    ref : value or None, default=None
        The method to which ``relprec`` compares the others (e.g. ``1.0`` for alpha = 1);
        None leaves ``relprec`` NaN.
    by : column label, list of them or None, default=None
        Columns whose combinations are summarised separately (e.g. ``["n_samples",
        "parameter"]``); a label need not be a string.
    level : float in (0, 1), default=0.95
        Level of the intervals ``theta_i +- c se_i`` and of the test behind ``power``.
    lower, upper : str or None, default=None
        Columns of the estimator's own interval limits (both or neither); they replace
        ``theta_i +- c se_i`` in cover, becover and width (a spike-and-slab interval is not
        symmetric).
    replication : str, default="replication"
        Column pairing the methods' estimates for ``relprec``.
    status : str, default="status"
        If ``frame`` has this column, only rows with ``"ok"`` are used; the others count in
        ``failure_rate``.

    Returns
    -------
    pandas.DataFrame
        Columns ``[*by, method, "stat", "est", "mcse"]``, one row per group, method and
        statistic (the module docstring lists them with their formulas); ``mcse`` is NaN for
        the statistics without one, every statistic NaN where it is undefined (e.g.
        ``rbias`` with a true value of 0, ``relprec`` without ``ref``).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"alpha": [1.0] * 4, "replication": range(4),
    ...                       "estimate": [1.0, 2.0, 3.0, 6.0], "se": [1.0, 1.0, 2.0, 2.0],
    ...                       "true": 2.0})
    >>> table = summarise_study(frame).set_index("stat")
    >>> table.loc[["bias", "empse", "cover"], ["est", "mcse"]].round(3)
            est   mcse
    stat
    bias   1.00  1.080
    empse  2.16  0.882
    cover  0.75  0.217
    """
    import pandas as pd

    estimate, true, se, method, lower, upper, by = _checked_columns(
        frame, estimate, true, se, method, ref, by, lower, upper, replication)
    _refuse_pooled_parameters(frame, by, method)
    crit = norm.ppf(0.5 + 0.5 * float(level))

    def usable(part):
        return usable_rows(part, estimate, true, se, lower, upper, status)

    def values(part, name):
        return None if name is None else part[name].to_numpy(dtype=float)

    groups = frame.groupby(by, sort=True, dropna=False) if by else [((), frame)]
    rows = []
    for key, group in groups:
        key = key if isinstance(key, tuple) else (key,)
        methods = (group.groupby(method, sort=True, dropna=False) if method is not None
                   else [(None, group)])
        methods = list(methods)
        kept = {value: usable(part) for value, part in methods}
        totals = {value: len(part) for value, part in methods}
        reference_rows = kept.get(ref) if ref is not None else None
        for value, part in kept.items():
            reference = None
            if reference_rows is not None and len(reference_rows) > 1:
                group_name = dict(zip(by, key, strict=True))
                reference = _reference(reference_rows, part, value == ref, estimate,
                                       replication, group_name)
            truth = true if not isinstance(true, str) else values(part, true)
            measures = _performance(values(part, estimate), values(part, se), truth,
                                    values(part, lower), values(part, upper), crit,
                                    reference, totals[value])
            for stat in _reported_stats(true, se, lower):
                est, mcse = measures[stat]
                row = dict(zip(by, key, strict=True))
                if method is not None:
                    row[method] = value
                row.update({"stat": stat, "est": float(est), "mcse": float(mcse)})
                rows.append(row)
    columns = [*by, *([method] if method is not None else []), "stat", "est", "mcse"]
    return pd.DataFrame(rows, columns=columns)
