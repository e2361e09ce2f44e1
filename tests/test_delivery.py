"""A page counts as seen only once delivered (``contentseen.delivery``): the journal and the
tracker as units, ``discard`` in every store, and real crawls -- killed with SIGKILL at random
points, then crawled again, with a pipeline that fsyncs each item: no page is never delivered;
an item that fails in the pipeline leaves its page to be kept again."""

from __future__ import annotations

import fcntl
import os
import random
import re
import subprocess
import time
from pathlib import Path

import pytest
from crawl_process import crawl_command, crawl_env, kill_9_when, parse_stats
from redis_server import cluster_url, redis_cluster, redis_server, redis_url  # noqa: F401  (fixtures)
from sites import delivery_site, host

from contentseen import delivery
from contentseen.delivery import Deliveries, Journal, Pending
from contentseen.stores import open_store
from store_helpers import IDENTITY

TESTS = Path(__file__).resolve().parent
STORE = "sqlite:///fp.sqlite"


# ------------------------------------------------------------------ the journal


def test_journal_lists_what_a_dead_process_left_in_flight(tmp_path):
    j = Journal(tmp_path, "site", STORE)
    j.begin(1, Pending(11, None, "http://a/1", 1.5))
    j.begin(2, Pending(22, 7, "http://a/2", 2.5))
    j.end(1)
    # alive (its lock held): not an orphan
    assert list(Journal.orphans(tmp_path, "site", STORE)) == []
    j._file.close()  # the process dies: its lock goes, the file stays
    found = [(path, pending) for path, pending in Journal.orphans(tmp_path, "site", STORE)]
    assert found == [(j.path, [Pending(22, 7, "http://a/2", 2.5)])]
    # another spider's, another store's: not these
    assert list(Journal.orphans(tmp_path, "other", STORE)) == []
    assert list(Journal.orphans(tmp_path, "site", "redis://elsewhere")) == []
    assert j.path.exists()


def test_a_torn_last_line_is_ignored(tmp_path):
    j = Journal(tmp_path, "site", STORE)
    j.begin(1, Pending(11, None, "http://a/1", 1.5))
    j._file.write(b'["+",2,2.0,33,nu')  # killed mid-write
    j._file.close()
    ((_, pending),) = Journal.orphans(tmp_path, "site", STORE)
    assert pending == [Pending(11, None, "http://a/1", 1.5)]


def test_closing_removes_the_journal_unless_pages_are_left(tmp_path):
    j = Journal(tmp_path, "site", STORE)
    j.begin(1, Pending(11, None, "http://a/1", 1.5))
    j.end(1)
    assert j.close() == [] and not j.path.exists()
    k = Journal(tmp_path, "site", STORE)
    k.begin(5, Pending(55, None, "http://a/5", 5.0))
    assert k.close() == [Pending(55, None, "http://a/5", 5.0)] and k.path.exists()
    assert [p for _, p in Journal.orphans(tmp_path, "site", STORE)] == [[Pending(55, None, "http://a/5", 5.0)]]


def test_a_long_journal_is_rewritten_with_only_the_pages_in_flight(tmp_path, monkeypatch):
    monkeypatch.setattr(delivery, "_COMPACT_LINES", 50)
    j = Journal(tmp_path, "site", STORE)
    first = j.path
    j.begin(0, Pending(1, None, "http://a/keep", 1.0))
    for key in range(1, 200):
        j.begin(key, Pending(key, None, f"http://a/{key}", 1.0))
        j.end(key)
    assert j.path != first and not first.exists()
    assert len(j.path.read_bytes().splitlines()) < 60
    assert [p.url for p in j.close()] == ["http://a/keep"]
    assert list(tmp_path.glob("*.inflight")) == [j.path]


