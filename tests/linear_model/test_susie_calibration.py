"""The choice of alpha for alpha-SuSiE's credible sets (AlphaSelector(method="calibrate")
on AlphaSuSiE): the replicates drawn from the fit, alpha = 1 kept where the sets already
cover, a smaller alpha where a background makes them miss, and a locus with nothing to
fine-map not refused."""

import numpy as np
import pytest

from alphavb import AlphaSuSiE
from alphavb.linear_model import _susie_calibration as calibration
from alphavb.model_selection import AlphaSelector
from tests.linear_model.susie_helpers import correlated


def test_replicates_are_drawn_from_the_fit_with_its_background():
    """One clear effect: each replicate's causal variables hold the fit's (its probability
    is 1), the replicate's response has the fit's effect, background and noise: its
    regression on the causal column recovers the effect, and its residual variance is
    ``sigma2 + tau2 * sum_j Var(x_j) / scale_j^2``."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 20)) * np.linspace(0.5, 2.0, 20) + 3.0
    y = 1.5 * X[:, 4] + X @ (0.05 * rng.standard_normal(20)) + rng.standard_normal(2000)
    rows = calibration.RowSource(X)
    reference = calibration.reference_fit(AlphaSuSiE(n_effects=3), rows, y)
    assert reference.infinitesimal_variance_ > 0
    worlds = calibration.bootstrap_worlds(reference, rows, 30, np.random.default_rng(1))
    # the effect is detectable in every replicate (a background effect may be too)
    assert all(4 in world.causal for world in worlds)
    slopes, residual_variances = [], []
    centred = X - X.mean(axis=0)
    for world in worlds:
        slope = centred[:, 4] @ world.response / (centred[:, 4] @ centred[:, 4])
        slopes.append(slope)
        residual_variances.append(np.var(world.response - slope * centred[:, 4]))
    # the slope is b*_4 + theta*_4 / scale_4 + noise: its mean is the fit's effect
    spread = np.std(slopes, ddof=1) / np.sqrt(len(slopes))
    assert np.mean(slopes) == pytest.approx(reference.coef_[4], abs=4 * spread)
    scale = reference.column_scale_
    others = np.delete(np.arange(20), 4)
    expected = reference.noise_variance_ + reference.infinitesimal_variance_ * np.sum(
        np.var(X[:, others], axis=0) / scale[others] ** 2)
    assert np.mean(residual_variances) == pytest.approx(expected, rel=0.05)


def test_sparse_locus_keeps_alpha_one():
    """Clear, unlinked effects without a background: the sets cover in the replicates at
    alpha = 1, which is chosen after the reference fit and one alpha's replicates."""
    rng = np.random.default_rng(2)
    X = correlated(400, 80, rng)
    y = X[:, 10] - 0.8 * X[:, 50] + rng.standard_normal(400)
    selector = AlphaSelector(AlphaSuSiE(n_effects=5), method="calibrate",
                             random_state=0).fit(X, y)
    assert selector.alpha_ == 1.0
    assert selector.n_fits_ == 1 + 10  # the reference fit and alpha = 1's 10 replicates
    assert selector.criterion_[0] >= 0.95
    assert "credible sets cover" in selector.selection_text()


def test_background_that_breaks_the_sets_lowers_alpha():
    """A strong polygenic background on linked columns: at alpha = 1 SuSiE's sets in the
    replicates miss (sets on background effects too small to be detected) more often than
    a coverage of 0.95 explains, so a smaller alpha is chosen: the largest whose misses it
    does explain (the binomial test); the scan stops there. Calibrating SuSiE-inf on the
    same locus tries SuSiE first (it misses), then SuSiE-inf at alpha = 1, which covers."""
    rng = np.random.default_rng(3)
    X = correlated(400, 200, rng, rho=0.9)
    coef = 0.06 * rng.standard_normal(200)
    coef[66] = 0.6
    y = X @ coef + rng.standard_normal(400)
    chosen = calibration.calibrated_alpha(
        AlphaSuSiE(n_effects=5), X, y, [1.0, 0.75, 0.5, 0.35, 0.25], 0.95, 10,
        np.random.default_rng(0))
    alpha, found = chosen.alpha, chosen.evaluated
    assert chosen.background is None and chosen.without_background is None
    assert alpha < 1.0 and min(found) == alpha
    for scanned, (covering, total) in found.items():
        assert calibration.covers(covering, total, 0.95) == (scanned == alpha)
    assert not calibration.covers(*found[1.0], 0.95)
    selector = AlphaSelector(AlphaSuSiE(n_effects=5), method="calibrate",
                             random_state=0).fit(X, y)
    assert selector.alpha_ < 1.0
    background = calibration.calibrated_alpha(
        AlphaSuSiE(n_effects=5, unmappable_effects="inf"), X, y, [1.0, 0.5], 0.95, 10,
        np.random.default_rng(0))
    assert background.alpha == 1.0 and background.background == "inf"
    assert not calibration.covers(*background.without_background, 0.95)  # SuSiE misses


def test_binomial_rule():
    """One miss in ten sets is what a coverage of 0.95 gives (P = 0.91), six in twenty is
    not (P < 1e-4); no set at all is no miss."""
    assert calibration.covers(9, 10, 0.95)
    assert not calibration.covers(14, 20, 0.95)
    assert calibration.covers(0, 0, 0.95)
    assert calibration.covers(95, 100, 0.95) and not calibration.covers(85, 100, 0.95)


