"""HTML -> visible text, with selectolax (lexbor): a page's *content* text and its *whole* text.

``Extractor.texts(html)`` gives both. The whole text is every visible word of the page (what a
reader sees, menus included: an inline SVG's labels and a declarative shadow root's text too,
v15, ``markup.SVG_HIDDEN``, ``markup.prepared``, and a formula's MathML, v16,
``markup.MATH_HIDDEN``); the content text depends on the mode:

* ``"body"`` -- the whole text.
* ``"main"`` -- the main content: the largest of ``<main>``, ``<article>``, ``[role=main]`` when the
  page marks one outside its boilerplate (not an ``<article>`` in an ``<aside>``:
  ``boilerplate_mains_out``, v14) -- of several ``<article>`` elements, the one holding the
  page's only ``<h1>`` (``titled_article_first``, v14); but not ``<article>`` elements none of
  which holds an ``<h1>`` while the page holds one beside them: several are the items of a list
  (``titled_articles``, v13), one a teaser beside the page's own text (``lone_article``, v14),
  left out where the element holding the title outweighs it and holds more than the title
  (v18; else kept, ``PageText.beside_title``)
  -- without its edge elements
  (step 2 below, lines of at most ``main_edge_most``,
  in the element it wraps if one holds all its text outside links; its title passed over, other
  elements holding headings never edges: v11; nor lists of links longer than a line, a blog's
  posts beside its sidebar: v21),
  else the body without ``nav``, ``header``, ``footer``, ``aside``, ``dialog`` and
  navigation/banner/contentinfo/complementary landmarks and dialogs (v15), narrowed to its content block (v9):

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
     (``closing_names``; nor one whose class is an overlay's, "modal", "popup", "lightbox":
     ``overlay_names``, v15): on a short page of links the copyright notice holds most of the text
     outside links; a block reached whose text outside links is all in such children (a
     layout table around the notice) is closing matter too: the narrowing steps back and
     weighs it out (``closing_steps_back``, v8); nor, below the body, into a child beside two
     or more siblings of one kind holding text (``items_beside``, v19): the block is a list of
     items and the child one of them, however long (a module's members beside the module it
     includes, shown in place). Text is weighed without link text, so a menu
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

Cost is bounded and linear in the page: a page whose markup lexbor's tree builder would read in
quadratic time is read by a linear tag-stripping scan instead of a parse (``markup`` tells them
before the parse, ``parse`` stops the parse of those it did not tell); the
narrowing takes at most ``MAX_STEPS`` steps and stops at a block of more than ``MAX_KIDS``
children; only the first ``MAX_HTML_CHARS`` characters of a page are read, past the bodies of its
scripts and style sheets on a page longer than that.
"""

from __future__ import annotations

import codecs
import html as htmllib
import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Literal

from selectolax.lexbor import LexborHTMLParser
from w3lib.encoding import html_to_unicode

from .markup import flat_text, invisible_query, marked_query, prepared, scripts_left_out
from .parse import parsed
from .weights import (HEADINGS, MAX_KIDS, chars, elements, free_weights, in_copy, kid_frees, nonblank, table_frees,
                      tree_table, weigher)


Extract = Literal["main", "body"]
EXTRACT_MODES: tuple[str, ...] = ("main", "body")

# How the marked elements (markup.MARKED_NAMES, MARKED_ATTRIBUTE_NAMES) are sorted.
_MAIN_TAGS = frozenset(("main", "article"))
# (a dialog, v15: a consent platform's, larger than a short story beside it, is no page's content)
_BOILERPLATE_TAGS = frozenset(("nav", "header", "footer", "aside", "dialog"))
_BOILERPLATE_ROLES = frozenset(("navigation", "banner", "contentinfo", "complementary", "dialog", "alertdialog"))

MAX_STEPS = 64
# A page whose content holds less than this share of its visible text is held to a closer whole
# page (``fingerprints.Scheme.page_limit``).
MINOR_SHARE = 0.5
# A page marking its content with less than this share of its text outside its boilerplate may
# show a block of its host's (``PageText.own_share``, ``engine.shareable``): two pages showing one
# block that holds a share s of each one's own text, the rest of each its own, have word shingles
# in common s / (2 - s) of their union, under half below s = 2/3 (a thread's opening post, half
# of each page, above four replies of its own: J 0.35-0.40, dropped with 0.5 here). Not 2/3: the
# text that share leaves out (each reply's author, date, number, buttons) sets pages apart too, and
# on threads of varied words pages whose post held 65-84% of their own text had J 0.33-0.50.
SHARED_SHARE = 0.85
# A page of more <h1> elements than this has no one title: the rules about where the page's
# title is (v13, v14) are not applied (the walk up from 100,000 of them took 0.5 s).
MAX_TITLES = 1000
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
    encoding, text, _ = _read(body, content_type)
    return encoding, text


