"""numba kernels of :mod:`alphavb.linear_model._neighbourhood`: the scores of the models one
step from a model (rank-one updates of ``A^{-1}``), the Laplace expansion of a logistic model
at its mode, and the conditional posteriors of the coefficients given a model. The
best-first search that calls them is Python (its bookkeeping of the models found is a few
list operations per model; compiled, its typed containers took most of the kernels'
compile time)."""

import math

import numba
import numpy as np

from ..exact._kernels import _log_prior_size, _score


@numba.njit(cache=True)
def _gram_column(X, column):
    """``X' x_column``: one column of ``X'X``."""
    return np.ascontiguousarray(X.T @ np.ascontiguousarray(X[:, column]))


@numba.njit(cache=True)
def _weighted_design(X, rows, response):
    """A logistic model's Gaussian expansion (:func:`_laplace`): ``X`` with its rows
    multiplied by ``rows``, its columns' squared norms and its product with ``response``."""
    local = X * rows.reshape((-1, 1))
    return local, np.sum(local * local, axis=0), local.T @ response


@numba.njit(cache=True)
def _factorise(cross, xty, active, precision):
    """``A^{-1}``, ``A^{-1} b``, ``Q`` and ``log|A|`` over the columns ``active`` with
    prior precisions ``precision``; ``cross[:, q]`` is the column ``active[q]`` of
    ``X'X``."""
    k = len(active)
    A = np.empty((k, k))
    b = np.empty(k)
    for q in range(k):
        for p in range(k):
            A[p, q] = cross[active[p], q]
        A[q, q] += precision[q]
        b[q] = xty[active[q]]
    if k == 0:
        return np.zeros((0, 0)), np.zeros(0), 0.0, 0.0
    chol = np.linalg.cholesky(A)
    log_det = 0.0
    for p in range(k):
        log_det += 2.0 * math.log(chol[p, p])
    inverse = np.linalg.inv(A)
    mean = inverse @ b
    return inverse, mean, float(b @ mean), log_det


@numba.njit(cache=True)
def _form(matrix, vector):
    """``vector' matrix vector`` (loops: the vectors are short)."""
    total = 0.0
    for p in range(len(vector)):
        row = 0.0
        for q in range(len(vector)):
            row += matrix[p, q] * vector[q]
        total += vector[p] * row
    return total


@numba.njit(cache=True)
def _largest(values, count):
    """The indices of the ``count`` largest ``values``, largest first (one pass)."""
    top = np.full(count, -1)
    for c in range(len(values)):
        position = count
        while position > 0 and (top[position - 1] < 0 or values[c] > values[top[position - 1]]):
            position -= 1
        if position < count:
            top[position + 1:] = top[position:count - 1].copy()
            top[position] = c
    return top


@numba.njit(cache=True)
def _dot(a, b):
    total = 0.0
    for p in range(len(a)):
        total += a[p] * b[p]
    return total


@numba.njit(cache=True)
def _log_posterior(size, quadratic, log_det, h, prior):
    """``log p(z, h | y) + c`` (module docstring) of a model of ``size`` variables; ``prior``
    is :attr:`CollapsedModel.prior`."""
    (log_hyper_prior, prior_pi, slab_variances, beta_a, beta_b, n_features, mode, noise,
     prior_scale, y_sq) = prior
    return (log_hyper_prior[h]
            + _log_prior_size(h, size, n_features, prior_pi, beta_a, beta_b)
            - 0.5 * size * math.log(slab_variances[h]) - 0.5 * log_det
            + _score(quadratic, mode, noise, prior_scale, y_sq))


