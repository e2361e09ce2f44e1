"""Benchmark: the SQLite and in-memory stores, under the block layout for 100M fingerprints
(the default) and under the layout of one table per block (the one for small stores, which every
store had before), at several sizes in one run, against a naive full scan.

    python3 benchmarks/store.py                      # n = 300k, 1M, 3M (about 12 minutes)
    python3 benchmarks/store.py --sizes 300k,3M      # the sizes of the flatness ratio
    python3 benchmarks/store.py --backends sqlite    # or memory
    python3 benchmarks/store.py --dir /data/tmp      # where the database files go (deleted after)

Data: n random 64-bit fingerprints (URLs ``http://h/<i>``) bulk-loaded with ``add_many`` in
chunks of ``--chunk``; the SQLite loading connection gets a page cache of ``--load-cache-mb``,
every measurement after the load runs on a fresh connection with the store's own settings. Each
query i of ``--queries`` planted ones has a neighbour at distance i % 5 (none when that is 4) and
a decoy at 4, both stored among the n, so ``lookup`` must answer the neighbour's URL,
fingerprint and distance, or None, never the decoy: every answer is checked. Then, on fresh
fingerprints after a warm-up on others: ``lookup`` of unseen ones (a crawl's common case) and
``check_and_add`` of unseen ones (SQLite: BEGIN IMMEDIATE, lookup, insert, COMMIT).

``cand/q`` is the mean number of stored entries a lookup reads: SQLite, the rows of its tables'
buckets (``UNION ALL``); memory, the entries of the directory ranges it scans in every segment
and table (16-bit folds, before the fingerprints of the few that pass are read: a range holds
the ~4-8 entries of a directory slot, not only those of the query's key); the append buffer
(up to 2048 entries, scanned exactly by numpy) is given apart. ``@100M`` is what the layout's formula (``BlockPlan.candidates``,
entries of the query's keys) gives at 100M fingerprints; ``formula`` the same at n, to compare
with the SQLite count. Bytes per fingerprint: the SQLite file after a checkpoint; memory, the
growth of the process's RSS during the load (the index's arrays, in brackets, and one Python
entry a page).

Baseline: the naive store on the same SQLite file -- read every fingerprint (``SELECT id, w0``)
into numpy and popcount -- on a few planted queries, while the first predicts they all take
under a minute; its answers must equal the store's.
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
from contentseen.blocks import plan_for  # noqa: E402
from contentseen.stores import open_store  # noqa: E402

K = 3
BITS = 64
IDENTITY = {"bits": "64", "features": "bench", "table": "bench", "stopwords": "bench", "extract": "bench"}
PROJECT = 100_000_000
# expected size -> the layout it picks: the default (flat), and one table per block
LAYOUTS = {"flat (100M)": 100_000_000, "blocks (1M)": 1_000_000}


def fmt_n(n: int) -> str:
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    return f"{n // 1000}k" if n % 1000 == 0 else f"{n:,}"


def make_data(n: int, q: int, rng: np.random.Generator):
    """n random fingerprints; q queries: query i has a neighbour at distance i % (K+2) (none when
    that is K+1) and a decoy at K+1. Returns fps, queries, near (q,) slot of the neighbour or -1."""
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
    return fps, queries, near


def url_of(i: int) -> str:
    return f"http://h/{i}"


def stats(lat: np.ndarray, wall: float) -> dict:
    return dict(p50=float(np.percentile(lat, 50)) / 1e3, p99=float(np.percentile(lat, 99)) / 1e3,
                ops_s=len(lat) / wall)


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def file_bytes(path: str) -> int:
    """Main file after a checkpoint that empties the WAL (a separate connection, read-only use)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))


def sqlite_candidates(store, fps: list[int]) -> float:
    """Mean rows a lookup reads: its tables' buckets, UNION ALL (what the store's query reads)."""
    count = "SELECT count(*) FROM (" + " UNION ALL ".join(
        f"SELECT id FROM fingerprints WHERE {k} = ?" for k in store._k) + ")"
    return sum(store._db.execute(count, store.plan.int_keys(fp)).fetchone()[0] for fp in fps) / len(fps)


def memory_candidates(store, fps: list[int]) -> float:
    """Mean entries a memory lookup scans in its directory ranges, in every segment and table
    (the append buffer, scanned too, is reported apart)."""
    index = store.index
    total = 0
    for fp in fps:
        keys = index._keys(fp)
        for seg in index._segments:
            for full, (drop, view, _, _) in zip(keys, seg.tables):
                key = full >> drop
                total += view[key + 1] - view[key]
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


def check_planted(answers: list, fps: np.ndarray, near: np.ndarray) -> int:
    """Every planted answer right (never the decoy); returns how many were found."""
    for i, got in enumerate(answers):
        slot = int(near[i])
        if slot < 0:
            assert got is None, f"query {i}: only a decoy at {K + 1} is stored, got {got}"
            continue
        assert got is not None, f"query {i}: the planted neighbour at distance {i % (K + 2)} is missing"
        assert (got.url, got.fingerprint, got.distance) == (url_of(slot), int(fps[slot]), i % (K + 2)), \
            f"query {i}: {got} is not the planted neighbour {url_of(slot)}"
    return sum(a is not None for a in answers)


