"""alphavb.exact: every sampler against an exact answer (enumeration of all models, the
normal-inverse-gamma closed form, quadrature), within its Monte Carlo error at fixed seeds."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

from alphavb import (
    AlphaLinearRegression,
    AlphaLogisticRegression,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
    InvalidParameterError,
)

pytest.importorskip("arviz")
from alphavb.exact import MixingWarning, _draw, compare_to_exact, sample_exact
from alphavb.exact._draws import chain_diagnostics, mcse_mean, mcse_sd
from alphavb.exact._spike_slab import sample_spike_slab


def correlated_design(n=60, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d) + rng.normal(size=d)
    X[:, 1] = X[:, 0] + 0.15 * rng.normal(size=n)       # two nearly collinear columns
    y = 1.2 * X[:, 0] / X[:, 0].std() - 0.8 * X[:, 3] / X[:, 3].std() + rng.normal(size=n)
    return X, 3.0 + y


def enumerate_spike_slab(X, y, alpha, settings, *, noise_variance=None, noise_prior=None,
                         beta_prior=None, weights=None):
    """Exact posterior by enumerating every model, written from the formula (centred and
    standardized columns, flat intercept integrated out): PIPs, E[sigma2] and p(h)."""
    n, d = X.shape
    w = np.ones(n) if weights is None else np.asarray(weights, float)
    mean_x = w @ X / w.sum()
    Xc = X - mean_x
    sd = np.sqrt(w @ Xc**2 / w.sum())
    Xs = Xc / sd * np.sqrt(alpha * w)[:, None]
    yc = (y - w @ y / w.sum()) * np.sqrt(alpha * w)
    if noise_prior is None:
        var_y = w @ (y - w @ y / w.sum()) ** 2 / w.sum()
        noise_prior = (1e-6, 1e-6 * var_y)
    a0, b0 = noise_prior
    shape = a0 + 0.5 * (alpha * w.sum() - 1)
    log_post, pip_terms, sigma_terms, hs = [], [], [], []
    for h, (pi, nu) in enumerate(settings):
        for z in itertools.product([0, 1], repeat=d):
            z = np.array(z, bool)
            k = z.sum()
            A = Xs[:, z].T @ Xs[:, z] + np.eye(k) / nu
            b = Xs[:, z].T @ yc
            quad = b @ np.linalg.solve(A, b) if k else 0.0
            if beta_prior is not None:
                a, bb = beta_prior
                prior = gammaln(a + k) + gammaln(bb + d - k) - gammaln(a + bb + d)
            else:
                prior = k * np.log(pi) + (d - k) * np.log1p(-pi)
            logdet = np.linalg.slogdet(A)[1] if k else 0.0
            lp = prior - 0.5 * k * np.log(nu) - 0.5 * logdet
            if noise_variance is None:
                rate = b0 + 0.5 * (yc @ yc - quad)
                lp += -shape * np.log(rate)
                sigma_terms.append(rate / (shape - 1))
            else:
                lp += 0.5 * quad / noise_variance
                sigma_terms.append(noise_variance)
            log_post.append(lp)
            pip_terms.append(z)
            hs.append(h)
    log_post = np.array(log_post) - np.log(len(settings))
    p = np.exp(log_post - logsumexp(log_post))
    setting_post = np.bincount(hs, weights=p, minlength=len(settings))
    return p @ np.array(pip_terms, float), p @ np.array(sigma_terms), setting_post


def run_sampler(estimator, X, y, n_draws=3000, seed=0, **fit_params):
    return sample_spike_slab(estimator, X, y, n_draws=n_draws, n_chains=4, n_tune=300,
                             thin=1, rng=np.random.RandomState(seed), **fit_params)


@pytest.mark.parametrize("noise_variance", [None, 0.8])
def test_spike_slab_sampler_matches_enumeration(noise_variance):
    X, y = correlated_design()
    alpha = 0.5
    model = AlphaSpikeSlabRegression(alpha=alpha, prior_inclusion=0.2, slab_variance=2.0,
                                     noise_variance=noise_variance)
    exact = run_sampler(model, X, y)
    pip, se = exact.inclusion_probabilities()
    want, want_sigma, _ = enumerate_spike_slab(X, y, alpha, [(0.2, 2.0)],
                                               noise_variance=noise_variance)
    assert 0.3 < want[0] < 0.9 and 0.1 < want[1] < 0.7  # the collinear pair shares the mass
    assert np.all(np.abs(pip - want) <= 4.0 * se + 2e-3)
    sigma = exact.draws["noise_variance"]
    if noise_variance is None:
        se_sigma = mcse_mean(sigma[..., None])[0]
        assert abs(sigma.mean() - want_sigma) <= 4.0 * se_sigma
    else:
        assert np.all(sigma == noise_variance)
    # the indicator draws agree with the Rao-Blackwellised PIPs
    assert np.allclose(exact.draws["inclusion"].mean(axis=(0, 1)), pip, atol=0.03)
    # the coefficient of a left-out variable is 0 in its draw
    assert np.all(exact.draws["coef"][exact.draws["inclusion"] == 0] == 0.0)


def test_grid_of_settings_is_weighted_by_the_exact_marginal_likelihood():
    X, y = correlated_design(d=7, seed=1)
    settings = [(0.05, 0.5), (0.2, 2.0), (0.5, 8.0)]
    model = AlphaSpikeSlabRegression(alpha=0.8, prior_inclusion=[s[0] for s in settings],
                                     slab_variance=[s[1] for s in settings])
    exact = run_sampler(model, X, y)
    pip, se = exact.inclusion_probabilities()
    want, _, want_setting = enumerate_spike_slab(X, y, 0.8, settings)
    assert np.all(np.abs(pip - want) <= 4.0 * se + 2e-3)
    setting = exact.draws["setting"]
    frequency = np.bincount(setting.ravel(), minlength=3) / setting.size
    assert np.allclose(frequency, want_setting, atol=0.03)


def test_beta_prior_on_pi_is_integrated_out():
    X, y = correlated_design(d=6, seed=2)
    model = AlphaSpikeSlabRegression(alpha=0.25, inclusion_prior=(1.0, 4.0))
    exact = run_sampler(model, X, y)
    pip, se = exact.inclusion_probabilities()
    want, _, _ = enumerate_spike_slab(X, y, 0.25, [(np.nan, 1.0)], beta_prior=(1.0, 4.0))
    assert np.all(np.abs(pip - want) <= 4.0 * se + 2e-3)
    assert exact.draws["prior_inclusion"].shape == (4, 3000)


def test_integer_weights_equal_repeated_rows():
    X, y = correlated_design(n=40, d=6, seed=3)
    weights = np.random.default_rng(3).integers(1, 4, size=40)
    model = AlphaSpikeSlabRegression(alpha=0.5, prior_inclusion=0.3)
    exact = run_sampler(model, X, y, sample_weight=weights)
    pip, se = exact.inclusion_probabilities()
    want, _, _ = enumerate_spike_slab(np.repeat(X, weights, axis=0), np.repeat(y, weights),
                                      0.5, [(0.3, 1.0)])
    assert np.all(np.abs(pip - want) <= 4.0 * se + 2e-3)


def test_swap_moves_are_accepted_on_collinear_columns():
    X, y = correlated_design()
    exact = run_sampler(AlphaSpikeSlabRegression(alpha=1.0, prior_inclusion=0.2), X, y,
                        n_draws=500)
    assert min(exact.info["swap_acceptances"]) > 0


def normal_inverse_gamma(X, y, alpha, prior_precision, noise_prior):
    """The conjugate model's alpha-posterior moments, from the formula."""
    Xc, yc = X - X.mean(0), y - y.mean()
    lam = prior_precision * Xc.var(0)
    A = alpha * Xc.T @ Xc + np.diag(lam)
    m = np.linalg.solve(A, alpha * Xc.T @ yc)
    shape = noise_prior[0] + 0.5 * (alpha * len(y) - 1)
    rate = noise_prior[1] + 0.5 * alpha * (yc @ yc - m @ (Xc.T @ yc))
    sigma_mean = rate / (shape - 1)
    return m, np.sqrt(np.diag(sigma_mean * np.linalg.inv(A))), sigma_mean


