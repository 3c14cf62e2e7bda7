"""Time of the exact NUTS samplers (alphavb.exact, NumPyro) for a user's first and second call.

A process pays JAX's compiles on its first chain: the sampler's loop (one program per model
and data) and every op evaluated outside a compiled program (each such op is compiled on its
own, about 20 ms each here). This runs each problem in fresh processes (no persistent JAX
cache, as a user has by default) and reports the median, over ``--repeats`` processes, of
the first ``sample_exact`` call and of a second identical call in the same process (the
loop compiled again: numpyro builds new functions per run; the ops cached). Problems: the
tests' K = 1 full-covariance mixture (40 x 2), a K = 2 mixture in years and dollars (150 x
2) and a K = 2 LDA (4 documents x 5 words); 2 chains, 500 tuning steps, 1,000 draws.

Run: python benchmarks/bench_exact_nuts.py [--repeats R]
"""

import argparse
import json
import statistics
import subprocess
import sys

PROBLEMS = {
    "mixture K=1 full, 40 x 2": """
rng = np.random.default_rng(3)
X = rng.normal(size=(40, 2)) @ np.array([[1.0, 0.4], [0.0, 0.6]]) + [1.0, -2.0]
model = AlphaGaussianMixture(1, alpha=0.5, random_state=0)
""",
    "mixture K=2 full, years and dollars, 150 x 2": """
rng = np.random.default_rng(9)
group = rng.integers(0, 2, 150)
X = np.column_stack([np.where(group, 55.0, 30.0) + 5.0 * rng.normal(size=150),
                     np.where(group, 80e3, 35e3) + 9e3 * rng.normal(size=150)])
model = AlphaGaussianMixture(2, random_state=0)
""",
    "LDA K=2, 4 x 5": """
X = np.random.default_rng(6).poisson(2.0, size=(4, 5))
model = AlphaLDA(2, alpha=0.5, random_state=0)
""",
}

RUN = """
import json, time, warnings
import numpy as np
from alphavb import AlphaGaussianMixture, AlphaLDA
from alphavb.exact import sample_exact
warnings.simplefilter("ignore")
{setup}
seconds = []
for _ in range(2):
    start = time.perf_counter()
    sample_exact(model, X, n_draws=1000, n_chains=2, n_tune=500, random_state=0)
    seconds.append(time.perf_counter() - start)
print(json.dumps(seconds))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'problem':46s} {'first call s':>13s} {'second call s':>14s}")
    for name, setup in PROBLEMS.items():
        runs = [json.loads(subprocess.run([sys.executable, "-c", RUN.format(setup=setup)],
                                          capture_output=True, text=True, check=True)
                           .stdout.strip().splitlines()[-1]) for _ in range(args.repeats)]
        first = statistics.median(run[0] for run in runs)
        second = statistics.median(run[1] for run in runs)
        print(f"{name:46s} {first:13.1f} {second:14.1f}")


if __name__ == "__main__":
    main()
