"""Shared by the store tests: workloads with planted neighbours, a brute-force oracle, the page
fingerprint rules, and the worker that processes run to race on one store (importable, so
``spawn`` can pickle it). An *op* is a fingerprint, or a (fingerprint, page fingerprint) pair."""

from __future__ import annotations

import random
import time
from typing import Callable, NamedTuple, Sequence

from contentseen.stores import FingerprintStore, Query, open_store

IDENTITY = {"bits": "64", "features": "f1", "table": "t1", "stopwords": "s1", "extract": "main/v1"}
Op = int | tuple[int, int | None]


def fp_page(op: Op) -> tuple[int, int | None]:
    return op if isinstance(op, tuple) else (op, None)


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


def planted_page_workload(bits: int, k: int, page_k: int, n: int, seed: int) -> list[Op]:
    """``planted_workload`` with page fingerprints: none, random (far), or neighbours at
    distances 0..page_k+2 of the page of the op whose content is planted."""
    rng = random.Random(seed)
    ops: list[tuple[int, int | None]] = []
    for _ in range(n):
        if ops and rng.random() < 0.6:
            fp, page = rng.choice(ops)
            fp = flip(fp, bits, rng.randint(0, k + 1), rng)
        else:
            fp, page = rng.getrandbits(bits), None
        r = rng.random()
        if r < 0.15:
            page = None
        elif page is None or r < 0.35:
            page = rng.getrandbits(64)
        else:
            page = flip(page, 64, rng.randint(0, page_k + 2), rng)
        ops.append((fp, page))
    return ops


class Outcome(NamedTuple):
    dropped: int
    kept_on_page: int  # kept although a stored fingerprint was within the distance


def check_against_brute_force(store: FingerprintStore, ops: Sequence[Op], k: int,
                              page_k: int | None = None) -> Outcome:
    """Run ``ops`` through ``check_and_add`` (and ``lookup``) and compare every answer with a
    scan of everything kept so far: same keep/drop, same distances, and the match is the
    earliest kept entry at the least distance among those whose pages agree (within
    ``page_k``, or either has none; None: pages ignored)."""
    kept: list[tuple[int, int | None, str]] = []
    dropped = kept_on_page = 0
    for i, op in enumerate(ops):
        fp, page = fp_page(op)
        url = f"http://example.test/{i}"
        expected, content_near = _expected(kept, fp, page, k, page_k)
        looked = store.lookup(fp, page)
        match = store.check_and_add(fp, url, page)
        for got in (looked, match):
            _same(got, expected, i, fp)
        if match is None:
            kept.append((fp, None if page_k is None else page, url))
            kept_on_page += content_near
        else:
            dropped += 1
    assert len(store) == len(kept)
    return Outcome(dropped, kept_on_page)


def check_many_against_brute_force(store: FingerprintStore, ops: Sequence[Op], k: int, page_k: int | None = None,
                                   seed: int = 0, most: int = 24, midway: Callable[[], None] | None = None) -> int:
    """``ops`` through ``check_many`` in batches of 1 to ``most``: every answer as the brute-force
    scan gives it for the ops checked one after another (a batch's own earlier ops included);
    how many were dropped by an earlier op of their own batch. ``midway`` is called once, after
    the batch that passes the middle of ``ops``."""
    rng = random.Random(seed)
    kept: list[tuple[int, int | None, str]] = []
    i = by_batch = 0
    while i < len(ops):
        if midway is not None and i >= len(ops) // 2:
            midway, called = None, midway
            called()
        batch = ops[i : i + rng.randint(1, most)]
        queries, wanted = [], []
        for j, op in enumerate(batch, i):
            fp, page = fp_page(op)
            url = f"http://example.test/{j}"
            expected = _expected(kept, fp, page, k, page_k)[0]
            wanted.append(expected)
            queries.append(Query(fp, url, page))
            if expected is None:
                kept.append((fp, None if page_k is None else page, url))
            elif int(expected[1].rsplit("/", 1)[1]) >= i:
                by_batch += 1
        for j, (got, expected, query) in enumerate(zip(store.check_many(queries), wanted, queries), i):
            _same(got, expected, j, query.fingerprint)
        i += len(batch)
    assert len(store) == len(kept)
    return by_batch


def _expected(kept: list[tuple[int, int | None, str]], fp: int, page: int | None, k: int,
              page_k: int | None) -> tuple[tuple | None, bool]:
    """The brute force's answer for a check after ``kept``: (fingerprint, url, distance, page
    distance) of the earliest at the least distance, then the least page distance (none: -1), or
    None; and whether any content was near."""
    expected, content_near = None, False
    for s, p, u in kept:
        d = (fp ^ s).bit_count()
        pd = None if page is None or p is None or page_k is None else (page ^ p).bit_count()
        content_near |= d <= k
        if d <= k and (pd is None or pd <= page_k) and (expected is None or _order(d, pd) < _order(*expected[2:])):
            expected = (s, u, d, pd)
    return expected, content_near


