"""The issue's quality targets, at the default settings, on a small mirror built from real HTML:
the pydoc browser's pages (``python -m pydoc -b``) of standard-library modules, help topics and
keywords -- one shared template (navigation bar, search forms) around each page's content, many
short pages, available wherever Python is. A regression in extraction or weighting fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contentseen.evaluate.core import evaluate
from contentseen.evaluate.inputs import read_labels
from contentseen.evaluate.mirror import PYDOC_CONTENT, build_mirror, pydoc_tree
from contentseen.pipeline import Scheme

MODULES = ("bisect", "colorsys", "copy", "fnmatch", "getopt", "glob", "graphlib", "heapq", "hmac",
           "keyword", "linecache", "netrc", "numbers", "quopri", "reprlib", "sched", "secrets", "shlex",
           "stringprep", "struct", "tabnanny", "textwrap", "token", "wave", "zipapp", "filecmp",
           "fileinput", "base64", "gettext", "queue")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pydoc-tree")
    written = pydoc_tree(root, MODULES)
    assert len(written) >= 100, "pydoc rendered too few pages"
    return root


@pytest.mark.parametrize("seed", [1, 2])
def test_quality_targets_at_the_default_settings(tree: Path, tmp_path: Path, seed: int):
    doc = build_mirror(tree, tmp_path / "mirror", pages=1000, seed=seed, content=PYDOC_CONTENT)  # all
    n, c = doc["pages"], doc["counts"]
    assert n >= 100 and c["identical"] == round(n / 2) and c["near"] == round(n / 3)
    ev = evaluate(read_labels(tmp_path / "mirror"), Scheme(), jobs=1)
    rate = {r.group: r.rate for r in ev.rows}
    summary = {name: f"{100 * value:.1f}%" for name, _, value, _ in ev.targets()}
    assert rate["identical"] == 1.0, summary
    assert rate["near"] >= 0.95, summary
    assert rate["different"] <= 0.01, summary
    assert ev.within["false"] <= 0.01 * ev.within["pages"], (summary, ev.within["cases"])
    assert all(met for *_, met in ev.targets())
