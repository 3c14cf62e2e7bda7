"""AlphaLinearRegression: exact fractional-posterior identities (spec §2) and behaviour."""

import pickle
import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from alphavb import AlphaLinearRegression, AlphaSpikeSlabRegression
from alphavb._special import kl_inv_gamma
from tests.conftest import assert_monotone
from tests.naive import fractional_gaussian_log_normaliser, fractional_gaussian_posterior

# the paper's Cor. 4.1 prior on the raw coefficients, beta ~ N(0, 1 / prior_precision)
# whatever sigma2 (the default is beta | sigma2 ~ N(0, sigma2 / prior_precision) on the
# standardized columns)
RAW_PRIOR = {"coef_prior": "independent", "standardize": False}


def make_problem(rng, n=40, d=5, noise=0.5):
    X = rng.normal(size=(n, d))
    coef = rng.normal(size=d)
    return X, X @ coef + 1.5 + noise * rng.normal(size=n)


@pytest.mark.parametrize("alpha", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_known_noise_gives_the_fractional_posterior(rng, alpha, fit_intercept):
    X, y = make_problem(rng)
    precision = np.array([0.5, 1.0, 2.0, 3.0, 0.1])
    model = AlphaLinearRegression(alpha=alpha, noise_variance=0.3, prior_precision=precision,
                                  fit_intercept=fit_intercept, **RAW_PRIOR).fit(X, y)
    Xc, yc = (X - X.mean(0), y - y.mean()) if fit_intercept else (X, y)
    mean, cov = fractional_gaussian_posterior(Xc, yc, alpha, 0.3, precision)
    np.testing.assert_allclose(model.coef_, mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.coef_cov_, cov, rtol=1e-10, atol=1e-14)
    expected_intercept = y.mean() - X.mean(0) @ mean if fit_intercept else 0.0
    assert model.intercept_ == pytest.approx(expected_intercept, rel=1e-10, abs=1e-12)
    assert model.noise_variance_ == 0.3


@pytest.mark.parametrize("alpha", [0.3, 1.0])
def test_known_noise_elbo_equals_log_normaliser(rng, alpha):
    """q(beta) is the exact fractional posterior, so alpha * L_alpha = log Z_alpha (spec §1)."""
    X, y = make_problem(rng, n=30, d=4)
    precision = np.array([0.5, 1.0, 2.0, 3.0])
    model = AlphaLinearRegression(alpha=alpha, noise_variance=0.7, prior_precision=precision,
                                  fit_intercept=False, **RAW_PRIOR).fit(X, y)
    log_z = fractional_gaussian_log_normaliser(X, y, alpha, 0.7, precision)
    assert alpha * model.elbo_ == pytest.approx(log_z, rel=1e-10)
    fractional = AlphaLinearRegression(alpha=alpha, noise_variance=0.7, prior_precision=precision,
                                       fit_intercept=False, objective="fractional",
                                       **RAW_PRIOR).fit(X, y)
    assert fractional.elbo_ == pytest.approx(log_z, rel=1e-10)
    np.testing.assert_allclose(fractional.coef_, model.coef_, rtol=1e-12)


def test_learned_noise_objective_matches_monte_carlo(rng):
    """alpha-ELBO = E_q[log p(y | beta, sigma2)] - KL(q || p) / alpha, E_q by sampling q."""
    alpha, a0, b0 = 0.6, 2.0, 1.5
    X, y = make_problem(rng, n=25, d=3)
    precision = np.array([0.5, 1.0, 2.0])
    model = AlphaLinearRegression(alpha=alpha, prior_precision=precision, noise_prior=(a0, b0),
                                  fit_intercept=False, **RAW_PRIOR).fit(X, y)
    draws = model.sample_posterior(200_000, random_state=1)
    coef, noise = draws["coef"], draws["noise_variance"]
    sq = ((y[None, :] - coef @ X.T) ** 2).sum(axis=1)
    loglik = -0.5 * len(y) * np.log(2 * np.pi * noise) - 0.5 * sq / noise
    m, V = model.coef_, model.coef_cov_
    kl_coef = 0.5 * (np.trace(np.diag(precision) @ V) + m @ (precision * m) - 3
                     - np.sum(np.log(precision)) - np.linalg.slogdet(V)[1])
    kl_noise = kl_inv_gamma(model.noise_shape_, model.noise_scale_, a0, b0)
    monte_carlo = loglik.mean() - (kl_coef + kl_noise) / alpha
    standard_error = loglik.std() / np.sqrt(len(loglik))
    assert abs(model.elbo_ - monte_carlo) < 4 * standard_error


@pytest.mark.parametrize("alpha", [0.3, 1.0])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_conjugate_prior_with_known_noise_is_the_fractional_posterior(rng, alpha,
                                                                      fit_intercept):
    """The default prior beta_j | sigma2 ~ N(0, sigma2 / (lambda sd_j^2)) on the raw
    coefficient: with sigma2 known, q(beta) is the fractional posterior with the prior
    precision lambda sd^2 / sigma2, and alpha * L_alpha is its log normaliser."""
    X, y = make_problem(rng, n=30, d=4)
    X = X * [0.1, 1.0, 10.0, 3.0]
    lam, sigma2 = np.array([0.5, 1.0, 2.0, 3.0]), 0.7
    model = AlphaLinearRegression(alpha=alpha, noise_variance=sigma2, prior_precision=lam,
                                  fit_intercept=fit_intercept).fit(X, y)
    Xc, yc = (X - X.mean(0), y - y.mean()) if fit_intercept else (X, y)
    precision = lam * Xc.std(axis=0) ** 2 / sigma2 if fit_intercept else \
        lam * X.std(axis=0) ** 2 / sigma2
    mean, cov = fractional_gaussian_posterior(Xc, yc, alpha, sigma2, precision)
    np.testing.assert_allclose(model.coef_, mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.coef_cov_, cov, rtol=1e-10, atol=1e-14)
    if not fit_intercept:
        log_z = fractional_gaussian_log_normaliser(X, y, alpha, sigma2, precision)
        assert alpha * model.elbo_ == pytest.approx(log_z, rel=1e-10)


def test_conjugate_learned_noise_objective_matches_monte_carlo(rng):
    """With beta | sigma2 ~ N(0, sigma2 / lambda): alpha-ELBO = E_q[log p(y | beta,
    sigma2)] - (E_q[log q(beta) - log p(beta | sigma2)] + KL(q(sigma2) || p)) / alpha, both
    expectations by sampling q; and the fit is the CAVI fixed point (q(beta)'s covariance
    is (E[1/sigma2] (alpha X'X + Lambda0))^{-1})."""
    alpha, a0, b0 = 0.6, 2.0, 1.5
    X, y = make_problem(rng, n=25, d=3)
    lam = np.array([0.5, 1.0, 2.0])
    model = AlphaLinearRegression(alpha=alpha, prior_precision=lam, noise_prior=(a0, b0),
                                  fit_intercept=False, standardize=False).fit(X, y)
    tau = model.noise_shape_ / model.noise_scale_
    V = np.linalg.inv(tau * (alpha * X.T @ X + np.diag(lam)))
    np.testing.assert_allclose(model.coef_cov_, V, rtol=1e-8)
    np.testing.assert_allclose(model.coef_, np.linalg.solve(alpha * X.T @ X + np.diag(lam),
                                                            alpha * X.T @ y), rtol=1e-10)
    assert model.noise_shape_ == pytest.approx(a0 + (alpha * 25 + 3) / 2, rel=1e-12)
    draws = model.sample_posterior(200_000, random_state=1)
    coef, noise = draws["coef"], draws["noise_variance"]
    sq = ((y[None, :] - coef @ X.T) ** 2).sum(axis=1)
    loglik = -0.5 * len(y) * np.log(2 * np.pi * noise) - 0.5 * sq / noise
    m = model.coef_
    # E_q log N(beta; m, V) - log N(beta; 0, sigma2 / lam), per draw of (beta, sigma2)
    log_q = -0.5 * (3 * np.log(2 * np.pi) + np.linalg.slogdet(V)[1]
                    + np.einsum("ij,jk,ik->i", coef - m, np.linalg.inv(V), coef - m))
    log_prior = -0.5 * (3 * np.log(2 * np.pi) + 3 * np.log(noise) - np.sum(np.log(lam))
                        + (coef * coef) @ lam / noise)
    kl_noise = kl_inv_gamma(model.noise_shape_, model.noise_scale_, a0, b0)
    terms = loglik - (log_q - log_prior) / alpha
    monte_carlo = terms.mean() - kl_noise / alpha
    assert abs(model.elbo_ - monte_carlo) < 4 * terms.std() / np.sqrt(len(terms))


def test_learned_noise_matches_ols_under_a_flat_prior(rng):
    X, y = make_problem(rng, n=200, d=3, noise=0.8)
    model = AlphaLinearRegression(alpha=1.0, prior_precision=1e-10).fit(X, y)
    ols = sm.OLS(y, sm.add_constant(X)).fit()
    np.testing.assert_allclose(model.coef_, ols.params[1:], rtol=1e-6)
    assert model.intercept_ == pytest.approx(ols.params[0], rel=1e-6)
    # E[sigma2] = b_n / (a_n - 1) with b_n -> RSS/2 + O(1), a_n = n/2: close to RSS / n
    assert model.noise_variance_ == pytest.approx(ols.ssr / len(y), rel=0.05)


def test_alpha_widens_the_posterior(rng):
    """Tempering divides the data information by alpha: variances grow as alpha falls."""
    X, y = make_problem(rng, n=100, d=3)
    variances = [np.diag(AlphaLinearRegression(alpha=a, noise_variance=0.25).fit(X, y).coef_cov_)
                 for a in (1.0, 0.5, 0.25)]
    assert np.all(variances[0] < variances[1]) and np.all(variances[1] < variances[2])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), alpha=st.floats(0.05, 1.0), learned=st.booleans(),
       n=st.integers(3, 30), d=st.integers(1, 12))
