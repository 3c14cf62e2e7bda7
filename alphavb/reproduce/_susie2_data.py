"""The data of SuSiE 2.0's fine-mapping simulations (McCreight et al., susieR 0.16.5's paper;
``Simulation_Studies/scripts/fine_mapping/simulation_script_parallel.R`` of the public
repository alexmccreight/susieR2.0-paper), on the genotypes we have.

A replicate takes ``n = 1,000`` individuals at random from mouse_hs1940 (1,940 mice) and a
window of ``WINDOW`` consecutive variants (a random start) among those with minor allele
frequency >= 0.01 that vary in the chosen rows; the paper takes the first 1,000 individuals
and the first 5,000 such variants of one LD block of human genotypes, which are not public.
Columns are standardized (R's ``scale``). Then, as the script does:

* ``sparse`` (K = 1..5): K variants at random whose pairwise |r| <= 0.1, each with effect 1,
  noise variance ``Var(X b) (1 - h2) / h2`` with ``h2 = 0.03 K``; all K are causal;
* ``S1``, ``S2`` (the "oligo" scenarios): ``h2g = 0.25`` split (0.5, 0.35, 0.15) (S1) or
  (0.5, 0.15, 0.35) (S2) between 3 sparse effects (``N(0, 0.5^2)``), 5 (S1) or 10 (S2)
  oligogenic ones (``N(0, 0.05^2)`` or ``N(0, 0.15^2)`` with probabilities 0.75, 0.25) and
  an infinitesimal effect ``N(0, 0.01^2)`` on every other variant, each component rescaled
  so that the sample variance of its genetic values is its share; the sparse and
  oligogenic variants have pairwise |r| < 0.1 (500 tries, then the bound rises by 0.1 up to
  0.5); noise variance ``Var(g) (1 - h2g) / h2g``. The causal variants are those a
  Bonferroni (0.05 / p) 1-df test would find with power >= 0.8 (the script's
  ``is_causal_power``: non-centrality ``n b_j^2 / sigma^2``), and, as the paper's Figure 1
  counts them, the 3 largest ``|b_j|`` ("top 3").

Our three misspecifications on the same windows, each with the sparse scenario's K = 3
effects: ``t3`` (Student's t noise with 3 degrees of freedom), ``polygenic`` (S1's
infinitesimal component alone, a third of the genetic variance) and ``ld_mismatch`` (the
z-scores of the replicate's rows fitted with the LD of 500 other mice).
"""

from typing import NamedTuple

import numpy as np

from ..linear_model._susie_calibration import detection_power

N_SAMPLES = 1000
WINDOW = 5000
MIN_MAF = 0.01
REFERENCE_SAMPLES = 500
OLIGO = {  # shares (sparse, oligogenic, infinitesimal) of h2g, oligogenic variants
    "S1": ((0.5, 0.35, 0.15), 5),
    "S2": ((0.5, 0.15, 0.35), 10),
}
# our polygenic misspecification in the same form: S1's sparse draw and a background
POLYGENIC = ((2.0 / 3.0, 0.0, 1.0 / 3.0), 0)
H2G = 0.25
SPARSE_H2_PER_EFFECT = 0.03


def window_genotypes(genotypes, rng, n_samples=N_SAMPLES, window=WINDOW,
                     reference_samples=0):
    """Rows and a window of variants of one replicate (module docstring): the standardized
    ``X`` (n, p) and, with ``reference_samples``, a reference panel of other rows on the
    same variants (standardized on its own)."""
    total = genotypes.shape[0]
    rows = rng.permutation(total)[:n_samples + reference_samples]
    chosen = genotypes[rows[:n_samples]]
    frequency = chosen.mean(axis=0) / 2.0
    keep = (np.minimum(frequency, 1.0 - frequency) >= MIN_MAF) & (chosen.std(axis=0) > 0)
    if reference_samples:
        keep &= genotypes[rows[n_samples:]].std(axis=0) > 0
    usable = np.flatnonzero(keep)
    size = min(window, usable.size)
    start = int(rng.integers(0, usable.size - size + 1))
    columns = usable[start:start + size]
    X = _standardized(chosen[:, columns])
    reference = (_standardized(genotypes[rows[n_samples:]][:, columns])
                 if reference_samples else None)
    return X, reference


def _standardized(G):
    centred = G - G.mean(axis=0)
    return centred / centred.std(axis=0, ddof=1)


def _pairwise_below(X, variables, bound, strict):
    if len(variables) < 2:
        return True
    r = np.abs(np.corrcoef(X[:, variables], rowvar=False)[np.triu_indices(len(variables), 1)])
    return bool(np.all(r < bound) if strict else np.all(r <= bound))


