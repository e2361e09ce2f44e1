"""The Redis stores against a real redis-server and a real 3-node Redis Cluster: brute-force
semantics (with and without page fingerprints), the redis-v3 layout (binary entries, keys of a
check in at most k+1 hash slots), scheme, layout and prefix checks, bulk loads and migration,
errors, and atomic check-and-add under racing threads and processes (single server; the
cluster's races are in test_redis_cluster.py)."""

from __future__ import annotations

import random
import struct
import threading
import time

import pytest

from contentseen.errors import ContentSeenError
from contentseen.stores.registry import open_recorded
from contentseen.stores import StoreError, open_store
from redis_server import (  # noqa: F401  (fixtures)
    all_keys, cluster_url, free_port, node_clients, own_redis, redis_cluster, redis_server, redis_url,
)
from store_helpers import (
    IDENTITY, assert_one_kept_per_group, check_against_brute_force, check_expiry_against_brute_force,
    check_many_against_brute_force, check_page_rules, fake_clock, identity, near_groups, planted_page_workload,
    planted_workload, race_processes, race_worker, shuffled_copies, with_far_pages,
)

redis = pytest.importorskip("redis", reason="redis-py is not installed (pip install -e '.[dev]')")


@pytest.fixture(params=["server", "cluster"])
def any_url(request) -> str:
    """An emptied single server, then an emptied cluster."""
    return request.getfixturevalue("redis_url" if request.param == "server" else "cluster_url")


def store_at(url: str, bits: int = 64, k: int = 3, prefix: str = "contentseen",
             page_distance: int | None = None, expected: int | None = None, **changes: str):
    options = {} if expected is None else {"expected": expected}
    return open_store(url, identity(bits, **changes), bits, k, prefix=prefix, page_distance=page_distance, **options)


def stored(url: str, prefix: str = "contentseen") -> dict[bytes, dict[bytes, bytes]]:
    """Every hash under ``prefix`` on every node, key -> its fields."""
    return {key: client.hgetall(key) for key, client in all_keys(url, f"{prefix}:*").items()
            if client.type(key) == b"hash"}


# ------------------------------------------------------------------ semantics


@pytest.mark.parametrize("bits,k,seed", [(64, 3, 1), (128, 3, 2), (100, 4, 3), (30, 2, 4)])
def test_check_and_add_equals_brute_force(any_url, bits, k, seed):
    ops = planted_workload(bits, k, 1200, seed)
    with store_at(any_url, bits, k) as store:
        outcome = check_against_brute_force(store, ops, k)
    assert outcome.dropped > 300  # the planted neighbours were found, not just random misses


@pytest.mark.parametrize("bits,k,page_k,seed", [(64, 3, 4, 1), (128, 3, 6, 2), (100, 4, 0, 3), (30, 2, 3, 4)])
def test_pages_equal_brute_force(any_url, bits, k, page_k, seed):
    ops = planted_page_workload(bits, k, page_k, 1200, seed)
    with store_at(any_url, bits, k, page_distance=page_k) as store:
        outcome = check_against_brute_force(store, ops, k, page_k)
    assert outcome.dropped > 150 and outcome.kept_on_page > 150  # both rules were at work


@pytest.mark.parametrize("page_k,seed", [(4, 11), (None, 12)])
def test_check_many_equals_one_check_after_another(any_url, page_k, seed):
    """A batch answers as its pages checked one after another would, a page matching an earlier
    one of its own batch too (the cluster compares those in the client)."""
    ops = planted_page_workload(64, 3, page_k or 0, 1500, seed)
    with store_at(any_url, page_distance=page_k) as store:
        assert check_many_against_brute_force(store, ops, 3, page_k, seed) > 10


def test_small_layout_equals_brute_force(any_url):
    """The one-table-per-block plan a small expected size picks."""
    ops = planted_page_workload(64, 3, 4, 800, seed=5)
    with store_at(any_url, page_distance=4, expected=100_000) as store:
        assert store.plan.description == "blocks-v1:64/3:16,16,16,16"
        check_against_brute_force(store, ops, 3, 4)


