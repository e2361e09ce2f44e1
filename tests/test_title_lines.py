"""A line a mirror adds under a page's title, inside the element holding the title.

javadoc 17 puts a page's ``<h1>`` in its own ``<div class="header">`` at the top of ``<main>``;
DocBook's title page puts it in nested ``<div>`` elements above the authors. A mirror's "Last
updated" line printed under the title lands in that element. The edge rules pass the title's
element over (it tells two short pages apart), so the line stayed in the content and moved a
235-word javadoc page 4 bits and a 120-word title page 5: the copies were kept. Since extraction
v20 such lines, after the ``<h1>`` in the element holding only the title and them, are left out
of the content (``Extractor.title_lines``), where the content holds at least a line's worth more.
"""

from __future__ import annotations

import random

import pytest
from sites import decide_all

from contentseen.fingerprints import Scheme, same_page
from contentseen.text import Extractor

WORDS = ("value builder returns function predicate interface class method field package string object instance "
         "argument result exception type generic parameter default compare equal hash order element list map "
         "set key entry test apply accept throws failable supplier consumer runnable callable").split()
STAMP = '<p class="last-updated">Last updated: 2025-03-20 10:02 UTC</p>'


def _sentences(rnd: random.Random, n: int) -> str:
    return " ".join(" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(6, 12))).capitalize() + "." for _ in range(n))


def javadoc(name: str, stamp: str = "") -> str:
    """A javadoc 17 page of class ``name``: its title in the header's own element, then its
    description and members (``stamp`` under the title)."""
    rnd = random.Random(name)
    rows = "".join(f'<div class="col-first"><code>{rnd.choice(WORDS)}</code></div><div class="col-last">'
                   f'<div class="block">{_sentences(rnd, 1)}</div></div>' for _ in range(8))
    return ('<!DOCTYPE HTML><html lang="en"><head><title>' + name + '</title></head><body class="class-use-page">'
            '<div class="flex-box"><header role="banner" class="flex-header"><nav role="navigation"><a href="../index.html">'
            'Overview</a> <a href="package-summary.html">Package</a> <a href="#">Use</a></nav></header>'
            '<div class="flex-content"><main role="main"><div class="header"><h1 title="Class ' + name + '" class="title">'
            f'Class {name}</h1>{stamp}</div><div class="block">{_sentences(rnd, 4)}</div><div class="summary-table">'
            f'{rows}</div></main><footer role="contentinfo"><p class="legal-copy">Copyright 2024 The Foundation.</p>'
            '</footer></div></div></body></html>')


def title_page(book: str, stamp: str = "") -> str:
    """A DocBook book's title page (no ``<main>``): the title in nested ``<div>`` elements, the
    authors, the copyright lines and a legal notice, then the table of contents."""
    rnd = random.Random(book)
    authors = "".join(f'<div class="author"><h3 class="author">{a}</h3><code class="email">&lt;{a.split()[0].lower()}'
                      f'@example.org&gt;</code></div>' for a in rnd.sample(["Ana Ruiz", "Josip Rodin", "Osamu Aoki",
                                                                           "Craig Small", "Lena Berg"], 3))
    toc = "".join(f'<dt><span class="chapter"><a href="ch{k}.html">{k}. {_sentences(rnd, 1)}</a></span></dt>'
                  for k in range(1, 9))
    return ('<!DOCTYPE html><html><head><title>' + book + '</title></head><body><div class="book"><div class="titlepage">'
            f'<div><div><h1 class="title">{book}</h1>{stamp}</div><div><div class="authorgroup">{authors}</div></div>'
            f'<div><p class="releaseinfo">version 1.2.{rnd.randint(10, 60)}</p></div><div><p class="copyright">'
            f'Copyright 2005-2015 {rnd.choice(["Osamu Aoki", "Craig Small"])}</p></div><div><div class="legalnotice">'
            f'<p>{_sentences(rnd, 5)}</p></div></div></div></div><hr><div class="toc"><p><b>Contents</b></p><dl>'
            f'{toc}</dl></div></div></body></html>')


CLASSES = ["FailablePredicate", "DiffResult", "CircuitBreakingException", "Builder", "ArchUtils", "Processor"]
BOOKS = ["Guide for new maintainers", "Developers reference", "Policy manual", "Securing Debian", "Release notes"]


@pytest.mark.parametrize("make,names", [(javadoc, CLASSES), (title_page, BOOKS)], ids=["javadoc", "title page"])
def test_a_line_under_the_title_leaves_the_content_as_it_was(make, names):
    pf = Scheme().build()
    for name in names:
        page, stamped = pf.extractor.texts(make(name)), pf.extractor.texts(make(name, STAMP))
        assert page.content == stamped.content and "Last updated" in stamped.whole
        assert name in page.content  # the title itself stays


@pytest.mark.parametrize("make,names", [(javadoc, CLASSES), (title_page, BOOKS)], ids=["javadoc", "title page"])
def test_the_stamped_copies_are_dropped_and_every_page_kept(make, names):
    site = [(f"http://docs.test/{k}.html", make(name)) for k, name in enumerate(names)]
    mirror = [(url.replace("docs.test", "mirror.test"), make(name, STAMP)) for (url, _), name in zip(site, names)]
    decisions = decide_all(site + mirror)
    assert [d.outcome for d in decisions[:len(site)]] == ["kept"] * len(site)
    assert [d.match.url if d.outcome == "dropped" else d.outcome for d in decisions[len(site):]] == [u for u, _ in site]


def test_the_copies_were_kept_without_the_rule():
    # the fixture is the case: under v19 some stamped copies were beyond the distance
    old, new = Scheme(extractor=Extractor(title_lines=False)).build(), Scheme().build()
    pairs = [(javadoc(n), javadoc(n, STAMP)) for n in CLASSES] + [(title_page(b), title_page(b, STAMP)) for b in BOOKS]
    assert not all(same_page(old.of_html(a), old.of_html(b), old.scheme) for a, b in pairs)
    assert all(same_page(new.of_html(a), new.of_html(b), new.scheme) for a, b in pairs)


def test_a_page_that_is_little_more_than_its_title_keeps_the_line():
    # a photo's page: its title and the line under it are most of its content; left out, two
    # photos taken in other places by others would be one page
    def photo(place: str, author: str) -> str:
        return (f'<html><body><nav><a href="/">Gallery</a></nav><main><div class="head"><h1>Harbour at dawn</h1><p>Taken '
                f'at {place} in May by {author}</p></div><img src="/p/{place}.jpg"><p>Fishing boats.</p></main>'
                '</body></html>')

    pf = Scheme().build()
    assert "Taken at Brest in May" in pf.extractor.texts(photo("Brest", "Lena Berg")).content
    photos = [(f"http://photos.test/{p}", photo(p, a)) for p, a in (("Brest", "Lena Berg"), ("Quimper", "Ana Ruiz"))]
    assert [d.outcome for d in decide_all(photos)] == ["kept"] * 2


def test_only_a_title_has_its_lines_left_out():
    # a section's heading above a line (DocBook's "Name" above a reference page's name and
    # purpose) is no title; and a title's element holding text before it (a kicker) is no
    # title's own element
    pf = Scheme().build()
    filler = f"<p>{_sentences(random.Random(1), 8)}</p>"
    refname = ('<html><body><main><div class="refnamediv"><h2>Name</h2><p>pam_start - initialize a transaction</p>'
               f'</div>{filler}</main></body></html>')
    assert "pam_start" in pf.extractor.texts(refname).content
    kicker = ('<html><body><main><div class="head"><span>Opinion</span><h1>On harbours</h1><p>By Lena Berg</p></div>'
              f'{filler}</main></body></html>')
    assert "By Lena Berg" in pf.extractor.texts(kicker).content
    # nor is an element holding the title's element: a byline further up stays in the story
    # whether or not a line was added beside the title (the Telegraph's page, readability's: left
    # out where it was the line's worth above the title's element, kept once the added line
    # made it more, and the copy was 5 bits away)
    byline = ("By Lena Berg, harbour correspondent in Brest, with reporting by Ana Ruiz in Quimper and Josip Rodin in "
              "Lorient; photographs by Osamu Aoki for the harbour desk of the western edition, with maps by Craig Small")
    nested = ('<html><body><main><header><div class="headline"><h1>On harbours</h1>{}</div><p class="byline">'
              f'{byline}</p></header>{filler}</main></body></html>')
    page, stamped = pf.extractor.texts(nested.format("")), pf.extractor.texts(nested.format(STAMP))
    assert "By Lena Berg" in page.content and page.content == stamped.content
