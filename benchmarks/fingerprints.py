"""Fingerprints of fitted estimators: a restructuring shows by them that behaviour did not change.

Each case fits one estimator on small fixed data (with covariates, sample weights or summary
statistics in some) and hashes (SHA-256 of the bytes) every public fitted attribute (names
ending in ``_``), its predictions and, where the estimator has them, its predictive standard
deviations, probabilities, transforms, draws, summaries and the exact alpha-posterior's
draws. ``python benchmarks/fingerprints.py --out before.json`` records them;
``--compare before.json`` refits and lists every hash that differs (bitwise, not to a
tolerance). A case that fails is recorded with its error, so a change that breaks a fit
shows too.
"""

import argparse
import contextlib
import dataclasses
import hashlib
import json
import sys
import warnings

import numpy as np
from sklearn.datasets import load_diabetes, make_blobs, make_classification, make_regression

import alphavb
from alphavb import (
    AADMRegressor,
    AlphaGaussianMixture,
    AlphaGaussianVB,
    AlphaLDA,
    AlphaLinearRegression,
    AlphaLogisticRegression,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
    AlphaSuSiE,
    AlphaSuSiEClassifier,
    BBAlphaClassifier,
    BBAlphaRegressor,
)
from alphavb._approximation import ApproximationCheck
from alphavb.model_selection import AlphaSelector

BLACKBOX = {"n_epochs": 30, "learning_rate": 0.05, "n_mc_samples": 3, "n_predict_samples": 20,
            "tol": None, "random_state": 0}


def _digest(value):
    """SHA-256 of a value's bytes (arrays by dtype, shape and data; others by repr). An
    approximation check is hashed without its ``seconds``, which differ between any two
    runs of the same code."""
    if isinstance(value, ApproximationCheck):
        value = dataclasses.replace(value, seconds=0.0)
    if hasattr(value, "get_params"):  # a fitted inner estimator: by its own fitted attributes
        value = _fitted_attributes(value)
    if hasattr(value, "to_numpy") and hasattr(value, "columns"):
        value = {"columns": list(map(str, value.columns)), "index": list(map(str, value.index)),
                 "values": _digest(np.asarray(value.to_numpy(), dtype=object).astype(str))}
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, (np.ndarray, float, int, np.generic)) for v in value):
        value = [_digest(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic, float, int)) and not isinstance(value, bool):
        array = np.ascontiguousarray(value)
        if array.dtype == object:
            return hashlib.sha256(repr(array.tolist()).encode()).hexdigest()
        header = f"{array.dtype.str}{array.shape}".encode()
        return hashlib.sha256(header + array.tobytes()).hexdigest()
    return hashlib.sha256(repr(value).encode()).hexdigest()


def _fitted_attributes(model):
    names = sorted(n for n in vars(model) if n.endswith("_") and not n.startswith("_"))
    return {name: _digest(getattr(model, name)) for name in names}


def _regression_data():
    X, y = make_regression(n_samples=120, n_features=8, n_informative=3, noise=5.0,
                           random_state=0)
    return X, y


def _sparse_data():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((80, 30))
    beta = np.zeros(30)
    beta[:3] = [2.0, -1.5, 1.0]
    return X, X @ beta + rng.standard_normal(80)


def _classification_data():
    return make_classification(n_samples=150, n_features=6, n_informative=3, random_state=0)


def _counts():
    rng = np.random.default_rng(2)
    return rng.poisson(1.0, size=(40, 30))


def _logistic_log_likelihood(theta, X, y):
    """Logistic regression's log-likelihood per draw of theta (autograd-differentiable)."""
    import autograd.numpy as anp

    logits = anp.dot(theta, X.T)
    return anp.sum(y * logits - anp.logaddexp(0.0, logits), axis=1)


