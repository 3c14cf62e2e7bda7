"""Declared parameter constraints and the checks that enforce them.

Every estimator declares, once, what each constructor parameter may be::

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Real(0, 1, closed="right")],
        "noise_variance": [None, Real(0, None, closed="neither")],
        "fit_intercept": [Boolean()],
    }
    _parameter_hints: ClassVar[dict] = {"alpha": "Use alpha = 1 for ordinary VB."}

(a parameter passes when it satisfies any constraint of its list; ``None`` allows ``None``),
as scikit-learn's ``_parameter_constraints`` do, and ``fit`` starts with
``self._validate_params()``. Public functions and methods declare theirs with the same
constraint objects through :func:`validate_params`::

    @validate_params({"n_samples": [Integer(1, None)]})
    def make_sparse_regression(n_samples=100, ...):

and a value known only inside a function (an entry of a dict argument, an attribute) is
checked with :func:`check_parameter`. A bad value raises :class:`InvalidParameterError` (a
``ValueError`` and a ``TypeError``, as scikit-learn's) in scikit-learn's template,
"The 'alpha' parameter of AlphaLDA must be a float in (0, 1]. Got 1.5 instead.", followed by
the parameter's hint. Constraints that depend on the data (an array of one value per feature)
are checked where the data is known, with :func:`bad_parameter`.
"""

import datetime
import functools
import inspect
import numbers
import os
import sys
from typing import ClassVar

import numpy as np


class InvalidParameterError(ValueError, TypeError):
    """A parameter of an alphavb estimator or function has a value it does not accept.

    Both a ``ValueError`` and a ``TypeError`` (as scikit-learn's ``InvalidParameterError``),
    so ``except ValueError`` and ``except TypeError`` both catch it. The message names the
    parameter, what it must be, the value given and, where there is one, how to fix it.
    """


def is_dask_collection(X):
    """Whether ``X`` is a dask collection (dask itself is not imported)."""
    return type(X).__module__.split(".")[0] == "dask"


def import_arviz(missing):
    """ArviZ, imported without the notice of its coming refactor that arviz 0.2x prints as a
    FutureWarning on its first import of a day (a user who asked alphavb for draws did not
    import it); ``missing``: the ImportError's message when it is not installed."""
    import warnings

    try:
        with warnings.catch_warnings():
            # the notice begins with a newline
            warnings.filterwarnings("ignore", message=r"\s*ArviZ is undergoing",
                                    category=FutureWarning)
            import arviz
    except ImportError as error:
        raise ImportError(missing) from error
    return arviz


def is_covariance_matrix(matrix, n_features):
    """Whether ``matrix`` is a finite, symmetric, positive definite (p, p) array."""
    return (matrix.shape == (n_features, n_features) and bool(np.all(np.isfinite(matrix)))
            and np.allclose(matrix, matrix.T) and np.linalg.eigvalsh(matrix)[0] > 0)


def bad_parameter(owner, name, requirement, value, fix=""):
    """The :class:`InvalidParameterError` of scikit-learn's template, plus how to fix it."""
    message = (f"The '{name}' parameter of {owner} must be {requirement}. "
               f"Got {_shown(value)} instead.")
    if fix:
        message += f" {fix}"
    return InvalidParameterError(message)