def open_bench(backend: str, path: str, expected: int):
    url = "sqlite:///" + path if backend == "sqlite" else "memory://"
    return open_store(url, IDENTITY, BITS, K, expected=expected)


def bench_one(backend: str, layout: str, n: int, data, args, rng, workdir: str) -> list[dict]:
    fps, queries, near = data
    expected = LAYOUTS[layout]
    row = dict(backend=backend, layout=layout, n=fmt_n(n), tables=plan_for(BITS, K, expected).n_tables)
    path = os.path.join(workdir, f"{backend}-{expected}-{n}.sqlite")
    warm = rng.integers(0, 2**64, size=args.warmup, dtype=np.uint64).tolist()
    unseen = rng.integers(0, 2**64, size=args.fresh, dtype=np.uint64).tolist()
    adds = rng.integers(0, 2**64, size=args.adds, dtype=np.uint64).tolist()
    rss0 = rss_bytes()
    store = open_bench(backend, path, expected)
    try:
        if backend == "sqlite" and args.load_cache_mb:
            store._db.execute(f"PRAGMA cache_size=-{args.load_cache_mb * 1024}")
        t0 = time.perf_counter()
        for lo in range(0, n, args.chunk):
            part = fps[lo : lo + args.chunk].tolist()
            store.add_many(part, [url_of(i) for i in range(lo, lo + len(part))])
        load = time.perf_counter() - t0
        if backend == "sqlite":
            store.close()
            store = open_bench(backend, path, expected)  # measured as a crawler that opens it
            nbytes = file_bytes(path)
        else:
            nbytes = rss_bytes() - rss0
            row["index_fp"] = store.index.nbytes / n
        row.update(load_s=load, load_rate=n / load, bytes_fp=nbytes / n)
        for fp in warm:
            store.lookup(fp)
        answers, lat, wall = timed(store.lookup, queries.tolist())
        row["found"] = check_planted(answers, fps, near)
        row.update({f"planted_{k}": v for k, v in stats(lat, wall).items()})
        answers, lat, wall = timed(store.lookup, unseen)
        assert all(a is None for a in answers), "a random fingerprint matched (chance ~1e-8): rerun with another seed"
        row.update({f"lookup_{k}": v for k, v in stats(lat, wall).items()})
        counter = itertools.count()
        for fp in warm:
            store.check_and_add(fp, f"http://warm/{next(counter)}")
        answers, lat, wall = timed(lambda fp: store.check_and_add(fp, f"http://add/{next(counter)}"), adds)
        assert all(a is None for a in answers), "a random fingerprint matched (chance ~1e-8): rerun with another seed"
        assert all(store.lookup(fp).distance == 0 for fp in adds[:200]), "an added fingerprint is not found"
        row.update({f"add_{k}": v for k, v in stats(lat, wall).items()})
        sample = unseen[: args.profile]
        row["cand"] = (sqlite_candidates if backend == "sqlite" else memory_candidates)(store, sample)
        if backend == "memory":
            row["buffer"] = store.index._nbuf
        row["cand_formula"] = store.plan.candidates(n)
        row["cand_100M"] = store.plan.candidates(PROJECT)
    finally:
        store.close()
    rows = [row]
    if backend == "sqlite" and args.baseline and layout == next(iter(LAYOUTS)):
        rows.append(naive_row(path, queries.tolist()[: args.baseline], row, n, args))
    del store
    gc.collect()
    for s in ("", "-wal", "-shm"):
        if os.path.exists(path + s):
            os.remove(path + s)
    print(f"   {backend:6s} {layout:12s} n={fmt_n(n):5s} load {row['load_s']:5.0f} s, {row['bytes_fp']:4.0f} B/fp; "
          f"lookup p50 {row['lookup_p50']:5.0f} us; check_and_add p50 {row['add_p50']:5.0f} us; "
          f"{row['cand']:.1f} cand/q", flush=True)
    return rows


def naive_row(path: str, picks: list[int], store_row: dict, n: int, args) -> dict:
    naive = NaiveStore(path)
    reference = open_bench("sqlite", path, LAYOUTS[store_row["layout"]])
    try:
        res, lat, wall = timed(naive.lookup, picks[:1])
        if lat[0] / 1e9 * len(picks) < args.baseline_budget:
            more, lat2, wall2 = timed(naive.lookup, picks[1:])
            res, lat, wall = res + more, np.concatenate([lat, lat2]), wall + wall2
        for q, got in zip(picks, res):
            want = reference.lookup(q)
            assert got == (None if want is None else (want.url, want.fingerprint, want.distance)), \
                f"naive {got} != store {want}"
    finally:
        reference.close()
        naive.close()
    return dict(backend="sqlite", layout="naive full scan", n=store_row["n"], tables="-",
                **{f"lookup_{k}": v for k, v in stats(lat, wall).items()},
                cand=n, note=f"{len(res)} queries, = store")


