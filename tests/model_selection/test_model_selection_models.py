"""AlphaSelector beyond the linear model: the classifier's, the mixture's and LDA's
prequential losses against hand computations and quadrature, information matching against
closed forms and a hand-computed sandwich, calibration where the coverage is known, and
the scikit-learn protocol for the unsupervised models."""

import autograd.numpy as anp
import numpy as np
import pytest
from scipy.special import digamma, logsumexp
from scipy.stats import multivariate_normal, norm
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV

from alphavb import AlphaGaussianMixture, AlphaLDA, AlphaSpikeSlabClassifier
from alphavb.model_selection import (
    AlphaSelector,
    information_alpha,
    prefix_schedule,
    refit_prequential_losses,
)
from alphavb.model_selection._information import logistic_information_alpha, sandwich_alpha
from alphavb.model_selection._model_kinds import DRAWS

ALPHAS = np.array([1.0, 0.5])
ONE_FIT = 1e9  # a prefix growth that makes the schedule [min_prefix, n]: one fit per alpha


def _one_fit_losses(estimator, X, y, first, kind):
    """The losses of rows first..n-1 under the fits to rows 0..first-1, and those fits."""
    assert prefix_schedule(len(X), first, ONE_FIT) == [first, len(X)]
    losses = refit_prequential_losses(estimator, X, y, ALPHAS, first, ONE_FIT, kind)
    fits = [clone(estimator).set_params(alpha=a).fit(X[:first], None if y is None else
                                                     y[:first]) for a in ALPHAS]
    return losses, fits


def test_classifier_losses_by_quadrature_and_by_hand():
    # one feature, no intercept: q(beta) = (1 - phi) delta_0 + phi N(mu, s2), so the R-log
    # loss E_q[log(1 + exp(-s x beta))] is a 1-D integral (Gauss-Hermite, 80 nodes)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 1))
    y = (1.5 * X[:, 0] + rng.logistic(size=60) > 0).astype(int)
    estimator = AlphaSpikeSlabClassifier(fit_intercept=False, prior_inclusion=0.5,
                                         random_state=0)
    rlog, fits = _one_fit_losses(estimator, X, y, 40, "safebayes")
    ilog, _ = _one_fit_losses(estimator, X, y, 40, "safebayes-ilog")
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    sign = np.where(y[40:] == 1, 1.0, -1.0)
    x = X[40:, 0]
    for a, fit in enumerate(fits):
        phi, mu = fit.inclusion_probabilities_[0], fit.slab_means_[0]
        sd = np.sqrt(fit.slab_variances_[0])
        slab = np.logaddexp(0.0, -sign[:, None] * x[:, None] * (mu + sd * nodes)) @ weights
        exact = (1 - phi) * np.log(2.0) + phi * slab / np.sqrt(2 * np.pi)
        # Monte Carlo over DRAWS draws: the error of the mean of losses bounded by 1 + |x| b
        draws = fit.sample_posterior(DRAWS, random_state=0)["coef"][:, 0]
        per_draw = np.logaddexp(0.0, -sign[:, None] * x[:, None] * draws[None])
        mcse = per_draw.std(axis=1) / np.sqrt(DRAWS)
        assert np.all(np.abs(rlog[a] - exact) < 4 * mcse + 1e-12)
        # I-log plugs in E_q[beta] = phi mu
        np.testing.assert_allclose(ilog[a], np.logaddexp(0.0, -sign * x * phi * mu),
                                   rtol=1e-12)


