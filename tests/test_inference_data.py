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
    # the likelihood's temperature, or a network's divergence order, under its own name
    tempering = "divergence_order" if hasattr(model, "divergence_order") else "alpha"
    assert data.posterior.attrs[tempering] == getattr(model, tempering)
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


def _regression_data(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, X @ [1.5, -1.0, 0.5] + rng.normal(size=n)


@pytest.mark.parametrize("model_name", ["linear", "spike-slab", "bbalpha-linear"])
def test_default_chains_diagnose_and_loo_runs_with_warnings_as_errors(model_name):
    """Four chains by default: az.summary gives r_hat ~ 1 and ESS near the draws without a
    warning, and az.loo, az.waic and az.plot_forest run on the log_likelihood group."""
    import matplotlib

    matplotlib.use("Agg")
    from alphavb import (
        AlphaLinearRegression,
        AlphaSpikeSlabRegression,
        BBAlphaRegressor,
        to_inference_data,
    )

    X, y = _regression_data()
    # alpha = 1: az.loo's importance weights are those of the untempered posterior
    model = {"linear": AlphaLinearRegression(),
             "spike-slab": AlphaSpikeSlabRegression(),
             "bbalpha-linear": BBAlphaRegressor(hidden_layer_sizes=(), n_epochs=200,
                                                tol=None, random_state=0)}[model_name]
    model.fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = to_inference_data(model, X=X, y=y, random_state=0)
        table = az.summary(data, var_names=["coef", "intercept"])
        loo = az.loo(data)
        waic = az.waic(data)
        az.plot_forest(data, var_names=["coef"])
    assert data.posterior.sizes["chain"] == 4
    assert list(table.index[:3]) == ["coef[x0]", "coef[x1]", "coef[x2]"]
    np.testing.assert_allclose(table["r_hat"].to_numpy(dtype=float), 1.0, atol=0.01)
    assert np.all(table["ess_bulk"].to_numpy(dtype=float) > 2000)
    assert np.isfinite(loo.elpd_loo) and np.isfinite(waic.elpd_waic)
    # the observed data and a predictive draw per posterior draw, on y's scale
    np.testing.assert_array_equal(data.observed_data["y"].values, y)
    assert data.posterior_predictive["y"].shape == (4, 1000, len(y))
    assert abs(float(data.posterior_predictive["y"].mean()) - y.mean()) < 0.2


def test_log_likelihood_group_is_the_density_at_each_draw():
    """Recomputed draw by draw with scipy: the linear model's normal, the classifier's
    Bernoulli, the mixture's density."""
    from scipy.stats import multivariate_normal, norm

    from alphavb import (
        AlphaGaussianMixture,
        AlphaLinearRegression,
        AlphaSpikeSlabClassifier,
        to_inference_data,
    )

    X, y = _regression_data(seed=1)
    linear = AlphaLinearRegression().fit(X, y)
    data = to_inference_data(linear, n_draws=5, n_chains=2, X=X, y=y, random_state=0)
    post = data.posterior
    for chain, draw in ((0, 0), (1, 4)):
        mean = X @ post["coef"].values[chain, draw] + post["intercept"].values[chain, draw]
        sd = np.sqrt(post["noise_variance"].values[chain, draw])
        np.testing.assert_allclose(data.log_likelihood["y"].values[chain, draw],
                                   norm.logpdf(y, mean, sd), rtol=1e-12)
    labels = np.where(y > 0, "yes", "no")
    classifier = AlphaSpikeSlabClassifier().fit(X, labels)
    data = to_inference_data(classifier, n_draws=5, n_chains=2, X=X, y=labels, random_state=0)
    t = X @ data.posterior["coef"].values[1, 2] + data.posterior["intercept"].values[1, 2]
    p_yes = 1.0 / (1.0 + np.exp(-t))
    np.testing.assert_allclose(data.log_likelihood["y"].values[1, 2],
                               np.log(np.where(labels == "yes", p_yes, 1.0 - p_yes)), rtol=1e-10)
    np.testing.assert_array_equal(data.observed_data["y"].values, labels == "yes")
    mixture = AlphaGaussianMixture(2, random_state=0).fit(X)
    data = to_inference_data(mixture, n_draws=3, n_chains=2, X=X, random_state=0)
    post = data.posterior
    density = sum(post["weights"].values[0, 1, k] * multivariate_normal.pdf(
        X, post["means"].values[0, 1, k], post["covariances"].values[0, 1, k])
        for k in range(2))
    np.testing.assert_allclose(data.log_likelihood["x"].values[0, 1], np.log(density),
                               rtol=1e-9)
    assert "posterior_predictive" not in data.groups()


def test_an_estimator_without_q_is_refused_by_name():
    from sklearn.linear_model import LinearRegression

    from alphavb import to_inference_data

    model = LinearRegression().fit(np.ones((3, 1)), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"'estimator' parameter .* sample_posterior"):
        to_inference_data(model)


def test_the_predictive_noise_is_independent_of_the_posterior_draws():
    """With an integer random_state the predictive's noise came from a second stream with
    the same seed, so it repeated the numbers that drew the coefficients; it now continues
    the posterior's stream: the noise y_rep - mean is uncorrelated with the coefficients
    (one feature, known noise: before, the correlation was 1)."""
    from alphavb import AlphaLinearRegression, to_inference_data

    X, y = _regression_data(seed=2)
    X = X[:, :1]
    model = AlphaLinearRegression(noise_variance=1.0).fit(X, y)
    data = to_inference_data(model, n_draws=2000, n_chains=1, X=X[:1], y=y[:1],
                             random_state=0)
    coef = data.posterior["coef"].values[0]
    mean = coef @ X[0] + data.posterior["intercept"].values[0]
    noise = data.posterior_predictive["y"].values[0, :, 0] - mean
    for j in range(coef.shape[1]):
        assert abs(np.corrcoef(noise, coef[:, j])[0, 1]) < 0.1


def test_no_warning_from_arviz_on_its_first_import_of_the_day(tmp_path):
    """arviz 0.2x warns of its coming refactor on its first import each day (a stamp in the
    user's cache folder); alphavb imports it for the user, who should not see that notice:
    a fresh cache folder (no stamp), warnings as errors, both of alphavb's routes to it."""
    import os
    import subprocess
    import sys

    code = ("import numpy as np\n"
            "from alphavb import AlphaLinearRegression, to_inference_data\n"
            "from alphavb.exact import sample_exact\n"
            "X = np.random.default_rng(0).normal(size=(30, 2)); y = X[:, 0]\n"
            "model = AlphaLinearRegression().fit(X, y)\n"
            "to_inference_data(model, n_draws=10)\n"
            "sample_exact(model, X, y, n_draws=10, n_chains=2, random_state=0)\n"
            "import arviz, pathlib, platformdirs\n"
            "stamp = pathlib.Path(platformdirs.user_cache_dir('arviz', 'arviz'))\n"
            "print('stamp' if (stamp / 'daily_warning').exists() else 'no stamp')\n")
    result = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True,
                            text=True, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)},
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    # the stamp lies in the fresh folder: arviz did take this import as the day's first
    assert result.stdout.strip() == "stamp" and str(tmp_path) in str(
        list(tmp_path.rglob("daily_warning")))
