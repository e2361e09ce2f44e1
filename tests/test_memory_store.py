"""MemoryStore (``memory://``) and the store registry: the same brute-force semantics as the
persistent stores, backends chosen by URL scheme or by ``CONTENTSEEN_STORES``, options checked."""

from __future__ import annotations

import threading

import pytest
from store_helpers import (
    IDENTITY, check_against_brute_force, check_expiry_against_brute_force, check_many_against_brute_force,
    check_page_rules, fake_clock, planted_page_workload, planted_workload,
)
from scrapy.settings import Settings

from contentseen.errors import ContentSeenError
from contentseen.stores import open_store, open_store_from_settings, store_class
from contentseen.stores.memory import MemoryStore
from contentseen.stores.sqlite import SQLiteStore


@pytest.mark.parametrize("bits,k,seed", [(64, 3, 1), (128, 3, 2), (30, 2, 4)])
def test_memory_store_equals_brute_force(bits, k, seed):
    store = open_store("memory://", IDENTITY, bits, k)
    assert isinstance(store, MemoryStore)
    assert check_against_brute_force(store, planted_workload(bits, k, 1200, seed), k).dropped > 300


@pytest.mark.parametrize("bits,k,page_k,seed", [(64, 3, 4, 1), (128, 3, 6, 2)])
def test_memory_store_pages_equal_brute_force(bits, k, page_k, seed):
    store = open_store("memory://", IDENTITY, bits, k, page_distance=page_k)
    outcome = check_against_brute_force(store, planted_page_workload(bits, k, page_k, 1200, seed), k, page_k)
    assert outcome.dropped > 150 and outcome.kept_on_page > 150


def test_memory_and_sqlite_check_many_equal_one_check_after_another(tmp_path):
    """The stores without a batched check answer a batch by the base class's loop."""
    ops = planted_page_workload(64, 3, 4, 800, seed=13)
    for url in ("memory://", f"sqlite:///{tmp_path / 'fp.sqlite'}"):
        with open_store(url, IDENTITY, 64, 3, page_distance=4) as store:
            assert check_many_against_brute_force(store, ops, 3, 4, seed=13) > 5


def test_memory_store_page_rules():
    check_page_rules(open_store("memory://", IDENTITY, 64, 3, page_distance=4))


def test_threads_sharing_a_memory_store_keep_each_content_once():
    store = open_store("memory://", IDENTITY, 64, 3)
    fps = [(i * 0x9E3779B97F4A7C15) & (2**64 - 1) for i in range(1, 400)]
    kept: list[int] = []
    lock = threading.Lock()

    def work() -> None:
        for fp in fps:
            if store.check_and_add(fp, f"http://t/{fp}") is None:
                with lock:
                    kept.append(fp)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(kept) == sorted(set(kept)) and len(store) == len(kept)


def test_the_scheme_picks_the_backend(tmp_path):
    assert store_class("SQLITE:///x.sqlite") is SQLiteStore
    assert store_class("memory://") is MemoryStore
    with pytest.raises(ContentSeenError, match=r"'ftp://x' is not a store URL \(one of sqlite://, redis://"):
        store_class("ftp://x")
    with pytest.raises(ContentSeenError, match="is not a store URL"):
        store_class("fingerprints.sqlite")


def test_a_backend_refuses_options_it_does_not_take(tmp_path):
    with pytest.raises(ContentSeenError, match=r"SQLiteStore has no option prefix \(it takes: "):
        open_store(f"sqlite:///{tmp_path}/fp.sqlite", IDENTITY, 64, 3, prefix="x")
    assert not (tmp_path / "fp.sqlite").exists()


class _OwnStore(MemoryStore):
    """A user's backend, registered for its own scheme."""


def test_contentseen_stores_setting_adds_and_disables_schemes():
    settings = Settings({"CONTENTSEEN_STORES": {"mine": f"{__name__}._OwnStore", "memory": None}})
    store = open_store_from_settings("mine://x", settings, IDENTITY, 64, 3)
    assert type(store) is _OwnStore
    with pytest.raises(ContentSeenError, match="is not a store URL"):
        open_store_from_settings("memory://", settings, IDENTITY, 64, 3)
    bad = Settings({"CONTENTSEEN_STORES": {"x": "contentseen.engine.Engine", "y": "no.such.Store"}})
    with pytest.raises(ContentSeenError, match=r"CONTENTSEEN_STORES\['x'\]: 'contentseen.engine.Engine' is not a "
                                               r"contentseen.stores.base.FingerprintStore subclass"):
        open_store_from_settings("x://", bad, IDENTITY, 64, 3)
    with pytest.raises(ContentSeenError, match=r"CONTENTSEEN_STORES\['y'\]: cannot load 'no.such.Store'"):
        open_store_from_settings("y://", bad, IDENTITY, 64, 3)


def test_memory_store_expiry_equals_brute_force(monkeypatch):
    clock = fake_clock(monkeypatch)
    store = open_store("memory://", IDENTITY, 64, 3, page_distance=4, expire=300)
    assert check_expiry_against_brute_force(store, planted_page_workload(64, 3, 4, 1200, 5), 3, 4, 300, clock) > 50