def test_alpha_elbo_never_decreases(seed, alpha, learned, n, d):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + rng.normal(size=n)
    model = AlphaLinearRegression(alpha=alpha, noise_variance=None if learned else 1.3,
                                  tol=0.0, max_iter=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    assert_monotone(model.elbo_history_)


def test_predict_std_and_intervals(rng):
    X, y = make_problem(rng)
    model = AlphaLinearRegression(alpha=0.5).fit(X, y)
    mean, std = model.predict(X[:5], return_std=True)
    np.testing.assert_allclose(mean, model.predict(X[:5]))
    x = X[:5] - X.mean(0)
    # the intercept's own spread given beta and sigma2: sigma2 / (alpha n)
    expected = np.sqrt(np.einsum("ij,jk,ik->i", x, model.coef_cov_, x)
                       + model.noise_variance_ * (1.0 + 1.0 / (0.5 * len(X))))
    np.testing.assert_allclose(std, expected, rtol=1e-12)
    interval = model.credible_intervals(0.9)
    sd = np.sqrt(np.diag(model.coef_cov_))
    np.testing.assert_allclose(interval[:, 1] - model.coef_, 1.6448536269514722 * sd, rtol=1e-9)


def test_sample_posterior_matches_q(rng):
    X, y = make_problem(rng)
    model = AlphaLinearRegression(alpha=0.5).fit(X, y)
    draws = model.sample_posterior(20000, random_state=0)
    coef, noise = draws["coef"], draws["noise_variance"]
    assert coef.shape == (20000, X.shape[1]) and noise.shape == (20000,)
    se = np.sqrt(np.diag(model.coef_cov_) / 20000)
    assert np.all(np.abs(coef.mean(0) - model.coef_) < 5 * se)
    # standard error of a sample covariance entry <= sqrt(V_ii V_jj (1 + rho^2) / N)
    diag = np.diag(model.coef_cov_)
    cov_se = np.sqrt(2 * np.outer(diag, diag) / 20000)
    assert np.all(np.abs(np.cov(coef.T) - model.coef_cov_) < 5 * cov_se)
    assert np.mean(noise) == pytest.approx(model.noise_variance_, rel=0.02)
    again = model.sample_posterior(20000, random_state=0)["coef"]
    np.testing.assert_array_equal(coef, again)


def test_summary_table(rng):
    X, y = make_problem(rng)
    model = AlphaLinearRegression(alpha=0.8).fit(X, y)
    text = model.summary().as_text()
    for word in ("coef", "sd", "lower", "upper", "x4", "AlphaLinearRegression", "0.8"):
        assert word in text


def test_summary_before_fit_is_refused():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        AlphaLinearRegression().summary()


def test_pickle_round_trip(rng):
    X, y = make_problem(rng)
    model = AlphaLinearRegression(alpha=0.5).fit(X, y)
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone.predict(X), model.predict(X))