def test_locus_without_signal_is_not_refused():
    """No effect, so no credible set at alpha = 1 (no PIP above 1/2): the coefficient
    calibration refused such a locus; the credible-set one has nothing that miscovers and
    keeps alpha = 1."""
    rng = np.random.default_rng(4)
    X = correlated(200, 40, rng)
    y = rng.standard_normal(200)
    selector = AlphaSelector(AlphaSuSiE(n_effects=3), method="calibrate",
                             random_state=0).fit(X, y)
    assert selector.alpha_ == 1.0
    assert selector.best_estimator_.credible_sets_ == []


@pytest.mark.parametrize("method", ["safebayes", "cv"])
def test_other_selectors_run_on_alpha_susie(method):
    rng = np.random.default_rng(5)
    X = correlated(120, 30, rng)
    y = X[:, 3] + rng.standard_normal(120)
    selector = AlphaSelector(AlphaSuSiE(n_effects=3, unmappable_effects="inf"),
                             method=method, alphas=[1.0, 0.5], random_state=0)
    with pytest.warns(UserWarning, match="tau2"):  # a sparse locus: tau2 at 0
        selector.fit(X, y)
    assert selector.alpha_ in (1.0, 0.5)
    assert 3 in selector.best_estimator_.credible_sets_[0]["variables"]


def test_sufficient_statistics_replicates_match_the_rows():
    """A replicate drawn as sufficient statistics has the rows' distribution: over many
    draws, the mean and covariance of ``X'y*`` and the mean of ``y*'y*`` equal those of
    ``X_c'y*`` and ``||y*||^2`` from rows (the same effects), within Monte Carlo error."""
    rng = np.random.default_rng(6)
    X = correlated(60, 8, rng)
    centred = X - X.mean(axis=0)
    XtX = centred.T @ centred
    source = calibration.SufficientSource(XtX, 60.0, X.mean(axis=0), 0.0)
    coef = np.array([0.0, 1.0, 0.0, 0.0, -0.5, 0.0, 0.0, 0.0])
    draws = [source.response(None, coef, 1.3, rng) for _ in range(20000)]
    Xty = np.array([d[0] for d in draws])
    yty = np.array([d[1] for d in draws])
    np.testing.assert_allclose(Xty.mean(axis=0), XtX @ coef, atol=0.25)
    np.testing.assert_allclose(np.cov(Xty, rowvar=False), 1.3**2 * XtX, rtol=0.05,
                               atol=0.05 * 1.3**2 * np.abs(XtX).max())
    expected = coef @ XtX @ coef + 1.3**2 * 59  # E||X_c b + e_c||^2, e centred (n - 1)
    assert yty.mean() == pytest.approx(expected, rel=0.01)


def test_selection_from_sufficient_statistics():
    """``AlphaSelector.fit_sufficient``: a sparse locus keeps alpha = 1 and the refit is
    ``fit_sufficient``'s; the background locus of the rows test lowers alpha too; other
    methods are refused by name."""
    from alphavb.linear_model import sufficient_statistics

    rng = np.random.default_rng(2)
    X = correlated(400, 80, rng)
    y = X[:, 10] - 0.8 * X[:, 50] + rng.standard_normal(400)
    stats = sufficient_statistics(X, y)
    selector = AlphaSelector(AlphaSuSiE(n_effects=5), method="calibrate",
                             random_state=0).fit_sufficient(**stats)
    assert selector.alpha_ == 1.0 and selector.n_fits_ == 11
    direct = AlphaSuSiE(n_effects=5).fit_sufficient(**stats)
    np.testing.assert_allclose(selector.inclusion_probabilities_,
                               direct.inclusion_probabilities_)
    rng = np.random.default_rng(3)
    X = correlated(400, 200, rng, rho=0.9)
    coef = 0.06 * rng.standard_normal(200)
    coef[66] = 0.6
    y = X @ coef + rng.standard_normal(400)
    lowered = AlphaSelector(AlphaSuSiE(n_effects=5), method="calibrate",
                            random_state=0).fit_sufficient(**sufficient_statistics(X, y))
    assert lowered.alpha_ < 1.0
    with pytest.raises(ValueError, match="method"):
        AlphaSelector(AlphaSuSiE(), method="safebayes").fit_sufficient(**stats)


def test_background_is_dropped_where_the_locus_is_sparse():
    """Calibrating SuSiE-inf on a sparse locus: SuSiE without the background covers in the
    replicates at alpha = 1, so the selector refits it without the background (the power
    of plain SuSiE), after 1 + 10 fits."""
    rng = np.random.default_rng(2)
    X = correlated(400, 80, rng)
    y = X[:, 10] - 0.8 * X[:, 50] + rng.standard_normal(400)
    selector = AlphaSelector(AlphaSuSiE(n_effects=5, unmappable_effects="inf"),
                             method="calibrate", random_state=0).fit(X, y)
    assert selector.alpha_ == 1.0 and selector.calibration_background_ is None
    assert selector.best_estimator_.unmappable_effects is None
    assert selector.n_fits_ == 11
    assert "without the background" in selector.selection_text()
