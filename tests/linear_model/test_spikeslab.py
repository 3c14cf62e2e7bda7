"""AlphaSpikeSlabRegression (spec §3): kernel vs reference, exactness, monotonicity, recovery."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import xlogy
from scipy.stats import norm
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from alphavb import AlphaSpikeSlabRegression, PosteriorApproximationWarning
from alphavb.datasets import make_sparse_regression
from alphavb.linear_model._kernels import spike_slab_sweep
from tests import naive
from tests.conftest import assert_draws_rescaled, assert_monotone

PAPER_ALPHAS = (0.5, 0.8, 0.95, 1.0)


def test_kernel_sweep_equals_numpy_reference(rng):
    n, d = 30, 12
    X = np.asfortranarray(rng.normal(size=(n, d)))
    y = X[:, :3] @ [2.0, -1.0, 0.5] + rng.normal(size=n)
    phi, mu, s2 = rng.uniform(0, 1, d), rng.normal(size=d), rng.uniform(0.1, 1, d)
    args = {"tau": 1.7, "elt": 0.4, "logit_pi": -2.0, "alpha": 0.6, "nu": 1.3}
    expected = naive.spike_slab_sweep(X, y, phi, mu, s2, **args)
    residual = y - X @ (phi * mu)
    got_phi, got_mu, got_s2 = phi.copy(), mu.copy(), s2.copy()
    stats = spike_slab_sweep(X, np.sum(X ** 2, axis=0), residual, got_phi, got_mu, got_s2,
                             args["tau"], args["elt"], args["logit_pi"], args["alpha"], args["nu"])
    for got, want in zip((got_phi, got_mu, got_s2), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-13)
    e_phi, e_mu, e_s2 = expected
    mean = e_phi * e_mu
    np.testing.assert_allclose(residual, y - X @ mean, rtol=1e-11, atol=1e-12)
    variance = e_phi * (e_mu ** 2 + e_s2) - mean ** 2
    want_stats = (np.sum((y - X @ mean) ** 2) + np.sum(X ** 2, axis=0) @ variance,
                  np.sum(e_phi * (e_mu ** 2 + e_s2)), e_phi.sum(), e_phi @ np.log(e_s2),
                  np.sum(xlogy(e_phi, e_phi) + xlogy(1 - e_phi, 1 - e_phi)))
    np.testing.assert_allclose(stats, want_stats, rtol=1e-11)


@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_orthogonal_design_is_exact(alpha):
    """X'X diagonal: the fractional posterior factorises, so q is exact (enumeration, d = 8)."""
    rng = np.random.default_rng(1)
    n, d = 50, 8
    X = np.sqrt(n) * np.linalg.qr(rng.normal(size=(n, d)))[0]
    coef = np.array([1.0, 0.5, 0.3, 0.2, 0.0, 0.0, -0.4, 0.0])
    y = X @ coef + rng.normal(size=n)
    pips, log_z = naive.spike_slab_enumeration(X, y, alpha, sigma2=1.0, nu=2.0, pi=0.3)
    assert 0.05 < np.sort(pips)[len(pips) // 2] < 0.95  # not all PIPs are trivially 0 or 1
    common = {"alpha": alpha, "slab_variance": 2.0, "prior_inclusion": 0.3, "noise_variance": 1.0,
                  "fit_intercept": False, "standardize": False, "tol": 1e-14}
    model = AlphaSpikeSlabRegression(**common).fit(X, y)
    np.testing.assert_allclose(model.inclusion_probabilities_, pips, rtol=1e-9, atol=1e-12)
    assert alpha * model.elbo_ == pytest.approx(log_z, rel=1e-10)
    fractional = AlphaSpikeSlabRegression(objective="fractional", **common).fit(X, y)
    assert fractional.elbo_ == pytest.approx(log_z, rel=1e-10)


@pytest.mark.parametrize("alpha", [0.5, 1.0])
@pytest.mark.parametrize("seed", [0, 3])
def test_pips_agree_with_enumeration_on_a_random_design(alpha, seed):
    rng = np.random.default_rng(seed)
    n, d = 100, 10
    X = rng.normal(size=(n, d))
    coef = np.zeros(d)
    coef[:3] = [1.0, 0.6, 0.35]
    y = X @ coef + rng.normal(size=n)
    pips, log_z = naive.spike_slab_enumeration(X, y, alpha, sigma2=1.0, nu=1.0, pi=0.2)
    model = AlphaSpikeSlabRegression(alpha=alpha, prior_inclusion=0.2, noise_variance=1.0,
                                     standardize=False,
                                     fit_intercept=False, tol=1e-14, max_iter=5000).fit(X, y)
    np.testing.assert_allclose(model.inclusion_probabilities_, pips, atol=0.03)
    # the objective is a lower bound of log Z_alpha, and a tight one here
    assert log_z - 0.1 < alpha * model.elbo_ <= log_z


@pytest.mark.parametrize("learned_noise", [False, True])
@pytest.mark.parametrize("learned_pi", [False, True])
def test_objective_equals_the_spec_formula(rng, learned_noise, learned_pi):
    X, y, _ = make_sparse_regression(n_samples=40, n_features=15, n_informative=2,
                                     random_state=4)
    model = AlphaSpikeSlabRegression(
        alpha=0.7, slab_variance=1.5, noise_variance=None if learned_noise else 0.8,
        noise_prior=(2.0, 1.0), inclusion_prior=(1.0, 4.0) if learned_pi else None,
        fit_intercept=False, standardize=False).fit(X, y)
    noise = ("learned", model.noise_shape_, model.noise_scale_, 2.0, 1.0) if learned_noise \
        else ("fixed", 0.8)
    pi = ("learned", *model.inclusion_posterior_, 1.0, 4.0) if learned_pi \
        else ("fixed", 1 / 15)
    expected = naive.spike_slab_alpha_elbo(X, y, model.inclusion_probabilities_,
                                           model.slab_means_, model.slab_variances_, 0.7, 1.5,
                                           noise, pi)
    assert model.elbo_ == pytest.approx(expected, rel=1e-10)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), alpha=st.floats(0.05, 1.0), learned_noise=st.booleans(),
       learned_pi=st.booleans(), n=st.integers(2, 40), d=st.integers(1, 40),
       slab_variance=st.sampled_from([0.1, 1.0, 10.0]))
