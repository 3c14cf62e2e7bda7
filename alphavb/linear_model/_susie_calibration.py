"""The choice of alpha for alpha-SuSiE's credible sets, per locus, from the data: a
parametric bootstrap from the fitted model, background included.

The generalized-posterior calibration of Syring & Martin (2019, Biometrika 106:479) picks
the learning rate whose credible regions cover at their nominal level in bootstrap
replicates of the data; here the regions are SuSiE's credible sets of variables and the
replicates are drawn from the model fitted at alpha = 1, with an infinitesimal background
(SuSiE-inf, :mod:`alphavb.linear_model._susie_inf`: the fine-mapper's model of a locus
with a polygenic background) where the data give evidence for one (below):

    b* ~ q(b) of the kept single effects (one variable and its effect per effect),
    theta* ~ N(0, tau2 I),   y* = Z (b* + theta*) + e*,   e* ~ N(0, sigma2 I),

on the standardized columns ``Z`` (``sigma2``, ``tau2`` of the reference fit). The causal
variables of a replicate are those of ``b*``, and those of the background whose
``theta*_j`` a marginal test at the Bonferroni level ``0.05 / p`` would detect with power
at least 0.8 (non-centrality ``n theta*_j^2 Var(z_j) / sigma2``; SuSiE 2.0's simulations
count causal variants so): a set on the rest of the background is a miss. A credible set
covers when it holds a causal variable.

Which model the replicates come from, and which is calibrated, is decided first, by the
evidence for a background. SuSiE-inf's objective ``F`` (:mod:`~alphavb.linear_model.
_susie_inf`) is a lower bound on the marginal likelihood of the model with ``theta``, and
at ``tau2 = 0`` it is SuSiE's; ascended from SuSiE's fit at alpha = 1 with ``(sigma2,
tau2)`` maximising it (``residual_variance_method="mle"``), it ends at least as high as
SuSiE's, and the difference is what the one more variance buys; it must beat Schwarz's
(1978) ``log(n) / 2`` to count. (The method of moments' variances, SuSiE-inf's default,
need not maximise ``F``: its value there is no evidence.) With it, the replicates come from
the estimator's own SuSiE-inf fit at alpha = 1 and the estimator is calibrated with its
background (``unmappable_effects="inf"`` or ``"ash"``; an estimator without one is
calibrated without it). Without it, the locus is treated as sparse: the replicates come
from the SuSiE fit (``tau2 = 0``) and SuSiE is calibrated without a background. (A
SuSiE-inf fit that misses a sparse effect, and so inflates ``tau2``, is not the evidence:
starting from SuSiE's effects, the background adds little where they explain the data.)

The alphas of the grid are then tried from the largest down: the model is fitted to every
replicate and the coverage pooled over their credible sets is compared with the level; the
first alpha whose sets show no evidence of covering less often is chosen (a one-sided
binomial test of "coverage >= level" at ``SIGNIFICANCE``: with a few sets per replicate,
one miss in ten sets is what a coverage of 0.95 gives four times in ten, and a point
estimate would lower alpha for it). The replicates are the same for every alpha (common
random numbers).
"""

import warnings
from typing import NamedTuple

import numpy as np

from .._validation import bad_parameter, caller_stacklevel
from .._warnings import quietly

# the one-sided binomial test's level: an alpha is kept unless its sets' misses in the
# replicates are this unlikely under a coverage of ``level``
SIGNIFICANCE = 0.05
# a binomial probability within this relative distance of SIGNIFICANCE is a tie (it rejects)
TIE_TOLERANCE = 1e-9
# the version of the rule, for caches of results that depend on it
RULE = "binomial-0.05-detectable-v1"
# what the benchmark's cached selections depend on beyond that (the causal variables of a
# replicate, the background chosen by its evidence, and, from "-cycles-linear-v", SuSiE-inf's
# fits stopping on a cycle of their probabilities and searching V over V in [0, 1], as
# susieR 0.16.5's do)
SELECTION_RULE = ("effects-or-detectable-background, background-by-mle-evidence-v4b-cycles"
                  "-linear-v-unit-tol")


