"""Words and stopwords.

Two definitions of a word:

* ``tokenize`` / ``word_counts`` -- the assignment's: a maximal run of ASCII letters,
  lower-cased; every other character (digits, punctuation, non-ASCII, ``\\r``) separates words.
  ``contentseen-report`` and a scheme with a corpus vocabulary (``CONTENTSEEN_CORPUS``) use it, so
  a page gets the same fingerprint online and offline.
* ``token_counts`` -- any language's, for pages on the web: a maximal run of letters, digits
  and combining marks (``marks.py``) of any script, case-folded (``Σ`` and a final ``ς`` are
  one letter); in scripts written without spaces between words (Chinese, Japanese, Thai, Lao,
  Khmer, Myanmar) each pair of neighbouring characters is a token. With ASCII words only, a
  Russian and a Japanese page that shared an English byline had the same fingerprint, and a
  page of dates and version numbers had none. ``hashed_tokens`` gives the same tokens, and
  ``word_sequence``'s words, as arrays of their hashes, by the C scan where it is built
  (``contentseen/_speedups.c``).
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import filterfalse
from typing import Mapping, Sequence

import numpy as np

from ._native import speedups as _speedups  # None: tokens are counted in Python
from .errors import ContentSeenError
from .marks import MARKS as _MARKS  # combining marks: \w leaves them out, words hold them

_DIGITS = 1  # the scan's flag of a piece of digits only, and merge_others' kind of a token so
_UNSPACED_TOKEN = 2  # merge_others' kind of a token of an unspaced script

_LETTERS = bytes(c | 0x20 if 65 <= c <= 90 or 97 <= c <= 122 else 32 for c in range(256))

# A general-purpose English list (articles, pronouns, auxiliaries, prepositions, conjunctions,
# common adverbs). Written for this project; the course file can be loaded instead.
BUILTIN_STOPWORDS: frozenset[str] = frozenset(
    """
    a about above across after afterwards again against all almost alone along already also
    although always am among amongst an and another any anyhow anyone anything anyway anywhere
    are around as at be became because become becomes becoming been before beforehand behind
    being below beside besides between beyond both but by can cannot could did do does doing
    done down during each either else elsewhere enough etc even ever every everyone everything
    everywhere except few first for former formerly from further had has have having he hence
    her here hereafter hereby herein hereupon hers herself him himself his how however i if in
    indeed into is it its itself just last latter latterly least less made many may me
    meanwhile might mine more moreover most mostly much must my myself namely neither never
    nevertheless next no nobody none noone nor not nothing now nowhere of off often on once one
    only onto or other others otherwise our ours ourselves out over own per perhaps please
    rather re same seem seemed seeming seems several she should since so some somehow someone
    something sometime sometimes somewhere still such than that the their theirs them
    themselves then thence there thereafter thereby therefore therein thereupon these they this
    those though through throughout thru thus to together too toward towards under until up
    upon us very via was we well were what whatever when whence whenever where whereafter
    whereas whereby wherein whereupon wherever whether which while whither who whoever whole
    whom whose why will with within without would yet you your yours yourself yourselves
    s t d ll m o re ve y don doesn didn isn wasn aren weren hasn haven hadn won wouldn shouldn
    couldn mustn
    """.split()
)


def tokenize(text: str | bytes) -> list[str]:
    """Return the words of ``text`` in order (ASCII letter runs, lower-cased)."""
    if isinstance(text, str):
        # Non-ASCII characters become '?', a separator; str.lower() on them could yield ASCII.
        text = text.encode("ascii", "replace")
    # One C-level byte map (letters -> lower case, all else -> space) and a split: several
    # times faster than a regex scan on page-sized text.
    return text.translate(_LETTERS).decode("ascii").split()


def _word_bytes(text: str | bytes) -> list[bytes]:
    """``tokenize(text)`` with each word as ASCII bytes (the offline report's route: no decode)."""
    if isinstance(text, str):
        text = text.encode("ascii", "replace")
    return text.translate(_LETTERS).split()


def word_counts(text: str | bytes) -> Counter[bytes]:
    """How often each word occurs in ``text`` (words as ASCII bytes, in first-seen order)."""
    return Counter(_word_bytes(text))


# Scripts written without spaces between words: Thai, Lao, Myanmar, Khmer, Hiragana, Katakana,
# Bopomofo, CJK ideographs (extension A, unified, compatibility), Katakana extensions.
UNSPACED = ("\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff"
             "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff")
_RUN = re.compile(f"(?:[^\\W_{UNSPACED}]|[{_MARKS}])+")  # a word or number, spaced scripts
_UNSPACED_RUN = re.compile(f"[{UNSPACED}]+")
# Frequent non-ASCII separators, turned into spaces first so that the pieces beside them need
# no regular expression: no-break, thin and zero-width spaces, dashes, quotes, pilcrow, ellipsis.
_COMMON_SEPARATORS = "\xa0\u2009\u200b\u2013\u2014\u2018\u2019\u201c\u201d\xb6\u2026\xb7"
_SEPARATOR_BYTES = tuple(c.encode() for c in _COMMON_SEPARATORS)  # as the C scan finds them
# ASCII letters lower-cased, digits kept, other ASCII a separator, bytes of other characters kept.
_ALNUM_OR_UTF8 = bytes(c | 0x20 if 65 <= c <= 90 or 97 <= c <= 122 else c if 48 <= c <= 57 or c >= 128 else 32
                       for c in range(256))


def token_counts(text: str) -> Counter[bytes]:
    """How often each token (see the module's docstring) occurs in ``text``, as UTF-8 bytes;
    runs of digits are tokens too (``without_numbers`` leaves them out)."""
    pieces, ascii_only = _pieces(text)
    counts = Counter(pieces)
    if ascii_only:
        return counts
    for piece in [p for p in counts if not p.isascii()]:
        n = counts.pop(piece)
        # counted as str in C first: a page of unspaced script is one piece of 10^5 pairs
        for token, m in Counter(_tokens(piece.decode("utf-8").casefold())).items():
            counts[token.encode()] += n * m
    return counts


@lru_cache(maxsize=2)
def _pieces(text: str) -> tuple[list[bytes], bool]:
    """``text`` split at ASCII separators, in C (UTF-8 bytes, ASCII letters lower-cased), and
    whether every piece is ASCII: only the pieces holding other characters (most pages: a few,
    with a dash, a quote or an accent) need splitting further by the regular expressions. The
    last two texts' are kept: a page's content is split once for its counts and its sequence
    (do not change the list)."""
    if not text.isascii():
        for space in _COMMON_SEPARATORS:  # pydoc's pages hold 1,400 &nbsp; each
            text = text.replace(space, " ")
    data = text.encode("utf-8", "replace").translate(_ALNUM_OR_UTF8)
    return data.split(), data.isascii()


@dataclass(frozen=True)
class HashedTokens:
    """``token_counts(text)`` with each token as its xxh64 (seed 0, as ``HashedFeatures`` hashes
    words), in the same order, and ``word_sequence(text)`` hashed so: what the default scheme's
    fingerprints are made of, without a bytes object or a dict entry per token."""

    hashes: np.ndarray  # uint64, one per distinct token
    counts: np.ndarray  # int64
    digits: np.ndarray  # bool: the token is digits only
    sequence: np.ndarray  # uint64: the words of word_sequence, in order
    unspaced: np.ndarray | None = None  # bool: the token is of an unspaced script (None: none is)

    def without_numbers(self) -> "HashedTokens":
        """These tokens less those made of digits only (``without_numbers``)."""
        return self._kept(~self.digits)

    def numbers(self) -> "HashedTokens":
        """Those of these tokens made of digits only."""
        return self._kept(self.digits)

    def of_unspaced_scripts(self) -> "HashedTokens | None":
        """Those of these tokens of scripts written without spaces (``unspaced_of``), or None."""
        return self._kept(self.unspaced) if self.unspaced is not None and self.unspaced.any() else None

    def _kept(self, keep: np.ndarray) -> "HashedTokens":
        unspaced = None if self.unspaced is None else self.unspaced[keep]
        return HashedTokens(self.hashes[keep], self.counts[keep], self.digits[keep], self.sequence, unspaced)


def hashed_tokens(text: str) -> HashedTokens | None:
    """``HashedTokens`` of ``text``, by the C token scan (``contentseen/_speedups.c``); None
    where it is not built (then ``token_counts`` is the way), and for a text whose pieces or
    tokens were crafted to collide in the scan's tables. Pieces holding other characters than
    ASCII are case-folded here, all at once, and split into their tokens in C, as
    ``token_counts`` splits them with its regular expressions (``merge_others``)."""
    if _speedups is None:
        return None
    scanned = _speedups.scan(text.encode("utf-8", "replace"), _SEPARATOR_BYTES)
    if scanned is None:  # pieces crafted to collide in its table: a dict's seeded hashes are safe
        return None
    raw_hashes, raw_counts, raw_flags, raw_sequence, raw_words, indices, others = scanned
    if indices:
        folded = others.decode("utf-8").casefold().encode("utf-8")
        merged = _speedups.merge_others(raw_hashes, raw_counts, raw_flags, raw_sequence, indices, folded)
        if merged is None:
            return None
        raw_hashes, raw_counts, raw_kinds, raw_words = merged
        kinds = np.frombuffer(raw_kinds, dtype=np.uint8)
        digits, unspaced = kinds == _DIGITS, kinds == _UNSPACED_TOKEN
    else:
        digits, unspaced = np.frombuffer(raw_flags, dtype=np.uint8) == _DIGITS, None
    return HashedTokens(np.frombuffer(raw_hashes, dtype=np.uint64), np.frombuffer(raw_counts, dtype=np.int64),
                        digits, np.frombuffer(raw_words, dtype=np.uint64), unspaced)


def unspaced_of(counts: "Mapping[bytes, int] | HashedTokens") -> "Mapping[bytes, int] | HashedTokens | None":
    """Those of the tokens ``counts`` that are of scripts written without spaces between words
    (their characters and pairs of characters), or None where there are none."""
    if isinstance(counts, HashedTokens):
        return counts.of_unspaced_scripts()
    kept = {t: n for t, n in counts.items() if not t.isascii() and _UNSPACED_RUN.match(t.decode("utf-8", "replace"))}
    return kept or None


def word_sequence(text: str, numbers: bool = False) -> list[bytes]:
    """The words of spaced scripts in ``text``, in order (UTF-8 bytes, case-folded as
    ``token_counts``), numbers left out unless ``numbers``: the sequence whose neighbouring pairs
    the default ``Words`` stage adds to a content fingerprint. Scripts written without spaces are
    left out, their tokens being character pairs already."""
    pieces, ascii_only = _pieces(text)
    if not ascii_only:
        words = []
        for piece in pieces:
            if piece.isascii():
                words.append(piece)
            else:
                words.extend(w.encode() for w in _RUN.findall(piece.decode("utf-8").casefold()))
        pieces = words
    return list(pieces) if numbers else list(filterfalse(bytes.isdigit, pieces))


def numbers_weight(tokens: "Mapping[bytes, int] | HashedTokens") -> float:
    """How much the numbers among ``tokens`` count beside their words (words v6): fully where they
    are at least ``NUMBERS_SHARE`` of the tokens (counted) and ``NUMBERS_MIN`` or more, not at
    all below ``NUMBERS_SHARE_FROM`` of them or ``NUMBERS_MIN_FROM``, and in between as far as
    each of the two stands between its lines (their product)."""
    # (most texts hold a few numbers: their total is not summed)
    if isinstance(tokens, HashedTokens):
        numbers = int(tokens.counts[tokens.digits].sum())
        total = int(tokens.counts.sum()) if numbers >= NUMBERS_MIN_FROM else 0
    else:
        numbers = sum(n for t, n in tokens.items() if t.isdigit())
        total = sum(tokens.values()) if numbers >= NUMBERS_MIN_FROM else 0
    if not total:
        return 0.0
    return (_between(numbers / total, NUMBERS_SHARE_FROM, NUMBERS_SHARE)
            * _between(numbers, NUMBERS_MIN_FROM, NUMBERS_MIN))


def _between(value: float, low: float, high: float) -> float:
    """Where ``value`` stands from ``low`` (0) to ``high`` (1), within those."""
    return 1.0 if value >= high else 0.0 if value <= low else (value - low) / (high - low)


def mostly_numbers(tokens: "Mapping[bytes, int] | HashedTokens") -> bool:
    """Whether at least ``NUMBERS_SHARE`` of the ``tokens`` (counted), and ``NUMBERS_MIN`` of
    them, are numbers: whether they count as fully as words (``numbers_weight``)."""
    return numbers_weight(tokens) == 1.0


def _tokens(text: str) -> list[str]:
    """The tokens of ``text`` (case-folded, no ASCII separators): words and numbers of spaced
    scripts, pairs of neighbouring characters of unspaced ones."""
    tokens = _RUN.findall(text)
    for run in _UNSPACED_RUN.findall(text):
        tokens.extend([run] if len(run) == 1 else map(str.__add__, run, run[1:]))  # its pairs
    return tokens


# A text whose tokens are at least this share numbers (a box score, a timetable, a guitar tab, a
# table of prices) is its numbers: the default ``Words`` stage counts them, and pairs them, as it
# does words (v4). Elsewhere they are left out, so that a changed date or counter moves nothing.
# Two box scores of one team had the same words (content distance 0, Jaccard 0.13 with their
# numbers); 0.04% of the installed documentation pages' contents are half numbers or more.
NUMBERS_SHARE = 0.5
# ... and at least this many: a short table of contents whose numbers are its sections' (Racket's
# "15.1 Paths ... 15.10", 20 of 39 tokens) is told by its words, and a mirror's timestamp, five
# numbers in its content, moved it 5 bits. A box score holds 374 numbers, a page of share prices 80.
NUMBERS_MIN = 50
# Below those lines numbers count less, as far as a text stands above these (words v6), where they
# counted in full or not at all: a text just under half numbers had none of them, so two logs of
# one logger, the same lines with other times and order numbers (44% numbers, Jaccard 0.39-0.44),
# were the same words, content within 3, and dropped; and a copy whose added date crossed the
# line was another fingerprint.
NUMBERS_SHARE_FROM = 0.25
NUMBERS_MIN_FROM = 25


def without_numbers(counts: Counter[bytes]) -> Counter[bytes]:
    """``counts`` without the tokens made of digits only (a page's content: a changed date or
    counter would move its fingerprint)."""
    return Counter({t: n for t, n in counts.items() if not t.isdigit()})


def numbers_of(counts: Mapping[bytes, int]) -> Counter[bytes]:
    """The tokens of ``counts`` made of digits only."""
    return Counter({t: n for t, n in counts.items() if t.isdigit()})


def stopword_bytes(stopwords: frozenset[str]) -> frozenset[bytes]:
    """The stopwords as ASCII bytes, to test words from ``word_counts`` against (one with other
    characters can never equal a word and is left out)."""
    return frozenset(w.encode("ascii") for w in stopwords if w.isascii())


def content_words(text: str | bytes, stopwords: frozenset[str]) -> list[str]:
    """The words of ``text`` that are not stopwords."""
    return [w for w in tokenize(text) if w not in stopwords]


def parse_stopwords(data: bytes | str) -> frozenset[str]:
    """Stopwords from a whitespace-separated list (any line ends), lower-cased."""
    if isinstance(data, bytes):
        data = data.decode("latin-1")
    return frozenset(w.lower() for w in data.split())


def load_stopwords(path: str | os.PathLike[str]) -> frozenset[str]:
    """Read a stopword file: one or more words per line, ``\\n`` or ``\\r\\n`` line ends."""
    data = read_text_file(path, what="stopword file", allow_empty=True)
    return parse_stopwords(data)


def read_text_file(path: str | os.PathLike[str], what: str, allow_empty: bool = False) -> bytes:
    """Read a file meant to hold text; refuse missing, unreadable, empty or binary files."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise ContentSeenError(f"{what} {os.fspath(path)!s}: no such file") from None
    except IsADirectoryError:
        raise ContentSeenError(f"{what} {os.fspath(path)!s}: is a directory") from None
    except OSError as exc:
        raise ContentSeenError(f"{what} {os.fspath(path)!s}: cannot read ({exc.strerror})") from None
    if not allow_empty and not data.strip():
        raise ContentSeenError(f"{what} {os.fspath(path)!s}: file is empty")
    if b"\x00" in data:
        raise ContentSeenError(f"{what} {os.fspath(path)!s}: binary data (NUL bytes), not text")
    return data


class Words:
    """The tokenising stage: a page's content text -> the counts of the words (UTF-8 bytes) its
    content fingerprint is made of. The default: tokens of any script, lower-cased, numbers
    left out but in a text made mostly of them, and counted in part in one made of them in part
    (``numbers``). Subclass it (``counts`` and ``name``) and give it as ``Scheme(words=...)`` or
    ``CONTENTSEEN_WORDS = "package.Class"``; ``name`` enters the store's scheme, so stores
    never mix fingerprints of two stages."""

    # v3: combining marks of every script are word characters; v4: numbers count in a text that
    # is mostly numbers (``NUMBERS_SHARE``); v5: a pair weighs as much as a word, not half; v6:
    # numbers count in part in a text between a quarter and half numbers (``numbers_weight``);
    # v7: runs of three neighbouring words are features too (``run_weight``); v8: a token of a
    # script written without spaces weighs as much as a word with its pair and run (``unspaced_weight``)
    name = "any-script/v8"
    # How much a pair of neighbouring words weighs beside a word (see ``sequence``): listings
    # made of one small vocabulary (courses of one catalogue, homes of one town, a logger's lines,
    # a league's fixtures, a tournament's pairings) hold the same words in other orders, and at
    # half a word 34 different pages of the searches' sites were within 3 of others and dropped
    # (Jaccard 0.19-0.48); 5 at a word's weight, 1 at 1.5, which kept more near copies within
    # the trees' own sites apart (README, "Detection quality").
    pair_weight = 1.0
    # How much a run of three neighbouring words weighs beside a word (v7), its words in order
    # too: listings of one vocabulary with their pairs still alike (a catalogue's courses, a town's
    # homes for sale: the pages' least content distance 1 and 3, now 9 and 7), and odoc's class
    # pages, a few method signatures in the same type names (content distance 2-3, Jaccard
    # 0.24-0.37, dropped on a tree held out; now 8-13), are told apart; near copies as before.
    run_weight = 1.0

    def counts(self, text: str, tokens: Mapping[bytes, int]) -> Mapping[bytes, int]:
        """The words of ``text``; ``tokens`` are its tokens of any script, numbers included
        (``token_counts(text)``: the whole-page fingerprint counts them too, so they are made
        once). Numbers are left out but where they are most of the text (``numbers``)."""
        return tokens if self.numbers(tokens) == 1 else without_numbers(tokens)

    def numbers(self, tokens: "Mapping[bytes, int] | HashedTokens") -> float:
        """How much the numbers among a text's ``tokens`` count beside its words
        (``numbers_weight``: 1, they are words, ``counts`` keeps them; between 0 and 1, the
        fingerprint adds them, and their pairs, at that weight); never in a subclass with a
        ``counts`` or ``sequence`` of its own."""
        if not self._default_words():
            return 0.0
        return numbers_weight(tokens)

    def sequence(self, text: str, numbers: bool = False) -> Sequence[bytes]:
        """The words of ``text`` in order, whose pairs of neighbours are features of the content
        fingerprint beside its words, weighing ``pair_weight`` times a word and not counted in
        ``min_words`` (``word_sequence``; v2), and so are its runs of three (``run_weight``;
        v7): two pages of one template that say different things in the same words (octave's
        "Line Series" and "Stair Group": content distance 2 with words alone, a false drop) are
        told apart. A subclass with a ``counts`` of its own gets none (pairs of other words than
        its own would not fit them, and its fingerprints stay as they were) unless it defines
        ``sequence`` too."""
        return word_sequence(text, numbers) if self.ordered() else ()

    def unspaced_weight(self) -> float:
        """How much a token of a script written without spaces between words (a character, a
        pair of characters) weighs beside a word (v8). A word comes with its pair and its run of
        three (``sequence``), a pair of characters alone, its order in it already: it weighs as
        the three do together, summed as SimHash sums them (the root of their squares). A mirror's
        English banner or cookie notice on a Japanese or Khmer page then moves its fingerprint as
        much as on an English page, not three times as much (words v7 weighed its words thrice, the
        page's own text once). 1 where the stage counts or orders words its own way."""
        if not self._default_words():
            return 1.0
        return math.sqrt(1.0 + self.pair_weight**2 + self.run_weight**2)

    def _default_words(self) -> bool:
        """Whether this stage counts and orders words as the default does (a subclass changing
        only its weights, its name)."""
        return type(self).counts is Words.counts and type(self).sequence is Words.sequence

    def ordered(self) -> bool:
        """Whether this stage has its words in order (``sequence``): the default's, or a
        subclass's that keeps its ``counts`` or defines ``sequence`` too."""
        return type(self).counts is Words.counts or type(self).sequence is not Words.sequence

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.name == self.name

    def __hash__(self) -> int:
        return hash((type(self), self.name))


class AsciiWords(Words):
    """The assignment's words (ASCII letter runs, lower-cased), as ``contentseen-report`` counts
    them: the stage with a corpus vocabulary."""

    name = "ascii"

    def counts(self, text: str, tokens: Mapping[bytes, int]) -> Mapping[bytes, int]:
        return word_counts(text)
