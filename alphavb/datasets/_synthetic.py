"""Data generators of the papers' simulations (:mod:`alphavb.datasets`)."""

import numpy as np
from sklearn.utils import check_random_state

from .._validation import Integer, Real, bad_parameter, validate_params

# the constraint of every count of rows, features, components, documents or words
_COUNT = [Integer(1, None)]


@validate_params({"n_samples": _COUNT, "n_features": _COUNT, "n_informative": _COUNT,
                  "noise": [Real(0.0, None)]})
def make_sparse_regression(n_samples=100, n_features=500, n_informative=4, coef=None, noise=1.0,
                           random_state=None):
    """Sparse high-dimensional linear regression (Yang, Pati & Bhattacharya 2020, Sec. 5).

    ``X`` has independent standard-normal entries, ``y = X beta* + noise * eps`` with
    ``eps ~ N(0, I_n)``, and only the first ``n_informative`` coefficients are non-zero.
    The defaults are the paper's set-up (n = 100, d = 500, 4 non-zero coefficients,
    sigma = 1).

    Parameters
    ----------
    n_samples, n_features, n_informative : int
    coef : array-like of shape (n_informative,) or None, default=None
        Values of the non-zero coefficients; ``None`` gives ``n_informative`` values evenly
        spaced from 1.5 to 3 (1.5, 2, 2.5, 3 for four).
    noise : float, default=1.0
        Standard deviation ``sigma`` of the Gaussian noise.
    random_state : int, RandomState or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    coef : ndarray of shape (n_features,)
        The true coefficient vector ``beta*``.
    """
    owner = "make_sparse_regression"
    if n_informative > n_features:
        raise bad_parameter(owner, "n_informative", f"an int <= n_features={n_features}",
                             n_informative)
    noise = float(noise)
    if coef is None:
        values = np.linspace(1.5, 3.0, n_informative)
    else:
        values = np.asarray(coef, dtype=float)
        if values.shape != (n_informative,) or not np.all(np.isfinite(values)):
            raise bad_parameter(owner, "coef", f"a finite array of shape ({n_informative},)",
                                 coef)
    rng = check_random_state(random_state)
    true_coef = np.zeros(n_features)
    true_coef[:n_informative] = values
    X = rng.standard_normal((n_samples, n_features))
    y = X @ true_coef + noise * rng.standard_normal(n_samples)
    return X, y, true_coef


@validate_params({"n_samples": _COUNT, "n_components": _COUNT, "n_features": _COUNT,
                  "mean_scale": [Real(0.0, None, closed="neither")],
                  "min_separation": [Real(0.0, None)]})
def make_gmm(n_samples=1000, n_components=3, n_features=2, weights=None, mean_scale=5.0,
             min_separation=3.0, random_state=None):
    """Gaussian mixture with unit covariances (Yang, Pati & Bhattacharya 2020, Sec. 5.2).

    The paper's set-up: ``n = 1000`` bivariate points from ``K = 3`` components with weights
    ``1/3`` and covariance ``I``, the means drawn from ``N(0, c^2 I)``. The paper's text does
    not give ``c``; the default ``mean_scale = c = 5`` puts the median closest pair of means
    4.9 units (4.9 standard deviations) apart. Means are redrawn until every pair is at
    least ``min_separation`` apart, so the components are distinguishable (77% of draws
    pass at the defaults); ``min_separation=0`` keeps the first draw.

    Parameters
    ----------
    n_samples, n_components, n_features : int
    weights : array-like of shape (n_components,) or None, default=None
        Mixing weights; ``None`` is ``1 / n_components`` each.
    mean_scale : float, default=5.0
        Standard deviation ``c`` of the prior the means are drawn from.
    min_separation : float, default=3.0
        Smallest allowed distance between two means.
    random_state : int, RandomState or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
        The component of each row.
    means : ndarray of shape (n_components, n_features)
    """
    owner = "make_gmm"
    mean_scale, min_separation = float(mean_scale), float(min_separation)
    if weights is None:
        weights = np.full(n_components, 1.0 / n_components)
    else:
        weights = np.asarray(weights, dtype=float)
        if (weights.shape != (n_components,) or not np.all(np.isfinite(weights))
                or np.any(weights < 0) or abs(weights.sum() - 1.0) > 1e-8):
            raise bad_parameter(owner, "weights",
                                 f"{n_components} non-negative weights summing to 1", weights)
    rng = check_random_state(random_state)
    for _ in range(1000):
        means = mean_scale * rng.standard_normal((n_components, n_features))
        gaps = np.linalg.norm(means[:, None] - means[None], axis=-1)
        if n_components == 1 or gaps[np.triu_indices(n_components, 1)].min() >= min_separation:
            break
    else:
        raise bad_parameter(owner, "min_separation",
                             "small enough for 1000 draws of the means to satisfy it",
                             min_separation, "Lower min_separation or raise mean_scale.")
    labels = rng.choice(n_components, size=n_samples, p=weights)
    X = means[labels] + rng.standard_normal((n_samples, n_features))
    return X, labels, means


