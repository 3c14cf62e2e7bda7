"""Divergences against numerical integration, and the VB risk against quadrature over q."""

import numpy as np
import pytest
from scipy import integrate
from scipy.special import expit
from scipy.stats import multivariate_normal, norm

from alphavb import AlphaGaussianMixture, AlphaLinearRegression, AlphaSpikeSlabRegression
from alphavb.datasets import make_gmm, make_lda_corpus
from alphavb.divergences import (
    hellinger_categorical,
    hellinger_monte_carlo,
    hellinger_mvn,
    hellinger_normal,
    renyi_categorical,
    renyi_monte_carlo,
    renyi_mvn,
    renyi_normal,
)
from alphavb.risk import lda_risk, logistic_risk, mixture_risk, regression_risk

NORMAL_PAIRS = [(0.0, 1.0, 0.0, 1.0), (0.3, 1.0, -0.4, 2.5), (2.0, 0.2, -1.0, 3.0),
                (-1.5, 4.0, 1.5, 0.5)]


def _quad(f, low=-40.0, high=40.0):
    return integrate.quad(f, low, high, limit=400, epsabs=1e-13, epsrel=1e-11)[0]


@pytest.mark.parametrize("m1, v1, m2, v2", NORMAL_PAIRS)
@pytest.mark.parametrize("order", [0.1, 0.5, 0.9])
def test_renyi_normal_matches_quadrature(m1, v1, m2, v2, order):
    p, q = norm(m1, np.sqrt(v1)), norm(m2, np.sqrt(v2))
    integral = _quad(lambda x: np.exp(order * p.logpdf(x) + (1 - order) * q.logpdf(x)))
    expected = np.log(integral) / (order - 1)
    assert renyi_normal(m1, v1, m2, v2, order) == pytest.approx(expected, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("m1, v1, m2, v2", NORMAL_PAIRS)
def test_hellinger_normal_matches_quadrature(m1, v1, m2, v2):
    p, q = norm(m1, np.sqrt(v1)), norm(m2, np.sqrt(v2))
    expected = _quad(lambda x: (np.sqrt(p.pdf(x)) - np.sqrt(q.pdf(x))) ** 2)
    value = hellinger_normal(m1, v1, m2, v2)
    assert value == pytest.approx(expected, rel=1e-8, abs=1e-12)
    # D_{1/2} = -2 log(1 - h^2/2) >= h^2 (spec §9)
    assert renyi_normal(m1, v1, m2, v2, 0.5) == pytest.approx(-2 * np.log1p(-value / 2))
    assert renyi_normal(m1, v1, m2, v2, 0.5) >= value


def test_hellinger_normal_is_accurate_for_nearby_distributions():
    # for a small mean shift d (equal variances), h^2 = 2 (1 - exp(-d^2/8)) ~ d^2 / 4
    assert hellinger_normal(1e-6, 1.0, 0.0, 1.0) == pytest.approx(1e-12 / 4, rel=1e-9)


def test_normal_divergences_broadcast():
    means = np.linspace(-1, 1, 5)
    values = hellinger_normal(means[:, None], 1.0, 0.0, np.array([0.5, 2.0]))
    assert values.shape == (5, 2)
    assert values[2, 0] == pytest.approx(hellinger_normal(0.0, 1.0, 0.0, 0.5))


MVN_CASES = [
    (np.array([0.3, -0.2]), np.array([[1.0, 0.4], [0.4, 0.7]]),
     np.array([-0.5, 0.6]), np.array([[2.0, -0.3], [-0.3, 1.2]])),
    (np.array([1.0, 1.0]), np.eye(2), np.array([0.0, 0.0]), 0.5 * np.eye(2)),
]


def _dblquad(f):
    return integrate.dblquad(lambda y, x: f(np.array([x, y])), -10, 10, -10, 10,
                             epsabs=1e-10, epsrel=1e-8)[0]


@pytest.mark.parametrize("case", range(len(MVN_CASES)))
def test_mvn_divergences_match_two_dimensional_quadrature(case):
    m1, c1, m2, c2 = MVN_CASES[case]
    p, q = multivariate_normal(m1, c1), multivariate_normal(m2, c2)
    order = 0.3
    integral = _dblquad(lambda x: np.exp(order * p.logpdf(x) + (1 - order) * q.logpdf(x)))
    assert renyi_mvn(m1, c1, m2, c2, order) == pytest.approx(np.log(integral) / (order - 1),
                                                             rel=1e-7)
    hellinger = _dblquad(lambda x: (np.sqrt(p.pdf(x)) - np.sqrt(q.pdf(x))) ** 2)
    assert hellinger_mvn(m1, c1, m2, c2) == pytest.approx(hellinger, rel=1e-7)


def test_mvn_reduces_to_univariate_and_batches():
    value = renyi_mvn([0.4], [[1.5]], [-0.2], [[0.6]], 0.7)
    assert value == pytest.approx(renyi_normal(0.4, 1.5, -0.2, 0.6, 0.7), rel=1e-12)
    m1, c1, m2, c2 = MVN_CASES[0]
    batch = hellinger_mvn(np.stack([m1, m2]), np.stack([c1, c2]), m2, c2)
    assert batch.shape == (2,)
    assert batch[0] == pytest.approx(hellinger_mvn(m1, c1, m2, c2))
    assert batch[1] == pytest.approx(0.0, abs=1e-14)


def test_categorical_divergences_match_their_sums():
    p = np.array([0.5, 0.3, 0.2, 0.0])
    q = np.array([0.1, 0.1, 0.4, 0.4])
    assert hellinger_categorical(p, q) == pytest.approx(
        sum((np.sqrt(a) - np.sqrt(b)) ** 2 for a, b in zip(p, q, strict=True)))
    order = 0.25
    total = sum(a**order * b ** (1 - order) for a, b in zip(p, q, strict=True))
    expected = np.log(total) / (order - 1)
    assert renyi_categorical(p, q, order) == pytest.approx(expected, rel=1e-12)
    # disjoint supports: the largest Hellinger distance and an infinite Rényi divergence
    assert hellinger_categorical([1.0, 0.0], [0.0, 1.0]) == pytest.approx(2.0)
    assert renyi_categorical([1.0, 0.0], [0.0, 1.0]) == np.inf


def test_monte_carlo_divergences_match_closed_forms():
    p, q = norm(0.3, 1.2), norm(-0.1, 0.9)

    def sample(n, rng):
        return p.rvs(size=n, random_state=rng)

    estimate, se = hellinger_monte_carlo(p.logpdf, q.logpdf, sample, 200_000, random_state=0)
    exact = hellinger_normal(0.3, 1.44, -0.1, 0.81)
    assert se < 0.02 * exact
    assert abs(estimate - exact) < 4 * se
    renyi = renyi_monte_carlo(p.logpdf, q.logpdf, sample, 0.4, 200_000, random_state=0)
    assert renyi == pytest.approx(renyi_normal(0.3, 1.44, -0.1, 0.81, 0.4), rel=0.02)


def test_monte_carlo_hellinger_of_mixtures_matches_quadrature():
    # a two-component mixture against a normal: no closed form, so quadrature is the truth
    def log_p(x):
        return np.logaddexp(np.log(0.3) + norm.logpdf(x, -2, 1),
                            np.log(0.7) + norm.logpdf(x, 1, 0.7))

    def sample(n, rng):
        left = rng.random_sample(n) < 0.3
        return np.where(left, rng.normal(-2, 1, n), rng.normal(1, 0.7, n))

    log_q = norm(0.2, 1.5).logpdf
    exact = _quad(lambda x: (np.exp(0.5 * log_p(x)) - np.exp(0.5 * log_q(x))) ** 2)
    estimate, se = hellinger_monte_carlo(log_p, log_q, sample, 100_000, random_state=1)
    # the wider q makes sqrt(q/p) heavy-tailed under p: a standard error of ~5% (measured)
    assert abs(estimate - exact) < 4 * se and se < 0.08 * exact


@pytest.mark.parametrize("bad, message", [
    ({"order": 0.0}, "order"), ({"order": 1.0}, "order"), ({"order": np.nan}, "order"),
])
def test_renyi_order_out_of_range(bad, message):
    with pytest.raises(ValueError, match=message):
        renyi_normal(0.0, 1.0, 0.0, 1.0, **bad)


def test_categorical_rejects_unnormalized():
    with pytest.raises(ValueError, match=r"'p'.*Normalize"):
        hellinger_categorical([0.5, 0.6], [0.5, 0.5])
    with pytest.raises(ValueError, match="'q'"):
        hellinger_categorical([0.5, 0.5], [1.5, -0.5])


def _one_feature_fit(alpha=0.5, n=40):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, 1))
    y = 0.8 * x[:, 0] + rng.standard_normal(n)
    return x, AlphaLinearRegression(alpha=alpha, fit_intercept=False, noise_variance=1.0).fit(
        x, y)


