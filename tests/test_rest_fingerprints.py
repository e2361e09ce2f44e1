"""The rest fingerprint (of a page's text outside its content block) in every store.

A store stores a check's ``rest`` and compares it only when the check gives a ``rest_distance``
(``engine.Engine.check``: a page whose block its host shows on other pages, against its own
host's pages): an entry whose rest is further is passed over, one without a rest is not. The
SQLite store adds the column to a store made before it, the Redis stores keep it in the record
(a record without one reads as before); ``contentseen export`` and ``import`` carry the rests.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest
from redis_server import cluster_url, redis_cluster, redis_server, redis_url  # noqa: F401  (fixtures)
from store_helpers import identity

from contentseen.errors import ContentSeenError
from contentseen.stores import open_store

BLOCK = 0x0123_4567_89AB_CDEF
PAGE = 0xFEDC_BA98_7654_3210
REST = 0x0F0F_0F0F_0F0F_0F0F


KINDS = ["memory", "sqlite", "redis_url", "cluster_url"]


def _open(kind: str, tmp_path, name: str = "store.db", request=None):
    if kind in ("redis_url", "cluster_url"):
        url = request.getfixturevalue(kind)
    else:
        url = "memory://" if kind == "memory" else f"sqlite:///{tmp_path / name}"
    return open_store(url, identity(64), 64, 3, page_distance=10)


def _near(value: int, bits: int) -> int:
    return value ^ ((1 << bits) - 1)  # the lowest ``bits`` bits flipped


@pytest.mark.parametrize("kind", KINDS)
def test_a_rest_is_compared_only_when_a_check_asks(kind: str, tmp_path, request):
    store = _open(kind, tmp_path, request=request)
    assert store.check_and_add(BLOCK, "http://a.test/1", page=PAGE, rest=REST) is None
    assert store.check_and_add(BLOCK, "http://a.test/2", page=PAGE, rest=REST ^ 1, rest_distance=3).url == "http://a.test/1"
    other = _near(REST, 12)  # another page around the same block: its own text elsewhere
    assert store.lookup(BLOCK, page=PAGE, rest=other).url == "http://a.test/1"  # not asked: no veto
    assert store.lookup(BLOCK, page=PAGE, rest=other, rest_distance=10) is None
    assert store.check_and_add(BLOCK, "http://a.test/3", page=PAGE ^ 1, rest=other, rest_distance=10) is None
    # stored: its copy finds it, the closest rest among the pages around the block
    assert store.lookup(BLOCK, page=PAGE, rest=other ^ 2, rest_distance=10).url == "http://a.test/3"
    # an entry without a rest, or a check without one, cannot disagree
    assert store.check_and_add(BLOCK ^ 0b111, "http://a.test/4", page=PAGE) is not None
    assert store.lookup(BLOCK, page=PAGE, rest_distance=0).url == "http://a.test/1"
    store.close()


@pytest.mark.parametrize("kind", KINDS)
def test_pages_passed_over_for_their_rest_leave_the_next_closest(kind: str, tmp_path, request):
    store = _open(kind, tmp_path, request=request)
    # one content, five pages around it (a store of Redis keeps one entry of one content and page)
    store.add_many([BLOCK] * 5, [f"http://a.test/{i}" for i in range(5)], [PAGE ^ i for i in range(5)],
                   rests=[_near(REST, 20 + i) for i in range(4)] + [REST])
    match = store.lookup(BLOCK ^ 1, page=PAGE, rest=REST, rest_distance=3)
    assert (match.url, match.distance) == ("http://a.test/4", 1)
    assert sorted(e.rest for e in store.entries()) == sorted([_near(REST, 20 + i) for i in range(4)] + [REST])
    store.close()


@pytest.mark.parametrize("kind", ["redis_url", "cluster_url"])
def test_a_redis_record_without_a_rest_reads_as_before(kind: str, tmp_path, request):
    store = _open(kind, tmp_path, request=request)
    store.add_many([BLOCK, _near(BLOCK, 40)], ["http://a.test/1", "http://a.test/2"], [PAGE, PAGE], rests=[None, REST])
    assert {(e.url, e.rest) for e in store.entries()} == {("http://a.test/1", None), ("http://a.test/2", REST)}
    assert store.lookup(BLOCK, page=PAGE, rest=REST, rest_distance=0).url == "http://a.test/1"
    assert store.lookup(_near(BLOCK, 40), page=PAGE, rest=_near(REST, 5), rest_distance=4) is None
    # the identical entry, its rest apart: kept, and the stored record is not replaced
    assert store.check_and_add(_near(BLOCK, 40), "http://a.test/9", page=PAGE, rest=_near(REST, 30), rest_distance=3) is None
    assert sorted(e.url for e in store.entries()) == ["http://a.test/1", "http://a.test/2"]
    assert store.delete_url("http://a.test/2") == 1 and store.discard(BLOCK, "http://a.test/1", 0) == 1
    with pytest.raises(ContentSeenError, match="NUL"):
        store.add_many([BLOCK], ["\x00x"])
    store.close()


def test_a_sqlite_store_made_before_rests_gets_them(tmp_path):
    store = _open("sqlite", tmp_path)
    store.check_and_add(BLOCK, "http://a.test/1", page=PAGE)
    store.close()
    db = sqlite3.connect(tmp_path / "store.db")
    db.execute("ALTER TABLE fingerprints DROP COLUMN r")  # as a store of the version before
    db.commit()
    db.close()
    store = _open("sqlite", tmp_path)
    assert store.check_and_add(BLOCK ^ 1, "http://a.test/2", page=PAGE, rest=REST, rest_distance=0).url == "http://a.test/1"
    assert store.check_and_add(_near(BLOCK, 40), "http://a.test/3", page=PAGE, rest=REST) is None
    assert [(e.url, e.rest) for e in store.entries()] == [("http://a.test/1", None), ("http://a.test/3", REST)]
    store.close()


def test_export_and_import_carry_the_rests(tmp_path):
    store = _open("sqlite", tmp_path)
    store.add_many([BLOCK, _near(BLOCK, 40)], ["http://a.test/1", "http://a.test/2"], [PAGE, PAGE], rests=[REST, None])
    store.close()
    source, target = f"sqlite:///{tmp_path / 'store.db'}", f"sqlite:///{tmp_path / 'copy.db'}"
    exported = subprocess.run([sys.executable, "-m", "contentseen.cli.command", "export", source],
                              capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in exported.splitlines()]
    assert [r.get("rest") for r in rows] == [f"{REST:016x}", None]
    (tmp_path / "entries.jsonl").write_text(exported)
    _open("sqlite", tmp_path, "copy.db").close()
    subprocess.run([sys.executable, "-m", "contentseen.cli.command", "import", target, str(tmp_path / "entries.jsonl")],
                   capture_output=True, text=True, check=True)
    copy = open_store(target, identity(64), 64, 3, page_distance=10)
    assert [(e.url, e.rest) for e in copy.entries()] == [("http://a.test/1", REST), ("http://a.test/2", None)]
    copy.close()