def html_and_utf8(body: bytes, content_type: str | None = None) -> tuple[str, bytes | None]:
    """``decode_html``'s text, and ``body`` itself where it is that text's UTF-8 (a page served
    in UTF-8, most pages): lexbor parses UTF-8, and a page's text need not be encoded again
    (0.09 ms of a 93 KiB page of the Python documentation); else None."""
    return _read(body, content_type)[1:]


def _read(body: bytes, content_type: str | None) -> tuple[str, str, bytes | None]:
    encoding, text = html_to_unicode(content_type, body)
    # (w3lib names its default "utf8": the same codec, its text decoded already)
    unicode = encoding in _UNICODE_ENCODINGS or encoding == "utf8"
    if not unicode and not body.isascii():
        try:
            return "utf-8", body.decode("utf-8"), body
        except UnicodeDecodeError:
            pass
    # Read as UTF-8 without a byte-order mark (w3lib leaves it out) or a byte replaced: the body.
    same = encoding in ("utf-8", "utf8") and not body.startswith(codecs.BOM_UTF8) and "\ufffd" not in text
    return encoding, text, body if same else None


@dataclass(frozen=True)
class PageText:
    """What a page shows: its ``content`` (the fingerprinted text) and its ``whole`` visible
    text; ``flat`` when the markup was not parsed (``markup``, ``parse``: it would have cost the
    tree builder time quadratic in the page) and both are the tag-stripped text;
    ``sliver`` when the content block holds little of the page's text (then the content
    fingerprint counts the whole text too); ``share``: the content's non-blank characters over
    the whole text's; ``narrowed`` when the content block was found by weighing the body's
    elements (the pages a sliver can be; not those marking their main content); ``own_share``:
    on a page marking its content with a ``share`` under ``SHARED_SHARE``, the content's share of
    the text outside links and outside the page's boilerplate (its menus, sidebars, header and
    footer), else 1; ``beside_title``: the marked content is one ``<article>`` beside the page's
    ``<h1>``, lighter than the block holding it (a post under its title, or a site's featured
    teaser beside a shorter story: which one, the host's other pages tell)."""

    content: str
    whole: str
    flat: bool = False
    sliver: bool = False
    share: float = 1.0
    narrowed: bool = False
    own_share: float = 1.0
    beside_title: bool = False
    # a narrowed page's text once its boilerplate (and a teaser left out) is out, where any was
    # (else its ``whole``): its own text, around which the rest of its block is read
    # (``PageFingerprints.rest``; a menu, a sidebar of latest posts or a featured teaser is not
    # the page's, and changes between a page and its copy at another URL of its site)
    own: str | None = None


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
    # ... nor into one whose class is "modal", "popup" or "lightbox" (v15, a whole word of it: a
    # release note's section id ending "-related-popup" is content): a shop's size guide, a
    # table in a <div class="modal"> shown by script, was every product page's content.
    overlay_names: bool = True
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
    # A page marking no main content but several ``<article>`` elements side by side, none
    # holding an ``<h1>`` while the page holds one outside its header and other boilerplate, is
    # narrowed as a page marking none (v13): they are the items of a list, the posts of a tag's
    # archive, and the largest, one post on many tags, was the content of every archive showing it.
    titled_articles: bool = True
    # ... and so is a page whose one marked element is such an ``<article>`` (v14), left out
    # first, where the element holding the page's title outweighs it (else it stays the content,
    # ``PageText.beside_title``): a news story in an unmarked <div> beside the site's "featured"
    # <article> (a teaser, the same on every story page) had the teaser for its content, and
    # different stories were dropped.
    lone_article: bool = True
    # A marked element inside the page's boilerplate (an <article> in an <aside>, a footer's
    # "latest posts") is not its main content (v14): the same teaser, in an <aside>.
    boilerplate_mains_out: bool = True
    # Of several <article> elements, the one holding the page's only such title (an <h1>) is its
    # main content (v14), not the longest: a story beside a longer "featured" teaser, a post
    # beside a long comment.
    titled_article_first: bool = True
    # Below the body, never step into a child beside two or more siblings of one kind holding
    # text (v19): the block is a list of items (odoc's specs of a module), the child one of them
    # however long (the module it includes), and a page of its own beside the included one.
    items_beside: bool = True
    # The lines after the page's title in the element holding only the title and them (a "last
    # updated" or byline line under an <h1>, in the title's own <div>) are left out of the
    # content (v20), where the content holds at least ``main_edge_most`` more besides: passed
    # over with the title by the edge rules, a mirror's timestamp there moved a 235-word
    # javadoc page 4 bits and a title page 5. Only in that element: climbing to the elements
    # holding it while each held a line more, a timestamp added beside the title kept a
    # story's byline further up, left out of the story itself (the Telegraph's, 5 bits).
    title_lines: bool = True
    # Nor is a list of links longer than a line an edge of the marked main content (v21: more of
    # its text in links than outside them, and more than ``main_edge_most`` in all): a mirror's
    # line is a sentence, not a list of posts. A blog theme putting its sidebar inside <main>
    # (Hexo's Butterfly) had each archive page's list of ten posts, whose only text outside links
    # is their dates, taken for an edge and the sidebar for the content: the archive's pages,
    # its categories' and its tags' were dropped as copies of the first one crawled.
    link_lists: bool = True

    def texts(self, html: str, utf8: bytes | None = None) -> PageText:
        """The content and whole visible text of ``html``; tolerant of broken markup. ``utf8``:
        ``html`` as UTF-8, when the caller has it (``html_and_utf8``)."""
        page = prepared(_bounded(html), utf8=utf8 if len(html) <= MAX_HTML_CHARS else None)
        html, names, marks = page.html, page.keys, page.marks
        tree = None if page.flat else parsed(page)
        if tree is None:
            text = flat_text(html)
            return PageText(text, text, flat=True)
        hidden = invisible_query(names)
        root = tree.body
        # A frameset document has no body; one that had content before its <frameset> keeps a
        # body detached from the tree (no parent), holding none of the page's text.
        if root is None or root.parent is None:
            root = tree.root
            if root is None:
                return PageText("", "")
            invisible = root.css(", ".join(filter(None, (hidden, "head"))))
        else:
            invisible = root.css(hidden) if hidden else []
        # Last first: a match inside another is removed before the one holding it (one query over
        # the tree instead of one per tag, as strip_tags does; half the time on large pages).
        for node in reversed(invisible):
            node.decompose()
        whole = root.text(separator="\n")
        if self.mode == "body":
            return PageText(whole, whole)
        mains, boilerplate = [], []
        marked = marked_query(names, marks)
        for node in root.css(marked) if marked else ():
            attrs = node.attributes
            if node.tag in _MAIN_TAGS or attrs.get("role") == "main":
                mains.append(node)
            elif (node.tag in _BOILERPLATE_TAGS or attrs.get("role") in _BOILERPLATE_ROLES
                  or "hidden" in attrs or attrs.get("aria-hidden") == "true"):
                # css() matches the node itself too: a <body hidden> is still the page.
                if node.mem_id != root.mem_id:
                    boilerplate.append(node)
        if mains and boilerplate and self.boilerplate_mains_out:
            mains = _outside(mains, boilerplate)
        outer = mains if len(mains) < 2 else _outermost(mains)
        teaser = None  # a lone <article> beside the page's own text: left out, the page read unmarked
        beside_title = False
        if outer and self.titled_articles and all(map(_is_article, outer)) and (len(outer) > 1 or self.lone_article):
            places = _h1_places(root, outer, boilerplate)  # (None: a page of too many titles)
            titled, title = places if places is not None else (outer, None)
            if not titled and title is not None:
                if len(outer) > 1:
                    outer = []
                elif _outside(outer, boilerplate):
                    if _story_beside(root, title, outer[0], self.weigh_bytes):
                        teaser, outer = outer[0], []
                    else:
                        beside_title = True
            elif len(titled) == 1 and title is None and self.titled_article_first:
                outer = titled
        if outer:
            main = outer[0] if len(outer) == 1 else max(outer, key=lambda n: len(n.text(separator=" ")))
            if self.main_edges and self.edge_share > 0:
                self._drop_main_edges(tree, main)
            if self.title_lines:
                self._drop_title_lines(main)
            content = main.text(separator="\n")
            share = content_share(content, whole)
            own = _own_share(root, main, boilerplate, self.weigh_bytes) if share < SHARED_SHARE else 1.0
            return PageText(content, whole, share=share, own_share=own, beside_title=beside_title)
        for node in boilerplate:
            node.decompose()
        if teaser is not None:
            teaser.decompose()
        own = root.text(separator="\n") if boilerplate or teaser is not None else None
        if self.narrow:
            root = self._content_block(tree, root)
        if self.title_lines:
            self._drop_title_lines(root)
        content = root.text(separator="\n")
        share = content_share(content, whole)
        return PageText(content, whole, sliver=share < self.min_share, share=share, narrowed=True, own=own)

    def _content_block(self, tree: LexborHTMLParser, body):
        """The content block of ``tree``'s ``body`` (boilerplate removed): see the module's
        docstring. Text is weighed with and without links by ``weights.weigher``; the block's
        dropped edge elements are removed from ``tree``."""
        weights = weigher(tree, body, self.weigh_bytes)
        if weights is None:
            return body
        node = body
        free, total = weights.of(body)
        # Each element's kind, headings and title read once: a step back weighs a block again
        # (15 steps back over a body with 100,000 headings took 0.6 s at 466 KB), and each of a
        # block's 1,000 children was compared with the one holding most of its text, whose
        # attributes were read again each time.
        kind, has_heading, titled = _once(_kind), _holds_heading(body), _once(weights.titled)
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
                       if sizes[j] and (_named_closing(k, self.overlay_names) or k.mem_id in closing_blocks)
                       ] if self.closing_names else []
            if body_rule:
                # The body's small edge elements are never its content, even when they hold
                # most of the text outside links (a notice beside a list of links), unless
                # nothing else holds such text (a short page beside an unmarked menu).
                # (v8: the element holding most of it is found among those not closing matter)
                tops = _weighed_out(frees, free, closing)[0] if self.closing_steps_back else frees
                edges = self._edges(kids, totals, total, 1.0, tops, titled if self.titled_not_edge else None,
                                    peel=self.edge_peel, kind=kind)
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
            if candidates[i] <= self.dominant_share * rest or (self.stop_at_sections and _has_twin(kids, sizes, i)):
                break
            if self.items_beside and node is not body and _items_beside(kids, candidates, i, kind):
                break
            if self.titled_sections and node is not body and any(
                    sizes[j] and has_heading(kids[j]) for j in (range(len(kids)) if self.headings_after else range(i))
                    if j != i):
                break
            path.append((node, free, total))
            node = kids[i]
            free, total = frees[i], totals[i] if totals is not None else weights.totals([node])[0]
        else:
            return node
        if self.edge_share > 0:
            # The body kept whole is left without the edges it was weighed without too.
            self._drop_edges(kids, sizes, weight, body_out if self.body_edges_left_out else [], kind=kind)
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
        node, table = main, None

        def weighed(kids: list, cap: int) -> tuple[list[int], int]:
            """``kid_frees`` of ``node``, from ``table`` once it is made."""
            return kid_frees(node, kids, cap, in_bytes) if table is None else table_frees(table, node, kids, cap)

        for step in range(MAX_STEPS):
            kids = elements(node)
            if not kids or len(kids) > MAX_KIDS:
                return
            if len(kids) == 1 and _only_element_holds_all(node):
                # (the step weighing would take, unweighed: weighing the one element at each of 63
                # levels read the same text again each time, 0.2 s at 600 KB; where it holds none,
                # neither does anything below it, and the walk ends there without an edge)
                node = kids[0]
                continue
            # Past a few levels, every element below the main is weighed once, in full: weighed
            # capped at each level, the text the one holding it all held was read again at each
            # (63 levels of two elements, one empty: 0.5 s at 1 MB).
            if table is None and step >= _CAPPED_STEPS:
                table = tree_table(main, in_bytes)
            frees, loose = weighed(kids, 3 * longest)
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

            def not_edge(kid) -> bool:
                """A section (an element holding a heading), or a list of links longer than a
                line (``link_lists``): content, never an edge."""
                if _has_heading(kid):
                    return True
                if not self.link_lists:
                    return False
                total = chars(kid, in_bytes)
                return total > longest and total > 2 * frees[kids.index(kid)]

            def edges_of(frees: list[int], loose: int) -> tuple[list[int], bool]:
                """The edges, and whether they hold at most ``edge_total`` of the weight."""
                weight = sum(frees) + loose - (frees[title] if title is not None else 0)
                edges = self._edges(kids, frees, weight, math.inf, titled=not_edge,
                                    passed=lambda j: j == title, longest=longest)
                return edges, sum(frees[j] for j in edges) <= self.edge_total * weight

            edges, within = edges_of(frees, loose)
            if not within and max(frees + [loose]) > 3 * longest:
                # a weight was capped: the edges' total against the exact weight
                edges, within = edges_of(*weighed(kids, 1 << 62))
            for j in edges if within else ():
                kids[j].decompose()
            return

    def _drop_title_lines(self, block) -> None:
        """Remove from ``block`` the lines after its first ``<h1>`` in the element holding it
        (``title_lines``): where that element holds nothing before the title and, after it,
        only elements holding no heading and at most ``main_edge_most`` of text in all, and
        ``block`` holds at least that much outside it."""
        title = block.css_first("h1")  # (a section's heading is no title: DocBook's "Name" above a name)
        holder = title.parent if title is not None and title.mem_id != block.mem_id else None
        if holder is None or holder.mem_id == block.mem_id:
            return
        longest, in_bytes = self.main_edge_most, self.weigh_bytes
        node = title.prev
        while node is not None:  # text before the title: not a title's own element
            if chars(node, in_bytes):
                return
            node = node.prev
        lines, total, node = [], 0, title.next
        while node is not None:  # (read until past a line's worth: a large parent costs no more)
            weight = chars(node, in_bytes)
            total += weight
            if total > longest or weight and (node.tag == "-text" or _has_heading(node)):
                return  # loose text, or a heading: more than the title's lines
            if weight:
                lines.append(node)
            node = node.next
        if lines and chars(block, in_bytes) - chars(holder, in_bytes) >= longest:
            for line in lines:
                line.decompose()

    def _edges(self, kids: list, sizes: list[int], weight: int, most: float | None = None,
               free: list[int] | None = None, titled: Callable[[object], bool] | None = None,
               passed: Callable[[int], bool] | None = None, longest: float = math.inf,
               peel: bool = False, kind: Callable[[object], tuple] | None = None) -> list[int]:
        """The elements of ``kids`` at the block's start and end (elements without text passed
        over, and those at whose index ``passed`` is true) that hold text, at most
        ``edge_share`` of ``weight`` and ``longest`` each, and have no sibling of the same kind;
        none when they would hold more than ``most`` (default ``edge_total``) of it or nothing
        would be left. Given each element's text outside links (``free``), the one holding the
        most of it is an edge only as the first or last element holding text; given ``titled``
        (``Weigher.titled``), no element it is true of is one; with ``peel``, each is weighed
        against ``weight`` less the edges found before it from the same end; ``kind``: what tells
        an element's kind (``_kind``; a narrowing's reads each element's once)."""
        # Each kid's kind counted once: asking every kid about every other was quadratic (a body
        # of 1,000 small elements of distinct classes took 0.4 s).
        kinds = [(kind or _kind)(k) for k in kids]
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


