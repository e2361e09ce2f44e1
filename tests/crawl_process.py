"""One real ``python -m scrapy crawl site`` process of the bundled crawler_project, read back
from its feed and log: the runner of the crawl tests (tests/sites.py, test_crawl.py,
test_hostile_crawl.py), which check what a user's crawl logs as well as what it does."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

CRAWL_TIMEOUT_S = 120

_DROP = re.compile(
    r"ContentSeen: dropped (?P<url>\S+): duplicates (?P<dup>\S+) "
    r"\(distance (?P<distance>\d+), fingerprint (?P<fingerprint>[0-9a-f]+)\)"
)
_STAT = re.compile(r"^\s*[{ ]?'(?P<key>[^']+)': (?P<value>-?\d+(?:\.\d+)?),?\}?$")


@dataclass(frozen=True)
class Drop:
    """One "ContentSeen: dropped URL: duplicates URL (distance d, fingerprint f)" log line."""

    url: str
    duplicates: str
    distance: int
    fingerprint: str


@dataclass
class CrawlResult:
    """What one ``scrapy crawl site`` process did, read from its feed and log."""

    returncode: int
    log: str
    items: list[dict] = field(default_factory=list)
    drops: list[Drop] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0


def parse_drops(log: str) -> list[Drop]:
    """The middleware's drop lines, in log order."""
    return [
        Drop(m["url"], m["dup"], int(m["distance"]), m["fingerprint"]) for m in _DROP.finditer(log)
    ]


def parse_stats(log: str) -> dict[str, float]:
    """The numeric stats of the "Dumping Scrapy stats:" block Scrapy logs when a crawl ends."""
    stats: dict[str, float] = {}
    _, sep, tail = log.rpartition("Dumping Scrapy stats:")
    if not sep:
        return stats
    for line in tail.splitlines()[1:]:
        m = _STAT.match(line)
        if m:
            value = m["value"]
            stats[m["key"]] = float(value) if "." in value else int(value)
        if line.rstrip().endswith("}"):
            break
    return stats


def read_items(path: Path) -> list[dict]:
    """The JSON-lines feed (``-O items.jsonl``), or [] when the crawl wrote none."""
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def crawl_command(start_urls: Sequence[str], feed: str, store: str, settings: Sequence[str] = ()) -> list[str]:
    """``python -m scrapy crawl site`` with the given start URLs, feed and store."""
    cmd = [
        sys.executable, "-m", "scrapy", "crawl", "site",
        "-a", "start_urls=" + ",".join(start_urls),
        "-O", feed,
        "-s", f"CONTENTSEEN_STORE={store}",
        "-s", "LOG_LEVEL=INFO",
        "-s", "TELNETCONSOLE_ENABLED=False",
    ]
    for s in settings:
        cmd += ["-s", s]
    return cmd


def crawl_env() -> dict[str, str]:
    return {**os.environ, "SCRAPY_SETTINGS_MODULE": "crawler_project.settings", "PYTHONUNBUFFERED": "1"}


def run_crawl(
    start_urls: Sequence[str], workdir: Path, store: str, settings: Sequence[str] = (),
    name: str = "crawl", timeout: float = CRAWL_TIMEOUT_S,
) -> CrawlResult:
    """Run one crawl as a real process in ``workdir``; its log goes to ``workdir/name.log``."""
    workdir.mkdir(parents=True, exist_ok=True)
    feed = workdir / f"{name}.jsonl"
    log_path = workdir / f"{name}.log"
    feed.unlink(missing_ok=True)
    started = time.monotonic()
    with open(log_path, "wb") as log_file:
        proc = subprocess.run(
            crawl_command(start_urls, feed.name, store, settings),
            cwd=workdir, env=crawl_env(), stdout=log_file, stderr=subprocess.STDOUT, timeout=timeout,
        )
    log = log_path.read_text("utf-8", "replace")
    return CrawlResult(
        returncode=proc.returncode, log=log, items=read_items(feed), drops=parse_drops(log),
        stats=parse_stats(log), seconds=time.monotonic() - started,
    )


def kill_9_when(proc: subprocess.Popen, ready: Callable[[], bool], timeout: float = 60.0) -> bool:
    """SIGKILL the crawl ``proc`` once ``ready()`` (polled) or ``timeout`` seconds; False, and
    nothing killed, when it ended first. It is never left running."""
    try:
        deadline = time.monotonic() + timeout
        while not ready() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if proc.poll() is not None:
            return False
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
        return True
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