def test_regression_risk_matches_quadrature_over_q():
    # q(beta) = N(m, v) with a known noise variance: R = int N(b; m, v) mean_i h^2(...) db
    x, model = _one_feature_fit()
    m, v = model.coef_[0], model.coef_cov_[0, 0]

    def integrand(b):
        return norm.pdf(b, m, np.sqrt(v)) * np.mean(hellinger_normal(x[:, 0] * b, 1.0,
                                                                     x[:, 0] * 0.8, 1.0))

    exact = integrate.quad(integrand, m - 12 * np.sqrt(v), m + 12 * np.sqrt(v))[0]
    estimate = regression_risk(model, x, [0.8], 1.0, n_draws=40_000, random_state=0)
    assert estimate == pytest.approx(exact, rel=0.02)
    renyi = regression_risk(model, x, [0.8], 1.0, n_draws=40_000, divergence="renyi",
                            order=0.5, random_state=0)
    assert renyi > estimate  # D_{1/2} >= h^2 pointwise


def test_regression_risk_draws_the_noise_variance_and_intercept():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 3))
    coef = np.array([1.0, -0.5, 0.25])
    y = X @ coef + 2.0 + 0.5 * rng.standard_normal(200)
    model = AlphaLinearRegression(alpha=0.5).fit(X, y)
    good = regression_risk(model, X, coef, 0.25, intercept=2.0, random_state=0)
    # the same fit judged against a wrong intercept or noise level is much worse
    assert regression_risk(model, X, coef, 0.25, intercept=0.0, random_state=0) > 20 * good
    assert regression_risk(model, X, coef, 4.0, intercept=2.0, random_state=0) > 20 * good
    assert 0 < good < 0.05


