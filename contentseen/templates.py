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

The same counts tell the engine when a page's content block is no page's own: when every line
at the start and end of a block the narrowing chose (or of a marked one that may be its host's:
``engine.shareable``) is on another page of its host too (``shared``: a shop's delivery panel,
larger than each product's description, taken for the content of every product page), its content fingerprint matches every page of the host showing
that block, and the engine drops it against a page of its own host only when their whole pages
agree within a few bits (``fingerprints.SHARED_PAGE_DISTANCE``); no fingerprint depends on it
either.

A second look drops a page only against another host's page; on a crawl of one site, whose own
menus and footers are its template, it would cost about one more fingerprinting of most pages and
find nothing. So a host gets second looks once one of its pages matched another host's page
(``HostTemplates.copies``), and before that only its first ``TRIAL`` ones, which find the copies
of a mirror none of whose pages match as they are (``HostTemplates.looking``).

Memory is bounded: at most ``hosts`` hosts (the least recently seen forgotten) and ``lines``
counted lines a host (past it, the lines seen on one page only are forgotten first).
"""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from dataclasses import replace
from typing import Mapping

import xxhash

from ._native import speedups as _speedups  # None: lines are found and folded by re
from .text import PageText, nonblank

MIN_CHARS = 16  # shorter: a label, a heading word, a link's text -- not a notice
MIN_PAGES = 4
SHARED_PAGES = 2  # a content block on this many pages of a host is no page's own (``shared``)
MAX_SHARE = 0.5  # of the whole text's characters: more left out is not "a line added"
HOSTS = 256
LINES = 4096
EDGE = 1500  # characters of the content's start and end whose lines are learned
# A second look only where the lines left out hold this share of the content's or of the whole
# text's characters: less moves no fingerprint past its distance, and a second look costs about
# a fingerprinting. Chosen on the tuning trees (README, "Host templates"): 0 gives second looks
# to nearly every page (a site's own menu lines are its template too), 0.05 lost near copies.
MIN_LEFT_OUT = 0.02
TRIAL = 8  # second looks a host gets before one of its pages matched another host's (``looking``)
_DIGITS = re.compile(r"[0-9]+")
_LONG = re.compile(rf"\S[^\n]{{{MIN_CHARS - 2},}}\S")  # a line that may count: its text, stripped


def _folded(lines: list[str]) -> list[str]:
    """``lines`` as keyed: digits and case folded, stripped (folded together, in one pass each:
    this runs on every page)."""
    return [line.strip() for line in _DIGITS.sub("0", "\n".join(lines)).casefold().split("\n")]


def _key(folded: str) -> int:
    """A folded line's key: the xxh64 of its UTF-8, as the C speedups key the lines they fold."""
    return xxhash.xxh64_intdigest(folded.encode("utf-8", "surrogatepass"))


def _keys(text: str) -> frozenset[int]:
    # Only the long lines are folded (most of a page's lines are blank or short); a line kept
    # long once folded, as ``_kept`` reads it ("Build 1234567890" folds to "build 0": never
    # left out, so never learned). In C the lines of characters below U+0100 are found, folded and
    # keyed at once; the others come back to be folded here.
    if _speedups is not None:
        keys, long = _speedups.line_keys(text, MIN_CHARS)
    else:
        keys, long = [], _LONG.findall(text)
    if long:
        keys += [_key(k) for k in _folded(long) if len(k) >= MIN_CHARS]
    return frozenset(keys)


def page_lines(texts: PageText) -> frozenset[int]:
    """The keys of the lines at the start and the end of a page's content and of its whole text
    (their first and last ``EDGE`` characters, whole lines: where a mirror's banner, notice,
    footer or "last updated" line lands, inside the content or beside it, at a cost that does
    not grow with the page); none for a page too deep to parse."""
    return content_lines(texts) | whole_lines(texts)


def content_lines(texts: PageText) -> frozenset[int]:
    """``page_lines``' keys of the content's lines."""
    return frozenset() if texts.flat else _keys(_edges(texts.content))


def whole_lines(texts: PageText) -> frozenset[int]:
    """``page_lines``' keys of the whole text's lines."""
    return frozenset() if texts.flat else _keys(_edges(texts.whole))


def _edges(text: str) -> str:
    """The first and last ``EDGE`` characters of ``text``, whole lines."""
    head, _, tail = _split(text)
    return text if head is None else head + "\n" + tail


def _split(text: str) -> tuple[str | None, str, str]:
    """``text`` as (its first ``EDGE`` characters' whole lines, the rest up to the last ``EDGE``
    characters' whole lines, those), joined back by ``head + middle + tail``; (None, text, "")
    for a text of at most ``2 * EDGE`` characters, all edge."""
    if len(text) <= 2 * EDGE:
        return None, text, ""
    h = max(text.rfind("\n", 0, EDGE), 0)
    t = text.find("\n", len(text) - EDGE)
    t = len(text) if t < 0 else t + 1
    return text[:h], text[h:t], text[t:]


def _kept(text: str, keys: frozenset[int], also: frozenset[str] = frozenset()) -> tuple[str, int, int, frozenset[str]]:
    """``text`` without its edge lines (``_split``) whose keys are in ``keys``, nor any other line
    that is one of those or in ``also`` (stripped texts); the non-blank characters and the lines
    left out, and the stripped texts of the edge lines left out. Only the edges are keyed: a line
    is learned there, and a line of the middle leaves only as the copy of one that left."""
    head, middle, tail = _split(text)
    out, chars, lines, gone = [], 0, 0, set()
    for part in ([middle] if head is None else [head, tail]):
        rows = part.split("\n")
        # Only a line of MIN_CHARS characters or more can be a key (``_keys``): only those folded.
        long = [i for i, line in enumerate(rows) if len(line) >= MIN_CHARS]
        left = [i for i, key in zip(long, _folded([rows[i] for i in long]))
                if len(key) >= MIN_CHARS and _key(key) in keys]
        for i in left:
            chars += nonblank(rows[i])
            gone.add(rows[i].strip())
        lines += len(left)
        if left:
            dropped = set(left)
            rows = [line for i, line in enumerate(rows) if i not in dropped]
        out.append("\n".join(rows))
    if head is None:
        return out[0], chars, lines, frozenset(gone)
    pieces, at = [], 0
    for start, end in sorted(_whole_lines(middle, gone | also)):
        chars += nonblank(middle[start:end])
        lines += 1
        pieces.append(middle[at:start])
        at = end
    pieces.append(middle[at:])
    return out[0] + "".join(pieces) + out[1], chars, lines, frozenset(gone)


def _whole_lines(text: str, lines: frozenset[str]) -> list[tuple[int, int]]:
    """The spans of the lines of ``text`` that are one of ``lines`` (stripped texts), each with
    its line end. ``str.find`` over the text, at C speed: a page holds few such lines."""
    spans = []
    for line in lines:
        at = text.find(line)
        while at >= 0:
            start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at + len(line))
            end = len(text) if end < 0 else end + 1
            if text[start:at].isspace() or start == at:
                if text[at + len(line):end].isspace() or at + len(line) == end:
                    spans.append((start, end))
            at = text.find(line, max(end, at + 1))
    return spans


