"""The fit-time check of :class:`~alphavb.AlphaLDA`: Pareto-smoothed importance sampling of
the fitted ``q(beta) q(theta)`` against LDA's exact alpha-posterior.

The target is the one :mod:`alphavb.exact._topics` samples by NUTS, the topics and the
documents' topic proportions with the topic of every token summed out (Yang, Pati &
Bhattacharya 2020, eq. 2.6)::

    log p(beta, theta | X) = sum_k log Dir(beta_k | eta) + sum_d log Dir(theta_d | a)
        + alpha sum_dv n_dv log sum_k theta_dk beta_kv + const

(``objective="fractional"``: ``n_dv log sum_k (theta_dk beta_kv)^alpha`` per count), with
the priors the fit used. The draws of ``q`` are ``Dir(components_k)`` per topic and
``Dir(gamma_d)`` per document (``gamma = transform(X, normalize=False)``), in the fit's
labelling of the topics, a copy of the target's mode there; the importance weights are
``p / q`` (no Jacobian: both densities are over the same simplices). The checked parameters
are the entries of the topics' word distributions, the rows of
:func:`alphavb.exact.compare_to_exact`, each with ``q``'s equal-tailed interval (the Beta
marginal of its Dirichlet).

``q`` has ``K (V - 1) + D (K - 1)`` free parameters, so on every corpus tried its weights
were rough (k-hat above 0.7): the check then says that ``q`` is far from the exact
posterior, as NUTS agreed it was (the smallest mass of a 95% interval 0.0-0.19), and the
masses it reports are rough estimates. It evaluates the likelihood at ``CHECK_DRAWS`` draws
where the fit passes over the counts a few times per iteration, so ``"auto"`` leaves it to an
explicit request (:func:`alphavb.approximation_checks`) unless the fit ran very long.
"""

import time

import numpy as np
from scipy.special import betaincinv, logsumexp

from .._approximation import (
    CHECK_LEVEL,
    NUTS_MAX_PARAMETERS,
    importance_weights,
    weighted_check,
)
from .._special import log_dirichlet_density, log_dirichlet_draws

# draws of q per check; the entries of a chunk of draws x counts x topics at once
CHECK_DRAWS = 1000
CHUNK_ENTRIES = 4_000_000
LDA_CAUSE = ("the usual cause: a mean-field q(theta) q(beta) ignores how the documents' topic "
             "proportions and the topics' word distributions depend on each other through "
             "the tokens' topics, with too narrow intervals")


def word_labels(model):
    """The fitted vocabulary's words: ``feature_names_in_``, else ``w0, w1, ...``."""
    names = getattr(model, "feature_names_in_", None)
    return ([str(name) for name in names] if names is not None
            else [f"w{v}" for v in range(model.components_.shape[1])])


def topic_word_labels(model):
    """``topic_word[k, word]`` for every entry of the fitted topics, topic by topic (the
    rows of the check and of ``compare_to_exact``)."""
    return [f"topic_word[{k}, {word}]" for k in range(model.components_.shape[0])
            for word in word_labels(model)]


def check_cost_share(model):
    """The check's predicted work over the fit's: it evaluates the tempered likelihood at
    ``CHECK_DRAWS`` draws, where the fit passed over the counts at least once per iteration
    of each of its ``n_init`` starts."""
    return CHECK_DRAWS / max(int(model.n_init) * int(model.n_iter_), 1)