def content_share(content: str, whole: str) -> float:
    """The content's non-blank characters over the whole text's (1 when it has none)."""
    total = nonblank(whole)
    return nonblank(content) / total if total else 1.0


_OVERLAY_CLASSES = frozenset(("modal", "popup", "lightbox"))


def _named_closing(node, overlays: bool = False) -> bool:
    """Whether ``node``'s class or id names it a footer or a copyright notice, or (``overlays``)
    its class an overlay shown by script (``Extractor.overlay_names``)."""
    attrs = node.attributes
    classes = (attrs.get("class") or "").lower()
    names = f"{classes} {(attrs.get('id') or '').lower()}"
    return "footer" in names or "copyright" in names or (overlays and not _OVERLAY_CLASSES.isdisjoint(classes.split()))


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


def _holds_heading(body) -> Callable:
    """Whether an element of ``body`` is or holds a heading, as ``_has_heading``: every heading's
    ancestors up to ``body`` marked once, on the first question. Asked of each of a block's 1,000
    children at 48 levels, a query per child cost 0.15 s at 460 KB; this walk is linear in the
    tree (a walk up stops at an element marked already)."""
    holders: set[int] = set()
    marked = False

    def holds(node) -> bool:
        nonlocal marked
        if not marked:
            top = body.mem_id
            for heading in body.css(HEADINGS):
                while heading is not None and heading.mem_id not in holders:
                    holders.add(heading.mem_id)
                    if heading.mem_id == top:
                        break
                    heading = heading.parent
            marked = True
        return node.mem_id in holders

    return holds


