"""The optional C scans (contentseen/_speedups.c) give exactly what their Python versions give:
the token scan (tokens.hashed_tokens against token_counts and word_sequence), the tag scans
(markup._tag_scan against _tag_scan_numpy, tag_model against markup's reckoning of the tree builder's
quadratic work and depth), the narrowing's weights (weights.TreeWeights against
CopyWeights), and so the same texts and fingerprints either way; and they are built wherever a C
compiler and the Python headers are at hand (as on CI)."""

from __future__ import annotations

import importlib
import itertools
import os
import pkgutil
import random
import re
import shutil
import string
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np
import pytest
import xxhash
from hypothesis import given, settings, strategies as st

from contentseen import markup, text as text_module, tokens, weights
from contentseen.pure_python import left_out
from contentseen.fingerprints import Scheme, _Terms
from contentseen.text import PageText, decode_html
from selectolax.lexbor import LexborHTMLParser

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from htmlcorpus import pydoc_pages  # noqa: E402

speedups = markup._speedups
# Every test but the last compares the C scans with their Python twins: without a build (no
# compiler or headers) there is nothing to compare.
needs_build = pytest.mark.skipif(speedups is None, reason="the C speedups are not built (no C compiler or Python headers)")

# Letters, digits and separators of several scripts, the frequent non-ASCII separators, marks,
# invalid-UTF-8 stand-ins and controls: the inputs where the two ways could part.
_ALPHABET = ("abcXYZ09 _-—’.,;:«»©→日本語のテキイ中文ไทยПриветΣσςßéÉ\u0301\u0903ǅİ\ufffd\u00a0\t\n\r\x00\x10"
             "\u2009\u200b\u2013\u2018\u201c\u201d\xb6\u2026\xb7١٢")


@pytest.fixture(scope="module")
def pydoc_texts() -> list[PageText]:
    extract = Scheme().build().extractor.texts
    return [extract(decode_html(body, "text/html; charset=utf-8")) for body in pydoc_pages(60).values()]


def _expected(text: str) -> tuple[list[int], list[int], list[bool], list[int]]:
    counts = tokens.token_counts(text)
    return ([xxhash.xxh64_intdigest(t) for t in counts], list(counts.values()), [t.isdigit() for t in counts],
            [xxhash.xxh64_intdigest(w) for w in tokens.word_sequence(text)])


def _check_tokens(text: str) -> None:
    got = tokens.hashed_tokens(text)
    assert got is not None
    assert (got.hashes.tolist(), got.counts.tolist(), got.digits.tolist(), got.sequence.tolist()) == _expected(text)
    # ... and its tokens of unspaced scripts (words v8) are those the regular expressions find
    unspaced, expected = got.of_unspaced_scripts(), tokens.unspaced_of(tokens.token_counts(text))
    assert (unspaced is None) == (expected is None)
    if unspaced is not None:
        assert unspaced.hashes.tolist() == [xxhash.xxh64_intdigest(t) for t in expected]
        assert unspaced.counts.tolist() == list(expected.values())


@needs_build
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.binary(max_size=80))
def test_xxh64_is_the_xxhash_packages(data):
    assert speedups.hash64(data) == xxhash.xxh64_intdigest(data)


@needs_build
@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.text(alphabet=_ALPHABET, max_size=120))
def test_hashed_tokens_are_token_counts_and_word_sequence_hashed(text):
    _check_tokens(text)


@needs_build
def test_hashed_tokens_on_real_pages(pydoc_texts):
    for page in pydoc_texts:
        _check_tokens(page.content)
        _check_tokens(page.whole)


# Sentences of several scripts, some words capitalised at their start and in lower case elsewhere
# (a piece's token is then another piece: counted in place, that piece taken out later).
_SCRIPTS = ("Привет мир, привет! Как дела? ПРИВЕТ. ", "日本語のテキストです。東京、2024年。", "中文文本，北京。",
            "ภาษาไทยไม่มีช่องว่าง ", "Καλημέρα κόσμε, ΚΑΛΗΜΈΡΑ. ", "Straße STRASSE strasse naïve NAÏVE. ",
            "مرحبا بالعالم ١٢٣ ", "नमस्ते दुनिया ", "ok 42 the end. ")


@needs_build
def test_text_mostly_of_other_scripts_is_split_in_c():
    rnd = random.Random(3)
    for _ in range(40):
        text = "".join(rnd.choice(_SCRIPTS) for _ in range(rnd.randint(1, 400)))
        _check_tokens(text)


