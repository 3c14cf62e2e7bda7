"""What :class:`~alphavb.AlphaGaussianMixture` does with its input before the first sweep:
the checked rows as a row source (:class:`~alphavb.mixture._estep.MemoryRows`, or
:class:`~alphavb.mixture._blocks.BlockRows` for a dask array, chosen here once), the
parameters and data-dependent priors resolved into ``*_prior_`` and ``fixed_*_``
attributes (returned by name; the estimator sets them), and the first responsibilities.
"""

import numpy as np
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.utils.validation import _check_sample_weight, validate_data

from .._validation import bad_parameter, is_dask_collection
from ..base import column_standard_deviations
from ._blocks import BlockRows, as_row_blocks, check_weight_scale
from ._estep import MemoryRows
from ._families import family_class


def validated_rows(model, X, sample_weight, reset):
    """The checked rows of ``X`` and their weights as the fit's row source (``reset``: the
    features are recorded on ``model``, as scikit-learn's ``validate_data`` does)."""
    owner = type(model).__name__
    if is_dask_collection(X):  # blocks stay where they are (module _blocks)
        X, weight = as_row_blocks(owner, X, sample_weight)
        if reset:
            model.n_features_in_ = X.shape[1]
            if hasattr(model, "feature_names_in_"):
                del model.feature_names_in_
        elif X.shape[1] != model.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {owner} is expecting "
                             f"{model.n_features_in_} features as input.")
        return BlockRows(X, weight, None if sample_weight is None else weight)
    X = validate_data(model, X, dtype=np.float64, reset=reset)
    with np.errstate(over="ignore"):
        squares_finite = np.all(np.isfinite(X * X))
    if not squares_finite:
        raise ValueError(f"{owner}: the squares of X overflow float64. Rescale X (e.g. "
                         "standardise it) before fitting.")
    if sample_weight is None:
        return MemoryRows(X, np.ones(X.shape[0]), None)
    weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                  ensure_non_negative=True)
    with np.errstate(over="ignore", invalid="ignore"):
        check_weight_scale(owner, weight.sum(), weight @ np.einsum("ij,ij->i", X, X))
    return MemoryRows(X, weight, weight)


def resolved_parameters(model, n_features):
    """The parameters whose check or default depends on ``n_features`` (the weight prior's,
    ``b0`` and the covariance family's), checked, by attribute name."""
    owner, n_components = type(model).__name__, model.n_components
    if model.fixed_weights is None:
        resolved = {"fixed_weights_": None, "weight_concentration_prior_": (
            1.0 / n_components if model.weight_concentration_prior is None
            else float(model.weight_concentration_prior))}
    else:
        weights = np.array(model.fixed_weights, dtype=float)
        if weights.shape != (n_components,) or abs(weights.sum() - 1.0) > 1e-8:
            raise bad_parameter(
                owner, "fixed_weights", f"an array of {n_components} positive weights summing "
                "to 1", model.fixed_weights, "Divide the weights by their sum, or pass None to "
                "learn them.")
        resolved = {"fixed_weights_": weights / weights.sum()}
    family = family_class(model.covariance_type)
    resolved["mean_precision_prior_"] = (family.default_mean_precision
                                         if model.mean_precision_prior is None
                                         else float(model.mean_precision_prior))
    return resolved | family.resolved_parameters(model, n_features)


def resolved_data_priors(model, X, weight):
    """The priors whose defaults depend on the rows: ``m0`` (``mean_prior_``, default the
    weighted mean) and the covariance family's (``Psi0``), checked, by attribute name."""
    n_features = X.shape[1]
    total = float(weight.sum())
    data_mean = np.asarray(weight @ X) / total  # (np.asarray computes a dask result)
    if model.mean_prior is None:
        resolved = {"mean_prior_": data_mean}
    else:
        mean_prior = np.array(model.mean_prior, dtype=float)
        if mean_prior.shape != (n_features,):
            raise bad_parameter(type(model).__name__, "mean_prior",
                                f"a finite array of shape ({n_features},)", model.mean_prior)
        resolved = {"mean_prior_": mean_prior}
    family = family_class(model.covariance_type)
    return resolved | family.resolved_data_priors(model, X, weight, data_mean, total)


def initial_responsibilities(model, X, weight, user_weight, random_state):
    """The first responsibilities of ``model``'s ``init_params``, drawn as scikit-learn's
    ``BaseMixture`` draws them (k-means on unit columns: :func:`_unit_columns`)."""
    n_samples, n_components = X.shape[0], model.n_components
    resp = np.zeros((n_samples, n_components))
    if model.init_params == "kmeans":
        labels = KMeans(n_clusters=n_components, n_init=1, random_state=random_state).fit(
            _unit_columns(X), sample_weight=user_weight).labels_
        resp[np.arange(n_samples), labels] = 1.0
    elif model.init_params == "random":
        resp = random_state.uniform(size=(n_samples, n_components))
        resp /= resp.sum(axis=1)[:, None]
    elif model.init_params == "random_from_data":
        probabilities = None if user_weight is None else weight / weight.sum()
        if np.count_nonzero(weight) < n_components:
            raise ValueError(f"{type(model).__name__}: init_params='random_from_data' needs "
                             f"at least n_components={n_components} rows of positive "
                             "sample_weight.")
        indices = random_state.choice(n_samples, size=n_components, replace=False,
                                      p=probabilities)
        resp[indices, np.arange(n_components)] = 1.0
    else:
        _, indices = kmeans_plusplus(_unit_columns(X), n_components,
                                     sample_weight=user_weight, random_state=random_state)
        resp[indices, np.arange(n_components)] = 1.0
    return resp


def _unit_columns(X):
    """``X`` with every column divided by its standard deviation (a column constant up to
    rounding kept: :func:`~alphavb.base.column_standard_deviations`), where the k-means
    start runs, so that the start does not depend on the units of the features
    (scikit-learn's mixtures run k-means on the raw columns)."""
    return X / column_standard_deviations(X)
