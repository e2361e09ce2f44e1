"""HTML -> visible text, with selectolax (lexbor): a page's *content* text and its *whole* text.

``Extractor.texts(html)`` gives both. The whole text is every visible word of the page (what a
reader sees, menus included); the content text depends on the mode:

* ``"body"`` -- the whole text.
* ``"main"`` -- the main content: the largest of ``<main>``, ``<article>``, ``[role=main]`` when the
  page marks one, without its edge elements (step 2 below, lines of at most ``main_edge_most``,
  in the element it wraps if one holds all its text outside links; its title passed over, other
  elements holding headings never edges: v11),
  else the body without ``nav``, ``header``, ``footer``, ``aside`` and
  navigation/banner/contentinfo/complementary landmarks, narrowed to its content block (v9):

  1. from the body down, while one child element holds more than half of the text
     (``dominant_share``), step into it -- a page template's content ``<div>``, without the
     bars, banners and notices beside it -- unless a sibling of the same kind (same tag, same
     attributes) holds text too: then the child is one section of a document among others
     (``<table class="section">``, ``<div class="sect1">``, ``<p>``) and the document is kept
     whole; nor, below the body, into a child after a sibling holding a heading
     (``titled_sections``): the block is one titled section (a heading, then a figure, a
     sentence and a note), and a part of it, the same note on every such page, is no page's
     content; nor before such a sibling (``headings_after``, v8): the child is the preamble of
     titled sections (an index's introduction before its lettered lists); nor into a child
     whose class or id names it a footer or a copyright notice
     (``closing_names``): on a short page of links the copyright notice holds most of the text
     outside links; a block reached whose text outside links is all in such children (a
     layout table around the notice) is closing matter too: the narrowing steps back and
     weighs it out (``closing_steps_back``, v8). Text is weighed without link text, so a menu
     is never the content, and in UTF-8 bytes (``weigh_bytes``, v8), so a sentence of Chinese
     is not outweighed by a line of English of a third its size. A page whose content *is* its
     links (a table of contents, an index, a sitemap) is then narrowed to the little other text
     it has, a tagline or a notice, which may be the same on unrelated pages: the whole text,
     fingerprinted beside the content, tells them apart (see ``fingerprints``).
     The body's own edge elements (step 2's rule, weighed with link text, each against the
     body's text less the edges found before it from the same end: ``edge_peel``, v12) are never stepped
     into (``body_edges``): a banner or notice injected around a page of links is most of its
     text outside links, and would otherwise become its content on the copy alone. The child
     holding the most text outside links is such an edge only as the first or last child
     holding text (a release list between a heading and a closing paragraph is not), and a
     titled block (a heading and more text beside it) never is (``titled_not_edge``, v9: a
     main column beside a larger table of contents);
  2. from the block reached, the elements at its start and end that are small (each at most
     ``edge_share`` of its text) and unlike their siblings (a banner line, a cookie notice, a
     "last updated" line, a page heading) are left out; from the body kept whole, the edge
     elements step 1 weighed it without too (``body_edges_left_out``, v9);
  3. a block that holds less than ``min_share`` of the page's visible text (a site tagline in
     a header, the one sentence of a page of links or images) is no evidence on its own: the
     page is marked ``sliver``, and its content fingerprint counts the whole text too, twice
     the block's weight (see ``fingerprints``).

Cost is bounded and linear in the page: lexbor's tree builder is quadratic in the nesting depth
of block elements (50,000 unclosed ``<div>`` take minutes), in the attributes of one element
(100,000 on one tag: 17 s; those of every ``<html>`` tag are one element's, and of every
``<body>`` tag) and in the elements of one ``<select>`` (80,000 options: 24 s), so a page nested
deeper than ``MAX_DEPTH`` (browsers stop nesting at 512), or whose markup would cost more than
``COST_BUDGET`` (``_tag_model``), is read by a linear tag-stripping scan instead of a parse; the
narrowing takes at most ``MAX_STEPS`` steps and stops at a block of more than
``MAX_KIDS`` children; only the first ``MAX_HTML_CHARS``
characters of a page are read.
"""

from __future__ import annotations

import functools
import html as htmllib
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Literal

import numpy as np
from selectolax.lexbor import LexborHTMLParser
from w3lib.encoding import html_to_unicode

from ._native import speedups as _speedups  # None: the tags are scanned in numpy
from .weights import HEADINGS, MAX_KIDS, elements, in_copy, kid_frees, nonblank, weigher


Extract = Literal["main", "body"]
EXTRACT_MODES: tuple[str, ...] = ("main", "body")

# Never visible, or not text (one query; "head" too when a frameset page has no body). The query
# names only those whose start tags the page holds (_named): a selector list costs lexbor a check
# of every element against each selector, and most pages use two or three of these.
_INVISIBLE_NAMES = ("script", "style", "noscript", "template", "svg", "math", "iframe", "object", "embed", "canvas",
                    "select")
# One query finds both what marks the main content (main, article, role=main) and the
# boilerplate left out when nothing does (nav, header, footer, aside, the navigation, banner,
# contentinfo and complementary landmarks, [hidden], [aria-hidden=true]); Python sorts them.
# (Its elements by name, too, only those whose start tags the page holds.)
_MARKED_NAMES = ("main", "article", "nav", "header", "footer", "aside")
_MARKED_ATTRIBUTE_NAMES = ("role", "hidden", "aria-hidden")
_MAIN_TAGS = frozenset(("main", "article"))
_BOILERPLATE_TAGS = frozenset(("nav", "header", "footer", "aside"))
_BOILERPLATE_ROLES = frozenset(("navigation", "banner", "contentinfo", "complementary"))

MAX_DEPTH = 512
# What the tree builder's quadratic work (``_tag_model``'s cost) may come to: a tag of
# 2,048 attributes or a <select> of 2,048 options parses in milliseconds (about 7 and 13 ms), and
# beyond that 4 a byte of the page (at most about 0.1 s on the largest page read).
COST_BUDGET, COST_PER_BYTE = 1 << 22, 4
MAX_STEPS = 64
MAX_HTML_CHARS = 8 << 20


# w3lib's names of encodings a UTF-8 reading must not override (UTF-16 text of ASCII letters is
# valid UTF-8: every other byte a NUL)
_UNICODE_ENCODINGS = frozenset(("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"))


