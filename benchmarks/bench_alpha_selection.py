"""The cost of one AlphaSelector selection for every model and method.

No other implementation selects alpha for these models (R's SafeBayes has ridge and lasso
only), so this is a cost table, not a comparison: seconds per selection (median of
``--repeats``, the final refit included, after one warm-up that compiles the kernels) and
the fits it used (``n_fits_``), on the default 13-value grid, for

* AlphaSpikeSlabRegression, n = 200, d = 20 (3 non-zero coefficients);
* AlphaSpikeSlabClassifier, n = 300, d = 10 (2 non-zero);
* AlphaGaussianMixture, n = 500 points in 2-D from 3 components, K = 3;
* AlphaLDA, 200 documents of 80 words, vocabulary 100, 5 topics.

Run: python benchmarks/bench_alpha_selection.py [--repeats R] [--methods M ...]
"""

import argparse
import time
import warnings

import numpy as np

from alphavb import (
    AlphaGaussianMixture,
    AlphaLDA,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
)
from alphavb.model_selection import METHODS, AlphaSelector


def problems():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 20))
    coef = np.r_[1.0, -0.8, 0.6, np.zeros(17)]
    yield "spike-and-slab regression", AlphaSpikeSlabRegression(), X, X @ coef + rng.normal(
        size=200)
    X = rng.normal(size=(300, 10))
    labels = (X[:, 0] - X[:, 1] + rng.logistic(size=300) > 0).astype(int)
    yield "spike-and-slab classifier", AlphaSpikeSlabClassifier(random_state=0), X, labels
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    points = centres[rng.integers(3, size=500)] + rng.normal(size=(500, 2))
    yield "Gaussian mixture", AlphaGaussianMixture(3, random_state=0), points, None
    topics = rng.dirichlet(np.full(100, 0.1), size=5)
    documents = np.array([rng.multinomial(80, rng.dirichlet(np.full(5, 0.5)) @ topics)
                          for _ in range(200)])
    yield "LDA", AlphaLDA(5, random_state=0), documents, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    args = parser.parse_args()
    print("| model | method | seconds | fits | alpha_ |")
    print("|---|---|---|---|---|")
    for name, estimator, X, y in problems():
        for method in args.methods:
            selector = AlphaSelector(estimator, method=method, random_state=0)
            seconds = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # calibration at the grid's end
                for repeat in range(args.repeats + 1):
                    start = time.perf_counter()
                    try:
                        selector.fit(X, y)
                    except ValueError as error:
                        seconds = None
                        print(f"| {name} | {method} | refused: {str(error)[:60]}... | | |")
                        break
                    if repeat:  # the first run compiles the kernels
                        seconds.append(time.perf_counter() - start)
            if seconds is not None:
                print(f"| {name} | {method} | {np.median(seconds):.3g} | {selector.n_fits_} "
                      f"| {selector.alpha_:.3g} |", flush=True)


if __name__ == "__main__":
    main()