@needs_build
def test_merge_gives_up_on_colliding_hashes():
    # Hashes sharing their low bits fill one chain of the merge's table: past its probe budget it
    # gives up (None) and Python counts instead, as the scan does.
    n = 20_000
    hashes = np.arange(1, n + 1, dtype=np.uint64) << np.uint64(32)
    flags = np.zeros(n, dtype=np.uint8)
    flags[0] = 2
    started = time.process_time()
    got = speedups.merge_others(hashes.tobytes(), np.ones(n, dtype=np.int64).tobytes(), flags.tobytes(),
                                np.arange(n, dtype=np.int32).tobytes(), np.zeros(1, dtype=np.int64).tobytes(), "é".encode())
    assert got is None
    assert time.process_time() - started < 2, "quadratic"


def _tag_soup(rnd: random.Random) -> str:
    pieces = ["<", "</", ">", "/>", "div", "DIV", "p", "li", "td", "iframe", "IFRAME ", "title", "span", " ", "x",
              "\x10", "é", "<br>", "<a href=x>", "</a>", "<svg>", "<!--", "-->", "<p><b>", "\ufffd"]
    return "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 4000)))


@needs_build
def test_tag_scan_is_the_numpy_scans():
    rnd = random.Random(7)
    pages = [_tag_soup(rnd) for _ in range(400)]
    pages += [b.decode("utf-8", "replace") for b in pydoc_pages(60).values()]
    pages += ["<div><span>" * 3000, "<p><b>x" * 2000, "<iframe src=x/>" + "<div>a</div>" * 600, "<", "", "</"]
    for html in pages:
        raw = html.encode("utf-8", "replace")
        assert markup._tag_scan(raw) == markup._tag_scan_numpy(raw), html[:200]


@needs_build
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=200))
def test_hashed_tokens_on_any_text(text):
    _check_tokens(text)


@needs_build
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.binary(max_size=3000), st.lists(st.sampled_from([b"<", b"</", b"/>", b">", b"<IFRAME", b"<p", b"<br"]),
                                           max_size=600))
def test_tag_scan_on_any_bytes(noise, tags):
    raw = noise + b"".join(tags) + noise[::-1]
    assert markup._tag_scan(raw) == markup._tag_scan_numpy(raw)


# Pieces of tags where the tokenizer's reading could part between C and Python: blanks of every
# kind (\v is none in a tag), "/" and "=" around names and values, quotes opened and not closed,
# tags inside quoted values and comments, and the names whose tags are counted together.
_TAG_PIECES = [b"<", b"</", b">", b"/", b"=", b'"', b"'", b" ", b"\n", b"\t", b"\x0b", b"\x0c", b"\r", b"a", b"b1",
               b"-", b"\xc3\xa9", b"<!--", b"-->", b"<div ", b"<DIV", b"<html ", b"<HTML", b"<Body ", b"<select>",
               b"<SELECT ", b"</select>", b"<option>", b"x=", b'="', b"='", b"k=v ", b'k="<b c d>" ', b"<b "]


@needs_build
@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_TAG_PIECES), max_size=1500))
def test_tag_model_costs_on_any_markup(pieces):
    _assert_same_model(b"".join(pieces))


def _limit(raw: bytes) -> int:
    return markup.COST_BUDGET + markup.COST_PER_BYTE * len(raw)


def _assert_same_model(raw: bytes) -> tuple[int, int]:
    """C's (cost, depth) of ``raw`` are Python's, in quirks mode and not; those not."""
    with left_out():
        python = [markup._tag_model(raw, quirks)[:2] for quirks in (False, True)]
    assert [speedups.tag_model(raw, markup.MAX_DEPTH, markup.REOPEN_COST, quirks, _limit(raw))[:2]
            for quirks in (False, True)] == python, raw[:200]
    return python[0]


@needs_build
def test_tag_model_costs_are_the_python_reckoning():
    made = [b"<div " + b" ".join(b"a%d" % i for i in range(n)) + b">x</div>" for n in (16, 17, 3000)]
    made += [b"".join(b"<html k%d>" % i for i in range(40)), b"<body a b>" * 12, b"<select>" + b"<option>x" * 500,
             b"<select><option><select>" + b"<span>" * 30, b'<p title="<div ' + b"a " * 40 + b'">' + b"<i " + b"z " * 30,
             b"<script><frame " + b"a " * 40 + b"></script>", b"<!-- <div " + b"a " * 40 + b"> -->",
             b"<script><div " + b"a " * 40 + b"></script>",
             b"<p>" + b"".join(b"<b id=%d>" % i for i in range(17)) + b"x</p><p>x</p>"]
    for raw in pydoc_pages(30).values():
        _assert_same_model(raw)
    # (the start tags in raw text the tree builder reads where it ignores the element's start tag
    # count, a frame's, not a div's; 17 formatting elements left open cost their reopening at
    # each tag after them)
    assert [_assert_same_model(raw)[0] for raw in made] == [0, 17 * 17, 3000 * 3000, 40 * 40, 24 * 24, 500 * 500,
                                                            30 * 30, 30 * 30, 40 * 40, 0, 0,
                                                            3 * 17 * markup.REOPEN_COST]