def test_classifier_prefix_holds_both_classes():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = np.r_[np.zeros(30, int), np.ones(50, int)]  # sorted labels: rows 0..29 are class 0
    selector = AlphaSelector(AlphaSpikeSlabClassifier(random_state=0), alphas=ALPHAS,
                             random_state=0).fit(X, y)
    # the default first prefix, max(10, n // 10) = 10, is extended to the first row of class 1
    # warm and fresh
    assert selector.n_fits_ == 2 * (2 * (len(prefix_schedule(80, 31, 1.25)) - 1) - 1)
    with pytest.raises(ValueError, match=r"'min_prefix'.*both classes"):
        AlphaSelector(AlphaSpikeSlabClassifier(), min_prefix=20).fit(X, y)
    with pytest.raises(ValueError, match=r"'y'.*two classes"):
        AlphaSelector(AlphaSpikeSlabClassifier()).fit(X, np.arange(80) % 3)


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical", "fixed"])
def test_mixture_losses_equal_scipy_densities(covariance_type):
    # R-log: minus the mean over the same DRAWS draws of q of the mixture's log density,
    # written here with scipy; I-log: the plug-in weights_, means_ and covariances_
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) @ [[1, 0.4], [0, 1]]
                   + [4.0, 0.0]])[rng.permutation(60)]
    estimator = AlphaGaussianMixture(2, covariance_type=covariance_type, random_state=0)
    rlog, fits = _one_fit_losses(estimator, X, None, 40, "safebayes")
    ilog, _ = _one_fit_losses(estimator, X, None, 40, "safebayes-ilog")

    def log_density(weights, means, covariances):
        covariances = np.asarray(covariances)
        if covariances.ndim == 2 and covariance_type in ("tied", "fixed"):
            covariances = [covariances] * 2
        elif covariance_type == "diag":
            covariances = [np.diag(c) for c in covariances]
        elif covariance_type == "spherical":
            covariances = [c * np.eye(2) for c in covariances]
        return logsumexp([np.log(weights[k]) + multivariate_normal(means[k], covariances[k])
                          .logpdf(X[40:]) for k in range(2)], axis=0)

    for a, fit in enumerate(fits):
        draws = fit.sample_posterior(DRAWS, random_state=0)
        expected = -np.mean([log_density(w, m, c) for w, m, c in
                             zip(draws["weights"], draws["means"], draws["covariances"],
                                 strict=True)],
                            axis=0)
        np.testing.assert_allclose(rlog[a], expected, rtol=1e-10)
        np.testing.assert_allclose(ilog[a], -log_density(fit.weights_, fit.means_,
                                                         fit.covariances_), rtol=1e-10)
    # the prequential losses under q average the plug-in's: R-log >= I-log in total
    assert np.all(rlog.sum(axis=1) > ilog.sum(axis=1))


def test_one_topic_lda_losses_are_the_multinomial_log_likelihoods():
    # with one topic q(theta_d) is the point 1, so a document's bound is its expected
    # log-likelihood: sum_v n_dv E_q[log beta_v] (R-log), sum_v n_dv log E_q[beta_v] (I-log)
    rng = np.random.default_rng(3)
    counts = rng.multinomial(40, rng.dirichlet(np.ones(12)), size=30)
    estimator = AlphaLDA(1, random_state=0)
    rlog, fits = _one_fit_losses(estimator, counts, None, 20, "safebayes")
    ilog, _ = _one_fit_losses(estimator, counts, None, 20, "safebayes-ilog")
    for a, fit in enumerate(fits):
        lam = fit.components_[0]
        np.testing.assert_allclose(rlog[a], -counts[20:] @ (digamma(lam) - digamma(lam.sum())),
                                   rtol=1e-10)
        np.testing.assert_allclose(ilog[a], -counts[20:] @ np.log(lam / lam.sum()), rtol=1e-10)


def test_safebayes_runs_on_every_unsupervised_model():
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(size=(60, 2)), rng.normal(size=(60, 2)) + 4.0])
    X = X[rng.permutation(120)]
    mixture = AlphaSelector(AlphaGaussianMixture(2, random_state=0), alphas=ALPHAS,
                            random_state=0).fit(X)
    # warm and fresh
    assert mixture.n_fits_ == 2 * (2 * (len(prefix_schedule(120, 12, 1.25)) - 1) - 1)
    assert np.all(np.isfinite(mixture.criterion_)) and mixture.alpha_ in ALPHAS
    np.testing.assert_array_equal(mixture.score_samples(X),
                                  mixture.best_estimator_.score_samples(X))
    assert mixture.score(X) == mixture.best_estimator_.score(X)
    counts = rng.poisson(1.0, size=(40, 15))
    topics = AlphaSelector(AlphaLDA(2, random_state=0), alphas=ALPHAS,
                           random_state=0).fit(counts)
    np.testing.assert_array_equal(topics.transform(counts),
                                  topics.best_estimator_.transform(counts))
    assert not hasattr(topics, "predict")
    # scikit-learn's protocol: clone and a grid search scored by the mixture's score(X)
    search = GridSearchCV(AlphaSelector(AlphaGaussianMixture(2, random_state=0),
                                        alphas=ALPHAS), {"prefix_growth": [1.5, 2.0]},
                          cv=2).fit(X)
    assert search.best_params_["prefix_growth"] in (1.5, 2.0)