def decode_html(body: bytes, content_type: str | None = None) -> str:
    """Decode an HTML body as browsers (and Scrapy) do: BOM, then the HTTP charset, then
    ``<meta charset>``, else UTF-8; undecodable bytes become U+FFFD, never an error. A body
    declared in another encoding that is valid UTF-8 beyond ASCII is read as UTF-8 (v10): a
    server's default ``ISO-8859-1`` mislabels UTF-8 pages, and their words read as Latin-1
    fell apart into a few dozen letters that every page of the site shares (528 languages of
    ``benchmarks/udhr.py``: 1,000 different pages dropped). Text in a single-byte or East Asian
    encoding is, beyond a few bytes, never valid UTF-8."""
    return read_html(body, content_type)[1]


def read_html(body: bytes, content_type: str | None = None) -> tuple[str, str]:
    """The encoding ``decode_html`` reads ``body`` in (a Python codec name), and the text."""
    encoding, text = html_to_unicode(content_type, body)
    if encoding not in _UNICODE_ENCODINGS and not body.isascii():
        try:
            return "utf-8", body.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return encoding, text


@dataclass(frozen=True)
class PageText:
    """What a page shows: its ``content`` (the fingerprinted text) and its ``whole`` visible
    text; ``flat`` when the markup was too deep to parse and both are the tag-stripped text;
    ``sliver`` when the content block holds little of the page's text (then the content
    fingerprint counts the whole text too); ``share``: the content's non-blank characters over
    the whole text's; ``narrowed`` when the content block was found by weighing the body's
    elements (the pages a sliver can be; not those marking their main content)."""

    content: str
    whole: str
    flat: bool = False
    sliver: bool = False
    share: float = 1.0
    narrowed: bool = False


