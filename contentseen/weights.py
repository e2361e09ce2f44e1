"""How much text an element of a parsed page holds, with its links' text and without: what
``contentseen.text`` weighs to narrow a page to its content block and to find the edges of a
marked main content.

A node's weight is its non-blank text (``nonblank``: reformatting whitespace changes nothing),
in UTF-8 bytes or in characters; its *free* weight is that outside ``a[href]`` elements, the
weight it has in a copy of the tree without its links. ``weigher(tree, body, in_bytes)`` gives
one of two ``Weigher``s with the same answers (and ``kid_frees`` the children's free weights of
any element, read only up to a cap, in C or Python alike):

* ``TreeWeights``: every element of the body weighed in one walk of lexbor's tree by the C
  speedups, calling lexbor's own functions, which selectolax's extension exports (bound once at
  import, ``_bind_lexbor``, and checked on a probe page); no copy of the tree, no text read
  twice: extraction of pydoc's pages, which mark no main content, 1.10 -> 0.74 ms a page;
* ``CopyWeights``: a copy of the tree without links, walked beside it, each node's text read
  where it is weighed (no C speedups, a selectolax whose extension does not export them, or
  characters instead of bytes).
"""

from __future__ import annotations

import ctypes
from itertools import islice
from typing import Protocol

import selectolax.lexbor
from selectolax.lexbor import LexborHTMLParser

from ._native import speedups as _speedups

_BLANKS = " \t\n\r\f\v\xa0"
_BLANK_BYTES = b" \t\n\r\f\v"  # and U+00A0, two bytes
HEADINGS = "h1, h2, h3, h4, h5, h6"


def nonblank(text: str) -> int:
    """The characters of ``text`` that are not blank."""
    if _speedups is not None:
        return _speedups.nonblank(text)
    return len(text) - sum(map(text.count, _BLANKS))


def chars(node, in_bytes: bool = True) -> int:
    """How much text a node holds: its non-blank text in UTF-8 bytes, else in characters."""
    if not in_bytes:
        return nonblank(node.text(separator=""))
    if _speedups is not None:
        return _speedups.weigh(node.text(separator=""))
    data = node.text(separator="").encode("utf-8", "replace")
    return len(data.translate(None, _BLANK_BYTES)) - 2 * data.count(b"\xc2\xa0")  # one pass, not six


class Weigher(Protocol):
    """The weights of the body's elements (the tree must not change while it is used)."""

    def of(self, node) -> tuple[int, int]:
        """``node``'s free weight and its weight."""

    def frees(self, node, kids: list) -> list[int]:
        """The free weights of ``kids``, element children of ``node``."""

    def totals(self, kids: list) -> list[int]:
        """The weights of ``kids``."""

    def titled(self, node) -> bool:
        """Whether ``node`` holds a heading outside links, and more free text beside its headings
        than in them: a titled block of content, not a title alone."""


class TreeWeights:
    """Every element of the body weighed at once, in C (``_speedups.tree_weights``)."""

    def __init__(self, table) -> None:
        self._table = table

    def of(self, node) -> tuple[int, int]:
        total, free = _speedups.weights_of(self._table, node.mem_id)
        return free, total

    def frees(self, node, kids: list) -> list[int]:
        table = self._table
        return [_speedups.weights_of(table, k.mem_id)[1] for k in kids]

    def totals(self, kids: list) -> list[int]:
        table = self._table
        return [_speedups.weights_of(table, k.mem_id)[0] for k in kids]

    def titled(self, node) -> bool:
        table = self._table
        # free -1: a heading inside a link, absent from the copy without links
        titles = [f for f in (_speedups.weights_of(table, h.mem_id)[1] for h in node.css(HEADINGS)) if f >= 0]
        return bool(titles) and self.of(node)[0] > 2 * sum(titles)  # never nested: a heading closes an open one