def _first_holding(node, kids: list, inner) -> int:
    """The index of the element of ``kids`` (children of ``node``) that is or holds ``inner``, -1
    when none does."""
    at = {k.mem_id: j for j, k in enumerate(kids)}
    while inner is not None and inner.mem_id not in at and inner.mem_id != node.mem_id:
        inner = inner.parent
    return at.get(inner.mem_id, -1) if inner is not None else -1


_CAPPED_STEPS = 4  # levels of a main weighed capped (``kid_frees``) before it is weighed in full


def _only_element_holds_all(node) -> bool:
    """Whether ``node``'s text outside links, if any, is all in its one element child other than a
    link: its other children are links, comments and blank text."""
    for child in node.iter(include_text=True):
        if (child.tag == "-text" and nonblank(child.text_content or "")) or (
                child.tag == "a" and "href" not in child.attributes):
            return False
    return True


def _once(read: Callable) -> Callable:
    """``read`` of an element, read once per element (by its ``mem_id``: only within one tree)."""
    done: dict[int, object] = {}

    def once(node):
        at = node.mem_id
        if at not in done:
            done[at] = read(node)
        return done[at]

    return once


def _is_article(node) -> bool:
    """Whether a marked main element is an ``<article>`` alone (not also ``[role=main]``)."""
    return node.tag == "article" and node.attributes.get("role") != "main"


