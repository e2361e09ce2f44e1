"""The assignment's offline report: for each sample page, the article pages within a distance.

Format (per sample, in sample order): the sample ID line, then for d = 0..distance a line
``d:ID ID ... `` -- every ID followed by one space, in article order -- only where some article
page is at exactly distance d.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import count
from typing import Sequence

import numpy as np

from .corpus import Page
from .features import Vocabulary
from .simhash import SimHasher, hamming_many
from .tokens import _word_bytes, tokenize


@dataclass(frozen=True)
class ReportInput:
    article: Sequence[Page]
    sample: Sequence[Page]
    stopwords: frozenset[str]
    table: np.ndarray  # N x M, ±1


def matches_by_distance(article_fps: np.ndarray, query: np.ndarray, distance: int) -> list[np.ndarray]:
    """Indices of article rows at each distance 0..distance from ``query``, in article order."""
    d = hamming_many(article_fps, query)
    return [np.flatnonzero(d == k) for k in range(distance + 1)]


def format_block(sample_id: str, article_ids: Sequence[str], matches: Sequence[np.ndarray]) -> str:
    """One sample's block of ``result.txt``."""
    lines = [sample_id + "\n"]
    for k, idx in enumerate(matches):
        if len(idx):
            lines.append(f"{k}:" + "".join(article_ids[i] + " " for i in idx) + "\n")
    return "".join(lines)


def _article_features(
    article: Sequence[Page], n: int, stopwords: frozenset[str]
) -> tuple[Vocabulary, np.ndarray, list[int]]:
    """``Vocabulary.fit`` of the article pages' words, the vocabulary row of every word of every
    page (``vocab.size`` for a word outside it), and the number of words of each page.

    One pass over the words: page by page, each distinct word is numbered on first sight, so no
    page's word list outlives its page; counts and rows are numpy operations on the numbers, and
    the ranking is ``Vocabulary.from_counts``, as in ``Vocabulary.fit``.
    """
    numbering: defaultdict[bytes, int] = defaultdict(count().__next__)
    number = numbering.__getitem__
    pages = [np.fromiter(map(number, _word_bytes(p.text)), np.intp) for p in article]
    lengths = [len(a) for a in pages]
    uid = np.concatenate(pages) if pages else np.zeros(0, np.intp)
    distinct = list(numbering)
    counts = np.bincount(uid, minlength=len(distinct))
    vocab, top = Vocabulary.from_counts(distinct, counts, n, stopwords)
    row = np.full(len(distinct), vocab.size, dtype=np.intp)
    row[top] = np.arange(vocab.size)
    return vocab, row[uid], lengths


def build_report(data: ReportInput, distance: int = 3) -> list[str]:
    """The report's blocks, one per sample page."""
    # Stopwords are left in the pages: the vocabulary holds none, so they weigh nothing.
    vocab, article_rows, lengths = _article_features(data.article, data.table.shape[0], data.stopwords)
    fp = SimHasher(vocab, data.table)
    article_fps = fp.fingerprint_rows_many(article_rows, lengths)
    sample_fps = fp.fingerprint_many([tokenize(p.text) for p in data.sample])
    ids = [p.id for p in data.article]
    return [
        format_block(page.id, ids, matches_by_distance(article_fps, q, distance))
        for page, q in zip(data.sample, sample_fps)
    ]
