"""Every public estimator declares every constructor parameter once, and a value outside a
declaration is refused when ``fit`` starts with a ValueError that names the parameter."""

import autograd.numpy as anp
import numpy as np
import pytest

from alphavb import (
    AADMRegressor,
    AlphaGaussianMixture,
    AlphaGaussianVB,
    AlphaLDA,
    AlphaLinearRegression,
    AlphaLogisticRegression,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
    AlphaSuSiE,
    BBAlphaClassifier,
    BBAlphaRegressor,
)
from alphavb._validation import (
    Boolean,
    CallableValue,
    FiniteArray,
    FittedWith,
    Integer,
    LayerSizes,
    Options,
    PositivePair,
    ProbabilityGrid,
    RandomState,
    Real,
    TemperatureGrid,
    VarianceBounds,
)


def normal_log_likelihood(theta, X, y):
    return -0.5 * anp.sum((y[None, :] - anp.dot(theta, X.T)) ** 2, axis=1)


RNG = np.random.default_rng(0)
X_REG = RNG.normal(size=(30, 3))
Y_REG = X_REG @ [1.0, -1.0, 0.5] + 0.1 * RNG.normal(size=30)
Y_CLASS = (Y_REG > 0).astype(int)
COUNTS = RNG.poisson(2.0, size=(20, 8)).astype(float)

# (estimator, arguments of fit)
CASES = [
    (AlphaLinearRegression(), (X_REG, Y_REG)),
    (AlphaSpikeSlabRegression(), (X_REG, Y_REG)),
    (AlphaGaussianMixture(2), (X_REG,)),
    (AlphaLDA(2), (COUNTS,)),
    (BBAlphaRegressor(), (X_REG, Y_REG)),
    (BBAlphaClassifier(), (X_REG, Y_CLASS)),
    (AADMRegressor(), (X_REG, Y_REG)),
    (AlphaGaussianVB(normal_log_likelihood, 3), (X_REG, Y_REG)),
    (AlphaLogisticRegression(), (X_REG, Y_CLASS)),
    (AlphaSpikeSlabClassifier(), (X_REG, Y_CLASS)),
]
IDS = [type(estimator).__name__ for estimator, _ in CASES]


def candidates(constraint):
    """Values that break ``constraint`` (a value is used only if it breaks them all)."""
    if constraint is None:
        return [None]
    if isinstance(constraint, Boolean):
        return ["False", "True", 0, 1.0, None]
    if isinstance(constraint, (Real, Integer)):
        values = [np.nan, np.inf, "1", True, None, [1.0]]
        if isinstance(constraint, Integer):
            values.append(1.5)
        if constraint.low is not None:
            values += [constraint.low - 1.0, constraint.low - 1]
        if constraint.high is not None:
            values += [constraint.high + 1.0, constraint.high + 1]
        if constraint.closed in ("neither", "right") and constraint.low is not None:
            values.append(constraint.low)
        if constraint.closed in ("neither", "left") and constraint.high is not None:
            values.append(constraint.high)
        return values
    if isinstance(constraint, Options):
        return ["no-such-option", 1, None]
    if isinstance(constraint, RandomState):
        return [-1, "seed", 1.5]
    if isinstance(constraint, CallableValue):
        return [3, None]
    if isinstance(constraint, PositivePair):
        return [(1.0,), (1.0, -1.0), "ab", (1.0, np.nan), None, (1.0, 10**400)]
    if isinstance(constraint, VarianceBounds):
        return [(1.0,), (-1.0, None), (2.0, 1.0), (0.0, np.inf), "ab", None, (np.nan, None)]
    if isinstance(constraint, FittedWith):
        return [3, "model", object()]
    if isinstance(constraint, LayerSizes):
        return [(0,), (5, -1), "ab", 2.5, None]
    if isinstance(constraint, ProbabilityGrid):
        return [[0.5, 1.0], [[0.1, 0.2]], [], "ab", [0.0], [0.5, np.nan], None, [0.5, 10**400]]
    if isinstance(constraint, TemperatureGrid):
        return [True, "0.5", [], [0.0], [1.5], [0.5, np.nan], [0.5 + 1j], {1: 0.5}, [[0.5]],
                10**400, [0.5, 10**400]]
    if isinstance(constraint, FiniteArray):
        return ["ab", np.nan, [1.0, np.inf], [], None, [1.0, 10**400], -(10**400),
                *([-1.0] if constraint.positive else [])]
    raise AssertionError(f"no bad values for {constraint!r}")


