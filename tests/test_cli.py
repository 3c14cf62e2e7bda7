"""The main job: ``alphavb reproduce hdr`` (the paper's Figure 1)."""

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

from alphavb.cli import main


def test_reproduce_hdr_writes_figure_and_table(tmp_path, capsys):
    assert main(["reproduce", "hdr", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    figure, table = tmp_path / "hdr_coefficients.png", tmp_path / "hdr_summary.csv"
    assert f"wrote {figure}" in out and f"wrote {table}" in out
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(table, newline="") as handle:
        rows = list(csv.DictReader(handle))
    # the paper's Algorithm 1 (known noise, joint means) and ours beside it
    assert [(row["algorithm"].split()[0], float(row["alpha"])) for row in rows] == [
        (name, alpha) for name in ("paper", "ours") for alpha in (0.5, 0.8, 0.95, 1.0)]
    for row in rows:
        assert row["converged"] == "True"
        assert all(float(row[f"pip_x{j}"]) > 0.9 for j in range(4))  # x0..x3, as summary()
        assert float(row["max_null_pip"]) < 0.1
        assert float(row["l2_error"]) < 0.5
        if row["algorithm"].startswith("paper"):  # its claim: fewer than 20 iterations
            assert int(row["n_iter"]) < 20 and float(row["noise_variance"]) == 1.0
    assert png_description(figure) == ""  # a full run is not stamped


def test_python_dash_m_entry_point():
    result = subprocess.run([sys.executable, "-m", "alphavb", "--help"], capture_output=True,
                            text=True, check=True)
    assert "reproduce" in result.stdout
    assert "``" not in result.stdout  # plain text, not reStructuredText


def test_version_is_the_installed_distributions(capsys):
    from importlib.metadata import version

    import alphavb

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"alphavb {version('alphavb')}"
    assert alphavb.__version__ == version("alphavb")


def test_unknown_target_is_refused():
    with pytest.raises(SystemExit):
        main(["reproduce", "nope"])


def test_reproduce_gmm_writes_figure_and_table(tmp_path, capsys):
    assert main(["reproduce", "gmm", "--out", str(tmp_path)]) == 0
    figure, table = tmp_path / "gmm_density.png", tmp_path / "gmm_summary.csv"
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(table, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [float(row["alpha"]) for row in rows] == [0.1, 0.5, 0.95, 1.0]
    for row in rows:
        assert row["converged"] == "True" and int(row["n_iter"]) < 20
        assert float(row["max_mean_error"]) < 0.15
        assert float(row["accuracy"]) > 0.99
    # the tempered posterior of the means is wider: sd ~ 1/sqrt(alpha n_k)
    sds = [float(row["mean_sd"]) for row in rows]
    assert sds == sorted(sds, reverse=True)
    assert sds[0] == pytest.approx(1 / np.sqrt(0.1 * 1000 / 3), rel=0.1)
    # beside the paper's model: the Dirichlet process (K = 10) keeps the three components
    # once alpha n is large, and the tied fit finds the shared covariance I
    assert (tmp_path / "gmm_dp_weights.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(tmp_path / "gmm_dp_tied.csv", newline="") as handle:
        extension = list(csv.DictReader(handle))
    assert [(row["model"].split()[0], float(row["alpha"])) for row in extension] == [
        (name, alpha) for name in ("dirichlet-process", "tied") for alpha in (0.1, 0.5, 0.95, 1.0)]
    for row in extension:
        assert row["converged"] == "True"
        if float(row["alpha"]) >= 0.5:
            assert int(row["components_above_0.01"]) == 3
            assert float(row["max_mean_error"]) < 0.15
    assert float(extension[-1]["max_covariance_error"]) < 0.2


def test_reproduce_lda_writes_the_topic_table(tmp_path):
    from alphavb.datasets import get_data_home
    from alphavb.reproduce import reproduce_lda

    if not (get_data_home() / "ap" / "ap.dat").exists():
        pytest.skip("the AP corpus is not in the data home (set ALPHAVB_DATA)")
    result = reproduce_lda(tmp_path, quick=True)  # alpha 0.5 and 1, 3 sweeps
    with open(tmp_path / "lda_topics.csv", newline="") as handle:
        topics = list(csv.DictReader(handle))
    assert len(topics) == 20 and all(row["word_5"] for row in topics)
    text = (tmp_path / "lda_topics.md").read_text()
    assert "## alpha = 0.5" in text and "## alpha = 1" in text
    for row in result["rows"]:
        assert 1000 < row["heldout_perplexity"] < 20000
    # the paper's own setting: the first 5 documents, K = 10, doc-topic prior 1/K
    paper = (tmp_path / "lda_paper_topics.md").read_text()
    assert "first 5 AP documents, K = 10" in paper and paper.count("| 10 |") == 2
    rows = result["paper_rows"]
    assert [row["alpha"] for row in rows] == [0.5, 1.0]
    assert rows[-1]["overlap_with_alpha_1"] == 1.0 and 0 <= rows[0]["overlap_with_alpha_1"] <= 1
    assert all(np.isfinite(row["umass_coherence"]) and 1 <= row["topics_used"] <= 10
               for row in rows)


def test_umass_coherence_counts_document_co_occurrence():
    from alphavb.reproduce.alpha_vb import _umass_coherence

    documents = {"a": {0, 1, 2, 3}, "b": {0, 1}, "c": {5}}
    # pairs (a, b), (a, c), (b, c): log(3/4) + log(1/4) + log(1/2)
    assert _umass_coherence(["a", "b", "c"], documents) == pytest.approx(
        np.log(3 / 4) + np.log(1 / 4) + np.log(1 / 2))


def test_reproduce_without_the_data_says_what_is_missing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ALPHAVB_DATA", str(tmp_path))
    monkeypatch.setattr("urllib.request.urlretrieve",
                        lambda url, filename: (_ for _ in ()).throw(OSError("offline")))
    assert main(["reproduce", "lda", "--out", str(tmp_path / "out")]) == 2
    assert "ALPHAVB_DATA" in capsys.readouterr().err


def test_reproduce_bbalpha_uci_quick(tmp_path, capsys):
    from alphavb.datasets import get_data_home

    if not (get_data_home() / "uci" / "yacht" / "data" / "data.txt").exists():
        pytest.skip("the UCI splits are not in the data home (set ALPHAVB_DATA)")
    assert main(["reproduce", "bbalpha-uci", "--quick", "--out", str(tmp_path)]) == 0
    assert png_description(tmp_path / "bbalpha_uci.png") == "quick run: not converged"
    out = capsys.readouterr().out
    for name in ("bbalpha_uci.png", "bbalpha_uci.csv", "bbalpha_uci.md",
                 "bbalpha_uci_splits.csv"):
        assert f"wrote {tmp_path / name}" in out
    with open(tmp_path / "bbalpha_uci_splits.csv", newline="") as handle:
        fits = list(csv.DictReader(handle))
    assert len(fits) == 2 * 2 * 3  # boston and yacht, 2 splits, 3 alphas
    assert all(np.isfinite(float(row["test_ll"])) for row in fits)
    text = (tmp_path / "bbalpha_uci.md").read_text()
    assert "| boston | 0.5 | 2 |" in text
    # a re-run finds every fit in the cache
    cached = sorted(path.stat().st_mtime for path in (tmp_path / "fits").iterdir())
    assert main(["reproduce", "bbalpha-uci", "--quick", "--out", str(tmp_path)]) == 0
    assert sorted(path.stat().st_mtime for path in (tmp_path / "fits").iterdir()) == cached


def test_every_target_accepts_jobs(monkeypatch, capsys, tmp_path):
    """The README writes --jobs 2 almost everywhere: a target that does not parallelise runs
    in one process and accepts it (its help says which targets use it)."""
    import inspect

    from alphavb import reproduce

    calls = {}
    for name, target in reproduce.TARGETS.items():
        def record(out_dir, random_state, _name=name, **options):
            calls[_name] = options
            return {"files": []}
        record.__signature__ = inspect.signature(target)
        monkeypatch.setitem(reproduce.TARGETS, name, record)
    for name in reproduce.TARGETS:
        assert main(["reproduce", name, "--jobs", "2", "--out", str(tmp_path / name)]) == 0
        takes_jobs = "n_jobs" in inspect.signature(reproduce.TARGETS[name]).parameters
        assert calls[name] == ({"n_jobs": 2} if takes_jobs else {}), name
    assert len(calls) == len(reproduce.TARGETS) and {} in calls.values()
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    assert "the others run in one process and accept it" in " ".join(
        capsys.readouterr().out.split())


def test_the_listed_parallel_targets_are_those_that_take_jobs():
    """The help names them without importing the targets: the list must match."""
    import inspect

    from alphavb import reproduce

    takes = [name for name, target in reproduce.TARGETS.items()
             if "n_jobs" in inspect.signature(target).parameters]
    assert sorted(reproduce.PARALLEL_TARGETS) == sorted(takes)


@pytest.mark.parametrize(("argv", "message"), [
    (["reproduce", "hdr", "--quik"],
     "unrecognized arguments: --quik (did you mean '--quick'?)"),
    (["reproduce", "hdr", "--jbos=2"], "unrecognized arguments: --jbos=2 (did you mean '--jobs'?)"),
    (["reproduce", "misspecifed"], "unknown target 'misspecifed' (did you mean 'misspecified'?)"),
    (["reproduce", "zzz"], "unknown target 'zzz'; choose from hdr, gmm"),
])
def test_mistyped_options_and_targets_get_reproduces_usage_and_a_suggestion(argv, message,
                                                                            capsys):
    """``--quik`` printed the top-level usage, and a mistyped target no suggestion."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err, err
    assert err.startswith("usage: alphavb reproduce")


@pytest.mark.parametrize(("datasets", "message"), [
    ("bostn", "argument --datasets: unknown data set 'bostn'; choose from boston, "),
    ("boston,,yacht", "argument --datasets: 'boston,,yacht' has an empty name"),
    ("boston,", "argument --datasets: 'boston,' has an empty name"),
    ("", "argument --datasets: '' has an empty name"),  # not the default sets, silently
])
def test_bad_data_set_lists_are_usage_errors(datasets, message, capsys):
    """One line and exit 2, with the reproduce subcommand's usage: no traceback."""
    with pytest.raises(SystemExit) as exit_info:
        main(["reproduce", "aadm-uci", "--quick", "--datasets", datasets])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and "Traceback" not in err
    assert err.startswith("usage: alphavb reproduce")


def test_data_set_lists_ignore_spaces(monkeypatch):
    from alphavb import reproduce

    seen = {}
    monkeypatch.setitem(reproduce.TARGETS, "aadm-uci", lambda out_dir, random_state, quick=False,
                        datasets=None: seen.update(datasets=datasets) or {"files": []})
    assert main(["reproduce", "aadm-uci", "--datasets", "boston, yacht "]) == 0
    assert seen["datasets"] == ("boston", "yacht")


def png_description(path):
    """The Description text of a PNG (where a --quick figure's stamp is kept)."""
    from PIL import Image

    with Image.open(path) as image:
        return image.info.get("Description", "")


def test_quick_hdr_and_gmm_fit_two_alphas(tmp_path):
    for target, table, figures in (("hdr", "hdr_summary.csv", ["hdr_coefficients.png"]),
                                   ("gmm", "gmm_summary.csv",
                                    ["gmm_density.png", "gmm_dp_weights.png"])):
        assert main(["reproduce", target, "--quick", "--out", str(tmp_path / target)]) == 0
        with open(tmp_path / target / table, newline="") as handle:
            alphas = [float(row["alpha"]) for row in csv.DictReader(handle)]
        assert sorted(set(alphas)) == [0.5, 1.0]
        for figure in figures:
            assert png_description(tmp_path / target / figure) == "quick run: 2 of the alphas"


def test_reproduce_aadm_toy_quick(tmp_path, capsys):
    assert main(["reproduce", "aadm-toy", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for name in ("aadm_toy.png", "aadm_toy_alpha.png", "aadm_toy.csv", "aadm_toy.md"):
        assert f"wrote {tmp_path / name}" in out
    for name in ("aadm_toy.png", "aadm_toy_alpha.png"):
        assert png_description(tmp_path / name) == "quick run: not converged"
    with open(tmp_path / "aadm_toy.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    alphas = [1e-4, 0.25, 0.5, 0.75, 1.0]  # the paper's two and the three its text describes
    assert [(row["problem"], float(row["alpha"])) for row in rows] == [
        (problem, alpha) for problem in ("heteroscedastic", "bimodal") for alpha in alphas]
    assert all(np.isfinite(float(row["test_ll"])) and float(row["test_rmse"]) > 0
               for row in rows)
    assert "| bimodal | 1 |" in (tmp_path / "aadm_toy.md").read_text()
    # the five alphas of a problem train as stacks of 2 and 3 (at most AADM_TOY_MAX_STACK);
    # a fit whose row is lost is fitted again alone, the others come from the cache
    fits = sorted((tmp_path / "fits").iterdir())
    assert sorted(json.loads(path.read_text())["row"]["stack_size"] for path in fits) == [
        2, 2, 2, 2, 3, 3, 3, 3, 3, 3]
    fits[0].unlink()
    assert main(["reproduce", "aadm-toy", "--quick", "--out", str(tmp_path)]) == 0
    assert json.loads(fits[0].read_text())["row"]["stack_size"] == 1
    with open(tmp_path / "aadm_toy.csv", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 10
    # --epochs changes the cached fits' names, so the re-run fits again
    assert main(["reproduce", "aadm-toy", "--quick", "--epochs", "2", "--out",
                 str(tmp_path)]) == 0
    assert len(list((tmp_path / "fits").iterdir())) == 20
    # --seeds 2 keeps seed 0's cached fits (same names) and adds a second seed per alpha;
    # the table then shows mean +- s.e. over the two
    assert main(["reproduce", "aadm-toy", "--quick", "--epochs", "2", "--seeds", "2", "--out",
                 str(tmp_path)]) == 0
    assert len(list((tmp_path / "fits").iterdir())) == 30
    with open(tmp_path / "aadm_toy.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted({(row["problem"], row["seed"]) for row in rows}) == [
        (problem, seed) for problem in ("bimodal", "heteroscedastic") for seed in ("0", "1")]
    assert len(rows) == 20 and " +- " in (tmp_path / "aadm_toy.md").read_text()


def test_reproduce_aadm_uci_quick(tmp_path, capsys):
    from alphavb.datasets import get_data_home

    if not (get_data_home() / "uci" / "yacht" / "data" / "data.txt").exists():
        pytest.skip("the UCI splits are not in the data home (set ALPHAVB_DATA)")
    assert main(["reproduce", "aadm-uci", "--quick", "--datasets", "yacht", "--out",
                 str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for name in ("aadm_uci.png", "aadm_uci.csv", "aadm_uci.md", "aadm_uci_splits.csv"):
        assert f"wrote {tmp_path / name}" in out
    with open(tmp_path / "aadm_uci_splits.csv", newline="") as handle:
        fits = list(csv.DictReader(handle))
    assert len(fits) == 2 * 6  # yacht, 2 splits, 6 methods
    assert {row["method"] for row in fits} == {"AADM alpha=1", "AADM alpha=0.5", "AVB",
                                               "AADM alpha=1 (authors' code)",
                                               "AVB (authors' code)", "VI"}
    assert all(np.isfinite(float(row["test_ll"])) for row in fits)
    assert "| yacht | AVB | 2 |" in (tmp_path / "aadm_uci.md").read_text()
    with open(tmp_path / "aadm_uci.csv", newline="") as handle:
        summary = {row["method"]: row for row in csv.DictReader(handle)}
    for method, row in summary.items():  # the worst split, as the target reads it
        worst = max(float(fit["test_rmse"]) for fit in fits if fit["method"] == method)
        assert float(row["max_rmse"]) == pytest.approx(worst, rel=1e-12)
    # every fit records its CPU time (not lengthened by a shared machine) and the platform
    # whose rounding it has; the stacks ran split by split across the methods
    from alphavb.simulation._provenance import arithmetic_platform

    for fit in fits:
        assert 0 < float(fit["fit_cpu_seconds"]) <= 1.5 * float(fit["fit_seconds"]) + 0.05
        assert fit["platform"] == arithmetic_platform() and "numpy" in fit["platform"]
    # cached rows from before a field existed (the committed full run has rows without
    # "platform"), here those of split 0, the table's first, are read with the others;
    # their cells are left empty
    from alphavb.cache import ResultCache

    for path in (tmp_path / "fits").iterdir():
        stored = json.loads(path.read_text())
        if stored["row"]["split"] == 0:
            ResultCache(tmp_path / "fits").store(
                stored["key"], {k: v for k, v in stored["row"].items() if k != "platform"})
    assert main(["reproduce", "aadm-uci", "--quick", "--datasets", "yacht", "--out",
                 str(tmp_path)]) == 0
    with open(tmp_path / "aadm_uci_splits.csv", newline="") as handle:
        fits = list(csv.DictReader(handle))
    assert len(fits) == 12 and [fit["platform"] == "" for fit in fits] == [True] * 6 + [False] * 6


def test_uci_stacks_run_split_by_split_across_methods(monkeypatch, tmp_path):
    """A run stopped part-way holds every method on its first splits: the stacks are fitted
    in the order of their first job, not one estimator configuration after another."""
    from alphavb.datasets import get_data_home
    from alphavb.reproduce import _uci

    if not (get_data_home() / "uci" / "yacht" / "data" / "data.txt").exists():
        pytest.skip("the UCI splits are not in the data home (set ALPHAVB_DATA)")
    order = []
    fit_stack = _uci._fit_uci_stack
    monkeypatch.setattr(_uci, "_fit_uci_stack", lambda cache, keyed: order.append(
        [(job[1], job[3]["method"]) for _, job in keyed]) or fit_stack(cache, keyed))
    from alphavb.reproduce import aadm

    # the authors'-code rows run on the first AUTHORS_CODE_SPLITS splits only (2 here)
    monkeypatch.setattr(aadm, "AUTHORS_CODE_SPLITS", 2)
    result = aadm.reproduce_aadm_uci(tmp_path, quick=True, datasets=("yacht",), n_splits=3)
    for authors in ("AVB (authors' code)", "AADM alpha=1 (authors' code)"):
        assert sorted(split for stack in order for split, method in stack
                      if method == authors) == [0, 1]
    counts = {row["method"]: row["n_splits"] for row in result["rows"]}
    assert counts["AVB (authors' code)"] == counts["AADM alpha=1 (authors' code)"] == 2
    assert counts["AVB"] == counts["AADM alpha=1"] == 3
    first_splits = [stack[0][0] for stack in order]
    assert first_splits == sorted(first_splits)
    # the first stacks already hold the three estimator configurations of split 0 (the
    # authors'-code rows one per stack)
    configurations = {"AADM alpha=1", "AADM alpha=1 (authors' code)", "AVB (authors' code)",
                      "VI"}
    early = {method for stack in order[:4] for _, method in stack}
    assert configurations <= early
    # a fit whose rows draw their own weights (the authors' code) costs 3x: one per stack,
    # so that a stack, the unit a stopped run resumes from, ends within a session
    assert all(len(stack) == 1 for stack in order
               if any(method.endswith("(authors' code)") for _, method in stack))
    assert max(len(stack) for stack in order) > 1


@pytest.mark.parametrize("ours_name, alpha", [("AVB", 0.0), ("AADM alpha=1", 1.0)])
def test_the_authors_configurations_have_the_design_of_their_code(ours_name, alpha):
    """"AVB (authors' code)" and "AADM alpha=1 (authors' code)" are AADM at alpha = 0 and 1
    with the choices of the authors' AVB_boston.py and AADM_boston.py (paper-claims.md), the
    noise variance started at e^0.01 var(y_train); alphavb's rows differ from them only in
    those choices."""
    from alphavb.reproduce.aadm import AADM_UCI_SETTINGS, _aadm_uci_model

    y_train = np.arange(10.0)
    theirs = _aadm_uci_model(f"{ours_name} (authors' code)", AADM_UCI_SETTINGS, 3, y_train)
    ours = _aadm_uci_model(ours_name, AADM_UCI_SETTINGS, 3, y_train)
    assert theirs.divergence_order == ours.divergence_order == alpha and theirs.random_state == 3
    assert theirs.draws_per_row and theirs.bias_posterior == "point"
    assert theirs.prior_variance == pytest.approx(np.exp(-5.0))
    assert theirs.discriminator_init_scale == 0.1
    assert theirs.noise_variance == pytest.approx(np.exp(0.01) * 8.25)
    differing = {name for name, value in theirs.get_params().items()
                 if ours.get_params()[name] != value}
    assert differing == {"draws_per_row", "prior_variance", "discriminator_init_scale",
                         "noise_variance"}


def test_reproduce_aadm_ablation_quick(tmp_path, capsys):
    """Every configuration of the ablation is fitted on each split, with the design choice
    its name says, and summarized."""
    from alphavb.datasets import get_data_home
    from alphavb.reproduce.aadm import AADM_ABLATION

    if not (get_data_home() / "uci" / "bostonHousing" / "data" / "data.txt").exists():
        pytest.skip("the UCI splits are not in the data home (set ALPHAVB_DATA)")
    assert main(["reproduce", "aadm-ablation", "--quick", "--jobs", "2", "--out",
                 str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for name in ("aadm_ablation.md", "aadm_ablation.csv", "aadm_ablation_splits.csv"):
        assert f"wrote {tmp_path / name}" in out
    with open(tmp_path / "aadm_ablation_splits.csv", newline="") as handle:
        fits = list(csv.DictReader(handle))
    configurations = {row["configuration"] for row in fits}
    assert configurations == {*(f"AADM alpha=1, {name}" for name in AADM_ABLATION),
                              "AADM alpha=0.5, base", "AVB, base", "VI"}
    assert len(fits) == 2 * len(configurations)  # 2 splits in quick mode
    assert all(np.isfinite(float(row["test_ll"])) for row in fits)
    # the choices reach the estimators: a row's own draws cost more time per fit
    seconds = {row["configuration"]: float(row["fit_seconds"]) for row in fits}
    assert seconds["AADM alpha=1, draws per row"] > seconds["AADM alpha=1, base"]


def test_epochs_and_splits_are_refused_by_targets_without_them(capsys):
    with pytest.raises(SystemExit):
        main(["reproduce", "gmm", "--epochs", "3"])
    err = capsys.readouterr().err
    assert "--epochs is not an option of the gmm target" in err
    assert err.startswith("usage: alphavb reproduce")  # the subcommand's usage, not the top
    with pytest.raises(SystemExit):
        main(["reproduce", "aadm-toy", "--splits", "3"])
    assert "--splits is not an option of the aadm-toy target" in capsys.readouterr().err


@pytest.mark.parametrize(("arguments", "message"), [
    (["--jobs", "0"], "argument --jobs: must be an integer >= 1 (or -1 for all cores), got 0"),
    (["--seed", "-1"], "argument --seed: must be an integer >= 0, got -1"),
    # passed argparse before and failed in numpy
    (["--seed", str(2**40)], f"argument --seed: must be an integer <= {2**32 - 1}, got"),
    (["--splits", "-2"], "argument --splits: must be an integer >= 1, got -2"),
    (["--splits", "0"], "argument --splits: must be an integer >= 1, got 0"),
    (["--epochs", "many"], "argument --epochs: 'many' is not an integer"),
])
def test_bad_options_end_in_one_line_naming_them(arguments, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["reproduce", "aadm-uci", "--quick", *arguments])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and "Traceback" not in err


def test_an_out_folder_that_cannot_be_written_is_named(tmp_path, capsys):
    a_file = tmp_path / "results.txt"
    a_file.write_text("")
    for out, message in ((a_file, "is a file, not a folder"),
                         (a_file / "below", "cannot write there")):
        with pytest.raises(SystemExit) as exit_info:
            main(["reproduce", "hdr", "--quick", "--out", str(out)])
        assert exit_info.value.code == 2
        assert f"--out {out}: {message}" in capsys.readouterr().err
    # an empty --out was taken as none: the default folder, results/hdr, was written to
    monkeypatch_cwd = tmp_path / "here"
    monkeypatch_cwd.mkdir()
    import os

    before = os.getcwd()
    os.chdir(monkeypatch_cwd)
    try:
        with pytest.raises(SystemExit) as exit_info:
            main(["reproduce", "hdr", "--quick", "--out", ""])
        assert exit_info.value.code == 2 and "--out: an empty path" in capsys.readouterr().err
        # an option the target does not take is refused before any folder is made
        with pytest.raises(SystemExit):
            main(["reproduce", "hdr", "--replications", "5", "--out", "made"])
        assert "--replications is not an option" in capsys.readouterr().err
        assert list(monkeypatch_cwd.iterdir()) == []
    finally:
        os.chdir(before)


def test_more_jobs_than_cores_are_capped_and_said(monkeypatch, capsys, tmp_path):
    import os

    from alphavb import reproduce

    seen = {}
    monkeypatch.setitem(reproduce.TARGETS, "coverage", lambda out_dir, random_state,
                        n_jobs=1: seen.update(n_jobs=n_jobs) or {"files": []})
    assert main(["reproduce", "coverage", "--jobs", "100000", "--out", str(tmp_path)]) == 0
    assert seen["n_jobs"] == (os.cpu_count() or 1)
    assert "--jobs 100000 is more than this machine's" in capsys.readouterr().err


def test_a_default_output_folder_that_is_a_file_is_named(tmp_path, monkeypatch, capsys):
    """A file named results in the working folder ended in a traceback from mkdir."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").write_text("")
    with pytest.raises(SystemExit) as exit_info:
        main(["reproduce", "hdr", "--quick"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "Traceback" not in err
    assert "the default output folder (--out) results/hdr: cannot write there" in err


def test_bbalpha_modes_match_the_closed_forms_at_vb_and_ep(tmp_path):
    """Figure 2 of the BB-alpha paper: for the correlated Gaussian the factorized VB
    minimiser (alpha = 0) has sds sqrt(1 - rho^2) and EP's (alpha = 1) the marginal sds 1;
    for the bimodal target EP matches the mixture's moments and VB sits on the heavier mode."""
    assert main(["reproduce", "bbalpha-modes", "--quick", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "bbalpha_modes.csv", newline="") as handle:
        rows = {(row["target"].split()[0], float(row["alpha"])): row
                for row in csv.DictReader(handle)}
    assert png_description(tmp_path / "bbalpha_modes.png") == "quick run: coarse grid"

    def sds(key):
        return [float(rows[key]["sd_1"]), float(rows[key]["sd_2"])]

    np.testing.assert_allclose(sds(("correlated", 0.0)), np.sqrt(1 - 0.9**2), rtol=2e-3)
    np.testing.assert_allclose(sds(("correlated", 1.0)), 1.0, rtol=2e-3)
    assert sds(("correlated", 0.0))[0] < sds(("correlated", 0.5))[0] < 1.0
    ep = rows[("bimodal", 1.0)]
    mean = 0.7 * -1.8 + 0.3 * 1.8
    assert float(ep["mean_1"]) == pytest.approx(mean, abs=2e-3)
    assert float(ep["sd_1"]) == pytest.approx(np.sqrt(0.5 + 0.7 * 0.3 * 3.6**2), rel=2e-3)
    assert float(rows[("bimodal", 0.0)]["mass_on_heavier_mode_side"]) > 0.99
    assert float(rows[("bimodal", 2.0)]["sd_1"]) > float(ep["sd_1"])  # covers more


def test_bbalpha_classification_quick(tmp_path):
    assert main(["reproduce", "bbalpha-classification", "--quick", "--out",
                 str(tmp_path)]) == 0
    with open(tmp_path / "bbalpha_classification.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["dataset"], row["model"], float(row["alpha"])) for row in rows] == [
        (data, model, alpha) for data, models in (("breast_cancer", ("probit", "BNN 50")),
                                                  ("digits", ("softmax", "BNN 50")))
        for model in models for alpha in (0.0, 0.5, 1.0)]
    for row in rows:
        assert int(row["n_splits"]) == 2
        assert float(row["test_error"]) < 0.2 and float(row["test_ll"]) < 0
    assert png_description(tmp_path / "bbalpha_classification.png") == \
        "quick run: not converged"
    # a second run gives the same rows (read from the result cache under fits/)
    with open(tmp_path / "bbalpha_classification_splits.csv", newline="") as handle:
        first = list(csv.DictReader(handle))
    assert main(["reproduce", "bbalpha-classification", "--quick", "--out",
                 str(tmp_path)]) == 0
    with open(tmp_path / "bbalpha_classification_splits.csv", newline="") as handle:
        assert list(csv.DictReader(handle)) == first


@pytest.mark.slow(7)
def test_reproduce_leukemia_quick(tmp_path):
    from alphavb.datasets import get_data_home

    if not (get_data_home() / "leukemia" / "X.csv").exists():
        pytest.skip("the Leukemia data are not in the data home (set ALPHAVB_DATA)")
    assert main(["reproduce", "leukemia", "--quick", "--out", str(tmp_path)]) == 0
    assert png_description(tmp_path / "leukemia.png") == "quick run: 2 of the alphas"
    with open(tmp_path / "leukemia_summary.csv", newline="") as handle:
        summary = list(csv.DictReader(handle))
    ours = [row for row in summary if row["method"] == "alphavb spike-and-slab"]
    assert [float(row["alpha"]) for row in ours] == [0.5, 1.0]
    for row in ours:  # varbvs's gene, and varbvs's 4 in-sample errors (46/47 and 22/25)
        assert row["top_column"] == "956" and float(row["top_pip"]) > 0.99
        assert int(row["in_sample_errors"]) <= 5 and int(row["cv_errors"]) <= 15
    lasso = summary[-1]
    assert lasso["method"].startswith("lasso") and int(lasso["selected"]) > 1
    with open(tmp_path / "leukemia_settings.csv", newline="") as handle:
        settings = list(csv.DictReader(handle))
    assert len(settings) == 2 * 5
    for alpha in ("0.5", "1"):
        weights = [float(row["weight"]) for row in settings if row["alpha"] == alpha]
        assert sum(weights) == pytest.approx(1.0, abs=1e-5)  # written to 6 digits
        included = [float(row["expected_included"]) for row in settings if row["alpha"] == alpha]
        assert included == sorted(included)  # a larger prior pi includes more


@pytest.mark.slow(60)
def test_reproduce_vb_vs_exact_quick(tmp_path):
    pytest.importorskip("polyagamma")
    from alphavb.datasets import get_data_home

    if not ((get_data_home() / "leukemia" / "X.csv").exists()
            and (get_data_home() / "susie" / "N3finemapping_X.csv").exists()
            and (get_data_home() / "ap" / "ap.dat").exists()):
        pytest.skip("the Leukemia, susie and AP data are not in the data home (set "
                    "ALPHAVB_DATA)")
    pytest.importorskip("numpyro")
    assert main(["reproduce", "vb-vs-exact", "--quick", "--out", str(tmp_path)]) == 0
    assert png_description(tmp_path / "vb_vs_exact.png") == "quick run: 2 of the alphas"
    with open(tmp_path / "vb_vs_exact.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["problem"].split(" ")[0], float(row["alpha"])) for row in rows] == [
        (name, alpha) for name in ("figure-1", "N3finemapping", "Leukemia", "Figure-2",
                                   "LDA,")
        for alpha in (0.5, 1.0)]
    for row in rows:
        assert 0.0 <= float(row["smallest_interval_mass"]) <= 1.0
        assert float(row["median_sd_ratio"]) > 0.0
        if row["problem"].split(" ")[0] in ("figure-1", "N3finemapping"):
            # independent columns and a clear signal: VB's PIPs are the exact ones
            assert float(row["largest_pip_error"]) < 0.05
        if row["problem"].startswith("Figure-2"):
            # well-separated clusters, known weights and covariance: VB is near exact
            assert float(row["largest_mean_error"]) < 0.5
            assert float(row["smallest_interval_mass"]) > 0.85
    with open(tmp_path / "vb_vs_exact_parameters.csv", newline="") as handle:
        parameters = list(csv.DictReader(handle))
    lda_rows = [row for row in parameters if row["problem"].startswith("LDA")]
    n_words = int(rows[-1]["problem"].split("x ")[1].split(",")[0])
    assert len(lda_rows) == 2 * 3 * n_words
    assert len(parameters) == 2 * ((500 + 2) + (200 + 2) + (3571 + 1) + 6) + len(lda_rows)


def test_replications_reach_the_target_that_takes_them(monkeypatch, tmp_path):
    """``--replications N`` is the susie2-benchmark's count of replicates (its long run is
    resumed from the cache by the same command), and an error for a target without one."""
    import inspect

    from alphavb import reproduce

    calls = []

    def record(out_dir, random_state, **options):
        calls.append(options)
        return {"files": []}

    record.__signature__ = inspect.signature(reproduce.TARGETS["susie2-benchmark"])
    monkeypatch.setitem(reproduce.TARGETS, "susie2-benchmark", record)
    assert main(["reproduce", "susie2-benchmark", "--replications", "60", "--out",
                 str(tmp_path / "s")]) == 0
    assert calls == [{"n_replications": 60}]
    with pytest.raises(SystemExit):
        main(["reproduce", "hdr", "--replications", "3", "--out", str(tmp_path / "h")])
