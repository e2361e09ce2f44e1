"""SQLiteStore: brute-force semantics (with and without page fingerprints), URL forms,
persistence, scheme and layout checks, a foreign file, processes racing on one file, kill -9
mid-write, and the query plan of a lookup."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from contentseen.errors import ContentSeenError
from contentseen.stores.registry import open_recorded
from contentseen.stores import open_store
from contentseen.stores.sqlite import SQLiteStore, default_sqlite_url, sqlite_path
from store_helpers import (
    IDENTITY, assert_one_kept_per_group, check_against_brute_force, check_expiry_against_brute_force,
    check_page_rules, fake_clock, identity, near_groups, planted_page_workload, planted_workload, race_processes,
    shuffled_copies, with_far_pages,
)


def url_of(path: Path) -> str:
    return "sqlite:///" + str(path)


def store_at(url: str, bits: int = 64, k: int = 3, page_distance: int | None = None,
             **changes: str) -> SQLiteStore:
    return open_store(url, identity(bits, **changes), bits, k,  # type: ignore[return-value]
                      page_distance=page_distance)


both_paths = pytest.mark.parametrize("few", [0, 1 << 20], ids=["numpy", "python"])


# ------------------------------------------------------------------ semantics


@both_paths
@pytest.mark.parametrize("bits,k,seed", [(64, 3, 1), (128, 3, 2), (100, 4, 3), (30, 2, 4)])
def test_check_and_add_equals_brute_force(tmp_path, monkeypatch, bits, k, seed, few):
    # both ways of comparing the candidates: numpy (many) and Python ints (few)
    monkeypatch.setattr("contentseen.stores.sqlite._FEW_CANDIDATES", few)
    ops = planted_workload(bits, k, 1200, seed)
    with store_at(url_of(tmp_path / "fp.sqlite"), bits, k) as store:
        outcome = check_against_brute_force(store, ops, k)
    assert outcome.dropped > 300


@both_paths
@pytest.mark.parametrize("bits,k,page_k,seed", [(64, 3, 4, 1), (128, 3, 6, 2), (100, 4, 0, 3), (30, 2, 3, 4)])
def test_pages_equal_brute_force(tmp_path, monkeypatch, bits, k, page_k, seed, few):
    monkeypatch.setattr("contentseen.stores.sqlite._FEW_CANDIDATES", few)
    ops = planted_page_workload(bits, k, page_k, 1200, seed)
    with store_at(url_of(tmp_path / "fp.sqlite"), bits, k, page_distance=page_k) as store:
        outcome = check_against_brute_force(store, ops, k, page_k)
    assert outcome.dropped > 150 and outcome.kept_on_page > 150  # both rules were at work


@both_paths
def test_page_rules(tmp_path, monkeypatch, few):
    monkeypatch.setattr("contentseen.stores.sqlite._FEW_CANDIDATES", few)
    with store_at(url_of(tmp_path / "fp.sqlite"), page_distance=4) as store:
        check_page_rules(store)


def test_pages_are_ignored_without_a_page_distance(tmp_path):
    ops = planted_page_workload(64, 3, 4, 600, seed=8)
    with store_at(url_of(tmp_path / "fp.sqlite")) as store:
        check_against_brute_force(store, ops, 3)
        assert store._db.execute("SELECT count(*) FROM fingerprints WHERE p IS NOT NULL").fetchone() == (0,)


@pytest.mark.parametrize("page_distance", [-1, 65, True, "3", 2.0])
def test_bad_page_distance(tmp_path, page_distance):
    with pytest.raises(ContentSeenError, match="page distance"):
        store_at(url_of(tmp_path / "fp.sqlite"), page_distance=page_distance)


@pytest.mark.parametrize("page", [-1, 1 << 64])
def test_page_too_wide_is_refused(tmp_path, page):
    with store_at(url_of(tmp_path / "fp.sqlite"), page_distance=3) as store:
        with pytest.raises(ContentSeenError, match="does not fit in 64 bits"):
            store.check_and_add(1, "http://x", page)
        assert len(store) == 0


def test_page_fingerprints_are_stored_signed(tmp_path):
    with store_at(url_of(tmp_path / "fp.sqlite"), page_distance=3) as store:
        for i, page in enumerate([(1 << 64) - 1, 1 << 63, 5, None]):
            assert store.check_and_add(i * 0x1111_1111_1111_1111, f"http://x/{i}", page) is None
        rows = store._db.execute("SELECT p FROM fingerprints ORDER BY id").fetchall()
    assert rows == [(-1,), (-(1 << 63),), (5,), (None,)]


def test_every_distance_0_to_4(tmp_path):
    rng = random.Random(7)
    with store_at(url_of(tmp_path / "fp.sqlite"), 128, 3) as store:
        for _ in range(50):
            base = rng.getrandbits(128)
            assert store.check_and_add(base, f"http://a/{base:x}") is None
            for d in range(5):
                fp = base
                for p in rng.sample(range(128), d):
                    fp ^= 1 << p
                match = store.lookup(fp)
                if d <= 3:
                    assert match is not None and (match.fingerprint, match.distance, match.url) == (
                        base, d, f"http://a/{base:x}")
                else:
                    assert match is None


# ------------------------------------------------------------------ URLs, files


def test_relative_and_absolute_urls(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with store_at("sqlite:///rel/dir/fp.sqlite") as store:
        store.check_and_add(1, "http://rel")
    assert (tmp_path / "rel" / "dir" / "fp.sqlite").is_file()
    absolute = tmp_path / "abs" / "fp.sqlite"
    url = "sqlite:///" + str(absolute)
    assert url.startswith("sqlite:////")
    with store_at(url) as store:
        store.check_and_add(1, "http://abs")
    assert absolute.is_file()
    assert sqlite_path("sqlite:////a/b.sqlite") == Path("/a/b.sqlite")
    assert sqlite_path("sqlite:///a/b.sqlite") == Path("a/b.sqlite")
    assert default_sqlite_url(None) == "sqlite:///.contentseen/fingerprints.sqlite"
    assert default_sqlite_url("jobs/1") == "sqlite:///jobs/1/contentseen.sqlite"


@pytest.mark.parametrize(
    "url", ["sqlite://rel.sqlite", "sqlite:///", "sqlite:", "sqlite", "fp.sqlite", "mysql://host/db", ""]
)
def test_bad_urls(url):
    with pytest.raises(ContentSeenError, match="CONTENTSEEN_STORE") as err:
        store_at(url)
    assert "\n" not in str(err.value)


def test_unopenable_path_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ContentSeenError, match=r"store sqlite:///.*cannot open"):
        store_at(url_of(blocker / "fp.sqlite"))
    with pytest.raises(ContentSeenError, match=r"store sqlite:///"):
        store_at(url_of(tmp_path))  # a directory


def test_a_full_disk_at_creation_says_so(tmp_path):
    # A real crawl whose file-size limit (RLIMIT_FSIZE: writes past it fail as on a full disk)
    # stops the store's first write; no .pyc is written under the limit.
    from crawl_process import crawl_command, crawl_env

    def limit():
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    store = tmp_path / "fp.sqlite"
    proc = subprocess.run(crawl_command(["http://127.0.0.1:9/"], "items.jsonl", url_of(store)), cwd=tmp_path,
                          env={**crawl_env(), "PYTHONDONTWRITEBYTECODE": "1"}, preexec_fn=limit,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert f"ContentSeen cannot start: store {url_of(store)}: cannot write {store} (disk I/O error): is the disk " \
           "full?" in proc.stdout + proc.stderr
    assert "rollback" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("error, says", [
    ("attempt to write a readonly database", "it, its folder or its file system is read-only"),
    ("database or disk is full", "is the disk full?"),
    ("unable to open database file", "can this user read and write it and its folder?"),
    ("file is not a database", "is not a usable SQLite file"),
])
def test_why_a_file_cannot_serve_is_named(error, says):
    # the read-only case cannot be made here (root writes anyway): SQLite's own messages
    from contentseen.stores.sqlite import unusable

    assert says in unusable(Path("fp.sqlite"), sqlite3.OperationalError(error))


def test_persists_across_reopen(tmp_path):
    url = url_of(tmp_path / "fp.sqlite")
    rng = random.Random(3)
    fps = [rng.getrandbits(64) for _ in range(200)]
    with store_at(url) as store:
        for i, fp in enumerate(fps):
            store.check_and_add(fp, f"http://x/{i}")
        n = len(store)
    with store_at(url) as store:
        assert len(store) == n
        for i, fp in enumerate(fps):
            match = store.lookup(fp ^ 0b101)
            assert match is not None and match.distance <= 2
        assert store.check_and_add(fps[0], "http://again").url == "http://x/0"
        assert len(store) == n


@pytest.mark.parametrize(
    "bits,k,changes,field",
    [(64, 3, {"table": "other"}, "table"), (64, 2, {}, "index"), (128, 3, {}, "bits"),
     (64, 3, {"stopwords": "s2"}, "stopwords"), (64, 3, {"page_distance": 4}, "page_distance")],
)
def test_scheme_mismatch_is_refused(tmp_path, bits, k, changes, field):
    url = url_of(tmp_path / "fp.sqlite")
    store_at(url).close()
    with pytest.raises(ContentSeenError) as err:
        store_at(url, bits, k, **changes)
    msg = str(err.value)
    assert msg.startswith(f"store {url} was made with another fingerprint scheme")
    assert f"{field} " in msg and "(store) vs" in msg and "(this crawl)" in msg
    with store_at(url) as store:  # the store itself is unharmed
        assert len(store) == 0


@pytest.mark.parametrize("made,opened,says", [(4, 5, "page_distance 4 (store) vs 5"),
                                              (4, None, "page_distance 4 (store) vs off")])
def test_page_distance_mismatch_is_refused(tmp_path, made, opened, says):
    url = url_of(tmp_path / "fp.sqlite")
    with store_at(url, page_distance=made) as store:
        store.check_and_add(1, "http://x", 2)
    with pytest.raises(ContentSeenError, match=f"^store {url} was made with another") as err:
        store_at(url, page_distance=opened)
    assert says in str(err.value) and "\n" not in str(err.value)
    with store_at(url, page_distance=made) as store:
        assert store.lookup(1, 3).page_distance == 1


def test_store_of_the_old_layout_is_refused_and_untouched(tmp_path):
    """A file written before page fingerprints (sqlite-v1: no layout in meta, no p column)."""
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    meta = {**IDENTITY, "index": "blocks-v1:64/3:16,16,16,16"}
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
    db.execute("CREATE TABLE fingerprints (id INTEGER PRIMARY KEY, w0 INTEGER NOT NULL, k0 INTEGER NOT NULL, "
               "k1 INTEGER NOT NULL, k2 INTEGER NOT NULL, k3 INTEGER NOT NULL, url TEXT NOT NULL, seen REAL NOT NULL)")
    db.execute("INSERT INTO fingerprints VALUES (1, 5, 0, 0, 0, 5, 'http://old', 0)")
    db.commit()
    db.close()
    before = path.read_bytes()
    for page_distance in (None, 3):
        with pytest.raises(ContentSeenError) as err:
            store_at(url_of(path), page_distance=page_distance)
        msg = str(err.value)
        assert msg.startswith(f"store {url_of(path)} has storage layout (none: an older contentseen)")
        assert "reads sqlite-v2" in msg and "\n" not in msg
    assert path.read_bytes() == before


@pytest.mark.parametrize("content", [b"hello, this is not a database\n" * 100, b"\x00\x01binary" * 500,
                                     b"SQLite format 3\x00" + b"\xff" * 200])
def test_foreign_file_is_refused_and_untouched(tmp_path, content):
    path = tmp_path / "notes.sqlite"
    path.write_bytes(content)
    before = path.stat().st_mtime_ns
    with pytest.raises(ContentSeenError) as err:
        store_at(url_of(path))
    msg = str(err.value)
    assert str(path) in msg and "not a usable SQLite file" in msg and "\n" not in msg
    assert path.read_bytes() == content and path.stat().st_mtime_ns == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.sqlite"]


def test_close_twice_is_fine(tmp_path):
    store = store_at(url_of(tmp_path / "fp.sqlite"))
    store.close()
    store.close()


# ------------------------------------------------------------------ indexes


@pytest.mark.parametrize("bits,k", [(64, 3), (128, 3), (64, 5)])
def test_lookup_reads_only_the_block_indexes(tmp_path, bits, k):
    with store_at(url_of(tmp_path / "fp.sqlite"), bits, k) as store:
        rng = random.Random(5)
        for i in range(300):
            store.check_and_add(rng.getrandbits(bits), f"http://x/{i}")
        store._db.execute("ANALYZE")
        keys = [int(key) for key in store.plan.query_keys(rng.getrandbits(bits))]
        plans = [[row[3] for row in store._db.execute("EXPLAIN QUERY PLAN " + select, keys)]
                 for select in (store._select, store._select_pages)]
    for plan in plans:
        for t in range(store.plan.n_tables):
            assert any(f"USING COVERING INDEX fingerprints_k{t} (k{t}=?)" in step for step in plan), plan
        assert not any(step.startswith("SCAN fingerprints") for step in plan), plan


# ------------------------------------------------------------------ processes


def test_racing_processes_keep_exactly_one_per_content(tmp_path):
    url = url_of(tmp_path / "shared.sqlite")
    groups = near_groups(64, 3, 60, seed=21)
    fps = [fp for group in groups for fp in group]
    lists = shuffled_copies(fps, 4, seed=200)
    results = race_processes(url, 64, 3, lists)
    assert_one_kept_per_group(groups, results)
    with store_at(url) as store:
        assert len(store) == len(groups)


def test_racing_processes_keep_exactly_one_per_content_and_page(tmp_path):
    url = url_of(tmp_path / "shared.sqlite")
    groups = with_far_pages(near_groups(64, 3, 30, seed=22), 2, 4, seed=23)
    ops = [op for group in groups for op in group]
    results = race_processes(url, 64, 3, shuffled_copies(ops, 4, seed=201), {"page_distance": 4})
    assert_one_kept_per_group(groups, results)
    with store_at(url, page_distance=4) as store:
        assert len(store) == len(groups)


KILL_CHILD = textwrap.dedent("""
    import random, sys
    sys.path.insert(0, {tests!r})
    from store_helpers import identity
    from contentseen.stores import open_store
    store = open_store({url!r}, identity(64), 64, 3)
    rng = random.Random(9)
    i = 0
    while True:
        fp = rng.getrandbits(64)
        if store.check_and_add(fp, "http://kill/%d" % i) is None:
            print(fp, flush=True)   # committed
        i += 1