def test_autograd_sandwich_equals_the_closed_forms():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 2))
    # the closed forms work in unit-free coordinates (centred, unit-rms columns)
    from alphavb.model_selection._information import _design

    design = _design(X, True)
    # Gaussian: scores and Hessian by autograd at the least-squares fit, sigma2 profiled
    y = X @ [1.0, -1.0] + np.sqrt(1 + X[:, 0] ** 2) * rng.normal(size=400)
    coef = np.linalg.lstsq(design, y, rcond=None)[0]
    variance = np.mean((y - design @ coef) ** 2)

    def gaussian(theta):
        return -0.5 * (y - anp.sum(design * theta, axis=1)) ** 2 / variance

    assert sandwich_alpha(gaussian, coef) == pytest.approx(information_alpha(X, y), rel=1e-10)
    # logistic: the closed form at Newton's estimate against autograd at scikit-learn's
    labels = (X @ [1.0, -1.0] + rng.standard_t(2, size=400) > 0).astype(float)
    reference = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10000).fit(design[:, 1:],
                                                                            labels)
    estimate = np.r_[reference.intercept_, reference.coef_[0]]

    def logistic(theta):
        t = anp.sum(design * theta, axis=1)
        return labels * t - anp.logaddexp(0.0, t)

    assert logistic_information_alpha(X, labels) == pytest.approx(
        sandwich_alpha(logistic, estimate), rel=1e-6)


def test_information_matching_beyond_the_linear_model():
    # a correct logistic model: over 20 data sets of n = 5,000 the value had mean 1.003, sd
    # 0.0087; 0.035 is 4 sd
    rng = np.random.default_rng(6)
    X = rng.normal(size=(5000, 2))
    y = (X @ [1.0, -1.0] + rng.logistic(size=5000) > 0).astype(int)
    selector = AlphaSelector(AlphaSpikeSlabClassifier(), method="information").fit(X, y)
    assert selector.criterion_[0] == pytest.approx(1.0, abs=0.035) and selector.n_fits_ == 0
    with pytest.raises(ValueError, match="separated"):
        AlphaSelector(AlphaSpikeSlabClassifier(), method="information").fit(X, X[:, 0] > 0)
    # a one-component mixture with a known covariance S0 on data of covariance S: the only
    # parameter is the mean, J = S0^-1 and I = S0^-1 S_hat S0^-1 at the sample mean, so
    # alpha = tr(S_hat^-1) / tr(S0^-1), here about 1/2
    points = rng.normal(size=(3000, 2)) * np.sqrt(2.0)
    known = np.array([[1.0, 0.3], [0.3, 1.0]])
    mixture = AlphaSelector(AlphaGaussianMixture(1, covariance_type="fixed",
                                                 fixed_covariance=known),
                            method="information").fit(points)
    sample = np.cov(points.T, bias=True)
    assert mixture.criterion_[0] == pytest.approx(
        np.trace(np.linalg.inv(sample)) / np.trace(np.linalg.inv(known)), rel=1e-7)
    assert mixture.alpha_ == mixture.criterion_[0] and mixture.n_fits_ == 1
    # a correct two-component mixture: over 10 data sets of n = 2,000 the value had mean
    # 1.012, sd 0.018; 0.08 is 4 sd
    points = np.vstack([rng.normal(size=(1000, 2)),
                        rng.normal(size=(1000, 2)) @ [[1.0, 0.5], [0.0, 1.0]] + [5.0, 0.0]])
    correct = AlphaSelector(AlphaGaussianMixture(2, random_state=0),
                            method="information").fit(points)
    assert correct.criterion_[0] == pytest.approx(1.0, abs=0.08)


