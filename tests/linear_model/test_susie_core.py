"""The sum-of-single-effects math of alpha-SuSiE (alphavb.linear_model._susie): the single
effect against its closed form, the objective monotone at alpha < 1, tempering as a
rescaled residual variance, and credible sets against a hand-computed case (susieR's
numbers: test_alpha_susie.py)."""

import numpy as np
from scipy.stats import norm

from alphavb import AlphaSuSiE
from alphavb.linear_model._susie import (
    credible_sets,
    inclusion_probabilities,
    single_effect_regression,
)


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
    assert np.allclose(single.probabilities, bf / bf.sum(), rtol=1e-12)
    v = 1 / (1 / V + d / s2)
    assert np.allclose(single.mean, v * xtr / s2, rtol=1e-12)
    assert np.allclose(single.second_moment, v + (v * xtr / s2) ** 2, rtol=1e-12)
    assert np.isclose(single.log_evidence, np.log(np.sum(bf / 6)), rtol=1e-12)


def test_objective_never_falls_at_alpha_below_one():
    """alpha = 0.5 with sigma2 and every V_l estimated: F after each sweep never falls (the
    sigma2 update maximises F = alpha E log N(y | Xb, sigma2) - sum KL)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 40))
    X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=120)
    y = 1.5 * X[:, 0] - X[:, 7] + rng.normal(size=120)
    model = AlphaSuSiE(n_effects=5, alpha=0.5, tol=1e-10, objective="fractional").fit(X, y)
    objective = model.elbo_history_
    assert len(objective) > 3
    assert np.all(np.diff(objective) >= -1e-8), np.diff(objective)


def test_tempering_is_the_residual_variance_over_alpha():
    """With sigma2 known, alpha-SuSiE at alpha equals SuSiE (alpha = 1) with residual
    variance sigma2 / alpha: the same q."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 20))
    y = X[:, 3] + rng.normal(size=80)
    tempered = AlphaSuSiE(n_effects=3, alpha=0.25, residual_variance=1.2,
                          estimate_residual_variance=False).fit(X, y)
    rescaled = AlphaSuSiE(n_effects=3, alpha=1.0, residual_variance=1.2 / 0.25,
                          estimate_residual_variance=False).fit(X, y)
    assert np.allclose(tempered.single_effect_probabilities_,
                       rescaled.single_effect_probabilities_, atol=1e-10)
    assert np.allclose(tempered.effect_means_, rescaled.effect_means_, atol=1e-10)


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