def bad_values(constraints):
    found = []
    for constraint in constraints:
        for value in candidates(constraint):
            satisfied = any(value is None if c is None else c.is_satisfied_by(value)
                            for c in constraints)
            if not satisfied and not any(value is v for v in found):
                found.append(value)
    return found


@pytest.mark.parametrize(("estimator", "fit_args"), CASES, ids=IDS)
def test_every_parameter_is_declared(estimator, fit_args):
    assert set(estimator._parameter_constraints) == set(estimator.get_params(deep=False))


@pytest.mark.parametrize(("estimator", "fit_args"), CASES, ids=IDS)
def test_every_bad_value_names_its_parameter(estimator, fit_args):
    owner = type(estimator).__name__
    checked = 0
    for name, constraints in estimator._parameter_constraints.items():
        values = bad_values(constraints)
        assert values, f"no bad value generated for {owner}.{name}"
        for value in values:
            model = estimator.__class__(**{**estimator.get_params(deep=False), name: value})
            with pytest.raises(ValueError, match=f"'{name}' parameter of {owner}"):
                model.fit(*fit_args)
            checked += 1
    assert checked >= 2 * len(estimator._parameter_constraints)


@pytest.mark.parametrize(("estimator", "name"), [
    (AlphaLinearRegression(), "fit_intercept"),
    (AlphaSpikeSlabRegression(), "fit_intercept"),
    (BBAlphaRegressor(), "normalize"),
    (BBAlphaRegressor(), "early_stopping"),
    (AADMRegressor(), "normalize"),
    (AlphaLDA(2), "optimize_priors"),
    (AlphaGaussianMixture(2), "warm_start"),
    (AlphaLogisticRegression(), "fit_intercept"),
])
def test_the_string_false_is_not_a_bool(estimator, name):
    fit_args = dict(zip(IDS, (args for _, args in CASES), strict=True))[type(estimator).__name__]
    # (optimize_priors also takes the names of the priors: "must be a bool or a str among")
    with pytest.raises(ValueError, match=f"'{name}' parameter .* must be a bool[ .].*Got 'False'"):
        estimator.set_params(**{name: "False"}).fit(*fit_args)


def test_a_non_numeric_prior_names_itself():
    with pytest.raises(ValueError, match="'mean_prior' parameter of AlphaGaussianMixture"):
        AlphaGaussianMixture(2, mean_prior="ab").fit(X_REG)


@pytest.mark.parametrize("estimator", [AlphaLinearRegression(), AlphaSpikeSlabRegression()],
                         ids=["AlphaLinearRegression", "AlphaSpikeSlabRegression"])
@pytest.mark.parametrize("value", [(1.0, 10**400), 10**400, [10**400, 1], (1.0, 10**5000)],
                         ids=["pair", "int", "list", "beyond-int-repr-limit"])
def test_a_prior_beyond_float64_names_itself(estimator, value):
    """An int beyond float64's range (10**400) is refused by name, with the fix, not with
    the OverflowError of its conversion (nor the int-to-str limit's error past 4300 digits)."""
    owner = type(estimator).__name__
    with pytest.raises(ValueError, match=f"'noise_prior' parameter of {owner} must be .*a pair "
                                         r"\(a, b\) of finite positive floats\. Got .* instead"):
        estimator.set_params(noise_prior=value).fit(X_REG, Y_REG)


def test_the_message_carries_the_remedy():
    with pytest.raises(ValueError, match="alpha = 1 for ordinary VB"):
        AlphaLinearRegression(alpha=1.5).fit(X_REG, Y_REG)


# ------------------------------------------- public functions and methods (validate_params)


def _fitted(estimator, *fit_args):
    return estimator.fit(*fit_args)


