"""LDA's fit-time check (alphavb.topics._check): importance weights p / q that are constant
where q is exact (one topic: the Dirichlet posterior of the words), log weights equal to the
target and q's densities summed term by term, a warning on a corpus where the mean-field q
is far from the exact posterior, and "auto" leaving the dear check to an explicit request."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

import alphavb
from alphavb import AlphaLDA, PosteriorApproximationWarning
from alphavb.datasets import make_lda_corpus
from alphavb.topics._check import _Draws, _log_weights, check_cost_share, lda_check


def _corpus(n_documents=30, n_topics=2, n_words=12, seed=0):
    return make_lda_corpus(n_documents=n_documents, n_topics=n_topics, n_words=n_words,
                           document_length=40, random_state=seed)[0]


@pytest.mark.parametrize("objective", ["alpha-vb", "fractional"])
@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_one_topic_q_is_the_exact_posterior(objective, alpha):
    """With one topic, q(beta) = Dir(eta + alpha n_v) is the exact alpha-posterior: every
    importance weight is equal, the check is reliable and silent, each 95% interval of q
    holds 0.95 of the draws (1,000: +- 0.03) and the weighted means are q's."""
    X = _corpus()
    with alphavb.approximation_checks("always"), warnings.catch_warnings():
        warnings.simplefilter("error", PosteriorApproximationWarning)
        model = AlphaLDA(1, alpha=alpha, objective=objective, random_state=0).fit(X)
    documents = model._check_counts(X, reset=False)
    draws = _Draws(model.components_.astype(float), model._doc_topic_parameters(documents),
                   250, np.random.RandomState(0))
    log_weights = _log_weights(model, draws, documents.X.tocoo())
    assert np.ptp(log_weights) < 1e-8 * np.abs(log_weights).max()
    check = model.approximation_check_
    assert check.reliable and not check.rough
    np.testing.assert_allclose(check.interval_mass, 0.95, atol=0.03)
    topics = model.components_ / model.components_.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(check.corrected_means, topics.ravel(), atol=0.01)


@pytest.mark.parametrize("objective", ["alpha-vb", "fractional"])
def test_log_weights_are_the_target_over_q(objective):
    """For each draw, log p - log q equals the Dirichlet densities (scipy's) and the tempered
    likelihood summed count by count: nothing is left out, up to no constant."""
    X = _corpus(n_documents=5, n_topics=2, n_words=6)
    alpha = 0.6
    model = AlphaLDA(2, alpha=alpha, objective=objective, random_state=0).fit(X)
    documents = model._check_counts(X, reset=False)
    gamma = model._doc_topic_parameters(documents)
    topics = model.components_.astype(float)
    draws = _Draws(topics, gamma, 2, np.random.RandomState(1))
    log_weights = _log_weights(model, draws, documents.X.tocoo())
    counts = sp.csr_matrix(X).toarray()
    eta, a = model.topic_word_prior_, model.doc_topic_prior_
    expected = []
    for rng, size in draws:
        beta = np.exp(draws.log_topics(rng, size))
        theta = np.exp(draws.log_proportions(rng, size))
        for s in range(size):
            total = 0.0
            for k in range(2):
                total += (stats.dirichlet.logpdf(beta[s, k], np.full(6, eta))
                          - stats.dirichlet.logpdf(beta[s, k], topics[k]))
            for d in range(5):
                total += (stats.dirichlet.logpdf(theta[s, d], np.full(2, a))
                          - stats.dirichlet.logpdf(theta[s, d], gamma[d]))
                for v in range(6):
                    mix = theta[s, d] * beta[s, :, v]
                    per = (np.log(np.sum(mix ** alpha)) if objective == "fractional"
                           else alpha * np.log(mix.sum()))
                    total += counts[d, v] * per
            expected.append(total)
    np.testing.assert_allclose(log_weights, expected, rtol=1e-9)


def test_overlapping_topics_warn_and_name_compare_to_exact():
    """Three topics on 60 documents (NUTS, 4 chains of 2,000 draws: the smallest exact mass
    of a 95% interval of q 0.19; benchmarks/bench_approximation_check.py): the weights are
    rough, the check is not reliable, and the warning says so and points to
    compare_to_exact."""
    X = make_lda_corpus(n_documents=60, n_topics=3, n_words=30, document_length=100,
                        random_state=0)[0]
    with alphavb.approximation_checks("always"), pytest.warns(
            PosteriorApproximationWarning, match=r"AlphaLDA.*k-hat.*compare_to_exact\(model, X\)"):
        model = AlphaLDA(3, random_state=0).fit(X)
    check = model.approximation_check_
    assert check.rough and not check.reliable and check.khat > 0.7
    assert check.feature_names[0] == "topic_word[0, w0]" and len(check.interval_mass) == 90


