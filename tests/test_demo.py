"""``contentseen-demo`` as a user runs it (a real process: its crawls need a reactor of their
own), and the demo site's data files as a wheel ships them."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from contentseen import demosite as ds
from contentseen.fingerprints import Scheme
from contentseen.stores import open_store

DEMO = "contentseen.cli.demo"
SITE_A = ds.build_site(mirror=False)


def demo(*args: str, cwd: Path) -> tuple[int, str, str]:
    r = run_cli(DEMO, *args, cwd=cwd)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def section(out: str, title: str) -> str:
    """The lines of ``out`` from the heading starting ``== title`` to the next heading."""
    return out.split(f"== {title}", 1)[1].split("\n== ", 1)[0]


def test_demo_prints_what_each_crawl_kept_and_dropped(tmp_path: Path):
    code, out, err = demo(cwd=tmp_path)
    assert code == 0, err
    assert err == ""
    first, second = section(out, "Crawl 1"), section(out, "Crawl 2")
    pages = ds.html_paths(SITE_A)
    assert f"Kept {len(pages)} page(s):" in first and "Dropped 0 page(s):" in first
    for path in pages:
        assert re.search(rf"^  [0-9a-f]{{16}}  original{re.escape(path)} ", first, re.M), path
    outcomes = {p: ds.expected_mirror_outcome(p) for p in ds.MIRROR_LABELS}
    dropped = [p for p, o in outcomes.items() if o == "dropped"]
    kept = [p for p, o in outcomes.items() if o == "kept"]
    assert f"Kept {len(kept)} page(s):" in second and f"Dropped {len(dropped)} page(s):" in second
    for path in dropped:  # a mirror page duplicates the original's page at the same path
        assert re.search(rf"^  mirror{re.escape(path)} +duplicates original{re.escape(path)} +"
                         r"distance \d+, whole page \d+$", second, re.M), path
    assert f"contentseen/dropped: {len(dropped)}" in second
    table = section(out, "The mirror's pages")
    words = {"dropped": "dropped as a copy of original", "kept": "kept", "type": "not a page",
             "unreached": "not requested (only linked from"}
    for path, outcome in outcomes.items():
        assert re.search(rf"^  {ds.MIRROR_LABELS[path]} +{re.escape(path)} +{re.escape(words[outcome])}",
                         table, re.M), (path, outcome)


def test_a_kept_store_makes_the_next_run_drop_what_it_stored(tmp_path: Path):
    store = tmp_path / "kept.sqlite"
    assert demo("--keep-store", str(store), cwd=tmp_path)[0] == 0
    code, out, err = demo("--keep-store", str(store), cwd=tmp_path)
    assert code == 0, err
    # The start page is a copy of the one stored last time (another port): nothing else is reached.
    assert re.search(r"^  original/ +duplicates 127\.0\.0\.1:\d+/ .*\(stored by an earlier run\)$",
                     section(out, "Crawl 1"), re.M), out
    assert f"Store kept at {store}" in out


def test_a_store_of_another_scheme_fails_the_run_in_one_line(tmp_path: Path):
    pages = Scheme(bits=128).build()
    store = tmp_path / "other.sqlite"
    open_store("sqlite:///" + str(store), pages.identity, 128, pages.scheme.distance,
               page_distance=pages.scheme.page_distance).close()
    code, out, err = demo("--keep-store", str(store), cwd=tmp_path)
    assert code == 1
    assert "== Crawl" not in out
    last = err.splitlines()[-1]
    assert last.startswith("contentseen-demo: error: crawl 1: the original site failed: store sqlite:///")
    assert "another fingerprint scheme" in last and "Traceback" not in err


def test_bad_arguments_and_help(tmp_path: Path):
    code, _, err = demo("--keep-store", str(tmp_path), cwd=tmp_path)
    assert code == 2 and err == f"contentseen-demo: error: --keep-store {tmp_path}: is a directory\n"
    code, _, err = demo("--bogus", cwd=tmp_path)
    assert code == 2 and err.count("\n") == 1 and "--bogus" in err
    code, out, _ = demo("--help", cwd=tmp_path)
    assert code == 0 and "--keep-store" in out and "Exit status" in out


def test_every_demo_site_file_is_declared_package_data():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["contentseen"]
    package = ROOT / "contentseen"
    files = [p.relative_to(package).as_posix() for p in (package / "demo_site").rglob("*") if p.is_file()]
    assert files
    assert [f for f in files if not any(fnmatch.fnmatch(f, g) and f.count("/") == g.count("/") for g in globs)] == []