class BootstrapWorld:
    """One replicate: the response (rows' ``y``, or ``(X'y, y'y)`` of sufficient statistics)
    and its causal variables."""

    def __init__(self, response, causal):
        self.response = response
        self.causal = causal


class RowSource:
    """Replicates and fits on the rows ``X``."""

    def __init__(self, X):
        self.X = X

    def centred(self, reference):
        return self.X - reference._centring.X_offset

    def column_variances(self, reference):
        return np.var(self.X, axis=0)

    def response(self, reference, coef, sigma, rng):
        """``y* = X_c coef + e*`` (``coef`` on the original columns)."""
        return self.centred(reference) @ coef + sigma * rng.standard_normal(self.X.shape[0])

    def fit(self, model, response):
        return model.fit(self.X, response)


class SufficientSource:
    """Replicates and fits on the sufficient statistics of centred rows: ``X'X`` (``XtX``),
    ``n`` and the means; a replicate's ``X'y* = X'X coef + X'e*`` and ``y*'y*`` are drawn
    exactly (``X'e* ~ N(0, sigma2 X'X)`` through ``X'X = W diag(lambda) W'``, and the part
    of ``e*`` outside the columns' span by a chi-square of ``n - 1 - rank`` degrees)."""

    def __init__(self, XtX, n_samples, X_mean, y_mean):
        from ._susie_inf import design_eigen

        self.XtX, self.n_samples, self.X_mean, self.y_mean = XtX, n_samples, X_mean, y_mean
        self.values, self.vectors = design_eigen(XtX, is_gram=True)

    def column_variances(self, reference):
        return np.diag(self.XtX) / (self.n_samples - 1.0)

    def response(self, reference, coef, sigma, rng):
        signal = self.XtX @ coef
        draws = rng.standard_normal(self.values.size)
        noise = sigma * (self.vectors @ (np.sqrt(self.values) * draws))
        outside = sigma**2 * rng.chisquare(max(self.n_samples - 1.0 - self.values.size, 1.0))
        yty = float(coef @ signal + 2.0 * coef @ noise + sigma**2 * draws @ draws + outside)
        return signal + noise, yty

    def fit(self, model, response):
        Xty, yty = response
        return model.fit_sufficient(self.XtX, Xty, yty, self.n_samples, X_mean=self.X_mean,
                                    y_mean=self.y_mean)


def bootstrap_worlds(reference, source, n_worlds, rng, background="gaussian",
                     causal="drawn"):
    """``n_worlds`` replicates (:class:`BootstrapWorld`) drawn from ``reference``, an
    AlphaSuSiE fitted at alpha = 1 (with ``unmappable_effects="inf"`` or without a
    background: ``tau2 = 0``) to the data of ``source`` (:class:`RowSource` or
    :class:`SufficientSource`; module docstring).
    ``background="structured"`` (under study, ``benchmarks/calibration_replicates_
    experiment.py``; not the rule yet) draws ``theta*`` as the fit's ``E[theta]`` plus
    Gaussian noise of the variance that tops it up to ``tau2``, so that the replicates keep
    where the background lies. ``causal="detectable"`` (tried, not the rule:
    ``benchmarks/calibration_detectable_worlds.py``) counts a variable as causal only when
    its whole drawn effect, ``b*_j + theta*_j``, is :func:`detectable`; the draws are the
    same for the same ``rng``."""
    scale = reference.column_scale_
    probabilities = reference.single_effect_probabilities_
    kept = np.flatnonzero(reference.kept_effects_)
    means = reference.effect_means_ * scale  # on the standardized columns
    sds = np.sqrt(reference.effect_variances_) * scale
    sigma, tau = np.sqrt(reference.noise_variance_), np.sqrt(reference.infinitesimal_variance_)
    p = scale.size
    centre = np.zeros(p)
    if background == "structured":
        centre = reference.infinitesimal_effects_ * scale
        tau = np.sqrt(max(tau**2 - float(np.mean(centre**2)), 0.0))
    spread = source.column_variances(reference) / scale**2  # Var(z_j) of the fit's columns
    worlds = []
    for _ in range(n_worlds):
        coef = np.zeros(p)
        for effect in kept:
            weights = probabilities[effect] / probabilities[effect].sum()
            variable = rng.choice(p, p=weights)
            coef[variable] += means[effect, variable] + sds[effect, variable] * \
                rng.standard_normal()
        effects = centre + tau * rng.standard_normal(p)
        response = source.response(reference, (coef + effects) / scale, sigma, rng)
        if causal == "detectable":
            found = detectable(coef + effects, spread, sigma**2, reference.n_samples_fit_)
        else:
            found = frozenset(np.flatnonzero(coef).tolist()) | detectable(
                effects, spread, sigma**2, reference.n_samples_fit_)
        worlds.append(BootstrapWorld(response, found))
    return worlds


