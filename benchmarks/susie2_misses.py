"""What the credible sets that miss are, in the susie2 benchmark's oligogenic scenarios: per
replicate (the benchmark's seeds), SuSiE-inf at alpha = 1 (what the calibration keeps in
S2: its mean selected alpha there is 1.00) on the replicate's data, and for each 95% set
that holds no causal variant (power >= 0.8, the benchmark's rule) which of these it is:

* ``weak effect``: it holds, or is in LD (|r| >= 0.5) with, one of the replicate's sparse or
  oligogenic variants that is not causal: a real effect that a Bonferroni test would find
  with power below 0.8 (its power and |b| in sd units are recorded);
* ``causal neighbour``: it is in LD (|r| >= 0.5) with a causal variant it does not hold;
* ``background``: neither (the infinitesimal background or noise).

Run: ALPHAVB_DATA=../shared/data python benchmarks/susie2_misses.py S2 0:60
     (about 3 s per replicate on one core)
"""

import sys
import warnings
from collections import Counter

import numpy as np
from threadpoolctl import threadpool_limits

from alphavb import AlphaSuSiE
from alphavb.linear_model._susie_calibration import detection_power
from alphavb.reproduce import _susie2_data as data
from alphavb.reproduce import susie2_benchmark as benchmark
from alphavb.simulation._cells import _seeds

LD = 0.5


def oligo_replicate(scenario, replicate):
    """The benchmark's replicate of an oligogenic scenario, as ``_simulate`` draws it, with
    its sparse and oligogenic variants and its noise variance."""
    seed = _seeds(0, replicate, {"n_samples": data.N_SAMPLES})[0]
    rng = np.random.default_rng(seed)
    X, _ = data.window_genotypes(benchmark._genotypes(), rng, data.N_SAMPLES, data.WINDOW, 0)
    drawn = data.oligo_response(X, scenario, rng)
    noise_variance = float(np.var(X @ drawn.coef, ddof=1) * (1.0 - data.H2G) / data.H2G)
    _, y, _ = benchmark._simulate(data.N_SAMPLES, seed, scenario, data.WINDOW)
    assert np.array_equal(y, drawn.y)  # the benchmark's replicate
    return X, drawn, noise_variance


def classify(scenario, replicate):
    """``(sets, [(kind, detail), ...], causal |b|)``: the replicate's number of sets, its
    missing sets and its causal variants' effects in sd units."""
    X, drawn, noise_variance = oligo_replicate(scenario, replicate)
    causal = set(drawn.causal.tolist())
    effects = np.setdiff1d(np.concatenate([drawn.sparse, drawn.oligo]), drawn.causal)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = AlphaSuSiE(unmappable_effects="inf").fit(X, drawn.y)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    misses = []
    for found in model.credible_sets_:
        members = np.asarray(found["variables"])
        if causal & set(members.tolist()):
            continue
        near = np.abs(Z[:, members].T @ Z / X.shape[0]).max(axis=0)  # |r| with the set
        weak = effects[near[effects] >= LD]
        if weak.size:
            strongest = weak[np.argmax(np.abs(drawn.coef[weak]))]
            misses.append(("weak effect", (
                float(detection_power(drawn.coef, np.var(X, axis=0, ddof=1), noise_variance,
                                      X.shape[0])[strongest]),
                float(abs(drawn.coef[strongest]) * X[:, strongest].std()))))
        elif any(near[c] >= LD for c in causal):
            misses.append(("causal neighbour", None))
        else:
            misses.append(("background", None))
    causal_sizes = np.abs(drawn.coef[drawn.causal]) * X[:, drawn.causal].std(axis=0)
    return len(model.credible_sets_), misses, causal_sizes


def main():
    scenario = sys.argv[1]
    first, last = (int(part) for part in sys.argv[2].split(":"))
    kinds, sets, details, sizes = Counter(), 0, [], []
    with threadpool_limits(1):
        for replicate in range(first, last):
            count, misses, causal_sizes = classify(scenario, replicate)
            sets += count
            sizes.extend(causal_sizes.tolist())
            for kind, detail in misses:
                kinds[kind] += 1
                if detail is not None:
                    details.append(detail)
                print(f"replicate {replicate}: {kind}" + (
                    f" (power {detail[0]:.2f}, |b| {detail[1]:.3f} sd)" if detail else ""),
                    flush=True)
    missed = sum(kinds.values())
    print(f"{scenario}, replicates {first}-{last - 1}: {sets} sets, {missed} miss "
          f"(coverage {1 - missed / max(sets, 1):.3f}): " + ", ".join(
              f"{kind} {count}" for kind, count in kinds.most_common()))
    if details:
        powers, weak = np.array(details).T
        print(f"weak effects' power: {np.min(powers):.2f}-{np.max(powers):.2f} "
              f"(median {np.median(powers):.2f}), |b| {np.min(weak):.3f}-{np.max(weak):.3f} "
              "sd")
    print(f"causal variants' |b|: {np.min(sizes):.3f}-{np.max(sizes):.3f} sd "
          f"({len(sizes)} variants)")


if __name__ == "__main__":
    main()
