"""Block plan (store layout) and in-memory Hamming index, checked against brute force."""

from __future__ import annotations

import random
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contentseen.errors import ContentSeenError
from contentseen.index import BlockPlan
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


@settings(max_examples=300, deadline=None)
@given(
    bits=st.integers(1, 128),
    k=st.integers(0, 8),
    data=st.data(),
)
def test_plan_guarantee_pairs_within_k_share_a_key(bits, k, data):
    plan = BlockPlan(bits, k)
    a = data.draw(st.integers(0, (1 << bits) - 1))
    d = data.draw(st.integers(0, min(k, bits)))
    positions = data.draw(st.lists(st.integers(0, bits - 1), min_size=d, max_size=d, unique=True))
    b = flip(a, bits, positions)
    ka, kb = plan.keys(words_of([a, b], bits))
    assert (ka == kb).any()
    assert to_int(from_int(b, bits)) == b
