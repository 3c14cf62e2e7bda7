"""The divergence order of BB-alpha and AADM is ``divergence_order``; ``alpha``, its former
name (which the alpha-VB models give the likelihood's temperature), still works through
scikit-learn's deprecation cycle, and the result cache keys a fit as before the rename."""

import warnings

import numpy as np
import pytest

from alphavb import AADMRegressor, BBAlphaClassifier, BBAlphaRegressor
from alphavb.cache import cache_key

TINY = {"n_epochs": 2, "tol": None, "random_state": 0, "n_mc_samples": 2,
        "n_predict_samples": 5}
NETWORKS = {BBAlphaRegressor: {"hidden_layer_sizes": (3,)},
            BBAlphaClassifier: {},
            AADMRegressor: {"hidden_layer_sizes": (3,), "generator_hidden": (4,),
                            "noise_dim": 3, "discriminator_hidden": (4,)}}


def _data(kind):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 2))
    y = X @ [1.0, -0.5] + 0.1 * rng.standard_normal(30)
    return X, (y > 0).astype(int) if kind is BBAlphaClassifier else y


@pytest.mark.parametrize("kind", list(NETWORKS), ids=lambda kind: kind.__name__)
def test_deprecated_alpha_warns_and_fits_as_divergence_order(kind):
    X, y = _data(kind)
    settings = {**TINY, **NETWORKS[kind]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name raises no warning
        renamed = kind(divergence_order=0.3, **settings).fit(X, y)
    with pytest.warns(FutureWarning, match=r"'alpha' was renamed 'divergence_order' in 0\.1\.0 "
                      r".* removed in 0\.3\.0; pass divergence_order=0\.3"):
        deprecated = kind(alpha=0.3, **settings).fit(X, y)
    # the deprecated name wins over the new one's default, and the fit is the same, bitwise
    assert deprecated.divergence_order == kind().divergence_order
    name = "generator_params_" if kind is AADMRegressor else "posterior_mean_"
    np.testing.assert_array_equal(getattr(deprecated, name), getattr(renamed, name))
    assert not np.array_equal(getattr(kind(divergence_order=1.0, **settings).fit(X, y), name),
                              getattr(renamed, name))


def test_the_warning_names_the_callers_line():
    X, y = _data(BBAlphaRegressor)
    with pytest.warns(FutureWarning) as record:
        BBAlphaRegressor(alpha=0.5, **TINY).fit(X, y)
    assert record[0].filename == __file__


def test_an_order_above_the_rows_names_the_parameter_given():
    X, y = _data(BBAlphaRegressor)
    with pytest.raises(ValueError, match=r"'divergence_order' parameter .* <= n_samples=30"):
        BBAlphaRegressor(divergence_order=31.0, **TINY).fit(X, y)
    with pytest.warns(FutureWarning), \
            pytest.raises(ValueError, match=r"'alpha' parameter .* <= n_samples=30"):
        BBAlphaRegressor(alpha=31.0, **TINY).fit(X, y)


# cache_key of these estimators before the rename (at 321690f, with alpha=...): the committed
# 2,000-epoch fits of vignettes/runs/aadm-uci and aadm-toy are stored under such keys
KEYS_BEFORE_THE_RENAME = [
    (AADMRegressor, {}, "7ab732168c1b155ee6056ed3ada2649041ae887a4be6b99458092d93063691b5"),
    (AADMRegressor, {"divergence_order": 0.5, "random_state": 3, "n_epochs": 7},
     "7f508b73a57b27a763faba661442715b1d885596543bd4b1da07c7427a619351"),
    (BBAlphaRegressor, {}, "813f1b74941386d8ae0578b710bb8628bbf6dea30d6524e21d77da5f7f181435"),
    (BBAlphaRegressor, {"divergence_order": 0.0, "hidden_layer_sizes": (5,)},
     "f792e3de532a50cedf5760deb69a4240dcfb010fa013676602d402a8ec4491df"),
    (BBAlphaClassifier, {"divergence_order": 1.0},
     "32064725d8d13c228c85c7a9d5fb25a6ea25d653540e1c00d63fe5b2dbdc88d2"),
]


@pytest.mark.parametrize(("kind", "params", "key"), KEYS_BEFORE_THE_RENAME)
def test_cache_keys_are_those_of_before_the_rename(kind, params, key):
    assert cache_key({"estimator": kind(**params)}) == key
    # the deprecated name keys the same fit
    if "divergence_order" in params:
        old = {**params, "alpha": params["divergence_order"]}
        del old["divergence_order"]
        assert cache_key({"estimator": kind(**old)}) == key
    # and another order another fit
    other = {**params, "divergence_order": 0.25}
    assert cache_key({"estimator": kind(**other)}) != key


@pytest.mark.parametrize("kind", list(NETWORKS), ids=lambda kind: kind.__name__)
def test_both_names_given_and_different_is_an_error(kind):
    """``alpha`` silently won over a ``divergence_order`` given too (a grid search over
    divergence_order fitted one order); now differing values are refused by name. The
    parameters still round-trip through get_params, set_params and clone."""
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    X, y = _data(kind)
    settings = {**TINY, **NETWORKS[kind]}
    both = kind(divergence_order=0.1, alpha=0.3, **settings)
    message = (r"'alpha' parameter of {}.* equal to divergence_order=0\.1.* Got 0\.3 "
               r"instead\. Pass divergence_order only")
    with pytest.raises(ValueError, match=message.format(kind.__name__)):
        both.fit(X, y)
    with pytest.raises(ValueError, match="Pass divergence_order only"):  # nor a cached fit
        cache_key({"estimator": both})
    # the parameters as given, through scikit-learn's protocol
    params = clone(both).get_params(deep=False)
    assert params["divergence_order"] == 0.1 and params["alpha"] == 0.3
    assert clone(both).set_params(alpha="deprecated").get_params() == \
        kind(divergence_order=0.1, **settings).get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clone(both).set_params(alpha="deprecated").fit(X, y)
    # equal values are one order: the deprecated name's FutureWarning, no error
    with pytest.warns(FutureWarning, match="pass divergence_order=0.3"):
        kind(divergence_order=0.3, alpha=0.3, **settings).fit(X, y)
    # a grid search over divergence_order (the estimator without alpha) fits each order
    search = GridSearchCV(kind(**settings), {"divergence_order": [0.1, 1.0]}, cv=2,
                          error_score="raise").fit(X, y)
    assert [p["divergence_order"] for p in search.cv_results_["params"]] == [0.1, 1.0]
    with pytest.raises(ValueError, match="Pass divergence_order only"):
        GridSearchCV(kind(alpha=0.3, **settings), {"divergence_order": [0.1, 1.0]}, cv=2,
                     error_score="raise").fit(X, y)


def test_the_deprecation_warning_says_divergence_order_at_its_default_is_not_used():
    X, y = _data(BBAlphaRegressor)
    with pytest.warns(FutureWarning, match=r"divergence_order at its default \(0\.5\) is not "
                                           r"used while alpha is given"):
        BBAlphaRegressor(alpha=0.3, **TINY).fit(X, y)
