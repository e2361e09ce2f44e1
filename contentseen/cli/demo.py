"""``contentseen-demo``: crawl a bundled website and its mirror, and show what ContentSeen dropped.

Serves ``contentseen.demosite`` (a small magazine site) and its mirror on 127.0.0.1, then runs two
real ``scrapy crawl site`` processes of the bundled ``crawler_project`` sharing one fingerprint
store: first the original site, then the mirror. It prints every kept page (URL, title,
fingerprint), every dropped page with the page it duplicates and the Hamming distance, the
``contentseen/`` stats of each crawl, and a table of the mirror's pages by label (identical, near
copy, different) with what happened to each.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence
from urllib.parse import urlsplit

from .. import demosite
from . import OneLineParser, fail

PROG = "contentseen-demo"
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

    @property
    def contentseen_stats(self) -> dict[str, float]:
        return {k: v for k, v in sorted(self.stats.items()) if k.startswith("contentseen/")}


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


# --------------------------------------------------------------------------------------------
# Output

def _short(url: str, hosts: dict[str, str]) -> str:
    parts = urlsplit(url)
    name = hosts.get(parts.netloc, parts.netloc)
    return f"{name}{parts.path or '/'}"


def print_crawl(title: str, result: CrawlResult, hosts: dict[str, str], out=sys.stdout) -> None:
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"\n== {title} ({result.seconds:.1f} s) ==")
    kept = [i for i in result.items if i.get("fingerprint")]
    short = [i for i in result.items if not i.get("fingerprint")]
    p(f"Kept {len(kept)} page(s):")
    for item in kept:
        p(f"  {item['fingerprint']}  {_short(item['url'], hosts):<44} {item.get('title', '')}")
    if short:
        p(f"Kept without a fingerprint (too few words to judge) {len(short)} page(s):")
        for item in short:
            p(f"  {'-' * 16}  {_short(item['url'], hosts):<44} {item.get('title', '')}")
    p(f"Dropped {len(result.drops)} page(s):")
    kept_urls = {i["url"] for i in result.items}
    for d in result.drops:
        note = ""
        if d.url == d.duplicates and d.url in kept_urls:
            note = "  (kept above; the same URL was fetched again through a link)"
        elif urlsplit(d.duplicates).netloc not in hosts:
            note = "  (stored by an earlier run)"
        p(f"  {_short(d.url, hosts):<44} duplicates {_short(d.duplicates, hosts):<44} distance {d.distance}{note}")
    p("Stats:")
    for key, value in result.contentseen_stats.items():
        p(f"  {key}: {value:.3f}" if isinstance(value, float) else f"  {key}: {value}")


def print_mirror_table(
    result: CrawlResult, mirror_url: str, requested: set[str], hosts: dict[str, str], out=sys.stdout,
) -> None:
    """Each mirror path with its label and fate; ``requested``: the paths the mirror served."""
    p = lambda *a: print(*a, file=out)  # noqa: E731
    items = {urlsplit(i["url"]).path: i for i in result.items if i["url"].startswith(mirror_url)}
    drops = {urlsplit(d.url).path: d for d in result.drops if d.url.startswith(mirror_url)}
    p("\n== The mirror's pages ==")
    counts: dict[str, dict[str, int]] = {label: {} for label in demosite.LABELS}
    for path, label in demosite.MIRROR_LABELS.items():
        if path in items:
            key = "kept" if items[path].get("fingerprint") else "kept, too short to judge"
            outcome = key
        elif path in drops:
            d = drops[path]
            outcome = f"dropped (distance {d.distance} to {_short(d.duplicates, hosts)})"
            key = "dropped"
        elif path not in requested:
            key = "not requested"
            linked_from = demosite.ONLY_LINKED_FROM.get(path)
            outcome = key + (f" (only linked from {linked_from}, which was dropped)" if linked_from in drops else "")
        elif path in demosite.BINARY_PATHS:
            key = outcome = "not a page (passed through untouched)"
        else:
            key = outcome = "fetched, no item"
        counts[label][key] = counts[label].get(key, 0) + 1
        note = demosite.NEAR_CHANGES.get(path, "")
        p(f"  {label:<9} {path:<38} {outcome}" + (f"  [{note}]" if note else ""))
    p("Per label:")
    for label, by in counts.items():
        p(f"  {label:<9} " + ", ".join(f"{n} {k}" for k, n in sorted(by.items())))


def _parser() -> OneLineParser:
    p = OneLineParser(
        prog=PROG,
        description="Serve a small bundled website and its mirror on 127.0.0.1, crawl both with "
        "Scrapy and the ContentSeen middleware (the original first, then the mirror, sharing one "
        "fingerprint store), and print which pages were kept and which were dropped as near "
        "duplicates, with the page each one duplicates and the Hamming distance.",
    )
    p.add_argument(
        "--keep-store", metavar="PATH",
        help="SQLite fingerprint store to use and keep (created if missing; default: a temporary "
        "store, deleted afterwards). Run twice with the same PATH to see a re-crawl drop pages "
        "seen before.",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="contentseen-demo-") as tmp:
        workdir = Path(tmp)
        if args.keep_store:
            store_path = Path(args.keep_store).expanduser().resolve()
            if store_path.is_dir():
                fail(PROG, f"--keep-store {args.keep_store}: is a directory")
        else:
            store_path = workdir / "fingerprints.sqlite"
        store = "sqlite:///" + str(store_path)
        mirror_requests: list[str] = []
        with demosite.serve(demosite.build_site(mirror=False)) as original, \
                demosite.serve(demosite.build_site(mirror=True), requests=mirror_requests) as mirror:
            hosts = {urlsplit(original).netloc: "original", urlsplit(mirror).netloc: "mirror"}
            print(f"Serving the demo site at {original}/ (\"original\") and its mirror at {mirror}/ (\"mirror\").")
            print(f"Fingerprint store: {store}")
            results = []
            for title, url, name in (("Crawl 1: the original site", original, "original"),
                                     ("Crawl 2: the mirror, same store", mirror, "mirror")):
                result = run_crawl([url + "/"], workdir, store, name=name)
                if result.returncode != 0:
                    tail = "\n".join(result.log.splitlines()[-15:])
                    sys.stderr.write(f"{PROG}: error: {title.lower()} failed (exit {result.returncode}):\n{tail}\n")
                    return 1
                print_crawl(title, result, hosts)
                results.append(result)
            print_mirror_table(results[1], mirror, set(mirror_requests), hosts)
            if args.keep_store:
                print(f"\nStore kept at {store_path}; run again with --keep-store to re-crawl against it.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