def test_spike_slab_risk_uses_the_inclusion_draws():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((100, 20))
    coef = np.zeros(20)
    coef[:2] = [2.0, -1.5]
    y = X @ coef + rng.standard_normal(100)
    model = AlphaSpikeSlabRegression(alpha=0.5, random_state=0).fit(X, y)
    risk = regression_risk(model, X, coef, 1.0, random_state=0)
    # against the expected-coefficient plug-in's divergence: averaging over q costs more
    plug_in = np.mean(hellinger_normal(X @ model.coef_ + model.intercept_, model.noise_variance_,
                                       X @ coef, 1.0))
    assert plug_in < risk < 0.1
    pip = model.inclusion_probabilities_.copy()
    model.inclusion_probabilities_[:] = 0.0  # an empty model misses the signal
    assert regression_risk(model, X, coef, 1.0, random_state=0) > 10 * risk
    model.inclusion_probabilities_[:] = pip


def test_logistic_risk_against_exact_bernoulli_hellinger():
    from alphavb.blackbox import AlphaLogisticRegression

    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 2))
    coef = np.array([1.0, -1.0])
    y = (rng.random(300) < expit(X @ coef)).astype(int)
    model = AlphaLogisticRegression(alpha=0.5, random_state=0).fit(X, y)
    draws = model.vb_.sample(500, random_state=np.random.RandomState(5))
    # q is fitted on the standardized columns (X - column_offset_) / column_scale_
    slopes = draws[:, :-1] / model.column_scale_
    intercepts = draws[:, -1:] - slopes @ model.column_offset_[:, None]
    p, t = expit(slopes @ X.T + intercepts), expit(X @ coef)
    by_hand = np.mean((np.sqrt(p) - np.sqrt(t)) ** 2 + (np.sqrt(1 - p) - np.sqrt(1 - t)) ** 2)
    assert logistic_risk(model, X, coef, n_draws=500,
                         random_state=np.random.RandomState(5)) == pytest.approx(by_hand)