def without(texts: PageText, keys: frozenset[int], min_share: float) -> tuple[PageText, int] | None:
    """``texts`` without the lines at their edges whose keys are in ``keys`` and the copies of
    those lines elsewhere in the page (a line left out of the content leaves the whole text too,
    however deep in it the content lies), and how many lines of the page were left out; None
    when that leaves out none, less than ``MIN_LEFT_OUT`` of the content's and of the whole
    text's characters (too little to have moved a fingerprint past its distance: not worth
    another fingerprinting), more than ``MAX_SHARE`` of the whole text's, or all of the content.
    The content stays a sliver, or not, by the rule the extraction applied: a marked main content
    never is one."""
    if not keys:
        return None
    content, c_left, _, gone = _kept(texts.content, keys)
    whole, w_left, n, _ = _kept(texts.whole, keys, gone)  # the content's lines are the whole text's too
    if not n:
        return None
    w_total, c_total = nonblank(texts.whole), nonblank(texts.content)
    if c_left >= c_total or w_left > MAX_SHARE * w_total:
        return None
    if c_left < MIN_LEFT_OUT * c_total and w_left < MIN_LEFT_OUT * w_total:
        return None
    share = (c_total - c_left) / (w_total - w_left) if w_total > w_left else 1.0
    return replace(texts, content=content, whole=whole, sliver=texts.narrowed and share < min_share, share=share), n


class HostTemplates:
    """Per host, on how many pages each line was seen (bounded: see the module's docstring)."""

    def __init__(self, min_pages: int = MIN_PAGES, hosts: int = HOSTS, lines: int = LINES):
        if min(min_pages, hosts, lines) < 1:
            raise ValueError(f"HostTemplates: min_pages, hosts and lines must be at least 1, not "
                             f"{min_pages}, {hosts}, {lines}")
        self.min_pages = min_pages
        self.hosts = hosts
        self.lines = lines
        self._counts: OrderedDict[str, Counter[int]] = OrderedDict()
        self._hosts_of: Counter[int] = Counter()  # on how many hosts a line is template
        self._copying: set[str] = set()  # hosts a page of which matched another host's page
        self._tried: Counter[str] = Counter()  # second looks made on a host not known to copy

    def learn(self, host: str, lines: frozenset[int]) -> frozenset[int]:
        """Count a page's ``lines`` (``page_lines``) on ``host``; return those that are
        the host's own template: seen on at least ``min_pages`` pages of it, this one included,
        and template on no other host. A line template on two hosts is the site's own (its
        mirror shows it too): leaving it out would take the page away from its original."""
        counts = self._counts.get(host)
        if counts is None:
            counts = self._counts[host] = Counter()
            if len(self._counts) > self.hosts:
                gone, old = self._counts.popitem(last=False)
                self._untemplate(old)
                self._copying.discard(gone)
                self._tried.pop(gone, None)
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

    def shared(self, host: str, lines: frozenset[int]) -> bool:
        """Whether ``lines`` (a page's ``content_lines``, counted by ``learn``) are all on
        another page of ``host`` too: a block of text the host shows on many pages (a shop's
        delivery panel beside each product's description), whichever page it was taken from."""
        counts = self._counts.get(host)
        return bool(lines) and counts is not None and all(counts[k] >= SHARED_PAGES for k in lines)

    def copies(self, host: str) -> None:
        """Note that a page of ``host`` matched a page of another host: ``host`` serves copies."""
        if host in self._counts:
            self._copying.add(host)
            self._tried.pop(host, None)

    def copying(self, host: str) -> bool:
        """Whether a page of ``host`` matched another host's page since it was last forgotten."""
        return host in self._copying

    def looking(self, host: str) -> bool:
        """Whether a page of ``host`` gets a second look: once one of its pages matched another
        host's page (``copies``), and for its first ``TRIAL`` second looks (``looked``) before
        that, which find the copies of a mirror none of whose pages match as they are. A second
        look drops only against another host's page: on a crawl of one site, where a site's own
        menus and footers are its template, they could meet nothing, and would cost about one
        more fingerprinting of most pages."""
        return host in self._copying or self._tried[host] < TRIAL

    def looked(self, host: str) -> None:
        """Note a second look made on ``host``."""
        if host in self._counts and host not in self._copying:
            self._tried[host] += 1

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