def test_page_rules(any_url):
    with store_at(any_url, page_distance=4) as store:
        check_page_rules(store)


def test_pages_are_ignored_without_a_page_distance(any_url):
    ops = planted_page_workload(64, 3, 4, 600, seed=8)
    with store_at(any_url) as store:
        check_against_brute_force(store, ops, 3)
    records = [fields for key, fields in stored(any_url).items() if b":u." in key]
    assert records and {len(entry) for fields in records for entry in fields} == {8}  # the fingerprint alone


@pytest.mark.parametrize("page", [-1, 1 << 64])
def test_page_too_wide_is_refused(any_url, page):
    with store_at(any_url, page_distance=3) as store:
        with pytest.raises(ContentSeenError, match="does not fit in 64 bits"):
            store.check_and_add(1, "http://x", page)
        assert len(store) == 0


def test_every_distance_0_to_4(any_url):
    rng = random.Random(7)
    with store_at(any_url) as store:
        for _ in range(50):
            base = rng.getrandbits(64)
            assert store.check_and_add(base, f"http://a/{base:x}") is None
            for d in range(5):
                fp = base
                for p in rng.sample(range(64), d):
                    fp ^= 1 << p
                match = store.lookup(fp)
                if d <= 3:
                    assert match is not None and (match.fingerprint, match.distance) == (base, d)
                    assert match.url == f"http://a/{base:x}"
                else:
                    assert match is None


def test_tie_goes_to_the_fingerprint_stored_first(any_url):
    a = 0
    b = 0b1111  # distance 4 from a: both are kept
    q = 0b0011  # distance 2 from both
    with store_at(any_url, prefix="ab") as store:
        assert store.check_and_add(a, "http://a") is None
        assert store.check_and_add(b, "http://b") is None
        assert store.lookup(q).url == "http://a"
    with store_at(any_url, prefix="ba") as store:
        assert store.check_and_add(b, "http://b") is None
        assert store.check_and_add(a, "http://a") is None
        assert store.check_and_add(q, "http://q").url == "http://b"


def test_persists_across_reopen_and_layout(any_url):
    fp = 0x0123_4567_89AB_CDEF
    with store_at(any_url) as store:
        assert store.check_and_add(fp, "http://x/page") is None
        layout = store.layout
    with store_at(any_url) as store:
        assert len(store) == 1
        assert store.check_and_add(fp ^ 1, "http://y/page").url == "http://x/page"
    hashes = stored(any_url)
    entry = fp.to_bytes(8, "big")  # binary, not hex
    record = hashes[layout.record_key(fp).encode()][entry]
    assert record[8:] == b"http://x/page"
    assert struct.unpack(">d", record[:8])[0] == pytest.approx(time.time(), abs=60)
    buckets = layout.buckets(fp)
    assert len(buckets) == 10  # 5 blocks, two per table, at the default 100M
    for name, field in buckets:
        assert hashes[name.encode()] == {str(field).encode(): entry}
    meta = {k.decode(): v.decode() for k, v in hashes[b"contentseen:meta"].items()}
    assert meta["index"] == "blocks-v2:64/3:13,13,13,13,12:choose-2" and meta["layout"] == "redis-v3"
    assert meta["buckets"] == "21" and meta["features"] == "f1" and meta["page_distance"] == "off"


def test_a_check_touches_at_most_k_plus_1_hash_slots(any_url):
    from redis.crc import key_slot

    with store_at(any_url) as store:
        rng = random.Random(3)
        for fp in (rng.getrandbits(64) for _ in range(50)):
            keys = [name for name, _ in store.layout.buckets(fp)] + [store.layout.record_key(fp)]
            assert len({key_slot(key.encode()) for key in keys}) <= 4
            assert key_slot(store.layout.record_key(fp).encode()) == key_slot(keys[0].encode())


