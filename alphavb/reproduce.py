"""Reproductions of the paper's worked examples, run by ``alphavb reproduce TARGET``."""

import csv
import time
from pathlib import Path

import numpy as np

from .datasets import make_sparse_regression
from .linear_model import AlphaSpikeSlabRegression

HDR_ALPHAS = (0.5, 0.8, 0.95, 1.0)


def reproduce_hdr(out_dir="results/hdr", random_state=0, alphas=HDR_ALPHAS):
    """Figure 1 of Yang, Pati & Bhattacharya (2020): sparse regression, n = 100, d = 500.

    Fits :class:`~alphavb.AlphaSpikeSlabRegression` (default settings) at each ``alpha`` to
    one draw of :func:`~alphavb.datasets.make_sparse_regression` and writes

    * ``hdr_coefficients.png``: the 500 estimates (black) against the truth (red), one panel
      per ``alpha``, with the PIPs in grey;
    * ``hdr_summary.csv``: per ``alpha`` the sweeps to convergence, the PIPs of the true
      variables, the largest null PIP, ``||E[beta] - beta*||_2``, the objective and fit time.

    Returns
    -------
    dict with the paths ``"figure"`` and ``"table"`` and the ``"rows"`` of the table.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plotting import plot_coefficients

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    X, y, truth = make_sparse_regression(random_state=random_state)
    informative = np.flatnonzero(truth)
    rows = []
    fig, axes = plt.subplots(1, len(alphas), figsize=(4.2 * len(alphas), 3.6), sharey=True)
    for ax, alpha in zip(np.atleast_1d(axes), alphas):
        start = time.perf_counter()
        model = AlphaSpikeSlabRegression(alpha=alpha, random_state=random_state).fit(X, y)
        seconds = time.perf_counter() - start
        pip = model.inclusion_probabilities_
        row = {"alpha": alpha, "n_iter": model.n_iter_, "converged": model.converged_}
        row.update({f"pip_x{j + 1}": pip[j] for j in informative})
        row["max_null_pip"] = np.delete(pip, informative).max()
        row["l2_error"] = np.linalg.norm(model.coef_ - truth)
        row["noise_variance"] = model.noise_variance_
        row["elbo"] = model.elbo_
        row["fit_seconds"] = seconds
        rows.append(row)
        plot_coefficients(ax, model.coef_, truth, pip, title=f"alpha = {alpha:g}")
    fig.tight_layout()
    figure = out_dir / "hdr_coefficients.png"
    fig.savefig(figure, dpi=110)
    plt.close(fig)
    table = out_dir / "hdr_summary.csv"
    with open(table, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                             for k, v in row.items()})
    return {"figure": figure, "table": table, "rows": rows}


TARGETS = {"hdr": reproduce_hdr}
