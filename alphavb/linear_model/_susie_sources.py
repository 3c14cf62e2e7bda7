"""What an alpha-SuSiE fit reads and where it starts: the fit's data (:class:`SuSiEData`:
the sweeps' data, the centring, the columns' scale, the kind of fit), the rows where ``y``
is known, the names of summary statistics, the start that a fitted model's effects give
(susieR's ``model_init``), and the correlations a credible set's purity reads."""

import hashlib
from dataclasses import dataclass, field

import numpy as np

from .._validation import bad_parameter, float_values
from ._base import Centring
from ._susie import IBSSData, initial_state, state_from_effects


@dataclass(frozen=True)
class SuSiEData:
    """What one alpha-SuSiE fit reads: the sweeps' :class:`~alphavb.linear_model._susie.
    IBSSData`, the :class:`~alphavb.linear_model._base.Centring` the fitted model keeps,
    whether the sweeps estimate the residual variance, the columns' scale (``X / scale``
    is what the sweeps see), the kind of fit (``"rows"``, ``"sufficient"``,
    ``"sufficient-no-means"``, ``"summary"``), the number of effects, ``V``'s start as a
    share of ``Var(y)``, a digest of the data, the state a cold start begins from (``init``,
    a refinement; None: susieR's start) and the means of the sweeps' columns where they are
    not centred (for Pearson's correlations in the purities), and the
    :class:`~alphavb.linear_model._susie_inf.Eigenstructure` of an infinitesimal background
    (None without one) and the :class:`~alphavb.linear_model._susie_mismatch.MismatchModel`
    of an LD matrix from another sample (None: the LD is the sample's); what preparation
    resolved for the fitted model (``n_samples_fit_``, ``n_covariates_in_``), published
    once with the fitted state."""

    ibss: IBSSData
    centring: Centring
    estimate_residual_variance: bool
    scale: np.ndarray
    kind: str
    n_effects: int
    prior_variance_share: float
    digest: str
    start: object = None
    column_means: np.ndarray | None = None
    background: object = None
    mismatch: object = None
    fitted_attributes: dict = field(default_factory=dict)