@numba.njit(cache=True)
def _swap_partners(cross, col_sq, active, n_fixed, n_neighbours):
    """Per slab column of ``active`` (given ``cross = X' X_active``), the ``n_neighbours``
    columns outside the model most correlated with it, most correlated first (-1: none):
    the columns its swaps put in. Chosen once per expanded model, so that every prior
    setting scores the same steps in the same order."""
    n_columns, k = cross.shape
    inside = np.zeros(n_columns, dtype=np.bool_)
    for p in range(k):
        inside[active[p]] = True
    width = min(n_neighbours, n_columns - n_fixed)
    partners = np.full((k - n_fixed, width), -1)
    correlation = np.empty(n_columns)
    for p in range(n_fixed, k):
        c_out = active[p]
        for c in range(n_columns):
            denominator = math.sqrt(col_sq[c] * col_sq[c_out])
            correlation[c] = (abs(cross[c, p]) / denominator
                              if c >= n_fixed and not inside[c] and denominator > 0.0 else -1.0)
        order = _largest(correlation, width)
        for r in range(width):
            c = order[r]
            if not (c < 0 or correlation[c] < 0.0):
                partners[p - n_fixed, r] = c
    return partners


@numba.njit(cache=True)
def _steps(cross, col_sq, xty, active, n_fixed, h, prior, partners):
    """Every model one step from ``active`` (the first ``n_fixed`` entries the flat
    columns) under setting ``h``, given ``cross = X' X_active``: each variable in or out,
    and each slab column swapped for its ``partners`` (:func:`_swap_partners`).
    ``(out, into, log posterior)`` per step, ``out``/``into`` the column left out / put in
    (-1: none), and the current model's log posterior. A step whose ``A`` is not positive
    definite in floating point scores -inf: every setting lists the same steps."""
    slab_precision = 1.0 / prior[2][h]
    n_columns, k = cross.shape
    precision = np.zeros(k)
    for p in range(n_fixed, k):
        precision[p] = slab_precision
    inverse, mean, quadratic, log_det = _factorise(cross, xty, active, precision)
    inside = np.zeros(n_columns, dtype=np.bool_)
    for p in range(k):
        inside[active[p]] = True
    n_slab_in = k - n_fixed
    own = _log_posterior(n_slab_in, quadratic, log_det, h, prior)
    capacity = (n_columns - n_fixed) + partners.size
    out = np.full(capacity, -1)
    into = np.full(capacity, -1)
    values = np.empty(capacity)
    m = 0
    for c in range(n_fixed, n_columns):  # single variables in or out
        if inside[c]:
            p = 0
            while active[p] != c:
                p += 1
            pivot = inverse[p, p]
            out[m] = c
            values[m] = _log_posterior(n_slab_in - 1, quadratic - mean[p] * mean[p] / pivot,
                                       log_det + math.log(pivot), h, prior)
        else:
            into[m] = c
            schur = col_sq[c] + slab_precision - _form(inverse, cross[c])
            if schur <= 0.0:
                values[m] = -np.inf
            else:
                gap = xty[c] - _dot(cross[c], mean)
                values[m] = _log_posterior(n_slab_in + 1, quadratic + gap * gap / schur,
                                           log_det + math.log(schur), h, prior)
        m += 1
    reduced = np.empty(k)
    for p in range(n_fixed, k):  # swaps: p out, one of its correlated columns in
        c_out = active[p]
        pivot = inverse[p, p]
        column_p = inverse[:, p].copy()
        mean_without = mean - column_p * (mean[p] / pivot)
        quadratic_without = quadratic - mean[p] * mean[p] / pivot
        log_det_without = log_det + math.log(pivot)
        for c in partners[p - n_fixed]:
            if c < 0:
                continue
            reduced[:] = cross[c]
            reduced[p] = 0.0
            projected = _dot(reduced, column_p)
            schur = (col_sq[c] + slab_precision - _form(inverse, reduced)
                     + projected * projected / pivot)
            out[m] = c_out
            into[m] = c
            if schur <= 0.0:
                values[m] = -np.inf
            else:
                gap = xty[c] - _dot(reduced, mean_without)
                values[m] = _log_posterior(n_slab_in, quadratic_without + gap * gap / schur,
                                           log_det_without + math.log(schur), h, prior)
            m += 1
    return out[:m], into[:m], values[:m], own