def detection_power(effects, column_variances, noise_variance, n, level=0.05):
    """Per variable, the power of a 1-df chi-square test at ``level / p`` to find its
    effect (non-centrality ``n b_j^2 Var(x_j) / sigma2``; SuSiE 2.0's simulation script's
    ``is_causal_power``)."""
    from scipy import stats

    critical = stats.chi2.isf(level / effects.size, 1)
    noncentrality = n * effects**2 * column_variances / noise_variance
    return stats.ncx2.sf(critical, 1, np.maximum(noncentrality, 1e-300))


def detectable(effects, column_variances, noise_variance, n, level=0.05, power=0.8):
    """The variables whose ``effects`` a 1-df chi-square test at ``level / p`` finds with
    at least ``power`` (:func:`detection_power`; module docstring)."""
    found = detection_power(effects, column_variances, noise_variance, n, level) >= power
    return frozenset(np.flatnonzero(found).tolist())


def credible_set_coverage(estimator, source, worlds, alpha, on_fit=None):
    """``(covering, sets)``: the credible sets of ``estimator`` at ``alpha`` over the
    replicates that hold a causal variable, and their number."""
    covering = total = 0
    for world in worlds:
        with quietly():  # convergence and boundary notes of replicates
            model = source.fit(clone_with(estimator, alpha=alpha), world.response)
        if on_fit is not None:
            on_fit()
        for found in model.credible_sets_:
            total += 1
            covering += bool(world.causal.intersection(found["variables"]))
    return covering, total


def covers(covering, total, level, significance=SIGNIFICANCE):
    """Whether ``covering`` of ``total`` sets is consistent with a coverage of at least
    ``level``: ``P(X <= covering)`` for ``X ~ Binomial(total, level)`` above
    ``significance`` (no set: nothing miscovers). A probability equal to ``significance``
    rejects, to rounding: the one miss in one set has ``P = 1 - 0.95``, which the float
    0.95 puts at 0.05 + 4e-17."""
    from scipy import stats

    return total == 0 or bool(stats.binom.cdf(covering, total, level)
                              > significance * (1.0 + TIE_TOLERANCE))


def reference_fit(estimator, source, response, on_fit=None, background="inf", **params):
    """A model the replicates may be drawn from: ``estimator`` at alpha = 1 with the
    infinitesimal background (``background=None``: without one) and ``params``, fitted to
    ``response`` of ``source``. An estimator with the NIG prior on ``sigma2`` (which has no
    background) is referenced by its method-of-moments twin, with and without the
    background alike, so that their objectives compare; a background fit is made without
    ``refine``, which it does not take."""
    params = {"alpha": 1.0, "unmappable_effects": background, **params}
    if estimator.get_params()["residual_variance_method"] == "nig":
        params.setdefault("residual_variance_method", "mom")
    if background is not None:
        params["refine"] = False
    with quietly():
        model = source.fit(clone_with(estimator, **params), response)
    if on_fit is not None:
        on_fit()
    return model