def _h1_places(root, articles: list, boilerplate: list) -> tuple[list, object] | None:
    """Those of ``articles`` (apart from each other) holding an ``<h1>`` (in their own header
    too), and the first ``<h1>`` of ``root`` outside them and the ``boilerplate`` (a site's name
    in its header is not the page's title), or None; None for a page of more than
    ``MAX_TITLES`` of them, whose title is no one heading. The walks up from the headings share
    their way (``_held``)."""
    headings = root.css("h1")
    if len(headings) > MAX_TITLES:
        return None
    at = {n.mem_id: n for n in articles}
    groups, held, owners = (set(at), {n.mem_id for n in boilerplate}), {}, {}
    titled: dict[int, object] = {}
    title = None
    for h1 in headings:
        in_article, in_boilerplate = _held(h1, groups, held)
        if in_article:
            owner = _owner(h1, at, owners)
            titled[owner] = at[owner]
            if len(titled) > 1:  # no title of the page's: what is beside no longer matters
                break
        elif title is None and not in_boilerplate:
            title = h1
    return [n for n in articles if n.mem_id in titled], title


def _owner(node, at: dict, owners: dict[int, int]) -> int:
    """The ``mem_id`` of the element of ``at`` that holds ``node`` (there is one); ``owners``
    keeps each element's answer, as ``_held`` does."""
    path = []
    while node.mem_id not in at and node.mem_id not in owners:
        path.append(node.mem_id)
        node = node.parent
    owner = owners.get(node.mem_id, node.mem_id)
    owners.update(dict.fromkeys(path, owner))
    return owner


