"""Fuzzing extraction: ``Scheme().build().of_html_bytes(body, content_type)`` and
``text.visible_text(html)`` never raise, and stay fast, whatever HTML a crawl meets.

* generated documents (hypothesis): random tags in random case, attributes quoted every way,
  text in many scripts and control characters (NUL included), comments, CDATA, entities valid
  and not, processing instructions, doctypes anywhere, raw-text elements, stray ``<`` and ``&``;
  encoded in several charsets, declared or not, with invalid UTF-8 and NUL bytes spliced in;
* real pages (the demo magazine and the hostile site) cut at any byte;
* every doctype form in front of the same pages: the text and fingerprint do not depend on it;
* deep nesting (10k-60k unclosed elements, up to 1 MB), huge pages (up to 9 MB) and markup
  the tree builder reads in quadratic time (many attributes, a long ``<select>``), each run
  in a worker process so that a page that hangs the parser fails its test after a timeout
  instead of stalling the whole run: under ``DEEP_BOUND_S`` a page of at most 1 MB, under
  ``HUGE_BOUND_S_PER_MB`` per MB above that.

Times are the CPU time of the calling thread (what a page costs Scrapy's reactor thread), best
of two runs when the first is over the bound, so that other work on the machine does not fail
the tests; a page that hangs still fails them.

``derandomize=True``: the examples are the same on every run and every machine.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import hostile_site as hs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contentseen import demosite, parse
from contentseen.fingerprints import PageFingerprints, Scheme
from contentseen.text import Extractor, visible_text

PAGES = Scheme().build()
BITS = PAGES.scheme.bits

SMALL_BOUND_S = 0.5         # any generated or truncated page (a few KB to 100 KB)
DEEP_BOUND_S = 0.5          # a deep or huge page of at most 1 MB
HUGE_BOUND_S_PER_MB = 0.5   # above 1 MB
WORKER_TIMEOUT_FACTOR = 10  # a case is abandoned (and fails) after 10 times its bound, 5 s at least

FUZZ = settings(
    deadline=None,  # timed by the tests themselves, with one retry against load spikes
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def timed(fn: Callable[[], object], bound: float) -> tuple[object, float]:
    """``fn()`` and its cost: the CPU time of this thread (the reactor thread's share in a crawl;
    other processes on a busy machine do not count), run once more when over ``bound``, keeping
    the lower time."""
    t = time.thread_time()
    result = fn()
    elapsed = time.thread_time() - t
    if elapsed > bound:
        t = time.thread_time()
        fn()
        elapsed = min(elapsed, time.thread_time() - t)
    return result, elapsed


def check_page(body: bytes, content_type: str | None, html: str | None = None, bound: float = SMALL_BOUND_S) -> PageFingerprints:
    """The page goes through both functions without an exception, within ``bound`` each, and
    gets the same fingerprint twice."""
    fp, seconds = timed(lambda: PAGES.of_html_bytes(body, content_type), bound)
    assert isinstance(fp, PageFingerprints)
    assert fp.fingerprint is None or 0 <= fp.fingerprint < 1 << BITS
    assert seconds < bound, f"of_html_bytes cost {seconds:.3f} s of CPU for {len(body):,} bytes"
    assert PAGES.of_html_bytes(body, content_type) == fp, "the same bytes got another fingerprint"
    if html is None:
        html = body.decode("utf-8", "replace")
    for mode in ("main", "body"):
        text, seconds = timed(lambda: visible_text(html, mode), bound)
        assert isinstance(text, str)
        assert seconds < bound, f"visible_text({mode}) cost {seconds:.3f} s of CPU for {len(html):,} characters"
    return fp


# --------------------------------------------------------------------------------------------
# Generated documents

TAGS = """html head body title meta link base style script noscript template main article section nav
header footer aside div span p a b i u em strong font center br hr img input button select option
optgroup textarea label form fieldset legend table caption thead tbody tfoot tr td th col colgroup ul
ol li dl dt dd pre code blockquote q h1 h2 h3 h4 h5 h6 iframe object embed param canvas svg math mi
g path foreignObject frameset frame noframes xmp plaintext listing nobr ruby rb rt rp details summary
dialog picture source video audio track map area sup sub small big tt marquee applet isindex image
custom-element x-y""".split()

DOCTYPES = [
    "<!DOCTYPE html>",
    "<!doctype html>",
    '<!DOCTYPE html SYSTEM "about:legacy-compat">',
    "<!doctype html system 'about:legacy-compat'>",
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">',
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN">',
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">',
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">',
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Frameset//EN" "http://www.w3.org/TR/html4/frameset.dtd">',
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Frameset//EN">',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Frameset//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-frameset.dtd">',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">',
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">',
    '<!DOCTYPE html SYSTEM "http://www.w3.org/TR/html4/strict.dtd">',
    '<!DOCTYPE html SYSTEM "">',
    '<!DOCTYPE html PUBLIC "" "">',
    "<!DOCTYPE html SYSTEM>",
    "<!DOCTYPE html PUBLIC>",
    "<!DOCTYPE>",
    "<!DOCTYPE foo>",
    "<!DOCTYPEhtml>",
    '<!DOCTYPE html SYSTEM "about:legacy-compat"',  # unclosed
    "<!DOCTYPE html [<!ENTITY x 'y'>]>",  # ends at the first '>': ']>' is text
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html SYSTEM "about:legacy-compat">',
    "\ufeff<!DOCTYPE html>",
]

PHRASES = [
    "the tide pools at low water", "Нижний Новгород, набережная", "市立図書館の開館時間",
    "Ο συνεταιρισμός του χωριού", "مكتبة المدينة العامة", "ספרייה עירונית", "पुस्तकालय का समय",
    "ห้องสมุดประจำเมือง", "도서관 개관 시간", "naïve café façade", "🙂🚋🇬🇷 emoji", "a\u0301e\u0308 combining",
    "zero\u200bwidth\u200djoin", "bidi \u202eoverride\u202c", "line\u2028sep", "2024-06-18 4.2.1",
    "\x00", "\x0c\x0b\r\n\t", "\xa0\u3000", "\ufffd", "\U0010fffd",
]

texts = st.one_of(
    st.sampled_from(PHRASES),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=40),
    st.text(st.sampled_from("abc xyz<>&;\"'=/!-[]?"), max_size=20),
)
tag_names = st.one_of(
    st.sampled_from(TAGS),
    st.sampled_from(TAGS).map(str.upper),
    st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz-:0"), min_size=1, max_size=8),
)
attr_values = st.one_of(st.sampled_from(["main", "navigation", "banner", "true", "hidden", "#", "/x?a=1&b=2",
                                          "javascript:void(0)", "a>b", 'q"q', "", "x" * 300]), texts)


@st.composite
def attributes(draw) -> str:
    out = []
    for _ in range(draw(st.integers(0, 3))):
        name = draw(st.sampled_from(["role", "hidden", "aria-hidden", "class", "id", "href", "src", "style",
                                     "lang", "charset", "http-equiv", "content", "type", "x", "=", "a\"b"]))
        value = draw(attr_values)
        quote = draw(st.sampled_from(['"', "'", "", None]))
        if quote is None:
            out.append(f" {name}")
        else:
            out.append(f" {name}={quote}{value}{quote}")
    return "".join(out)


ENTITIES = ["&amp;", "&lt;", "&gt;", "&nbsp;", "&eacute;", "&notin;", "&amp", "&AMP;", "&unknown;", "&#0;",
            "&#65;", "&#x41;", "&#x110000;", "&#xD800;", "&#99999999999;", "&#x;", "&#;", "&", "&#128;",
            "&CounterClockwiseContourIntegral;", "&not", "&notit;"]


@st.composite
def pieces(draw) -> str:
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return f"<{draw(tag_names)}{draw(attributes())}{draw(st.sampled_from(['', '/', ' /']))}>"
    if kind == 1:
        return f"</{draw(tag_names)}>"
    if kind in (2, 3):
        return draw(texts)
    if kind == 4:
        return draw(st.sampled_from(["<!--{}-->", "<!--{}", "<!-->{}", "<!--->{}", "<!---->{}", "<!--{}--!>",
                                     "<!--{}<!--nested-->-->"])).format(draw(texts))
    if kind == 5:
        return draw(st.sampled_from(["<![CDATA[{}]]>", "<![CDATA[{}", "<svg><![CDATA[{}]]></svg>"])).format(draw(texts))
    if kind == 6:
        return draw(st.sampled_from(ENTITIES))
    if kind == 7:
        return draw(st.sampled_from(['<?xml version="1.0"?>', "<?php echo 1 ?>", "<?", "<!>", "<!x>", "</>",
                                     "<>", "< div>", "<3", "</ div>", "<a<b>", "<div =x>", "<", "</", "<!", "<!-",
                                     "<div", '<a href="x', "<p class='", "</body></html>", "<html><body>"]))
    if kind == 8:
        return draw(st.sampled_from(DOCTYPES))
    if kind == 9:
        raw = draw(st.sampled_from(["script", "style", "textarea", "title", "xmp", "noscript", "iframe",
                                    "noembed", "noframes", "template"]))
        close = draw(st.sampled_from([f"</{raw}>", f"</{raw.upper()} >", ""]))
        return f"<{raw}>{draw(texts)}{close}"
    if kind == 10:
        return draw(st.sampled_from(["<table><tr><td>", "<p><table>", "<select><option>", "<ul><li>", "<li>",
                                     "<frameset><frame>", "<math><mi>", "<svg><foreignObject>", "<a><a>",
                                     "<b><i></b></i>", "<form><form>", "<body hidden>", "<main hidden>"]))
    return draw(tag_names).join(["<", ">"]) * draw(st.integers(1, 40))  # a short run of one start tag


@st.composite
def documents(draw) -> str:
    head = draw(st.sampled_from([""] + DOCTYPES))
    body = "".join(draw(st.lists(pieces(), max_size=60)))
    if draw(st.booleans()):
        body = f"<html><head><title>{draw(texts)}</title></head><body>{body}</body></html>"
    return head + body


CONTENT_TYPES = [None, "", "text/html", "text/html; charset=utf-8", "text/html; charset=UTF-8",
                 "text/html; charset=iso-8859-1", "text/html; charset=windows-1252", "text/html; charset=shift_jis",
                 "text/html; charset=koi8-r", "text/html; charset=utf-16", "text/html; charset=utf-32",
                 "text/html; charset=x-user-defined", "text/html; charset=bogus-9", "text/html; charset=",
                 "text/html; charset=\"utf-8\"", "application/xhtml+xml", "text/plain"]
ENCODINGS = ["utf-8", "utf-16", "utf-16-be", "windows-1252", "shift_jis", "koi8-r", "gb18030", "iso-8859-7"]
BAD_BYTES = [b"\x00", b"\xff", b"\xfe", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82",
             b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x80\x81\x82", b"\x1b$B", b"\r", b"<\x00d\x00i\x00v\x00>"]


@settings(FUZZ, max_examples=400)
@given(documents())
def test_generated_html_as_text(html):
    check_page(html.encode("utf-8", "replace"), "text/html; charset=utf-8", html)


@settings(FUZZ, max_examples=250)
@given(documents(), st.sampled_from(ENCODINGS), st.sampled_from(CONTENT_TYPES))
def test_generated_html_in_any_encoding_and_content_type(html, encoding, content_type):
    check_page(html.encode(encoding, "replace"), content_type)


@settings(FUZZ, max_examples=250)
@given(documents(), st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(BAD_BYTES)), max_size=12),
       st.sampled_from(CONTENT_TYPES))
def test_nul_bytes_and_invalid_utf8_spliced_into_generated_html(html, splices, content_type):
    body = bytearray(html.encode("utf-8", "replace"))
    for at, junk in splices:
        at %= len(body) + 1
        body[at:at] = junk
    check_page(bytes(body), content_type)


# --------------------------------------------------------------------------------------------
# Real pages, cut anywhere

def _real_pages() -> list[tuple[str, bytes, str]]:
    out = []
    for mirror in (False, True):
        site = demosite.build_site(mirror=mirror)
        for path in demosite.html_paths(site):
            page = site[path]
            if "html" in page.content_type:
                out.append((("B" if mirror else "A") + path, page.body, page.content_type))
    site = hs.build_site()
    for path in ("/guide/install.html", "/guide/configure.html", "/manual/contents.html", "/news/ja/library-hours.html",
                 "/ru/ogorod.html", "/odd/nul.html", "/odd/html4.html", "/odd/frames.html", "/releases/dates.html"):
        out.append(("hostile" + path, site[path].body, site[path].content_type))
    return out


REAL_PAGES = _real_pages()


@settings(FUZZ, max_examples=300)
@given(st.sampled_from(REAL_PAGES), st.floats(0, 1), st.floats(0, 1), st.sampled_from([None, "keep", "plain"]))
def test_real_pages_cut_at_any_byte(page, start, stop, content_type):
    name, body, ctype = page
    a, b = sorted((int(start * len(body)), int(stop * len(body))))
    if content_type is None:
        piece = body[:b]  # a download cut short
    else:
        piece = body[a:b]  # any slice: starting inside a tag, a comment or a UTF-8 sequence
    check_page(piece, ctype if content_type == "keep" else "text/html")


def test_every_real_page_whole_and_cut_at_every_kilobyte():
    for name, body, ctype in REAL_PAGES:
        for cut in range(0, len(body) + 1024, 1024):
            check_page(body[:cut], ctype)


# --------------------------------------------------------------------------------------------
# Every doctype in front of the same pages

PAGE_NO_MAIN = """<html lang="en"><head><meta charset="utf-8"><title>Tide pools</title>
<style>body{margin:0}</style></head><body>
<div class="top"><a href="/">Field notes</a> <a href="/about">About</a></div>
<div class="content"><h1>What lives in a tide pool</h1>
<p>Twice a day the sea withdraws and leaves behind small basins of rock holding anemones, limpets,
periwinkles and the occasional stranded shrimp.</p>
<p>Temperature and salinity swing wildly while the tide is out, and only hardy creatures survive
the afternoon sun on a summer low tide.</p></div>
<div class="bottom"><a href="/privacy">Privacy</a></div>
</body></html>"""
PAGE_MAIN = PAGE_NO_MAIN.replace('<div class="content">', "<main>").replace("</p></div>", "</p></main>")
SHAPES = {
    "page without main": PAGE_NO_MAIN,
    "page with main": PAGE_MAIN,
    "page, tags upper case": PAGE_NO_MAIN.replace("<div", "<DIV").replace("</div>", "</DIV>").replace("<p>", "<P>"),
    "page without html, head or body tags": PAGE_NO_MAIN.split("<body>", 1)[1].replace("</body></html>", ""),
    "doctype only": "",
    "doctype and newline only": "\n",
    "head only": '<html><head><title>Only a head</title><meta charset="utf-8"></head></html>',
    "head only, unclosed": "<html><head><title>Only a head</title>",
    "frameset": ('<html><head><title>Frames</title></head><frameset cols="25%,75%"><frame src="/a.html">'
                 '<frame src="/b.html"><noframes><body><p>Your browser does not show frames.</p></body>'
                 "</noframes></frameset></html>"),
    "content before a frameset": '<html><body><p>Skip to the frames</p></body><frameset><frame src="/a.html"></frameset></html>',
    "bare text": "Plain words after a doctype, with no element at all: tide pools, anemones, limpets.",
    "comment and nothing else": "<!-- generated by the CMS -->",
}
# Doctypes that are not one token: their tail (']>', or a tag eaten by the unclosed one) is
# part of the page, so the page may read differently (as in a browser).
MALFORMED_DOCTYPES = ('<!DOCTYPE html SYSTEM "about:legacy-compat"', "<!DOCTYPE html [<!ENTITY x 'y'>]>")
TEXT_SHAPES = ("page without main", "page with main", "page, tags upper case", "page without html, head or body tags")


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("doctype", DOCTYPES)
def test_every_doctype_form_before_every_page_shape(doctype, shape):
    html = doctype + "\n" + SHAPES[shape]
    # A byte order mark belongs to the bytes (the decoder removes it): decoded text never starts
    # with one, and utf-16 adds its own.
    source = html.removeprefix("\ufeff")
    fps = [check_page(body, ctype, html) for body, ctype in (
        (html.encode(), "text/html; charset=utf-8"), (html.encode(), "application/xhtml+xml"),
        (source.encode("utf-16"), "text/html"))]
    if shape in TEXT_SHAPES and doctype not in MALFORMED_DOCTYPES:
        # Judged normally: the doctype changes neither the text nor the fingerprint.
        plain = "<!DOCTYPE html>\n" + SHAPES[shape]
        for mode in ("main", "body"):
            assert visible_text(source, mode) == visible_text(plain, mode), mode
        assert "anemones" in visible_text(source)
        want = PAGES.of_html_bytes(plain.encode(), "text/html; charset=utf-8")
        assert want.fingerprint is not None
        assert fps == [want] * 3


SELF_CLOSED = {
    "iframe in the menu": ('<nav><a href="/">Home</a> <iframe src="/button" title="Sponsor"/></nav>', ""),
    "IFRAME in the menu, upper case": ('<nav><a href="/">Home</a> <IFRAME SRC="/button"/></nav>', ""),
    "script with a source": ('<script src="/menu.js" />', ""),
    "noscript": ("<noscript/>", ""),
    "title in the head": ("", "<title/>"),
    "style in the head": ("", "<style/>"),
    "script in the head": ("", '<script type="text/javascript" src="/site.js"/>'),
}


@pytest.mark.parametrize("filler", [0, 600], ids=["small page", "over 512 tags"])
@pytest.mark.parametrize("case", list(SELF_CLOSED))
def test_a_self_closed_raw_text_element_does_not_swallow_the_page(case, filler):
    """Found on a held-out tree (ImageMagick's web site, as Debian rewrites it): the menu's
    ``<iframe .../>`` is not closed in HTML, so the rest of every page became the iframe's
    invisible text and all 66 pages were the same menu. Raw-text elements written self-closed
    are closed where written; other self-closed tags are left as they are."""
    body, head = SELF_CLOSED[case]
    rows = "".join(f"<span>cell {i}</span>" for i in range(filler))
    html = (f"<!DOCTYPE html><html><head><meta charset='utf-8'/>{head}</head><body>{body}"
            f"<main><h1>Sea anemones</h1><p>Anemones hold on to rocks<br/>and eat small fish.</p>"
            f"<p>They sting what they catch.</p><img src='a.png'/>{rows}</main></body></html>")
    for mode in ("main", "body"):
        text = visible_text(html, mode)
        assert "Anemones hold on to rocks and eat small fish." in " ".join(text.split()), (mode, text[:200])
    assert PAGES.of_html(html).fingerprint is not None


# --------------------------------------------------------------------------------------------
# Deep and huge pages, each in a worker process with a timeout

DEEP_UNITS = [
    "<div><span>", "<div>", "<span>", "<b>", "<a href=#>", "<table>", "<li>", "<ul><li>", "<table><tr><td>",
    "<div/><span/>", "<div></x>", "<div></span>", "<DIV class=a>", "<div\n>", "<div title='a>b'>", "<p><b>x",
    "<i><b><u>x", "<blockquote>", "<section>", "<font>", "<div>x", "<em>x<div>", "<select><option>", "<svg><g>",
    "<math><mi>", "<object>", "<div><!-- c -->", "<div><script>x</script>", "<dl><dt>x<dd>", "<nobr>x",
    "<div><br>", "<custom-el>", "<div\x00>", "<div class=\"\u0436\">\u0436",
]
DEEP_HEAD = "<!DOCTYPE html><html><head><title>Deep</title></head><body><p>Nightly layout regression report.</p>\n"
DEEP_TAIL = "<p>End of report.</p>"


def deep_cases() -> list[dict]:
    cases = []
    for unit in DEEP_UNITS:
        most = (1_000_000 - len(DEEP_HEAD) - len(DEEP_TAIL)) // len(unit.encode())
        for n in sorted({10_000, min(60_000, most)}):
            cases.append({"id": f"{unit!r}x{n}", "kind": "repeat", "unit": unit, "n": n})
    cases.append({"id": "balanced div x 50000", "kind": "balanced", "unit": "div", "n": 50_000})
    cases.append({"id": "balanced ul/li x 30000", "kind": "balanced_list", "n": 30_000})
    cases.append({"id": "hostile deep page", "kind": "hostile_deep"})
    return cases


HUGE_CASES = [
    {"id": "5 MB of <p>", "kind": "paragraphs", "n": 60_000},
    {"id": "9 MB of <p>", "kind": "paragraphs", "n": 110_000},
    {"id": "5 MB of <p> with links", "kind": "paragraphs_links", "n": 45_000},
    {"id": "1 MB text node", "kind": "text_node", "n": 150_000},
    {"id": "100k <br>", "kind": "repeat", "unit": "word<br>", "n": 100_000},
    {"id": "60k <li> links", "kind": "list_links", "n": 60_000},
    {"id": "30k table rows", "kind": "table", "n": 30_000},
    {"id": "100k sibling divs", "kind": "repeat", "unit": "<div>cell</div>", "n": 100_000},
    {"id": "30k sibling sections", "kind": "sections", "n": 30_000},
    {"id": "400 deep x 200", "kind": "nested_blocks", "depth": 400, "n": 200},
    {"id": "1 MB attribute", "kind": "attribute", "n": 1_000_000},
    {"id": "1 MB comment", "kind": "comment", "n": 150_000},
    {"id": "unclosed comment", "kind": "unclosed", "open": "<!--", "n": 500_000},
    {"id": "unclosed script", "kind": "unclosed", "open": "<script>", "n": 500_000},
    {"id": "unclosed textarea", "kind": "unclosed", "open": "<textarea>", "n": 500_000},
    {"id": "1 MB of entities", "kind": "repeat", "unit": "&amp;&lt;&#x41;&eacute;&#1234; ", "n": 40_000},
    {"id": "1 MB of NUL and invalid UTF-8", "kind": "junk", "n": 1_000_000},
    {"id": "1 MB Japanese, no spaces", "kind": "cjk", "n": 330_000},
    # past MAX_HTML_CHARS, the scripts' bodies are left out before the cut (markup.scripts_left_out)
    {"id": "9 MB of short scripts between paragraphs", "kind": "repeat", "unit": "<script>var a = 1;</script><p>x y</p>",
     "n": 260_000},
    {"id": "9 MB of comments, self-closed scripts and script tags left open", "kind": "repeat",
     "unit": "<!-- <script> --><script src=a.js/><p>x</p><script", "n": 200_000},
]

# Markup lexbor's tree builder reads in time quadratic in a count other than depth (each took
# 10 to 25 s of the reactor's time before ``markup._tag_model`` sent it to the tag-stripping scan),
# and HTML nested inside MathML and SVG, which the depth scan once skipped whole; besides, the
# pages of that kind a site does serve, which must still be parsed (``parsed``).
QUADRATIC_CASES = [
    {"id": "100k attributes on one tag", "kind": "attributes", "n": 100_000, "parsed": False},
    {"id": "60k quoted attributes, no blank between", "kind": "attributes", "n": 60_000, "quoted": True,
     "parsed": False},
    {"id": "100k attributes on an end tag", "kind": "attributes", "n": 100_000, "end": True, "parsed": False},
    {"id": "50k <html> tags of an attribute each", "kind": "merged", "tag": "html", "n": 50_000, "parsed": False},
    {"id": "50k <body> tags of an attribute each", "kind": "merged", "tag": "body", "n": 50_000, "parsed": False},
    {"id": "<select> of 80k options", "kind": "select", "unit": "<option>item", "n": 80_000, "parsed": False},
    {"id": "<select> of 20k divs", "kind": "select", "unit": "<div>item", "n": 20_000, "parsed": False},
    {"id": "50k divs in MathML's annotation-xml", "kind": "in_foreign",
     "open": '<math><annotation-xml encoding="text/html">', "unit": "<div>x", "n": 50_000, "parsed": False},
    {"id": "50k divs in an SVG title", "kind": "in_foreign", "open": "<svg><title>", "unit": "<div>x", "n": 50_000,
     "parsed": False},
    {"id": "50k self-closed divs in SVG's foreignObject", "kind": "in_foreign", "open": "<svg><foreignObject>",
     "unit": "<div/>x", "n": 50_000, "parsed": False},
    # nesting the depth scan once read shallower than the tree builder: its tags read otherwise
    # than the tokenizer reads them (a "<" in a quoted value), a list item or term nested in
    # another list's, end tags that close nothing, foreign content closed by none
    {"id": "50k divs with a < in a quoted value", "kind": "repeat", "unit": '<div title="a<b">x', "n": 50_000,
     "parsed": False},
    {"id": "50k list items in definition lists", "kind": "repeat", "unit": "<dl><li>x", "n": 50_000, "parsed": False},
    {"id": "50k terms and items", "kind": "repeat", "unit": "<dt><li>", "n": 50_000, "parsed": False},
    {"id": "50k divs closed outside their scope", "kind": "repeat", "unit": "<div><object></div>", "n": 50_000,
     "parsed": False},
    {"id": "50k SVG elements and stray end tags", "kind": "repeat", "unit": "<svg>x</dt>", "n": 50_000, "parsed": False},
    {"id": "50k rows outside a table around pre", "kind": "repeat", "unit": "<tr><pre>x", "n": 50_000, "parsed": False},
    {"id": "SVG left by <br>, then 50k self-closed summaries", "kind": "in_foreign", "open": "<svg>",
     "unit": "<br>x<summary/>", "n": 50_000, "parsed": False},
    {"id": "SVG left by </br>, then 50k self-closed navs", "kind": "in_foreign", "open": "<svg>",
     "unit": "</summary>x</br>x<nav/>", "n": 50_000, "parsed": False},
    {"id": "50k HTML elements named annotation-xml", "kind": "repeat",
     "unit": "</annotation-xml>x<annotation-xml encoding=text/html><nav/>", "n": 50_000, "parsed": False},
    {"id": "50k SVG mtext, which is no integration point", "kind": "in_foreign", "open": "<svg>",
     "unit": "<mtext><xmp></noscript>x", "n": 50_000, "parsed": False},
    # end tags the tree builder ignores, of elements it never opened or closed long before (a
    # review found them; a table opened in a table closes the first): the model closed
    # everything above them; and SVG it stays in, where the model read a raw-text <style> to
    # the end of the page
    {"id": "2k ignored heads around 60 divs each", "kind": "repeat", "unit": "<head>" + "<div>x" * 60 + "</head>",
     "n": 2_000, "parsed": False},
    {"id": "2k captions outside a table around 60 divs each", "kind": "repeat",
     "unit": "<caption>" + "<div>x" * 60 + "</caption>", "n": 2_000, "parsed": False},
    {"id": "2k column groups outside a table around 60 divs each", "kind": "repeat",
     "unit": "<colgroup>" + "<div>x" * 60 + "</colgroup>", "n": 2_000, "parsed": False},
    {"id": "2k framesets around 60 divs each", "kind": "repeat", "unit": "<frameset>" + "<div>x" * 60 + "</frameset>",
     "n": 2_000, "parsed": False},
    {"id": "2k noscripts around 60 spans each", "kind": "repeat", "unit": "<noscript>" + "<span>x" * 60 + "</noscript>",
     "n": 2_000, "parsed": False},
    {"id": "2k tables in tables, 60 divs each, then a stray </table>", "kind": "repeat",
     "unit": "<table><table></table>" + "<div>x" * 60 + "</table>", "n": 2_000, "parsed": False},
    {"id": "SVG kept by a </head>, then 50k divs in a <style>", "kind": "in_foreign",
     "open": "<head><svg></head><style>", "unit": "<div>x", "n": 50_000, "parsed": False},
    {"id": "SVG kept by a </noscript>, then 50k divs in a <style>", "kind": "in_foreign",
     "open": "<noscript><svg></noscript><style>", "unit": "<div>x", "n": 50_000, "parsed": False},
    # found by a search of page shapes after that: formatting elements the model counted out of
    # the tree builder's list (it ignores an end tag of a name it does not hold, and reopens what
    # it holds at every block), start tags that close a paragraph in lexbor but not in the model,
    # a <table> that closes none in quirks mode, and raw-text start tags lexbor ignores (their
    # attributes were never counted)
    {"id": "5k bold elements of distinct ids, each with a stray </i>", "kind": "bare",
     "unit": "<p><b id={i}>x</i>", "n": 5_000, "parsed": False},
    {"id": "50k bold elements reopened in divs", "kind": "repeat", "unit": "<div><b>x</div></i>x", "n": 50_000,
     "parsed": False},
    {"id": "500 bold elements reopened in 20k paragraphs", "kind": "bare",
     "open": "<!DOCTYPE html><body><p>" + "".join(f"<b id={i}>" for i in range(500)) + "x</p>",
     "unit": "<p>x</p>", "n": 20_000, "parsed": False},
    {"id": "50k paragraphs closed by <search>", "kind": "repeat", "unit": "<p><search>x", "n": 50_000,
     "parsed": False},
    {"id": "50k paragraphs closed by <listing>", "kind": "repeat", "unit": "<p><listing>x", "n": 50_000,
     "parsed": False},
    {"id": "50k paragraphs closed by <xmp>", "kind": "repeat", "unit": "<p>x<xmp>x</xmp><rt>x", "n": 50_000,
     "parsed": False},
    {"id": "no doctype: 400 tables in paragraphs under 60 spans each", "kind": "bare", "open": "<body>",
     "unit": "<object><p>" + "<span>x</template>" * 60 + "<table></table>", "n": 400, "parsed": False},
    {"id": "a frameset's ignored iframe, then 12k <html> tags", "kind": "bare", "open": "<frameset><iframe>",
     "unit": "<html a{i}=1>", "n": 12_000, "parsed": False},
    {"id": "a frameset's ignored iframe, then a frame of 24k attributes", "kind": "bare",
     "open": "<frameset><iframe><frame ", "unit": "a{i} ", "close": ">", "n": 24_000, "parsed": False},
    {"id": "a template's ignored style, then a column of 24k attributes", "kind": "bare",
     "open": "<template><col><style><col ", "unit": "a{i} ", "close": ">", "n": 24_000, "parsed": False},
    # and by a review of that fix: formatting elements where the model was in SVG and lexbor not,
    # a cell a template's body ignores, CDATA in SVG read as a bogus comment
    {"id": "SVG in a select, then 2k sections of fonts of distinct ids", "kind": "bare",
     "open": "<select><svg></select>", "unit": "<section><font id={i}>x</section>", "n": 2_000, "parsed": False},
    {"id": "SVG nested past the model's scan, then 2k fonts", "kind": "bare", "open": "<svg>" + "<g>" * 70 + "</svg>",
     "unit": "<section><font id={i}>x</section>", "n": 2_000, "parsed": False},
    {"id": "2k cells a template's body ignores, bold inside", "kind": "bare", "open": "<template>",
     "unit": "<p><td><b id={i}>x</td></p>", "n": 2_000, "parsed": False},
    {"id": "CDATA in SVG, then 64k divs", "kind": "bare", "open": "<svg><![CDATA[><p>]]><style>", "unit": "<div>",
     "n": 64_000, "parsed": False},
    # and by a second review: the adoption agency's limit of 8 passes (the entry kept), table
    # parts closing a caption or cell the model kept open, an end tag a select ignores
    {"id": "4k bold elements under 8 divs each, closed by </b>", "kind": "bare",
     "unit": "<section><b id={i}>" + "<div>" * 8 + "</b></section>", "n": 4_000, "parsed": False},
    {"id": "4k tables of a caption closed by a row group, bold after", "kind": "bare",
     "open": "<!DOCTYPE html><body>", "unit": "<table><caption><tbody><b id={i}></table>", "n": 4_000,
     "parsed": False},
    {"id": "4k cells closed by a column, bold after", "kind": "bare", "open": "<!DOCTYPE html><body>",
     "unit": "<table><tr><td><col><b id={i}></table>", "n": 4_000, "parsed": False},
    {"id": "4k bold end tags in selects", "kind": "bare", "open": "<!DOCTYPE html><body>",
     "unit": "<div><p><b id={i}></p><select></b></select></div>", "n": 4_000, "parsed": False},
    {"id": "an inline script of 100 comparisons read as tags of 300 attributes", "kind": "bare",
     "open": "<!DOCTYPE html><body><p>A page.</p><script>", "unit": "for (s = 0; s<config.items.length; s++) "
     + "x y " * 150 + "> 0;\n", "close": "</script><p>After it.</p>", "n": 100, "parsed": True},
    {"id": "a graphviz SVG of 2k links", "kind": "bare", "open": "<!DOCTYPE html><body><p>A graph.</p><svg><g>",
     "unit": '<g id="a{i}"><a xlink:href="#n{i}" xlink:title="n{i}"><text>node {i}</text></a></g>',
     "close": "</g></svg><p>After it.</p>", "n": 2_000, "parsed": True},
    # and by a third: a stray <html> the model opened (lexbor merges its attributes), a template
    # whose content lexbor reads as a body (table parts ignored), a row group kept open under a
    # caption
    {"id": "20k stray <html> tags in tables", "kind": "bare", "open": "<body>", "unit": "<div><table><html></table>",
     "n": 20_000, "parsed": False},
    {"id": "a template read as a body, then 20k captions around divs", "kind": "bare",
     "open": "<!DOCTYPE html><template><i>", "unit": "<caption><div>", "n": 20_000, "parsed": False},
    {"id": "a template read as a body, then 20k cells around divs", "kind": "bare",
     "open": "<!DOCTYPE html><template><i>", "unit": "<td><div></td>", "n": 20_000, "parsed": False},
    {"id": "a template of 2k rows, bold in cells", "kind": "bare", "open": "<!DOCTYPE html><body><template>",
     "unit": "<tr><td><b>cell {i}</b></td></tr>", "close": "</template><p>After it.</p>", "n": 2_000,
     "parsed": True},
    {"id": "4k row groups under captions, bold between", "kind": "bare",
     "open": "<!DOCTYPE html><body><table><tr><td>", "unit": "</tbody><b id={i}><thead><caption><th>", "n": 4_000,
     "parsed": False},
    {"id": "sloppy rows: 2k rows of two cells, no </td> nor </tr>", "kind": "bare", "open": "<html><body><table>",
     "unit": "<tr><td><span>Name {i}<td>Value {i}", "close": "</table>", "n": 2_000, "parsed": True},
    {"id": "sloppy rows: 2k rows of unclosed fonts, no </tr>", "kind": "bare", "open": "<html><body><table>",
     "unit": "<tr><td><font size=1>cell {i}</td><td>x</td>", "close": "</table>", "n": 2_000, "parsed": True},
    {"id": "sloppy list: 400 items of unclosed fonts", "kind": "bare", "open": "<html><body><ul>",
     "unit": '<li><font size=2>item {i} with a link <a href="/x{i}">here</a>\n', "close": "</ul>", "n": 400,
     "parsed": True},
    {"id": "sloppy paragraphs: 400 of unclosed fonts", "kind": "bare", "open": "<html><body>",
     "unit": '<p><font face="Arial" size="2">paragraph {i}', "n": 400, "parsed": True},
    {"id": "an old page, no doctype: 5k paragraphs holding tables", "kind": "bare", "open": "<html><body>",
     "unit": "<p>text <table><tr><td>cell</td></tr></table> more", "n": 5_000, "parsed": True},
    {"id": "20k bold paragraphs closed in the wrong order", "kind": "repeat", "unit": "<p><b>x</p></b>",
     "n": 20_000, "parsed": True},
    {"id": "a table of 20k cells of unclosed fonts", "kind": "bare", "open": "<!DOCTYPE html><body><table>",
     "unit": "<tr><td><font face=Arial>cell</td></tr>", "close": "</table>", "n": 20_000, "parsed": True},
    {"id": "a list of 50k items left open", "kind": "repeat", "unit": "<li>item", "n": 50_000, "parsed": True},
    {"id": "a table of 20k rows of cells left open", "kind": "repeat", "unit": "<tr><td>cell<td>cell", "n": 20_000,
     "parsed": True},
    {"id": "a site's <select> of 2,000 options", "kind": "select", "unit": "<option>item", "n": 2_000, "parsed": True},
    {"id": "a tag of 200 attributes", "kind": "attributes", "n": 200, "parsed": True},
    # lexbor reopens the <b> before each row's text (foster parented before the table), copying its
    # 300 attributes; the extraction then read them all at each of the body's 990 children (0.4 s
    # at 6 KB). The list's weight counts them: stopped at the first check.
    {"id": "a bold of 300 attributes reopened before 990 rows", "kind": "bare", "watched": True,
     "open": "<!DOCTYPE html><body><p><b role=x " + " ".join(f"a{i}" for i in range(300)) + ">y</p><table><tr>",
     "unit": "x<tr>", "n": 990, "parsed": False},
    # 16 bolds of 600 attributes each (free in the walk's reckoning of the list, their squares
    # under its budget raised by a long comment), then paragraphs: each reopening copies 9,600
    # attributes, a thousand times in one chunk (0.3-1 s and 1.5 GB before its check).
    {"id": "16 bolds of 600 attributes reopened in 3k paragraphs", "kind": "bare", "watched": True,
     "open": "<!DOCTYPE html><!--" + "c" * 400_000 + "--><body><p>" + "".join(
         "<b " + " ".join(f"a{k}_{i}" for i in range(600)) + ">" for k in range(16)) + "y",
     "unit": "<p>x", "n": 3_000, "parsed": False},
    # The narrowing after a cheap parse (a second search of the watched parse): each of a block's
    # 999 children compared with the one holding its text, of 320 attributes, read again each
    # time, at 48 levels (1 s at 460 KB); a body of 100,000 headings and 15 blocks of closing
    # matter, each a step back to the body that weighed its headings again (0.6 s at 466 KB); the
    # same steps back over a block of 200,000 paragraphs (0.25 s); 63 levels of one element, each
    # weighed again down to its text past 75,000 blank elements (0.2 s at 600 KB).
    {"id": "48 levels of 999 children beside one of 320 attributes", "kind": "bare", "open": "<!doctype html><body>",
     "unit": "<x>x</x>" * 999 + "<x " + " ".join(f"a{k}" for k in range(320)) + ">", "n": 48,
     "close": "word " * 1000 + "</x>" * 48, "parsed": True},
    {"id": "100k headings, then 15 steps back from closing matter", "kind": "bare", "unit": "", "n": 1,
     "open": "<!doctype html><body><div id=e>" + "<h1>" * 100_000 + "</h1>tiny</div>" + "".join(
         f"<div id=k{i}><div class=footer>" + "x" * 2 ** (15 - i) + "</div></div>" for i in range(15)) + "</body>",
     "parsed": True},
    {"id": "15 steps back from closing matter beside 200k paragraphs", "kind": "bare", "unit": "", "n": 1,
     "open": "<!doctype html><body><div id=w>" + "".join(
         f"<div id=k{i}><div class=footer>" + "x" * 2 ** (15 - i) + "</div></div>" for i in range(15))
     + "<div>" + "<p> " * 200_000 + "y</div></div></body>", "parsed": True},
    # (a third search: the same with an empty sibling at each level, 0.52 s at 1 MB; past 4 levels the
    # main is weighed once, in full)
    {"id": "a main of 63 levels of two elements over 200k blank lines", "kind": "bare", "unit": "<br> ",
     "n": 200_000, "open": "<html><body><main>" + "<div>" * 63,
     "close": "text here" + "</div><i></i>" * 63 + "</main><p>outside</p></body></html>", "parsed": True},
    {"id": "a main of 63 levels of one element over 75k blank ones", "kind": "bare", "unit": "<b> </b>", "n": 75_000,
     "open": "<!doctype html><body><main>" + "<div>" * 63, "close": "word " * 200 + "</div>" * 63 + "</main></body>",
     "parsed": True},
    # Parsed (500 deep is within MAX_DEPTH), and the longest of the 500 marked articles was found by
    # reading each one's text, every line of the page 500 times: 1 s at 300 KB.
    {"id": "500 nested articles over 60k lines", "kind": "bare", "open": "<!DOCTYPE html><body>" + "<article>" * 500,
     "unit": "x<br>", "n": 60_000, "parsed": True},
    # Several articles beside the page's title (v13): what holds each of 100k headings deep in a
    # header is read once, not one walk up 100 elements each (lexbor's own cost of such headings
    # grows with their depth too: 400 deep, it neared the watched parse's time bound)
    {"id": "100k headings 100 deep in a header, then two articles", "kind": "bare",
     "open": "<!DOCTYPE html><body><header>" + "<div>" * 100, "unit": "<h1>x</h1>", "n": 100_000,
     "close": "</div>" * 100 + "</header><h1>Tag</h1><article>one post</article><article>two</article></body>",
     "parsed": True},
    # v14: the articles holding an <h1> are found by one walk up from each heading, the walks
    # sharing their way and stopping at a second titled article (one query an article: 0.5 s
    # over 50k of them); an <article> in the page's boilerplate is looked at once
    {"id": "50k articles each holding an h1", "kind": "bare", "open": "<!DOCTYPE html><body>",
     "unit": "<article><h1>t</h1><p>x y</p></article>", "n": 50_000, "parsed": True},
    {"id": "100k headings in one article beside the page title", "kind": "bare",
     "open": "<!DOCTYPE html><body><h1>Page</h1><article>" + "<div>" * 100, "unit": "<h1>x</h1>", "n": 100_000,
     "close": "</div>" * 100 + "</article><p>more</p></body>", "parsed": True},
    {"id": "50k asides each holding an article", "kind": "bare", "open": "<!DOCTYPE html><body><h1>Page</h1>",
     "unit": "<aside><article><p>x</p></article></aside>", "n": 50_000, "parsed": True},
    {"id": "an inline SVG of 20k self-closed paths", "kind": "in_foreign", "open": "<svg>", "close": "</svg>",
     "unit": '<path d="M0 0L1 1"/>', "n": 20_000, "parsed": True},
]

_WORDS = ("river ferry harbour lantern compass timber granite orchard quarry estuary signal voyage census "
          "ledger beacon summit valley meadow").split()


def build_case(case: dict) -> bytes:
    """The page of a deep or huge ``case`` (built in the worker: nothing big crosses the pipe)."""
    import random

    rng = random.Random(7)
    kind, n = case["kind"], case.get("n", 0)

    def para(k: int = 12) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(k))

    if kind == "repeat":
        return (DEEP_HEAD + case["unit"] * n + DEEP_TAIL).encode()
    if kind == "balanced":
        return (DEEP_HEAD + f"<{case['unit']}>" * n + para() + f"</{case['unit']}>" * n + DEEP_TAIL).encode()
    if kind == "balanced_list":
        return (DEEP_HEAD + "<ul><li>x" * n + "</li></ul>" * n + DEEP_TAIL).encode()
    if kind == "hostile_deep":
        return hs.deep_page()
    if kind == "paragraphs":
        return (DEEP_HEAD + "".join(f"<p>{para()}</p>\n" for _ in range(n))).encode()
    if kind == "paragraphs_links":
        return (DEEP_HEAD + "".join(f'<p>{para(6)} <a href="/p/{i}">{para(3)}</a> {para(4)}</p>\n' for i in range(n))).encode()
    if kind == "text_node":
        return (DEEP_HEAD + "<div>" + para(n)).encode()
    if kind == "list_links":
        return (DEEP_HEAD + "<ul>" + "".join(f'<li><a href="/x/{i}">item {i}</a>' for i in range(n))).encode()
    if kind == "table":
        return (DEEP_HEAD + "<table>" + "".join(f"<tr><td>{i}</td><td>{para()}</td></tr>" for i in range(n))).encode()
    if kind == "sections":
        return (DEEP_HEAD + "".join(f"<section><h2>{i}</h2><p>{para()}</p></section>" for i in range(n))).encode()
    if kind == "nested_blocks":
        d = case["depth"]
        return (DEEP_HEAD + ("<div>" * d + para() + "</div>" * d) * n).encode()
    if kind == "attribute":
        return (DEEP_HEAD + "<div title='" + "x" * n + "'>tide pools anemones limpets periwinkles shrimp</div>").encode()
    if kind == "comment":
        return (DEEP_HEAD + "<!--" + "x -- y " * n + "--><p>tide pools anemones limpets periwinkles</p>").encode()
    if kind == "unclosed":
        return (DEEP_HEAD + case["open"] + "x < y && z " * (n // 12)).encode()
    if kind == "junk":
        junk = bytes(rng.choice(b"\x00\xff\xfe\xc3\xed\xa0\x80<>&ab ") for _ in range(n))
        return DEEP_HEAD.encode() + junk
    if kind == "attributes":
        unit = 'k{}="v"' if case.get("quoted") else " k{}"
        tag = "</div" if case.get("end") else "<div"
        return (DEEP_HEAD + "<div>" + tag + " " + "".join(unit.format(i) for i in range(n)) + ">" + para() + "</div>"
                + DEEP_TAIL).encode()
    if kind == "merged":
        return ("".join(f"<{case['tag']} data-k{i}=1>" for i in range(n)) + DEEP_HEAD + para() + DEEP_TAIL).encode()
    if kind == "select":
        return (DEEP_HEAD + f"<p>{para()}</p><select>" + case["unit"] * n + "</select>" + DEEP_TAIL).encode()
    if kind == "in_foreign":
        return (DEEP_HEAD + f"<p>{para()}</p>" + case["open"] + case["unit"] * n + case.get("close", "")
                + DEEP_TAIL).encode()
    if kind == "bare":  # the page as written, no doctype unless given; "{i}" in a unit numbers it
        unit = case["unit"]
        body = "".join(unit.format(i=i) for i in range(n)) if "{i}" in unit else unit * n
        return (case.get("open", "") + body + case.get("close", "")).encode()
    if kind == "cjk":
        chars = "市立図書館は来月から平日の開館時間を午後九時まで延長すると発表した。"
        return (DEEP_HEAD + "<p>" + "".join(rng.choice(chars) for _ in range(n)) + "</p>").encode()
    raise ValueError(kind)


def bound_for(size: int) -> float:
    return DEEP_BOUND_S if size <= 1 << 20 else HUGE_BOUND_S_PER_MB * size / (1 << 20)


def worker_main() -> None:
    """The worker process: one JSON case a line on stdin, one JSON result a line on stdout."""
    PAGES.of_html_bytes(b"<p>warm up the fingerprinter and the parser</p>", "text/html")
    visible_text("<p>warm up</p>")
    for line in sys.stdin:
        case = json.loads(line)
        result: dict = {"id": case["id"]}
        try:
            body = build_case(case)
            html = body.decode("utf-8", "replace")
            bound = bound_for(len(body))
            result["size"] = len(body)
            _, result["of_html_bytes"] = timed(lambda: PAGES.of_html_bytes(body, "text/html; charset=utf-8"), bound)
            _, result["visible_text"] = timed(lambda: visible_text(html), bound)
            result["flat"] = Extractor().texts(html).flat
        except BaseException as exc:  # noqa: BLE001 -- reported to the test
            result["error"] = f"{type(exc).__name__}: {exc}"[:2000]
        print(json.dumps(result), flush=True)


class Worker:
    """A ``python`` child running ``worker_main``; restarted after a case it did not finish."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()

    def _start(self) -> None:
        here = str(Path(__file__).resolve().parent)
        code = f"import sys; sys.path.insert(0, {here!r}); import test_extract_fuzz as m; m.worker_main()"
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"})
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()

    @staticmethod
    def _read(proc: subprocess.Popen, lines: queue.Queue) -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def run(self, case: dict, timeout: float) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
            timeout += 30  # the first case waits for the worker's imports too
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.stop()
            return {"id": case["id"], "timeout": timeout}
        if line is None:
            code = self.proc.wait()
            self.proc = None
            return {"id": case["id"], "crashed": code}
        return json.loads(line)

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.stop()


def _check_in_worker(worker: Worker, case: dict, size_hint: int) -> dict:
    bound = bound_for(size_hint)
    r = worker.run(case, timeout=max(5.0, WORKER_TIMEOUT_FACTOR * bound))
    assert "timeout" not in r, f"{case['id']}: not done after {r.get('timeout', 0):.0f} s (bound {bound:.2f} s)"
    assert "crashed" not in r, f"{case['id']}: the worker process died (exit code {r.get('crashed')})"
    assert "error" not in r, f"{case['id']}: {r.get('error')}"
    bound = bound_for(r["size"])
    for fn in ("of_html_bytes", "visible_text"):
        assert r[fn] < bound, f"{case['id']}: {fn} cost {r[fn]:.3f} s of CPU for {r['size']:,} bytes (bound {bound:.2f} s)"
    return r


@pytest.mark.parametrize("case", deep_cases(), ids=lambda c: c["id"])
def test_deep_nesting_is_fast(worker, case):
    _check_in_worker(worker, case, 1 << 20)


@pytest.mark.parametrize("case", HUGE_CASES, ids=lambda c: c["id"])
def test_huge_pages_are_fast(worker, case):
    _check_in_worker(worker, case, 10 << 20 if case["id"].startswith("9 MB") else 6 << 20)


@pytest.mark.parametrize("case", QUADRATIC_CASES, ids=lambda c: c["id"])
def test_markup_the_tree_builder_reads_in_quadratic_time_is_fast(worker, case):
    if case.get("watched") and parse._LEXBOR is None:
        pytest.skip("read flat by the watched parse, which this selectolax cannot watch")
    r = _check_in_worker(worker, case, 1 << 20)
    assert r["flat"] is not case["parsed"], f"{case['id']}: {'parsed' if not r['flat'] else 'not parsed'}"


@pytest.mark.parametrize("case", [
    # Each </b> closes the copy of the last <b> that lexbor reopened around the next <g>, and the
    # <g> with it; the walk keeps the <g> open, and its </g> then closes the <desc> lexbor keeps:
    # lexbor nests a <desc> deeper at each repeat (0.6 s at 400 KB).
    {"id": "20k reopened bold copies closing what they hold", "kind": "bare", "open": "<!DOCTYPE html><body>",
     "unit": "<g></b><desc><b></g>", "n": 20_000},
    # lexbor reopens the last <a> around the next <g>, the next <a> closes that copy and the <g>
    # in it, and the </g> then leaves the <a> and the SVG open: 2 s at 489 KB.
    {"id": "20k reopened link copies in a cell, SVG after", "kind": "bare",
     "open": "<!DOCTYPE html><body><table><tr><td>", "unit": "<g/><a id={i}><svg></g>", "n": 20_000},
], ids=lambda c: c["id"])
def test_pages_the_walk_misreads_are_stopped_by_the_watched_parse(worker, case):
    if parse._LEXBOR is None:
        pytest.skip("this selectolax cannot watch its parse")
    # The walk does not follow the copies of formatting elements lexbor reopens, which the adoption
    # agency closes with what they hold; the parse, watched (contentseen/parse.py), finds lexbor's
    # stack past MAX_DEPTH after a chunk or two.
    assert _check_in_worker(worker, case, 1 << 20)["flat"]


if __name__ == "__main__":  # python tests/test_extract_fuzz.py: the cost of each deep and huge page
    for c in deep_cases() + HUGE_CASES + QUADRATIC_CASES:
        body = build_case(c)
        _, t1 = timed(lambda: PAGES.of_html_bytes(body, "text/html; charset=utf-8"), 0)
        _, t2 = timed(lambda: visible_text(body.decode("utf-8", "replace")), 0)
        print(f"{c['id']:40} {len(body) / 1e6:6.2f} MB  of_html_bytes {t1:.3f} s  visible_text {t2:.3f} s "
              f"(CPU, best of 2)", flush=True)


def test_siblings_of_distinct_kinds_cost_linear_time():
    # The edge walk asked each element whether any sibling was of its kind, every sibling again:
    # a body of 1,000 short paragraphs of distinct classes (MAX_KIDS) took 0.4 s of CPU. Kinds
    # are counted once now: a few milliseconds.
    html = "<html><body>" + "".join(f'<p class="c{i}">line {i} of the page</p>' for i in range(1000)) + "</body></html>"
    page, elapsed = timed(lambda: Extractor().texts(html), 0.1)
    assert elapsed < 0.1, f"{elapsed:.3f} s of CPU"
    assert "line 500 of the page" in page.whole


_PRELUDES = [b"", b"<!DOCTYPE html>", b"<!doctype HTML>", b"  \n<!DOCTYPE html>", b"<!-- made today --><!DOCTYPE html>",
             b"<?xml version='1.0'?>\n<!DOCTYPE html>", b"x<!DOCTYPE html>", b"\xef\xbb\xbf<!DOCTYPE html>",
             b"&nbsp;<!DOCTYPE html>", b"<html><!DOCTYPE html>", b"<!DOCTYPE>", b"<!DOCTYPE html SYSTEM \"about:legacy-compat\">",
             b'<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">',
             b'<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">',
             b'<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">', b'<!DOCTYPE html PUBLIC "a>b">',
             b'<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
             b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">', b"<!DOCTYPE svg>"]


@pytest.mark.parametrize("prelude", _PRELUDES, ids=lambda p: p.decode("utf-8", "replace")[:40] or "none")
def test_quirks_mode_is_lexbors(prelude):
    # A <table> closes an open paragraph except in quirks mode: the walk must know which lexbor
    # reads, or a page of tables in paragraphs nests deeper than it counts.
    from selectolax.lexbor import LexborHTMLParser

    from contentseen.markup import _quirks

    page = prelude + b"<p>x<table><tr><td>y</table>"
    table = LexborHTMLParser(page).css_first("table")
    assert _quirks(page) is (table.parent.tag == "p")