def test_auto_leaves_the_check_to_a_request_and_partial_fit_drops_it():
    """Under "auto" a default fit (10 iterations: predicted cost 100 fits) publishes None and
    does not warn; a check describes a fit, not a later partial_fit step."""
    X = _corpus()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PosteriorApproximationWarning)
        model = AlphaLDA(2, random_state=0).fit(X)
    assert model.approximation_check_ is None and check_cost_share(model) == 100.0
    with alphavb.approximation_checks("always"), warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorApproximationWarning)
        model.fit(X)
    assert model.approximation_check_ is not None
    model.partial_fit(X)
    assert model.approximation_check_ is None


def test_words_are_named_by_the_fitted_feature_names():
    """A corpus given as a DataFrame: the check names its rows by the words, as
    compare_to_exact's rows (one function labels both)."""
    pandas = pytest.importorskip("pandas")
    X = _corpus(n_words=4)
    frame = pandas.DataFrame(sp.csr_matrix(X).toarray(), columns=["cat", "dog", "eel", "fox"])
    model = AlphaLDA(1, random_state=0).fit(frame)
    documents = model._check_counts(frame, reset=False)
    check = lda_check(model, documents, np.random.RandomState(0))
    assert check.feature_names == ("topic_word[0, cat]", "topic_word[0, dog]",
                                   "topic_word[0, eel]", "topic_word[0, fox]")


def test_a_large_corpus_is_taken_in_slices_of_counts(monkeypatch):
    """A corpus whose counts times topics exceed the chunk budget for one draw is sliced
    over its counts: the log weights are those of one pass over every count."""
    from alphavb.topics import _check

    X = _corpus(n_documents=20, n_topics=2, n_words=10)
    model = AlphaLDA(2, alpha=0.7, random_state=0).fit(X)
    documents = model._check_counts(X, reset=False)
    gamma = model._doc_topic_parameters(documents)
    counts = documents.X.tocoo()

    def weights():
        draws = _Draws(model.components_.astype(float), gamma, 3, np.random.RandomState(0))
        return _log_weights(model, draws, counts)

    whole = weights()
    monkeypatch.setattr(_check, "CHUNK_ENTRIES", 3 * 2 * 7)  # slices of 7 counts
    shapes, logsumexp = [], _check.logsumexp
    monkeypatch.setattr(_check, "logsumexp",
                        lambda a, **k: shapes.append(a.shape) or logsumexp(a, **k))
    np.testing.assert_allclose(weights(), whole, rtol=1e-12)
    # each (draws, counts, K) array within the budget: 7 counts of 3 draws, 21 of the last 1
    assert counts.nnz > 21 and max(np.prod(shape) for shape in shapes) == 42


def test_one_word_and_compare_to_exact_check_nothing_of_their_own():
    """A one-word vocabulary (beta = 1) holds all its mass; compare_to_exact's own reference
    fit runs no check (it is the comparison the warning points to)."""
    X = np.array([[3.0], [1.0], [4.0]])
    with alphavb.approximation_checks("always"), warnings.catch_warnings():
        warnings.simplefilter("ignore", PosteriorApproximationWarning)
        model = AlphaLDA(2, random_state=0).fit(X)
    np.testing.assert_allclose(model.approximation_check_.interval_mass, 1.0)
    pytest.importorskip("numpyro")
    from alphavb.exact import compare_to_exact

    X = _corpus(n_documents=8, n_topics=2, n_words=5)
    with alphavb.approximation_checks("always"), warnings.catch_warnings():
        warnings.simplefilter("ignore", alphavb.exact.MixingWarning)
        warnings.simplefilter("error", PosteriorApproximationWarning)
        compare_to_exact(AlphaLDA(2, random_state=0), X, n_draws=20, n_chains=1, n_tune=20,
                         random_state=0)


def test_the_warning_says_when_the_corpus_is_too_large_for_compare_to_exact():
    """The warning points to compare_to_exact, whose NUTS takes at most 5,000 free
    parameters: on a larger corpus it says so, with the corpus's count."""
    X = make_lda_corpus(n_documents=300, n_topics=10, n_words=400, document_length=20,
                        random_state=0)[0]
    with alphavb.approximation_checks("always"), pytest.warns(
            PosteriorApproximationWarning,
            match=r"compare_to_exact\(model, X\) on a smaller corpus .* at most 5000 free "
                  r"parameters, K \(V - 1\) \+ D \(K - 1\); this one has 6690\)"):
        AlphaLDA(10, max_iter=2, random_state=0).fit(X)