def test_alpha_elbo_never_decreases(seed, alpha, learned_noise, learned_pi, n, d, slab_variance):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, size=d)
    coef = np.where(rng.uniform(size=d) < 0.3, rng.normal(scale=2.0, size=d), 0.0)
    y = X @ coef + rng.normal(size=n)
    model = AlphaSpikeSlabRegression(
        alpha=alpha, slab_variance=slab_variance,
        noise_variance=None if learned_noise else 0.5,
        inclusion_prior=(1.0, 1.0) if learned_pi else None,
        n_init=2, max_iter=40, tol=0.0, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    assert_monotone(model.elbo_history_)
    assert np.all((model.inclusion_probabilities_ >= 0) & (model.inclusion_probabilities_ <= 1))


@pytest.mark.parametrize("alpha", PAPER_ALPHAS)
def test_paper_simulation_recovers_the_true_variables(alpha):
    """Paper Figure 1 set-up (n = 100, d = 500, 4 signals, sigma = 1), default settings."""
    X, y, truth = make_sparse_regression(random_state=0)
    model = AlphaSpikeSlabRegression(alpha=alpha).fit(X, y)
    assert model.converged_
    assert np.all(model.inclusion_probabilities_[:4] > 0.9)
    assert np.all(model.inclusion_probabilities_[4:] < 0.1)
    assert np.linalg.norm(model.coef_ - truth) < 0.5
    assert_monotone(model.elbo_history_)


@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_default_starts_reach_the_best_mode(alpha):
    """A design where a start at sigma2 = Var(y) locks into a worse mode (spec §3).

    The default fit must be as good as the best of 30 starts.
    """
    X, y, _ = make_sparse_regression(coef=[1.5] * 4, random_state=4)
    default = AlphaSpikeSlabRegression(alpha=alpha).fit(X, y)
    many = AlphaSpikeSlabRegression(alpha=alpha, n_init=30, random_state=0).fit(X, y)
    assert default.elbo_ >= many.elbo_ - 1e-6 * abs(many.elbo_)
    assert np.all(default.inclusion_probabilities_[:4] > 0.9)


def test_fractional_objective_has_the_same_maximiser():
    X, y, _ = make_sparse_regression(n_samples=60, n_features=30, random_state=2)
    vb = AlphaSpikeSlabRegression(alpha=0.6, tol=1e-12).fit(X, y)
    frac = AlphaSpikeSlabRegression(alpha=0.6, tol=1e-12, objective="fractional").fit(X, y)
    np.testing.assert_allclose(frac.coef_, vb.coef_, rtol=1e-9, atol=1e-12)
    assert frac.elbo_ == pytest.approx(0.6 * vb.elbo_, rel=1e-10)


def test_credible_intervals_are_exact_quantiles_of_q():
    X, y, _ = make_sparse_regression(n_samples=60, n_features=30, random_state=2)
    model = AlphaSpikeSlabRegression(alpha=0.8).fit(X, y)
    phi, mu = model.inclusion_probabilities_, model.slab_means_
    sd = np.sqrt(model.slab_variances_)
    interval = model.credible_intervals(0.9)

    def cdf(x):  # q(beta_j <= x) for the spike-and-slab marginal
        return (1 - phi) * (x >= 0) + phi * norm.cdf((x - mu) / sd)

    for column, p in ((0, 0.05), (1, 0.95)):
        x = interval[:, column]
        at_atom = x == 0.0
        np.testing.assert_allclose(cdf(x)[~at_atom], p, atol=1e-9)
        # at the atom the tail probability p falls inside the jump of the CDF at 0
        below = phi * norm.cdf(-mu / sd)
        assert np.all((below[at_atom] <= p) & (p <= below[at_atom] + 1 - phi[at_atom]))
    assert np.all(interval[:4, 0] > 0)          # strong signals exclude 0
    assert np.all(interval[10:, :] == 0.0)      # clear nulls collapse onto the atom


def test_predict_score_and_summary():
    X, y, _ = make_sparse_regression(random_state=1)
    X_test, y_test, _ = make_sparse_regression(random_state=2)
    model = AlphaSpikeSlabRegression(alpha=0.5).fit(X, y)
    assert model.score(X_test, y_test) > 0.9
    _, std = model.predict(X_test[:3], return_std=True)
    assert np.all(std > np.sqrt(model.noise_variance_))
    text = model.summary().as_text()
    for word in ("PIP", "coef", "lower", "x499", "AlphaSpikeSlabRegression"):
        assert word in text
    # the rows with the highest PIPs first, and only as many as asked
    top = model.summary(max_rows=5, sort_by="PIP")
    rows = top.tables[1].data[1:]
    assert len(rows) == 5
    pips = [float(row[3]) for row in rows]
    assert pips == sorted(pips, reverse=True)
    best = np.argsort(-model.inclusion_probabilities_, kind="stable")[:5]
    assert [row[0].strip() for row in rows] == [f"x{j}" for j in best]
    assert "Showing 5 of 500 coefficients, ordered by PIP." in top.as_text()
    by_size = model.summary(max_rows=3, sort_by="coef").tables[1].data[1:]
    assert [row[0].strip() for row in by_size] == [
        f"x{j}" for j in np.argsort(-np.abs(model.coef_), kind="stable")[:3]]
    with pytest.raises(ValueError, match="'sort_by' parameter"):
        model.summary(sort_by="pip_value")
    with pytest.raises(ValueError, match="'max_rows' parameter"):
        model.summary(max_rows=0)


def test_learned_inclusion_probability():
    X, y, _ = make_sparse_regression(n_samples=200, n_features=100, n_informative=10,
                                     random_state=3)
    model = AlphaSpikeSlabRegression(alpha=0.8, inclusion_prior=(1.0, 1.0)).fit(X, y)
    a, b = model.inclusion_posterior_
    assert a / (a + b) == pytest.approx(0.1, abs=0.03)
    assert np.isnan(model.prior_inclusion_)


def test_reproducible_and_picklable():
    X, y, _ = make_sparse_regression(n_samples=50, n_features=40, random_state=5)
    first = AlphaSpikeSlabRegression(n_init=5, random_state=7).fit(X, y)
    second = AlphaSpikeSlabRegression(n_init=5, random_state=7).fit(X, y)
    np.testing.assert_array_equal(first.coef_, second.coef_)
    clone = pickle.loads(pickle.dumps(first))
    np.testing.assert_array_equal(clone.predict(X), first.predict(X))


def test_sweep_runs_on_fortran_ordered_data(monkeypatch):
    """The kernel reads columns: X must reach it in Fortran order whatever the input order."""
    import alphavb.linear_model._kernels as module  # the fit imports the kernel from here

    seen = []

    def recording_sweep(X, *args):
        seen.append(X.flags.f_contiguous)
        return spike_slab_sweep(X, *args)

    monkeypatch.setattr(module, "spike_slab_sweep", recording_sweep)
    X, y, _ = make_sparse_regression(n_samples=30, n_features=20, random_state=0)
    for fit_intercept in (True, False):
        AlphaSpikeSlabRegression(fit_intercept=fit_intercept, n_init=1).fit(
            np.ascontiguousarray(X), y)
    assert seen and all(seen)


def test_inputs_are_not_modified():
    X, y, _ = make_sparse_regression(n_samples=50, n_features=40, random_state=5)
    X = np.asfortranarray(X)
    X_copy, y_copy = X.copy(), y.copy()
    AlphaSpikeSlabRegression(fit_intercept=False).fit(X, y)
    AlphaSpikeSlabRegression().fit(X, y)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(y, y_copy)


@pytest.mark.parametrize("params, match", [
    ({"alpha": -0.1}, "'alpha' parameter of AlphaSpikeSlabRegression"),
    ({"slab_variance": 0.0}, "'slab_variance'"),
    ({"prior_inclusion": 1.0}, "'prior_inclusion'.*\\(0.0, 1.0\\)"),
    ({"prior_inclusion": 0.1, "inclusion_prior": (1, 1)}, "either a fixed prior_inclusion"),
    ({"inclusion_prior": (1.0, 0.0)}, "Beta prior on pi"),
    ({"inclusion_prior": "flat"}, "'inclusion_prior'"),
    ({"noise_variance": np.inf}, "'noise_variance'"),
])
def test_bad_parameters_raise(params, match):
    X, y, _ = make_sparse_regression(n_samples=20, n_features=5, random_state=0)
    with pytest.raises(ValueError, match=match):
        AlphaSpikeSlabRegression(**params).fit(X, y)


def test_bad_data_raise():
    X, y, _ = make_sparse_regression(n_samples=20, n_features=5, random_state=0)
    with pytest.raises(ValueError, match="Input y contains NaN"):
        AlphaSpikeSlabRegression().fit(X, np.full(20, np.nan))
    with pytest.raises(ValueError, match="Expected 2D array"):
        AlphaSpikeSlabRegression().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="0 feature"):
        AlphaSpikeSlabRegression().fit(X[:, :0], y)


