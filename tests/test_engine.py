"""Tokeniser, pages, vocabulary, hash table and fingerprint properties."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from contentseen.corpus import parse_pages
from contentseen.errors import ContentSeenError
from contentseen.features import HashedFeatures, Vocabulary
from contentseen.projection import builtin_hashtable, parse_hashtable, table_digest
from contentseen.fingerprints import Scheme
from contentseen.simhash import SimHasher, from_int, hamming, hamming_many, pack_bits, to_int
from contentseen.tokens import BUILTIN_STOPWORDS, content_words, parse_stopwords, tokenize


def test_tokenize_ascii_letter_runs_lowercased():
    assert tokenize("Hello, WORLD! x2y don't\r\nnaïve") == ["hello", "world", "x", "y", "don", "t", "na", "ve"]
    assert tokenize(b"Caf\xc3\xa9 OK\x80ok") == ["caf", "ok", "ok"]
    # Non-ASCII letters whose lower case is ASCII are separators, not letters.
    assert tokenize("\u212aelvin \u0130stanbul") == ["elvin", "stanbul"]


@given(st.text())
def test_tokens_are_lowercase_ascii_and_cover_all_letters(text):
    toks = tokenize(text)
    assert all(t.isascii() and t.isalpha() and t.islower() for t in toks)
    letters = sum(c.isascii() and c.isalpha() for c in text)
    assert sum(map(len, toks)) == letters


def test_stopwords():
    assert parse_stopwords(b"a\r\nThe\r\nof\n") == {"a", "the", "of"}
    assert content_words("The cat of the house", BUILTIN_STOPWORDS) == ["cat", "house"]


def test_pages_split_on_form_feed():
    pages = parse_pages(b"\n1-1\r\nfirst page\n\f\n\n1-2\nsecond\f\n\f")
    assert [(p.id, p.text.strip()) for p in pages] == [("1-1", "first page"), ("1-2", "second")]


def test_vocabulary_order_ties_and_stopwords(tmp_path):
    v = Vocabulary.fit([["b", "a", "the", "c"], ["a", "b", "the", "the", "d"]], 3, frozenset({"the"}))
    assert v.words == ["a", "b", "c"]
    assert Vocabulary.fit([["x"]], 10).words == ["x"]
    v.save(tmp_path / "v.txt")
    assert Vocabulary.load(tmp_path / "v.txt").words == v.words
    assert list(v.ids(["c", "zzz", "a"])) == [2, 3, 0]
    (tmp_path / "bad.txt").write_text("nope\n")
    with pytest.raises(ContentSeenError, match="bad.txt"):
        Vocabulary.load(tmp_path / "bad.txt")


def test_builtin_table_is_deterministic_and_prefix_stable():
    t = builtin_hashtable(100, 128)
    assert set(np.unique(t)) == {-1, 1}
    assert np.array_equal(builtin_hashtable(50, 64), t[:50, :64])
    assert table_digest(t) == table_digest(builtin_hashtable(100, 128))
    # Balanced: each column near half ones.
    assert 0.4 < (builtin_hashtable(5000, 128) > 0).mean() < 0.6


def test_parse_hashtable():
    t = parse_hashtable(b"101\r\n011\r\n", 2, 2)
    assert t.tolist() == [[1, -1], [-1, 1]]
    with pytest.raises(ContentSeenError, match="2 rows"):
        parse_hashtable(b"101\n011\n", 3, 2)


def test_fingerprint_by_hand():
    table = np.array([[1, -1, 1], [-1, -1, 1]], dtype=np.int8)
    fp = SimHasher(Vocabulary(["a", "b"]), table)
    # sums: a*2 + b*1 -> [2-1, -2-1, 2+1] = [1, -3, 3] -> bits 101
    assert fp.fingerprint(["a", "a", "b", "zzz"]) == 0b101
    assert fp.fingerprint([]) == 0  # all sums 0 -> all bits 0
    many = fp.fingerprint_many([["a", "a", "b"], [], ["b"]])
    assert [to_int(r) for r in many] == [0b101, 0, 0b001]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["w%d" % i for i in range(40)]), max_size=60), st.sampled_from([1, 7, 16, 30, 64, 100, 128]))
def test_fingerprint_many_and_rows_equal_one_by_one(words, bits):
    fp = SimHasher(HashedFeatures(64), builtin_hashtable(64, bits))
    assert to_int(fp.fingerprint_many([words])[0]) == fp.fingerprint(words)
    assert fp.fingerprint(words) < (1 << bits)
    counts = Counter(words)
    rows = fp.features.ids(list(counts))
    assert fp.fingerprint_rows(rows, np.array(list(counts.values()), dtype=np.float64)) == fp.fingerprint(words)


@given(st.integers(0, (1 << 128) - 1), st.integers(0, (1 << 128) - 1))
def test_int_words_roundtrip_and_distance(a, b):
    wa, wb = from_int(a, 128), from_int(b, 128)
    assert to_int(wa) == a
    assert hamming_many(wa[None, :], wb)[0] == hamming(a, b) == bin(a ^ b).count("1")


def test_pack_bits_msb_first():
    signs = np.array([[True, False, False, True]])
    assert to_int(pack_bits(signs)[0]) == 0b1001


def test_near_duplicate_text_is_close_and_different_text_far():
    rng = np.random.default_rng(7)
    lexicon = ["w" + "".join(rng.choice(list("abcdefghij"), 6)) for _ in range(3000)]
    fp = SimHasher(HashedFeatures(1 << 16), builtin_hashtable(1 << 16, 64))
    page = list(rng.choice(lexicon, 600))
    other = list(rng.choice(lexicon, 600))
    a = fp.fingerprint(page)
    assert hamming(a, fp.fingerprint(page + ["banner", "updated"])) <= 3
    assert hamming(a, fp.fingerprint(other)) > 10


def test_row_cache_gives_the_same_fingerprints_as_a_fresh_fingerprinter():
    """The word -> row cache is cleared when full and must never change a fingerprint."""
    from contentseen import fingerprints as pipeline

    texts = [f"page {i} " + " ".join(f"w{chr(97 + i % 26)}{chr(97 + j % 26)}x{j % 7}" for j in range(40))
             for i in range(30)]
    warm = Scheme().build()
    old = pipeline._ROW_CACHE_SIZE
    pipeline._ROW_CACHE_SIZE = 50  # forces several clears over these pages
    try:
        got = [warm.of_text(t).fingerprint for t in texts]
        assert len(warm._rows._rows) <= 50
    finally:
        pipeline._ROW_CACHE_SIZE = old
    assert got == [Scheme().build().of_text(t).fingerprint for t in texts]
    # stopwords are no content words, wherever they come from
    page = warm.of_text("the cat and the dog of the house")
    assert page.word_count == 3


@pytest.mark.parametrize("html,text", [
    # content before <frameset> leaves lexbor's body detached: the page's text is in <noframes>
    ("<head><title>t</title></head><div></div><frameset><frame src=a>"
     "<noframes>This archive needs frames; read the text version</noframes></frameset>",
     "This archive needs frames; read the text version"),
    ("<frameset><frame src=a><noframes>Frames needed for this old archive</noframes></frameset>",
     "Frames needed for this old archive"),
    ('<html aria-hidden="true"><frameset></frameset></html>', ""),  # the root is never removed
    ("<body hidden><p>Text of a page whose body is marked hidden</p></body>", "Text of a page whose body is marked hidden"),
    # a body marked as the main landmark is the main content (its small unlike edges left out)
    ("<body role=main><nav>menu</nav><p>A body marked as the main landmark</p><p>and its text</p></body>",
     {"main": "A body marked as the main landmark and its text", "body": "menu A body marked as the main landmark and its text"}),
    # nested invisible and marked elements: removed inner first, never touched twice (an SVG's
    # text is shown, v15: left out of the content as the aria-hidden boilerplate it is in)
    ('<div>Icons <svg aria-hidden="true"><text>star</text><a role="navigation">x</a></svg> and '
     "<noscript><div><nav>Enable scripts</nav></div></noscript> text around them</div><script>var a = 1</script>",
     {"main": "Icons and text around them", "body": "Icons star x and text around them"}),
])
def test_visible_text_of_odd_documents(html, text):
    from contentseen.text import visible_text

    for mode in ("main", "body"):
        expected = text[mode] if isinstance(text, dict) else text
        assert visible_text(html, mode).split() == expected.split(), mode


def test_hash_table_entries_must_be_plus_or_minus_one():
    table = builtin_hashtable(64, 16).copy()
    table[3, 2] = 0
    with pytest.raises(ContentSeenError, match="every entry must be \\+1 or -1"):
        SimHasher(HashedFeatures(64), table)


# ----------------------------------------------------------------------------- tokens of any script

_ALPHABET = "abcXYZ09 _-—’.,;日本語のテキイ中文ไทยПриветΣσςß\u0301\u0903\u0964ދިབོ\u0f72\u05b7\ufe0fǅİ\ufffd\u00a0\t\u2009\u200b\u2013\u2018\u201c\u201d\xb6\u2026\xb7"


def _tokens_by_regex(text: str):
    """token_counts' definition, by regular expressions over the whole text (slower)."""
    from collections import Counter

    from contentseen.tokens import _RUN, _UNSPACED_RUN

    text = text.casefold()
    counts = Counter(_RUN.findall(text))
    for run in _UNSPACED_RUN.findall(text):
        counts.update([run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)])
    return {t.encode(): n for t, n in counts.items()}


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.text(alphabet=_ALPHABET, max_size=60))
def test_token_counts_equals_its_definition(text):
    from contentseen.tokens import token_counts

    assert dict(token_counts(text)) == _tokens_by_regex(text)