@numba.njit(cache=True)
def _laplace(X, labels, active, n_fixed, alpha, slab_precision):
    """The tempered logistic likelihood of the model ``active[:k]`` expanded to second
    order at its posterior mode (module docstring): the rows' weights ``sqrt(alpha w_i)``,
    the weighted working response and the constant that makes the Gaussian model's
    marginal likelihood the Laplace approximation of this one's."""
    n, k = X.shape[0], len(active)
    precision = np.zeros(k)
    precision[n_fixed:] = slab_precision
    design = np.empty((n, k))
    for q in range(k):
        design[:, q] = X[:, active[q]]
    coef = np.zeros(k)
    t = np.zeros(n)

    def objective(t, coef):
        total = 0.0
        for i in range(n):  # log sigmoid(t) y + log sigmoid(-t) (1 - y), stably
            total += labels[i] * t[i] - (max(t[i], 0.0) + math.log1p(math.exp(-abs(t[i]))))
        return alpha * total - 0.5 * np.sum(precision * coef * coef)

    current = objective(t, coef)
    for _ in range(100):
        probability = 1.0 / (1.0 + np.exp(-t))
        weight = probability * (1.0 - probability)
        gradient = alpha * (design.T @ (labels - probability)) - precision * coef
        hessian = alpha * (design.T * weight) @ design + np.diag(precision)
        step = np.linalg.solve(hessian, gradient)
        length = 1.0
        for _ in range(40):  # halve a step that lowers the (concave) objective
            trial = coef + length * step
            trial_t = design @ trial
            value = objective(trial_t, trial)
            if value >= current - 1e-12 * abs(current):
                break
            length *= 0.5
        coef, t, previous, current = trial, trial_t, current, value
        if abs(current - previous) <= 1e-12 * (1.0 + abs(current)):
            break
    probability = 1.0 / (1.0 + np.exp(-t))
    weight = np.maximum(probability * (1.0 - probability), 1e-12)
    root = np.sqrt(alpha * weight)
    residual = labels - probability
    response = root * (t + residual / weight)
    log_likelihood = (current + 0.5 * np.sum(precision * coef * coef)) / alpha
    constant = (alpha * log_likelihood + 0.5 * alpha * np.sum(residual * residual / weight)
                - 0.5 * np.sum(response * response))
    return root, response, constant


@numba.njit(cache=True)
def _add_setting(totals, heaviest, heaviest_setting, scores, h):
    """Adds setting ``h``'s log posteriors ``scores`` into ``totals`` (log-sum-exp, in place)
    and keeps per entry the heaviest setting's score and index."""
    for s in range(len(scores)):
        high = max(totals[s], scores[s])
        if high == -np.inf:  # no weight under any setting so far
            continue
        totals[s] = high + math.log(math.exp(totals[s] - high) + math.exp(scores[s] - high))
        if scores[s] > heaviest[s]:
            heaviest[s] = scores[s]
            heaviest_setting[s] = h


@numba.njit(cache=True)
def _stepped(columns, out, into):
    """``columns`` without ``out`` and with ``into`` (-1: none)."""
    kept = np.empty(len(columns) + 1, dtype=np.int64)
    size = 0
    for c in columns:
        if c != out:
            kept[size] = c
            size += 1
    if into >= 0:
        kept[size] = into
        size += 1
    return kept[:size].copy()


@numba.njit(cache=True)
def _members(kept, parents, outs, intos, start, position, columns, offsets):
    """The columns of each model ``kept[m]`` (found by the search: its parent's
    columns, ``position[parent]`` among the expanded, less ``outs`` plus ``intos``; the
    start's for the start), concatenated, and their offsets."""
    sizes = np.empty(len(kept) + 1, dtype=np.int64)
    sizes[0] = 0
    flat = np.empty(len(kept) * (len(start) + offsets[-1] + 1), dtype=np.int64)
    total = 0
    for m in range(len(kept)):
        index = kept[m]
        if parents[index] < 0:
            model = start
        else:
            e = position[parents[index]]
            model = _stepped(columns[offsets[e]:offsets[e + 1]], outs[index], intos[index])
        flat[total:total + len(model)] = model
        total += len(model)
        sizes[m + 1] = total
    return flat[:total].copy(), sizes


