"""The CAVI fit driver shared by every closed-form estimator."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import alphavb
from alphavb import AlphaLinearRegression, AlphaSpikeSlabRegression
from alphavb.datasets import make_sparse_regression


def test_max_iter_reached_warns_and_reports():
    X, y, _ = make_sparse_regression(n_samples=50, n_features=60, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        model = AlphaSpikeSlabRegression(max_iter=2, n_init=1).fit(X, y)
    assert not model.converged_
    assert model.n_iter_ == 2 == len(model.elbo_history_)
    assert model.elbo_ == model.elbo_history_[-1]


def test_stopping_rule_is_the_relative_change():
    X, y, _ = make_sparse_regression(n_samples=50, n_features=60, random_state=0)
    model = AlphaSpikeSlabRegression(tol=1e-4, n_init=1).fit(X, y)
    history = model.elbo_history_
    assert model.converged_
    assert abs(history[-1] - history[-2]) <= 1e-4 * abs(history[-1])
    assert np.all(np.abs(np.diff(history[:-1])) > 1e-4 * np.abs(history[1:-1]))


def test_the_best_start_is_kept():
    X, y, _ = make_sparse_regression(n_samples=60, n_features=80, coef=[0.8] * 4,
                                     random_state=11)
    single_starts = [
        AlphaSpikeSlabRegression(alpha=0.5, n_init=k + 1, random_state=3).fit(X, y).elbo_
        for k in range(6)
    ]
    # adding starts never lowers the reported objective
    assert np.all(np.diff(single_starts) >= 0)


def test_verbose_reports_each_start(capsys):
    """scikit-learn's BaseMixture messages: each start and how it ended."""
    X, y, _ = make_sparse_regression(n_samples=30, n_features=10, random_state=0)
    AlphaSpikeSlabRegression(n_init=2, verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert "Initialization 0" in out and "Initialization 1" in out
    assert out.count("Initialization converged.") == 2


def test_constructor_stores_parameters_untouched():
    precision = np.array([1.0, 2.0])
    model = AlphaLinearRegression(alpha=0.3, prior_precision=precision)
    assert model.get_params()["prior_precision"] is precision
    assert model.alpha == 0.3


# ---------------------------------------------------------------- the shared loop


def _warm_cases():
    from alphavb import AlphaGaussianMixture, AlphaLDA, AlphaSpikeSlabClassifier
    from alphavb.datasets import make_gmm, make_lda_corpus

    X, y, _ = make_sparse_regression(n_samples=60, n_features=20, random_state=0)
    mixture_X, _, _ = make_gmm(n_samples=200, random_state=0)
    counts, _, _ = make_lda_corpus(n_documents=60, n_topics=3, n_words=20, random_state=0)
    return [
        # the independent prior: the default conjugate one starts at its fixed point
        (AlphaLinearRegression(alpha=0.5, tol=1e-8, coef_prior="independent"), (X, y)),
        (AlphaSpikeSlabRegression(alpha=0.5, tol=1e-8), (X, y)),
        (AlphaSpikeSlabClassifier(alpha=0.5, tol=1e-10), (X, y > 0)),
        (AlphaGaussianMixture(3, alpha=0.5, tol=1e-8, max_iter=500, random_state=0),
         (mixture_X,)),
        (AlphaLDA(3, alpha=0.5, max_iter=200, evaluate_every=1, tol=1e-8, random_state=0),
         (counts,)),
    ]


@pytest.mark.parametrize("case", range(5))
def test_warm_start_continues_from_the_fitted_state(case):
    model, data = _warm_cases()[case]
    model.set_params(warm_start=True).fit(*data)
    first_elbo, first_sweeps = model.elbo_, model.n_iter_
    assert model.converged_
    model.fit(*data)
    # one start from the converged state: it is already at the fixed point
    assert model.converged_ and model.n_iter_ <= 3 < first_sweeps
    assert model.elbo_ >= first_elbo - 1e-6 * abs(first_elbo)
    # without warm_start the same call starts afresh and runs as long as the first fit
    cold = model.set_params(warm_start=False).fit(*data)
    assert cold.n_iter_ == first_sweeps and cold.elbo_ == pytest.approx(first_elbo, rel=1e-12)


def test_lda_warns_when_its_stopping_rule_is_not_met():
    from alphavb import AlphaLDA
    from alphavb.datasets import make_lda_corpus

    counts, _, _ = make_lda_corpus(n_documents=30, n_topics=2, n_words=15, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        model = AlphaLDA(2, max_iter=3, evaluate_every=1, tol=0.0, random_state=0).fit(counts)
    assert not model.converged_ and model.n_iter_ == 3
    # evaluate_every <= 0 asks for a fixed number of sweeps: no stopping rule, no warning
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        AlphaLDA(2, max_iter=3, random_state=0).fit(counts)


def test_repeated_one_sweep_warm_fits_converge():
    from alphavb import AlphaGaussianMixture
    from alphavb.datasets import make_gmm

    X, _, _ = make_gmm(n_samples=300, random_state=1)
    model = AlphaGaussianMixture(3, warm_start=True, max_iter=1, tol=1e-3, random_state=0)
    import warnings

    calls = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        while not getattr(model, "converged_", False) and calls < 300:
            model.fit(X)
            calls += 1
    assert model.converged_ and calls < 100
    # the same rule as one long fit: it stops where the relative change first falls to tol
    long = AlphaGaussianMixture(3, max_iter=300, tol=1e-3, random_state=0).fit(X)
    assert calls == long.n_iter_


def test_a_warm_start_whose_state_no_longer_fits_starts_cold():
    """After n_components, covariance_type or the features change, a warm start cannot
    continue from the fitted state (weights_ kept shape (3,) after n_components=2; the
    spike-and-slab models failed inside numpy's matmul on fewer features): it starts cold,
    as scikit-learn's estimators do, and equals a fresh fit bitwise."""
    import warnings

    from alphavb import AlphaGaussianMixture, AlphaLDA, AlphaSpikeSlabClassifier
    from alphavb.datasets import make_gmm, make_lda_corpus, make_sparse_regression

    warnings.simplefilter("ignore")
    X, _, _ = make_gmm(300, 3, 2, random_state=0)
    mixture = AlphaGaussianMixture(3, warm_start=True, random_state=0).fit(X)
    mixture.set_params(n_components=2).fit(X)
    assert mixture.weights_.shape == (2,)
    np.testing.assert_array_equal(mixture.means_, AlphaGaussianMixture(2, random_state=0)
                                  .fit(X).means_)
    mixture.set_params(covariance_type="diag").fit(X)
    np.testing.assert_array_equal(mixture.covariances_, AlphaGaussianMixture(
        2, covariance_type="diag", random_state=0).fit(X).covariances_)
    corpus, _, _ = make_lda_corpus(40, 3, 30, 20, random_state=0)
    lda = AlphaLDA(3, warm_start=True, random_state=0).fit(corpus)
    lda.set_params(n_components=2).fit(corpus)
    np.testing.assert_array_equal(lda.components_, AlphaLDA(2, random_state=0)
                                  .fit(corpus).components_)
    Xr, y, _ = make_sparse_regression(60, 10, random_state=0)
    for model, target in ((AlphaSpikeSlabRegression, y), (AlphaSpikeSlabClassifier, y > 0)):
        warm = model(warm_start=True, random_state=0).fit(Xr, target).fit(Xr[:, :5], target)
        np.testing.assert_array_equal(warm.coef_, model(random_state=0)
                                      .fit(Xr[:, :5], target).coef_)
    # with nothing changed, a warm start still continues (one start, from the fitted q)
    again = AlphaGaussianMixture(2, warm_start=True, max_iter=1, random_state=0).fit(X)
    n_iter, means = again.n_iter_, again.means_.copy()
    again.fit(X)
    assert not np.array_equal(again.means_, means) and again.n_iter_ == n_iter == 1


@pytest.mark.parametrize("make", [
    lambda X, y: alphavb.AlphaLinearRegression(max_iter=1, tol=0.0).fit(X, y),
    lambda X, y: alphavb.AlphaSpikeSlabRegression(max_iter=1, tol=0.0,
                                                  prior_inclusion=[0.1, 0.3]).fit(X, y),
    lambda X, y: alphavb.AlphaSpikeSlabClassifier(max_iter=1, tol=0.0).fit(X, y > 0),
    lambda X, y: alphavb.AlphaSuSiE(2, max_iter=1, tol=0.0).fit(X, y),
    lambda X, y: alphavb.AlphaGaussianMixture(2, max_iter=1, tol=0.0).fit(X),
    lambda X, y: alphavb.AlphaLinearRegression().fit(X[:1], y[:1]),  # the noise prior's
], ids=["linear", "spike-slab grid", "logistic", "susie", "mixture", "noise prior"])
def test_warnings_name_the_callers_line_not_the_package(make):
    """A fit's warnings point at the line that called alphavb, however deep in the package
    they are raised (the fixed stacklevels pointed inside the package)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    y = X[:, 0] + 0.1 * rng.standard_normal(40)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make(X, y)
    assert caught
    assert {record.filename for record in caught} == {__file__}
