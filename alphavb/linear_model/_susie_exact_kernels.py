"""Numba kernel of the collapsed Gibbs sampler over SuSiE's single effects
(:mod:`~alphavb.linear_model._susie_exact` states the target and the algebra)."""

import math

import numba
import numpy as np


@numba.njit(cache=True)
def _cached_row(t, Z, gram, gram_scale, rows, slot_of, owner, occupied, clock):
    """The slot of ``rows`` holding ``G[t, :]`` (``G = Z'Z``, or ``diag(c) gram diag(c)``),
    computed on first use; a full cache gives up the oldest slot whose position no effect
    occupies. ``clock[0]`` is the next slot to try."""
    slot = slot_of[t]
    if slot >= 0:
        return slot
    capacity = rows.shape[0]
    while True:
        slot = clock[0]
        clock[0] = (clock[0] + 1) % capacity
        if owner[slot] < 0 or not occupied[owner[slot]]:
            break
    if owner[slot] >= 0:
        slot_of[owner[slot]] = -1
    owner[slot] = t
    slot_of[t] = slot
    if Z.shape[0] > 0:
        column = np.ascontiguousarray(Z[:, t])
        rows[slot] = np.dot(Z.T, column)
    else:
        for j in range(gram.shape[1]):
            rows[slot, j] = gram[t, j] * gram_scale[t] * gram_scale[j]
    return slot


@numba.njit(cache=True)
def _factor(support, variances, k, rows, slot_of, zty, s2, chol, w):
    """Cholesky factor of ``A = diag(1 / D) + G_TT / s2`` over the first ``k`` entries of
    ``support`` into ``chol`` and ``w = chol^{-1} u_T`` (``u = Z'y / s2``); returns
    ``(log|D| + log|A|, w'w)``, or ``(nan, nan)`` when ``A`` is not positive definite."""
    for a in range(k):
        row = slot_of[support[a]]
        for b in range(a + 1):
            value = rows[row, support[b]] / s2
            if a == b:
                value += 1.0 / variances[a]
            for c in range(b):
                value -= chol[a, c] * chol[b, c]
            if a == b:
                if value <= 0.0:
                    return np.nan, np.nan
                chol[a, a] = math.sqrt(value)
            else:
                chol[a, b] = value / chol[b, b]
    log_det = 0.0
    quadratic = 0.0
    for a in range(k):
        value = zty[support[a]] / s2
        for c in range(a):
            value -= chol[a, c] * w[c]
        w[a] = value / chol[a, a]
        quadratic += w[a] * w[a]
        log_det += 2.0 * math.log(chol[a, a]) + math.log(variances[a])
    return log_det, quadratic


@numba.njit(cache=True)
def _others(positions, variances, skip, n_features, support, merged):
    """The distinct variables the effects other than ``skip`` occupy (the null position
    ``n_features`` left out) in ``support``, their summed prior variances in ``merged``;
    returns their number."""
    k = 0
    for m in range(positions.shape[0]):
        t = positions[m]
        if m == skip or t == n_features:
            continue
        found = -1
        for a in range(k):
            if support[a] == t:
                found = a
        if found >= 0:
            merged[found] += variances[m]
        else:
            support[k] = t
            merged[k] = variances[m]
            k += 1
    return k