COLS = [("backend", "store"), ("layout", "layout"), ("n", "n"), ("tables", "tables"), ("load", "load"),
        ("bytes_fp", "B/fp"), ("planted", "lookup planted p50/p99 µs"), ("lookup", "lookup unseen p50/p99 µs"),
        ("add", "check_and_add p50/p99 µs"), ("add_ops", "check_and_add/s"), ("cand", "cand/q"),
        ("cand_100M", "cand/q @100M")]


def table_rows(rows: list[dict]) -> list[dict]:
    out = []
    for r in rows:
        pair = lambda key: f"{r[key + '_p50']:,.0f} / {r[key + '_p99']:,.0f}" if key + "_p50" in r else "-"  # noqa: E731
        out.append(dict(
            backend=r["backend"], layout=r["layout"], n=r["n"], tables=r["tables"],
            load=f"{r['load_s']:.0f} s ({r['load_rate'] / 1e3:.0f}k/s)" if "load_s" in r else "-",
            bytes_fp=(f"{r['bytes_fp']:.0f}" + (f" (index {r['index_fp']:.0f})" if "index_fp" in r else ""))
            if "bytes_fp" in r else "-",
            planted=pair("planted") + (f" ({r['found']:,} found, all right)" if "found" in r else ""),
            lookup=pair("lookup"), add=pair("add"),
            add_ops=f"{r['add_ops_s']:,.0f}" if "add_ops_s" in r else "-",
            cand=(f"{r['cand']:,.1f} (formula {r['cand_formula']:.1f})" if "cand_formula" in r else f"{r['cand']:,.0f}")
            + (f"; buffer {r['buffer']:,}" if "buffer" in r else ""),
            cand_100M=f"{r['cand_100M']:,.1f}" if "cand_100M" in r else (r.get("note") or "-"),
        ))
    return out


def ratios(rows: list[dict], sizes: list[int]) -> list[str]:
    """check_and_add p50 at the largest size over the smallest, per store and layout."""
    lines = []
    small, large = fmt_n(min(sizes)), fmt_n(max(sizes))
    for backend, layout in itertools.product(("sqlite", "memory"), LAYOUTS):
        by_n = {r["n"]: r for r in rows if (r["backend"], r["layout"]) == (backend, layout) and "add_p50" in r}
        if small in by_n and large in by_n and small != large:
            for op in ("add", "lookup"):
                ratio = by_n[large][f"{op}_p50"] / by_n[small][f"{op}_p50"]
                name = "check_and_add" if op == "add" else "lookup unseen"
                lines.append(f"{backend} {layout}: {name} p50 {large} / {small} = {ratio:.2f}")
    return lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="300k,1M,3M", help="comma-separated n (default 300k,1M,3M)")
    ap.add_argument("--backends", default="sqlite,memory", help="sqlite,memory (default both)")
    ap.add_argument("--layouts", default=",".join(LAYOUTS), help=f"of: {', '.join(LAYOUTS)}")
    ap.add_argument("--dir", default=None, help="directory for the database files (default: a temp dir in /tmp)")
    ap.add_argument("--chunk", type=int, default=1_000_000, help="fingerprints per add_many call (default 1M)")
    ap.add_argument("--load-cache-mb", type=int, default=1024,
                    help="PRAGMA cache_size of the SQLite loading connection, MB (default 1024; 0: the store's own)")
    ap.add_argument("--queries", type=int, default=5_000, help="planted lookups (default 5000)")
    ap.add_argument("--fresh", type=int, default=5_000, help="unseen lookups (default 5000)")
    ap.add_argument("--adds", type=int, default=5_000, help="check_and_add calls (default 5000)")
    ap.add_argument("--warmup", type=int, default=500, help="warm-up calls before each measurement")
    ap.add_argument("--profile", type=int, default=1_000, help="queries for cand/q")
    ap.add_argument("--baseline", type=int, default=5, help="naive full-scan queries (0: skip)")
    ap.add_argument("--baseline-budget", type=float, default=60.0, help="skip the naive scan when it would take longer (s)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    layouts = [name.strip() for name in args.layouts.split(",")]
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(f"SQLite {sqlite3.sqlite_version}, numpy {np.__version__}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, k = {K}, load average {os.getloadavg()[0]:.1f}")
    workdir = tempfile.mkdtemp(prefix="contentseen-store-bench-", dir=args.dir or "/tmp")
    rows: list[dict] = []
    try:
        for n in sizes:
            print(f"\n== n = {n:,}", flush=True)
            data = make_data(n, args.queries, rng)
            for backend in args.backends.split(","):
                for layout in layouts:
                    rows += bench_one(backend, layout, n, data, args, rng, workdir)
            del data
            gc.collect()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print_table(table_rows(rows), COLS)
    print()
    for line in ratios(rows, sizes):
        print(line)
    print(f"\n(total {time.perf_counter() - start:.0f} s; load average at the end {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
