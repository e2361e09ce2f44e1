"""The parse, watched (contentseen/parse.py): lexbor fed a chunk at a time makes the tree its
parse of the whole page makes, and stops where its stack, its list of formatting elements or its
time goes past their bounds; a real lexbor, no stand-in."""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from selectolax.lexbor import LexborHTMLParser

from contentseen import markup, parse
from contentseen.pure_python import left_out
from contentseen.text import Extractor

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from htmlcorpus import pydoc_pages  # noqa: E402
from test_speedups import _DEPTH_PIECES  # noqa: E402

lexbor = parse._LEXBOR
needs_lexbor = pytest.mark.skipif(lexbor is None, reason="this selectolax does not export lexbor's parser functions")


@pytest.fixture(params=["C", "Python"])
def way(request):
    """The chunks fed by the C loop, or from Python (as without the C speedups)."""
    if request.param == "C" and parse._speedups is None:
        pytest.skip("the C speedups are not built")
    with left_out() if request.param == "Python" else contextlib.nullcontext():
        yield request.param


def test_this_selectolax_is_watched():
    # The selectolax installed here (and in CI) exports the functions and is laid out as its
    # lexbor.pxd has it: the parse must not silently go unwatched.
    assert lexbor is not None


def _same(tree, whole) -> bool:
    """The same tree, text nodes included (one cut in two shows as a separator more)."""
    return tree.html == whole.html and tree.root.text(separator="\x1f") == whole.root.text(separator="\x1f")


def _same_tree(raw: bytes) -> None:
    tree = lexbor.parse(raw, 1 << 62)
    assert tree is not None and _same(tree, LexborHTMLParser(raw)), raw[:200]


@needs_lexbor
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_the_tree_in_chunks_is_the_whole_parse(monkeypatch, chunk):
    # Cut anywhere, in a tag, a comment, a character reference or a UTF-8 sequence, the
    # tokenizer goes on where it was.
    monkeypatch.setattr(parse, "CHUNK", chunk)
    pages = list(pydoc_pages(12 if chunk == 1 else 60).values())
    pages += ["<p>caf\u00e9 &amp; &eacute;t\u00e9 <!-- a -- comment --> \u4e2d\u6587<b title='x > y'>z".encode() * 40]
    for raw in pages:
        _same_tree(raw)


_PIECES = _DEPTH_PIECES + [b"&amp;", b"&eacute", b"&#x4e2d;", b"\r\n", b"\r", b"\x00", b"<![CDATA[", b"]]>",
                           b"\xc3\xa9", b"\xe4\xb8\xad", b"<script><!--", b"--></script>", b"<listing>\n"]


def _tree_in_chunks(pieces: list[bytes], chunk: int, watch: list | None) -> None:
    parse.CHUNK, kept = chunk, parse.CHUNK
    try:
        raw = b"".join(pieces)
        tree = lexbor.parse(raw, 1 << 62, watch)
        # (a soup may nest past MAX_DEPTH or weigh its list past MAX_LISTED: then it is stopped)
        assert tree is None or _same(tree, LexborHTMLParser(raw))
    finally:
        parse.CHUNK = kept


# (chunks of 17 bytes and more: the cut before a "<" among a chunk's last 16 bytes is what keeps a
# markup declaration whole; lexbor misreads one cut in its first bytes)
@needs_lexbor
@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PIECES), max_size=600), st.integers(parse.CUT_BEFORE + 1, 80))
def test_the_tree_in_chunks_on_any_markup(pieces, chunk):
    _tree_in_chunks(pieces, chunk, None)


@needs_lexbor
@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PIECES), max_size=600), st.integers(parse.CUT_BEFORE + 1, 80))
def test_the_tree_in_chunks_fed_from_python(pieces, chunk):
    _tree_in_chunks(pieces, chunk, [])


@needs_lexbor
def test_a_tag_across_chunks_is_checked_as_it_ends(way):
    # A <b> of 2,000 attributes (14 KB, under the walk's reckoning) ending just past a chunk's
    # start weighed the list 2,001 at once, and the rest of that chunk reopened it 800 times before
    # its check (0.16 s, 238 MB): the chunk after one that ends in a tag ends with the tag.
    tag = b"<b " + b" ".join(b"a%d" % i for i in range(2000)) + b">"
    for pad in range(0, parse.CHUNK, 512):
        raw = b"<body><p>" + b"x" * pad + tag + b"<p>x" * 1000
        began = time.process_time()
        assert lexbor.parse(raw, 1 << 62) is None
        assert time.process_time() - began < 0.05, pad


@needs_lexbor
def test_each_bound_stops_the_parse(way):
    pad = b" " * parse.CHUNK  # the checks come after each chunk
    deep = b"<body>" + b"<div>" * (markup.MAX_DEPTH - 2) + pad
    assert lexbor.parse(deep, 1 << 62) is not None  # html, body and 510 divs: 512
    assert lexbor.parse(deep + b"<div>" + pad, 1 << 62) is None
    # (the list's weight: an entry each, and an attribute of each)
    listed = b"<body>" + b"".join(b"<b id=%d>" % i for i in range(parse.MAX_LISTED // 2)) + pad
    assert lexbor.parse(listed, 1 << 62) is not None
    assert lexbor.parse(listed + b"<i>" + pad, 1 << 62) is None
    many = b"<body><b " + b" ".join(b"a%d" % i for i in range(parse.MAX_LISTED)) + b">" + pad
    assert lexbor.parse(many, 1 << 62) is None
    assert lexbor.parse(b"<p>x</p>" * 1000, 0) is None  # past its time at the first check


@needs_lexbor
def test_real_pages_are_parsed_whole():
    extract = Extractor()
    assert not any(extract.texts(raw.decode("utf-8")).flat for raw in pydoc_pages(60).values())


def test_a_page_the_walk_passes_and_lexbor_nests_deep_is_read_flat_fast():
    # 20,000 <desc> lexbor nests one in another (README, "Fail open"), which the walk reads as
    # shallow: read flat by the watched parse, as by the walk where lexbor is not watched.
    page = "<!DOCTYPE html><body>" + "<g></b><desc><b></g>" * 20_000
    assert not markup.prepared(page).flat
    began = time.process_time()
    assert Extractor().texts(page).flat is (lexbor is not None)
    assert lexbor is None or time.process_time() - began < 0.2


@needs_lexbor
def test_a_parser_grown_by_a_large_page_is_not_kept():
    large = b"<p title='" + b"x" * (2 << 20) + b"'>one long attribute</p>"  # (one token: the buffer holds it whole)
    tree = lexbor.parse(large, 1 << 62)
    assert getattr(lexbor.local, "parser", None) is None
    assert tree is not None and tree.body.text() == "one long attribute"  # (the parser gone, its tree not)
    _same_tree(b"<p>after it<b>bold")
    assert lexbor.local.parser is not None


@needs_lexbor
def test_a_markup_declaration_at_a_chunks_end_is_read_whole(way):
    # lexbor read "<![CDATA[hello]]>" cut after "<![" or "<![CD" as a comment of
    # "[CDATACDATA[hello]]": a chunk ends before a "<" among its last 16 bytes.
    # (and cut before the first "<" among them: "<![<b>" cut after "<![" lost its "[")
    for k in range(1, 18):
        for tail in (b"<![CDATA[hello]]>z<!-- and -->" + b"<!DOCTYPE x>" * 2, b"<![<b>x</b>", b"<![CDATA<i>x"):
            raw = b"x" * (parse.CHUNK - k) + tail
            assert _same(lexbor.parse(raw, 1 << 62), LexborHTMLParser(raw)), (k, tail)
