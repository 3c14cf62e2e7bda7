"""AlphaSuSiE, the estimator: susieR's numbers at alpha = 1 (individual and summary data,
stored from a run: tests/data/susier_n3finemapping.json), the summary-data fit equal to the
individual fit, one effect on one variable equal to the spike-and-slab posterior, the
objective monotone, weights as repeated rows, the exact marginals against draws, the
LD-mismatch diagnostic against kriging_rss, AlphaSelector on it, and bad input."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from alphavb import AlphaSpikeSlabRegression, AlphaSuSiE
from alphavb.linear_model import ld_mismatch_diagnostic
from tests.conftest import assert_monotone
from tests.linear_model.susie_helpers import z_scores

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "susier_n3finemapping.json"


def load_reference():
    with REFERENCE.open() as handle:
        return json.load(handle)


def sets_of(model):
    return [found["variables"] for found in model.credible_sets_]


@pytest.mark.parametrize("response", [0, 1])
def test_alpha_one_is_susier(n3, response):
    """L = 10 and susieR 0.12.35's defaults (tol = 1e-3): PIPs within 1e-6 of its, the same
    prior and residual variances, objective trace and credible sets (with purity)."""
    reference = load_reference()[f"y{response + 1}"]
    model = AlphaSuSiE(tol=1e-3).fit(n3.data, n3.target[:, response])
    assert np.max(np.abs(model.inclusion_probabilities_ - reference["pip"])) < 1e-6
    assert model.n_iter_ == reference["niter"]
    assert np.allclose(model.elbo_history_, reference["elbo_trace"], atol=1e-3)
    assert np.isclose(model.noise_variance_, reference["sigma2"], rtol=1e-6)
    assert np.allclose(model.prior_variances_, reference["prior_variance"], rtol=1e-5,
                       atol=1e-9)
    assert sets_of(model) == reference["cs"]
    assert np.allclose([found["coverage"] for found in model.credible_sets_],
                       reference["coverage"], rtol=1e-6)
    assert np.allclose([[found["min_abs_corr"], found["mean_abs_corr"],
                         found["median_abs_corr"]] for found in model.credible_sets_],
                       reference["purity"], rtol=1e-6)
    assert_monotone(model.elbo_history_, rel=1e-9)


@pytest.mark.parametrize("response", [0, 1])
def test_summary_fit_is_susie_rss(n3, response):
    """``fit_summary(z, R, n)`` at its defaults (sigma2 = 1 kept) is susieR's
    ``susie_rss(z, R, n = n)``: PIPs, V, sweeps, objective trace and credible sets."""
    reference = load_reference()[f"y{response + 1}_rss"]
    R = np.corrcoef(n3.data, rowvar=False)
    model = AlphaSuSiE(tol=1e-3).fit_summary(reference["z"], R, n3.data.shape[0])
    assert np.max(np.abs(model.inclusion_probabilities_ - reference["pip"])) < 1e-6
    assert np.allclose(model.prior_variances_, reference["prior_variance"], rtol=1e-5,
                       atol=1e-9)
    assert model.n_iter_ == reference["niter"]
    assert model.noise_variance_ == reference["sigma2"] == 1.0
    # the traces differ by 1.5e-4 at every sweep (a constant of susieR's objective)
    assert np.allclose(model.elbo_history_, reference["elbo_trace"], atol=1e-3)
    assert sets_of(model) == [np.atleast_1d(found).tolist() for found in reference["cs"]]
    assert_monotone(model.elbo_history_, rel=1e-9)


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_summary_fit_equals_individual_fit(n3, alpha):
    """With the in-sample R and sigma2 estimated, the summary-statistics fit is the fit
    of the standardized data: PIPs, objective trace, sigma2 and credible sets."""
    X, y = n3.data, n3.target[:, 0]
    y = (y - y.mean()) / y.std(ddof=1)
    individual = AlphaSuSiE(alpha=alpha).fit(X, y)
    summary = AlphaSuSiE(alpha=alpha, estimate_residual_variance=True).fit_summary(
        z_scores(X, y), np.corrcoef(X, rowvar=False), X.shape[0])
    assert np.max(np.abs(individual.inclusion_probabilities_
                         - summary.inclusion_probabilities_)) < 1e-8
    assert np.allclose(individual.elbo_history_, summary.elbo_history_, rtol=0, atol=1e-6)
    assert np.isclose(individual.noise_variance_, summary.noise_variance_, rtol=1e-9)
    assert sets_of(individual) == sets_of(summary)
    assert_monotone(summary.elbo_history_, rel=1e-9)
    with pytest.raises(ValueError, match="summary statistics"):
        summary.predict(X)
    assert "intercept" not in summary.summary_frame().index  # z-scores carry none
    assert np.all(summary.sample_posterior(3, random_state=0)["intercept"] == 0.0)


@pytest.mark.parametrize("response", [0, 1])
def test_ld_mismatch_diagnostic_is_kriging_rss(n3, response):
    """susieR's ``kriging_rss`` on the z of y1 (y2) with variable 652's sign flipped: the
    same conditional means and standardized differences, log-likelihood ratios within 1e-5
    of mixsqp's (where they are above -20: below, a ratio is set by components of weight
    1e-15, the floor both add) and the same flagged variables."""
    reference = load_reference()[f"y{response + 1}_rss"]
    z = np.array(reference["z"])
    z[reference["flipped"]] *= -1.0
    R = np.corrcoef(n3.data, rowvar=False)
    found = ld_mismatch_diagnostic(z, R, n3.data.shape[0])
    assert np.allclose(found.conditional_mean, reference["kriging_condmean"], atol=1e-6)
    assert np.allclose(found.standardized_difference, reference["kriging_z_std_diff"],
                       atol=1e-5)
    log_lr = np.array(reference["kriging_logLR"])
    informative = log_lr > -20.0
    assert informative.mean() > 0.9
    assert np.max(np.abs(found.log_lr - log_lr)[informative]) < 1e-5
    expected = np.flatnonzero((log_lr > 2) & (np.abs(found.z) > 2))
    assert found.flagged().tolist() == expected.tolist()
    if response == 0:
        assert reference["flipped"] in found.flagged()


def test_ld_mismatch_diagnostic_refuses_what_fit_summary_refuses():
    """A named z beside an R of the same variables in another order is refused by name, as
    ``fit_summary`` refuses it (it was read silently against the wrong variables), and so is
    an ``s`` that is not a number in [0, 1) (a string was a TypeError)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    X = np.cumsum(rng.standard_normal((200, 40)), axis=1)
    y = 0.3 * X[:, 10] + rng.standard_normal(200)
    r = np.corrcoef(np.column_stack([X, y]), rowvar=False)[-1, :-1]
    names = [f"rs{j}" for j in range(40)]
    z = pd.Series(r * np.sqrt(198.0 / (1.0 - r**2)), index=names)
    R = pd.DataFrame(np.corrcoef(X, rowvar=False), index=names, columns=names)
    in_order = ld_mismatch_diagnostic(z, R, 200)
    np.testing.assert_array_equal(in_order.log_lr,
                                  ld_mismatch_diagnostic(z.to_numpy(), R.to_numpy(), 200).log_lr)
    with pytest.raises(ValueError, match=r"'R' parameter of ld_mismatch_diagnostic.*order"):
        ld_mismatch_diagnostic(z, R.iloc[::-1, ::-1], 200)
    for bad in ("0.1", 1.0, -0.2, [0.1]):
        with pytest.raises(ValueError, match="'s' parameter"):
            ld_mismatch_diagnostic(z, R, 200, s=bad)
    assert ld_mismatch_diagnostic(z, R, 200, s=np.float32(0.25)).s == 0.25