@dataclass(frozen=True)
class Extractor:
    """HTML -> ``PageText`` under one extraction mode and its narrowing knobs (see the module's
    docstring); ``narrow=False`` keeps a page that marks no main content whole (extraction v1)."""

    mode: Extract = "main"
    narrow: bool = True
    dominant_share: float = 0.5
    stop_at_sections: bool = True
    edge_share: float = 1 / 3
    edge_total: float = 0.5
    # Weigh link text too where text outside links is less than this share of a block's text
    # (0: never). Off: on one page a table of contents beside a tagline looks like a short
    # page beside an unmarked menu; weighing links, such pages all became their menu.
    link_share: float = 0.0
    # Never step into a small element at the body's start or end (an injected banner, cookie
    # notice or mirror line), even where it holds most of the text outside links.
    body_edges: bool = True
    # A narrowed block holding less than this share of the page's visible text does not decide
    # alone (a tagline, an intro sentence or a notice taken from a page of links and images):
    # the page is a ``sliver`` one, whose content fingerprint counts its whole text too.
    min_share: float = 0.2
    # Below the body, never step into a child after a sibling holding a heading (v7).
    titled_sections: bool = True
    # Never step into a child whose class or id names it a footer or a copyright notice (v7).
    closing_names: bool = True
    # A block reached whose text outside links is all in such children is closing matter too:
    # step back and weigh it out; and none of them is the body's element holding the most text
    # outside links, which the edge rule never passes over (v8).
    closing_steps_back: bool = True
    # Text weighed in UTF-8 bytes, not characters (v8): a character of Chinese or Japanese takes
    # three, as it carries about what a word of Latin letters does. Counted one each, a Chinese
    # help page's one sentence weighed less than the untranslated English line of its "how to
    # get here" box, and was dropped as an edge: the box was the content of many pages.
    weigh_bytes: bool = True
    # Nor into a child before a sibling holding a heading (v8): the child is the preamble of
    # titled sections (an index's introduction before its lettered lists), not the block.
    headings_after: bool = True
    # Nor is a titled block ever one of the body's edge elements (v9): a notice, banner or
    # mirror line is a line of text; an element holding a heading and more text outside links
    # beside it than in it is a column of content. Scribble's main column, smaller than the
    # table of contents beside it and last in the body, was passed over as an edge and the
    # contents taken for the page. (A title alone stays an edge: taken for the content, it
    # made SQLite's, groff's and libxslt's link pages their heading.)
    titled_not_edge: bool = True
    # The body kept whole is left without the edge elements it was weighed without (v9), as
    # well as those found again by text outside links alone: a banner line added to a short
    # page of loose text (LaTeX2HTML's) is more than a third of its text outside links, so it
    # stayed; and a footer line added after a page's last list (Postfix's) hides the list
    # from the first rule, which the second finds.
    body_edges_left_out: bool = True
    # The marked main content is left without its edge elements (v11), found as step 2 finds
    # them in the block reached (through wrappers holding all its text outside links), its
    # title passed over: a "last updated" line under a page's title or after its article is a
    # mirror's edit of the content itself, and moved a short article beyond the distance.
    main_edges: bool = True
    # ... each at most this long (weighed as ``weigh_bytes`` says): a line, as a mirror's edits
    # are, never a section of a reference page (javadoc's class description beside its title).
    main_edge_most: int = 200
    # Each of the body's edge elements is weighed against its text less the edges already found
    # from the same end (v12): a banner added before a header made the header a third of a
    # larger whole, and the walk went on through the page's heading and list to its closing
    # paragraph, the same on every release page of SQLite's; weighed against the rest, the header
    # stops it, as on the page without the banner. (Less the edges of both ends, a cookie notice
    # added at the end of a page whose header was an edge was weighed against less than the
    # page, was no edge, and became its content.)
    edge_peel: bool = True

    def texts(self, html: str) -> PageText:
        """The content and whole visible text of ``html``; tolerant of broken markup."""
        html, utf8, deep, names, marks = _prepared(html[:MAX_HTML_CHARS])
        if deep:
            text = flat_text(html)
            return PageText(text, text, flat=True)
        tree = LexborHTMLParser(html if utf8 is None else utf8)
        invisible_query = _named(_INVISIBLE_NAMES, names)
        root = tree.body
        # A frameset document has no body; one that had content before its <frameset> keeps a
        # body detached from the tree (no parent), holding none of the page's text.
        if root is None or root.parent is None:
            root = tree.root
            if root is None:
                return PageText("", "")
            invisible = root.css(", ".join(filter(None, (invisible_query, "head"))))
        else:
            invisible = root.css(invisible_query) if invisible_query else []
        # Last first: a match inside another is removed before the one holding it (one query over
        # the tree instead of one per tag, as strip_tags does; half the time on large pages).
        for node in reversed(invisible):
            node.decompose()
        whole = root.text(separator="\n")
        if self.mode == "body":
            return PageText(whole, whole)
        mains, boilerplate = [], []
        marked = _marked_query(names, marks)
        for node in root.css(marked) if marked else ():
            attrs = node.attributes
            if node.tag in _MAIN_TAGS or attrs.get("role") == "main":
                mains.append(node)
            elif (node.tag in _BOILERPLATE_TAGS or attrs.get("role") in _BOILERPLATE_ROLES
                  or "hidden" in attrs or attrs.get("aria-hidden") == "true"):
                # css() matches the node itself too: a <body hidden> is still the page.
                if node.mem_id != root.mem_id:
                    boilerplate.append(node)
        if mains:
            main = mains[0] if len(mains) == 1 else max(mains, key=lambda n: len(n.text(separator=" ")))
            if self.main_edges and self.edge_share > 0:
                self._drop_main_edges(tree, main)
            content = main.text(separator="\n")
            return PageText(content, whole, share=content_share(content, whole))
        for node in boilerplate:
            node.decompose()
        if self.narrow:
            root = self._content_block(tree, root)
        content = root.text(separator="\n")
        share = content_share(content, whole)
        return PageText(content, whole, sliver=share < self.min_share, share=share, narrowed=True)

    def _content_block(self, tree: LexborHTMLParser, body):
        """The content block of ``tree``'s ``body`` (boilerplate removed): see the module's
        docstring. Text is weighed with and without links by ``weights.weigher``; the block's
        dropped edge elements are removed from ``tree``."""
        weights = weigher(tree, body, self.weigh_bytes)
        if weights is None:
            return body
        node = body
        free, total = weights.of(body)
        path: list[tuple] = []  # the blocks stepped from, to step back to
        closing_blocks: set[int] = set()  # blocks found to hold closing matter only (mem_id)
        for _ in range(MAX_STEPS):
            kids = elements(node)
            body_out: list[int] = []  # the body's edge elements weighed out here
            if not kids or len(kids) > MAX_KIDS:
                return node
            frees = weights.frees(node, kids)
            links_are_content = free < self.link_share * total
            body_rule = self.body_edges and self.edge_share > 0 and not links_are_content and node is body
            # each kid's text with links, when weighed: the next step's total is the chosen one's
            totals = weights.totals(kids) if links_are_content or body_rule else None
            sizes, weight = (totals, total) if links_are_content else (frees, free)
            if weight == 0:
                return node
            candidates, rest = sizes, weight
            # Children named as the page's closing matter (class or id "footer", "copyright"),
            # or found to hold nothing else, are never its content, even where they hold most or
            # all of the text outside links (a copyright notice beside a short page of links):
            # the others are weighed alone, and with nothing left the block is kept whole.
            closing = [j for j, k in enumerate(kids)
                       if sizes[j] and (_named_closing(k) or k.mem_id in closing_blocks)] if self.closing_names else []
            if body_rule:
                # The body's small edge elements are never its content, even when they hold
                # most of the text outside links (a notice beside a list of links), unless
                # nothing else holds such text (a short page beside an unmarked menu).
                # (v8: the element holding most of it is found among those not closing matter)
                tops = _weighed_out(frees, free, closing)[0] if self.closing_steps_back else frees
                edges = self._edges(kids, totals, total, 1.0, tops, weights.titled if self.titled_not_edge else None,
                                    peel=self.edge_peel)
                if weight > sum(sizes[j] for j in edges):
                    candidates, rest = _weighed_out(candidates, rest, edges)
                    body_out = edges
            candidates, rest = _weighed_out(candidates, rest, [j for j in closing if candidates[j]])
            if closing and not rest and path and self.closing_steps_back:
                # All this block holds outside links is closing matter (a layout table around a
                # copyright notice): the block is, and the step into it was wrong.
                closing_blocks.add(node.mem_id)
                node, free, total = path.pop()
                continue
            i = max(range(len(kids)), key=candidates.__getitem__)
            if candidates[i] <= self.dominant_share * rest or (self.stop_at_sections and any(
                    j != i and sizes[j] and _same_kind(k, kids[i]) for j, k in enumerate(kids))):
                break
            if self.titled_sections and node is not body and any(
                    sizes[j] and _has_heading(kids[j]) for j in (range(len(kids)) if self.headings_after else range(i))
                    if j != i):
                break
            path.append((node, free, total))
            node = kids[i]
            free, total = frees[i], totals[i] if totals is not None else weights.totals([node])[0]
        else:
            return node
        if self.edge_share > 0:
            # The body kept whole is left without the edges it was weighed without too.
            self._drop_edges(kids, sizes, weight, body_out if self.body_edges_left_out else [])
        return node

    def _drop_main_edges(self, tree: LexborHTMLParser, main) -> None:
        """Remove the edge elements (``_edges``, weighed by text outside links) of the marked
        ``main`` content, or of the element it wraps: one holding all its text outside links.
        Edges are lines, so weights are read exact up to three lines' length
        (``weights.kid_frees``) and in full only where the edges' total needs it."""
        body = tree.body
        if body is None or not in_copy(main, body):  # inside a link: not in a copy without links
            return
        longest, in_bytes = self.main_edge_most, self.weigh_bytes
        node = main
        for _ in range(MAX_STEPS):
            kids = elements(node)
            if not kids or len(kids) > MAX_KIDS:
                return
            frees, loose = kid_frees(node, kids, 3 * longest, in_bytes)
            holders = [j for j, f in enumerate(frees) if f]
            if not holders and not loose:
                return
            if len(holders) == 1 and not loose:
                node = kids[holders[0]]
                continue
            # The page's title (the first element holding a heading, if a line long) is passed
            # over and not weighed: it tells two short pages apart, and a line the mirror adds
            # inside it must not make the rest look small. Any other element holding a heading
            # is a section of the content: never an edge.
            first = node.css_first(HEADINGS)
            if first is not None and first.mem_id == node.mem_id:  # css() matches the node itself too
                first = next((h for h in node.css(HEADINGS) if h.mem_id != node.mem_id), None)
            title = _first_holding(node, kids, first)
            title = title if title >= 0 and frees[title] <= longest else None

            def edges_of(frees: list[int], loose: int) -> tuple[list[int], bool]:
                """The edges, and whether they hold at most ``edge_total`` of the weight."""
                weight = sum(frees) + loose - (frees[title] if title is not None else 0)
                edges = self._edges(kids, frees, weight, math.inf, titled=_has_heading,
                                    passed=lambda j: j == title, longest=longest)
                return edges, sum(frees[j] for j in edges) <= self.edge_total * weight

            edges, within = edges_of(frees, loose)
            if not within and max(frees + [loose]) > 3 * longest:
                # a weight was capped: the edges' total against the exact weight
                edges, within = edges_of(*kid_frees(node, kids, 1 << 62, in_bytes))
            for j in edges if within else ():
                kids[j].decompose()
            return

    def _edges(self, kids: list, sizes: list[int], weight: int, most: float | None = None,
               free: list[int] | None = None, titled: Callable[[object], bool] | None = None,
               passed: Callable[[int], bool] | None = None, longest: float = math.inf,
               peel: bool = False) -> list[int]:
        """The elements of ``kids`` at the block's start and end (elements without text passed
        over, and those at whose index ``passed`` is true) that hold text, at most
        ``edge_share`` of ``weight`` and ``longest`` each, and have no sibling of the same kind;
        none when they would hold more than ``most`` (default ``edge_total``) of it or nothing
        would be left. Given each element's text outside links (``free``), the one holding the
        most of it is an edge only as the first or last element holding text; given ``titled``
        (``Weigher.titled``), no element it is true of is one; with ``peel``, each is weighed
        against ``weight`` less the edges found before it from the same end."""
        # Each kid's kind counted once: asking every kid about every other was quadratic (a body
        # of 1,000 small elements of distinct classes took 0.4 s).
        kinds = [_kind(k) for k in kids]
        of_kind = Counter(kinds)
        peeled = 0  # the edges' weight so far, from the walk's own end

        def droppable(j: int) -> bool:
            left = weight - peeled if peel else weight
            return (sizes[j] <= min(self.edge_share * left, longest) and of_kind[kinds[j]] == 1
                    and not (titled is not None and titled(kids[j])))

        edges: list[int] = []
        # The element holding the most text outside links (``free``) is an edge only as the
        # first or last one holding text: a walk from the other end stops before it.
        holders = [j for j, n in enumerate(sizes) if n]
        top = max(range(len(kids)), key=free.__getitem__) if free and holders else -1
        lo, hi = 0, len(kids) - 1
        skip = passed or (lambda j: False)
        while lo <= hi and (not sizes[lo] or skip(lo) or droppable(lo)) and not (lo == top and lo != holders[0]):
            if sizes[lo] and not skip(lo):
                edges.append(lo)
                peeled += sizes[lo]
            lo += 1
        peeled = 0  # the walk from the end weighs its first element against the whole, as the first did
        while hi > lo and (not sizes[hi] or skip(hi) or droppable(hi)) and not (hi == top and hi != holders[-1]):
            if sizes[hi] and not skip(hi):
                edges.append(hi)
                peeled += sizes[hi]
            hi -= 1
        most = self.edge_total if most is None else most
        if not edges or lo > hi or sum(sizes[j] for j in edges) > most * weight:
            return []
        return edges

    def _drop_edges(self, kids: list, sizes: list[int], weight: int, also: list[int], **rules) -> None:
        """Remove the block's edge elements (``_edges``, under its keyword ``rules``) and the
        elements ``also`` from it."""
        for j in set(self._edges(kids, sizes, weight, **rules)).union(also):
            kids[j].decompose()


