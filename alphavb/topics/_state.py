"""The values an LDA fit passes between its steps (:mod:`alphavb.topics._lda`): ``q(beta)``
with its expectations and the priors, the fit's state, and the corpora a sweep reads (the
whole corpus, an online pass over it, one mini-batch)."""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


@dataclass(frozen=True)
class _Topics:
    """``q(beta) = Dir(components)``: ``E[log beta]``, ``exp E[log beta]``, the kernels'
    vocabulary-major factors ``exp(s E[log beta])``, and the two (possibly learned) priors."""

    components: np.ndarray
    elog_beta: np.ndarray
    exp_elog_beta: np.ndarray
    word_factors: np.ndarray
    doc_topic_prior: float
    topic_word_prior: float


@dataclass(frozen=True)
class _LDAState:
    """The topics, each document's ``gamma_d`` (batch learning), the random stream of the
    restarts, the last sweep's objective and how many sweeps the monotone guard redid."""

    topics: _Topics
    gamma: np.ndarray | None
    random_state: np.random.RandomState | None
    objective: float | None = None
    n_guarded_sweeps: int = 0


class _LDABatch(NamedTuple):
    """A mini-batch (a row source) and the corpus size ``D`` its statistics are scaled to."""

    documents: object
    total_samples: float