def column_squares(owner, X, y):
    """``(sum of squares of each column of X, y'y)``, or the ``ValueError`` that names the
    input that holds NaN or whose values are so large that their squares overflow float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        squares = {"X": np.einsum("ij,ij->j", X, X), "y": y @ y}
    for name, value in squares.items():
        if np.isnan(value).any() and np.isnan(X if name == "X" else y).any():
            raise ValueError(f"Input {name} of {owner} contains NaN (a missing value; None "
                             "in a list is read as NaN). Drop or impute the rows that hold "
                             "it.")
        if not np.all(np.isfinite(value)):
            raise ValueError(f"Input {name} of {owner} has values so large that their squares "
                             "overflow float64. Rescale it first (e.g. with "
                             "sklearn.preprocessing.StandardScaler).")
    return squares["X"], squares["y"]


def check_estimator_instance(owner, estimator, example):
    """A ``ValueError`` naming ``estimator`` unless it is an estimator instance (it has
    ``get_params``): a class is told to be instantiated, anything else shown ``example``."""
    if isinstance(estimator, type) or not callable(getattr(estimator, "get_params", None)):
        fix = (f"Pass an instance: {estimator.__name__}()." if isinstance(estimator, type)
               else f"e.g. {example}.")
        raise bad_parameter(owner, "estimator", "an alphavb estimator instance", estimator, fix)


def check_estimator_options(estimator):
    """An estimator's parameters checked as its own fit checks them, before a meta-estimator
    fits it: each value (``_validate_params``) and, for AlphaSuSiE, the pairs it refuses
    (``_check_options``), which the fits a meta-estimator makes might otherwise never meet
    (a calibration that keeps a sparse locus fits no background)."""
    for check in ("_validate_params", "_check_options"):
        if callable(getattr(estimator, check, None)):
            getattr(estimator, check)()


def _shown(value, limit=200):
    """``repr(value)`` for a message, at most about ``limit`` characters: an int beyond
    float64's range (10**400) has hundreds of digits, and past 4300 digits its repr raises
    Python's ValueError of the int-to-str limit instead of the message."""
    try:
        text = repr(value)
    except ValueError:
        text = f"<a {type(value).__name__} too large to print>"
    return text if len(text) <= limit else f"{text[:limit - 40]}...{text[-30:]}"


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


class _Bounded:
    """A number in an interval; ``None`` bounds are infinite."""

    kind = "number"

    def __init__(self, low=None, high=None, *, closed="both"):
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be both/left/right/neither, got {closed!r}")
        self.low, self.high, self.closed = low, high, closed

    def _right_type(self, value):
        raise NotImplementedError

    def is_satisfied_by(self, value):
        if _is_bool(value) or not self._right_type(value):
            return False
        try:  # an int beyond float64's range (10**400) is not a usable number either
            if not np.isfinite(float(value)):
                return False
        except OverflowError:
            return False
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.low is not None and (value < self.low or (value == self.low and not left_closed)):
            return False
        return self.high is None or value < self.high or (value == self.high and right_closed)

    def _bound(self, value):
        return repr(float(value)) if self.kind == "float" else str(int(value))

    def __str__(self):
        if self.low is None and self.high is None:  # "a finite float", "an int"
            return f"a finite {self.kind}" if self.kind == "float" else \
                f"{self.kind_article} {self.kind}"
        if self.high is None:
            sign = ">=" if self.closed in ("both", "left") else ">"
            return f"{self.kind_article} {self.kind} {sign} {self._bound(self.low)}"
        if self.low is None:
            sign = "<=" if self.closed in ("both", "right") else "<"
            return f"{self.kind_article} {self.kind} {sign} {self._bound(self.high)}"
        left = "[" if self.closed in ("both", "left") else "("
        right = "]" if self.closed in ("both", "right") else ")"
        return (f"{self.kind_article} {self.kind} in {left}{self._bound(self.low)}, "
                f"{self._bound(self.high)}{right}")


class Real(_Bounded):
    """A finite real number (not a bool) in an interval."""

    kind, kind_article = "float", "a"

    def _right_type(self, value):
        return isinstance(value, numbers.Real)


class Integer(_Bounded):
    """An integer (not a bool) in an interval."""

    kind, kind_article = "int", "an"

    def _right_type(self, value):
        return isinstance(value, numbers.Integral)


class Options:
    """One of the given strings."""

    def __init__(self, *options):
        self.options = options

    def is_satisfied_by(self, value):
        return isinstance(value, str) and value in self.options

    def __str__(self):
        return f"a str among {list(self.options)}"


class Boolean:
    """``True`` or ``False`` (a Python or numpy bool; the string "False" is not one)."""

    def is_satisfied_by(self, value):
        return _is_bool(value)

    def __str__(self):
        return "a bool"


class RandomState:
    """What ``sklearn.utils.check_random_state`` accepts: None, an int or a RandomState."""

    def is_satisfied_by(self, value):
        return (value is None or isinstance(value, np.random.RandomState)
                or (isinstance(value, numbers.Integral) and not _is_bool(value)
                    and 0 <= value < 2**32))

    def __str__(self):
        return "None, an int in [0, 2**32) or a numpy RandomState"


