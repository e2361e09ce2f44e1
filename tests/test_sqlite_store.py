"""SQLiteStore: brute-force semantics, URL forms, persistence, scheme checks, a foreign file,
processes racing on one file, kill -9 mid-write, and the query plan of a lookup."""

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
from contentseen.stores import open_store
from contentseen.stores.sqlite import SQLiteStore, default_sqlite_url, sqlite_path
from store_helpers import (
    assert_one_kept_per_group, check_against_brute_force, identity, near_groups, planted_workload,
    race_processes, shuffled_copies,
)


def url_of(path: Path) -> str:
    return "sqlite:///" + str(path)


def store_at(url: str, bits: int = 64, k: int = 3, **changes: str) -> SQLiteStore:
    return open_store(url, identity(bits, **changes), bits, k)  # type: ignore[return-value]


# ------------------------------------------------------------------ semantics


@pytest.mark.parametrize("few", [0, 1 << 20], ids=["numpy", "python"])
@pytest.mark.parametrize("bits,k,seed", [(64, 3, 1), (128, 3, 2), (100, 4, 3), (30, 2, 4)])
def test_check_and_add_equals_brute_force(tmp_path, monkeypatch, bits, k, seed, few):
    # both ways of comparing the candidates: numpy (many) and Python ints (few)
    monkeypatch.setattr("contentseen.stores.sqlite._FEW_CANDIDATES", few)
    ops = planted_workload(bits, k, 1200, seed)
    with store_at(url_of(tmp_path / "fp.sqlite"), bits, k) as store:
        dropped = check_against_brute_force(store, ops, k)
    assert dropped > 300


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
     (64, 3, {"stopwords": "s2"}, "stopwords")],
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
        plan = [row[3] for row in store._db.execute("EXPLAIN QUERY PLAN " + store._select, keys)]
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
