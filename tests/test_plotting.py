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
