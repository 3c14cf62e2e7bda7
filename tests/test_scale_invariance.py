"""Every model's default fit does not depend on the units of the data: a fit on ``c y`` (c
from 1e-6 to 1e6) and on ``X`` with its columns rescaled is the fit on ``y`` and ``X`` in
the new units (the same PIPs, responsibilities and R^2; coefficients, intervals and means
rescaled). And the plain linear model on scikit-learn's diabetes data fits as
``BayesianRidge`` does."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.linear_model import BayesianRidge

from alphavb import (
    AlphaGaussianMixture,
    AlphaLinearRegression,
    AlphaLogisticRegression,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
)

FACTORS = [1e-6, 1e-3, 1e3, 1e6]
COLUMN_UNITS = np.array([1e-4, 1.0, 3e2, 1e5, 0.02, 7.0])  # e.g. years beside dollars


def _regression(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6)) + 3.0
    y = X[:, :3] @ [1.0, -0.7, 0.4] + 0.8 * rng.normal(size=n) + 10.0
    return X, y


def _strict(fit):
    """Run ``fit`` with every warning an error: a default fit in any units warns of nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fit()


@pytest.mark.parametrize("estimator", [
    AlphaLinearRegression(alpha=0.7), AlphaLinearRegression(),
    AlphaSpikeSlabRegression(alpha=0.7, random_state=0), AlphaSpikeSlabRegression(),
], ids=["linear 0.7", "linear", "spike-slab 0.7", "spike-slab"])
@pytest.mark.parametrize("factor", FACTORS)
def test_regression_fits_are_the_same_in_any_units(estimator, factor):
    X, y = _regression()
    base = _strict(lambda: estimator.fit(X, y))
    reference = {"coef": base.coef_.copy(), "intervals": base.credible_intervals(),
                 "r2": base.score(X, y), "noise": base.noise_variance_,
                 "pips": getattr(base, "inclusion_probabilities_", None)}
    scaled = _strict(lambda: estimator.fit(X * COLUMN_UNITS, factor * y))
    # beta_j of a column in units u_j, for a response in units c: c beta_j / u_j
    np.testing.assert_allclose(scaled.coef_ * COLUMN_UNITS / factor, reference["coef"],
                               rtol=1e-6, atol=1e-9 * np.abs(reference["coef"]).max())
    np.testing.assert_allclose(scaled.credible_intervals() * (COLUMN_UNITS / factor)[:, None],
                               reference["intervals"], rtol=1e-6,
                               atol=1e-9 * np.abs(reference["intervals"]).max())
    assert scaled.score(X * COLUMN_UNITS, factor * y) == pytest.approx(reference["r2"],
                                                                       rel=1e-9)
    assert scaled.noise_variance_ / factor**2 == pytest.approx(reference["noise"], rel=1e-6)
    if reference["pips"] is not None:
        np.testing.assert_allclose(scaled.inclusion_probabilities_, reference["pips"],
                                   rtol=1e-6, atol=1e-9)


def _classification(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    y = (X[:, :3] @ [1.5, -1.0, 0.7] + rng.logistic(size=n) > 0).astype(int)
    return X + 2.0, y


@pytest.mark.parametrize("estimator", [
    AlphaSpikeSlabClassifier(alpha=0.7, random_state=0),
    AlphaLogisticRegression(alpha=0.7, random_state=0),
], ids=["spike-slab classifier", "logistic"])
def test_classifier_fits_are_the_same_in_any_units_of_X(estimator):
    X, y = _classification()
    base = _strict(lambda: estimator.fit(X, y))
    coef, intercept = base.coef_.copy(), float(np.ravel(base.intercept_)[0])
    proba = base.predict_proba(X)
    pips = getattr(base, "inclusion_probabilities_", None)
    shift = np.array([0.0, 5.0, -3.0, 1e3, 0.0, 2.0])  # and another origin for each column
    scaled = _strict(lambda: estimator.fit(X * COLUMN_UNITS + shift, y))
    np.testing.assert_allclose(np.ravel(scaled.coef_) * COLUMN_UNITS, np.ravel(coef),
                               rtol=1e-5, atol=1e-8)
    assert float(np.ravel(scaled.intercept_)[0]) + float(
        np.ravel(scaled.coef_) @ shift) == pytest.approx(intercept, rel=1e-5, abs=1e-8)
    np.testing.assert_allclose(scaled.predict_proba(X * COLUMN_UNITS + shift), proba,
                               rtol=1e-5, atol=1e-8)
    if pips is not None:
        np.testing.assert_allclose(scaled.inclusion_probabilities_, pips, rtol=1e-5,
                                   atol=1e-8)


@pytest.mark.parametrize("covariance_type", ["full", "diag", "tied"])
@pytest.mark.parametrize("init_params", ["kmeans", "k-means++"])
def test_mixture_fits_are_the_same_in_any_units_of_X(covariance_type, init_params):
    """The default priors come from the data's mean and covariance, the singular-covariance
    ridge from each feature's variance, k-means starts on unit-variance columns and the
    stopping rule follows the objective's change per row (rescaling a feature shifts the
    objective by a constant): the fit on ``X diag(u)`` is the fit on ``X``. (A spherical
    covariance is not the same model in other units, and is not tested.)"""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(100, 2)), rng.normal(size=(100, 2)) + np.array([5, 3]),
                   0.5 * rng.normal(size=(100, 2)) + [0, 6]])
    units = np.array([1e-4, 1e3])
    common = {"covariance_type": covariance_type, "init_params": init_params,
              "random_state": 0}
    base = _strict(lambda: AlphaGaussianMixture(3, **common).fit(X))
    scaled = _strict(lambda: AlphaGaussianMixture(3, **common).fit(X * units))
    assert scaled.n_iter_ == base.n_iter_
    np.testing.assert_allclose(scaled.predict_proba(X * units), base.predict_proba(X),
                               atol=1e-9)
    np.testing.assert_allclose(scaled.means_ / units, base.means_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(scaled.weights_, base.weights_, rtol=1e-9)
    # the log density in the new units is the old one minus log|diag(u)|
    np.testing.assert_allclose(scaled.score_samples(X * units),
                               base.score_samples(X) - np.sum(np.log(units)), rtol=1e-9)


def test_default_linear_fit_on_diabetes_is_bayesian_ridges():
    """Before the conjugate, standardized default prior the plain fit gave the prior back on
    this data (R^2 0.0005, every coefficient's sd 0.9999): its N(0, 1) prior was in the raw
    units of X (columns of norm 1) and y (variance 5,900)."""
    X, y = load_diabetes(return_X_y=True)
    model = _strict(lambda: AlphaLinearRegression().fit(X, y))
    ridge = BayesianRidge().fit(X, y)
    assert model.score(X, y) == pytest.approx(ridge.score(X, y), rel=0.01)
    # the posterior sds are the data's, not the prior's: within 15% of OLS's standard
    # errors (0.88-0.99 of them; the prior shrinks the collinear serum columns s1-s5 most)
    import statsmodels.api as sm

    ols = sm.OLS(y, sm.add_constant(X)).fit()
    ratio = np.sqrt(np.diag(model.coef_cov_)) / ols.bse[1:]
    assert np.all((ratio > 0.85) & (ratio < 1.0))
