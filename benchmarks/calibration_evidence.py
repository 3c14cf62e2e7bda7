"""The background's evidence of the credible-set calibration (rule v4), per replicate of the
susie2 benchmark (the benchmark's seeds): the gain of SuSiE-inf's objective over SuSiE's
(:func:`alphavb.linear_model._susie_calibration.background_evidence`) against log(n)/2, and
the outcomes on the replicate's own data (sets covering, sets, causal variants found,
causal variants) of SuSiE, SuSiE-inf from scratch and SuSiE-inf started from SuSiE's fit
(``init``), at alpha = 1. The vignette's counts of the replicates whose background counts
come from here (``--analyse``); so does the comparison of the two starts of SuSiE-inf. JSON
lines, appended, to ``results/calibration-evidence/evidence.jsonl``.

Run: ALPHAVB_DATA=../shared/data python benchmarks/calibration_evidence.py \\
        sparse1,sparse2,sparse3,sparse4,sparse5,S1,S2,t3,polygenic 0:20
        (about 10 s per replicate on one core)
     python benchmarks/calibration_evidence.py --analyse
"""

import json
import sys
import warnings
from pathlib import Path

from calibration_replicates_experiment import outcome, replicate_data  # benchmarks/
from threadpoolctl import threadpool_limits

from alphavb import AlphaSuSiE
from alphavb.linear_model import _susie_calibration as calibration

OUT = Path("results/calibration-evidence/evidence.jsonl")


def record(scenarios, first, last):
    OUT.parent.mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore")
    estimator = AlphaSuSiE(unmappable_effects="inf")
    with threadpool_limits(1), open(OUT, "a") as handle:
        for scenario in scenarios:
            for replicate in range(first, last):
                X, y, causal = replicate_data(scenario, replicate)
                source = calibration.RowSource(X)
                plain = calibration.reference_fit(estimator, source, y, background=None)
                gain, threshold = calibration.background_evidence(estimator, source, y, plain)
                cold = calibration.reference_fit(estimator, source, y)
                warm = calibration.reference_fit(estimator, source, y, init=plain)
                row = {"scenario": scenario, "replicate": replicate, "gain": gain,
                       "threshold": threshold, "plain": outcome(plain, causal),
                       "cold": outcome(cold, causal), "warm": outcome(warm, causal)}
                handle.write(json.dumps(row) + "\n")
                handle.flush()


def pooled(rows, name):
    """Coverage and power of the fits ``name`` pooled over ``rows``."""
    covering, sets, found, causal = (sum(row[name][k] for row in rows) for k in range(4))
    return covering / max(sets, 1), found / max(causal, 1)


def analyse():
    with open(OUT) as handle:
        rows = [json.loads(line) for line in handle]
    for scenario in dict.fromkeys(row["scenario"] for row in rows):
        part = [row for row in rows if row["scenario"] == scenario]
        kept = [row for row in part if row["gain"] > row["threshold"]]
        gains = sorted(row["gain"] for row in part)
        # the model by the evidence, at alpha = 1 (the calibration may lower alpha after)
        chosen = [{**row, "chosen": row["cold"] if row in kept else row["plain"]}
                  for row in part]
        print(f"{scenario}: {len(part)} replicates, background kept in {len(kept)} (gains "
              f"{gains[0]:.2f} to {gains[-1]:.2f}, threshold {part[0]['threshold']:.3f}); "
              + "; ".join(f"{name} coverage {c:.3f} power {p:.3f}" for name in
                          ("plain", "cold", "warm", "chosen")
                          for c, p in [pooled(chosen, name)]))


if __name__ == "__main__":
    if sys.argv[1] == "--analyse":
        analyse()
    else:
        first, last = map(int, sys.argv[2].split(":"))
        record(sys.argv[1].split(","), first, last)
