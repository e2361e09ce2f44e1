"""lexbor's parse of a page, watched: the page is fed to the tree builder a chunk at a time, and
between chunks the tree builder's own state is read, so that a page it would read in quadratic
time is stopped within a chunk of going wrong, whatever its markup (then it is read flat).

``markup._tag_model`` predicts most such pages before any parse, in one walk of their tags; it
models the tree builder, and three searches for hostile markup each found pages the model read
as shallow and cheap while lexbor took seconds (README, "Fail open"). What the tree builder
does is read here from the tree builder itself, after each chunk (``_chunk_end``):

- its stack of open elements, deeper than ``markup.MAX_DEPTH``: its searches of the stack then
  cost it time quadratic in the page (browsers stop nesting at 512);
- its list of formatting elements, weighing more than ``MAX_LISTED`` (an entry each, and each
  attribute of their elements): it reopens those not open at every text or tag, each a copy of
  the element and its attributes (500 left in it by a paragraph's end made 2 million elements of
  37 KB; one <b> of 300 attributes reopened before 990 rows, 300,000 attributes the extraction
  read);
- the thread's CPU time in lexbor's calls, past ``BUDGET_NS`` and ``NS_PER_BYTE`` a byte of the
  page (lexbor parses 5-20 ns a byte): whatever else is quadratic.

A chunk's tags can do only so much after a check (a chunk of at most 4 KiB holds at most 1,366
tags, each reopening at most the list's weight, 64, and what the chunk adds to it; a chunk that
ends in a tag is followed by one that ends with it, so a tag that adds more is checked at once).
The functions are lexbor's own, exported by selectolax's extension (the ones
``lxb_html_document_parse`` calls, with the parser's ``lxb_html_parse_chunk_process`` in place of
one call for the whole page, and lexbor's array getters); where the tree builder keeps its stack
and its list is read at the offsets of selectolax's ``lexbor.pxd``, checked at import
(``_probe``): elsewhere (another lexbor, a 32-bit build) the page is parsed in one call, unwatched.
"""

from __future__ import annotations

import ctypes
import threading
import time

import selectolax.lexbor
from selectolax.lexbor import LexborHTMLParser

from ._native import speedups as _speedups  # None: the chunks are fed from Python, by ctypes
from .markup import MAX_DEPTH, Prepared

CHUNK = 4096
# A chunk ends before a "<" among its last bytes: lexbor's lookahead of a markup declaration cut by
# a chunk's end reads "<![CDATA[x" as a comment of "[CDATACDATA[x".
CUT_BEFORE = 16
MAX_LISTED = 64
# (real pages parse in 5-20 ns a byte; the largest installed, 8.4 MB, took 161-407 ms over five runs:
# a third of its budget at most)
BUDGET_NS, NS_PER_BYTE = 20_000_000, 150

_POINTER = ctypes.sizeof(ctypes.c_void_p)
# lxb_html_tree_t: tokenizer, document, fragment, form, open elements, active formatting (lexbor.pxd)
_TREE_DOCUMENT, _OPEN_ELEMENTS, _ACTIVE_FORMATTING = _POINTER, 4 * _POINTER, 5 * _POINTER
_KEPT_AFTER = 1 << 20  # a thread's parser is made again after a page larger


def _chunk_end(data: bytes, at: int, inside: bool) -> tuple[int, bool]:
    """Where the chunk of ``data`` from ``at`` ends, and whether a tag is open there (``inside``:
    one was at ``at``): right after the ``>`` that closes a tag left open, else after ``CHUNK``
    bytes, before the first ``<`` among the last ``CUT_BEFORE`` of them (as ``_speedups.c``'s
    chunk_end)."""
    size = len(data)
    end = size if size - at <= CHUNK else at + CHUNK
    if inside:
        close = data.find(b">", at, end)
        if close >= 0:
            return close + 1, False
    if end < size:  # (the first: "<![<b>" cut after "<![" lost its "[" too)
        cut = data.find(b"<", max(at + 1, end - CUT_BEFORE), end)
        end = cut if cut > 0 else end
    opening, closing = data.rfind(b"<", at, end), data.rfind(b">", at, end)
    return end, opening > closing if opening >= 0 or closing >= 0 else inside


