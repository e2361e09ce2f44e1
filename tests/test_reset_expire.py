"""Real crawls of one store, crawled again: the start-up line and ``contentseen/initial`` count
what the store holds, ``CONTENTSEEN_RESET`` / ``-a contentseen_reset=1`` empty it first, and
``CONTENTSEEN_EXPIRE`` lets old entries go; plus the expiry rule in every in-process store."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from scrapy.settings import Settings
from crawl_process import CrawlResult, crawl_command, crawl_env, parse_stats, read_items
from sites import generated_site, host

from contentseen.errors import ContentSeenError
from contentseen.middleware import reset_wanted
from contentseen.stores import open_store
from contentseen.stores.base import parse_duration
from contentseen.stores.registry import open_recorded
from store_helpers import IDENTITY

PAGES = 12


def crawl(url: str, workdir: Path, store: Path, name: str, *extra: str) -> CrawlResult:
    """One ``scrapy crawl site`` process from the site's index; ``extra``: more arguments."""
    feed, log_path = workdir / f"{name}.jsonl", workdir / f"{name}.log"
    cmd = crawl_command([url], feed.name, "sqlite:///" + str(store)) + list(extra)
    with open(log_path, "wb") as log:
        proc = subprocess.run(cmd, cwd=workdir, env=crawl_env(), stdout=log, stderr=subprocess.STDOUT, timeout=90)
    text = log_path.read_text("utf-8", "replace")
    return CrawlResult(proc.returncode, text, read_items(feed), [], parse_stats(text))


@pytest.fixture(scope="module")
def site():
    with host(generated_site(PAGES)) as h:
        yield h


def test_initial_count_and_reset(site, tmp_path):
    store = tmp_path / "fp.sqlite"
    first = crawl(site.u("/"), tmp_path, store, "first")
    assert first.returncode == 0 and len(first.items) == PAGES + 1
    assert first.stats["contentseen/initial"] == 0
    assert f"ContentSeen: store sqlite:///{store} holds 0 fingerprints;" in first.log
    # -a contentseen_reset=1: every page is kept again (without it the crawl stops at its
    # unchanged start page: test_crawl.py)
    reset = crawl(site.u("/"), tmp_path, store, "reset", "-a", "contentseen_reset=1")
    assert reset.returncode == 0, reset.log[-2000:]
    assert "holds 0 fingerprints (reset);" in reset.log and reset.stats["contentseen/initial"] == 0
    assert len(reset.items) == PAGES + 1 and reset.stats["contentseen/stored"] == PAGES + 1


def test_reset_setting_and_argument():
    spider = type("Spider", (), {"contentseen_reset": "1"})()
    assert reset_wanted(Settings({"CONTENTSEEN_RESET": True}), None)
    assert reset_wanted(Settings(), spider) and not reset_wanted(Settings(), object())
    with pytest.raises(ContentSeenError, match="contentseen_reset: 'maybe'"):
        reset_wanted(Settings(), type("Spider", (), {"contentseen_reset": "maybe"})())


def test_expired_pages_are_kept_again(site, tmp_path):
    store = tmp_path / "fp.sqlite"
    first = crawl(site.u("/"), tmp_path, store, "first")
    time.sleep(1.2)
    started = time.time()
    second = crawl(site.u("/"), tmp_path, store, "second", "-s", "CONTENTSEEN_EXPIRE=1")
    assert f"holds {PAGES + 1} fingerprints, entries expire after 1 s;" in second.log
    assert second.stats["contentseen/initial"] == len(first.items) == PAGES + 1
    assert len(second.items) == PAGES + 1 and second.stats["contentseen/stored"] == PAGES + 1
    # the expired entries were removed as the new ones came
    with open_recorded("sqlite:///" + str(store)) as s:
        assert 0 < len(s) <= PAGES + 1 and all(e.seen >= started for e in s.entries())


def test_a_bad_expire_setting_names_it(site, tmp_path):
    bad = crawl(site.u("/"), tmp_path, tmp_path / "fp.sqlite", "bad", "-s", "CONTENTSEEN_EXPIRE=soon")
    assert "CONTENTSEEN_EXPIRE: 'soon' is not a duration" in bad.log and bad.items == []


def test_durations():
    assert parse_duration("30d") == 30 * 86400 and parse_duration("12h") == 43200
    assert parse_duration("15m") == 900 and parse_duration(90) == 90 and parse_duration("2.5s") == 2.5
    assert parse_duration(None) is None and parse_duration("") is None and parse_duration(0) is None
    for bad in ("-1", "0.5", "soon", "3w", "101000d", True):
        with pytest.raises(ContentSeenError, match="CONTENTSEEN_EXPIRE"):
            parse_duration(bad)


@pytest.mark.parametrize("url", ["memory://", "sqlite"])
def test_an_expired_entry_no_longer_matches(url, tmp_path, monkeypatch):
    url = "sqlite:///" + str(tmp_path / "fp.sqlite") if url == "sqlite" else url
    clock = [1000.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    with open_store(url, IDENTITY, 64, 3, expire=60) as store:
        assert store.check_and_add(0xABC, "http://a") is None
        clock[0] += 59
        assert store.check_and_add(0xABD, "http://b").url == "http://a"
        clock[0] += 2
        assert store.lookup(0xABD) is None
        assert store.check_and_add(0xABD, "http://b") is None  # stored again, with a new time
        assert len(store) == 1 and [e.url for e in store.entries()] == ["http://b"]
