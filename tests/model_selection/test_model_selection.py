"""AlphaSelector: the exact prequential pass equals refitting on every prefix; SafeBayes
repairs the wrong-model regression; information matching and calibration on cases with a
known answer; scikit-learn's clone and GridSearchCV."""

import re
import warnings

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from alphavb import (
    AlphaLinearRegression,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
    AlphaSuSiE,
)
from alphavb.datasets import make_wrong_model_regression
from alphavb.model_selection import (
    AlphaSelector,
    information_alpha,
    linear_prequential_losses,
    prefix_schedule,
    refit_prequential_losses,
)

ALPHAS = np.array([1.0, 0.5, 0.125])
# the paper's Cor. 4.1 prior on the raw coefficients (beta ~ N(0, 1 / prior_precision)
# whatever sigma2), the linear model's default before the conjugate, standardized one
RAW_PRIOR = {"coef_prior": "independent", "standardize": False}


def _data(n=40, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X @ rng.normal(size=d) + rng.normal(size=n)


@pytest.mark.parametrize("kind", ["safebayes", "safebayes-ilog"])
@pytest.mark.parametrize("estimator", [
    AlphaLinearRegression(tol=1e-14),
    AlphaLinearRegression(noise_variance=1.0),
    AlphaLinearRegression(fit_intercept=False, prior_precision=[1.0, 2, 3, 4, 5],
                          noise_prior=(1.0, 0.025), tol=1e-14),
    AlphaLinearRegression(tol=1e-14, **RAW_PRIOR),
    AlphaLinearRegression(noise_variance=1.0, **RAW_PRIOR),
    AlphaLinearRegression(fit_intercept=False, prior_precision=[1.0, 2, 3, 4, 5],
                          noise_prior=(1.0, 0.025), tol=1e-14, **RAW_PRIOR),
], ids=["learned noise", "known noise", "no intercept, own priors", "raw prior, learned noise",
        "raw prior, known noise", "raw prior, no intercept, own priors"])
def test_exact_prequential_pass_equals_refitting_every_prefix(kind, estimator):
    X, y = _data()
    exact = linear_prequential_losses(estimator, X, y, ALPHAS, 3, kind)
    # a growth factor this close to 1 refits the estimator on every prefix 3, 4, ..., 39
    assert prefix_schedule(40, 3, 1.0000001) == list(range(3, 41))
    refits = refit_prequential_losses(estimator, X, y, ALPHAS, 3, 1.0000001, kind)
    # the estimator stops at a change of its objective per row of 1e-14 (known noise: one
    # closed-form step), the exact pass at a relative change of tau of 1e-14
    np.testing.assert_allclose(exact, refits, rtol=1e-5)
    # with a known noise, I-log of the first row scored (row 3, by the fit to rows 0..2)
    # is the plug-in normal density, by hand
    if kind == "safebayes-ilog" and estimator.noise_variance is not None:
        fit = clone(estimator).set_params(alpha=0.5).fit(X[:3], y[:3])
        assert exact[1, 0] == pytest.approx(-norm.logpdf(y[3], fit.predict(X[3:4])[0], 1.0),
                                            rel=1e-10)


def _wrong_model_risk(model, seed=1):
    # squared prediction risk on fresh rows of the same distribution, against the truth
    X, _, coef = make_wrong_model_regression(4000, random_state=seed, return_coef=True)
    return float(np.mean((model.predict(X) - X @ coef) ** 2))


def test_safebayes_repairs_the_wrong_model_and_keeps_the_right_one():
    estimator = AlphaLinearRegression(fit_intercept=False, prior_precision=40.0,
                                      noise_prior=(1.0, 1 / 40), **RAW_PRIOR)
    risks = {}
    for wrong in (True, False):
        X, y = make_wrong_model_regression(100, wrong=wrong, random_state=3)
        selector = AlphaSelector(estimator, min_prefix=1).fit(X, y)
        bayes = clone(estimator).fit(X, y)
        risks[wrong] = (_wrong_model_risk(selector), _wrong_model_risk(bayes), selector.alpha_)
    safe, bayes, alpha = risks[True]
    assert alpha < 1 and safe < 0.5 * bayes
    safe, bayes, _ = risks[False]
    assert safe <= 1.1 * bayes


def test_information_matching():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 2))
    y = X @ [1.0, -1.0] + rng.normal(size=20000)
    # a correct homoscedastic model: J = I, alpha = 1 up to sampling error: over 200 data
    # sets of this size the estimate had mean 1.001 and sd 0.0075 (and 0.8333, sd 0.0079,
    # in the misspecified case below), so 0.03 is 4 sd
    assert information_alpha(X, y) == pytest.approx(1.0, abs=0.03)
    # hand-computed sandwich: noise variance 1 + x_1^2 (mean 2) and independent N(0, 1)
    # covariates give J = diag(1, 1, 1) / 2 and I = diag(E[v], E[x1^2 v], E[x2^2 v]) / 4
    # with E[v] = 2, E[x1^2 v] = 4, E[x2^2 v] = 2: tr(J I^-1 J) / tr(J) = (1 + 1/2 + 1) / 3
    y = X @ [1.0, -1.0] + np.sqrt(1 + X[:, 0] ** 2) * rng.normal(size=20000)
    assert information_alpha(X, y) == pytest.approx(2.5 / 3, abs=0.03)
    selector = AlphaSelector(AlphaLinearRegression(), method="information").fit(X, y)
    assert selector.alpha_ == pytest.approx(2.5 / 3, abs=0.03) and selector.n_fits_ == 0


