"""The whole model in the summaries: the intercept, named covariates and the noise variance
beside the coefficients (each checked against an exact second route or against draws of
q), local false sign rates and selection at a Bayesian FDR."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import invgamma

from alphavb import AlphaLinearRegression, AlphaSpikeSlabClassifier, AlphaSpikeSlabRegression


def problem(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 5)) * [1.0, 10.0, 1.0, 1.0, 1.0] + 3.0,
                     columns=["a", "b", "c", "d", "e"])
    Z = pd.DataFrame({"age": rng.normal(50.0, 10.0, n), "sex": rng.integers(0, 2, n)})
    y = 1.0 * X["a"] + 0.1 * Z["age"] + 0.5 * X["c"] + rng.normal(size=n)
    return X, y, Z


def test_the_intercept_row_equals_an_explicit_flat_column():
    """Known noise: the intercept's mean and sd equal those of a column of ones with a
    (nearly) flat N(0, 1e12) prior, and so do the predictive sds."""
    X, y, _ = problem()
    model = AlphaLinearRegression(alpha=0.6, noise_variance=1.3).fit(X, y)
    explicit = AlphaLinearRegression(alpha=0.6, noise_variance=1.3, fit_intercept=False,
                                     prior_precision=np.r_[1.0, np.ones(5)] * [1e-12, 1, 1,
                                                                                1, 1, 1])
    ones = np.column_stack([np.ones(len(y)), X])
    explicit.fit(ones, y)
    frame = model.summary_frame()
    explicit_sd = np.sqrt(explicit.coef_cov_[0, 0])
    assert list(frame.index) == ["a", "b", "c", "d", "e", "intercept"]
    assert frame.loc["intercept", "coef"] == pytest.approx(explicit.coef_[0], rel=1e-8)
    assert frame.loc["intercept", "sd"] == pytest.approx(explicit_sd, rel=1e-8)
    np.testing.assert_allclose(frame.loc[list("abcde"), "coef"], explicit.coef_[1:], rtol=1e-8)
    np.testing.assert_allclose(model.predict(X, return_std=True)[1],
                               explicit.predict(ones, return_std=True)[1], rtol=1e-8)


def test_the_spike_slab_intercept_equals_a_column_of_ones_among_the_covariates():
    """The intercept integrated out and a column of ones as a flat-prior covariate are the
    same model (known noise): the same mean and sd from two code paths."""
    X, y, _ = problem(seed=1)
    common = {"alpha": 0.7, "noise_variance": 1.0, "prior_inclusion": 0.3}
    model = AlphaSpikeSlabRegression(**common).fit(X, y)
    ones = AlphaSpikeSlabRegression(fit_intercept=False, **common).fit(
        X, y, covariates=pd.DataFrame({"one": np.ones(len(y))}))
    frame, other = model.summary_frame(), ones.summary_frame()
    assert list(other.index) == ["a", "b", "c", "d", "e", "one"]
    for column in ("coef", "sd", "lower", "upper"):
        assert frame.loc["intercept", column] == pytest.approx(other.loc["one", column],
                                                               rel=1e-8)
    np.testing.assert_allclose(model.predict(X, return_std=True)[1],
                               ones.predict(X, return_std=True, covariates=np.ones(len(y)))[1],
                               rtol=1e-8)


def test_intercept_covariates_and_noise_agree_with_draws_of_q():
    """A grid with learned noise and covariates: each summary row's mean and sd are those of
    sample_posterior's draws (within Monte Carlo error), the predictive sd too."""
    X, y, Z = problem(seed=2)
    model = AlphaSpikeSlabRegression(alpha=0.5, prior_inclusion=[0.1, 0.3, 0.5]).fit(
        X, y, covariates=Z)
    frame = model.summary_frame()
    assert list(frame.index) == ["a", "b", "c", "d", "e", "intercept", "age", "sex", "sigma2"]
    draws = model.sample_posterior(200_000, random_state=0)
    named = {"intercept": draws["intercept"], "age": draws["covariate_coef"][:, 0],
             "sex": draws["covariate_coef"][:, 1], "sigma2": draws["noise_variance"]}
    for name, values in named.items():
        se = values.std() / np.sqrt(len(values))
        assert abs(frame.loc[name, "coef"] - values.mean()) < 5 * se, name
        assert frame.loc[name, "sd"] == pytest.approx(values.std(), rel=0.02), name
    # a new response at the first rows: the draws' spread plus the noise
    rng = np.random.default_rng(1)
    new = (draws["intercept"][:, None] + draws["coef"] @ X.to_numpy()[:3].T
           + draws["covariate_coef"] @ Z.to_numpy()[:3].T
           + np.sqrt(draws["noise_variance"])[:, None] * rng.standard_normal((200_000, 3)))
    _, sd = model.predict(X[:3], return_std=True, covariates=Z[:3])
    np.testing.assert_allclose(sd, new.std(axis=0), rtol=0.02)
    # the noise row's interval: the mixture of the settings' inverse gammas, exactly
    cdf = sum(w * invgamma.cdf(frame.loc["sigma2", ["lower", "upper"]].to_numpy(float), a,
                               scale=b)
              for w, a, b in zip(model.hyper_weights_, model.setting_noise_shape_,
                                 model.setting_noise_scale_, strict=True))
    np.testing.assert_allclose(cdf, [0.025, 0.975], atol=1e-9)


