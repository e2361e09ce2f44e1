"""SimHash fingerprints: weights x ±1 table -> M sign bits, packed into uint64 words.

A fingerprint of M bits is stored as W = ceil(M / 64) uint64 words, most significant first, the
bit string right-aligned: as an integer it equals ``int(bits, 2)`` where ``bits`` is column 0
first -- the assignment's order.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from itertools import chain
from typing import Mapping, Sequence

import numpy as np

from .errors import ContentSeenError
from .features import Features


MAX_BITS = 128  # fingerprint bits
MAX_K = 8  # the largest Hamming distance a store indexes (its tables grow as C(m, m-k))


def n_words(bits: int) -> int:
    """uint64 words needed for a fingerprint of ``bits`` bits."""
    return (bits + 63) // 64


def pack_bits(signs: np.ndarray) -> np.ndarray:
    """Bool array (P, M), column 0 most significant -> uint64 array (P, W)."""
    p, m = signs.shape
    w = n_words(m)
    padded = np.zeros((p, w * 64), dtype=bool)
    padded[:, w * 64 - m :] = signs
    return np.packbits(padded, axis=1).view(">u8").astype(np.uint64)


def to_int(words: np.ndarray) -> int:
    """One fingerprint's uint64 words -> Python int."""
    value = 0
    for word in np.asarray(words, dtype=np.uint64).reshape(-1):
        value = (value << 64) | int(word)
    return value


def from_int(value: int, bits: int) -> np.ndarray:
    """Python int -> uint64 words of a ``bits``-bit fingerprint."""
    w = n_words(bits)
    return np.array([(value >> (64 * (w - 1 - i))) & 0xFFFFFFFFFFFFFFFF for i in range(w)], dtype=np.uint64)


def hamming(a: int, b: int) -> int:
    """Hamming distance of two integer fingerprints."""
    return (a ^ b).bit_count()


def hamming_many(fps: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Distances from ``query`` (W,) to every row of ``fps`` (P, W), by XOR and popcount."""
    return np.bitwise_count(fps ^ query).sum(axis=1, dtype=np.int64)


# Weights are multiples of 2**-24 (a relative change below 1e-7 of a word's): sums of up to 2**29
# in weight are then exact in float64, and in the C speedups' int64 sums.
QUANTUM = float(1 << 24)


class SimHasher:
    """Turns content words into M-bit SimHash fingerprints with a features scheme and a table."""

    def __init__(self, features: Features, table: np.ndarray):
        if table.ndim != 2 or table.shape[0] < features.size:
            raise ContentSeenError(
                f"hash table has {table.shape[0]} rows, the features need {features.size}"
            )
        rows = table[: features.size]
        if not ((rows == 1) | (rows == -1)).all():
            raise ContentSeenError("hash table: every entry must be +1 or -1")
        self.features = features
        self.bits = int(table.shape[1])
        # Held as int8 (the entries are ±1): 8 times smaller than float64, so the rows a page
        # gathers stay in the CPU caches between pages (as float64, the 32 MiB default table
        # was evicted by each page's HTML parse). A page's rows become float64 before its one
        # BLAS product, which sums exactly (integers below 2**53). One extra zero row is where
        # words that are no feature add.
        self._table = np.zeros((features.size + 1, self.bits), dtype=np.int8)
        self._table[: features.size] = table[: features.size]

    @cached_property
    def packed_table(self) -> np.ndarray:
        """The table's rows as bits (1: +1), ``ceil(bits / 8)`` bytes a row, column ``8b + m``
        in bit m of byte b: what the C speedups read (a row is a cache line's eighth)."""
        return np.packbits(self._table[:-1] > 0, axis=1, bitorder="little")

    @property
    def words(self) -> int:
        """uint64 words per fingerprint."""
        return n_words(self.bits)

    def _rows_and_weights(self, page: Sequence[str] | Mapping[str, int]) -> tuple[np.ndarray, np.ndarray]:
        counts = page if isinstance(page, Mapping) else Counter(page)
        weights = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        return self.features.ids(list(counts)), weights

    def _sums(self, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
        return weights @ self._table.take(rows, axis=0).astype(np.float64)

    def sums(self, page: Sequence[str] | Mapping[str, int]) -> np.ndarray:
        """The M signed weight sums of one page, given as its words or its word counts."""
        return self._sums(*self._rows_and_weights(page))

    def fingerprint(self, page: Sequence[str] | Mapping[str, int]) -> int:
        """Fingerprint of one page (its words or word counts), as an int."""
        return self.fingerprint_rows(*self._rows_and_weights(page))

    def fingerprint_rows(self, rows: np.ndarray, weights: np.ndarray) -> int:
        """Fingerprint of one page given as the table row and the weight of each distinct word
        (row ``features.size`` for a word that is no feature), as an int. The weights are rounded
        to multiples of ``1 / QUANTUM``, so that their sums are exact, whatever order BLAS (or the
        C speedups) add them in: a bit at a tie is the same on every machine."""
        signs = self._sums(rows, np.rint(weights * QUANTUM) * (1 / QUANTUM)) > 0
        # packbits pads the last byte on the right; shifting the padding out right-aligns the bits
        return int.from_bytes(np.packbits(signs).tobytes(), "big") >> (-self.bits % 8)

    def fingerprint_many(self, pages: Sequence[Sequence[str] | Mapping[str, int]]) -> np.ndarray:
        """Fingerprints of many pages -> uint64 array (P, W)."""
        if any(isinstance(page, Mapping) for page in pages):
            signs = np.zeros((len(pages), self.bits), dtype=bool)
            for i, page in enumerate(pages):
                signs[i] = self.sums(page) > 0
            return pack_bits(signs)
        # Word lists: one features.ids call for all words, then counting in numpy.
        ids = self.features.ids(list(chain.from_iterable(pages)))
        return self.fingerprint_rows_many(ids, [len(page) for page in pages])

    def fingerprint_rows_many(self, ids: np.ndarray, lengths: Sequence[int]) -> np.ndarray:
        """Fingerprints of pages given as the feature rows of all their words, page after page
        (``lengths[i]`` words for page i; row ``features.size`` for a word that is no feature)
        -> uint64 array (P, W). Equal to ``fingerprint_many`` of the word lists."""
        p, size = len(lengths), self.features.size
        sums = np.zeros((p, self.bits), dtype=np.float64)
        if not p:
            return pack_bits(sums > 0)
        # Distinct (page, row) pairs with their counts, in page order; non-features dropped.
        key_type = np.int32 if p * (size + 1) < 1 << 31 else np.int64
        ids = np.asarray(ids)
        keys = np.repeat(np.arange(p, dtype=key_type) * (size + 1), lengths) + ids.astype(key_type)
        keys, counts = np.unique(keys[ids != size], return_counts=True)
        page, rows = np.divmod(keys, size + 1)
        bounds = np.searchsorted(page, np.arange(p + 1)).tolist()
        weights = counts.astype(np.float64)
        # Per page, as in ``sums``: counts x the float64 table rows of its features (exact).
        for i in range(p):
            lo, hi = bounds[i], bounds[i + 1]
            if lo < hi:
                np.matmul(weights[lo:hi], self._table.take(rows[lo:hi], axis=0).astype(np.float64), out=sums[i])
        return pack_bits(sums > 0)
