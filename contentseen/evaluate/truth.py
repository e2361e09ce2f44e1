"""The ground truth of a pair: Jaccard similarity of word 3-shingles of the visible text.

The truth is independent of every fingerprint setting, and of the extraction it judges: it reads
*all* visible text of the page as lxml's HTML parser does (libxml2, the parser behind a Scrapy
spider's selectors; never lexbor, which extraction uses), keeps every word of any script
(stopwords too; each character of scripts written without spaces; numbers left out, as a
source listing's line numbers would set two listings of one file apart), and compares the sets
of three consecutive words. A truth made by the extraction's own parser shared its blind spots: on
a site whose menu held an ``<iframe .../>``, lexbor read every page as its menu alone, and
the truth called all of them copies of each other. Shingles are hashed to 64 bits (xxh64 of the
three words joined by a space), so a page's shingle set is a sorted ``uint64`` array.
"""

from __future__ import annotations

import re

import lxml.etree
import lxml.html
import numpy as np
import xxhash

from ..marks import MARKS
from ..tokens import UNSPACED

# Elements whose text no reader sees: a list of the truth's own, as ``markup.INVISIBLE_NAMES`` is the
# extraction's, so that a choice of the extraction's is never the truth's too.
# An inline SVG's text (a chart's labels), a formula's MathML and a declarative shadow root's are
# seen; an SVG's titles, a formula's annotations (its TeX source), what a <mphantom> holds and the
# children of a <semantics> or <maction> after its first are not.
_UNSEEN = ("script", "style", "noscript", "template", "head", "iframe", "object", "embed", "canvas",
           "select", "desc", "metadata", "defs", "symbol")
_MATH_UNSEEN = ("annotation", "annotation-xml", "mphantom")
_SHADOW_ROOT = ("shadowrootmode", "shadowroot")
# A character of a script written without spaces, or a run of letters, digits and combining
# marks of any other (Thaana's vowels, Hindi's vowel signs are marks).
_WORD = re.compile(f"[{UNSPACED}]|(?:[^\\W_{UNSPACED}]|[{MARKS}])+")

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


def visible_words(html: str) -> list[str]:
    """Every visible word of a decoded HTML page, case-folded, in order, numbers left out (see
    the module's docstring); none for a page lxml cannot read."""
    try:
        root = lxml.html.document_fromstring(html.encode("utf-8", "replace"),
                                             parser=lxml.html.HTMLParser(encoding="utf-8"))
    except (lxml.etree.ParserError, ValueError):  # empty, or nothing but a comment
        return []
    for template in root.iter("template"):
        if any(a in template.attrib for a in _SHADOW_ROOT):
            template.tag = "div"
    for svg in root.iter("svg"):
        lxml.etree.strip_elements(svg, "title", with_tail=False)
    for formula in root.iter("math"):
        for shown_first in formula.iter("semantics", "maction"):
            for later in [child for child in shown_first if isinstance(child.tag, str)][1:]:
                later.tag = "annotation"  # left out below, as the others
        lxml.etree.strip_elements(formula, *_MATH_UNSEEN, with_tail=False)
    lxml.etree.strip_elements(root, *_UNSEEN, lxml.etree.Comment, lxml.etree.ProcessingInstruction,
                              with_tail=False)
    return [w for w in _WORD.findall(" ".join(root.itertext()).casefold()) if not w.isdigit()]


def html_shingles(html: str) -> np.ndarray:
    """Shingles of all visible text of a decoded HTML page."""
    return shingles(visible_words(html))


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """|A ∩ B| / |A ∪ B| of two sorted shingle arrays; 1.0 when both are empty."""
    if len(a) == 0 and len(b) == 0:
        return 1.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)
