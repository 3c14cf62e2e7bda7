"""AADMRegressor() on diabetes with the caller's BLAS at 1 and at 2 threads: the same Adam
steps, the same fit, and the seconds of each (issue 58: the fit took 50-83 s with OpenBLAS's
default 2 threads against 8-9 s with one, and gave another fit, 4,840 against 4,112 steps).
Training now runs on one BLAS thread whatever the caller set
(:func:`alphavb._parallel.one_blas_thread`).

Data: scikit-learn's diabetes, the 80/20 split of ``bench_aadm_defaults.py`` (353 rows),
``random_state`` 0 and 1.

Run: python benchmarks/bench_aadm_threads.py   (no thread variables set)
"""

import time
import warnings

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from alphavb import AADMRegressor


def main():
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    print("| seed | caller's BLAS threads | seconds | Adam steps | epochs | max abs difference "
          "of predictions from the 1-thread fit |")
    print("|---|---|---|---|---|---|")
    for seed in (0, 1):
        reference = None
        for threads in (1, 2):
            with threadpool_limits(limits=threads, user_api="blas"), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                model = AADMRegressor(random_state=seed).fit(X_train, y_train)
                seconds = time.perf_counter() - start
                predictions = model.predict(X_test)
            if reference is None:
                reference = predictions
            print(f"| {seed} | {threads} | {seconds:.1f} | {model.n_steps_} | {model.n_iter_} "
                  f"| {np.abs(predictions - reference).max():.3g} |")


if __name__ == "__main__":
    main()
