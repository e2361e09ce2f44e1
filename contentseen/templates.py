"""Host-level template learning: lines of text seen on many pages of one host.

A mirror adds the same banner, notice, footer or "last updated" line to every page it serves.
Where that line lands inside a short page's content, it moves the content fingerprint past the
distance, and the copy is kept. Extraction cannot tell such a line from content on one page; a
host's pages together can: a line on many of them is the host's template, whatever the markup.

``HostTemplates`` counts, per host, on how many pages each line of text appears (lines of at
least ``MIN_CHARS`` characters, digits and case folded, so "Last updated: 2024-05-01" is one line
on every page; only the lines at the start and end of the content and of the whole text:
``page_lines``). A line seen on at least ``min_pages`` pages of a host and template on no other
host is that host's own: a line the original site shows on many pages is template on the site
and on its mirror alike, and leaving it out of the mirror's page would only take it further from
the original. For a page holding lines of its host's own template, ``without`` gives its texts
without them, which the engine fingerprints and looks up as a second look: never stored, and a
drop only when both the content and the whole-page fingerprints of the page without those lines
agree with a stored page. Stored fingerprints never depend on what was learned, so a store's
entries do not depend on crawl order.

Memory is bounded: at most ``hosts`` hosts (the least recently seen forgotten) and ``lines``
counted lines a host (past it, the lines seen on one page only are forgotten first).
"""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from dataclasses import replace
from typing import Mapping

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
    long = _LONG.findall(text)
    return frozenset(map(hash, _folded(long))) if long else frozenset()


def page_lines(texts: PageText) -> frozenset[int]:
    """The keys of the lines at the start and the end of a page's content and of its whole text
    (their first and last ``EDGE`` characters, whole lines: where a mirror's banner, notice,
    footer or "last updated" line lands, inside the content or beside it, at a cost that does
    not grow with the page); none for a page too deep to parse."""
    if texts.flat:
        return frozenset()
    return _keys(_edges(texts.content)) | _keys(_edges(texts.whole))


def _edges(text: str) -> str:
    """The first and last ``EDGE`` characters of ``text``, whole lines."""
    if len(text) > 2 * EDGE:
        text = text[:EDGE].rpartition("\n")[0] + "\n" + text[-EDGE:].partition("\n")[2]
    return text


def without(texts: PageText, keys: frozenset[int], min_share: float) -> tuple[PageText, int] | None:
    """``texts`` without the lines whose keys are in ``keys``, and how many lines of the page
    were left out; None when that leaves out none, more than ``MAX_SHARE`` of the whole text's
    characters, or all of the content. The content stays a sliver, or not, by the rule the
    extraction applied: a marked main content never is one."""

    def kept(text: str) -> tuple[str, int]:
        lines = text.split("\n")
        out = [line for line, key in zip(lines, _lines(text)) if len(key) < MIN_CHARS or hash(key) not in keys]
        return "\n".join(out), len(lines) - len(out)

    content, _ = kept(texts.content)
    whole, n = kept(texts.whole)  # the content's lines are the whole text's too
    if not n or not content.strip():
        return None
    total = nonblank(texts.whole)
    if total - nonblank(whole) > MAX_SHARE * total:
        return None
    share = content_share(content, whole)
    return replace(texts, content=content, whole=whole, sliver=texts.narrowed and share < min_share, share=share), n


class HostTemplates:
    """Per host, on how many pages each line was seen (bounded: see the module's docstring)."""

    def __init__(self, min_pages: int = MIN_PAGES, hosts: int = HOSTS, lines: int = LINES):
        self.min_pages = min_pages
        self.hosts = hosts
        self.lines = lines
        self._counts: OrderedDict[str, Counter[int]] = OrderedDict()
        self._hosts_of: Counter[int] = Counter()  # on how many hosts a line is template

    def learn(self, host: str, lines: frozenset[int]) -> frozenset[int]:
        """Count a page's ``lines`` (``page_lines``) on ``host``; return those that are
        the host's own template: seen on at least ``min_pages`` pages of it, this one included,
        and template on no other host. A line template on two hosts is the site's own (its
        mirror shows it too): leaving it out would take the page away from its original."""
        counts = self._counts.get(host)
        if counts is None:
            counts = self._counts[host] = Counter()
            if len(self._counts) > self.hosts:
                self._untemplate(self._counts.popitem(last=False)[1])
        else:
            self._counts.move_to_end(host)
        counts.update(lines)
        least, hosts_of = self.min_pages, self._hosts_of
        for k in lines:
            if counts[k] == least:
                hosts_of[k] += 1
        if len(counts) > self.lines:
            self._forget(counts)
        return frozenset(k for k in lines if counts[k] >= least and hosts_of[k] == 1)

    def _untemplate(self, counts: Mapping[int, int]) -> None:
        """Count the template lines of ``counts`` (lines of a host, forgotten) off ``_hosts_of``."""
        hosts_of = self._hosts_of
        for k, n in counts.items():
            if n >= self.min_pages:
                hosts_of[k] -= 1
                if not hosts_of[k]:
                    del hosts_of[k]

    def _forget(self, counts: Counter[int]) -> None:
        """Forget the rarest lines until a host holds at most three quarters of ``lines``."""
        keep = self.lines * 3 // 4
        for rare in range(1, self.min_pages):
            for key in [k for k, n in counts.items() if n <= rare]:
                del counts[key]
            if len(counts) <= keep:
                return
        frequent = counts.most_common()[keep:]  # all frequent: keep the most frequent
        self._untemplate(dict(frequent))
        for key, _ in frequent:
            del counts[key]
