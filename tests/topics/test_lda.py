"""AlphaLDA: kernels against NumPy, the exact objective, agreement with scikit-learn."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from scipy.special import digamma as scipy_digamma
from sklearn.decomposition import LatentDirichletAllocation
from sklearn.feature_extraction.text import CountVectorizer

from alphavb import AlphaLDA
from alphavb._special import optimize_symmetric_prior
from alphavb.datasets import make_lda_corpus
from alphavb.topics import heldout_perplexity
from alphavb.topics._estep import DocumentRows
from alphavb.topics._estep import e_step as _e_step
from alphavb.topics._estep import word_factors_of as _word_factors
from alphavb.topics._kernels import digamma
from tests.conftest import assert_monotone, run_with_two_numba_threads
from tests.naive import lda_alpha_elbo, lda_e_step


def small_corpus(random_state=0, n_documents=120, n_topics=3, n_words=40):
    return make_lda_corpus(n_documents=n_documents, n_topics=n_topics, n_words=n_words,
                           document_length=60, random_state=random_state)


def lee_corpus():
    """gensim's Lee news corpus (300 documents, shipped in gensim's wheel) as counts."""
    from gensim.test.utils import datapath

    with open(datapath("lee_background.cor"), encoding="utf-8", errors="replace") as handle:
        documents = handle.read().splitlines()
    vectorizer = CountVectorizer(stop_words="english", min_df=3)
    return vectorizer.fit_transform(documents), vectorizer.get_feature_names_out()


def match_topics(estimated, truth):
    """Assignment of estimated to true topics minimising total variation; the distances."""
    estimated = estimated / estimated.sum(axis=1, keepdims=True)
    cost = 0.5 * np.abs(estimated[:, None, :] - truth[None, :, :]).sum(axis=-1)
    rows, cols = linear_sum_assignment(cost)
    return cols, cost[rows, cols]


# ---------------------------------------------------------------- kernels


def test_digamma_matches_scipy():
    x = np.concatenate([np.geomspace(1e-4, 1e4, 400), [0.5, 1.0, 6.0, 1e8]])
    ours = np.array([digamma(v) for v in x])
    expected = scipy_digamma(x)
    assert np.max(np.abs(ours - expected) / (1 + np.abs(expected))) < 1e-13


@pytest.mark.parametrize("alpha, scale", [(1.0, 1.0), (0.4, 1.0), (0.4, 0.4)])
def test_e_step_kernels_match_the_numpy_reference(rng, alpha, scale):
    X, _, _ = small_corpus(n_documents=30)
    X = X.copy()
    X.data = X.data * rng.uniform(0.5, 1.5, size=X.nnz)  # non-integer counts are weights
    lam = rng.gamma(2.0, 1.0, size=(3, X.shape[1]))
    elog_beta = scipy_digamma(lam) - scipy_digamma(lam.sum(axis=1, keepdims=True))
    gamma0 = rng.gamma(100, 0.01, size=(30, 3))
    gamma = gamma0.copy()
    statistics, log_norm, _ = _e_step(X, X.tocsc(), gamma, _word_factors(elog_beta, scale),
                                      0.3, alpha, scale, 50, 1e-6)
    ref_gamma, ref_statistics, ref_log_norm = lda_e_step(X.toarray(), elog_beta, gamma0, 0.3,
                                                         alpha, scale, 50, 1e-6)
    np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-11)
    np.testing.assert_allclose(statistics, ref_statistics, rtol=1e-10, atol=1e-12)
    assert log_norm == pytest.approx(ref_log_norm, rel=1e-12)


def test_results_do_not_depend_on_the_thread_count():
    # in a process whose numba pool has 2 threads, so 1 and 2 threads are both run
    run_with_two_numba_threads("""
        import numpy as np
        from alphavb import AlphaLDA
        from alphavb.datasets import make_lda_corpus

        X, _, _ = make_lda_corpus(n_documents=200, n_topics=3, n_words=40, document_length=60,
                                  random_state=0)
        fits = []
        for threads in (1, 2):
            numba.set_num_threads(threads)
            fits.append(AlphaLDA(3, alpha=0.7, max_iter=5, random_state=0).fit(X))
        np.testing.assert_array_equal(fits[0].components_, fits[1].components_)
        np.testing.assert_array_equal(fits[0].elbo_history_, fits[1].elbo_history_)
        print("ok")
    """)


# ---------------------------------------------------------------- the objective


@pytest.mark.parametrize("objective", ["alpha-vb", "fractional"])
def test_objective_equals_a_term_by_term_evaluation(rng, objective):
    X, _, _ = small_corpus(n_documents=25, n_words=20)
    model = AlphaLDA(3, alpha=0.6, objective=objective, max_iter=2, random_state=0,
                     mean_change_tol=1e-9).fit(X)
    old_lambda = model.components_.copy()
    gamma = rng.gamma(100, 0.01, size=(25, 3))
    topics, value = model._batch_sweep(DocumentRows(X), model._get_parameters().topics, gamma)
    expected = lda_alpha_elbo(X.toarray(), gamma, topics.components, topics.doc_topic_prior,
                              topics.topic_word_prior, 0.6, objective, phi_lam=old_lambda)
    assert value == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize("objective", ["alpha-vb", "fractional"])
@pytest.mark.parametrize("alpha", [0.3, 1.0])
@pytest.mark.parametrize("optimize_priors", [False, True, "topic_word", "doc_topic"])
def test_batch_objective_never_decreases(objective, alpha, optimize_priors):
    X, _, _ = small_corpus()
    model = AlphaLDA(4, alpha=alpha, objective=objective, max_iter=40,
                     optimize_priors=optimize_priors, random_state=1).fit(X)
    assert_monotone(model.elbo_history_)
    assert model.elbo_history_[-1] > model.elbo_history_[0]
    # only the named prior moves (both for True, neither for False)
    assert (model.doc_topic_prior_ != 0.25) == (optimize_priors in (True, "doc_topic"))
    assert (model.topic_word_prior_ != 0.25) == (optimize_priors in (True, "topic_word"))


def test_empirical_bayes_prior_is_the_maximiser():
    from scipy.optimize import minimize_scalar
    from scipy.special import gammaln

    n_groups, dim, sum_elog = 7, 12, -300.0

    def objective(c):
        return n_groups * (gammaln(dim * c) - dim * gammaln(c)) + (c - 1) * sum_elog

    best = minimize_scalar(lambda t: -objective(np.exp(t)), bounds=(-10, 5), method="bounded",
                           options={"xatol": 1e-12})
    assert optimize_symmetric_prior(1.0, sum_elog, n_groups, dim) == pytest.approx(
        np.exp(best.x), rel=1e-7)


def test_optimized_priors_move_towards_the_truth():
    X, _, _ = make_lda_corpus(n_documents=400, n_topics=3, n_words=50, document_length=80,
                              doc_topic_prior=0.2, topic_word_prior=0.05, random_state=3)
    model = AlphaLDA(3, doc_topic_prior=1.0, topic_word_prior=1.0, max_iter=60,
                     optimize_priors=True, random_state=0).fit(X)
    assert 0.1 < model.doc_topic_prior_ < 0.4
    assert 0.02 < model.topic_word_prior_ < 0.1


# ---------------------------------------------------------------- recovery and peers


@pytest.mark.parametrize("alpha", [0.5, 1.0])
def test_recovers_the_topics_of_a_sampled_corpus(alpha):
    X, _, topic_word = make_lda_corpus(n_documents=500, n_topics=5, n_words=100,
                                       document_length=100, random_state=7)
    model = AlphaLDA(5, alpha=alpha, max_iter=100, random_state=0).fit(X)
    _, distances = match_topics(model.components_, topic_word)
    assert distances.max() < 0.1


def test_heldout_perplexity_within_two_percent_of_scikit_learn():
    """Sampled corpus, 10% held out, same priors, iterations and start."""
    X, _, _ = make_lda_corpus(n_documents=660, n_topics=8, n_words=300, document_length=80,
                              random_state=11)
    train, test = X[:600], X[600:]
    settings = {"n_components": 8, "doc_topic_prior": 0.125, "topic_word_prior": 0.1,
                "max_iter": 30, "learning_method": "batch", "random_state": 0}
    ours = AlphaLDA(**settings).fit(train)
    theirs = LatentDirichletAllocation(**settings).fit(train)
    ratio = (heldout_perplexity(ours.components_, 0.125, 0.1, test)
             / heldout_perplexity(theirs.components_, 0.125, 0.1, test))
    assert abs(ratio - 1) < 0.02
    # perplexity and score keep scikit-learn's definition (topics' KL included)
    assert ours.perplexity(train) == pytest.approx(theirs.perplexity(train), rel=0.02)
    ours.components_ = theirs.components_
    assert ours.score(test) == pytest.approx(theirs.score(test), rel=1e-4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_heldout_perplexity_on_real_text_is_no_worse_than_scikit_learn(seed):
    """gensim's Lee corpus (240 documents to train, 60 held out): real text has many local
    optima, so the fits differ by seed; ours is never more than 2% worse."""
    X, _ = lee_corpus()
    train, test = X[:240], X[240:]
    settings = {"n_components": 10, "doc_topic_prior": 0.1, "topic_word_prior": 0.01,
                "max_iter": 20, "learning_method": "batch", "random_state": seed}
    ours = AlphaLDA(**settings).fit(train)
    theirs = LatentDirichletAllocation(**settings).fit(train)
    assert (heldout_perplexity(ours.components_, 0.1, 0.01, test)
            < 1.02 * heldout_perplexity(theirs.components_, 0.1, 0.01, test))


def test_online_and_batch_agree_on_a_small_corpus():
    X, _, topic_word = small_corpus(n_documents=400, n_topics=3, n_words=40)
    # from random_state 0 and 1 batch learning merges two topics (scikit-learn's batch LDA
    # lands in the same local optimum from those starts); 2 finds all three
    batch = AlphaLDA(3, alpha=0.8, max_iter=50, random_state=2).fit(X)
    online = AlphaLDA(3, alpha=0.8, learning_method="online", batch_size=50, max_iter=30,
                      learning_offset=1.0, random_state=0).fit(X)
    order, _ = match_topics(online.components_, topic_word)
    reference, _ = match_topics(batch.components_, topic_word)
    online_topics = online.components_ / online.components_.sum(axis=1, keepdims=True)
    batch_topics = batch.components_ / batch.components_.sum(axis=1, keepdims=True)
    gap = 0.5 * np.abs(online_topics[np.argsort(order)] - batch_topics[np.argsort(reference)])
    assert gap.sum(axis=1).max() < 0.05
    assert online.perplexity(X) == pytest.approx(batch.perplexity(X), rel=0.01)


def test_partial_fit_learns_from_mini_batches():
    X, _, topic_word = small_corpus(n_documents=400)
    model = AlphaLDA(3, total_samples=400, learning_offset=1.0, random_state=0)
    for _ in range(20):
        for rows in np.array_split(np.arange(400), 8):
            model.partial_fit(X[rows])
    assert model.n_batch_iter_ == 161
    _, distances = match_topics(model.components_, topic_word)
    assert distances.max() < 0.1


# ---------------------------------------------------------------- input handling


def test_sparse_and_dense_input_give_the_same_fit():
    X, _, _ = small_corpus()
    sparse_fit = AlphaLDA(3, max_iter=5, random_state=0).fit(X)
    dense_fit = AlphaLDA(3, max_iter=5, random_state=0).fit(X.toarray())
    np.testing.assert_array_equal(sparse_fit.components_, dense_fit.components_)
    np.testing.assert_array_equal(sparse_fit.transform(X), dense_fit.transform(X.toarray()))


def test_empty_documents_and_unused_words():
    X, _, _ = small_corpus()
    X = sp.vstack([X, sp.csr_matrix((2, X.shape[1]))]).tolil()
    X[:, 5] = 0  # a vocabulary column nobody uses
    X = X.tocsr()
    model = AlphaLDA(3, max_iter=10, random_state=0).fit(X)
    np.testing.assert_allclose(model.transform(X[-2:]), 1 / 3)  # the prior mean
    np.testing.assert_allclose(model.components_[:, 5], model.topic_word_prior_)
    assert np.isfinite(model.elbo_) and np.isfinite(model.perplexity(X))


def test_inputs_are_not_modified_and_pickle_round_trips():
    X, _, _ = small_corpus()
    before = X.copy()
    model = AlphaLDA(3, max_iter=5, random_state=0).fit(X)
    assert (before != X).nnz == 0
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone.transform(X), model.transform(X))


def test_top_words_of_a_planted_topic():
    X, names = lee_corpus()
    model = AlphaLDA(5, max_iter=10, random_state=0).fit(X)
    words = model.top_words(names, n=4)
    assert len(words) == 5 and all(len(topic) == 4 for topic in words)
    best = np.argmax(model.components_[0])
    assert words[0][0] == names[best]
    assert all(type(word) is str for topic in words for word in topic)
    with pytest.raises(ValueError, match="'feature_names'"):
        model.top_words(names[:-1])


@pytest.mark.parametrize("params, name", [
    ({"alpha": 0.0}, "alpha"),
    ({"objective": "map"}, "objective"),
    ({"n_components": 0}, "n_components"),
    ({"doc_topic_prior": 0.0}, "doc_topic_prior"),
    ({"topic_word_prior": -1.0}, "topic_word_prior"),
    ({"learning_method": "stochastic"}, "learning_method"),
    ({"learning_decay": 0.4}, "learning_decay"),
    ({"batch_size": 0}, "batch_size"),
    ({"max_doc_update_iter": 0}, "max_doc_update_iter"),
    ({"total_samples": 0}, "total_samples"),
    ({"evaluate_every": 1.5}, "evaluate_every"),
])
def test_bad_parameters_name_themselves(params, name):
    X, _, _ = small_corpus(n_documents=10)
    with pytest.raises(ValueError, match=f"'{name}' parameter of AlphaLDA"):
        AlphaLDA(**params).fit(X)


def test_negative_counts_and_non_finite_counts_are_refused():
    X, _, _ = small_corpus(n_documents=10)
    negative = X.copy()
    negative.data[0] = -1.0
    with pytest.raises(ValueError, match="Negative values in data passed to AlphaLDA"):
        AlphaLDA(2).fit(negative)
    dense = X.toarray()
    dense[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        AlphaLDA(2).fit(dense)


@pytest.mark.parametrize("learning_method", ["batch", "online"])
def test_evaluate_every_stops_at_tol(learning_method):
    X, _, _ = small_corpus(n_documents=200)
    model = AlphaLDA(3, learning_method=learning_method, max_iter=200, evaluate_every=2,
                     tol=1e-3, random_state=2).fit(X)
    assert model.converged_ and model.n_iter_ < 200 and model.n_iter_ % 2 == 0
    # batch records every sweep, online only the evaluations (every 2nd pass)
    history = model.elbo_history_
    previous = history[-3] if learning_method == "batch" else history[-2]
    assert abs(history[-1] - previous) <= 1e-3 * abs(history[-1])
    everything = AlphaLDA(3, learning_method=learning_method, max_iter=7, random_state=2).fit(X)
    assert everything.n_iter_ == 7 and not everything.converged_


def test_a_corpus_without_words_is_fitted_to_the_prior():
    with pytest.warns(UserWarning, match="no words.*bound_"):
        model = AlphaLDA(2, random_state=0).fit(np.zeros((5, 4)))
    np.testing.assert_array_equal(model.components_, model.topic_word_prior_)
    assert np.isnan(model.bound_) and np.all(model.elbo_history_ == 0.0)
    with pytest.raises(ValueError, match="X has no words"):
        model.perplexity(np.zeros((2, 4)))


@pytest.mark.parametrize("learning_method", ["online", "batch"])
def test_absurd_counts_end_in_a_clear_error_or_a_finite_fit(learning_method):
    X, _, _ = small_corpus(n_documents=300, n_words=30)
    try:
        model = AlphaLDA(3, learning_method=learning_method, random_state=0).fit(X * 1e200)
    except FloatingPointError as error:  # never numba's SystemError
        assert "Rescale the counts of X" in str(error)
    else:
        assert np.all(np.isfinite(model.components_)) and np.isfinite(model.bound_)


def test_one_topic_with_empirical_bayes_priors():
    X, _, _ = small_corpus(n_documents=40)
    model = AlphaLDA(1, optimize_priors=True, max_iter=5, random_state=0).fit(X)
    # a Dirichlet over one topic is a point mass: its parameter stays where it started
    assert model.doc_topic_prior_ == 1.0
    assert np.isfinite(model.topic_word_prior_) and np.isfinite(model.bound_)
    np.testing.assert_allclose(model.transform(X), 1.0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), alpha=st.floats(0.05, 1.0),
       objective=st.sampled_from(["alpha-vb", "fractional"]),
       learning_method=st.sampled_from(["batch", "online"]), n_documents=st.integers(1, 30),
       n_words=st.integers(1, 20), n_topics=st.integers(1, 4), sparse=st.booleans())
def test_random_small_corpora_keep_every_property(seed, alpha, objective, learning_method,
                                                  n_documents, n_words, n_topics, sparse):
    rng = np.random.default_rng(seed)
    counts = rng.poisson(rng.uniform(0.1, 5.0), size=(n_documents, n_words)).astype(float)
    counts[0, 0] += 1.0  # at least one word
    X = sp.csr_matrix(counts) if sparse else counts
    X_before = X.copy()
    model = AlphaLDA(n_topics, alpha=alpha, objective=objective, learning_method=learning_method,
                     max_iter=8, batch_size=7, random_state=seed)
    model.fit(X)
    if learning_method == "batch":
        assert_monotone(model.elbo_history_)
    theta = model.transform(X)
    for value in (model.components_, model.elbo_history_, theta, model.bound_):
        assert np.all(np.isfinite(value))
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    if sparse:
        np.testing.assert_array_equal(X.toarray(), X_before.toarray())
    else:
        np.testing.assert_array_equal(X, X_before)


def test_online_warm_start_continues_the_topics_and_the_steps():
    X, _, _ = small_corpus(n_documents=60)
    model = AlphaLDA(3, learning_method="online", batch_size=20, max_iter=2, warm_start=True,
                     random_state=0).fit(X)
    first_components, first_steps = model.components_.copy(), model.n_batch_iter_
    model.fit(X)
    assert model.n_batch_iter_ == 2 * first_steps - 1  # counted from 1, as scikit-learn
    cold = AlphaLDA(3, learning_method="online", batch_size=20, max_iter=2,
                    random_state=0).fit(X)
    np.testing.assert_array_equal(cold.components_, first_components)
    assert not np.array_equal(model.components_, first_components)


# ---------------------------------------------------------------- scikit-learn's options


def test_n_jobs_sets_the_thread_count_and_not_the_results():
    from alphavb._parallel import thread_count

    run_with_two_numba_threads("""
        import numpy as np
        from alphavb import AlphaLDA
        from alphavb._parallel import thread_count
        from alphavb.datasets import make_lda_corpus
        from tests.conftest import recording_pools

        assert [thread_count(n, "m") for n in (1, 2, 5, -1, -2)] == [1, 2, 2, 2, 1]
        assert thread_count(None, "m") == numba.get_num_threads() == 2
        X, _, _ = make_lda_corpus(n_documents=300, n_topics=3, n_words=40, document_length=30,
                                  random_state=0)
        fits = []
        with recording_pools() as pools:
            for n_jobs in (1, 2, -1, None):
                pools.clear()
                fits.append(AlphaLDA(3, n_jobs=n_jobs, max_iter=3, random_state=0).fit(X))
                # one thread runs each kernel in this thread; otherwise on a pool of 2
                assert pools == [] if n_jobs == 1 else (pools and set(pools) == {2}), pools
        for fit in fits[1:]:
            np.testing.assert_array_equal(fit.components_, fits[0].components_)
            np.testing.assert_array_equal(fit.transform(X), fits[0].transform(X))
        print("ok")
    """)
    with pytest.raises(ValueError, match="'n_jobs' parameter of AlphaLDA"):
        thread_count(0, "AlphaLDA")


def test_a_small_corpus_runs_in_the_calling_thread():
    """Fewer than MIN_ITEMS_PER_THREAD documents (and words) per thread skip the pool: its
    hand-off cost more than the E-step, and a fresh process's first fit made both threads
    wait on one kernel load. The result is the one a single thread gives."""
    run_with_two_numba_threads("""
        import numpy as np
        from alphavb import AlphaLDA
        from alphavb._parallel import MIN_ITEMS_PER_THREAD
        from alphavb.datasets import make_lda_corpus
        from tests.conftest import recording_pools

        n_documents = 2 * MIN_ITEMS_PER_THREAD - 1  # one short of two threads' worth
        X, _, _ = make_lda_corpus(n_documents=n_documents, n_topics=3, n_words=40,
                                  random_state=0)
        with recording_pools() as pools:
            two = AlphaLDA(3, n_jobs=2, max_iter=3, random_state=0).fit(X)
        assert pools == [], pools
        one = AlphaLDA(3, n_jobs=1, max_iter=3, random_state=0).fit(X)
        np.testing.assert_array_equal(two.components_, one.components_)
        X, _, _ = make_lda_corpus(n_documents=n_documents + 1, n_topics=3, n_words=40,
                                  random_state=0)
        with recording_pools() as pools:
            AlphaLDA(3, n_jobs=2, max_iter=3, random_state=0).fit(X)
        assert pools and set(pools) == {2}, pools
        print("ok")
    """)


@pytest.mark.parametrize("learning_method", ["batch", "online"])
def test_perp_tol_stops_when_the_training_perplexity_settles(learning_method, capsys):
    X, _, _ = small_corpus(n_documents=200)
    model = AlphaLDA(3, learning_method=learning_method, max_iter=100, evaluate_every=1,
                     perp_tol=0.05, tol=0.0, verbose=1, random_state=0).fit(X)
    lines = capsys.readouterr().out.splitlines()
    perplexities = [float(line.rsplit(" ", 1)[1]) for line in lines]
    assert len(lines) == model.n_iter_ < 100 and model.converged_
    changes = np.abs(np.diff(perplexities))
    assert changes[-1] < 0.05 and np.all(changes[:-1] >= 0.05)
    assert lines[-1].startswith(f"iteration: {model.n_iter_} of max_iter: 100, perplexity: ")
    # the printed perplexity is perplexity(X) of the final topics
    assert perplexities[-1] == pytest.approx(model.perplexity(X), abs=1e-4)


def test_perplexity_with_sub_sampling_scales_the_documents_part():
    """scikit-learn's sub_sampling: the documents' part of the bound and the word count are
    both scaled by total_samples / n_samples. With total_samples = n_samples nothing changes;
    as total_samples grows the topics' KL fades and the documents-only perplexity remains."""
    X, _, _ = small_corpus(n_documents=100)
    model = AlphaLDA(3, max_iter=5, random_state=0).fit(X)
    assert model.perplexity(X, sub_sampling=True) != model.perplexity(X)
    model.set_params(total_samples=X.shape[0])
    assert model.perplexity(X, sub_sampling=True) == pytest.approx(model.perplexity(X),
                                                                   rel=1e-12)
    model.set_params(total_samples=1e12)
    documents_only = heldout_perplexity(model.components_, model.doc_topic_prior_,
                                        model.topic_word_prior_, X)
    assert model.perplexity(X, sub_sampling=True) == pytest.approx(documents_only, rel=1e-9)


