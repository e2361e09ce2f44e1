"""Block plan (store layout) and in-memory Hamming index, checked against brute force."""

from __future__ import annotations

import random
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contentseen.errors import ContentSeenError
from contentseen.blocks import BlockPlan
from contentseen.simhash import from_int, to_int


def words_of(values: list[int], bits: int) -> np.ndarray:
    return np.array([from_int(v, bits) for v in values], dtype=np.uint64).reshape(len(values), -1)


def flip(value: int, bits: int, positions) -> int:
    for p in positions:
        value ^= 1 << int(p)
    return value


# ---------------------------------------------------------------- BlockPlan


def test_plan_64_3_is_four_16_bit_blocks():
    plan = BlockPlan(64, 3)
    assert (plan.bits, plan.k, plan.n_tables) == (64, 3, 4)
    assert plan.description == "blocks-v1:64/3:16,16,16,16"
    fp = 0x1234_5678_9ABC_DEF0
    assert plan.query_keys(from_int(fp, 64)).tolist() == [0x1234, 0x5678, 0x9ABC, 0xDEF0]
    assert plan.query_keys(fp).tolist() == [0x1234, 0x5678, 0x9ABC, 0xDEF0]
    assert plan.keys(np.array([fp], dtype=np.uint64)).dtype == np.int64


def test_plan_descriptions_are_stable():
    assert BlockPlan(128, 3).description == "blocks-v1:128/3:32,32,32,32"
    assert BlockPlan(7, 2).description == "blocks-v1:7/2:3,2,2"
    assert BlockPlan(100, 4).description == "blocks-v1:100/4:20,20,20,20,20"
    assert BlockPlan(5, 5).description == "blocks-v1:5/5:0"  # every pair is within k
    assert BlockPlan(5, 8).n_tables == 1
    assert BlockPlan(128, 0).description == "blocks-v1:128/0:128"
    assert BlockPlan(64, 3) == BlockPlan(64, 3) != BlockPlan(64, 2)


@pytest.mark.parametrize("bits,k", [(0, 3), (129, 3), (64, -1), (64, 9), (64.0, 3), (True, 1), (64, "3")])
def test_plan_rejects_bad_parameters(bits, k):
    with pytest.raises(ContentSeenError):
        BlockPlan(bits, k)
    with pytest.raises(ValueError):
        BlockPlan(bits, k)


def test_plan_keys_match_query_keys_and_range():
    rng = random.Random(1)
    for bits in (1, 7, 16, 33, 62, 63, 64, 65, 100, 124, 125, 128):
        for k in range(0, 9):
            plan = BlockPlan(bits, k)
            vals = [rng.getrandbits(bits) for _ in range(20)] + [0, (1 << bits) - 1]
            fps = words_of(vals, bits)
            keys = plan.keys(fps)
            assert keys.shape == (len(vals), plan.n_tables) and keys.dtype == np.int64
            assert (keys >= 0).all() and (keys < 2**62).all()
            for row, v in zip(keys, vals):
                assert plan.query_keys(from_int(v, bits)).tolist() == row.tolist()
                assert plan.query_keys(v).tolist() == row.tolist()


def test_plan_blocks_are_the_bit_string_in_order():
    """Concatenating the (unhashed) blocks gives back the fingerprint."""
    rng = random.Random(2)
    for bits, k in [(64, 3), (7, 2), (100, 3), (128, 2), (33, 4)]:
        plan = BlockPlan(bits, k)
        for _ in range(20):
            v = rng.getrandbits(bits)
            keys = plan.query_keys(v).tolist()
            back = 0
            for key, width in zip(keys, plan.widths):
                back = (back << width) | key
            assert back == v


def test_plans_of_more_blocks():
    plan = BlockPlan(64, 3, blocks=5)
    assert plan.description == "blocks-v2:64/3:13,13,13,13,12:choose-2"
    assert plan.n_tables == 10 and plan.tables[0] == (0, 1) and plan.tables[-1] == (3, 4)
    assert plan.table_widths == (26, 26, 26, 25) + (26, 26, 25) + (26, 25) + (25,)
    fp = 0x1234_5678_9ABC_DEF0
    blocks = [(fp >> lo) & ((1 << w) - 1) for lo, w in zip(plan.los, plan.widths)]
    want = [(blocks[a] << plan.widths[b]) | blocks[b] for a, b in plan.tables]
    assert plan.int_keys(fp) == want == plan.query_keys(fp).tolist()
    six = BlockPlan(64, 3, blocks=6)
    assert six.description == "blocks-v2:64/3:11,11,11,11,10,10:choose-3" and six.n_tables == 20
    assert BlockPlan(64, 3, blocks=4) == BlockPlan(64, 3)  # k+1 blocks: the plan of blocks-v1
    assert BlockPlan(128, 0, blocks=3).description == "blocks-v1:128/0:128"  # k = 0: one table anyway


