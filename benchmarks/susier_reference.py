"""Writes tests/data/susier_n3finemapping.json: susieR's fit of both N3finemapping
responses at its defaults (L = 10), the numbers alpha-SuSiE at alpha = 1 is tested against
without R. Needs Rscript with susieR (Debian's r-cran-susier, 0.12.35 here).

Stored per response (``y1``, ``y2``): susieR's version, ``seconds`` (one fit), ``niter``,
``sigma2``, the final ``elbo`` and its ``elbo_trace``, ``prior_variance`` (V), ``pip``, and
the credible sets of ``susie_get_cs(fit, X = X)`` (0-based variables, purest first), their
``coverage`` and ``purity`` (min, mean, median |corr|). R prints 7 significant digits.

Run: ALPHAVB_DATA=../shared/data python benchmarks/susier_reference.py
"""

import json
import subprocess
from pathlib import Path

from alphavb.datasets import get_data_home

R_SCRIPT = """
suppressMessages(library(susieR))
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
}}
"""


def parse(text):
    """The R script's lines as one dict per response."""
    reference, key = {}, None
    for line in text.splitlines():
        parts = line.split()
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
    run = subprocess.run(["Rscript", "-e", R_SCRIPT.format(folder=folder)], check=True,
                         capture_output=True, text=True)
    reference = parse(run.stdout)
    target = Path(__file__).resolve().parent.parent / "tests" / "data" / \
        "susier_n3finemapping.json"
    target.write_text(json.dumps(reference))
    for key, fit in reference.items():
        print(f"{key}: susieR {fit['susieR']}, {fit['seconds']} s, {fit['niter']} "
              f"iterations, {len(fit['cs'])} credible sets -> {target}")


if __name__ == "__main__":
    main()
