"""Benchmark: the Redis stores -- one server, and Redis Clusters of 3 (or ``--shards``) primaries -- on this machine:
load, memory, candidates per lookup, latency, throughput of concurrent client processes, and
what crawlers racing on the same pages keep.

    python3 benchmarks/redis_store.py                  # n = 3M (about 14 minutes)
    python3 benchmarks/redis_store.py --size 300k      # a quick run
    python3 benchmarks/redis_store.py --skip-baseline  # without the one-table-per-block server
    python3 benchmarks/redis_store.py --shards 3,6     # clusters of 3 and of 6 primaries
    python3 benchmarks/redis_store.py --batch 1,8,32   # throughput with checks sent that many at a time

Servers: a throwaway ``redis-server`` and a cluster of each size (``redis-cli --cluster create``) on
loopback ports, no persistence (tests/redis_server.py), default settings otherwise. Stores: the
cluster and the server with the layout ``CONTENTSEEN_EXPECTED_PAGES = n`` picks, and as the
baseline the server with one table per block (``expected`` 1M: 4 tables of 16-bit keys, the
layout every store had before). Each is loaded with the same n random 64-bit fingerprints with
random page fingerprints (page distance 10, as a crawl) and URLs ``http://h/<i>`` by ``add_many``;
memory is the growth of ``used_memory`` over all nodes, per fingerprint.

``cand/q``: the mean number of stored entries in the buckets a lookup reads (1000 random
queries; the formula of ``BlockPlan.candidates`` beside it, and at 100M); ``nodes/check``: how
many nodes a check's keys live on (each is one more round trip for the servers). Last, what a
server spends on the parts of a check: a round trip, a pipelined command, a script call. Latency: one client,
``check_and_add`` of unseen pages (new) and of near copies of stored ones (distance 1..3, pages
within 3: dropped). Throughput: ``--clients`` processes released together, each doing
``--checks`` check_and_adds, 80% new pages and 20% near copies; server CPU is the growth of
``used_cpu_user + used_cpu_sys`` over all nodes, per check, and ``capacity`` what the nodes
could serve with a core each (nodes / server CPU per check) -- the clients and the servers share
this machine's cores, so the measured checks/s is bounded by the clients' CPU. Every store stays
loaded, and the throughput is measured in ``--rounds`` rounds, each over every store one after
another (this machine's speed drifts by tens of percent within minutes: a ratio of two stores
is taken within a round); a row shows the store's median round by server CPU. With ``--batch``,
the throughput is measured again for each batch size: every client sends its checks that many
at a time (``check_many``, what the middleware's store thread sends when that many pages wait
for it); latencies are then a batch's. Races: the
processes check the same new pages (identical content and page) in their own orders: an
identical page kept by two is a leak; then groups of 8 near copies (every pair within 3) with
far pages: a group kept more than once is a near leak. The window in which a racing near copy on the cluster may be
kept too is a new page's check_and_add under load (``new``).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from common import parse_size, print_table  # noqa: E402
from contentseen.stores import Query, open_store  # noqa: E402
from contentseen.stores.redis_wire import key_slot  # noqa: E402

K, BITS, PAGE_K = 3, 64, 10
IDENTITY = {"bits": "64", "features": "bench", "table": "bench", "stopwords": "bench", "extract": "bench"}
CHUNK = 100_000
PROJECT = 100_000_000


def open_bench(url: str, prefix: str, expected: int):
    return open_store(url, IDENTITY, BITS, K, prefix=prefix, expected=expected, page_distance=PAGE_K)


def node_stats(clients) -> tuple[int, float]:
    """(used_memory, used CPU seconds) summed over ``clients``' nodes."""
    memory = cpu = 0
    for client in clients:
        info = client.info()
        memory += info["used_memory"]
        cpu += info["used_cpu_user"] + info["used_cpu_sys"]
    return memory, cpu