@pytest.mark.parametrize(("response", "alpha"), [(1, 1.0), (0, 0.5)])
def test_em_with_a_null_variable_never_lowers_the_objective(n3, response, alpha):
    """EM's V is E_q[beta^2], where the null variable's beta (and a constant column's) is
    its prior N(0, V): susieR 0.16.5 sets those moments to 0, which lowered the objective
    here (by 0.0055 on y2, 0.043 on y1 at alpha = 0.5); with the prior's share every sweep
    raises it."""
    model = AlphaSuSiE(prior_variance_method="em", null_weight=0.5, alpha=alpha).fit(
        n3.data, n3.target[:, response])
    assert_monotone(model.elbo_history_, rel=1e-9)


def test_one_effect_on_one_variable_is_the_spike_slab_posterior():
    """L = 1 on one variable, V and sigma2 known: SuSiE's single effect is the conjugate
    normal posterior, which the spike-and-slab model gives with pi -> 1 and the slab
    N(0, V) (nu sigma2 = V); at alpha = 0.4 both temper the likelihood alike."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 1))
    y = 0.7 * x[:, 0] + rng.normal(size=60)
    sigma2, V, alpha = 1.2, 0.5, 0.4
    susie = AlphaSuSiE(n_effects=1, alpha=alpha, residual_variance=sigma2,
                       scaled_prior_variance=V / np.var(y, ddof=1),
                       estimate_prior_variance=False, estimate_residual_variance=False,
                       standardize=False).fit(x, y)
    spike = AlphaSpikeSlabRegression(alpha=alpha, noise_variance=sigma2,
                                     slab_variance=V / sigma2, prior_inclusion=1 - 1e-12,
                                     standardize=False, n_init=1).fit(x, y)
    assert susie.inclusion_probabilities_[0] == pytest.approx(1.0)
    assert np.allclose(susie.effect_means_[0], spike.slab_means_, rtol=1e-6)
    assert np.allclose(susie.effect_variances_[0], spike.slab_variances_, rtol=1e-6)
    assert np.allclose(susie.coef_, spike.coef_, rtol=1e-6)
    assert susie.intercept_ == pytest.approx(spike.intercept_, rel=1e-6)


def simulated(n=120, p=40, seed=0):
    """Correlated columns (an AR(1) design, rho = 0.9) and effects on 3 and 20 (the last
    column when there are fewer)."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, p))
    X[:, 0] = rng.normal(size=n)
    for j in range(1, p):
        X[:, j] = 0.9 * X[:, j - 1] + np.sqrt(1 - 0.81) * rng.normal(size=n)
    y = 1.0 * X[:, 3] - 0.8 * X[:, min(20, p - 1)] + rng.normal(size=n)
    return X, y