class CopyWeights:
    """Free weights read on a copy of the tree without links (``linkless_copy``), walked beside
    it: each node's copy is found as its parent's children are listed (``frees``)."""

    def __init__(self, copy_tree: LexborHTMLParser, body, in_bytes: bool) -> None:
        self._tree = copy_tree  # its nodes need it alive
        self._copies = {body.mem_id: self.copy_of(copy_tree, body)}
        self._in_bytes = in_bytes

    @staticmethod
    def copy_of(copy_tree: LexborHTMLParser, body):
        """``body``'s copy: the copy's body, or its root where ``body`` is the root (a frameset
        document's, text.Extractor.texts)."""
        return copy_tree.root if body.tag == "html" else copy_tree.body

    def of(self, node) -> tuple[int, int]:
        copy = self._copies[node.mem_id]
        in_bytes = self._in_bytes
        return chars(copy, in_bytes), chars(node, in_bytes)

    def frees(self, node, kids: list) -> list[int]:
        copies = elements(self._copies[node.mem_id])
        self._copies.update(zip((k.mem_id for k in kids), copies))
        return [chars(c, self._in_bytes) for c in copies]

    def totals(self, kids: list) -> list[int]:
        return [chars(k, self._in_bytes) for k in kids]

    def titled(self, node) -> bool:
        copy = self._copies[node.mem_id]
        headings = copy.css(HEADINGS)
        if not headings:
            return False
        titles = sum(chars(h, self._in_bytes) for h in headings)
        return chars(copy, self._in_bytes) > 2 * titles


# A block of more element children than this is content itself (a long list, table or log).
MAX_KIDS = 1000


def elements(node) -> list:
    """Element children other than links (so a tree and its link-free copy line up); at most
    ``MAX_KIDS + 1`` of them."""
    return list(islice((c for c in node.iter() if c.tag != "a"), MAX_KIDS + 1))


def kid_frees(node, kids: list, cap: int, in_bytes: bool) -> tuple[list[int], int]:
    """The free weights of ``kids`` (``elements(node)``) and of the rest of ``node`` (its own text
    and its ``<a>`` children without ``href``), each exact up to ``cap`` and ``cap + 1`` above it:
    only the text up to the cap is read (the edges of a marked main content are lines)."""
    if in_bytes and _LEXBOR_BOUND and _speedups is not None:
        got = _speedups.kid_frees(node.mem_id, cap, MAX_KIDS + 1)
        if got is not None and len(got[0]) == len(kids):
            return got
    frees = [min(_free(k, in_bytes), cap + 1) for k in kids]
    loose = sum(chars(c, in_bytes) if c.tag == "-text" else _free(c, in_bytes)
                for c in node.iter(include_text=True) if c.tag == "-text" or (c.tag == "a" and "href" not in c.attributes))
    return frees, min(loose, cap + 1)


def table_frees(weights: TreeWeights, node, kids: list, cap: int) -> tuple[list[int], int]:
    """``kid_frees`` read from ``weights`` (every element below weighed in one walk, uncapped): the
    same figures."""
    frees = weights.frees(node, kids)
    loose = weights.of(node)[0] - sum(frees)
    return [min(f, cap + 1) for f in frees], min(loose, cap + 1)


def tree_table(node, in_bytes: bool) -> TreeWeights | None:
    """Every element below ``node`` weighed in one C walk (``TreeWeights``), where the C speedups
    can (else None)."""
    if in_bytes and _LEXBOR_BOUND and _speedups is not None:
        return TreeWeights(_speedups.tree_weights(node.mem_id))
    return None


def _free(node, in_bytes: bool) -> int:
    """``node``'s weight outside the ``a[href]`` elements below it (it is none)."""
    if node.tag == "-comment" or node.tag is None:
        return 0
    outer = [a for a in node.css("a[href]") if a.mem_id != node.mem_id and in_copy(a.parent, node)]
    return chars(node, in_bytes) - sum(chars(a, in_bytes) for a in outer)


def free_weights(body, nodes: list, in_bytes: bool) -> list[int]:
    """The weight outside links of each of ``nodes`` (elements below ``body``, or ``body``): read
    from one C walk of ``body`` where the speedups can (``tree_table``), else each node's own
    (``_free``): the same figures. An element inside a link weighs 0."""
    table = tree_table(body, in_bytes)
    if table is not None:
        try:
            return [max(table.of(n)[0], 0) for n in nodes]
        except KeyError:  # not an element of the tree weighed
            pass
    return [max(_free(n, in_bytes), 0) for n in nodes]


