"""An experiment toward the credible-set calibration's next rule: its replicates with the
background as rule v3 draws it (``gaussian``) or keeping the fit's structure
(``structured``: ``E[theta]`` plus noise up to ``tau2``;
:func:`alphavb.linear_model._susie_calibration.bootstrap_worlds`). Per replicate of the
susie2 benchmark (the benchmark's seeds): the pooled replicate coverage of SuSiE at alpha =
1 and SuSiE-inf at alpha = 1, 0.75, 0.5, and the same four fits' outcomes on the
replicate's own data (sets covering, sets, causal variants found, causal variants), so that
a rule on the replicate coverages is scored offline (``--analyse``). It led to rule v4,
which chooses the background by its evidence instead (``alphavb/linear_model/
_susie_calibration.py``); the analysis scores rule v3's choices. JSON lines, appended,
to ``results/calibration-worlds/worlds_<background>.jsonl``.

Run: ALPHAVB_DATA=../shared/data python benchmarks/calibration_replicates_experiment.py \\
        S2,sparse3,S1 20 structured          (about 30 s per replicate on one core)
     python benchmarks/calibration_replicates_experiment.py --analyse FILE
"""

import json
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from alphavb import AlphaSuSiE
from alphavb.linear_model import _susie_calibration as calibration
from alphavb.reproduce import susie2_benchmark as benchmark
from alphavb.simulation._cells import _seeds

CANDIDATES = (("plain", 1.0), ("inf", 1.0), ("inf", 0.75), ("inf", 0.5))
N_WORLDS = 10


def replicate_data(scenario, replicate):
    """The benchmark's replicate ``replicate`` of ``scenario`` (its seed): ``X``, ``y`` and
    the causal variables."""
    seed = _seeds(0, replicate, {"n_samples": benchmark.data.N_SAMPLES})[0]
    X, y, truth = benchmark._simulate(benchmark.data.N_SAMPLES, seed, scenario,
                                      benchmark.data.WINDOW)
    return X, y, set(truth["causal"].tolist())


def outcome(model, causal):
    sets = [set(found["variables"]) for found in model.credible_sets_]
    found = causal & set().union(*sets) if sets else set()
    return sum(bool(members & causal) for members in sets), len(sets), len(found), len(causal)


def record(scenarios, replicates, background):
    out = Path("results/calibration-worlds")
    out.mkdir(parents=True, exist_ok=True)
    warnings.simplefilter("ignore")
    with threadpool_limits(1), open(out / f"worlds_{background}.jsonl", "a") as handle:
        for scenario in scenarios:
            for replicate in range(replicates):
                X, y, causal = replicate_data(scenario, replicate)
                source = calibration.RowSource(X)
                reference = calibration.reference_fit(AlphaSuSiE(), source, y)
                worlds = calibration.bootstrap_worlds(
                    reference, source, N_WORLDS, np.random.default_rng(1000 + replicate),
                    background)
                row = {"scenario": scenario, "replicate": replicate, "mode": background,
                       "tau2": reference.infinitesimal_variance_}
                for kind, alpha in CANDIDATES:
                    estimator = AlphaSuSiE(unmappable_effects=None if kind == "plain" else kind)
                    row[f"world_{kind}_{alpha}"] = calibration.credible_set_coverage(
                        estimator, source, worlds, alpha)
                    model = clone(estimator).set_params(alpha=alpha).fit(X, y)
                    row[f"real_{kind}_{alpha}"] = outcome(model, causal)
                handle.write(json.dumps(row) + "\n")
                handle.flush()


def extend(path, scenarios, extra_worlds):
    """Add SuSiE's coverage in ``extra_worlds`` more replicates (the ones after the first
    ``N_WORLDS`` of the same draw) to each recorded row of ``scenarios``, as
    ``world_plain_1.0_extra``: a test of SuSiE on more replicates, scored offline."""
    warnings.simplefilter("ignore")
    with open(path) as handle:
        rows = [json.loads(line) for line in handle]
    with threadpool_limits(1):
        for row in rows:
            if row["scenario"] not in scenarios or "world_plain_1.0_extra" in row:
                continue
            X, y, _ = replicate_data(row["scenario"], row["replicate"])
            source = calibration.RowSource(X)
            reference = calibration.reference_fit(AlphaSuSiE(), source, y)
            worlds = calibration.bootstrap_worlds(
                reference, source, N_WORLDS + extra_worlds,
                np.random.default_rng(1000 + row["replicate"]), row["mode"])
            row["world_plain_1.0_extra"] = calibration.credible_set_coverage(
                AlphaSuSiE(), source, worlds[N_WORLDS:], 1.0)
            with open(f"{path}.{row['scenario']}.extra", "a") as handle:
                handle.write(json.dumps(row) + "\n")


def choose(row, plain_significance, significance=calibration.SIGNIFICANCE):
    """Rule v3's choice on one replicate's recorded coverages (SuSiE's test at
    ``plain_significance``)."""
    plain = np.array(row["world_plain_1.0"]) + np.array(row.get("world_plain_1.0_extra",
                                                                 (0, 0)))
    if calibration.covers(*plain, 0.95, plain_significance):
        return CANDIDATES[0]
    coverage = {}
    for kind, alpha in CANDIDATES[1:]:
        covering, total = row[f"world_{kind}_{alpha}"]
        coverage[(kind, alpha)] = covering / total if total else 1.0
        if calibration.covers(covering, total, 0.95, significance):
            return kind, alpha
    return max(coverage, key=lambda key: (coverage[key], key[1]))


def analyse(*paths):
    """Rule v3's outcomes at three levels of SuSiE's test, per scenario, from the rows of
    ``paths`` (rows with ``world_plain_1.0_extra`` test SuSiE on all their replicates)."""
    rows = []
    for path in paths:
        with open(path) as handle:
            rows += [json.loads(line) for line in handle]
    for plain_significance in (0.5, 0.2, 0.05):
        line = [f"SuSiE tested at {plain_significance}"]
        for scenario in sorted({row["scenario"] for row in rows}):
            found = np.array([row["real_{}_{}".format(*choose(row, plain_significance))]
                              for row in rows if row["scenario"] == scenario])
            line.append(f"{scenario}: coverage {found[:, 0].sum() / max(found[:, 1].sum(), 1):.3f}"
                        f", power {found[:, 2].sum() / max(found[:, 3].sum(), 1):.3f}")
        print("; ".join(line))


if __name__ == "__main__":
    if sys.argv[1] == "--analyse":
        analyse(*sys.argv[2:])
    elif sys.argv[1] == "--extend":
        extend(sys.argv[2], sys.argv[3].split(","), int(sys.argv[4]))
    else:
        record(sys.argv[1].split(","), int(sys.argv[2]), sys.argv[3])
