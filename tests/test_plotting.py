"""Plot helpers for real data: what is drawn is the model's numbers (no truth needed), and
the spike-and-slab atom at 0 does not break the forest plot."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from alphavb import AlphaLinearRegression, AlphaSpikeSlabRegression
from alphavb.plotting import (
    plot_coefficients,
    plot_forest,
    plot_inclusion_probabilities,
    plot_objective_trace,
)


@pytest.fixture(scope="module")
def spike_slab():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 8)), columns=[f"gene{j}" for j in range(8)])
    y = 2.0 * X["gene0"] - 1.0 * X["gene3"] + 0.25 * X["gene5"] + rng.normal(size=60)
    return AlphaSpikeSlabRegression(alpha=0.5, prior_inclusion=[0.02, 0.1]).fit(X, y)


def test_plot_coefficients_without_a_truth(spike_slab):
    fig, ax = plt.subplots()
    plot_coefficients(ax, spike_slab.coef_, None, spike_slab.inclusion_probabilities_, zoom=4)
    points = ax.collections[0].get_offsets()
    np.testing.assert_allclose(points[:, 1], spike_slab.coef_)
    with pytest.raises(ValueError, match="truth=None"):
        plot_coefficients(ax, spike_slab.coef_, np.zeros(3))
    plt.close(fig)


def test_forest_draws_the_intervals_even_where_they_exclude_the_mean(spike_slab):
    interval = spike_slab.credible_intervals()
    coef = spike_slab.coef_
    outside = (coef < interval[:, 0]) | (coef > interval[:, 1])
    assert outside.any()  # the atom: e.g. the interval [0, 0] of a rarely included gene
    fig, ax = plt.subplots()
    plot_forest(ax, spike_slab)
    segments = ax.collections[0].get_segments()
    np.testing.assert_allclose([s[0][0] for s in segments], interval[:, 0])
    np.testing.assert_allclose([s[1][0] for s in segments], interval[:, 1])
    np.testing.assert_allclose(ax.collections[1].get_offsets()[:, 0], coef)
    labels = [label.get_text() for label in ax.get_yticklabels()]
    assert labels == [f"gene{j}" for j in range(8)]
    plt.close(fig)
    fig, ax = plt.subplots()  # the linear model, sorted by a key, top 3
    rng = np.random.default_rng(1)
    linear = AlphaLinearRegression().fit(rng.normal(size=(30, 4)), rng.normal(size=30))
    plot_forest(ax, linear, top=3)
    assert len(ax.get_yticklabels()) == 3
    plt.close(fig)


def test_pip_plot_shows_the_largest_first(spike_slab):
    fig, ax = plt.subplots()
    plot_inclusion_probabilities(ax, spike_slab, top=5)
    heights = [patch.get_width() for patch in ax.patches]
    np.testing.assert_allclose(heights, np.sort(spike_slab.inclusion_probabilities_)[::-1][:5])
    assert ax.get_yticklabels()[0].get_text() == "gene0"
    plt.close(fig)


def test_objective_trace_draws_every_setting(spike_slab):
    fig, ax = plt.subplots()
    plot_objective_trace(ax, spike_slab)
    lines = ax.get_lines()
    assert len(lines) == 2
    for line, history in zip(lines, spike_slab.setting_elbo_history_, strict=True):
        np.testing.assert_allclose(line.get_ydata(), history)
    plt.close(fig)


def test_plot_arguments_are_checked_by_name(spike_slab):
    """top=-1 showed all but the last row, a short sort_by sorted a prefix, a 2-tuple range
    ended in IndexError and plot_normalized_risk's KeyError did not name its column."""
    from alphavb._validation import InvalidParameterError
    from alphavb.plotting import plot_mixture_density, plot_normalized_risk, plot_risk_rate

    fig, ax = plt.subplots()
    for top in (-1, 0, 2.5, True):
        with pytest.raises(InvalidParameterError, match="'top' parameter of plot_forest"):
            plot_forest(ax, spike_slab, top=top)
        with pytest.raises(InvalidParameterError,
                           match="'top' parameter of plot_inclusion_probabilities"):
            plot_inclusion_probabilities(ax, spike_slab, top=top)
    with pytest.raises(InvalidParameterError, match=r"'sort_by'.*8 finite numbers"):
        plot_forest(ax, spike_slab, sort_by=[1.0, 2.0])
    X = np.zeros((5, 2))
    for limits in ((-3, 3), (3, -3, -3, 3), (-3, 3, -3, np.inf)):
        with pytest.raises(InvalidParameterError, match="'limits' parameter"):
            plot_mixture_density(ax, lambda p: np.zeros(len(p)), X, np.zeros(5), limits)
    with pytest.raises(InvalidParameterError, match="'labels' parameter"):
        plot_mixture_density(ax, lambda p: np.zeros(len(p)), X, np.zeros(3), (-3, 3, -3, 3))
    rows = pd.DataFrame({"n_samples": [100, 200], "risk": [0.2, 0.1], "alpha": 1.0})
    with pytest.raises(InvalidParameterError, match=r"'y'.*'normalized_risk'.*"
                                                    r"rate_normalized_risk"):
        plot_normalized_risk(ax, rows)
    with pytest.raises(InvalidParameterError, match="'by' parameter of plot_risk_rate"):
        plot_risk_rate(ax, rows, lambda n: 1 / n, by="method")
    plot_forest(ax, spike_slab, top=8, sort_by=spike_slab.inclusion_probabilities_)
    plt.close(fig)


def test_the_objective_trace_of_the_logistic_model_is_its_gaussian_vb():
    from alphavb import AlphaLogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    model = AlphaLogisticRegression(random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    fig, ax = plt.subplots()
    plot_objective_trace(ax, model)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), model.vb_.elbo_history_)
    plt.close(fig)


def test_plot_coefficients_counts_from_zero_as_summary():
    fig, ax = plt.subplots()
    plot_coefficients(ax, np.array([1.0, 0.0, -1.0]))
    np.testing.assert_array_equal(ax.collections[-1].get_offsets()[:, 0], [0, 1, 2])
    plt.close(fig)


def test_each_credible_set_has_its_colour_in_the_legend():
    """The legend's swatches were all blue while the sets' bars were blue, orange and
    green: each handle now carries its set's colour, the colour of that set's bars."""
    from matplotlib.colors import to_rgba

    from alphavb import AlphaSuSiE

    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 12))
    y = 2.0 * X[:, 0] - 1.5 * X[:, 4] + 1.0 * X[:, 8] + 0.5 * rng.normal(size=200)
    model = AlphaSuSiE(n_effects=3).fit(X, y)
    sets = model.credible_sets_
    assert len(sets) == 3
    fig, ax = plt.subplots()
    plot_inclusion_probabilities(ax, model, top=None)
    bars = ax.containers[-1].patches  # one per feature, in the features' order
    legend = ax.get_legend()
    handles = legend.legend_handles
    assert len(handles) == len(sets)
    swatches = [tuple(handle.get_facecolor()) for handle in handles]
    assert len(set(swatches)) == len(sets)
    for swatch, found, text in zip(swatches, sets, legend.get_texts(), strict=True):
        for variable in found["variables"]:
            assert tuple(bars[variable].get_facecolor()) == swatch
        assert text.get_text().startswith("CS ")
    others = set(range(12)) - {v for found in sets for v in found["variables"]}
    assert {tuple(bars[j].get_facecolor()) for j in others} == {to_rgba("0.35")}
    plt.close(fig)