def test_layout_with_pages(any_url):
    fp, page = 0x0123_4567_89AB_CDEF, 0xFFFF_0000_0000_FFFF
    with store_at(any_url, page_distance=5) as store:
        assert store.check_and_add(fp, "http://x/page", page) is None
        assert store.check_and_add(fp, "http://y/page", page ^ 0xFFFF) is None  # page 16 away
        assert store.check_and_add(fp, "http://z/page").url == "http://x/page"  # no page: agrees with both
        name, field = store.layout.buckets(fp)[0]
        assert len(store) == 2 and store.lookup(fp).url == "http://x/page"
    bucket = stored(any_url)[name.encode()][str(field).encode()]
    fp_bytes = fp.to_bytes(8, "big")
    assert bucket == fp_bytes + b"\x01" + page.to_bytes(8, "big") + fp_bytes + b"\x01" + (page ^ 0xFFFF).to_bytes(8, "big")


def test_entries_no_page_flag(any_url):
    with store_at(any_url, page_distance=5) as store:
        store.check_and_add(7, "http://none")
        store.check_and_add(7 << 40, "http://zero", 0)  # page fingerprint 0 is a page
        assert [(e.fingerprint, e.page, e.url) for e in store.entries()] == [
            (7, None, "http://none"), (7 << 40, 0, "http://zero")]


@pytest.mark.parametrize("layout", ["redis-v1", "redis-v2"])
def test_store_of_an_old_layout_is_refused_and_untouched(any_url, layout):
    client = node_clients(any_url)[0]
    meta = {**IDENTITY, "index": "blocks-v1:64/3:16,16,16,16", "layout": layout}
    for c in node_clients(any_url):  # the node that holds contentseen:meta
        try:
            c.hset("contentseen:meta", mapping=meta)
            client = c
        except redis.ResponseError:
            continue
    before = stored(any_url)
    for page_distance in (None, 3):
        with pytest.raises(ContentSeenError) as err:
            store_at(any_url, page_distance=page_distance)
        msg = str(err.value)
        assert msg.startswith(f"store {any_url} (prefix contentseen) has storage layout {layout}")
        assert "reads redis-v3" in msg and "\n" not in msg
    assert stored(any_url) == before and client.exists("contentseen:meta")


def test_fingerprint_too_wide_is_refused(any_url):
    with store_at(any_url) as store, pytest.raises(ContentSeenError, match="does not fit in 64 bits"):
        store.check_and_add(1 << 64, "http://x")


# ------------------------------------------------------------------ scheme, prefixes


@pytest.mark.parametrize(
    "bits,k,changes,field",
    [(64, 3, {"features": "other"}, "features"), (64, 2, {}, "index"), (128, 3, {}, "bits"),
     (64, 3, {"extract": "body/v1"}, "extract"), (64, 3, {"page_distance": 0}, "page_distance"),
     (64, 3, {"expected": 10**10}, "index"), (64, 3, {"expected": 10**7}, "buckets")],
)
def test_scheme_mismatch_is_refused(any_url, bits, k, changes, field):
    store_at(any_url).close()
    with pytest.raises(ContentSeenError) as err:
        store_at(any_url, bits, k, **changes)
    msg = str(err.value)
    assert any_url in msg and "prefix contentseen" in msg and f"{field} " in msg
    assert "(store) vs" in msg and "\n" not in msg
    if field in ("index", "buckets"):
        assert "CONTENTSEEN_EXPECTED_PAGES" in msg


@pytest.mark.parametrize("made,opened,says", [(4, 5, "page_distance 4 (store) vs 5"),
                                              (4, None, "page_distance 4 (store) vs off")])
def test_page_distance_mismatch_is_refused(any_url, made, opened, says):
    with store_at(any_url, page_distance=made) as store:
        store.check_and_add(1, "http://x", 2)
    with pytest.raises(ContentSeenError, match="was made with another fingerprint scheme") as err:
        store_at(any_url, page_distance=opened)
    assert says in str(err.value) and "\n" not in str(err.value)
    with store_at(any_url, page_distance=made) as store:
        assert store.lookup(1, 3).page_distance == 1