def _cases():
    X, y = _regression_data()
    Xs, ys = _sparse_data()
    Xc, yc = _classification_data()
    blobs, _ = make_blobs(n_samples=200, centers=3, n_features=3, random_state=0)
    blobs1 = blobs[:, :1]
    counts = _counts()
    diabetes = load_diabetes()
    cases = {
        "linear": (AlphaLinearRegression(), X, y),
        "linear_alpha0.5": (AlphaLinearRegression(alpha=0.5), X, y),
        "spike_slab": (AlphaSpikeSlabRegression(), Xs, ys),
        "spike_slab_grid": (AlphaSpikeSlabRegression(prior_inclusion=[0.05, 0.1, 0.3]), Xs, ys),
        "spike_slab_classifier": (AlphaSpikeSlabClassifier(), Xc, yc),
        "logistic": (AlphaLogisticRegression(n_mc_samples=20, random_state=0), Xc, yc),
        "susie": (AlphaSuSiE(n_effects=5), Xs, ys),
        "susie_alpha0.5": (AlphaSuSiE(n_effects=5, alpha=0.5), Xs, ys),
        "gaussian_vb": (AlphaGaussianVB(_logistic_log_likelihood, n_params=Xc.shape[1], alpha=0.5,
                                         random_state=0), Xc, yc.astype(float)),
        "gaussian_vb_diag_mixture": (AlphaGaussianVB(
            _logistic_log_likelihood, n_params=Xc.shape[1], alpha=0.5, family="diag",
            n_components=2, random_state=0), Xc, yc.astype(float)),
        "gaussian_vb_full_mixture": (AlphaGaussianVB(
            _logistic_log_likelihood, n_params=Xc.shape[1], family="full", n_components=2,
            random_state=0), Xc, yc.astype(float)),
        "lda_batch": (AlphaLDA(n_components=3, random_state=0), counts, None),
        "lda_online": (AlphaLDA(n_components=3, learning_method="online", batch_size=10,
                                random_state=0), counts, None),
        "bbalpha_regressor": (BBAlphaRegressor(hidden_layer_sizes=(5,), **BLACKBOX),
                              diabetes.data, diabetes.target),
        "bbalpha_classifier": (BBAlphaClassifier(**BLACKBOX), Xc, yc),
        "aadm": (AADMRegressor(hidden_layer_sizes=(5,), generator_hidden=(10,), noise_dim=5,
                               discriminator_hidden=(10,), batch_size=50, **BLACKBOX), X, y),
        "selector_safebayes": (AlphaSelector(AlphaLinearRegression(), method="safebayes"), X, y),
    }
    # the data paths besides plain rows: covariates, sample weights, summary statistics,
    # each with its exact alpha-posterior's draws where the model has one
    Z = np.column_stack([Xs[:, 0] + np.linspace(-1.0, 1.0, len(Xs)), np.cos(np.arange(len(Xs)))])
    weights = 1.0 + np.arange(len(Xs)) % 3
    rows = {"covariates": Z, "sample_weight": weights}
    cases.update({
        "linear_weighted": (AlphaLinearRegression(standardize=True), Xs, ys,
                            {"sample_weight": weights}),
        "spike_slab_covariates_weighted": (AlphaSpikeSlabRegression(standardize=True), Xs, ys,
                                           rows),
        "spike_slab_grid_covariates": (AlphaSpikeSlabRegression(prior_inclusion=[0.05, 0.2]),
                                       Xs, ys, {"covariates": Z}),
        "spike_slab_classifier_covariates": (AlphaSpikeSlabClassifier(random_state=0), Xc, yc,
                                             {"covariates": Xc[:, :1] ** 2}),
        "susie_covariates_weighted": (AlphaSuSiE(n_effects=5), Xs, ys, rows),
        "susie_summary": (AlphaSuSiE(n_effects=5), Xs, ys, "summary"),
        "susie_classifier": (AlphaSuSiEClassifier(n_effects=3), Xc, yc),
        "susie_classifier_covariates": (AlphaSuSiEClassifier(n_effects=3), Xc, yc,
                                        {"covariates": Xc[:, :1] ** 2}),
    })
    for covariance in ("full", "tied", "diag", "spherical"):
        for prior in ("dirichlet_distribution", "dirichlet_process"):
            for name, data in (("p3", blobs), ("p1", blobs1)):
                model = AlphaGaussianMixture(n_components=3, covariance_type=covariance,
                                             weight_concentration_prior_type=prior,
                                             random_state=0)
                cases[f"mixture_{covariance}_{prior}_{name}"] = (model, data, None)
        cases[f"mixture_{covariance}_alpha0.5"] = (
            AlphaGaussianMixture(n_components=3, covariance_type=covariance, alpha=0.5,
                                 random_state=0), blobs, None)
        cases[f"mixture_{covariance}_warm"] = (
            AlphaGaussianMixture(n_components=3, covariance_type=covariance, warm_start=True,
                                 max_iter=5, random_state=0), blobs, None)
    return cases


