"""matplotlib figures: the paper's examples, and a fitted model on real data (PIPs, a forest
of credible intervals, the objective's trace)."""

import numpy as np

from ._validation import CallableValue, Integer, bad_parameter, check_parameter
from .base import feature_labels, fitted_model

__all__ = ["plot_coefficients", "plot_forest", "plot_inclusion_probabilities",
           "plot_mixture_density", "plot_normalized_risk", "plot_objective_trace",
           "plot_risk_rate", "set_sample_size_ticks"]


def _check_top(owner, top):
    """``top``: None or an int >= 1 (``top=-1`` showed all but the last row)."""
    check_parameter(owner, "top", top, [None, Integer(1, None)], "None shows every row.")


def _check_sort_by(owner, sort_by, n_features):
    """``sort_by``: None or ``n_features`` finite numbers (a short key sorted a prefix)."""
    if sort_by is None:
        return None
    key = np.asarray(sort_by)
    if key.shape != (n_features,) or not np.issubdtype(key.dtype, np.number) \
            or not np.all(np.isfinite(key)):
        raise bad_parameter(owner, "sort_by", f"None or {n_features} finite numbers, one per "
                            "feature", f"an array of shape {key.shape}",
                            "e.g. sort_by=model.inclusion_probabilities_.")
    return key.astype(float)


