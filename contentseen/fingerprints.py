"""One page's way from bytes to fingerprints, shared by the middleware and the commands.

``Scheme`` holds the settings that decide a fingerprint; ``Scheme.build()`` loads the files it
names once and returns a ``PageFingerprinter``. Two fingerprints are comparable only when made
under the same ``PageFingerprinter.identity``, which the stores save and check.

A page gets two fingerprints: the *content* fingerprint (its main content, under the scheme:
the one the stores index and ``CONTENTSEEN_DISTANCE`` applies to) and the *whole-page*
fingerprint (a 64-bit SimHash of all its visible text, menus included). A page is a duplicate
only when both agree (``same_page``): content extraction picks a block by markup, and on a
markup it misreads (a table of contents narrowed to its site's tagline) unrelated pages got the
same content fingerprint; their whole texts still differ. A page whose content is under half its
visible text needs its whole page closer (``Scheme.page_limit``). A page whose content block is a
*sliver* of its text (``text``) counts its whole text in its content fingerprint too; when the
block still holds a tenth of the text in 20 words or more, the block's own fingerprint is looked
up beside it (``PageFingerprints.alone``). A page with fewer than ``min_words``
content words is fingerprinted *exactly*: both fingerprints are a hash of its whole text
(whitespace collapsed), so only copies of that text match it (soft-404s, empty baskets, login
walls), never another near-empty page.
"""

from __future__ import annotations

import hashlib
import inspect
import math
from dataclasses import dataclass, field, replace
from itertools import repeat
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np
import xxhash

from .corpus import read_pages
from ._native import speedups as _speedups  # None: numpy sums the fingerprints
from .errors import ContentSeenError
from .features import Features, HashedFeatures, Vocabulary
from .projection import MAX_BUILTIN_BITS, builtin_hashtable, load_hashtable, mix64, table_digest
from .simhash import MAX_K, QUANTUM, SimHasher
from .text import EXTRACT_MODES, MINOR_SHARE, Extract, Extractor, PageText, html_and_utf8
from .tokens import (BUILTIN_STOPWORDS, AsciiWords, HashedTokens, Words, hashed_tokens, load_stopwords, numbers_of,
                     stopword_bytes, token_counts, tokenize, unspaced_of, without_numbers, word_counts, word_sequence)

