"""The package's shape: no import cycles, docstrings that cite papers (not a spec that does
not ship), one CAVI loop for every closed-form model."""

import ast
import inspect
import warnings
from pathlib import Path

import pytest

import alphavb
from alphavb import (
    AlphaGaussianMixture,
    AlphaLDA,
    AlphaLinearRegression,
    AlphaSpikeSlabClassifier,
    AlphaSpikeSlabRegression,
)
from alphavb.base import CAVIEstimator

PACKAGE = Path(alphavb.__file__).parent


def module_name(path):
    parts = path.with_suffix("").relative_to(PACKAGE.parent).parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph():
    """Module -> the alphavb modules it imports (at any depth of the file)."""
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = {name: set() for name in paths}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                continue
            graph[name] |= {c for c in candidates if c in paths and c != name}
    return graph


def test_no_module_imports_a_module_that_imports_it_back():
    graph = import_graph()
    assert len(graph) > 20 and "alphavb.reproduce.rates" in graph

    def reachable(start):
        seen, todo = set(), [start]
        while todo:
            for target in graph[todo.pop()]:
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    cycles = [name for name in graph if name in reachable(name)]
    assert not cycles


def test_docstrings_do_not_point_at_the_unshipped_spec():
    offenders = [str(path) for path in PACKAGE.rglob("*.py")
                 if "spec §" in path.read_text(encoding="utf-8")]
    assert not offenders


@pytest.mark.parametrize("estimator", [AlphaLinearRegression, AlphaSpikeSlabRegression,
                                       AlphaSpikeSlabClassifier, AlphaGaussianMixture,
                                       AlphaLDA])