@pytest.mark.parametrize("bits,k,blocks", [(64, 3, 3), (64, 3, 65), (10, 2, 11), (64, 8, 16), (64, 3, 2.0), (5, 5, 2)])
def test_plan_rejects_bad_blocks(bits, k, blocks):
    with pytest.raises(ContentSeenError):
        BlockPlan(bits, k, blocks)


def test_plan_for_follows_the_expected_size():
    from contentseen.blocks import plan_for

    want = [(1_000_000, 4), (3_000_000, 10), (100_000_000, 10), (2_000_000_000, 20), (10**10, 20)]
    assert [(n, plan_for(64, 3, n).n_tables) for n, _ in want] == want
    assert plan_for(64, 3, 100_000_000).candidates(100_000_000) < 25  # at most 100 wanted
    assert plan_for(64, 3, 10**10).candidates(10**10) < 60
    assert plan_for(128, 3).description == "blocks-v1:128/3:32,32,32,32"  # wide blocks already
    assert plan_for(5, 5).n_tables == 1
    for bad in (0, -5, 1.5, "1M", True):
        with pytest.raises(ContentSeenError):
            plan_for(64, 3, bad)


@pytest.mark.parametrize("bits,k,blocks", [(64, 3, 5), (64, 3, 6), (128, 1, 4), (128, 3, 6), (100, 4, 7), (30, 2, 5)])
def test_wide_plan_keys_match_query_keys(bits, k, blocks):
    """Tables of several blocks, some wider than 62 bits (hashed): numpy and int paths agree."""
    rng = random.Random(bits + blocks)
    plan = BlockPlan(bits, k, blocks)
    vals = [rng.getrandbits(bits) for _ in range(30)] + [0, (1 << bits) - 1]
    keys = plan.keys(words_of(vals, bits))
    assert keys.shape == (len(vals), plan.n_tables) and (keys >= 0).all() and (keys < 2**62).all()
    for row, v in zip(keys.tolist(), vals):
        assert plan.int_keys(v) == row == plan.query_keys(from_int(v, bits)).tolist()


@settings(max_examples=300, deadline=None)
@given(
    bits=st.integers(1, 128),
    k=st.integers(0, 8),
    extra=st.integers(0, 3),
    data=st.data(),
)
def test_plan_guarantee_pairs_within_k_share_a_key(bits, k, extra, data):
    try:
        plan = BlockPlan(bits, k, None if k >= bits else min(bits, k + 1 + extra))
    except ContentSeenError:  # too many tables
        return
    a = data.draw(st.integers(0, (1 << bits) - 1))
    d = data.draw(st.integers(0, min(k, bits)))
    positions = data.draw(st.lists(st.integers(0, bits - 1), min_size=d, max_size=d, unique=True))
    b = flip(a, bits, positions)
    ka, kb = plan.keys(words_of([a, b], bits))
    assert (ka == kb).any()
    assert to_int(from_int(b, bits)) == b


# ---------------------------------------------------------------- HammingIndex vs brute force

from contentseen.index import HammingIndex  # noqa: E402


def rand_values(rng: random.Random, n: int, bits: int) -> list[int]:
    return [rng.getrandbits(bits) for _ in range(n)]


def near(rng: random.Random, value: int, bits: int, d: int) -> int:
    """A fingerprint at exactly distance d from ``value``."""
    return flip(value, bits, rng.sample(range(bits), d))


