"""Benchmark: the SQLite fingerprint store at 1M and 10M fingerprints, against a naive full scan.

    python3 benchmarks/store.py                      # n = 1M and 10M, k = 3 (about 7 minutes)
    python3 benchmarks/store.py --sizes 1M           # one size (about a minute)
    python3 benchmarks/store.py --dir /data/tmp      # where the database files go (deleted after)
    python3 benchmarks/store.py --load-cache-mb 0    # load with the store's own page cache (slower)
    python3 benchmarks/store.py --pragma mmap_size=2147483648 --pragma cache_size=-262144
                                                     # also measure lookups with these PRAGMAs

Data: n random 64-bit fingerprints (URLs ``http://h/<i>``) bulk-loaded with ``add_many`` in
chunks of ``--chunk`` (one transaction each), as a seeding or migration would; the load is
timed, and the file size (after a WAL checkpoint) is reported per fingerprint. The loading
connection gets a page cache of ``--load-cache-mb`` (default 1024; SQLite's default is 2 MiB,
with which a 10M load takes about 2.5 times as long); every measurement after the load runs on a
fresh connection with the store's own settings. For the planted
queries, each query i gets a neighbour at distance i % 5 (none when that is 4) and a decoy at
distance 4, both stored among the n (replacing random entries), so ``lookup`` must answer the
planted neighbour's URL, fingerprint and distance, or None, and never the decoy -- every answer
is checked. Then, each on its own fresh fingerprints after a warm-up on others: ``lookup`` of
unseen random fingerprints (a crawl's common case: no match, answer None), and ``check_and_add``
of unseen fingerprints (BEGIN IMMEDIATE, lookup, insert, COMMIT; WAL, synchronous=NORMAL).
``cand/q`` is the mean number of distinct rows a lookup reads (the union of the k+1 buckets; about
(k+1) * n / 65536 for random 64-bit fingerprints with 16-bit blocks).

Baseline: the naive store on the same file -- read every fingerprint (``SELECT id, w0``) into
numpy and popcount -- on a few planted queries at 1M, and at 10M when the first query predicts
that they all take under a minute; its answers must equal the store's.

``--pragma NAME=VALUE`` (repeatable) runs the fresh-lookup measurement again on the same file
with the PRAGMAs set on the store's connection (an experiment: the store does not set them).
``--breakdown`` (default on) splits a row-by-row lookup (SQLiteStore's at the time of writing)
into its parts on unseen queries: block keys (numpy), the UNION query with all rows fetched, the
Python popcount loop. ``--variants`` (default on) times other ways to run the same lookup on the
same connection -- UNION ALL with block keys by shift and mask; the candidates as one
``group_concat`` row parsed and compared in numpy; each also with ``PRAGMA mmap_size`` -- after
checking that they answer as the store does on planted queries.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import shutil
import sqlite3
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from common import flips, parse_size, print_table, timed  # noqa: E402
from contentseen.stores import open_store  # noqa: E402

K = 3
BITS = 64
IDENTITY = {"bits": "64", "features": "bench", "table": "bench", "stopwords": "bench", "extract": "bench"}



def fmt_n(n: int) -> str:
    return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else f"{n:,}"



def make_data(n: int, q: int, rng: np.random.Generator):
    """n random fingerprints; q queries: query i has a neighbour at distance i % (K+2) (none when
    that is K+1) and a decoy at K+1. Returns fps, queries, near (q,) slot of the neighbour or -1,
    decoy (q,) slot of the decoy."""
    fps = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    queries = rng.integers(0, 2**64, size=q, dtype=np.uint64)
    slots = rng.choice(n, size=2 * q, replace=False)
    near, decoy = slots[:q].astype(np.int64), slots[q:].astype(np.int64)
    dist = np.arange(q) % (K + 2)
    for d in range(K + 1):
        sel = dist == d
        fps[near[sel]] = queries[sel] ^ flips(rng, int(sel.sum()), d)
    near[dist == K + 1] = -1
    fps[decoy] = queries ^ flips(rng, q, K + 1)
    return fps, queries, near, decoy


def url_of(i: int) -> str:
    return f"http://h/{i}"



def stats(lat: np.ndarray, wall: float) -> dict:
    return dict(ops=f"{len(lat):,}", p50=f"{np.percentile(lat, 50) / 1e3:,.0f}",
                p99=f"{np.percentile(lat, 99) / 1e3:,.0f}", mean=f"{lat.mean() / 1e3:,.0f}",
                ops_s=f"{len(lat) / wall:,.0f}", slow=f"{(lat > 2e6).mean() * 100:.1f}%",
                p99_us=float(np.percentile(lat, 99)) / 1e3)


def file_bytes(path: str) -> int:
    """Main file after a checkpoint that empties the WAL (a separate connection, read-only use)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))