def test_conjugate_linear_regression_draws_are_the_normal_inverse_gamma():
    X, y = correlated_design(n=30, d=4, seed=4)
    idata = sample_exact(AlphaLinearRegression(alpha=0.5, prior_precision=2.0,
                                               noise_prior=(2.0, 3.0)), X, y, random_state=4)
    coef = idata.posterior["coef"].values
    mean, sd, sigma_mean = normal_inverse_gamma(X, y, 0.5, 2.0, (2.0, 3.0))
    assert np.all(np.abs(coef.mean(axis=(0, 1)) - mean) <= 4.0 * sd / np.sqrt(8000))
    assert np.allclose(coef.std(axis=(0, 1)), sd, rtol=0.05)
    noise = idata.posterior["noise_variance"].values
    assert abs(noise.mean() - sigma_mean) <= 0.03 * sigma_mean
    assert idata.posterior.attrs["sampler"] == "independent draws (closed form)"
    assert list(idata.posterior["coef"].dims) == ["chain", "draw", "feature"]


def test_independent_prior_gibbs_matches_two_dimensional_quadrature():
    rng = np.random.default_rng(5)
    x = rng.normal(size=25)
    y = 0.7 * x + rng.normal(size=25)
    alpha, lam, (a0, b0) = 0.5, 0.5, (1.0, 1.0)
    model = AlphaLinearRegression(alpha=alpha, prior_precision=lam, coef_prior="independent",
                                  standardize=False, fit_intercept=False, noise_prior=(a0, b0))
    idata = sample_exact(model, x[:, None], y, n_draws=3000, random_state=5)
    beta = np.linspace(-1.0, 2.5, 600)[:, None]
    sigma2 = np.linspace(0.05, 6.0, 800)[None, :]
    log_density = (-0.5 * lam * beta**2 - (a0 + 1) * np.log(sigma2) - b0 / sigma2
                   + alpha * (-0.5 * len(y) * np.log(sigma2)
                              - 0.5 * ((y[:, None, None] - beta * x[:, None, None]) ** 2).sum(0)
                              / sigma2))
    p = np.exp(log_density - log_density.max())
    p /= p.sum()
    coef = idata.posterior["coef"].values[..., 0]
    assert abs(coef.mean() - (p * beta).sum()) <= 4.0 * mcse_mean(coef[..., None])[0]
    noise = idata.posterior["noise_variance"].values
    assert abs(noise.mean() - (p * sigma2).sum()) <= 4.0 * mcse_mean(noise[..., None])[0]
    assert idata.posterior.attrs["max_rhat"] < 1.01