def background_evidence(estimator, source, response, without_background, on_fit=None):
    """``(gain, threshold)``: how much the infinitesimal background raises the alpha = 1
    objective over SuSiE's (``without_background``, the fit at ``tau2 = 0``), and the gain
    that one more variance must beat, Schwarz's ``log(n) / 2`` (module docstring). The
    background's objective is SuSiE-inf's ascended from SuSiE's effects with ``sigma2``
    and ``tau2`` maximising it (``"mle"``), so that it is the bound at its best variances
    and at least SuSiE's: the method of moments' ``(sigma2, tau2)`` need not maximise it."""
    with_background = reference_fit(estimator, source, response, on_fit,
                                     residual_variance_method="mle", init=without_background)
    gain = float(with_background.elbo_ - without_background.elbo_)
    return gain, 0.5 * float(np.log(without_background.n_samples_fit_))


def reference_by_evidence(estimator, source, response, on_fit=None):
    """``(reference, background, evidence)``: the model the replicates are drawn from and
    the background calibrated (module docstring). With :func:`background_evidence` above
    its threshold, the estimator's SuSiE-inf fit at alpha = 1 and the estimator's own
    background; else the SuSiE fit and None."""
    sparse = reference_fit(estimator, source, response, on_fit, background=None)
    evidence = background_evidence(estimator, source, response, sparse, on_fit)
    if evidence[0] > evidence[1]:
        return (reference_fit(estimator, source, response, on_fit),
                estimator.get_params()["unmappable_effects"], evidence)
    return sparse, None, evidence


class Calibration(NamedTuple):
    """The credible-set calibration's choice: ``alpha``, the background (``"inf"``,
    ``"ash"`` or None), the pooled coverage ``{alpha: (covering, sets)}`` of each alpha
    scanned, the background's evidence ``(gain, threshold)`` (:func:`background_evidence`)
    and whether an alpha's sets covered (``reached``; else ``alpha`` is the one of the
    highest coverage)."""

    alpha: float
    background: str | None
    evaluated: dict
    evidence: tuple
    reached: bool = True


def calibrated_alpha(estimator, X, y, alphas, level, n_worlds, rng, on_fit=None, *,
                     source=None):
    """The model (with or without the estimator's background, by the evidence of
    :func:`background_evidence`) and the first alpha, from the largest, whose pooled
    bootstrap coverage is consistent with ``level`` (:func:`covers`), as a
    :class:`Calibration`. When none is, the alpha of the highest coverage (the largest of
    equals), with a warning. The data are the rows ``X``, ``y``, or a
    :class:`SufficientSource` and ``y`` its ``(X'y, y'y)``."""
    source = RowSource(X) if source is None else source
    if estimator.get_params()["estimate_residual_variance"] is False:
        raise bad_parameter(f"AlphaSelector(method='calibrate') of {type(estimator).__name__}",
                            "estimate_residual_variance", "True or 'auto'", False,
                            "The background's evidence and the replicates estimate sigma2 "
                            "with it.")
    reference, background, evidence = reference_by_evidence(estimator, source, y, on_fit)
    worlds = bootstrap_worlds(reference, source, n_worlds, rng)
    model = clone_with(estimator, unmappable_effects=background)
    evaluated = {}
    for alpha in sorted((float(a) for a in alphas), reverse=True):
        covering, total = credible_set_coverage(model, source, worlds, alpha, on_fit)
        evaluated[alpha] = (covering, total)
        if covers(covering, total, level):
            return Calibration(alpha, background, evaluated, evidence)
    coverage = {alpha: covering / total for alpha, (covering, total) in evaluated.items()}
    best = max(coverage, key=lambda alpha: (coverage[alpha], alpha))
    found = ", ".join(f"{alpha:.3g}: {value:.3f}" for alpha, value in coverage.items())
    warnings.warn(f"AlphaSelector(method='calibrate'): no alpha of the grid gives credible "
                  f"sets that cover at level={level} in the bootstrap replicates (coverage by "
                  f"alpha: {found}); alpha_ is {best:.3g}, the highest. Smaller alphas in "
                  "the grid, or more replicates (n_bootstrap), may reach it.", UserWarning,
                  stacklevel=caller_stacklevel())
    return Calibration(best, background, evaluated, evidence, reached=False)


def clone_with(estimator, **params):
    """A clone of ``estimator`` with ``params`` set."""
    from sklearn.base import clone

    return clone(estimator).set_params(**params)