@pytest.mark.parametrize("which", ["X", "y"])
def test_overflowing_scale_is_refused(which):
    X, y, _ = make_sparse_regression(n_samples=20, n_features=5, random_state=0)
    X, y = (X * 1e160, y) if which == "X" else (X, y * 1e160)
    with pytest.raises(ValueError, match=f"Input {which} .* Rescale it first"):
        AlphaSpikeSlabRegression().fit(X, y)


# ---------------------------------------------------------------- the paper's Algorithm 1


@pytest.mark.parametrize("n_samples, n_features", [(60, 25), (40, 120)])
def test_joint_update_puts_every_mean_at_its_coordinate_optimum(rng, n_samples, n_features):
    """The joint solve (direct when d <= n, Woodbury when d > n) is the maximiser over mu
    given phi: each mu_j = alpha X_j' r_j / (alpha ||X_j||^2 + 1/nu), r_j = y - sum_{k != j}
    X_k phi_k mu_k."""
    X = np.asfortranarray(rng.normal(size=(n_samples, n_features)))
    y = X[:, :3] @ [2.0, -1.0, 0.5] + rng.normal(size=n_samples)
    model = AlphaSpikeSlabRegression(alpha=0.6, algorithm="paper", slab_variance=0.7,
                                     fit_intercept=False, standardize=False)
    data = model._prepare_fit(X, y)
    assert (data.gram is None) == (n_features > n_samples)
    phi = rng.uniform(0.01, 1.0, n_features)
    mu = model._joint_means(data, phi)
    xx = np.sum(X**2, axis=0)
    for j in range(n_features):
        r_j = y - X @ (phi * mu) + X[:, j] * phi[j] * mu[j]
        assert mu[j] == pytest.approx(0.6 * X[:, j] @ r_j / (0.6 * xx[j] + 1 / 0.7), rel=1e-9,
                                      abs=1e-12)


