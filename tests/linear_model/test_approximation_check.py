"""The fit-time check of a spike-and-slab fit against its exact alpha-posterior
(``approximation_check_``, ``PosteriorApproximationWarning``): its PIPs and interval masses
against an enumeration of every model, its verdicts, its place in ``summary()``."""

import itertools
import warnings

import numpy as np
import pytest
from scipy import special

from alphavb import (
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
    PosteriorApproximationWarning,
)
from alphavb.linear_model._neighbourhood import CollapsedModel, neighbourhood_posterior


def collinear_design(n=120, seed=0):
    """Six columns, 0 and 1 nearly copies of each other, y driven by column 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    X[:, 1] = X[:, 0] + 0.05 * rng.normal(size=n)
    y = X[:, 0] + 0.5 * X[:, 3] + rng.normal(size=n)
    return X, y


def enumerate_models(model, X, y):
    """The exact alpha-posterior of a spike-and-slab regression over all 2^d models,
    written out here from the model (numpy, not the package's kernels): ``p(z | y)`` per
    model with ``beta`` and ``sigma2`` integrated out, and per model the Student t of each
    coefficient (standardized units). Returns the models, their weights, means, scales and
    degrees of freedom."""
    alpha = model.alpha
    Xs = (X - X.mean(axis=0)) / X.std(axis=0, ddof=0) * np.sqrt(alpha)
    ys = (y - y.mean()) * np.sqrt(alpha)
    n, d = X.shape
    pi = 1.0 / d
    nu = model.slab_variance
    a0, b0 = model.noise_prior_
    shape = a0 + 0.5 * (alpha * n - 1)       # the intercept integrated out
    models, logs, means, scales = [], [], [], []
    for z in itertools.product([0, 1], repeat=d):
        idx = np.flatnonzero(z)
        k = len(idx)
        A = Xs[:, idx].T @ Xs[:, idx] + np.eye(k) / nu
        b = Xs[:, idx].T @ ys
        mean = np.linalg.solve(A, b) if k else np.zeros(0)
        Q = float(b @ mean) if k else 0.0
        scale = b0 + 0.5 * (ys @ ys - Q)
        log_det = np.linalg.slogdet(A)[1] if k else 0.0
        logs.append(k * np.log(pi) + (d - k) * np.log1p(-pi) - 0.5 * k * np.log(nu)
                    - 0.5 * log_det - shape * np.log(scale))
        models.append(idx)
        means.append(mean)
        scales.append(np.sqrt(np.diag(np.linalg.inv(A)) * scale / shape) if k else np.zeros(0))
    weights = np.exp(np.array(logs) - special.logsumexp(logs))
    return models, weights, means, scales, 2 * shape


def test_regression_check_equals_the_enumeration_of_every_model():
    X, y = collinear_design()
    with pytest.warns(PosteriorApproximationWarning, match="compare_to_exact"):
        model = AlphaSpikeSlabRegression().fit(X, y)
    check = model.approximation_check_
    models, weights, means, scales, dof = enumerate_models(model, X, y)
    exact_pips = sum(w * np.isin(np.arange(6), m) for m, w in zip(models, weights, strict=True))
    np.testing.assert_allclose(check.exact_pips, exact_pips, atol=2e-3)
    # the mass of each variational interval under the enumerated posterior
    intervals = model.credible_intervals(0.95) * X.std(axis=0)[:, None]
    mass = np.zeros(6)
    for m, w, mean, scale in zip(models, weights, means, scales, strict=True):
        inside = ((intervals[:, 0] <= 0) & (intervals[:, 1] >= 0)).astype(float)
        if len(m):
            inside[m] = (special.stdtr(dof, (intervals[m, 1] - mean) / scale)
                         - special.stdtr(dof, (intervals[m, 0] - mean) / scale))
        mass += w * inside
    np.testing.assert_allclose(check.interval_mass, mass, atol=0.02)
    # the mean-field fit keeps one of the twins; the exact posterior splits them
    assert check.max_pip_error > 0.2 and not check.reliable
    assert min(exact_pips[0], exact_pips[1]) > 0.2


def test_search_with_a_small_budget_still_finds_the_split():
    X, y = collinear_design()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorApproximationWarning)
        model = AlphaSpikeSlabRegression().fit(X, y)
    collapsed = model._collapsed_model(model._prepare_fit(X, y), None)
    one_step = neighbourhood_posterior(collapsed, np.flatnonzero(
        model.inclusion_probabilities_ > 0.5), max_expansions=1)
    assert one_step.n_expanded == 1
    assert min(one_step.inclusion_probabilities[:2]) > 0.2


def logistic_expansion(design, labels, columns, slab_variance, alpha):
    """The tempered logistic likelihood of the model ``columns`` (the first a flat
    intercept) expanded at its posterior mode (the neighbourhood module's docstring), by
    Newton's method in numpy: the rows' weights ``sqrt(alpha w)``, the working response and
    the constant that makes the Gaussian model's evidence the Laplace approximation."""
    D = design[:, columns]
    precision = np.r_[0.0, np.full(len(columns) - 1, 1.0 / slab_variance)]
    coef = np.zeros(len(columns))
    for _ in range(200):
        probability = special.expit(D @ coef)
        gradient = alpha * D.T @ (labels - probability) - precision * coef
        hessian = alpha * (D.T * probability * (1 - probability)) @ D + np.diag(precision)
        step = np.linalg.solve(hessian, gradient)
        coef += step
        if np.max(np.abs(step)) < 1e-13:
            break
    t = D @ coef
    probability = special.expit(t)
    weight = probability * (1 - probability)
    residual = labels - probability
    response = np.sqrt(alpha * weight) * (t + residual / weight)
    log_likelihood = np.sum(labels * t - np.logaddexp(0.0, t))
    constant = (alpha * log_likelihood + 0.5 * alpha * np.sum(residual**2 / weight)
                - 0.5 * response @ response)
    return np.sqrt(alpha * weight), response, constant


def test_a_logistic_grid_of_slab_variances_scores_each_step_under_every_setting():
    """Each prior setting has its own expansion of a logistic model (its mode, weights and
    working response), so the columns most correlated under one need not be under another.
    Every model one step from the start carries ``log sum_h`` of its Gaussian score under
    each setting's expansion at the start's mode: the step's columns and its value agree
    (they were summed by position across settings whose steps differed)."""
    rng = np.random.default_rng(1)
    n, d = 40, 12
    X = rng.standard_normal((n, d))
    X[:, 1:4] += X[:, [0]]
    labels = (X[:, 0] + rng.standard_normal(n) > 0).astype(float)
    design = np.hstack([np.ones((n, 1)), X])
    slabs, pi, alpha, log_hyper = np.array([0.05, 5.0]), 0.2, 0.7, np.log([0.3, 0.7])
    collapsed = CollapsedModel(design, np.zeros(n), 1, slabs, np.full(2, pi), log_hyper,
                               (1.0, 1.0), ("known", 1.0), labels=labels, alpha=alpha)
    posterior = neighbourhood_posterior(collapsed, [0], max_expansions=1, window=np.inf)
    expansions = [logistic_expansion(design, labels, [0, 1], nu, alpha) for nu in slabs]

    def score(columns, h):
        root, response, constant = expansions[h]
        local = design[:, columns] * root[:, None]
        size = len(columns) - 1
        A = local.T @ local + np.diag(np.r_[0.0, np.full(size, 1.0 / slabs[h])])
        b = local.T @ response
        return (log_hyper[h] + size * np.log(pi) + (d - size) * np.log1p(-pi)
                - 0.5 * size * np.log(slabs[h]) - 0.5 * np.linalg.slogdet(A)[1]
                + 0.5 * b @ np.linalg.solve(A, b) + constant)

    values = posterior._settings, posterior._outs, posterior._intos
    assert posterior.n_models == 1 + d + 10  # the start, its single moves, 10 swaps
    found = np.log(posterior.weights)
    expected = []
    for out, into in zip(values[1], values[2], strict=True):
        columns = {0, 1} - {out} | ({into} if into >= 0 else set())
        expected.append(special.logsumexp([score(sorted(columns), h) for h in range(2)]))
    expected = np.array(expected) - special.logsumexp(expected)
    np.testing.assert_allclose(found, expected, atol=1e-7)


def test_a_setting_that_scores_no_swap_of_twin_columns_is_not_misaligned():
    """A slab variance so wide that adding a copy of a column in the model leaves ``A``
    singular in floating point: that step scores -inf under it and stays in place, so the
    settings still score the same steps (the search raised IndexError here)."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((30, 5))
    X[:, 1] = X[:, 0]
    X[:, 3] = X[:, 2] * 2.0
    y = X[:, 0] + rng.standard_normal(30)
    for slabs in ([1.0, 1e300], [1e300, 1.0]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PosteriorApproximationWarning)
            model = AlphaSpikeSlabRegression(slab_variance=slabs, prior_inclusion=0.2,
                                             random_state=0).fit(X, y)
        pips = model.approximation_check_.exact_pips
        assert np.all(np.isfinite(pips)) and np.all((pips >= 0) & (pips <= 1))
        # the twins share the signal: their PIPs are equal under the exact posterior
        assert pips[0] == pytest.approx(pips[1], abs=1e-6)


def test_a_clean_fit_passes_without_a_warning():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 20))
    y = X[:, :3] @ [1.0, -1.0, 0.8] + rng.normal(size=200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PosteriorApproximationWarning)
        model = AlphaSpikeSlabRegression().fit(X, y)
    check = model.approximation_check_
    assert check.reliable and check.max_pip_error < 0.05 and check.min_interval_mass > 0.9
    assert "within the limits" in model.summary().as_text()


def test_known_noise_and_a_grid_match_the_sampler():
    """With a known noise variance and a grid of two prior settings (summed out with
    their exact weights) the check's PIPs are the collapsed Gibbs sampler's."""
    pytest.importorskip("arviz")
    from alphavb.exact import sample_exact

    X, y = collinear_design(seed=3)
    model = AlphaSpikeSlabRegression(noise_variance=1.0, prior_inclusion=[0.1, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorApproximationWarning)
        model.fit(X, y)
    draws = sample_exact(model, X, y, n_draws=3000, n_chains=2, random_state=0)
    sampled = draws.posterior["inclusion"].mean(dim=("chain", "draw")).to_numpy()
    np.testing.assert_allclose(model.approximation_check_.exact_pips, sampled, atol=0.03)


def test_classifier_check_tracks_the_polya_gamma_sampler():
    pytest.importorskip("arviz")
    from alphavb.exact import sample_exact

    rng = np.random.default_rng(2)
    n = 300
    X = rng.normal(size=(n, 5))
    X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=n)
    y = (1.5 * X[:, 0] + rng.logistic(size=n) > 0).astype(int)
    with pytest.warns(PosteriorApproximationWarning):
        model = AlphaSpikeSlabClassifier().fit(X, y)
    draws = sample_exact(model, X, y, n_draws=1500, n_chains=2, random_state=0)
    sampled = draws.posterior["inclusion"].mean(dim=("chain", "draw")).to_numpy()
    check = model.approximation_check_
    np.testing.assert_allclose(check.exact_pips, sampled, atol=0.1)
    assert check.max_pip_error > 0.2
    assert "unreliable" in model.summary().as_text()


def test_linear_check_is_the_closed_form_the_sampler_draws_from():
    """Conjugate prior, learned noise: the exact masses of q's intervals match the exact
    sampler's (independent draws of the normal-inverse-gamma posterior). With 20
    coefficients on 30 rows at alpha = 0.5 q(sigma2)'s interval holds 0.78 (reported, not
    warned on); with 20 coefficients on 22 rows at alpha = 0.1 the coefficients' intervals
    fail too and the fit warns."""
    pytest.importorskip("arviz")
    from alphavb import AlphaLinearRegression
    from alphavb.exact import compare_to_exact

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 20))
    y = X[:, 0] + rng.normal(size=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PosteriorApproximationWarning)
        model = AlphaLinearRegression(alpha=0.5).fit(X, y)
    check = model.approximation_check_
    assert check.reliable and check.noise_interval_mass < 0.8
    frame = compare_to_exact(model, X, y, n_draws=5000, random_state=0)
    np.testing.assert_allclose(check.interval_mass, frame["interval_mass"].iloc[:20],
                               atol=0.015)
    assert check.noise_interval_mass == pytest.approx(frame["interval_mass"]["sigma2"],
                                                      abs=0.015)
    with pytest.warns(PosteriorApproximationWarning, match="Student t where q is normal"):
        few = AlphaLinearRegression(alpha=0.1).fit(X[:22], y[:22])
    assert few.approximation_check_.min_interval_mass < 0.82


def test_linear_check_with_a_known_variance_is_exact_and_silent():
    from alphavb import AlphaLinearRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 20))
    y = X[:, 0] + rng.normal(size=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PosteriorApproximationWarning)
        model = AlphaLinearRegression(alpha=0.5, noise_variance=1.0).fit(X, y)
    np.testing.assert_array_equal(model.approximation_check_.interval_mass, 0.95)
    independent = AlphaLinearRegression(coef_prior="independent").fit(X, y)
    assert independent.approximation_check_ is None


def test_no_check_where_the_noise_variance_has_no_exact_posterior():
    """alpha x n = 0.05 observations for the noise variance: the exact posterior does not
    exist (sample_exact refuses it), so the fit publishes no check and warns of none."""
    from alphavb import AlphaLinearRegression

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(5, 3)), rng.normal(size=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PosteriorApproximationWarning)
        for model in (AlphaSpikeSlabRegression(alpha=0.01), AlphaLinearRegression(alpha=0.01)):
            assert model.fit(X, y).approximation_check_ is None
