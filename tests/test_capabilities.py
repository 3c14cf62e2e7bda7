"""The package's generic functions ask a model for what it can do (its exact sampler, its
model kind, its draws' dimensions, its row log-density) instead of testing its type: a model
that says otherwise is taken at its word, so that a new model edits itself, not five
dispatch chains (issue 60, item 1)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_regression

from alphavb import AlphaLinearRegression, AlphaSpikeSlabRegression
from alphavb.exact import sample_exact
from alphavb.inference_data import draw_dimensions
from alphavb.metrics import log_predictive_density
from alphavb.model_selection._model_kinds import (
    GaussianRegressionKind,
    LinearRegressionKind,
    kind_of,
)


def _data():
    X, y = make_regression(n_samples=40, n_features=3, noise=1.0, random_state=0)
    return X, y


class _NoSampler(AlphaLinearRegression):
    _exact_sampler = None


class _RefittedLinear(AlphaLinearRegression):
    _model_kind = "gaussian_regression"


class _OwnDensity(AlphaSpikeSlabRegression):
    def _row_log_predictive(self, X, y, n_draws, random_state):
        return np.full(len(y), -1.5)

    def _draw_dimensions(self, draws, features):
        return {"coef": ["slot"]}, {"slot": ["a", "b", "c"], "unused": None}


def test_sample_exact_asks_the_model_for_its_sampler():
    X, y = _data()
    assert sample_exact(AlphaLinearRegression(), X, y, n_draws=5, n_chains=1,
                        random_state=0) is not None
    with pytest.raises(ValueError, match=r"estimator.*an estimator with an exact sampler"):
        sample_exact(_NoSampler(), X, y, n_draws=5, n_chains=1)


def test_alpha_selector_asks_the_model_for_its_kind():
    """The linear model's kind has the exact one-pass prequential update; the same class
    naming the Gaussian regressions' kind is refitted like the spike-and-slab model."""
    linear, refitted = kind_of(AlphaLinearRegression()), kind_of(_RefittedLinear())
    assert type(linear) is LinearRegressionKind and linear.exact
    assert type(refitted) is GaussianRegressionKind and not refitted.exact
    with pytest.raises(ValueError, match="estimator"):
        kind_of(type("NoKind", (AlphaSpikeSlabRegression,), {"_model_kind": None})())


def test_metrics_and_inference_data_ask_the_model():
    X, y = _data()
    model = _OwnDensity().fit(X, y)
    np.testing.assert_array_equal(log_predictive_density(model, X, y), np.full(len(y), -1.5))
    dims, coords = draw_dimensions(model, model.sample_posterior(3, random_state=0))
    assert dims == {"coef": ["slot"]} and coords == {"slot": ["a", "b", "c"]}
    plain = AlphaSpikeSlabRegression().fit(X, y)  # the default: Monte Carlo over q's draws
    assert np.all(np.isfinite(log_predictive_density(plain, X, y, n_draws=20)))


def test_sufficient_calibration_asks_for_a_fine_mapping_kind():
    """AlphaSelector calibrates credible sets from sufficient statistics for a model of the
    fine-mapping kind only; the linear model, which has fit_sufficient too, is refused."""
    from alphavb.model_selection import AlphaSelector

    X, y = _data()
    statistics = (X.T @ X, X.T @ y, float(y @ y), len(y))
    with pytest.raises(ValueError, match=r"method.*'calibrate' with an AlphaSuSiE"):
        AlphaSelector(AlphaLinearRegression(), method="calibrate").fit_sufficient(*statistics)


@pytest.mark.parametrize("kind", ["linear", "spike_slab", "spike_slab_classifier",
                                  "susie_classifier"])
def test_preparation_returns_what_it_resolves_and_sets_no_fitted_attribute(kind):
    """Preparing a fit (what the exact samplers call on a clone) leaves the estimator with
    only what scikit-learn's validation sets; what it resolved (rows, noise prior, column
    scales, covariates) is in the data's fitted_attributes, and a fit publishes exactly
    those (issue 60, item 2)."""
    from alphavb import AlphaSpikeSlabClassifier, AlphaSuSiEClassifier

    X, y = _data()
    Z = np.random.default_rng(0).standard_normal((len(y), 1))
    estimator, args = {
        "linear": (AlphaLinearRegression(), (X, y)),
        "spike_slab": (AlphaSpikeSlabRegression(), (X, y, Z)),
        "spike_slab_classifier": (AlphaSpikeSlabClassifier(), (X, y > 0, Z)),
        "susie_classifier": (AlphaSuSiEClassifier(2), (X, y > 0, Z)),
    }[kind]
    data = estimator._prepare_fit(*args)
    published = {name for name in vars(estimator) if name.endswith("_")}
    assert published <= {"n_features_in_", "feature_names_in_", "classes_"}
    assert {"n_samples_fit_", "column_scale_"} <= set(data.fitted_attributes)
    fitted = estimator.fit(*args[:2], **({"covariates": Z} if kind != "linear" else {}))
    for name, value in data.fitted_attributes.items():
        np.testing.assert_array_equal(getattr(fitted, name), value)
    assert fitted.n_samples_fit_ == len(y)


@pytest.mark.parametrize("kind", ["regression", "classifier"])
def test_the_prior_grid_is_resolved_once_per_fit(monkeypatch, kind):
    """The inclusion grid (one setting being a grid of one) is resolved when the fit is
    prepared and read from the data by the settings' loop, the publication and the
    fit-time check (issue 60, item 4: it was resolved three times per fit)."""
    import alphavb
    from alphavb import AlphaSpikeSlabClassifier
    from alphavb.linear_model._inclusion import SpikeSlabMixin

    calls = []
    resolve = SpikeSlabMixin._inclusion_parameters
    monkeypatch.setattr(SpikeSlabMixin, "_inclusion_parameters",
                        lambda self, n: calls.append(n) or resolve(self, n))
    X, y = _data()
    model = (AlphaSpikeSlabRegression(prior_inclusion=[0.2, 0.5]) if kind == "regression"
             else AlphaSpikeSlabClassifier(prior_inclusion=[0.2, 0.5]))
    with alphavb.approximation_checks("always"), warnings.catch_warnings():
        warnings.simplefilter("ignore", alphavb.PosteriorApproximationWarning)
        model.fit(X, y if kind == "regression" else y > 0)
    assert calls == [3] and model.approximation_check_ is not None
    assert len(model.hyper_weights_) == 2