@pytest.mark.parametrize("alpha", [0.5, 1.0])
@pytest.mark.parametrize("noise_variance", [1.0, None])
@pytest.mark.parametrize("n_samples, n_features", [(100, 500), (200, 50)])
def test_paper_algorithm_never_decreases_and_reaches_the_coordinate_fixed_point(
        alpha, noise_variance, n_samples, n_features):
    X, y, _ = make_sparse_regression(n_samples=n_samples, n_features=n_features,
                                     random_state=0)
    settings = {"alpha": alpha, "noise_variance": noise_variance, "slab_variance": 1 / alpha,
                "tol": 1e-12}
    paper = AlphaSpikeSlabRegression(algorithm="paper", **settings).fit(X, y)
    assert_monotone(paper.elbo_history_)
    assert paper.converged_ and paper.n_iter_ < 20  # the paper: fewer than 20 iterations
    coordinate = AlphaSpikeSlabRegression(**settings).fit(X, y)
    # parameters settle at the square root of the objective's tolerance (a PIP near 0.5 on
    # the (200, 50) problem moves by 1e-6 per sweep when the objective has converged)
    np.testing.assert_allclose(paper.coef_, coordinate.coef_, atol=1e-5)
    np.testing.assert_allclose(paper.inclusion_probabilities_,
                               coordinate.inclusion_probabilities_, atol=1e-5)
    assert paper.elbo_ == pytest.approx(coordinate.elbo_, rel=1e-10)


# ---------------------------------------------------------------- covariates (issue 20)


def covariate_problem(n=60, d=6, k=2, seed=0, orthogonal=False):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, k))
    if orthogonal:  # columns of X orthogonal to each other and to Z
        basis = np.linalg.qr(np.column_stack([Z, rng.normal(size=(n, d))]))[0]
        X = np.sqrt(n) * basis[:, k:]
    else:
        X = rng.normal(size=(n, d))
    y = X[:, :3] @ [1.0, -0.6, 0.3] + Z @ np.linspace(2.0, -1.0, k) + rng.normal(size=n)
    return X, y, Z


