"""ContentSeen in a user's own Scrapy project, enabled the way README tells: a fresh
``scrapy startproject``, the add-on in ``ADDONS``, two spiders, real ``scrapy crawl`` processes
against a real HTTP server on 127.0.0.1.

What it pins down: robots.txt is never judged, so ``Disallow:`` holds on every later crawl with
the same store; each spider has its own store under the project's ``.scrapy`` folder, the same
from any working directory; a page fetched again is "refetched", not a duplicate of itself.
"""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from contentseen import demosite
from contentseen.demosite import Page

ROBOTS = b"User-agent: *\nDisallow: /private/\n"
PROSE = {
    "a": "Tide pools hold anemones, hermit crabs and sea stars that wait for the water to return.",
    "b": "Night trains cross Europe again, with sleeping cars between Vienna, Paris and Amsterdam.",
    "secret": "Internal notes that robots must never fetch: staff rota, server passwords, plans.",
}


def _page(title: str, text: str, links: tuple[str, ...] = ()) -> bytes:
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head><body><nav><ul>{anchors}</ul></nav>"
            f"<main><h1>{title}</h1><p>{text} {text}</p></main></body></html>").encode()


PAGES = {
    "/robots.txt": ("text/plain", ROBOTS),
    "/": ("text/html", _page("Index", "A small site about the sea and about trains, with two articles.",
                             ("/a.html", "/b.html", "/copy-of-a.html", "/private/secret.html"))),
    "/a.html": ("text/html", _page("Tide pools", PROSE["a"])),
    "/copy-of-a.html": ("text/html", _page("Tide pools", PROSE["a"])),
    "/b.html": ("text/html", _page("Night trains", PROSE["b"])),
    "/private/secret.html": ("text/html", _page("Secret", PROSE["secret"])),
}

SPIDER = '''
import scrapy


class {cls}(scrapy.Spider):
    name = "{name}"

    def __init__(self, start=None, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]

    def parse(self, response):
        yield {{"url": response.url}}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)
'''

# A spider with a bug: its callback raises on the page named by -a fail=...
FAILING = '''
import scrapy


class GammaSpider(scrapy.Spider):
    name = "gamma"

    def __init__(self, start=None, fail="", **kwargs):
        super().__init__(**kwargs)
        self.start_urls, self.fail = [start], fail

    def parse(self, response):
        if self.fail and response.url.endswith(self.fail):
            raise ValueError("a bug in the spider")
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)
'''


@contextmanager
def serve() -> Iterator[tuple[str, list[str]]]:
    """The site on 127.0.0.1 (the demo's server), and every path it was asked for."""
    requested: list[str] = []
    with demosite.serve({path: Page(ctype, body) for path, (ctype, body) in PAGES.items()},
                        requests=requested) as base:
        yield base, requested


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("user")
    subprocess.run([sys.executable, "-m", "scrapy", "startproject", "userproj"], cwd=root, check=True,
                   capture_output=True)
    proj = root / "userproj"
    settings = proj / "userproj" / "settings.py"
    text = settings.read_text()
    assert "ADDONS = {}" in text
    # README, "The Scrapy middleware": the one line a user adds.
    settings.write_text(text.replace("ADDONS = {}", 'ADDONS = {"contentseen.addon.ContentSeenAddon": 100}'))
    for name in ("alpha", "beta"):
        (proj / "userproj" / "spiders" / f"{name}.py").write_text(SPIDER.format(cls=name.title() + "Spider", name=name))
    (proj / "userproj" / "spiders" / "gamma.py").write_text(FAILING)
    return proj


def crawl(project: Path, spider: str, start: str, out: Path, cwd: Path | None = None,
          *extra: str) -> tuple[list[str], dict, str]:
    """One real crawl: the URLs of its items, its stats, its log; ``extra``: more arguments."""
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    r = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", spider, "-a", f"start={start}", "-O", str(out),
         "-s", "DOWNLOAD_DELAY=0", "-s", "LOG_LEVEL=INFO", "-s", "STATS_DUMP=True", *extra],
        cwd=cwd or project, env=env, capture_output=True, text=True, timeout=90,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    items = [json.loads(line)["url"] for line in out.read_text().splitlines() if line.strip()]
    stats_text = r.stderr[r.stderr.index("Dumping Scrapy stats:"):]
    stats = {k: int(v) for k, v in re.findall(r"'(contentseen/[\w/]+)': (\d+)", stats_text)}
    return sorted(items), stats, r.stderr