def _function_cases():
    """(callable carrying its declared constraints, valid keyword arguments): every public
    function and method of alphavb that declares its parameters with validate_params."""
    import tempfile

    import pandas as pd

    from alphavb import datasets, divergences, risk, simulation
    from alphavb.inference_data import to_inference_data
    from alphavb.linear_model import sufficient_statistics

    linear = _fitted(AlphaLinearRegression(), X_REG, Y_REG)
    spike = _fitted(AlphaSpikeSlabRegression(), X_REG, Y_REG)
    susie = _fitted(AlphaSuSiE(n_effects=2), X_REG, Y_REG)
    logistic = _fitted(AlphaLogisticRegression(max_iter=200), X_REG, Y_CLASS)
    spike_class = _fitted(AlphaSpikeSlabClassifier(), X_REG, Y_CLASS)
    from alphavb import AlphaSuSiEClassifier

    susie_class = _fitted(AlphaSuSiEClassifier(n_effects=2), X_REG, Y_CLASS)
    mixture = _fitted(AlphaGaussianMixture(2, random_state=0), X_REG)
    lda = _fitted(AlphaLDA(2, random_state=0), COUNTS)
    bbalpha = _fitted(BBAlphaRegressor(hidden_layer_sizes=(3,), n_epochs=2, tol=None,
                                       random_state=0),
                      X_REG, Y_REG)
    gaussian_vb = _fitted(AlphaGaussianVB(normal_log_likelihood, 3, max_iter=20,
                                          random_state=0), X_REG, Y_REG)
    from alphavb import BBAlphaClassifier

    network_classifier = _fitted(BBAlphaClassifier(hidden_layer_sizes=(3,), n_epochs=2,
                                                   tol=None, random_state=0), X_REG, Y_CLASS)

    def sample_p(n, rng):
        return rng.normal(size=n)

    def log_normal(x):
        return -0.5 * x**2

    study_rows = pd.DataFrame({"estimate": [1.0, 1.2, 0.9], "true": 1.0, "se": [0.1, 0.2, 0.1],
                               "alpha": 1.0, "replication": [0, 1, 2], "status": "ok"})
    rate_rows = pd.DataFrame({"n_samples": [100, 200, 400, 800], "risk": [0.4, 0.2, 0.1, 0.05],
                              "alpha": 1.0})
    study = {"problem": "linear_regression", "estimator": AlphaLinearRegression(),
             "grid": {"n_samples": [20]}, "n_replications": 1}
    return [
        (datasets.make_sparse_regression, {"n_samples": 10, "n_features": 5}),
        (datasets.make_gmm, {"n_samples": 10}),
        (datasets.make_wrong_model_regression, {"n_samples": 10, "n_features": 5}),
        (datasets.make_heteroscedastic, {"n_samples": 10}),
        (datasets.make_bimodal, {"n_samples": 10}),
        (datasets.make_lda_corpus, {"n_documents": 5, "n_words": 10}),
        (divergences.renyi_normal, {"mean1": 0.0, "var1": 1.0, "mean2": 1.0, "var2": 2.0}),
        (divergences.renyi_mvn, {"mean1": np.zeros(2), "cov1": np.eye(2),
                                 "mean2": np.ones(2), "cov2": np.eye(2)}),
        (divergences.renyi_categorical, {"p": [0.5, 0.5], "q": [0.2, 0.8]}),
        (divergences.hellinger_monte_carlo, {"log_p": log_normal, "log_q": log_normal,
                                             "sample_p": sample_p, "n_samples": 10}),
        (divergences.renyi_monte_carlo, {"log_p": log_normal, "log_q": log_normal,
                                         "sample_p": sample_p, "n_samples": 10}),
        (divergences.normal_divergence, {"mean1": 0.0, "var1": 1.0, "mean2": 1.0,
                                         "var2": 2.0}),
        (divergences.categorical_divergence, {"p": [0.5, 0.5], "q": [0.2, 0.8]}),
        (divergences.log_ratio_divergence, {"log_ratio": [0.1, -0.2, 0.0]}),
        (risk.regression_risk, {"model": linear, "X": X_REG, "coef": np.ones(3),
                                "noise_variance": 1.0, "n_draws": 5}),
        (risk.logistic_risk, {"model": logistic, "X": X_REG, "coef": np.ones(3),
                              "n_draws": 5}),
        (risk.mixture_risk, {"model": mixture, "means": np.zeros((1, 3)), "n_draws": 3,
                             "n_points": 20}),
        (risk.lda_risk, {"model": lda, "X": COUNTS, "doc_topic": np.full((20, 2), 0.5),
                         "topic_word": np.full((2, 8), 1 / 8), "n_draws": 2}),
        (sufficient_statistics, {"X": X_REG, "y": Y_REG}),
        (simulation.run_study, {**study, "progress": False}),
        (simulation.collect_study, {**study, "cache_dir": tempfile.mkdtemp()}),
        (simulation.study_cell, {"problem": "linear_regression",
                                 "estimator": AlphaLinearRegression(),
                                 "point": {"n_samples": 20}, "replication": 0}),
        (simulation.summarise_study, {"frame": study_rows}),
        (simulation.fit_rate, {"df": rate_rows, "complexity": 1.0}),
        (to_inference_data, {"estimator": linear, "n_draws": 10}),
        (linear.sample_posterior, {"n_samples": 2}),
        (linear.credible_intervals, {}),
        (linear.summary, {}),
        (linear.summary_frame, {}),
        (spike.credible_intervals, {}),
        (susie.credible_intervals, {}),
        (susie.sample_posterior, {"n_samples": 2}),
        (spike.select, {}),
        (lda.perplexity, {"X": COUNTS}),
        (network_classifier.sample_posterior, {"n_samples": 2}),
        (spike.summary, {}),
        (spike_class.sample_posterior, {"n_samples": 2}),
        (susie_class.sample_posterior, {"n_samples": 2}),
        (mixture.sample_posterior, {"n_samples": 2}),
        (mixture.sample, {"n_samples": 2}),
        (lda.sample_posterior, {"n_samples": 2}),
        (lda.top_words, {"feature_names": [f"w{i}" for i in range(8)], "n": 2}),
        (bbalpha.sample_posterior, {"n_samples": 2}),
        (bbalpha.sample_predictive, {"X": X_REG, "n_samples": 2}),
        (gaussian_vb.sample, {"n_samples": 2}),
        (logistic.credible_intervals, {}),
    ]


