"""The divergence order of BB-alpha and AADM is ``divergence_order``, their only name for it
(``alpha``, its name before 0.1.0 and the alpha-VB models' likelihood temperature, was
removed before any release); the result cache keys a fit by it, and the committed AADM fits
are found under those keys."""

import warnings
from pathlib import Path

import numpy as np
import pytest

from alphavb import AADMRegressor, BBAlphaClassifier, BBAlphaRegressor
from alphavb.cache import ResultCache, cache_key

TINY = {"n_epochs": 2, "tol": None, "random_state": 0, "n_mc_samples": 2,
        "n_predict_samples": 5}
NETWORKS = {BBAlphaRegressor: {"hidden_layer_sizes": (3,)},
            BBAlphaClassifier: {},
            AADMRegressor: {"hidden_layer_sizes": (3,), "generator_hidden": (4,),
                            "noise_dim": 3, "discriminator_hidden": (4,)}}
RUNS = Path(__file__).parents[2] / "vignettes" / "runs"


def _data(kind):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 2))
    y = X @ [1.0, -0.5] + 0.1 * rng.standard_normal(30)
    return X, (y > 0).astype(int) if kind is BBAlphaClassifier else y


@pytest.mark.parametrize("kind", list(NETWORKS), ids=lambda kind: kind.__name__)
def test_the_order_is_divergence_order_and_alpha_is_no_parameter(kind):
    """``divergence_order`` sets the fit (another order, another fit) without a warning;
    ``alpha`` is refused as scikit-learn refuses any unknown parameter, and a grid search
    over ``divergence_order`` fits each order."""
    from sklearn.model_selection import GridSearchCV

    X, y = _data(kind)
    settings = {**TINY, **NETWORKS[kind]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = kind(divergence_order=0.3, **settings).fit(X, y)
    name = "generator_params_" if kind is AADMRegressor else "posterior_mean_"
    assert not np.array_equal(getattr(kind(divergence_order=1.0, **settings).fit(X, y), name),
                              getattr(fitted, name))
    assert "alpha" not in kind().get_params()
    with pytest.raises(TypeError, match="alpha"):
        kind(alpha=0.3)
    with pytest.raises(ValueError, match="alpha"):
        kind().set_params(alpha=0.3)
    search = GridSearchCV(kind(**settings), {"divergence_order": [0.1, 1.0]}, cv=2,
                          error_score="raise").fit(X, y)
    assert [p["divergence_order"] for p in search.cv_results_["params"]] == [0.1, 1.0]


def test_an_order_above_the_rows_names_the_parameter():
    X, y = _data(BBAlphaRegressor)
    with pytest.raises(ValueError, match=r"'divergence_order' parameter .* <= n_samples=30"):
        BBAlphaRegressor(divergence_order=31.0, **TINY).fit(X, y)


# cache_key of these estimators since the alias went (before it, the order was keyed as
# ``alpha``; the committed fits were moved to these keys once)
KEYS = [
    (AADMRegressor, {}, "e420389b27b663f8af733c4af8205366954531308f93550ddc47a724f2871009"),
    (AADMRegressor, {"divergence_order": 0.5, "random_state": 3, "n_epochs": 7},
     "8b0928c2df439a711e7978630d9582d49a5e36696f84a3d08c0ed64acd1524b7"),
    (BBAlphaRegressor, {}, "3abbe1c642ded6cb0ee4ac455eb30d58c5e80ca2553dccf449a04a6384627a7f"),
    (BBAlphaRegressor, {"divergence_order": 0.0, "hidden_layer_sizes": (5,)},
     "11976f2622b15c1b13b75e0644760b106a960980052cfd6e33eae2a003bba0b9"),
    (BBAlphaClassifier, {"divergence_order": 1.0},
     "10403e73f0f9d668d6609c6f179ae60dcf60517175bcbc6219127fa9fd1f728f"),
]


@pytest.mark.parametrize(("kind", "params", "key"), KEYS)
def test_cache_keys_are_stable(kind, params, key):
    assert cache_key({"estimator": kind(**params)}) == key
    other = {**params, "divergence_order": 0.25}  # another order, another fit
    assert cache_key({"estimator": kind(**other)}) != key


def test_the_committed_toy_fits_are_found_under_their_keys():
    """Every fit of the full ``aadm-toy`` run (3 seeds, both problems, every alpha) is
    committed under the key the reproduction asks for, and reads back valid."""
    from alphavb.reproduce.aadm import (
        AADM_TOY_ALPHAS,
        AADM_TOY_PROBLEMS,
        AADM_TOY_SETTINGS,
        _toy_key,
        _toy_row_check,
    )

    store = ResultCache(RUNS / "aadm-toy" / "fits")
    rows = [store.load(_toy_key(problem, alpha, 1000, AADM_TOY_SETTINGS, 0, seed),
                       validate=_toy_row_check(problem, alpha, 1000))
            for seed in range(3) for problem in AADM_TOY_PROBLEMS for alpha in AADM_TOY_ALPHAS]
    assert len(rows) == len(list((RUNS / "aadm-toy" / "fits").glob("*.json")))
    assert all(row is not None for row in rows)