def test_tokens_of_other_scripts():
    from contentseen.tokens import token_counts, without_numbers

    got = token_counts("Привет, МИР! 日本語 ไทย ΣΟΦΙΑ σοφίας café_bar v3.11 2024")
    assert set(got) == {w.encode() for w in ("привет", "мир", "日本", "本語", "ไท", "ทย", "σοφια", "σοφίασ",
                                               "café", "bar", "v3", "11", "2024")}
    assert set(without_numbers(got)) == set(got) - {b"11", b"2024"}


def test_words_hold_the_combining_marks_of_every_script():
    # Thaana writes every vowel as a mark, Tibetan its vowels and subjoined letters: read by
    # re's \\w alone, their words fell apart into letters (two different Maldivian pages were
    # one page's copy). A danda ends a Hindi sentence, not a word; a variation selector after
    # an emoji is no word.
    from contentseen.tokens import token_counts

    got = token_counts("ދިވެހި ބަސް — བོད་ཡིག — है। यह — \u2764\ufe0f — שָׁלוֹם")
    assert set(got) == {w.encode() for w in ("ދިވެހި", "ބަސް", "བོད", "ཡིག", "है", "यह", "שָׁלוֹם")}


def test_the_marks_are_unicode_14s_outside_unspaced_scripts_and_variation_selectors():
    import re
    import unicodedata

    from contentseen.marks import MARK_RANGES
    from contentseen.tokens import UNSPACED

    points = [cp for lo, hi in MARK_RANGES for cp in range(lo, hi + 1)]
    assert points == sorted(set(points))
    # categories of assigned characters never change: every one is a mark in any later Unicode
    assert all(unicodedata.category(chr(cp)) in ("Mn", "Mc", "Me") for cp in points)
    if unicodedata.unidata_version == "14.0.0":
        unspaced = re.compile(f"[{UNSPACED}]")
        selectors = {*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), *range(0x180B, 0x1810)}
        assert points == [cp for cp in range(0x110000) if unicodedata.category(chr(cp))[0] == "M"
                          and not unspaced.match(chr(cp)) and cp not in selectors]


