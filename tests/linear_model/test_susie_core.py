"""The sum-of-single-effects math of alpha-SuSiE (alphavb.linear_model._susie): the single
effect against its closed form, alpha = 1 against susieR 0.12.35's numbers (stored from a
run, tests/data/susier_n3finemapping.json), the objective monotone at alpha < 1, tempering
as a rescaled residual variance, and credible sets against a hand-computed case."""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from alphavb.linear_model._susie import (
    credible_sets,
    ibss_data,
    ibss_sweep,
    inclusion_probabilities,
    initial_state,
    single_effect_regression,
)

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "susier_n3finemapping.json"


def fit(Z, y, n_effects, *, alpha=1.0, residual_variance=None, tol=1e-3, max_iter=100,
        **sweep):
    """Sweeps from susieR's start until the objective rises by less than ``tol`` (susieR's
    rule): the final state and the objective after every sweep."""
    data = ibss_data(Z, y)
    state = initial_state(data, n_effects, residual_variance)
    objective = []
    for _ in range(max_iter):
        state, value = ibss_sweep(data, state, alpha=alpha, **sweep)
        objective.append(value)
        if len(objective) > 1 and objective[-1] - objective[-2] < tol:
            break
    return state, np.array(objective)


def standardized(X, y):
    """susieR's intercept and standardize: centred y, columns centred and scaled by their
    sd with n - 1."""
    scale = X.std(axis=0, ddof=1)
    scale[scale == 0] = 1.0
    return (X - X.mean(axis=0)) / scale, y - y.mean()


def test_single_effect_equals_its_closed_form():
    """One effect, V and s2 known: alpha_j ∝ pi_j N(x_j'r/d_j; 0, V + s2/d_j) /
    N(.; 0, s2/d_j), and beta | gamma_j ~ N(m_j, v_j) from the conjugate normal."""
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(40, 6))
    r = 0.8 * Z[:, 2] + rng.normal(size=40)
    s2, V = 1.3, 0.7
    d = np.sum(Z**2, axis=0)
    xtr = Z.T @ r
    log_prior = np.log(np.full(6, 1 / 6))
    single = single_effect_regression(xtr, d, s2, V, log_prior, estimate_prior_variance=False)
    betahat, shat = xtr / d, np.sqrt(s2 / d)
    bf = norm.pdf(betahat, 0, np.sqrt(V + shat**2)) / norm.pdf(betahat, 0, shat)
    assert np.allclose(single.alpha, bf / bf.sum(), rtol=1e-12)
    v = 1 / (1 / V + d / s2)
    assert np.allclose(single.mean, v * xtr / s2, rtol=1e-12)
    assert np.allclose(single.second_moment, v + (v * xtr / s2) ** 2, rtol=1e-12)
    assert np.isclose(single.log_evidence, np.log(np.sum(bf / 6)), rtol=1e-12)


@pytest.mark.parametrize("response", [0, 1])
def test_alpha_one_is_susier(response):
    """alpha = 1, L = 10, susieR's defaults on N3finemapping: PIPs, prior variances,
    sigma2, the objective trace and the credible sets (variables, coverage, purity) equal
    susieR 0.12.35's."""
    from alphavb.datasets import get_data_home, load_n3finemapping

    if not (get_data_home() / "susie" / "N3finemapping_X.csv").exists():
        pytest.skip("the susie data are not in the data home (set ALPHAVB_DATA)")
    reference = json.loads(REFERENCE.read_text())[f"y{response + 1}"]
    data = load_n3finemapping()
    X = data.data
    Z, y = standardized(X, data.target[:, response])
    state, objective = fit(Z, y, 10)
    assert np.all(np.diff(objective) >= -1e-9)
    assert len(objective) == reference["niter"]
    assert np.allclose(objective, reference["elbo_trace"], atol=1e-3)
    assert np.isclose(state.residual_variance, reference["sigma2"], rtol=1e-6)
    assert np.allclose(state.prior_variance, reference["prior_variance"], rtol=1e-5,
                       atol=1e-9)
    pip = inclusion_probabilities(state.alpha, state.prior_variance)
    assert np.max(np.abs(pip - reference["pip"])) < 1e-6
    sets = credible_sets(state.alpha, state.prior_variance, X)
    assert [found["variables"] for found in sets] == reference["cs"]
    assert np.allclose([found["coverage"] for found in sets], reference["coverage"], rtol=1e-6)
    assert np.allclose([[found["min_abs_corr"], found["mean_abs_corr"],
                         found["median_abs_corr"]] for found in sets], reference["purity"],
                       rtol=1e-6)


def test_objective_never_falls_at_alpha_below_one():
    """alpha = 0.5 with sigma2 and every V_l estimated: F after each sweep never falls (the
    sigma2 update maximises F = alpha E log N(y | Xb, sigma2) - sum KL)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 40))
    X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=120)
    y = 1.5 * X[:, 0] - X[:, 7] + rng.normal(size=120)
    Z, y = standardized(X, y)
    _, objective = fit(Z, y, 5, alpha=0.5, tol=1e-10)
    assert len(objective) > 3
    assert np.all(np.diff(objective) >= -1e-8), np.diff(objective)


def test_tempering_is_the_residual_variance_over_alpha():
    """With sigma2 known, alpha-SuSiE at alpha equals SuSiE (alpha = 1) with residual
    variance sigma2 / alpha: the same q."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 20))
    y = X[:, 3] + rng.normal(size=80)
    Z, y = standardized(X, y)
    tempered, _ = fit(Z, y, 3, alpha=0.25, residual_variance=1.2,
                      estimate_residual_variance=False)
    rescaled, _ = fit(Z, y, 3, alpha=1.0, residual_variance=1.2 / 0.25,
                      estimate_residual_variance=False)
    assert np.allclose(tempered.alpha, rescaled.alpha, atol=1e-10)
    assert np.allclose(tempered.mean, rescaled.mean, atol=1e-10)


def test_credible_sets_and_purity_by_hand():
    """Two effects on four columns: effect 0 puts 0.6/0.38/0.02 on x0, x1, x2 (its 95% set
    is {x0, x1}, coverage 0.98, purity |corr(x0, x1)|), effect 1 is one variable, effect 2
    has V = 0 (left out), effect 3 repeats effect 1's set (dropped)."""
    rng = np.random.default_rng(3)
    base = rng.normal(size=200)
    X = np.column_stack([base, base + 0.5 * rng.normal(size=200), rng.normal(size=200),
                         rng.normal(size=200)])
    alpha = np.array([[0.6, 0.38, 0.02, 0.0], [0.0, 0.0, 0.01, 0.99],
                      [0.25, 0.25, 0.25, 0.25], [0.0, 0.0, 0.02, 0.98]])
    sets = credible_sets(alpha, np.array([1.0, 1.0, 0.0, 1.0]), X)
    r = abs(np.corrcoef(X[:, 0], X[:, 1])[0, 1])
    assert [found["variables"] for found in sets] == [[3], [0, 1]]
    assert np.isclose(sets[1]["coverage"], 0.98)
    assert np.allclose([sets[1][k] for k in ("min_abs_corr", "mean_abs_corr",
                                             "median_abs_corr")], r)
    strict = credible_sets(alpha, np.array([1.0, 1.0, 0.0, 1.0]), X, min_abs_corr=r + 0.01)
    assert [found["variables"] for found in strict] == [[3]]
    assert np.allclose(inclusion_probabilities(alpha, np.array([1.0, 1.0, 0.0, 1.0])),
                       1 - np.prod(1 - alpha[[0, 1, 3]], axis=0))