def test_calibration_reaches_the_level_where_coverage_is_known():
    # known noise variance 1 (the average of (1 + x^2) / 2), flat prior, no intercept: the
    # alpha-posterior of beta is N(beta_hat, 1 / (alpha sum x^2)), while the bootstrap spread
    # of beta_hat is the sandwich's, twice as large (E[x^2 v] / E[x^2]^2 = 2). So the 95%
    # interval covers the full-data estimate with probability 2 Phi(1.96 / sqrt(2 alpha)) - 1,
    # which is 0.95 at alpha = 1/2 exactly
    rng = np.random.default_rng(2)
    X = rng.normal(size=(2000, 1))
    y = 0.5 * X[:, 0] + np.sqrt((1 + X[:, 0] ** 2) / 2) * rng.normal(size=2000)
    estimator = AlphaLinearRegression(noise_variance=1.0, prior_precision=1e-8,
                                      fit_intercept=False)
    selector = AlphaSelector(estimator, method="calibrate", alphas=[1.0, 0.1], n_bootstrap=300,
                             calibration_steps=7, random_state=0).fit(X, y)
    coverage = dict(zip(selector.alphas_, selector.criterion_, strict=True))
    expected = 2 * norm.cdf(norm.ppf(0.975) / np.sqrt(2 * selector.alphas_)) - 1
    mcse = np.sqrt(expected * (1 - expected) / 300)
    assert np.all(np.abs(selector.criterion_ - expected) < 4 * mcse + 0.01)
    assert abs(coverage[selector.alpha_] - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 300)
    assert 0.35 < selector.alpha_ < 0.7
    assert selector.n_fits_ == 1 + 300 * (2 + 7)  # the alpha = 1 fit, then the resamples
    # criterion_ is aligned with alphas_ (largest first); calibration_alphas_ is the order
    # of the search, whose first two are the grid's ends here
    assert np.all(np.diff(selector.alphas_) < 0)
    assert sorted(selector.calibration_alphas_, reverse=True) == list(selector.alphas_)
    assert list(selector.calibration_alphas_[:2]) == [1.0, 0.1]
    # a correct model keeps alpha = 1 (it already covers at the level, up to MC error)
    y = 0.5 * X[:, 0] + rng.normal(size=2000)
    correct = AlphaSelector(estimator, method="calibrate", n_bootstrap=300,
                            random_state=0).fit(X, y)
    assert correct.alpha_ > 0.7
    # a level the grid cannot reach is said, not hidden
    with pytest.warns(UserWarning, match="no alpha of the grid reaches level"):
        AlphaSelector(estimator, method="calibrate", alphas=[1.0, 0.9], n_bootstrap=50,
                      random_state=0).fit(X, 0.5 * X[:, 0] + np.sqrt((1 + X[:, 0] ** 2) / 2)
                                          * rng.normal(size=2000))


