"""A mirror's additions make a short page a sliver: its copy is found by its content block alone.

Host A serves short notes (40 words) beside a menu of 46 links that no landmark marks: each
note's block holds a little more than a fifth of its page's text, so it is fingerprinted alone.
Host B serves the same notes with a banner line before the menu and a footer line after the note,
worded per page: the note now holds less than a fifth of the text, the page is a sliver, and its
content fingerprint counts its whole text too (distance 10-20 from its own page on A). Crawled
after A into the same store, B's notes are dropped as copies of their own pages by the
fingerprint of their block alone (``PageFingerprints.alone``); a different note of B beside the
same menu and lines is kept, and so is every page of A.
"""

from __future__ import annotations

import random

import pytest
from sites import both_clean, crawl, host, path_of

from contentseen.demosite import Page
from contentseen.fingerprints import ALONE_SHARE, ALONE_WORDS, Scheme

N = 14
WORDS = ("harbour lantern orchard meadow copper violin saddle quarry thimble walnut falcon ember "
         "glacier pepper ribbon anchor candle marble willow hazel cobalt fennel juniper pebble").split()
MENU = "".join(f"<li><a href='/topic/{j}.html'>Orchard survey topic number {j}</a></li>" for j in range(46))


def note(i: int, mirror: bool, seed: int | None = None) -> str:
    """Note ``i`` (its words drawn from ``seed``, default ``i``) as host A or the mirror B serves it."""
    rng = random.Random(i if seed is None else seed)
    text = " ".join(f"{rng.choice(WORDS)}{rng.randrange(40)}" for _ in range(40))
    banner = (f"<div class='mirror-banner'>Mirrored page {i}: served by the Oakridge University mirror network; "
              f"the original may be newer.</div>" if mirror else "")
    footer = (f"<p class='mirror-footer'>Copied on day {i} by the nightly mirror job of the university "
              f"library.</p>" if mirror else "")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Note {i}</title></head><body>{banner}"
            f"<ul class='menu'>{MENU}</ul><div class='note'><h1>Note {i}</h1><p>{text}</p></div>{footer}"
            f"</body></html>")


def site(mirror: bool) -> dict[str, Page]:
    pages = {f"/n/{i}.html": Page("text/html; charset=utf-8", note(i, mirror).encode()) for i in range(N)}
    if mirror:  # a note of B's own, beside the same menu and lines
        pages["/n/own.html"] = Page("text/html; charset=utf-8", note(N, True, seed=1000).encode())
    links = "".join(f"<li><a href='{p}'>{p}</a></li>" for p in pages)
    intro = ("Oakridge University hosts this mirror for its students and staff, refreshed every night."
             if mirror else "Field notes from the orchard survey, one page a plot.")
    pages["/"] = Page("text/html; charset=utf-8", f"<!DOCTYPE html><html><head><title>Notes</title></head><body>"
                      f"<main><h1>Notes</h1><p>{intro}</p><ul>{links}</ul></main></body></html>".encode())
    return pages


def test_the_pages_are_what_the_case_needs():
    """A's notes are no slivers, B's are, with blocks the lookup trusts: the crawl below tests
    the lookup, not the extraction."""
    pages = Scheme().build()
    for i in range(N):
        a, b = pages.of_html(note(i, False)), pages.of_html(note(i, True))
        assert not a.sliver and a.alone is None, (i, a.share)
        assert b.sliver and b.share >= ALONE_SHARE and b.word_count >= ALONE_WORDS, (i, b.share)
        assert (a.fingerprint ^ b.fingerprint).bit_count() > 3 and b.alone == a.fingerprint, i


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory):
    with host(site(False)) as a, host(site(True)) as b:
        work = tmp_path_factory.mktemp("sliver")
        store = work / "fp.sqlite"
        first = crawl([a.u("/")], work, store, name="a")
        second = crawl([b.u("/")], work, store, name="b")
        yield a.url, b.url, first, second


def test_a_copy_made_a_sliver_by_its_mirror_is_dropped_by_its_block_alone(crawls):
    a, b, first, second = crawls
    both_clean(first, second, N + 1)
    notes = {path_of(d.url): d for d in second.drops if path_of(d.url).startswith("/n/")}
    assert sorted(notes) == sorted(f"/n/{i}.html" for i in range(N))
    for path, d in notes.items():
        assert d.duplicates == a + path, d  # its own page on A, never another
    lines = [line for line in second.log.splitlines() if "by its content block alone" in line]
    assert len(lines) == N and second.stats.get("contentseen/dropped/block_alone") == N
    assert second.stats.get("contentseen/checked/sliver", 0) >= N + 1
    # the note of B's own is kept, and so is B's home page: nothing lost
    assert {path_of(i["url"]) for i in second.items} == {"/", "/n/own.html"}
