"""Host-level template learning: lines of text seen on many pages of one host.

A mirror adds the same banner, notice, footer or "last updated" line to every page it serves.
Where that line lands inside a short page's content, it moves the content fingerprint past the
distance, and the copy is kept. Extraction cannot tell such a line from content on one page; a
host's pages together can: a line on many of them is the host's template, whatever the markup.

``HostTemplates`` counts, per host, in the content of how many pages each line of text appears
(lines of at least ``MIN_CHARS`` characters, digits and case folded, so "Last updated:
2024-05-01" is one line on every page; only the lines at the content's start and end:
``page_lines``). For a page whose content holds lines seen on at least ``min_pages`` pages of
its host, ``without`` gives the page's texts without them, which the engine fingerprints and
looks up as a second look: never stored, and a drop only when both the content and the
whole-page fingerprints of the page without those lines agree with a stored page. Stored fingerprints never
depend on what was learned, so a store's entries do not depend on crawl order.

Memory is bounded: at most ``hosts`` hosts (the least recently seen forgotten) and ``lines``
counted lines a host (past it, the lines seen on one page only are forgotten first).
"""

from __future__ import annotations

import re
from collections import Counter, OrderedDict

from .text import PageText, content_share, nonblank

MIN_CHARS = 16  # shorter: a label, a heading word, a link's text -- not a notice
MIN_PAGES = 4
MAX_SHARE = 0.5  # of the whole text's characters: more left out is not "a line added"
HOSTS = 256
LINES = 4096
EDGE = 1500  # characters of the content's start and end whose lines are learned
_DIGITS = re.compile(r"[0-9]+")
_LONG = re.compile(rf"\S[^\n]{{{MIN_CHARS - 2},}}\S")  # a line that may count: its text, stripped


def _folded(lines: list[str]) -> list[str]:
    """``lines`` as keyed: digits and case folded, stripped (folded together, in one pass each:
    this runs on every page)."""
    return [line.strip() for line in _DIGITS.sub("0", "\n".join(lines)).casefold().split("\n")]


def _lines(text: str) -> list[str]:
    """Each line of ``text`` as keyed."""
    return _folded(text.split("\n"))


def _keys(text: str) -> frozenset[int]:
    # Only the long lines are folded (most of a page's lines are blank or short). Python's own
    # string hash: a key lives in one process, never stored.
    return frozenset(map(hash, _folded(_LONG.findall(text))))


def page_lines(texts: PageText) -> frozenset[int]:
    """The keys of the lines at the start and the end of a page's content (its first and last
    ``EDGE`` characters, whole lines: where a mirror's banner, notice, footer or "last updated"
    line lands, at a cost that does not grow with the page); none for a page too deep to parse."""
    if texts.flat:
        return frozenset()
    text = texts.content
    if len(text) > 2 * EDGE:
        text = text[:EDGE].rpartition("\n")[0] + "\n" + text[-EDGE:].partition("\n")[2]
    return _keys(text)


def without(texts: PageText, keys: frozenset[int], min_share: float) -> tuple[PageText, int] | None:
    """``texts`` without the lines whose keys are in ``keys``, and how many of the content's
    were left out; None when that leaves out more than ``MAX_SHARE`` of the whole text's
    characters, or all of the content."""

    def kept(text: str) -> tuple[str, int]:
        lines = text.split("\n")
        out = [line for line, key in zip(lines, _lines(text)) if len(key) < MIN_CHARS or hash(key) not in keys]
        return "\n".join(out), len(lines) - len(out)

    content, n = kept(texts.content)
    if not n or not content.strip():
        return None
    whole, _ = kept(texts.whole)
    total = nonblank(texts.whole)
    if total - nonblank(whole) > MAX_SHARE * total:
        return None
    share = content_share(content, whole)
    return PageText(content, whole, sliver=share < min_share, share=share), n


class HostTemplates:
    """Per host, on how many pages each line was seen (bounded: see the module's docstring)."""

    def __init__(self, min_pages: int = MIN_PAGES, hosts: int = HOSTS, lines: int = LINES):
        self.min_pages = min_pages
        self.hosts = hosts
        self.lines = lines
        self._counts: OrderedDict[str, Counter[int]] = OrderedDict()

    def learn(self, host: str, lines: frozenset[int]) -> frozenset[int]:
        """Count a page's content ``lines`` (``page_lines``) on ``host``; return those that are
        the host's template: seen on at least ``min_pages`` pages of it, this one included."""
        counts = self._counts.get(host)
        if counts is None:
            counts = self._counts[host] = Counter()
            if len(self._counts) > self.hosts:
                self._counts.popitem(last=False)
        else:
            self._counts.move_to_end(host)
        counts.update(lines)
        if len(counts) > self.lines:
            self._forget(counts)
        least = self.min_pages
        return frozenset(k for k in lines if counts[k] >= least)

    def _forget(self, counts: Counter[int]) -> None:
        """Forget the rarest lines until a host holds at most three quarters of ``lines``."""
        keep = self.lines * 3 // 4
        for rare in range(1, self.min_pages):
            for key in [k for k, n in counts.items() if n <= rare]:
                del counts[key]
            if len(counts) <= keep:
                return
        for key, _ in counts.most_common()[keep:]:  # all frequent: keep the most frequent
            del counts[key]