def test_compare_where_vb_is_exact_known_noise_gaussian():
    X, y = correlated_design(n=50, d=4, seed=6)
    frame = compare_to_exact(AlphaLinearRegression(alpha=0.5, noise_variance=1.0), X, y,
                             random_state=6)
    assert list(frame.index) == ["x0", "x1", "x2", "x3", "intercept"]
    assert np.all(np.abs(frame["mean_error"]) < 4.0 * frame["exact_mean_se"]
                  / frame["exact_sd"])
    assert np.all(np.abs(frame["sd_ratio"] - 1.0) < 4.0 * frame["exact_sd_se"]
                  / frame["exact_sd"])
    assert np.all(np.abs(frame["interval_mass"] - 0.95) < 4.0 * frame["interval_mass_se"])
    assert "median sd ratio" in frame.attrs["summary"]


def test_compare_where_vb_is_not_exact_collinear_spike_slab():
    X, y = correlated_design()
    frame = compare_to_exact(AlphaSpikeSlabRegression(alpha=0.5, prior_inclusion=0.2), X, y,
                             n_draws=1500, random_state=7)
    # mean-field VB puts the collinear pair's mass on one column (PIPs 1.00 and 0.04); the
    # exact posterior shares it (0.71 and 0.41); the unrelated columns agree
    assert frame.attrs["largest_pip_error"] > 0.25
    assert frame.loc[["x0", "x1"], "interval_mass"].max() < 0.8
    others = ["x2", "x4", "x5", "x6", "x7"]
    assert np.all(np.abs(frame.loc[others, "vb_pip"] - frame.loc[others, "exact_pip"]) < 0.02)
    assert frame.loc["sigma2", "exact_sd"] > 0 and "exact_pip_se" in frame


def test_bad_input():
    X, y = correlated_design(n=30, d=4)
    from sklearn.linear_model import LinearRegression

    with pytest.raises(ValueError, match=r"estimator.*AlphaLinearRegression.*AlphaLDA"):
        sample_exact(LinearRegression(), X, y)
    with pytest.raises(ValueError, match="covariates"):
        sample_exact(AlphaLinearRegression(), X, y, covariates=X[:, :1])
    with pytest.raises(InvalidParameterError, match="n_draws"):
        sample_exact(AlphaLinearRegression(), X, y, n_draws=0)
    with pytest.raises(ValueError, match="alpha"):
        sample_exact(AlphaLinearRegression(alpha=2.0), X, y)
    X_before, y_before = X.copy(), y.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MixingWarning)
        sample_exact(AlphaSpikeSlabRegression(), X, y, n_draws=50, n_tune=10, random_state=0)
    assert np.array_equal(X, X_before) and np.array_equal(y, y_before)


