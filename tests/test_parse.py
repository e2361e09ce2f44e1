"""The parse, watched (contentseen/parse.py): lexbor fed a chunk at a time makes the tree its
parse of the whole page makes, and stops where its stack, its list of formatting elements or its
time goes past their bounds; a real lexbor, no stand-in."""

from __future__ import annotations

import contextlib
import sys
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


def test_this_selectolax_is_watched():
    # The pinned selectolax exports the functions and reads as lexbor.pxd has it: the parse must
    # not silently go unwatched.
    assert lexbor is not None


def _same_tree(raw: bytes, chunk: int) -> None:
    tree = lexbor.parse(raw, 1 << 62)
    assert tree is not None and tree.html == LexborHTMLParser(raw).html, raw[:200]


@needs_lexbor
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_the_tree_in_chunks_is_the_whole_parse(monkeypatch, chunk):
    # Cut anywhere, in a tag, a comment, a character reference or a UTF-8 sequence, the
    # tokenizer goes on where it was.
    monkeypatch.setattr(parse, "CHUNK", chunk)
    pages = list(pydoc_pages(12 if chunk == 1 else 60).values())
    pages += ["<p>caf\u00e9 &amp; &eacute;t\u00e9 <!-- a -- comment --> \u4e2d\u6587<b title='x > y'>z".encode() * 40]
    for raw in pages:
        _same_tree(raw, chunk)


@needs_lexbor
@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_DEPTH_PIECES), max_size=600), st.integers(1, 64))
def test_the_tree_in_chunks_on_any_markup(pieces, chunk):
    parse.CHUNK, kept = chunk, parse.CHUNK
    try:
        raw = b"".join(pieces)
        tree = lexbor.parse(raw, 1 << 62)
        # (a soup may nest past MAX_DEPTH or weigh its list past MAX_LISTED: then it is stopped)
        assert tree is None or tree.html == LexborHTMLParser(raw).html
    finally:
        parse.CHUNK = kept


@needs_lexbor
@pytest.mark.parametrize("way", ["C", "Python"])
def test_each_bound_stops_the_parse(way):
    if way == "C" and parse._speedups is None:
        pytest.skip("the C speedups are not built")
    with left_out() if way == "Python" else contextlib.nullcontext():
        _each_bound_stops_the_parse()


def _each_bound_stops_the_parse() -> None:
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
    assert Extractor().texts(page).flat is (lexbor is not None)


@needs_lexbor
def test_a_parser_grown_by_a_large_page_is_not_kept():
    large = b"<p title='" + b"x" * (2 << 20) + b"'>one long attribute</p>"  # (one token: the buffer holds it whole)
    assert lexbor.parse(large, 1 << 62) is not None
    assert getattr(lexbor.local, "parser", None) is None
    _same_tree(b"<p>after it<b>bold", parse.CHUNK)
    assert lexbor.local.parser is not None


@needs_lexbor
@pytest.mark.parametrize("way", ["C", "Python"])
def test_a_markup_declaration_at_a_chunks_end_is_read_whole(way):
    # lexbor read "<![CDATA[hello]]>" cut after "<![" or "<![CD" as a comment of
    # "[CDATACDATA[hello]]": a chunk ends before a "<" among its last 16 bytes.
    if way == "C" and parse._speedups is None:
        pytest.skip("the C speedups are not built")
    with left_out() if way == "Python" else contextlib.nullcontext():
        for k in range(1, 18):
            raw = b"x" * (parse.CHUNK - k) + b"<![CDATA[hello]]>z<!-- and -->" + b"<!DOCTYPE x>" * 2
            assert lexbor.parse(raw, 1 << 62, [] if way == "Python" else None).html == LexborHTMLParser(raw).html, k