def test_one_setting_noise_row_is_the_inverse_gamma():
    X, y, _ = problem(seed=3)
    model = AlphaLinearRegression(alpha=0.5).fit(X, y)
    row = model.summary_frame(level=0.9).loc["sigma2"]
    a, b = model.noise_shape_, model.noise_scale_
    assert row["coef"] == pytest.approx(model.noise_variance_, rel=1e-12)
    assert row["sd"] == pytest.approx(invgamma.std(a, scale=b), rel=1e-10)
    np.testing.assert_allclose(row[["lower", "upper"]].to_numpy(float),
                               invgamma.ppf([0.05, 0.95], a, scale=b), rtol=1e-12)
    known = AlphaLinearRegression(alpha=0.5, noise_variance=1.0).fit(X, y)
    assert "sigma2" not in known.summary_frame().index


def test_classifier_intercept_and_covariates_agree_with_draws_of_q():
    X, y, Z = problem(seed=4)
    labels = (y > np.median(y)).astype(int)
    model = AlphaSpikeSlabClassifier(alpha=0.8, prior_log_odds=[-1.0, -0.5]).fit(
        X, labels, covariates=Z)
    frame = model.summary_frame()
    assert list(frame.index) == ["a", "b", "c", "d", "e", "intercept", "age", "sex"]
    draws = model.sample_posterior(200_000, random_state=0)
    named = {"intercept": draws["intercept"], "age": draws["covariate_coef"][:, 0],
             "sex": draws["covariate_coef"][:, 1]}
    for name, values in named.items():
        se = values.std() / np.sqrt(len(values))
        assert abs(frame.loc[name, "coef"] - values.mean()) < 5 * se, name
        assert frame.loc[name, "sd"] == pytest.approx(values.std(), rel=0.02), name
    text = model.summary().as_text()
    assert "intercept" in text and "age" in text and "sigma2" not in text


@pytest.mark.parametrize("grid", [None, [0.1, 0.4]])
def test_lfsr_is_the_probability_of_the_wrong_sign(grid):
    X, y, _ = problem(seed=5)
    model = AlphaSpikeSlabRegression(alpha=0.5, prior_inclusion=grid).fit(X, y)
    beta = model.sample_posterior(400_000, random_state=0)["coef"]
    wrong_sign = np.minimum((beta >= 0).mean(axis=0), (beta <= 0).mean(axis=0))
    np.testing.assert_allclose(model.lfsr_, wrong_sign, atol=5e-3)
    assert np.all(model.lfsr_ >= 1.0 - model.inclusion_probabilities_ - 1e-12)
    np.testing.assert_array_equal(model.summary_frame()["lfsr"].iloc[:5], model.lfsr_)


def test_select_is_the_largest_set_within_the_bayesian_fdr():
    """Against an enumeration of every subset: the selection has the size of the largest
    subset whose mean of 1 - PIP is at most fdr, and is such a subset."""
    X, y, _ = problem(seed=6)
    model = AlphaSpikeSlabRegression(alpha=0.5, prior_inclusion=0.5).fit(X, y)
    pip = model.inclusion_probabilities_
    for fdr in (1e-6, 0.01, 0.05, 0.2, 0.5, 0.99):
        chosen = model.select(fdr)
        sizes = [len(subset) for k in range(1, 6) for subset in itertools.combinations(range(5), k)
                 if np.mean(1.0 - pip[list(subset)]) <= fdr]
        assert chosen.sum() == max(sizes, default=0)
        if chosen.any():
            assert np.mean(1.0 - pip[chosen]) <= fdr
            assert pip[chosen].min() >= pip[~chosen].max(initial=0.0)
    with pytest.raises(ValueError, match="fdr"):
        model.select(0.0)


def test_mixture_intervals_are_the_quantiles_of_the_mixture():
    """Rows of spike-and-slab mixtures (an atom at 0 plus normals), most with little slab mass
    (both bounds 0, no bisection) and some with much: each bound is the smallest x whose
    mixture cdf reaches the tail probability (found here row by row by brentq)."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    from alphavb.linear_model._inclusion import mixture_intervals

    rng = np.random.default_rng(5)
    n_rows = 60
    slab_mass = np.concatenate([rng.uniform(0, 0.04, 40), rng.uniform(0.05, 1.0, 20)])
    split = rng.dirichlet(np.ones(2), size=n_rows) * slab_mass[:, None]
    weights = np.column_stack([1.0 - slab_mass, split])
    means = np.column_stack([np.zeros(n_rows), rng.normal(0, 2, (n_rows, 2))])
    sds = np.column_stack([np.zeros(n_rows), rng.uniform(0.1, 1.0, (n_rows, 2))])
    for level in (0.95, 0.5):
        bounds = mixture_intervals(weights, means, sds, level)
        for row in range(n_rows):
            def cdf(x, row=row):
                return (weights[row, 0] * (x >= 0.0)
                        + weights[row, 1:] @ norm.cdf((x - means[row, 1:]) / sds[row, 1:]))
            for column, p in enumerate((0.5 - 0.5 * level, 0.5 + 0.5 * level)):
                below_zero = weights[row, 1:] @ norm.cdf(-means[row, 1:] / sds[row, 1:])
                if below_zero < p <= below_zero + weights[row, 0]:
                    expected = 0.0  # the atom holds the quantile
                elif p <= below_zero:
                    expected = brentq(lambda x, p=p: cdf(x) - p, -50.0, -1e-300)
                else:
                    expected = brentq(lambda x, p=p: cdf(x) - p, 1e-300, 50.0)
                assert bounds[row, column] == pytest.approx(expected, abs=1e-9)