def test_missing_arviz_names_the_extra(monkeypatch):
    import sys

    X, y = correlated_design(n=30, d=4)
    monkeypatch.setitem(sys.modules, "arviz", None)
    with pytest.raises(ImportError, match=r"alphavb\[exact\]"):
        sample_exact(AlphaLinearRegression(), X, y, n_draws=10)


def test_unmixed_chains_warn_with_the_remedy():
    X, y = correlated_design()
    with pytest.warns(MixingWarning, match="n_draws"):
        sample_exact(AlphaSpikeSlabRegression(alpha=1.0, prior_inclusion=0.2), X, y,
                     n_draws=20, n_tune=0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sample_exact(AlphaLinearRegression(), X, y, n_draws=200, random_state=0)


def logistic_data(n=60, seed=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[:, 1] = 0.6 * X[:, 0] + 0.8 * X[:, 1]
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-1.2 * X[:, 0]))).astype(int)
    return X, y


def log_tempered_logistic(X, y, coef, alpha):
    """``alpha sum_i log p(y_i | x_i' coef)`` on a grid of coefficients (last axis)."""
    t = np.tensordot(coef, X.T, axes=([coef.ndim - 1], [0]))
    return alpha * np.sum(y * t - np.logaddexp(0.0, t), axis=-1)


def test_polya_gamma_logistic_matches_quadrature():
    pytest.importorskip("polyagamma")
    X, y = logistic_data()
    x = X[:, :1]
    alpha, v = 0.5, 2.0
    model = AlphaLogisticRegression(alpha=alpha, prior_variance=v, fit_intercept=False,
                                    standardize=False)
    idata = sample_exact(model, x, y, n_draws=2000, n_tune=200, random_state=8)
    grid = np.linspace(-3.0, 5.0, 4001)[:, None]
    log_p = log_tempered_logistic(x, y, grid, alpha) - 0.5 * grid[:, 0] ** 2 / v
    p = np.exp(log_p - log_p.max())
    p /= p.sum()
    mean = p @ grid[:, 0]
    sd = np.sqrt(p @ (grid[:, 0] - mean) ** 2)
    coef = idata.posterior["coef"].values
    assert abs(coef.mean() - mean) <= 4.0 * mcse_mean(coef)[0]
    assert abs(coef.std() - sd) <= 4.0 * mcse_sd(coef)[0]


def test_polya_gamma_spike_slab_classifier_matches_quadrature():
    pytest.importorskip("polyagamma")
    X, y = logistic_data(seed=9)
    alpha, sa, pi = 0.5, 1.5, 0.3
    model = AlphaSpikeSlabClassifier(alpha=alpha, slab_variance=sa, prior_inclusion=pi,
                                     fit_intercept=False, standardize=False)
    exact = _draw(model, X, y, {}, 2000, 4, 200, 1, 9)[1]
    pip, se = exact.inclusion_probabilities()
    # the marginal likelihood of each of the 4 models by quadrature on a grid
    g = np.linspace(-4.0, 4.0, 321)
    step = g[1] - g[0]
    slab = -0.5 * g**2 / sa - 0.5 * np.log(2 * np.pi * sa)
    log_ml = {(0, 0): log_tempered_logistic(X, y, np.zeros((1, 2)), alpha)[0]}
    for j in (0, 1):
        coef = np.zeros((len(g), 2))
        coef[:, j] = g
        log_ml[(j == 0, j == 1)] = logsumexp(log_tempered_logistic(X, y, coef, alpha) + slab
                                             + np.log(step))
    both = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1)
    log_ml[(1, 1)] = logsumexp(log_tempered_logistic(X, y, both, alpha) + slab[:, None]
                               + slab[None, :] + 2 * np.log(step))
    models = np.array(list(log_ml), dtype=float)
    log_post = np.array([log_ml[key] for key in log_ml]) + models.sum(1) * np.log(pi) + (
        2 - models.sum(1)) * np.log1p(-pi)
    want = np.exp(log_post - logsumexp(log_post)) @ models
    assert np.all(np.abs(pip - want) <= 4.0 * se + 2e-3)