# Bumped whenever text extraction changes what words a page yields: old stores must not mix.
# v2: "main" narrows pages without main/article/[role=main] to their dominant block.
# v3: the narrowing stops at a document's sections (a dominant child with a sibling of the same
#     kind holding text) and drops small, unlike elements at the start and end of the block.
# v4: both the content and the whole text; too deeply nested pages read without a tree.
# v5: a small element at the body's start or end is never the content block.
# v6: ... unless it holds the most text outside links amid other text; a block of less than a
#     fifth of the page's text is a sliver: the content fingerprint counts the whole text too.
# v7: below the body, the narrowing never steps into a child after a sibling holding a heading,
#     nor anywhere into one whose class or id names it a footer or a copyright notice.
# v8: a block reached whose text outside links is all in such children (a layout table around
#     a copyright notice) is stepped back from and weighed out as they are; raw-text elements
#     written self-closed (<iframe .../>, <title/>) are closed where written; text is weighed
#     in UTF-8 bytes, not characters (a Chinese character carries about what a word does);
#     below the body, no step into a child before a sibling holding a heading either.
# v9: a titled block (a heading and more text outside links beside it) is never one of the
#     body's edge elements; the body kept whole is left without the edges it was weighed
#     without, as well as those found by text outside links alone.
# v10: a body declared in another encoding that is valid UTF-8 beyond ASCII is read as UTF-8.
# v11: the marked main content is left without its edge elements, as a narrowed block is.
# v12: each of the body's edge elements is weighed against its text less the edges found before it
#      from the same end.
# v13: several <article> elements, none holding an <h1>, beside the page's own are narrowed as a
#      page marking none: the items of a list, not its content.
# v14: a marked element inside the page's boilerplate is not its main content; of several
#      <article> elements the one holding the page's only <h1> is; one <article> without an <h1>
#      beside the page's is left out, the page narrowed as one marking none, where the element
#      holding the title outweighs it.
# v15: an inline SVG's text is read (not its titles, descriptions and definitions), and a
#      declarative shadow root's content; a dialog (<dialog>, role=dialog) is boilerplate, and an
#      element of class "modal", "popup" or "lightbox" never the content block.
# v16: a formula's MathML is read (not its annotations, what a <mphantom> holds, nor a <semantics>'
#      or <maction>'s children after its first).
# v17: a page longer than text.MAX_HTML_CHARS is cut once its scripts' and style sheets' bodies
#      are left out (its own text after 8 MB of inlined script was never read).
# v18: a lone <article> beside the page's <h1> is a teaser only where the element holding the
#      title holds more than the title (a heading above an article titles it).
# v19: below the body, never step into a child beside two or more siblings of one kind holding
#      text: it is one item of a list (odoc's module members beside the module it includes).
# v20: the lines after the page's <h1> in the element holding only it and them (a "last updated"
#      line under the title, in javadoc's header <div>) are not content.
# v21: a list of links longer than a line (more of its text in links than outside them) is no
#      edge of the marked main content (a blog's list of posts beside its sidebar, in <main>).
EXTRACTION_VERSION = 21
# A sliver page's whole text against its content block in its content fingerprint. Chosen on the
# tuning trees with SQLite's pages (whole text alone: 0 false drops, but 12 of 66 pairs of short
# pages beside a 200-link menu within distance 3; 1: 3 false drops on SQLite; 2: none of either).
SLIVER_WHOLE_WEIGHT = 2.0
# A sliver page whose block holds at least this share of its text is looked up by the block's own
# fingerprint too (``PageFingerprints.alone``; never stored): a mirror's banner and footer around
# a short page (a fifth to a third of its text) make its copy a sliver, whose content fingerprint
# counts the whole text, while the page itself was stored by its block alone. Only a block of
# ALONE_WORDS content words or more: a tagline or a line of notice, the block of many pages of
# links, is no evidence (SQLite's syntax pages, whose block is the site's 5-word motto).
ALONE_SHARE = 0.1
ALONE_WORDS = 20
MAX_FEATURES = 1 << 24  # table rows: 16.8M x 8 bytes a 64-bit word (128 MiB at 64 bits)
MAX_MIN_WORDS = 100_000
# The whole-page fingerprint: 64 bits, hashed features, the built-in table, any-script tokens.
PAGE_BITS = 64
PAGE_FEATURES = 65536
# Default largest distance of two pages' whole-page fingerprints for a drop (see README,
# "Detection quality", for how it was chosen).
PAGE_DISTANCE = 10
# How many times a content word counts in the whole-page fingerprint (see _page_fingerprint).
CONTENT_BOOST = 2
# A page whose content holds less than MINOR_SHARE (text.py) of its visible text is dropped only
# when its whole page is within MINOR_PAGE_RATIO of the page distance (8 of 10): its content fingerprint
# vouches for less than half of what a reader sees, so the rest must agree more closely. Found on
# GHC's base library (Haddock): modules of one maintainer share an info table taken as their
# content (34% and 45% of their text), with whole pages 10 apart (README, "Detection quality").
# Only the page checked is known (the stores keep no share): 0.5, not 0.4, catches both orders.
MINOR_PAGE_RATIO = 0.8
# The whole-page distance within which a page whose content block its host shows on other pages
# too is dropped against a page of its own host (``PageFingerprints.shared``, ``Engine.check``):
# its content fingerprint matches every page of the host showing that block, so the whole page
# alone tells a copy, within a few bits, from another page around the same block (a shop's
# product pages beside its delivery panel were 4-14 apart, J 0.42-0.48). Against another host's
# page (a mirror's copy, whose banner moves its whole page further) the usual limit holds.
SHARED_PAGE_DISTANCE = 2
# How a word's count on a page becomes its weight: raw count, 1 + ln(count), or 1; "auto" is
# "tf" with a corpus vocabulary (the course's scheme, as contentseen-report computes it), else "log".
WEIGHTINGS: tuple[str, ...] = ("auto", "tf", "log", "binary")
# Words whose table row PageFingerprinter remembers (about 100 bytes each).
_ROW_CACHE_SIZE = 1 << 18
# Mixed into a pair's key, so that a pair's row is not a word's.
_PAIR_SALT = np.uint64(0x5EED0F9A125)
# ... and into a run of two words' key, so that a run of three is neither a pair nor a word.
_RUN_SALT = np.uint64(0x3C6EF372FE94F82B)


