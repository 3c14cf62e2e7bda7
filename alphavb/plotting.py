"""matplotlib figures of the paper's examples."""

import numpy as np


def plot_coefficients(ax, estimate, truth, inclusion_probabilities=None, title=None):
    """Coefficient estimates (black) against the truth (red), as in the paper's Figure 1.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    estimate : array of shape (n_features,)
        Posterior means ``E_q[beta]``.
    truth : array of shape (n_features,)
    inclusion_probabilities : array of shape (n_features,) or None
        If given, drawn as grey bars on a second axis (PIPs, 0 to 1).
    title : str or None
    """
    index = np.arange(1, len(estimate) + 1)
    if inclusion_probabilities is not None:
        pip_ax = ax.twinx()
        pip_ax.bar(index, inclusion_probabilities, width=1.0, color="0.8", zorder=0)
        pip_ax.set_ylim(0.0, 1.05)
        pip_ax.set_ylabel("PIP", color="0.5")
        ax.set_zorder(pip_ax.get_zorder() + 1)
        ax.patch.set_visible(False)
    ax.scatter(index, truth, s=14, color="red", label="truth", zorder=3)
    ax.scatter(index, estimate, s=6, color="black", label="estimate", zorder=4)
    ax.axhline(0.0, color="0.6", linewidth=0.5)
    ax.set_xlabel("coefficient index")
    ax.set_ylabel("coefficient")
    if title:
        ax.set_title(title)
    return ax