def test_wasserstein_equals_scipy_on_empirical_distributions():
    from scipy.stats import wasserstein_distance

    from alphavb.exact import wasserstein

    rng = np.random.default_rng(10)
    a = rng.normal(size=(800, 3))
    b = np.where(rng.random((400, 3)) < 0.3, 0.0, rng.standard_t(3, size=(400, 3)))
    want = [wasserstein_distance(a[:, j], b[:, j]) for j in range(3)]
    assert np.allclose(wasserstein(a, b), want, rtol=1e-12, atol=1e-14)


def test_polya_gamma_spike_slab_classifier_with_flat_intercept_matches_quadrature():
    pytest.importorskip("polyagamma")
    X, y = logistic_data(seed=11)
    x = X[:, 1:] - 0.6 * X[:, :1]    # the part of the second column the labels do not see
    alpha, sa, pi = 0.8, 1.0, 0.4
    model = AlphaSpikeSlabClassifier(alpha=alpha, slab_variance=sa, prior_inclusion=pi,
                                     standardize=False)
    exact = _draw(model, x, y, {}, 2000, 4, 200, 1, 11)[1]
    pip, se = exact.inclusion_probabilities()
    g = np.linspace(-5.0, 5.0, 401)
    step = g[1] - g[0]
    ones = np.ones((len(y), 1))
    # the flat intercept integrated on the grid in both models (its constant cancels)
    without = logsumexp(log_tempered_logistic(ones, y, g[:, None], alpha) + np.log(step))
    both = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1)
    with_x = logsumexp(log_tempered_logistic(np.hstack([ones, x]), y, both, alpha)
                       - 0.5 * g[None, :] ** 2 / sa - 0.5 * np.log(2 * np.pi * sa)
                       + 2 * np.log(step))
    log_odds = with_x - without + np.log(pi) - np.log1p(-pi)
    want = 1.0 / (1.0 + np.exp(-log_odds))
    assert 0.05 < want < 0.95
    assert abs(pip[0] - want) <= 4.0 * se[0] + 2e-3
    # the intercept's draws: its posterior mean by the same quadrature, mixed over models
    w0 = np.exp(log_tempered_logistic(ones, y, g[:, None], alpha))
    mean_without = (w0 * g).sum() / w0.sum()
    w1 = np.exp(log_tempered_logistic(np.hstack([ones, x]), y, both, alpha)
                - 0.5 * both[..., 1] ** 2 / sa)
    mean_with = (w1 * both[..., 0]).sum() / w1.sum()
    intercept = exact.draws["intercept"]
    expected = want * mean_with + (1 - want) * mean_without
    assert abs(intercept.mean() - expected) <= 4.0 * mcse_mean(intercept[..., None])[0] + 0.01


def test_covariates_are_integrated_out_exactly():
    X, y = correlated_design(n=50, d=6, seed=12)
    Z = np.random.default_rng(12).normal(size=(50, 2))
    y = y + Z @ [1.0, -0.5]
    alpha, pi = 0.5, 0.25
    exact = run_sampler(AlphaSpikeSlabRegression(alpha=alpha, prior_inclusion=pi), X, y,
                        covariates=Z)
    pip, se = exact.inclusion_probabilities()
    # the reference: project the intercept and Z out of the standardized X and of y; each
    # of the 3 flat columns takes 1/2 off the shape
    design = np.column_stack([np.ones(50), Z])
    project = np.eye(50) - design @ np.linalg.pinv(design)
    Xs = (X - X.mean(0)) / X.std(0)
    Xp, yp = np.sqrt(alpha) * project @ Xs, np.sqrt(alpha) * project @ y
    b0 = 1e-6 * np.var(project @ y)
    shape = 1e-6 + 0.5 * (alpha * 50 - 3)
    Zc, yc = Z - Z.mean(0), y - y.mean()
    log_post, models, gammas = [], [], []
    for z in itertools.product([0, 1], repeat=6):
        z = np.array(z, bool)
        k = z.sum()
        A = Xp[:, z].T @ Xp[:, z] + np.eye(k)
        b = Xp[:, z].T @ yp
        mean = np.linalg.solve(A, b) if k else np.zeros(0)
        quad = b @ mean if k else 0.0
        # E[gamma | z, y]: the flat-prior least squares of Z on y - X E[beta | z]
        gammas.append(np.linalg.lstsq(Zc, yc - Xs[:, z] @ mean, rcond=None)[0])
        log_post.append(k * np.log(pi) + (6 - k) * np.log1p(-pi)
                        - 0.5 * (np.linalg.slogdet(A)[1] if k else 0.0)
                        - shape * np.log(b0 + 0.5 * (yp @ yp - quad)))
        models.append(z)
    log_post = np.array(log_post)
    weights = np.exp(log_post - logsumexp(log_post))
    want = weights @ np.array(models, float)
    assert np.all(np.abs(pip - want) <= 4.0 * se + 2e-3)
    gamma = exact.draws["covariate_coef"]
    assert gamma.shape == (4, 3000, 2)
    assert np.all(np.abs(gamma.mean(axis=(0, 1)) - weights @ np.array(gammas))
                  <= 4.0 * mcse_mean(gamma))


