"""Writing a reproduction's outputs: the output folder and pyplot, figures, CSV and
Markdown tables (shared by every module of :mod:`alphavb.reproduce`)."""

import csv
from pathlib import Path

import numpy as np


def _prepare_output(out_dir):
    """Create ``out_dir``; return it as a Path, and pyplot on the file-only Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir, plt


def _save_outputs(plt, fig, figure, table, rows):
    """Write the figure (PNG) and the rows (CSV); return the reproduction's result dict."""
    fig.tight_layout()
    fig.savefig(figure, dpi=110)
    plt.close(fig)
    _write_csv(table, rows)
    return {"figure": figure, "table": table, "files": [figure, table], "rows": rows}


def _write_csv(path, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                             for k, v in row.items()})


def _markdown_table(title, description, rows, columns):
    """A Markdown table of ``columns`` of ``rows``; ``x`` with ``x_se`` shows as mean +- se."""
    def cell(row, key):
        value = row[key]
        if key + "_se" in row:
            return f"{value:.3f} +- {row[key + '_se']:.3f}"
        return f"{value:.4g}" if isinstance(value, float) else str(value)

    lines = [f"# {title}", "", description, "", "| " + " | ".join(columns) + " |",
             "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row, key) for key in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _standard_error(values):
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")
