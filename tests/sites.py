"""Test sites and a crawl runner for the real ``scrapy crawl site`` tests (tests/test_crawl.py).

The magazine site and its mirror come from ``contentseen.demosite``; this module adds a generated
site of many unrelated pages (for the kill -9 test), a running-server helper that records which
paths were requested, and ``crawl()``, one real crawler process (``crawl_process.run_crawl``).
"""

from __future__ import annotations

import random
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence
from urllib.parse import urlsplit

from crawl_process import CrawlResult, Drop, run_crawl

from contentseen import demosite
from contentseen.demosite import Page, Site

__all__ = ["Crawl", "Drop", "Host", "both_clean", "crawl", "decide_all", "delivery_site", "generated_site", "host",
           "offline_fingerprinter", "site_then_mirror", "with_index"]


@dataclass
class Host:
    """A running test server: its base URL and every path it was asked for, in order."""

    url: str
    requests: list[str] = field(default_factory=list)

    def u(self, path: str) -> str:
        return self.url + path

    def mark(self) -> int:
        """Position in the request log, to read one crawl's requests afterwards."""
        return len(self.requests)

    def since(self, mark: int) -> list[str]:
        return self.requests[mark:]


@contextmanager
def host(pages: Site, delay: float = 0.0) -> Iterator[Host]:
    h = Host("")
    with demosite.serve(pages, requests=h.requests, delay=delay) as url:
        h.url = url
        yield h


@dataclass
class Crawl:
    """One crawl's outcome, with path-level views per host."""

    result: CrawlResult

    @property
    def returncode(self) -> int:
        return self.result.returncode

    @property
    def log(self) -> str:
        return self.result.log

    @property
    def items(self) -> list[dict]:
        return self.result.items

    @property
    def stats(self) -> dict[str, float]:
        return self.result.stats

    @property
    def drops(self) -> list[Drop]:
        return self.result.drops

    def item_urls(self) -> list[str]:
        return [i["url"] for i in self.items]

    def items_by_url(self) -> dict[str, dict]:
        return {i["url"]: i for i in self.items}

    def refetch_drops(self) -> list[Drop]:
        """Drops of a URL as a duplicate of itself where that URL was also kept in this crawl:
        the same page fetched twice (see test_crawl.test_start_page_is_fetched_once)."""
        kept = set(self.item_urls())
        return [d for d in self.drops if d.url == d.duplicates and d.url in kept]

    def real_drops(self) -> list[Drop]:
        """Drops other than ``refetch_drops``."""
        refetched = self.refetch_drops()
        return [d for d in self.drops if d not in refetched]

    def errors(self) -> list[str]:
        """Log lines at ERROR/CRITICAL level, and tracebacks."""
        return [
            line for line in self.log.splitlines()
            if re.search(r"\] (ERROR|CRITICAL):", line) or line.startswith("Traceback")
        ]


def crawl(
    start_urls: Sequence[str], workdir: Path, store: Path, *settings: str, name: str = "crawl",
) -> Crawl:
    """A real ``python -m scrapy crawl site`` process (cwd ``workdir``, feed and log there)."""
    return Crawl(run_crawl(start_urls, workdir, "sqlite:///" + str(store), settings, name=name, timeout=90))


def with_index(pages: dict[str, Page], title: str, intro: str, labels: Sequence[str]) -> dict[str, Page]:
    """``pages`` and, at ``/``, an index page titled ``title``: ``intro``, then a link to each
    page, labelled by ``labels`` in order (its own intro keeps a mirror's index apart from the
    site's)."""
    links = "".join(f"<li><a href='{p}'>{label}</a></li>" for p, label in zip(pages, labels))
    index = (f"<!DOCTYPE html><html><head><title>{title}</title></head><body><main><h1>{title}</h1><p>{intro}</p>"
             f"<ul>{links}</ul></main></body></html>")
    return {**pages, "/": Page("text/html; charset=utf-8", index.encode())}


