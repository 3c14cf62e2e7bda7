"""Writing a reproduction's outputs: the output folder and pyplot, figures, CSV and
Markdown tables (shared by every module of :mod:`alphavb.reproduce`)."""

import csv
from pathlib import Path

import numpy as np


def _prepare_output(out_dir):
    """Create ``out_dir``; return it as a Path, and the figure factory (:class:`_FileFigures`,
    which the reproductions call as they would pyplot)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir, _FileFigures


class _FileFigures:
    """The two pyplot calls the reproductions make, ``subplots`` and ``close``, for figures
    that are only written to files: each a ``matplotlib.figure.Figure`` of its own, outside
    pyplot's state, so a reproduction run in a notebook or an interactive session leaves
    pyplot's backend and open figures alone (it used to switch the backend to Agg)."""

    @staticmethod
    def subplots(nrows=1, ncols=1, *, figsize=None, **kwargs):
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize)
        return fig, fig.subplots(nrows, ncols, **kwargs)

    @staticmethod
    def close(fig):
        """Nothing to release: the figure was never registered with pyplot."""


# what a --quick figure is stamped with, so that it cannot pass for a result: the BNN, LDA
# and rate targets shorten training or replications; hdr and gmm fit fewer alphas, to
# convergence
QUICK_STAMP = "quick run: not converged"
FEWER_ALPHAS_STAMP = "quick run: 2 of the alphas"
FEW_REPLICATIONS_STAMP = "quick run: few replications, not the study"


def _save_figure(plt, fig, figure, stamp=None):
    """Lay out and write ``fig`` (PNG); a ``--quick`` run's ``stamp`` is printed in its corner
    (and kept in the PNG's Description)."""
    # leave room for a suptitle above the panels' titles
    fig.tight_layout(rect=(0, 0, 1, 0.94) if fig.get_suptitle() else None)
    if stamp:
        fig.text(0.995, 0.005, stamp, ha="right", va="bottom", color="red", fontsize=11,
                 fontweight="bold", alpha=0.85)
    fig.savefig(figure, dpi=110, metadata={"Description": stamp or ""})
    plt.close(fig)


def _save_outputs(plt, fig, figure, table, rows, stamp=None):
    """Write the figure (PNG) and the rows (CSV); return the reproduction's result dict."""
    _save_figure(plt, fig, figure, stamp)
    _write_csv(table, rows)
    return {"figure": figure, "table": table, "files": [figure, table], "rows": rows}


def _errorbar_panels(axes, rows, series, values, metrics, labels, spacing=0.2,
                     references=None, reference_label="paper"):
    """One panel per metric: the mean +- standard error (``key`` and ``key_se``) of each
    group of ``rows`` (one y position per entry of ``labels``), one series per value of the
    column ``series``, offset by ``spacing``. ``references`` maps ``(series value, label)``
    to ``{metric: value}``, drawn as black crosses at the same positions."""
    references, drawn = references or {}, False
    for offset, value in enumerate(values):
        part = [row for row in rows if row[series] == value]
        position = np.arange(len(part)) + spacing * (offset - (len(values) - 1) / 2)
        label = f"{series} = {value:g}" if isinstance(value, float) else str(value)
        for ax, key in zip(axes, metrics, strict=True):
            ax.errorbar([row[key] for row in part], position,
                        xerr=[row[key + "_se"] for row in part], fmt="o", label=label)
        for index, name in enumerate(labels):
            for ax, key in zip(axes, metrics, strict=True):
                reference = references.get((value, name), {}).get(key)
                if reference is not None:
                    ax.plot(reference, position[index], "kx", markersize=8,
                            label=None if drawn else reference_label)
                    drawn = True
    for ax in axes:
        ax.set_yticks(np.arange(len(labels)), labels)


def _pip_calibration_panel(ax, curves, xlabel="mean PIP in bin"):
    """A reliability panel of fine-mapping PIPs: per bin of PIPs, the share of its variants
    that are causal (+- MCSE) against the bin's mean PIP, one series per ``(bins, style)``
    of ``curves`` (``bins``: rows with ``mean_pip``, ``causal_share`` and
    ``causal_share_se``; ``style``: keyword arguments of ``errorbar``), and the diagonal
    that calibrated PIPs follow."""
    for bins, style in curves:
        if bins:
            ax.errorbar([row["mean_pip"] for row in bins],
                        [row["causal_share"] for row in bins],
                        yerr=[row["causal_share_se"] for row in bins], **style)
    ax.plot([0, 1], [0, 1], color="black", linewidth=0.8)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel("share causal", fontsize=8)
    ax.set_title("PIP calibration", fontsize=9)


def _write_csv(path, rows):
    """``rows`` as a CSV file: a column for every key of any row, in the order first seen
    (a cached row from before a field existed leaves its cell empty)."""
    fieldnames = list(dict.fromkeys(key for row in rows for key in row))
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fieldnames, restval="")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                             for k, v in row.items()})


def _markdown_table(title, description, rows, columns, headers=None, formats=None):
    """A Markdown table of ``columns`` of ``rows``; ``x`` with ``x_se`` shows as mean +- se.

    ``headers`` names the columns (default: their keys); ``formats`` maps a column to its
    format spec (default ``.3f`` for mean +- se, ``.4g`` for other floats). A mean or an
    error that could not be estimated (NaN: no value, or a mean of one replicate) shows as
    ``n/a``."""
    formats = formats or {}

    def cell(row, key):
        value = row[key]
        if key + "_se" in row:
            spec = formats.get(key, ".3f")
            if not np.isfinite(value):
                return "n/a"
            error = row[key + "_se"]
            return f"{value:{spec}} +- {f'{error:{spec}}' if np.isfinite(error) else 'n/a'}"
        if isinstance(value, float):
            return f"{value:{formats.get(key, '.4g')}}" if np.isfinite(value) else "n/a"
        return str(value)

    headers = columns if headers is None else headers
    lines = [f"# {title}", "", description, "", "| " + " | ".join(headers) + " |",
             "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row, key) for key in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _standard_error(values):
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")