def test_weights_repeat_rows_and_covariates_keep_the_objective_monotone():
    """At alpha = 0.5: integer sample weights give the fit of the repeated rows; with
    covariates the objective never falls and their coefficient is recovered."""
    X, y = simulated()
    rng = np.random.default_rng(2)
    weight = rng.integers(1, 4, size=len(y))
    rows = np.repeat(np.arange(len(y)), weight)
    weighted = AlphaSuSiE(n_effects=5, alpha=0.5).fit(X, y, sample_weight=weight)
    repeated = AlphaSuSiE(n_effects=5, alpha=0.5).fit(X[rows], y[rows])
    assert np.allclose(weighted.inclusion_probabilities_, repeated.inclusion_probabilities_,
                       atol=1e-8)
    assert np.allclose(weighted.elbo_history_, repeated.elbo_history_, rtol=1e-9)
    assert_monotone(weighted.elbo_history_, rel=1e-9)
    covariate = rng.normal(size=(len(y), 1))
    model = AlphaSuSiE(n_effects=5, alpha=0.5).fit(X, y + 2.0 * covariate[:, 0],
                                                    covariates=covariate)
    assert_monotone(model.elbo_history_, rel=1e-9)
    assert model.covariate_coef_[0] == pytest.approx(2.0, abs=0.3)
    assert sorted(v for found in model.credible_sets_ for v in found["variables"]
                  if v in (3, 20)) == [3, 20]
    mean, sd = model.predict(X[:5], return_std=True, covariates=covariate[:5])
    assert np.all(np.isfinite(mean)) and np.all(sd > 0)