""")


def test_kill_9_mid_writes_keeps_committed_rows(tmp_path):
    path = tmp_path / "fp.sqlite"
    url = url_of(path)
    code = KILL_CHILD.format(tests=str(Path(__file__).parent), url=url)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    committed: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(committed) < 300 and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            committed.append(int(line))
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        child.stdout.close()
    assert len(committed) >= 300, "the writer did not get going"
    assert child.returncode == -signal.SIGKILL
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    db.close()
    with store_at(url) as store:
        assert len(store) >= len(committed)
        for fp in committed:
            match = store.lookup(fp)
            assert match is not None and match.distance == 0
        assert store.check_and_add(committed[0], "http://after") is not None


def test_foreign_sqlite_database_is_refused_and_left_alone(tmp_path):
    import sqlite3

    from contentseen.errors import ContentSeenError
    from contentseen.stores import open_store

    path = tmp_path / "app.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("INSERT INTO users (name) VALUES ('ada')")
    con.commit()
    con.close()
    before = path.read_bytes()
    identity = {"bits": "64", "features": "x", "table": "t", "stopwords": "s", "extract": "e"}
    with pytest.raises(ContentSeenError, match="another application"):
        open_store(f"sqlite:///{path}", identity, 64, 3)
    assert path.read_bytes() == before
    assert not (tmp_path / "app.db-wal").exists()


def test_add_many_with_pages(tmp_path):
    rng = random.Random(6)
    fps = [rng.getrandbits(64) for _ in range(500)]
    pages = [None if i % 5 == 0 else rng.getrandbits(64) for i in range(500)]
    with store_at(url_of(tmp_path / "bulk.sqlite"), page_distance=3) as store:
        store.add_many(fps, [f"http://h/{i}" for i in range(500)], pages)
        assert len(store) == 500
        m = store.lookup(fps[7] ^ 1, pages[7] ^ 0b111)
        assert (m.url, m.distance, m.page_distance) == ("http://h/7", 1, 3)
        assert store.lookup(fps[7], pages[7] ^ 0b1111) is None
        assert store.lookup(fps[10], 12345).page_distance is None  # stored without a page
        with pytest.raises(ValueError, match="differ in length"):
            store.add_many(fps, [f"http://h/{i}" for i in range(500)], pages[:-1])
        with pytest.raises(ContentSeenError, match="does not fit"):
            store.add_many([1], ["http://bad"], [1 << 64])
        assert len(store) == 500


def test_add_many_bulk_loads_and_is_found(tmp_path):
    import random

    from contentseen.stores import open_store

    identity = {"bits": "128", "features": "x", "table": "t", "stopwords": "s", "extract": "e"}
    rnd = random.Random(5)
    fps = [rnd.getrandbits(128) for _ in range(2000)]
    with open_store(f"sqlite:///{tmp_path}/bulk.sqlite", identity, 128, 3) as store:
        store.add_many(fps, [f"http://h/{i}" for i in range(len(fps))])
        assert len(store) == 2000
        m = store.lookup(fps[1234] ^ (1 << 127) ^ 1)
        assert (m.url, m.fingerprint, m.distance) == ("http://h/1234", fps[1234], 2)
        assert store.check_and_add(fps[99], "http://other/") is not None
        assert len(store) == 2000


# ------------------------------------------------------------------ layouts, migration


@pytest.mark.parametrize("expected,tables", [(100_000, 4), (10_000_000, 10), (10**10, 20)])
def test_expected_size_picks_the_layout(tmp_path, expected, tables):
    ops = planted_page_workload(64, 3, 4, 600, seed=expected % 97)
    url = url_of(tmp_path / "fp.sqlite")
    with open_store(url, identity(64), 64, 3, page_distance=4, expected=expected) as store:
        assert store.plan.n_tables == tables and len(store._k) == tables
        check_against_brute_force(store, ops, 3, 4)


def test_a_store_is_refused_under_another_layout(tmp_path):
    url = url_of(tmp_path / "fp.sqlite")
    open_store(url, identity(64), 64, 3, expected=1_000_000).close()
    with pytest.raises(ContentSeenError) as err:
        store_at(url)  # the default, 100M: another block layout
    msg = str(err.value)
    assert "index blocks-v1:64/3:16,16,16,16 (store) vs blocks-v2:64/3:13,13,13,13,12:choose-2 (this crawl)" in msg
    assert "CONTENTSEEN_EXPECTED_PAGES" in msg and "\n" not in msg
    with open_store(url, identity(64), 64, 3, expected=2_000_000) as store:  # the same plan: fine
        assert len(store) == 0


def test_expected_pages_setting():
    from scrapy.settings import Settings

    assert SQLiteStore.options_from_settings(Settings()) == {"expected": 100_000_000, "expire": None}
    assert SQLiteStore.options_from_settings(Settings({"CONTENTSEEN_EXPECTED_PAGES": "5000000"})) == {
        "expected": 5_000_000, "expire": None}
    for bad in ("lots", 0, -3, 1.5, "1e9"):
        with pytest.raises(ContentSeenError, match="CONTENTSEEN_EXPECTED_PAGES"):
            SQLiteStore.options_from_settings(Settings({"CONTENTSEEN_EXPECTED_PAGES": bad}))


def test_entries_migrate_a_store_to_another_layout(tmp_path):
    """entries() in insertion order, add_many of them into a store of another layout: the same
    entries, times included, and the same answers."""
    ops = planted_page_workload(64, 3, 4, 700, seed=40)
    old_url, new_url = url_of(tmp_path / "old.sqlite"), url_of(tmp_path / "new.sqlite")
    with open_store(old_url, identity(64), 64, 3, page_distance=4, expected=1000) as old, \
            open_store(new_url, identity(64), 64, 3, page_distance=4, expected=10**10) as new:
        for i, (fp, page) in enumerate(ops):
            old.check_and_add(fp, f"http://o/{i}", page)
        entries = list(old.entries())
        assert len(entries) == len(old) and [e.url for e in entries] == sorted(
            (e.url for e in entries), key=lambda u: int(u.rsplit("/", 1)[1]))
        assert entries[0].fingerprint == ops[0][0] and entries[0].page == ops[0][1]
        assert new.plan != old.plan
        new.add_many(*zip(*[(e.fingerprint, e.url, e.page, e.seen) for e in entries]))
        assert list(new.entries()) == entries
        for fp, page in planted_page_workload(64, 3, 4, 300, seed=41):
            assert new.lookup(fp, page) == old.lookup(fp, page)


def test_expiry_equals_brute_force(tmp_path, monkeypatch):
    clock = fake_clock(monkeypatch)
    with open_store(url_of(tmp_path / "fp.sqlite"), IDENTITY, 64, 3, page_distance=4, expire=300) as store:
        ops = planted_page_workload(64, 3, 4, 1200, seed=5)
        assert check_expiry_against_brute_force(store, ops, 3, 4, 300, clock) > 50


def test_count_reset_delete_and_open_as_recorded(tmp_path):
    """len() reads the counts row (kept by every insert and delete); reset keeps the scheme; a
    store opens under its saved scheme with no settings."""
    url = url_of(tmp_path / "fp.sqlite")
    with open_store(url, identity(64), 64, 3, page_distance=4, expected=5000) as store:
        store.add_many(list(range(1, 301)), [f"http://a/{i % 7}" for i in range(300)])
        assert len(store) == 300
        assert store.delete_url("http://a/3") == 43 and len(store) == 257
        assert store.prune(time.time() + 1, limit=10) == 10
        assert len(store) == (n := store._db.execute("SELECT count(*) FROM fingerprints").fetchone()[0]) == 247
    with open_recorded(url) as again:
        assert (again.bits, again.distance, again.page_distance, again.plan.description) == (
            64, 3, 4, store.plan.description)
        assert len(again) == n and again.time_range() is not None
        again.reset()
        assert len(again) == 0 and list(again.entries()) == [] and again.time_range() is None
    open_store(url, identity(64), 64, 3, page_distance=4, expected=5000).close()  # the scheme stayed
    with pytest.raises(ContentSeenError, match="no such file"):
        open_recorded(url_of(tmp_path / "none.sqlite"))