def _title_block(title, article):
    """The element holding ``title`` (an ``<h1>`` outside ``article``) beside an element holding
    ``article`` (children of the element holding both): the page's own block beside it (a
    story's ``<div>``), or the heading itself where it stands beside the article."""
    above = set()
    node = article.parent
    while node is not None:
        above.add(node.mem_id)
        node = node.parent
    node = title
    while node.parent is not None and node.parent.mem_id not in above:
        node = node.parent
    return node


def _story_beside(body, title, article, in_bytes: bool) -> bool:
    """Whether the element holding the page's ``title`` beside a lone ``article``
    (``_title_block``) is a story of its own, the article a teaser beside it: it holds more text
    outside links (``weights.free_weights``) than the article, and more than the title alone. A
    heading above the article, with nothing of its own beside it, titles it: a site's long name
    as every page's <h1> above a short article (the Universal Declaration's articles, one a page)
    outweighed it, and every page's content was the same heading (extraction v18)."""
    block, own, title_alone = free_weights(body, [_title_block(title, article), article, title], in_bytes)
    return block > own and block > title_alone


def _own_share(body, main, boilerplate: list, in_bytes: bool) -> float:
    """``main``'s share of the text outside links of ``body`` less its ``boilerplate`` outside
    ``main`` (``PageText.own_share``, ``weights.free_weights``): a list of latest posts beside a
    story, all links, leaves it whole; a thread's replies beside its opening post do not."""
    # (the main's own edges, a header among them, are out of the tree already: no parent)
    chrome = [n for n in _outermost(_outside(boilerplate, [main])) if n.parent is not None]
    own, total, *others = free_weights(body, [main, body, *chrome], in_bytes)
    rest = total - sum(others)
    return min(1.0, own / rest) if rest > 0 else 1.0