def _chunk_size(n_counts, n_topics, n_words, n_documents):
    """Draws per chunk: ``CHUNK_ENTRIES`` entries of the largest array a chunk holds (the
    counts of one draw, if they are more, are taken in slices: :func:`_tempered_likelihood`)."""
    per_draw = max(n_counts * n_topics, n_topics * (n_words + n_documents), 1)
    return int(np.clip(CHUNK_ENTRIES // per_draw, 1, CHECK_DRAWS))


def _tempered_likelihood(model, log_topics, log_proportions, counts):
    """``alpha sum_dv n_dv log sum_k theta_dk beta_kv`` of each draw of a chunk (the
    fractional objective's ``sum_dv n_dv log sum_k (theta_dk beta_kv)^alpha``), over slices
    of the counts that keep each (draws, counts, K) array within ``CHUNK_ENTRIES``."""
    alpha, fractional = float(model.alpha), model.objective == "fractional"
    size, n_topics = log_topics.shape[:2]
    step = max(1, CHUNK_ENTRIES // (size * n_topics))
    total = np.zeros(size)
    for start in range(0, counts.nnz, step):
        rows, cols = counts.row[start:start + step], counts.col[start:start + step]
        joint = log_proportions[:, rows, :] + np.swapaxes(log_topics[:, :, cols], 1, 2)
        per_count = (logsumexp(alpha * joint, axis=2) if fractional
                     else alpha * logsumexp(joint, axis=2))
        total += per_count @ counts.data[start:start + step]
    return total


class _Draws:
    """Chunks of draws of ``q``, each from its own seed, the topics first: a second pass
    draws the same topics again without the documents' proportions."""

    def __init__(self, topics, gamma, chunk, rng):
        self.topics, self.gamma = topics, gamma
        self.sizes = [min(chunk, CHECK_DRAWS - start) for start in range(0, CHECK_DRAWS, chunk)]
        self.seeds = rng.randint(np.iinfo(np.int32).max, size=len(self.sizes))

    def __iter__(self):
        """``(rng, size)`` per chunk; the chunk's topics are ``self.log_topics(rng, size)``."""
        for seed, size in zip(self.seeds, self.sizes, strict=True):
            yield np.random.RandomState(seed), size

    def log_topics(self, rng, size):
        return log_dirichlet_draws(self.topics, size, rng)             # (size, K, V)

    def log_proportions(self, rng, size):
        return log_dirichlet_draws(self.gamma, size, rng)              # (size, D, K)


def _log_weights(model, draws, counts):
    """``log p - log q`` (up to a constant) of every draw (module docstring)."""
    eta = np.full(draws.topics.shape[1], float(model.topic_word_prior_))
    a = np.full(draws.topics.shape[0], float(model.doc_topic_prior_))
    out = []
    for rng, size in draws:
        log_topics = draws.log_topics(rng, size)
        log_proportions = draws.log_proportions(rng, size)
        log_ratio = (log_dirichlet_density(log_topics, eta)
                     - log_dirichlet_density(log_topics, draws.topics)).sum(axis=1)
        log_ratio += (log_dirichlet_density(log_proportions, a)
                      - log_dirichlet_density(log_proportions, draws.gamma)).sum(axis=1)
        out.append(log_ratio + _tempered_likelihood(model, log_topics, log_proportions,
                                                    counts))
    return np.concatenate(out)


def lda_check(model, documents, rng):
    """The :class:`~alphavb._approximation.ApproximationCheck` of a fitted ``model`` on the
    in-memory corpus ``documents`` it was fitted to (module docstring); None for a corpus
    in blocks."""
    if not documents.in_memory:
        return None
    started = time.perf_counter()
    topics = np.asarray(model.components_, dtype=float)
    gamma = model._doc_topic_parameters(documents)
    counts = documents.X.tocoo()
    n_topics, n_words = topics.shape
    draws = _Draws(topics, gamma, _chunk_size(counts.nnz, n_topics, n_words, len(gamma)), rng)
    weighted = importance_weights(_log_weights(model, draws, counts))
    if weighted is None:
        return None
    tail = 0.5 - 0.5 * CHECK_LEVEL
    rest = topics.sum(axis=1, keepdims=True) - topics
    # q(beta_kv) = Beta(lambda_kv, rest); a one-word vocabulary has beta = 1 (rest 0)
    lower = np.where(rest > 0, betaincinv(topics, rest, tail), 1.0).ravel()
    upper = np.where(rest > 0, betaincinv(topics, rest, 1.0 - tail), 1.0).ravel()
    mass, means, done = np.zeros(topics.size), np.zeros(topics.size), 0
    for chunk_rng, size in draws:  # the same topics again, weighted
        values = np.exp(draws.log_topics(chunk_rng, size)).reshape(size, -1)
        weights = weighted.weights[done:done + size]
        mass += weights @ ((values >= lower) & (values <= upper))
        means += weights @ values
        done += size
    n_parameters = n_topics * (n_words - 1) + len(gamma) * (n_topics - 1)
    call = ("compare_to_exact(model, X)" if n_parameters <= NUTS_MAX_PARAMETERS else
            f"compare_to_exact(model, X) on a smaller corpus (its NUTS takes at most "
            f"{NUTS_MAX_PARAMETERS} free parameters, K (V - 1) + D (K - 1); this one has "
            f"{n_parameters})")
    return weighted_check(weighted, mass, means, topic_word_labels(model), started, LDA_CAUSE,
                          call=call)