# Tags whose nesting the depth scan models: lists, terms, tables, paragraphs, headings, ruby,
# select, formatting, foreign content and its integration points, raw text, comments and doctypes.
_DEPTH_PIECES = [b"<", b"</", b">", b"/>", b"/", b'"', b" ", b"x", b"<!--", b"-->", b"--!>", b"<!", b"<?", b"<!-->",
                 b"<!DOCTYPE html>", b"<div>", b"</div>", b"<p>", b"</p>", b"<li>", b"</li>", b"<ul>", b"</ul>", b"<dl>",
                 b"<dt>", b"<dd>", b"<table>", b"<tr>", b"<td>", b"</td>", b"<th>", b"</tr>", b"<tbody>", b"</table>",
                 b"<caption>", b"<svg>", b"</svg>", b"<math>", b"<mi>", b"<g>", b"<path/>", b"<foreignObject>",
                 b"<annotation-xml>", b"<title>", b"</title>", b"<script>", b"</script>", b"<style>", b"</style >",
                 b"<b>", b"</b>", b"<i>", b"</i>", b"<a href=x>", b"</a>", b"<select>", b"<option>", b"<optgroup>",
                 b"</select>", b"<ruby>", b"<rt>", b"<rp>", b"<h1>", b"</h1>", b"<h2>", b"<button>", b"<object>",
                 b"</object>", b"<template>", b"</template>", b"<form>", b"</form>", b"<plaintext>", b"<textarea>",
                 b"</textarea>", b"<br>", b"</br>", b"<body>", b"</body>", b"<DIV>", b"<Svg>", b"<custom-el>",
                 b"</custom-el>", b'<div title="<b">', b"<img/>", b"<span>", b"</span>", b"<pre>", b"<summary>",
                 b"<summary/>", b"<font>", b"<font color=red>", b"<FONT SIZE=2>", b"<font x='size'>", b"<desc>",
                 b"<mtext>", b"<xmp>", b"</xmp>", b"<annotation-xml encoding='text/html'>", b'<annotation-xml ENCODING="x">',
                 b"</annotation-xml>", b"</desc>", b"<nav/>", b"</nav>", b"</noscript>", b"</summary>", b"</mi>",
                 b"<mglyph>", b"<malignmark/>", b"<mo>", b"<hr>", b"<HR/>", b"<input>", b"<wbr>", b"<address>",
                 b"</address>", b"<menu>", b"<em>", b"</em>", b"<code>", b"</code>", b"</html>", b"</br>",
                 b"<noscript>", b"<frameset>", b"</frameset>", b"<head>", b"</head>", b"</caption>", b"<colgroup>",
                 b"</colgroup>", b"<section>", b"</section>", b"<iframe>", b"</iframe>"]


@needs_build
@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_DEPTH_PIECES), max_size=3000))
def test_tag_model_depth_on_any_markup(pieces):
    _assert_same_model(b"".join(pieces))


@needs_build
def test_tag_model_depth_is_the_python_model():
    made = [b"<dl><li>x" * 400, b"<svg>x</dt>" * 600, b'<div title="<">' * 600, b"<table><td>x" * 200,
            b"<!-- <div> -->" * 900 + b"<div>" * 10, b"<script><div></script>" * 900, b"<svg><path/></svg>" * 900,
            b"<p>" * 900, b"<ul>" + b"<li>x" * 900, b"<b><i>x</b></i>" * 300]
    assert [_assert_same_model(raw)[1] for raw in made] == [513, 513, 513, 513, 10, 0, 0, 1, 2, 0]


