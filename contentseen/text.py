"""HTML bytes -> visible text, with selectolax (lexbor).

Two extraction modes:

* ``"body"`` -- all visible text of the document body.
* ``"main"`` -- the main content: the largest of ``<main>``, ``<article>``, ``[role=main]`` when the
  page marks one, else the body without ``nav``, ``header``, ``footer``, ``aside`` and
  navigation/banner/contentinfo/complementary landmarks, narrowed to its dominant block: from the
  body down, while one child element holds more than half of the text outside links, that child
  (a page template's content ``<div>``, without the bars, banners and notices beside it).
  Page templates (menus, sidebars, footers) repeat on every page of a site; leaving them out
  keeps unrelated short pages apart, and a banner added around the content leaves it unchanged.
"""

from __future__ import annotations

from typing import Literal

from selectolax.lexbor import LexborHTMLParser
from w3lib.encoding import html_to_unicode

Extract = Literal["main", "body"]
EXTRACT_MODES: tuple[str, ...] = ("main", "body")

# Never visible, or not text.
_INVISIBLE = ["script", "style", "noscript", "template", "svg", "math", "iframe", "object",
              "embed", "canvas", "select", "head"]
_BOILERPLATE = ("nav, header, footer, aside, [role=navigation], [role=banner], "
                "[role=contentinfo], [role=complementary], [hidden], [aria-hidden=true]")
_MAIN = "main, article, [role=main]"
DOMINANT_SHARE = 0.5
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
    tree.strip_tags(_INVISIBLE)
    root = tree.body or tree.root
    if root is None:
        return ""
    if extract == "main":
        mains = tree.css(_MAIN)
        if mains:
            root = max(mains, key=lambda n: len(n.text(separator=" ")))
        else:
            for node in root.css(_BOILERPLATE):
                node.decompose()
            if dominant_block:
                root = _dominant_block(root)
    return root.text(separator=" ")


def _chars(node) -> int:
    """Non-blank characters of a node's text (so reformatting whitespace changes nothing)."""
    text = node.text(separator="")
    return len(text) - sum(map(text.count, _BLANKS))


def _elements(node) -> list:
    """Element children other than links (the link-free copy has none)."""
    return [c for c in node.iter() if c.tag != "a"]


def _dominant_path(body) -> list[int]:
    """Child positions from ``body`` down to its dominant block: while one child holds more than
    ``DOMINANT_SHARE`` of the text, step into it. Text is weighed on a copy without links
    (navigation is mostly links)."""
    node = body.clone()
    node.strip_tags(["a"])
    path: list[int] = []
    weight = _chars(node)
    while weight > 0:
        need, left = DOMINANT_SHARE * weight, weight
        for i, kid in enumerate(_elements(node)):
            size = _chars(kid)
            if size > need:  # more than half: no other child can be larger
                break
            left -= size
            if left <= need:  # what is left cannot be more than half
                return path
        else:
            return path
        path.append(i)
        node, weight = kid, size
    return path


def _dominant_block(root):
    """The dominant block of ``root`` (the body, boilerplate removed): see ``_dominant_path``."""
    node = root
    for i in _dominant_path(root):
        kids = _elements(node)
        if i >= len(kids):
            break
        node = kids[i]
    return node


def html_title(html: str) -> str:
    """The document title, whitespace collapsed ('' when absent)."""
    node = LexborHTMLParser(html).css_first("title")
    return " ".join(node.text().split()) if node is not None else ""
