"""alphavb.exact's guards: the mixing warning's units, names and undefined diagnostics, and
the data too small for the exact posterior of the noise variance (named, before sampling)."""

import re
import warnings

import numpy as np
import pytest

from alphavb import AlphaLinearRegression, AlphaSpikeSlabRegression, AlphaSuSiE

pytest.importorskip("arviz")
from alphavb.exact import MixingWarning, compare_to_exact, sample_exact
from alphavb.exact._draws import ExactDraws


def autoregressive_chains(n_chains, n_draws, shape=(), phi=0.9, seed=0):
    """(chain, draw, *shape) AR(1) draws: with ``phi = 0.9`` an ESS near ``n_chains n_draws
    / 19``."""
    rng = np.random.default_rng(seed)
    draws = np.zeros((n_chains, n_draws, *shape))
    for t in range(1, n_draws):
        draws[:, t] = phi * draws[:, t - 1] + rng.normal(size=(n_chains, *shape))
    return draws


def mixing_messages(exact):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exact.warn_if_not_mixed()
    return [str(w.message) for w in caught if issubclass(w.category, MixingWarning)]


def test_ess_message_states_the_total_against_the_total_threshold():
    # 4 chains of 2,000 AR(0.9) draws: a total bulk ESS of about 420, under 100 x 4 chains
    draws = {"v": autoregressive_chains(4, 2000, seed=1)}
    exact = ExactDraws(None, draws, method="test")
    ess = float(exact.diagnostics["v"][1])
    assert 100.0 < ess < 400.0  # above the per-chain number, under the total threshold
    (message,) = mixing_messages(exact)
    assert f"bulk ESS {ess:.0f} < 400 (100 per chain x 4 chains) for v" in message
    assert "< 100 per chain" not in message
    # above the total threshold: no ESS complaint (R-hat of AR chains is near 1)
    exact = ExactDraws(None, {"v": autoregressive_chains(4, 2000, phi=0.0, seed=2)},
                       method="test")
    assert float(exact.diagnostics["v"][1]) >= 400.0
    assert mixing_messages(exact) == []


def test_one_chain_is_checked_by_split_rhat():
    draws = np.concatenate([np.zeros(100), np.ones(100)]) + 0.01 * np.arange(200)
    exact = ExactDraws(None, {"v": draws[None, :]}, method="test")
    rhat, _ = exact.diagnostics["v"]
    assert rhat > 1.5  # the two halves disagree: split R-hat sees it in one chain
    (message,) = mixing_messages(exact)
    assert re.search(r"R-hat \d\.\d+ > 1\.01 for v\b", message)
    assert "n_chains=1" in message  # and more chains are part of the remedy


def test_one_chain_of_sample_exact_warns():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + rng.normal(size=40)
    with pytest.warns(MixingWarning, match=r"R-hat|bulk ESS") as caught:
        data = sample_exact(AlphaLinearRegression(coef_prior="independent"), X, y,
                            n_draws=20, n_chains=1, n_tune=0, random_state=0)
    assert data.posterior.attrs["min_ess_bulk"] < 100.0
    assert any("n_chains=1" in str(w.message) for w in caught)


@pytest.mark.parametrize("n_chains", [1, 4])
@pytest.mark.parametrize("n_draws", [1, 3, 6])
def test_undefined_diagnostics_warn_with_the_remedy(n_draws, n_chains):
    # under 8 draws per chain the bulk ESS (and under 4 split R-hat) is NaN: not a pass
    draws = {"v": np.random.default_rng(4).normal(size=(n_chains, n_draws, 2))}
    exact = ExactDraws(None, draws, method="test")
    messages = mixing_messages(exact)
    assert len(messages) == 1
    assert f"could not be computed from {n_draws} draw" in messages[0]
    assert "at least 8" in messages[0] and f"n_draws={n_draws} now" in messages[0]
    assert ("Run 2 or more chains (n_chains=1 now)" in messages[0]) == (n_chains == 1)


