"""Gaussian mixture: AlphaGaussianMixture against scikit-learn's BayesianGaussianMixture.

Both fit the same data with the same priors (scikit-learn's defaults, resolved once and
passed to both), the same first responsibilities (``init_params="kmeans"`` with the same
``random_state``: scikit-learn's k-means labels) and ``alpha = 1``, full covariances,
``reg_covar = 0``. At those settings the two run the same CAVI map (tests/mixture checks the
fixed points agree to 1e-6), so the table compares

* wall time of the whole fit (k-means start included, median of ``--repeats``), iterations
  and time per iteration;
* the stopping rules are matched: scikit-learn stops when its bound moves by less than
  ``tol`` (absolute), alphavb when its objective moves by less than ``tol`` times its
  magnitude, so alphavb gets ``tol / |objective|``;
* the final bound, both evaluated with alphavb's exact alpha-ELBO (scikit-learn's
  ``lower_bound_`` drops constants), and the largest difference between the fitted means,
  both taken one step (responsibilities, then the global step) past the final parameters.

alphavb runs its local step on ``numba.get_num_threads()`` threads (all cores unless
``NUMBA_NUM_THREADS`` says otherwise); scikit-learn's matrix products use the BLAS threads.
Both are shown with 1 thread and with all cores (threadpoolctl limits the BLAS).

Run: python benchmarks/bench_gmm.py [--repeats R] [--sizes 1000x2x3 100000x10x10]
"""

import argparse
import time
import warnings

import numba
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import BayesianGaussianMixture
from threadpoolctl import threadpool_limits

from alphavb import AlphaGaussianMixture
from alphavb.datasets import make_gmm
from alphavb.mixture._estep import Statistics as _Statistics


def problem(n, p, k):
    """Overlapping unit-covariance components (means N(0, 2.5^2 I)): scikit-learn and alphavb
    both take hundreds of iterations at (100000, 10, 10), and stopping at tol = 1e-3 lands
    within 3e-9 of the fixed point reached with tol = 1e-14."""
    X, _, _ = make_gmm(n_samples=n, n_components=k, n_features=p, mean_scale=2.5,
                       min_separation=0.0, random_state=0)
    return X


def next_state(model, X, resp):
    """The global step of given responsibilities, and alphavb's exact objective there."""
    stats = _Statistics.from_responsibilities(X, np.ones(len(X)), resp)
    neg_entropy = float(np.sum(resp * np.log(np.where(resp > 0, resp, 1.0))))
    post = model._global_step(stats)
    return post, model._objective(post, stats, neg_entropy)


def final_states(model, reference, X):
    """Both fits taken one step further in the same way (responsibilities at the final
    parameters, then the global step, which is also scikit-learn's M-step), so the means
    and the exact objective are compared at the same point of the iteration."""
    ours = next_state(model, X, model.predict_proba(X))
    theirs = next_state(model, X, np.exp(reference._e_step(X)[1]))
    return ours, theirs


def bench(n, p, k, repeats, tol, threads):
    X = problem(n, p, k)
    priors = {"weight_concentration_prior_type": "dirichlet_distribution",
              "weight_concentration_prior": 1.0 / k, "mean_precision_prior": 1.0,
                  "mean_prior": X.mean(axis=0), "degrees_of_freedom_prior": float(p),
                  "covariance_prior": np.cov(X.T)}
    common = dict(init_params="kmeans", random_state=0, max_iter=2000, **priors)
    AlphaGaussianMixture(k, max_iter=2, **priors).fit(X[:200])  # compile (or load the cache)

    # alphavb's relative tol equivalent to scikit-learn's absolute tol
    probe = AlphaGaussianMixture(k, tol=1e-10, **common).fit(X)
    relative_tol = tol / abs(probe.elbo_)

    rows = []
    for n_threads in threads:
        numba.set_num_threads(n_threads)
        with threadpool_limits(limits=n_threads):
            times = {"sklearn": [], "alphavb": []}
            for _ in range(repeats):
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    reference = BayesianGaussianMixture(
                        n_components=k, reg_covar=0.0, tol=tol, **common).fit(X)
                times["sklearn"].append(time.perf_counter() - start)
                start = time.perf_counter()
                model = AlphaGaussianMixture(k, tol=relative_tol, **common).fit(X)
                times["alphavb"].append(time.perf_counter() - start)
        sk_seconds = float(np.median(times["sklearn"]))
        ours_seconds = float(np.median(times["alphavb"]))
        (ours, ours_elbo), (theirs, theirs_elbo) = final_states(model, reference, X)
        rows.append({
            "case": f"({n}, {p}, {k})", "threads": n_threads,
            "sklearn_s": sk_seconds, "alphavb_s": ours_seconds,
            "speedup": sk_seconds / ours_seconds,
            "sklearn_iter": reference.n_iter_, "alphavb_iter": model.n_iter_,
            "sklearn_ms_per_iter": 1e3 * sk_seconds / reference.n_iter_,
            "alphavb_ms_per_iter": 1e3 * ours_seconds / model.n_iter_,
            "alphavb_elbo": ours_elbo, "elbo_diff": ours_elbo - theirs_elbo,
            "max_mean_diff": float(np.max(np.abs(theirs.means - ours.means))),
        })
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", nargs="+", default=["1000x2x3", "100000x10x10"])
    parser.add_argument("--tol", type=float, default=1e-3,
                        help="scikit-learn's absolute tol (its default is 1e-3)")
    args = parser.parse_args()
    all_threads = numba.config.NUMBA_NUM_THREADS
    threads = sorted({1, all_threads})
    header = ("case", "threads", "sklearn_s", "alphavb_s", "speedup", "sklearn_iter",
              "alphavb_iter", "sklearn_ms_per_iter", "alphavb_ms_per_iter", "alphavb_elbo",
              "elbo_diff", "max_mean_diff")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for size in args.sizes:
        n, p, k = (int(v) for v in size.split("x"))
        for row in bench(n, p, k, args.repeats, args.tol, threads):
            cells = [(f"{row[h]:.10g}" if h == "alphavb_elbo" else f"{row[h]:.4g}")
                     if isinstance(row[h], float) else str(row[h]) for h in header]
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
