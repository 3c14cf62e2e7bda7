"""numba kernel of the collapsed Gibbs sampler over spike-and-slab inclusion indicators.

The model seen by the kernel is a Gaussian one with the coefficients integrated out:
columns ``0 .. n_fixed - 1`` of ``X`` are always in the model with a flat prior (precision
0), column ``n_fixed + j`` is in when ``z_j = 1``, with prior precision ``1 / nu_h``. With
``A = X_g' X_g + diag(prior precisions)`` and ``b = X_g' y`` over the columns ``g`` in the
model, and ``Q = b' A^{-1} b``, the log posterior of ``(z, h)`` is, up to a constant,

    log p(h) + log p(z | h) - (|z| / 2) log nu_h - log|A| / 2 + score(Q),

``score(Q) = -c log(b0 + (y'y - Q) / 2)`` when the noise variance is integrated out
(``mode = 1``, ``c`` the posterior shape) and ``Q / (2 s)`` when it is known (``mode = 0``,
``s`` the variance). The estimator side (:mod:`alphavb.exact._spike_slab`) puts the tempering
into ``X`` and ``y`` (``sqrt(alpha)`` times the rows, or the Polya-Gamma weights).

``A^{-1}`` over the current model is kept as a dense matrix and changed by rank-one updates
when a variable enters or leaves (``O(k^2)``); the score of a flip needs ``X_g' x_j``, one
pass over column ``j`` per variable per sweep. ``A^{-1}`` is rebuilt from scratch at the
start of every sweep, so rounding does not accumulate.
"""

import math

import numba
import numpy as np


@numba.njit(cache=True)
def _score(quadratic, mode, noise, prior_scale, y_sq):
    if mode == 1:
        return -noise * math.log(prior_scale + 0.5 * (y_sq - quadratic))
    return 0.5 * quadratic / noise


@numba.njit(cache=True)
def _rebuild(X, y, active, k, precision_of, inverse, mean, b_active):
    """``A^{-1}``, ``c = A^{-1} b`` and ``b`` over ``active[:k]``; returns ``(Q, log|A|)``."""
    A = np.empty((k, k))
    row = np.empty(k)
    for p in range(k):
        cp = active[p]
        _sums_side_by_side(X, X[:, cp], active, p + 1, row)
        for q in range(p + 1):
            A[p, q] = row[q]
            A[q, p] = row[q]
        A[p, p] += precision_of[cp]
        total = 0.0
        for i in range(X.shape[0]):
            total += X[i, cp] * y[i]
        b_active[p] = total
    if k == 0:
        return 0.0, 0.0
    chol = np.linalg.cholesky(A)
    log_det = 0.0
    for p in range(k):
        log_det += 2.0 * math.log(chol[p, p])
    inv = np.linalg.inv(A)
    quadratic = 0.0
    for p in range(k):
        total = 0.0
        for q in range(k):
            inverse[p, q] = inv[p, q]
            total += inv[p, q] * b_active[q]
        mean[p] = total
        quadratic += total * b_active[p]
    return quadratic, log_det


@numba.njit(cache=True)
def _sums_side_by_side(matrix, vector, columns, k, out):
    """``out[p] = sum_t matrix[t, columns[p]] vector[t]`` for ``p < k``, four sums side by
    side, each over ``t`` in order: the roundings of one sum after another, without each
    addition waiting on the one before it (a block of fewer than four repeats its first
    column)."""
    for start in range(0, k, 4):
        width = min(4, k - start)
        c0 = columns[start]
        c1 = columns[start + 1] if width > 1 else c0
        c2 = columns[start + 2] if width > 2 else c0
        c3 = columns[start + 3] if width > 3 else c0
        t0 = 0.0
        t1 = 0.0
        t2 = 0.0
        t3 = 0.0
        for t in range(vector.shape[0]):
            value = vector[t]
            t0 += matrix[t, c0] * value
            t1 += matrix[t, c1] * value
            t2 += matrix[t, c2] * value
            t3 += matrix[t, c3] * value
        out[start] = t0
        if width > 1:
            out[start + 1] = t1
        if width > 2:
            out[start + 2] = t2
        if width > 3:
            out[start + 3] = t3


