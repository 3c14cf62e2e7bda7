r"""Simulation studies: grids x replications in parallel, their performance measures, and
the paper's risk rates.

:func:`run_study` fits an estimator to data simulated from a :class:`Problem` at every point
of a grid (sample size, ``alpha``, any estimator or problem parameter) and replication, and
records per fit the variational Bayes risk of :mod:`alphavb.risk`, the error of the point
estimate, the fit's diagnostics and its status (a failed fit is a row, not the end of the
study), and per fit and parameter the estimate, posterior sd, credible interval and truth.
:func:`summarise_study` turns those into the performance measures of a methods paper (bias,
empirical and model SE, coverage, ... each with its Monte Carlo standard error, as R's
rsimsum). :func:`fit_rate` regresses log risk on log n to estimate the rate the paper's
corollaries predict (Yang, Pati & Bhattacharya 2020, Cor. 4.1-4.5):

    risk ~ C / min(alpha, 1 - alpha) * c log(d n) / n,

with ``c = d`` for a regular ``d``-parameter model (Cor. 4.1, 4.3, D.1), ``c = s`` non-zero
coefficients out of ``d`` (Cor. 4.2) and ``c = d K`` for a ``K``-component mixture in
``R^d`` (Cor. 4.4); its log-log slope is ``-1 + 1 / log(d n)``, a little above -1.

Reproducibility
---------------
Every fit draws its data, its estimator's ``random_state`` and its risk's Monte-Carlo
draws from ``numpy.random.SeedSequence(random_state, spawn_key=(replication, key))``, where
``key`` is a hash of the data-generating parameters (the sample size and the problem's
grid parameters). So a result does not depend on ``n_jobs``, on the order of the grid, on
which other grid points are run, or on how the study is split into shards; and fits that
differ only in estimator parameters (e.g. ``alpha``) see the same data and seeds (common
random numbers: their differences are paired). :func:`study_cell` replays one cell.

Caching
-------
With ``cache_dir``, each fit's record (its row and its estimates, failed fits included) is
written (atomically) to the :mod:`alphavb.cache` result cache under a content hash of
everything that determines it (problem, its settings and the code of its functions,
alphavb's version, estimator class and parameters, array parameters by their bytes, grid
point, replication, seed, risk settings, interval level) as soon as the fit ends; a re-run
reads those rows, checking each one, and computes only the missing, unreadable or rejected
rows, so an interrupted study resumes where it stopped, and the shards of an array job
(``shard=(k, K)``) fill one folder that :func:`collect_study` assembles.
"""

from .._estimates import coefficient_estimates, mixture_mean_estimates, topic_word_estimates
from ._problems import (
    PROBLEMS,
    Problem,
    gaussian_mixture_problem,
    lda_problem,
    linear_regression_problem,
    logistic_regression_problem,
    spike_slab_problem,
)
from ._rates import bound_slope, fit_rate, rate_normalized_risk, theoretical_rate
from ._runner import StudyCell, collect_study, run_study, study_cell
from ._summary import summarise_study

__all__ = [
    "PROBLEMS",
    "Problem",
    "StudyCell",
    "bound_slope",
    "coefficient_estimates",
    "collect_study",
    "fit_rate",
    "gaussian_mixture_problem",
    "lda_problem",
    "linear_regression_problem",
    "logistic_regression_problem",
    "mixture_mean_estimates",
    "rate_normalized_risk",
    "run_study",
    "spike_slab_problem",
    "study_cell",
    "summarise_study",
    "theoretical_rate",
    "topic_word_estimates",
]


def __dir__():
    return sorted(__all__)
