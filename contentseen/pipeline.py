"""One page's way from bytes to fingerprint, shared by the middleware and the commands.

``Scheme`` holds the settings that decide a fingerprint; ``Scheme.build()`` loads the files it
names once and returns a ``PageFingerprinter``. Two fingerprints are comparable only when made
under the same ``PageFingerprinter.identity``, which the stores save and check.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Mapping

import numpy as np

from .corpus import read_pages
from .errors import ContentSeenError
from .features import Features, HashedFeatures, Vocabulary
from .hashtable import MAX_BUILTIN_BITS, builtin_hashtable, load_hashtable, table_digest
from .simhash import Fingerprinter
from .text import EXTRACT_MODES, Extract, decode_html, visible_text
from .tokens import BUILTIN_STOPWORDS, load_stopwords, stopword_bytes, tokenize, word_counts

# Bumped whenever text extraction changes what words a page yields: old stores must not mix.
# v2: "main" narrows pages without main/article/[role=main] to their dominant block.
# v3: the narrowing stops at a document's sections (a dominant child with a sibling of the same
#     kind holding text) and drops small, unlike elements at the start and end of the block.
EXTRACTION_VERSION = 3
# How a word's count on a page becomes its weight: raw count, 1 + ln(count), or 1; "auto" is
# "tf" with a corpus vocabulary (the course's scheme, as contentseen-report computes it), else "log".
WEIGHTINGS: tuple[str, ...] = ("auto", "tf", "log", "binary")
# Words whose table row PageFingerprinter remembers (about 100 bytes each).
_ROW_CACHE_SIZE = 1 << 18


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
    weighting: str = "auto"

    def __post_init__(self) -> None:
        if not 1 <= self.bits <= MAX_BUILTIN_BITS:
            raise ContentSeenError(f"CONTENTSEEN_BITS: {self.bits} is out of range 1..{MAX_BUILTIN_BITS}")
        if self.features < 1:
            raise ContentSeenError(f"CONTENTSEEN_FEATURES: {self.features} must be positive")
        if not 0 <= self.distance <= 8:
            raise ContentSeenError(f"CONTENTSEEN_DISTANCE: {self.distance} is out of range 0..8")
        if self.distance >= self.bits:
            raise ContentSeenError(
                f"CONTENTSEEN_DISTANCE: {self.distance} must be below CONTENTSEEN_BITS ({self.bits})"
            )
        if self.extract not in EXTRACT_MODES:
            raise ContentSeenError(f"CONTENTSEEN_EXTRACT: {self.extract!r} is not one of {EXTRACT_MODES}")
        if self.min_words < 0:
            raise ContentSeenError(f"CONTENTSEEN_MIN_WORDS: {self.min_words} must be >= 0")
        if self.weighting not in WEIGHTINGS:
            raise ContentSeenError(f"CONTENTSEEN_WEIGHTING: {self.weighting!r} is not one of {WEIGHTINGS}")

    @property
    def word_weighting(self) -> str:
        """The weighting in force: ``weighting`` with ``auto`` resolved."""
        if self.weighting != "auto":
            return self.weighting
        return "tf" if self.corpus else "log"

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


@dataclass(frozen=True)
class PageFingerprint:
    """A page's fingerprint (None: too few words to fingerprint), with what it was made from."""

    fingerprint: int | None
    words: int
    text_chars: int

    def hex(self, bits: int) -> str | None:
        """The fingerprint as fixed-width hex, or None."""
        return None if self.fingerprint is None else format(self.fingerprint, f"0{(bits + 3) // 4}x")


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


class PageFingerprinter:
    """HTML or text -> words -> fingerprint, under one ``Scheme``."""

    def __init__(self, scheme: Scheme, stopwords: frozenset[str], features: Features, table: Any):
        self.scheme = scheme
        self.stopwords = stopwords
        self.fingerprinter = Fingerprinter(features, table)
        self._stopwords_bytes = stopword_bytes(stopwords)
        # Each word's table row (-1: a stopword), so a word is looked up and hashed once, not
        # on every page; bounded (started afresh when full) as a crawl meets ever more rare words.
        self._rows: dict[bytes, int] = {}
        self.identity: dict[str, str] = {
            "bits": str(scheme.bits),
            "features": features.digest,
            "table": table_digest(table[: features.size]),
            "stopwords": hashlib.blake2b(
                "\n".join(sorted(stopwords)).encode(), digest_size=8
            ).hexdigest(),
            "extract": f"{scheme.extract}/v{EXTRACTION_VERSION}",
            "weighting": scheme.word_weighting,
        }

    def of_counts(self, counts: Mapping[bytes, int], text_chars: int) -> PageFingerprint:
        """Fingerprint of a page given as the count of each of its words (ASCII bytes, stopwords
        included or not); none when it has fewer than ``min_words`` content words (else every
        near-empty page would duplicate every other)."""
        rows = np.fromiter(map(self._rows.get, counts, repeat(-2)), dtype=np.intp, count=len(counts))
        unknown = np.flatnonzero(rows == -2).tolist()  # words this fingerprinter has not met yet
        if unknown:
            rows_of = self._rows
            if len(rows_of) + len(unknown) > _ROW_CACHE_SIZE:
                # A new dict, not clear(): a thread fingerprinting another page keeps its own.
                self._rows = rows_of = {}
            stop, row, words = self._stopwords_bytes, self.fingerprinter.features.row, list(counts)
            for i in unknown:
                w = words[i]
                rows[i] = rows_of[w] = -1 if w in stop else row(w)
        n = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
        content = rows >= 0
        rows, n = rows[content], n[content]
        total = int(n.sum())
        if total < max(self.scheme.min_words, 1):
            return PageFingerprint(None, total, text_chars)
        fingerprint = self.fingerprinter.fingerprint_rows(rows, word_weights(n, self.scheme.word_weighting))
        return PageFingerprint(fingerprint, total, text_chars)

    def of_words(self, words: list[str], text_chars: int) -> PageFingerprint:
        """Fingerprint of a page's words (as ``tokenize`` gives them; any other string is split
        into words as ``tokenize`` would)."""
        return self.of_counts(word_counts(" ".join(words)), text_chars)

    def of_text(self, text: str) -> PageFingerprint:
        """Fingerprint of plain text (``text/plain`` responses, extracted HTML text)."""
        return self.of_counts(word_counts(text), len(text.strip()))

    def of_html(self, html: str) -> PageFingerprint:
        """Fingerprint of a decoded HTML document."""
        return self.of_text(visible_text(html, self.scheme.extract))

    def of_html_bytes(self, body: bytes, content_type: str | None = None) -> PageFingerprint:
        """Fingerprint of an HTML body as downloaded."""
        return self.of_html(decode_html(body, content_type))