@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_covariates_integrated_out_are_exact_on_an_orthogonal_design(alpha):
    """X orthogonal to itself and to Z, noise known: q is exact, so alpha x ELBO is the log
    normaliser with gamma integrated under its flat prior (enumeration of 2^6 models)."""
    X, y, Z = covariate_problem(orthogonal=True)
    pips, log_z = naive.spike_slab_enumeration(X, y, alpha, sigma2=1.0, nu=2.0, pi=0.3, Z=Z)
    model = AlphaSpikeSlabRegression(alpha=alpha, slab_variance=2.0, prior_inclusion=0.3,
                                     noise_variance=1.0, fit_intercept=False, tol=1e-14,
                                     standardize=False)
    model.fit(X, y, covariates=Z)
    np.testing.assert_allclose(model.inclusion_probabilities_, pips, rtol=1e-9, atol=1e-12)
    assert alpha * model.elbo_ == pytest.approx(log_z, rel=1e-10)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_covariates_equal_an_explicit_projection(fit_intercept):
    X, y, Z = covariate_problem(d=15, k=3, seed=1)
    C = np.column_stack(([np.ones(len(y))] if fit_intercept else []) + [Z])
    P = np.eye(len(y)) - C @ np.linalg.solve(C.T @ C, C.T)
    # raw columns: the projection changes their standard deviations
    common = {"alpha": 0.7, "noise_variance": 1.0, "tol": 1e-12, "standardize": False}
    model = AlphaSpikeSlabRegression(fit_intercept=fit_intercept, **common).fit(
        X, y, covariates=Z)
    projected = AlphaSpikeSlabRegression(fit_intercept=False, **common).fit(P @ X, P @ y)
    np.testing.assert_allclose(model.inclusion_probabilities_,
                               projected.inclusion_probabilities_, atol=1e-10)
    np.testing.assert_allclose(model.coef_, projected.coef_, atol=1e-10)
    # the objectives differ by what the flat prior's integral adds (module _covariates)
    Z_c = Z - Z.mean(axis=0) if fit_intercept else Z
    constant = 0.5 * 3 * (np.log(2 * np.pi / 0.7) + 0.0) - 0.5 * np.linalg.slogdet(Z_c.T @ Z_c)[1]
    assert model.elbo_ - projected.elbo_ == pytest.approx(constant / 0.7, abs=1e-8)
    # gamma's posterior mean: least squares of y - X coef on [1, Z]
    gamma = np.linalg.lstsq(C, y - X @ model.coef_, rcond=None)[0]
    np.testing.assert_allclose(np.r_[[model.intercept_] if fit_intercept else [],
                                     model.covariate_coef_], gamma, atol=1e-10)
    np.testing.assert_allclose(model.predict(X, covariates=Z),
                               X @ model.coef_ + C @ gamma, atol=1e-10)


@pytest.mark.parametrize("alpha", [0.4, 1.0])
def test_covariates_with_learned_noise_never_decrease_and_recover(alpha):
    X, y, Z = covariate_problem(n=200, d=40, k=3, seed=2)
    model = AlphaSpikeSlabRegression(alpha=alpha, tol=1e-12).fit(X, y, covariates=Z)
    assert_monotone(model.elbo_history_)
    selected = set(np.flatnonzero(model.inclusion_probabilities_ > 0.5))
    assert {0, 1} <= selected <= {0, 1, 2}  # the weakest (0.3) needs alpha n large enough
    np.testing.assert_allclose(model.covariate_coef_, [2.0, 0.5, -1.0], atol=0.25)
    # gamma integrated out uses k of the data's powers of 1/sigma2: shape a0 + (alpha n - k
    # + sum phi) / 2
    expected_shape = 1e-6 + 0.5 * (alpha * 200 - 3 + model.inclusion_probabilities_.sum())
    assert model.noise_shape_ == pytest.approx(expected_shape, rel=1e-10)
    mean, std = model.predict(X, return_std=True, covariates=Z)
    assert np.all(std > np.sqrt(model.noise_variance_))
    assert np.corrcoef(mean, y)[0, 1] > 0.9
    assert model.score(X, y, covariates=Z) == pytest.approx(
        1 - np.sum((y - mean) ** 2) / np.sum((y - y.mean()) ** 2))
    with pytest.raises(ValueError, match="fitted with 3 covariate"):
        model.predict(X)
    with pytest.raises(ValueError, match="collinear"):
        AlphaSpikeSlabRegression().fit(X, y, covariates=np.column_stack([Z, 2 * Z[:, 1]]))
    with pytest.raises(ValueError, match="constant"):
        AlphaSpikeSlabRegression().fit(X, y, covariates=np.ones((200, 1)))


def test_regression_grid_average_equals_fitting_each_setting_by_hand():
    X, y, Z = covariate_problem(n=80, d=20, seed=3)
    grid = [0.02, 0.1, 0.3]
    averaged = AlphaSpikeSlabRegression(alpha=0.6, prior_inclusion=grid).fit(X, y, covariates=Z)
    by_hand = AlphaSpikeSlabRegression(alpha=0.6, warm_start=True)
    elbos, pips, coefs, means, noise = [], [], [], [], []
    for pi in grid:
        by_hand.set_params(prior_inclusion=pi).fit(X, y, covariates=Z)
        elbos.append(by_hand.elbo_)
        pips.append(by_hand.inclusion_probabilities_.copy())
        coefs.append(by_hand.coef_.copy())
        means.append(by_hand.predict(X, covariates=Z))
        noise.append(by_hand.noise_variance_)
    np.testing.assert_allclose(averaged.setting_elbo_, elbos, rtol=1e-12)
    weights = np.exp(0.6 * np.asarray(elbos) - np.max(0.6 * np.asarray(elbos)))
    weights /= weights.sum()
    np.testing.assert_allclose(averaged.hyper_weights_, weights, rtol=1e-10)
    np.testing.assert_allclose(averaged.inclusion_probabilities_, weights @ pips, atol=1e-12)
    np.testing.assert_allclose(averaged.coef_, weights @ coefs, atol=1e-12)
    np.testing.assert_allclose(averaged.predict(X, covariates=Z), weights @ means, atol=1e-10)
    assert averaged.noise_variance_ == pytest.approx(weights @ noise, rel=1e-12)
    assert averaged.setting_elbo_history_[0][0] < averaged.setting_elbo_history_[0][-1]
    assert "Prior settings averaged:" in averaged.summary().as_text()