def test_marginals_match_draws():
    """The exact mixture marginals of b_j (intervals, lfsr, sd) against 100,000 draws of
    ``sample_posterior``: within Monte Carlo error."""
    X, y = simulated(n=60, p=15, seed=3)
    model = AlphaSuSiE(n_effects=3, alpha=0.5).fit(X, y)
    draws = model.sample_posterior(100_000, random_state=0)["coef"]
    interval = model.credible_intervals(0.9)
    frame = model.summary_frame(level=0.9)
    assert np.allclose(draws.mean(axis=0), model.coef_, atol=0.01)
    assert np.allclose(draws.std(axis=0), frame["sd"].to_numpy()[:15], atol=0.01)
    below = np.mean(draws <= interval[:, 0][None, :] + 1e-12, axis=0)
    above = np.mean(draws >= interval[:, 1][None, :] - 1e-12, axis=0)
    # each tail holds at least 5% (more where the bound sits on the atom at 0)
    assert np.all(below >= 0.05 - 0.005) and np.all(above >= 0.05 - 0.005)
    wrong_sign = np.minimum(np.mean(draws >= 0, axis=0), np.mean(draws <= 0, axis=0))
    assert np.allclose(model.lfsr_, wrong_sign, atol=0.005)


def test_alpha_widens_credible_sets_at_the_same_data():
    """Tempering: alpha < 1 is the fit at residual variance sigma2 / alpha, so a credible
    set's variables can only gain company: every set at alpha = 0.25 holds its alpha = 1
    counterpart's lead variable, and the PIPs of the nulls do not rise above 0.5."""
    X, y = simulated(seed=4)
    full = AlphaSuSiE(n_effects=5).fit(X, y)
    tempered = AlphaSuSiE(n_effects=5, alpha=0.25).fit(X, y)
    assert_monotone(tempered.elbo_history_, rel=1e-9)
    assert np.mean([len(s) for s in sets_of(tempered)]) >= np.mean(
        [len(s) for s in sets_of(full)])
    nulls = np.setdiff1d(np.arange(X.shape[1]), np.arange(0, 25))
    assert np.all(tempered.inclusion_probabilities_[nulls] < 0.5)


def test_feature_names_warm_start_and_inference_data():
    pd = pytest.importorskip("pandas")
    X, y = simulated(seed=5)
    frame = pd.DataFrame(X, columns=[f"snp{j}" for j in range(X.shape[1])])
    model = AlphaSuSiE(n_effects=4).fit(frame, y)
    assert any("snp3" in found["names"] for found in model.credible_sets_)
    model.set_params(warm_start=True, max_iter=1).fit(frame, y)
    assert model.n_iter_ == 1 and model.converged_
    pytest.importorskip("arviz")
    from alphavb import to_inference_data

    fitted = AlphaSuSiE(n_effects=4).fit(X, y)
    idata = to_inference_data(fitted, n_draws=50, n_chains=2, X=X, y=y, random_state=0)
    assert idata.posterior["coef"].shape == (2, 50, X.shape[1])
    # each draw's log-likelihood of the rows, at the point estimate of sigma2
    draw = idata.posterior["coef"].values[0, 0]
    residual = y - X @ draw - idata.posterior["intercept"].values[0, 0]
    expected = -0.5 * (np.log(2 * np.pi * fitted.noise_variance_)
                       + residual**2 / fitted.noise_variance_)
    assert np.allclose(idata.log_likelihood["y"].values[0, 0], expected)


def test_plot_colours_the_credible_sets():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from alphavb.plotting import plot_inclusion_probabilities

    X, y = simulated(seed=6)
    model = AlphaSuSiE(n_effects=4).fit(X, y)
    fig, ax = plt.subplots()
    plot_inclusion_probabilities(ax, model, top=None)
    colours = [bar.get_facecolor() for bar in ax.patches]
    grey = matplotlib.colors.to_rgba("0.35")
    in_sets = {v for found in model.credible_sets_ for v in found["variables"]}
    assert all((colours[j] != grey) == (j in in_sets) for j in range(X.shape[1]))
    assert len(ax.get_legend().get_texts()) == len(model.credible_sets_)
    plt.close(fig)


