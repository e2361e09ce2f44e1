"""The ``contentseen`` command as real processes, on real SQLite files and a real redis-server:
info, find, export and import (round trip, bad lines), delete, prune, reset, explain, --help,
one-line errors with exit status 2."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from conftest import run_cli
from redis_server import redis_server, redis_url  # noqa: F401  (fixtures)

from contentseen.fingerprints import EXTRACTION_VERSION, Scheme
from contentseen.stores import open_store

MODULE = "contentseen.cli.command"
DAY = 86400.0


def cli(*args: str) -> tuple[int, str, str]:
    proc = run_cli(MODULE, *args, timeout=60)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def make_store(url: str, **options) -> None:
    """A store of the default scheme (as a crawl makes it): 5 entries, two old ones."""
    pages = Scheme().build()
    now = time.time()
    with open_store(url, pages.identity, 64, 3, page_distance=10, expected=10_000, **options) as store:
        store.add_many([0x1111 << 40, 0x2222 << 40, 0x3333 << 40, 0x4444 << 40, 0x5555 << 40],
                       ["http://s/a", "http://s/b", "http://s/a", "http://s/c", "http://s/d"],
                       [1, 2, None, 4, 5], [now - 40 * DAY, now - 35 * DAY, now, now, now])


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        url = "sqlite:///" + str(tmp_path / "fp.sqlite")
        make_store(url)
    else:
        url = request.getfixturevalue("redis_url")
        make_store(url, prefix="contentseen")
    return url


def test_info_find_export_import_delete_prune_reset(store_url, tmp_path):
    code, out, err = cli("info", store_url)
    assert code == 0, err
    assert "fingerprints: 5" in out and f"scheme extract: main/v{EXTRACTION_VERSION}" in out and "scheme page_distance: 10" in out
    assert "oldest: " in out and "newest: " in out
    size = re.search(r"^(size on disk|server memory): (\d+) bytes", out, re.M)
    assert size and int(size[2]) > 10_000, out  # a file of pages, or a server's used_memory
    code, out, _ = cli("find", store_url, "http://s/a")
    found = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [f["fingerprint"] for f in found] == [f"{0x1111 << 40:016x}", f"{0x3333 << 40:016x}"]
    assert found[0]["page"] == f"{1:016x}" and found[1]["page"] is None
    assert cli("find", store_url, "http://s/none")[0] == 1
    export = tmp_path / "export.jsonl"
    assert cli("export", store_url, "-o", str(export))[0] == 0
    assert len(export.read_text().splitlines()) == 5
    copy = "sqlite:///" + str(tmp_path / "copy.sqlite")
    code, out, err = cli("import", copy, str(export), "--like", store_url)
    assert (code, out.strip()) == (0, "imported 5 entries; the store holds 5"), err
    assert cli("export", copy)[1] == export.read_text()  # the same entries, times included
    export.write_text(export.read_text() + "{not json\n")
    code, _, err = cli("import", copy, str(export))
    assert code == 2 and err.startswith("contentseen: error: ") and "line 6" in err and err.count("\n") == 1
    assert cli("delete", store_url, "http://s/a")[1].strip() == "deleted 2 entries of http://s/a"
    assert cli("prune", store_url, "--older-than", "30d")[1].strip() == "removed 1 entries older than 30d"
    assert "fingerprints: 2" in cli("info", store_url)[1]
    assert cli("reset", store_url)[1].strip() == "removed 2 entries; the scheme stays"
    code, out, _ = cli("info", store_url)
    assert "fingerprints: 0" in out and "scheme bits: 64" in out


def test_explain_two_files(tmp_path):
    words = ("harbour lanterns glowed while fishermen mended nets beside weathered boats and gulls "
             "circled the quiet morning tide near the old stone pier ").split()
    text = " ".join(words * 4)
    a, b, c = tmp_path / "a.html", tmp_path / "b.html", tmp_path / "c.html"
    a.write_text(f"<html><body><main><h1>Harbour</h1><p>{text}</p></main></body></html>")
    b.write_text(f"<html><body><nav>Home</nav><main><h1>Harbour</h1><p>{text}</p></main></body></html>")
    c.write_text("<html><body><main><p>" + " ".join(reversed(words)) * 2 + " entirely other words about "
                 "mountain railways and alpine tunnels</p></main></body></html>")
    code, out, err = cli("explain", str(a), str(b))
    assert code == 0, err
    assert "content: Harbour harbour lanterns" in out and "content distance 0" in out
    assert "decision: B is dropped as a near-duplicate of A" in out
    code, out, _ = cli("explain", str(a), str(c))
    assert "decision: B is kept" in out
    code, _, err = cli("explain", str(a), str(tmp_path / "missing.html"))
    assert code == 2 and "missing.html" in err and err.count("\n") == 1
    # a page whose content block is a sliver of it says so
    menu = "<div class='side'>" + " ".join(f"<a href='/p{i}'>chapter {i} of the harbour guide</a>" for i in range(60))
    c.write_text(f"<html><body>{menu}</div><div class='doc'><p>Lanterns glowed beside the weathered pier while fishermen mended their nets.</p></div></body></html>")
    code, out, err = cli("explain", str(a), str(c))
    assert code == 0, err
    assert out.count("a sliver of the page") == 1 and "decision: B is kept" in out
    # a page whose content is under half its text is held to a smaller whole-page distance
    from test_quality import _haddock_page

    a.write_text(_haddock_page("Foreign", "A collection of data types, classes, and functions for interfacing "
                               "with another programming language.", ["Data.Bits", "Data.Int", "Data.Word",
                                                                      "Foreign.Ptr", "Foreign.ForeignPtr",
                                                                      "Foreign.StablePtr", "Foreign.Storable",
                                                                      "Foreign.Marshal"]))
    # (B's module name in its content as A's: words v7 tell the two names apart alone)
    b.write_text(_haddock_page("Foreign.C", "Bundles the C specific FFI library functionality",
                               ["Foreign.C.Types", "Foreign.C.String", "Foreign.C.Error"]).replace(
        "<p class='caption'>Foreign.C</p>", "<p class='caption'>Foreign</p>"))
    code, out, err = cli("explain", str(a), str(b))
    assert code == 0, err
    assert "content distance 0 (drop at <= 3)" in out
    assert "whole-page distance 9 (drop at <= 8, B's content being 47% of its text)" in out
    assert "decision: B is kept: content near (0) but the whole pages differ (9 > 8)" in out
    # a copy made a sliver by a mirror's lines is dropped by its content block alone
    from test_sliver_crawl import note

    a.write_text(note(3, False))
    b.write_text(note(3, True))
    code, out, err = cli("explain", str(a), str(b))
    assert code == 0, err
    assert out.count("its content block alone: fingerprint") == 1 and ", of B's content block alone 0" in out
    assert "decision: B is dropped as a near-duplicate of A: content (B's block alone) within 3" in out


@pytest.mark.parametrize("sub", ["info", "find", "export", "import", "delete", "prune", "reset", "explain"])
def test_help(sub):
    code, out, _ = cli(sub, "--help")
    assert code == 0 and out.startswith(f"usage: contentseen {sub}")


def test_errors_are_one_line(tmp_path):
    for args, says in (
        (("info", "sqlite:///" + str(tmp_path / "none.sqlite")), "no such file"),
        (("info", "ftp://x"), "is not a store URL"),
        (("prune", "memory://", "--older-than", "soon"), "argument --older-than: 'soon' is not a duration"),
        (("info", "redis://:secret@127.0.0.1:1/0"), "redis://:***@127.0.0.1:1/0"),
        (("frobnicate",), "invalid choice"),
    ):
        code, out, err = cli(*args)
        assert code == 2 and err.startswith("contentseen: error: ") and says in err, err
        assert err.count("\n") == 1 and "secret" not in err


def explain_served(a: str, b: str) -> str:
    """``contentseen explain`` of two HTML pages served by a real server on one host: its output."""
    from contentseen import demosite
    from contentseen.demosite import Page

    pages = {path: Page("text/html; charset=utf-8", html.encode()) for path, html in (("/a.html", a), ("/b.html", b))}
    with demosite.serve(pages) as url:
        code, out, err = cli("explain", url + "/a.html", url + "/b.html")
    assert code == 0, err
    return out


def test_explain_two_pages_of_one_host_showing_one_block():
    # a shop's product pages (tests/test_shared_blocks.py), fetched from a real server: B's content
    # block, the shop's panel, is on A too, so B is held to the whole page, as a crawl holds it
    from test_shared_blocks import product

    out = explain_served(product(1), product(3))
    assert "content distance 0 (drop at <= 3)" in out
    assert "(drop at <= 2, B's content block being on A too, a page of its host)" in out
    assert "decision: B is kept: content near (0) but the whole pages differ" in out


def test_explain_two_pages_of_a_thread_tells_their_replies_apart():
    # a thread's pages 1 and 7 (tests/test_featured_articles.py): one opening post, whole pages
    # one (the post counted twice); the text outside the block differs, and a crawl keeps both
    from test_featured_articles import short_reply_page

    out = explain_served(short_reply_page(1), short_reply_page(7))
    assert "content distance 0 (drop at <= 3), whole-page distance 0 (drop at <= 2" in out
    assert "text outside the content block: distance " in out
    assert "decision: B is kept: content and whole page near, but the text outside the block differs" in out
