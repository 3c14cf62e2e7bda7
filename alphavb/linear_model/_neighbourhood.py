"""The exact posterior of the inclusion indicators near a spike-and-slab fit.

A mean-field fit ``prod_j q(beta_j, z_j)`` cannot say "one of these two correlated variables"
(Carbonetto & Stephens 2012, Sec. 3): it puts one in with PIP near 1 and the other out, and
its intervals ignore the correlation. The exact alpha-posterior of the model's indicators is
known up to a constant in closed form once the coefficients (and the noise variance) are
integrated out; with the rows of ``X`` and ``y`` multiplied by ``sqrt(alpha)``,
``A = X_g' X_g + diag(prior precisions)`` over
the columns ``g`` in the model (the flat columns with precision 0, the slab ones with
``1 / nu``), ``b = X_g' y`` and ``Q = b' A^{-1} b``::

    log p(z, h | y) = log p(h) + log p(z | h) - (|z| / 2) log nu_h - log|A| / 2 + score(Q) + c,

``score(Q) = -c_n log(b0 + (y'y - Q) / 2)`` with the noise variance integrated out (its
posterior shape ``c_n``) and ``Q / (2 s)`` with a known variance ``s`` (the collapsed
Gibbs sampler's target, :mod:`alphavb.exact._kernels`, whose functions this module shares).
A grid of prior settings ``h`` is summed out per model. A logistic model has no closed form:
each expanded model's tempered likelihood is expanded to second order at that model's
posterior mode (Newton), and the model and its neighbours are scored by the Gaussian model
of the working response with the IRLS weights, plus the constant that makes it the Laplace
approximation of the model's marginal likelihood (``_laplace`` in the kernels).

:func:`neighbourhood_posterior` searches the indicators best-first from the fit's median
model (PIP > 1/2): it scores every model one step away (each variable in or out, each
variable in the model swapped for one of its most correlated variables outside), then
expands the most probable model not yet expanded, while it is within ``expand_window`` of
the best one found, up to ``max_expansions`` (the deterministic relative of Hans, Dobra &
West's 2007 shotgun stochastic search). Normalised over the models found, it gives their
PIPs and, per model, the exact conditional posterior of the coefficients (a Student t with the noise
variance integrated out, a normal with it known): what :func:`alphavb.exact.compare_to_exact`
measures by sampling, where the posterior's mass is near the fit. Scores use rank-one updates
of ``A^{-1}``: a step costs ``O(k^2)`` after ``O(n d k)`` per expanded model of ``k``
columns.
"""

import heapq
import math

import numpy as np
from scipy import special

from ._neighbourhood_kernels import (
    _add_setting,
    _conditionals,
    _gram_column,
    _laplace,
    _laplace_conditionals,
    _members,
    _stepped,
    _steps,
    _swap_partners,
    _weighted_design,
)


class CollapsedModel:
    """A spike-and-slab model with its coefficients integrated out (module docstring).

    Parameters
    ----------
    design : ndarray of shape (n_samples, n_fixed + n_features)
        The flat columns, then the candidate variables, the rows already multiplied by
        ``sqrt(alpha)`` (or by the logistic weights).
    response : ndarray of shape (n_samples,)
    n_fixed : int
    slab_variances, prior_pi, log_hyper_prior : ndarray of shape (n_settings,)
        Per prior setting ``h``: ``nu_h``, ``pi_h`` (NaN: ``pi`` has the Beta prior
        ``beta_prior`` and is integrated out) and ``log p(h)``.
    beta_prior : tuple (a, b)
    noise : tuple
        ``("integrated", posterior_shape, prior_scale)`` or ``("known", variance)``.
    labels : ndarray of shape (n_samples,) or None
        A logistic model's 0/1 labels: then ``design`` is unweighted, ``response`` unused,
        ``noise`` ``("known", 1.0)``, and each model is scored by the Laplace approximation
        at its posterior mode (:func:`_laplace`) under the likelihood raised to ``alpha``.
    alpha : float, default=1.0
    """

    def __init__(self, design, response, n_fixed, slab_variances, prior_pi, log_hyper_prior,
                 beta_prior, noise, labels=None, alpha=1.0):
        self.design = np.asfortranarray(design, dtype=float)
        self.response = np.ascontiguousarray(response, dtype=float)
        self.n_fixed = int(n_fixed)
        self.n_features = self.design.shape[1] - self.n_fixed
        self.mode = 1 if noise[0] == "integrated" else 0
        y_sq = float(self.response @ self.response)
        self.dof = 2.0 * float(noise[1]) if self.mode == 1 else np.inf
        self.prior = (np.asarray(log_hyper_prior, dtype=float),
                      np.asarray(prior_pi, dtype=float),
                      np.asarray(slab_variances, dtype=float), float(beta_prior[0]),
                      float(beta_prior[1]), self.n_features, self.mode, float(noise[1]),
                      float(noise[2]) if self.mode == 1 else 0.0, y_sq)
        self.col_sq = np.einsum("ij,ij->j", self.design, self.design)
        self.xty = self.design.T @ self.response
        self.labels = (np.zeros(0) if labels is None
                       else np.ascontiguousarray(labels, dtype=float))
        self.alpha = float(alpha)