class CallableValue:
    """A callable."""

    def is_satisfied_by(self, value):
        return callable(value)

    def __str__(self):
        return "a callable"


class PositivePair:
    """Two positive finite numbers, e.g. the (shape, scale) of a prior."""

    def is_satisfied_by(self, value):
        pair = as_float_array(value)
        return (pair is not None and pair.shape == (2,) and bool(np.all(np.isfinite(pair)))
                and bool(np.all(pair > 0)))

    def __str__(self):
        return "a pair (a, b) of finite positive floats"


class VarianceBounds:
    """Bounds ``(lower, upper)`` of a variance: ``0 <= lower < upper``, finite, ``upper``
    None for none."""

    def is_satisfied_by(self, value):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
            return False
        lower, upper = value
        if not Real(0, None).is_satisfied_by(lower):
            return False
        return upper is None or (Real(0, None, closed="neither").is_satisfied_by(upper)
                                 and upper > lower)

    def __str__(self):
        return "a pair (lower, upper) with 0 <= lower < upper (upper None for no bound)"


class FittedWith:
    """A fitted estimator, known by a fitted attribute it has (``description`` names it)."""

    def __init__(self, attribute, description):
        self.attribute, self.description = attribute, description

    def is_satisfied_by(self, value):
        return hasattr(value, self.attribute)

    def __str__(self):
        return self.description


class LayerSizes:
    """Hidden-layer sizes: an int >= 1 or a sequence of them (``()`` for none)."""

    def is_satisfied_by(self, value):
        if isinstance(value, numbers.Integral) and not _is_bool(value):
            return value >= 1
        if isinstance(value, (str, bytes)):
            return False
        try:
            return all(isinstance(s, numbers.Integral) and not _is_bool(s) and s >= 1
                       for s in value)
        except TypeError:
            return False

    def __str__(self):
        return "a tuple of ints >= 1 (() for no hidden layer)"


class ProbabilityGrid:
    """A 1-D non-empty array-like of probabilities in (0, 1)."""

    def is_satisfied_by(self, value):
        if isinstance(value, (str, bytes)) or np.ndim(value) != 1:
            return False
        grid = as_float_array(value)
        if grid is None:
            return False
        return grid.size > 0 and bool(np.all((grid > 0) & (grid < 1)))

    def __str__(self):
        return "a 1-D array-like of floats in (0, 1) (a grid)"


class TemperatureGrid:
    """Likelihood temperatures in (0, 1]: one number or a non-empty 1-D list, tuple, range,
    array or pandas Series of them (no string, bool, dict or complex: ``"0.5"`` and ``True``
    were taken as grids)."""

    def is_satisfied_by(self, value):
        if isinstance(value, (list, tuple, range, np.ndarray)) or hasattr(value, "to_numpy"):
            values = list(np.ravel(np.asarray(value, dtype=object))) if np.ndim(value) <= 1 \
                else None
        else:
            values = [value]
        if not values or not all(isinstance(v, numbers.Real) and not _is_bool(v)
                                 for v in values):
            return False
        grid = as_float_array(values)  # 10**400 is infinite, as float64 cannot hold it
        return bool(np.all(np.isfinite(grid) & (grid > 0) & (grid <= 1)))

    def __str__(self):
        return "a non-empty list of likelihood temperatures in (0, 1]"


class FiniteArray:
    """A numeric array-like (a scalar included) of finite values; ``positive`` asks for
    every entry > 0. Its shape is checked where the data is known."""

    def __init__(self, positive=False):
        self.positive = positive

    def is_satisfied_by(self, value):
        array = as_float_array(value)
        if array is None or array.size == 0 or not np.all(np.isfinite(array)):
            return False
        return not self.positive or bool(np.all(array > 0))

    def __str__(self):
        return "an array-like of positive finite floats" if self.positive else \
            "an array-like of finite floats"