def _outside(nodes: list, others: list) -> list:
    """Those of ``nodes`` inside none of ``others`` (``_held``)."""
    groups, held = ({n.mem_id for n in others},), {}
    return [n for n in nodes if not _held(n.parent, groups, held)[0]]


def _outermost(nodes: list) -> list:
    """Those of ``nodes`` (in document order) inside none of the others (``_held``: reading the
    text of each of 500 nested <article> took time quadratic in the page, 1 s at 300 KB). The
    longest text is among them: an inner one's text is part of its outer one's, which comes
    first."""
    return _outside(nodes, nodes)


def _held(node, groups: tuple[set[int], ...], held: dict[int, tuple[bool, ...]]) -> tuple[bool, ...]:
    """For each of ``groups`` (sets of elements' ``mem_id``), whether ``node`` (None: nothing) or
    an element above it is in it. ``held`` keeps each element's answer, so that the elements
    above many nodes are looked at once, not once a node."""
    path, state = [], (False,) * len(groups)
    while node is not None:
        if node.mem_id in held:
            state = held[node.mem_id]
            break
        path.append(node.mem_id)
        node = node.parent
    for at in reversed(path):  # from the top down
        state = tuple(inside or at in group for inside, group in zip(state, groups))
        held[at] = state
    return state


def _has_twin(kids: list, sizes: list[int], i: int) -> bool:
    """Whether an element of ``kids`` other than ``kids[i]`` holding text (``sizes``) is of its
    kind (``_kind``). Its attributes are read once, the others' only beside one of its tag, and
    compared as dicts (in any order): each of 1,000 children compared at 48 levels."""
    tag = kids[i].tag
    attributes = kids[i].attributes
    return any(sizes[j] and j != i and k.tag == tag and k.attributes == attributes for j, k in enumerate(kids))


def _items_beside(kids: list, sizes: list[int], i: int, kind: Callable) -> bool:
    """Whether two or more elements of ``kids`` other than ``kids[i]`` holding text (``sizes``)
    are of one kind (``kind``)."""
    seen: set = set()
    for j, k in enumerate(kids):
        if sizes[j] and j != i:
            key = kind(k)
            if key in seen:
                return True
            seen.add(key)
    return False


def _kind(node) -> tuple:
    """An element's kind: its tag and its attributes (in any order)."""
    return node.tag, frozenset(node.attributes.items())


def _bounded(html: str) -> str:
    """``html``, or the first ``MAX_HTML_CHARS`` characters of it once its scripts' and style
    sheets' bodies are left out (``markup.scripts_left_out``)."""
    return html if len(html) <= MAX_HTML_CHARS else scripts_left_out(html, MAX_HTML_CHARS)


def visible_text(html: str, extract: Extract = "main", *, dominant_block: bool = True) -> str:
    """The fingerprinted text of ``html`` under ``extract``; ``dominant_block=False`` gives
    extraction v1's ``"main"`` (no narrowing of unmarked pages), for comparisons."""
    return Extractor(extract, narrow=dominant_block).texts(html).content


def html_title(html: str) -> str:
    """The document title, whitespace collapsed ('' when absent); linear on any markup."""
    page = prepared(_bounded(html))
    tree = None if page.flat else parsed(page)
    if tree is None:
        html = page.html
        lower = html.lower()
        start = lower.find("<title")
        start = lower.find(">", start) + 1 if start >= 0 else 0
        end = lower.find("</title", start) if start else -1
        return " ".join(htmllib.unescape(html[start:end]).split()) if end >= 0 else ""
    node = tree.css_first("title")
    return " ".join(node.text().split()) if node is not None else ""