def _assert_same_fingerprints(fast, slow, pydoc_texts: list[PageText], seed: int, share: float) -> None:
    """``fast`` and ``slow`` fingerprint alike pydoc's pages, texts of mixed scripts and slivers."""
    rnd = random.Random(seed)
    mixed = ["".join(rnd.choice(_ALPHABET) for _ in range(rnd.randint(0, 3000))) for _ in range(80)]
    pages = pydoc_texts + [PageText(t, t + " menu 12") for t in mixed]
    pages += [PageText(p.content, p.whole, sliver=True, share=share) for p in pydoc_texts[:10]]
    for page in pages:
        assert fast.of_texts(page) == slow.of_texts(page)


@needs_build
def test_same_fingerprints_with_and_without_the_token_scan(pydoc_texts):
    fast, slow = Scheme().build(), Scheme().build()
    slow._scan = False
    assert fast._scan
    _assert_same_fingerprints(fast, slow, pydoc_texts, 3, 0.1)


@needs_build
def test_scan_is_linear_and_bounded_on_a_large_text():
    # 8 MB: every kind of piece, many distinct (the table grows) and many repeated
    words = [f"w{i}" for i in range(200_000)] + ["éé", "12", "ок"] * 10_000
    text = " ".join(words + words)
    got = tokens.hashed_tokens(text)
    assert got is not None and len(got.hashes) == 200_003 and int(got.counts.sum()) == 2 * len(words)
    assert len(got.sequence) == 2 * (len(words) - 10_000)  # numbers are no words of the sequence


@needs_build
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=_ALPHABET + "\x0b\x0c\x1c\x1d\x1e\x1f\U0001f600", max_size=80))
def test_nonblank_is_pythons(text):
    assert speedups.nonblank(text) == len(text) - sum(map(text.count, weights._BLANKS))


@needs_build
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=_ALPHABET + "\x0b\x0c\ud800\U0001f600\u07ff\u0800\uffff", max_size=80))
def test_weigh_is_pythons(text):
    data = text.encode("utf-8", "replace")
    assert speedups.weigh(text) == len(data.translate(None, weights._BLANK_BYTES)) - 2 * data.count(b"\xc2\xa0")


@needs_build
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(max_codepoint=255), max_size=200))
def test_nonblank_and_weigh_of_latin1_text(text):
    # A str of code points below 256 is read a byte a character (its own loop in C).
    data = text.encode("utf-8")
    assert speedups.nonblank(text) == len(text) - sum(text.count(c) for c in " \t\n\r\x0b\x0c\xa0")
    assert speedups.weigh(text) == len(data.translate(None, weights._BLANK_BYTES)) - 2 * data.count(b"\xc2\xa0")


def test_built_where_a_compiler_and_headers_are():
    # CI has both: there the speedups must not silently fall back to Python (the tests above
    # would all be skipped), nor the narrowing's weights to the copy of the tree (the selectolax
    # pinned exports lexbor's functions).
    compiler = shutil.which(os.environ.get("CC", "cc"))
    headers = Path(sysconfig.get_paths()["include"], "Python.h").exists()
    assert not (compiler and headers) or (markup._speedups is not None and tokens._speedups is not None
                                          and weights._LEXBOR_BOUND)


def _both_weights(html: str):
    """A page's body weighed by the C walk and on a copy without links (the tree and the copy kept
    alive with them)."""
    tree = LexborHTMLParser(html)
    copy = weights.linkless_copy(tree)
    table = weights.TreeWeights(speedups.tree_weights(tree.body.mem_id))
    return tree, copy, table, weights.CopyWeights(copy, tree.body, True)


_FRAGMENTS = ("<a href=x>", "<a name=n>", "</a>", "<h2>", "</h2>", "<h3 class=t>", "<div>", "<div class=k>",
              "</div>", "<p>", "</p>", "<!-- note -->", "<b>", "</b>", "<section>", "</section>", "<ul><li>",
              "<table><tr><td>", "</td></tr></table>", "&nbsp;", "&amp;", "<br>", "<span>", "</span>")


_SOUPS = st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(alphabet=_ALPHABET, max_size=12)), max_size=60)
_CAPS = st.sampled_from([0, 3, 12, 1 << 62])


@needs_build
@settings(max_examples=300, deadline=None, derandomize=True)
@given(_SOUPS)
def test_tree_weights_are_the_copys_on_any_markup(parts):
    tree, copy, table, copies = _both_weights("<body>" + "".join(parts))
    assert weights._same_weights(table, copies, tree.body)


@needs_build
@settings(max_examples=300, deadline=None, derandomize=True)
@given(_SOUPS, _CAPS)
def test_kid_frees_are_pythons_on_any_markup(parts, cap):
    tree = LexborHTMLParser("<body>" + "".join(parts))
    for node in [tree.body, *tree.body.css("div, p, section, td, h2")]:
        kids = weights.elements(node)
        got = weights.kid_frees(node, kids, cap, True)
        bound, weights._LEXBOR_BOUND = weights._LEXBOR_BOUND, False
        try:
            assert got == weights.kid_frees(node, kids, cap, True)
        finally:
            weights._LEXBOR_BOUND = bound