def _dropped_at_half():
    """A weak effect the spike-and-slab fit includes at alpha = 1 (PIP 0.89) and drops at
    alpha = 1/2 (0.38) and 1/4 (0.21)."""
    rng = np.random.default_rng(16)
    X = rng.normal(size=(40, 4))
    return X, 0.35 * X[:, 0] + rng.normal(size=40)


@pytest.mark.parametrize("alphas", [[0.5], [0.5, 0.25]])
def test_calibration_on_a_grid_without_1(alphas):
    """The alpha = 1 fit is the reference whether or not the grid holds 1; when every alpha
    of a grid without 1 drops a variable the reference includes, the selector ended in
    "max() arg is an empty sequence". It returns the grid's largest alpha (never 1, which
    is not in the grid) and says why."""
    X, y = _dropped_at_half()
    original = X.copy(), y.copy()
    selector = AlphaSelector(AlphaSpikeSlabRegression(), method="calibrate", alphas=alphas,
                             n_bootstrap=5, random_state=0)
    with warnings.catch_warnings(record=True) as caught:  # (the ValueError was not caught)
        warnings.simplefilter("always")
        selector.fit(X, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(messages) == 1
    assert re.search(r"every one tried \(0\.5(, 0\.25)?\) drops variables.*alpha_ is 0\.5, "
                     r"the largest alpha of alphas.*Add larger alphas", messages[0])
    assert selector.alpha_ == selector.best_estimator_.alpha == 0.5
    assert list(selector.alphas_) == [0.5] and list(selector.calibration_alphas_) == [0.5]
    assert 0 <= selector.criterion_[0] <= 1
    # the alpha = 1 fit, one full-data fit per alpha checked, the resamples at 0.5
    assert selector.n_fits_ == 1 + len(alphas) + 5
    assert "coverage" in selector.selection_text()
    np.testing.assert_array_equal(X, original[0])
    np.testing.assert_array_equal(y, original[1])


def test_calibration_without_a_kept_alpha_returns_the_largest_of_the_grid():
    """The end of the calibration (no alpha reaches the level) on its own: with an alpha
    that keeps the selections, the highest coverage among those; with none (a grid without
    1 that drops them all), the grid's largest alpha, its coverage evaluated for the record."""
    from alphavb.model_selection._calibration import highest_coverage

    evaluated = {}

    def coverage(alpha):
        evaluated[alpha] = 0.5
        return 0.5

    with pytest.warns(UserWarning, match=r"every one tried \(0\.5, 0\.25\) drops"):
        best = highest_coverage(0.95, np.array([0.5, 0.25]), evaluated,
                                {1.0: True, 0.5: False, 0.25: False}, coverage)
    assert best == 0.5 and evaluated == {0.5: 0.5}
    with pytest.warns(UserWarning, match=r"at alpha <= 0\.5 the fit drops.*alpha_ is 1,"):
        best = highest_coverage(0.95, np.array([1.0, 0.5]), {1.0: 0.8},
                                {1.0: True, 0.5: False}, coverage)
    assert best == 1.0


def test_cv_and_the_scikit_learn_protocol():
    X, y = _data(60, 3)
    selector = AlphaSelector(AlphaLinearRegression(), method="cv", alphas=[1.0, 0.25],
                             random_state=0).fit(X, y)
    assert selector.alpha_ in (1.0, 0.25) and selector.criterion_.shape == (2,)
    np.testing.assert_array_equal(selector.predict(X), selector.best_estimator_.predict(X))
    assert clone(selector).get_params()["method"] == "cv"
    search = GridSearchCV(AlphaSelector(AlphaLinearRegression(), alphas=[1.0, 0.5]),
                          {"method": ["safebayes", "safebayes-ilog"]}, cv=3).fit(X, y)
    assert search.best_params_["method"] in ("safebayes", "safebayes-ilog")
    spike = AlphaSelector(AlphaSpikeSlabRegression(), alphas=[1.0, 0.5]).fit(X, y)
    assert spike.n_fits_ == 2 * (2 * (len(prefix_schedule(60, 10, 1.25)) - 1) - 1)  # warm and fresh
    # methods are delegated only where the estimator has them
    assert not hasattr(selector, "predict_proba") and hasattr(selector, "summary")
    draws = selector.sample_posterior(5, random_state=0)
    np.testing.assert_array_equal(draws["coef"], selector.best_estimator_.sample_posterior(
        5, random_state=0)["coef"])
    labels = (X[:, 0] > 0).astype(int)
    classifier = AlphaSelector(AlphaSpikeSlabClassifier(), method="cv", alphas=[1.0, 0.5],
                               random_state=0).fit(X, labels)
    np.testing.assert_array_equal(classifier.predict_proba(X),
                                  classifier.best_estimator_.predict_proba(X))
    assert np.all(classifier.criterion_ < 0)  # mean held-out log probabilities


def test_a_fitted_selector_stands_in_for_its_best_estimator():
    """On a DataFrame the selector lost the column names (summary_frame x0.., predict(X)
    warned), and predict(X, return_std=True), coef_, lfsr_, inclusion_probabilities_,
    classes_, plot_forest, plot_inclusion_probabilities, log_predictive_density and
    to_inference_data failed on it."""
    import pickle
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    from sklearn.base import is_classifier, is_regressor

    from alphavb import to_inference_data
    from alphavb.metrics import log_predictive_density
    from alphavb.plotting import plot_forest, plot_inclusion_probabilities
    from alphavb.risk import regression_risk

    X, y = _data(80, 4)
    frame = pd.DataFrame(X, columns=["age", "income", "height", "weight"])
    unfitted = AlphaSelector(AlphaSpikeSlabRegression(), alphas=[1.0, 0.5])
    assert not hasattr(unfitted, "coef_") and not hasattr(unfitted, "n_features_in_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X has feature names" warning anywhere below
        selector = unfitted.fit(frame, y)
        best = selector.best_estimator_
        assert list(selector.feature_names_in_) == list(frame.columns)
        assert selector.n_features_in_ == 4 and selector.n_rows_ == 80
        assert list(selector.summary_frame().index[:4]) == list(frame.columns)
        for name in ("coef_", "intercept_", "inclusion_probabilities_", "lfsr_",
                     "noise_variance_"):
            np.testing.assert_array_equal(getattr(selector, name), getattr(best, name))
        mean, sd = selector.predict(frame, return_std=True)
        np.testing.assert_array_equal(mean, best.predict(frame))
        np.testing.assert_array_equal(sd, best.predict(frame, return_std=True)[1])
        np.testing.assert_array_equal(selector.credible_intervals(level=0.9),
                                      best.credible_intervals(0.9))
        np.testing.assert_array_equal(selector.select(fdr=0.1), best.select(0.1))
        np.testing.assert_array_equal(log_predictive_density(selector, frame, y),
                                      log_predictive_density(best, frame, y))
        assert regression_risk(selector, X, np.ones(4), 1.0, random_state=0) == \
            regression_risk(best, X, np.ones(4), 1.0, random_state=0)
        fig, (left, right) = plt.subplots(1, 2)
        plot_forest(left, selector, top=3)
        plot_inclusion_probabilities(right, selector, top=3)
        assert right.get_yticklabels()[0].get_text() in frame.columns
        plt.close(fig)
        data = to_inference_data(selector, n_draws=20, n_chains=2, random_state=0)
        assert "coef" in data.posterior
    text = str(selector.summary())
    assert "was selected by AlphaSelector(method='safebayes')" in text
    assert "refitted at it on all 80 rows" in text and "age" in text
    assert is_regressor(selector) and not is_classifier(selector)
    assert pickle.loads(pickle.dumps(selector)).coef_.shape == (4,)
    assert clone(selector).get_params()["alphas"] == [1.0, 0.5]
    with pytest.raises(AttributeError, match="no attribute 'fit_transform'"):
        _ = selector.fit_transform
    # a classifier: classes_, predict_proba, the classifier tag and ArviZ
    labels = np.where(X[:, 0] > 0, "yes", "no")
    classifier = AlphaSelector(AlphaSpikeSlabClassifier(), alphas=[1.0, 0.5]).fit(frame, labels)
    assert list(classifier.classes_) == ["no", "yes"] and is_classifier(classifier)
    assert to_inference_data(classifier, n_draws=10, n_chains=2, random_state=0)
    # criterion_ is aligned with alphas_, largest first, for every method
    assert selector.criterion_.shape == selector.alphas_.shape == (2,)
    information = AlphaSelector(AlphaLinearRegression(), method="information").fit(X, y)
    assert information.alphas_ == pytest.approx([information.alpha_])
    assert information.criterion_.shape == (1,)


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "bic"}, "'method'"),
    ({"alphas": []}, "'alphas'"),
    ({"alphas": [0.5, 1.5]}, "'alphas'"),
    ({"min_prefix": 40}, "'min_prefix'.*below the number of rows"),
    ({"cv": 1, "method": "cv"}, "'cv'"),
    ({"prefix_growth": 1.0}, "'prefix_growth'"),
    # accepted silently (True, "0.5") or with numpy's words (the others)
    ({"alphas": True}, "'alphas'"),
    ({"alphas": "0.5"}, "'alphas'"),
    # the message says what is wanted once ("None or None or a non-empty list")
    ({"alphas": "abc"}, r"'alphas'.* must be None or a non-empty list of likelihood "
                        r"temperatures in \(0, 1\]\. Got"),
    ({"alphas": {1: 0.5}}, "'alphas'"),
    ({"alphas": [0.5 + 1j]}, "'alphas'"),
    ({"n_bootstrap": 10**400}, "'n_bootstrap'"),  # OverflowError in the shared check
])
def test_bad_selector_input(kwargs, message):
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        AlphaSelector(AlphaLinearRegression(), **kwargs).fit(X, y)