@validate_params({"n_samples": _COUNT, "n_features": _COUNT})
def make_wrong_model_regression(n_samples=100, n_features=50, wrong=True, random_state=None,
                                return_coef=False):
    """Grünwald & van Ommen's (2017, Bayesian Analysis 12, Sec. 5.1) wrong-model regression.

    Rows ``x = (1, x_1, ..., x_p)`` with ``x_j ~ N(0, 1)`` and ``beta* = (0, 0.1, 0.1, 0.1,
    0.1, 0, ..., 0)`` (the first entry multiplies the constant). The correct model: ``y = x'
    beta* + N(0, 1/40)``. The wrong one (``wrong=True``): with probability 1/2 a row is the
    "easy point" ``x = (1, 0, ..., 0)``, ``y = 0`` (the paper keeps the constant); otherwise
    it is drawn from the model with noise variance 1/20, so that the best homoscedastic fit
    has variance 1/40. Fit without an intercept (the constant is a column).

    Parameters
    ----------
    n_samples, n_features : int
    wrong : bool, default=True
    random_state : int, RandomState or None
    return_coef : bool, default=False

    Returns
    -------
    X : ndarray of shape (n_samples, n_features + 1)
    y : ndarray of shape (n_samples,)
    coef : ndarray of shape (n_features + 1,), only with ``return_coef``
    """
    owner = "make_wrong_model_regression"
    if n_features < 4:
        raise bad_parameter(owner, "n_features", "an int >= 4 (four coefficients are 0.1)",
                            n_features)
    rng = check_random_state(random_state)
    coef = np.zeros(n_features + 1)
    coef[1:5] = 0.1
    X = np.column_stack([np.ones(n_samples), rng.standard_normal((n_samples, n_features))])
    noise = rng.standard_normal(n_samples)
    if wrong:
        easy = rng.random_sample(n_samples) < 0.5
        y = np.where(easy, 0.0, X @ coef + np.sqrt(1 / 20) * noise)
        X[easy, 1:] = 0.0
    else:
        y = X @ coef + np.sqrt(1 / 40) * noise
    return (X, y, coef) if return_coef else (X, y)


@validate_params({"n_samples": _COUNT})
def make_heteroscedastic(n_samples=1000, random_state=None):
    """The heteroscedastic toy problem of the AADM paper (Rodríguez-Santana & Hernández-Lobato
    2022, Sec. 5.1): ``x ~ U[-4, 4]``, ``y = 7 sin(x) + 3 |cos(x / 2)| eps``, ``eps ~ N(0, 1)``.
    """
    def draw_y(x, rng):
        return 7.0 * np.sin(x) + 3.0 * np.abs(np.cos(x / 2.0)) * rng.standard_normal(x.size)

    return _one_dimensional_problem(n_samples, random_state, 4.0, draw_y)


