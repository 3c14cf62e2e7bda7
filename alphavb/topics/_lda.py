"""alpha-VB latent Dirichlet allocation (Yang, Pati & Bhattacharya 2020, Cor. 4.5 and
supplement B.3).

Model
-----
``theta_d ~ Dirichlet(a)`` (``doc_topic_prior``), ``beta_k ~ Dirichlet(eta)``
(``topic_word_prior``), ``z_dn ~ Cat(theta_d)``, ``w_dn ~ Cat(beta_{z_dn})``; the likelihood is
raised to the temperature ``alpha``. Mean field ``q(theta_d) = Dir(gamma_d)``,
``q(beta_k) = Dir(lambda_k)``, ``q(z_dn) = Cat(phi_dv)`` (tokens of one word in one document
share ``phi_dv``). Counts ``n_dv`` may be non-integer; they weight every sum.

Updates
-----------------
    phi_dvk  ∝ exp(s (Elog_theta_dk + Elog_beta_kv))        s = 1 ("alpha-vb"), alpha ("fractional")
    gamma_dk = a + alpha sum_v n_dv phi_dvk
    lambda_kv = eta + alpha sum_d n_dv phi_dvk

Objective
---------
With ``Z_dv = sum_k exp(s (Elog_theta_dk + Elog_beta^old_kv))`` the normaliser of the last
phi-update (made with the previous ``lambda``) and ``S_kv = sum_d n_dv phi_dvk``, the
expected log-likelihood plus the entropy of ``q(z)`` after the global step is exactly

    sum_dv n_dv log Z_dv + s' sum_kv S_kv (Elog_beta^new_kv - Elog_beta^old_kv)

(``s' = 1`` for "alpha-vb", ``alpha`` for "fractional"), from which the alpha-ELBO (the
paper's eq. 2.6) subtracts ``(1/alpha) [sum_d KL(Dir(gamma_d) || Dir(a))
+ sum_k KL(Dir(lambda_k) || Dir(eta))]`` and the fractional objective (:mod:`alphavb.base`,
eq. 2) subtracts the KLs unscaled.

Batch learning is CAVI on the base class's loop: each sweep restarts every document from a
random ``gamma_d`` (as scikit-learn does) and falls back to the previous ``gamma_d`` of each
document whose restart would lower the objective, so the objective never decreases. Online
learning is stochastic VI (Hoffman, Blei & Bach 2010):
``lambda <- (1 - rho_t) lambda + rho_t (eta + alpha (D / |B|) S^B)`` with
``rho_t = (learning_offset + t)^(-learning_decay)``. ``score`` and ``perplexity`` use the
usual alpha = 1 bound, as scikit-learn and gensim report it.
"""

import warnings
from dataclasses import replace
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

from .._approximation import publish_check
from .._parallel import thread_count
from .._special import dirichlet_expected_log, kl_dirichlet, optimize_symmetric_prior
from .._validation import (
    Boolean,
    Integer,
    Options,
    Real,
    bad_parameter,
    caller_stacklevel,
    validate_params,
)
from ..base import CAVIEstimator, ExactSampler, StochasticStepsMixin
from ._blocks import (
    DocumentBlocks,
    as_document_blocks,
    is_block_corpus,
)
from ._check import check_cost_share, lda_check, word_labels
from ._estep import DocumentRows, word_factors_of
from ._learning import LEARNERS
from ._state import _LDABatch, _LDAState, _Topics

# scikit-learn's start: lambda and gamma drawn from Gamma(100, 1/100)
INIT_SHAPE = 100.0


def _refuse_raw_text(owner, X):
    """A ``ValueError`` pointing to ``CountVectorizer`` when ``X`` holds documents as text."""
    first = None
    if isinstance(X, (list, tuple)) and len(X):
        first = X[0]
    elif isinstance(X, np.ndarray) and X.dtype.kind in "USO" and X.size:
        first = X.flat[0]
    holds_text = isinstance(first, (str, bytes))  # a value error: documents need counting
    if holds_text:
        raise ValueError(
            f"{owner} fits word counts, not raw text: X holds strings such as "
            f"{first[:40]!r}. Turn the documents into a document-term count matrix first, "
            "e.g. X = sklearn.feature_extraction.text.CountVectorizer().fit_transform("
            "documents).")


