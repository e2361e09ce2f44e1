"""The store's thread batches the checks that wait for it (``StoreWorker.check``): one
``check_many`` for the pages queued while it was busy, answered as one check after another; a
failed batch fails each of its pages and counts once towards the circuit breaker."""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from redis_server import own_redis  # noqa: F401  (fixture)
from store_helpers import IDENTITY, flip

from contentseen.stores import Query, StoreError, open_store
from contentseen.stores.worker import DEFAULT_BATCH, StoreWorker


def queries(n: int, seed: int) -> list[Query]:
    """New pages and near copies of earlier ones (content within 3, pages within 2)."""
    rng = random.Random(seed)
    out: list[Query] = []
    for i in range(n):
        if out and rng.random() < 0.4:
            earlier = rng.choice(out)
            fp, page = earlier.fingerprint, earlier.page
            fp, page = flip(fp, 64, rng.randint(0, 3), rng), flip(page, 64, rng.randint(0, 2), rng)
        else:
            fp, page = rng.getrandbits(64), rng.getrandbits(64)
        out.append(Query(fp, f"http://example.test/{i}", page))
    return out


async def checked_while_busy(worker: StoreWorker, batch: list[Query], first=None) -> list:
    """``batch`` checked at once while the store's thread is held busy: the answers (or errors)."""
    worker.submit(time.sleep, 0.3)
    return await asyncio.gather(*(worker.check(q, first and (lambda q=q: first(q))) for q in batch),
                                return_exceptions=True)


def test_checks_queued_while_the_store_is_busy_go_in_one_batch():
    batch = queries(DEFAULT_BATCH, seed=1)
    ran: list[str] = []
    worker = StoreWorker(lambda: open_store("memory://", IDENTITY, 64, 3, page_distance=4))
    try:
        got = asyncio.run(checked_while_busy(worker, batch, lambda q: ran.append(q.url)))
    finally:
        worker.close()
    assert worker.batches == 1 and worker.batched == len(batch)
    assert ran == [q.url for q in batch]  # each page's first step, in order, before the batch
    one_by_one = open_store("memory://", IDENTITY, 64, 3, page_distance=4)
    expected = [one_by_one.check_and_add(*q[:4]) for q in batch]
    assert got == expected and sum(m is not None for m in got) >= 5


def test_more_checks_than_a_batch_are_sent_in_several():
    batch = queries(2 * DEFAULT_BATCH + 5, seed=2)
    worker = StoreWorker(lambda: open_store("memory://", IDENTITY, 64, 3, page_distance=4))
    try:
        got = asyncio.run(checked_while_busy(worker, batch))
    finally:
        worker.close()
    assert worker.batches == 3 and worker.batched == len(batch)
    one_by_one = open_store("memory://", IDENTITY, 64, 3, page_distance=4)
    assert got == [one_by_one.check_and_add(*q[:4]) for q in batch]


def test_a_failed_batch_fails_each_page_and_counts_once(own_redis):  # noqa: F811
    worker = StoreWorker(lambda: open_store(own_redis.url, IDENTITY, 64, 3, page_distance=4))
    try:
        batch = queries(10, seed=3)
        assert all(m is None for m in asyncio.run(checked_while_busy(worker, batch[:1])))
        own_redis.kill()
        got = asyncio.run(checked_while_busy(worker, batch[1:]))
        assert len(got) == 9 and all(isinstance(e, StoreError) for e in got), got
        assert not worker.circuit_open  # one failed call of the store, not nine
    finally:
        worker.close()


@pytest.mark.parametrize("n", [1, 3])
def test_a_lone_check_is_sent_at_once(n):
    """Nothing waits for a batch to fill: a check with nothing queued beside it goes alone."""
    worker = StoreWorker(lambda: open_store("memory://", IDENTITY, 64, 3))

    async def one_at_a_time() -> list:
        return [await worker.check(q) for q in queries(n, seed=4)]

    try:
        started = time.perf_counter()
        asyncio.run(one_at_a_time())
        assert time.perf_counter() - started < 1.0
    finally:
        worker.close()
    assert worker.batches == n and worker.batched == n


def test_batch_of_one_asks_the_store_page_by_page():
    """``CONTENTSEEN_STORE_BATCH = 1``: each page checked alone, as before batching."""
    batch = queries(5, seed=5)
    worker = StoreWorker(lambda: open_store("memory://", IDENTITY, 64, 3), batch=1)
    try:
        asyncio.run(checked_while_busy(worker, batch))
    finally:
        worker.close()
    assert worker.batches == 5 and worker.batched == 5