@pytest.mark.parametrize("method", ["safebayes", "calibrate", "cv"])
def test_selector_accepts_susie(method):
    from alphavb.model_selection import AlphaSelector

    X, y = simulated(seed=7)
    grid = [1.0, 0.5, 0.25]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # calibration may not reach its level
        selector = AlphaSelector(AlphaSuSiE(n_effects=3, constant_columns="exclude"),
                                 method=method, alphas=grid, n_bootstrap=10, cv=3,
                                 random_state=0).fit(X, y)
    assert selector.alpha_ in grid
    assert selector.best_estimator_.alpha == selector.alpha_
    assert selector.credible_sets_ == selector.best_estimator_.credible_sets_


def test_bad_input_names_the_parameter_and_keeps_the_arrays():
    X, y = simulated(n=50, p=8, seed=8)
    X_copy, y_copy = X.copy(), y.copy()
    with pytest.warns(UserWarning, match="n_effects=9 is more than the 8 variables"):
        capped = AlphaSuSiE(n_effects=9).fit(X, y)
    assert capped.n_effects_ == 8 and capped.single_effect_probabilities_.shape == (8, 8)
    with pytest.raises(ValueError, match="n_effects"):
        AlphaSuSiE(n_effects=0).fit(X, y)
    constant = X.copy()
    constant[:, 2] = 1.0
    with pytest.raises(ValueError, match="constant_columns='keep'"):
        AlphaSuSiE(n_effects=3, constant_columns="raise").fit(constant, y)
    excluded = AlphaSuSiE(n_effects=3, constant_columns="exclude").fit(constant, y)
    assert excluded.inclusion_probabilities_[2] == 0.0
    z = z_scores(X, y)
    R = np.corrcoef(X, rowvar=False)
    R_copy, z_copy = R.copy(), z.copy()
    missing = z.copy()
    missing[1] = np.nan
    with pytest.raises(ValueError, match=r"'z'.*finite"):
        AlphaSuSiE(n_effects=3).fit_summary(missing, R, 50)
    with pytest.raises(ValueError, match="n_samples"):
        AlphaSuSiE(n_effects=3).fit_summary(z, R, 2)
    skewed = R.copy()
    skewed[0, 1] += 0.1
    with pytest.raises(ValueError, match="symmetric"):
        AlphaSuSiE(n_effects=3).fit_summary(z, skewed, 50)
    indefinite = R.copy()
    indefinite[0, 1] = indefinite[1, 0] = -0.99 * np.sign(R[0, 1])  # breaks the AR(1) LD
    with pytest.raises(ValueError, match="regularization=") as error:
        AlphaSuSiE(n_effects=3).fit_summary(z, indefinite, 50)
    suggested = float(str(error.value).split("regularization=")[1].split(" ")[0])
    fitted = AlphaSuSiE(n_effects=3).fit_summary(z, indefinite, 50,
                                                 regularization=1.01 * suggested)
    assert np.all(np.isfinite(fitted.inclusion_probabilities_))
    with pytest.raises(ValueError, match="'R'"):
        AlphaSuSiE(n_effects=3).fit_summary(z, R[:5, :5], 50)
    assert np.array_equal(X, X_copy) and np.array_equal(y, y_copy)
    assert np.array_equal(R, R_copy) and np.array_equal(z, z_copy)


def test_summary_fit_from_a_reference_panel():
    """``reference_X`` stands for ``R = corrcoef(reference_X)``: the same fit; a panel with
    a constant column, or both R and a panel, are refused."""
    X, y = simulated(n=200, p=30, seed=9)
    z = z_scores(X[:100], y[:100])
    panel = X[100:]
    by_matrix = AlphaSuSiE(n_effects=3).fit_summary(z, np.corrcoef(panel, rowvar=False), 100)
    by_panel = AlphaSuSiE(n_effects=3).fit_summary(z, n_samples=100, reference_X=panel)
    assert np.array_equal(by_matrix.inclusion_probabilities_,
                          by_panel.inclusion_probabilities_)
    assert_monotone(by_panel.elbo_history_, rel=1e-9)
    flat = panel.copy()
    flat[:, 4] = 2.0
    with pytest.raises(ValueError, match="reference_X"):
        AlphaSuSiE(n_effects=3).fit_summary(z, n_samples=100, reference_X=flat)
    with pytest.raises(ValueError, match="not both"):
        AlphaSuSiE(n_effects=3).fit_summary(z, np.eye(30), 100, reference_X=panel)