class AlphaLDA(StochasticStepsMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
               CAVIEstimator):
    """Latent Dirichlet allocation fitted by alpha-VB (batch CAVI or online stochastic VI).

    The likelihood of the words is raised to the temperature ``alpha`` (Yang, Pati &
    Bhattacharya 2020, Cor. 4.5); ``alpha = 1`` is the variational LDA of Blei et al. (2003)
    and of scikit-learn's ``LatentDirichletAllocation``, whose parameter names this estimator
    keeps.

    ``alpha`` here is the *temperature*, not a Dirichlet parameter: the Dirichlet priors are
    ``doc_topic_prior`` (the "alpha" of the LDA literature) and ``topic_word_prior`` ("eta").

    Parameters
    ----------
    n_components : int, default=10
        Number of topics ``K``.
    alpha : float in (0, 1], default=1.0
        The likelihood's temperature (alpha-VB): the data count as ``alpha * n`` observations;
        1 is ordinary VB. (Not BB-alpha's and AADM's ``divergence_order``.)
    objective : {"alpha-vb", "fractional"}, default="alpha-vb"
        ``"alpha-vb"``: the alpha-ELBO (the paper's eq. 2.6); ``"fractional"``: KL to the
        fractional posterior (:mod:`alphavb.base`), whose phi-update is ``exp(alpha (...))``.
    doc_topic_prior : float, default=None
        Symmetric Dirichlet parameter ``a`` of ``theta_d``; ``None`` is ``1 / n_components``.
    topic_word_prior : float, default=None
        Symmetric Dirichlet parameter ``eta`` of ``beta_k``; ``None`` is ``1 / n_components``.
    learning_method : {"batch", "online"}, default="batch"
    learning_decay, learning_offset : float, default=0.7, 10.0
        Online step ``rho_t = (learning_offset + t)^(-learning_decay)``.
    max_iter : int, default=10
        Sweeps over the corpus (batch) or passes over it (online).
    batch_size : int, default=128
        Documents per online mini-batch.
    evaluate_every : int, default=-1
        Every this many iterations, compare the objective with the previous evaluation and
        stop once it changes by at most ``tol`` times its magnitude; ``<= 0`` runs all
        ``max_iter`` iterations. Batch learning records the objective after every sweep
        anyway (``elbo_history_``); online learning evaluates it (one more E-step over the
        corpus) only at these points and at the end.
    total_samples : float, default=1e6
        Corpus size ``D`` that ``partial_fit`` scales its mini-batches to.
    max_doc_update_iter : int, default=100
        Passes of the per-document loop.
    mean_change_tol : float, default=1e-3
        The per-document loop stops when the mean absolute change of ``gamma_d`` is below it.
    tol : float, default=1e-4
        Relative change of the objective that counts as converged (see ``evaluate_every``).
    perp_tol : float, default=None
        ``None`` stops on ``tol`` (the objective this fit maximises). A float uses
        scikit-learn's rule instead: at each evaluation the training-set perplexity
        (:meth:`perplexity`, one more E-step over the corpus) is computed, and the fit stops
        when it changes by less than ``perp_tol`` (scikit-learn's default is 0.1).
    n_jobs : int, default=None
        Threads the numba kernels run on (ranges of documents in the E-step, of words in
        the statistics): ``None`` is numba's current thread count (all cores unless
        ``numba.set_num_threads`` or ``NUMBA_NUM_THREADS`` lowered it, as for the mixture),
        ``-1`` all cores, ``k`` at most ``k``. Results do not depend on it.
    optimize_priors : bool or {"topic_word", "doc_topic"}, default=False
        Empirical-Bayes updates of the symmetric ``doc_topic_prior`` and ``topic_word_prior``
        after every batch sweep (Newton / Minka fixed point); ``"topic_word"`` updates only
        the topic-word prior (the paper's Table 1 setting, with the document-topic prior
        fixed at 1/K), ``"doc_topic"`` only the document-topic prior. The resolved values are
        ``doc_topic_prior_`` and ``topic_word_prior_``.
    n_init : int, default=1
        Number of starts (random topic initialisations); the start with the best objective
        is kept. scikit-learn's ``LatentDirichletAllocation`` has one start; the posterior
        is multi-modal (on the AP corpus at alpha = 1 one seed of four ended at perplexity
        30.3 where the others reached 23.96), so several starts cost ``n_init`` fits and
        keep the best.
    warm_start : bool, default=False
        If True, ``fit`` continues from the previous fit's topics and priors (online
        learning also keeps its step count; one start).
    random_state : int, RandomState or None, default=None
    verbose : int, default=0
        Print one line per iteration, with the training perplexity at evaluations
        (scikit-learn's messages).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        ``lambda``, the Dirichlet parameters of ``q(beta_k)``, in the dtype of the ``X``
        ``fit`` saw (float32 input is fitted in float64 and the results cast back; later
        inputs are cast to that dtype first, as scikit-learn does).
    exp_dirichlet_component_ : ndarray of shape (n_components, n_features)
        ``exp(E_q[log beta_kv])``.
    doc_topic_prior_, topic_word_prior_ : float
    n_iter_ : int
    converged_ : bool
        Whether the stopping rule (``evaluate_every > 0`` with ``tol``, or ``perp_tol``) was
        met before ``max_iter``; a fit that checks the rule and does not meet it warns
        (``ConvergenceWarning``). With ``evaluate_every <= 0`` (the default, as
        scikit-learn's) no rule is checked: all ``max_iter`` iterations run, ``converged_``
        is False and nothing warns; judge convergence from ``elbo_history_``.
    n_batch_iter_ : int
        Online steps taken.
    elbo_ : float
        The objective at the end of ``fit``.
    elbo_history_ : ndarray
        The objective after each batch sweep (each evaluation for online learning).
    bound_ : float
        Training-set perplexity (alpha = 1 bound), as scikit-learn's ``bound_``.
    n_guarded_sweeps_ : int
        Batch sweeps whose random restart lowered the objective and were redone with the
        monotone safeguard (see Notes).
    approximation_check_ : ApproximationCheck or None
        ``q`` against the exact alpha-posterior by importance sampling
        (:mod:`alphavb.topics._check`): run inside ``alphavb.approximation_checks("always")``
        (None otherwise, and for a corpus in blocks; ``"auto"`` runs it only where it costs
        at most a fifth of the fit). ``q`` has ``K (V - 1) + D (K - 1)`` parameters, so the
        weights are usually rough and the check then warns that ``q`` is far from the exact
        posterior; :func:`alphavb.exact.compare_to_exact` (NUTS) gives the full comparison.

    Notes
    -----
    Each batch sweep restarts every document's ``gamma_d`` from a random point, as
    scikit-learn and lda-c do: warm-started coordinate ascent converges to markedly worse
    optima on real corpora. A restart can lower the objective, so a sweep that does is undone
    and redone keeping each document's previous ``gamma_d`` unless the restart is at least as
    good for that document; the recorded objective therefore never decreases.

    Choosing alpha: the words count as ``alpha`` times their number; see "Choosing alpha" in
    :mod:`alphavb.base` (and the README) before tuning it, and compare held-out perplexity,
    not ``elbo_``, across values.

    Examples
    --------
    >>> from alphavb import AlphaLDA
    >>> from alphavb.datasets import make_lda_corpus
    >>> X, doc_topic, topic_word = make_lda_corpus(n_documents=200, n_topics=3,
    ...                                            n_words=30, random_state=0)
    >>> lda = AlphaLDA(n_components=3, alpha=0.5, max_iter=50, random_state=0).fit(X)
    >>> lda.transform(X[:2]).shape
    (2, 3)
    >>> bool(all(a <= b for a, b in zip(lda.elbo_history_, lda.elbo_history_[1:])))
    True
    """

    # what alphavb.exact and AlphaSelector ask of the model (base.ExactSampler, KINDS)
    _exact_sampler: ClassVar[ExactSampler] = ExactSampler(
        "_topics", "sample_lda", rows="topic_rows")
    _model_kind: ClassVar[str] = "topic_model"

    def __init__(self, n_components=10, *, alpha=1.0, objective="alpha-vb",
                 doc_topic_prior=None, topic_word_prior=None, learning_method="batch",
                 learning_decay=0.7, learning_offset=10.0, max_iter=10, batch_size=128,
                 evaluate_every=-1, total_samples=1e6, max_doc_update_iter=100,
                 mean_change_tol=1e-3, tol=1e-4, perp_tol=None, optimize_priors=False,
                 n_init=1, warm_start=False, n_jobs=None, random_state=None, verbose=0):
        self.n_components = n_components
        self.alpha = alpha
        self.objective = objective
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.learning_method = learning_method
        self.learning_decay = learning_decay
        self.learning_offset = learning_offset
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.evaluate_every = evaluate_every
        self.total_samples = total_samples
        self.max_doc_update_iter = max_doc_update_iter
        self.mean_change_tol = mean_change_tol
        self.tol = tol
        self.perp_tol = perp_tol
        self.optimize_priors = optimize_priors
        self.n_init = n_init
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    # a warm start after one of these changed starts cold (CAVIEstimator._continues)
    _state_parameters: ClassVar[tuple] = ("n_components",)
    _parameter_constraints: ClassVar[dict] = {
        **CAVIEstimator._parameter_constraints,
        "n_components": [Integer(1, None)],
        "doc_topic_prior": [None, Real(0, None, closed="neither")],
        "topic_word_prior": [None, Real(0, None, closed="neither")],
        "learning_method": [Options(*LEARNERS)],
        "learning_decay": [Real(0.5, 1, closed="right")],
        "learning_offset": [Real(0, None)],
        "batch_size": [Integer(1, None)],
        "evaluate_every": [Integer(None, None)],
        "total_samples": [Real(0, None, closed="neither")],
        "max_doc_update_iter": [Integer(1, None)],
        "mean_change_tol": [Real(0, None)],
        "optimize_priors": [Boolean(), Options("topic_word", "doc_topic")],
        "perp_tol": [None, Real(0, None)],
        "n_jobs": [None, Integer(None, None)],
    }
    _parameter_hints: ClassVar[dict] = {
        **CAVIEstimator._parameter_hints,
        "learning_decay": "Online steps must satisfy Robbins-Monro.",
    }
    # scikit-learn's LatentDirichletAllocation counts n_batch_iter_ from 1
    _batch_iter_start = 1

    def _check_counts(self, X, reset):
        """Validated counts as a row source: in memory, float64 CSR (the kernels' precision)
        in :class:`~alphavb.topics._estep.DocumentRows`. A fit (``reset``) accepts float64
        and float32 and records the dtype its results are cast back to; later inputs are
        first cast to that dtype, as scikit-learn does. A dask array of CSR blocks (or a list
        of blocks) becomes :class:`~alphavb.topics._blocks.DocumentBlocks`, read block by
        block on the workers (float64 results). A row source is returned as it is."""
        if isinstance(X, (DocumentRows, DocumentBlocks)):
            return X
        _refuse_raw_text(type(self).__name__, X)
        if is_block_corpus(X):
            corpus = as_document_blocks(type(self).__name__, X,
                                        None if reset else self.n_features_in_)
            if reset:
                self.n_features_in_ = corpus.shape[1]
                self._output_dtype = np.dtype(np.float64)
            return corpus
        dtype = [np.float64, np.float32] if reset else self.components_.dtype
        X = validate_data(self, X, accept_sparse="csr", dtype=dtype, reset=reset)
        check_non_negative(X, f"{type(self).__name__} (X must hold word counts >= 0)")
        if reset:
            self._output_dtype = X.dtype
        # a copy where the kernels' canonical form (sorted, summed duplicates) would
        # otherwise be made in place in the caller's matrix
        return DocumentRows(sp.csr_matrix(X, dtype=np.float64,
                                          copy=sp.issparse(X) and not X.has_canonical_format))

    @property
    def _scale(self):
        """Exponent factor of the phi-update: alpha for "fractional", 1 otherwise."""
        return float(self.alpha) if self.objective == "fractional" else 1.0

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    # ------------------------------------------------------------------ the steps

    def _topics(self, components, doc_topic_prior, topic_word_prior):
        """``q(beta) = Dir(components)`` with what the E-step reads from it."""
        elog_beta = dirichlet_expected_log(components)
        exp_elog_beta = np.exp(elog_beta)
        word_factors = (np.ascontiguousarray(exp_elog_beta.T) if self._scale == 1.0
                        else word_factors_of(elog_beta, self._scale))
        return _Topics(components, elog_beta, exp_elog_beta, word_factors, doc_topic_prior,
                       topic_word_prior)

    def _initial_topics(self, n_features, random_state):
        """scikit-learn's start: ``lambda`` drawn from Gamma(100, 1/100); the priors resolved."""
        n_topics = self.n_components
        components = random_state.gamma(INIT_SHAPE, 1.0 / INIT_SHAPE, (n_topics, n_features))
        doc_topic_prior, topic_word_prior = (
            1.0 / n_topics if value is None else float(value)
            for value in (self.doc_topic_prior, self.topic_word_prior))
        return self._topics(components, doc_topic_prior, topic_word_prior)

    def _document_step(self, documents, gamma, topics, fresh_gamma=None):
        """The E-step of the row source ``documents`` (``gamma`` updated in place): ``S``
        (K, V) and ``sum_dv n_dv log Z_dv``."""
        kl_weight = 1.0 if self.objective == "fractional" else 1.0 / self.alpha
        settings = {"doc_topic_prior": topics.doc_topic_prior, "alpha": float(self.alpha),
                    "scale": self._scale, "max_doc_update_iter": self.max_doc_update_iter,
                    "mean_change_tol": self.mean_change_tol, "kl_weight": kl_weight,
                    "n_threads": thread_count(self.n_jobs, type(self).__name__)}
        return documents.e_step(gamma, topics.word_factors, settings, fresh_gamma)

    def _objective(self, log_norm, statistics, old_elog_beta, gamma, topics):
        """The exact objective after the global step (module docstring)."""
        fractional = self.objective == "fractional"
        data = log_norm + (self.alpha if fractional else 1.0) * np.sum(
            statistics * (topics.elog_beta - old_elog_beta))
        kl = (np.sum(kl_dirichlet(gamma, topics.doc_topic_prior))
              + np.sum(kl_dirichlet(topics.components, topics.topic_word_prior)))
        return float(data - (kl if fractional else kl / self.alpha))

    def _batch_sweep(self, documents, topics, gamma, fresh_gamma=None):
        """One CAVI sweep: every document's (phi, gamma), then lambda (and the priors).

        ``gamma`` is updated in place. With ``fresh_gamma`` (a random start per document),
        a document moves to the end point of the restart only if that is at least as good
        as its previous ``gamma_d`` (``lda_document_step``). Returns the new topics and the
        objective.
        """
        statistics, log_norm = self._document_step(documents, gamma, topics, fresh_gamma)
        new = self._topics(topics.topic_word_prior + self.alpha * statistics,
                           topics.doc_topic_prior, topics.topic_word_prior)
        n_topics, n_words = new.components.shape
        if self.optimize_priors in (True, "topic_word"):
            new = replace(new, topic_word_prior=optimize_symmetric_prior(
                new.topic_word_prior, np.sum(new.elog_beta), n_topics, n_words))
        if self.optimize_priors in (True, "doc_topic"):
            new = replace(new, doc_topic_prior=optimize_symmetric_prior(
                new.doc_topic_prior, np.sum(dirichlet_expected_log(gamma)), gamma.shape[0],
                n_topics))
        return new, self._objective(log_norm, statistics, topics.elog_beta, gamma, new)

    def _random_gamma(self, n_documents, random_state):
        """scikit-learn's random start of the documents' ``gamma``: Gamma(100, 1/100) draws."""
        return random_state.gamma(INIT_SHAPE, 1.0 / INIT_SHAPE,
                                  (n_documents, self.n_components))

    # ------------------------------------------------------------------ batch CAVI hooks

    def _check_every(self):
        return max(self.evaluate_every, 0)

    def _stopping_value(self, data, state, objective):
        if self.perp_tol is None:
            return objective
        return self._training_perplexity(data.documents, state.topics)

    def _has_converged(self, current, previous):
        if self.perp_tol is None:
            return super()._has_converged(current, previous)
        return abs(current - previous) < self.perp_tol

    def _training_perplexity(self, documents, topics):
        """scikit-learn's perplexity of the training ``documents`` under ``topics`` (nan for
        a corpus without words)."""
        document_part, topic_part, n_words = self._bound_of(documents, topics)
        return (float(np.exp(-(document_part + topic_part) / n_words)) if n_words
                else float("nan"))

    # scikit-learn's LatentDirichletAllocation prints one line per iteration, with the
    # training perplexity at evaluations, and nothing at the start or end of a fit

    def _report_start(self, start):
        pass

    def _report_end(self, converged, seconds, objective):
        pass

    def _report_sweep(self, data, state, sweep, change, tracked, seconds):
        if not self.verbose:
            return
        line = f"iteration: {sweep} of max_iter: {self.max_iter}"
        if tracked is not None:
            perplexity = (tracked if self.perp_tol is not None
                          else self._training_perplexity(data.documents, state.topics))
            line += f", perplexity: {perplexity:.4f}"
        print(line)

    def _initialize(self, data, random_state, start, previous=None):
        return data.initialize(self, random_state, previous)

    def _cavi_step(self, data, state):
        """One batch sweep that never lowers the objective; online, one pass of stochastic VI
        over the mini-batches (its objective is evaluated only where the loop checks it).

        The sweep first restarts every document from a random ``gamma_d`` (scikit-learn's
        E-step, which escapes the poor optima that warm-started coordinate ascent settles
        in). If that lowers the objective below the previous sweep's, it is discarded and the
        sweep is made again from the previous state, each document kept at its previous
        ``gamma_d`` unless the restart is at least as good for it (``lda_document_step``),
        which cannot lower the objective. ``data`` is the learning strategy
        (:mod:`alphavb.topics._learning`), which makes the sweep.
        """
        return data.step(self, state)

    def _set_parameters(self, state):
        topics = state.topics
        dtype = getattr(self, "_output_dtype", np.float64)
        self.components_ = topics.components.astype(dtype, copy=False)
        self.exp_dirichlet_component_ = topics.exp_elog_beta.astype(dtype, copy=False)
        self.doc_topic_prior_ = topics.doc_topic_prior
        self.topic_word_prior_ = topics.topic_word_prior
        self.n_guarded_sweeps_ = state.n_guarded_sweeps

    # ------------------------------------------------------------------ stochastic VI hooks

    def _batch_data(self, X, reset):
        return _LDABatch(self._check_counts(X, reset=reset), float(self.total_samples))

    def _first_batch_state(self, data, random_state):
        return _LDAState(self._initial_topics(data.documents.shape[1], random_state), None,
                         None)

    def _stochastic_step(self, data, state, step, random_state):
        """``lambda <- (1 - rho) lambda + rho (eta + alpha (D / |B|) S^B)`` (module docstring)."""
        topics = state.topics
        documents = data.documents
        gamma = self._random_gamma(documents.shape[0], random_state)
        # a mini-batch in blocks (a dask array of CSR blocks, a list of them) is read block
        # by block on the workers, as a batch fit's corpus is
        statistics, _ = self._document_step(documents, gamma, topics)
        target = (topics.topic_word_prior
                  + self.alpha * (data.total_samples / documents.shape[0]) * statistics)
        components = (1.0 - step) * topics.components + step * target
        if not np.all(np.isfinite(components)):
            raise FloatingPointError(
                f"{type(self).__name__}: the online topic update overflowed float64 (counts up to "
                f"{documents.largest_count:.3g} in X, scaled by total_samples / batch size = "
                f"{data.total_samples / documents.shape[0]:.3g}). Rescale the counts of X.")
        return replace(state, topics=self._topics(components, topics.doc_topic_prior,
                                                  topics.topic_word_prior))

    def _evaluate(self, data, state):
        """The objective of ``q(beta) = state.topics`` with each document's q fitted to it
        (online learning: after the passes the loop checks)."""
        gamma = self._random_gamma(data.documents.shape[0], state.random_state)
        statistics, log_norm = self._document_step(data.documents, gamma, state.topics)
        return self._objective(log_norm, statistics, state.topics.elog_beta, gamma,
                               state.topics)

    def _final_objective(self, data, state, converged):
        """Online learning that did not converge ends with the final topics' objective."""
        return data.final_objective(self, state, converged)

    # ------------------------------------------------------------------ public API

    def fit(self, X, y=None):
        """Learn the topics from the document-term counts ``X`` (n_documents, n_words).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Word counts (non-negative; non-integer values act as weights). A sparse input is
            never densified; dense input is converted to CSR.
        y : ignored

        Returns
        -------
        self
        """
        self._validate_params()
        documents = self._check_counts(X, reset=not self._continues())
        if not documents.in_memory and self.learning_method != "batch":
            raise bad_parameter(type(self).__name__, "learning_method",
                                "'batch' for a corpus in blocks", self.learning_method,
                                "For online learning call partial_fit on each block.")
        self._fit_cavi(LEARNERS[self.learning_method](documents))
        if self.learning_method == "batch":  # online learning counts its steps
            self.n_batch_iter_ = self._batch_iter_start
        if documents.word_count > 0:
            try:
                self.bound_ = self.perplexity(documents)
            except ValueError as error:  # not counts: the fit stands, its perplexity does not
                warnings.warn(f"{error} bound_ is nan.", UserWarning,
                              stacklevel=caller_stacklevel())
                self.bound_ = float("nan")
        else:  # no words: the topics are the prior, and a per-word perplexity is undefined
            warnings.warn(f"{type(self).__name__}: X has no words (all counts are 0); the "
                          "fitted topics are the prior and bound_ (the per-word perplexity) "
                          "is nan.",
                          UserWarning, stacklevel=caller_stacklevel())
            self.bound_ = float("nan")
        publish_check(self, lambda: lda_check(self, documents,
                                              check_random_state(self.random_state)),
                      cost_share=check_cost_share(self))
        return self

    def partial_fit(self, X, y=None):
        """One online (stochastic VI) step on the mini-batch ``X``, scaled to
        ``total_samples`` documents. The first call initialises the topics. ``X`` may be
        in blocks (a dask array of CSR blocks or a list of them), as for :meth:`fit`.

        Returns
        -------
        self
        """
        return self._partial_fit(X)

    def _doc_topic_parameters(self, X):
        """``gamma`` of each document of ``X``: its ``q(theta_d) = Dir(gamma_d)`` fitted from
        ``gamma_d = 1`` under the fitted topics."""
        check_is_fitted(self)
        documents = self._check_counts(X, reset=False)
        gamma = np.ones((documents.shape[0], self.components_.shape[0]))
        self._document_step(documents, gamma, self._get_parameters().topics)
        return gamma

    def transform(self, X, *, normalize=True):
        """Normalised ``E_q[theta_d]`` of each document (``gamma_d / sum_k gamma_dk``), or
        with ``normalize=False`` the Dirichlet parameters ``gamma_d`` of ``q(theta_d)``
        (scikit-learn's ``normalize``).

        Each document's ``(phi, gamma)`` loop is run from ``gamma_d = 1`` with the fitted
        topics and the fitted objective (so ``gamma_d = a + alpha sum_v n_dv phi_dv``).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        gamma = self._doc_topic_parameters(X)
        if normalize:
            gamma = gamma / gamma.sum(axis=1, keepdims=True)
        return gamma.astype(self.components_.dtype, copy=False)

    @validate_params({"n_samples": [Integer(1, None)]})
    def sample_posterior(self, n_samples=1, random_state=None):
        """Draws of the topics from ``q(beta_k) = Dirichlet(components_k)``.

        Parameters
        ----------
        n_samples : int, default=1
        random_state : int, RandomState or None, default=None

        Returns
        -------
        dict
            ``"topic_word"``: ndarray of shape (n_samples, n_components, n_features), each
            row a distribution over the vocabulary. (A document's ``theta_d`` has the
            posterior ``Dirichlet(gamma_d)``, ``gamma = transform(X, normalize=False)``.)
        """
        check_is_fitted(self)
        rng = check_random_state(random_state)
        draws = rng.standard_gamma(np.broadcast_to(self.components_,
                                                   (n_samples, *self.components_.shape)))
        return {"topic_word": draws / draws.sum(axis=-1, keepdims=True)}

    def _draw_dimensions(self, draws, features):
        """ArviZ's dimensions of the topics' and the documents' draws
        (:mod:`alphavb.inference_data`)."""
        return ({"topic_word": ["topic", "word"], "doc_topic": ["document", "topic"]},
                {"topic": np.arange(self.n_components), "word": word_labels(self)})

    def score(self, X, y=None):
        """The alpha = 1 variational bound of ``X`` with the fitted topics (scikit-learn's
        ``score``: the documents' part of :func:`heldout_perplexity` plus
        ``-sum_k KL(q(beta_k) || Dir(eta))``)."""
        documents, topics, _ = self._bound(X)
        return documents + topics

    @validate_params({"sub_sampling": [Boolean()]})
    def perplexity(self, X, sub_sampling=False):
        """Per-word perplexity ``exp(-score(X) / sum(X))`` (scikit-learn's definition, which
        counts the topics' KL once whatever ``X`` is; see :func:`heldout_perplexity` for the
        documents-only version).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        sub_sampling : bool, default=False
            Treat ``X`` as a sample of a corpus of ``total_samples`` documents: the
            documents' part of the bound and the word count are both scaled by
            ``total_samples / n_samples`` (scikit-learn's option, used in online learning).

        Returns
        -------
        float
        """
        check_is_fitted(self)
        rows = self._check_counts(X, reset=False)
        documents, topics, n_words = self._bound_of(rows, self._get_parameters().topics)
        if n_words == 0:
            raise ValueError(f"{type(self).__name__}.perplexity: X has no words (all counts "
                             "are 0), so the perplexity per word is undefined. Pass documents "
                             "with words.")
        ratio = float(self.total_samples) / rows.shape[0] if sub_sampling else 1.0
        with np.errstate(over="ignore"):
            value = float(np.exp(-(ratio * documents + topics) / (ratio * n_words)))
        if not 1.0 <= value < np.inf:  # a per-word perplexity of counts is in [1, inf)
            raise ValueError(
                f"{type(self).__name__}.perplexity is {value:.3g}, outside [1, inf): X's "
                f"{ratio * n_words:.3g} words are too few for a per-word perplexity (the "
                "topics' KL is counted once, as scikit-learn counts it, and divided by the "
                "word count) or are not counts. Pass documents of word counts, or use "
                "alphavb.topics.heldout_perplexity (documents only).")
        return value

    def _bound(self, X):
        check_is_fitted(self)
        return self._bound_of(self._check_counts(X, reset=False),
                              self._get_parameters().topics)

    def _bound_of(self, documents, topics):
        """The alpha = 1 bound's documents part, topics part and word count of the row
        source ``documents`` under ``topics``."""
        return documents.bound(topics, self.max_doc_update_iter, self.mean_change_tol,
                               thread_count(self.n_jobs, type(self).__name__))

    @validate_params({"n": [Integer(1, None)]})
    def top_words(self, feature_names, n=10):
        """The ``n`` most probable words of each topic under ``E_q[beta_k]``.

        Parameters
        ----------
        feature_names : sequence of str of length n_features
        n : int, default=10

        Returns
        -------
        list of n_components lists of ``n`` words, most probable first
        """
        check_is_fitted(self)
        names = np.asarray(feature_names)
        if names.shape != (self.components_.shape[1],):
            raise bad_parameter(type(self).__name__, "feature_names",
                                 f"a sequence of {self.components_.shape[1]} words",
                                 f"length {len(names)}")
        order = np.argsort(-self.components_, axis=1, kind="stable")[:, :n]
        return [[str(word) for word in names[row]] for row in order]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