def test_a_nan_diagnostic_of_a_varying_entry_warns():
    draws = {"v": np.random.default_rng(5).normal(size=(4, 500, 3))}
    exact = ExactDraws(None, draws, method="test")
    rhat, ess = exact.diagnostics["v"]
    assert np.all(rhat < 1.01) and np.all(ess > 400)
    exact.diagnostics["v"] = (np.array([1.0, np.nan, 1.0]), ess)  # the property is cached
    (message,) = mixing_messages(exact)
    assert "mixing of the chains could not be checked" in message
    assert "could not be computed for v[1]" in message


def test_constant_and_independent_draws_do_not_warn():
    # a constant entry has no R-hat to compute; independent draws are not checked
    draws = {"v": np.ones((4, 50, 2)), "w": np.random.default_rng(5).normal(size=(4, 500))}
    assert mixing_messages(ExactDraws(None, draws, method="test")) == []
    assert mixing_messages(ExactDraws(None, {"v": np.zeros((1, 2))}, method="test",
                                      iid=True)) == []


def test_an_infinite_rhat_warns():
    # each chain stuck, the chains apart: R-hat can be inf (no within-chain variance)
    exact = ExactDraws(None, {"v": np.repeat(np.arange(4.0)[:, None], 100, axis=1)},
                       method="test")
    exact.diagnostics["v"] = (np.array(np.inf), np.array(1000.0))
    (message,) = mixing_messages(exact)
    assert "R-hat inf > 1.01 for v" in message


def test_the_warning_names_a_matrix_entry_by_its_indices():
    means = autoregressive_chains(4, 500, shape=(3, 2), phi=0.0, seed=6)
    means[0, :, 2, 1] += 3.0  # one chain of one entry off
    exact = ExactDraws(None, {"means": means, "noise_variance": means[..., 0, 0]},
                       method="test")
    (message,) = mixing_messages(exact)
    assert "for means[2, 1]" in message and "means[5]" not in message


def test_scalar_variable_is_named_without_an_index():
    noise = autoregressive_chains(4, 500, phi=0.0, seed=7)
    noise[0] += 3.0
    (message,) = mixing_messages(ExactDraws(None, {"noise_variance": noise}, method="test"))
    assert "for noise_variance." in message or "for noise_variance;" in message


def small_data(n=5, d=3, seed=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X[:, 0] + rng.normal(size=n)


@pytest.mark.parametrize("estimator", [
    AlphaSpikeSlabRegression(alpha=0.01),
    AlphaLinearRegression(alpha=0.01),
    AlphaLinearRegression(alpha=0.01, coef_prior="independent"),
    AlphaSpikeSlabRegression(alpha=0.2),  # alpha n = 1 = k: shape a0 = 1e-6
], ids=["spike_slab", "conjugate", "independent", "spike_slab_alpha_n_equal_to_k"])
def test_too_few_observations_for_the_noise_variance_name_the_fix(estimator):
    X, y = small_data()
    X_before, y_before = X.copy(), y.copy()
    with pytest.raises(ValueError, match=r"alpha x n_samples") as raised:
        sample_exact(estimator, X, y, n_draws=20, n_tune=5, random_state=0)
    message = str(raised.value)
    for name in ("noise_prior", "noise_variance=", "alpha", "rows", "1 flat column"):
        assert name in message
    assert re.search(r"noise_prior with shape >= \d", message)
    assert np.array_equal(X, X_before) and np.array_equal(y, y_before)
    # the shape it names is enough: sampling then works and gives finite draws
    needed = float(re.search(r"shape >= ([\d.e+-]+)", message).group(1).rstrip("."))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MixingWarning)
        data = sample_exact(estimator.set_params(noise_prior=(needed, 1.0)), X, y,
                            n_draws=20, n_tune=5, random_state=0)
    assert np.all(np.isfinite(data.posterior["noise_variance"].values))
    # and a known noise variance needs no observations of it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MixingWarning)
        sample_exact(estimator.set_params(noise_variance=1.0), X, y, n_draws=20, n_tune=5,
                     random_state=0)


