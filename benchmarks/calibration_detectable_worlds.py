"""A rule the credible-set calibration did not take: in a locus with evidence for a
background, count a replicate's variable as causal only when its whole drawn effect
(single effect plus background) is detectable (power >= 0.8 at the Bonferroni level, the
benchmark's rule for every variable), instead of every drawn single effect
(:func:`alphavb.linear_model._susie_calibration.bootstrap_worlds`, ``causal="detectable"``).
The hope: the sets that miss in S2 sit on real effects below the power cut
(``susie2_misses.py``), so replicates that count such effects as misses would lower alpha
there. Per replicate (the benchmark's seeds), as rule v4 draws them: the background's
evidence, then on the same 10 replicates the pooled coverage of SuSiE-inf (or SuSiE,
without evidence) at the alphas from 1 down, under both counts, until each count's
binomial test passes; the alpha each count chooses, and the outcome on the replicate's own
data (sets covering, sets, causal found, causal).

Run: ALPHAVB_DATA=../shared/data python benchmarks/calibration_detectable_worlds.py S2 \\
        17,18,30,31,38,39        (the S2 replicates with a miss among the first 40)
"""

import sys
import warnings

import numpy as np
from calibration_replicates_experiment import outcome, replicate_data  # benchmarks/
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from alphavb import AlphaSuSiE
from alphavb.linear_model import _susie_calibration as calibration
from alphavb.model_selection._selector import default_alphas

COUNTS = ("drawn", "detectable")


def choose(scenario, replicate, n_worlds=10):
    """The two counts' coverages by alpha and choices, and the real outcomes."""
    X, y, causal = replicate_data(scenario, replicate)
    estimator = AlphaSuSiE(unmappable_effects="inf")
    source = calibration.RowSource(X)
    generator = np.random.default_rng(check_random_state(0).randint(2**31 - 1))  # the
    seed = generator.bit_generator.state  # selector's stream, replayed for each count
    reference, background, (gain, threshold) = calibration.reference_by_evidence(
        estimator, source, y)
    worlds = {}
    for count in COUNTS:
        generator.bit_generator.state = seed
        worlds[count] = calibration.bootstrap_worlds(reference, source, n_worlds, generator,
                                                     causal=count)
    model = calibration.clone_with(estimator, unmappable_effects=background)
    coverage, chosen = {}, {}
    for alpha in sorted(default_alphas(), reverse=True):
        tallies = {count: [0, 0] for count in COUNTS}
        for index, world in enumerate(worlds["drawn"]):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted = source.fit(calibration.clone_with(model, alpha=alpha), world.response)
            for count in COUNTS:
                held = worlds[count][index].causal
                for found in fitted.credible_sets_:
                    tallies[count][0] += bool(held.intersection(found["variables"]))
                    tallies[count][1] += 1
        coverage[alpha] = tallies
        for count in COUNTS:
            if count not in chosen and calibration.covers(*tallies[count], 0.95):
                chosen[count] = alpha
        if len(chosen) == len(COUNTS):
            break
    outcomes = {}
    for count in COUNTS:
        alpha = chosen.get(count, alpha)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fitted = calibration.clone_with(estimator, unmappable_effects=background,
                                            alpha=alpha).fit(X, y)
        outcomes[count] = (alpha, outcome(fitted, causal))
    return gain, threshold, coverage, outcomes


def main():
    scenario, replicates = sys.argv[1], [int(part) for part in sys.argv[2].split(",")]
    with threadpool_limits(1):
        for replicate in replicates:
            gain, threshold, coverage, outcomes = choose(scenario, replicate)
            at_one = coverage[1.0]
            print(f"{scenario} replicate {replicate}: evidence {gain:.1f} (threshold "
                  f"{threshold:.2f}); alpha = 1 covers " + ", ".join(
                      f"{count} {at_one[count][0]}/{at_one[count][1]}" for count in COUNTS)
                  + "; chosen " + ", ".join(
                      f"{count} {alpha:.3g} (real: {found[0]}/{found[1]} sets cover)"
                      for count, (alpha, found) in outcomes.items()), flush=True)


if __name__ == "__main__":
    main()