def test_first_opener_writes_the_scheme_once(any_url):
    """Openers racing on an empty prefix: one scheme is saved, the others are refused."""
    errors, barrier = [], threading.Barrier(6)

    def open_with(features: str) -> None:
        barrier.wait()
        try:
            store_at(any_url, features=features).close()
        except ContentSeenError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_with, args=(f"f{i % 2}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 3
    saved = stored(any_url)[b"contentseen:meta"][b"features"].decode()
    assert all(f"features {saved} (store)" in str(e) for e in errors)


def test_prefixes_isolate_projects(any_url):
    fp = 0xDEAD_BEEF_0000_FFFF
    with store_at(any_url, prefix="shop") as shop, store_at(any_url, prefix="news:x", features="x") as news:
        assert shop.check_and_add(fp, "http://shop/1") is None
        assert news.lookup(fp) is None
        assert news.check_and_add(fp, "http://news/1") is None
        assert shop.check_and_add(fp, "http://shop/2").url == "http://shop/1"
        assert news.check_and_add(fp, "http://news/2").url == "http://news/1"
        assert (len(shop), len(news)) == (1, 1)
        assert [e.url for e in news.entries()] == ["http://news/1"]
    assert all(key.startswith((b"shop:", b"news:x:")) for key in all_keys(any_url))


@pytest.mark.parametrize("prefix", ["", "two words", "a{b}"])
def test_bad_prefix(redis_url, prefix):
    with pytest.raises(ContentSeenError, match="CONTENTSEEN_REDIS_PREFIX"):
        store_at(redis_url, prefix=prefix)


# ------------------------------------------------------------------ bulk load, migration


@pytest.mark.parametrize("page_distance", [None, 3])
def test_add_many_bulk_loads_in_batches_and_is_found(any_url, monkeypatch, page_distance):
    monkeypatch.setattr("contentseen.stores.redis.ADD_MANY_BATCH", 70)
    rng = random.Random(6)
    fps = [rng.getrandbits(128) for _ in range(500)]
    pages = [None if i % 5 == 0 else rng.getrandbits(64) for i in range(500)]
    urls = [f"http://h/{i}" for i in range(500)]
    with store_at(any_url, 128, 3, page_distance=page_distance) as store:
        store.add_many(fps, urls, pages)
        assert len(store) == 500
        store.add_many(fps[:10], [f"http://again/{i}" for i in range(10)], pages[:10])
        assert len(store) == 500  # entries already stored are skipped
        m = store.lookup(fps[7] ^ 1, pages[7] ^ 0b111)
        assert (m.url, m.distance, m.page_distance) == ("http://h/7", 1, None if page_distance is None else 3)
        assert store.check_and_add(fps[99], "http://other/", pages[99]).url == "http://h/99"
    with store_at(any_url, 128, 3, page_distance=page_distance) as store:
        assert len(store) == 500
        for fp, page, url in zip(fps, pages, urls):
            assert store.lookup(fp, page).url == url
        with pytest.raises(ValueError, match="differ in length"):
            store.add_many(fps, urls, pages[:-1])
        store.add_many([], [])
        assert len(store) == 500


def test_add_many_equals_check_and_add(any_url):
    """A bulk load leaves what check_and_add of the same entries would."""
    ops = planted_page_workload(64, 3, 4, 400, seed=9)
    with store_at(any_url, prefix="one", page_distance=4) as one:
        kept = [(fp, page) for fp, page in ops if one.check_and_add(fp, "http://u", page) is None]
        times = [e.seen for e in one.entries()]
    with store_at(any_url, prefix="bulk", page_distance=4) as bulk:
        bulk.add_many([fp for fp, _ in kept], ["http://u"] * len(kept), [page for _, page in kept], times)

    def layout(prefix: str) -> dict:
        return {key.split(b":", 1)[1]: fields for key, fields in stored(any_url, prefix).items()
                if not key.endswith(b":meta")}

    assert layout("one") == layout("bulk")


def test_migration_to_another_layout_and_backend(any_url, tmp_path):
    """entries() of a SQLite store of the small layout, add_many into a Redis store of the big
    one: same answers, same order of entries."""
    ops = planted_page_workload(64, 3, 4, 500, seed=10)
    sqlite_url = f"sqlite:///{tmp_path}/old.sqlite"
    with open_store(sqlite_url, identity(64), 64, 3, page_distance=4, expected=10_000) as old:
        for i, (fp, page) in enumerate(ops):
            old.check_and_add(fp, f"http://o/{i}", page)
        entries = list(old.entries())
    with store_at(any_url, page_distance=4) as new:
        assert new.plan.description != old.plan.description
        new.add_many(*zip(*[(e.fingerprint, e.url, e.page, e.seen) for e in entries]))
        assert list(new.entries()) == entries
        with open_store(sqlite_url, identity(64), 64, 3, page_distance=4, expected=10_000) as old:
            for fp, page in planted_page_workload(64, 3, 4, 300, seed=11):
                assert new.lookup(fp, page) == old.lookup(fp, page)


# ------------------------------------------------------------------ errors


def test_unreachable_server_is_a_clear_error():
    url = f"redis://127.0.0.1:{free_port()}/0"
    t0 = time.monotonic()
    with pytest.raises(ContentSeenError) as err:
        store_at(url)
    assert time.monotonic() - t0 < 5
    msg = str(err.value)
    assert msg.startswith(f"store {url}: cannot connect to Redis") and "\n" not in msg
    assert not isinstance(err.value, StoreError)


@pytest.mark.parametrize("url", ["redis://127.0.0.1:notaport/0", "redis://127.0.0.1:6379/db"])
def test_bad_redis_url(url):
    with pytest.raises(ContentSeenError, match="CONTENTSEEN_STORE"):
        store_at(url)


def test_unix_socket_url(tmp_path):
    url = f"unix://{tmp_path}/none.sock?db=0"
    with pytest.raises(ContentSeenError, match="cannot connect to Redis"):
        store_at(url)


def test_server_killed_during_use_is_a_store_error(own_redis):
    store = store_at(own_redis.url)
    assert store.check_and_add(1, "http://a") is None
    own_redis.kill()
    t0 = time.monotonic()
    with pytest.raises(StoreError, match=r"check-and-add failed") as err:
        store.check_and_add(1 << 40, "http://b")
    assert own_redis.url in str(err.value)
    with pytest.raises(StoreError, match="lookup failed"):
        store.lookup(1)
    with pytest.raises(StoreError):
        len(store)
    with pytest.raises(StoreError):
        list(store.entries())
    assert time.monotonic() - t0 < 5
    store.close()
    store.close()
    with pytest.raises(StoreError, match="used after close"):
        store.lookup(1)


def test_server_restart_is_survived(own_redis):
    """A dropped connection is retried once; the script is re-registered on the new server."""
    store = store_at(own_redis.url)
    assert store.check_and_add(1, "http://a") is None
    client = redis.Redis.from_url(own_redis.url)
    client.script_flush()
    client.client_kill_filter(skipme=True)  # drop the store's pooled connection
    assert store.check_and_add(1, "http://b").url == "http://a"
    assert store.check_and_add(0xFFFF_0000_FFFF_0000, "http://c") is None
    assert len(store) == 2
    store.close()


def test_wrong_key_type_is_a_store_error(any_url):
    fp = 0x0000_1111_2222_3333
    with store_at(any_url) as store:
        name, _ = store.layout.buckets(fp)[0]
        for client in node_clients(any_url):
            try:
                client.set(name, "not a hash")
            except redis.ResponseError:  # MOVED: another node's slot
                continue
        with pytest.raises(StoreError, match="WRONGTYPE"):
            store.check_and_add(fp, "http://x")


def test_meta_of_wrong_type_is_refused_at_open(redis_url):
    redis.Redis.from_url(redis_url).set("contentseen:meta", "x")
    with pytest.raises(ContentSeenError, match="contentseen:meta"):
        store_at(redis_url)


def test_stuck_server_times_out(own_redis, monkeypatch):
    """A server that accepts but never answers (SIGSTOP) fails the page, it does not hang."""
    import signal

    monkeypatch.setattr("contentseen.stores.redis_wire.SOCKET_TIMEOUT_S", 0.5)
    store = store_at(own_redis.url)
    own_redis.proc.send_signal(signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        with pytest.raises(StoreError, match="check-and-add failed"):
            store.check_and_add(5, "http://x")
        assert time.monotonic() - t0 < 3  # two tries of 0.5 s
    finally:
        own_redis.proc.send_signal(signal.SIGCONT)
        store.close()


# ------------------------------------------------------------------ atomicity (one server)


def test_racing_threads_keep_exactly_one_per_content(redis_url):
    groups = near_groups(64, 3, 40, seed=11)
    fps = [fp for group in groups for fp in group]
    barrier = threading.Barrier(8)
    results: list = [None] * 8

    def run(i: int) -> None:
        mine = fps[:]
        random.Random(i).shuffle(mine)
        results[i] = race_worker(redis_url, 64, 3, mine, f"t{i}", {}, barrier.wait)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert_one_kept_per_group(groups, results)
    with store_at(redis_url) as store:
        assert len(store) == len(groups)


def test_racing_processes_keep_exactly_one_per_content(redis_url):
    groups = near_groups(128, 3, 60, seed=12)
    fps = [fp for group in groups for fp in group]
    lists = shuffled_copies(fps, 4, seed=100)
    results = race_processes(redis_url, 128, 3, lists, {"prefix": "race"})
    assert_one_kept_per_group(groups, results)
    with store_at(redis_url, 128, 3, prefix="race") as store:
        assert len(store) == len(groups)


def test_racing_processes_keep_exactly_one_per_content_and_page(redis_url):
    groups = with_far_pages(near_groups(64, 3, 30, seed=13), 2, 4, seed=14)
    ops = [op for group in groups for op in group]
    options = {"prefix": "race", "page_distance": 4}
    results = race_processes(redis_url, 64, 3, shuffled_copies(ops, 4, seed=101), options)
    assert_one_kept_per_group(groups, results)
    with store_at(redis_url, prefix="race", page_distance=4) as store:
        assert len(store) == len(groups)


def test_expiry_equals_brute_force(any_url, monkeypatch):
    clock = fake_clock(monkeypatch)
    with open_store(any_url, IDENTITY, 64, 3, page_distance=4, expected=2000, expire=300) as store:
        ops = planted_page_workload(64, 3, 4, 800, seed=5)
        assert check_expiry_against_brute_force(store, ops, 3, 4, 300, clock) > 30
    # the memory came back: no bucket holds an entry without a record
    assert sum(len(fields) for fields in stored(any_url).values()) < 2000


def test_reset_delete_and_open_as_recorded(any_url):
    """reset() unlinks the prefix's keys (by SCAN, on every node), not a longer prefix's, and
    keeps the meta; a store opens under its saved scheme with no settings."""
    with store_at(any_url, page_distance=4, expected=5000) as store, \
            store_at(any_url, prefix="contentseen:other", expected=5000) as other:
        store.add_many(list(range(1, 301)), [f"http://a/{i % 7}" for i in range(300)])
        other.add_many([5, 6], ["http://o/5", "http://o/6"])
        assert store.delete_url("http://a/3") == 43 and len(store) == 257
        assert "http://a/3" not in {e.url for e in store.entries()} and store.lookup(4).url != "http://a/3"
    with open_recorded(any_url, prefix="contentseen") as again:
        assert (again.bits, again.distance, again.page_distance) == (64, 3, 4) and len(again) == 257
        again.reset()
        assert len(again) == 0 and list(again.entries()) == [] and again.lookup(4) is None
    assert set(all_keys(any_url, "contentseen:*")) - set(all_keys(any_url, "contentseen:other:*")) == {
        b"contentseen:meta"}
    with store_at(any_url, prefix="contentseen:other", expected=5000) as other:
        assert len(other) == 2
    with pytest.raises(ContentSeenError, match="no contentseen store with prefix nothing"):
        open_recorded(any_url, prefix="nothing")
