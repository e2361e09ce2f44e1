"""Real crawls: ``python -m scrapy crawl site`` processes of crawler_project against
``http.server``s on 127.0.0.1 serving the demo magazine site (host A) and its mirror (host B),
from ``contentseen.demosite``.

The expected fate of every mirror page is fixed by the site: ``MIRROR_LABELS`` (identical / near
/ different) and ``expected_mirror_outcome``. Each crawl is a 2-5 s process, so crawls are shared
by module fixtures and each test asserts several things about one crawl.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from sites import (
    crawl,
    generated_site,
    host,
    offline_fingerprint,
    offline_fingerprinter,
    path_of,
)

from contentseen import demosite as ds
from crawl_process import crawl_command, crawl_env, kill_9_when

SITE_A = ds.build_site(mirror=False)
SITE_B = ds.build_site(mirror=True)
TEXT_PATHS = ds.html_paths(SITE_A)  # HTML and text/plain pages (robots.txt aside)
FINGERPRINTABLE = TEXT_PATHS  # short pages too, by an exact hash
STORE_NAME = "fp.sqlite"


def store_rows(path: Path) -> list[tuple[str]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT url FROM fingerprints ORDER BY id").fetchall()


# --------------------------------------------------------------------------------------------
# Host A, then mirror B into the same store, then A again (every page as a start URL).

@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    work = tmp_path_factory.mktemp("crawl")
    store = work / STORE_NAME
    with host(SITE_A) as a, host(SITE_B) as b:
        first = crawl([a.u("/")], work, store, name="a1")
        a_first = a.since(0)
        second = crawl([b.u("/")], work, store, name="b")
        mark = a.mark()
        again_starts = [a.u(p) for p in FINGERPRINTABLE + sorted(ds.BINARY_PATHS)]
        again = crawl(again_starts, work, store, name="a2")
        return SimpleNamespace(
            a=a.url, b=b.url, store=store, work=work, first=first, second=second, again=again,
            again_starts=again_starts, a_first=a_first, a_again=a.since(mark), b_requests=list(b.requests),
        )


def test_first_crawl_keeps_every_page_once_with_the_fingerprint_the_library_computes(run):
    c = run.first
    assert c.returncode == 0, c.log[-3000:]
    assert c.errors() == []
    urls = c.item_urls()
    assert Counter(urls).most_common(1)[0][1] == 1, "a page was yielded twice"
    assert sorted(map(path_of, urls)) == sorted(TEXT_PATHS)
    # A fresh store: nothing is a duplicate of anything else on the site.
    assert c.real_drops() == []
    pages = offline_fingerprinter()
    by_path = {path_of(i["url"]): i for i in c.items}
    for path in TEXT_PATHS:
        item = by_path[path]
        want = offline_fingerprint(pages, SITE_A[path])
        assert want is not None, path
        assert int(item["fingerprint"], 16) == want, f"{path}: crawl and library disagree"
        assert item["exact"] == (path in ds.SHORT_PATHS), path
        assert item["sliver"] == (pages.of_html_bytes(SITE_A[path].body, SITE_A[path].content_type).sliver
                                  if SITE_A[path].content_type.startswith("text/html") else False), path
        assert item["text_chars"] > 0
    st = c.stats
    assert st["contentseen/stored"] == len(FINGERPRINTABLE)
    assert st["contentseen/checked"] == st["contentseen/stored"] + st.get("contentseen/dropped", 0)
    assert st["contentseen/skipped/type"] == len(ds.BINARY_PATHS)
    assert st["contentseen/checked/exact"] == len(ds.SHORT_PATHS)
    assert st.get("contentseen/checked/sliver", 0) == sum(item["sliver"] for item in c.items)
    assert st["contentseen/skipped/internal"] == 1  # robots.txt is Scrapy's, never judged
    # pages checked by the store's thread in batches: all but those with a second look or a
    # sliver's block alone to look up first
    plain = st["contentseen/checked"] - st.get("contentseen/second_looks", 0) - st.get("contentseen/checked/sliver", 0)
    assert plain <= st["contentseen/store_batched_checks"] <= st["contentseen/checked"]
    assert 1 <= st["contentseen/store_batches"] <= st["contentseen/store_batched_checks"]
    # Every page stored once, after the mirror's different pages; nothing stored by the re-crawl.
    assert len(store_rows(run.store)) == len(FINGERPRINTABLE) + len(ds.DIFFERENT_PATHS)


def test_odd_encodings_broken_html_and_gzip_are_fingerprinted(run):
    items = {path_of(i["url"]): i for i in run.first.items}
    for article, path in (("roman-roads", ds.CP1252_HEADER), ("lighthouse-keepers", ds.META_CHARSET),
                          ("chess-openings", ds.NO_CHARSET), ("urban-beekeeping", ds.BROKEN_HTML),
                          ("solar-ovens", ds.GZIPPED)):
        title = next(a.title for a in ds.ARTICLES if a.slug == article)
        assert items[path]["title"] == f"{title} | {ds.SITE_NAME}", path
        assert items[path]["fingerprint"], path
    # The gzip body was decompressed before the middleware saw it (fingerprint checked above).
    assert run.first.stats["httpcompression/response_count"] == 1
    assert SITE_A[ds.GZIPPED].gzip


def test_non_html_responses_reach_the_spider_untouched(run):
    for path in ds.BINARY_PATHS:
        assert path in run.a_first, f"{path} was not requested"
    dropped = {path_of(d.url) for c in (run.first, run.second, run.again) for d in c.drops}
    assert not dropped & ds.BINARY_PATHS
    assert run.again.stats["contentseen/skipped/type"] == len(ds.BINARY_PATHS)


def test_mirror_crawl_drops_identical_and_near_copies_and_keeps_different_pages(run):
    c = run.second
    assert c.returncode == 0, c.log[-3000:]
    assert c.errors() == []
    items = {path_of(i["url"]): i for i in c.items if i["url"].startswith(run.b)}
    drops = {path_of(d.url): d for d in c.real_drops()}
    assert all(d.url.startswith(run.b) for d in c.drops)
    outcome: dict[str, str] = {}
    for path in ds.MIRROR_LABELS:
        if path in drops:
            outcome[path] = "dropped"
        elif path in items:
            outcome[path] = "kept"
        elif path not in run.b_requests:
            outcome[path] = "unreached"
        elif path in ds.BINARY_PATHS:
            outcome[path] = "type"
        else:
            outcome[path] = "fetched, no item"
    expected = {p: ds.expected_mirror_outcome(p) for p in ds.MIRROR_LABELS}
    assert outcome == expected
    for path, d in drops.items():
        assert d.duplicates == run.a + path, f"{path} dropped as a duplicate of {d.duplicates}"
        assert 0 <= d.distance <= 3
        if ds.MIRROR_LABELS[path] == ds.IDENTICAL:
            assert d.distance == 0, path
    # Per label: all fingerprintable identical and near copies dropped, all different pages kept.
    per_label = Counter((ds.MIRROR_LABELS[p], o) for p, o in outcome.items())
    n_identical = sum(1 for p, lbl in ds.MIRROR_LABELS.items() if lbl == ds.IDENTICAL and expected[p] == "dropped")
    assert per_label[(ds.IDENTICAL, "dropped")] == n_identical
    assert per_label[(ds.NEAR, "dropped")] == len(ds.NEAR_CHANGES)
    assert per_label[(ds.DIFFERENT, "kept")] == len(ds.DIFFERENT_PATHS)
    # Stats and the log agree.
    st = c.stats
    assert st["contentseen/dropped"] == len(c.drops)
    assert st["contentseen/stored"] == len(ds.DIFFERENT_PATHS)
    assert st["contentseen/checked"] == st["contentseen/stored"] + st["contentseen/dropped"]
    by_distance = Counter(d.distance for d in c.drops)
    assert {k: v for k, v in st.items() if k.startswith("contentseen/dropped/distance_")} == {
        f"contentseen/dropped/distance_{k}": v for k, v in by_distance.items()
    }


def test_links_of_a_dropped_page_are_not_followed(run):
    for path, linked_from in ds.ONLY_LINKED_FROM.items():
        assert path in run.a_first  # reached on A, where its only referrer was kept
        assert linked_from in {path_of(d.url) for d in run.second.drops}
        assert path not in run.b_requests, f"{path} requested although {linked_from} was dropped"


def test_second_crawl_with_the_same_store_drops_every_page_seen(run):
    c = run.again
    assert c.returncode == 0, c.log[-3000:]
    assert c.errors() == []
    assert c.items == []
    # Each page is its own URL's stored page: refetched, not "a duplicate of itself".
    assert c.drops == [] and c.stats.get("contentseen/dropped", 0) == 0
    assert c.stats["contentseen/refetched"] == len(FINGERPRINTABLE)
    for path in FINGERPRINTABLE:
        assert (f"ContentSeen: refetched {run.a}{path}: unchanged since it was stored (distance 0); "
                "not followed again (CONTENTSEEN_REVISITS=drop)") in c.log, path
    assert c.stats.get("contentseen/stored", 0) == 0
    # Only the start URLs were fetched: no links of dropped pages followed.
    assert sorted(p for p in run.a_again if p != "/robots.txt") == sorted(map(path_of, run.again_starts))


def test_stats_are_dumped_in_the_log(run):
    for c in (run.first, run.second, run.again):
        assert "Dumping Scrapy stats:" in c.log
        assert "'contentseen/checked':" in c.log
        assert "ContentSeen: store sqlite:///" in c.log
    assert "'contentseen/dropped':" in run.second.log
    assert "'contentseen/skipped/type':" in run.first.log
    assert "'contentseen/checked/exact':" in run.first.log
    assert "ContentSeen: dropped " + run.b + "/articles/tide-pools.html: duplicates " in run.second.log


def test_start_page_is_fetched_once(run):
    assert run.a_first.count("/") == 1
    assert run.first.drops == []


def test_store_made_with_another_scheme_is_refused(run, tmp_path):
    store = tmp_path / STORE_NAME
    shutil.copy(run.store, store)
    rows = store_rows(store)
    with host(SITE_A) as a:
        c = crawl([a.u("/")], tmp_path, store, "CONTENTSEEN_BITS=128", name="bits128")
        assert c.returncode != 0
        assert f"store sqlite:///{store} was made with another fingerprint scheme" in c.log
        # one CRITICAL line says it all: no traceback after it
        assert [e.split("] ", 1)[1][:34] for e in c.errors()] == ["CRITICAL: ContentSeen cannot start"], c.errors()
        assert "bits 64 (store) vs 128 (this crawl)" in c.log
        assert a.requests == [], "the crawl must not start with a store it cannot use"
    assert c.items == []
    assert store_rows(store) == rows


# --------------------------------------------------------------------------------------------
# Both hosts in one crawl; the middleware switched off.

def test_both_hosts_in_one_crawl_keep_each_distinct_page_once(tmp_path):
    with host(SITE_A) as a, host(SITE_B) as b:
        c = crawl([a.u("/"), b.u("/")], tmp_path, tmp_path / STORE_NAME, name="ab")
    assert c.returncode == 0, c.log[-3000:]
    assert c.errors() == []
    assert Counter(c.item_urls()).most_common(1)[0][1] == 1
    kept = {i["url"] for i in c.items if i["fingerprint"]}
    drops = {d.url: d for d in c.real_drops()}
    for path, label in ds.MIRROR_LABELS.items():
        ua, ub = a.u(path), b.u(path)
        if path in ds.BINARY_PATHS:
            assert ua not in drops and ub not in drops
        elif label == ds.DIFFERENT:
            assert {ua, ub} <= kept, path
        elif path in ds.ONLY_LINKED_FROM:
            # Reached only through the copy of its referrer that was kept.
            assert len({ua, ub} & kept) == 1 and not ({ua, ub} & set(drops)), path
        else:
            assert len({ua, ub} & kept) == 1, f"{path}: kept {sorted({ua, ub} & kept)}"
            (gone,) = {ua, ub} - kept
            assert drops[gone].duplicates in {ua, ub} - {gone}
            assert drops[gone].distance <= 3
    assert c.stats["contentseen/stored"] == len(kept)
    assert c.stats["contentseen/dropped"] == len(c.drops)


def test_disabled_middleware_drops_nothing(run, tmp_path):
    store = tmp_path / STORE_NAME
    shutil.copy(run.store, store)  # holds every page: an enabled middleware would drop them all
    rows = store_rows(store)
    with host(SITE_A) as a, host(SITE_B) as b:
        c = crawl([a.u("/"), b.u("/")], tmp_path, store, "CONTENTSEEN_ENABLED=False", name="off")
    assert c.returncode == 0, c.log[-3000:]
    assert c.errors() == []
    assert "ContentSeen:" not in c.log
    assert not [k for k in c.stats if k.startswith("contentseen/")]
    want = {a.u(p) for p in TEXT_PATHS} | {b.u(p) for p in ds.html_paths(SITE_B)}
    assert set(c.item_urls()) == want
    assert store_rows(store) == rows


# --------------------------------------------------------------------------------------------
# kill -9 mid-crawl

def test_sqlite_store_survives_kill_9_mid_crawl(tmp_path):
    n = 40
    site = generated_site(n)
    store = tmp_path / STORE_NAME
    with host(site, delay=0.15) as h:
        cmd = crawl_command([h.u("/")], "killed.jsonl", "sqlite:///" + str(store),
                            ["CONCURRENT_REQUESTS=2"])
        with open(tmp_path / "killed.log", "wb") as log:
            proc = subprocess.Popen(cmd, cwd=tmp_path, env=crawl_env(), stdout=log, stderr=subprocess.STDOUT)
        before: list[tuple[str]] = []

        def stored_8() -> bool:
            nonlocal before
            try:
                before = store_rows(store)
            except sqlite3.Error:
                before = []
            return len(before) >= 8

        assert kill_9_when(proc, stored_8), "the crawl ended before it could be killed"
        assert len(before) >= 8, "the crawl stored too few pages in 60 s"

        with sqlite3.connect(store) as db:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        after = store_rows(store)
        assert after[: len(before)] == before, "rows committed before the kill are gone"
        assert len(after) < n + 1, "the crawl was not killed mid-way"
        stored_paths = {path_of(u) for (u,) in after}

        # The next crawl reuses them: a stored page is refetched (not passed on), unless it was
        # still in flight at the kill (its entry is discarded: tests/test_delivery.py); every
        # other page is kept.
        starts = ["/"] + [f"/p/{i}.html" for i in range(n)]
        c = crawl([h.u(p) for p in starts], tmp_path, store, name="after-kill")
    assert c.returncode == 0, c.log[-3000:]
    assert c.errors() == []
    orphans = c.stats["contentseen/orphans_discarded"]
    assert c.drops == [] and c.stats["contentseen/refetched"] == len(stored_paths) - orphans
    refetched = set(re.findall(r"ContentSeen: refetched (\S+): unchanged since it was stored \(distance 0\)", c.log))
    assert {path_of(u) for u in refetched} <= stored_paths
    assert {path_of(u) for u in c.item_urls()} == set(starts) - {path_of(u) for u in refetched}
    assert c.stats["contentseen/stored"] == len(starts) - len(refetched)
    assert len(store_rows(store)) == len(starts)


# --------------------------------------------------------------------------------------------
# Crawling a site again for what is new: CONTENTSEEN_REVISITS.

NEW_ARTICLE = ds.Article(
    "moth-trapping", "science", "Counting Moths by Lamplight in a Suburban Garden", "Ines Okafor",
    "3 May 2024", "A volunteer survey finds more species than anyone expected.", ("science", "nature"),
    "Every Friday from April to October, a white sheet and a mercury-vapour lamp go up behind a "
    "terraced house, and by dawn the egg boxes beneath them hold a census of the night.\n\n"
    "The volunteers log each moth by species and release it at dusk the following evening. "
    "Over three summers they recorded more than two hundred species, among them hawk-moths "
    "that feed on the honeysuckle along the railway embankment.\n\n"
    "Entomologists at the county museum say such records fill gaps that professional surveys "
    "cannot reach, because private gardens are where most suburban land actually lies.",
)


def test_revisits_follow_finds_new_pages_behind_unchanged_ones_and_drop_stops(tmp_path):
    store = tmp_path / STORE_NAME
    site = dict(SITE_A)
    with host(site) as a:
        first = crawl([a.u("/")], tmp_path, store, name="r1")
        assert first.returncode == 0, first.log[-3000:]
        # A new article, linked (by a link without text: the index's text stays the same) from the
        # unchanged index page.
        site[NEW_ARTICLE.path] = ds.Page("text/html; charset=utf-8", ds.article_page(NEW_ARTICLE).encode())
        index = site[ds.INDEX]
        site[ds.INDEX] = index._replace(body=index.body.replace(
            b"</body>", f'<a href="{NEW_ARTICLE.path}"></a></body>'.encode()))

        mark = a.mark()
        dropping = crawl([a.u("/")], tmp_path, store, name="r2-drop")
        assert dropping.returncode == 0, dropping.log[-3000:]
        assert dropping.items == [] and dropping.drops == [] and dropping.stats["contentseen/refetched"] == 1
        assert NEW_ARTICLE.path not in a.since(mark)  # the index's links were not followed

        following = crawl([a.u("/")], tmp_path, store, "CONTENTSEEN_REVISITS=follow", name="r2-follow")
        assert following.returncode == 0, following.log[-3000:]
        assert following.errors() == []
    # New content is kept; every stored page (short ones too) is unchanged.
    assert sorted(path_of(u) for u in following.item_urls()) == [NEW_ARTICLE.path]
    assert following.drops == []
    revisited = following.stats["contentseen/revisited"]
    assert revisited == len(first.items)
    assert following.stats["contentseen/revisit_items_dropped"] == revisited
    assert following.stats["contentseen/stored"] == 1
    assert f"ContentSeen: {a.u('/')} is unchanged since it was stored (distance 0)" in following.log


@pytest.mark.parametrize("start_urls,message", [
    ([], "give -a start_urls=URL[,URL...]"),
    (["example.org/news"], "start_urls: 'example.org/news' is not an http:// or https:// URL"),
])
def test_bad_start_urls_are_one_line_and_exit_1(tmp_path, start_urls, message):
    c = crawl(start_urls, tmp_path, tmp_path / STORE_NAME, name="bad-start")
    assert c.returncode == 1
    assert [e.split("] ", 1)[1] for e in c.errors()] == [f"CRITICAL: spider site cannot start: {message}"]