def _close_raw_text(html: str) -> str:
    """``html`` with its self-closed raw-text elements (``<iframe .../>``, ``<title/>``) closed by
    an end tag: see ``_SWALLOWERS``."""
    return _SELF_CLOSED_RAW.sub(r"<\1\2></\1>", html)


def content_share(content: str, whole: str) -> float:
    """The content's non-blank characters over the whole text's (1 when it has none)."""
    total = nonblank(whole)
    return nonblank(content) / total if total else 1.0


def _named_closing(node) -> bool:
    """Whether ``node``'s class or id names it a footer or a copyright notice."""
    attrs = node.attributes
    names = f"{attrs.get('class') or ''} {attrs.get('id') or ''}".lower()
    return "footer" in names or "copyright" in names


def _weighed_out(candidates: list[int], rest: int, out: list[int]) -> tuple[list[int], int]:
    """``candidates`` with those at the indices ``out`` set to 0, and ``rest`` less their sum."""
    if not out:
        return candidates, rest
    candidates = list(candidates)
    for j in out:
        rest -= candidates[j]
        candidates[j] = 0
    return candidates, rest


def _has_heading(node) -> bool:
    """Whether ``node`` is or holds a heading element (css matches the node itself too)."""
    return node.css_first(HEADINGS) is not None


def _first_holding(node, kids: list, inner) -> int:
    """The index of the element of ``kids`` (children of ``node``) that is or holds ``inner``, -1
    when none does."""
    at = {k.mem_id: j for j, k in enumerate(kids)}
    while inner is not None and inner.mem_id not in at and inner.mem_id != node.mem_id:
        inner = inner.parent
    return at.get(inner.mem_id, -1) if inner is not None else -1


def _same_kind(a, b) -> bool:
    return a.tag == b.tag and a.attributes == b.attributes


def _kind(node) -> tuple:
    """What ``_same_kind`` compares, as a key: the tag and the attributes (in any order)."""
    return node.tag, frozenset(node.attributes.items())


_LT, _SLASH = ord("<"), ord("/")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr "
                  "basefont bgsound frame keygen".split())
_NAME_BYTES = 4  # of a tag name, enough to tell void elements (frameset counts as frame)
_RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes plaintext".split())
# Elements that hold the rest of the page when written self-closed, as XHTML allows: HTML does
# not close them there. The raw-text ones read it as their text (a Debian-rewritten page's
# "<iframe .../>" in its menu made the rest of the page invisible, and every page of the site
# its menu alone), and noscript holds it as its children, which are not shown. Closed where
# written so, as the author meant and as an XML-minded spider's parser reads them; not
# plaintext, which no end tag closes.
_SWALLOWERS = sorted((_RAW_TEXT - {"plaintext"}) | {"noscript"})
_SELF_CLOSED_RAW = re.compile(f"<({'|'.join(_SWALLOWERS)})(\\s[^<>]*?)?/>", re.IGNORECASE)
_SELF_CLOSED_RAW_AT = re.compile(_SELF_CLOSED_RAW.pattern.encode(), re.IGNORECASE)  # matched at a tag
_CLOSES_P = frozenset("address article aside blockquote center details dialog dir div dl fieldset "
                      "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr li main menu "
                      "nav ol p pre section summary table ul".split())
