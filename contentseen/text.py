"""HTML bytes -> visible text, with selectolax (lexbor).

Two extraction modes:

* ``"body"`` -- all visible text of the document body.
* ``"main"`` -- the main content: the largest of ``<main>``, ``<article>``, ``[role=main]`` when the
  page marks one, else the body without ``nav``, ``header``, ``footer``, ``aside`` and
  navigation/banner/contentinfo/complementary landmarks, narrowed to its content block (v3):

  1. from the body down, while one child element holds more than half of the text outside links
     (``DOMINANT_SHARE``), step into it -- a page template's content ``<div>``, without the bars,
     banners and notices beside it -- unless a sibling of the same kind (same tag, same
     attributes) holds text too: then the child is one section of a document among others
     (``<table class="section">``, ``<div class="sect1">``, ``<p>``) and the document is kept
     whole;
  2. from the block reached, the elements at its start and end that are small (each at most
     ``EDGE_SHARE`` of its text) and unlike their siblings (a banner line, a cookie notice, a
     "last updated" line, a page heading) are left out.

  Page templates (menus, sidebars, footers) repeat on every page of a site; leaving them out
  keeps unrelated short pages apart, and a banner added around the content leaves it unchanged.
  Stopping at a document's sections keeps a page's own text: v2 stepped on into its largest
  section, and pydoc's module pages, whose largest section is often an exception class's
  inherited-methods boilerplate, then collided across unrelated modules.
"""

from __future__ import annotations

from typing import Literal

from selectolax.lexbor import LexborHTMLParser
from w3lib.encoding import html_to_unicode

Extract = Literal["main", "body"]
EXTRACT_MODES: tuple[str, ...] = ("main", "body")

# Never visible, or not text (one query; "head" too when a frameset page has no body).
_INVISIBLE = "script, style, noscript, template, svg, math, iframe, object, embed, canvas, select"
# One query finds both what marks the main content (main, article, role=main) and the
# boilerplate left out when nothing does (nav, header, footer, aside, the navigation, banner,
# contentinfo and complementary landmarks, [hidden], [aria-hidden=true]); Python sorts them.
_MARKED = "main, article, nav, header, footer, aside, [role], [hidden], [aria-hidden]"
_MAIN_TAGS = frozenset(("main", "article"))
_BOILERPLATE_TAGS = frozenset(("nav", "header", "footer", "aside"))
_BOILERPLATE_ROLES = frozenset(("navigation", "banner", "contentinfo", "complementary"))
DOMINANT_SHARE = 0.5
# Stop at a child that has a sibling of the same kind holding text (a document's sections).
STOP_AT_SECTIONS = True
# Largest share of the block's text one dropped edge element may hold (0: drop none), and all of them.
EDGE_SHARE = 1 / 3
EDGE_TOTAL = 0.5
_BLANKS = " \t\n\r\f\v\xa0"


def decode_html(body: bytes, content_type: str | None = None) -> str:
    """Decode an HTML body as browsers (and Scrapy) do: BOM, then the HTTP charset, then
    ``<meta charset>``, then a guess; undecodable bytes become U+FFFD, never an error."""
    _, text = html_to_unicode(content_type, body)
    return text


def visible_text(html: str, extract: Extract = "main", *, dominant_block: bool = True) -> str:
    """The visible text of ``html``; tolerant of broken markup. ``dominant_block=False`` gives
    extraction v1's ``"main"`` (no narrowing of unmarked pages), for comparisons."""
    tree = LexborHTMLParser(html)
    root = tree.body
    # A frameset document has no body; one that had content before its <frameset> keeps a
    # body detached from the tree (no parent), holding none of the page's text.
    if root is None or root.parent is None:
        root = tree.root
        if root is None:
            return ""
        invisible = root.css(_INVISIBLE + ", head")
    else:
        invisible = root.css(_INVISIBLE)
    # Last first: a match inside another is removed before the one holding it (one query over
    # the tree instead of one per tag, as strip_tags does; half the time on large pages).
    for node in reversed(invisible):
        node.decompose()
    if extract == "main":
        mains, boilerplate = [], []
        for node in root.css(_MARKED):
            attrs = node.attributes
            if node.tag in _MAIN_TAGS or attrs.get("role") == "main":
                mains.append(node)
            elif (node.tag in _BOILERPLATE_TAGS or attrs.get("role") in _BOILERPLATE_ROLES
                  or "hidden" in attrs or attrs.get("aria-hidden") == "true"):
                # css() matches the node itself too: a <body hidden> is still the page.
                if node.mem_id != root.mem_id:
                    boilerplate.append(node)
        if mains:
            root = mains[0] if len(mains) == 1 else max(mains, key=lambda n: len(n.text(separator=" ")))
        else:
            for node in boilerplate:
                node.decompose()
            if dominant_block:
                root = _content_block(tree, root)
    return root.text(separator=" ")


