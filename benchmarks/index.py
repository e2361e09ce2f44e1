"""Benchmark: contentseen.index.HammingIndex against numpy brute force and simhash.SimhashIndex.

    python3 benchmarks/index.py                     # n = 1M and 10M, k = 3 (about 5 minutes)
    python3 benchmarks/index.py --sizes 1M          # one size
    python3 benchmarks/index.py --simhash-size 0    # skip the simhash package baseline

Data: n random 64-bit fingerprints with ids 0..n-1; for every query fingerprint, neighbours are
planted at distance exactly 0, 1, 2, 3 and a decoy at 4 (replacing random entries). Reported per
row: build time, bytes per fingerprint (the index's numpy arrays, and RSS growth during the
build), single-query throughput and p50/p99 latency, batch throughput (``query_many``), and how
the answers were checked. Every HammingIndex answer on the query set must contain the planted
neighbours and not the decoy; on a random subset (``--verify``) the answers are compared with
numpy brute force, which is also timed on that subset. Single queries, the ``query_many`` batch
and ``nearest`` each run on their own planted queries (no cache-warm repeats). ``+adds`` rows: ``add_one`` of further
fingerprints on top of the built index (buffer + small segments), then queries again.
The simhash package's SimhashIndex (pure Python; bench-only dependency) is built at
``--simhash-size`` only and compared with brute force on its own data; nothing is extrapolated.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from common import flips, parse_size, print_table, timed  # noqa: E402
from contentseen.index import HammingIndex  # noqa: E402

K = 3



def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")



def make_data(n: int, q: int, rng: np.random.Generator):
    """n random fingerprints; q queries, each with planted neighbours at 0..K and a decoy at K+1.
    Returns fps, queries, planted (q, K+2) ids: column d is the entry at distance d."""
    fps = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    queries = rng.integers(0, 2**64, size=q, dtype=np.uint64)
    slots = rng.choice(n, size=(q, K + 2), replace=False)
    for d in range(K + 2):
        fps[slots[:, d]] = queries ^ flips(rng, q, d)
    return fps, queries, slots.astype(np.int64)


def brute(fps: np.ndarray, q: int):
    dist = np.bitwise_count(fps ^ np.uint64(q))
    sel = np.flatnonzero(dist <= K)
    order = np.lexsort((sel, dist[sel]))
    return sel[order], dist[sel][order].astype(np.int64)


def timed_queries(fn, queries: list[int]):
    """Answers, queries/s, p50 and p99 latency (us) of ``fn`` over ``queries``."""
    out, lat, total = timed(fn, queries)
    return out, len(queries) / total, np.percentile(lat, 50) / 1e3, np.percentile(lat, 99) / 1e3


def row(**kw) -> dict:
    return kw


def bench_size(n: int, args, rng: np.random.Generator) -> list[dict]:
    rows = []
    print(f"\n== n = {n:,}: generating data", flush=True)
    # three disjoint planted query sets, so that no timing runs on cache-warm data:
    # single queries, the query_many batch, nearest()
    nq, nn = args.queries, min(5_000, args.queries)
    fps, all_queries, all_planted = make_data(n, 2 * nq + nn, rng)
    queries, planted = all_queries[:nq], all_planted[:nq]
    batch_queries, batch_planted = all_queries[nq : 2 * nq], all_planted[nq : 2 * nq]
    near_queries = all_queries[2 * nq :]
    ids = np.arange(n, dtype=np.int64)
    qlist = queries.tolist()
    gc.collect()

    rss0 = rss_bytes()
    t = time.perf_counter()
    index = HammingIndex(64, K)
    index.add(fps, ids)
    build = time.perf_counter() - t
    gc.collect()
    rss_growth = rss_bytes() - rss0
    print(f"   built in {build:.1f} s, {index.nbytes / n:.1f} B/fp in arrays, RSS +{rss_growth / n:.1f} B/fp", flush=True)

    # warm-up, then single queries
    for q in qlist[:200]:
        index.query(q)
    single, qps, p50, p99 = timed_queries(index.query, qlist)
    # planted truth on every query
    for i, (got, _) in enumerate(single):
        got = set(got.tolist())
        assert set(planted[i, : K + 1].tolist()) <= got, f"query {i}: a planted neighbour is missing"
        assert planted[i, K + 1] not in got, f"query {i}: the decoy at distance {K + 1} was returned"
    t = time.perf_counter()
    many = index.query_many(batch_queries)
    batch_qps = len(batch_queries) / (time.perf_counter() - t)
    for i, (got, _) in enumerate(many):
        got = set(got.tolist())
        assert set(batch_planted[i, : K + 1].tolist()) <= got and batch_planted[i, K + 1] not in got, f"batch {i}"
    for (a_ids, a_d), (b_ids, b_d) in zip(single, index.query_many(queries[:2000])):
        assert np.array_equal(a_ids, b_ids) and np.array_equal(a_d, b_d), "query_many != query"
    nearest, nearest_qps, _, _ = timed_queries(index.nearest, near_queries.tolist())
    for q, got in zip(near_queries.tolist(), nearest):
        assert got is not None and got[1] == 0, "nearest must find the planted copy at distance 0"
    print(f"   query: {qps:,.0f} q/s (p50 {p50:.1f} us, p99 {p99:.1f} us); query_many {batch_qps:,.0f} q/s; "
          f"nearest {nearest_qps:,.0f} q/s (each on its own fresh planted queries)", flush=True)

    # brute force on a random subset, compared with the index
    pick = rng.choice(len(qlist), size=min(args.verify, len(qlist)), replace=False)
    sub = [qlist[i] for i in pick]
    bf, bf_qps, bf_p50, bf_p99 = timed_queries(lambda q: brute(fps, q), sub)
    for i, (b_ids, b_d) in zip(pick, bf):
        assert np.array_equal(single[i][0], b_ids) and np.array_equal(single[i][1], b_d), f"query {i} != brute force"
    checked = f"planted {len(qlist):,}; = brute {len(sub):,}"
    print(f"   brute force: {bf_qps:,.1f} q/s; index == brute force on {len(sub)} queries", flush=True)

    rows.append(row(method="HammingIndex", n=n, build=f"{build:.2f} s", bpf=f"{index.nbytes / n:.1f}",
                    rss=f"{rss_growth / n:.1f}", qps=f"{qps:,.0f}", p50=f"{p50:.0f}", p99=f"{p99:.0f}",
                    batch=f"{batch_qps:,.0f}", check=checked))
    rows.append(row(method="numpy brute force", n=n, build="-", bpf="16.0", rss="-", qps=f"{bf_qps:,.1f}",
                    p50=f"{bf_p50:,.0f}", p99=f"{bf_p99:,.0f}", batch="-", check=f"reference ({len(sub):,} q)"))

    # incremental adds on top, then queries again (with the append buffer and small segments)
    if args.adds:
        extra = rng.integers(0, 2**64, size=args.adds, dtype=np.uint64).tolist()
        t = time.perf_counter()
        for i, v in enumerate(extra):
            index.add_one(v, n + i)
        add_us = (time.perf_counter() - t) / len(extra) * 1e6
        again = qlist[-min(5000, len(qlist)):][::-1]  # queried once before, long ago
        res2, qps2, p50_2, p99_2 = timed_queries(index.query, again)
        for (a_ids, a_d), (b_ids, b_d) in zip(single[-len(again):][::-1], res2):
            assert np.array_equal(a_ids, b_ids) and np.array_equal(a_d, b_d), "answer changed after adds"
        segs = len(index._segments)
        print(f"   add_one x {len(extra):,}: {add_us:.1f} us/add; then {segs} segments + buffer "
              f"{index._nbuf}: {qps2:,.0f} q/s", flush=True)
        rows.append(row(method=f"  +{len(extra) // 1000}k add_one", n=len(index), build=f"{add_us:.1f} us/add",
                        bpf=f"{index.nbytes / len(index):.1f}", rss="-", qps=f"{qps2:,.0f}", p50=f"{p50_2:.0f}",
                        p99=f"{p99_2:.0f}", batch="-", check=f"{segs} segments, same answers"))
    del index, single, many, nearest, fps
    gc.collect()
    return rows


def bench_simhash(n: int, args, rng: np.random.Generator) -> list[dict]:
    try:
        from simhash import Simhash, SimhashIndex
    except ImportError:
        print("simhash package not installed (pip install simhash); skipping that baseline")
        return []
    logging.getLogger("simhash").setLevel(logging.ERROR)
    q = min(args.simhash_queries, args.queries)
    print(f"\n== simhash.SimhashIndex at n = {n:,}", flush=True)
    fps, queries, planted = make_data(n, q, rng)
    values = fps.tolist()
    gc.collect()
    rss0 = rss_bytes()
    t = time.perf_counter()
    index = SimhashIndex([(str(i), Simhash(v, f=64)) for i, v in enumerate(values)], f=64, k=K)
    build = time.perf_counter() - t
    gc.collect()
    rss_growth = rss_bytes() - rss0
    qlist = queries.tolist()
    res, qps, p50, p99 = timed_queries(lambda v: index.get_near_dups(Simhash(v, f=64)), qlist)
    for v, got in zip(qlist, res):
        want = brute(fps, v)[0]
        assert sorted(int(x) for x in got) == sorted(want.tolist()), "SimhashIndex != brute force"
    print(f"   built in {build:.1f} s; {qps:,.0f} q/s; == brute force on {len(qlist)} queries", flush=True)
    return [row(method="simhash.SimhashIndex", n=n, build=f"{build:.1f} s", bpf="-", rss=f"{rss_growth / n:.0f}",
                qps=f"{qps:,.0f}", p50=f"{p50:.0f}", p99=f"{p99:.0f}", batch="-",
                check=f"= brute {len(qlist):,} (ids only)")]


INDEX_COLS = [("method", "method"), ("n", "n"), ("build", "build"), ("bpf", "B/fp arrays"),
            ("rss", "B/fp RSS"), ("qps", "query/s"), ("p50", "p50 us"), ("p99", "p99 us"),
            ("batch", "query_many/s"), ("check", "checked")]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1M,10M", help="comma-separated n, e.g. 1M,10M (default)")
    ap.add_argument("--queries", type=int, default=20_000, help="query fingerprints per size (default 20000)")
    ap.add_argument("--verify", type=int, default=500, help="of those, compared with brute force (default 500)")
    ap.add_argument("--adds", type=int, default=100_000, help="add_one calls on top of the built index (0: skip)")
    ap.add_argument("--simhash-size", default="1M", help="n for simhash.SimhashIndex (0: skip; default 1M)")
    ap.add_argument("--simhash-queries", type=int, default=2_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} CPUs, k = {K}, "
          f"load average {os.getloadavg()[0]:.1f}")
    rows = []
    for size in args.sizes.split(","):
        rows += bench_size(parse_size(size), args, rng)
    sh = parse_size(args.simhash_size)
    if sh:
        rows += bench_simhash(sh, args, rng)
    print_table(rows, INDEX_COLS)
    print(f"\n(total {time.perf_counter() - start:.0f} s; load average at the end {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
