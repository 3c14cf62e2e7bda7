"""What every closed-form (CAVI) alpha-VB estimator shares.

The alpha-VB solution (Yang, Pati & Bhattacharya 2020, eq. 2.6) maximises the alpha-ELBO

    L_alpha(q) = E_q[log p(Y, S | theta)] + H(q_S) - (1/alpha) KL(q_theta || p_theta),

and the ``objective="fractional"`` variant maximises ``KL``-closeness to the joint
alpha-fractional posterior (spec §1, eq. 2). This module owns the parameter checks for
``alpha`` and ``objective`` and the fit driver (``n_init`` starts, the relative-change
stopping rule on the objective, ``max_iter``, ``ConvergenceWarning``, ``elbo_history_``);
``CoefficientSummaryMixin`` adds ``summary()`` to the regression models. Subclasses fill in
``_initialize`` and ``_cavi_step``.
"""

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

OBJECTIVES = ("alpha-vb", "fractional")


def _bad_parameter(owner, name, requirement, value, fix=""):
    """Build the ValueError of scikit-learn's template, plus how to fix it."""
    message = f"The '{name}' parameter of {owner} must be {requirement}. Got {value!r} instead."
    if fix:
        message += f" {fix}"
    return ValueError(message)


def check_scalar_in_range(owner, name, value, low, high, *, low_open, high_open=False, fix=""):
    """Return ``value`` as a float after checking ``low <(=) value <(=) high``.

    Booleans and non-finite numbers are refused. ``high=None`` means no upper bound.
    """
    lower = "(" if low_open else "["
    upper = ")" if high_open or high is None else "]"
    requirement = f"a float in {lower}{low}, {'inf' if high is None else high}{upper}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise _bad_parameter(owner, name, requirement, value, fix)
    value = float(value)
    if not np.isfinite(value):
        raise _bad_parameter(owner, name, requirement, value, fix)
    too_low = value <= low if low_open else value < low
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        raise _bad_parameter(owner, name, requirement, value, fix)
    return value