M64 = 0xFFFFFFFFFFFFFFFF


def union_query(store, op: str = "UNION") -> str:
    """The k+1 bucket searches of a lookup, one covering-index search per block column."""
    return f" {op} ".join(f"SELECT id, w0 FROM fingerprints WHERE {k} = ?" for k in store._k)


def candidates(store, fps: list[int]) -> float:
    """Mean distinct rows in the k+1 buckets of a query (what a lookup reads and checks)."""
    count = f"SELECT count(*) FROM ({union_query(store)})"
    total = 0
    for fp in fps:
        keys = [int(k) for k in store.plan.query_keys(fp)]
        total += store._db.execute(count, keys).fetchone()[0]
    return total / len(fps)


class NaiveStore:
    """What one writes first: read every fingerprint, popcount in numpy, keep the closest."""

    def __init__(self, path: str):
        self.db = sqlite3.connect(path, isolation_level=None)

    def lookup(self, fp: int):
        cur = self.db.execute("SELECT id, w0 FROM fingerprints")
        flat = np.fromiter(itertools.chain.from_iterable(cur), dtype=np.int64)
        ids, words = flat[0::2], flat[1::2].view(np.uint64)
        dist = np.bitwise_count(words ^ np.uint64(fp))
        best = np.flatnonzero(dist == dist.min())
        i = best[np.argmin(ids[best])]
        if dist[i] > K:
            return None
        (url,) = self.db.execute("SELECT url FROM fingerprints WHERE id = ?", (int(ids[i]),)).fetchone()
        return url, int(words[i]), int(dist[i])

    def close(self) -> None:
        self.db.close()


def lookup_variants(store) -> dict:
    """Other implementations of the store's closest-match query (64-bit fingerprints), each
    returning (distance, id, fingerprint) of the closest within K, smallest id on ties, or None."""
    db, m64 = store._db, M64
    masks = [(lo, (1 << w) - 1) for lo, w in zip(store.plan.los, store.plan.widths)]
    union_all = union_query(store, "UNION ALL")
    concat = f"SELECT group_concat(id), group_concat(w0) FROM ({union_all})"

    def union_all_py(fp: int):
        # the same covering-index searches; no temp B-tree for UNION's de-duplication (a row found
        # twice cannot change the minimum); block keys by shift and mask instead of numpy
        best = None
        for i, w in db.execute(union_all, [(fp >> lo) & mask for lo, mask in masks]):
            d = ((w & m64) ^ fp).bit_count()
            if d <= K and (best is None or (d, i) < best[:2]):
                best = (d, i, w & m64)
        return best

    def concat_numpy(fp: int):
        # one result row: the candidates as two comma-separated lists, popcount in numpy
        ids, words = db.execute(concat, [(fp >> lo) & mask for lo, mask in masks]).fetchone()
        if words is None:
            return None
        w = np.fromstring(words, dtype=np.int64, sep=",").view(np.uint64)
        d = np.bitwise_count(w ^ np.uint64(fp))
        ok = np.flatnonzero(d <= K)
        if not len(ok):
            return None
        i = np.fromstring(ids, dtype=np.int64, sep=",")[ok]
        j = np.lexsort((i, d[ok]))[0]
        return int(d[ok][j]), int(i[j]), int(w[ok][j])

    return {"UNION ALL, keys in Python": union_all_py, "group_concat + numpy popcount": concat_numpy}


def breakdown(store, fps: list[int]) -> dict:
    """Mean µs of the parts of a row-by-row lookup on ``fps`` (as SQLiteStore did when this was
    written: block keys from BlockPlan, one UNION query, a Python loop over the rows)."""
    clock = time.perf_counter_ns
    query = union_query(store)
    t_keys = t_sql = t_py = 0
    for fp in fps:
        t0 = clock()
        keys = [int(k) for k in store.plan.query_keys(fp)]
        t1 = clock()
        rows = store._db.execute(query, keys).fetchall()
        t2 = clock()
        best = None
        for row in rows:
            d = ((row[1] & M64) ^ fp).bit_count()
            if d <= K and (best is None or (d, row[0]) < best):
                best = (d, row[0])
        t3 = clock()
        t_keys += t1 - t0
        t_sql += t2 - t1
        t_py += t3 - t2
    n = len(fps) * 1e3
    return dict(keys=t_keys / n, sql=t_sql / n, py=t_py / n)


