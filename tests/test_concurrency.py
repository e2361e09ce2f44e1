"""Real ``scrapy crawl site`` processes at once over a site and its byte-identical mirror,
sharing one store (Redis, a Redis Cluster, then a SQLite file): every distinct page is kept
exactly once across all of them. And Redis killed mid-crawl: ``keep`` finishes the crawl keeping
pages, ``stop`` closes the spider with reason ``contentseen_store_error``; neither prints a
traceback. A cluster shard restarted mid-crawl: ``keep`` keeps going and stores again once the
shard is back."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from mirror_site import serve, site_pages
from redis_server import (  # noqa: F401  (fixtures)
    cluster_url, own_redis, redis_cluster, redis_server, redis_url, stored_count,
)

N_ARTICLES = 20
CRAWL_TIMEOUT_S = 60
PREFIX = "contentseen:site"  # CONTENTSEEN_REDIS_PREFIX's default for the spider "site"


def start_crawl(workdir: Path, start_urls: list[str], store: str, *settings: str) -> subprocess.Popen:
    """``scrapy crawl site`` in its own directory, items to ``items.jsonl``, log to ``log.txt``."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "crawler_project.settings"}
    args = [sys.executable, "-m", "scrapy", "crawl", "site", "-a", "start_urls=" + ",".join(start_urls),
            "-O", "items.jsonl", "-s", f"CONTENTSEEN_STORE={store}", "-s", "LOG_LEVEL=INFO",
            "-s", "TELNETCONSOLE_ENABLED=False"]
    for setting in settings:
        args += ["-s", setting]
    log = open(workdir / "log.txt", "wb")
    try:
        return subprocess.Popen(args, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
    finally:
        log.close()


class Crawl:
    """A finished crawl: its items, its log, and stats read back from the log."""

    def __init__(self, proc: subprocess.Popen, workdir: Path):
        try:
            proc.wait(CRAWL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            pytest.fail(f"crawl in {workdir} did not finish in {CRAWL_TIMEOUT_S} s:\n"
                        + (workdir / "log.txt").read_text(errors="replace")[-3000:])
        self.returncode = proc.returncode
        self.log = (workdir / "log.txt").read_text(errors="replace")
        items = workdir / "items.jsonl"
        self.items = [json.loads(line) for line in items.read_text().splitlines()] if items.exists() else []

    def stat(self, name: str) -> str | None:
        found = re.search(rf"'{re.escape(name)}': '?([^',\n]*)", self.log)
        return found.group(1) if found else None

    def count(self, name: str) -> int:
        value = self.stat(name)
        return int(value) if value is not None else 0

    def check_clean(self) -> None:
        assert self.returncode == 0, self.log[-3000:]
        assert "Traceback" not in self.log, self.log[-3000:]
        assert "Dumping Scrapy stats" in self.log


def paths(items: list[dict]) -> list[str]:
    return [urlsplit(item["url"]).path for item in items]


@pytest.fixture(scope="module")
def pages() -> dict[str, bytes]:
    return site_pages(N_ARTICLES)


def content_paths(pages: dict[str, bytes]) -> set[str]:
    return {path for path in pages if path != "/robots.txt"}


def run_shared_crawls(tmp_path: Path, pages: dict[str, bytes], store: str, n: int) -> tuple[list[Crawl], bool]:
    """``n`` crawls at once over host A and mirror B, entering at different pages. Pages are
    held until every crawl has asked for its robots.txt, so the crawls really run together.
    Returns the crawls and whether they were all released together."""
    articles = sorted(content_paths(pages) - {"/"})
    with serve(pages, delay=0.1) as a, serve(pages, delay=0.1) as b:
        entries = [
            [a.base_url + "/"],
            [b.base_url + "/"],
            [b.base_url + articles[7], a.base_url + articles[13]],
            [a.base_url + articles[3], b.base_url + "/"],
        ][:n]
        robots = sum(len({urlsplit(u).netloc for u in urls}) for urls in entries)
        a.gate.clear()
        b.gate.clear()
        procs = [(start_crawl(tmp_path / f"crawl{i}", urls, store), tmp_path / f"crawl{i}")
                 for i, urls in enumerate(entries)]
        deadline = time.monotonic() + 30
        while a.robots_hits + b.robots_hits < robots and time.monotonic() < deadline:
            if any(proc.poll() is not None for proc, _ in procs):
                break
            time.sleep(0.02)
        together = a.robots_hits + b.robots_hits >= robots
        a.gate.set()
        b.gate.set()
        crawls = [Crawl(proc, workdir) for proc, workdir in procs]
    for crawl in crawls:
        crawl.check_clean()
    return crawls, together


def check_each_page_kept_once(crawls: list[Crawl], pages: dict[str, bytes], together: bool) -> None:
    kept = [p for crawl in crawls for p in paths(crawl.items)]
    assert sorted(kept) == sorted(content_paths(pages)), kept
    assert all(item["fingerprint"] for crawl in crawls for item in crawl.items)
    assert sum(crawl.count("contentseen/stored") for crawl in crawls) == len(content_paths(pages))
    assert sum(crawl.count("contentseen/dropped") for crawl in crawls) >= 1  # the mirror's root
    if together:  # the work was shared: more than one crawl kept pages
        assert sum(1 for crawl in crawls if crawl.items) >= 2, [len(c.items) for c in crawls]


@pytest.mark.parametrize("backend", ["redis_url", "cluster_url"])
def test_crawls_sharing_redis_keep_each_page_once(tmp_path, pages, request, backend):
    url = request.getfixturevalue(backend)
    crawls, together = run_shared_crawls(tmp_path, pages, url, 4)
    check_each_page_kept_once(crawls, pages, together)
    assert stored_count(url, PREFIX) == len(content_paths(pages))


def test_crawls_sharing_sqlite_keep_each_page_once(tmp_path, pages):
    store = "sqlite:///" + str(tmp_path / "shared" / "fingerprints.sqlite")
    crawls, together = run_shared_crawls(tmp_path, pages, store, 3)
    check_each_page_kept_once(crawls, pages, together)


def crawl_and_break_store(tmp_path: Path, pages: dict[str, bytes], url: str, policy: str, kill,
                          delay: float = 0.25, *settings: str) -> tuple[Crawl, int]:
    """One crawl of a slow site; ``kill()`` breaks the store once it holds 3 pages."""
    with serve(pages, delay=delay) as site:
        proc = start_crawl(tmp_path / "crawl", [site.base_url + "/"], url,
                           f"CONTENTSEEN_ON_STORE_ERROR={policy}", "CONCURRENT_REQUESTS=1", *settings)
        deadline = time.monotonic() + 30
        stored = 0
        while stored < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            stored = stored_count(url, PREFIX)
        kill()
        crawl = Crawl(proc, tmp_path / "crawl")
    assert stored >= 3, crawl.log[-3000:]
    crawl.check_clean()
    return crawl, stored


def crawl_and_kill_redis(tmp_path: Path, pages: dict[str, bytes], server, policy: str) -> tuple[Crawl, int]:
    """One crawl of a slow site; the Redis server is killed once it holds 3 pages."""
    return crawl_and_break_store(tmp_path, pages, server.url, policy, server.kill)


def test_redis_killed_mid_crawl_keep(tmp_path, pages, own_redis):
    crawl, stored = crawl_and_kill_redis(tmp_path, pages, own_redis, "keep")
    assert crawl.stat("finish_reason") == "finished"
    assert crawl.count("contentseen/store_errors") > 0
    assert set(paths(crawl.items)) == content_paths(pages)  # every page kept, the crawl went on
    assert len(crawl.items) > stored
    assert "CONTENTSEEN_ON_STORE_ERROR=keep" in crawl.log


def test_redis_killed_mid_crawl_stop(tmp_path, pages, own_redis):
    crawl, stored = crawl_and_kill_redis(tmp_path, pages, own_redis, "stop")
    assert crawl.stat("finish_reason") == "contentseen_store_error"
    assert crawl.count("contentseen/store_errors") >= 1
    assert "Spider closed (contentseen_store_error)" in crawl.log
    assert stored <= len(crawl.items) < len(content_paths(pages))


def test_cluster_shard_restarted_mid_crawl_keep(tmp_path, pages, redis_cluster, cluster_url):
    """A shard killed once 3 pages are stored and started again a second later: the pages met
    meanwhile are kept and counted as store errors; then pages are stored again."""
    crawl, stored = crawl_and_break_store(tmp_path, pages, cluster_url, "keep",
                                          lambda: redis_cluster.restart(1, down_for=1.0), 0.4,
                                          "CONTENTSEEN_STORE_COOLDOWN=0.5")
    assert crawl.stat("finish_reason") == "finished"
    assert crawl.count("contentseen/store_errors") > 0
    assert set(paths(crawl.items)) == content_paths(pages)  # every page kept, the crawl went on
    assert crawl.count("contentseen/stored") > stored  # stored again after the restart
