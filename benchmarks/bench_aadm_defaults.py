"""AADMRegressor() with its defaults on data sets of a few hundred rows: seconds per fit,
whether the convergence rule stopped it inside the default budget (DEFAULT_AADM_STEPS Adam
steps), the epochs run and the test R^2, on one core (run with OMP_NUM_THREADS=1).

Data: scikit-learn's diabetes (442 rows) and UCI boston (506 rows, from $ALPHAVB_DATA when
there), an 80/20 split of each, seeds 0-3. The paper's UCI protocol is
``AADMRegressor(**alphavb.blackbox.AADM_PAPER_SETTINGS)`` (2,000 epochs at batch 10:
``alphavb reproduce aadm-uci``).

Run: OMP_NUM_THREADS=1 python benchmarks/bench_aadm_defaults.py [--seeds S]
"""

import argparse
import time
import warnings

from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split

from alphavb import AADMRegressor
from alphavb.datasets import load_uci


def data_sets():
    sets = {"diabetes": load_diabetes(return_X_y=True)}
    try:
        boston = load_uci("boston", download_if_missing=False)
        sets["boston"] = (boston.data, boston.target)
    except (FileNotFoundError, OSError) as error:
        print(f"boston skipped: {error}")
    return sets


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4)
    args = parser.parse_args()
    print(f"{'data':10s} {'rows':>5s} {'seed':>4s} {'seconds':>8s} {'converged':>9s} "
          f"{'epochs':>6s} {'test R^2':>8s}  warnings")
    for name, (X, y) in data_sets().items():
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2,
                                                            random_state=0)
        for seed in range(args.seeds):
            start = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                model = AADMRegressor(random_state=seed).fit(X_train, y_train)
            seconds = time.perf_counter() - start
            print(f"{name:10s} {len(y_train):5d} {seed:4d} {seconds:8.1f} "
                  f"{model.converged_!s:>9s} {model.n_iter_:6d} "
                  f"{model.score(X_test, y_test):8.3f}  {len(caught)}")


if __name__ == "__main__":
    main()