@numba.njit(cache=True)
def _conditionals(X, xty, n_fixed, flat_columns, offsets, model_settings, prior):
    """The exact posterior of the slab coefficients of each model (its columns
    ``flat_columns[offsets[m]:offsets[m + 1]]`` under setting ``model_settings[m]``): per
    column its mean and scale (module docstring)."""
    centre = np.empty(len(flat_columns))
    scale = np.empty(len(flat_columns))
    mode, noise, prior_scale, y_sq = prior[6], prior[7], prior[8], prior[9]
    # X'X over the columns the models hold, by one product (n u^2 for u columns, not the
    # n d u of full columns of X'X)
    where = np.full(X.shape[1], -1)
    union = np.empty(n_fixed + len(flat_columns), dtype=np.int64)
    u = 0
    for c in range(n_fixed):
        where[c], union[u], u = u, c, u + 1
    for c in flat_columns:
        if where[c] < 0:
            where[c], union[u], u = u, c, u + 1
    held = np.empty((X.shape[0], u))
    for q in range(u):
        held[:, q] = X[:, union[q]]
    gram = held.T @ held
    for m in range(len(offsets) - 1):
        columns = flat_columns[offsets[m]:offsets[m + 1]]
        k = n_fixed + len(columns)
        active = np.empty(k, dtype=np.int64)
        for c in range(n_fixed):
            active[c] = c
        for q in range(len(columns)):
            active[n_fixed + q] = columns[q]
        A = np.empty((k, k))
        b = np.empty(k)
        for p in range(k):
            for q in range(k):
                A[p, q] = gram[where[active[p]], where[active[q]]]
            b[p] = xty[active[p]]
        for q in range(n_fixed, k):
            A[q, q] += 1.0 / prior[2][model_settings[m]]
        if len(columns) == 0:  # the empty model: no coefficient to record
            continue
        inverse = np.linalg.inv(A)
        mean = inverse @ b
        quadratic = float(b @ mean)
        noise_scale = (prior_scale + 0.5 * (y_sq - quadratic)) / noise if mode == 1 else noise
        for q in range(len(columns)):
            centre[offsets[m] + q] = mean[n_fixed + q]
            scale[offsets[m] + q] = math.sqrt(inverse[n_fixed + q, n_fixed + q] * noise_scale)
    return centre, scale


@numba.njit(cache=True)
def _laplace_conditionals(X, n_fixed, flat_columns, offsets, model_settings, prior, rows,
                          responses, expansion):
    """:func:`_conditionals` of a logistic model: each model's coefficients under the
    Gaussian likelihood of its expansion (``rows[expansion[m]]``, ``responses[...]``)."""
    centre = np.empty(len(flat_columns))
    scale = np.empty(len(flat_columns))
    for m in range(len(offsets) - 1):
        columns = flat_columns[offsets[m]:offsets[m + 1]]
        k = n_fixed + len(columns)
        design = np.empty((X.shape[0], k))
        precision = np.zeros(k)
        for c in range(n_fixed):
            design[:, c] = X[:, c] * rows[expansion[m]]
        for q in range(len(columns)):
            design[:, n_fixed + q] = X[:, columns[q]] * rows[expansion[m]]
            precision[n_fixed + q] = 1.0 / prior[2][model_settings[m]]
        inverse = np.linalg.inv(design.T @ design + np.diag(precision))
        mean = inverse @ (design.T @ responses[expansion[m]])
        for q in range(len(columns)):
            centre[offsets[m] + q] = mean[n_fixed + q]
            scale[offsets[m] + q] = math.sqrt(inverse[n_fixed + q, n_fixed + q])
    return centre, scale
