"""The choice of alpha for alpha-SuSiE's credible sets (AlphaSelector(method="calibrate")
on AlphaSuSiE): the replicates drawn from the fit, alpha = 1 kept where the sets already
cover, a smaller alpha where a background makes them miss, and a locus with nothing to
fine-map not refused."""

import warnings

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
    # counting only detectable whole effects as causal: the same draws for the same rng,
    # and a variable is causal when b*_j + theta*_j passes the power rule
    detectable = calibration.bootstrap_worlds(reference, rows, 30, np.random.default_rng(1),
                                              causal="detectable")
    spread = rows.column_variances(reference) / scale**2
    for drawn, counted in zip(worlds, detectable, strict=True):
        np.testing.assert_array_equal(drawn.response, counted.response)
        assert 4 in counted.causal
    weak = calibration.detectable(np.full(20, 1e-4), spread, reference.noise_variance_, 2000)
    strong = calibration.detectable(np.full(20, 1.0), spread, reference.noise_variance_, 2000)
    assert weak == frozenset() and strong == frozenset(range(20))


def test_sparse_locus_keeps_alpha_one():
    """Clear, unlinked effects without a background: the background's evidence is below
    log(n)/2, so the replicates come from the SuSiE fit; the sets cover in them at alpha =
    1, which is chosen after the two reference fits and one alpha's replicates."""
    rng = np.random.default_rng(2)
    X = correlated(400, 80, rng)
    y = X[:, 10] - 0.8 * X[:, 50] + rng.standard_normal(400)
    selector = AlphaSelector(AlphaSuSiE(n_effects=5), method="calibrate",
                             random_state=0).fit(X, y)
    assert selector.alpha_ == 1.0
    assert selector.n_fits_ == 2 + 10  # the reference fits and alpha = 1's 10 replicates
    gain, threshold = selector.calibration_evidence_
    assert gain <= threshold == pytest.approx(0.5 * np.log(400))
    assert selector.criterion_[0] >= 0.95
    assert "no evidence (a binomial test) of covering less often than 0.95" in \
        selector.selection_text()


def test_background_that_breaks_the_sets_lowers_alpha():
    """A strong polygenic background on linked columns: its evidence beats log(n)/2, so the
    replicates come from the SuSiE-inf fit; at alpha = 1 SuSiE's sets in them miss (sets on
    background effects too small to be detected) more often than a coverage of 0.95
    explains, so a smaller alpha is chosen: the largest whose misses it does explain (the
    binomial test); the scan stops there. Calibrating SuSiE-inf on the same locus keeps the
    background, whose sets cover at alpha = 1."""
    rng = np.random.default_rng(3)
    X = correlated(400, 200, rng, rho=0.9)
    coef = 0.06 * rng.standard_normal(200)
    coef[66] = 0.6
    y = X @ coef + rng.standard_normal(400)
    chosen = calibration.calibrated_alpha(
        AlphaSuSiE(n_effects=5), X, y, [1.0, 0.75, 0.5, 0.35, 0.25], 0.95, 10,
        np.random.default_rng(0))
    alpha, found = chosen.alpha, chosen.evaluated
    assert chosen.background is None and chosen.evidence[0] > chosen.evidence[1]
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
    assert background.evidence == chosen.evidence  # the same two reference fits


def test_binomial_rule():
    """One miss in ten sets is what a coverage of 0.95 gives (P = 0.91), six in twenty is
    not (P < 1e-4); no set at all is no miss."""
    assert calibration.covers(9, 10, 0.95)
    assert not calibration.covers(14, 20, 0.95)
    assert calibration.covers(0, 0, 0.95)
    assert calibration.covers(95, 100, 0.95) and not calibration.covers(85, 100, 0.95)
    # the one set, missed: P = 1 - 0.95 = 0.05 exactly, which rejects (the float 0.95 made
    # it 0.05 + 4e-17 and kept an alpha whose replicates' sets covered 0 of 1)
    assert not calibration.covers(0, 1, 0.95) and calibration.covers(1, 1, 0.95)


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
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning from the empty coverages
        assert "no credible set in any replicate" in selector.selection_text()


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
    assert selector.alpha_ == 1.0 and selector.n_fits_ == 12
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
    # bad statistics are named before any replicate is drawn (they were a TypeError and
    # numpy's "diag requires an array of at least two dimensions")
    calibrate = AlphaSelector(AlphaSuSiE(), method="calibrate", random_state=0)
    for name, bad in (("n_samples", None), ("XtX", stats["Xty"]),
                      ("Xty", stats["Xty"][:3]), ("yty", -1.0),
                      # text, numeric-looking too, was numpy's words or read as numbers
                      ("XtX", "abc"), ("Xty", stats["Xty"].astype(str)),
                      ("X_mean", "abc"), ("y_mean", b"1")):
        with pytest.raises(ValueError, match=f"'{name}' parameter of AlphaSelector"):
            calibrate.fit_sufficient(**{**stats, name: bad})
    with pytest.raises(ValueError, match="y_mean"):
        calibrate.fit_sufficient(**{**stats, "y_mean": None})