def _check_columns(owner, df, **columns):
    """Each named argument is a column (or list of columns) of ``df``."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise bad_parameter(owner, "df", "a pandas DataFrame", type(df).__name__)
    for name, labels in columns.items():
        for label in labels if isinstance(labels, list) else [labels]:
            if label not in df.columns:
                fix = ("Add it with df['normalized_risk'] = alphavb.simulation."
                       "rate_normalized_risk(df, complexity)." if label == "normalized_risk"
                       else "")
                raise bad_parameter(owner, name, f"a column of df ({list(df.columns)})",
                                    label, fix)


def plot_coefficients(ax, estimate, truth=None, inclusion_probabilities=None, title=None,
                      zoom=None, legend=True):
    """Coefficient estimates (black) against the truth (red), as in the paper's Figure 1.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    estimate : array of shape (n_features,)
        Posterior means ``E_q[beta]``.
    truth : array of shape (n_features,) or None, default=None
        The true coefficients of a simulation; ``None`` (real data) draws the estimates
        alone.
    inclusion_probabilities : array of shape (n_features,) or None
        If given, drawn as grey bars on a second axis (PIPs, 0 to 1).
    title : str or None
    zoom : int or None
        If given, an inset shows the first ``zoom`` coefficients and their PIPs (the true
        support of the paper's example lies there).
    legend : bool, default=True
    """
    estimate = np.asarray(estimate, dtype=float)
    index = np.arange(len(estimate))  # 0-based, as the x0, x1, ... of summary()
    if truth is not None and np.shape(truth) != estimate.shape:
        raise ValueError(f"plot_coefficients: truth must have the shape of estimate "
                         f"{estimate.shape}; got {np.shape(truth)}. Pass truth=None for real "
                         "data.")
    handles = []
    if inclusion_probabilities is not None:
        pip_ax = ax.twinx()
        handles.append(pip_ax.bar(index, inclusion_probabilities, width=1.0, color="0.8",
                                  zorder=0, label="PIP (right axis)"))
        pip_ax.set_ylim(0.0, 1.05)
        pip_ax.set_ylabel("posterior inclusion probability", color="0.45")
        ax.set_zorder(pip_ax.get_zorder() + 1)
        ax.patch.set_visible(False)
    if truth is not None:
        truth = np.asarray(truth, dtype=float)
        handles.append(ax.scatter(index, truth, s=14, color="red", label="truth", zorder=3))
    handles.append(ax.scatter(index, estimate, s=6, color="black",
                              label="posterior mean E[beta_j]", zorder=4))
    ax.axhline(0.0, color="0.6", linewidth=0.5)
    ax.set_xlabel("coefficient j (x0, x1, ... as in summary())")
    ax.set_ylabel("coefficient")
    if zoom:
        inset = ax.inset_axes([0.45, 0.12, 0.5, 0.42])
        near = index[:zoom]
        shown = estimate[:zoom] if truth is None else np.r_[estimate[:zoom], truth[:zoom]]
        top = 1.1 * max(np.abs(shown).max(), 1e-12)
        if inclusion_probabilities is not None:
            # PIPs as bars scaled to the inset's coefficient axis, read on its right axis
            inset.bar(near, top * np.asarray(inclusion_probabilities[:zoom]), width=0.8,
                      color="0.85", zorder=0)
            right = inset.secondary_yaxis("right", functions=(lambda v: v / top,
                                                               lambda p: p * top))
            right.tick_params(labelsize=6, colors="0.45")
        inset.axhline(0.0, color="0.6", linewidth=0.5)
        if truth is not None:
            inset.scatter(near, truth[:zoom], s=22, color="red", zorder=3)
        inset.scatter(near, estimate[:zoom], s=10, color="black", zorder=4)
        inset.set_ylim(min(0.0, shown.min()) - 0.05 * top, top)
        inset.set_xticks(near)
        inset.tick_params(labelsize=6)
        inset.set_title(f"zoom: coefficients x0-x{zoom - 1}", fontsize=7)
    if legend:
        ax.legend(handles=handles, fontsize=7, loc="upper right")
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def _selected_rows(model, values, top, sort_by):
    """Row labels and the indices to show: features named as in ``summary``, the ``top``
    largest of ``sort_by`` (``values`` when it is None) or all in order."""
    names = np.asarray(feature_labels(model), dtype=object)
    order = np.arange(len(names))
    if sort_by is not None or top is not None:
        key = values if sort_by is None else sort_by
        order = np.argsort(-key, kind="stable")
    if top is not None:
        order = order[:int(top)]
    return names, order


def plot_inclusion_probabilities(ax, model, top=20, threshold=0.5, title=None):
    """Posterior inclusion probabilities of a fitted spike-and-slab or SuSiE model, largest
    first; the variables of each of an :class:`~alphavb.AlphaSuSiE`'s credible sets in their
    own colour (legend: the set's size and purity), the others grey.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    model : fitted AlphaSpikeSlabRegression, AlphaSpikeSlabClassifier or AlphaSuSiE
    top : int or None, default=20
        Show the ``top`` largest PIPs (``None``: every feature, in the features' order, as
        fine-mapping plots show positions).
    threshold : float or None, default=0.5
        A vertical reference line (the median-probability model's rule); ``None``: none.
    title : str or None

    Returns
    -------
    matplotlib.axes.Axes
    """
    from matplotlib.patches import Patch

    model = fitted_model(model)  # a fitted AlphaSelector: its best estimator
    _check_top("plot_inclusion_probabilities", top)
    pips = np.asarray(model.inclusion_probabilities_, dtype=float)
    names, order = _selected_rows(model, pips, top, None)
    rows = np.arange(len(order))
    colours = np.array(["0.35"] * len(pips), dtype=object)
    handles = []  # a swatch of each set's colour (an empty barh's legend entry was C0)
    for number, found in enumerate(getattr(model, "credible_sets_", [])):
        colour = f"C{number % 10}"
        colours[found["variables"]] = colour
        handles.append(Patch(facecolor=colour,
                             label=f"CS {number + 1}: {len(found['variables'])} variable(s), "
                                   f"purity {found['min_abs_corr']:.2f}"))
    ax.barh(rows, pips[order], color=list(colours[order]))
    ax.set_yticks(rows, list(names[order]), fontsize=7)
    ax.invert_yaxis()  # the largest on top
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel("posterior inclusion probability")
    if threshold is not None:
        ax.axvline(threshold, color="red", linewidth=0.8, linestyle="--")
    if handles:
        ax.legend(handles=handles, fontsize=7, loc="lower right")
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_forest(ax, model, level=0.95, top=None, sort_by=None, title=None):
    """A forest plot: each coefficient's posterior mean and equal-tailed credible interval.

    The interval of a spike-and-slab coefficient is a quantile interval of ``q(beta_j) = (1 -
    PIP_j) delta_0 + PIP_j N(mu_j, s2_j)``, whose atom at 0 can hold both ends (the interval
    ``[0, 0]`` of a variable rarely included) or one end, so it need not contain the
    posterior mean ``PIP_j mu_j``, which averages the atom and the slab. The interval is
    therefore drawn as a line from its lower to its upper end (not as error bars around the
    mean), the mean as a dot, and an interval that is the atom alone as an open circle at 0.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    model : fitted estimator with ``coef_`` and ``credible_intervals(level)``
    level : float, default=0.95
    top : int or None, default=None
        Show the ``top`` coefficients largest in ``sort_by`` (default: ``|coef_|``).
    sort_by : array of shape (n_features,) or None, default=None
        A key to order the rows by, largest first (e.g. ``model.inclusion_probabilities_``).
    title : str or None

    Returns
    -------
    matplotlib.axes.Axes
    """
    model = fitted_model(model)  # a fitted AlphaSelector: its best estimator
    coef = np.ravel(np.asarray(model.coef_, dtype=float))
    _check_top("plot_forest", top)
    sort_by = _check_sort_by("plot_forest", sort_by, coef.size)
    interval = np.asarray(model.credible_intervals(level), dtype=float)
    names, order = _selected_rows(model, np.abs(coef), top, sort_by)
    rows = np.arange(len(order))
    low, high = interval[order, 0], interval[order, 1]
    atom_only = (low == 0.0) & (high == 0.0)
    ax.hlines(rows, low, high, color="0.2", linewidth=1.5)
    ax.scatter(coef[order], rows, s=16, color="black", zorder=3, label="posterior mean")
    if atom_only.any():
        ax.scatter(np.zeros(atom_only.sum()), rows[atom_only], s=30, facecolors="none",
                   edgecolors="0.4", zorder=2, label=f"{level:.0%} interval: the atom at 0")
    ax.axvline(0.0, color="0.6", linewidth=0.5)
    ax.set_yticks(rows, list(names[order]), fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"coefficient: posterior mean and {level:.0%} credible interval")
    if atom_only.any():
        ax.legend(fontsize=7)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_objective_trace(ax, model, title=None):
    """The objective after each sweep or epoch: ``elbo_history_`` (the CAVI models, one line
    per prior setting of a grid; the Gaussian alpha-VB) or ``energy_history_`` (BB-alpha and
    AADM, minimised).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    model : fitted estimator
    title : str or None

    Returns
    -------
    matplotlib.axes.Axes
    """
    model = fitted_model(model)  # a fitted AlphaSelector: its best estimator
    if not hasattr(model, "elbo_history_") and hasattr(model, "vb_"):
        model = model.vb_  # AlphaLogisticRegression: the Gaussian alpha-VB it fitted
    histories = getattr(model, "setting_elbo_history_", None)
    if histories is not None and len(histories) > 1:
        for h, history in enumerate(histories):
            ax.plot(np.arange(1, len(history) + 1), history, linewidth=1.0,
                    label=f"setting {h} (weight {model.hyper_weights_[h]:.2f})")
        ax.legend(fontsize=6)
        ylabel = "alpha-ELBO"
    elif hasattr(model, "elbo_history_"):
        history = np.asarray(model.elbo_history_, dtype=float)
        ax.plot(np.arange(1, len(history) + 1), history, color="black", linewidth=1.0)
        ylabel = "alpha-ELBO"
    elif hasattr(model, "energy_history_"):
        history = np.asarray(model.energy_history_, dtype=float)
        ax.plot(np.arange(1, len(history) + 1), history, color="black", linewidth=1.0)
        ylabel = "energy (minimised)"
    else:
        raise ValueError(f"plot_objective_trace: {type(model).__name__} has neither "
                         "elbo_history_ nor energy_history_; pass a fitted alphavb estimator.")
    ax.set_xlabel("sweep" if ylabel == "alpha-ELBO" else "epoch")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_mixture_density(ax, log_density, X, labels, limits, title=None, n_grid=200,
                         true_means=None, fitted_means=None, legend=False):
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
    true_means, fitted_means : array of shape (K, 2) or None
        Marked with red crosses and black plus signs.
    legend : bool, default=False
    """
    owner = "plot_mixture_density"
    check_parameter(owner, "log_density", log_density, [CallableValue()],
                    "e.g. a fitted mixture's score_samples.")
    bounds = np.asarray(limits, dtype=float) if np.ndim(limits) == 1 else np.empty(0)
    if bounds.shape != (4,) or not np.all(np.isfinite(bounds)) \
            or not (bounds[0] < bounds[1] and bounds[2] < bounds[3]):
        raise bad_parameter(owner, "limits", "(x_min, x_max, y_min, y_max), four finite "
                            "numbers with x_min < x_max and y_min < y_max", limits)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise bad_parameter(owner, "X", "an array of shape (n_samples, 2)",
                            f"an array of shape {X.shape}")
    if np.shape(labels) != (X.shape[0],):
        raise bad_parameter(owner, "labels", f"one label per row of X ({X.shape[0]})",
                            f"an array of shape {np.shape(labels)}")
    check_parameter(owner, "n_grid", n_grid, [Integer(2, None)])
    limits = bounds
    grid_x = np.linspace(limits[0], limits[1], n_grid)
    grid_y = np.linspace(limits[2], limits[3], n_grid)
    xx, yy = np.meshgrid(grid_x, grid_y)
    density = np.exp(log_density(np.column_stack([xx.ravel(), yy.ravel()]))).reshape(xx.shape)
    ax.scatter(X[:, 0], X[:, 1], c=labels, s=4, cmap="tab10", vmin=0, vmax=9, alpha=0.5)
    ax.contour(xx, yy, density, levels=8, colors="black", linewidths=0.7)
    handles = [ax.plot([], [], color="black", linewidth=0.7, label="density contours")[0]]
    if true_means is not None:
        handles.append(ax.scatter(true_means[:, 0], true_means[:, 1], marker="x", s=60,
                                  color="red", linewidths=2, label="true means", zorder=5))
    if fitted_means is not None:
        handles.append(ax.scatter(fitted_means[:, 0], fitted_means[:, 1], marker="+", s=90,
                                  color="black", linewidths=1.5, label="E_q[mu_k]", zorder=6))
    ax.set_xlim(limits[0], limits[1])
    ax.set_ylim(limits[2], limits[3])
    ax.set_aspect("equal")
    ax.set_xlabel("x1")
    ax.set_ylabel("x2")
    if legend:
        ax.legend(handles=handles, fontsize=7, loc="lower left")
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_risk_rate(ax, df, rate, by="alpha", x="n_samples", y="risk", fits=None, title=None):
    """Risk against sample size on log-log axes, one series per value of ``by``, with the
    theoretical rate drawn for comparison (the simulation vignettes' figure).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    df : pandas.DataFrame
        Rows of :func:`~alphavb.simulation.run_study`.
    rate : callable
        ``rate(n)``, the theory's rate (e.g. ``d log(d n) / n``); drawn through the mean
        risk of the first series at the smallest ``n``, so only its slope matters.
    by : str or list of str, default="alpha"
        Column(s) that define the series.
    x, y : str
    fits : pandas.DataFrame or None
        :func:`~alphavb.simulation.fit_rate` output with the same ``by`` columns; its OLS
        lines are drawn dashed and its slopes are put in the legend.
    title : str or None
    """
    by = [by] if isinstance(by, str) else list(by)
    _check_columns("plot_risk_rate", df, by=by, x=x, y=y)
    check_parameter("plot_risk_rate", "rate", rate, [CallableValue()],
                    "e.g. rate=lambda n: np.log(n) / n.")
    anchor = None
    for color, key, label, part in _series(df, by):
        stats = part.groupby(x)[y].agg(["mean", "std", "count"])
        n = stats.index.to_numpy(dtype=float)
        se = (stats["std"] / np.sqrt(stats["count"])).fillna(0.0).to_numpy()
        if fits is not None:
            match = np.ones(len(fits), dtype=bool)
            for name, value in zip(by, key, strict=True):
                match &= fits[name].to_numpy() == value
            row = fits[match].iloc[0]
            label += f" (slope {row['slope']:.2f})"
            grid = np.geomspace(n.min(), n.max(), 50)
            ax.plot(grid, np.exp(row["intercept"]) * grid ** row["slope"], "--", color=color,
                    linewidth=0.9)
        ax.errorbar(n, stats["mean"], yerr=se, fmt="o", color=color, markersize=4,
                    capsize=2, label=label)
        if anchor is None:
            anchor = (n.min(), float(stats["mean"].iloc[0]))
    grid = np.geomspace(df[x].min(), df[x].max(), 50)
    reference = np.array([rate(value) for value in grid])
    ax.plot(grid, anchor[1] * reference / rate(anchor[0]), color="black", linewidth=1.4,
            label="theory rate (scaled)")
    ax.set_yscale("log")
    set_sample_size_ticks(ax, df[x].unique())
    ax.set_xlabel("n")
    ax.set_ylabel(f"{y} (log scale)")
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def set_sample_size_ticks(ax, n_values):
    """A log x axis with plain labels at the sample sizes of a study (no crowded minor ticks)."""
    from matplotlib.ticker import NullFormatter

    ax.set_xscale("log")
    ax.set_xticks(sorted(n_values))
    ax.set_xticklabels([f"{value:g}" for value in sorted(n_values)])
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_normalized_risk(ax, df, by="alpha", x="n_samples", y="normalized_risk", ylabel=None,
                         title="n * risk / rate: flat = the risk falls at the theory's rate,\n"
                               "falling = faster (the rate is an upper bound)"):
    """Mean rate-normalized risk (:func:`~alphavb.simulation.rate_normalized_risk`) against
    sample size, one line per value of ``by``: flat where the risk falls at the theory's
    rate, falling where it falls faster (the corollaries give upper bounds).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    df : pandas.DataFrame
        Rows of :func:`~alphavb.simulation.run_study` with a column ``y`` of normalized
        risks: ``df["normalized_risk"] = rate_normalized_risk(df, complexity)``.
    by : str or list of str, default="alpha"
        Column(s) that define the lines.
    x, y : str, default="n_samples", "normalized_risk"
    ylabel : str or None
        The y-axis label (default: ``y``).
    title : str

    Returns
    -------
    matplotlib.axes.Axes
    """
    by = [by] if isinstance(by, str) else list(by)
    _check_columns("plot_normalized_risk", df, by=by, x=x, y=y)
    for color, _, label, part in _series(df, by):
        means = part.groupby(x)[y].mean()
        ax.plot(means.index, means.to_numpy(), "o-", color=color, label=label)
    set_sample_size_ticks(ax, df[x].unique())
    ax.set_ylim(bottom=0)
    ax.set_xlabel("n")
    ax.set_ylabel(ylabel or y)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    return ax


def _series(df, by):
    """``(colour, key, label, rows)`` per value of the columns ``by``, in sorted order."""
    for index, (key, part) in enumerate(df.groupby(by, sort=True)):
        key = key if isinstance(key, tuple) else (key,)
        yield (f"C{index}", key,
               ", ".join(f"{name} = {value:g}" for name, value in zip(by, key, strict=True)), part)