class NeighbourhoodPosterior:
    """The models :func:`neighbourhood_posterior` found, with their normalised weights.

    Attributes
    ----------
    weights : ndarray
        ``p(model | y)`` (the prior settings summed out) normalised over the models found.
    n_models, n_expanded : int
        Models found, and expanded (their neighbours scored).
    """

    def __init__(self, collapsed, start, found, expanded_index, columns, offsets, rows,
                 responses):
        self.collapsed = collapsed
        self._expansion = {int(index): position
                           for position, index in enumerate(expanded_index)}
        self._rows, self._responses = rows, responses
        self._start = np.asarray(start, dtype=np.int64)
        self._parents, self._outs, self._intos, self._settings, values = found
        weights = np.exp(values - values.max())
        self.weights = weights / weights.sum()
        self._expanded_index, self._expanded = expanded_index, (columns, offsets)
        self._position = np.full(len(values), -1, dtype=np.int64)
        self._position[expanded_index] = np.arange(len(expanded_index))
        self.n_models, self.n_expanded = len(values), len(expanded_index)

    @property
    def inclusion_probabilities(self):
        """``p(z_j = 1 | y)`` over the models found."""
        n_fixed = self.collapsed.n_fixed
        counts = np.zeros(self.collapsed.n_fixed + self.collapsed.n_features)
        from_parent = self._parents >= 0
        counts[self._start] += self.weights[~from_parent].sum()
        by_parent = np.bincount(self._parents[from_parent], self.weights[from_parent],
                                minlength=len(self.weights))
        columns, offsets = self._expanded
        for e, index in enumerate(self._expanded_index):
            counts[columns[offsets[e]:offsets[e + 1]]] += by_parent[index]
        left, entered = self._outs >= 0, self._intos >= 0
        np.subtract.at(counts, self._outs[left], self.weights[left])
        np.add.at(counts, self._intos[entered], self.weights[entered])
        return np.clip(counts[n_fixed:], 0.0, 1.0)

    def interval_mass(self, lower, upper, mass=0.99, max_models=25):
        """The posterior probability of each ``[lower_j, upper_j]`` (in the design's units),
        from the most probable models holding ``mass`` of the weight (at most
        ``max_models``): where a variable is out the atom at 0 counts, where it is in its
        conditional Student t (normal with a known noise variance)."""
        order = np.argsort(-self.weights, kind="stable")
        cumulative = np.cumsum(self.weights[order])
        kept = order[:min(int(np.searchsorted(cumulative, mass)) + 1, max_models)]
        flat, offsets = _members(kept.astype(np.int64), self._parents, self._outs,
                                 self._intos, self._start, self._position, *self._expanded)
        collapsed = self.collapsed
        if len(collapsed.labels):  # each model at its own expansion, or its parent's
            expansion = np.array([self._expansion.get(int(index), self._expansion.get(
                int(self._parents[index]), 0)) for index in kept], dtype=np.int64)
            centre, scale = _laplace_conditionals(
                collapsed.design, collapsed.n_fixed, flat, offsets,
                self._settings[kept].astype(np.int64), collapsed.prior, self._rows,
                self._responses, expansion)
        else:
            centre, scale = _conditionals(
                collapsed.design, collapsed.xty, collapsed.n_fixed, flat, offsets,
                self._settings[kept].astype(np.int64), collapsed.prior)
        weights = self.weights[kept] / self.weights[kept].sum()
        owner = np.repeat(np.arange(len(kept)), np.diff(offsets))
        variables = flat - collapsed.n_fixed
        low = (lower[variables] - centre) / scale
        high = (upper[variables] - centre) / scale
        if np.isinf(collapsed.dof):
            inside = special.ndtr(high) - special.ndtr(low)
        else:
            inside = special.stdtr(collapsed.dof, high) - special.stdtr(collapsed.dof, low)
        zero_inside = ((lower <= 0.0) & (upper >= 0.0)).astype(float)
        probability = np.full(collapsed.n_features, 0.0) + zero_inside
        # a model holding variable j replaces the atom's indicator by its interval's mass
        np.add.at(probability, variables, weights[owner] * (inside - zero_inside[variables]))
        return np.clip(probability, 0.0, 1.0)


