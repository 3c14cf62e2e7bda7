"""Writes tests/data/susier_n3finemapping.json: susieR's fit of both N3finemapping
responses at its defaults (L = 10), the numbers alpha-SuSiE at alpha = 1 is tested against
without R. Needs Rscript with susieR (Debian's r-cran-susier, 0.12.35 here).

Stored per response (``y1``, ``y2``): susieR's version, ``seconds`` (one fit), ``niter``,
``sigma2``, the final ``elbo`` and its ``elbo_trace``, ``prior_variance`` (V), ``pip``, and
the credible sets of ``susie_get_cs(fit, X = X)`` (0-based variables, purest first), their
``coverage`` and ``purity`` (min, mean, median |corr|). R prints 7 significant digits.
Per response also (``y1_rss``, ``y2_rss``, full precision): the z-scores of
``univariate_regression``, ``susie_rss(z, cor(X), n)``'s fit (sigma2, V, PIPs, objective
trace, credible sets) and ``kriging_rss`` of those z with the sign of variable 652 (0-based)
flipped: the conditional means, standardized differences and log-likelihood ratios.

Run: ALPHAVB_DATA=../shared/data python benchmarks/susier_reference.py
"""

import json
import subprocess
from pathlib import Path

from alphavb.datasets import get_data_home

R_SCRIPT = """
suppressMessages(library(susieR))
suppressMessages(library(jsonlite))
X <- as.matrix(read.csv("{folder}/N3finemapping_X.csv", header = FALSE))
Y <- as.matrix(read.csv("{folder}/N3finemapping_Y.csv", header = FALSE))
for (k in 1:2) {{
  t <- system.time(fit <- susie(X, Y[, k], L = 10))[["elapsed"]]
  cs <- susie_get_cs(fit, X = X)
  cat("response", k, "seconds", t, "niter", fit$niter, "sigma2", fit$sigma2, "elbo",
      tail(fit$elbo, 1), "\\n")
  cat("V", fit$V, "\\n")
  cat("pip", susie_get_pip(fit), "\\n")
  for (s in names(cs$cs)) cat("cs", s, cs$cs[[s]], "\\n")
  cat("purity", as.vector(t(as.matrix(cs$purity))), "\\n")
  cat("coverage", cs$coverage, "\\n")
  cat("elbo_trace", fit$elbo, "\\n")
  cat("version", as.character(packageVersion("susieR")), "\\n")
  # summary statistics: z of the univariate regressions, the in-sample R, susie_rss's
  # defaults with n (full precision through jsonlite)
  uni <- univariate_regression(X, Y[, k])
  z <- uni$betahat / uni$sebetahat
  R <- cor(X)
  t <- system.time(rss <- susie_rss(z, R, n = nrow(X), L = 10))[["elapsed"]]
  rcs <- susie_get_cs(rss, Xcorr = R)
  flipped <- z
  flipped[{flip}] <- -flipped[{flip}]
  krig <- kriging_rss(flipped, R, n = nrow(X))$conditional_dist
  cat("json", toJSON(list(response = k, seconds = t, z = z, niter = rss$niter,
                          sigma2 = rss$sigma2, elbo_trace = rss$elbo, prior_variance = rss$V,
                          pip = susie_get_pip(rss), cs = lapply(rcs$cs, function(v) v - 1),
                          flipped = {flip} - 1, kriging_condmean = krig$condmean,
                          kriging_z_std_diff = krig$z_std_diff,
                          kriging_logLR = krig$logLR), digits = NA, auto_unbox = TRUE),
      "\\n")
}}
"""
# the variable whose z-score is flipped for kriging_rss (1-based; y1's strongest signal)
FLIP = 653


def parse(text):
    """The R script's lines as one dict per response."""
    reference, key = {}, None
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == "json":  # the summary-statistics fit, as JSON
            rss = json.loads(line[len("json"):])
            rss["cs"] = list(rss["cs"].values())
            reference[f"y{rss.pop('response')}_rss"] = rss
            continue
        if not parts or parts[0] not in ("response", "V", "pip", "cs", "purity", "coverage",
                                         "elbo_trace", "version"):
            continue  # susieR's hints
        if parts[0] == "response":
            key = f"y{parts[1]}"
            reference[key] = {"seconds": float(parts[3]), "niter": int(parts[5]),
                              "sigma2": float(parts[7]), "elbo": float(parts[9]), "cs": []}
        elif parts[0] == "cs":
            reference[key]["cs"].append([int(v) - 1 for v in parts[2:]])
        elif parts[0] == "purity":
            values = [float(v) for v in parts[1:]]
            reference[key]["purity"] = [values[i:i + 3] for i in range(0, len(values), 3)]
        elif parts[0] == "version":
            reference[key]["susieR"] = parts[1]
        else:
            name = {"V": "prior_variance", "pip": "pip", "coverage": "coverage",
                    "elbo_trace": "elbo_trace"}[parts[0]]
            reference[key][name] = [float(v) for v in parts[1:]]
    return reference


def main():
    folder = get_data_home() / "susie"
    run = subprocess.run(["Rscript", "-e", R_SCRIPT.format(folder=folder, flip=FLIP)], check=True,
                         capture_output=True, text=True)
    reference = parse(run.stdout)
    target = Path(__file__).resolve().parent.parent / "tests" / "data" / \
        "susier_n3finemapping.json"
    target.write_text(json.dumps(reference))
    for key, fit in reference.items():
        print(f"{key}: susieR {fit.get('susieR', 'susie_rss')}, {fit['seconds']} s, {fit['niter']} "
              f"iterations, {len(fit['cs'])} credible sets -> {target}")


if __name__ == "__main__":
    main()