def test_mixture_risk_matches_quadrature_when_q_is_a_point():
    # with q(mu) concentrated (a huge sample), the risk is h^2 between the plug-in mixture
    # and the truth; in one dimension that is a quadrature
    X, _, means = make_gmm(n_samples=400, n_components=2, n_features=1, random_state=0)
    model = AlphaGaussianMixture(2, alpha=1.0, covariance_type="fixed",
                                 fixed_weights=[0.5, 0.5], random_state=0).fit(X)
    model.mean_covariances_ = model.mean_covariances_ * 1e-12
    fitted = np.sort(model.means_[:, 0])

    def density(x, centres):
        return 0.5 * norm.pdf(x, centres[0]) + 0.5 * norm.pdf(x, centres[1])

    exact = _quad(lambda x: (np.sqrt(density(x, fitted)) - np.sqrt(density(x, means[:, 0])))
                  ** 2)
    estimate = mixture_risk(model, means, n_draws=2, n_points=100_000, random_state=0)
    assert estimate == pytest.approx(exact, rel=0.05)


def test_mixture_risk_of_full_covariance_fit_is_small():
    X, _, means = make_gmm(n_samples=600, random_state=1)
    model = AlphaGaussianMixture(3, alpha=0.5, covariance_type="full", random_state=0).fit(X)
    risk = mixture_risk(model, means, random_state=0)
    assert risk < 0.1
    assert mixture_risk(model, means + 2.0, random_state=0) > 5 * risk


def test_lda_risk_shrinks_with_document_length():
    from alphavb import AlphaLDA

    risks = []
    for length in (50, 800):
        X, doc_topic, topic_word = make_lda_corpus(60, 3, 40, length, random_state=0)
        # the objective is multi-modal (seed 0 merges two topics): keep the best of 4 starts
        fits = [AlphaLDA(3, alpha=0.5, max_iter=300, topic_word_prior=0.1,
                         random_state=seed).fit(X) for seed in range(4)]
        model = max(fits, key=lambda fit: fit.elbo_)
        risks.append(lda_risk(model, X, doc_topic, topic_word, n_draws=20, random_state=0))
    # measured: 0.040 and 0.0025 (the document part of the risk shrinks like 1/length)
    assert risks[1] < risks[0] / 4


@pytest.mark.parametrize("kwargs, message", [
    ({"divergence": "kl"}, "'divergence'"), ({"n_draws": 0}, "'n_draws'"),
    ({"divergence": "renyi", "order": 1.5}, "'order'"),
])
def test_risk_parameters_are_checked(kwargs, message):
    x, model = _one_feature_fit()
    with pytest.raises(ValueError, match=message):
        regression_risk(model, x, [0.8], 1.0, **kwargs)