@pytest.fixture(scope="module")
def crawls(project: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("feeds")
    with serve() as (base, requested):
        # From a subfolder of the project: the store is still the project's.
        first = crawl(project, "alpha", base + "/", out / "a1.jsonl", cwd=project / "userproj" / "spiders")
        after_first = len(requested)
        beta = crawl(project, "beta", base + "/", out / "b.jsonl")
        mark = len(requested)
        again = crawl(project, "alpha", base + "/", out / "a2.jsonl")
        return {"base": base, "first": first, "beta": beta, "again": again,
                "first_requests": requested[:after_first], "again_requests": requested[mark:]}


def test_the_addon_enables_contentseen_and_copies_are_dropped(crawls):
    base = crawls["base"]
    items, stats, log = crawls["first"]
    a, copy = base + "/a.html", base + "/copy-of-a.html"
    kept = a if a in items else copy  # whichever of the two came first
    dropped = copy if kept == a else a
    assert items == sorted([base + "/", kept, base + "/b.html"])
    assert f"ContentSeen: dropped {dropped}: duplicates {kept} (distance 0" in log
    assert stats["contentseen/dropped"] == 1 and stats["contentseen/stored"] == 3


def test_each_spider_has_its_own_store_in_the_project_data_dir(project, crawls):
    stores = sorted(p.name for p in (project / ".scrapy" / "contentseen").iterdir() if p.suffix == ".sqlite")
    assert stores == ["alpha.sqlite", "beta.sqlite"]
    assert not (project / "userproj" / "spiders" / ".scrapy").exists()  # not where the first crawl ran
    # beta did not inherit alpha's fingerprints: its pages are its own
    items, stats, _ = crawls["beta"]
    assert len(items) == 3 and stats["contentseen/stored"] == 3 and stats["contentseen/dropped"] == 1


def test_robots_txt_is_never_judged_and_disallow_holds_on_every_crawl(crawls):
    for name in ("first", "beta", "again"):
        _, stats, _ = crawls[name]
        assert stats["contentseen/skipped/internal"] == 1, name  # robots.txt
    for requests in (crawls["first_requests"], crawls["again_requests"]):
        assert "/robots.txt" in requests and not any(p.startswith("/private/") for p in requests)


def test_a_page_fetched_again_is_refetched_not_a_duplicate_of_itself(crawls):
    base = crawls["base"]
    items, stats, log = crawls["again"]
    assert items == [] and stats.get("contentseen/dropped", 0) == 0
    assert stats["contentseen/refetched"] == 1  # the start page; its links are not followed again
    assert f"ContentSeen: refetched {base}/: unchanged since it was stored (distance 0)" in log
    assert "duplicates itself" not in log and f"duplicates {base}/ " not in log


def test_a_page_whose_callback_raised_is_kept_again_by_the_next_crawl(project, tmp_path):
    # a page counts as seen once delivered: the one the spider failed on was not
    store = ["-s", f"CONTENTSEEN_STORE=sqlite:///{tmp_path / 'gamma.sqlite'}"]
    with serve() as (base, _):
        items1, stats1, log1 = crawl(project, "gamma", base + "/", tmp_path / "g1.jsonl", None,
                                     "-a", "fail=/b.html", *store)
        items2, stats2, _ = crawl(project, "gamma", base + "/b.html", tmp_path / "g2.jsonl", None, *store)
    assert base + "/b.html" not in items1 and "a bug in the spider" in log1
    assert stats1["contentseen/undelivered"] == 1
    assert f"ContentSeen: {base}/b.html was not delivered" in log1
    assert items2 == [base + "/b.html"] and stats2["contentseen/stored"] == 1
    assert "contentseen/refetched" not in stats2