class Reference:
    """The obvious model: a list of (fingerprint, id), answered by numpy XOR + popcount."""

    def __init__(self, bits: int, k: int):
        self.bits, self.k = bits, k
        self.vals: list[int] = []
        self.ids: list[int] = []
        self._words = None

    def add(self, vals, ids):
        self.vals += list(vals)
        self.ids += list(ids)
        self._words = None

    def remove(self, ids):
        gone = set(ids)
        keep = [i for i, x in enumerate(self.ids) if x not in gone]
        removed = len(self.ids) - len(keep)
        self.vals = [self.vals[i] for i in keep]
        self.ids = [self.ids[i] for i in keep]
        self._words = None
        return removed

    def query(self, q: int):
        if not self.vals:
            return [], []
        if self._words is None:
            self._words = words_of(self.vals, self.bits)
        dist = np.bitwise_count(self._words ^ from_int(q, self.bits)).sum(axis=1)
        ids = np.array(self.ids, dtype=np.int64)
        sel = np.flatnonzero(dist <= self.k)
        pairs = sorted(zip(dist[sel].tolist(), ids[sel].tolist()))
        return [p[1] for p in pairs], [p[0] for p in pairs]


def assert_same(index: HammingIndex, ref: Reference, queries: list[int]):
    assert len(index) == len(ref.ids)
    got_many = index.query_many(words_of(queries, index.bits)) if queries else []
    for q, many in zip(queries, got_many):
        want_ids, want_d = ref.query(q)
        ids, dist = index.query(q)
        assert ids.dtype == np.int64 and dist.dtype == np.int64
        assert (ids.tolist(), dist.tolist()) == (want_ids, want_d), f"query {q:#x}"
        assert (many[0].tolist(), many[1].tolist()) == (want_ids, want_d), f"query_many {q:#x}"
        assert index.query(from_int(q, index.bits))[0].tolist() == want_ids
        assert index.nearest(q) == ((want_ids[0], want_d[0]) if want_ids else None)
        assert (q in index) == bool(want_ids)


def planted_queries(rng, base: list[int], bits: int, k: int, n: int) -> list[int]:
    """Queries near stored fingerprints at every distance 0..k+1 (k+1: the decoys)."""
    out = []
    for _ in range(n):
        d = rng.randint(0, min(k + 1, bits))
        out.append(near(rng, rng.choice(base), bits, d))
    return out


BITS_K = [(bits, k) for bits in (16, 32, 64, 128) for k in range(5)] + [
    (1, 0), (1, 1), (7, 0), (7, 1), (7, 2), (7, 3), (100, 2), (100, 4), (64, 8), (128, 8), (20, 8)]


PLANS = [(64, 3, 5), (64, 3, 6), (128, 3, 6), (100, 4, 6), (30, 2, 5), (64, 1, 4)]


@pytest.mark.parametrize("bits,k,blocks", [(bits, k, None) for bits, k in BITS_K] + PLANS)
def test_index_equals_brute_force_random_and_planted(bits, k, blocks):
    rng = random.Random(bits * 31 + k)
    n = 3000
    vals = rand_values(rng, n, bits)
    ids = list(range(5, 5 + n))
    plan = None if blocks is None else BlockPlan(bits, k, blocks)
    index, ref = HammingIndex(bits, k, plan=plan), Reference(bits, k)
    index.add(words_of(vals[:2500], bits), np.array(ids[:2500]))  # one segment
    ref.add(vals[:2500], ids[:2500])
    for v, i in zip(vals[2500:], ids[2500:]):  # the append buffer
        index.add_one(v, i)
        ref.add([v], [i])
    queries = planted_queries(rng, vals, bits, k, 40) + rand_values(rng, 10, bits)
    assert_same(index, ref, queries)


@pytest.mark.parametrize("bits,k", [(64, 3), (128, 4), (32, 2), (7, 1), (100, 0)])
def test_all_equal_fingerprints(bits, k):
    rng = random.Random(7)
    v = rng.getrandbits(bits)
    index, ref = HammingIndex(bits, k, buffer=100), Reference(bits, k)
    index.add(words_of([v] * 1500, bits), np.arange(1500)[::-1])
    ref.add([v] * 1500, list(range(1500))[::-1])
    for i in range(250):
        index.add_one(v, 10_000 + i)
        ref.add([v], [10_000 + i])
    assert_same(index, ref, [v, near(rng, v, bits, min(k, bits)), near(rng, v, bits, min(k + 1, bits))])
    ids, dist = index.query(v)
    assert len(ids) == 1750 and not dist.any() and ids.tolist() == sorted(ids.tolist())


