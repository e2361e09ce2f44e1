"""``contentseen-demo``: crawl a bundled website and its mirror, and show what ContentSeen dropped.

Serves ``contentseen.demosite`` (a small magazine site) and its mirror on 127.0.0.1, then crawls
them with the ``site`` spider of the bundled ``crawler_project``, one after the other in this
process, sharing one fingerprint store. What it prints comes from the crawler itself: each page's
``Decision`` through the ``contentseen.signals.page_decided`` signal, the items through
``item_scraped`` and the stats from ``crawler.stats`` -- every kept page (URL, title,
fingerprint), every dropped page with the page it duplicates and both distances, the
``contentseen/`` stats of each crawl, and a table of the mirror's pages by label (identical, near
copy, different) with what happened to each.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence, TextIO
from urllib.parse import urlsplit

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.crawler import AsyncCrawlerProcess
from scrapy.settings import Settings

from .. import demosite
from ..engine import Decision
from ..errors import ContentSeenError
from ..fingerprints import Scheme
from ..signals import page_decided
from . import OneLineParser, fail

PROG = "contentseen-demo"
DROPS = ("dropped", "refetched")  # outcomes of a page not let through: a copy, or its own URL again


@dataclass
class CrawlReport:
    """One crawl as the crawler reported it: its decisions (by response URL, in order), items
    and stats; ``error`` says why it did not run to its end."""

    decisions: list[tuple[str, Decision]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    error: str = ""
    bits: int = Scheme.bits

    def decided(self, response: Any, decision: Decision, **_: Any) -> None:
        self.decisions.append((response.url, decision))

    def scraped(self, item: Any, **_: Any) -> None:
        self.items.append(ItemAdapter(item).asdict())

    def outcome(self, outcome: str) -> list[tuple[str, Decision]]:
        return [(url, d) for url, d in self.decisions if d.outcome == outcome]


def crawl_settings(store: str) -> Settings:
    """crawler_project's settings with ``store``; only warnings and errors are logged (to stderr),
    since the decisions and stats are read from the crawler."""
    settings = Settings()
    settings.setmodule("crawler_project.settings", priority="project")
    settings.setdict({"CONTENTSEEN_STORE": store, "LOG_LEVEL": "WARNING", "TELNETCONSOLE_ENABLED": False},
                     priority="cmdline")
    return settings


async def crawl_site(process: AsyncCrawlerProcess, start_url: str) -> CrawlReport:
    """One crawl of the ``site`` spider from ``start_url``."""
    crawler = process.create_crawler("site")
    report = CrawlReport(bits=crawler.settings.getint("CONTENTSEEN_BITS", Scheme.bits))
    # Bound methods of ``report``, which outlives the crawl (signal receivers are weak references).
    crawler.signals.connect(report.decided, signal=page_decided)
    crawler.signals.connect(report.scraped, signal=signals.item_scraped)
    started = time.monotonic()
    try:
        await process.crawl(crawler, start_urls=start_url)
    except ContentSeenError as exc:  # a setting or the store refused at start-up
        report.error = str(exc)
    except Exception as exc:
        report.error = f"{type(exc).__name__}: {exc}"
    report.seconds = time.monotonic() - started
    report.stats = crawler.stats.get_stats() if crawler.stats is not None else {}
    reason = report.stats.get("finish_reason")
    if not report.error and reason != "finished":
        report.error = f"the crawl ended early ({reason or 'no finish reason'})"
    return report


def run_crawls(start_urls: Sequence[str], store: str) -> list[CrawlReport]:
    """Crawl from each start URL in turn, in this process (one reactor, so once per process);
    stops after a crawl that fails, or when interrupted (Ctrl-C): fewer reports then."""
    process = AsyncCrawlerProcess(crawl_settings(store))
    reports: list[CrawlReport] = []

    async def crawl_each() -> None:
        try:
            for url in start_urls:
                reports.append(await crawl_site(process, url))
                if reports[-1].error:
                    break
        finally:
            from twisted.internet import reactor  # the one AsyncCrawlerProcess installed

            if reactor.running:
                reactor.stop()

    # The loop AsyncCrawlerProcess installed runs once start() runs the reactor.
    asyncio.get_event_loop().create_task(crawl_each())
    process.start(stop_after_crawl=False)
    return reports


# --------------------------------------------------------------------------------------------
# Output

def _short(url: str, hosts: dict[str, str]) -> str:
    parts = urlsplit(url)
    name = hosts.get(parts.netloc, parts.netloc)
    return f"{name}{parts.path or '/'}"


def _distances(d: Decision) -> str:
    assert d.match is not None
    whole = "" if d.match.page_distance is None else f", whole page {d.match.page_distance}"
    return f"distance {d.match.distance}{whole}"


def print_crawl(title: str, report: CrawlReport, hosts: dict[str, str], out: TextIO = sys.stdout) -> None:
    """The pages ``report``'s crawl kept, dropped and passed unjudged, and its ContentSeen stats."""
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"\n== {title} ({report.seconds:.1f} s) ==")
    titles = {i["url"]: i.get("title", "") for i in report.items}
    kept = report.outcome("kept")
    p(f"Kept {len(kept)} page(s):")
    for url, d in kept:
        assert d.page is not None
        note = "  (short page: an exact hash)" if d.page.exact else ""
        p(f"  {d.page.hex(report.bits)}  {_short(url, hosts):<44} {titles.get(url, '')}{note}")
    dropped = [(url, d) for url, d in report.decisions if d.outcome in DROPS]
    p(f"Dropped {len(dropped)} page(s):")
    kept_urls = {url for url, _ in kept}
    for url, d in dropped:
        assert d.match is not None
        note = ""
        if d.outcome == "refetched" and url in kept_urls:
            note = "  (kept above; the same URL was fetched again through a link)"
        elif d.outcome == "refetched" or urlsplit(d.match.url).netloc not in hosts:
            note = "  (stored by an earlier run)"
        p(f"  {_short(url, hosts):<44} duplicates {_short(d.match.url, hosts):<44} {_distances(d)}{note}")
    unjudged = report.outcome("skipped") + report.outcome("store_error")
    if unjudged:
        p(f"Passed on unjudged {len(unjudged)} page(s):")
        for url, d in unjudged:
            p(f"  {_short(url, hosts):<44} {d.outcome}: {d.reason}")
    p("Stats:")
    for key, value in sorted(report.stats.items()):
        if key.startswith("contentseen/"):
            p(f"  {key}: {value:.3f}" if isinstance(value, float) else f"  {key}: {value}")


