"""Real crawls: a mirror that adds one line inside the content of every page it serves.

Host A serves short pages (40 words each); host B serves the same pages with a mirror line under
each page's title, inside ``<main>``: a line that moves a short page's content fingerprint past
the distance on most pages. Crawled after A into the same store, B's pages are dropped once the
line is B's template (seen on ``MIN_PAGES`` of its pages), each as a copy of its own page on A;
with ``CONTENTSEEN_TEMPLATES=0`` most of them are kept. Nothing is lost either way.
"""

from __future__ import annotations

import random

import pytest
from sites import crawl, host, path_of

from contentseen.demosite import Page
from contentseen.templates import MIN_PAGES

N = 14
WORDS = ("harbour lantern orchard meadow copper violin saddle quarry thimble walnut falcon ember "
         "glacier pepper ribbon anchor candle marble willow hazel cobalt fennel juniper pebble").split()
MIRROR_LINE = "You are reading the Oakridge mirror of these notes; the original may be more recent."


def site(mirror: bool) -> dict[str, Page]:
    line = f"<p class='mirror-note'>{MIRROR_LINE}</p>" if mirror else ""
    pages = {}
    for i in range(N):
        rng = random.Random(i)
        text = " ".join(f"{rng.choice(WORDS)}{rng.randrange(40)}" for _ in range(40))
        html = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Note {i}</title></head><body>"
                f"<nav><a href='/'>Home</a></nav><main><h1>Note {i}</h1>{line}<p>{text}</p></main></body></html>")
        pages[f"/n/{i}.html"] = Page("text/html; charset=utf-8", html.encode())
    links = "".join(f"<li><a href='/n/{i}.html'>Note {i}</a></li>" for i in range(N))
    # The mirror's home page is its own (a copy of A's would be dropped, its links not followed).
    intro = ("<p>Oakridge University hosts this mirror for its students and staff; it is refreshed from the "
             "primary server every night, and outages are announced on the university's status board.</p>"
             if mirror else "<p>Field notes from the orchard survey, one page a plot.</p>")
    pages["/"] = Page("text/html; charset=utf-8", f"<!DOCTYPE html><html><head><title>Notes</title></head><body>"
                      f"<main><h1>Notes</h1>{intro}<ul>{links}</ul></main></body></html>".encode())
    return pages


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory):
    out = {}
    with host(site(False)) as a, host(site(True)) as b:
        for name, settings in (("on", ()), ("off", ("CONTENTSEEN_TEMPLATES=0",))):
            work = tmp_path_factory.mktemp(f"templates-{name}")
            store = work / "fp.sqlite"
            first = crawl([a.u("/")], work, store, *settings, name="a")
            second = crawl([b.u("/")], work, store, *settings, name="b")
            out[name] = (a.url, b.url, first, second)
    return out


def test_mirror_pages_are_dropped_as_copies_of_their_own_page_once_the_line_is_template(crawls):
    a, b, first, second = crawls["on"]
    for c in (first, second):
        assert c.returncode == 0 and c.errors() == [], c.log[-3000:]
    assert first.drops == [] and len(first.items) == N + 1
    notes = [d for d in second.drops if path_of(d.url).startswith("/n/")]
    for d in notes:
        assert d.duplicates == a + path_of(d.url), d  # its own page on A, never another
    assert len(notes) >= N - (MIN_PAGES - 1), [path_of(d.url) for d in notes]
    lines = [line for line in second.log.splitlines() if "line(s) of its host's template" in line]
    assert lines and all(line.split("ContentSeen: dropped ", 1)[1].startswith(b) for line in lines)
    assert second.stats.get("contentseen/dropped/template", 0) == len(lines)
    # nothing lost: every page of B gives an item or a drop line
    fates = {path_of(i["url"]) for i in second.items} | {path_of(d.url) for d in second.drops}
    assert fates == set(site(True))


def test_without_templates_most_mirror_pages_are_kept(crawls):
    on, off = crawls["on"][3], crawls["off"][3]
    assert off.returncode == 0 and off.errors() == [], off.log[-3000:]
    assert "contentseen/dropped/template" not in off.stats
    assert len(off.drops) < len(on.drops)
    assert len(off.items) + len(off.drops) == N + 1