# Reopened by the tree builder at every block that follows them while they are open: thousands
# left open ('<p><b>x' x 60,000) cost lexbor as much as deep nesting does.
_FORMATTING = frozenset("a b big code em font i nobr s small strike strong tt u".split())
# SVG's and MathML's elements are named "svg:g", "math:mi" on the model's stack (an HTML element
# of such a name is none of them). Their integration points, where HTML is read again: MathML's
# text ones and SVG's (and MathML's annotation-xml of an HTML encoding, _HTML_ENCODINGS).
_TEXT_POINTS = frozenset("math:mi math:mo math:mn math:ms math:mtext".split())  # (where mglyph is MathML's)
_INTEGRATION = _TEXT_POINTS | frozenset("svg:foreignobject svg:desc svg:title".split())
_HTML_ENCODINGS = frozenset((b"text/html", b"application/xhtml+xml"))
# The tree builder's special elements: an end tag of another name does not look past them for
# its element, nor a list item or term for the one before it (but past address, div and p,
# ``_ITEM_PASSES``).
_SPECIAL = frozenset("""address applet area article aside base basefont bgsound blockquote body br button caption
center col colgroup dd details dialog dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3
h4 h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav noembed
noframes noscript object ol p param plaintext pre script search section select source style summary table tbody
td template textarea tfoot th thead title tr track ul wbr xmp""".split()) | _INTEGRATION | {"math:annotation-xml"}
_ITEM_PASSES = frozenset(("address", "div", "p"))
# Where an element's scope ends (the default scope; a paragraph's also at a button; a list
# item's at a list; a table part's at its table).
_SCOPE_BOUNDARY = frozenset("applet caption html table td th marquee object template".split()) | _INTEGRATION | {
    "math:annotation-xml"}
_BUTTON_SCOPE = _SCOPE_BOUNDARY | {"button"}
_LIST_SCOPE = _SCOPE_BOUNDARY | {"ol", "ul"}
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_RUBY_PARTS = frozenset(("rb", "rp", "rt", "rtc"))
# A table part opened in a table closes the open parts of these names above the table.
_CELL_ENDS = {"td": frozenset(("td", "th")), "th": frozenset(("td", "th")), "tr": frozenset(("tr", "td", "th")),
              "tbody": frozenset(("tbody", "thead", "tfoot", "tr", "td", "th")),
              "thead": frozenset(("tbody", "thead", "tfoot", "tr", "td", "th")),
              "tfoot": frozenset(("tbody", "thead", "tfoot", "tr", "td", "th"))}
_SCAN = 64  # elements a close looks through; past them it closes nothing
_KEPT_OPEN = frozenset(("body", "html", "br", "form"))  # by their end tags
_TABLE_CONTEXT = frozenset(("table", "template"))  # where a table part is read
_TABLE_SCOPE = _TABLE_CONTEXT | {"html"}  # where a table part's scope ends
# Foreign content, where "/>" does close an element; in it, the start tags that leave it (the
# tree builder then closes the foreign elements).
_FOREIGN = frozenset(("svg", "math"))
_BREAKOUT = frozenset("b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img "
                      "li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var"
                      .split())  # and <font> of a color, face or size attribute (_FONT_BREAKS)
_FONT_BREAKS = frozenset((b"color", b"face", b"size"))


# The sets _StackModel reads, as the bits the C speedups' model reads them by (text is their
# one source: ``_speedups.tag_names`` takes them at import).
_MODEL_SETS = (_VOID, _RAW_TEXT, _FOREIGN, _INTEGRATION, _BREAKOUT, _SPECIAL, _ITEM_PASSES, _SCOPE_BOUNDARY,
               _BUTTON_SCOPE, _LIST_SCOPE, _HEADINGS, _RUBY_PARTS, _CLOSES_P, _FORMATTING, frozenset(_CELL_ENDS))
_MODEL_NAMES = sorted(frozenset().union(*_MODEL_SETS) | set(
    "li dd dt p option optgroup ruby table template td th tr tbody thead tfoot caption colgroup body html br form select "
    "annotation-xml svg mglyph malignmark".split()))  # and those it tests one by one
if _speedups is not None:
    _speedups.tag_names(_MODEL_NAMES, [sum(1 << b for b, names in enumerate(_MODEL_SETS) if n in names)
                                       for n in _MODEL_NAMES], list(_MARKED_NAMES), list(_MARKED_ATTRIBUTE_NAMES))


def _prepared(html: str, close: bool = True) -> tuple[str, bytes | None, bool, frozenset[int], int | None]:
    """``html`` with its self-closed raw-text elements closed (``_close_raw_text``), the same as
    UTF-8 (what lexbor parses: given it, the parser does not encode the page again; None when
    ``html`` holds lone surrogates, which it drops), whether the tree builder would read it in
    quadratic time (``_tag_model``: nested deeper than ``MAX_DEPTH``, or past ``COST_BUDGET``;
    then it is not parsed), the name keys of its start tags, and the marks of the names and
    attributes its start tags hold (``_tag_model``; None when it was not walked). One scan of the
    tags (``_tag_scan``) counts them and finds the names: a self-closed element is looked for
    only at tags of such a name, so a page without one costs nothing more; a page of at most
    ``MAX_DEPTH`` tags is never that deep, nor one of at most 4 KiB that costly.
    """
    try:
        raw = utf8 = html.encode("utf-8")
    except UnicodeEncodeError:
        raw, utf8 = html.encode("utf-8", "replace"), None
    tags, starts, names = _tag_scan(raw)
    if tags <= MAX_DEPTH:  # a few tags: too few to nest deeply, few to search
        if close and "/>" in html:
            closed = _close_raw_text(html)
            if closed != html:
                return _prepared(closed, close=False)
    elif close and any(_SELF_CLOSED_RAW_AT.match(raw, at) for at in starts):
        return _prepared(_close_raw_text(html), close=False)
    # (a tag's attributes take two bytes each: a page of 4 KiB cannot cost COST_BUDGET)
    if tags <= MAX_DEPTH and len(raw) <= 4096:
        return html, utf8, False, names, None
    cost, depth, marks = _tag_model(raw)
    return html, utf8, depth > MAX_DEPTH or cost > COST_BUDGET + COST_PER_BYTE * len(raw), names, marks


def _tag_scan(raw: bytes) -> tuple[int, list[int], frozenset[int]]:
    """The tags of ``raw`` (UTF-8 HTML): how many ``<`` it holds; where the start tags of
    ``_SWALLOWERS`` are; and the names of all its start tags. Names are told apart by their first
    ``_NAME_BYTES`` bytes (``_name_keys``). In C when built (``contentseen/_speedups.c``), else in
    numpy (``_tag_scan_numpy``): the same figures."""
    scanned = None if _speedups is None else _speedups.tag_scan(raw, _SWALLOWER_KEY_BYTES)
    if scanned is None:  # not built, or names crafted to collide in its tables
        return _tag_scan_numpy(raw)
    tags, starts, names = scanned
    return tags, starts, frozenset(np.frombuffer(names, dtype=np.uint32).tolist())


