"""Exact alpha-posterior of :class:`~alphavb.AlphaLDA`'s model, by NUTS.

The target is the posterior of the topics and the documents' topic proportions with the
topic of every token summed out, the one alpha-VB approximates::

    prod_k Dir(beta_k | eta) prod_d Dir(theta_d | a)
        prod_dv [sum_k theta_dk beta_kv]^(alpha n_dv)

(``objective="fractional"``: ``[sum_k (theta_dk beta_kv)^alpha]^(n_dv)``), with the priors
the fit used (``doc_topic_prior_``, ``topic_word_prior_``: learned ones under
``optimize_priors``). The chains start from draws of the fitted ``q(beta)`` and of
``Dir(gamma_d)`` with the documents' ``gamma`` (``transform(X, normalize=False)``); each
draw's topics are then matched to the fitted ones by the Hellinger distance of their word
distributions (label switching).
"""

import numpy as np
from sklearn.base import clone

from ._draws import ExactDraws
from ._nuts import (
    check_size,
    match_components,
    not_in_memory,
    numpyro_modules,
    relabel,
    run_nuts,
)

# draws of a Dirichlet start are kept this far inside the simplex (NUTS starts from the
# logits of the stick-breaking transform, which are infinite on its faces)
_INSIDE = 1e-10


def _lda_model(shape, doc_topic_prior, topic_word_prior, alpha, fractional):
    """The NumPyro model of the tempered LDA likelihood (module docstring) of a corpus of
    ``shape = (n_documents, n_words, n_topics)``, on its nonzero counts ``(document, word,
    count)``."""
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist
    from jax.scipy.special import logsumexp

    n_documents, n_words, n_topics = shape

    def lda(document, word, count):
        topics = numpyro.sample("topic_word", dist.Dirichlet(
            jnp.full(n_words, topic_word_prior)).expand([n_topics]).to_event(1))
        proportions = numpyro.sample("doc_topic", dist.Dirichlet(
            jnp.full(n_topics, doc_topic_prior)).expand([n_documents]).to_event(1))
        joint = jnp.log(proportions[document]) + jnp.log(topics[:, word].T)  # (nonzero, K)
        per_count = (logsumexp(alpha * joint, axis=1) if fractional
                     else alpha * logsumexp(joint, axis=1))
        numpyro.factor("tempered_likelihood", jnp.sum(count * per_count))

    return lda


def _inside(draws):
    """Dirichlet draws moved off the faces of the simplex (exact zeros from underflow)."""
    draws = np.clip(draws, _INSIDE, None)
    return draws / draws.sum(axis=-1, keepdims=True)


def sample_lda(estimator, X, y, *, n_draws, n_chains, n_tune, thin, rng):
    """NUTS draws of LDA's exact alpha-posterior (module docstring); an ``ExactDraws``
    whose ``reference_fit`` is the fit its topics were matched to."""
    numpyro_modules()
    model = clone(estimator)
    documents = model._check_counts(X, reset=True)
    if not documents.in_memory:
        raise not_in_memory("an in-memory corpus for LDA's exact sampler", X)
    n_documents, n_words = documents.shape
    n_topics = model.n_components
    check_size("LDA", n_topics * (n_words - 1) + n_documents * (n_topics - 1),
               "Use fewer topics, documents or words (drop the words no document uses "
               "from X, for the model on the words that are left).")
    model.fit(X)
    gamma = model.transform(X, normalize=False)
    topic_draws = model.sample_posterior(n_chains, random_state=rng)["topic_word"]
    starts = [{"topic_word": _inside(topic_draws[c]),
               "doc_topic": _inside(np.stack([rng.dirichlet(g) for g in gamma]))}
              for c in range(n_chains)]
    coo = documents.X.tocoo()
    lda = _lda_model((n_documents, n_words, n_topics), model.doc_topic_prior_,
                     model.topic_word_prior_, float(model.alpha), model.objective == "fractional")
    samples, stats = run_nuts(lda, starts, n_draws=n_draws, n_tune=n_tune, thin=thin,
                              rng=rng, document=coo.row, word=coo.col, count=coo.data)
    expected = model.components_ / model.components_.sum(axis=1, keepdims=True)
    order = match_components(np.sqrt(samples["topic_word"]), np.sqrt(expected))
    draws = {"topic_word": relabel(samples["topic_word"], order),
             "doc_topic": np.moveaxis(relabel(np.moveaxis(samples["doc_topic"], 3, 2),
                                              order), 2, 3)}
    return ExactDraws(
        model, draws, method="NUTS (NumPyro), topics of the tokens summed out, topics "
        "matched to the fit", stats=stats, reference_fit=model,
        info={"n_tune": n_tune, "thin": thin})


def topic_rows(model, draws):
    """Row labels and flat (..., row) values of LDA's compared parameters: every entry of
    the topics' word distributions."""
    from ..topics._check import topic_word_labels

    topic_word = np.asarray(draws["topic_word"])
    labels = topic_word_labels(model)
    columns = list(np.moveaxis(topic_word.reshape(*topic_word.shape[:-2], -1), -1, 0))
    return labels, columns
