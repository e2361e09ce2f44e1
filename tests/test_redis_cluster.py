"""The Redis Cluster store on a real 3-node cluster, beyond the contract it shares with the
single server (test_redis_store.py): its URLs, identical content raced by processes (kept once),
near copies raced (may both be kept: counted, not asserted), a shard restarted under use, and
slots moved to another node under use."""

from __future__ import annotations

import re
import time

import pytest

from contentseen.errors import ContentSeenError
from contentseen.stores import StoreError, open_store, store_class
from contentseen.stores.redis_cluster import RedisClusterStore, seed_url
from redis_server import (  # noqa: F401  (fixtures)
    RedisClusterNodes, cluster_url, free_cluster_port, node_clients, redis_cluster, stored_count,
)
from store_helpers import (
    check_many_against_brute_force, fp_page, identity, near_groups, planted_page_workload, race_processes,
    shuffled_copies, with_far_pages,
)

pytest.importorskip("redis", reason="redis-py is not installed (pip install -e '.[dev]')")


def test_cluster_urls():
    assert store_class("redis+cluster://h:7000") is RedisClusterStore
    assert store_class("REDISS+CLUSTER://h:7000") is RedisClusterStore
    assert seed_url("redis+cluster://:pw@h:7000/0?socket_timeout=2") == "redis://:pw@h:7000?socket_timeout=2"
    assert seed_url("rediss+cluster://h:7000") == "rediss://h:7000"
    for bad in ("redis+cluster://h:7000/3", "redis+cluster:///x", "redis+cluster://h:port"):
        with pytest.raises(ContentSeenError, match="CONTENTSEEN_STORE"):
            open_store(bad, identity(64), 64, 3)


def test_unreachable_cluster_is_a_clear_error():
    url = f"redis+cluster://127.0.0.1:{free_cluster_port()}"
    t0 = time.monotonic()
    with pytest.raises(ContentSeenError) as err:
        open_store(url, identity(64), 64, 3)
    assert time.monotonic() - t0 < 5 and not isinstance(err.value, StoreError)
    assert str(err.value).startswith(f"store {url}: cannot connect to the Redis Cluster")


@pytest.mark.parametrize("batch", [0, 8], ids=["one by one", "check_many of 8"])
def test_racing_processes_keep_identical_content_once(cluster_url, batch):
    """Four crawlers check the same pages (identical content and page) at once: each kept once,
    whether they check one page at a time or batches of them."""
    ops = planted_page_workload(64, 3, 4, 300, seed=30)
    ops = list(dict.fromkeys(ops))  # distinct (content, page) pairs
    results = race_processes(cluster_url, 64, 3, shuffled_copies(ops, 4, seed=300), {"page_distance": 4},
                             batch=batch)
    kept = [op for result in results for op, was_kept in result if was_kept]
    assert sorted(kept, key=str) == sorted(set(kept), key=str)  # 0 identical leaks
    with open_store(cluster_url, identity(64), 64, 3, page_distance=4) as store:
        assert len(store) == len(kept) == len(list(store.entries()))
        for fp, page in ops:  # every op is kept or matches a kept one
            assert store.lookup(fp, page) is not None


def test_racing_near_copies_are_counted(cluster_url, capsys):
    """Near (not identical) copies raced within a round trip may both be kept: how often, with
    every process released at once on the same groups; identical ones never."""
    groups = with_far_pages(near_groups(64, 3, 30, seed=31), 2, 4, seed=32)
    ops = [op for group in groups for op in group]
    results = race_processes(cluster_url, 64, 3, shuffled_copies(ops, 4, seed=301), {"page_distance": 4})
    kept = [op for result in results for op, was_kept in result if was_kept]
    assert len(kept) == len(set(kept))  # identical: never twice
    group_of = {op: g for g, group in enumerate(groups) for op in group}
    per_group = [0] * len(groups)
    for op in kept:
        per_group[group_of[op]] += 1
    assert min(per_group) >= 1
    with capsys.disabled():
        print(f"\n  near copies raced by 4 processes: {sum(n > 1 for n in per_group)} of {len(groups)} groups "
              f"kept more than once ({sum(per_group) - len(groups)} extra copies of {len(ops) * 4} checks)")


def test_a_restarted_shard_is_survived(redis_cluster, cluster_url):
    """While a shard is down every call that needs it raises StoreError (nothing else); once it
    is back the store works again, with what the other shards kept."""
    with open_store(cluster_url, identity(64), 64, 3, page_distance=4) as store:
        assert store.check_and_add(1, "http://a", 5) is None
        redis_cluster.kill(1)
        t0 = time.monotonic()
        for call in (lambda: store.check_and_add(1 << 50, "http://b", 6), lambda: store.lookup(7, 7),
                     lambda: len(store), lambda: store.add_many([3 << 40], ["http://c"]),
                     lambda: list(store.entries())):
            with pytest.raises(StoreError, match=re.escape(f"store {cluster_url}")):
                call()
        assert time.monotonic() - t0 < 20
        redis_cluster.restart(1)
        assert store.check_and_add(2 << 60, "http://d", 8) is None
        assert store.check_and_add(2 << 60, "http://e", 8).url == "http://d"
        assert len(store) >= 1 and stored_count(cluster_url, "contentseen") == len(store)