def bench_size(n: int, args, rng: np.random.Generator, workdir: str) -> list[dict]:
    rows: list[dict] = []
    size = fmt_n(n)
    print(f"\n== n = {n:,}: generating data", flush=True)
    nq, nf, na, warm = args.queries, args.fresh, args.adds, args.warmup
    fps, queries, near, decoy = make_data(n, nq, rng)
    # fresh (unseen) fingerprints: warm-up, lookups, check_and_add, candidates, breakdown
    fresh = rng.integers(0, 2**64, size=warm + nf + na + 2 * args.profile, dtype=np.uint64).tolist()
    warm_fps, look_fps = fresh[:warm], fresh[warm : warm + nf]
    add_fps = fresh[warm + nf : warm + nf + na]
    prof_fps = fresh[warm + nf + na :]
    path = os.path.join(workdir, f"store-{size}.sqlite")
    args.created.append(path)
    store = open_store("sqlite:///" + path, IDENTITY, BITS, K)
    try:
        if args.load_cache_mb:  # the loading connection only; measurements below use a fresh one
            store._db.execute(f"PRAGMA cache_size=-{args.load_cache_mb * 1024}")
        print(f"   bulk load with add_many, chunks of {args.chunk:,}, page cache "
              f"{f'{args.load_cache_mb} MB' if args.load_cache_mb else 'default'}; seconds per chunk:", end="", flush=True)
        load = 0.0
        for lo in range(0, n, args.chunk):
            part = fps[lo : lo + args.chunk].tolist()
            urls = [url_of(i) for i in range(lo, lo + len(part))]
            t = time.perf_counter()
            store.add_many(part, urls)
            dt = time.perf_counter() - t
            load += dt
            print(f" {dt:.0f}", end="", flush=True)
            del part, urls
        print(f"; total {load:.0f} s", flush=True)
    finally:
        store.close()
    # measure as a crawler that opens an existing store would: a new connection, the store's settings
    store = open_store("sqlite:///" + path, IDENTITY, BITS, K)
    try:
        assert len(store) == n
        nbytes = file_bytes(path)
        print(f"   file {nbytes / 1e6:,.0f} MB ({nbytes / n:.0f} B/fp); load average {os.getloadavg()[0]:.1f}", flush=True)
        rows.append(dict(op="add_many bulk load", n=size, ops=f"{n:,}", p50="-", p99="-",
                         mean=f"{load / n * 1e6:.0f}", ops_s=f"{n / load:,.0f}", cand="-",
                         check=f"{load:.0f} s; {nbytes / 1e6:,.0f} MB, {nbytes / n:.0f} B/fp; "
                               f"cache {f'{args.load_cache_mb} MB' if args.load_cache_mb else 'default'}"))

        # (a) planted queries: every answer checked
        for fp in warm_fps:
            store.lookup(fp)
        qlist = queries.tolist()
        answers, lat, wall = timed(store.lookup, qlist)
        for i, got in enumerate(answers):
            slot = int(near[i])
            if slot < 0:
                assert got is None, f"query {i}: only a decoy at {K + 1} is stored, got {got}"
                continue
            assert got is not None, f"query {i}: the planted neighbour at distance {i % (K + 2)} is missing"
            assert (got.url, got.fingerprint, got.distance) == (url_of(slot), int(fps[slot]), i % (K + 2)), \
                f"query {i}: {got} is not the planted neighbour {url_of(slot)}"
        found = sum(a is not None for a in answers)
        answers_planted = answers
        cand_planted = candidates(store, qlist[: args.profile])
        rows.append(dict(op="lookup, planted (d 0..3, decoy 4)", n=size, target=True, **stats(lat, wall), cand=f"{cand_planted:.0f}",
                         check=f"all {len(qlist):,} right ({found:,} found, d 0-3; decoys never)"))
        print(f"   lookup planted: {rows[-1]['ops_s']} /s, p50 {rows[-1]['p50']} us, p99 {rows[-1]['p99']} us", flush=True)

        # (b) fresh lookups: no match expected
        answers, lat, wall = timed(store.lookup, look_fps)
        assert all(a is None for a in answers), "a random fingerprint matched (chance ~1e-8): rerun with another seed"
        cand_fresh = candidates(store, prof_fps[: args.profile])
        rows.append(dict(op="lookup, unseen", n=size, target=True, **stats(lat, wall), cand=f"{cand_fresh:.0f}",
                         check="all None"))
        print(f"   lookup unseen: {rows[-1]['ops_s']} /s, p50 {rows[-1]['p50']} us, p99 {rows[-1]['p99']} us, "
              f"{cand_fresh:.0f} candidate rows/query", flush=True)

        if args.breakdown:
            b = breakdown(store, prof_fps[args.profile :])
            print(f"   breakdown of an unseen lookup (mean us): block keys (numpy) {b['keys']:.0f}, "
                  f"SQL + fetch {b['sql']:.0f}, Python popcount loop {b['py']:.0f}", flush=True)
            rows.append(dict(op="  of which: keys / SQL+fetch / Python", n=size, ops=f"{args.profile:,}", p50="-", p99="-",
                             mean=f"{b['keys']:.0f} / {b['sql']:.0f} / {b['py']:.0f}", ops_s="-", cand="-",
                             check="mean us of each part"))

        # (c) check_and_add of unseen fingerprints: lookup + insert + commit
        for i, fp in enumerate(warm_fps):
            store.check_and_add(fp, f"http://warm/{i}")  # only looked up so far: unseen
        urls = iter(f"http://add/{i}" for i in range(na))
        answers, lat, wall = timed(lambda fp: store.check_and_add(fp, next(urls)), add_fps)
        assert all(a is None for a in answers), "a random fingerprint matched (chance ~1e-8): rerun with another seed"
        again = [store.lookup(fp) for fp in add_fps[:200]]
        assert all(a is not None and a.distance == 0 for a in again), "an added fingerprint is not found"
        rows.append(dict(op="check_and_add, unseen (adds)", n=size, target=True, **stats(lat, wall), cand=f"{cand_fresh:.0f}",
                         check="all None; then found at d 0"))
        print(f"   check_and_add: {rows[-1]['ops_s']} /s, p50 {rows[-1]['p50']} us, p99 {rows[-1]['p99']} us", flush=True)

        # other ways to run the same lookup, on the same connection (experiments, not the store):
        # checked against store.lookup on planted queries, timed on unseen ones
        if args.variants:
            for mmap in (False, True):
                if mmap:
                    store._db.execute(f"PRAGMA mmap_size={2**31}")  # SQLite caps it at its compile-time max
                    got = store._db.execute("PRAGMA mmap_size").fetchone()[0]
                    tag = f" + mmap_size {got / 2**30:.0f} GiB"
                    more = rng.integers(0, 2**64, size=warm + args.variant_queries, dtype=np.uint64).tolist()
                    for fp in more[:warm]:
                        store.lookup(fp)
                    answers, lat, wall = timed(store.lookup, more[warm:])
                    assert all(a is None for a in answers)
                    rows.append(dict(op=f"variant: store.lookup{tag}", n=size, **stats(lat, wall), cand=f"{cand_fresh:.0f}",
                                     check="all None"))
                    print(f"   {rows[-1]['op']}: p50 {rows[-1]['p50']} us, p99 {rows[-1]['p99']} us", flush=True)
                else:
                    tag = ""
                for name, fn in lookup_variants(store).items():
                    for i, q in enumerate(qlist[: args.profile]):
                        want, got = answers_planted[i], fn(q)
                        assert (want is None and got is None) or (
                            got is not None and (got[0], got[2]) == (want.distance, want.fingerprint)), f"{name}: query {i}"
                    more = rng.integers(0, 2**64, size=warm + args.variant_queries, dtype=np.uint64).tolist()
                    for fp in more[:warm]:
                        fn(fp)
                    answers, lat, wall = timed(fn, more[warm:])
                    assert all(a is None for a in answers)
                    rows.append(dict(op=f"variant: {name}{tag}", n=size, **stats(lat, wall), cand=f"{cand_fresh:.0f}",
                                     check=f"= store on {args.profile:,} planted; unseen: None"))
                    print(f"   {rows[-1]['op']}: p50 {rows[-1]['p50']} us, p99 {rows[-1]['p99']} us", flush=True)
            store._db.execute("PRAGMA mmap_size=0")

        # PRAGMA experiments on the same file and connection (not what the store sets)
        for pragma in args.pragma:
            store._db.execute(f"PRAGMA {pragma}")
            got = store._db.execute(f"PRAGMA {pragma.split('=')[0]}").fetchone()
            more = rng.integers(0, 2**64, size=warm + nf, dtype=np.uint64).tolist()
            for fp in more[:warm]:
                store.lookup(fp)
            answers, lat, wall = timed(store.lookup, more[warm:])
            assert all(a is None for a in answers)
            rows.append(dict(op=f"lookup, unseen, +PRAGMA {pragma}", n=size, **stats(lat, wall), cand=f"{cand_fresh:.0f}",
                             check=f"all None (now {got[0] if got else '?'})"))
            print(f"   +PRAGMA {pragma}: {rows[-1]['ops_s']} /s, p50 {rows[-1]['p50']} us, p99 {rows[-1]['p99']} us", flush=True)
    finally:
        store.close()

    # baseline: the naive full scan, on the same file
    if args.baseline:
        naive = NaiveStore(path)
        try:
            reference = open_store("sqlite:///" + path, IDENTITY, BITS, K)
            picks = qlist[: args.baseline]
            res, lat, wall = timed(naive.lookup, picks[:1])
            if lat[0] / 1e9 * len(picks) < args.baseline_budget:
                more, lat2, wall2 = timed(naive.lookup, picks[1:])
                res, lat, wall = res + more, np.concatenate([lat, lat2]), wall + wall2
            for q, got in zip(picks, res):
                want = reference.lookup(q)
                assert got == (None if want is None else (want.url, want.fingerprint, want.distance)), \
                    f"naive {got} != store {want}"
            reference.close()
            ratio = lat.mean() / 1e3 / float(rows[1]["mean"].replace(",", ""))
            rows.append(dict(op="naive full scan (SELECT id, w0 + numpy)", n=size, **stats(lat, wall), cand=f"{n:,}",
                             check=f"= store on {len(res)} planted; {ratio:,.0f}x the store's mean"))
            print(f"   naive full scan: {rows[-1]['mean']} us per query on {len(res)} queries", flush=True)
        finally:
            naive.close()
    del fps, queries, near, decoy, fresh
    gc.collect()
    if not args.keep:
        for s in ("", "-wal", "-shm"):
            if os.path.exists(path + s):
                os.remove(path + s)
    return rows


