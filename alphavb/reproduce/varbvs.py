"""varbvs's Leukemia vignette (Carbonetto, Zhou, Stephens et al., R package varbvs,
``vignettes/leukemia.Rmd``), with the likelihood tempered by alpha.

The vignette fits Bayesian variable selection for logistic regression to the Leukemia data
(72 samples x 3,571 genes, Dettling 2004) over the prior log-odds ``log10(pi / (1 - pi))``
``seq(-3.5, -1.5, 0.1)`` with the prior variance ``sa = 1``, and compares it with glmnet's
penalised logistic regression over ``lambda = 10^seq(-2, 0, 0.05)``, whose penalty is chosen
by 20-fold cross-validation of the classification error (the largest ``lambda`` within one
standard error of the smallest error, ``lambda.1se``). The vignette's glmnet mixes in a
little ridge (elastic net 0.95); here the penalty is the lasso's, as scikit-learn's
``LogisticRegression`` with ``l1_ratio=1`` and ``C = 1 / (n lambda)``, which minimises the
same objective as glmnet's lasso at ``lambda``.
"""

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from ..datasets import load_leukemia
from ..linear_model import AlphaSpikeSlabClassifier
from ._output import FEWER_ALPHAS_STAMP, _prepare_output, _save_figure, _write_csv

LEUKEMIA_ALPHAS = (0.5, 0.8, 1.0)
VIGNETTE_LOG_ODDS = np.round(np.arange(-3.5, -1.45, 0.1), 10)   # seq(-3.5, -1.5, 0.1)
VIGNETTE_LAMBDA = 10.0 ** np.round(np.arange(-2.0, 0.025, 0.05), 10)  # 10^seq(-2, 0, 0.05)


def _one_standard_error_rule(path, n_samples, n_folds):
    """glmnet's ``lambda.1se``: the largest ``lambda`` whose cross-validated error rate is
    within one standard error (of the fold error rates, weighted by fold size) of the
    smallest."""
    best = min(path, key=lambda row: row["cv_errors"])
    threshold = (best["cv_errors"] + best["cv_errors_se"]) / n_samples
    return max((row for row in path if row["cv_errors"] / n_samples <= threshold),
               key=lambda row: row["lambda"])


def _fold_errors(make_model, X, y, folds, n_jobs):
    """Misclassified held-out samples of each fold (a list, one count per fold);
    ``make_model(n_train)`` builds the model of a fold."""
    from joblib import Parallel, delayed

    def one(train, test):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = make_model(len(train)).fit(X[train], y[train])
        return int(np.sum(model.predict(X[test]) != y[test]))

    return Parallel(n_jobs=n_jobs)(delayed(one)(train, test) for train, test in folds)