def _order(distance: int, page_distance: int | None) -> tuple[int, int]:
    """How two matches compare: the closer content, then the closer page (none first)."""
    return distance, -1 if page_distance is None else page_distance


def _same(got, expected: tuple | None, i: int, fp: int) -> None:
    if expected is None:
        assert got is None, (i, hex(fp), got)
    else:
        assert got is not None, (i, hex(fp), expected)
        assert (got.fingerprint, got.url, got.distance, got.page_distance) == expected, (i, got, expected)


def fake_clock(monkeypatch, start: float = 1_700_000_000.0) -> list[float]:
    """``time.time()`` reads ``clock[0]`` from now on (every store takes its times from it)."""
    clock = [start]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    return clock


def check_expiry_against_brute_force(store: FingerprintStore, ops: Sequence[Op], k: int, page_k: int | None,
                                     expire: float, clock: list[float]) -> int:
    """``check_against_brute_force`` with the expiry rule, one second passing per op: a kept
    entry older than ``expire`` no longer matches (the page is stored again, with a new time),
    and the store removes expired entries as it goes (bounded: some may stay until ``prune``).
    Returns how many matches expiry turned into keeps."""
    kept: list[tuple[int, int | None, str, float]] = []
    revived = 0
    for i, op in enumerate(ops):
        clock[0] += 1.0
        fp, page = fp_page(op)
        url = f"http://example.test/{i}"
        expected, any_match = None, False
        for s, p, u, seen in kept:
            d = (fp ^ s).bit_count()
            pd = None if page is None or p is None or page_k is None else (page ^ p).bit_count()
            if d <= k and (pd is None or pd <= page_k):
                any_match = True
                if seen >= clock[0] - expire and (expected is None or _order(d, pd) < _order(*expected[2:])):
                    expected = (s, u, d, pd)
        for got in (store.lookup(fp, page), store.check_and_add(fp, url, page)):
            if expected is None:
                assert got is None, (i, hex(fp), got)
            else:
                assert got is not None, (i, hex(fp), expected)
                assert (got.fingerprint, got.url, got.distance, got.page_distance) == expected, (i, got, expected)
        if expected is None:
            kept.append((fp, None if page_k is None else page, url, clock[0]))
            revived += any_match
    live = [e for e in kept if e[3] >= clock[0] - expire]
    assert len(live) <= len(store) < len(kept)  # some expired entries went as the store was used
    store.prune(clock[0] - expire)
    assert len(store) == len(live) and sorted(e.url for e in store.entries()) == sorted(e[2] for e in live)
    return revived


def check_page_rules(store: FingerprintStore) -> None:
    """The page fingerprint rules, on an empty store of 64 bits, distance 3, page distance 4."""
    a, pa = 0x0123_4567_89AB_CDEF, 0xFFFF_0000_FFFF_0000
    far = pa ^ 0xFFFF_FFFF  # 32 from pa
    assert store.check_and_add(a, "http://a", pa) is None
    # near on content, far on page: no match, and the new page is stored
    assert store.lookup(a ^ 1, far) is None
    assert store.check_and_add(a ^ 1, "http://b", far) is None
    # near on both: the closest whose page agrees
    m = store.check_and_add(a ^ 0b110, "http://c", pa ^ 0b1111)
    assert (m.url, m.fingerprint, m.distance, m.page_distance) == ("http://a", a, 2, 4)
    # a smaller page distance for one page (Scheme.page_limit) applies; a larger one does not
    assert store.lookup(a ^ 0b110, pa ^ 0b1111, page_distance=3) is None
    assert store.lookup(a, pa ^ 0b11111, page_distance=9) is None
    m = store.lookup(a ^ 0b110, pa ^ 0b1111, page_distance=4)
    assert (m.url, m.distance, m.page_distance) == ("http://a", 2, 4)
    # the closer one's page disagrees: the farther one whose page agrees, either way round
    m = store.lookup(a ^ 1, pa ^ 1)
    assert (m.url, m.fingerprint, m.distance, m.page_distance) == ("http://a", a, 1, 1)
    m = store.lookup(a, far ^ 1)
    assert (m.url, m.fingerprint, m.distance, m.page_distance) == ("http://b", a ^ 1, 1, 1)
    # one past the page distance
    assert store.lookup(a, pa ^ 0b11111) is None
    # the same content fingerprint again, with a page far from both
    other = pa ^ 0xFFFF_FFFF_0000_0000
    assert store.check_and_add(a, "http://f", other) is None
    m = store.lookup(a, other ^ 0b11)
    assert (m.url, m.fingerprint, m.distance, m.page_distance) == ("http://f", a, 0, 2)
    # no page in the query: content only; of the two at distance 0, the one stored first
    m = store.lookup(a)
    assert (m.url, m.fingerprint, m.distance, m.page_distance) == ("http://a", a, 0, None)
    # an entry without a page cannot disagree
    b = 0xFEDC_BA98_7654_3210
    assert store.check_and_add(b, "http://d") is None
    m = store.check_and_add(b ^ 0b101, "http://e", 0x1234_5678_9ABC_DEF0)
    assert (m.url, m.fingerprint, m.distance, m.page_distance) == ("http://d", b, 2, None)
    assert len(store) == 4
    # a page near a stored one, but not within its own smaller page distance, is stored
    assert store.check_and_add(a ^ 0b110, "http://g", pa ^ 0b1111, page_distance=3) is None
    assert len(store) == 5 and store.lookup(a ^ 0b110, pa ^ 0b1111).url == "http://g"
    # of two at the same content distance, the one whose page is closer, though stored later (a
    # thread's opening post on each page: its mirror's page 3 is reported as page 3's copy)
    c, pc = 0x0F0F_0F0F_0F0F_0F0F, 0x1111_2222_3333_4444
    assert store.check_and_add(c, "http://h", pc ^ 0b1110) is None
    assert store.check_and_add(c, "http://i", pc ^ 0b1, page_distance=2) is None  # 4 from h's: stored
    m = store.lookup(c ^ 1, pc)
    assert (m.url, m.distance, m.page_distance) == ("http://i", 1, 1)
    assert store.check_and_add(c ^ 1, "http://j", pc ^ 0b1000).url == "http://h"  # 2 from h's, 2 from i's: first


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