def print_mirror_table(
    report: CrawlReport, mirror_url: str, requested: set[str], hosts: dict[str, str], out: TextIO = sys.stdout,
) -> None:
    """Each mirror path with its label and fate; ``requested``: the paths the mirror served."""
    p = lambda *a: print(*a, file=out)  # noqa: E731
    decided: dict[str, Decision] = {}
    for url, d in report.decisions:  # a path's first decision: a later one is of a refetch
        if url.startswith(mirror_url):
            decided.setdefault(urlsplit(url).path, d)
    p("\n== The mirror's pages ==")
    counts: dict[str, dict[str, int]] = {label: {} for label in demosite.LABELS}
    for path, label in demosite.MIRROR_LABELS.items():
        d = decided.get(path)
        if d is not None and d.outcome in DROPS:
            assert d.match is not None
            key, outcome = "dropped", f"dropped as a copy of {_short(d.match.url, hosts)} ({_distances(d)})"
        elif d is not None:
            key = outcome = "kept" if d.outcome == "kept" else f"passed on unjudged ({d.outcome}: {d.reason})"
        elif path not in requested:
            key = "not requested"
            linked_from = demosite.ONLY_LINKED_FROM.get(path)
            dropped_from = linked_from in decided and decided[linked_from].outcome in DROPS
            outcome = key + (f" (only linked from {linked_from}, which was dropped)" if dropped_from else "")
        elif path in demosite.BINARY_PATHS:
            key = outcome = "not a page (passed through untouched)"
        else:
            key = outcome = "fetched, not judged"
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
        "duplicates, with the page each one duplicates and the Hamming distances. Exit status: 0 "
        "when both crawls ran to their end without logging an error, 1 when one did not, 2 for "
        "a bad argument.",
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
        if args.keep_store:
            store_path = Path(args.keep_store).expanduser().resolve()
            if store_path.is_dir():
                fail(PROG, f"--keep-store {args.keep_store}: is a directory")
        else:
            store_path = Path(tmp) / "fingerprints.sqlite"
        store = "sqlite:///" + str(store_path)
        mirror_requests: list[str] = []
        with demosite.serve(demosite.build_site(mirror=False)) as original, \
                demosite.serve(demosite.build_site(mirror=True), requests=mirror_requests) as mirror:
            hosts = {urlsplit(original).netloc: "original", urlsplit(mirror).netloc: "mirror"}
            print(f"Serving the demo site at {original}/ (\"original\") and its mirror at {mirror}/ (\"mirror\").")
            print(f"Fingerprint store: {store}", flush=True)
            reports = run_crawls([original + "/", mirror + "/"], store)
        titles = ("Crawl 1: the original site", "Crawl 2: the mirror, same store")
        for title, report in zip(titles, reports):
            if report.error:
                sys.stderr.write(f"{PROG}: error: {title.lower()} failed: {report.error}\n")
                return 1
            print_crawl(title, report, hosts)
        if len(reports) < len(titles):
            sys.stderr.write(f"{PROG}: error: interrupted before {titles[len(reports)].lower()} ended\n")
            return 1
        print_mirror_table(reports[1], mirror, set(mirror_requests), hosts)
        if args.keep_store:
            print(f"\nStore kept at {store_path}; run again with --keep-store to re-crawl against it.")
    errors = {title: r.stats.get("log_count/ERROR", 0) + r.stats.get("log_count/CRITICAL", 0)
              for title, r in zip(titles, reports)}
    for title, n in errors.items():
        if n:
            sys.stderr.write(f"{PROG}: error: {title.lower()} logged {n} error(s) (above)\n")
    return 1 if any(errors.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
