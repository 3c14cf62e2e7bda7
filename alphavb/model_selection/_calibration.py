"""The end of :class:`~alphavb.model_selection.AlphaSelector`'s bootstrap calibration when no
alpha of the grid reaches the level: which alpha it returns, and the warning that says what
was found.

The calibration covers the estimates of a reference fit at alpha = 1, fitted whether or not
the grid holds 1; it never returns an alpha whose full-data fit drops a variable the reference
includes (such a fit "covers" with the atom at 0). When the grid holds 1, that alpha always
keeps the selections and the answer is the highest coverage among those that keep them; a
grid without 1 (``alphas=[0.5]``) can leave none that does, and then the answer is the
largest alpha of the grid, the nearest to the reference.
"""

import warnings

from .._validation import caller_stacklevel


def highest_coverage(level, alphas, evaluated, eligible, coverage):
    """The alpha that calibration returns when no alpha of the grid reaches ``level``.

    Parameters
    ----------
    level : float
        The target coverage.
    alphas : ndarray
        The grid, largest first.
    evaluated : dict of float to float
        The bootstrap coverage of each alpha evaluated so far; ``coverage`` adds to it.
    eligible : dict of float to bool
        Whether the full-data fit at each alpha checked keeps the reference fit's selections
        (``1.0``, the reference itself, is ``True`` whether or not the grid holds it).
    coverage : callable
        ``coverage(alpha)``: the bootstrap coverage at ``alpha``, recorded in ``evaluated``.

    Returns
    -------
    float
        The alpha of the highest coverage among those evaluated that keep the selections;
        when none does (a grid without alpha = 1 whose alphas all drop them), the largest
        alpha of the grid, its coverage evaluated for the record. Either way a
        ``UserWarning`` says what was found.
    """
    kept = {alpha: value for alpha, value in evaluated.items() if eligible.get(alpha)}
    dropped = [alpha for alpha, keep in eligible.items() if not keep]
    if not kept:  # the grid holds no alpha = 1, and each alpha it tried drops a variable
        best = float(alphas[0])
        value = coverage(best)
        tried = ", ".join(f"{alpha:.3g}" for alpha in sorted(dropped, reverse=True))
        warnings.warn(f"AlphaSelector(method='calibrate'): no alpha of the grid reaches "
                      f"level={level}, and every one tried ({tried}) drops variables that the "
                      "alpha = 1 fit includes (the reference fit whose estimates the "
                      "intervals should cover), so none of its intervals is calibrated. "
                      f"alpha_ is {best:.3g}, the largest alpha of alphas (bootstrap coverage "
                      f"{value:.3f}). Add larger alphas to alphas (up to 1, whose fit keeps "
                      "the variables) to calibrate.", UserWarning,
                      stacklevel=caller_stacklevel())
        return best
    best = max(kept, key=kept.get)
    found = ", ".join(f"{alpha:.3g}: {value:.3f}" for alpha, value in
                      sorted(evaluated.items(), reverse=True))
    why = (f"; at alpha <= {max(dropped):.3g} the fit drops variables that the alpha = 1 "
           "fit includes, so its intervals are not used" if dropped else "")
    warnings.warn(f"AlphaSelector(method='calibrate'): no alpha of the grid reaches "
                  f"level={level} (bootstrap coverage by alpha: {found}){why}. "
                  f"alpha_ is {best:.3g}, the highest coverage ({kept[best]:.3f}) among "
                  "the alphas that keep the model's selections; the intervals there "
                  "under-cover. More bootstrap resamples (n_bootstrap) make the "
                  "coverages more precise; a lower level, or a model that fits the "
                  "data better, may be reachable.", UserWarning, stacklevel=caller_stacklevel())
    return best
