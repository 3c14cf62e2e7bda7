"""The documentation site's sources: an API page for every public class and function, a
gallery entry for every reproduce figure, and the pages the home page lists (the build
itself, warnings as errors, runs in .ci/run)."""

import importlib
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
# the modules whose __all__ is the public API
PUBLIC = ("alphavb", "alphavb.exact", "alphavb.genotypes", "alphavb.datasets",
          "alphavb.simulation", "alphavb.model_selection", "alphavb.metrics", "alphavb.plotting",
          "alphavb.divergences", "alphavb.risk", "alphavb.cache", "alphavb.inference_data",
          "alphavb.linear_model", "alphavb.mixture", "alphavb.topics", "alphavb.blackbox",
          "alphavb.reproduce")


def test_every_public_class_and_function_has_an_api_page():
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   (\w+)$", text, flags=re.M))
    missing = []
    for name in PUBLIC:
        module = importlib.import_module(name)
        for public in module.__all__:
            value = getattr(module, public)
            if callable(value) and not public.isupper() and public not in listed:
                missing.append(f"{name}.{public}")
    assert not missing, missing


def test_every_reproduce_figure_is_in_the_gallery_with_its_command():
    from alphavb.reproduce import TARGETS

    text = (DOCS / "gallery.rst").read_text(encoding="utf-8")
    figures = sorted(path.name for path in (DOCS.parent / "vignettes" / "figures").glob("*.png"))
    assert figures and all(f"../vignettes/figures/{name}" in text for name in figures)
    commands = re.findall(r"``alphavb reproduce ([\w-]+)", text)
    assert commands and set(commands) <= set(TARGETS)


def test_the_home_page_lists_every_page():
    text = (DOCS / "index.rst").read_text(encoding="utf-8")
    for page in ("guide", "switching", "gallery", "api", "architecture"):
        assert f"   {page}\n" in text and (DOCS / f"{page}.rst").is_file(), page