def test_mixture_calibration_reaches_the_level_where_coverage_is_known():
    # one component of known covariance I, a flat prior on the mean, data of covariance 2 I:
    # q(mu) = N(xbar, I / (alpha n)) and the bootstrap spread of xbar is 2 I / n, so each
    # coordinate's interval covers the full-data mean with probability
    # 2 Phi(1.96 / sqrt(2 alpha)) - 1, the level at alpha = 1/2
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 2)) * np.sqrt(2.0)
    estimator = AlphaGaussianMixture(1, covariance_type="fixed", mean_precision_prior=1e-8,
                                     init_params="random_from_data")
    selector = AlphaSelector(estimator, method="calibrate", alphas=[1.0, 0.1],
                             n_bootstrap=150, calibration_steps=5, random_state=0).fit(X)
    expected = 2 * norm.cdf(norm.ppf(0.975) / np.sqrt(2 * selector.alphas_)) - 1
    mcse = np.sqrt(expected * (1 - expected) / 150)
    assert np.all(np.abs(selector.criterion_ - expected) < 4 * mcse + 0.01)
    assert 0.35 < selector.alpha_ < 0.7


def test_topic_calibration_widens_for_overdispersed_documents():
    # one topic: documents drawn from the topic itself keep alpha = 1 (coverage 0.952 at
    # alpha = 1 when measured); documents whose word distributions scatter around it
    # (Dirichlet(20 beta)) need wider intervals: alpha 0.16 when measured
    rng = np.random.default_rng(8)
    beta = rng.dirichlet(np.ones(30))
    multinomial = rng.multinomial(100, beta, size=60)
    scattered = np.array([rng.multinomial(100, rng.dirichlet(20 * beta)) for _ in range(60)])
    estimator = AlphaLDA(1, random_state=0)
    kept = AlphaSelector(estimator, method="calibrate", n_bootstrap=40,
                         random_state=0).fit(multinomial)
    widened = AlphaSelector(estimator, method="calibrate", n_bootstrap=40,
                            calibration_steps=4, random_state=0).fit(scattered)
    assert kept.alpha_ > 0.7 and widened.alpha_ < 0.35


def test_spike_and_slab_calibration_uses_the_included_coefficients():
    # a correct sparse model: the two included coefficients are covered at about the level
    # at alpha = 1 (0.9375 when measured, 40 resamples); the four excluded ones' intervals
    # are the atom at 0 and would cover none of their small non-zero posterior means
    from alphavb import AlphaSpikeSlabRegression

    rng = np.random.default_rng(9)
    X = rng.normal(size=(200, 6))
    y = X[:, 0] - 0.8 * X[:, 1] + rng.normal(size=200)
    selector = AlphaSelector(AlphaSpikeSlabRegression(), method="calibrate", n_bootstrap=40,
                             random_state=0).fit(X, y)
    assert selector.criterion_[0] > 0.85 and selector.alpha_ > 0.7
    with pytest.raises(ValueError, match="includes no variable"):
        AlphaSelector(AlphaSpikeSlabRegression(), method="calibrate",
                      n_bootstrap=5).fit(X, rng.normal(size=200))


def test_calibration_finds_the_level_when_coverage_falls_again_at_small_alpha():
    # 20 candidates with prior inclusion 1/20: at alpha = 1/64 (about 3 effective rows) the
    # fit drops every variable and the intervals shrink to the atom at 0, so coverage is 0
    # there; the bisection runs between the first grid alpha from the top that reaches it
    # (0.707 when measured) and 1
    from alphavb import AlphaSpikeSlabRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 20))
    y = X @ np.r_[1.0, -0.8, 0.6, np.zeros(17)] + rng.normal(size=200)
    selector = AlphaSelector(AlphaSpikeSlabRegression(), method="calibrate",
                             random_state=0).fit(X, y)
    coverage = dict(zip(selector.alphas_, selector.criterion_, strict=True))
    assert coverage[1.0] < 0.95
    assert 2**-0.5 <= selector.alpha_ < 1.0 and coverage[selector.alpha_] >= 0.95
    # the alpha = 1 fit, 50 resamples per alpha, and a full-data fit per alpha below 1 that
    # checks the three variables stay included
    assert selector.n_fits_ == 1 + 50 * len(coverage) + len(coverage) - 1
    assert np.all(AlphaSpikeSlabRegression(alpha=1 / 64).fit(X, y)
                  .inclusion_probabilities_[:3] < 0.5)