@numba.njit(cache=True)
def _normal_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@numba.njit(cache=True)
def single_effect_gibbs(Z, gram, gram_scale, zty, d, log_prior, log_null, variances, s2,
                        positions, n_sweeps, n_tune, seed, lower, upper, capacity,
                        positions_out, log_posterior_out, coef_out, inclusion_sum,
                        in_count, in_mass, zero_count):
    """Sweeps of the collapsed Gibbs sampler from ``positions`` (one per effect, ``p`` the
    null variable), updated in place. After ``n_tune`` sweeps each kept sweep records the
    positions, the log posterior (up to a constant), a draw of the coefficients (when
    ``coef_out`` has rows), and adds the Rao-Blackwellised inclusion probabilities to
    ``inclusion_sum`` (one per effect update) and, per variable, the count of sweeps in
    the model (``in_count``), the conditional mass of ``[lower, upper]`` there
    (``in_mass``) and the count of sweeps out of it with ``0`` in the interval
    (``zero_count``). Returns 0, or 1 when a factor is not positive definite."""
    np.random.seed(seed)
    n_effects = variances.shape[0]
    p = d.shape[0]
    rows = np.zeros((capacity, p))
    slot_of = -np.ones(p, dtype=np.int64)
    owner = -np.ones(capacity, dtype=np.int64)
    occupied = np.zeros(p + 1, dtype=np.int64)
    clock = np.zeros(1, dtype=np.int64)
    for m in range(n_effects):
        occupied[positions[m]] += 1
    for m in range(n_effects):
        if positions[m] < p:
            _cached_row(positions[m], Z, gram, gram_scale, rows, slot_of, owner, occupied,
                        clock)
    support = np.zeros(n_effects + 1, dtype=np.int64)
    merged = np.zeros(n_effects + 1)
    chol = np.zeros((n_effects + 1, n_effects + 1))
    w = np.zeros(n_effects + 1)
    solved = np.zeros((n_effects + 1, p))
    schur = np.zeros(p)
    quad_terms = np.zeros(p)
    scores = np.zeros(p + 1)
    inside = np.zeros(p, dtype=np.bool_)
    last_score = 0.0
    for sweep in range(n_tune + n_sweeps):
        kept = sweep - n_tune
        for effect in range(n_effects):
            occupied[positions[effect]] -= 1
            k = _others(positions, variances, effect, p, support, merged)
            base_det, base_quad = _factor(support, merged, k, rows, slot_of, zty, s2, chol,
                                          w)
            if not np.isfinite(base_det):
                return 1
            variance = variances[effect]
            inside[:] = False
            for a in range(k):
                inside[support[a]] = True
            # Y = L^{-1} G_T. / s2 row by row (each a contiguous pass over the variables),
            # then each variable's Schur complement and quadratic term from its column
            for j in range(p):
                schur[j] = 1.0 / variance + d[j] / s2
                quad_terms[j] = zty[j] / s2
            for a in range(k):
                row = rows[slot_of[support[a]]]
                for j in range(p):
                    solved[a, j] = row[j] / s2
                for c in range(a):
                    factor = chol[a, c]
                    for j in range(p):
                        solved[a, j] -= factor * solved[c, j]
                pivot, weight = chol[a, a], w[a]
                for j in range(p):
                    value = solved[a, j] / pivot
                    solved[a, j] = value
                    schur[j] -= value * value
                    quad_terms[j] -= value * weight
            constant = -0.5 * (base_det + math.log(variance)) + 0.5 * base_quad
            for j in range(p):
                if inside[j] or schur[j] <= 0.0:  # (a combination of the model's columns)
                    scores[j] = -np.inf
                else:
                    scores[j] = (log_prior[j] + constant - 0.5 * math.log(schur[j])
                                 + 0.5 * quad_terms[j] * quad_terms[j] / schur[j])
            for a in range(k):  # the effect joins a variable another effect holds
                merged[a] += variance
                log_det, quadratic = _factor(support, merged, k, rows, slot_of, zty, s2,
                                             chol, w)
                merged[a] -= variance
                scores[support[a]] = (log_prior[support[a]] - 0.5 * log_det
                                      + 0.5 * quadratic) if np.isfinite(log_det) else -np.inf
            scores[p] = log_null - 0.5 * base_det + 0.5 * base_quad
            largest = np.max(scores)
            total = 0.0
            for j in range(p + 1):
                scores[j] = math.exp(scores[j] - largest)
                total += scores[j]
            target = np.random.random() * total
            chosen = p
            running = 0.0
            for j in range(p + 1):
                running += scores[j]
                if running >= target and scores[j] > 0.0:
                    chosen = j
                    break
            if kept >= 0:
                for j in range(p):
                    inclusion_sum[j] += 1.0 if inside[j] else scores[j] / total
            last_score = largest + math.log(scores[chosen])
            positions[effect] = chosen
            occupied[chosen] += 1
            if chosen < p:
                _cached_row(chosen, Z, gram, gram_scale, rows, slot_of, owner, occupied,
                            clock)
        if kept < 0:
            continue
        positions_out[kept] = positions
        log_posterior_out[kept] = last_score
        k = _others(positions, variances, -1, p, support, merged)
        log_det, _ = _factor(support, merged, k, rows, slot_of, zty, s2, chol, w)
        if not np.isfinite(log_det):
            return 1
        inverse = np.linalg.inv(chol[:k, :k])  # A^{-1} = inverse' inverse
        mean = inverse.T @ w[:k]
        inside[:] = False
        for a in range(k):
            t = support[a]
            inside[t] = True
            sd = math.sqrt(np.sum(inverse[:, a] ** 2))
            in_count[t] += 1.0
            in_mass[t] += (_normal_cdf((upper[t] - mean[a]) / sd)
                           - _normal_cdf((lower[t] - mean[a]) / sd))
        for j in range(p):
            if not inside[j] and lower[j] <= 0.0 <= upper[j]:
                zero_count[j] += 1.0
        if coef_out.shape[0] > 0:
            draw = mean + inverse.T @ np.random.standard_normal(k)
            for a in range(k):
                coef_out[kept, support[a]] = draw[a]
    return 0