# models below the best by more than this many log units are not kept / not expanded
WINDOW, EXPAND_WINDOW = math.log(1e4), math.log(1e2)


def neighbourhood_posterior(collapsed, start, *, n_neighbours=10, window=WINDOW,
                            expand_window=EXPAND_WINDOW, max_expansions=20):
    """Best-first search of the exact posterior of the indicators from the model ``start``
    (module docstring).

    Parameters
    ----------
    collapsed : CollapsedModel
    start : array-like of int
        The candidate variables of the first model (the fit's median model).
    n_neighbours : int, default=10
        Correlated variables tried in a swap for each variable in a model.
    window : float, default=log(1e4)
        Models whose log posterior falls more than ``window`` below the best found are
        not kept (each would hold less than ``exp(-window)`` of the best's weight).
    expand_window : float, default=log(1e2)
        A model is expanded while its log posterior is within ``expand_window`` of the
        best found, most probable first.
    max_expansions : int, default=20

    Returns
    -------
    NeighbourhoodPosterior
    """
    start = np.sort(np.asarray(start, dtype=np.int64)) + collapsed.n_fixed
    found, *expanded = _search(collapsed, start, int(n_neighbours), float(window),
                               float(expand_window), int(max_expansions))
    return NeighbourhoodPosterior(collapsed, start, found, *expanded)


