"""The statsmodels-style posterior summary of the regressions (``summary()`` and
``summary_frame()``): one row per feature, then the intercept, covariates and noise
variance."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._validation import Integer, Real, bad_parameter, validate_params
from .base import feature_labels


class CoefficientSummaryMixin:
    """``summary()`` and ``summary_frame()`` for estimators with one row per feature (the
    regression models), followed by the rows of the rest of the model.

    The estimator provides ``_summary_columns(level)``: an ordered dict of column name to
    one value per feature; and may provide ``_other_summary_rows(level)``: a list of
    ``(name, {column: value})`` for the intercept, the covariates and the noise variance
    (columns they do not have, such as ``PIP``, are left empty). ``_summary_header()`` (the
    first table's rows) and ``_other_rows_note(others)`` (the note on those other rows)
    default to the CAVI regressions' and may be replaced.
    """

    def _other_summary_rows(self, level):
        return []

    def _distinct_other_rows(self, level):
        """``_other_summary_rows`` named apart from the features and from each other: where a
        name clashes (a feature named "intercept" or "sigma2", a covariate named as a
        feature) the model's row is put in parentheses, "(intercept)", "((a))"."""
        taken = {str(name) for name in self._summary_row_names()}
        rows = []
        for name, values in self._other_summary_rows(level):
            label = str(name)
            while label in taken:
                label = f"({label})"
            taken.add(label)
            rows.append((label, values))
        return rows

    @validate_params({"level": [Real(0.0, 1.0, closed="neither")]})
    def summary_frame(self, level=0.95):
        """The posterior summary as a ``pandas.DataFrame`` (statsmodels' ``summary_frame``).

        One row per feature (named by ``feature_names_in_``, else ``x0, x1, ...``), then
        the intercept (with ``fit_intercept``), the covariates (named by the columns of a
        DataFrame passed as ``covariates``, else ``z0, z1, ...``) and the noise variance
        (when it is learned). The columns are those of :meth:`summary`; a column a row does
        not have (``PIP`` and ``lfsr`` of the intercept) is NaN.

        Parameters
        ----------
        level : float in (0, 1), default=0.95
            Probability mass of the equal-tailed credible intervals.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        check_is_fitted(self)
        columns = self._summary_columns(level)
        frame = pd.DataFrame({name: np.asarray(values, dtype=float)
                              for name, values in columns.items()},
                             index=self._summary_row_names())
        others = self._distinct_other_rows(level)
        if others:
            extra = pd.DataFrame([values for _, values in others],
                                 index=[name for name, _ in others], columns=list(columns))
            frame = pd.concat([frame, extra.astype(float)])
        return frame

    @validate_params({"level": [Real(0.0, 1.0, closed="neither")],
                      "max_rows": [None, Integer(1, None)]})
    def summary(self, level=0.95, *, max_rows=None, sort_by=None):
        """A statsmodels-style table of the posterior summaries of the coefficients.

        Parameters
        ----------
        level : float, default=0.95
            Probability mass of the equal-tailed credible intervals.
        max_rows : int, default=None
            Show only this many coefficients (after sorting); ``None`` shows all.
        sort_by : str, default=None
            A column to order the rows by, largest first (``"PIP"`` for the spike-and-slab
            model; ``"coef"`` and ``"sd"`` order by absolute value); ``None`` keeps the
            features' order.

        Returns
        -------
        statsmodels.iolib.summary.Summary
            ``print`` it, or use ``as_text()``, ``as_html()``, ``as_latex()``.

        Examples
        --------
        ``model.summary(max_rows=10, sort_by="PIP")``: the ten most probable variables.
        """
        from statsmodels.iolib.summary import Summary
        from statsmodels.iolib.table import SimpleTable

        check_is_fitted(self)
        owner = type(self).__name__
        columns = self._summary_columns(level)
        names = list(columns)
        rows = np.column_stack([columns[name] for name in names])
        stubs = np.asarray(self._summary_row_names(), dtype=object)
        if sort_by is not None:
            if sort_by not in columns:
                raise bad_parameter(owner, "sort_by", f"None or one of {names}", sort_by)
            key = np.asarray(columns[sort_by], dtype=float)
            order = np.argsort(-(np.abs(key) if sort_by in ("coef", "sd") else key),
                               kind="stable")
            rows, stubs = rows[order], stubs[order]
        shown = len(rows)
        if max_rows is not None:
            shown = min(int(max_rows), len(rows))
            rows, stubs = rows[:shown], stubs[:shown]
        stubs = [str(name) for name in stubs]
        data = [[format_value(value) for value in row] for row in rows]
        header = self._summary_header()
        others = self._distinct_other_rows(level)
        specs = [([[value] for _, value in header], None, [name for name, _ in header],
                  "alpha-VB posterior summary"), (data, names, stubs, None)]
        if others:
            specs.append(([["" if row.get(name) is None or not np.isfinite(row[name])
                            else format_value(row[name]) for name in names]
                           for _, row in others],
                          names, [name for name, _ in others], None))
        result = Summary()
        result.tables.extend(_equal_width_tables(SimpleTable, specs))
        note = (f"Intervals are equal-tailed {level:.0%} credible intervals of the variational "
                "posterior q.")
        if others:
            note += self._other_rows_note(others)
        check = getattr(self, "approximation_check_", None)
        if check is not None:
            note += f" Against the exact alpha-posterior ({check.method}): {check.text()}."
        if shown < self.n_features_in_ or sort_by is not None:
            order = f", ordered by {sort_by}" if sort_by is not None else ""
            note += f" Showing {shown} of {self.n_features_in_} coefficients{order}."
        result.add_extra_txt([note])
        return result

    def _summary_header(self):
        """The ``(label, value)`` rows of the summary's first table: the model, ``alpha``,
        the objective and its value, the sweeps (over a grid of prior settings, its heaviest
        setting)."""
        objective_name = "alpha-ELBO" if self.objective == "alpha-vb" else "Fractional ELBO"
        header = [
            ("Model:", type(self).__name__),
            ("alpha:", f"{self.alpha:g}"),
            ("Objective:", self.objective),
            ("No. observations:", str(self.n_samples_fit_)),
        ]
        settings = getattr(self, "setting_elbo_", ())
        if len(settings) > 1:  # a grid of prior settings, averaged
            best = int(np.argmax(self.hyper_weights_))
            header += [
                ("Prior settings averaged:", str(len(settings))),
                ("Heaviest setting (weight):", f"{best} ({self.hyper_weights_[best]:.3f})"),
                (f"{objective_name} there:", f"{settings[best]:.4f}"),
                ("Sweeps, all settings:",
                 f"{int(np.sum(self.setting_n_iter_))} ({self.converged_})"),
            ]
        else:
            header += [
                (f"{objective_name}:", f"{self.elbo_:.4f}"),
                ("Sweeps (converged):", f"{self.n_iter_} ({self.converged_})"),
            ]
        return header

    def _other_rows_note(self, others):
        """The sentence of the summary's note on the rows below the coefficients."""
        note = (" Below the coefficients: the intercept and covariates (normal intervals from "
                "their posterior mean and sd)")
        return note + (" and the noise variance (exact quantiles of q(sigma2))."
                       if others[-1][0].strip("()") == "sigma2" else ".")

    def _summary_row_names(self):
        return feature_labels(self)


def format_value(value):
    """A number of the summary tables: four decimals, or four significant digits when it
    is non-zero and below 1e-4 in absolute value (a coefficient of 3.2e-06 in small raw
    units, which four decimals print as 0.0000; statsmodels' ``forg`` switches there
    too)."""
    value = float(value)
    if value != 0.0 and abs(value) < 1e-4:
        return f"{value:.4g}"
    return f"{value:.4f}"


def _equal_width_tables(SimpleTable, specs):
    """statsmodels tables of ``(data, headers, stubs, title)``, their stub column widened
    so that every table's rules have the width of the widest (they were 41, 43 and 48
    characters in one summary)."""
    def build(data, headers, stubs, title, width=0):
        stubs = [str(stub).ljust(width) for stub in stubs]
        return SimpleTable(data, headers=headers, stubs=stubs, title=title)

    def rule_width(table):
        return max(len(line) for line in table.as_text().splitlines())

    tables = [build(*spec) for spec in specs]
    target = max(rule_width(table) for table in tables)
    for index, (spec, table) in enumerate(zip(specs, tables, strict=True)):
        missing = target - rule_width(table)
        if missing > 0:
            stub_width = max((len(str(stub)) for stub in spec[2]), default=0)
            tables[index] = build(*spec, width=stub_width + missing)
    return tables
