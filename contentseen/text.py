"""HTML bytes -> visible text, with selectolax (lexbor).

Two extraction modes:

* ``"body"`` -- all visible text of the document body.
* ``"main"`` -- the main content: the largest of ``<main>``, ``<article>``, ``[role=main]`` when the
  page marks one, else the body without ``nav``, ``header``, ``footer``, ``aside`` and
  navigation/banner/contentinfo/complementary landmarks. Page templates (menus, sidebars, footers)
  repeat on every page of a site; leaving them out keeps unrelated short pages apart.
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


def decode_html(body: bytes, content_type: str | None = None) -> str:
    """Decode an HTML body as browsers (and Scrapy) do: BOM, then the HTTP charset, then
    ``<meta charset>``, then a guess; undecodable bytes become U+FFFD, never an error."""
    _, text = html_to_unicode(content_type, body)
    return text


def visible_text(html: str, extract: Extract = "main") -> str:
    """The visible text of ``html``; tolerant of broken markup."""
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
    return root.text(separator=" ")


def html_title(html: str) -> str:
    """The document title, whitespace collapsed ('' when absent)."""
    node = LexborHTMLParser(html).css_first("title")
    return " ".join(node.text().split()) if node is not None else ""