def _tag_scan_numpy(raw: bytes) -> tuple[int, list[int], frozenset[int]]:
    """``_tag_scan`` in numpy."""
    data = np.frombuffer(raw + b"\0" * _NAME_BYTES, dtype=np.uint8)
    lt = np.flatnonzero(data[:-_NAME_BYTES] == _LT)
    if not len(lt):
        return 0, [], frozenset()
    end = data[lt + 1] == _SLASH
    name = data[(lt + 1 + end)[:, None] + np.arange(_NAME_BYTES)] | 0x20  # lower-cased ASCII
    keys = _name_keys(name)
    starts = lt[~end & np.isin(keys, _SWALLOWER_KEYS)].tolist()
    letter = (name[:, 0] >= ord("a")) & (name[:, 0] <= ord("z"))
    return len(lt), starts, frozenset(keys[letter & ~end].tolist())


def _marked_query(keys: frozenset[int], marks: int | None) -> str:
    """The selector list of the elements that mark a page's main content or its boilerplate (its
    ``_MARKED_NAMES`` and ``_MARKED_ATTRIBUTE_NAMES``): those of its ``marks`` (``_tag_model``);
    without them, the names its tag ``keys`` can be (``_named``) and every attribute. Empty: the
    page holds none. (An attribute lexbor does not know by heart costs it a comparison of names
    at every element: ``[hidden]`` alone was 0.07 ms of a python-doc page.)"""
    if marks is None:
        return ", ".join(filter(None, (_named(_MARKED_NAMES, keys), *(f"[{a}]" for a in _MARKED_ATTRIBUTE_NAMES))))
    return _marked_by(marks)


@functools.lru_cache(maxsize=1 << (len(_MARKED_NAMES) + len(_MARKED_ATTRIBUTE_NAMES)))
def _marked_by(marks: int) -> str:
    return ", ".join(n if n in _MARKED_NAMES else f"[{n}]"
                     for j, n in enumerate(_MARKED_NAMES + _MARKED_ATTRIBUTE_NAMES) if marks >> j & 1)


def _named(names: tuple[str, ...], keys: frozenset[int]) -> str:
    """A selector list of those of ``names`` whose key (``_NAME_KEY``) is among ``keys``: the
    elements of those names a page can hold (a parser makes none of these without a start tag)."""
    return ", ".join(n for n in names if _NAME_KEY[n] in keys)


_ALNUM_BYTE = np.zeros(256, dtype=bool)
_ALNUM_BYTE[[*range(ord("a"), ord("z") + 1), *range(ord("0"), ord("9") + 1)]] = True


_KEY_MASKS = np.array([0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF], dtype=np.uint32)


def _name_keys(name: np.ndarray) -> np.ndarray:
    """A tag name's first ``_NAME_BYTES`` bytes (lower-cased, after ``<`` or ``</``) up to its
    first byte that is not a letter or digit, as one integer (so names compare as integers)."""
    alnum = np.zeros((len(name), _NAME_BYTES + 1), dtype=bool)
    alnum[:, :_NAME_BYTES] = _ALNUM_BYTE[name]
    length = np.argmin(alnum, axis=1)  # the first byte that is not, or _NAME_BYTES
    return np.ascontiguousarray(name).view("<u4").ravel() & _KEY_MASKS[length]


def _keys_of(names) -> np.ndarray:
    """The sorted name keys of tag ``names``."""
    return np.unique(_name_keys(np.array(
        [list(n.encode()[:_NAME_BYTES].ljust(_NAME_BYTES, b"\0")) for n in names], dtype=np.uint8)))


_SWALLOWER_KEYS = _keys_of(_SWALLOWERS)
_NAME_KEY = {n: int(_keys_of([n])[0]) for n in _INVISIBLE_NAMES + _MARKED_NAMES}
_SWALLOWER_KEY_BYTES = _SWALLOWER_KEYS.astype(np.uint32).tobytes()


_COSTLY = 16  # attributes of a tag, or elements of a select, that cost nothing worth counting
# A tag as the HTML tokenizer reads it: its name, then attributes, each a name (its first byte
# any but a blank, "/" or ">") and maybe "=" and a value, quoted or not; "/" reads as a blank.
# Possessive, as the tokenizer reads each byte once.
_TAG_BLANK = rb"[\t\n\f\r ]"
_ATTRIBUTE_NAME = rb"[^\t\n\f\r />][^\t\n\f\r />=]*+"
_ATTRIBUTE_VALUE = (rb"(?:" + _TAG_BLANK + rb"*+=" + _TAG_BLANK
                    + rb"""*+(?:"[^"]*+"?|'[^']*+'?|[^\t\n\f\r >]*+))?""")
_TOKENIZED_TAG = re.compile(rb"<(/?)([A-Za-z][^\t\n\f\r />]*+)((?:[\t\n\f\r /]*+" + _ATTRIBUTE_NAME
                            + _ATTRIBUTE_VALUE + rb")*+)([\t\n\f\r /]*+>?)")
_ATTRIBUTES = re.compile(rb"[\t\n\f\r /]*+(" + _ATTRIBUTE_NAME + rb")" + _ATTRIBUTE_VALUE)  # names, in a tag
_ATTRIBUTE_PAIRS = re.compile(rb"[\t\n\f\r /]*+(" + _ATTRIBUTE_NAME + rb")(?:" + _TAG_BLANK + rb"*+=" + _TAG_BLANK
                              + rb"""*+(?:"([^"]*+)"?|'([^']*+)'?|([^\t\n\f\r >]*+)))?""")  # and values
_COST_CAP = (2**63 - 1) // 4  # as the C function caps its sums
_AFTER_ATTRIBUTE = b"\t\n\f\r /\"'"  # what an attribute but a tag's first follows


def _costly(n: int) -> int:
    return n * n if n > _COSTLY else 0