def test_inputs_are_not_modified(rng):
    X, y = make_problem(rng)
    X_copy, y_copy = X.copy(), y.copy()
    precision = np.ones(X.shape[1])
    AlphaLinearRegression(prior_precision=precision).fit(X, y)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(y, y_copy)
    np.testing.assert_array_equal(precision, np.ones(X.shape[1]))


@pytest.mark.parametrize("params, match", [
    ({"alpha": 0.0}, "'alpha' parameter of AlphaLinearRegression must be a float in \\(0"),
    ({"alpha": 1.5}, "alpha = 1 for ordinary VB"),
    ({"alpha": np.nan}, "'alpha'"),
    ({"alpha": True}, "'alpha'"),
    ({"objective": "kl"}, "'objective'"),
    ({"max_iter": 0}, "'max_iter'"),
    ({"n_init": 1.5}, "'n_init'"),
    ({"tol": -1.0}, "'tol'"),
    ({"noise_variance": -1.0}, "Pass None to learn it"),
    ({"noise_prior": (1.0, -1.0)}, "'noise_prior'"),
    ({"prior_precision": 0.0}, "'prior_precision'"),
    ({"prior_precision": [1.0, 2.0]}, "array of shape \\(5,\\)"),
])
def test_bad_parameters_raise(rng, params, match):
    X, y = make_problem(rng)
    with pytest.raises(ValueError, match=match):
        AlphaLinearRegression(**params).fit(X, y)


