"""alpha-SuSiE with an adaptive-shrinkage background (``unmappable_effects="ash"``): susieR
0.16.5's SuSiE-ash reproduced at alpha = 1 from rows, sufficient statistics and z-scores
(tests/data/susier_ash.json, written by benchmarks/susier_ash_reference.py), the tempered
Mr.ASH coordinate against quadrature of its exact posterior, the two Mr.ASH forms at one
fixed point, predictions with the background, and the refused combinations."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

from alphavb import AlphaSuSiE
from alphavb.linear_model import _susie_ash as ash
from alphavb.linear_model._susie import ibss_data, sufficient_statistics_data
from tests.linear_model.susie_helpers import z_scores

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "susier_ash.json"
CYCLE_REFERENCE = REFERENCE.with_name("susier_ash_cycle.json")


def background_data(n=150, p=40, seed=0):
    """Correlated columns, two sparse effects and a small effect on every variable."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    X[:, 1:] += 0.6 * X[:, :-1]
    coef = 0.08 * rng.standard_normal(p)
    coef[[4, p // 2]] = [1.0, -0.8]
    return X, X @ coef + rng.standard_normal(n)


def assert_matches_susier(model, reference):
    """``model`` against a stored susieR 0.16.5 SuSiE-ash fit: PIPs and slot weights to
    1e-6, the background's effects to 1e-8, sigma2 and tau2, the sets, the sweeps."""
    np.testing.assert_allclose(model.inclusion_probabilities_, reference["pip"], atol=1e-6)
    np.testing.assert_allclose(model.slot_weights_, reference["slot_weights"], atol=1e-6)
    np.testing.assert_allclose(model.infinitesimal_effects_ * model.column_scale_,
                               reference["theta"], atol=1e-8)
    assert model.noise_variance_ == pytest.approx(reference["sigma2"], rel=1e-6)
    assert model.infinitesimal_variance_ == pytest.approx(reference["tau2"], rel=1e-4)
    assert sorted(found["variables"] for found in model.credible_sets_) == sorted(
        sorted(np.atleast_1d(found).tolist()) for found in reference["cs"])
    assert model.n_iter_ == reference["niter"] and model.converged_



@pytest.mark.parametrize("response", ["y1", "y2"])
@pytest.mark.parametrize("source", ["susie", "susie_reversed", "susie_ss", "susie_rss"])
def test_equals_susier_0_16_5_on_n3finemapping(n3, response, source):
    """PIPs (slot-weighted), sigma2, tau2, the background's means, the slot weights, the
    credible sets and the iterations of susieR 0.16.5's SuSiE-ash: from rows (susieR on
    the standardized columns and y of sd 1; alphavb on the raw columns, which it
    standardizes), the same with the columns reversed, from ``X'X, X'y, y'y, n`` and from
    z-scores with the in-sample LD (sigma2 fixed: the background fitted once, after
    convergence). Mr.ASH updates the variables in order, so reversing them moves
    susieR's PIPs (by 0.004 on y1), and alphavb's as susieR's; the fit from sufficient
    statistics is susieR's other algorithm, not the rows' (PIPs apart as susieR's)."""
    fits = json.loads(REFERENCE.read_text())["fits"]
    reference = fits[f"{response}_{source}"]
    X, y = n3.data, n3.target[:, int(response[1]) - 1]
    y = (y - y.mean()) / y.std(ddof=1)
    model = AlphaSuSiE(unmappable_effects="ash")
    if source == "susie":
        model.fit(X, y)
    elif source == "susie_reversed":
        model.fit(X[:, ::-1], y)
        moved = np.abs(np.array(reference["pip"])[::-1] - fits[f"{response}_susie"]["pip"])
        assert moved.max() > (1e-3 if response == "y1" else 1e-4)
    elif source == "susie_ss":
        Z = X - X.mean(axis=0)
        Z /= Z.std(axis=0, ddof=1)
        centred = y - y.mean()
        model.fit_sufficient(Z.T @ Z, Z.T @ centred, centred @ centred, X.shape[0])
    else:
        R = np.corrcoef(X, rowvar=False)
        model.set_params(max_iter=50).fit_summary(z_scores(X, y), R, X.shape[0])
    assert_matches_susier(model, reference)


def cycling_design():
    """200 rows of 50 random walks (neighbours in LD up to |r| ~ 0.99), centred, with
    effects at variables 5 and 30: SuSiE-ash with L = 3 cycles through five sweeps there."""
    rng = np.random.RandomState(0)
    n, p = 200, 50
    X = np.cumsum(rng.randn(n, p), axis=1) / np.sqrt(np.arange(1, p + 1))
    X -= X.mean(0)
    coef = np.zeros(p)
    coef[[5, 30]] = [1.5, -1.2]
    return X, X @ coef + rng.randn(n)


@pytest.mark.parametrize("n_effects", [1, 2, 3, 5, 10])
def test_equals_susier_0_16_5_through_a_cycle(n_effects):
    """susieR 0.16.5's SuSiE-ash on :func:`cycling_design` (tests/data/susier_ash_cycle.json:
    ``susie(scale(X), y / sd(y), L, unmappable_effects = "ash")``, as the N3finemapping
    fits): with L = 3 the probabilities of sweep 9 are those of sweep 4, which susieR's PIP
    rule takes for a cycle of five sweeps and averages ``alpha`` over (effect 1 at variable
    5 in two of them: its set goes, PIP 0.4), where a fixed-point rule would run on to
    variable 5's set and PIP 1."""
    reference = json.loads(CYCLE_REFERENCE.read_text())["fits"][f"L{n_effects}"]
    X, y = cycling_design()
    model = AlphaSuSiE(unmappable_effects="ash", n_effects=n_effects).fit(
        X, (y - y.mean()) / y.std(ddof=1))
    assert_matches_susier(model, reference)


@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_mixture_coordinate_is_the_exact_tempered_posterior(temperature):
    """One coordinate of Mr.ASH is the exact posterior of ``theta_j`` under the tempered
    likelihood ``N(r | x theta, sigma2)^alpha`` and the mixture prior ``sum_k pi_k N(0,
    sigma2 s_k)`` (point mass at ``s_1 = 0``): its mean and component weights against
    quadrature."""
    rng = np.random.default_rng(3)
    x, sigma2 = rng.standard_normal(30), 1.7
    r = 0.3 * x + np.sqrt(sigma2) * rng.standard_normal(30)
    grid = ash.mixture_grid(np.array([x @ x]), 30)[::6]
    weights = rng.dirichlet(np.ones(grid.shape[0]))
    phi = np.empty(grid.shape[0])
    log_scale, shrink, _ = ash._coordinate_tables(np.array([x @ x]), grid, temperature)
    mean = ash._mixture_coordinate(float(x @ r), log_scale[0], shrink[0], np.log(weights),
                                   sigma2, temperature, phi)

    def log_likelihood(theta):  # relative to theta = 0, so that quad's tolerance fits
        return temperature * float(np.sum(stats.norm.logpdf(r, x * theta, np.sqrt(sigma2))
                                          - stats.norm.logpdf(r, 0.0, np.sqrt(sigma2))))

    null = 1.0
    slab, first = [], []
    for s in grid[1:]:  # theta = sd u, u ~ N(0, 1): the quadrature sees the prior's scale
        sd = np.sqrt(sigma2 * s)
        slab.append(integrate.quad(lambda u, sd=sd: np.exp(log_likelihood(sd * u))
                                   * stats.norm.pdf(u), -12, 12, limit=200)[0])
        first.append(integrate.quad(lambda u, sd=sd: sd * u * np.exp(log_likelihood(sd * u))
                                    * stats.norm.pdf(u), -12, 12, limit=200)[0])
    evidence = weights * np.array([null, *slab])
    np.testing.assert_allclose(phi, evidence / evidence.sum(), rtol=1e-6, atol=1e-12)
    assert mean == pytest.approx(float(weights[1:] @ np.array(first)) / evidence.sum(),
                                 rel=1e-6)


@pytest.mark.parametrize("temperature", [1.0, 0.4])
def test_mr_ash_on_rows_and_sufficient_statistics_reach_one_fixed_point(temperature):
    """Mr.ASH's two forms (rows: susieR's ``caisa``; ``Z'Z``: its ``mr_ash_sufficient``)
    are the same coordinate updates: run to a tight tolerance from the same start with
    ``sigma2`` fixed, they reach the same ``theta`` and mixture weights."""
    X, y = background_data()
    Z = X - X.mean(axis=0)
    Z /= Z.std(axis=0, ddof=1)
    centred = y - y.mean()
    rows = ibss_data(Z, centred)
    gram = sufficient_statistics_data(Z.T @ Z, Z.T @ centred, centred @ centred, len(y))
    start = np.full(ash.GRID_SIZE, 1.0 / ash.GRID_SIZE)
    fits = []
    for data in (rows, gram):
        background = ash.ash_background(data)._replace(grid=ash.mixture_grid(data.d, len(y)))
        theta, weights, sigma2 = ash.mr_ash(data, background, np.zeros(40), np.zeros(40),
                                            start, 1.0, temperature, 1e-12, False)
        assert sigma2 == 1.0 and np.all(np.isfinite(theta))
        fits.append((theta, weights))
    np.testing.assert_allclose(fits[0][0], fits[1][0], atol=1e-7)
    np.testing.assert_allclose(fits[0][1], fits[1][1], atol=1e-7)


def test_predictions_add_the_background():
    """``predict`` is ``intercept_ + X (coef_ + infinitesimal_effects_)``, and the
    background has effects beyond the sparse ones on data that have them."""
    X, y = background_data(seed=1)
    model = AlphaSuSiE(unmappable_effects="ash").fit(X, y)
    assert np.any(model.infinitesimal_effects_ != 0.0) and model.infinitesimal_variance_ > 0
    np.testing.assert_allclose(model.predict(X), model.intercept_ + X @ (
        model.coef_ + model.infinitesimal_effects_), rtol=1e-10)
    assert set().union(*(found["variables"] for found in model.credible_sets_)) >= {4, 20}


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_tempered_fit_converges_and_widens(alpha):
    """At any alpha the fit converges by the PIP rule with finite numbers, and the tempered
    fit's sets are at least as large as those at alpha = 1."""
    X, y = background_data(seed=2)
    model = AlphaSuSiE(unmappable_effects="ash", alpha=alpha).fit(X, y)
    assert model.converged_ and np.all(np.isfinite(model.inclusion_probabilities_))
    assert 0.0 < model.noise_variance_ < np.var(y)
    plain = AlphaSuSiE(unmappable_effects="ash").fit(X, y)
    assert sum(len(f["variables"]) for f in model.credible_sets_) >= sum(
        len(f["variables"]) for f in plain.credible_sets_)


def test_warm_start_is_a_cold_start():
    """The background's masking keeps memory a warm start cannot restore: the second fit
    with ``warm_start=True`` equals a fresh fit."""
    X, y = background_data(seed=4)
    model = AlphaSuSiE(unmappable_effects="ash", warm_start=True).fit(X, y)
    first = model.inclusion_probabilities_.copy()
    model.fit(X, y)
    np.testing.assert_allclose(model.inclusion_probabilities_, first, rtol=0, atol=0)


@pytest.mark.parametrize("params, name", [
    ({"refine": True}, "refine"),
    ({"prior_variance_method": "em"}, "prior_variance_method"),
    # the advice named 'mom' or 'mle', and 'mle' is refused with ash too
    ({"residual_variance_method": "nig"}, "residual_variance_method.*must be 'mom' with"),
    # Mr.ASH estimates sigma2 by its own update: "mle" was accepted and silently ignored
    ({"residual_variance_method": "mle"}, "residual_variance_method.*'mom' with"),
])
def test_refused_combinations_name_the_parameter(params, name):
    X, y = background_data(seed=5)
    with pytest.raises(ValueError, match=name):
        AlphaSuSiE(unmappable_effects="ash", **params).fit(X, y)


def test_covariates_refused_and_caller_arrays_unchanged():
    X, y = background_data(seed=6)
    before_X, before_y = X.copy(), y.copy()
    with pytest.raises(ValueError, match="covariates"):
        AlphaSuSiE(unmappable_effects="ash").fit(X, y, covariates=X[:, :2])
    AlphaSuSiE(unmappable_effects="ash").fit(X, y)
    np.testing.assert_array_equal(X, before_X)
    np.testing.assert_array_equal(y, before_y)


def test_same_fit_in_any_units_of_y(n3):
    """Mr.ASH's stopping rule reads ``theta`` in units of sd(y): the fit of ``y`` in its
    units is that of ``y / sd(y)`` (PIPs, ``tau2 / sd^2``, ``theta / sd``), where susieR's
    absolute rule stops elsewhere (N3finemapping's y1: tau2 off by a factor of 2)."""
    X, y = n3.data, n3.target[:, 0]
    scale = y.std(ddof=1)
    raw = AlphaSuSiE(unmappable_effects="ash").fit(X, y)
    unit = AlphaSuSiE(unmappable_effects="ash").fit(X, y / scale)
    np.testing.assert_allclose(raw.inclusion_probabilities_, unit.inclusion_probabilities_,
                               atol=1e-7)
    assert raw.infinitesimal_variance_ / scale**2 == pytest.approx(
        unit.infinitesimal_variance_, rel=1e-6)
    np.testing.assert_allclose(raw.infinitesimal_effects_ / scale,
                               unit.infinitesimal_effects_, atol=1e-9)


def test_same_fit_in_any_units_of_X_without_standardizing():
    """With ``standardize=False`` ``theta`` is in units of y per unit of X: the stopping
    rule reads it in those units, so X in other units (X * 1000) gives the same PIPs and a
    background rescaled by 1/1000; with the unit sd(y) the rule stopped 1000 times later in
    relative terms (PIPs 0.24 apart, a third set)."""
    rng = np.random.default_rng(3)
    n, p = 200, 80
    X = np.empty((n, p))
    X[:, 0] = rng.standard_normal(n)
    for j in range(1, p):
        X[:, j] = 0.9 * X[:, j - 1] + np.sqrt(1 - 0.81) * rng.standard_normal(n)
    coef = 0.08 * np.random.default_rng(5).standard_normal(p)
    coef[[20, 60]] += 0.6
    y = X @ coef + rng.standard_normal(n)
    fits = [AlphaSuSiE(n_effects=5, standardize=False, unmappable_effects="ash",
                       tol=1e-4).fit(X * units, y) for units in (1.0, 1000.0)]
    np.testing.assert_allclose(fits[1].inclusion_probabilities_,
                               fits[0].inclusion_probabilities_, atol=1e-7)
    np.testing.assert_allclose(fits[1].infinitesimal_effects_ * 1000.0,
                               fits[0].infinitesimal_effects_, atol=1e-8)
    assert [sorted(s["variables"]) for s in fits[1].credible_sets_] == [
        sorted(s["variables"]) for s in fits[0].credible_sets_]


def test_constant_column_has_no_background_effect():
    """A constant column carries no information: it gets no background effect and the fit
    is that without it (its Bayes factor 1 leaves the other PIPs as they are)."""
    X, y = background_data(seed=7)
    with_constant = np.column_stack([X, np.full(X.shape[0], 5.0)])
    model = AlphaSuSiE(unmappable_effects="ash").fit(with_constant, y)
    assert model.infinitesimal_effects_[-1] == 0.0
    assert np.all(np.isfinite(model.inclusion_probabilities_))
    plain = AlphaSuSiE(unmappable_effects="ash").fit(X, y)
    assert sorted(f["variables"] for f in model.credible_sets_) == sorted(
        f["variables"] for f in plain.credible_sets_)
    mostly_constant = np.column_stack([X[:, :5], np.ones((X.shape[0], 10))])
    model = AlphaSuSiE(unmappable_effects="ash").fit(mostly_constant, y)
    assert np.all(np.isfinite(model.infinitesimal_effects_))
    assert np.all(model.infinitesimal_effects_[5:] == 0.0)


def test_weighted_rows_count_as_observations():
    """Rows of weight 0 are rows left out, and integer weights are repeated rows: the
    background's ``n`` is the total weight, as the single effects'."""
    X, y = background_data(seed=8)
    weights = np.ones(len(y))
    weights[:20] = 0.0
    weighted = AlphaSuSiE(unmappable_effects="ash").fit(X, y, sample_weight=weights)
    dropped = AlphaSuSiE(unmappable_effects="ash").fit(X[20:], y[20:])
    np.testing.assert_allclose(weighted.inclusion_probabilities_,
                               dropped.inclusion_probabilities_, atol=1e-8)
    assert weighted.noise_variance_ == pytest.approx(dropped.noise_variance_, rel=1e-8)
    repeats = np.where(np.arange(len(y)) % 3 == 0, 2.0, 1.0)
    repeated = AlphaSuSiE(unmappable_effects="ash").fit(X, y, sample_weight=repeats)
    rows = np.repeat(np.arange(len(y)), repeats.astype(int))
    copies = AlphaSuSiE(unmappable_effects="ash").fit(X[rows], y[rows])
    np.testing.assert_allclose(repeated.inclusion_probabilities_,
                               copies.inclusion_probabilities_, atol=1e-8)
    assert repeated.infinitesimal_variance_ == pytest.approx(
        copies.infinitesimal_variance_, rel=1e-6)


def test_background_variance_is_never_negative_on_mismatched_summaries():
    """z-scores that ``R`` cannot hold drive Mr.ASH's ``sigma2`` below 0 on summary
    statistics; ``tau2`` reads it after its bounds, so it stays a variance."""
    X = np.random.default_rng(0).standard_normal((100, 30))
    z = np.zeros(30)
    z[4] = 30.0
    model = AlphaSuSiE(unmappable_effects="ash", estimate_residual_variance=True)
    model.fit_summary(z, np.corrcoef(X, rowvar=False), 100)
    assert model.infinitesimal_variance_ >= 0.0 and model.noise_variance_ > 0.0


def test_a_start_from_init_or_a_warm_start_carries_the_background():
    """A start from a fitted model (init=) or a warm start had no background state
    (AttributeError in the ash step); it starts the background from 0 as a cold fit."""
    rng = np.random.RandomState(0)
    X = rng.randn(100, 20)
    y = X[:, 3] + rng.randn(100)
    plain = AlphaSuSiE().fit(X, y)
    started = AlphaSuSiE(unmappable_effects="ash", init=plain).fit(X, y)
    cold = AlphaSuSiE(unmappable_effects="ash").fit(X, y)
    assert [cs["variables"] for cs in started.credible_sets_] == [[3]]
    assert [cs["variables"] for cs in cold.credible_sets_] == [[3]]
    warm = AlphaSuSiE(unmappable_effects="ash", warm_start=True).fit(X, y).fit(X, y)
    assert [cs["variables"] for cs in warm.credible_sets_] == [[3]]


def test_constant_columns_leave_no_background_and_no_nan():
    """Mr.ASH's start averaged its mixture weights over the informative columns: with none,
    numpy's "Mean of empty slice" and a NaN objective; now uniform weights and no sets."""
    import warnings

    y = np.random.RandomState(0).randn(200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model = AlphaSuSiE(unmappable_effects="ash", n_effects=3).fit(np.ones((200, 3)), y)
    assert model.credible_sets_ == [] and np.all(np.isfinite(model.inclusion_probabilities_))


def test_a_start_from_a_susie_fit_keeps_its_effects_as_susier():
    """``init=`` a SuSiE fit: the start's fit is weighted by the slot weights (susieR's
    recompute_fitted_weighted). It was not, and each sweep left the rest of its own effect
    in its residual: sigma2 rose to 4.77 (Var(y) 2.07), a V to 953 and one set of three
    was left. susieR 0.16.5 on these data (susie(X, y, L = 5, unmappable_effects = "ash",
    model_init = susie(X, y, L = 5))): the sets {40}, {5}, {20}, sigma2 1.112859, largest
    V 0.335914."""
    rng = np.random.RandomState(2)
    Z = rng.randn(300, 60)
    X = Z.copy()
    for j in range(1, 60):
        X[:, j] = 0.8 * X[:, j - 1] + 0.6 * Z[:, j]
    coef = np.zeros(60)
    coef[[5, 20, 40]] = 0.5
    y = X @ coef + rng.randn(300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = AlphaSuSiE(5).fit(X, y)
        warm = AlphaSuSiE(5, unmappable_effects="ash", init=start).fit(X, y)
    assert sorted(found["variables"] for found in warm.credible_sets_) == [[5], [20], [40]]
    assert warm.noise_variance_ == pytest.approx(1.112859, rel=0.01)
    assert warm.prior_variances_.max() == pytest.approx(0.335914, rel=0.01)