def _owner(function):
    bound_to = getattr(function, "__self__", None)
    return type(bound_to).__name__ if bound_to is not None else function.__name__


def test_every_declared_function_refuses_each_bad_value_by_name():
    """The declared constraints of each public function hold at its call, with the
    InvalidParameterError (a ValueError and a TypeError) naming the parameter and the
    function (or the method's class); the valid call runs."""
    from alphavb._validation import InvalidParameterError

    pytest.importorskip("arviz")
    for function, valid in _function_cases():
        constraints = function._parameter_constraints
        function(**valid)  # the valid arguments are valid
        for name, allowed in constraints.items():
            values = bad_values(allowed)
            assert values, f"no bad value generated for {_owner(function)}.{name}"
            for value in values:
                with pytest.raises(InvalidParameterError,
                                   match=f"'{name}' parameter of {_owner(function)} must be"):
                    function(**{**valid, name: value})


def test_every_declaring_public_function_is_tested():
    """A public function or method that declares its parameters is in the cases above (a
    new declaration cannot go untested)."""
    import inspect

    import alphavb
    from alphavb import datasets, divergences, risk, simulation
    from alphavb.inference_data import to_inference_data

    declared = set()
    classes = [getattr(alphavb, name) for name in alphavb.__all__
               if inspect.isclass(getattr(alphavb, name))]
    for owner in [datasets, divergences, risk, simulation]:
        for name in dir(owner):
            value = getattr(owner, name)
            if not name.startswith("_") and hasattr(value, "_parameter_constraints") \
                    and not inspect.isclass(value):
                declared.add(value.__qualname__)
    for cls in classes:
        for name, value in inspect.getmembers(cls, inspect.isfunction):
            if not name.startswith("_") and hasattr(value, "_parameter_constraints"):
                declared.add(value.__qualname__)
    declared.add(to_inference_data.__qualname__)
    tested = {getattr(function, "__func__", function).__qualname__
              for function, _ in _function_cases()}
    # a method is tested on one class of those sharing it (its qualname names the definer)
    assert declared <= tested, sorted(declared - tested)
    assert len(tested) >= 30


def test_invalid_parameter_error_is_a_value_and_a_type_error():
    from alphavb import InvalidParameterError
    from alphavb.datasets import make_gmm

    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of AlphaLinearRegression"):
        AlphaLinearRegression(alpha=0.0).fit(X_REG, Y_REG)
    with pytest.raises(TypeError, match="'n_samples' parameter of make_gmm must be an int >= 1"):
        make_gmm(n_samples=0)