def test_a_crawl_survives_a_shard_restart(redis_cluster, cluster_url, tmp_path):
    """A real ``scrapy crawl`` on the cluster: a shard killed 3 s in and started again (empty)
    4 s later costs store errors (pages kept unchecked, CONTENTSEEN_ON_STORE_ERROR=keep), never a
    page; once the shard is back pages are stored again."""
    import threading

    from crawl_process import run_crawl
    from sites import Crawl, generated_site, host, path_of

    site = generated_site(150)
    with host(site, delay=0.05) as h:
        starts = [h.u(f"/p/{i}.html") for i in range(150)]
        outage = threading.Timer(3.0, redis_cluster.restart, (1,), {"down_for": 4.0})
        outage.start()
        try:
            c = Crawl(run_crawl(starts, tmp_path, cluster_url, ("CONCURRENT_REQUESTS=1", "CONTENTSEEN_STORE_TIMEOUT=1",
                                                                 "CONTENTSEEN_STORE_COOLDOWN=2"), name="cluster"))
        finally:
            outage.join()
    assert c.returncode == 0, c.log[-3000:]
    pages = sorted(p for p in map(path_of, c.item_urls()) if p.startswith("/p/"))
    assert pages == sorted(f"/p/{i}.html" for i in range(150))  # every page delivered
    errors = c.stats["contentseen/store_errors"]
    assert 1 <= errors < 150 and c.stats["contentseen/stored"] + errors == c.stats["contentseen/checked"]
    assert stored_count(cluster_url, "contentseen:site") >= 1  # the store in use again


def _keys_on_their_nodes(url: str) -> int:
    """How many keys there are; asserts each is on the node that serves its slot."""
    from redis.crc import key_slot

    total = 0
    for client in node_clients(url):
        port = client.connection_pool.connection_kwargs["port"]
        served = [(int(lo), int(hi)) for lo, hi, primary, *_ in client.execute_command("CLUSTER SLOTS")
                  if int(primary[1]) == port]
        for key in client.scan_iter(count=1000):
            assert any(lo <= key_slot(key) <= hi for lo, hi in served), (key, port)
            total += 1
    return total


def test_slots_moved_between_a_batchs_steps(tmp_path):
    """Slots moved to another node (``redis-cli --cluster reshard``) between the steps of a
    batch: the store's slot map is out of date for step 2, a script a node. The node that lost
    the slots fails its script at the first item moved; the script's items go again a group at a
    time, to the nodes that serve them now. Every answer equals the brute-force scan's, every
    entry is found again, every key is on the node of its slot."""
    ops = planted_page_workload(64, 3, 4, 300, seed=41)
    with RedisClusterNodes(tmp_path / "cluster") as cluster:
        with open_store(cluster.url, identity(64), 64, 3, page_distance=4) as store:
            failed: list[str] = []
            step2, local_failed = store._add, store._local_failed
            resharded = []

            def reshard_first(items):  # the reshard lands in the batch's window, just before step 2
                if resharded == ["now"] and len(items) >= 16:
                    cluster.reshard(0, 1, 4000)
                    resharded.append("done")
                return step2(items)

            store._add = reshard_first
            store._local_failed = lambda error: (failed.append(str(error)), local_failed(error))[1]
            check_many_against_brute_force(store, ops, 3, 4, seed=41, most=32, midway=lambda: resharded.append("now"))
            assert resharded == ["now", "done"]
            assert failed and all("non local key" in error for error in failed), failed
            assert store._local  # a stale map is no reason to stop
            for op in ops:
                assert store.lookup(*fp_page(op)) is not None
        assert _keys_on_their_nodes(cluster.url) > 0


def test_a_cluster_refusing_scripts_over_slots_gets_a_call_a_group(cluster_url, caplog):
    """Redis 7 refuses keys of several slots to a script with a shebang: the store's stores, a
    script a node, sent as such are refused by the real server; they go again a group at a
    time, and the store sends a call a group from then on, with one warning."""
    from contentseen.stores.redis_layout import ADD_LOCAL_LUA

    with open_store(cluster_url, identity(64), 64, 3, page_distance=4) as store:
        if int(node_clients(cluster_url)[0].info("server")["redis_version"].split(".")[0]) < 7:
            pytest.skip("scripts with a shebang need Redis 7")
        store._add_local_sha = store._router._scripts.sha("#!lua\n" + ADD_LOCAL_LUA)
        check_many_against_brute_force(store, planted_page_workload(64, 3, 4, 200, seed=42), 3, 4, seed=42)
        assert store._local is False
    warnings = [r.getMessage() for r in caplog.records if "several slots" in r.getMessage()]
    assert len(warnings) == 1 and "do not hash to the same slot" in warnings[0]
