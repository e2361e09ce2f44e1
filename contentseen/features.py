"""Features: which table row a word adds to.

Two schemes share one interface (``size`` rows, ``ids(words)`` -> row numbers, ``digest``):

* :class:`Vocabulary` -- the N most frequent words of a corpus (the assignment's scheme); words
  outside it contribute nothing.
* :class:`HashedFeatures` -- every word maps to row ``xxh64(word) % N``, so no corpus is needed.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from itertools import chain, repeat
from typing import Iterable, Protocol, Sequence

import numpy as np
import xxhash

from .errors import ContentSeenError
from .tokens import stopword_bytes

_VOCAB_HEADER = "# contentseen vocabulary v1"


class Features(Protocol):
    size: int

    def ids(self, words: Sequence[str]) -> np.ndarray:
        """Row of each word; ``size`` for a word that is no feature."""

    def row(self, word: bytes) -> int:
        """Row of one word given as ASCII bytes; ``size`` when it is no feature."""

    @property
    def digest(self) -> str:
        """Stable short digest of the scheme."""


class Vocabulary:
    """An ordered list of feature words; word i adds to table row i."""

    def __init__(self, words: Sequence[str]):
        self.words: list[str] = list(words)
        self.index: dict[str, int] = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise ContentSeenError("vocabulary: words must be distinct")
        self.size = len(self.words)

    @classmethod
    def fit(
        cls, pages: Iterable[Iterable[str]], n: int, stopwords: frozenset[str] = frozenset()
    ) -> "Vocabulary":
        """Top ``n`` non-stopwords over all ``pages``: see ``from_counts``."""
        counts = Counter(w.encode("ascii") for w in chain.from_iterable(pages))
        return cls.from_counts(list(counts), np.fromiter(counts.values(), np.int64, len(counts)), n, stopwords)[0]

    @classmethod
    def from_counts(
        cls, distinct: Sequence[bytes], counts: np.ndarray, n: int, stopwords: frozenset[str] = frozenset()
    ) -> tuple["Vocabulary", np.ndarray]:
        """The top ``n`` of the ``distinct`` words (ASCII bytes) that are no stopword, by count
        (``counts[i]`` for ``distinct[i]``) descending, ties in byte order; and the index in
        ``distinct`` of each of its words.

        Stopwords are dropped from the ranking, not from the pages: the vocabulary never holds
        one, so a page's stopwords fall on the zero row whether or not they were filtered.
        """
        stop = stopword_bytes(stopwords)
        cand = np.flatnonzero(np.fromiter((w not in stop for w in distinct), bool, len(distinct)))
        byte_rank = np.empty(len(distinct), dtype=np.intp)
        byte_rank[sorted(range(len(distinct)), key=distinct.__getitem__)] = np.arange(len(distinct))
        top = cand[np.lexsort((byte_rank[cand], -np.asarray(counts)[cand]))[:n]]
        return cls([distinct[i].decode("ascii") for i in top]), top

    def ids(self, words: Sequence[str]) -> np.ndarray:
        return np.fromiter(
            map(self.index.get, words, repeat(self.size)), dtype=np.intp, count=len(words)
        )

    def row(self, word: bytes) -> int:
        return self.index.get(word.decode("ascii"), self.size)

    @property
    def digest(self) -> str:
        return "v:" + hashlib.blake2b("\n".join(self.words).encode(), digest_size=8).hexdigest()

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write one word per line after a header line."""
        with open(path, "w", encoding="ascii") as fh:
            fh.write(_VOCAB_HEADER + "\n")
            fh.writelines(w + "\n" for w in self.words)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Vocabulary":
        try:
            with open(path, encoding="ascii") as fh:
                lines = fh.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ContentSeenError(f"vocabulary {os.fspath(path)}: cannot read ({exc})") from None
        if not lines or lines[0] != _VOCAB_HEADER:
            raise ContentSeenError(f"vocabulary {os.fspath(path)}: not a contentseen vocabulary file")
        return cls(lines[1:])


class HashedFeatures:
    """Every word is a feature: it adds to row ``xxh64(ascii bytes of word, seed 0) % size``."""

    def __init__(self, size: int):
        if size < 1:
            raise ContentSeenError(f"features: {size} must be a positive integer")
        self.size = size

    def ids(self, words: Sequence[str]) -> np.ndarray:
        return np.fromiter((self.row(w.encode()) for w in words), dtype=np.intp, count=len(words))

    def row(self, word: bytes) -> int:
        return xxhash.xxh64_intdigest(word) % self.size

    @property
    def digest(self) -> str:
        return f"h:xxh64%{self.size}"