def weigher(tree: LexborHTMLParser, body, in_bytes: bool) -> Weigher | None:
    """The weights of the elements of ``tree``'s ``body`` (None when the tree cannot be copied)."""
    table = tree_table(body, in_bytes)
    if table is not None:
        return table
    copy_tree = linkless_copy(tree)
    if CopyWeights.copy_of(copy_tree, body) is None:
        return None
    return CopyWeights(copy_tree, body, in_bytes)


def in_copy(node, body) -> bool:
    """Whether ``node`` is ``body`` or below it outside every ``a[href]`` element: in a copy of
    the body without links."""
    while node is not None:
        if node.mem_id == body.mem_id:
            return True
        if node.tag == "a" and "href" in node.attributes:
            return False
        node = node.parent
    return False


def linkless_copy(tree: LexborHTMLParser) -> LexborHTMLParser:
    """A copy of ``tree`` without its links (``a[href]``). lexbor cannot clone a document whose doctype has a
    system id and no public id (``<!DOCTYPE html SYSTEM "about:legacy-compat">``): the doctype,
    which holds no text, is removed first."""
    root = tree.root
    node = root.prev if root is not None else None
    while node is not None:
        prev = node.prev
        if node.tag == "-doctype":
            node.decompose()
        node = prev
    copy = tree.clone()
    if copy.body is not None:
        # Links only: an <a name> anchor around a heading (man2html, Doxygen) is text.
        for link in reversed(copy.body.css("a[href]")):
            link.decompose()
    return copy


# lexbor's functions tree_weights calls, in lexbor_bind's order
_LEXBOR_FUNCTIONS = ("lxb_dom_node_first_child_noi", "lxb_dom_node_next_noi", "lxb_dom_node_parent_noi",
                     "lxb_dom_node_tag_id_noi", "lxb_dom_node_type_noi", "lxb_dom_node_text_content",
                     "lxb_dom_document_destroy_text_noi", "lxb_dom_element_has_attribute")
# A probe page: the C walk is used only if its weights of this page are the copy's.
_PROBE = ("<!doctype html><body> <div id=a>\u00dcber  alles<a href=x>link <h2>in</h2></a>\xa0<a name=n>anchor</a>"
          "<h2>Title</h2><!-- c --><p>text&amp;<b>bold</b></p></div><a href=y><span>out</span></a>"
          "<section><a href=z><h3>linked</h3></a> text \u4e2d\u6587</section><section><h3>Only</h3></section>z</body>")


def _same_weights(table: Weigher, copies: Weigher, node) -> bool:
    """Whether ``table`` and ``copies`` agree on ``node`` and every element below it outside links."""
    kids = elements(node)
    return (table.of(node) == copies.of(node) and table.titled(node) == copies.titled(node)
            and table.frees(node, kids) == copies.frees(node, kids) and table.totals(kids) == copies.totals(kids)
            and all(_same_weights(table, copies, k) for k in kids))


def _bind_lexbor() -> bool:
    """Bind the C speedups to lexbor's functions in selectolax's extension; whether their weights
    of ``_PROBE`` (``tree_weights``, ``kid_frees``) are Python's (else Python's way is taken:
    another lexbor's constants)."""
    if _speedups is None:
        return False
    try:
        lib = ctypes.CDLL(selectolax.lexbor.__file__)
        addresses = [ctypes.cast(getattr(lib, name), ctypes.c_void_p).value for name in _LEXBOR_FUNCTIONS]
    except (OSError, AttributeError):  # a selectolax that does not export them
        return False
    tree = LexborHTMLParser(_PROBE)
    tag_id = ctypes.CFUNCTYPE(ctypes.c_size_t, ctypes.c_void_p)(addresses[_LEXBOR_FUNCTIONS.index("lxb_dom_node_tag_id_noi")])
    link = tree.css_first("a")
    _speedups.lexbor_bind(*addresses, tag_id(link.child.mem_id), tag_id(link.mem_id))
    copies = CopyWeights(linkless_copy(tree), tree.body, True)
    body = tree.body
    capped = [_speedups.kid_frees(n.mem_id, cap, MAX_KIDS + 1) == kid_frees(n, elements(n), cap, True)
              for n in (body, body.css_first("div")) for cap in (3, 1 << 62)]  # kid_frees in Python: not bound yet
    return all(capped) and _same_weights(TreeWeights(_speedups.tree_weights(body.mem_id)), copies, body)


_LEXBOR_BOUND = False
_LEXBOR_BOUND = _bind_lexbor()