@dataclass(frozen=True)
class Scheme:
    """What decides a fingerprint (see README, "Settings", for each field's meaning)."""

    bits: int = 64
    features: int = 65536
    distance: int = 3
    stopwords: str | None = None
    hashvalues: str | None = None
    corpus: str | None = None
    extract: Extract = "main"
    min_words: int = 5
    weighting: "str | Weighting" = "auto"
    page_distance: int = PAGE_DISTANCE
    extractor: Extractor | None = field(default=None, compare=False)
    words: Words | None = None  # the tokenising stage; None: AsciiWords with a corpus, else Words

    def __post_init__(self) -> None:
        if not 1 <= self.bits <= MAX_BUILTIN_BITS:
            raise ContentSeenError(f"CONTENTSEEN_BITS: {self.bits} is out of range 1..{MAX_BUILTIN_BITS}")
        if not 1 <= self.features <= MAX_FEATURES:  # the table holds features x bits: a bound on memory
            raise ContentSeenError(f"CONTENTSEEN_FEATURES: {self.features} is out of range 1..{MAX_FEATURES}")
        if not 0 <= self.distance <= MAX_K:
            raise ContentSeenError(f"CONTENTSEEN_DISTANCE: {self.distance} is out of range 0..{MAX_K}")
        if self.distance >= self.bits:
            raise ContentSeenError(
                f"CONTENTSEEN_DISTANCE: {self.distance} must be below CONTENTSEEN_BITS ({self.bits})"
            )
        if self.extract not in EXTRACT_MODES:
            raise ContentSeenError(f"CONTENTSEEN_EXTRACT: {self.extract!r} is not one of {EXTRACT_MODES}")
        if not 0 <= self.min_words <= MAX_MIN_WORDS:
            raise ContentSeenError(f"CONTENTSEEN_MIN_WORDS: {self.min_words} is out of range 0..{MAX_MIN_WORDS}")
        if not isinstance(self.weighting, Weighting) and self.weighting not in WEIGHTINGS:
            raise ContentSeenError(f"CONTENTSEEN_WEIGHTING: {self.weighting!r} is not one of {WEIGHTINGS} "
                                   "(or the class path of a contentseen.fingerprints.Weighting subclass)")
        if self.words is not None and not isinstance(self.words, Words):
            raise ContentSeenError(f"CONTENTSEEN_WORDS: {self.words!r} is not a contentseen.tokens.Words")
        if not 0 <= self.page_distance <= PAGE_BITS:
            raise ContentSeenError(f"CONTENTSEEN_PAGE_DISTANCE: {self.page_distance} is out of range 0..{PAGE_BITS}")

    def page_limit(self, page: PageFingerprints, own_host: bool = False) -> int:
        """The largest whole-page distance at which ``page`` is dropped as a copy:
        ``page_distance``, or ``MINOR_PAGE_RATIO`` of it when its content holds less than
        ``MINOR_SHARE`` of its visible text (64, content alone deciding, stays 64); against a
        page of its ``own_host``, at most ``SHARED_PAGE_DISTANCE`` when its content block its
        host shows on other pages too (``PageFingerprints.shared``, ``Engine.check``)."""
        limit = self.page_distance
        if page.share < MINOR_SHARE and limit < PAGE_BITS:
            limit = int(limit * MINOR_PAGE_RATIO)
        return min(limit, SHARED_PAGE_DISTANCE) if own_host and page.shared else limit

    @property
    def word_weighting(self) -> str:
        """The name of the weighting in force: ``weighting`` with ``auto`` resolved."""
        return self.weigher.name

    @property
    def weigher(self) -> "Weighting":
        """The weighting stage in force."""
        if isinstance(self.weighting, Weighting):
            return self.weighting
        if self.weighting != "auto":
            return Weighting(self.weighting)
        return Weighting("tf" if self.corpus else "log")

    @property
    def word_stage(self) -> Words:
        """The tokenising stage in force."""
        return self.words or (AsciiWords() if self.corpus else Words())

    def build(self) -> "PageFingerprinter":
        """Load stopwords, table and corpus as named, and return the fingerprinter."""
        stopwords = load_stopwords(self.stopwords) if self.stopwords else BUILTIN_STOPWORDS
        features: Features
        if self.corpus:
            pages = read_pages(self.corpus, "CONTENTSEEN_CORPUS file")
            features = Vocabulary.fit((tokenize(p.text) for p in pages), self.features, stopwords)
        else:
            features = HashedFeatures(self.features)
        if self.hashvalues:
            table = load_hashtable(self.hashvalues, self.features, self.bits)
        else:
            table = builtin_hashtable(self.features, self.bits)
        return PageFingerprinter(self, stopwords, features, table)

    @property
    def page_scheme(self) -> bool:
        """Whether the content fingerprint is made as the whole-page one is (then one table
        serves both)."""
        return (self.corpus is None and self.hashvalues is None and self.bits == PAGE_BITS
                and self.features == PAGE_FEATURES)


@dataclass(frozen=True)
class PageFingerprints:
    """A page's fingerprints (None: no visible text), with what they were made from: content
    words, characters of content text, whether they are exact hashes (a short page), and whether
    the content block was a sliver of the page (its whole text counted in the content), and the
    content's share of the page's visible text; ``flat``: its markup was read flat, not parsed
    (``text.PageText.flat``)."""

    fingerprint: int | None
    word_count: int
    text_chars: int
    page: int | None = None
    exact: bool = False
    sliver: bool = False
    share: float = 1.0
    # a sliver page's content fingerprint of its block alone, as a page that is none would have
    # it (``ALONE_SHARE``): looked up, never stored
    alone: int | None = None
    flat: bool = False
    # its content block is on other pages of its host too (``Engine.fingerprint``): against a page
    # of its own host no evidence that two pages are one, which the whole page must give alone
    shared: bool = field(default=False, repr=False)
    # of its text outside its content block (``PageFingerprinter.of_texts(rest=True)``; a narrowed
    # page's, outside the block but inside its own text, ``PageText.own``), for a page whose block
    # may be its host's (``engine.Engine.fingerprint``): stored, compared against its own host's
    # pages once the block is found on others (``engine.Engine.check``)
    rest: int | None = field(default=None, repr=False)

    def hex(self, bits: int) -> str | None:
        """The content fingerprint as fixed-width hex, or None."""
        return None if self.fingerprint is None else format(self.fingerprint, f"0{(bits + 3) // 4}x")