def _lasso(lam, n_samples):
    """glmnet's lasso logistic regression at ``lambda``: scikit-learn's L1 penalty (spelled
    ``l1_ratio=1`` since 1.8) with ``C = 1 / (n lambda)``."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(l1_ratio=1.0, solver="liblinear", C=1.0 / (n_samples * lam),
                              max_iter=1000, random_state=0)


def reproduce_leukemia(out_dir="results/leukemia", random_state=0, alphas=LEUKEMIA_ALPHAS,
                       quick=False, n_jobs=1, data_home=None):
    """varbvs's Leukemia analysis at several ``alpha``, lasso logistic regression beside it.

    For each ``alpha``, :class:`~alphavb.AlphaSpikeSlabClassifier` (intercept integrated out,
    ``slab_variance = 1`` on the raw columns, ``standardize=False``, as varbvs has it) is
    fitted over the vignette's 21 prior log-odds (-3.5 to -1.5 by
    0.1) and averaged with the settings' posterior weights. Reported: each setting's
    in-sample classification errors and expected number of included variables ``sum_j
    phi_j`` against the log-odds; the posterior of the log-odds; the ten largest PIPs; the
    averaged model's in-sample errors and its 20-fold (stratified) cross-validated errors.
    Beside it, the lasso logistic path on the vignette's 41 values of ``lambda`` (module
    docstring): in-sample and 20-fold errors and the number of non-zero coefficients, and
    the fit at glmnet's ``lambda.1se``.

    Writes ``leukemia.png`` (the curves), ``leukemia_summary.csv`` (one row per method),
    ``leukemia_settings.csv`` (one row per alpha and log-odds), ``leukemia_top_pips.csv``
    and ``leukemia_lasso_path.csv``. ``quick=True``: alpha 0.5 and 1, every fifth log-odds
    and every fourth lambda, 5 folds.

    Returns
    -------
    dict with ``"files"``, ``"rows"`` (the summary), ``"settings"`` and ``"top"``.
    """
    out_dir, plt = _prepare_output(out_dir)
    leukemia = load_leukemia(data_home)
    X, y = leukemia.data, leukemia.target
    n_samples = X.shape[0]
    alphas = (0.5, 1.0) if quick else tuple(alphas)
    grid = VIGNETTE_LOG_ODDS[::5] if quick else VIGNETTE_LOG_ODDS
    n_folds = 5 if quick else 20
    folds = list(StratifiedKFold(n_folds, shuffle=True, random_state=random_state).split(X, y))
    summary, settings, top = [], [], []
    fits = {}
    for alpha in alphas:
        start = time.perf_counter()
        model = AlphaSpikeSlabClassifier(alpha=alpha, prior_log_odds=grid, slab_variance=1.0,
                                         standardize=False,
                                         random_state=random_state).fit(X, y)
        seconds = time.perf_counter() - start
        fits[alpha] = model
        # each setting on its own: the same fits, one at a time (warm-started as the grid is)
        single = AlphaSpikeSlabClassifier(alpha=alpha, slab_variance=1.0, warm_start=True,
                                          standardize=False, random_state=random_state)
        for h, log_odds in enumerate(grid):
            single.set_params(prior_log_odds=float(log_odds)).fit(X, y)
            settings.append({
                "alpha": alpha, "log10_odds": float(log_odds),
                "weight": float(model.hyper_weights_[h]), "elbo": float(model.setting_elbo_[h]),
                "expected_included": float(model.setting_inclusion_probabilities_[h].sum()),
                "in_sample_errors": int(np.sum(single.predict(X) != y)),
            })
        pip = model.inclusion_probabilities_
        order = np.argsort(-pip, kind="stable")
        for rank, j in enumerate(order[:10], start=1):
            top.append({"alpha": alpha, "rank": rank, "column": int(j) + 1,
                        "pip": float(pip[j]), "coef": float(model.coef_[j])})
        cv = _fold_errors(lambda n_train, alpha=alpha: AlphaSpikeSlabClassifier(
            alpha=alpha, prior_log_odds=grid, slab_variance=1.0, standardize=False,
            random_state=random_state),
            X, y, folds, n_jobs)
        summary.append({
            "method": "alphavb spike-and-slab", "alpha": alpha, "setting": "averaged over "
            f"{len(grid)} log-odds", "in_sample_errors": int(np.sum(model.predict(X) != y)),
            "cv_errors": int(np.sum(cv)), "n_samples": n_samples,
            "selected": int(np.sum(pip > 0.5)), "top_column": int(order[0]) + 1,
            "top_pip": float(pip[order[0]]),
            "posterior_mean_log10_odds": float(model.hyper_weights_ @ grid),
            "fit_seconds": seconds,
        })
    # the lasso path on the vignette's lambdas, lambda chosen by glmnet's 1-SE rule
    lambdas = VIGNETTE_LAMBDA[::4] if quick else VIGNETTE_LAMBDA
    fold_sizes = np.array([len(test) for _, test in folds])
    path = []
    for lam in lambdas:
        lasso = _lasso(lam, n_samples).fit(X, y)
        errors = np.asarray(_fold_errors(lambda n_train, lam=lam: _lasso(lam, n_train), X, y,
                                         folds, n_jobs))
        rates = errors / fold_sizes
        mean_rate = float(np.sum(errors) / n_samples)
        spread = np.sqrt(np.sum(fold_sizes * (rates - mean_rate) ** 2) / n_samples
                         / (n_folds - 1))
        path.append({"lambda": float(lam), "log10_lambda": float(np.log10(lam)),
                     "nonzero": int(np.sum(lasso.coef_ != 0)),
                     "in_sample_errors": int(np.sum(lasso.predict(X) != y)),
                     "cv_errors": int(np.sum(errors)), "cv_errors_se": float(n_samples * spread)})
    best = _one_standard_error_rule(path, n_samples, n_folds)
    start = time.perf_counter()
    lasso = _lasso(best["lambda"], n_samples).fit(X, y)
    lasso_seconds = time.perf_counter() - start
    lasso_top = int(np.argmax(np.abs(lasso.coef_[0])))
    summary.append({
        "method": "lasso logistic (scikit-learn, liblinear)", "alpha": float("nan"),
        "setting": f"lambda = {best['lambda']:.3g} (1-SE rule, glmnet's lambda.1se)",
        "in_sample_errors": best["in_sample_errors"], "cv_errors": best["cv_errors"],
        "n_samples": n_samples, "selected": best["nonzero"], "top_column": lasso_top + 1,
        "top_pip": float("nan"), "posterior_mean_log10_odds": float("nan"),
        "fit_seconds": lasso_seconds,
    })

    files = [out_dir / name for name in ("leukemia.png", "leukemia_summary.csv",
                                         "leukemia_settings.csv", "leukemia_top_pips.csv",
                                         "leukemia_lasso_path.csv")]
    _plot(plt, files[0], alphas, grid, settings, top, path, best, summary, n_folds,
          FEWER_ALPHAS_STAMP if quick else None)
    for name, rows in zip(files[1:], (summary, settings, top, path), strict=True):
        _write_csv(name, rows)
    return {"files": files, "rows": summary, "settings": settings, "top": top,
            "lasso_path": path, "models": fits}


def _plot(plt, figure, alphas, grid, settings, top, path, best, summary, n_folds, stamp):
    n_samples = summary[0]["n_samples"]
    fig, axes = plt.subplots(2, 3, figsize=(14, 7.6))
    for alpha in alphas:
        rows = [row for row in settings if row["alpha"] == alpha]
        label = f"alpha = {alpha:g}"
        axes[0, 0].plot(grid, [row["in_sample_errors"] for row in rows], "o-", label=label)
        axes[0, 1].plot(grid, [row["expected_included"] for row in rows], "o-", label=label)
        axes[0, 2].plot(grid, [row["weight"] for row in rows], "o-", label=label)
    axes[0, 0].set(xlabel="prior log10 odds of inclusion", ylabel=f"errors of {n_samples}",
                   title="In-sample classification errors, each setting")
    averaged = "\n".join(f"alpha = {row['alpha']:g}: {row['in_sample_errors']} in-sample, "
                         f"{row['cv_errors']} {n_folds}-fold CV" for row in summary[:-1])
    axes[0, 0].text(0.03, 0.04, "averaged model, errors:\n" + averaged, fontsize=7.5,
                    ha="left", va="bottom", transform=axes[0, 0].transAxes)
    axes[0, 1].set(xlabel="prior log10 odds of inclusion", ylabel="sum of PIPs",
                   title="Expected number of included variables", yscale="log")
    axes[0, 2].set(xlabel="prior log10 odds of inclusion", ylabel="posterior weight",
                   title="Posterior of the prior log-odds")
    width = 0.8 / len(alphas)
    columns = [row["column"] for row in top if row["alpha"] == alphas[-1]][:5]
    for i, alpha in enumerate(alphas):
        pips = {row["column"]: row["pip"] for row in top if row["alpha"] == alpha}
        axes[1, 2].bar(np.arange(len(columns)) + (i - (len(alphas) - 1) / 2) * width,
                       [pips.get(c, 0.0) for c in columns], width, label=f"alpha = {alpha:g}")
    axes[1, 2].set_xticks(np.arange(len(columns)), [f"col. {c}" for c in columns], fontsize=8)
    axes[1, 2].set(ylabel="PIP (log scale)", title=f"The 5 largest PIPs at alpha = "
                   f"{alphas[-1]:g}", yscale="log", ylim=(1e-4, 1.5))
    log_lambda = [row["log10_lambda"] for row in path]
    axes[1, 0].errorbar(log_lambda, [row["cv_errors"] for row in path],
                        yerr=[row["cv_errors_se"] for row in path], fmt="o-", ms=4,
                        label=f"{n_folds}-fold cross-validated (+- 1 s.e.)")
    axes[1, 0].plot(log_lambda, [row["in_sample_errors"] for row in path], "s--", ms=4,
                    label="in-sample")
    axes[1, 0].axvline(best["log10_lambda"], color="grey", lw=0.8)
    axes[1, 0].set(xlabel="log10 lambda (grey: lambda.1se)", ylabel=f"errors of {n_samples}",
                   title="Lasso logistic: classification errors")
    axes[1, 1].plot(log_lambda, [row["nonzero"] for row in path], "o-", color="C3")
    axes[1, 1].axvline(best["log10_lambda"], color="grey", lw=0.8)
    axes[1, 1].set(xlabel="log10 lambda", ylabel="non-zero coefficients",
                   title="Lasso logistic: variables selected")
    for ax in (axes[0, 0], axes[0, 2], axes[1, 0], axes[1, 2]):
        ax.legend(fontsize=8)
    fig.suptitle("Leukemia (72 x 3,571): varbvs's vignette analysis with alpha-VB, and the "
                 "lasso path", fontsize=11)
    _save_figure(plt, fig, figure, stamp)
