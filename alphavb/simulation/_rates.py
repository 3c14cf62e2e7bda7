"""The paper's risk rates: the theory's ``c log(d n) / n``, the risk normalised by it, and the
log-log slope of the risk in ``n`` fitted by OLS."""

import warnings

import numpy as np

from .._validation import Real, bad_parameter, caller_stacklevel, validate_params

_FIT_COLUMNS = ("slope", "slope_low", "slope_high", "intercept", "r_squared")


def rate_normalized_risk(df, complexity, dimension=None, x="n_samples", y="risk"):
    """The risk divided by the theoretical rate: ``n * risk / (c log(d n))``.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of :func:`run_study`.
    complexity : float or str
        ``c``: ``d`` (Cor. 4.1, 4.3), ``s`` (4.2), ``d K`` (4.4); or a column of ``df``.
    dimension : float, str or None, default=None
        ``d`` inside the logarithm (a number or a column); None uses ``complexity``.
    x, y : str
        Columns of the sample size and the risk.

    Returns
    -------
    pandas.Series
        Roughly constant in ``n`` when the risk attains the rate; the paper's bound makes
        it ``O(1 / min(alpha, 1 - alpha))``.
    """
    def column_or_value(value, name):
        if isinstance(value, str):
            if value not in df:
                raise bad_parameter("rate_normalized_risk", name, "a number or a column of "
                                     f"df ({list(df.columns)})", value)
            return df[value].to_numpy(dtype=float)
        if isinstance(value, (bool, np.bool_)) or not np.isscalar(value) or not value > 0:
            raise bad_parameter("rate_normalized_risk", name, "a positive number or a "
                                 "column of df", value)
        return float(value)

    c = column_or_value(complexity, "complexity")
    d = c if dimension is None else column_or_value(dimension, "dimension")
    return df[y] / theoretical_rate(df[x].to_numpy(dtype=float), c, d)


def theoretical_rate(n, complexity, dimension):
    """The rate of the paper's corollaries, ``c log(d n) / n`` (see the module notes)."""
    return complexity * np.log(dimension * n) / n


@validate_params({"level": [Real(0.0, 1.0, closed="neither")]})
def fit_rate(df, x="n_samples", y="risk", by="alpha", level=0.95, complexity=None,
             dimension=None):
    """Fit ``log risk = a + slope * log n`` by OLS (statsmodels), per value of ``by``.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of :func:`run_study` (each replication is one observation); with a
        ``status`` column only the rows with status ``"ok"`` are fitted (``n_fits``
        counts them).
    x, y : str, default="n_samples", "risk"
    by : str, list of str or None, default="alpha"
        Column(s) to group by (those absent from ``df`` are ignored); None fits all rows
        together.
    level : float in (0, 1), default=0.95
        Confidence level of the slope's interval.
    complexity, dimension : see :func:`rate_normalized_risk`
        If given, the table also has the mean rate-normalized risk and ``bound_slope``, the
        log-log slope of ``c log(d n) / n`` between the smallest and largest ``n``.

    Returns
    -------
    pandas.DataFrame
        One row per group: ``slope``, ``slope_low``, ``slope_high``, ``intercept``,
        ``r_squared``, ``n_fits`` (and ``normalized_risk``, ``bound_slope``). A group whose
        (``"ok"``) rows have a single value of ``x`` (its fits at the other sample sizes
        failed) has no slope: its fitted columns and ``bound_slope`` are NaN, and a
        ``UserWarning`` names it; run its missing sample sizes again to fit it.

    Raises
    ------
    ValueError
        When ``x`` or ``y`` is not a column of ``df`` or has values that are not finite and
        positive, or ``df`` has fewer than two values of ``x`` in all.
    """
    import pandas as pd
    import statsmodels.api as sm

    level = float(level)
    if "status" in df:  # a study's failed, skipped or missing fits have no risk to fit
        df = df[df["status"] == "ok"]
    for name, column in (("x", x), ("y", y)):
        if column not in df:
            raise bad_parameter("fit_rate", name, f"a column of df ({list(df.columns)})",
                                 column)
        values = df[column].to_numpy(dtype=float)
        if not np.all(np.isfinite(values) & (values > 0)):
            raise ValueError(f"fit_rate takes logs of column {column!r}, so it must be finite "
                             "and positive; drop or fix the rows that are not (e.g. "
                             f"df[df[{column!r}] > 0]).")
    if df[x].nunique() < 2:
        raise ValueError(f"fit_rate needs at least two values of {x!r} to fit a slope.")
    by = [] if by is None else [by] if isinstance(by, str) else list(by)
    by = [name for name in by if name in df]
    groups = df.groupby(by, sort=True) if by else [((), df)]
    normalized = None
    if complexity is not None:
        normalized = rate_normalized_risk(df, complexity, dimension, x, y)
    rows = []
    for value, part in groups:
        row = dict(zip(by, value if isinstance(value, tuple) else (value,), strict=True))
        sloped = part[x].nunique() >= 2
        if sloped:
            design = sm.add_constant(np.log(part[x].to_numpy(dtype=float)))
            fit = sm.OLS(np.log(part[y].to_numpy(dtype=float)), design).fit()
            low, high = fit.conf_int(alpha=1.0 - level)[1]
            row.update({"slope": fit.params[1], "slope_low": low, "slope_high": high,
                        "intercept": fit.params[0], "r_squared": fit.rsquared})
        else:  # one sample size: no slope (add_constant would not even add the constant)
            group = ", ".join(f"{name}={v}" for name, v in row.items()) or "df"
            row.update(dict.fromkeys(_FIT_COLUMNS, np.nan))
            warnings.warn(f"fit_rate: the group {group} has one value of {x!r} "
                          f"({part[x].iloc[0]:g}, {len(part)} rows), so its slope is NaN; a "
                          f"slope needs at least two values of {x!r} per group (run the "
                          "missing sample sizes again).", UserWarning,
                          stacklevel=caller_stacklevel())
        row["n_fits"] = len(part)
        if normalized is not None:
            row["normalized_risk"] = float(normalized[part.index].mean())
            d = complexity if dimension is None else dimension
            d = part[d].iloc[0] if isinstance(d, str) else d
            row["bound_slope"] = bound_slope(part[x].min(), part[x].max(), d) if sloped \
                else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def bound_slope(n_low, n_high, dimension):
    """Log-log slope of the rate ``log(d n) / n`` between ``n_low`` and ``n_high``:
    ``-1 + (log log(d n_high) - log log(d n_low)) / (log n_high - log n_low)``, between
    ``-1`` and ``-1 + 1 / log(d n_low)``."""
    return -1.0 + (np.log(np.log(dimension * n_high)) - np.log(np.log(dimension * n_low))) / (
        np.log(n_high) - np.log(n_low))