def test_covariates_count_among_the_flat_columns():
    X, y = small_data(n=5, seed=9)
    covariates = np.random.default_rng(9).normal(size=(5, 2))
    model = AlphaSpikeSlabRegression(alpha=0.5)  # 2 covariates < alpha n = 2.5, k = 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y, covariates=covariates)  # the variational fit takes it
    with pytest.raises(ValueError, match=r"3 flat columns \(the intercept and 2 covariates"
                                         r"\).*noise_prior"):
        sample_exact(model, X, y, covariates=covariates, n_draws=20, n_tune=5)


@pytest.mark.parametrize("estimator", [AlphaSpikeSlabRegression(),
                                       AlphaLinearRegression(coef_prior="independent"),
                                       AlphaLinearRegression()],
                         ids=["spike_slab", "independent", "conjugate"])
def test_one_row_names_x_and_the_fix(estimator):
    X, y = small_data(n=1, seed=10)
    with pytest.raises(ValueError, match=r"X has 1 row,.*noise_prior.*noise_variance="):
        sample_exact(estimator, X, y, n_draws=20, n_tune=5, random_state=0)
    with pytest.raises(ValueError, match=r"X has 1 row,"):  # before its variational fit
        compare_to_exact(estimator, X, y, n_draws=20, n_tune=5, random_state=0)
    # without the intercept one row is one observation of the noise variance: it samples
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MixingWarning)
        data = sample_exact(estimator.set_params(fit_intercept=False), X, y, n_draws=20,
                            n_tune=5, random_state=0)
    assert np.all(np.isfinite(data.posterior["noise_variance"].values))
    assert np.all(np.isfinite(data.posterior["coef"].values))


@pytest.mark.parametrize("make", ["logistic", "spike-slab classifier"])
def test_an_alpha_the_polya_gamma_sampler_cannot_draw_is_named(make):
    """PG(alpha, psi) at alpha <= 1e-4 is refused by the polyagamma package with a bytes
    message about `h`; sample_exact names alpha and the fix first."""
    from alphavb import AlphaLogisticRegression, AlphaSpikeSlabClassifier
    from alphavb.exact import sample_exact

    rng = np.random.RandomState(0)
    X = rng.randn(40, 4)
    y = (X[:, 0] + rng.randn(40) > 0).astype(int)
    estimator = (AlphaLogisticRegression(alpha=1e-4, random_state=0) if make == "logistic"
                 else AlphaSpikeSlabClassifier(alpha=1e-4))
    with pytest.raises(ValueError, match=r"'alpha' parameter of sample_exact.*1e-3 or more"):
        sample_exact(estimator, X, y, n_draws=20, n_chains=2, n_tune=5, random_state=0)


def test_compare_to_exact_needs_two_draws_for_an_sd():
    rng = np.random.RandomState(0)
    X = rng.randn(40, 4)
    y = X[:, 0] + rng.randn(40)
    with pytest.raises(ValueError, match="'n_draws' parameter of compare_to_exact"):
        compare_to_exact(AlphaLinearRegression(), X, y, n_chains=1, n_draws=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        frame = compare_to_exact(AlphaLinearRegression(), X, y, n_chains=1, n_draws=2,
                                 random_state=0)
    assert np.isfinite(frame.attrs["median_sd_ratio"])


def test_fewer_draws_than_chains_warn_only_that_mixing_is_unchecked():
    """One draw per chain in two chains: the InferenceData is (chain, draw, ...) as given,
    and the only warning is the MixingWarning (ArviZ's layout guess, 'More chains than
    draws', is not the user's concern)."""
    import warnings

    from alphavb.exact import MixingWarning, sample_exact

    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 10))
    y = X[:, 0] + rng.standard_normal(200)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        data = sample_exact(AlphaSuSiE(n_effects=3), X, y, n_draws=1, n_chains=2, n_tune=5,
                            random_state=0)
    assert data.posterior["coef"].shape == (2, 1, 10)
    assert [w.category for w in said] == [MixingWarning]