def site_then_mirror(work: Path, site: Site, mirror: Site, name: str) -> tuple[str, Crawl, Crawl]:
    """A crawl of ``site`` from ``/``, then one of its ``mirror``, one request at a time, into one
    SQLite store in ``work``: the site's URL and the two crawls."""
    with host(site) as first_host, host(mirror) as mirror_host:
        store = work / "fp.sqlite"
        first = crawl([first_host.u("/")], work, store, "CONCURRENT_REQUESTS=1", name=name)
        second = crawl([mirror_host.u("/")], work, store, "CONCURRENT_REQUESTS=1", name="mirror")
        return first_host.url, first, second


def decide_all(pages: Sequence[tuple[str, str]], store_url: str = "memory://", templates: bool = True,
               scheme=None) -> list:
    """Each of ``pages`` (URL, HTML) decided in order by one engine of the default ``scheme`` (or
    that one) over one store (memory by default), learning host templates unless ``templates``
    is False."""
    from contentseen.engine import Engine
    from contentseen.fingerprints import Scheme
    from contentseen.stores import open_store
    from contentseen.templates import HostTemplates

    pf = (scheme or Scheme()).build()
    store = open_store(store_url, pf.identity, 64, 3, page_distance=pf.scheme.page_distance)
    engine = Engine(pf, store, templates=HostTemplates() if templates else None)
    return [engine.decide(url, 200, "text/html; charset=utf-8", html.encode()) for url, html in pages]


def both_clean(first: Crawl, second: Crawl, items: int) -> None:
    """Both crawls ran without an error, and the first dropped nothing, its ``items`` all kept."""
    for c in (first, second):
        assert c.returncode == 0 and c.errors() == [], c.log[-3000:]
    assert first.drops == [] and len(first.items) == items


def path_of(url: str) -> str:
    return urlsplit(url).path or "/"


def offline_fingerprinter():
    """The fingerprinter the crawler_project settings configure, built outside Scrapy."""
    from scrapy.settings import Settings

    from contentseen.settings import scheme_from_settings

    settings = Settings()
    settings.setmodule("crawler_project.settings")
    return scheme_from_settings(settings).build()


def offline_fingerprint(pages, page: Page) -> int | None:
    """``page``'s fingerprint computed from its bytes by the library (no Scrapy)."""
    ctype = page.content_type
    if ctype.startswith("text/plain"):
        return pages.of_text(page.body.decode("utf-8")).fingerprint
    return pages.of_html_bytes(page.body, ctype).fingerprint


def _vocabulary() -> list[str]:
    words = set()
    for article in demosite.ARTICLES:
        words.update(re.findall(r"[a-z]{4,}", article.text.lower()))
    return sorted(words)


def generated_site(n: int, seed: int = 7) -> Site:
    """An index page listing ``n`` unrelated pages (``/p/0.html`` ...) of 120 random words each
    from the demo prose's vocabulary; pages link nowhere, so a crawl started from a list of their
    URLs fetches each exactly once."""
    vocab = _vocabulary()
    site: Site = {}
    titles = []
    for i in range(n):
        rng = random.Random(seed * 1000 + i)
        title = " ".join(w.title() for w in rng.sample(vocab, 4))
        titles.append(title)
        text = " ".join(rng.choice(vocab) for _ in range(120))
        html = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
                f"<body><nav><a href='/'>Home</a></nav><main><h1>{title}</h1><p>{text}</p></main></body></html>")
        site[f"/p/{i}.html"] = Page("text/html; charset=utf-8", html.encode())
    links = "".join(f"<li><a href='/p/{i}.html'>{t}</a></li>" for i, t in enumerate(titles))
    site["/"] = Page(
        "text/html; charset=utf-8",
        f"<!DOCTYPE html><html><head><title>Generated</title></head><body><main><ul>{links}</ul></main></body></html>".encode(),
    )
    return site


def delivery_site(n: int, copies: int) -> tuple[dict, list[set[str]]]:
    """``n`` distinct pages and an identical copy of each of the first ``copies`` at
    ``/copy/<i>.html``; the groups of paths with the same content."""
    site = generated_site(n)
    groups = [{f"/p/{i}.html"} for i in range(n)]
    for i in range(copies):
        page = site[f"/p/{i}.html"]
        site[f"/copy/{i}.html"] = Page(page.content_type, page.body)
        groups[i].add(f"/copy/{i}.html")
    return site, groups
