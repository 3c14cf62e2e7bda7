"""LDA's two ways of learning the topics in ``fit``, as the strategies the CAVI loop runs
(:class:`~alphavb.base.CAVIEstimator`): ``learning_method="batch"`` (coordinate ascent over
the whole corpus, each sweep guarded so that the objective never decreases) and
``"online"`` (stochastic VI, Hoffman, Blei & Bach 2010: a sweep is one pass over the
mini-batches). Each holds the corpus the fit runs on and answers the loop's questions for
its method: the starting state, one sweep, the objective appended when the loop ends and
what ``max_iter`` counts. The math they call (the documents' step, the topics' updates) is
the estimator's (:mod:`alphavb.topics._lda`)."""

from dataclasses import dataclass, replace

from sklearn.utils import gen_batches

from ._state import _LDABatch, _LDAState


@dataclass(frozen=True)
class BatchLearning:
    """Coordinate ascent on the whole corpus (``documents``, a row source in memory or in
    dask blocks)."""

    documents: object
    sweep_name = "sweeps"

    def initialize(self, model, random_state, previous):
        """The topics of ``previous`` (a warm start) or random ones, and a random start of
        every document's ``gamma``."""
        topics = (previous.topics if previous is not None
                  else model._initial_topics(self.documents.shape[1], random_state))
        return _LDAState(topics, model._random_gamma(self.documents.shape[0], random_state),
                         random_state)

    def step(self, model, state):
        """One sweep that never lowers the objective (:meth:`AlphaLDA._cavi_step`): from a
        random restart of every document's ``gamma``, or, where that lowers the objective,
        again from the previous ``gamma`` keeping each document's better start."""
        fresh = model._random_gamma(self.documents.shape[0], state.random_state)
        restarted = fresh.copy()
        topics, value = model._batch_sweep(self.documents, state.topics, restarted)
        if state.objective is None or value >= state.objective:
            return _LDAState(topics, restarted, state.random_state, value,
                             state.n_guarded_sweeps), value
        topics, value = model._batch_sweep(self.documents, state.topics, state.gamma, fresh)
        return _LDAState(topics, state.gamma, state.random_state, value,
                         state.n_guarded_sweeps + 1), value

    def final_objective(self, model, state, converged):
        """Nothing: every sweep recorded its objective."""
        return None


@dataclass(frozen=True)
class OnlineLearning:
    """Stochastic VI on an in-memory corpus (``documents``): a sweep is one pass over its
    mini-batches of ``batch_size`` documents, each scaled to the corpus size."""

    documents: object
    sweep_name = "passes"

    def initialize(self, model, random_state, previous):
        """The fitted topics and step count go on (a warm start); else the first mini-batch
        state and the step count restarted."""
        if previous is None:
            previous = model._first_batch_state(
                _LDABatch(self.documents, float(self.documents.shape[0])), random_state)
            model.n_batch_iter_ = model._batch_iter_start
        return replace(previous, random_state=random_state)

    def step(self, model, state):
        """One pass of stochastic steps over the mini-batches; its objective is evaluated
        only where the loop checks it (``None``)."""
        n_documents = self.documents.shape[0]
        for batch in gen_batches(n_documents, model.batch_size):
            state = model._take_step(_LDABatch(self.documents.take(batch), float(n_documents)),
                                     state, state.random_state)
        return state, None

    def final_objective(self, model, state, converged):
        """A fit that did not converge ends with the final topics' objective."""
        return None if converged else model._evaluate(self, state)


LEARNERS = {"batch": BatchLearning, "online": OnlineLearning}