@needs_build
@settings(max_examples=300, deadline=None, derandomize=True)
@given(_SOUPS, _CAPS)
def test_kid_frees_read_from_the_tree_weights_are_the_same(parts, cap):
    # (a marked main's levels past the first few are weighed from one walk: text.Extractor)
    tree = LexborHTMLParser("<body><main>" + "".join(parts))
    main = tree.css_first("main")
    table = weights.tree_table(main, True)
    for node in [main, *main.css("div, p, section, td, h2, span, b")]:
        kids = weights.elements(node)
        if len(kids) <= weights.MAX_KIDS and weights.in_copy(node, main):  # (as the main's levels are: outside links)
            assert weights.table_frees(table, node, kids, cap) == weights.kid_frees(node, kids, cap, True)


@needs_build
def test_tree_weights_are_the_copys_on_real_pages():
    assert weights._LEXBOR_BOUND
    for body in list(pydoc_pages(60).values())[:40]:
        tree, copy, table, copies = _both_weights(decode_html(body, "text/html; charset=utf-8"))
        assert weights._same_weights(table, copies, tree.body)


@needs_build
def test_tree_weights_walk_any_depth_and_size():
    # Iterative: a tree nested 5,000 deep (lexbor parses inline elements so) and 20,000 elements
    # wide, each weighed (the table grows from 1,024 slots).
    deep = "<body>" + "<span>x" * 5000
    tree, copy, table, copies = _both_weights(deep)
    assert table.of(tree.body) == copies.of(tree.body) == (5000, 5000)
    wide = "<body><div>" + "<p>ab<a href=x>link</a>" * 20_000
    tree, copy, table, copies = _both_weights(wide)
    kids = weights.elements(tree.body.child)
    assert table.of(tree.body) == (40_000, 120_000)
    assert table.frees(tree.body.child, kids[:5]) == [2] * 5 and table.totals(kids[-5:]) == [6] * 5
    with pytest.raises(KeyError):
        speedups.weights_of(table._table, LexborHTMLParser("<p>elsewhere").body.mem_id)


def test_extraction_is_the_same_with_the_weights_of_a_copy(monkeypatch):
    # pydoc's pages are narrowed; the same wrapped in <main> (its edges left out), once inside a
    # link (never weighed: not in a copy without links), are not.
    extract = Scheme().build().extractor.texts
    pages = [decode_html(body, "text/html; charset=utf-8") for body in pydoc_pages(60).values()]
    pages += [re.sub(r"(<body[^>]*>)(.*)(</body>)", r"\1<div><main>\2</main></div>\3", html, flags=re.S) for html in pages]
    pages.append("<body><a href=x><main><h1>Title</h1><p>One paragraph of text.</p><p>Another one.</p><i>b</i></main></a>")
    walked = [extract(html) for html in pages]
    monkeypatch.setattr(weights, "_LEXBOR_BOUND", False)
    assert [extract(html) for html in pages] == walked


def test_speedups_built_from_other_sources_are_not_used(monkeypatch):
    # A checkout updated without reinstalling keeps the old build, whose functions take other
    # arguments: every page would fail. Its API number tells it apart, and Python does the work.
    import importlib
    import types

    import contentseen
    from contentseen import _native

    stale = types.ModuleType("contentseen._speedups")
    stale.API = _native.API - 1
    monkeypatch.setitem(sys.modules, "contentseen._speedups", stale)
    monkeypatch.setattr(contentseen, "_speedups", stale, raising=False)
    try:
        assert importlib.reload(_native).speedups is None
    finally:
        monkeypatch.undo()
        importlib.reload(_native)
    assert _native.speedups is markup._speedups