def test_too_large_a_model_says_the_size_that_fits(monkeypatch):
    import alphavb.exact._linear as linear
    import alphavb.exact._spike_slab as spike_slab

    X, y = correlated_design(n=30, d=4)
    monkeypatch.setattr(linear, "MAX_FEATURES", 3)
    monkeypatch.setattr(spike_slab, "MAX_FEATURES", 3)
    for model in (AlphaLinearRegression(), AlphaSpikeSlabRegression()):
        with pytest.raises(ValueError, match="at most 3"):
            sample_exact(model, X, y, n_draws=10)


def test_a_fitted_selector_samples_its_chosen_model():
    from alphavb.model_selection import AlphaSelector

    X, y = correlated_design(n=40, d=4, seed=13)
    selector = AlphaSelector(AlphaLinearRegression(), alphas=[0.25, 1.0],
                             method="information").fit(X, y)
    idata = sample_exact(selector, X, y, n_draws=200, random_state=0)
    assert idata.posterior.attrs["alpha"] == selector.alpha_


def test_missing_polyagamma_names_the_extra(monkeypatch):
    import sys

    X, y = logistic_data()
    monkeypatch.setitem(sys.modules, "polyagamma", None)
    with pytest.raises(ImportError, match=r"alphavb\[exact\]"):
        sample_exact(AlphaLogisticRegression(), X, y, n_draws=10)


def test_rhat_and_ess_agree_with_arviz_on_autoregressive_chains():
    import warnings as _warnings

    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore", FutureWarning)
        import arviz as az
    rng = np.random.default_rng(14)
    phi = np.array([0.0, 0.5, 0.9, -0.3])
    draws = np.zeros((4, 1000, 4))
    for t in range(1, 1000):
        draws[:, t] = phi * draws[:, t - 1] + rng.normal(size=(4, 4))
    draws[1, :, 2] += 0.5  # one chain off: R-hat above 1.01
    rhat, ess = chain_diagnostics({"v": draws})["v"]
    dataset = az.convert_to_dataset({"v": draws})
    assert np.allclose(rhat, az.rhat(dataset)["v"].values, rtol=1e-8)
    assert np.allclose(ess, az.ess(dataset, method="bulk")["v"].values, rtol=0.02)
    assert rhat[2] > 1.01 > rhat[0]


def test_rao_blackwell_batches_of_unequal_size_still_average():
    X, y = correlated_design(d=5, seed=15)
    exact = run_sampler(AlphaSpikeSlabRegression(alpha=0.5, prior_inclusion=0.3), X, y,
                        n_draws=1013)   # 1,013 sweeps in 20 batches of 50 or 51
    pip, _ = exact.inclusion_probabilities()
    want, _, _ = enumerate_spike_slab(X, y, 0.5, [(0.3, 1.0)])
    assert np.all((pip >= 0.0) & (pip <= 1.0))
    assert np.allclose(pip, want, atol=0.03)


@pytest.mark.parametrize("coef_prior", ["conjugate", "independent"])
def test_linear_weights_equal_repeated_rows(coef_prior):
    X, y = correlated_design(n=30, d=4, seed=16)
    weights = np.random.default_rng(16).integers(1, 4, size=30)
    model = AlphaLinearRegression(alpha=0.5, coef_prior=coef_prior)
    weighted = sample_exact(model, X, y, sample_weight=weights, n_draws=300, n_tune=50,
                            random_state=16).posterior
    repeated = sample_exact(model, np.repeat(X, weights, axis=0), np.repeat(y, weights),
                            n_draws=300, n_tune=50, random_state=16).posterior
    for name in ("coef", "intercept", "noise_variance"):  # the same draws from one stream
        assert np.allclose(weighted[name].values, repeated[name].values, rtol=1e-8)
