"""Shared by the store tests: workloads with planted neighbours, a brute-force oracle, and the
worker that processes run to race on one store (importable, so ``spawn`` can pickle it)."""

from __future__ import annotations

import random
from typing import Callable, Sequence

from contentseen.stores import FingerprintStore, open_store

IDENTITY = {"bits": "64", "features": "f1", "table": "t1", "stopwords": "s1", "extract": "main/v1"}


def identity(bits: int, **changes: str) -> dict[str, str]:
    return {**IDENTITY, "bits": str(bits), **changes}


def flip(value: int, bits: int, n: int, rng: random.Random) -> int:
    """``value`` with ``n`` distinct random bit positions flipped."""
    for p in rng.sample(range(bits), n):
        value ^= 1 << p
    return value


def planted_workload(bits: int, k: int, n: int, seed: int) -> list[int]:
    """``n`` fingerprints: random ones, and neighbours at distances 0..k+1 of earlier ones."""
    rng = random.Random(seed)
    ops: list[int] = []
    for _ in range(n):
        if ops and rng.random() < 0.6:
            ops.append(flip(rng.choice(ops), bits, rng.randint(0, k + 1), rng))
        else:
            ops.append(rng.getrandbits(bits))
    return ops


def check_against_brute_force(store: FingerprintStore, ops: Sequence[int], k: int) -> int:
    """Run ``ops`` through ``check_and_add`` (and ``lookup``) and compare every answer with a
    scan of everything kept so far: same keep/drop, same distance, and the match is the earliest
    kept fingerprint at that distance. Returns how many were dropped."""
    kept: list[tuple[int, str]] = []
    dropped = 0
    for i, fp in enumerate(ops):
        url = f"http://example.test/{i}"
        dists = [(fp ^ s).bit_count() for s, _ in kept]
        best = min(dists, default=k + 1)
        expected = None if best > k else kept[dists.index(best)]
        looked = store.lookup(fp)
        match = store.check_and_add(fp, url)
        for got in (looked, match):
            if expected is None:
                assert got is None, (i, hex(fp), got)
            else:
                assert got is not None, (i, hex(fp), best)
                assert (got.fingerprint, got.url, got.distance) == (*expected, best), (i, got, expected)
        if match is None:
            kept.append((fp, url))
        else:
            dropped += 1
    assert len(store) == len(kept)
    return dropped


def near_groups(bits: int, k: int, n_groups: int, seed: int) -> list[list[int]]:
    """Groups of 2**k fingerprints: a random base with every subset of k fixed positions
    flipped, so any two of a group are within k; bases are far apart (checked)."""
    rng = random.Random(seed)
    groups: list[list[int]] = []
    while len(groups) < n_groups:
        base = rng.getrandbits(bits)
        if any((base ^ g[0]).bit_count() <= 4 * k for g in groups):
            continue
        positions = rng.sample(range(bits), k)
        group = []
        for mask in range(1 << k):
            fp = base
            for j, p in enumerate(positions):
                if mask >> j & 1:
                    fp ^= 1 << p
            group.append(fp)
        groups.append(group)
    return groups


def shuffled_copies(fps: list[int], copies: int, seed: int) -> list[list[int]]:
    """``copies`` orderings of ``fps``, one per racing process, reproducible from ``seed``."""
    lists = []
    for i in range(copies):
        mine = fps[:]
        random.Random(seed + i).shuffle(mine)
        lists.append(mine)
    return lists


def race_worker(url: str, bits: int, k: int, fps: list[int], tag: str, options: dict,
                start: Callable[[], object] | None = None) -> list[tuple[int, bool]]:
    """Open the store, (wait at ``start``), check-and-add ``fps``: [(fingerprint, kept)]."""
    store = open_store(url, identity(bits), bits, k, **options)
    try:
        if start is not None:
            start()
        return [(fp, store.check_and_add(fp, f"http://{tag}.test/{i}") is None) for i, fp in enumerate(fps)]
    finally:
        store.close()


def process_race_main(url: str, bits: int, k: int, fps: list[int], tag: str, options: dict,
                      barrier, queue) -> None:
    """A racing process: results go to ``queue`` as (tag, [(fingerprint, kept)])."""
    try:
        queue.put((tag, race_worker(url, bits, k, fps, tag, options, barrier.wait)))
    except BaseException as exc:  # the parent must hear of it, not wait forever
        queue.put((tag, repr(exc)))


def race_processes(url: str, bits: int, k: int, lists: list[list[int]], options: dict | None = None,
                   timeout: float = 60) -> list[list[tuple[int, bool]]]:
    """Run one process per list in ``lists``, all starting at once (spawn, barrier)."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(len(lists)), ctx.Queue()
    procs = [
        ctx.Process(target=process_race_main, args=(url, bits, k, fps, f"p{i}", options or {}, barrier, queue))
        for i, fps in enumerate(lists)
    ]
    for p in procs:
        p.start()
    try:
        results = dict(queue.get(timeout=timeout) for _ in procs)
    finally:
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
    for tag, result in results.items():
        assert not isinstance(result, str), f"{tag}: {result}"
    return [results[f"p{i}"] for i in range(len(lists))]


def assert_one_kept_per_group(groups: list[list[int]], results: list[list[tuple[int, bool]]]) -> None:
    kept = [fp for result in results for fp, was_kept in result if was_kept]
    group_of = {fp: g for g, group in enumerate(groups) for fp in group}
    per_group = [0] * len(groups)
    for fp in kept:
        per_group[group_of[fp]] += 1
    assert per_group == [1] * len(groups), per_group