@pytest.mark.parametrize("learning_method", ["batch", "online"])
def test_float32_counts_give_float32_results_equal_to_the_float64_fit(learning_method):
    """Integer counts are exact in float32 and the kernels run in float64, so the float32 fit
    is the float64 fit rounded once to float32."""
    X, _, _ = small_corpus(n_documents=80)
    X = X.toarray()
    settings = {"n_components": 3, "max_iter": 5, "learning_method": learning_method,
                "random_state": 0}
    wide = AlphaLDA(**settings).fit(X)
    narrow = AlphaLDA(**settings).fit(X.astype(np.float32))
    for name in ("components_", "exp_dirichlet_component_"):
        assert getattr(narrow, name).dtype == np.float32
        np.testing.assert_array_equal(getattr(narrow, name),
                                      getattr(wide, name).astype(np.float32))
    assert narrow.transform(X.astype(np.float32)).dtype == np.float32
    np.testing.assert_array_equal(narrow.transform(X), wide.transform(X).astype(np.float32))
    assert narrow.bound_ == wide.bound_


def test_n_init_keeps_the_best_start():
    """Start 0 of n_init=3 is the n_init=1 fit, so the kept objective is never lower; on
    this corpus seeds 1 and 2 start in a worse mode (-26,495 and -26,478) that the extra
    starts escape (to about -25,170, where seeds 0 and 3 start)."""
    X, _, _ = make_lda_corpus(n_documents=100, n_topics=5, n_words=40, random_state=0)
    gains = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(4):
            one = AlphaLDA(5, random_state=seed, max_iter=30).fit(X)
            best = AlphaLDA(5, random_state=seed, n_init=3, max_iter=30).fit(X)
            assert best.elbo_ >= one.elbo_
            gains.append(best.elbo_ - one.elbo_)
    assert max(gains) > 1000.0