def test_background_is_dropped_where_the_locus_is_sparse():
    """Calibrating SuSiE-inf on a sparse locus: the background's evidence is below
    log(n)/2, so SuSiE without it is calibrated on replicates of the SuSiE fit; its sets
    cover at alpha = 1 and the selector refits it without the background (the power of
    plain SuSiE), after 2 + 10 fits."""
    rng = np.random.default_rng(2)
    X = correlated(400, 80, rng)
    y = X[:, 10] - 0.8 * X[:, 50] + rng.standard_normal(400)
    selector = AlphaSelector(AlphaSuSiE(n_effects=5, unmappable_effects="inf"),
                             method="calibrate", random_state=0).fit(X, y)
    assert selector.alpha_ == 1.0 and selector.calibration_background_ is None
    assert selector.best_estimator_.unmappable_effects is None
    assert selector.n_fits_ == 12
    assert "without a background" in selector.selection_text()


@pytest.mark.parametrize("params, name", [
    ({"unmappable_effects": "ash", "residual_variance_method": "mle"},
     "residual_variance_method"),
    ({"unmappable_effects": "inf", "residual_variance_method": "nig"},
     "residual_variance_method"),
    ({"unmappable_effects": "ash", "prior_variance_method": "em"}, "prior_variance_method"),
    ({"unmappable_effects": "inf", "refine": True}, "refine"),
])
def test_pairs_the_estimator_refuses_are_refused_on_a_sparse_locus(params, name):
    """On a sparse locus the calibration fits no background, so the estimator's refusal of
    these pairs was never met: rows and sufficient statistics returned alpha_ = 1 silently,
    while a polygenic locus raised. Both refuse them now, before any fit."""
    from alphavb.linear_model import sufficient_statistics

    rng = np.random.default_rng(2)
    X = correlated(200, 40, rng)
    y = X[:, 10] - 0.8 * X[:, 30] + rng.standard_normal(200)
    selector = AlphaSelector(AlphaSuSiE(n_effects=3, **params), method="calibrate",
                             random_state=0)
    with pytest.raises(ValueError, match=f"'{name}' parameter of AlphaSuSiE"):
        selector.fit(X, y)
    with pytest.raises(ValueError, match=f"'{name}' parameter of AlphaSuSiE"):
        selector.fit_sufficient(**sufficient_statistics(X, y))
    assert not hasattr(selector, "alpha_")


def test_background_needs_evidence_beyond_log_n():
    """Two clear effects and a faint background: SuSiE-inf estimates tau2 > 0, but,
    ascended from SuSiE's fit with its variances at their best, it raises the objective by
    less than log(n)/2 (and by more than 0), so the calibration of SuSiE-inf treats the
    locus as sparse: no background, replicates without one. A rule on tau2 > 0, or on any
    gain, would keep the background."""
    rng = np.random.default_rng(1)
    X = correlated(400, 80, rng)
    coef = 0.03 * rng.standard_normal(80)
    coef[10], coef[50] = 1.0, -0.8
    y = X @ coef + rng.standard_normal(400)
    estimator = AlphaSuSiE(n_effects=5, unmappable_effects="inf")
    source = calibration.RowSource(X)
    assert calibration.reference_fit(estimator, source, y).infinitesimal_variance_ > 0
    without = calibration.reference_fit(estimator, source, y, background=None)
    gain, threshold = calibration.background_evidence(estimator, source, y, without)
    assert 0 < gain < threshold == pytest.approx(0.5 * np.log(400))
    chosen = calibration.calibrated_alpha(estimator, X, y, [1.0, 0.5], 0.95, 10,
                                          np.random.default_rng(0))
    assert chosen.background is None and chosen.evidence == (gain, threshold)


def test_background_evidence_is_the_objective_at_its_best_variances():
    """A polygenic locus where the method of moments' (sigma2, tau2) lower SuSiE-inf's
    objective below SuSiE's: the evidence (SuSiE-inf ascended from SuSiE's fit with the
    variances maximising F) is positive and beats log(n)/2; it is the same whatever the
    estimator's residual_variance_method, so the choice of the background is too."""
    rng = np.random.default_rng(3)
    X = correlated(300, 100, rng, rho=0.9)
    coef = 0.06 * rng.standard_normal(100)
    coef[20] += 0.5
    y = X @ coef + rng.standard_normal(300)
    source = calibration.RowSource(X)
    found = {}
    for method in ("mom", "mle"):
        estimator = AlphaSuSiE(n_effects=5, residual_variance_method=method)
        without = calibration.reference_fit(estimator, source, y, background=None)
        found[method] = calibration.background_evidence(estimator, source, y, without)
    moments = calibration.reference_fit(AlphaSuSiE(n_effects=5), source, y)
    assert moments.elbo_ < without.elbo_  # F at the moment estimates: no evidence
    assert found["mom"] == found["mle"]
    assert found["mom"][0] > found["mom"][1]


