r"""Choosing alpha from the data: SafeBayes, calibration, information matching and CV.

:class:`AlphaSelector` wraps an alphavb estimator, scores every ``alpha`` of a grid by one of
four criteria, picks the best and refits on all the data, as ``GridSearchCV`` does.

* ``"safebayes"`` (R-log-SafeBayes; Grünwald & van Ommen 2017, Bayesian Analysis 12,
  Sec. 4) and ``"safebayes-ilog"`` (I-log): the cumulative prequential log loss of the
  alpha-posterior on the data in their order, each row predicted from the fit to the rows
  before it. R-log averages the row's log loss over ``q``, I-log plugs in the posterior
  mean; the losses of each kind of model are written out in
  :mod:`alphavb.model_selection._model_kinds` (Gaussian and logistic regression, a mixture's
  points, LDA's documents by their variational bound). For
  :class:`~alphavb.AlphaLinearRegression` every prefix is fitted exactly and cheaply: the
  CAVI fixed point on a prefix depends on the data only through its centred sufficient
  statistics, and with one eigendecomposition of the whitened Gram matrix per prefix (shared
  by every alpha) each CAVI sweep costs O(d): the pass costs O(n d^3) in all, and agrees
  with refitting the estimator on every prefix to the estimator's stopping tolerance, not
  exactly (tested to 1e-5 at ``tol=1e-14``; at the default ``tol`` the largest relative
  difference of a loss was 7e-6 under the default prior and 6e-5 under
  ``coef_prior="independent"`` on 40 rows). Every other estimator is refitted,
  warm-started, on prefixes of geometrically growing length (factor ``prefix_growth``),
  each scoring the block of rows up to the next prefix: about ``log(n / min_prefix) /
  log(prefix_growth)`` fits per alpha (``n_fits_``).
* ``"information"`` (Holmes & Walker 2017, Biometrika 104; Lyddon, Holmes & Walker 2019,
  Biometrika 106, Sec. 3): ``alpha = tr(J I^{-1} J) / tr(J)`` with ``J`` the mean Hessian of
  the negative log-likelihood and ``I`` the mean outer product of the per-row scores at the
  maximum-likelihood estimate (:mod:`alphavb.model_selection._information`): closed forms
  for Gaussian regression (the noise variance profiled out) and logistic regression
  (Newton's method), autograd for the Gaussian mixture; not for LDA. No posterior fits
  (one alpha = 1 fit to start the mixture's); 1 for a correct model in large samples;
  capped at 1.
* ``"calibrate"`` (Syring & Martin 2019, Biometrika 106): the alpha whose ``level``
  credible intervals cover the full-data estimate (the posterior mean at alpha = 1) at the
  rate ``level`` over ``n_bootstrap`` bootstrap resamples, coverage averaged over the
  parameters; the same resamples at every alpha, bisection on log alpha between the
  grid's ends (``calibration_steps`` halvings; alpha = 1 when it already covers):
  ``n_bootstrap x (2 + calibration_steps)`` fits. Where the smallest alpha misses the level
  too (a spike-and-slab ``q`` at a small alpha drops its variables, so coverage falls
  again), the bisection runs between the first grid alpha from the top that reaches the
  level and the one above it: ``n_bootstrap x (len(alphas) + calibration_steps)`` fits at
  most; with none, the alpha of the highest coverage among those whose fit keeps the alpha
  = 1 fit's selections (when every alpha of a grid without 1 drops them, the grid's largest)
  and a UserWarning (:mod:`~alphavb.model_selection._calibration`). The parameters are the
  coefficients (regressions, classifiers), the component means of the components the
  alpha = 1 fit uses (mixture; each resample's components matched to them by least squares)
  and the topic-word probabilities (LDA; topics matched by Hellinger distance), with the
  estimator's own intervals (:mod:`alphavb.simulation`'s ``estimates``). For
  :class:`~alphavb.AlphaSuSiE` the regions are its credible sets of variables: SuSiE is
  fitted at alpha = 1, and SuSiE-inf ascended from it with its variances at their best;
  when the background raises the objective by more than ``log(n) / 2`` the replicates of
  the response come from the estimator's SuSiE-inf fit at alpha = 1 (one more fit) and the
  estimator is calibrated with its background, else from the SuSiE fit and SuSiE is
  calibrated without one (``n_bootstrap`` replicates, 10 when None, shared by every alpha);
  the grid is scanned from the top for the first alpha whose sets, pooled over the
  replicates, hold a causal variable no less often than ``level`` explains (a one-sided
  binomial test; :mod:`alphavb.linear_model._susie_calibration`): ``2 (+ 1) + n_bootstrap
  x (alphas tried)`` fits.
* ``"cv"``: ``cv``-fold held-out log predictive density of ``q`` (Monte Carlo over 200 draws
  of ``sample_posterior`` for a regressor, ``log predict_proba`` for a classifier,
  ``score_samples`` for a mixture, the document bound for LDA), the baseline; McLatchie et
  al. (2024) show it goes flat in alpha at moderate n.
"""

from ._information import information_alpha
from ._prequential import linear_prequential_losses, prefix_schedule, refit_prequential_losses
from ._selector import METHODS, AlphaSelector, default_alphas

__all__ = ["METHODS", "AlphaSelector", "default_alphas", "information_alpha",
           "linear_prequential_losses", "prefix_schedule", "refit_prequential_losses"]