@needs_build
def test_pieces_and_names_crafted_to_collide_cost_linear_time():
    # The same first and last 8 bytes and length: one slot of the scan's table for all. The scan
    # gives up past its probe budget and Python's dict (seeded hashes) counts them.
    crafted = " ".join(f"aaaaaaaa{i:06d}bbbbbbbb" for i in range(100_000))
    started = time.process_time()
    assert speedups.scan(crafted.encode(), tokens._SEPARATOR_BYTES) is None
    assert tokens.hashed_tokens(crafted) is None
    page = PageText(crafted, crafted)
    fast, slow = Scheme().build(), Scheme().build()
    slow._scan = False
    assert fast.of_texts(page) == slow.of_texts(page)
    assert time.process_time() - started < 5, "quadratic"
    # Long pieces differing only before their last 8 bytes: each comparison costs their length.
    crafted = " ".join("a" * 1000 + f"{i:06d}" + "b" * 8 for i in range(4_000))
    started = time.process_time()
    assert speedups.scan(crafted.encode(), tokens._SEPARATOR_BYTES) is None
    assert time.process_time() - started < 2, "quadratic"
    # Many tag names (4 bytes tell them apart): still one pass.
    names = ["".join(p) for p in itertools.islice(itertools.product(string.ascii_lowercase, repeat=4), 300_000)]
    raw = "".join(f"<{n}>" for n in names).encode()
    started = time.process_time()
    assert markup._tag_scan(raw) == markup._tag_scan_numpy(raw)
    assert time.process_time() - started < 5


@needs_build
def test_merge_refuses_arguments_that_are_not_one_scans():
    hashes, counts = np.arange(3, dtype=np.uint64).tobytes(), np.ones(3, dtype=np.int64).tobytes()
    flags, sequence = np.array([0, 2, 2], dtype=np.uint8).tobytes(), np.array([0, 1, 2], dtype=np.int32).tobytes()
    with pytest.raises(ValueError):  # an index of a piece without other characters, or past the pieces
        speedups.merge_others(hashes, counts, flags, sequence, np.array([0], dtype=np.int64).tobytes(), b"x")
    with pytest.raises(ValueError):
        speedups.merge_others(hashes, counts, flags, sequence, np.array([7], dtype=np.int64).tobytes(), b"x")
    with pytest.raises(ValueError):  # counts of another length
        speedups.merge_others(hashes, counts[:8], flags, sequence, np.array([1], dtype=np.int64).tobytes(), b"x")
    # a piece with other characters left out of the indices: its words are none, no read past them
    got = speedups.merge_others(hashes, counts, flags, sequence, np.array([1], dtype=np.int64).tobytes(), "é".encode())
    assert got is not None


@needs_build
def test_every_character_is_read_as_the_regular_expressions_read_it():
    # Each character alone, between spaces: a token of a spaced script, one of an unspaced one,
    # or none -- the C split's classes (Py_UNICODE_ISALNUM, the unspaced ranges, the marks) against
    # tokens._RUN and tokens._UNSPACED_RUN, over the BMP, plane 1 (marks of many scripts) and the
    # first blocks of planes 2 and 14.
    points = [*range(0x80, 0xD800), *range(0xE000, 0x20000), *range(0x20000, 0x21000), *range(0xE0000, 0xE0200)]
    for lo in range(0, len(points), 8192):
        _check_tokens(" ".join(map(chr, points[lo:lo + 8192])))


def _both_ways(scheme: Scheme):
    """A fingerprinter of ``scheme`` summing in C, and one summing in numpy."""
    fast, slow = scheme.build(), scheme.build()
    slow._native = False
    assert fast._native
    return fast, slow


@needs_build
@pytest.mark.parametrize("scheme", [Scheme(), Scheme(weighting="tf"), Scheme(weighting="binary", min_words=0),
                                   Scheme(bits=32, features=1000), Scheme(bits=13, features=7, distance=2)],
                         ids=["default", "tf", "binary", "32 bits, 1000 features", "13 bits, 7 features"])
def test_fingerprints_summed_in_c_are_numpys(pydoc_texts, scheme):
    _assert_same_fingerprints(*_both_ways(scheme), pydoc_texts, 4, 0.3)


@needs_build
@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 2**64 - 1), st.integers(1, 50_000)), max_size=400),
       st.lists(st.integers(0, 450), max_size=2000), st.sampled_from(["log", "tf", "binary"]),
       st.sampled_from([65536, 1000, 1]), st.floats(0.001, 0.999), st.lists(st.booleans(), max_size=400))