def _chars(node) -> int:
    """Non-blank characters of a node's text (so reformatting whitespace changes nothing)."""
    text = node.text(separator="")
    return len(text) - sum(map(text.count, _BLANKS))


def _elements(node) -> list:
    """Element children other than links (the link-free copy has none)."""
    return [c for c in node.iter() if c.tag != "a"]


def _same_kind(a, b) -> bool:
    return a.tag == b.tag and a.attributes == b.attributes


def _content_block(tree: LexborHTMLParser, body):
    """The content block of ``tree``'s ``body`` (boilerplate removed): see the module's
    docstring. Text is weighed on a copy without links (navigation is mostly links); the
    block's dropped edge elements are removed from ``tree``."""
    copy_tree = tree.clone()  # cheaper than cloning the body; must outlive the copy's nodes
    copy = copy_tree.body
    if copy is None:
        return body
    copy.strip_tags(["a"])
    node, weight = body, -1
    while True:
        kids = _elements(copy)
        if not kids:
            return node
        sizes = [_chars(k) for k in kids]
        if weight < 0:  # the body: its elements' text and its own text nodes'
            own = copy.text(deep=False, separator="")
            weight = sum(sizes) + len(own) - sum(map(own.count, _BLANKS))
        if weight == 0:
            return node
        i = max(range(len(kids)), key=sizes.__getitem__)
        size = sizes[i]
        if size <= DOMINANT_SHARE * weight or (STOP_AT_SECTIONS and any(
                j != i and sizes[j] and _same_kind(k, kids[i]) for j, k in enumerate(kids))):
            break
        node = _elements(node)[i]
        copy, weight = kids[i], size
    if EDGE_SHARE > 0:
        _drop_edges(node, kids, sizes, weight)
    return node


def _drop_edges(node, kids: list, sizes: list[int], weight: int) -> None:
    """Remove from ``node`` the elements at its start and its end (elements without text outside
    links are passed over, kept) that hold text, at most ``EDGE_SHARE`` of ``weight`` each, and
    have no sibling of the same kind; none when they would hold more than ``EDGE_TOTAL`` of it
    or nothing would be left. ``kids``/``sizes``: the link-free copies of ``node``'s element
    children and their weights."""
    limit = EDGE_SHARE * weight

    def droppable(j: int) -> bool:
        return sizes[j] <= limit and not any(
            k != j and _same_kind(other, kids[j]) for k, other in enumerate(kids))

    drop: list[int] = []
    lo, hi = 0, len(kids) - 1
    while lo <= hi and (not sizes[lo] or droppable(lo)):
        if sizes[lo]:
            drop.append(lo)
        lo += 1
    while hi > lo and (not sizes[hi] or droppable(hi)):
        if sizes[hi]:
            drop.append(hi)
        hi -= 1
    if not drop or lo > hi or sum(sizes[j] for j in drop) > EDGE_TOTAL * weight:
        return
    elements = _elements(node)
    for j in drop:
        elements[j].decompose()


def html_title(html: str) -> str:
    """The document title, whitespace collapsed ('' when absent)."""
    node = LexborHTMLParser(html).css_first("title")
    return " ".join(node.text().split()) if node is not None else ""