def _outputs(model, X, y, covariates=None):
    out = {}
    if covariates is not None:  # the model's predictions need the rows' covariates
        out["predict"] = _digest(model.predict(X, covariates=covariates))
        if hasattr(model, "predict_proba"):
            out["predict_proba"] = _digest(model.predict_proba(X, covariates=covariates))
        else:
            out["predict_std"] = _digest(model.predict(X, return_std=True,
                                                       covariates=covariates))
        out["sample_posterior"] = _digest(model.sample_posterior(5, random_state=0))
        out["summary_frame"] = _digest(model.summary_frame())
        return out
    if hasattr(model, "predict"):
        out["predict"] = _digest(model.predict(X))
    for method in ("predict_proba", "transform", "score_samples"):
        if hasattr(model, method):
            try:
                out[method] = _digest(getattr(model, method)(X))
            except (TypeError, ValueError, AttributeError) as error:
                out[method] = f"error: {type(error).__name__}"
    if hasattr(model, "sample_posterior"):
        with contextlib.suppress(TypeError):
            out["sample_posterior"] = _digest(model.sample_posterior(5, random_state=0))
    if hasattr(model, "summary_frame"):
        out["summary_frame"] = _digest(model.summary_frame())
    return out


def _exact_draws(model, X, y, fit_params):
    """Hashes of a short run of the exact alpha-posterior's sampler (the linear and the
    Gaussian spike-and-slab models)."""
    from alphavb.exact import sample_exact

    draws = sample_exact(model, X, y, n_draws=20, n_chains=2, n_tune=20, random_state=0,
                         **fit_params)  # an ArviZ InferenceData
    return {f"exact_{name}": _digest(np.asarray(draws.posterior[name].values))
            for name in sorted(draws.posterior.data_vars)}


def _fit_summary(model, X, y):
    """Fit ``model`` to the z-scores and correlations of ``X``, ``y``."""
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    n = len(y)
    slope = Xc.T @ yc / np.sum(Xc * Xc, axis=0)
    residual = yc[:, None] - Xc * slope
    se = np.sqrt(np.sum(residual**2, axis=0) / (n - 2) / np.sum(Xc * Xc, axis=0))
    model.fit_summary(slope / se, np.corrcoef(X, rowvar=False), n)


def fingerprint_case(model, X, y, fit_params=None):
    """Fit one case (twice for a warm start) and hash its attributes and outputs;
    ``fit_params`` is what ``fit`` takes besides ``X`` and ``y`` ("summary": a summary
    statistics fit)."""
    fit_params = {} if fit_params is None else fit_params
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if fit_params == "summary":
            _fit_summary(model, X, y)
            record = _fitted_attributes(model)
            record["summary_frame"] = _digest(model.summary_frame())
            record["sample_posterior"] = _digest(model.sample_posterior(5, random_state=0))
            record["warnings"] = sorted({f"{w.category.__name__}: {w.message}"
                                         for w in caught})
            return record
        model.fit(X) if y is None else model.fit(X, y, **fit_params)
        if getattr(model, "warm_start", False):
            model.fit(X) if y is None else model.fit(X, y)
        record = _fitted_attributes(model)
        record.update(_outputs(model, X, y, fit_params.get("covariates")))
        if isinstance(model, (AlphaLinearRegression, AlphaSpikeSlabRegression)) and (
                fit_params or type(model) is AlphaLinearRegression):
            record.update(_exact_draws(model, X, y, fit_params))
    record["warnings"] = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    return record


def run(selected=None):
    results = {}
    for name, (model, X, y, *fit_params) in _cases().items():
        if selected and name not in selected:
            continue
        try:
            results[name] = fingerprint_case(model, X, y, *fit_params)
        except Exception as error:
            results[name] = {"error": f"{type(error).__name__}: {error}"}
    return {"version": alphavb.__version__, "cases": results}


def compare(before, after):
    """Lines naming every case and key whose hash differs."""
    lines = []
    for case in sorted(set(before["cases"]) | set(after["cases"])):
        old, new = before["cases"].get(case), after["cases"].get(case)
        if old is None or new is None:
            lines.append(f"{case}: only {'after' if old is None else 'before'}")
            continue
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                lines.append(f"{case}.{key}: {old.get(key)!r:.40} -> {new.get(key)!r:.40}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="write the fingerprints to this JSON file")
    parser.add_argument("--compare", help="compare against fingerprints in this JSON file")
    parser.add_argument("--case", action="append", help="only these cases (repeatable)")
    args = parser.parse_args(argv)
    after = run(args.case)
    n_keys = sum(len(v) for v in after["cases"].values())
    print(f"{len(after['cases'])} cases, {n_keys} fingerprints")
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(after, handle, indent=1, sort_keys=True)
    if args.compare:
        with open(args.compare) as handle:
            before = json.load(handle)
        if args.case:
            before["cases"] = {k: v for k, v in before["cases"].items() if k in args.case}
        differences = compare(before, after)
        print("\n".join(differences) or "all fingerprints equal")
        return 1 if differences else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