STORE_COLS = [("op", "operation"), ("n", "n"), ("ops", "ops"), ("p50", "p50 µs"), ("p99", "p99 µs"),
            ("mean", "mean µs"), ("slow", "> 2 ms"), ("ops_s", "ops/s"), ("cand", "cand/q"), ("check", "checked / notes")]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1M,10M", help="comma-separated n, e.g. 1M,10M (default)")
    ap.add_argument("--dir", default=None, help="directory for the database files (default: a temp dir in /tmp)")
    ap.add_argument("--chunk", type=int, default=1_000_000, help="fingerprints per add_many call (default 1M)")
    ap.add_argument("--load-cache-mb", type=int, default=1024,
                    help="PRAGMA cache_size of the loading connection, MB (default 1024; 0: the store's default, "
                         "2 MB, which at 10M makes the load about 2.5 times slower)")
    ap.add_argument("--queries", type=int, default=5_000, help="planted lookups (default 5000)")
    ap.add_argument("--fresh", type=int, default=5_000, help="unseen lookups (default 5000)")
    ap.add_argument("--adds", type=int, default=5_000, help="check_and_add calls (default 5000)")
    ap.add_argument("--warmup", type=int, default=500, help="warm-up calls before each measurement")
    ap.add_argument("--profile", type=int, default=1_000, help="queries for cand/q and the breakdown")
    ap.add_argument("--breakdown", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--baseline", type=int, default=5, help="naive full-scan queries (0: skip)")
    ap.add_argument("--baseline-budget", type=float, default=60.0, help="skip the naive scan when it would take longer (s)")
    ap.add_argument("--variants", action=argparse.BooleanOptionalAction, default=True,
                    help="also time other implementations of the lookup, and mmap_size (default on)")
    ap.add_argument("--variant-queries", type=int, default=3_000, help="unseen queries per variant (default 3000)")
    ap.add_argument("--pragma", action="append", default=[], help="NAME=VALUE, lookups again with it (repeatable)")
    ap.add_argument("--keep", action="store_true", help="keep the database files")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    args.created = []
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(f"SQLite {sqlite3.sqlite_version}, numpy {np.__version__}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, k = {K}, load average {os.getloadavg()[0]:.1f}")
    own = args.dir is None
    workdir = tempfile.mkdtemp(prefix="contentseen-store-bench-", dir="/tmp") if own else args.dir
    os.makedirs(workdir, exist_ok=True)
    rows: list[dict] = []
    try:
        for size in args.sizes.split(","):
            rows += bench_size(parse_size(size), args, rng, workdir)
    finally:
        if own and not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        elif not args.keep:
            for path in args.created:
                for s in ("", "-wal", "-shm"):
                    if os.path.exists(path + s):
                        os.remove(path + s)
    print_table(rows, STORE_COLS)
    print()
    for r in rows:
        if r.get("target") and r["p99_us"] > 2000:
            print(f"n = {r['n']}: {r['op']}: p99 {r['p99_us']:,.0f} µs is above the 2 ms target")
    print(f"\n(total {time.perf_counter() - start:.0f} s; load average at the end {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