class _Lexbor:
    """lexbor's parser functions, and one parser a thread (a parser holds one parse at a time)."""

    def __init__(self) -> None:
        lib = ctypes.CDLL(selectolax.lexbor.__file__)
        p, status, size = ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t

        def bound(name: str, result: type | None, *args: type) -> ctypes._CFuncPtr:
            f = getattr(lib, name)
            f.restype, f.argtypes = result, list(args)
            return f

        self.clean = bound("lxb_html_document_clean", None, p)
        self.create = bound("lxb_html_parser_create", p)
        self.init = bound("lxb_html_parser_init", status, p)
        self.reset = bound("lxb_html_parser_clean", None, p)
        self.destroy = bound("lxb_html_parser_destroy", p, p)
        self.prepare = bound("lxb_html_parse_chunk_prepare", status, p, p)
        self.process = bound("lxb_html_parse_chunk_process", status, p, p, size)
        self.end = bound("lxb_html_parse_chunk_end", status, p)
        self.tree_of = bound("lxb_html_parser_tree_noi", p, p)
        self.tokenizer_of = bound("lxb_html_parser_tokenizer_noi", p, p)
        self.keep_duplicates = bound("lxb_html_tokenizer_keep_duplicate_set_noi", None, p, ctypes.c_bool)
        self.first_attribute = bound("lxb_dom_element_first_attribute_noi", p, p)
        self.next_attribute = bound("lxb_dom_element_next_attribute_noi", p, p)
        self.length = bound("lexbor_array_length_noi", size, p)
        self.get = bound("lexbor_array_get_noi", p, p, size)
        self.marker = bound("lxb_html_tree_active_formatting_marker", p)()  # (the list's markers)
        self.local = threading.local()

    def bind_speedups(self) -> None:
        """Hand the functions to the C loop (``_speedups.parse_chunks``)."""
        if _speedups is not None:
            _speedups.parse_bind(*(ctypes.cast(f, ctypes.c_void_p).value for f in (
                self.process, self.first_attribute, self.next_attribute, self.length, self.get)), self.marker)

    def parser(self) -> tuple[int, int, int]:
        """This thread's parser, and its tree builder's stack and list (lexbor_array_t)."""
        made = getattr(self.local, "parser", None)
        if made is None:
            parser = self.create()
            if not parser or self.init(parser) != 0:
                raise MemoryError("lexbor could not make a parser")
            self.keep_duplicates(self.tokenizer_of(parser), True)  # as lxb_html_document_parse's parser
            tree = self.tree_of(parser)
            made = self.local.parser = (parser, *(
                ctypes.c_void_p.from_address(tree + at).value for at in (_OPEN_ELEMENTS, _ACTIVE_FORMATTING)))
        return made

    def parse(self, data: bytes, budget_ns: int, watch: list | None = None) -> LexborHTMLParser | None:
        """lexbor's tree of ``data`` (UTF-8), or None once a check finds it past its bounds;
        ``watch``: given, each check's (open elements, the list's weight) appended (and the
        chunks fed from Python)."""
        parser, opened, listed = self.parser()
        tree, _ = self.begin(parser)
        try:
            if _speedups is not None and watch is None:
                stopped = _speedups.parse_chunks(parser, data, CHUNK, CUT_BEFORE, opened, listed, MAX_DEPTH, MAX_LISTED,
                                                 budget_ns)
            else:
                stopped = self._parse_chunks(parser, data, opened, listed, budget_ns, watch)
        finally:
            self.end(parser)
            if len(data) > _KEPT_AFTER:  # (its tokenizer's buffers grew with the page: not kept)
                self.local.parser = None
                self.destroy(parser)
        if stopped == 2:
            raise MemoryError("lexbor could not parse a chunk")
        return None if stopped else tree

    def begin(self, parser: int) -> tuple[LexborHTMLParser, int]:
        """A new document, and its address, into which ``parser`` is made ready to parse a page.
        (Its own parse makes a parser it does not use again; lexbor sets a document's mode where a
        page is in quirks mode and leaves it where it is not, so the document must be in no-quirks
        mode, as a new one is.)"""
        tree = LexborHTMLParser(b"<!DOCTYPE html>")
        document = tree.root.parent.mem_id  # (the document node is the document)
        self.clean(document)
        self.reset(parser)
        if self.prepare(parser, document) != 0:
            raise MemoryError("lexbor could not begin a parse")
        return tree, document

    def listed(self, array: int, cap: int) -> int:
        """The weight of the tree builder's list of formatting elements: each entry and each
        attribute of its element (a copy of which the tree builder makes at each reopening),
        counted until past ``cap``."""
        weight = 0
        for i in range(self.length(array)):
            if weight > cap:
                break
            weight += 1
            entry = self.get(array, i)
            attribute = self.first_attribute(entry) if entry != self.marker else None
            while attribute and weight <= cap:
                weight += 1
                attribute = self.next_attribute(attribute)
        return weight

    def _parse_chunks(self, parser: int, data: bytes, opened: int, listed: int, budget_ns: int,
                      watch: list | None) -> int:
        """``_speedups.parse_chunks`` in Python: 0, all parsed within the bounds; 1, stopped past
        one; 2, lexbor failed."""
        # (the time spent in lexbor's calls only: a garbage collection between them is not the page's)
        clock, process, spent = time.thread_time_ns, self.process, 0
        start, size = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value, len(data)
        at, inside = 0, False
        while at < size:
            end, inside = _chunk_end(data, at, inside)
            began = clock()
            status = process(parser, start + at, end - at)
            spent += clock() - began
            at = end
            if status != 0:
                return 2
            depth = self.length(opened)
            weight = self.listed(listed, MAX_LISTED if watch is None else 1 << 62)
            if watch is not None:
                watch.append((depth, weight))
            if depth > MAX_DEPTH or weight > MAX_LISTED or spent > budget_ns:
                return 1
        return 0