def as_float_array(value):
    """``value`` as a float array, or None when it is not numeric (strings, bools, objects).

    A number beyond float64's range (the int 10**400) becomes ``inf`` (with its sign), as a
    float literal ``1e400`` does, so that the checks of finiteness refuse it by name instead
    of ending in the OverflowError of its conversion.
    """
    if isinstance(value, (str, bytes)) or _is_bool(value):
        return None
    try:
        array = np.asarray(value)
        if array.dtype.kind == "b":
            return None
        try:
            return array.astype(float)
        except OverflowError:
            return np.array([_as_float(v) for v in array.ravel()]).reshape(array.shape)
    except (TypeError, ValueError):
        return None


def float_values(owner, name, value, what="numbers"):
    """``value`` as a float array (the caller's own when it is one already: never written
    to), missing values (pandas' ``pd.NA``, a masked array's masked entries) as NaN for the
    finiteness checks that follow, a number beyond float64's range as infinite; a
    ``ValueError`` naming ``name`` for text (numeric-looking too: numpy and pandas would
    read ``"1"`` as 1.0), dates and durations (read as counts of nanoseconds or days),
    complex values (their imaginary parts dropped), structured or ragged arrays and
    anything else that is not a number."""
    pandas = type(value).__module__.split(".")[0] == "pandas"
    found = None
    try:
        array = None if isinstance(value, (str, bytes, bytearray)) else \
            value.to_numpy() if pandas else np.asarray(value)
    except (TypeError, ValueError, NotImplementedError):
        array, found = None, "a ragged or not array-like value"
    kind = None if array is None else array.dtype.kind
    if pandas and found is None:  # a frame of mixed columns is an object array: its dtypes
        kinds = {getattr(dtype, "kind", "O") for dtype in
                 (value.dtypes if value.ndim == 2 else [value.dtype])}
        kind = next((k for k in "Mmc" if k in kinds), kind)
    if found is None:
        found = {"U": "text", "S": "text", "V": "structured values", "M": "dates",
                 "m": "durations", "c": "complex values", None: "text"}.get(kind)
    if found is None and kind == "O":
        found = next((_OBJECT_KINDS[sort] for v in array.ravel() for sort in _OBJECT_KINDS
                      if isinstance(v, sort)), None)
        if found is None:  # pd.NA (pandas' missing value) in a list: NaN
            shape, entries = array.shape, array.ravel()
            array = np.empty(entries.size, dtype=object)
            for index, entry in enumerate(entries):  # entry by entry: an entry may be a list
                array[index] = np.nan if type(entry).__name__ == "NAType" else entry
            array = array.reshape(shape)
    if found is None:
        try:
            if pandas:
                return value.to_numpy(dtype=float, na_value=np.nan)
            if np.ma.isMaskedArray(value):
                return np.ma.asarray(value, dtype=float).filled(np.nan)
            return np.asarray(array, dtype=float)
        except OverflowError:  # an int past float64's range: infinite, refused as such
            return np.array([_as_float(v) for v in array.ravel()]).reshape(array.shape)
        except (TypeError, ValueError, NotImplementedError):  # e.g. pandas' MultiIndex
            found = f"values of type {array.dtype}"
    raise bad_parameter(owner, name, what, found, "Pass numbers (a float array).")


# what an object array's entries may be that is not a number, by what it is called
_OBJECT_KINDS = {str: "text", bytes: "text", bytearray: "text", complex: "complex values",
                 np.complexfloating: "complex values", np.datetime64: "dates",
                 np.timedelta64: "durations", datetime.date: "dates",
                 datetime.timedelta: "durations"}


def _as_float(number):
    """``float(number)``, or ``inf`` with its sign when float64 cannot hold it."""
    try:
        return float(number)
    except OverflowError:
        return np.inf if number > 0 else -np.inf


def check_targets(owner, y, n_rows):
    """``y`` as float64 when it holds ``n_rows`` finite numbers; else the ValueError of
    ``owner``'s ``y``."""
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (n_rows,) or not np.all(np.isfinite(y)):
        raise bad_parameter(owner, "y", f"{n_rows} finite numbers, one per row of X",
                            f"an array of shape {y.shape}")
    return y