def test_nig_estimator_is_calibrated_on_its_own_prior():
    """SuSiE with the NIG prior (no background allowed) is calibrated: the reference fits
    are its method-of-moments twin with and without the background; the replicates are
    fitted, and the refit made, with the NIG prior."""
    rng = np.random.default_rng(2)
    X = correlated(60, 30, rng)
    y = 1.5 * X[:, 10] + rng.standard_normal(60)
    selector = AlphaSelector(AlphaSuSiE(n_effects=3, residual_variance_method="nig"),
                             method="calibrate", random_state=0).fit(X, y)
    assert selector.calibration_background_ is None
    assert selector.best_estimator_.residual_variance_method == "nig"
    direct = AlphaSuSiE(n_effects=3, residual_variance_method="nig",
                        alpha=selector.alpha_).fit(X, y)
    np.testing.assert_allclose(selector.inclusion_probabilities_,
                               direct.inclusion_probabilities_)
    plain = AlphaSuSiE(n_effects=3, alpha=selector.alpha_).fit(X, y)
    assert np.abs(plain.inclusion_probabilities_ - direct.inclusion_probabilities_).max() > 1e-3
    assert 10 in selector.best_estimator_.credible_sets_[0]["variables"]


def test_selection_text_of_every_method_and_of_a_calibration_that_falls_short():
    """``selection_text`` of AlphaSuSiE under each selector, and a calibration whose grid
    has no alpha that covers says so (with its warning at the caller's line)."""
    rng = np.random.default_rng(2)
    X = correlated(120, 40, rng)
    y = X[:, 10] - 0.8 * X[:, 30] + rng.standard_normal(120)
    for method in ("cv", "safebayes", "information"):
        selector = AlphaSelector(AlphaSuSiE(n_effects=3), method=method, cv=2,
                                 alphas=[1.0, 0.5]).fit(X, y)
        assert f"method={method!r}" in selector.selection_text()
    rng = np.random.default_rng(3)
    X = correlated(400, 200, rng, rho=0.9)
    coef = 0.06 * rng.standard_normal(200)
    coef[66] = 0.6
    y = X @ coef + rng.standard_normal(400)
    with pytest.warns(UserWarning, match="no alpha of the grid") as caught:
        selector = AlphaSelector(AlphaSuSiE(n_effects=5), method="calibrate", alphas=[1.0],
                                 random_state=0).fit(X, y)
    assert caught[0].filename == __file__
    text = selector.selection_text()
    assert "no alpha of the grid gave credible sets that cover" in text
    assert "drawn from the SuSiE-inf fit" in text


def test_calibration_refuses_a_fixed_sigma2_and_takes_refine():
    """A fixed sigma2 is refused by name (the evidence and the replicates estimate it);
    ``refine=True`` is kept for the fits without a background and dropped for the
    background's, which do not take it."""
    rng = np.random.default_rng(2)
    X = correlated(200, 40, rng)
    y = X[:, 10] - 0.8 * X[:, 30] + rng.standard_normal(200)
    with pytest.raises(ValueError, match="estimate_residual_variance"):
        AlphaSelector(AlphaSuSiE(n_effects=3, estimate_residual_variance=False,
                                 residual_variance=1.0), method="calibrate").fit(X, y)
    selector = AlphaSelector(AlphaSuSiE(n_effects=3, refine=True), method="calibrate",
                             random_state=0).fit(X, y)
    assert selector.alpha_ == 1.0 and selector.best_estimator_.refine


def test_selection_from_summary_statistics_with_in_sample_ld():
    """z-scores, their in-sample correlation and n give the standardized rows' sufficient
    statistics (``summary_sufficient_statistics``), so the calibration from them is the one
    from those statistics: the same alpha, background, evidence and PIPs. Without n the
    conversion is refused by name."""
    from alphavb.linear_model import sufficient_statistics, summary_sufficient_statistics
    from alphavb.reproduce.susie_calibration import z_scores

    rng = np.random.default_rng(3)
    X = correlated(400, 200, rng, rho=0.9)
    coef = 0.06 * rng.standard_normal(200)
    coef[66] = 0.6
    y = X @ coef + rng.standard_normal(400)
    Z = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    target = (y - y.mean()) / y.std(ddof=1)
    R = np.corrcoef(X, rowvar=False)
    z = z_scores(X, y)
    converted = summary_sufficient_statistics(z, R, 400)
    rows = sufficient_statistics(Z, target)
    for name in ("XtX", "Xty", "yty"):
        np.testing.assert_allclose(converted[name], rows[name], rtol=1e-9, atol=1e-9)
    fits = [AlphaSelector(AlphaSuSiE(n_effects=5, unmappable_effects="inf"),
                          method="calibrate", random_state=0).fit_sufficient(**stats)
            for stats in (converted, {k: rows[k] for k in converted})]
    assert fits[0].alpha_ == fits[1].alpha_
    assert fits[0].calibration_background_ == fits[1].calibration_background_ == "inf"
    np.testing.assert_allclose(fits[0].calibration_evidence_, fits[1].calibration_evidence_,
                               rtol=1e-6)
    np.testing.assert_allclose(fits[0].inclusion_probabilities_,
                               fits[1].inclusion_probabilities_, atol=1e-6)
    with pytest.raises(ValueError, match="n_samples"):
        summary_sufficient_statistics(z, R, None)