def with_far_pages(groups: list[list[int]], n: int, page_k: int, seed: int) -> list[list[Op]]:
    """Each group ``n`` times, every copy with its own page fingerprint, all pairwise more
    than ``page_k`` apart (checked): each copy is kept once of its own."""
    rng = random.Random(seed)
    out: list[list[Op]] = []
    for group in groups:
        pages: list[int] = []
        while len(pages) < n:
            page = rng.getrandbits(64)
            if all((page ^ p).bit_count() > page_k for p in pages):
                pages.append(page)
        out += [[(fp, page) for fp in group] for page in pages]
    return out


def race_worker(url: str, bits: int, k: int, ops: list[Op], tag: str, options: dict,
                start: Callable[[], object] | None = None, batch: int = 0) -> list[tuple[Op, bool]]:
    """Open the store, (wait at ``start``), check-and-add ``ops`` (``batch`` > 0: by
    ``check_many``, that many at a time): [(op, kept)]."""
    store = open_store(url, identity(bits), bits, k, **options)
    try:
        if start is not None:
            start()
        queries = [Query(fp, f"http://{tag}.test/{i}", page) for i, (fp, page) in enumerate(map(fp_page, ops))]
        if not batch:
            return [(op, store.check_and_add(*q[:4]) is None) for op, q in zip(ops, queries)]
        results = []
        for lo in range(0, len(ops), batch):
            matches = store.check_many(queries[lo : lo + batch])
            results += [(op, match is None) for op, match in zip(ops[lo : lo + batch], matches)]
        return results
    finally:
        store.close()


def process_race_main(url: str, bits: int, k: int, fps: list[Op], tag: str, options: dict,
                      barrier, queue, batch: int = 0) -> None:
    """A racing process: results go to ``queue`` as (tag, [(fingerprint, kept)])."""
    try:
        queue.put((tag, race_worker(url, bits, k, fps, tag, options, barrier.wait, batch)))
    except BaseException as exc:  # the parent must hear of it, not wait forever
        queue.put((tag, repr(exc)))


def race_processes(url: str, bits: int, k: int, lists: list[list[Op]], options: dict | None = None,
                   timeout: float = 60, batch: int = 0) -> list[list[tuple[Op, bool]]]:
    """Run one process per list in ``lists``, all starting at once (spawn, barrier); ``batch``:
    as ``race_worker``."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(len(lists)), ctx.Queue()
    procs = [
        ctx.Process(target=process_race_main, args=(url, bits, k, fps, f"p{i}", options or {}, barrier, queue, batch))
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


def assert_one_kept_per_group(groups: list[list[Op]], results: list[list[tuple[Op, bool]]]) -> None:
    kept = [fp for result in results for fp, was_kept in result if was_kept]
    group_of = {fp: g for g, group in enumerate(groups) for fp in group}
    per_group = [0] * len(groups)
    for fp in kept:
        per_group[group_of[fp]] += 1
    assert per_group == [1] * len(groups), per_group