@pytest.mark.parametrize("bits,k", [(64, 3), (64, 4), (128, 3), (32, 3), (16, 2)])
def test_dense_clusters(bits, k):
    """Many fingerprints within distance 1..4 of a few centres: buckets are heavily skewed."""
    rng = random.Random(bits + k)
    centres = rand_values(rng, 5, bits)
    vals = [near(rng, rng.choice(centres), bits, rng.randint(0, 4)) for _ in range(3000)]
    ids = [rng.randrange(-(2**63), 2**63) for _ in vals]
    index, ref = HammingIndex(bits, k, buffer=64), Reference(bits, k)
    index.add(words_of(vals[:1000], bits), np.array(ids[:1000]))
    ref.add(vals[:1000], ids[:1000])
    for v, i in zip(vals[1000:], ids[1000:]):
        index.add_one(v, i)
        ref.add([v], [i])
    queries = centres + [near(rng, c, bits, d) for c in centres for d in range(0, 6)]
    assert_same(index, ref, queries)


@pytest.mark.parametrize("bits,k", [(64, 3), (128, 2), (16, 4), (7, 3), (100, 3)])
def test_planted_exact_distances_and_decoys(bits, k):
    rng = random.Random(99)
    background = rand_values(rng, 4000, bits)
    q = rng.getrandbits(bits)
    planted = [near(rng, q, bits, d) for d in range(0, min(k, bits) + 1)]
    decoys = [near(rng, q, bits, k + 1) for _ in range(10)] if k + 1 <= bits else []
    vals = background + planted + decoys
    ids = list(range(len(vals)))
    index, ref = HammingIndex(bits, k), Reference(bits, k)
    index.add(words_of(vals, bits), np.array(ids))
    ref.add(vals, ids)
    assert_same(index, ref, [q])
    got_ids, got_d = index.query(q)
    for d, v in enumerate(planted):
        assert 4000 + d in got_ids.tolist()
        assert got_d[got_ids.tolist().index(4000 + d)] == d
    assert not set(got_ids.tolist()) & set(range(4000 + len(planted), len(vals)))


@pytest.mark.parametrize("bits,k", [(64, 3), (128, 3), (32, 1), (7, 2), (64, 0)])
def test_interleaved_add_remove_query(bits, k):
    """Many small segments (tiny buffer), merges, tombstones, compaction, re-used ids."""
    rng = random.Random(bits * 7 + k)
    index, ref = HammingIndex(bits, k, buffer=16), Reference(bits, k)
    pool = rand_values(rng, 300, bits)
    next_id = 0
    for step in range(60):
        n = rng.choice([1, 3, 20, 120])
        vals = [near(rng, rng.choice(pool), bits, rng.randint(0, k + 1)) if rng.random() < 0.7
                else rng.getrandbits(bits) for _ in range(n)]
        ids = [next_id + i if rng.random() < 0.9 else rng.randrange(max(1, next_id)) for i in range(n)]
        next_id += n
        if n == 1 or rng.random() < 0.3:
            for v, i in zip(vals, ids):
                index.add_one(v, i)
        else:
            index.add(words_of(vals, bits), np.array(ids, dtype=np.int64))
        ref.add(vals, ids)
        if step % 3 == 2 and ref.ids:
            gone = rng.sample(ref.ids, min(len(ref.ids), rng.choice([1, 5, 40, 200])))
            gone.append(-12345)  # not present
            assert index.remove(gone) == ref.remove(gone)
        if step % 5 == 4:
            assert_same(index, ref, planted_queries(rng, pool, bits, k, 8))
    assert len(index._segments) >= 1
    fps, ids = index.items()
    assert sorted(zip(ids.tolist(), [to_int(w) for w in fps])) == sorted(zip(ref.ids, ref.vals))
    assert index.remove(list(ref.ids)) == len(ref.ids)
    assert len(index) == 0 and index.query(pool[0])[0].size == 0 and index.nearest(pool[0]) is None


def test_segments_stay_few_and_geometric():
    rng = np.random.default_rng(3)
    index = HammingIndex(64, 3, buffer=32)
    fps = rng.integers(0, 2**64, size=40_000, dtype=np.uint64)
    for i, v in enumerate(fps.tolist()):
        index.add_one(v, i)
    sizes = [s.size for s in index._segments]
    assert sum(sizes) + index._nbuf == len(index) == 40_000
    assert all(a > 8 * b for a, b in zip(sizes, sizes[1:])), sizes
    assert len(sizes) <= 5
    ids, dist = index.query(int(fps[1234]))
    assert ids.tolist() == [1234] and dist.tolist() == [0]


