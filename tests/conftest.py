"""Shared fixtures: where the course files are, and a runner for console commands."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import crawl_process
import pytest

import contentseen.cli.demo

# Transitional: test_crawl.py and test_hostile_crawl.py still import the crawl runner from the
# demo, which no longer runs crawls as processes. Remove once they import it from crawl_process.
for _name in ("crawl_command", "crawl_env", "run_crawl"):
    setattr(contentseen.cli.demo, _name, getattr(crawl_process, _name))

ROOT = Path(__file__).resolve().parent.parent
COURSE_FILES = ("article.txt", "sample.txt", "stopwords.txt", "hashvalue.txt")


def assignment_dir() -> Path:
    """``$CONTENTSEEN_ASSIGNMENT_DIR``, else ``../shared/assignment`` beside the checkout."""
    env = os.environ.get("CONTENTSEEN_ASSIGNMENT_DIR")
    return Path(env) if env else ROOT.parent / "shared" / "assignment"


@pytest.fixture(scope="session")
def course_dir() -> Path:
    d = assignment_dir()
    missing = [f for f in COURSE_FILES + ("result(example).txt",) if not (d / f).is_file()]
    if missing:
        pytest.skip(
            f"course files {', '.join(missing)} not found in {d} "
            "(set CONTENTSEEN_ASSIGNMENT_DIR to the folder that holds them)"
        )
    return d


@pytest.fixture
def course_copy(course_dir: Path, tmp_path: Path) -> Path:
    """A scratch directory holding copies of the four input files."""
    for f in COURSE_FILES:
        shutil.copy(course_dir / f, tmp_path / f)
    return tmp_path


def run_cli(module: str, *args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m module args`` as a real process and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        capture_output=True,
        timeout=timeout,
    )