def test_a_hint_follows_the_message_of_a_declared_function():
    from alphavb.divergences import renyi_normal
    from alphavb.simulation import run_study

    with pytest.raises(ValueError, match=r"must be a float in \(0.0, 1.0\)\. Got 1.0 instead\. "
                                         "The Rényi order must lie in"):
        renyi_normal(0.0, 1.0, 0.0, 1.0, order=1.0)
    with pytest.raises(ValueError, match=r"'random_state' parameter of run_study must be an int "
                                         r">= 0. Got 'a' instead. The seed of the study"):
        run_study("linear_regression", AlphaLinearRegression(), {"n_samples": [20]},
                  random_state="a",
                  progress=False)


def test_a_warning_of_a_declared_function_points_at_its_caller(tmp_path):
    """validate_params' wrapper adds a frame: the warnings of declared functions still name
    the line that called them."""
    import warnings

    from alphavb.divergences import renyi_normal
    from alphavb.simulation import collect_study

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        renyi_normal(0.0, 1e-300, 1e300, 1e-300)
        collect_study(tmp_path, "linear_regression", AlphaLinearRegression(),
                      {"n_samples": [20]}, n_replications=1)
    assert len(caught) == 2
    assert [w.filename for w in caught] == [__file__] * 2


def _not_numbers():
    import pandas as pd

    return {"numeric strings": (["1.5", "2"], "text"), "bytes": (np.array([b"1"]), "text"),
            "a string": ("3", "text"), "a series of them": (pd.Series(["1.5", "2"]), "text"),
            "string dtype": (pd.Series(["1.5", "2"], dtype="string"), "text"),
            "a date column": (pd.DataFrame({"a": [1.0, 2.0],
                                            "b": pd.to_datetime(["2020", "2021"])}), "dates"),
            "datetime64": (np.array(["2020-01-01"], dtype="M8[D]"), "dates"),
            "timedeltas": (pd.Series(pd.to_timedelta([1, 2], unit="D")), "durations"),
            "complex": (np.array([1 + 1j]), "complex values"),
            "ragged": ([[1, 2], [3]], "a ragged"),
            "structured": (np.zeros(2, dtype=[("a", float)]), "structured values"),
            "a bytearray": (bytearray(b"12"), "text"),
            "timedelta64 among floats": ([np.timedelta64(5, "D"), 1.0], "durations"),
            "complex64 among floats": (np.array([np.complex64(1 + 1j), 1.0], dtype=object),
                                       "complex values"),
            "a MultiIndex": (pd.MultiIndex.from_tuples([(1, 2)]), "values of type object")}


@pytest.mark.parametrize("case", list(_not_numbers()))
def test_float_values_refuses_what_is_not_a_number_by_name(case):
    """The data of sufficient statistics and genotype fits go through one conversion: text
    (numeric-looking too, which numpy and pandas read as numbers), dates and durations
    (read as nanoseconds), complex values (imaginary parts dropped) and ragged or
    structured arrays are refused naming the parameter."""
    from alphavb._validation import float_values

    value, found = _not_numbers()[case]
    with pytest.raises(ValueError, match=f"'x' parameter of owner must be numbers. Got "
                                         f"'{found}"):
        float_values("owner", "x", value)


def test_float_values_reads_pandas_missing_values_and_keeps_the_callers_array():
    import pandas as pd

    from alphavb._validation import float_values

    np.testing.assert_array_equal(
        float_values("owner", "x", pd.Series([1, pd.NA, 3], dtype="Int64")), [1, np.nan, 3])
    np.testing.assert_array_equal(float_values("owner", "x", [10**400, 1]), [np.inf, 1.0])
    mine = np.arange(3.0)
    assert float_values("owner", "x", mine) is mine
    # a masked entry is missing (its raw value was read), a list's pd.NA too; an object
    # with to_numpy that is not pandas' (xarray's) is read as an array (it was refused)
    masked = np.ma.masked_array([1.0, 999.0, 3.0], mask=[False, True, False])
    np.testing.assert_array_equal(float_values("owner", "x", masked), [1.0, np.nan, 3.0])
    np.testing.assert_array_equal(float_values("owner", "x", [1.0, pd.NA]), [1.0, np.nan])

    class Labelled:  # the array protocol and to_numpy without pandas' arguments
        ndim = 1

        def __array__(self, dtype=None, copy=None):
            return np.array([1.0, 2.0])

        def to_numpy(self):
            return np.array([1.0, 2.0])

    np.testing.assert_array_equal(float_values("owner", "x", Labelled()), [1.0, 2.0])