def test_every_cavi_model_runs_on_the_base_loop(monkeypatch, estimator):
    """By behaviour: a fit runs the base loop (its sweeps call the model's _cavi_step from
    CAVIEstimator._run_cavi) once per start and publishes once, with the loop's
    elbo_history_ and n_iter_."""
    from alphavb.datasets import make_lda_corpus, make_sparse_regression

    runs, steps, published = [], [], []
    run, publish = CAVIEstimator._run_cavi, CAVIEstimator._publish_data
    step = estimator._cavi_step
    monkeypatch.setattr(CAVIEstimator, "_run_cavi",
                        lambda self, *a, **k: runs.append(1) or run(self, *a, **k))
    monkeypatch.setattr(estimator, "_cavi_step",
                        lambda self, *a, **k: steps.append(1) or step(self, *a, **k))
    monkeypatch.setattr(CAVIEstimator, "_publish_data",
                        lambda self, data: published.append(1) or publish(self, data))
    assert not inspect.isabstract(estimator)
    X, y, _ = make_sparse_regression(60, 10, random_state=0)
    if estimator is AlphaLDA:
        X, y = make_lda_corpus(40, 3, 30, 20, random_state=0)[0], None
    elif estimator is AlphaSpikeSlabClassifier:
        y = (y > 0).astype(int)
    model = estimator(max_iter=30)
    if "n_init" in model.get_params():
        model.set_params(n_init=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", alphavb.PosteriorApproximationWarning)
        model.fit(X) if y is None else model.fit(X, y)
    assert runs == [1] and published == [1]
    assert len(steps) == model.n_iter_ >= 1


@pytest.mark.parametrize("estimator", [AlphaSpikeSlabRegression, AlphaSpikeSlabClassifier])
def test_a_grid_runs_the_loop_once_per_setting_and_publishes_once(monkeypatch, estimator):
    """By behaviour: the spike-and-slab models fit each setting of their inclusion grid with
    the base loop, which returns results, and publish the grid once."""
    from alphavb.datasets import make_sparse_regression

    runs, published = [], []
    run, publish = CAVIEstimator._run_cavi, estimator._publish_settings
    monkeypatch.setattr(CAVIEstimator, "_run_cavi",
                        lambda self, *a, **k: runs.append(1) or run(self, *a, **k))
    monkeypatch.setattr(estimator, "_publish_settings",
                        lambda self, *a, **k: published.append(1) or publish(self, *a, **k))
    X, y, _ = make_sparse_regression(60, 10, random_state=0)
    if estimator is AlphaSpikeSlabClassifier:
        y = (y > 0).astype(int)
    estimator(prior_inclusion=[0.1, 0.2, 0.3], max_iter=50).fit(X, y)
    assert len(runs) == 3 and len(published) == 1


@pytest.mark.parametrize("learning_method", ["batch", "online"])
@pytest.mark.parametrize("evaluate_every", [-1, 2])
def test_lda_runs_both_learning_methods_through_the_base_loop(monkeypatch, learning_method,
                                                              evaluate_every):
    """By behaviour, not by source text: one call of the base loop per fit, one model step
    per sweep (an online sweep is a pass over the mini-batches), and the history, iteration
    count and warning are the loop's."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from alphavb.datasets import make_lda_corpus

    loops, steps, passes = [], [], []
    loop, step, take_step = (CAVIEstimator._fit_cavi, AlphaLDA._cavi_step,
                             AlphaLDA._take_step)
    monkeypatch.setattr(CAVIEstimator, "_fit_cavi",
                        lambda self, *a, **k: loops.append(1) or loop(self, *a, **k))
    monkeypatch.setattr(AlphaLDA, "_cavi_step",
                        lambda self, *a, **k: steps.append(1) or step(self, *a, **k))
    monkeypatch.setattr(AlphaLDA, "_take_step",
                        lambda self, *a, **k: passes.append(1) or take_step(self, *a, **k))
    X, _, _ = make_lda_corpus(40, 3, 30, 20, random_state=0)
    model = AlphaLDA(3, learning_method=learning_method, batch_size=16, max_iter=5,
                     evaluate_every=evaluate_every, tol=0.0, perp_tol=None, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X)
    assert len(loops) == 1
    assert len(steps) == model.n_iter_ == 5
    # online: 3 mini-batches per pass; batch: no stochastic step
    assert len(passes) == (15 if learning_method == "online" else 0)
    evaluations = 5 if learning_method == "batch" else (
        2 + 1 if evaluate_every == 2 else 1)  # passes 2 and 4, then the final topics
    assert len(model.elbo_history_) == evaluations
    warned = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(warned) == (1 if evaluate_every > 0 else 0)
    if warned:
        word = "passes" if learning_method == "online" else "sweeps"
        assert f"max_iter=5 {word}" in str(warned[0].message)


def test_ci_and_readme_reach_the_data_by_a_relative_path():
    root = PACKAGE.parent
    # the folders this checkout and its data sit in, whatever machine runs the test
    machine_paths = {str(root.parent.resolve()), str(Path.home().resolve())}
    for name in (".ci/run", "README.rst", "vignettes/README.rst"):
        text = (root / name).read_text(encoding="utf-8")
        assert "../shared/data" in text or name == "vignettes/README.rst"
        for absolute in machine_paths:
            assert absolute + "/" not in text, f"{name} names the machine path {absolute}"


def test_only_the_family_factory_reads_covariance_type():
    """The mixture's covariance families are strategies: outside ``mixture/_families.py``
    no module compares, indexes by or otherwise reads a model's ``covariance_type``; the
    estimator stores the parameter and hands it to ``family_class``, and nothing else."""
    readers = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "_families.py" and path.parent.name == "mixture":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "family_class":
                allowed.update(id(arg) for arg in node.args)
            if isinstance(node, ast.Assign):  # self.covariance_type = covariance_type
                allowed.update(id(target) for target in node.targets)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr == "covariance_type"
                    and id(node) not in allowed):
                readers.append(f"{module_name(path)}:{node.lineno}")
    assert not readers, readers
    # and the factory covers every option the estimator declares
    from alphavb.mixture._families import FAMILIES
    from alphavb.mixture._gaussian_mixture import COVARIANCE_TYPES

    assert set(FAMILIES) == set(COVARIANCE_TYPES) == {"full", "tied", "diag", "spherical",
                                                      "fixed"}


# what a mixture's covariance family is made of: a branch on any of these outside the
# families module would be a covariance-family switch
FAMILY_TRAITS = {"diagonal", "_diagonal", "keeps_diagonal", "known_covariance", "wishart",
                 "per_feature", "covariance_type"}


def family_switches(tree, local_names=False):
    """Lines of ``tree`` that branch on a covariance-family trait: an ``if``, conditional
    expression, ``while``, boolean operation or comparison reading one as an attribute
    (``family.known_covariance``; with ``local_names``, in the mixture's own modules, as a
    plain name too), or an ``isinstance`` test against a family class."""
    found = []
    for node in ast.walk(tree):
        tests = []
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            tests.append(node.test)
        elif isinstance(node, (ast.BoolOp, ast.Compare)):
            tests.append(node)
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance"
              and any("Family" in ast.unparse(arg) for arg in node.args[1:])):
            found.append(node.lineno)
        for test in tests:
            names = {sub.attr for sub in ast.walk(test) if isinstance(sub, ast.Attribute)}
            if local_names:
                names |= {sub.id for sub in ast.walk(test) if isinstance(sub, ast.Name)}
            if names & FAMILY_TRAITS:
                found.append(node.lineno)
    return found


def test_no_covariance_family_switch_outside_the_families_module():
    """Everything that depends on a mixture's covariance family is the family's (its
    statistics' layout, its priors, its attributes) or a table keyed by it (the exact
    sampler's sites): no module but ``mixture/_families.py`` branches on a family trait.
    (``mixture/_kernels.py``'s numba step takes the layout's flag as a compile-time switch
    of its inner loop.)"""
    switches = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "mixture" and path.name in ("_families.py", "_kernels.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        switches += [f"{module_name(path)}:{line}"
                     for line in family_switches(tree, path.parent.name == "mixture")]
    assert not switches, switches
    # the check finds the switches the estimator had before its families owned them
    before = ast.parse("if self._diagonal:\n    pass\nif family.known_covariance:\n    pass\n"
                       "x = a if isinstance(f, DiagFamily) else b\nif diagonal:\n    pass\n")
    assert sorted(family_switches(before)) == [1, 3, 5]
    assert sorted(family_switches(before, local_names=True)) == [1, 3, 5, 6]
    # and the exact sampler's table covers every family
    from alphavb.exact._mixture import SITES
    from alphavb.mixture._families import FAMILIES

    assert set(SITES) == set(FAMILIES.values())


def test_the_dask_modules_and_the_estimators_share_one_compute_layer():
    """The mixture's E-step (mixture._estep) and LDA's E-step (topics._estep) are
    imported by both the in-memory estimator and its dask block module, which are not handed
    the step as an argument; both compute modules split their work with alphavb._parallel."""
    graph = import_graph()
    # the mixture's in-memory rows are chosen in mixture._preparation, which the estimator uses
    for compute, users in {"alphavb.mixture._estep": ("alphavb.mixture._preparation",
                                                      "alphavb.mixture._blocks"),
                           "alphavb.topics._estep": ("alphavb.topics._lda",
                                                     "alphavb.topics._blocks")}.items():
        assert "alphavb._parallel" in graph[compute]
        for user in users:
            assert compute in graph[user], (user, compute)
    from alphavb.mixture import _blocks as _mixture_blocks
    from alphavb.topics import _blocks

    for function in (_mixture_blocks.block_sums, _mixture_blocks.local_sums,
                     _blocks.blockwise_e_step,
                     _blocks.blockwise_bound):
        first = next(iter(inspect.signature(function).parameters))
        assert first in ("X_block", "X", "corpus"), (function.__name__, first)


def test_no_module_imports_the_private_names_of_a_public_module():
    """A module needs from a public module (``divergences``, ``base``, ``cache``, ...) only
    what it offers publicly; shared private helpers live in private modules
    (``_validation``, ``_special``, ...). Example caught: ``risk`` importing eight private
    names of ``divergences``."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and (
                    node.level or node.module.startswith("alphavb")):
                if node.module.split(".")[-1].startswith("_"):
                    continue
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                if private:
                    found.append(f"{module_name(path)}: from {node.module} import {private}")
    assert not found, found


def test_the_range_helpers_are_gone_into_the_declared_constraints():
    """One validation vocabulary: the constraint objects of _validation, declared by
    estimators (_parameter_constraints) and by functions (validate_params); base no longer
    has its own range checks, and public modules other than _validation do not test
    ``isinstance(..., numbers.Real/Integral)`` for a parameter."""
    from alphavb import AlphaLinearRegression

    # by behaviour: a bad value is refused in the constraints' own words
    with pytest.raises(ValueError, match=r"The 'alpha' parameter of AlphaLinearRegression "
                                         r"must be a float in \(0\.0, 1\.0\]\. Got 2\.0"):
        AlphaLinearRegression(alpha=2.0).fit([[0.0], [1.0], [2.0]], [0.0, 1.0, 2.0])
    uses = [module_name(path) for path in PACKAGE.rglob("*.py")
            if path.name != "_validation.py"
            and "numbers.Real" in path.read_text(encoding="utf-8")]
    assert not uses, uses


def test_public_namespaces_list_only_public_names():
    from alphavb import simulation

    assert dir(simulation) == sorted(simulation.__all__)
    assert not any(name.startswith("_") for name in dir(simulation))


@pytest.mark.parametrize("name", ["alphavb.base", "alphavb.metrics", "alphavb.blackbox.energies"])
def test_public_modules_declare_what_they_offer(name):
    """A public module lists its offer in ``__all__``: every listed name exists and is public,
    and every public function or class it defines is listed (its imports are not)."""
    import importlib

    module = importlib.import_module(name)
    assert all(hasattr(module, entry) and not entry.startswith("_") for entry in module.__all__)
    defined = {entry for entry, value in vars(module).items()
               if not entry.startswith("_") and getattr(value, "__module__", None) == name
               and (inspect.isfunction(value) or inspect.isclass(value))}
    assert defined <= set(module.__all__), defined - set(module.__all__)


def test_the_repr_of_a_grid_is_short():
    """A grid of 1,000 prior settings prints as its ends, not 1,000 numbers."""
    import numpy as np

    from alphavb import AlphaSpikeSlabClassifier

    text = repr(AlphaSpikeSlabClassifier(prior_log_odds=np.linspace(-3.0, -1.0, 1000)))
    assert len(text) < 200 and "..." in text and "-3." in text
    assert np.get_printoptions()["threshold"] == 1000  # the caller's print options kept


def test_the_vignettes_list_of_the_aadm_run_is_its_committed_fits():
    """The list of finished fits of the full AADM UCI run in vignettes/README.rst is what
    ``vignettes/runs/aadm_uci_progress.py`` makes of the cached rows committed beside it
    (a commit of new rows without ``--write`` leaves a stale list, which this catches)."""
    import importlib.util

    root = PACKAGE.parent
    spec = importlib.util.spec_from_file_location(
        "aadm_uci_progress", root / "vignettes" / "runs" / "aadm_uci_progress.py")
    progress = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(progress)
    rows = progress.read_rows(progress.FITS)
    assert rows, "no cached rows under vignettes/runs/aadm-uci/fits"
    text = progress.VIGNETTE.read_text(encoding="utf-8")
    listed = text.split(progress.START)[1].split(progress.END)[0]
    assert listed.strip() == progress.section(rows).strip()
    assert f"{len(rows)} of the 180 fits are done" in listed
    # the longest method name fits its column: no cell runs past the table's rules
    lines = progress.table([dict(rows[0], method=max(progress.AADM_UCI_METHODS, key=len))])
    rule = lines.splitlines()[0]
    assert all(len(line) <= len(rule) for line in lines.splitlines())
    assert all(line[len(column)] == " " for line in lines.splitlines()[3:-1]
               for column in [*rule.split("  ")[:1], "  ".join(rule.split("  ")[:3])])


def test_every_module_over_600_lines_has_a_stated_reason():
    """A module over about 600 lines holds more than one idea unless the architecture notes
    (docs/architecture.rst, "Modules over 600 lines") say why it is one file, by path."""
    notes = (PACKAGE.parent / "docs" / "architecture.rst").read_text(encoding="utf-8")
    listed = notes.split("Modules over 600 lines", 1)[1]
    unexplained = []
    for path in PACKAGE.rglob("*.py"):
        n_lines = len(path.read_text(encoding="utf-8").splitlines())
        name = path.relative_to(PACKAGE).as_posix()
        if n_lines > 600 and f"``{name}`` (" not in listed:
            unexplained.append(f"{name}: {n_lines} lines")
    assert not unexplained, unexplained