def test_fourth_hostile_round_of_the_selector():
    """What a hostile test of the selector found: the estimator's own parameters reached
    the scores unchecked (a ZeroDivisionError for noise_variance=0, an unpacking error for
    a noise_prior of three); a y of numbers in an object array was a ufunc TypeError; more
    folds than half the rows ended in scikit-learn's words; the min_prefix advice named a
    noise_prior that AlphaSuSiE does not have; summary() described set_params' method, not
    the fit's."""
    X, y = _data(n=40, d=3)
    for params, name in (({"noise_variance": 0.0}, "noise_variance"),
                         ({"noise_prior": (1, 1, 1)}, "noise_prior")):
        for method in ("safebayes", "information"):
            with pytest.raises(ValueError, match=f"'{name}' parameter of AlphaLinearReg"):
                AlphaSelector(AlphaLinearRegression(**params), method=method).fit(X, y)
    as_objects = AlphaSelector(AlphaLinearRegression(), alphas=[1.0, 0.5]).fit(
        X, y.astype(object))
    np.testing.assert_array_equal(
        as_objects.criterion_,
        AlphaSelector(AlphaLinearRegression(), alphas=[1.0, 0.5]).fit(X, y).criterion_)
    for big_X, big_y in ((X * 1e200, y), (X, y * 1e200)):  # an eigen- or loss error
        with pytest.raises(ValueError, match="squares overflow float64"):
            AlphaSelector(AlphaLinearRegression()).fit(big_X, big_y)
    with_none = [*y[:-1], None]  # None in a list is a missing value, not an overflow
    with pytest.raises(ValueError, match=r"Input y of AlphaSelector contains NaN \(a missing"):
        AlphaSelector(AlphaLinearRegression()).fit(X, with_none)
    import pandas as pd

    for grid in (pd.Series([1.0, 0.5]), np.array(0.5), range(1, 2)):  # documented array-likes
        assert AlphaSelector(AlphaLinearRegression(), alphas=grid).fit(X, y).alpha_ in (1, 0.5)
    with pytest.raises(ValueError, match=r"'cv' parameter.*at most 3 folds"):
        AlphaSelector(AlphaLinearRegression(), method="cv", cv=5).fit(X[:7], y[:7])
    with pytest.raises(ValueError, match="With 8 rows pass a smaller min_prefix") as error:
        AlphaSelector(AlphaSuSiE(), alphas=[1.0, 0.5]).fit(X[:8], y[:8])
    assert "noise_prior" not in str(error.value)
    selector = AlphaSelector(AlphaLinearRegression(), alphas=[1.0, 0.5]).fit(X, y)
    text = selector.selection_text()
    selector.set_params(method="information")
    assert selector.selection_text() == text and "method='safebayes'" in text


