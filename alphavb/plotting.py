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


def plot_mixture_density(ax, log_density, X, labels, limits, title=None, n_grid=200):
    """Contours of a bivariate density over the data coloured by component (the paper's
    Figure 2).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    log_density : callable
        Maps an (m, 2) array of points to their (m,) log densities, e.g. a fitted
        mixture's ``score_samples``.
    X : array of shape (n_samples, 2)
    labels : array of shape (n_samples,)
        Component of each point (true or predicted), used for the colours.
    limits : tuple (x_min, x_max, y_min, y_max)
    title : str or None
    n_grid : int, default=200
        Grid points per axis.
    """
    grid_x = np.linspace(limits[0], limits[1], n_grid)
    grid_y = np.linspace(limits[2], limits[3], n_grid)
    xx, yy = np.meshgrid(grid_x, grid_y)
    density = np.exp(log_density(np.column_stack([xx.ravel(), yy.ravel()]))).reshape(xx.shape)
    ax.scatter(X[:, 0], X[:, 1], c=labels, s=4, cmap="tab10", vmin=0, vmax=9, alpha=0.5)
    ax.contour(xx, yy, density, levels=8, colors="black", linewidths=0.7)
    ax.set_xlim(limits[0], limits[1])
    ax.set_ylim(limits[2], limits[3])
    ax.set_aspect("equal")
    if title:
        ax.set_title(title)
    return ax