def same_page(a: PageFingerprints, b: PageFingerprints, scheme: "Scheme") -> bool:
    """Whether ``b``, checked after ``a`` was stored, is dropped as its copy, as the stores
    decide it: content fingerprints (or ``b``'s block ``alone`` and ``a``'s) within ``distance``
    and whole-page fingerprints within ``scheme.page_limit(b)`` (the stores find the candidates
    by the content fingerprint and check the page fingerprint of each)."""
    if a.fingerprint is None or b.fingerprint is None:
        return False
    if (a.fingerprint ^ b.fingerprint).bit_count() > scheme.distance and (
            b.alone is None or (a.fingerprint ^ b.alone).bit_count() > scheme.distance):
        return False
    return a.page is None or b.page is None or (a.page ^ b.page).bit_count() <= scheme.page_limit(b)


# 1 + ln(count) for the counts a page's words mostly have, computed once with math.log (the
# weights must not depend on numpy's vectorised log, whose last bit may vary by CPU).
_LOG_WEIGHTS = np.array([0.0] + [1.0 + math.log(c) for c in range(1, 4096)])


def word_weights(counts: np.ndarray, weighting: str) -> np.ndarray:
    """Each distinct word's weight on a page from its count: the count (``tf``), ``1 + ln(count)``
    (``log``: a word repeated all over a long page does not outweigh the rest of it), or 1
    (``binary``)."""
    if weighting == "tf":
        return counts.astype(np.float64)
    if weighting == "log":
        weights = _LOG_WEIGHTS.take(np.minimum(counts, len(_LOG_WEIGHTS) - 1))
        big = counts >= len(_LOG_WEIGHTS)
        if big.any():
            weights[big] = [1.0 + math.log(c) for c in counts[big].tolist()]
        return weights
    return np.ones(len(counts))


@dataclass(frozen=True)
class Weighting:
    """The weighting stage: each distinct word's count on a page -> its weight. The built-in
    ones are named (``tf``, ``log``, ``binary``: ``word_weights``); a subclass with its own
    ``__call__`` and ``name`` is given as ``Scheme(weighting=...)`` or ``CONTENTSEEN_WEIGHTING =
    "package.Class"``, and its name enters the store's scheme."""

    name: str = "log"

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        return word_weights(counts, self.name)


def stage_identity(stage: object, builtin: tuple[type, ...], name: str) -> str:
    """How a stage enters a store's scheme: its name, or for another class its path too."""
    cls = type(stage)
    return name if cls in builtin else f"{cls.__module__}.{cls.__qualname__}:{name}"