def test_single_variable_starts_reach_a_better_mode_on_leukemia():
    """Leukemia's genes are strongly correlated: the three default starts enter one gene's
    mode, the single-variable starts (start >= 3) a better one (measured: alpha-ELBO
    -27.21 with 3 starts, -19.88 with 10)."""
    from alphavb.datasets import get_data_home, load_leukemia

    if not (get_data_home() / "leukemia" / "X.csv").exists():
        pytest.skip(f"the Leukemia data are not in the data home {get_data_home()}")
    leukemia = load_leukemia()
    X, y = leukemia.data, leukemia.target.astype(float)
    default = AlphaSpikeSlabRegression().fit(X, y)
    more = AlphaSpikeSlabRegression(n_init=10).fit(X, y)
    assert more.elbo_ > default.elbo_ + 5.0
    assert_monotone(more.elbo_history_)


@pytest.mark.parametrize("grid_size", [2, 3])
@pytest.mark.parametrize("model_class", ["regression", "classifier"])
def test_attribute_types_do_not_depend_on_the_grid_size(grid_size, model_class):
    """A grid publishes every attribute with the type and shape one setting gives it; the
    per-setting values live under setting_* (one row per setting, for one setting too), and
    the scalar names mean the averaged posterior or the selected setting."""
    from alphavb import AlphaSpikeSlabClassifier

    X, y, Z = covariate_problem(n=80, d=12, seed=5)
    if model_class == "classifier":
        estimator, y = AlphaSpikeSlabClassifier(alpha=0.7), (y > np.median(y)).astype(int)
    else:
        estimator = AlphaSpikeSlabRegression(alpha=0.7)
    grid = [0.05, 0.2, 0.4][:grid_size]
    single = clone(estimator).set_params(prior_inclusion=grid[0]).fit(X, y, covariates=Z)
    averaged = clone(estimator).set_params(prior_inclusion=grid).fit(X, y, covariates=Z)

    def public(model):
        return {name: getattr(model, name) for name in vars(model)
                if name.endswith("_") and not name.startswith("_")}

    one, many = public(single), public(averaged)
    assert set(one) == set(many)
    for name, value in one.items():
        other = many[name]
        if name.startswith("setting_") or name == "hyper_weights_":
            rows = 1 if name != "setting_elbo_history_" else None
            if rows is not None and value is not None:
                assert np.shape(value)[0] == 1 and np.shape(other)[0] == grid_size, name
                assert np.shape(value)[1:] == np.shape(other)[1:], name
            continue
        assert type(value) is type(other), name
        if name == "elbo_history_":  # one entry per sweep of the fit
            assert np.ndim(value) == np.ndim(other) == 1
        else:
            assert np.shape(value) == np.shape(other), name
    selected = int(np.argmax(averaged.hyper_weights_))
    assert averaged.elbo_ == averaged.setting_elbo_[selected]
    assert averaged.n_iter_ == averaged.setting_n_iter_[selected]
    np.testing.assert_array_equal(averaged.elbo_history_,
                                  averaged.setting_elbo_history_[selected])
    assert averaged.converged_ == bool(np.all(averaged.setting_converged_))
    # the averaged posterior's moments given inclusion: coef_ = PIP x slab_means_ as for one
    np.testing.assert_allclose(averaged.coef_,
                               averaged.inclusion_probabilities_ * averaged.slab_means_,
                               rtol=1e-12, atol=1e-15)
    w, phi = averaged.hyper_weights_, averaged.setting_inclusion_probabilities_
    mu, s2 = averaged.setting_slab_means_, averaged.setting_slab_variances_
    second = (w[:, None] * phi * (s2 + mu**2)).sum(axis=0) / averaged.inclusion_probabilities_
    np.testing.assert_allclose(averaged.slab_variances_, second - averaged.slab_means_**2,
                               rtol=1e-9)
    assert averaged.prior_inclusion_ == pytest.approx(w @ np.asarray(grid), rel=1e-12)
    # the single setting's setting_* rows are its own attributes
    np.testing.assert_array_equal(single.setting_coef_[0], single.coef_)
    assert single.setting_elbo_[0] == single.elbo_


def age_bmi_smoker(seed=1, n=200):
    """y = 0.05 age + 0.3 bmi + 1.2 smoker + noise, age ~ N(50, 10): age's slab in raw units
    (years) is far wider than its effect, so without standardizing it is not selected."""
    rng = np.random.default_rng(seed)
    age, bmi = rng.normal(50, 10, n), rng.normal(27, 4, n)
    smoker = (rng.random(n) < 0.3).astype(float)
    y = 0.05 * age + 0.3 * bmi + 1.2 * smoker + rng.normal(0, 1.4, n)
    return np.column_stack([age, bmi, smoker]), y