def test_a_journal_held_by_another_process_is_not_replayed(tmp_path):
    j = Journal(tmp_path, "site", STORE)
    j.begin(1, Pending(11, None, "http://a/1", 1.5))
    j._file.close()
    fd = os.open(j.path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another starting process replays it
        assert list(Journal.orphans(tmp_path, "site", STORE)) == []
    finally:
        os.close(fd)


# ------------------------------------------------------------------ the tracker


def tracker():
    settled = []
    return Deliveries(lambda key, pending, delivered: settled.append((key, delivered))), settled


def test_a_page_is_delivered_when_its_callback_ended_and_its_items_passed():
    d, settled = tracker()
    d.track(1, Pending(1, None, "u1", 0.0))
    d.item_made(1)
    d.item_made(1)
    d.item_passed(1)
    d.callback_ended(1)
    assert settled == []  # one item still in the pipeline
    d.item_passed(1)
    assert settled == [(1, True)] and len(d) == 0


def test_a_page_whose_callback_or_item_failed_is_not_delivered():
    d, settled = tracker()
    for key in (1, 2, 3):
        d.track(key, Pending(key, None, f"u{key}", 0.0))
    d.callback_ended(1, failed=True)
    d.item_made(2)
    d.callback_ended(2)
    d.item_passed(2, ok=False)
    d.callback_ended(3)  # no items: delivered
    assert settled == [(1, False), (2, False), (3, True)]
    d.callback_ended(1)  # told twice: once is enough
    assert len(settled) == 3


def test_what_is_left_at_close_and_the_bound(monkeypatch):
    monkeypatch.setattr(delivery, "MAX_TRACKED", 3)
    d, settled = tracker()
    for key in range(1, 5):
        d.track(key, Pending(key, None, f"u{key}", 0.0))
    assert settled == [(1, True)]  # the oldest taken as delivered, beyond the bound
    assert [k for k, _ in d.undelivered()] == [2, 3, 4] and len(d) == 0


# ------------------------------------------------------------------ discard, in every store


@pytest.fixture(params=["memory", "sqlite", "redis", "cluster"])
def store_url(request, tmp_path):
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/fp.sqlite"
    return request.getfixturevalue("redis_url" if request.param == "redis" else "cluster_url")


def test_discard_removes_only_the_entry_this_page_stored(store_url):
    prefix = {"prefix": f"t{random.getrandbits(32)}"} if store_url.startswith("redis") else {}
    with open_store(store_url, IDENTITY, 64, 3, page_distance=10, **prefix) as store:
        before = time.time()
        store.add_many([0xAAAA], ["http://old/"], [5], seen=[before - 100])
        assert store.check_and_add(0xBBBB << 40, "http://new/", page=9) is None
        since = time.time()
        assert store.check_and_add(0xCCCC << 20, "http://later/", page=1) is None
        assert store.discard(0xAAAA, "http://old/", before) == 0  # stored before: not this page's
        assert store.discard(0xBBBB << 40, "http://other/", before) == 0  # another URL's
        assert store.discard(0xBBBB << 40, "http://new/", since + 1) == 0  # stored before since
        assert store.discard((0xBBBB << 40) ^ 1, "http://new/", before) == 0  # another fingerprint
        assert len(store) == 3
        assert store.discard(0xBBBB << 40, "http://new/", before) == 1
        assert len(store) == 2
        assert store.lookup(0xBBBB << 40, page=9) is None
        assert store.check_and_add((0xBBBB << 40) ^ 3, "http://copy/", page=9) is None  # kept now
        assert store.lookup(0xCCCC << 20, page=1).url == "http://later/"


# ------------------------------------------------------------------ real crawls, killed


def crawl_process(h, paths: list[str], workdir: Path, name: str, *settings: str) -> subprocess.Popen:
    cmd = crawl_command([h.u(p) for p in paths], f"{name}.jsonl", "sqlite:///" + str(workdir / "fp.sqlite"), [
        "CONCURRENT_REQUESTS=16", f"DELIVERED_FILE={workdir / 'delivered.txt'}",
        'ITEM_PIPELINES={"delivery_pipeline.FsyncPipeline": 300}', *settings])
    env = {**crawl_env(), "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    log = open(workdir / f"{name}.log", "wb")
    try:
        return subprocess.Popen(cmd, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
    finally:
        log.close()


def delivered(workdir: Path) -> list[str]:
    path = workdir / "delivered.txt"
    return path.read_text().split() if path.exists() else []


def in_flight(workdir: Path) -> int:
    """Pages the crawl's journal lists as checked and not yet delivered."""
    n = 0
    for path in workdir.glob(f"*{delivery.SUFFIX}"):
        try:
            with open(path, "rb") as file:
                n += len(delivery._read(file)[1])
        except FileNotFoundError:  # compacted meanwhile
            continue
    return n


def test_kill_9_at_random_points_then_a_recrawl_delivers_every_page(tmp_path):
    site, groups = delivery_site(240, 60)
    rng = random.Random(13)
    paths = sorted(site)
    with host(site, delay=0.01) as h:
        for round_ in range(3):
            rng.shuffle(paths)
            want = len(delivered(tmp_path)) + rng.randint(5, 40)
            proc = crawl_process(h, paths, tmp_path, f"killed{round_}")
            # Killed at a random number of deliveries, at a moment when pages are in flight (a
            # page is checked and delivered within milliseconds: a kill between is what is tested).
            assert kill_9_when(proc, lambda: len(delivered(tmp_path)) >= want and in_flight(tmp_path) > 0), (
                f"crawl {round_} ended before it was killed")
        proc = crawl_process(h, paths, tmp_path, "final")
        assert proc.wait(120) == 0
    log = (tmp_path / "final.log").read_text()
    # each start after a kill says how many entries it discarded (a killed crawl dumps no stats)
    discarded = sum(int(n) for path in tmp_path.glob("*.log") for n in re.findall(
        r"ContentSeen: (\d+) pages stored by a crawl that ended before delivering them", path.read_text()))
    got = {p.split("/", 3)[3] for p in delivered(tmp_path)}
    never = [sorted(g)[0] for g in groups if not {p.lstrip("/") for p in g} & got]
    assert never == [], f"{len(never)} pages never delivered: {never[:5]}"
    assert "ERROR" not in log and "Traceback" not in log
    assert discarded > 0, "no kill left a page in flight: the test did not test"
    assert not list(tmp_path.glob("*.inflight")), "the final crawl left its journal"


def test_an_item_that_fails_in_the_pipeline_leaves_its_page_to_the_next_crawl(tmp_path):
    site, _ = delivery_site(6, 0)
    with host(site) as h:
        first = crawl_process(h, ["/"], tmp_path, "first", "FAIL_URLS_WITH=/p/3.html")
        assert first.wait(90) == 0
        second = crawl_process(h, ["/"] + [f"/p/{i}.html" for i in range(6)], tmp_path, "second")
        assert second.wait(90) == 0
    log1 = (tmp_path / "first.log").read_text()
    assert "ContentSeen: " + h.u("/p/3.html") + " was not delivered" in log1
    assert parse_stats(log1)["contentseen/undelivered"] == 1
    stats2 = parse_stats((tmp_path / "second.log").read_text())
    # every page but /p/3.html was delivered and is refetched; /p/3.html is kept again
    assert stats2["contentseen/refetched"] == 6 and stats2["contentseen/stored"] == 1
    assert delivered(tmp_path).count(h.u("/p/3.html")) == 1