def _tag_model(raw: bytes) -> tuple[int, int, int | None]:
    """What lexbor's tree builder does on ``raw`` (UTF-8 HTML) in time quadratic in its length, as
    ``(cost, depth, marks)``; the markup read as the tokenizer reads it (tags as ``_TOKENIZED_TAG``: a
    tag inside another's quoted value is none; comments, doctypes, bogus comments and raw text
    skipped where it skips them). In C when built (``_speedups.tag_model``: the same figures).

    *depth*: of its stack of open elements, of which only the rules that close elements in every
    case they apply are followed (``_StackModel``: any other start tag opens one), so it is never
    below the tree builder's; or the number of formatting elements left open when larger. The
    walk stops once it passes ``MAX_DEPTH``.

    *cost*: the sum of the squares of the attributes of each tag (start or end), of all
    ``<html>`` tags' attributes together and of all ``<body>`` tags' (merged into one element
    each), and of the start tags in each ``<select>`` (up to its end tag or the next
    ``<select>``), each counted only past ``_COSTLY``.

    *marks*, in C only (None in Python, where reading every tag's attributes would cost more than
    the query it spares): bit j is set when a start tag the walk read is named the j-th of
    ``_MARKED_NAMES``, or (j past those) holds an attribute named the next of
    ``_MARKED_ATTRIBUTE_NAMES``. The walk reads every tag the tokenizer reads (and, in raw text
    that the tokenizer's escapes prolong or in CDATA, more), so a page without a bit holds no
    such element or attribute.
    """
    if _speedups is not None:
        return _speedups.tag_model(raw, MAX_DEPTH)
    model, pos, size = _StackModel(), 0, len(raw)
    cost = html_attributes = body_attributes = select_tags = 0
    in_select = False
    while len(model.names) <= MAX_DEPTH and model.unclosed <= MAX_DEPTH and (pos := raw.find(b"<", pos)) >= 0:
        m = _TOKENIZED_TAG.match(raw, pos)
        if m is None:
            pos = _markup_end(raw, pos)
            continue
        pos = m.end()
        closing, name, area = m.group(1), m.group(2).lower().decode("latin-1"), m.group(3)
        # each attribute but the first starts after a blank, "/" or a quote: fewer of those than
        # _COSTLY, and the tag holds no more attributes than count
        attributes = (len(_ATTRIBUTES.findall(area)) if name in ("html", "body") or (
            len(area) > 2 * _COSTLY and len(area) - len(area.translate(None, _AFTER_ATTRIBUTE)) >= _COSTLY) else 0)
        if name == "select":
            cost += _costly(select_tags) if in_select else 0
            in_select, select_tags = not closing, 0
        elif in_select and not closing:
            select_tags += 1
        if name == "html":
            html_attributes += attributes
        elif name == "body":
            body_attributes += attributes
        else:
            cost += _costly(attributes)
        if closing:
            model.end(name)
            continue
        breaks = name == "font" and any(a.lower() in _FONT_BREAKS for a in _ATTRIBUTES.findall(area))
        html = name == "annotation-xml" and _html_encoding(area)
        if model.start(name, m.group(4).endswith(b"/>"), breaks, html):  # raw text: up to its end tag
            end = re.compile(rb"</" + re.escape(m.group(2)) + rb"[\t\n\f\r />]", re.IGNORECASE).search(raw, pos)
            pos = end.start() if end is not None else size
    cost += _costly(html_attributes) + _costly(body_attributes) + (_costly(select_tags) if in_select else 0)
    return min(cost, _COST_CAP), model.depth(), None


def _html_encoding(area: bytes) -> bool:
    """Whether a tag's attributes (``area``) name an HTML encoding: the first ``encoding``
    attribute's value is one of ``_HTML_ENCODINGS``, ASCII case folded."""
    for name, *values in _ATTRIBUTE_PAIRS.findall(area):
        if name.lower() == b"encoding":
            return b"".join(values).lower() in _HTML_ENCODINGS
    return False


def _markup_end(raw: bytes, pos: int) -> int:
    """Where what the tokenizer reads at the ``<`` at ``pos`` ends, when no tag starts there: a
    comment (at the first ``-->`` or ``--!>``; ``<!-->`` and ``<!--->`` are empty), a doctype or
    a bogus comment (``<!``, ``<?``, ``</`` and no letter: at the first ``>``), or a ``<`` of the
    text (the next byte)."""
    if raw.startswith(b"<!--", pos):
        if raw.startswith(b">", pos + 4) or raw.startswith(b"->", pos + 4):
            return raw.find(b">", pos + 4) + 1
        ends = [e + len(mark) for mark in (b"-->", b"--!>") if (e := raw.find(mark, pos + 4)) >= 0]
        return min(ends) if ends else len(raw)
    if raw.startswith((b"<!", b"<?", b"</"), pos):
        end = raw.find(b">", pos + 2)
        return end + 1 if end >= 0 else len(raw)
    return pos + 1