def test_risk_checks_the_truth_and_design():
    x, model = _one_feature_fit()
    with pytest.raises(ValueError, match="'coef'"):
        regression_risk(model, x, [0.8, 1.0], 1.0)
    with pytest.raises(ValueError, match="'X'"):
        regression_risk(model, np.c_[x, x], [0.8], 1.0)
    with pytest.raises(ValueError, match="'noise_variance'"):
        regression_risk(model, x, [0.8], -1.0)
    x_copy = x.copy()
    regression_risk(model, x, [0.8], 1.0, n_draws=5)
    np.testing.assert_array_equal(x, x_copy)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: hellinger_normal(0, -1.0, 1, 1), "'var1'.*positive"),
    (lambda: renyi_normal(0, 1, 1, 0.0), "'var2'.*positive"),
    (lambda: hellinger_normal(np.nan, 1, 1, 1), "'mean1'.*finite"),
    (lambda: hellinger_normal("a", 1, 0, 1), "'mean1'.*numbers"),
    (lambda: renyi_normal(np.zeros(3), 1, np.zeros(4), 1), "broadcast"),
    (lambda: hellinger_mvn([0, 0], [[1, 0.5], [0, 1]], [0, 0], np.eye(2)), "'cov1'.*symmetric"),
    (lambda: renyi_mvn([0, 0], np.eye(2), [0, 0], [[1, 2], [2, 1]]), "'cov2'.*positive defin"),
    (lambda: hellinger_mvn([0, 0], np.eye(3), [0, 0], np.eye(2)), "shape"),
])
def test_divergences_refuse_what_is_not_a_distribution(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_an_overflowing_divergence_says_so():
    with pytest.warns(UserWarning, match="exceeds float64"):
        assert renyi_normal(1e200, 1, -1e200, 1) == np.inf


def test_a_risk_function_names_the_model_it_needs(rng):
    mixture = AlphaGaussianMixture(2, random_state=0).fit(rng.normal(size=(30, 2)))
    with pytest.raises(ValueError, match=r"'model'.*AlphaLinearRegression.*AlphaGaussianMixture"):
        regression_risk(mixture, np.zeros((3, 2)), [0.0, 0.0], 1.0)
    with pytest.raises(ValueError, match=r"'model'.*AlphaLDA"):
        lda_risk(mixture, np.ones((2, 2)), np.full((2, 1), 1.0), np.full((1, 2), 0.5))


def test_regression_risk_refuses_a_model_fitted_with_covariates():
    """A spike-and-slab fit with covariates has the mean x' beta + z' gamma + b; the risk over
    X alone dropped z' gamma and kept the intercept shifted by -gamma' z-bar (1.86 where the
    whole model's risk was 0.018): it refuses such a model by name instead."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((100, 8))
    Z = 100.0 + rng.standard_normal((100, 1))
    coef = np.zeros(8)
    coef[0] = 1.0
    y = X @ coef + 0.5 * Z[:, 0] + rng.standard_normal(100)
    model = AlphaSpikeSlabRegression(random_state=0).fit(X, y, covariates=Z)
    with pytest.raises(ValueError, match="'model' parameter of regression_risk must be a model "
                                         "fitted without covariates"):
        regression_risk(model, X, coef, 1.0)
    plain = AlphaSpikeSlabRegression(random_state=0).fit(X, y - 0.5 * Z[:, 0])
    assert 0.0 <= regression_risk(plain, X, coef, 1.0, random_state=0) < 0.1


def test_monte_carlo_divergences_refuse_infinite_log_densities():
    """log_q = +inf gave renyi -inf and hellinger (inf, nan); log_p = -inf at a draw of p
    the same: each now names the function at fault. log_q = -inf (q has no mass there) is a
    proper input: half a normal against the normal, h^2 = 2 - sqrt(2)."""
    from scipy.stats import norm

    from alphavb.divergences import hellinger_monte_carlo, renyi_monte_carlo

    def sample(n, rng):
        return rng.normal(size=n)

    def infinite(x):
        return np.full(len(x), np.inf)

    with pytest.raises(ValueError, match="log_q is \\+inf"):
        renyi_monte_carlo(norm.logpdf, infinite, sample)
    with pytest.raises(ValueError, match="log_q is \\+inf"):
        hellinger_monte_carlo(norm.logpdf, infinite, sample)
    with pytest.raises(ValueError, match=r"log_p is -inf.*sample_p"):
        hellinger_monte_carlo(lambda x: -infinite(x), norm.logpdf, sample)
    def half(x):
        return np.where(x > 0, norm.logpdf(x) + np.log(2.0), -np.inf)
    estimate, se = hellinger_monte_carlo(norm.logpdf, half, sample, n_samples=20_000,
                                         random_state=0)
    assert abs(estimate - (2.0 - np.sqrt(2.0))) < 4 * se


def test_categorical_divergences_need_the_same_categories():
    from alphavb.divergences import hellinger_categorical, renyi_categorical

    for function in (hellinger_categorical, renyi_categorical):
        with pytest.raises(ValueError, match=r"'q' parameter .* 2 categories of p"):
            function([0.5, 0.5], [0.2, 0.3, 0.5])
    assert hellinger_categorical([[0.5, 0.5], [1.0, 0.0]], [0.5, 0.5]).shape == (2,)