def test_raw_text_is_refused_with_the_fix():
    for documents in (["the cat sat", "on the mat"], np.array(["a b", "b c"])):
        with pytest.raises(ValueError, match="CountVectorizer"):
            AlphaLDA(2).fit(documents)


def test_a_csr_matrix_out_of_canonical_order_is_left_as_given():
    """Unsorted indices and duplicate entries: the caller's matrix is not sorted or summed
    in place (scikit-learn's LDA leaves it alone too), and the fit equals the fit of the
    canonical matrix."""
    data = np.array([1.0, 2, 3, 1, 1, 2, 1, 1, 1, 1, 2, 3])
    indices = np.array([3, 1, 3, 0, 2, 0, 2, 1, 4, 0, 4, 4])
    X = sp.csr_matrix((data.copy(), indices.copy(), np.array([0, 4, 7, 9, 12])), shape=(4, 5))
    fitted = AlphaLDA(2, random_state=0, max_iter=5).fit(X)
    assert X.nnz == 12
    np.testing.assert_array_equal(X.indices, indices)
    np.testing.assert_array_equal(X.data, data)
    canonical = X.copy()
    canonical.sum_duplicates()
    reference = AlphaLDA(2, random_state=0, max_iter=5).fit(canonical)
    np.testing.assert_allclose(fitted.components_, reference.components_, rtol=1e-12)


def test_a_perplexity_outside_its_range_is_refused():
    """Counts x 1e-300: the topics' KL over 1e-297 words gave a 'perplexity' of inf (0.0 on
    another corpus), which no corpus of words can have; now a ValueError names why, the fit
    keeps bound_ nan with a warning, and sub_sampling must be a bool."""
    X, _, _ = make_lda_corpus(n_documents=50, n_topics=3, n_words=20, random_state=0)
    lda = AlphaLDA(3, random_state=0).fit(X)
    assert lda.perplexity(X) >= 1.0
    with pytest.raises(ValueError, match=r"outside \[1, inf\)"):
        lda.perplexity(X * 1e-300)
    with pytest.warns(UserWarning, match="bound_ is nan"):
        tiny = AlphaLDA(3, random_state=0).fit(X * 1e-300)
    assert np.isnan(tiny.bound_)
    with pytest.raises(ValueError, match="sub_sampling"):
        lda.perplexity(X, sub_sampling="yes")
