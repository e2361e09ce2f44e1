"""Every numeric argument has a range named in its error; no argument makes a command allocate
without bound or print a traceback; ``result.txt`` gets the mode of any new file. Tiny inputs
written here: no course file needed."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest
from conftest import run_cli


def _course_like(d: Path) -> None:
    """Four small files in the course formats: 2 article pages, 1 sample page, 16 x 8 table."""
    (d / "article.txt").write_text("1-1\nrivers carry water to the sea\f1-2\nmountains hold snow in winter\n")
    (d / "sample.txt").write_text("2-1\nrivers carry water to the sea\n")
    (d / "stopwords.txt").write_text("the\nto\nin\n")
    (d / "hashvalue.txt").write_text("\n".join(format((i * 37) % 256, "08b") for i in range(16)) + "\n")


def _one_line(r) -> str:
    lines = r.stderr.decode().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    return lines[0]


@pytest.mark.parametrize("args,message", [
    (["--distance", "99999999999"], "argument --distance: '99999999999' is not a whole number in 0..128"),
    (["--distance", "-1"], "argument --distance: '-1' is not a whole number in 0..128"),
])
def test_report_distance_is_bounded(tmp_path, args, message):
    _course_like(tmp_path)
    start = time.perf_counter()
    r = run_cli("contentseen.cli.report", "8", "8", "--dir", str(tmp_path), *args, timeout=30)
    assert _one_line(r) == f"contentseen-report: error: {message}"
    assert time.perf_counter() - start < 20 and not (tmp_path / "result.txt").exists()


def test_a_distance_beyond_m_lists_what_m_lists(tmp_path):
    _course_like(tmp_path)
    outputs = []
    for d in ("8", "128"):
        assert run_cli("contentseen.cli.report", "8", "8", "--dir", str(tmp_path), "--distance", d).returncode == 0
        outputs.append((tmp_path / "result.txt").read_bytes())
    assert outputs[0] == outputs[1]


def test_result_file_has_the_mode_of_a_new_file(tmp_path):
    _course_like(tmp_path)
    old = os.umask(0o027)
    try:
        r = run_cli("contentseen.cli.report", "8", "8", "--dir", str(tmp_path))
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().splitlines()[:2] == ["2-1", "0:1-1 "]
    assert stat.S_IMODE((tmp_path / "result.txt").stat().st_mode) == 0o640


@pytest.mark.parametrize("args,message", [
    (["--jobs", "0"], "argument --jobs: '0' is not a whole number in 1..64"),
    (["--jobs", "100000000000"], "argument --jobs: '100000000000' is not a whole number in 1..64"),
    (["--worst", "-3"], "argument --worst: '-3' is not a whole number in 0..10000"),
])
def test_evaluate_numbers_are_bounded(tmp_path, args, message):
    for host in ("a", "b"):
        (tmp_path / host).mkdir()
        (tmp_path / host / "p.html").write_text("<html><body><p>some words of a page here</p></body></html>")
    r = run_cli("contentseen.cli.evaluate", str(tmp_path / "a"), str(tmp_path / "b"), *args)
    assert _one_line(r) == f"contentseen-evaluate: error: {message}"


@pytest.mark.parametrize("args,message", [
    (["--content", "###"], "argument --content: '###' is not a CSS selector"),
    (["--seed", "-1"], "argument --seed: '-1' is not a whole number in 0..9223372036854775807"),
    (["--pages", "0"], "argument --pages: '0' is not a whole number in 1..1000000000"),
])
def test_mirror_arguments_are_checked_before_any_work(tmp_path, args, message):
    (tmp_path / "tree").mkdir()
    r = run_cli("contentseen.cli.mirror", str(tmp_path / "tree"), str(tmp_path / "out"), *args)
    assert _one_line(r).startswith(f"contentseen-mirror: error: {message}")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name, value, message", [
    ("BITS", "129", "CONTENTSEEN_BITS: 129 is out of range 1..128"),
    ("DISTANCE", "9", "CONTENTSEEN_DISTANCE: 9 is out of range 0..8"),
    ("FEATURES", "10000000000", "CONTENTSEEN_FEATURES: 10000000000 is out of range 1..16777216"),
    ("FEATURES", "0", "CONTENTSEEN_FEATURES: 0 is out of range 1..16777216"),
    ("MIN_WORDS", "1000000000", "CONTENTSEEN_MIN_WORDS: 1000000000 is out of range 0..100000"),
    ("PAGE_DISTANCE", "65", "CONTENTSEEN_PAGE_DISTANCE: 65 is out of range 0..64"),
    ("EXPECTED_PAGES", "0", "CONTENTSEEN_EXPECTED_PAGES: '0' must be a whole number of pages, at least 1"),
    ("STORE_TIMEOUT", "0", "CONTENTSEEN_STORE_TIMEOUT: '0' is not a number of seconds in 0.1..3600"),
    ("STORE_BATCH", "0", "CONTENTSEEN_STORE_BATCH: '0' is not a whole number in 1..1000"),
    ("STORE_BATCH", "many", "CONTENTSEEN_STORE_BATCH: 'many' is not a whole number in 1..1000"),
])
def test_every_numeric_setting_names_its_range(name, value, message):
    # checked before anything is allocated: FEATURES 10^10 was a 149 GiB table
    from scrapy.settings import Settings

    from contentseen.errors import ContentSeenError
    from contentseen.settings import batch_setting, scheme_from_settings, seconds_setting
    from contentseen.stores.base import expected_pages

    settings = Settings({f"CONTENTSEEN_{name}": value})
    with pytest.raises(ContentSeenError) as err:
        if name == "EXPECTED_PAGES":
            expected_pages(settings)
        elif name == "STORE_TIMEOUT":
            seconds_setting(settings, "CONTENTSEEN_STORE_TIMEOUT", 5.0)
        elif name == "STORE_BATCH":
            batch_setting(settings)
        else:
            scheme_from_settings(settings).build()
    assert str(err.value) == message
