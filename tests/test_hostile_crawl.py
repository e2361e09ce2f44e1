"""Real crawls of the hostile site (tests/hostile_site.py): the pages of issue 10.

Host A is crawled into a fresh store, then its mirror B into the same store; a third crawl, of A
with the 50,000-deep page and the ``STRESS`` pages (markup read in quadratic time) added, checks
that one page cannot stall a crawl. Each crawl is one
``python -m scrapy crawl site`` process of crawler_project (2-5 s), shared by the tests through
module fixtures; each test asserts one case of the issue on those crawls:

1. legacy-compat doctype pages are judged (kept, links followed), their exact copies dropped;
2. different link-dominated pages are never dropped, an exact copy of one is;
3. near copies of short link-heavy pages and of a sitemap are dropped;
4. pages in other scripts are told apart, exact copies of them (and of a dates-only page) dropped;
5. short pages: exact copies dropped, pages one word apart kept, pages with no text skipped;
6. the deep page and the stress pages cost well under a second each and are kept;
7. nothing is lost: every page of A gives an item (but the soft-404 copies), nothing errors.
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from types import SimpleNamespace

import hostile_site as hs
import pytest
from sites import Crawl, crawl, host, path_of

from crawl_process import run_crawl

SITE_A = hs.build_site()
SITE_B = hs.build_site(mirror=True)
SITE_DEEP = hs.build_site(deep=True)
A_PAGES = sorted(p for p in SITE_A if p != "/robots.txt")
STORE_NAME = "fp.sqlite"
DEEP_TIMEOUT_S = 60  # the deep page alone took ~100 s before the fix; crawl() would wait 90 s
MIDDLEWARE_SECONDS_MAX = 2.0


def outcome(c: Crawl, base: str, path: str, requested: list[str]) -> str:
    """What one crawl did with ``base + path``: ``dropped`` (a drop line), ``kept`` (an item with
    a fingerprint), ``item`` (an item without one), ``unreached`` (never requested) or ``lost``
    (requested, but neither an item nor a drop)."""
    url = base + path
    if any(d.url == url for d in c.drops):
        return "dropped"
    items = c.items_by_url()
    if url in items:
        return "kept" if items[url]["fingerprint"] else "item"
    return "lost" if path in requested else "unreached"


def drop_of(c: Crawl, url: str):
    (d,) = [d for d in c.drops if d.url == url]
    return d


def stat(c: Crawl, key: str) -> float:
    return c.stats.get(f"contentseen/{key}", 0)


def assert_clean(c: Crawl) -> None:
    assert c.returncode == 0, c.log[-3000:]
    assert "Error downloading" not in c.log, [line for line in c.log.splitlines() if "Error downloading" in line]
    assert c.errors() == [], c.errors()
    assert stat(c, "skipped/error") == 0, "a page fell to the fail-open path: " + "\n".join(
        line for line in c.log.splitlines() if "ContentSeen" in line and "dropped" not in line)[-3000:]


# --------------------------------------------------------------------------------------------
# A, then its mirror B, into one store

@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    work = tmp_path_factory.mktemp("hostile")
    store = work / STORE_NAME
    with host(SITE_A) as a, host(SITE_B) as b:
        first = crawl([a.u("/")], work, store, name="a")
        second = crawl([b.u("/")], work, store, name="b")
        return SimpleNamespace(a=a.url, b=b.url, first=first, second=second,
                               a_requests=list(a.requests), b_requests=list(b.requests))


def a_outcome(run, path: str) -> str:
    return outcome(run.first, run.a, path, run.a_requests)


def b_outcome(run, path: str) -> str:
    return outcome(run.second, run.b, path, run.b_requests)


def assert_copy_dropped(run, path: str, exact: bool = True) -> None:
    assert b_outcome(run, path) == "dropped", f"mirror {path}: {b_outcome(run, path)}, not dropped"
    d = drop_of(run.second, run.b + path)
    assert d.duplicates == run.a + path, f"mirror {path} dropped as a duplicate of {d.duplicates}"
    assert d.distance == 0 if exact else 0 <= d.distance <= 3, (path, d)


def test_crawl_of_a_loses_no_page_and_drops_only_the_soft_404_copies(run):
    c = run.first
    assert_clean(c)
    urls = c.item_urls()
    assert Counter(urls).most_common(1)[0][1] == 1, "a page was yielded twice"
    fates = {p: a_outcome(run, p) for p in A_PAGES}
    soft_kept = [p for p in hs.SOFT_404 if fates[p] != "dropped"]
    assert len(soft_kept) == 1, {p: fates[p] for p in hs.SOFT_404}
    # Every other page of A gives an item: nothing lost, nothing unreached, nothing dropped.
    assert {p: f for p, f in fates.items() if p not in hs.SOFT_404 and f not in ("kept", "item")} == {}
    for p in hs.JUDGED:
        assert fates[p] == "kept", f"{p}: {fates[p]} (judged pages carry a fingerprint)"
    assert sorted(path_of(d.url) for d in c.drops) == sorted(set(hs.SOFT_404) - set(soft_kept))
    assert stat(c, "dropped") == len(c.drops)


def test_1_legacy_compat_pages_are_judged_links_followed_and_exact_copies_dropped(run):
    for p in hs.LEGACY:
        assert a_outcome(run, p) == "kept", f"{p}: {a_outcome(run, p)}"
    # /guide/install-logs.html is linked only from /guide/install.html: its links were followed.
    for child, parent in hs.ONLY_LINKED_FROM.items():
        assert child in run.a_requests
        assert b_outcome(run, parent) == "dropped" and child not in run.b_requests, (
            f"{child} requested on the mirror although {parent} was dropped")
    for p in ("/guide/install.html", "/guide/configure.html"):
        assert_copy_dropped(run, p)
    assert b_outcome(run, "/guide/upgrade.html") == "kept"  # a different chapter at that path


def test_2_link_dominated_pages_are_never_dropped_and_exact_copies_are(run):
    fates = {p: a_outcome(run, p) for p in hs.LINK_PAGES}
    assert fates == {p: "kept" for p in hs.LINK_PAGES}, "link pages dropped as duplicates of each other"
    mirror = {p: b_outcome(run, p) for p in hs.LINK_PAGES}
    assert mirror == {p: hs.MIRROR_EXPECT[p] for p in hs.LINK_PAGES}
    for p in hs.LINK_PAGES:
        if hs.MIRROR_EXPECT[p] == hs.DROPPED:
            assert_copy_dropped(run, p)


def test_3_near_copies_of_link_heavy_pages_are_dropped_or_kept_never_lost(run):
    # A footer line added at the end of the body of a page whose text is nearly all links
    # (/support.html) is an edge element of the page, never its content: the copy is dropped.
    # A notice inside the page's own block (/downloads.html) is most of the text outside links
    # there, and told from a short page beside an unmarked link sidebar it cannot be, on one
    # page; a sitemap whose only text outside links is its title is a short page, fingerprinted
    # exactly, which the added line changes (README, "Detection quality"): those copies are
    # kept, fetched twice, never dropped wrongly.
    for p in hs.NEAR:
        assert a_outcome(run, p) == "kept", f"{p}: {a_outcome(run, p)}"
    expected = {"/support.html": "dropped", "/downloads.html": "kept", "/sitemap.html": "kept"}
    assert {p: b_outcome(run, p) for p in hs.NEAR} == expected
    assert_copy_dropped(run, "/support.html", exact=False)
    # Their content is their list (extraction v7: the heading before the intro keeps the block
    # whole; v6 took the intro sentence, a sliver). The screenshots page, a sentence and a
    # gallery of links without a heading, is narrowed to the sentence: a sliver (the whole text
    # counts too), said in the item and counted; its mirror copy is dropped.
    items = run.first.items_by_url()
    slivers = {p for p in A_PAGES if items.get(run.a + p, {}).get("sliver")}
    assert slivers == {hs.SLIVER_PAGE}
    assert_copy_dropped(run, hs.SLIVER_PAGE)
    assert stat(run.first, "checked/sliver") >= len(slivers)


@pytest.mark.xfail(strict=True, reason="each line the mirror adds here is on one page of it: no host template "
                   "to learn (a line on every page: tests/test_template_crawl.py), and one page cannot tell it "
                   "from content")
def test_3_near_copies_of_link_heavy_pages_and_a_sitemap_are_dropped(run):
    assert {p: b_outcome(run, p) for p in hs.NEAR} == {p: "dropped" for p in hs.NEAR}
    for p in hs.NEAR:
        assert_copy_dropped(run, p, exact=False)


def test_4_pages_in_other_scripts_are_told_apart_and_exact_copies_dropped(run):
    for p in hs.SCRIPTS + hs.NO_ASCII:
        assert a_outcome(run, p) == "kept", f"{p}: {a_outcome(run, p)}"
    for p in hs.DATES:  # only dates and version numbers: judged, kept on A
        assert a_outcome(run, p) in ("kept", "item"), f"{p}: {a_outcome(run, p)}"
    paths = hs.SCRIPTS + hs.NO_ASCII + hs.DATES
    assert {p: b_outcome(run, p) for p in paths} == {p: hs.MIRROR_EXPECT[p] for p in paths}
    for p in paths:
        if hs.MIRROR_EXPECT[p] == hs.DROPPED:
            assert_copy_dropped(run, p)


def test_5_short_pages_exact_copies_dropped_and_pages_one_word_apart_kept(run):
    # Basket and wishlist differ by one word: both kept; so is the login wall.
    for p in hs.SHORT:
        assert a_outcome(run, p) in ("kept", "item"), f"{p}: {a_outcome(run, p)}"
    for p in hs.SHORT:
        assert_copy_dropped(run, p)
    # One "not found" page at several URLs with status 200: one kept, the others its copies.
    (kept,) = [p for p in hs.SOFT_404 if a_outcome(run, p) != "dropped"]
    for p in hs.SOFT_404:
        if p != kept:
            d = drop_of(run.first, run.a + p)
            assert (d.duplicates, d.distance) == (run.a + kept, 0), d
        d = drop_of(run.second, run.b + p)
        assert (d.duplicates, d.distance) == (run.a + kept, 0), d


def test_5_pages_without_visible_text_are_skipped_never_dropped(run):
    for c, base, requested in ((run.first, run.a, run.a_requests), (run.second, run.b, run.b_requests)):
        fates = {p: outcome(c, base, p, requested) for p in hs.EMPTY}
        assert fates == {p: "item" for p in fates}, fates
        assert stat(c, "skipped/empty") == len(fates)


def test_mirror_crawl_matches_the_expected_fate_of_every_page(run):
    c = run.second
    assert_clean(c)
    got = {p: b_outcome(run, p) for p in hs.MIRROR_EXPECT if p not in hs.NEAR}  # NEAR: test_3
    want = {p: {hs.DROPPED: "dropped", hs.KEPT: "kept", hs.EMPTY_KEPT: "item", hs.UNREACHED: "unreached"}[e]
            for p, e in hs.MIRROR_EXPECT.items()}
    assert {p: g for p, g in got.items() if g != want[p]} == {}, f"expected {({p: want[p] for p in got if got[p] != want[p]})}"
    soft = {run.a + p for p in hs.SOFT_404}
    for d in c.drops:
        assert d.url.startswith(run.b), d
        p = path_of(d.url)
        if p in hs.SOFT_404:
            assert d.duplicates in soft and d.distance == 0, d
        else:
            assert d.duplicates == run.a + p, d
            assert d.distance == 0 if p in hs.IDENTICAL else d.distance <= 3, d


def test_stats_and_drop_lines_agree(run):
    for c in (run.first, run.second):
        assert stat(c, "dropped") == len(c.drops)
        by_distance = Counter(d.distance for d in c.drops)
        assert {k: v for k, v in c.stats.items() if k.startswith("contentseen/dropped/distance_")} == {
            f"contentseen/dropped/distance_{k}": v for k, v in by_distance.items()}
        for d in c.drops:  # the drop line's format, exactly as before
            assert re.search(rf"ContentSeen: dropped {re.escape(d.url)}: duplicates {re.escape(d.duplicates)} "
                             rf"\(distance {d.distance}, fingerprint [0-9a-f]+\)", c.log)
        assert stat(c, "seconds") < MIDDLEWARE_SECONDS_MAX, c.stats


# --------------------------------------------------------------------------------------------
# A with the 50,000-deep page, into a fresh store

@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    work = tmp_path_factory.mktemp("hostile-deep")
    with host(SITE_DEEP) as a:
        try:
            result = run_crawl([a.u("/")], work, "sqlite:///" + str(work / STORE_NAME), (), name="deep",
                               timeout=DEEP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            log = (work / "deep.log").read_text("utf-8", "replace") if (work / "deep.log").exists() else ""
            return SimpleNamespace(a=a.url, c=None, log=log, requests=list(a.requests))
        return SimpleNamespace(a=a.url, c=Crawl(result), log=result.log, requests=list(a.requests))


def test_6_a_50000_deep_page_does_not_stall_the_crawl_and_is_kept(deep, run):
    assert deep.c is not None, (
        f"the crawl with the deep page did not finish in {DEEP_TIMEOUT_S} s; log tail:\n{deep.log[-2000:]}")
    c = deep.c
    assert c.returncode == 0, c.log[-3000:]
    assert "Error downloading" not in c.log
    assert c.errors() == [], c.errors()
    assert len(SITE_DEEP[hs.DEEP_PATH].body) > 500_000
    # The page itself is kept (an item), and every other page of A is fetched and gives one too.
    items = {path_of(u) for u in c.item_urls()}
    assert hs.DEEP_PATH in items
    assert set(hs.STRESS) <= items, sorted(set(hs.STRESS) - items)
    # each read flat, and said so: none of them parsed (the reopened copies' page by the watched parse)
    flat = {path_of(i["url"]) for i in c.items if i.get("flat")}
    assert set(hs.STRESS) <= flat, sorted(set(hs.STRESS) - flat)
    assert stat(c, "checked/flat") == len(flat), c.stats
    for p in A_PAGES:
        assert p in deep.requests, f"{p} was not fetched"
    assert items | {path_of(d.url) for d in c.drops} >= set(A_PAGES)
    assert sorted(path_of(d.url) for d in c.drops if path_of(d.url) not in hs.SOFT_404) == []
    # Well under a second for the deep page: the middleware's whole share stays under 2 s, and
    # the crawl takes little longer than the same crawl without the page.
    assert stat(c, "seconds") < MIDDLEWARE_SECONDS_MAX, c.stats
    wall = c.result.seconds
    assert wall < run.first.result.seconds + 15, (
        f"{wall:.1f} s with the deep page, {run.first.result.seconds:.1f} s without; the middleware's share "
        f"{stat(c, 'seconds'):.2f} s (the rest is the spider's, e.g. html_title parsing the page)")
    # Fail open at most for the deep page, and then one line naming it.
    errors = stat(c, "skipped/error")
    assert errors in (0, 1)
    if errors:
        url = deep.a + hs.DEEP_PATH
        assert [line for line in c.log.splitlines() if "ContentSeen" in line and url in line], (
            "skipped/error counted, but no log line names the page")
