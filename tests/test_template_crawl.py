"""Real crawls: a mirror that adds one line to every page it serves.

Host A serves short pages (40 words each); host B serves the same pages with a mirror line
between the two paragraphs of each page's ``<main>`` (not at its edges, which extraction leaves
out since v11): a line that moves a short page's content fingerprint past the distance on most
pages; or, in the second mirror, a
cookie notice after ``<main>``, which moves the whole-page fingerprint past its distance. Crawled
after A into the same store, B's pages are dropped once the line is B's own template (seen on
``MIN_PAGES`` of its pages), each as a copy of its own page on A; with ``CONTENTSEEN_TEMPLATES=0`` most of them are kept. Nothing
is lost either way.
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
NOTICE = ("We use cookies to remember your preferences and to count visits. By continuing to browse this "
          "site you agree to our use of cookies. Read our privacy policy to learn more.")


BREADTH_FIRST = ("CONCURRENT_REQUESTS=1", "DEPTH_PRIORITY=1", "SCHEDULER_DISK_QUEUE=scrapy.squeues.PickleFifoDiskQueue",
                 "SCHEDULER_MEMORY_QUEUE=scrapy.squeues.FifoMemoryQueue")
MENU = "".join(f"<li><a href='/topic/{j}.html'>Orchard survey topic number {j}</a></li>" for j in range(60))


def site(mirror: bool, notice: bool | None = None) -> dict[str, Page]:
    """The pages of host A (``mirror`` false) or B; ``notice`` not None: the site whose pages are
    a sliver beside a menu, and B's cookie notice after each."""
    line = f"<p class='mirror-note'>{MIRROR_LINE}</p>" if mirror and notice is None else ""
    after = f"<div id='cookie-notice'>{NOTICE} <button>OK</button></div>" if mirror and notice else ""
    pages = {}
    for i in range(N):
        rng = random.Random(i)
        text = " ".join(f"{rng.choice(WORDS)}{rng.randrange(40)}" for _ in range(40))
        if notice is None:
            half = len(text) // 2
            body = (f"<nav><a href='/'>Home</a></nav><main><h1>Note {i}</h1><p>{text[:half]}</p>{line}"
                    f"<p>{text[half:]}</p></main>")
        else:  # a menu of links beside a short text marked by no <main>: the text is a sliver
            body = f"<ul>{MENU}</ul><div class='note'><h1>Note {i}</h1><p>{text}</p></div>{after}"
        html = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Note {i}</title></head><body>"
                f"{body}</body></html>")
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
    with host(site(False)) as a, host(site(True)) as b, host(site(False, True)) as a2, host(site(True, True)) as b2:
        for name, origin, mirror, settings in (
                ("on", a, b, ()), ("off", a, b, ("CONTENTSEEN_TEMPLATES=0",)),
                ("notice", a2, b2, ()), ("notice-off", a2, b2, ("CONTENTSEEN_TEMPLATES=0",))):
            work = tmp_path_factory.mktemp(f"templates-{name}")
            store = work / "fp.sqlite"
            if name.startswith("notice"):
                # One process crawls both hosts (what it learns is not kept between processes):
                # the menu's lines, template on both, are the site's own and stay in B's pages.
                # Breadth first, one request at a time: A's pages, then B's.
                first = None
                second = crawl([origin.u("/"), mirror.u("/")], work, store, *settings, *BREADTH_FIRST, name="ab")
            else:
                # One request at a time: how many of B's pages are decided before its line is
                # learned must not hang on how the store's thread and the reactor's interleave (the
                # parse lets the store's thread run since it releases the GIL).
                first = crawl([origin.u("/")], work, store, *settings, "CONCURRENT_REQUESTS=1", name="a")
                second = crawl([mirror.u("/")], work, store, *settings, "CONCURRENT_REQUESTS=1", name="b")
            out[name] = (origin.url, mirror.url, first, second)
    return out


@pytest.mark.parametrize("mirror", ["on", "notice"])
def test_mirror_pages_are_dropped_as_copies_of_their_own_page_once_the_line_is_template(crawls, mirror):
    a, b, first, second = crawls[mirror]
    for c in filter(None, (first, second)):
        assert c.returncode == 0 and c.errors() == [], c.log[-3000:]
    if first is not None:
        assert first.drops == [] and len(first.items) == N + 1
    assert all(d.url.startswith(b) for d in second.drops)  # A's pages all kept
    notes = [d for d in second.drops if path_of(d.url).startswith("/n/")]
    for d in notes:
        assert d.duplicates == a + path_of(d.url), d  # its own page on A, never another
    # the line mirror: all but the first pages, before the line is learned; the notice mirror: a
    # notice beside a sliver changes which block its page's extraction takes on some pages, and
    # their second look meets their own page at more than SECOND_LOOK_DISTANCE (9 of 14 measured,
    # 6 without the learning)
    least = N - (MIN_PAGES - 1) if mirror == "on" else 8
    assert len(notes) >= least, [path_of(d.url) for d in notes]
    lines = [line for line in second.log.splitlines() if "line(s) of its host's template" in line]
    assert lines and all(line.split("ContentSeen: dropped ", 1)[1].startswith(b) for line in lines)
    assert second.stats.get("contentseen/dropped/template", 0) == len(lines)
    assert second.stats.get("contentseen/second_looks", 0) >= len(lines)
    # nothing lost: every page of B gives an item or a drop line
    fates = {path_of(i["url"]) for i in second.items if i["url"].startswith(b)} | {path_of(d.url) for d in second.drops}
    assert fates == set(site(True, True if mirror == "notice" else None))


@pytest.mark.parametrize("mirror", ["on", "notice"])
def test_without_templates_most_mirror_pages_are_kept(crawls, mirror):
    on, off = crawls[mirror][3], crawls[mirror + "-off" if mirror != "on" else "off"][3]
    assert off.returncode == 0 and off.errors() == [], off.log[-3000:]
    assert "contentseen/dropped/template" not in off.stats and "contentseen/second_looks" not in off.stats
    assert len(off.drops) < len(on.drops)
    assert len([i for i in off.items if i["url"].startswith(crawls[mirror][1])]) + len(off.drops) == N + 1