def check_probabilities(owner, name, p):
    """``p`` as a float array of probabilities along its last axis (finite, non-negative,
    summing to 1 within 1e-8), or the :class:`InvalidParameterError` naming ``owner`` and
    ``name``."""
    p = np.asarray(p, dtype=float)
    if p.ndim == 0 or not np.all(np.isfinite(p)) or np.any(p < 0):
        raise bad_parameter(owner, name, "an array of probabilities (finite, non-negative, "
                            "summing to 1 along the last axis)", "an invalid array")
    if not np.allclose(p.sum(axis=-1), 1.0, rtol=0, atol=1e-8):
        raise bad_parameter(owner, name, "probabilities summing to 1 along the last axis",
                            f"sums from {p.sum(axis=-1).min():.6g} to "
                            f"{p.sum(axis=-1).max():.6g}", "Normalize it first.")
    return p


def describe(constraints):
    """The requirement text of a constraint list, e.g. "None or a float > 0"."""
    parts = ["None" if c is None else str(c) for c in constraints]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def validate_parameters(owner, constraints, hints, params):
    """Raise the :class:`InvalidParameterError` of the first parameter in ``params`` that
    satisfies none of its ``constraints`` (names without constraints are not checked)."""
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        if any(value is None if c is None else c.is_satisfied_by(value) for c in allowed):
            continue
        raise bad_parameter(owner, name, describe(allowed), value, hints.get(name, ""))


def check_parameter(owner, name, value, constraints, fix=""):
    """Return ``value`` after checking it satisfies one of ``constraints`` (a list, as in
    ``_parameter_constraints``), for values known only inside a function; otherwise raise
    the :class:`InvalidParameterError` naming ``owner``, ``name`` and ``fix``."""
    validate_parameters(owner, {name: constraints}, {name: fix} if fix else {}, {name: value})
    return value


def validate_params(constraints, hints=None):
    """Decorate a public function or method so that its arguments are checked first.

    ``constraints`` maps parameter names to constraint lists (as ``_parameter_constraints``)
    and ``hints`` names to how to fix a bad value. Every named argument, given or default, is
    checked before the body runs; the error's owner is the function's name, or the class
    name for a method (its first parameter is ``self``). The declaration is kept on the
    function as ``_parameter_constraints``.
    """
    hints = dict(hints or {})

    def decorate(function):
        signature = inspect.signature(function)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(f"validate_params: {function.__qualname__} has no parameters "
                            f"{sorted(unknown)}")
        is_method = next(iter(signature.parameters), None) == "self"

        @functools.wraps(function)
        def checked(*args, **kwargs):
            arguments = signature.bind(*args, **kwargs)
            arguments.apply_defaults()
            owner = (type(arguments.arguments["self"]).__name__ if is_method
                     else function.__name__)
            validate_parameters(owner, constraints, hints, arguments.arguments)
            return function(*args, **kwargs)

        checked._parameter_constraints = constraints
        return checked

    return decorate


class ValidatedParametersMixin:
    """``_validate_params()`` for estimators that declare ``_parameter_constraints`` (and
    optionally ``_parameter_hints``); call it first thing in ``fit`` and ``partial_fit``."""

    _parameter_constraints: ClassVar[dict] = {}
    _parameter_hints: ClassVar[dict] = {}

    def _validate_params(self):
        params = {name: getattr(self, name) for name in self._parameter_constraints}
        validate_parameters(type(self).__name__, self._parameter_constraints,
                            self._parameter_hints, params)

    def __repr__(self, N_CHAR_MAX=700):
        """scikit-learn's repr with array parameters (a grid of prior settings) shortened to
        their first and last two values."""
        import numpy as np

        with np.printoptions(threshold=6, edgeitems=2):
            return super().__repr__(N_CHAR_MAX)


_PACKAGE_DIRECTORY = os.path.dirname(os.path.abspath(__file__)) + os.sep


def caller_stacklevel():
    """The ``stacklevel`` for :func:`warnings.warn`, called where the warning is raised, that
    names the first frame outside alphavb: the user's line that called the package,
    however many of the package's own calls lie between (a fixed number breaks whenever a
    fit's call path changes)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIRECTORY):
        frame, level = frame.f_back, level + 1
    return level