def test_bad_data_raise(rng):
    X, y = make_problem(rng)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        AlphaLinearRegression().fit(bad, y)
    with pytest.raises(ValueError, match="Input y contains infinity"):
        AlphaLinearRegression().fit(X, np.where(np.arange(len(y)) == 0, np.inf, y))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        AlphaLinearRegression().fit(X, y[:-1])
    with pytest.raises(ValueError, match="0 sample"):
        AlphaLinearRegression().fit(X[:0], y[:0])
    with pytest.raises(ValueError, match=r"Input X .* Rescale it first"):
        AlphaLinearRegression().fit(X * 1e160, y)
    model = AlphaLinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])


def test_more_features_than_rows_uses_the_dual_and_matches_the_dense_answer(rng):
    n, d, alpha = 12, 40, 0.7
    X = rng.normal(size=(n, d))
    y = X[:, :3] @ [1.0, -1.0, 0.5] + 0.3 * rng.normal(size=n)
    precision = rng.uniform(0.5, 2.0, size=d)
    model = AlphaLinearRegression(alpha=alpha, prior_precision=precision, fit_intercept=False,
                                  tol=1e-13, max_iter=5000, **RAW_PRIOR).fit(X, y)
    assert np.all(np.diff(model.elbo_history_) >= -1e-10 * np.abs(model.elbo_history_[1:]))
    # at the fixed point q(beta) is the dense conjugate update at E[1/sigma2] (to the
    # distance from the fixed point that tol leaves: the last q(beta) used the previous tau)
    c = alpha * model.noise_shape_ / model.noise_scale_
    V = np.linalg.inv(c * X.T @ X + np.diag(precision))
    np.testing.assert_allclose(model.coef_cov_, V, atol=1e-6)
    np.testing.assert_allclose(model.coef_, c * V @ X.T @ y, atol=1e-6)
    # with a known noise one sweep is exact (the fractional posterior)
    known = AlphaLinearRegression(alpha=alpha, noise_variance=0.25, prior_precision=precision,
                                  fit_intercept=False, **RAW_PRIOR).fit(X, y)
    V = np.linalg.inv(alpha * X.T @ X / 0.25 + np.diag(precision))
    np.testing.assert_allclose(known.coef_cov_, V, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(known.coef_, alpha * V @ X.T @ y / 0.25, rtol=1e-9, atol=1e-12)
    # its objective is the dense alpha-ELBO
    residual = y - X @ known.coef_
    expected = (-0.5 * n * np.log(2 * np.pi * 0.25)
                - 0.5 * (residual @ residual + np.trace(X.T @ X @ V)) / 0.25
                - 0.5 * (np.sum(precision * np.diag(V)) + known.coef_ @ (precision * known.coef_)
                         - d - np.sum(np.log(precision)) - np.linalg.slogdet(V)[1]) / alpha)
    assert known.elbo_ == pytest.approx(expected, rel=1e-10)
    # prediction variances and draws use the low-rank form
    x = rng.normal(size=(5, d))
    _, sd = known.predict(x, return_std=True)
    np.testing.assert_allclose(sd**2, np.einsum("ij,jk,ik->i", x, V, x) + 0.25, rtol=1e-9)
    draws = known.sample_posterior(20000, random_state=0)["coef"]
    np.testing.assert_allclose(np.cov(draws.T), V, atol=6 * np.sqrt(2 * np.max(np.diag(V))**2
                                                                   / 20000))
    se = np.sqrt(np.diag(V) / 20000)
    assert np.all(np.abs(draws.mean(axis=0) - known.coef_) < 5 * se)


def test_twenty_rows_and_five_thousand_features_fit_quickly():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 5000))
    y = X[:, :2] @ [2.0, -1.0] + 0.1 * rng.normal(size=20)
    model = AlphaLinearRegression(alpha=0.5).fit(X, y)
    assert model.converged_ and np.all(np.isfinite(model.coef_))
    # the conjugate prior's sweep contracts by d / (2 a_n) = 0.998 here; started at its
    # closed-form fixed point it converges at once (no wall-clock assertion: a loaded CI
    # machine made one fail)
    assert model.n_iter_ <= 3
    slow = AlphaLinearRegression(alpha=0.5, **RAW_PRIOR).fit(X, y)
    assert slow.converged_ and np.all(np.isfinite(slow.coef_))