@pytest.mark.parametrize("estimator, fix", [
    (None, r"AlphaSelector\(AlphaLinearRegression\(\)\)"),
    (AlphaLinearRegression, r"Pass an instance: AlphaLinearRegression\(\)"),
    ("linear", "AlphaSelector"),
])
def test_the_estimator_must_be_an_estimator_instance(estimator, fix):
    """None, a class or a string ended in AttributeError or TypeError from get_params."""
    X, y = _data()
    with pytest.raises(ValueError, match=f"'estimator' parameter of AlphaSelector.*{fix}"):
        AlphaSelector(estimator).fit(X, y)


def test_labels_and_prefixes_that_cannot_be_fitted_are_named():
    """One class (IndexError), a class of one row (a fold's fit without it), min_prefix below
    a mixture's n_components (the mixture's own message) and a permutation that breaks
    min_prefix (which said "in this order")."""
    from alphavb import AlphaGaussianMixture

    X, _ = _data(60, 3)
    with pytest.raises(ValueError, match="'y' parameter of AlphaSelector must be two classes"):
        AlphaSelector(AlphaSpikeSlabClassifier()).fit(X, np.zeros(60))
    rare = np.zeros(60, dtype=int)
    rare[0] = 1
    with pytest.raises(ValueError, match=r"at least 2 rows each.*1 row of class 1"):
        AlphaSelector(AlphaSpikeSlabClassifier(), method="cv").fit(X, rare)
    with pytest.raises(ValueError, match=r"'min_prefix'.*n_components \(2\)"):
        AlphaSelector(AlphaGaussianMixture(2), min_prefix=1).fit(X)
    labels = np.r_[0, 1, np.zeros(29, dtype=int), np.ones(29, dtype=int)]
    with pytest.raises(ValueError, match=r"'min_prefix'.*in permutation [1-9] of the rows"):
        AlphaSelector(AlphaSpikeSlabClassifier(), alphas=[1.0], min_prefix=2,
                      prefix_growth=3.0, n_permutations=10, random_state=0).fit(X, labels)