def call_costs(client, n: int = 3000) -> dict:
    """Server CPU (µs) of what every check is made of, on one server: a round trip of one
    command (PING), a command in a pipeline of 10 (HGET), a script call in a pipeline of 10
    (EVALSHA of ``return 1``), each the growth of ``used_cpu`` over ``n`` calls."""
    sha = client.script_load("return 1")

    def cost(batch: list[tuple], calls: int) -> float:
        before = node_stats([client])[1]
        for _ in range(calls):
            pipe = client.pipeline(transaction=False)
            for command in batch:
                pipe.execute_command(*command)
            pipe.execute()
        return (node_stats([client])[1] - before) / (calls * len(batch)) * 1e6

    return dict(round_trip=cost([("PING",)], n), hget=cost([("HGET", "bench:none", "f")] * 10, n // 10),
                script=cost([("EVALSHA", sha, 0)] * 10, n // 10))


def nodes_per_check(store, rng: np.random.Generator, n: int = 1000) -> float:
    """Mean number of nodes a check's keys live on (cluster stores)."""
    slots = store._router._slots
    return float(np.mean([len({slots[key_slot(name.encode())] for name, _ in store.layout.buckets(int(fp))})
                          for fp in rng.integers(0, 2**64, size=n, dtype=np.uint64)]))


def flip(value: int, n: int, bits: int, rng: random.Random) -> int:
    for p in rng.sample(range(bits), n):
        value ^= 1 << p
    return value


def percentiles(lat: list[float]) -> str:
    a = np.array(lat) * 1e6
    return f"{np.percentile(a, 50):,.0f} / {np.percentile(a, 99):,.0f}"


# ------------------------------------------------------------------ client processes


def worker(url: str, prefix: str, expected: int, ops: list, tag: str, barrier, queue, batch: int = 1) -> None:
    """Check ``ops`` ((fingerprint, page, kind)) once released, ``batch`` at a time (1:
    ``check_and_add``, else ``check_many``): latencies by kind (a batch's), CPU, kept."""
    try:
        store = open_bench(url, prefix, expected)
        lat: dict[str, list[float]] = {"new": [], "near": []}
        kept = []
        queries = [Query(fp, f"http://{tag}/{i}", page) for i, (fp, page, _) in enumerate(ops)]
        barrier.wait()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu0 = usage.ru_utime + usage.ru_stime
        clock = time.perf_counter
        for lo in range(0, len(ops), batch):
            t = clock()
            matches = ([store.check_and_add(*queries[lo])] if batch == 1
                       else store.check_many(queries[lo : lo + batch]))
            took = clock() - t
            for (_, _, kind), match in zip(ops[lo : lo + batch], matches):
                lat[kind].append(took)
                kept.append(match is None)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        store.close()
        queue.put((tag, lat, usage.ru_utime + usage.ru_stime - cpu0, kept))
    except BaseException as exc:  # the parent must hear of it
        queue.put((tag, repr(exc), 0.0, []))


def run_clients(url: str, prefix: str, expected: int, op_lists: list[list], clients, batch: int = 1) -> dict:
    """One process per list, released together; wall time, latencies, CPU, server CPU, kept."""
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(len(op_lists) + 1), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(url, prefix, expected, ops, f"p{i}", barrier, queue, batch))
             for i, ops in enumerate(op_lists)]
    for p in procs:
        p.start()
    barrier.wait()
    _, cpu0 = node_stats(clients)
    t0 = time.perf_counter()
    results = [queue.get(timeout=1800) for _ in procs]
    wall = time.perf_counter() - t0
    _, cpu1 = node_stats(clients)
    for p in procs:
        p.join(30)
    for tag, lat, _, _ in results:
        if isinstance(lat, str):
            raise RuntimeError(f"{tag}: {lat}")
    results.sort()
    return dict(wall=wall, server_cpu=cpu1 - cpu0, client_cpu=sum(r[2] for r in results),
                lat={kind: sum((r[1][kind] for r in results), []) for kind in ("new", "near")},
                kept=[r[3] for r in results])


# ------------------------------------------------------------------ measurements


def load(store, fps: np.ndarray, pages: np.ndarray, clients) -> dict:
    mem0, cpu0 = node_stats(clients)
    t0 = time.perf_counter()
    for lo in range(0, len(fps), CHUNK):
        part = fps[lo : lo + CHUNK].tolist()
        store.add_many(part, [f"http://h/{i}" for i in range(lo, lo + len(part))], pages[lo : lo + CHUNK].tolist())
        print(".", end="", flush=True)
    wall = time.perf_counter() - t0
    mem1, cpu1 = node_stats(clients)
    assert len(store) == len(fps)
    return dict(load_s=wall, load_rate=len(fps) / wall, bytes_fp=(mem1 - mem0) / len(fps),
                load_server_us=(cpu1 - cpu0) / len(fps) * 1e6)


def candidates(store, rng: np.random.Generator, n: int) -> float:
    """Mean entries in the buckets of 1000 random queries."""
    total = 0
    for fp in rng.integers(0, 2**64, size=1000, dtype=np.uint64).tolist():
        buckets = store.layout.buckets(fp)
        replies = store._batch([(name, ("HGET", name, field)) for name, field in buckets])
        total += sum(len(r) for r in replies if r) // store.layout.entry_bytes
    return total / 1000


def near_ops(fps: np.ndarray, pages: np.ndarray, count: int, rng: random.Random) -> list:
    """Near copies of stored entries: content 1..3 bits away, page 0..3 bits away (dropped)."""
    picks = [rng.randrange(len(fps)) for _ in range(count)]
    return [(flip(int(fps[i]), rng.randint(1, K), BITS, rng), flip(int(pages[i]), rng.randint(0, 3), 64, rng), "near")
            for i in picks]


def latency(store, fps, pages, rng: random.Random, count: int) -> dict:
    lat: dict[str, list[float]] = {"new": [], "near": []}
    ops = [(rng.getrandbits(64), rng.getrandbits(64), "new") for _ in range(count)] + near_ops(fps, pages, count, rng)
    for i, (fp, page, kind) in enumerate(ops):
        t = time.perf_counter()
        match = store.check_and_add(fp, f"http://lat/{i}", page)
        lat[kind].append(time.perf_counter() - t)
        assert (match is None) == (kind == "new"), (kind, match)
    return dict(new=percentiles(lat["new"]), near=percentiles(lat["near"]))


def throughput(url, prefix, expected, fps, pages, clients, args, rng: random.Random, batch: int = 1) -> dict:
    lists = []
    for _ in range(args.clients):
        ops = [(rng.getrandbits(64), rng.getrandbits(64), "new") for _ in range(args.checks * 4 // 5)]
        ops += near_ops(fps, pages, args.checks - len(ops), rng)
        rng.shuffle(ops)
        lists.append(ops)
    got = run_clients(url, prefix, expected, lists, clients, batch)
    checks = args.clients * args.checks
    wrong = sum(kept != (kind == "new") for ops, result in zip(lists, got["kept"])
                for (_, _, kind), kept in zip(ops, result))
    server_us = got["server_cpu"] / checks * 1e6
    return dict(checks_s=checks / got["wall"], new=percentiles(got["lat"]["new"]), near=percentiles(got["lat"]["near"]),
                client_us=got["client_cpu"] / checks * 1e6,
                server_us=server_us, capacity=len(clients) / server_us * 1e6, wrong=wrong)


def races(url, prefix, expected, clients, args, seed: int, batch: int = 1) -> dict:
    from store_helpers import near_groups, shuffled_copies, with_far_pages

    rng = random.Random(seed)
    same = [(rng.getrandbits(64), rng.getrandbits(64), "new") for _ in range(args.race_pages)]
    lists = shuffled_copies(same, args.clients, seed)
    got = run_clients(url, prefix + f":same{batch}", expected, lists, clients, batch)
    kept_by: dict[tuple, int] = {}
    for ops, result in zip(lists, got["kept"]):
        for op, kept in zip(ops, result):
            kept_by[op] = kept_by.get(op, 0) + kept
    identical = dict(leaks=sum(v > 1 for v in kept_by.values()), lost=sum(v == 0 for v in kept_by.values()))
    groups = with_far_pages(near_groups(BITS, K, args.race_groups, seed), 2, PAGE_K, seed)
    ops = [(fp, page, "new") for group in groups for fp, page in group]
    lists = shuffled_copies(ops, args.clients, seed + 1)
    got = run_clients(url, prefix + f":near{batch}", expected, lists, clients, batch)
    group_of = {(fp, page): g for g, group in enumerate(groups) for fp, page in group}
    per_group = [0] * len(groups)
    for ops_list, result in zip(lists, got["kept"]):
        for (fp, page, _), kept in zip(ops_list, result):
            per_group[group_of[fp, page]] += kept
    return dict(identical=f"{identical['leaks']} of {len(same):,} ({identical['lost']} kept by none)",
                near=f"{sum(n > 1 for n in per_group)} of {len(groups)} groups (+{sum(per_group) - len(groups)} copies)")


# ------------------------------------------------------------------ main


def main(argv=None) -> None:
    import redis
    from redis_server import RedisClusterNodes, RedisServer

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="3M", help="fingerprints loaded into each store (default 3M)")
    ap.add_argument("--expected", default=None, help="CONTENTSEEN_EXPECTED_PAGES of the stores (default: the size)")
    ap.add_argument("--clients", type=int, default=4, help="client processes (default 4)")
    ap.add_argument("--checks", type=int, default=5000, help="check_and_adds per client process (default 5000)")
    ap.add_argument("--latency", type=int, default=2000, help="one-client check_and_adds of each kind")
    ap.add_argument("--race-pages", type=int, default=2000, help="identical pages raced by the clients")
    ap.add_argument("--race-groups", type=int, default=60, help="groups of near copies raced by the clients")
    ap.add_argument("--skip-baseline", action="store_true", help="no one-table-per-block server store")
    ap.add_argument("--shards", default="3", help="comma-separated primaries of the clusters measured (default 3)")
    ap.add_argument("--batch", default="1", help="comma-separated batch sizes of the throughput and races (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="throughput rounds over all stores (default 3; the median is shown)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    shards = [int(n) for n in args.shards.split(",")]
    batches = [int(b) for b in args.batch.split(",")]
    n = parse_size(args.size)
    expected = parse_size(args.expected) if args.expected else n
    start = time.perf_counter()
    print(f"redis-py {redis.__version__}, numpy {np.__version__}, {os.cpu_count()} CPUs, n = {n:,}, "
          f"expected {expected:,}, load average {os.getloadavg()[0]:.1f}", flush=True)
    gen = np.random.default_rng(args.seed)
    fps = gen.integers(0, 2**64, size=n, dtype=np.uint64)
    pages = gen.integers(0, 2**64, size=n, dtype=np.uint64)
    workdir = Path(tempfile.mkdtemp(prefix="contentseen-redis-bench-"))
    rows, race_rows = [], []
    try:
        with contextlib.ExitStack() as servers:
            server = servers.enter_context(RedisServer(workdir / "server"))
            clusters = [servers.enter_context(RedisClusterNodes(workdir / f"cluster{n}", n)) for n in shards]
            server_clients = [redis.Redis(port=server.port)]
            version = server_clients[0].info("server")["redis_version"]
            setups = [(f"cluster, {c.n} shards", c.url, "bench", expected, [redis.Redis(port=p) for p in c.ports])
                      for c in clusters]
            setups.append(("one server", server.url, "bench", expected, server_clients))
            if not args.skip_baseline:
                setups.append(("one server, blocks (1M)", server.url, "blocks", 1_000_000, server_clients))
            loaded = []
            for name, url, prefix, exp, clients in setups:
                rng = random.Random(args.seed)
                store = open_bench(url, prefix, exp)
                print(f"\n== {name}: {store.plan.description}, {store.layout.describe()}; loading", end="", flush=True)
                row = dict(store=name, tables=store.plan.n_tables, **load(store, fps, pages, clients))
                print(f" {row['load_s']:.0f} s, {row['bytes_fp']:.0f} B/fp", flush=True)
                row["cand"] = f"{candidates(store, gen, n):.2f} ({store.plan.candidates(n):.2f})"
                row["nodes"] = f"{nodes_per_check(store, gen):.2f}" if url.startswith("redis+cluster") else "1"
                row["cand_100M"] = f"{store.plan.candidates(PROJECT):,.1f}"
                row.update({f"one_{k}": v for k, v in latency(store, fps, pages, rng, args.latency).items()})
                store.close()
                print(f"   one client: new {row['one_new']} us, near {row['one_near']} us (p50 / p99)", flush=True)
                loaded.append((name, url, prefix, exp, clients, row, rng))
            # every store measured in each round, one after another: the machine's drift between
            # rounds falls on all of them; each row is the store's median round by server CPU
            passes: dict[tuple[str, int], list[dict]] = {}
            for r in range(args.rounds):
                print(f"\n== round {r + 1} of {args.rounds}", flush=True)
                for batch in batches:
                    for name, url, prefix, exp, clients, row, rng in loaded:
                        got = throughput(url, prefix, exp, fps, pages, clients, args, rng, batch)
                        assert got["wrong"] == 0, f"{got['wrong']} checks kept a near copy or dropped a new page"
                        passes.setdefault((name, batch), []).append(got)
                        print(f"   {name}, batches of {batch}: {got['checks_s']:,.0f} checks/s; server "
                              f"{got['server_us']:.0f} us CPU/check, capacity {got['capacity']:,.0f}/s", flush=True)
            for name, url, prefix, exp, clients, row, rng in loaded:
                for batch in batches:
                    got = sorted(passes[name, batch], key=lambda p: p["server_us"])[(args.rounds - 1) // 2]
                    rows.append(dict(row, batch=batch, **got, rounds=passes[name, batch]))
            for name, url, prefix, exp, clients, row, rng in loaded:
                if prefix != "bench":
                    continue
                for batch in batches:
                    race_rows.append(dict(store=name, batch=batch, **races(url, prefix, exp, clients, args, args.seed, batch)))
                    print(f"   {name}, batches of {batch}: races: identical leaks {race_rows[-1]['identical']}; "
                          f"near {race_rows[-1]['near']}", flush=True)
            costs = call_costs(server_clients[0])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nredis-server {version}; {args.clients} client processes x {args.checks:,} checks (80% new, 20% near copies)")
    print_table([{**r, "load": f"{r['load_s']:.0f} s ({r['load_rate'] / 1e3:.1f}k/s)", "bytes_fp": f"{r['bytes_fp']:.0f}",
                  "checks_s": f"{r['checks_s']:,.0f}", "client_us": f"{r['client_us']:.0f}",
                  "server_us": f"{r['server_us']:.0f}", "capacity": f"{r['capacity']:,.0f}"} for r in rows],
                [("store", "store"), ("batch", "batch"), ("tables", "tables"), ("load", "load"), ("bytes_fp", "B/fp"),
                 ("cand", "cand/q (formula)"), ("cand_100M", "cand/q @100M"), ("nodes", "nodes/check"), ("one_new", "1 client new p50/p99 µs"),
                 ("one_near", "1 client near p50/p99 µs"), ("checks_s", "checks/s"), ("new", "new p50/p99 µs"),
                 ("near", "near p50/p99 µs"), ("client_us", "client CPU µs/check"),
                 ("server_us", "server CPU µs/check"), ("capacity", "capacity checks/s")])
    server = {r["batch"]: r for r in rows if r["store"] == "one server"}
    for c in rows[: len(shards) * len(batches)]:
        s, one = server[c["batch"]], server[batches[0]]
        each = ", ".join(f"{a['capacity'] / b['capacity']:.2f}x" for a, b in zip(c["rounds"], s["rounds"]))
        print(f"\n{c['store']}, batches of {c['batch']} / one server, same batches (/ batches of {batches[0]}): "
              f"measured checks/s {c['checks_s'] / s['checks_s']:.2f}x ({c['checks_s'] / one['checks_s']:.2f}x); "
              f"capacity (a core a node) {c['capacity'] / s['capacity']:.2f}x ({c['capacity'] / one['capacity']:.2f}x); "
              f"round by round, same batches: {each}")
    print(f"\none server's CPU: a round trip {costs['round_trip']:.1f} µs, an HGET in a pipeline of 10 "
          f"{costs['hget']:.1f} µs, a script call in a pipeline of 10 {costs['script']:.1f} µs")
    print_table(race_rows, [("store", "store"), ("batch", "batch"), ("identical", "identical pages kept twice"),
                            ("near", "near groups kept more than once")])
    print(f"\n(total {time.perf_counter() - start:.0f} s; load average at the end {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
