"""The reactor never waits on the store: a real ``redis-server`` frozen with SIGSTOP mid-crawl
costs a real ``scrapy crawl`` seconds, not a reply timeout for every page, and no page is lost
(``CONTENTSEEN_ON_STORE_ERROR=keep``: pages go on unchecked while the store is out)."""

from __future__ import annotations

import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from crawl_process import run_crawl
from redis_server import REDIS_SERVER, SKIP_REASON, RedisServer
from sites import Crawl, generated_site, host, path_of

pytestmark = pytest.mark.skipif(not REDIS_SERVER, reason=SKIP_REASON)

PAGES = 300  # at 0.08 s a page, the crawl outlasts the freeze
FREEZE_AFTER_S = 4.0
FREEZE_FOR_S = 20.0
SETTINGS = ("CONCURRENT_REQUESTS=1", "CONTENTSEEN_STORE_TIMEOUT=1", "CONTENTSEEN_STORE_COOLDOWN=3")


def _crawl(site, url: str, workdir, name: str, freeze: RedisServer | None = None) -> Crawl:
    with host(site, delay=0.08) as h:
        starts = [h.u(f"/p/{i}.html") for i in range(PAGES)]
        timers = []
        if freeze is not None:
            timers = [threading.Timer(FREEZE_AFTER_S, freeze.proc.send_signal, (signal.SIGSTOP,)),
                      threading.Timer(FREEZE_AFTER_S + FREEZE_FOR_S, freeze.proc.send_signal, (signal.SIGCONT,))]
            for t in timers:
                t.start()
        try:
            return Crawl(run_crawl(starts, workdir, url, SETTINGS, name=name, timeout=120))
        finally:
            for t in timers:
                t.join()


def test_a_frozen_redis_costs_seconds_not_minutes(tmp_path):
    site = generated_site(PAGES)
    # Both crawls at once, each against its own server: the same load on both, half the wait.
    with RedisServer(tmp_path / "redis-a") as calm, RedisServer(tmp_path / "redis-b") as frozen, \
            ThreadPoolExecutor(2) as pool:
        steady_run = pool.submit(_crawl, site, calm.url, tmp_path / "steady", "steady")
        hit_run = pool.submit(_crawl, site, frozen.url, tmp_path / "frozen", "frozen", frozen)
        steady, hit = steady_run.result(), hit_run.result()
    for c in (steady, hit):
        assert c.returncode == 0, c.log[-3000:]
        pages = sorted(p for p in map(path_of, c.item_urls()) if p.startswith("/p/"))
        assert pages == sorted(f"/p/{i}.html" for i in range(PAGES))  # every page delivered
    assert steady.stats.get("contentseen/store_errors", 0) == 0
    errors = hit.stats["contentseen/store_errors"]
    assert 3 <= errors < PAGES  # the pages that met the frozen store, kept unchecked
    assert hit.stats["contentseen/stored"] + errors == hit.stats["contentseen/checked"]  # before and after it
    # Without the thread and the circuit breaker, every page during the freeze waited for the
    # reply timeout (and a retry) in the reactor thread: the freeze cost its whole length and more.
    lost = hit.result.seconds - steady.result.seconds
    print(f"steady {steady.result.seconds:.1f} s, frozen {hit.result.seconds:.1f} s, "
          f"store errors {hit.stats['contentseen/store_errors']:.0f}")
    assert lost < 10, (hit.result.seconds, steady.result.seconds)
    assert "no answer within 1 s" in hit.log and "not called for" in hit.log
    # the pages skipped while the circuit was open are counted, and said once per opening
    skipped = hit.stats["contentseen/store_errors/skipped"]
    assert skipped > 0 and hit.log.count("not called for") < skipped


def test_a_password_in_the_store_url_reaches_no_log_line(tmp_path):
    import subprocess
    import time

    from redis_server import _ping, free_port

    port = free_port()
    server = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--requirepass", "s3cret-pw"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not _ping(port) and time.monotonic() < deadline:
            time.sleep(0.02)
        site = generated_site(40)
        with host(site, delay=0.05) as h:
            starts = [h.u(f"/p/{i}.html") for i in range(40)]
            wrong = Crawl(run_crawl(starts[:2], tmp_path / "wrong", f"redis://:wrong-secret@127.0.0.1:{port}/0",
                                    SETTINGS, name="wrong"))
            killer = threading.Timer(3.0, server.kill)
            killer.start()
            right = Crawl(run_crawl(starts, tmp_path / "right", f"redis://:s3cret-pw@127.0.0.1:{port}/0",
                                    SETTINGS, name="right"))
            killer.join()
    finally:
        server.kill()
        server.wait(10)
    assert wrong.returncode == 1 and "ContentSeen cannot start: " in wrong.log
    assert right.returncode == 0 and right.stats["contentseen/store_errors"] >= 1  # the server went away
    assert "redis://:***@127.0.0.1" in wrong.log and "redis://:***@127.0.0.1" in right.log
    for secret in ("wrong-secret", "s3cret-pw"):
        assert secret not in wrong.log and secret not in right.log


def test_a_redis_restarted_empty_mid_crawl_gets_its_scheme_back_and_refuses_another(tmp_path):
    site = generated_site(120)
    with RedisServer(tmp_path / "redis") as server, host(site, delay=0.05) as h:
        starts = [h.u(f"/p/{i}.html") for i in range(120)]
        restart = threading.Timer(3.0, server.restart_empty)
        restart.start()
        try:
            first = Crawl(run_crawl(starts, tmp_path / "first", server.url, SETTINGS, name="first"))
        finally:
            restart.join()
        other = Crawl(run_crawl(starts[:3], tmp_path / "other", server.url, (*SETTINGS, "CONTENTSEEN_BITS=128"),
                                name="other"))
    assert first.returncode == 0, first.log[-3000:]
    assert "lost its scheme record (restarted empty, or its keys were evicted); recording it again" in first.log
    pages = sorted(p for p in map(path_of, first.item_urls()) if p.startswith("/p/"))
    assert pages == sorted(f"/p/{i}.html" for i in range(120))
    # the scheme record written again refuses a crawl that would mix 128-bit entries in
    assert other.returncode == 1 and "was made with another fingerprint scheme: bits 64 (store) vs 128" in other.log
    assert other.items == []