def check_positive_int(owner, name, value):
    """Return ``value`` after checking it is an integer >= 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        raise _bad_parameter(owner, name, "an int >= 1", value)
    return int(value)


def check_positive_pair(owner, name, value, fix):
    """Return ``value`` as two positive finite floats (e.g. a Beta or inverse-gamma prior)."""
    requirement = "a pair (a, b) of positive floats"
    try:
        pair = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise _bad_parameter(owner, name, requirement, value, fix) from None
    if pair.shape != (2,) or not np.all(np.isfinite(pair)) or np.any(pair <= 0):
        raise _bad_parameter(owner, name, requirement, value, fix)
    return float(pair[0]), float(pair[1])


class CAVIEstimator(BaseEstimator):
    """Base class of the coordinate-ascent (CAVI) alpha-VB estimators.

    Subclasses implement

    * ``_initialize(data, random_state, start) -> state``: a starting point for start number
      ``start`` (0-based) of the ``n_init`` starts;
    * ``_cavi_step(data, state) -> float``: one full sweep over every block of the mean-field
      family, updating ``state`` in place, returning the exact value of the chosen objective
      (spec §1 eq. 1 for ``"alpha-vb"``, eq. 2 for ``"fractional"``) at the new state.

    ``_fit_cavi`` runs the starts, stops a run when the relative change of the objective
    falls to ``tol`` and keeps the run with the largest final objective.
    """

    def _check_cavi_parameters(self):
        """Validate the parameters every CAVI estimator has; return them resolved."""
        owner = type(self).__name__
        alpha = check_scalar_in_range(
            owner, "alpha", self.alpha, 0.0, 1.0, low_open=True,
            fix="Use alpha = 1 for ordinary VB and alpha < 1 for the fractional posterior.",
        )
        if self.objective not in OBJECTIVES:
            raise _bad_parameter(owner, "objective", f"a str among {list(OBJECTIVES)}", self.objective)
        max_iter = check_positive_int(owner, "max_iter", self.max_iter)
        n_init = check_positive_int(owner, "n_init", getattr(self, "n_init", 1))
        tol = check_scalar_in_range(owner, "tol", self.tol, 0.0, None, low_open=False)
        return alpha, max_iter, n_init, tol

    def _objective_without_latents(self, alpha_elbo):
        """Value of the chosen objective for a model with no local latent variables.

        Without latents, eq. (2) is ``alpha`` times eq. (1) (spec §1), so both objectives
        have the same maximiser.
        """
        return self._alpha * alpha_elbo if self.objective == "fractional" else alpha_elbo

    def _fit_cavi(self, data, *, single_start=False):
        """Run ``n_init`` CAVI starts; set ``elbo_``, ``elbo_history_``, ``n_iter_``, ``converged_``.

        ``single_start=True`` runs one start whatever ``n_init`` says (a warm start continues
        from the previous fit). Returns the state of the best start (largest final objective).
        """
        self._alpha, max_iter, n_init, tol = self._check_cavi_parameters()
        if single_start:
            n_init = 1
        random_state = check_random_state(self.random_state)
        best = None
        for start in range(n_init):
            state = self._initialize(data, random_state, start)
            history = []
            converged = False
            for _ in range(max_iter):
                value = self._cavi_step(data, state)
                if not np.isfinite(value):
                    raise FloatingPointError(
                        f"{type(self).__name__}: the objective became {value} after sweep "
                        f"{len(history) + 1} of start {start}. Check the data scale (standardise "
                        "X and y) or use a stronger prior."
                    )
                history.append(value)
                if len(history) > 1 and abs(history[-1] - history[-2]) <= tol * abs(history[-1]):
                    converged = True
                    break
            if self.verbose:
                status = "converged" if converged else "stopped at max_iter"
                print(f"[{type(self).__name__}] start {start}: {status} after {len(history)} "
                      f"sweeps, objective {history[-1]:.6f}")
            if best is None or history[-1] > best[1][-1]:
                best = (state, history, converged)
        state, history, converged = best
        self.elbo_ = float(history[-1])
        self.elbo_history_ = np.asarray(history)
        self.n_iter_ = len(history)
        self.converged_ = converged
        if not converged:
            warnings.warn(
                f"{type(self).__name__} did not converge in max_iter={max_iter} sweeps "
                f"(tol={tol}). Increase max_iter or tol.",
                ConvergenceWarning,
            )
        return state


class CoefficientSummaryMixin:
    """``summary()`` for estimators with one row per feature (the regression models).

    The estimator provides ``_summary_columns(level)``: an ordered dict of column name to
    one value per feature.
    """

    def summary(self, level=0.95):
        """A statsmodels-style table of the posterior summaries of the coefficients.

        Parameters
        ----------
        level : float, default=0.95
            Probability mass of the equal-tailed credible intervals.

        Returns
        -------
        statsmodels.iolib.summary.Summary
            ``print`` it, or use ``as_text()``, ``as_html()``, ``as_latex()``.
        """
        from statsmodels.iolib.summary import Summary
        from statsmodels.iolib.table import SimpleTable

        check_is_fitted(self)
        columns = self._summary_columns(level)
        names = list(columns)
        rows = np.column_stack([columns[name] for name in names])
        stubs = self._summary_row_names()
        data = [[f"{value:.4f}" for value in row] for row in rows]
        header = [
            ("Model:", type(self).__name__),
            ("alpha:", f"{self._alpha:g}"),
            ("Objective:", self.objective),
            ("No. observations:", str(self.n_samples_fit_)),
            ("alpha-ELBO:" if self.objective == "alpha-vb" else "Fractional ELBO:",
             f"{self.elbo_:.4f}"),
            ("Sweeps (converged):", f"{self.n_iter_} ({self.converged_})"),
        ]
        result = Summary()
        result.tables.append(SimpleTable(
            [[value] for _, value in header], stubs=[name for name, _ in header],
            title="alpha-VB posterior summary",
        ))
        result.tables.append(SimpleTable(data, headers=names, stubs=stubs))
        note = (f"Intervals are equal-tailed {level:.0%} credible intervals of the variational "
                "posterior q.")
        result.add_extra_txt([note])
        return result

    def _summary_row_names(self):
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = [f"x{j}" for j in range(self.n_features_in_)]
        return [str(name) for name in names]