def test_query_forms_and_errors():
    index = HammingIndex(64, 3)
    assert len(index) == 0 and index.query(5)[0].size == 0 and index.nearest(5) is None
    index.add(np.array([1, 2, 3], dtype=np.uint64), np.array([10, 20, 30]))
    index.add(np.array([[7]], dtype=np.uint64), [40])
    assert index.query(np.uint64(3))[0].tolist() == [30, 10, 20, 40]
    assert index.query(np.array([3], dtype=np.uint64))[1].tolist() == [0, 1, 1, 1]
    assert [r[0].tolist() for r in index.query_many([1, 0xFFFF << 40])] == [[10, 30, 20, 40], []]
    assert index.nearest(2) == (20, 0)
    for bad in (-1, 2**64, "x", 1.5, np.array([1, 2], dtype=np.uint64)):
        with pytest.raises(ContentSeenError):
            index.query(bad)
    with pytest.raises(ContentSeenError):
        index.add(np.array([1, 2], dtype=np.uint64), np.array([1]))
    with pytest.raises(ContentSeenError):
        index.add(np.zeros((2, 2), dtype=np.uint64), np.array([1, 2]))
    with pytest.raises(ContentSeenError):
        HammingIndex(16, 3).add(np.array([1 << 16], dtype=np.uint64), [1])
    with pytest.raises(ContentSeenError):
        index.add(np.array([1], dtype=np.uint64), np.array([2**63], dtype=np.uint64))
    for bad_id in ("7", 2**63, 1.0):
        with pytest.raises(ContentSeenError):
            index.add_one(1, bad_id)
    assert len(index) == 4
    with pytest.raises(ContentSeenError):
        HammingIndex(129, 3)
    with pytest.raises(ContentSeenError):
        HammingIndex(64, 9)
    with pytest.raises(ContentSeenError):
        HammingIndex(64, 3, buffer=0)
    wide = HammingIndex(100, 3)
    with pytest.raises(ContentSeenError):
        wide.add(np.array([[1 << 36, 0]], dtype=np.uint64), [1])
    wide.add_one((1 << 99) | 5, 1)
    assert wide.nearest(from_int((1 << 99) | 4, 100)) == (1, 1)


@pytest.mark.parametrize("bits,k,blocks", PLANS)
def test_interleaved_with_plans(bits, k, blocks):
    rng = random.Random(blocks)
    index, ref = HammingIndex(bits, k, buffer=16, plan=BlockPlan(bits, k, blocks)), Reference(bits, k)
    pool = rand_values(rng, 200, bits)
    for step in range(20):
        vals = [near(rng, rng.choice(pool), bits, rng.randint(0, k + 1)) for _ in range(rng.choice([1, 30, 150]))]
        ids = list(range(step * 1000, step * 1000 + len(vals)))
        index.add(words_of(vals, bits), np.array(ids))
        ref.add(vals, ids)
        if step % 4 == 3:
            gone = rng.sample(ref.ids, 20)
            assert index.remove(gone) == ref.remove(gone)
            assert_same(index, ref, planted_queries(rng, pool, bits, k, 8))


def test_index_refuses_a_plan_of_other_bits():
    with pytest.raises(ContentSeenError):
        HammingIndex(64, 3, plan=BlockPlan(64, 2, 4))


def test_memory_per_fingerprint_at_one_million():
    rng = np.random.default_rng(5)
    n = 1_000_000
    index = HammingIndex(64, 3)
    index.add(rng.integers(0, 2**64, size=n, dtype=np.uint64), np.arange(n))
    assert index.nbytes / n <= 40


@settings(max_examples=60, deadline=None)
@given(
    bits=st.sampled_from([1, 5, 16, 64, 65, 128]),
    k=st.integers(0, 8),
    data=st.data(),
)
def test_index_property_small_sets(bits, k, data):
    base = data.draw(st.lists(st.integers(0, (1 << bits) - 1), min_size=1, max_size=6))
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    vals = [near(rng, rng.choice(base), bits, rng.randint(0, min(bits, k + 1))) for _ in range(60)]
    index, ref = HammingIndex(bits, k, buffer=8), Reference(bits, k)
    index.add(words_of(vals[:30], bits), np.arange(30))
    for i, v in enumerate(vals[30:], start=30):
        index.add_one(v, i)
    ref.add(vals, range(60))
    assert_same(index, ref, base + [near(rng, b, bits, min(bits, k)) for b in base])