class _StackModel:
    """The tree builder's stack of open elements as ``_tag_model`` follows it: elements close only
    where the tree builder closes them whatever else holds (an end tag of an element in its
    scope; a list item, term or cell closing the one before it; a block closing a paragraph in
    button scope), each search looking through at most ``_SCAN`` elements; SVG and MathML
    elements (named "svg:..." and "math:...") close at ``/>``, except in their integration
    points, and the tags that leave them close them, as the tree builder does."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.spaces: list[str] = []  # per open element: "svg", "math", or "" (HTML)
        self.points: list[bool] = []  # per open element: whether it is an integration point
        self.unclosed = 0  # formatting elements opened and not closed: the tree builder reopens them
        self.paragraphs = 0  # HTML <p> elements open (none: no paragraph to close)

    def depth(self) -> int:
        return max(len(self.names), self.unclosed)

    def _push(self, name: str, space: str = "", html: bool = False) -> None:
        named = f"{space}:{name}" if space else name
        self.names.append(named)
        self.spaces.append(space)
        self.points.append(named in _INTEGRATION or (named == "math:annotation-xml" and html))
        self.paragraphs += named == "p"

    def _pop_to(self, i: int) -> None:
        if self.paragraphs:
            self.paragraphs -= self.names[i:].count("p")
        del self.names[i:], self.spaces[i:], self.points[i:]

    def _find(self, match: Callable[[str], bool], stop: Callable[[str], bool]) -> int:
        """The index of the topmost element ``match`` is true of, looking down from the top and
        stopping at one ``stop`` is true of (-1 then, or past ``_SCAN`` elements)."""
        names = self.names
        for i in range(len(names) - 1, max(-1, len(names) - 1 - _SCAN), -1):
            if match(names[i]):
                return i
            if stop(names[i]):
                return -1
        return -1

    def _close(self, match: Callable[[str], bool], stop: Callable[[str], bool]) -> None:
        i = self._find(match, stop)
        if i >= 0:
            self._pop_to(i)

    def _in_foreign(self) -> bool:
        return bool(self.names) and bool(self.spaces[-1]) and not self.points[-1]

    def _leave_foreign(self) -> None:
        while self._in_foreign():  # the tree builder closes the foreign elements it leaves
            self._pop_to(len(self.names) - 1)

    def start(self, name: str, self_closed: bool, breaks: bool = False, html: bool = False) -> bool:
        """A start tag (``breaks``: one that leaves SVG and MathML whatever its name; ``html``: of
        an HTML encoding); whether it is of a raw-text element (its text to be skipped)."""
        if name in _FORMATTING:
            self.unclosed += 1
        if self.points and self.points[-1] and name in ("mglyph", "malignmark") and self.names[-1] in _TEXT_POINTS:
            self._push(name, "math")  # MathML's own, in its text integration points
            return False
        if self._in_foreign():
            if name not in _BREAKOUT and not breaks:
                if not self_closed:  # SVG in MathML's annotation-xml is SVG
                    self._push(name, "svg" if name == "svg" and self.names[-1] == "math:annotation-xml"
                               else self.spaces[-1], html)
                return False
            self._leave_foreign()
        if name in _VOID:
            return False
        if name in _FOREIGN:
            if not self_closed:
                self._push(name, name)
            return False
        if name in _RAW_TEXT:
            return True
        if name == "li":
            self._close(lambda n: n == "li", lambda n: n in _SPECIAL and n not in _ITEM_PASSES)
        elif name in ("dd", "dt"):
            self._close(lambda n: n in ("dd", "dt"), lambda n: n in _SPECIAL and n not in _ITEM_PASSES)
        if name in _CLOSES_P and self.paragraphs:
            self._close(lambda n: n == "p", _BUTTON_SCOPE.__contains__)
        names = self.names
        if name in _HEADINGS and names and names[-1] in _HEADINGS:
            self._pop_to(len(names) - 1)
        elif name in ("option", "optgroup") and names and names[-1] == "option":
            self._pop_to(len(names) - 1)
        elif name in _RUBY_PARTS and self._find(lambda n: n == "ruby", _SCOPE_BOUNDARY.__contains__) >= 0:
            while names and names[-1] in _RUBY_PARTS:
                self._pop_to(len(names) - 1)
        elif name in _CELL_ENDS:
            table = self._find(_TABLE_CONTEXT.__contains__, lambda n: False)
            if table < 0:
                return False  # outside a table: ignored
            if names[table] == "table":
                self._close_part(name, table)
        self._push(name)
        return False

    def _close_part(self, name: str, table: int) -> None:
        """A table part opened inside the table at ``table`` closes the open part it ends (a
        cell, a row, a row group) above it; else the row group and row it implies are opened."""
        ends, names = _CELL_ENDS[name], self.names
        for i in range(len(names) - 1, table, -1):
            if names[i] in ends:
                self._pop_to(i)
                return
        for implied in {"td": ("tbody", "tr"), "th": ("tbody", "tr"), "tr": ("tbody",)}.get(name, ()):
            self._push(implied)

    def end(self, name: str) -> None:
        """An end tag."""
        if name in _FORMATTING:
            self.unclosed = max(0, self.unclosed - 1)
        names, spaces = self.names, self.spaces
        if names and names[-1] == (f"{spaces[-1]}:{name}" if spaces[-1] else name) and name not in _KEPT_OPEN:
            self._pop_to(len(names) - 1)  # the current element's end tag: every rule closes it
            return
        if names and spaces[-1]:
            if name in ("br", "p"):  # they leave SVG and MathML too
                self._leave_foreign()
            else:
                # SVG or MathML: its topmost element of that name, through foreign elements only
                for i in range(len(names) - 1, max(-1, len(names) - 1 - _SCAN), -1):
                    if names[i] == f"{spaces[i]}:{name}":
                        self._pop_to(i)
                        return
                    if i == 0 or not spaces[i - 1]:
                        break
                else:
                    return  # past _SCAN: nothing closes
        if name in _KEPT_OPEN:
            return
        if name == "p":
            if self.paragraphs:
                self._close(lambda n: n == "p", _BUTTON_SCOPE.__contains__)
        elif name == "li":
            self._close(lambda n: n == "li", _LIST_SCOPE.__contains__)
        elif name in _HEADINGS:
            self._close(_HEADINGS.__contains__, _SCOPE_BOUNDARY.__contains__)
        elif name in _FORMATTING:
            self._close(lambda n: n == name, lambda n: n in _SPECIAL or n in _SCOPE_BOUNDARY)
        elif name == "select":
            self._close(lambda n: n == "select", lambda n: n not in ("option", "optgroup"))
        elif name in _CELL_ENDS or name in ("table", "caption", "colgroup"):
            self._close(lambda n: n == name, _TABLE_SCOPE.__contains__)
        elif name == "template":
            self._close(lambda n: n == "template", lambda n: False)
        elif name in _SPECIAL:
            self._close(lambda n: n == name, _SCOPE_BOUNDARY.__contains__)
        else:
            self._close(lambda n: n == name, _SPECIAL.__contains__)


_FLAT_SKIP = re.compile(r"<(?:(!--)|(script|style|noscript|template|textarea|title|head|svg|math|iframe)\b)", re.I)
_ANY_TAG = re.compile(r"<[^<>]*>")


def flat_text(html: str) -> str:
    """The text of ``html`` without its tags, comments and invisible elements, in one linear
    scan (no tree): for pages too deeply nested to parse. An element or comment left open
    hides the rest of the page, as in a browser."""
    lower, parts, pos = html.lower(), [], 0
    while True:
        m = _FLAT_SKIP.search(html, pos)
        if m is None:
            parts.append(html[pos:])
            break
        parts.append(html[pos:m.start()])
        close = "-->" if m.group(1) else "</" + m.group(2).lower()
        end = lower.find(close, m.end())
        if end < 0:
            break
        pos = end + 3 if m.group(1) else lower.find(">", end) + 1 or len(html)
    return htmllib.unescape(_ANY_TAG.sub(" ", " ".join(parts)))


def visible_text(html: str, extract: Extract = "main", *, dominant_block: bool = True) -> str:
    """The fingerprinted text of ``html`` under ``extract``; ``dominant_block=False`` gives
    extraction v1's ``"main"`` (no narrowing of unmarked pages), for comparisons."""
    return Extractor(extract, narrow=dominant_block).texts(html).content


def html_title(html: str) -> str:
    """The document title, whitespace collapsed ('' when absent); linear on any markup."""
    html, utf8, deep, _, _ = _prepared(html[:MAX_HTML_CHARS])
    if deep:
        lower = html.lower()
        start = lower.find("<title")
        start = lower.find(">", start) + 1 if start >= 0 else 0
        end = lower.find("</title", start) if start else -1
        return " ".join(htmllib.unescape(html[start:end]).split()) if end >= 0 else ""
    node = LexborHTMLParser(html if utf8 is None else utf8).css_first("title")
    return " ".join(node.text().split()) if node is not None else ""
