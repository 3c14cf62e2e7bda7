"""alphavb.to_inference_data: every estimator's q reaches ArviZ with named dimensions."""

import warnings

import numpy as np
import pytest

from tests.test_posterior import NAMES, fitted

az = pytest.importorskip("arviz")


@pytest.mark.parametrize("name", NAMES)
def test_every_estimator_converts_and_summarises(name):
    from alphavb import to_inference_data

    model = fitted(name)
    data = to_inference_data(model, n_draws=40, n_chains=2, random_state=0)
    draws = model.sample_posterior(80, random_state=0)
    assert set(data.posterior.data_vars) == set(draws)
    for key, values in draws.items():
        variable = data.posterior[key]
        assert variable.dims[:2] == ("chain", "draw")
        assert variable.shape == (2, 40, *np.shape(values)[1:])
        assert not any(dim.startswith(f"{key}_dim_") for dim in variable.dims)  # all named
        np.testing.assert_array_equal(variable.values.reshape(np.shape(values)),
                                      np.asarray(values, dtype=variable.dtype))
    assert data.posterior.attrs["estimator"] == type(model).__name__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ArviZ's own warnings (e.g. constant draws)
        table = az.summary(data, kind="stats")
    assert len(table) > 0 and np.all(np.isfinite(table["mean"].to_numpy(dtype=float)))


def test_labels_and_summary_of_a_regression_match_q():
    import matplotlib

    matplotlib.use("Agg")
    from alphavb import to_inference_data

    model = fitted("spike-slab")
    data = to_inference_data(model, n_draws=2000, random_state=1)
    assert list(data.posterior["coef"].coords["feature"].values) == [f"x{j}" for j in range(8)]
    table = az.summary(data, var_names=["coef"], kind="stats")
    sd = table["sd"].to_numpy()
    assert np.all(np.abs(table["mean"].to_numpy() - model.coef_) <= 5 * sd / np.sqrt(2000)
                  + 1e-12)
    mixture = to_inference_data(fitted("mixture-full"), n_draws=10, random_state=0)
    assert mixture.posterior["precisions"].dims == ("chain", "draw", "component", "feature",
                                                    "feature_bis")
    axes = az.plot_posterior(data, var_names=["noise_variance"])
    assert np.size(axes) == 1
    forest = az.plot_forest(data, var_names=["coef"])
    assert np.size(forest) >= 1
