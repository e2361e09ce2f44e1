"""The ground truth of a pair: Jaccard similarity of word 3-shingles of the visible text.

The truth is independent of every fingerprint setting: it reads *all* visible text of the page
(``visible_text(html, "body")``), keeps every word (stopwords too), and compares the sets of
three consecutive words. Shingles are hashed to 64 bits (xxh64 of the three words joined by a
space), so a page's shingle set is a sorted ``uint64`` array.
"""

from __future__ import annotations

import numpy as np
import xxhash

from ..text import visible_text
from ..tokens import tokenize

SHINGLE = 3


def shingles(words: list[str], size: int = SHINGLE) -> np.ndarray:
    """Sorted distinct 64-bit hashes of the ``size``-word shingles of ``words``.

    A page shorter than ``size`` words has one shingle: all its words (none: an empty array).
    """
    if not words:
        return np.zeros(0, dtype=np.uint64)
    n = max(len(words) - size + 1, 1)
    h = np.fromiter(
        (xxhash.xxh64_intdigest(" ".join(words[i : i + size]).encode()) for i in range(n)),
        dtype=np.uint64, count=n,
    )
    return np.unique(h)


def html_shingles(html: str) -> np.ndarray:
    """Shingles of all visible text of a decoded HTML page."""
    return shingles(tokenize(visible_text(html, "body")))


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """|A ∩ B| / |A ∪ B| of two sorted shingle arrays; 1.0 when both are empty."""
    if len(a) == 0 and len(b) == 0:
        return 1.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)