def test_information_uses_a_known_noise_variance_and_is_unit_free():
    """Audit: the criterion was 1.0277 for noise_variance 0.25, 1 and 4 alike (sigma2 was
    always profiled at RSS / n), and the alpha changed with the units of X (0.98 against
    0.40); an exact fit gave rounding noise."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3))
    y = X @ [1.0, -1.0, 0.5] + rng.normal(size=400)  # noise variance 1
    profiled = AlphaSelector(AlphaLinearRegression(), method="information").fit(X, y)
    values = {}
    for variance in (0.25, 1.0, 4.0):
        values[variance] = AlphaSelector(AlphaLinearRegression(noise_variance=variance),
                                         method="information").fit(X, y).criterion_[0]
    # the ratio is linear in the known variance: sigma2 tr(X'X (sum r^2 x x')^-1 X'X) / tr(X'X)
    assert values[4.0] == pytest.approx(4 * values[1.0]) == pytest.approx(16 * values[0.25])
    rss = np.sum((y - X @ np.linalg.lstsq(np.c_[np.ones(400), X], y, rcond=None)[0][1:]
                  - np.mean(y - X @ np.linalg.lstsq(np.c_[np.ones(400), X], y,
                                                     rcond=None)[0][1:])) ** 2) / 400
    assert values[1.0] == pytest.approx(profiled.criterion_[0] / rss, rel=1e-6)
    rescaled = AlphaSelector(AlphaLinearRegression(), method="information").fit(
        X * [1.0, 1e3, 1e-3] + [0.0, 5.0, -2.0], y)
    assert rescaled.criterion_[0] == pytest.approx(profiled.criterion_[0], rel=1e-9)
    with pytest.raises(ValueError, match="least-squares fit is exact"):
        AlphaSelector(AlphaLinearRegression(), method="information").fit(X, X @ [1.0, 2, 3])


def test_default_first_prefix_has_more_rows_than_parameters():
    # a correct model, vague noise prior: scored from row d + 2 (with the intercept) the
    # selection keeps alpha = 1; scored from row 2 the interpolating early fits at alpha = 1
    # (losses of order 1e7) push it below 1
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 5))
    y = X @ np.arange(5.0) + rng.normal(size=100)
    raw = AlphaLinearRegression(**RAW_PRIOR)
    assert AlphaSelector(raw).fit(X, y).alpha_ == 1.0
    early = AlphaSelector(raw, min_prefix=2).fit(X, y)
    assert early.alpha_ < 1 and early.criterion_[0] > 1e6
    with pytest.raises(ValueError, match=r"'min_prefix'.*informative noise_prior"):
        AlphaSelector(raw).fit(X[:6], y[:6])
    # the default (conjugate) prior keeps alpha = 1 from the default first prefix too
    assert AlphaSelector(AlphaLinearRegression()).fit(X, y).alpha_ == 1.0


def test_estimators_a_method_cannot_take_are_named():
    from alphavb import AlphaLDA, BBAlphaRegressor

    X, y = _data()
    with pytest.raises(ValueError, match=r"'estimator'.*'alpha' parameter"):
        AlphaSelector(_NoAlpha()).fit(X, y)
    # BB-alpha's alpha is a divergence order, not a temperature
    with pytest.raises(ValueError, match=r"'estimator'.*divergence order"):
        AlphaSelector(BBAlphaRegressor()).fit(X, y)
    counts = np.random.default_rng(0).poisson(2.0, size=(30, 8))
    with pytest.raises(ValueError, match=r"'estimator'.*per-row log-likelihood.*AlphaLDA"):
        AlphaSelector(AlphaLDA(2), method="information").fit(counts)
    # the spike-and-slab regression has the linear model's likelihood, so its value
    spike = AlphaSelector(AlphaSpikeSlabRegression(), method="information").fit(X, y)
    assert spike.criterion_[0] == information_alpha(X, y)


class _NoAlpha:
    def get_params(self, deep=True):
        return {}


@pytest.mark.parametrize("method", ["cv", "calibrate"])
def test_selector_of_a_susie_that_drops_missing_responses_selects_on_the_known_rows(method):
    # AlphaSuSiE(missing="drop") fits the rows whose y is known; its selector selects on
    # the same rows (it refused the NaN before), and says so by name under "raise"
    rng = np.random.default_rng(4)
    X = rng.standard_normal((120, 20))
    y = 0.9 * X[:, 2] - 0.7 * X[:, 11] + rng.standard_normal(120)
    holes = y.copy()
    holes[[3, 50, 99]] = np.nan
    known = ~np.isnan(holes)
    options = {"method": method, "alphas": [1.0, 0.5], "random_state": 0, "n_bootstrap": 4}
    if method == "cv":
        options.pop("n_bootstrap")
    dropped = AlphaSelector(AlphaSuSiE(missing="drop"), **options).fit(X, holes)
    reference = AlphaSelector(AlphaSuSiE(), **options).fit(X[known], y[known])
    assert dropped.n_rows_ == 117 and dropped.alpha_ == reference.alpha_
    np.testing.assert_array_equal(dropped.criterion_, reference.criterion_)
    np.testing.assert_allclose(dropped.best_estimator_.inclusion_probabilities_,
                               reference.best_estimator_.inclusion_probabilities_, rtol=1e-12)
    with pytest.raises(ValueError, match=r"AlphaSuSiE.*missing.*'drop'"):
        AlphaSelector(AlphaSuSiE(), **options).fit(X, holes)


def test_selector_of_a_susie_subclass_without_the_missing_parameter():
    # a subclass whose __init__ leaves missing out (as the reproductions' ReferenceLDSuSiE)
    # is selected as before the rows' check: its get_params has no 'missing'
    class Fewer(AlphaSuSiE):
        def __init__(self, n_effects=3, alpha=1.0, *, fit_intercept=True):
            super().__init__(n_effects, alpha, fit_intercept=fit_intercept)

    rng = np.random.default_rng(5)
    X = rng.standard_normal((80, 10))
    y = X[:, 1] + rng.standard_normal(80)
    fewer = AlphaSelector(Fewer(), method="cv", alphas=[1.0, 0.5], random_state=0).fit(X, y)
    full = AlphaSelector(AlphaSuSiE(n_effects=3), method="cv", alphas=[1.0, 0.5],
                         random_state=0).fit(X, y)
    assert fewer.alpha_ == full.alpha_
    np.testing.assert_array_equal(fewer.criterion_, full.criterion_)