def test_standardized_selection_does_not_depend_on_units():
    """The issue's example (OLS t = 4.4 for age here): standardized, age is selected with
    its coefficient near 0.05; on the raw columns (varbvs's convention) it is not. Age in
    months instead of years changes nothing but the coefficient's units."""
    X, y = age_bmi_smoker()
    model = AlphaSpikeSlabRegression(alpha=0.5).fit(X, y)
    assert model.inclusion_probabilities_[0] > 0.8
    assert model.coef_[0] == pytest.approx(0.05, abs=0.01)
    raw = AlphaSpikeSlabRegression(alpha=0.5, standardize=False).fit(X, y)
    assert raw.inclusion_probabilities_[0] < 0.5
    months = X * np.array([12.0, 1.0, 1.0])
    in_months = AlphaSpikeSlabRegression(alpha=0.5).fit(months, y)
    np.testing.assert_allclose(in_months.inclusion_probabilities_,
                               model.inclusion_probabilities_, rtol=1e-9)
    np.testing.assert_allclose(in_months.coef_ * [12.0, 1.0, 1.0], model.coef_, rtol=1e-9)
    np.testing.assert_allclose(in_months.predict(months), model.predict(X), rtol=1e-12)


@pytest.mark.parametrize("n_covariates", [0, 2])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_standardize_is_a_fit_on_scaled_columns_reported_on_the_original_scale(
        n_covariates, fit_intercept):
    """standardize=True equals a raw fit on X / sd with every coefficient-scale attribute
    divided by sd: PIPs, objective, intercept and covariates equal, coefficients, slab moments,
    intervals and draws rescaled, predictions (and their sd) equal."""
    X, y, Z = covariate_problem(d=6, k=max(n_covariates, 1), seed=2)
    X = X * np.array([0.01, 1.0, 3.0, 50.0, 1.0, 1e3]) + 5.0
    Z = Z if n_covariates else None
    scale = X.std(axis=0)
    common = {"alpha": 0.6, "prior_inclusion": [0.2, 0.4], "fit_intercept": fit_intercept,
              "tol": 1e-12}
    model = AlphaSpikeSlabRegression(**common).fit(X, y, covariates=Z)
    scaled = AlphaSpikeSlabRegression(standardize=False, **common).fit(X / scale, y,
                                                                      covariates=Z)
    np.testing.assert_allclose(model.column_scale_, scale)
    np.testing.assert_allclose(model.inclusion_probabilities_,
                               scaled.inclusion_probabilities_, rtol=1e-8, atol=1e-12)
    assert model.elbo_ == pytest.approx(scaled.elbo_, rel=1e-10)
    for name, power in (("coef_", 1), ("slab_means_", 1), ("slab_variances_", 2)):
        np.testing.assert_allclose(getattr(model, name) * scale ** power,
                                   getattr(scaled, name), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(model.credible_intervals() * scale[:, None],
                               scaled.credible_intervals(), rtol=1e-7, atol=1e-10)
    assert model.intercept_ == pytest.approx(scaled.intercept_, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(model.covariate_coef_, scaled.covariate_coef_, rtol=1e-9)
    for got, want in zip(model.predict(X, return_std=True, covariates=Z),
                         scaled.predict(X / scale, return_std=True, covariates=Z), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-9)
    assert_draws_rescaled(model, scaled, scale)


def test_a_warm_start_after_standardize_changed_starts_cold():
    X, y = age_bmi_smoker()
    model = AlphaSpikeSlabRegression(alpha=0.5, warm_start=True).fit(X, y)
    model.set_params(standardize=False).fit(X, y)
    fresh = AlphaSpikeSlabRegression(alpha=0.5, standardize=False).fit(X, y)
    np.testing.assert_array_equal(model.coef_, fresh.coef_)


def test_the_default_noise_prior_is_in_the_units_of_y():
    """y x 1e-5: the earlier default (1e-6, 1e-6), in absolute units, was 94% of q(sigma2)'s
    scale and selected nothing (PIPs 0.01) where y selects the four true variables; the
    default "auto" prior, InvGamma(1e-6, 1e-6 Var(y)), selects them in both units with no
    warning (where it does set the noise level, a fit warns: test_linear's single row)."""
    X, y, _ = make_sparse_regression(n_samples=100, n_features=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fits = [AlphaSpikeSlabRegression(alpha=0.5).fit(X, c * y) for c in (1.0, 1e-5)]
        for fit in fits:
            assert np.all(fit.inclusion_probabilities_[:4] > 0.99)
        np.testing.assert_allclose(fits[1].inclusion_probabilities_,
                                   fits[0].inclusion_probabilities_, rtol=1e-6, atol=1e-9)
    absolute = AlphaSpikeSlabRegression(alpha=0.5, noise_prior=(1e-6, 1e-6)).fit(X, y * 1e-5)
    assert np.all(absolute.inclusion_probabilities_ < 0.05)


@pytest.mark.parametrize("settings", [{}, {"prior_inclusion": [0.1, 0.4]},
                                      {"standardize": False, "fit_intercept": False}])
@pytest.mark.parametrize("with_covariates", [False, True])
def test_integer_sample_weights_are_repeated_rows(settings, with_covariates):
    """fit had no sample_weight; a weight now counts its row that many times: the fit equals
    the fit of the repeated rows (PIPs, coefficients, intercept, covariates, noise, the
    objective and the predictive sd; a weight of 0 drops the row)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6)) * [1.0, 3.0, 1.0, 1.0, 0.2, 1.0] + 2.0
    Z = rng.normal(size=(40, 2))
    y = X[:, 0] - 0.3 * X[:, 1] + Z[:, 0] + rng.normal(size=40)
    weight = rng.integers(0, 4, size=40)
    rows = np.repeat(np.arange(40), weight)
    Z_fit = Z if with_covariates else None
    common = {"alpha": 0.6, "tol": 1e-13, **settings}
    weighted = AlphaSpikeSlabRegression(**common).fit(X, y, covariates=Z_fit,
                                                      sample_weight=weight)
    repeated = AlphaSpikeSlabRegression(**common).fit(
        X[rows], y[rows], covariates=None if Z_fit is None else Z[rows])
    for name in ("inclusion_probabilities_", "coef_", "intercept_", "covariate_coef_",
                 "noise_variance_", "elbo_"):
        np.testing.assert_allclose(getattr(weighted, name), getattr(repeated, name),
                                   rtol=1e-6, atol=1e-10, err_msg=name)
    Z_new = None if Z_fit is None else Z[:3]
    np.testing.assert_allclose(weighted.predict(X[:3], return_std=True, covariates=Z_new)[1],
                               repeated.predict(X[:3], return_std=True, covariates=Z_new)[1],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="sample_weight"):
        AlphaSpikeSlabRegression().fit(X, y, sample_weight=-weight - 1)


def test_sample_weights_beyond_float_range_are_refused_by_name():
    """Weights of 1e200 per row ended in ZeroDivisionError, later in 'the objective became
    inf ... standardise X and y', advice about the wrong input."""
    from alphavb import AlphaLinearRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X @ [1.0, -1.0, 0.5] + rng.normal(size=60)
    for model in (AlphaSpikeSlabRegression(), AlphaLinearRegression()):
        with pytest.raises(ValueError, match=r"'sample_weight'.*divide relative weights"):
            model.fit(X, y, sample_weight=np.full(60, 1e200))
        # below the bound the fit is finite (1e100 copies of each row: q is a point mass)
        assert np.all(np.isfinite(model.fit(X, y, sample_weight=np.full(60, 1e100)).coef_))


@pytest.mark.parametrize("params", [{}, {"alpha": 0.5}, {"algorithm": "paper"},
                                    {"prior_inclusion": [0.05, 0.2, 0.5]},
                                    {"standardize": False}, {"fit_intercept": False}])
def test_fit_sufficient_equals_the_fit_on_the_rows(params):
    """The spike-and-slab model reads its rows only through X'X, X'y, y'y and n:
    fit_sufficient (sweeps on p + 1 rows with those statistics, Var(y) of the statistics for
    the start) is the fit on diabetes's rows, in columns of units 1 to 1,000: PIPs and
    coefficients to 1e-10, the same sweeps and the same approximation check."""
    from sklearn.datasets import load_diabetes

    from alphavb.linear_model import sufficient_statistics

    X, y = load_diabetes(return_X_y=True)
    X = X * np.array([1, 10, 100, 1000, 1, 1, 1, 1, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorApproximationWarning)  # (diabetes warns)
        dense = AlphaSpikeSlabRegression(random_state=0, **params).fit(X, y)
        stats = (sufficient_statistics(X, y) if params.get("fit_intercept", True) else
                 {"XtX": X.T @ X, "Xty": X.T @ y, "yty": y @ y, "n_samples": len(y),
                  "X_mean": X.mean(axis=0), "y_mean": y.mean()})
        fitted = AlphaSpikeSlabRegression(random_state=0, **params).fit_sufficient(**stats)
    np.testing.assert_allclose(fitted.inclusion_probabilities_,
                               dense.inclusion_probabilities_, atol=1e-10)
    np.testing.assert_allclose(fitted.coef_, dense.coef_, atol=1e-10 * np.abs(dense.coef_).max())
    np.testing.assert_allclose(fitted.predict(X[:20]), dense.predict(X[:20]), rtol=1e-10)
    assert fitted.n_iter_ == dense.n_iter_
    assert fitted.elbo_ == pytest.approx(dense.elbo_, rel=1e-12)
    np.testing.assert_allclose(fitted.approximation_check_.exact_pips,
                               dense.approximation_check_.exact_pips, atol=1e-10)


def test_fit_sufficient_refuses_covariates_projected_out():
    """fit(X, y, covariates=Z) reads the columns' scales before it projects Z out, which
    projected statistics no longer tell: refused by name (AlphaSuSiE takes them)."""
    from sklearn.datasets import load_diabetes

    from alphavb.linear_model import sufficient_statistics

    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="n_covariates"):
        AlphaSpikeSlabRegression().fit_sufficient(**sufficient_statistics(X, y),
                                                  n_covariates=2, covariates_log_det=1.0)