@pytest.mark.parametrize("estimator", [AlphaLinearRegression, AlphaSpikeSlabRegression])
def test_text_targets_and_a_single_row_are_explained(estimator):
    with pytest.raises(ValueError, match=r"y must hold numbers.*Encode the target"):
        estimator().fit([[1.0], [2.0]], ["a", "b"])
    numeric_text = estimator().fit([[1.0], [2.0], [3.0]], ["1.5", "2", "3.1"])
    np.testing.assert_allclose(numeric_text.coef_,
                               estimator().fit([[1.0], [2.0], [3.0]], [1.5, 2.0, 3.1]).coef_)
    # one row: under the paper's independent prior q(sigma2) has shape a0 + alpha / 2 and no
    # finite mean; the conjugate prior adds d / 2 and the noise level is then the prior's
    independent = RAW_PRIOR if estimator is AlphaLinearRegression else {}
    with pytest.warns(UserWarning, match="no finite mean.*noise_variance_ .*inf"):
        model = estimator(**independent).fit([[1.0]], [2.0])
    assert model.noise_variance_ == np.inf
    if estimator is AlphaLinearRegression:
        with pytest.warns(UserWarning, match="the prior, not the data, sets the noise level"):
            estimator().fit([[1.0]], [2.0])


# (with d > n and a learned noise level the fit interpolates: sigma2 -> the prior's scale)
@pytest.mark.parametrize(("n_features", "learned_noise"), [(5, False), (5, True), (50, False)])
def test_integer_sample_weights_are_repeated_rows(n_features, learned_noise):
    """A weight counts its row that many times (0 drops it): the weighted fit equals the fit
    of the repeated rows; with 50 features the 40 weighted rows take the dual (d > n) path
    and the repeated ones (about 60) the primal, so both paths are checked against each
    other."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, n_features)) + 1.0
    y = X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=40)
    weight = rng.integers(0, 4, size=40)
    rows = np.repeat(np.arange(40), weight)
    common = {"alpha": 0.7, "noise_variance": None if learned_noise else 0.9, "tol": 1e-14,
              "max_iter": 2000}
    weighted = AlphaLinearRegression(**common).fit(X, y, sample_weight=weight)
    repeated = AlphaLinearRegression(**common).fit(X[rows], y[rows])
    for name in ("coef_", "coef_cov_", "intercept_", "noise_variance_", "elbo_"):
        np.testing.assert_allclose(getattr(weighted, name), getattr(repeated, name),
                                   rtol=1e-7, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(weighted.predict(X[:3], return_std=True)[1],
                               repeated.predict(X[:3], return_std=True)[1], rtol=1e-7)


def test_summary_rows_keep_distinct_names_when_a_feature_is_named_like_them():
    """A feature named "intercept" or "sigma2", or a covariate named as a feature, repeated
    a label in summary_frame (so .loc returned two rows); the model's row goes in
    parentheses instead."""
    import pandas as pd

    from alphavb import AlphaSpikeSlabRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=["intercept", "sigma2", "a"])
    y = X.sum(axis=1) + rng.normal(size=40)
    frame = AlphaLinearRegression().fit(X, y).summary_frame()
    assert list(frame.index) == ["intercept", "sigma2", "a", "(intercept)", "(sigma2)"]
    Z = pd.DataFrame(rng.normal(size=(40, 1)), columns=["a"])
    model = AlphaSpikeSlabRegression().fit(X, y, covariates=Z)
    frame = model.summary_frame()
    assert frame.index.is_unique and list(frame.index[3:]) == ["(intercept)", "(a)",
                                                               "(sigma2)"]
    assert frame.loc["(a)", "coef"] == pytest.approx(float(np.ravel(model.covariate_coef_)[0]))
    assert "(sigma2)" in str(model.summary())


def test_the_summarys_rules_have_one_width():
    """The header, coefficient and intercept tables were 41, 43 and 48 characters wide."""
    from alphavb import AlphaSpikeSlabRegression

    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 4))
    y = X[:, 0] * 300.0 + rng.normal(size=50) * 50
    for model in (AlphaLinearRegression(), AlphaSpikeSlabRegression()):
        text = str(model.fit(X, y).summary(max_rows=2))
        rules = [line for line in text.splitlines() if line and set(line) <= set("=-")]
        assert len(rules) >= 5 and len({len(rule) for rule in rules}) == 1, text


@pytest.mark.parametrize("params", [{}, {"alpha": 0.5}, {"standardize": False},
                                    {"noise_variance": 3000.0}, {"fit_intercept": False},
                                    {"coef_prior": "independent"}])
def test_fit_sufficient_equals_the_fit_on_the_rows(params):
    """The model reads the rows only through X'X, X'y, y'y and n: fit_sufficient on them
    (centred with fit_intercept, as they are without) is fit on the rows, in columns of
    units 1 to 1,000 (the independent prior's CAVI: to its tolerance)."""
    from sklearn.datasets import load_diabetes

    from alphavb.linear_model import sufficient_statistics

    X, y = load_diabetes(return_X_y=True)
    X = X * np.array([1, 10, 100, 1000, 1, 1, 1, 1, 1, 1])
    dense = AlphaLinearRegression(**params).fit(X, y)
    if params.get("fit_intercept", True):
        stats = sufficient_statistics(X, y)
    else:
        stats = {"XtX": X.T @ X, "Xty": X.T @ y, "yty": y @ y, "n_samples": len(y),
                 "X_mean": X.mean(axis=0), "y_mean": y.mean()}
    fitted = AlphaLinearRegression(**params).fit_sufficient(**stats)
    rtol = 1e-6 if params.get("coef_prior") == "independent" else 1e-10
    np.testing.assert_allclose(fitted.coef_, dense.coef_, rtol=rtol,
                               atol=rtol * np.abs(dense.coef_).max())
    np.testing.assert_allclose(fitted.predict(X[:20]), dense.predict(X[:20]), rtol=rtol)
    assert fitted.noise_variance_ == pytest.approx(dense.noise_variance_, rel=rtol)
    assert fitted.elbo_ == pytest.approx(dense.elbo_, rel=1e-10)
    np.testing.assert_allclose(fitted.credible_intervals(), dense.credible_intervals(),
                               rtol=rtol, atol=rtol * np.abs(dense.coef_).max())
    with pytest.raises(ValueError, match="yty"):
        AlphaLinearRegression(**params).fit_sufficient(**{**stats, "yty": 1e-3})


def test_fit_sufficient_refuses_statistics_of_no_rows():
    """Each column's |x'y| <= sqrt(x'x y'y) holds (8 <= 10), but X'y (X'X)^-1 X'y = 12.8 >
    y'y = 10: no rows have these statistics; the error names yty."""
    with pytest.raises(ValueError, match=r"yty.*12\.8"):
        AlphaLinearRegression().fit_sufficient(np.eye(2) * 10.0, np.array([8.0, 8.0]), 10.0,
                                               11)