def _column_hashes(n_columns):
    """A 64-bit hash of each column (splitmix64 of its index + 1) and a last entry 0 (the
    hash of no column, ``-1``); a model's hash is the XOR of its columns'."""
    z = (np.arange(n_columns, dtype=np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.append(z ^ (z >> np.uint64(31)), np.uint64(0))


def _cross(X, active, gram=None):
    """``X' X_active`` (n_columns, len(active)), each column computed once and kept in
    ``gram`` (a dict column -> vector) when one is given."""
    cross = np.empty((X.shape[1], len(active)))
    for q, column in enumerate(active.tolist()):
        vector = None if gram is None else gram.get(column)
        if vector is None:
            vector = _gram_column(X, column)
            if gram is not None:
                gram[column] = vector
        cross[:, q] = vector
    return cross


def _setting_scores(collapsed, active, h, cross, n_neighbours, partners):
    """``_steps`` of ``active`` under setting ``h`` (a logistic model's under its own
    expansion at its mode, :func:`_laplace`; ``cross`` then None), with the swaps'
    ``partners`` (None: chosen here): ``(out, into, steps, own, rows, response,
    partners)``, or None where ``A`` is singular under ``h`` (a slab variance so wide that
    twin columns leave it so): there the model and its steps have no weight."""
    prior, n_fixed = collapsed.prior, collapsed.n_fixed
    logistic = len(collapsed.labels) > 0
    rows = response = np.ones(0)
    try:
        if logistic:
            rows, response, constant = _laplace(collapsed.design, collapsed.labels, active,
                                                n_fixed, collapsed.alpha, 1.0 / prior[2][h])
            local, col_sq, xty = _weighted_design(collapsed.design, rows, response)
            cross = _cross(local, active)
        else:
            col_sq, xty = collapsed.col_sq, collapsed.xty
        if partners is None:
            partners = _swap_partners(cross, col_sq, active, n_fixed, n_neighbours)
        out, into, steps, own = _steps(cross, col_sq, xty, active, n_fixed, h, prior,
                                       partners)
    except np.linalg.LinAlgError:
        return None
    if logistic:
        steps, own = steps + constant, own + constant
    return out, into, steps, own, rows, response, partners


def _expand(collapsed, active, n_neighbours, gram):
    """The models one step from ``active`` and their log posteriors with the prior settings
    summed out (``log sum_h p(z, h | y)``), the model's own, and per step and for the model
    the heaviest setting; for a logistic model also the expansion's row weights and response
    under the model's heaviest setting (``_laplace``). The swaps' partners are chosen once,
    under the first setting that factorises (a logistic model's design differs by
    setting), so that every setting scores the same steps; a setting under which ``A`` is
    singular adds no weight (LinAlgError where it is singular under every setting)."""
    logistic = len(collapsed.labels) > 0
    cross = None if logistic else _cross(collapsed.design, active, gram)
    scored, partners = [], None
    for h in range(len(collapsed.prior[0])):
        result = _setting_scores(collapsed, active, h, cross, n_neighbours, partners)
        if result is not None:
            scored.append((h, result))
            partners = result[-1]
    if not scored:
        raise np.linalg.LinAlgError("the model's A is singular under every prior setting")
    first, (out, into, steps, own, rows, response, _) = scored[0]
    totals = np.append(steps, own)  # the model itself last
    heaviest = totals.copy()
    setting = np.full(len(totals), first, dtype=np.int64)
    for h, result in scored[1:]:
        scores = np.append(result[2], result[3])
        if len(scores) != len(totals):  # _add_setting writes by position
            raise RuntimeError("the prior settings scored different steps")
        _add_setting(totals, heaviest, setting, scores, h)
        if logistic and setting[-1] == h:
            rows, response = result[4], result[5]
    return (out, into, totals[:-1], setting[:-1], float(totals[-1]), int(setting[-1]), rows,
            response)


def _search(collapsed, start, n_neighbours, window, expand_window, max_expansions):
    """The best-first search of :func:`neighbourhood_posterior`. Every model found is
    stored as its parent (the index of an expanded model; -1 for the start), the column it
    left out and the one it put in (-1: none), its log posterior with the prior settings
    summed out and its heaviest setting; an expanded model keeps its columns (and, for a
    logistic model, its expansion's row weights and response). Returns those arrays and the
    expanded models' indices, columns (concatenated, with their offsets), row weights and
    responses (one row per expanded model; no columns for a linear model)."""
    n_fixed = collapsed.n_fixed
    column_hash = _column_hashes(collapsed.design.shape[1])
    gram = {}  # the columns of X'X read so far
    parents, outs, intos, settings, values = [-1], [-1], [-1], [0], [np.inf]  # start first
    start_hash = int(np.bitwise_xor.reduce(column_hash[start], initial=np.uint64(0)))
    hashes, seen = [start_hash], {start_hash}
    expanded_index, expanded_columns, expanded_rows, expanded_responses = [], [], [], []
    position = {}  # an expanded model's index -> its place among the expanded
    best = -np.inf
    waiting = [(-np.inf, 0)]  # a heap of the models not yet expanded: (-value, index)
    for _ in range(max_expansions):
        # the most probable model not yet expanded (the first of equals), if within the
        # expansion window
        if not waiting or not (-waiting[0][0] >= best - expand_window):
            break
        chosen = heapq.heappop(waiting)[1]
        columns = start
        if parents[chosen] >= 0:
            columns = _stepped(expanded_columns[position[parents[chosen]]], outs[chosen],
                               intos[chosen])
        active = np.concatenate([np.arange(n_fixed, dtype=np.int64), columns])
        out, into, steps, step_setting, own, own_setting, rows, response = _expand(
            collapsed, active, n_neighbours, gram)
        position[chosen] = len(expanded_index)
        expanded_index.append(chosen)
        expanded_columns.append(columns)
        expanded_rows.append(rows)
        expanded_responses.append(response)
        values[chosen] = own
        settings[chosen] = own_setting
        best = max(best, own)
        # steps below the window now stay below it (best only rises), and a step of
        # weight 0 under every setting is no model; a step's model hash is its parent's
        # with the column left out and the one put in toggled
        near = np.flatnonzero(~(steps < best - window) & ~np.isneginf(steps))
        keys = (np.uint64(hashes[chosen]) ^ column_hash[out[near]]
                ^ column_hash[into[near]]).tolist()
        kept = []
        for s, key, step in zip(near.tolist(), keys, steps[near].tolist(), strict=True):
            if step < best - window or key in seen:
                continue
            seen.add(key)
            if not math.isnan(step):  # a NaN score is kept, never expanded
                heapq.heappush(waiting, (-step, len(hashes)))
            kept.append(s)
            hashes.append(key)
            best = max(best, step)
        parents.extend([chosen] * len(kept))
        outs.extend(out[kept].tolist())
        intos.extend(into[kept].tolist())
        settings.extend(step_setting[kept].tolist())
        values.extend(steps[kept].tolist())
    found = (np.asarray(parents, dtype=np.int64), np.asarray(outs, dtype=np.int64),
             np.asarray(intos, dtype=np.int64), np.asarray(settings, dtype=np.int64),
             np.asarray(values, dtype=float))
    n_expanded = len(expanded_index)
    offsets = np.zeros(n_expanded + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(columns) for columns in expanded_columns])
    width = len(expanded_rows[0]) if n_expanded else 0
    return (found, np.asarray(expanded_index, dtype=np.int64),
            (np.concatenate(expanded_columns) if n_expanded
             else np.zeros(0, dtype=np.int64)),
            offsets, np.reshape(expanded_rows, (n_expanded, width)),
            np.reshape(expanded_responses, (n_expanded, width)))
