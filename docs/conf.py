"""Sphinx configuration of alphavb's documentation site: the API reference from the
numpydoc docstrings (one page per public name), the user guide, the architecture notes,
the gallery of the reproduce targets and the "switching from" page.

Build (warnings are errors): python -m sphinx -W --keep-going -b html docs docs/_build/html
"""

import alphavb

project = "alphavb"
author = "the alphavb developers"
release = alphavb.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.mathjax",
              "numpydoc"]
autosummary_generate = True
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
templates_path = ["_templates"]
exclude_patterns = ["_build", "_templates"]
html_theme = "alabaster"
html_theme_options = {"description": "alpha-tempered variational Bayes",
                      "fixed_sidebar": True}
html_title = f"alphavb {release}"