def _bound() -> _Lexbor | None:
    """lexbor's parser functions, if selectolax exports them and the probe reads as it should."""
    if _POINTER != 8:  # (lexbor.pxd's offsets are a 64-bit build's)
        return None
    try:
        lexbor = _Lexbor()
    except (OSError, AttributeError):  # a selectolax that does not export them
        return None
    if not _probe(lexbor):
        return None
    lexbor.bind_speedups()
    return lexbor


# (a chunk ends inside the cell: 8 open elements, html, body and tbody among them; a marker and
# 2 entries, one of an attribute; the paragraph, in no-quirks mode, is closed by the table)
_PROBE_START = b"<!DOCTYPE html><body><p><table><tr><td><b class=x><i>"
_PROBE = _PROBE_START + b" " * (CHUNK - len(_PROBE_START)) + b"text</i></b></td></tr></table>x"


def _probe(lexbor: _Lexbor) -> bool:
    """Whether the tree builder is laid out as ``lexbor.pxd`` has it (its document where it should
    be, read before its stack and list are), and the watched parse of ``_PROBE`` reads its stack
    and list as they are and makes the tree the whole parse makes."""
    parser = lexbor.parser()[0]
    try:
        _, document = lexbor.begin(parser)
    except MemoryError:
        return False
    laid_out = ctypes.c_void_p.from_address(lexbor.tree_of(parser) + _TREE_DOCUMENT).value == document
    lexbor.end(parser)
    if not laid_out:
        lexbor.local.parser = None  # (its stack and list were read at the wrong places)
        return False
    watch: list = []
    parsed = lexbor.parse(_PROBE, BUDGET_NS, watch)
    return parsed is not None and watch[0] == (8, 4) and parsed.html == LexborHTMLParser(_PROBE).html and (
        parsed.css_first("p").next.tag == "table")


_LEXBOR = _bound()


def parsed(page: Prepared) -> LexborHTMLParser | None:
    """lexbor's tree of ``page`` (not ``page.flat``), or None where the tree builder went past
    its bounds (module docstring): then the page is read flat, as one the walk flags."""
    data = page.utf8 if page.utf8 is not None else page.html.encode("utf-8", "ignore")  # as selectolax
    if _LEXBOR is None:
        return LexborHTMLParser(data)
    return _LEXBOR.parse(data, BUDGET_NS + NS_PER_BYTE * len(data))