def test_word_sequence_leaves_out_numbers_and_unspaced_scripts():
    from contentseen.tokens import word_sequence

    assert word_sequence("Last updated: 2024-05-01 10:00 UTC. Last") == [b"last", b"updated", b"utc", b"last"]
    got = word_sequence("Привет, МИР! 日本語 ok v3.11 café\xa0bar")
    assert got == [w.encode() for w in ("привет", "мир", "ok", "v3", "café", "bar")]


def test_content_fingerprint_counts_word_order_not_only_words():
    # Octave's "Line Series" and "Stair Group" pages hold nearly the same words in other
    # orders: with words alone their content fingerprints were 2 apart (a false drop).
    from contentseen.fingerprints import Scheme
    from contentseen.tokens import Words

    class WordsAlone(Words):  # a stage of its own words gets no pairs (an empty sequence)
        name = "words-alone"

        def counts(self, text, tokens):
            return super().counts(text, tokens)

    words = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november "
             "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split() * 3
    a, b = " ".join(words), " ".join(reversed(words))
    alone = Scheme(words=WordsAlone()).build()
    assert alone.of_text(a).fingerprint == alone.of_text(b).fingerprint
    pairs = Scheme().build()
    assert (pairs.of_text(a).fingerprint ^ pairs.of_text(b).fingerprint).bit_count() > 3
    assert pairs.of_text(a).word_count == alone.of_text(a).word_count == len(words)  # pairs are not words
    assert pairs.identity["words"] == "any-script/v8" != alone.identity["words"]