def test_calibration_never_returns_an_alpha_that_drops_the_selections():
    """Heavy-tailed noise growing with x_0: no alpha reaches the level, and coverage is not
    monotone in alpha (0.43 at alpha = 1 with 30 resamples when measured). The selector
    returned 0.354, whose fit includes no variable at all, and advised extending the grid
    downwards; it must keep alpha_ where the alpha = 1 fit's selections survive and say
    what it found, never advise a smaller alpha."""
    import warnings

    from alphavb import AlphaSpikeSlabRegression

    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 10))
    y = (X[:, 0] - X[:, 1] + 0.5 * X[:, 2]
         + (0.3 + X[:, 0] ** 2) * rng.standard_t(3, size=100))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        selector = AlphaSelector(AlphaSpikeSlabRegression(), method="calibrate",
                                 n_bootstrap=30, random_state=0).fit(X, y)
    selected = AlphaSpikeSlabRegression().fit(X, y).inclusion_probabilities_ > 0.5
    assert selected.any()
    assert np.all(selector.inclusion_probabilities_[selected] > 0.5)
    assert selector.criterion_.max() < 0.95
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(messages) == 1 and "no alpha of the grid reaches level=0.95" in messages[0]
    assert "drops variables" in messages[0] and "downwards" not in messages[0]
    assert f"alpha_ is {selector.alpha_:.3g}" in messages[0]


def test_prefix_refits_are_never_below_a_fresh_fit():
    """A spike-and-slab q warm-started from a shorter prefix stayed in the empty model, 8
    nats below the estimator's own fit of the same prefix; each prefix now keeps the larger
    objective of the warm and the fresh fit."""
    from unittest import mock

    from alphavb import AlphaSpikeSlabRegression
    from alphavb.model_selection import _prequential

    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 8))
    y = X[:, 0] * 1.5 - X[:, 1] + rng.normal(size=120)
    used = []
    real = _prequential.kind_of

    def recording_family(estimator):
        family = real(estimator)
        row_losses = family.row_losses

        def record(model, *args):
            used.append((model.alpha, model.n_samples_fit_, model.elbo_))
            return row_losses(model, *args)

        family.row_losses = record
        return family

    with mock.patch.object(_prequential, "kind_of", recording_family):
        _prequential.refit_prequential_losses(AlphaSpikeSlabRegression(), X, y, [1.0, 0.25],
                                              12, 1.25, "safebayes")
    assert len(used) == 2 * (len(prefix_schedule(120, 12, 1.25)) - 1)
    for alpha, rows, elbo in used:
        fresh = AlphaSpikeSlabRegression(alpha=alpha).fit(X[:rows], y[:rows])
        assert elbo >= fresh.elbo_ - 1e-6 * abs(fresh.elbo_), (alpha, rows)


def test_verbose_shows_a_progress_bar_over_the_fits(capsys):
    from alphavb import AlphaSpikeSlabRegression

    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + rng.normal(size=40)
    selector = AlphaSelector(AlphaSpikeSlabRegression(), method="cv", alphas=[1.0, 0.5],
                             cv=3, random_state=0, verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert "AlphaSelector(method='cv')" in err and f"{selector.n_fits_}fit" in \
        err.replace(" ", "").replace("/", "")
    AlphaSelector(AlphaSpikeSlabRegression(), method="cv", alphas=[1.0, 0.5], cv=3,
                  random_state=0).fit(X, y)
    assert "AlphaSelector" not in capsys.readouterr().err
