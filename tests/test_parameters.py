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
    BBAlphaClassifier,
    BBAlphaRegressor,
)
from alphavb._validation import (
    Boolean,
    CallableValue,
    FiniteArray,
    Integer,
    LayerSizes,
    Options,
    PositivePair,
    ProbabilityGrid,
    RandomState,
    Real,
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
        return [(1.0,), (1.0, -1.0), "ab", (1.0, np.nan), None]
    if isinstance(constraint, LayerSizes):
        return [(0,), (5, -1), "ab", 2.5, None]
    if isinstance(constraint, ProbabilityGrid):
        return [[0.5, 1.0], [[0.1, 0.2]], [], "ab", [0.0], [0.5, np.nan], None]
    if isinstance(constraint, FiniteArray):
        return ["ab", np.nan, [1.0, np.inf], [], None, *([-1.0] if constraint.positive else [])]
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
    fit_args = dict(zip(IDS, (args for _, args in CASES)))[type(estimator).__name__]
    # (optimize_priors also takes the names of the priors: "must be a bool or a str among")
    with pytest.raises(ValueError, match=f"'{name}' parameter .* must be a bool[ .].*Got 'False'"):
        estimator.set_params(**{name: "False"}).fit(*fit_args)


def test_a_non_numeric_prior_names_itself():
    with pytest.raises(ValueError, match="'mean_prior' parameter of AlphaGaussianMixture"):
        AlphaGaussianMixture(2, mean_prior="ab").fit(X_REG)


def test_the_message_carries_the_remedy():
    with pytest.raises(ValueError, match="alpha = 1 for ordinary VB"):
        AlphaLinearRegression(alpha=1.5).fit(X_REG, Y_REG)
