"""Shared fixtures: the four input files (made-up ones, and the course's when present), and a
runner for console commands."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


# The course hash table's shape, so that the made-up files take the same N and M.
SYNTHETIC_ROWS, SYNTHETIC_COLS = 10000, 128


def write_synthetic_inputs(d: Path, seed: int = 1) -> None:
    """Made-up ``article.txt``, ``sample.txt``, ``stopwords.txt`` and ``hashvalue.txt`` in the
    course's format: pages of invented words (some capitalised, with numbers and punctuation)
    separated by form feeds, each page half common words and half words of its own topic;
    samples that are an article's exact copy, an article with a few words changed, one with half
    changed, and new pages."""
    rng = random.Random(seed)
    vocab = sorted({"".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9))) for _ in range(3000)})
    weights = [1 / (i + 1) for i in range(len(vocab))]  # Zipf-like: frequent words and rare ones
    rng.shuffle(vocab)

    def body(n: int) -> list[str]:
        topic = rng.sample(vocab, 40)  # each page has words of its own, as real pages do
        words = [rng.choice(topic) if rng.random() < 0.5 else w for w in rng.choices(vocab, weights, k=n)]
        return [w.title() if rng.random() < 0.1 else w + rng.choice(("", "", ",", ".", " 42")) for w in words]

    def changed(words: list[str], share: float) -> list[str]:
        return [rng.choice(vocab) if rng.random() < share else w for w in words]

    def lines(words: list[str]) -> str:
        return "\n".join(" ".join(words[i:i + 12]) for i in range(0, len(words), 12))

    articles = [body(rng.randint(30, 300)) for _ in range(150)]
    samples = [articles[0], changed(articles[4], 0.02), changed(articles[8], 0.5), body(80), body(200)]
    write_pages = lambda name, pages: (d / name).write_text(  # noqa: E731
        "\f\n".join(f"{pid}\n{lines(words)}\n\n" for pid, words in pages), "ascii")
    write_pages("article.txt", [(f"1-{i + 1}", w) for i, w in enumerate(articles)])
    write_pages("sample.txt", [(f"Sample-{i + 1}", w) for i, w in enumerate(samples)])
    (d / "stopwords.txt").write_text("\n".join(sorted(rng.sample(vocab, 60))), "ascii")
    rows = (format(rng.getrandbits(SYNTHETIC_COLS), f"0{SYNTHETIC_COLS}b") for _ in range(SYNTHETIC_ROWS))
    (d / "hashvalue.txt").write_text("\n".join(rows) + "\n", "ascii")


@pytest.fixture(scope="session")
def synthetic_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("synthetic")
    write_synthetic_inputs(d)
    return d


@pytest.fixture(params=["synthetic", "course"])
def input_dir(request: pytest.FixtureRequest) -> Path:
    """The four input files: made-up ones, then the course's (skipped when absent)."""
    return request.getfixturevalue(f"{request.param}_dir")


def _copy_inputs(src: Path, dst: Path) -> Path:
    for f in COURSE_FILES:
        shutil.copy(src / f, dst / f)
    return dst


@pytest.fixture
def course_copy(course_dir: Path, tmp_path: Path) -> Path:
    """A scratch directory holding copies of the course's four input files."""
    return _copy_inputs(course_dir, tmp_path)


@pytest.fixture
def synthetic_copy(synthetic_dir: Path, tmp_path: Path) -> Path:
    """A scratch directory holding copies of the made-up input files."""
    return _copy_inputs(synthetic_dir, tmp_path)


@pytest.fixture
def input_copy(input_dir: Path, tmp_path: Path) -> Path:
    """A scratch directory holding copies of ``input_dir``'s files."""
    return _copy_inputs(input_dir, tmp_path)


def run_cli(module: str, *args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m module args`` as a real process and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        capture_output=True,
        timeout=timeout,
    )
