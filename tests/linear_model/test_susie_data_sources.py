"""AlphaSuSiE's data sources and the defects a hostile test found: sufficient statistics
(the fit of the rows they summarise), z-scores with names, effects on y's scale, fits in
any units of y and X, warm starts on new data, and bad input named by its parameter."""

import warnings

import numpy as np
import pytest

from alphavb import AlphaSuSiE
from alphavb.linear_model import sufficient_statistics
from tests.conftest import assert_monotone


def correlated(n=150, p=30, seed=0, effects=((3, 0.6), (17, -0.5))):
    """An AR(1) design (rho = 0.8) in awkward units, y with two effects plus noise."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, p))
    X[:, 0] = rng.normal(size=n)
    for j in range(1, p):
        X[:, j] = 0.8 * X[:, j - 1] + 0.6 * rng.normal(size=n)
    X = 3.0 * X + 2.0
    y = 10.0 + sum(b * X[:, j] for j, b in effects) + rng.normal(size=n)
    return X, y


def sets_of(model):
    return [found["variables"] for found in model.credible_sets_]


@pytest.mark.parametrize("alpha", [1.0, 0.5])
@pytest.mark.parametrize("standardize", [True, False])
def test_sufficient_statistics_give_the_fit_of_the_rows(alpha, standardize):
    """fit_sufficient on (X'X, X'y, y'y, n, means) is fit on the rows: PIPs, objective
    trace, sigma2, coefficients, intercept and predictions; the objective never falls."""
    X, y = correlated()
    rows = AlphaSuSiE(n_effects=5, alpha=alpha, standardize=standardize).fit(X, y)
    stats = sufficient_statistics(X, y)
    summary = AlphaSuSiE(n_effects=5, alpha=alpha, standardize=standardize).fit_sufficient(
        **stats)
    assert np.max(np.abs(rows.inclusion_probabilities_
                         - summary.inclusion_probabilities_)) < 1e-8
    assert np.allclose(rows.elbo_history_, summary.elbo_history_, rtol=1e-10)
    assert summary.noise_variance_ == pytest.approx(rows.noise_variance_, rel=1e-9)
    assert np.allclose(summary.coef_, rows.coef_, rtol=1e-7, atol=1e-12)
    assert summary.intercept_ == pytest.approx(rows.intercept_, rel=1e-9)
    assert np.allclose(summary.predict(X[:5]), rows.predict(X[:5]), rtol=1e-9)
    assert sets_of(summary) == sets_of(rows)
    assert_monotone(summary.elbo_history_, rel=1e-9)
    # without the means there is no intercept: no prediction
    bare = AlphaSuSiE(n_effects=5).fit_sufficient(stats["XtX"], stats["Xty"], stats["yty"],
                                                  stats["n_samples"])
    assert np.isnan(bare.intercept_)
    with pytest.raises(ValueError, match="X_mean and y_mean"):
        bare.predict(X[:2])


def test_sufficient_statistics_are_the_centred_cross_products():
    X, y = correlated(n=40, p=6, effects=((1, 0.6),))
    stats = sufficient_statistics(X, y)
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    assert np.allclose(stats["XtX"], Xc.T @ Xc, rtol=1e-12)
    assert np.allclose(stats["Xty"], Xc.T @ yc, rtol=1e-12)
    assert stats["yty"] == pytest.approx(yc @ yc, rel=1e-12)
    assert stats["n_samples"] == 40 and np.allclose(stats["X_mean"], X.mean(axis=0))


@pytest.mark.parametrize("standardize", [True, False])
@pytest.mark.parametrize("factor", [1e-6, 1e-3, 1e3, 1e6])
def test_the_fit_is_the_same_in_any_units(factor, standardize):
    """y and X times 1e-6 ... 1e6: the same PIPs, credible sets and sweeps (susieR's
    absolute search bounds and prior tolerance lost every set at y x 1e-6 and moved PIPs
    by 0.7 at y x 1e5); sigma2 scales with y^2."""
    X, y = correlated(seed=1)
    base = AlphaSuSiE(n_effects=5, standardize=standardize).fit(X, y)
    for scaled_X, scaled_y, unit in ((X, factor * y, factor**2), (factor * X, y, 1.0),
                                     (factor * X, factor * y, factor**2)):
        model = AlphaSuSiE(n_effects=5, standardize=standardize).fit(scaled_X, scaled_y)
        assert np.max(np.abs(model.inclusion_probabilities_
                             - base.inclusion_probabilities_)) < 1e-6
        assert sets_of(model) == sets_of(base) and base.credible_sets_
        assert model.n_iter_ == base.n_iter_
        assert model.noise_variance_ == pytest.approx(base.noise_variance_ * unit, rel=1e-6)


def test_a_warm_start_on_a_new_y_is_judged_afresh():
    """warm_start=True refitted on another y (100 times larger, other effects) runs to
    convergence from the fitted q and ends where a fresh fit does (it stopped after one
    sweep, with sigma2 from the old y and spurious sets); on the same data it continues."""
    X, y = correlated(seed=2)
    _, other = correlated(seed=3, effects=((8, 0.7), (25, 0.5)))
    other = 100.0 * other
    fresh = AlphaSuSiE(n_effects=5).fit(X, other)
    warm = AlphaSuSiE(n_effects=5, warm_start=True).fit(X, y)
    warm.fit(X, other)
    assert warm.n_iter_ > 1
    assert warm.noise_variance_ == pytest.approx(fresh.noise_variance_, rel=1e-3)
    assert sets_of(warm) == sets_of(fresh)
    assert np.max(np.abs(warm.inclusion_probabilities_
                         - fresh.inclusion_probabilities_)) < 1e-3
    again = warm.fit(X, other)  # the same data: continues, converged at once
    assert again.n_iter_ == 1 and again.converged_


def test_a_summary_fit_does_not_warm_start_an_individual_fit():
    X, y = correlated(seed=4)
    z = sufficient_z(X, y)
    model = AlphaSuSiE(n_effects=5, warm_start=True).fit_summary(
        z, np.corrcoef(X, rowvar=False), len(y))
    model.fit(X, y)
    fresh = AlphaSuSiE(n_effects=5).fit(X, y)
    assert model.n_iter_ == fresh.n_iter_
    assert np.allclose(model.inclusion_probabilities_, fresh.inclusion_probabilities_)


def sufficient_z(X, y):
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    r = Xc.T @ yc / np.sqrt(np.sum(Xc**2, axis=0) * (yc @ yc))
    return r * np.sqrt((len(y) - 2) / (1 - r**2))


def test_summary_fit_names_and_the_standardized_fit():
    """A named z and R = X.corr() name the credible sets as the individual fit does; with
    sigma2 estimated it is the individual fit of the standardized y (and of the raw y, but
    for the objective's constant: F falls by alpha n log sd(y))."""
    pd = pytest.importorskip("pandas")
    X, y = correlated(seed=5)
    frame = pd.DataFrame(X, columns=[f"rs{1000 + j}" for j in range(X.shape[1])])
    z = pd.Series(sufficient_z(X, y), index=frame.columns)
    summary = AlphaSuSiE(n_effects=5, alpha=0.5, estimate_residual_variance=True
                         ).fit_summary(z, frame.corr(), len(y))
    rows = AlphaSuSiE(n_effects=5, alpha=0.5).fit(frame, y)
    assert [found["names"] for found in summary.credible_sets_] == \
        [found["names"] for found in rows.credible_sets_]
    assert list(summary.feature_names_in_) == list(frame.columns)
    assert np.max(np.abs(summary.inclusion_probabilities_
                         - rows.inclusion_probabilities_)) < 1e-8
    shift = len(y) * np.log(np.std(y, ddof=1))  # alpha n log sd(y), over alpha
    # 1e-9: the two paths round apart by up to 1.8e-10 (relative) on an AMD EPYC with
    # OpenBLAS 0.3.31 (2026-12-07); the PIPs above agree to 1e-8
    assert np.allclose(rows.elbo_history_, summary.elbo_history_ - shift, rtol=1e-9)
    with pytest.raises(ValueError, match="same order"):
        AlphaSuSiE(n_effects=5).fit_summary(z, frame.corr().iloc[::-1, ::-1], len(y))


def test_effects_on_y_scale_from_bhat_and_shat():
    """bhat, shat and var_y (susie_rss's original scale): the individual fit's PIPs, and
    effects per unit of the original x (sigma2 fixed at Var(y) in both)."""
    X, y = correlated(seed=6)
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    bhat = Xc.T @ yc / np.sum(Xc**2, axis=0)
    residual = np.sum((yc[:, None] - Xc * bhat) ** 2, axis=0) / (len(y) - 2)
    shat = np.sqrt(residual / np.sum(Xc**2, axis=0))
    summary = AlphaSuSiE(n_effects=5).fit_summary(bhat=bhat, shat=shat,
                                                  R=np.corrcoef(X, rowvar=False),
                                                  n_samples=len(y), var_y=np.var(y, ddof=1))
    rows = AlphaSuSiE(n_effects=5, estimate_residual_variance=False).fit(X, y)
    assert np.max(np.abs(summary.inclusion_probabilities_
                         - rows.inclusion_probabilities_)) < 1e-8
    assert np.allclose(summary.coef_, rows.coef_, rtol=1e-6, atol=1e-10)
    by_z = AlphaSuSiE(n_effects=5).fit_summary(bhat / shat, np.corrcoef(X, rowvar=False),
                                               len(y))
    assert np.allclose(by_z.inclusion_probabilities_, summary.inclusion_probabilities_)
    # without var_y, bhat and shat are z-scores: the standardized scale, as susieR's
    standardized = AlphaSuSiE(n_effects=5).fit_summary(
        bhat=bhat, shat=shat, R=np.corrcoef(X, rowvar=False), n_samples=len(y))
    assert np.array_equal(standardized.coef_, by_z.coef_)


def test_null_weight_and_kept_constant_columns():
    """null_weight: the null variable takes the mass of an absent signal (y pure noise:
    every effect rests mostly on it, no credible set); a kept constant column has Bayes
    factor 1, so its PIP is that of a variable without signal."""
    X, _ = correlated(seed=7)
    noise = np.random.default_rng(8).normal(size=X.shape[0])
    model = AlphaSuSiE(n_effects=3, null_weight=0.5, estimate_prior_variance=False
                       ).fit(X, noise)
    assert np.all(model.null_effect_probabilities_ > 0.4)
    assert model.credible_sets_ == []
    assert np.allclose(model.single_effect_probabilities_.sum(axis=1)
                       + model.null_effect_probabilities_, 1.0)
    X2, y2 = correlated(seed=9)
    constant = X2.copy()
    constant[:, 4] = 7.0
    kept = AlphaSuSiE(n_effects=3).fit(constant, y2)
    zeros = X2.copy()
    zeros[:, 4] = 0.0  # no information either way: the same fit
    assert np.allclose(kept.inclusion_probabilities_,
                       AlphaSuSiE(n_effects=3).fit(zeros, y2).inclusion_probabilities_)
    assert np.allclose(kept.effect_means_[:, 4], 0.0)
    assert kept.inclusion_probabilities_[4] < 0.5


def test_init_and_missing_values():
    X, y = correlated(seed=10)
    first = AlphaSuSiE(n_effects=3).fit(X, y)
    started = AlphaSuSiE(n_effects=5, init=first).fit(X, y)
    assert started.n_effects_ == 5
    fresh = AlphaSuSiE(n_effects=5).fit(X, y)
    assert sets_of(started) == sets_of(fresh)
    grown = AlphaSuSiE(n_effects=2, init=fresh).fit(X, y)
    assert grown.n_effects_ == 5  # susieR: L grows to init's
    with pytest.raises(ValueError, match=r"'init'.*same 20 variables"):
        AlphaSuSiE(init=first).fit(X[:, :20], y)
    missing = y.copy()
    missing[[3, 40]] = np.nan
    with pytest.raises(ValueError, match="missing='drop'"):
        AlphaSuSiE().fit(X, missing)
    dropped = AlphaSuSiE(n_effects=5, missing="drop").fit(X, missing)
    known = np.isfinite(missing)
    assert np.allclose(dropped.inclusion_probabilities_,
                       AlphaSuSiE(n_effects=5).fit(X[known], y[known]).inclusion_probabilities_)
    # a list with None: the None is a missing value, dropped as the NaN is
    as_list = [None if np.isnan(value) else value for value in missing]
    np.testing.assert_array_equal(
        AlphaSuSiE(n_effects=5, missing="drop").fit(X, as_list).inclusion_probabilities_,
        dropped.inclusion_probabilities_)
    with pytest.raises(ValueError, match=r"missing='drop'"):
        AlphaSuSiE().fit(X, as_list)


def refine_design():
    """A design where IBSS stops in a local optimum (susieR's refinement test data,
    ``data.ld`` of tests/data/susier_options.json): AR(1) columns with rho = 0.95, effects of
    +-0.4 on variables 0, 24 and 37."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "data" / "susier_options.json"
    with path.open() as handle:
        data = json.load(handle)["data"]["ld"]
    return np.array(data["X"]), np.array(data["y"]), [0, 24, 37]


def test_refine_leaves_a_local_optimum():
    """The plain fit finds one credible set; refinement (a fit without that set's variables,
    then with them from there) finds the set holding causal variable 0 as well, at an
    objective higher by 0.43; a refined fit is a fixed point of another refinement."""
    X, y, _ = refine_design()
    plain = AlphaSuSiE(n_effects=5).fit(X, y)
    refined = AlphaSuSiE(n_effects=5, refine=True).fit(X, y)
    assert refined.elbo_ > plain.elbo_ + 0.4
    assert refined.converged_
    assert not any(0 in found["variables"] for found in plain.credible_sets_)
    assert any(0 in found["variables"] for found in refined.credible_sets_)
    assert_monotone(refined.elbo_history_, rel=1e-9)
    again = AlphaSuSiE(n_effects=5, refine=True, init=refined).fit(X, y)
    assert again.elbo_ == pytest.approx(refined.elbo_, abs=1e-3)


def test_bad_input_is_named_and_the_caller_arrays_are_kept():
    X, y = correlated(n=60, p=8, seed=12, effects=((1, 0.6), (5, -0.4)))
    stats = sufficient_statistics(X, y)
    kept = {name: np.copy(value) for name, value in stats.items()}
    model = AlphaSuSiE(n_effects=3)
    skewed = stats["XtX"].copy()
    skewed[0, 1] += 1.0
    with pytest.raises(ValueError, match=r"'XtX'.*symmetric"):
        model.fit_sufficient(skewed, stats["Xty"], stats["yty"], stats["n_samples"])
    indefinite = stats["XtX"].copy()
    root = np.sqrt(np.diag(indefinite))
    indefinite[0, 1] = indefinite[1, 0] = -0.99 * root[0] * root[1] * np.sign(
        indefinite[0, 1])
    with pytest.raises(ValueError, match="regularization=") as error:
        model.fit_sufficient(indefinite, stats["Xty"], stats["yty"], stats["n_samples"])
    assert "smallest eigenvalue of -" in str(error.value)
    suggested = float(str(error.value).split("regularization=")[1].split(" ")[0])
    fitted = model.fit_sufficient(indefinite, stats["Xty"], stats["yty"],
                                  stats["n_samples"], regularization=min(0.99, 2 * suggested))
    assert np.all(np.isfinite(fitted.inclusion_probabilities_))
    with pytest.raises(ValueError, match=r"'Xty'.*consistent"):
        model.fit_sufficient(stats["XtX"], stats["Xty"], 1e-3 * stats["yty"],
                             stats["n_samples"])
    with pytest.raises(ValueError, match="'Xty'"):
        model.fit_sufficient(stats["XtX"], stats["Xty"][:5], stats["yty"], 60)
    with pytest.raises(ValueError, match="'n_samples'"):
        model.fit_sufficient(stats["XtX"], stats["Xty"], stats["yty"], 1)
    R = np.corrcoef(X, rowvar=False)
    z = sufficient_z(X, y)
    with pytest.raises(ValueError, match=r"'shat'.*one standard error"):
        model.fit_summary(bhat=z, shat=np.ones(5), R=R, n_samples=60)
    with pytest.raises(ValueError, match=r"'shat'.*> 0"):
        model.fit_summary(bhat=z, shat=np.r_[0.0, np.ones(7)], R=R, n_samples=60)
    with pytest.raises(ValueError, match="'var_y'"):
        model.fit_summary(z, R, 60, var_y=2.0)
    with pytest.raises(ValueError, match="'null_weight'"):
        AlphaSuSiE(null_weight=1.0).fit(X, y)
    with pytest.raises(ValueError, match=r"'y'.*varies"):
        AlphaSuSiE().fit(X, np.full(60, 3.0))
    with pytest.raises(ValueError, match="'reference_X'"):  # not R, which was not passed
        model.fit_summary(z, reference_X=X[:, :7], n_samples=60)
    half = X[:30].copy()
    half[:, 2] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # np.corrcoef's 0 / 0
        constant_R = np.corrcoef(half, rowvar=False)
    with pytest.raises(ValueError, match="constant in the LD sample"):
        model.fit_summary(z, constant_R, 60)
    with pytest.raises(ValueError, match=r"'reference_X'.*vary"):
        model.fit_summary(z, reference_X=half, n_samples=60)
    for name, value in stats.items():
        assert np.array_equal(value, kept[name])


@pytest.mark.parametrize("options", [
    {"prior_variance_method": "em"}, {"prior_variance_method": "simple"},
    {"null_weight": 0.3}, {"check_null_threshold": 0.5}, {"refine": True},
    {"fit_intercept": False}, {"standardize": False}, {"constant_columns": "exclude"},
], ids=lambda options: "-".join(f"{k}={v}" for k, v in options.items()))
def test_every_option_tempers_as_a_residual_variance(options):
    """At any alpha: with sigma2 known, the fit at alpha is SuSiE's (alpha = 1) with
    residual variance sigma2 / alpha, option by option (the same q and credible sets), and
    its objective never falls."""
    X, y = correlated(seed=13)
    X[:, 6] = 4.0  # a constant column, for constant_columns
    tempered = AlphaSuSiE(n_effects=4, alpha=0.25, residual_variance=1.2,
                          estimate_residual_variance=False, **options).fit(X, y)
    rescaled = AlphaSuSiE(n_effects=4, residual_variance=1.2 / 0.25,
                          estimate_residual_variance=False, **options).fit(X, y)
    assert np.allclose(tempered.single_effect_probabilities_,
                       rescaled.single_effect_probabilities_, atol=1e-8)
    assert np.allclose(tempered.prior_variances_, rescaled.prior_variances_, rtol=1e-6,
                       atol=1e-12)
    assert sets_of(tempered) == sets_of(rescaled)
    assert_monotone(tempered.elbo_history_, rel=1e-9)
    estimated = AlphaSuSiE(n_effects=4, alpha=0.5, **options).fit(X, y)
    assert_monotone(estimated.elbo_history_, rel=1e-9)


def test_a_column_in_other_units_is_not_constant():
    """One column 1e13 times (or 1e-12 times) the others: standardize removes its units, so
    the fit is the fit of the original columns (every other column had been judged
    constant, relative to the largest, and the sets lost), from rows and from sufficient
    statistics with their means."""
    X, y = correlated(seed=14, effects=((5, 0.6), (25, -0.5)))
    base = AlphaSuSiE(n_effects=5).fit(X, y)
    assert base.credible_sets_
    for column, factor in ((0, 1e13), (5, 1e-12)):
        scaled = X.copy()
        scaled[:, column] *= factor
        for model in (AlphaSuSiE(n_effects=5).fit(scaled, y),
                      AlphaSuSiE(n_effects=5).fit_sufficient(**sufficient_statistics(scaled,
                                                                                     y))):
            assert np.max(np.abs(model.inclusion_probabilities_
                                 - base.inclusion_probabilities_)) < 1e-6
            assert sets_of(model) == sets_of(base)


def test_clone_keeps_the_fitted_start():
    """clone (cross-validation, grid searches) passes init on as the fitted model it is."""
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score

    X, y = correlated(seed=16)
    start = AlphaSuSiE(n_effects=3).fit(X, y)
    model = AlphaSuSiE(n_effects=3, init=start)
    copy = clone(model)
    assert copy.init is start and not hasattr(copy, "coef_")
    assert np.allclose(copy.fit(X, y).coef_, model.fit(X, y).coef_)
    assert np.all(np.isfinite(cross_val_score(model, X, y, cv=3)))


def test_more_bad_input_is_named():
    pd = pytest.importorskip("pandas")
    X, y = correlated(n=80, p=10, seed=17, effects=((2, 0.6),))
    R = np.corrcoef(X, rowvar=False)
    z = sufficient_z(X, y)
    labels = [f"v{j}" for j in range(10)]
    model = AlphaSuSiE(n_effects=3)
    with pytest.raises(ValueError, match=r"'R'.*same order"):  # R has no names: 0, 1, ...
        model.fit_summary(pd.Series(z, index=labels), pd.DataFrame(R), 80)
    with pytest.raises(ValueError, match=r"'R'.*same order"):  # its index is not its columns
        model.fit_summary(pd.Series(z, index=labels),
                          pd.DataFrame(R, index=labels[::-1], columns=labels), 80)
    with pytest.raises(ValueError, match=r"'z'.*distinct"):
        model.fit_summary(pd.Series(z, index=["a"] * 10), R, 80)
    with pytest.raises(ValueError, match=r"'y'.*variance in"):
        model.fit(X, y * 1e-110)
    missing = y.copy()
    missing[4] = np.nan
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        AlphaSuSiE(missing="drop").fit(X[:50], missing)
    stats = sufficient_statistics(X, y)
    with pytest.raises(ValueError, match=r"'y_mean'.*given with X_mean"):
        model.fit_sufficient(stats["XtX"], stats["Xty"], stats["yty"], 80,
                             X_mean=stats["X_mean"])
    with pytest.raises(ValueError, match="'block_rows'"):
        sufficient_statistics(X, y, block_rows=0)
    bare = model.fit_sufficient(stats["XtX"], stats["Xty"], np.float64(stats["yty"]),
                                np.array(80))  # numbers as numpy scalars and 0-d arrays
    assert "intercept" not in bare.summary_frame().index
    assert np.all(np.isnan(bare.sample_posterior(3, random_state=0)["intercept"]))