@validate_params({"n_samples": _COUNT})
def make_bimodal(n_samples=1000, random_state=None):
    """The bimodal toy problem of the AADM paper (Sec. 5.1, after Depeweg et al. 2017):
    ``x ~ U[-2, 2]``, ``y = 10 sin(x) + eps`` or ``y = 10 cos(x) + eps`` with probability 1/2
    each, ``eps ~ N(0, 1)``.
    """
    def draw_y(x, rng):
        branch = rng.random_sample(x.size) < 0.5
        return np.where(branch, 10.0 * np.sin(x), 10.0 * np.cos(x)) + rng.standard_normal(x.size)

    return _one_dimensional_problem(n_samples, random_state, 2.0, draw_y)


_ONE_DIMENSIONAL_DOC = """
    Parameters
    ----------
    n_samples : int, default=1000
    random_state : int, RandomState or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
    y : ndarray of shape (n_samples,)
    """
make_heteroscedastic.__doc__ += _ONE_DIMENSIONAL_DOC
make_bimodal.__doc__ += _ONE_DIMENSIONAL_DOC


def _one_dimensional_problem(n_samples, random_state, half_width, draw_y):
    """``x ~ U[-half_width, half_width]`` as a column and ``y = draw_y(x, rng)``."""
    rng = check_random_state(random_state)
    x = rng.uniform(-half_width, half_width, n_samples)
    return x[:, None], draw_y(x, rng)


@validate_params({"n_documents": _COUNT, "n_topics": _COUNT, "n_words": _COUNT,
                  "document_length": [Real(0.0, None, closed="neither")],
                  "doc_topic_prior": [None, Real(0.0, None, closed="neither")],
                  "topic_word_prior": [None, Real(0.0, None, closed="neither")]})
def make_lda_corpus(n_documents=500, n_topics=5, n_words=100, document_length=100,
                    doc_topic_prior=None, topic_word_prior=None, random_state=None):
    """A corpus sampled from the LDA model (Blei, Ng & Jordan 2003).

    ``beta_k ~ Dirichlet(topic_word_prior)``, ``theta_d ~ Dirichlet(doc_topic_prior)``, each
    document's length is ``Poisson(document_length)``, and each token draws a topic from
    ``theta_d`` and a word from that topic.

    Parameters
    ----------
    n_documents, n_topics, n_words : int
    document_length : float, default=100
        Mean number of tokens per document.
    doc_topic_prior, topic_word_prior : float or None
        Symmetric Dirichlet parameters; ``None`` is ``1 / n_topics`` and ``0.1``.
    random_state : int, RandomState or None

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_documents, n_words)
        Word counts.
    doc_topic : ndarray of shape (n_documents, n_topics)
        The true ``theta_d``.
    topic_word : ndarray of shape (n_topics, n_words)
        The true ``beta_k``.
    """
    import scipy.sparse as sp

    document_length = float(document_length)
    doc_prior = 1.0 / n_topics if doc_topic_prior is None else float(doc_topic_prior)
    word_prior = 0.1 if topic_word_prior is None else float(topic_word_prior)
    rng = check_random_state(random_state)
    topic_word = rng.dirichlet(np.full(n_words, word_prior), size=n_topics)
    doc_topic = rng.dirichlet(np.full(n_topics, doc_prior), size=n_documents)
    lengths = rng.poisson(document_length, size=n_documents)
    # the counts of a document are multinomial with probabilities theta_d' beta
    word_probabilities = doc_topic @ topic_word
    word_probabilities /= word_probabilities.sum(axis=1, keepdims=True)
    counts = np.vstack([rng.multinomial(length, p)
                        for length, p in zip(lengths, word_probabilities, strict=True)])
    return sp.csr_matrix(counts.astype(float)), doc_topic, topic_word