def _scaled(X, variables, effects, share):
    """``effects`` rescaled so the sample variance of ``X[:, variables] @ effects`` is
    ``share``."""
    return effects * np.sqrt(share / np.var(X[:, variables] @ effects, ddof=1))


def sparse_response(X, n_causal, rng, noise="normal"):
    """The sparse scenario (K = ``n_causal``): ``y``, ``b`` and the causal variants."""
    n, p = X.shape
    while True:
        causal = np.sort(rng.choice(p, size=n_causal, replace=False))
        if _pairwise_below(X, causal, 0.1, strict=False):
            break
    coef = np.zeros(p)
    coef[causal] = 1.0
    signal = X @ coef
    h2 = SPARSE_H2_PER_EFFECT * n_causal
    sd = np.sqrt(np.var(signal, ddof=1) * (1.0 - h2) / h2)
    if noise == "t3":
        draws = rng.standard_t(3, size=n) / np.sqrt(3.0)
    else:
        draws = rng.standard_normal(n)
    return signal + sd * draws, coef, causal


class OligoReplicate(NamedTuple):
    """``y``, ``b``, the causal variants by power, the top-3 variants by ``|b|``, and the
    sparse and oligogenic variants."""

    y: np.ndarray
    coef: np.ndarray
    causal: np.ndarray
    top: np.ndarray
    sparse: np.ndarray
    oligo: np.ndarray


def oligo_response(X, scenario, rng, shares=None, n_oligo=None):
    """An oligo scenario (``"S1"``, ``"S2"``, or ``shares`` and ``n_oligo`` given): an
    :class:`OligoReplicate`.

    Each try draws every random number of a replicate, in the script's order, and only the
    try that is kept (whose sparse and oligogenic variants pass the bound, or the last one)
    rescales its effects and computes the infinitesimal component and ``y``, the passes over
    all of ``X``: the replicate is the one drawn when every try computed them. (On windows
    of strong LD most tries fail the bound: a quick run's S1 replicate made about 1,000.)"""
    n, p = X.shape
    if shares is None:
        shares, n_oligo = OLIGO[scenario]
    sparse_share, oligo_share, inf_share = (H2G * share for share in shares)
    bound = 0.1
    while True:
        for _ in range(500):
            sparse = rng.choice(p, size=3, replace=False)
            sparse_effects = rng.normal(0.0, 0.5, 3)
            rest = np.delete(np.arange(p), sparse)  # sorted, as np.setdiff1d gives it
            oligo = rng.choice(rest, size=n_oligo, replace=False) if n_oligo else rest[:0]
            if n_oligo:
                spread = np.where(rng.random(n_oligo) < 0.75, 0.05, 0.15)
                oligo_effects = rng.normal(0.0, spread)
            background = rng.normal(0.0, 0.01, rest.size - oligo.size) if inf_share > 0 else None
            noise = rng.standard_normal(n)
            if _pairwise_below(X, np.concatenate([sparse, oligo]), bound, strict=True):
                break
        else:
            bound += 0.1
            if bound <= 0.5 + 1e-12:
                continue
        coef = np.zeros(p)
        coef[sparse] = _scaled(X, sparse, sparse_effects, sparse_share)
        if n_oligo:
            coef[oligo] = _scaled(X, oligo, oligo_effects, oligo_share)
        if background is not None:
            pool = np.setdiff1d(rest, oligo)
            coef[pool] = _scaled(X, pool, background, inf_share)
        genetic = X @ coef
        noise_variance = np.var(genetic, ddof=1) * (1.0 - H2G) / H2G
        y = genetic + np.sqrt(noise_variance) * noise
        return OligoReplicate(y, coef, power_causal(X, coef, noise_variance),
                              top_effects(coef, 3), np.sort(sparse), np.sort(oligo))


def polygenic_response(X, rng):
    """Our polygenic misspecification: K = 3 sparse effects (S1's sparse draw) and an
    infinitesimal effect on every other variant (a third of ``h2g``), no oligogenic ones."""
    shares, n_oligo = POLYGENIC
    return oligo_response(X, None, rng, shares=shares, n_oligo=n_oligo)


def power_causal(X, coef, noise_variance, level=0.05):
    """The variants a Bonferroni 1-df chi-square test finds with power >= 0.8
    (:func:`~alphavb.linear_model._susie_calibration.detection_power`; the script's
    ``is_causal_power``)."""
    power = detection_power(coef, np.var(X, axis=0, ddof=1), noise_variance, X.shape[0],
                            level)
    return np.flatnonzero(power >= 0.8)


def top_effects(coef, count):
    """The ``count`` variants of largest ``|b_j|`` (Figure 1's causal variants)."""
    return np.sort(np.argsort(-np.abs(coef), kind="stable")[:count])