def data_digest(ibss):
    """A fingerprint of the data a fit reads (``n``, ``Var(y)``, ``d``, and ``y`` or
    ``Z'y``): a warm start on other data is judged afresh."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.array([ibss.n_samples, ibss.variance_y]).tobytes())
    digest.update(np.ascontiguousarray(ibss.d).tobytes())
    digest.update(np.ascontiguousarray(ibss.y if ibss.gram is None else ibss.zty).tobytes())
    return digest.hexdigest()


def summary_names(owner, arrays):
    """The variables' names that pandas inputs carry (``z``, ``bhat``, ``shat``: their index;
    ``R``: its index and columns; ``reference_X``: its columns), checked to agree, one name
    per variable; None when no input has names (only default 0, 1, ... labels). Given as
    ``(name, array)`` pairs; an input whose labels differ from another's is refused by
    name (a default range counts as labels once another input has names)."""
    labelled = []
    for name, array in arrays:
        if not hasattr(array, "iloc"):  # not a pandas object
            continue
        axes = [array.columns] if name == "reference_X" else (
            [array.index, array.columns] if hasattr(array, "columns") else [array.index])
        for axis in axes:
            labelled.append((name, [str(label) for label in axis]))
    named = [labels for _, labels in labelled
             if labels != [str(j) for j in range(len(labels))]]
    if not named:
        return None
    first = named[0]
    if len(set(first)) != len(first):
        raise bad_parameter(owner, labelled[0][0], "one distinct name per variable",
                            "repeated names", "Name each variant once (or pass arrays).")
    for name, labels in labelled:
        if labels != first:
            raise bad_parameter(owner, name, "the variables of the other inputs, in the same "
                                f"order (names {first[:3]}...)", f"names {labels[:3]}...",
                                "Reorder it to z's variables, e.g. R.loc[z.index, z.index].")
    return first


def purity_correlation(data, variables):
    """The absolute correlations (Pearson's) of the variables (indices) in the data being
    fitted (:class:`SuSiEData`): from its columns ``Z`` or ``Z'Z``, centred with
    ``column_means`` where they are not; 0 for a column without variance."""
    ibss = data.ibss
    index = np.asarray(variables)
    if ibss.gram is None:
        columns = ibss.Z[:, index]
        if data.column_means is not None:
            columns = columns - data.column_means[index]
        block = columns.T @ columns
    else:
        block = ibss.gram[np.ix_(index, index)]
        if ibss.gram_columns is not None:
            columns = ibss.gram_columns[index]
            block = block * np.outer(columns, columns)
        if data.column_means is not None:
            means = data.column_means[index]
            block = block - ibss.n_samples * np.outer(means, means)
    norms = np.sqrt(np.maximum(np.diag(block), 0.0))
    scale = np.outer(norms, norms)
    return np.abs(np.divide(block, scale, out=np.zeros_like(block), where=scale > 0))


def known_rows(owner, missing, X, y, covariates, sample_weight):
    """The rows where ``y`` is known: all (``missing="raise"``, NaN in ``y`` refused by
    name) or those without NaN (``"drop"``, susieR's ``na.rm``); ``X``, ``y``, the
    covariates and weights of those rows (their lengths checked first)."""
    from sklearn.utils import _safe_indexing, check_consistent_length

    target = np.asarray(y)
    if target.dtype.kind == "O" and target.ndim:  # a list with None or pd.NA: missing, NaN
        try:
            target = float_values(owner, "y", target)
        except ValueError:  # not numbers: the checks that follow name them
            return X, y, covariates, sample_weight
    if target.dtype.kind not in "fc":
        return X, y, covariates, sample_weight
    unknown = np.isnan(target)
    if not unknown.any():
        return X, y, covariates, sample_weight
    if missing == "raise":
        raise bad_parameter(owner, "missing", "'drop' for a y with NaN",
                            missing, f"y has {int(unknown.sum())} NaN value(s) (rows "
                            f"{np.flatnonzero(unknown)[:5].tolist()}); pass "
                            "missing='drop' to fit the other rows, or impute them.")
    if target.ndim != 1:
        raise bad_parameter(owner, "y", "a 1-D array of responses", f"shape {target.shape}")
    check_consistent_length(*(values for values in (X, y, covariates, sample_weight)
                              if values is not None))
    known = np.flatnonzero(~unknown)
    if known.size < 2:
        raise bad_parameter(owner, "y", "at least 2 known values", f"{known.size}")

    def rows_of(values):
        return None if values is None else _safe_indexing(values, known)

    return rows_of(X), rows_of(y), rows_of(covariates), rows_of(sample_weight)


def state_from_init(owner, model, data, standardize, residual_variance):
    """The state a fitted ``model``'s effects (AlphaSuSiE's ``init``) give on ``data`` (a
    :class:`SuSiEData`; the model's means and variances are on the original columns, the
    sweeps' on ``X / scale``), padded with fresh effects up to ``data.n_effects`` (susieR's
    ``model_init``); its ``V`` when it was fitted with the same ``standardize``, its
    ``sigma2`` when ``sigma2`` is estimated (else ``residual_variance`` or ``Var(y)``)."""
    p = data.ibss.d.shape[0]
    if getattr(model, "n_features_in_", None) != p:
        raise bad_parameter(owner, "init", f"a fit of the same {p} "
                            "variables", f"a fit of {model.n_features_in_} variables")
    scale = data.scale
    alpha = np.asarray(model.single_effect_probabilities_, dtype=float)
    mean = model.effect_means_ * scale
    second_moment = (model.effect_variances_ + model.effect_means_**2) * scale**2
    fresh = initial_state(data.ibss, max(data.n_effects, alpha.shape[0]), residual_variance,
                          data.prior_variance_share)
    prior_variance = np.asarray(model.prior_variances_, dtype=float) \
        if model.standardize == standardize else fresh.prior_variance[:len(alpha)]
    missing = data.n_effects - alpha.shape[0]
    if missing > 0:
        alpha = np.vstack([alpha, fresh.probabilities[:missing]])
        mean = np.vstack([mean, np.zeros((missing, p))])
        second_moment = np.vstack([second_moment, np.zeros((missing, p))])
        prior_variance = np.concatenate([prior_variance, fresh.prior_variance[:missing]])
    sigma2 = model.noise_variance_ if data.estimate_residual_variance \
        else fresh.residual_variance
    return state_from_effects(data.ibss, alpha, mean, second_moment, prior_variance,
                              sigma2, estimate=False)