class _Rows:
    """Each word's table row (-1: a stopword), so a word is looked up and hashed once, not on
    every page; bounded (started afresh when full) as a crawl meets ever more rare words. A
    stopword's own row is kept too (as ``-3 - row``), for the pairs of neighbouring words."""

    def __init__(self, fingerprinter: SimHasher, stopwords: frozenset[bytes]):
        self.fingerprinter, self.stopwords = fingerprinter, stopwords
        self._rows: dict[bytes, int] = {}
        # For HashedTokens (hashed features only): the stopwords as the hashes their rows are of.
        self.stop_hashes = np.array(sorted({xxhash.xxh64_intdigest(w) for w in stopwords}), dtype=np.uint64)

    def _looked_up(self, words: Sequence[bytes]) -> np.ndarray:
        """The cached value of each word, words not met yet hashed and cached."""
        rows = np.fromiter(map(self._rows.get, words, repeat(-2)), dtype=np.intp, count=len(words))
        unknown = np.flatnonzero(rows == -2).tolist()
        if unknown:
            rows_of = self._rows
            if len(rows_of) + len(unknown) > _ROW_CACHE_SIZE:
                # A new dict, not clear(): a thread fingerprinting another page keeps its own.
                self._rows = rows_of = {}
            stop, row = self.stopwords, self.fingerprinter.features.row
            words = words if isinstance(words, list) else list(words)
            for i in unknown:
                w = words[i]
                rows[i] = rows_of[w] = -3 - row(w) if w in stop else row(w)
        return rows

    def of(self, counts: Mapping[bytes, int] | HashedTokens) -> np.ndarray:
        """The row of each word of ``counts``, in order (-1: a stopword)."""
        if isinstance(counts, HashedTokens):  # the row is the hash modulo the features
            rows = (counts.hashes % np.uint64(self.fingerprinter.features.size)).astype(np.intp)
            stop = self.stop_hashes
            if len(stop):  # (np.isin costs ten times as much)
                at = np.minimum(np.searchsorted(stop, counts.hashes), len(stop) - 1)
                rows[stop[at] == counts.hashes] = -1
            return rows
        return np.maximum(self._looked_up(counts), -1)

    def _neighbour_keys(self, sequence: Sequence[bytes] | np.ndarray) -> np.ndarray:
        """Each pair of neighbouring words of ``sequence`` (words, or their hashes as
        ``HashedTokens.sequence``; a stopword by its own row) as one key, its two words' rows, in
        order (uint64)."""
        size = np.uint64(self.fingerprinter.features.size)
        if isinstance(sequence, np.ndarray):
            rows = sequence % size
        else:
            rows = self._looked_up(sequence)
            rows = np.where(rows <= -3, -3 - rows, rows).astype(np.uint64)
        return rows[:-1] * size + rows[1:]

    def pairs(self, sequence: Sequence[bytes] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The table row of each distinct pair of neighbouring words of ``sequence`` (stopwords
        too: "of the" is a pair; words, or their hashes as ``HashedTokens.sequence``), and how
        often it occurs: the pair's key is its two words' rows, mixed (SplitMix64) into a row, so
        no pair is hashed as a string or cached."""
        keys, counts = np.unique(self._neighbour_keys(sequence), return_counts=True)
        return (mix64(keys ^ _PAIR_SALT) % np.uint64(self.fingerprinter.features.size)).astype(np.intp), counts

    def runs(self, sequence: Sequence[bytes] | np.ndarray) -> np.ndarray:
        """A key for each pair of neighbouring words of ``sequence``, in order (mixed): the pairs
        of neighbours of these keys (``pairs``) are its runs of three words."""
        return mix64(self._neighbour_keys(sequence) ^ _RUN_SALT)


class _Terms(NamedTuple):
    """What a text's content fingerprint is made of (``PageFingerprinter._words``)."""

    counts: Mapping[bytes, int] | HashedTokens
    sequence: Callable[[], Sequence]
    numbers: Mapping[bytes, int] | HashedTokens | None = None  # counting in part
    weight: float = 0.0  # ... this much
    with_numbers: Callable[[], Sequence] | None = None
    unspaced: Mapping[bytes, int] | HashedTokens | None = None  # its tokens of unspaced scripts


def _sequences(terms: _Terms, pair_weight: float, run_weight: float, rows_of: _Rows) -> list[tuple[Sequence, float]]:
    """The sequences whose pairs a fingerprint of ``terms`` adds, each with its pairs' weight: its
    words', and where numbers count in part its words' and its words and numbers', shared by
    that part (a text's pairs change as its numbers come to count, not at once); and the keys of
    each one's pairs (``_Rows.runs``), whose pairs are its runs of three words, weighing
    ``run_weight`` for ``pair_weight``."""
    if terms.numbers is None:
        shares = [(terms.sequence(), 1.0)]
    else:
        shares = [(terms.sequence(), 1 - terms.weight), (terms.with_numbers(), terms.weight)]
    parts = [(sequence, pair_weight * share) for sequence, share in shares if len(sequence) > 1]
    if run_weight:
        parts += [(rows_of.runs(sequence), run_weight * share) for sequence, share in shares if len(sequence) > 2]
    return parts


def _hashed_sequence(text: str) -> np.ndarray:
    """``word_sequence(text, True)`` hashed as ``HashedTokens.sequence``."""
    return np.array([xxhash.xxh64_intdigest(w) for w in word_sequence(text, True)], dtype=np.uint64)


class PageFingerprinter:
    """HTML or text -> content and whole text -> words -> fingerprints, under one ``Scheme``."""

    def __init__(self, scheme: Scheme, stopwords: frozenset[str], features: Features, table: Any):
        self.scheme = scheme
        self.stopwords = stopwords
        self.extractor = scheme.extractor or Extractor(scheme.extract)
        # (an extraction stage of a subclass may override ``texts`` without ``utf8``)
        try:
            self._takes_utf8 = "utf8" in inspect.signature(self.extractor.texts).parameters
        except (TypeError, ValueError):  # no signature to read: as it was written, html alone
            self._takes_utf8 = False
        self.words = scheme.word_stage
        self.weigher = scheme.weigher
        self.fingerprinter = SimHasher(features, table)
        # Pairs are keyed by their words' rows: only hashed features give every word its own.
        self._pairs = isinstance(features, HashedFeatures)
        # Hashed tokens serve the built-in words stage over hashed features (rows are hashes).
        self._scan = self._pairs and type(self.words) is Words
        # ... and are then fingerprinted in one C pass (``_speedups.simhash``) under a built-in
        # weighting: the same fingerprints as numpy's way (their sums are exact either way).
        self._native = (_speedups is not None and self._scan and type(self.weigher) is Weighting
                        and scheme.bits <= 64)
        self._mode = ("tf", "log").index(self.weigher.name) if self.weigher.name in ("tf", "log") else 2
        stop = stopword_bytes(stopwords)
        self._rows = _Rows(self.fingerprinter, stop)
        # (only with pairs of words: the weight makes up for them)
        self._unspaced_weight = self.words.unspaced_weight() if self._pairs else 1.0
        if scheme.page_scheme:
            self._page_rows = self._rows
        else:
            page = SimHasher(HashedFeatures(PAGE_FEATURES), builtin_hashtable(PAGE_FEATURES, PAGE_BITS))
            self._page_rows = _Rows(page, stop)
        self.identity: dict[str, str] = {
            "bits": str(scheme.bits),
            "features": features.digest,
            "table": table_digest(table[: features.size]),
            "stopwords": hashlib.blake2b(
                "\n".join(sorted(stopwords)).encode(), digest_size=8
            ).hexdigest(),
            "extract": f"{scheme.extract}/v{EXTRACTION_VERSION}",
            "weighting": stage_identity(self.weigher, (Weighting,), self.weigher.name),
            "words": stage_identity(self.words, (Words, AsciiWords), self.words.name),
            "page": f"simhash{PAGE_BITS}/{scheme.page_distance}",
        }
        own_stage = type(self.words) not in (Words, AsciiWords)
        if own_stage and self._pairs and self.words.run_weight and self.words.ordered():
            # a stage of one's own with words in order, whose fingerprints words v7's runs of three
            # changed under the same name: its stores of before are told apart
            self.identity["words"] += f"+runs{self.words.run_weight:g}"
        if own_stage and self._unspaced_weight != 1.0:
            # ... and whose tokens of unspaced scripts words v8 weighed more under the same name
            self.identity["words"] += f"+unspaced{self._unspaced_weight:.4g}"
        if type(self.extractor) is not Extractor or self.extractor != Extractor(scheme.extract):
            # Another extraction stage makes other fingerprints: a store must not mix them.
            cls = type(self.extractor)
            self.identity["extractor"] = f"{cls.__module__}.{cls.__qualname__}:{self.extractor!r}"

    def _weighted(self, rows_of: _Rows, counts: Mapping[bytes, int] | HashedTokens) -> tuple[np.ndarray, np.ndarray, int]:
        """Table rows and weights of a page's content words, and how many there are."""
        rows = rows_of.of(counts)
        if isinstance(counts, HashedTokens):
            n = counts.counts
        else:
            n = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
        content = rows >= 0
        rows, n = rows[content], n[content]
        return rows, self.weigher(n), int(n.sum())

    def _simhash(self, rows_of: _Rows, terms: "_Terms", pairs: bool = True,
                 whole: "_Terms | None" = None) -> tuple[int | None, int]:
        """(fingerprint, content words) of a page's ``terms`` (``_words``); None when it has fewer
        than ``min_words`` content words. Beside its words, its numbers at their weight where
        they count in part, and the pairs of neighbouring words of its sequence (``pairs``;
        weighed ``words.pair_weight`` times a word; where numbers count in part, those of its
        words and of its words and numbers, in the same parts) with its runs of three, and its
        tokens of unspaced scripts weighed ``Words.unspaced_weight`` in all, or, for a page whose content
        block is a sliver of it, the terms of its ``whole`` text, these weighing
        ``SLIVER_WHOLE_WEIGHT`` times the block's in all: pages that share only the sliver (a
        site tagline) differ by their whole text, pages that share only their template (a
        short text beside a large menu) by the sliver."""
        pair_weight, run_weight = self.words.pair_weight, self.words.run_weight
        if self._native and whole is None and isinstance(terms.counts, HashedTokens):
            parts = [(terms.counts.hashes, terms.counts.counts, 1.0)]
            if terms.numbers is not None:
                parts.append((terms.numbers.hashes, terms.numbers.counts, terms.weight))
            if pairs:
                if terms.unspaced is not None:
                    parts.append((terms.unspaced.hashes, terms.unspaced.counts, self._unspaced_weight - 1.0))
                parts += [(sequence, None, weight)
                          for sequence, weight in _sequences(terms, pair_weight, run_weight, rows_of)]
            return self._native_simhash(rows_of, parts, max(self.scheme.min_words, 1))
        rows, weights, total = self._weighted(rows_of, terms.counts)
        if total < max(self.scheme.min_words, 1):
            return None, total
        rows, weights = self._with_numbers(rows_of, terms, rows, weights)
        if whole is not None:
            # (the whole text's numbers only where they count in full: a table of contents'
            # section numbers, a third of its tokens, moved a sliver's copy with a date added)
            w_rows, w_weights, _ = self._weighted(rows_of, whole.counts)
            if len(w_weights):
                w_weights = w_weights * (SLIVER_WHOLE_WEIGHT * weights.sum() / w_weights.sum())
            rows, weights = np.concatenate((rows, w_rows)), np.concatenate((weights, w_weights))
        elif pairs and self._pairs:
            if terms.unspaced is not None:
                u_rows, u_weights, _ = self._weighted(rows_of, terms.unspaced)
                rows = np.concatenate((rows, u_rows))
                weights = np.concatenate((weights, (self._unspaced_weight - 1.0) * u_weights))
            for sequence, weight in _sequences(terms, pair_weight, run_weight, rows_of):
                p_rows, p_counts = rows_of.pairs(sequence)
                rows = np.concatenate((rows, p_rows))
                weights = np.concatenate((weights, weight * self.weigher(p_counts)))
        return rows_of.fingerprinter.fingerprint_rows(rows, weights), total

    def _with_numbers(self, rows_of: _Rows, terms: "_Terms", rows: np.ndarray,
                      weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``rows`` and ``weights`` with those of the numbers of ``terms`` that count in part."""
        if terms.numbers is None:
            return rows, weights
        n_rows, n_weights, _ = self._weighted(rows_of, terms.numbers)
        return np.concatenate((rows, n_rows)), np.concatenate((weights, terms.weight * n_weights))

    def _native_simhash(self, rows_of: _Rows, parts: list[tuple], min_total: int) -> tuple[int | None, int]:
        """``_simhash``'s (fingerprint, content words) of the terms ``parts`` (see
        ``_speedups.simhash``), in C."""
        hasher = rows_of.fingerprinter
        return _speedups.simhash(hasher.packed_table, hasher.bits, hasher.features.size, rows_of.stop_hashes,
                                 _LOG_WEIGHTS, self._mode, QUANTUM, min_total, tuple(parts))

    def of_counts(self, counts: Mapping[bytes, int], text_chars: int) -> PageFingerprints:
        """Content fingerprint of a page given as the count of each of its words (bytes,
        stopwords included or not), without a whole-page fingerprint; none when it has fewer
        than ``min_words`` content words."""
        fingerprint, words = self._simhash(self._rows, _Terms(counts, lambda: ()), False)
        return PageFingerprints(fingerprint, words, text_chars)

    def of_words(self, words: list[str], text_chars: int) -> PageFingerprints:
        """Content fingerprint of a page's words (as ``tokenize`` gives them; any other string is
        split into words as ``tokenize`` would)."""
        return self.of_counts(word_counts(" ".join(words)), text_chars)

    def of_texts(self, texts: PageText, content_of: PageFingerprints | None = None,
                 rest: bool = False) -> PageFingerprints:
        """Both fingerprints of a page's extracted text (see the module's docstring). Given
        ``content_of``, the fingerprints of a page with the same content, neither of them a
        sliver nor short (a second look that left out lines beside the content only), its
        content fingerprint is taken as it is and the whole-page fingerprint alone made. With
        ``rest``, a page neither a sliver nor short gets its ``rest`` fingerprint too: its own
        text's tokens (``PageText.own``, else its whole text's) less its content's."""
        content = texts.content
        tokens = self._tokens(content)
        if (content_of is not None and content_of.fingerprint is not None
                and not (texts.sliver or content_of.sliver or content_of.exact)):
            return replace(content_of, page=self._page_fingerprint(self._tokens(texts.whole), tokens), share=texts.share)
        terms = self._words(content, tokens)
        whole_tokens = alone = None
        if texts.sliver:
            whole_tokens = self._tokens(texts.whole)  # counted once: the whole-page fingerprint's too
            fingerprint, n = self._simhash(self._rows, terms, False, self._terms(texts.whole, whole_tokens))
            if fingerprint is not None and texts.share >= ALONE_SHARE and n >= ALONE_WORDS:
                alone = self._simhash(self._rows, terms)[0]
        else:
            fingerprint, n = self._simhash(self._rows, terms)
        if fingerprint is not None:
            if whole_tokens is None:
                whole_tokens = self._tokens(texts.whole)
            outside = None
            if rest and not texts.sliver:
                around = whole_tokens if texts.own is None else self._tokens(texts.own)
                outside = self._page_fingerprint(around, tokens, -1.0)
            return PageFingerprints(fingerprint, n, len(content.strip()), self._page_fingerprint(whole_tokens, tokens),
                                    sliver=texts.sliver, share=texts.share, alone=alone, flat=texts.flat, rest=outside)
        whole = " ".join(texts.whole.split())
        if not whole:
            return PageFingerprints(None, 0, 0, flat=texts.flat)
        exact = xxhash.xxh3_128_intdigest(whole.encode("utf-8", "replace"))
        bits = self.scheme.bits
        return PageFingerprints(exact >> (128 - bits), n, len(whole), exact & (2**PAGE_BITS - 1), exact=True,
                                flat=texts.flat)

    def _tokens(self, text: str) -> Mapping[bytes, int] | HashedTokens:
        """The tokens of ``text``: hashed by the C scan for the default words over hashed
        features (the same fingerprints in half the time), else ``token_counts``."""
        tokens = hashed_tokens(text) if self._scan else None
        return token_counts(text) if tokens is None else tokens

    def _words(self, text: str, tokens: Mapping[bytes, int] | HashedTokens) -> "_Terms":
        """``_terms``, with their tokens of unspaced scripts where these weigh more than a word
        (``Words.unspaced_weight``: with pairs of words, for which they make up)."""
        terms = self._terms(text, tokens)
        if self._unspaced_weight == 1.0 or text.isascii():
            return terms
        return terms._replace(unspaced=unspaced_of(terms.counts))

    def _terms(self, text: str, tokens: Mapping[bytes, int] | HashedTokens) -> "_Terms":
        """The words stage's terms of ``text`` from its ``tokens``: its counts, a maker of its
        words in order, for their pairs (``_simhash``; only the content's are made), and where
        its numbers count in part (``Words.numbers``, words v6) those numbers, how much, and a
        maker of its words and numbers in order; where they count in full, among its words."""
        weight = self.words.numbers(tokens)
        hashed = isinstance(tokens, HashedTokens)
        if weight == 1:  # (only the default stage weighs numbers: its counts are then the tokens)
            if hashed:
                return _Terms(tokens, lambda: _hashed_sequence(text))
            return _Terms(tokens, lambda: self.words.sequence(text, True))
        if hashed:
            counts, words = tokens.without_numbers(), lambda: tokens.sequence
        else:
            # (the default stage's counts without weighing the numbers again)
            default = type(self.words).counts is Words.counts
            counts = without_numbers(tokens) if default else self.words.counts(text, tokens)
            words = lambda: self.words.sequence(text)  # noqa: E731
        if not weight:
            return _Terms(counts, words)
        if hashed:
            return _Terms(counts, words, tokens.numbers(), weight, lambda: _hashed_sequence(text))
        return _Terms(counts, words, numbers_of(tokens), weight, lambda: self.words.sequence(text, True))

    def _page_fingerprint(self, whole: Mapping[bytes, int] | HashedTokens,
                          content: Mapping[bytes, int] | HashedTokens, more: float = CONTENT_BOOST - 1.0) -> int:
        """The whole-page fingerprint: every token of the ``whole`` text (its token counts), those
        of the ``content`` counted ``CONTENT_BOOST`` times more. A banner or notice added around a
        short page's content then moves it less, while a page whose content block is a sliver
        of it (a table of contents narrowed to its site's tagline) is still its whole text. With
        ``more`` -1, the rest fingerprint: the content's tokens taken away (a word of both
        weighs what its count outside the block adds)."""
        rows_of = self._page_rows
        if self._native and isinstance(whole, HashedTokens) and isinstance(content, HashedTokens):
            parts = [(whole.hashes, whole.counts, 1.0), (content.hashes, content.counts, more)]
            return self._native_simhash(rows_of, parts, 0)[0]
        rows, weights, _ = self._weighted(rows_of, whole)
        c_rows, c_weights, _ = self._weighted(rows_of, content)
        return rows_of.fingerprinter.fingerprint_rows(
            np.concatenate((rows, c_rows)), np.concatenate((weights, more * c_weights)))

    def of_text(self, text: str) -> PageFingerprints:
        """Fingerprints of plain text (``text/plain`` responses): the text is the whole page."""
        return self.of_texts(PageText(text, text))

    def of_html(self, html: str) -> PageFingerprints:
        """Fingerprints of a decoded HTML document."""
        return self.of_texts(self.extractor.texts(html))

    def html_texts(self, body: bytes, content_type: str | None = None) -> PageText:
        """The extracted texts of an HTML body as downloaded (``text.decode_html``), its UTF-8
        handed on as it is where the extraction stage takes it."""
        html, utf8 = html_and_utf8(body, content_type)
        return self.extractor.texts(html, utf8) if self._takes_utf8 and utf8 is not None else self.extractor.texts(html)

    def of_html_bytes(self, body: bytes, content_type: str | None = None) -> PageFingerprints:
        """Fingerprints of an HTML body as downloaded."""
        return self.of_texts(self.html_texts(body, content_type))