def test_c_sums_on_any_terms(terms, picks, weighting, features, weight, digits):
    # Words of any hash (stopwords among them), counts past the log table's 4,096 and more than the
    # 64 weight classes, sequences of repeated pairs, numbers counting in part (words v6): the C
    # sums against numpy's.
    fast, slow = _both_ways(Scheme(weighting=weighting, features=features, min_words=0))
    stop = fast._rows.stop_hashes
    hashes = np.array([h for h, _ in terms] + stop[:3].tolist(), dtype=np.uint64)
    counts = np.array([c for _, c in terms] + [5, 1, 2], dtype=np.int64)
    tokens_ = tokens.HashedTokens(hashes, counts, np.zeros(len(hashes), dtype=bool),
                                  hashes[np.array(picks, dtype=np.intp) % len(hashes)])
    terms_ = _Terms(tokens_, lambda: tokens_.sequence)
    assert fast._simhash(fast._rows, terms_) == slow._simhash(slow._rows, terms_)
    assert fast._page_fingerprint(tokens_, tokens_) == slow._page_fingerprint(tokens_, tokens_)
    flags = np.array((digits + [False] * len(hashes))[:len(hashes)], dtype=bool)
    mixed = tokens.HashedTokens(hashes, counts, flags, tokens_.sequence)
    part = _Terms(mixed.without_numbers(), lambda: np.ascontiguousarray(tokens_.sequence[::2]), mixed.numbers(), weight, lambda: tokens_.sequence)
    assert fast._simhash(fast._rows, part) == slow._simhash(slow._rows, part)


def test_a_tie_is_the_same_in_any_order():
    # 0.1 + 0.2 - 0.3 is 5.6e-17 in float64 added in that order, 0 or below in others: the weights
    # are rounded to multiples of 2**-24 first, so the sum is exact and the bit is 0 in every order.
    from contentseen.features import HashedFeatures
    from contentseen.simhash import SimHasher

    table = np.array([[1], [1], [-1]], dtype=np.int8)
    hasher = SimHasher(HashedFeatures(3), table)
    for order in itertools.permutations(range(3)):
        rows = np.array(order)
        assert hasher.fingerprint_rows(rows, np.array([0.1, 0.2, 0.3])[rows]) == 0


@needs_build
@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.text(alphabet="aZ09 \t\r\x0b\x1c\x85\u2009\u00a0éÉß\xb5\xd7\xff日" + "\n" * 3, max_size=40), max_size=12))
def test_line_keys_are_the_regular_expressions(pieces):
    # Lines of ASCII (runs of digits, upper case, every kind of blank) keyed in C, the others folded
    # by Python, against the Python way alone.
    from contentseen import templates

    text = "".join(pieces)
    fast = templates._keys(text)
    with left_out():
        assert fast == templates._keys(text)


@needs_build
def test_line_keys_on_real_pages(pydoc_texts):
    from contentseen import templates

    fast = [templates.page_lines(t) for t in pydoc_texts]
    with left_out():
        assert fast == [templates.page_lines(t) for t in pydoc_texts] and any(fast)


@needs_build
def test_left_out_is_one_switch_for_every_module():
    from contentseen import fingerprints, templates

    pf = Scheme().build()
    page = PageText("a page of a few words " * 5, "a page of a few words " * 5 + "menu")
    with left_out():
        assert tokens.hashed_tokens("a b") is None and not Scheme().build()._native
        assert {m._speedups for m in (fingerprints, markup, templates, tokens, weights)} == {None}
        slow = pf.of_texts(page)
    assert tokens.hashed_tokens("a b") is not None and templates._speedups is speedups
    assert pf.of_texts(page) == slow
    # and it reaches every module that calls them
    import contentseen
    from contentseen import pure_python

    users = {m.name for m in pkgutil.walk_packages(contentseen.__path__, "contentseen.")
             if hasattr(importlib.import_module(m.name), "_speedups")}
    assert users == {m.__name__ for m in pure_python.MODULES}


@needs_build
def test_simhash_refuses_arrays_that_do_not_fit():
    from contentseen.fingerprints import _LOG_WEIGHTS
    from contentseen.simhash import QUANTUM

    pf = Scheme().build()
    table, stop = pf.fingerprinter.packed_table, pf._rows.stop_hashes
    hashes, counts = np.arange(4, dtype=np.uint64), np.ones(3, dtype=np.int64)
    with pytest.raises(ValueError, match="differ in length"):
        speedups.simhash(table, 64, 65536, stop, _LOG_WEIGHTS, 1, QUANTUM, 0, ((hashes, counts, 1.0),))
    with pytest.raises(ValueError, match="bad table"):  # a table smaller than its rows
        speedups.simhash(table[:10], 64, 65536, stop, _LOG_WEIGHTS, 1, QUANTUM, 0, ())
    with pytest.raises(ValueError, match="bad table"):
        speedups.simhash(table, 65, 65536, stop, _LOG_WEIGHTS, 1, QUANTUM, 0, ())
    assert speedups.simhash(table, 64, 65536, stop, _LOG_WEIGHTS, 1, QUANTUM, 0, ()) == (0, 0)