@numba.njit(cache=True)
def _addition(X, column, col_sq, xty, precision, active, k, inverse, mean, cross, along,
              inverse_rows):
    """Entering ``column``: fills ``cross = X_g' x`` and ``along = A^{-1} cross``; returns the
    Schur complement ``s`` and ``w = x'y - cross' c`` (``Q`` grows by ``w^2 / s``).
    ``inverse_rows`` is ``0, 1, ...``, the rows of ``A^{-1}``."""
    _sums_side_by_side(X, X[:, column], active, k, cross)
    _sums_side_by_side(inverse.T, cross[:k], inverse_rows, k, along)
    schur = col_sq[column] + precision
    w = xty[column]
    for p in range(k):
        schur -= cross[p] * along[p]
        w -= cross[p] * mean[p]
    return schur, w


@numba.njit(cache=True)
def _add(column, active, k, inverse, mean, b_active, xty, along, schur, w):
    """Put ``column`` into the model at position ``k`` (block inverse by the Schur
    complement)."""
    for p in range(k):
        for q in range(k):
            inverse[p, q] += along[p] * along[q] / schur
        inverse[p, k] = -along[p] / schur
        inverse[k, p] = -along[p] / schur
        mean[p] -= along[p] * w / schur
    inverse[k, k] = 1.0 / schur
    mean[k] = w / schur
    b_active[k] = xty[column]
    active[k] = column


@numba.njit(cache=True)
def _remove(position, active, k, inverse, mean, b_active):
    """Take the variable at ``position`` out (moved to the end, then the block inverse of the
    rest: ``B_11 - B_12 B_21 / B_22``)."""
    last = k - 1
    if position != last:
        for q in range(k):
            tmp = inverse[position, q]
            inverse[position, q] = inverse[last, q]
            inverse[last, q] = tmp
        for p in range(k):
            tmp = inverse[p, position]
            inverse[p, position] = inverse[p, last]
            inverse[p, last] = tmp
        mean[position], mean[last] = mean[last], mean[position]
        b_active[position], b_active[last] = b_active[last], b_active[position]
        active[position], active[last] = active[last], active[position]
    pivot = inverse[last, last]
    for p in range(last):
        for q in range(last):
            inverse[p, q] -= inverse[p, last] * inverse[last, q] / pivot
        mean[p] -= inverse[p, last] * mean[last] / pivot


@numba.njit(cache=True)
def _log_prior_odds(h, size_without, n_features, prior_pi, beta_a, beta_b):
    """``log p(z_j = 1 | rest) / p(z_j = 0 | rest)`` of the prior: fixed ``pi_h``, or a Beta
    prior on ``pi`` integrated out (``prior_pi[h]`` NaN)."""
    pi = prior_pi[h]
    if math.isnan(pi):
        return math.log(beta_a + size_without) - math.log(beta_b + n_features - 1 - size_without)
    return math.log(pi) - math.log1p(-pi)


@numba.njit(cache=True)
def _log_prior_size(h, size, n_features, prior_pi, beta_a, beta_b):
    pi = prior_pi[h]
    if math.isnan(pi):
        return (math.lgamma(beta_a + size) + math.lgamma(beta_b + n_features - size)
                - math.lgamma(beta_a + beta_b + n_features))
    return size * math.log(pi) + (n_features - size) * math.log1p(-pi)


@numba.njit(cache=True)
def collapsed_gibbs(X_T, y, n_fixed, inclusion, setting, slab_variances, log_hyper_prior,
                    prior_pi, beta_a, beta_b, mode, noise, prior_scale, neighbours,
                    n_sweeps, n_burn, thin, seed, capacity, out_inclusion, out_setting,
                    out_coef, out_noise, out_log_posterior, rao_blackwell, n_swap_accepted):
    """Run ``n_burn + n_sweeps`` sweeps from the state ``inclusion`` (int8, one per slab
    column) and ``setting`` (one int), both updated in place.

    ``X_T`` is the design transposed, C-contiguous (a column of ``X`` per row): any design,
    one row or one column included, then reaches the kernel as one type and numba compiles
    it once (a one-row ``X`` is C- and F-contiguous at once, and numba typed it as C where
    every other design was F: two compilations of 7-20 s each on a new install).

    A sweep: a Gibbs update of every ``z_j`` in random order (its conditional from the
    collapsed posterior), then as many swap proposals as there are variables in the model
    (one in, one of its ``neighbours`` out, accepted by Metropolis-Hastings), then ``h`` from
    its conditional. After the burn-in, every ``thin``-th sweep writes a draw: ``z``, ``h``,
    the log posterior, the noise variance (``1 / Gamma(c, b0 + (y'y - Q) / 2)`` or the known
    one) and the coefficients ``N(A^{-1} b, sigma2 A^{-1})`` (zero where left out). Every
    kept sweep adds the conditional inclusion probabilities to ``rao_blackwell[batch]``.
    Returns 0, or -1 when the model outgrew ``capacity``.
    """
    X = X_T.T  # F-contiguous: the loops below read a column of X contiguously
    np.random.seed(seed)
    n, n_columns = X.shape
    n_features = n_columns - n_fixed
    n_settings = slab_variances.shape[0]
    y_sq = 0.0
    for i in range(n):
        y_sq += y[i] * y[i]
    col_sq = np.empty(n_columns)
    xty = np.empty(n_columns)
    for c in range(n_columns):
        s = 0.0
        t = 0.0
        for i in range(n):
            s += X[i, c] * X[i, c]
            t += X[i, c] * y[i]
        col_sq[c] = s
        xty[c] = t
    position = np.full(n_columns, -1)
    active = np.empty(capacity, dtype=np.int64)
    inverse = np.empty((capacity, capacity))  # read only where written: [:k, :k]
    inverse_rows = np.arange(capacity)
    mean = np.zeros(capacity)
    b_active = np.zeros(capacity)
    cross = np.zeros(capacity)
    along = np.zeros(capacity)
    precision_of = np.zeros(n_columns)
    order = np.arange(n_features)
    n_batches = rao_blackwell.shape[0]
    n_total = n_burn + n_sweeps
    same_slab = True
    for h in range(n_settings):
        if slab_variances[h] != slab_variances[0]:
            same_slab = False
    for sweep in range(n_total):
        h = setting[0]
        nu = slab_variances[h]
        for j in range(n_features):
            precision_of[n_fixed + j] = 1.0 / nu
        k = 0
        for c in range(n_fixed):
            active[k] = c
            k += 1
        for j in range(n_features):
            if inclusion[j]:
                if k >= capacity:
                    return -1
                active[k] = n_fixed + j
                k += 1
        quadratic, log_det = _rebuild(X, y, active, k, precision_of, inverse, mean, b_active)
        for c in range(n_columns):
            position[c] = -1
        for p in range(k):
            position[active[p]] = p
        size = k - n_fixed
        kept = sweep >= n_burn
        batch = (sweep - n_burn) * n_batches // n_sweeps if kept else 0
        score = _score(quadratic, mode, noise, prior_scale, y_sq)
        np.random.shuffle(order)
        for j in order:
            column = n_fixed + j
            p = position[column]
            if p >= 0:  # in: the log odds of staying, from leaving's change
                pivot = inverse[p, p]
                q_without = quadratic - mean[p] * mean[p] / pivot
                log_det_without = log_det + math.log(pivot)
                score_without = _score(q_without, mode, noise, prior_scale, y_sq)
                log_odds = (_log_prior_odds(h, size - 1, n_features, prior_pi, beta_a, beta_b)
                            - 0.5 * math.log(nu) - 0.5 * (log_det - log_det_without)
                            + score - score_without)
            else:
                schur, w = _addition(X, column, col_sq, xty, 1.0 / nu, active, k, inverse,
                                     mean, cross, along, inverse_rows)
                q_with = quadratic + w * w / schur
                score_with = _score(q_with, mode, noise, prior_scale, y_sq)
                log_odds = (_log_prior_odds(h, size, n_features, prior_pi, beta_a, beta_b)
                            - 0.5 * math.log(nu) - 0.5 * math.log(schur)
                            + score_with - score)
            if log_odds >= 0.0:
                prob = 1.0 / (1.0 + math.exp(-log_odds))
            else:
                e = math.exp(log_odds)
                prob = e / (1.0 + e)
            if kept:
                rao_blackwell[batch, j] += prob
            include = np.random.random() < prob
            if include and p < 0:
                if k >= capacity:
                    return -1
                _add(column, active, k, inverse, mean, b_active, xty, along, schur, w)
                position[column] = k
                k += 1
                size += 1
                quadratic, log_det, score = q_with, log_det + math.log(schur), score_with
                inclusion[j] = 1
            elif not include and p >= 0:
                moved = active[k - 1]
                _remove(p, active, k, inverse, mean, b_active)
                position[moved] = p
                position[column] = -1
                k -= 1
                size -= 1
                quadratic, log_det, score = q_without, log_det_without, score_without
                inclusion[j] = 0
        # swaps: a variable in the model for one of its neighbours outside it
        n_proposals = size
        for _ in range(n_proposals):
            if size == 0 or neighbours.shape[1] == 0:
                break
            p = n_fixed + int(np.random.random() * size)
            leaving = active[p] - n_fixed
            entering = neighbours[leaving, int(np.random.random() * neighbours.shape[1])]
            if entering < 0 or inclusion[entering]:
                continue
            back = False
            for r in range(neighbours.shape[1]):
                if neighbours[entering, r] == leaving:
                    back = True
            if not back:  # the reverse move is impossible: reject (detailed balance)
                continue
            pivot = inverse[p, p]
            q_without = quadratic - mean[p] * mean[p] / pivot
            log_det_without = log_det + math.log(pivot)
            saved_inverse = inverse[:k, :k].copy()
            saved_mean = mean[:k].copy()
            saved_b = b_active[:k].copy()
            saved_active = active[:k].copy()
            _remove(p, active, k, inverse, mean, b_active)
            column = n_fixed + entering
            schur, w = _addition(X, column, col_sq, xty, 1.0 / nu, active, k - 1, inverse,
                                 mean, cross, along, inverse_rows)
            q_swap = q_without + w * w / schur
            log_det_swap = log_det_without + math.log(schur)
            score_swap = _score(q_swap, mode, noise, prior_scale, y_sq)
            log_ratio = score_swap - score - 0.5 * (log_det_swap - log_det)
            if math.log(np.random.random()) < log_ratio:
                _add(column, active, k - 1, inverse, mean, b_active, xty, along, schur, w)
                inclusion[leaving] = 0
                inclusion[entering] = 1
                quadratic, log_det, score = q_swap, log_det_swap, score_swap
                n_swap_accepted[0] += 1
                # the removal moved the last column to p; the entering one is last
                position[n_fixed + leaving] = -1
                position[active[p]] = p
                position[column] = k - 1
            else:
                inverse[:k, :k] = saved_inverse
                mean[:k] = saved_mean
                b_active[:k] = saved_b
                active[:k] = saved_active
        # the prior setting h given z (exact: each setting's collapsed posterior)
        if n_settings > 1:
            log_weights = np.empty(n_settings)
            for g in range(n_settings):
                log_weights[g] = (log_hyper_prior[g]
                                  + _log_prior_size(g, size, n_features, prior_pi, beta_a,
                                                    beta_b))
                if not same_slab:
                    for j in range(n_features):
                        precision_of[n_fixed + j] = 1.0 / slab_variances[g]
                    q_g, log_det_g = _rebuild(X, y, active, k, precision_of,
                                              np.empty((k, k)), np.empty(k), np.empty(k))
                    log_weights[g] += (-0.5 * size * math.log(slab_variances[g])
                                       - 0.5 * log_det_g
                                       + _score(q_g, mode, noise, prior_scale, y_sq))
            top = log_weights.max()
            total = 0.0
            for g in range(n_settings):
                log_weights[g] = math.exp(log_weights[g] - top)
                total += log_weights[g]
            u = np.random.random() * total
            g = 0
            while g < n_settings - 1 and u > log_weights[g]:
                u -= log_weights[g]
                g += 1
            if g != h:
                setting[0] = g
                if not same_slab:  # the draw below needs A^{-1} of the new setting
                    nu = slab_variances[g]
                    for j in range(n_features):
                        precision_of[n_fixed + j] = 1.0 / nu
                    quadratic, log_det = _rebuild(X, y, active, k, precision_of, inverse,
                                                  mean, b_active)
                    score = _score(quadratic, mode, noise, prior_scale, y_sq)
                h = g
        if kept and (sweep - n_burn) % thin == 0:
            r = (sweep - n_burn) // thin
            for j in range(n_features):
                out_inclusion[r, j] = inclusion[j]
            out_setting[r] = h
            out_log_posterior[r] = (log_hyper_prior[h]
                                    + _log_prior_size(h, size, n_features, prior_pi, beta_a,
                                                      beta_b)
                                    - 0.5 * size * math.log(nu) - 0.5 * log_det + score)
            if mode == 1:
                variance = (prior_scale + 0.5 * (y_sq - quadratic)) / np.random.gamma(noise, 1.0)
            else:
                variance = noise
            out_noise[r] = variance
            for c in range(n_columns):
                out_coef[r, c] = 0.0
            if k > 0:
                chol = np.linalg.cholesky(inverse[:k, :k] * variance)
                draw = np.random.standard_normal(k)
                for p in range(k):
                    total = mean[p]
                    for q in range(p + 1):
                        total += chol[p, q] * draw[q]
                    out_coef[r, active[p]] = total
    return 0