@needs_build
def test_a_frameset_page_is_narrowed_alike_both_ways():
    # Its "body" is its root: the copy without links was weighed from a body it lacks, and the
    # Python way took the whole root for the content where the C walk narrowed it.
    html = ("<html><head><title>Manual</title></head>\n\n<frameset cols='26%,74%'>\n<frame src='toc.html'>\n"
            "<frame src='cover.html'>\n</frameset>\n<noframes>\n<h2>The user manual</h2>\n\n"
            "<a href='toc.html'>Its table of contents</a></noframes>\n\n</html>")
    fast = text_module.Extractor().texts(html)
    with left_out():
        slow = text_module.Extractor().texts(html)
    assert fast == slow


_MARKS = markup.MARKED_NAMES + markup.MARKED_ATTRIBUTE_NAMES
# The marked names and attributes, in places where the tokenizer reads them and where it does not.
_MARK_PIECES = _DEPTH_PIECES + [b"<main>", b"<ARTICLE ", b"<nav ", b"<header>", b"<head>", b"<footer/>", b"</aside>",
                                b"<aside", b" role=x", b" ROLE", b' hidden="', b" aria-hidden=true", b" Aria-Hidden",
                                b" title=role", b"<p", b"<![CDATA[", b"]]>", b"<noscript>", b"<iframe>", b"</iframe>",
                                b"<frameset>", b"<frame", b"<template>", b"</template>", b"<col>", b"<caption>",
                                b"</caption>", b"<colgroup>", b"</colgroup>", b"<head>", b"</head>", b"</noscript>",
                                b"<noframes>", b"<textarea>"]


def _marks_of(raw: bytes) -> set[str]:
    """The marked names and attributes lexbor's tree of ``raw`` holds (template contents aside,
    which no query of the tree meets)."""
    tree = LexborHTMLParser(raw)
    return {n for n in _MARKS if tree.root is not None and tree.root.css(n if n in markup.MARKED_NAMES else f"[{n}]")}


def _marked(raw: bytes) -> set[str]:
    marks = speedups.tag_model(raw, markup.MAX_DEPTH, markup.REOPEN_COST, False, _limit(raw))[2]
    return {n for j, n in enumerate(_MARKS) if marks >> j & 1}


@needs_build
@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_MARK_PIECES), max_size=600))
def test_tag_model_marks_every_marked_element_and_attribute_the_tree_holds(pieces):
    raw = b"".join(pieces)
    cost, depth, _ = speedups.tag_model(raw, markup.MAX_DEPTH, markup.REOPEN_COST, False, _limit(raw))
    if depth <= markup.MAX_DEPTH and cost <= _limit(raw):  # else never parsed (the walk stopped)
        assert _marks_of(raw) <= _marked(raw), raw[:300]


@needs_build
def test_tag_model_marks_what_the_tokenizer_reads():
    assert _marked(b"<html><head><title>t</title></head><body><div class=x id=y>z</div>") == set()
    assert _marked(b"<header>x</header><MAIN Role=main><p HIDDEN>y<b aria-hidden=true>") == {
        "header", "main", "role", "hidden", "aria-hidden"}
    # in comments and quoted values, in end tags, or only a name's start: none
    assert _marked(b"<!-- <main> --><div title='<article hidden>'></footer x role><aside-x><p data-role=x title=hidden>"
                   ) == set()
    # in raw text, as markup too: the tree builder reads it so where it ignores the start tag
    assert _marked(b"<script><nav role=x></script>") == {"nav", "role"}
    for raw in pydoc_pages(30).values():
        assert _marks_of(raw) <= _marked(raw)
    # where the tree builder reads as markup what the walk takes for raw text: a start tag it
    # ignores (frameset, a template's column group), or SVG it stays in
    for raw in (b"<frameset><iframe><frame role=main>", b"<frameset><title><frame hidden>",
                b"<template><col><noframes></template><header>", b"<head><svg></head><style><main>",
                b"<caption><svg></caption><style><main>", b"<colgroup><svg></colgroup><title><main>",
                b"<noscript><svg></noscript><textarea><main>"):
        assert _marks_of(raw) <= _marked(raw), raw


def test_no_marks_where_lexbor_parses_other_bytes_than_the_walk():
    # lone surrogates: lexbor parses the str without them, the walk read "?" in their place
    page = "<div>" + "text " * 1000 + "<div hid\udc80den>x</div></div>"
    assert markup.prepared(page).marks is None
