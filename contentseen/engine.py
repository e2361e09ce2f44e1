"""One page's fate: a downloaded page (URL, status, Content-Type, body) in, a ``Decision`` out.

The Scrapy middleware and the commands are shells over ``Engine``: it fingerprints the page
(``fingerprints``), asks the store, and says what happened and why. It never raises for a page: a
page that cannot be fingerprinted (any exception from decoding to fingerprinting) is skipped
with the reason, so it goes on unchecked rather than being lost; a store failure is reported as
such, for the caller's policy (``CONTENTSEEN_ON_STORE_ERROR``).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, replace
from typing import Callable, Literal
from urllib.parse import urlsplit

from .fingerprints import PAGE_BITS, PageFingerprints, PageFingerprinter
from .stores import FingerprintStore, Match, Query, StoreError
from .templates import HostTemplates, content_lines, whole_lines, without
from .text import SHARED_SHARE, PageText, decode_html

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/plain",)
REVISITS = ("drop", "follow")
# The content distance at which a second look drops a page: leaving out what a mirror added gives
# back the page it copied, within a bit; at the edge of the distance, after lines were left out,
# the evidence is weaker than for the page as it is (on SQLite's railroad-diagram pages, a banner
# changed the block extraction chose, and the second look met another page at 3).
SECOND_LOOK_DISTANCE = 1

Outcome = Literal["kept", "dropped", "refetched", "revisited", "skipped", "store_error", "check"]


def media_type(content_type: str | None) -> str:
    """The media type of a Content-Type header value, lower-cased, without parameters."""
    return (content_type or "").split(";", 1)[0].strip().lower()


@dataclass(frozen=True)
class SecondLook:
    """A page's fingerprints without the ``lines`` of its content that are its host's template
    (``templates``): looked up, never stored, before the page is checked as it is."""

    page: PageFingerprints
    lines: int


def second_look(pages: PageFingerprinter, texts: PageText, template: frozenset[int],
                page: PageFingerprints | None = None) -> SecondLook | None:
    """A page's second look: the fingerprints of its ``texts`` without its host's ``template``
    lines (``HostTemplates.learn``); None when it holds none, or too many or too few
    (``templates.without``), or too little is left to fingerprint. Given the ``page``'s own
    fingerprints, a content that lost no line keeps its content fingerprint."""
    stripped = without(texts, template, pages.extractor.min_share) if template else None
    if stripped is None:
        return None
    same = page if stripped[0].content == texts.content else None
    second = pages.of_texts(stripped[0], same)
    return SecondLook(second, stripped[1]) if second.fingerprint is not None else None


@dataclass(frozen=True)
class Decision:
    """What became of a page. ``kept``: stored, goes on; ``dropped``: ``match`` is the stored
    page it duplicates; ``refetched``: ``match`` is its own URL's stored page (dropped, as
    revisits are not followed); ``revisited``: the same, revisits followed (goes on);
    ``skipped``: not judged (``reason``: status, type, empty, error), goes on; ``store_error``:
    the store failed (``reason`` says how); ``check``: fingerprinted, the store not asked yet."""

    outcome: Outcome
    page: PageFingerprints | None = None
    match: Match | None = None
    reason: str = ""
    skipped: bool = False  # store_error: the store was not called (its circuit is open)
    second: SecondLook | None = None  # check: the page without its host's template lines


class Engine:
    """Decides each page against one store under one fingerprint scheme."""

    def __init__(self, pages: PageFingerprinter, store: FingerprintStore, revisits: str = "drop",
                 templates: HostTemplates | None = None):
        self.pages = pages
        self.store = store
        self.revisits = revisits
        self.templates = templates
        # A third-party store written before per-page page distances applies its own to all.
        self._page_limits = store is not None and _takes(store.check_and_add, "page_distance")
        # Blocks a host shows on many pages (``shareable``): where the whole page can be asked (a
        # store taking a page distance per check; without one, as ContentSeen's stores all do)
        # and is asked at all (not 64: content alone deciding).
        self._shared_rule = (store is None or self._page_limits) and pages.scheme.page_distance < PAGE_BITS
        # ... and the text outside such a block too, where the store keeps it (all built-in ones do).
        self._rests = self._shared_rule and (store is None or _takes(store.check_and_add, "rest_distance"))

    def _limit(self, page: PageFingerprints, own_host: bool = False) -> dict:
        """The page's own page distance (``Scheme.page_limit``, against pages of its ``own_host``
        or not), for a store that takes one, when it is below the store's."""
        limit = self.pages.scheme.page_limit(page, own_host)
        return {"page_distance": limit} if self._page_limits and limit < self.pages.scheme.page_distance else {}

    def check(self, url: str, page: PageFingerprints, second: SecondLook | None = None) -> Match | None:
        """The store's ``check_and_add`` for a fingerprinted page. Before it, when the page is
        a sliver with a fingerprint of its block ``alone`` or has a ``second`` look, lookups,
        storing nothing: the page as it is (what ``check_and_add`` would answer), then its block
        alone (``Match.alone``: its copy stored before a mirror's additions made it a sliver),
        then the second look, whose match on another host is the answer, with the lines left
        out (``Match.template_lines``). (A host's template is what it adds to another's pages:
        two pages of one host both show it, and are compared as they are; without it, two pages
        of a site that differ in little but their own menus and sidebars would look alike.) A
        page whose content block its host shows on other pages too (``PageFingerprints.shared``)
        is looked up as it is first: a match of its own URL or on another host (its mirror's
        copy) is the answer, else pages of its own host match it within ``SHARED_PAGE_DISTANCE``
        of a whole page and, where the store keeps both pages' ``rest`` fingerprints, with rests
        within the page's usual page limit. In the caller's thread."""
        limit = self._limit(page)
        rest = {"rest": page.rest} if page.rest is not None else {}
        if page.shared:
            match = self.store.lookup(page.fingerprint, page=page.page, **limit)
            if match is not None and (match.url == url or _host(match.url) != _host(url) or (not rest and (
                    match.page_distance is None or match.page_distance <= self.pages.scheme.page_limit(page, True)))):
                return match  # its own URL again, another host's copy, or a whole page that agrees
            if rest:  # and the text outside the block as near as a whole page elsewhere, where both have it
                rest["rest_distance"] = self.pages.scheme.page_limit(page)
            limit = self._limit(page, own_host=True)
        if second is not None or page.alone is not None:
            match = self.store.lookup(page.fingerprint, page=page.page, **limit, **rest)
            if match is None and page.alone is not None:
                match = self.store.lookup(page.alone, page=page.page, **limit, **rest)
                match = match and replace(match, alone=True)
            if match is not None:
                return match
        if second is not None:
            match = self.store.lookup(second.page.fingerprint, page=second.page.page, **self._limit(second.page))
            if match is not None and match.distance <= SECOND_LOOK_DISTANCE and _host(match.url) != _host(url):
                return replace(match, template_lines=second.lines)
        return self.store.check_and_add(page.fingerprint, url, page=page.page, **limit, **rest)

    def query(self, url: str, page: PageFingerprints, second: SecondLook | None = None) -> Query | None:
        """The page's ``check`` as one query of the store's ``check_many`` (checks batched), when
        nothing is looked up before it (no ``second`` look, no block ``alone``, not ``shared``)
        and the store takes a page distance per page; else None (``check`` asks the store)."""
        if second is not None or page.alone is not None or page.shared or not self._page_limits:
            return None
        return Query(page.fingerprint, url, page.page, self._limit(page).get("page_distance"), page.rest)

    def fingerprint(self, ctype: str, body: bytes, content_type: str | None = None,
                    url: str = "") -> tuple[PageFingerprints, SecondLook | None]:
        """Fingerprints of a page of media type ``ctype``, and its second look when it holds
        lines of its host's template and its host is worth the look (``second_look``,
        ``HostTemplates.looking``). The body is decoded by what it declares (BOM,
        header, ``<meta>``), else as UTF-8 -- never by a guess from its bytes, which can differ
        between a page and its copy (Scrapy's ``response.text`` guessed mac-latin2 for a
        Latin-1 page and cp1250 for its copy with other whitespace)."""
        if ctype in TEXT_TYPES:
            return self.pages.of_text(decode_html(body, content_type)), None
        texts = self.pages.html_texts(body, content_type)
        # the rest of a page marking a block that holds less than SHARED_SHARE of its own text, or
        # of a narrowed page (read around its own text, ``PageText.own``): its other own text (a
        # thread's replies beside the opening post, whether the markup marks the post or not)
        rest = self.templates is not None and self._rests and (texts.own_share < SHARED_SHARE or texts.narrowed)
        page = self.pages.of_texts(texts, rest=rest)
        if self.templates is None or page.fingerprint is None:
            return page, None
        host = _host(url)
        content = content_lines(texts)
        template = self.templates.learn(host, content | whole_lines(texts))
        if self._shared_rule and shareable(page, texts) and self.templates.shared(host, content):
            page = replace(page, shared=True)  # the block is its host's, not the page's
        if not template or not self.templates.looking(host):
            return page, None
        second = second_look(self.pages, texts, template, page)
        if second is not None:
            self.templates.looked(host)
        return page, second

    def prepare(self, url: str, status: int, content_type: bytes | str | None, body: bytes) -> Decision:
        """Everything before the store: a ``skipped`` decision, or a ``check`` one with the page's
        fingerprints, for the store's answer and ``judge``."""
        if not 200 <= status < 300:
            return Decision("skipped", reason="status")
        if isinstance(content_type, bytes):
            content_type = content_type.decode("latin-1")
        ctype = media_type(content_type)
        if ctype not in HTML_TYPES + TEXT_TYPES:
            return Decision("skipped", reason="type")
        try:
            page, second = self.fingerprint(ctype, body, content_type, url)
        except Exception as exc:  # fail open: an unreadable page goes on, never lost
            return Decision("skipped", reason=f"error: {type(exc).__name__}: {exc}"[:300])
        if page.fingerprint is None:
            return Decision("skipped", page, reason="empty")
        return Decision("check", page, second=second)

    def judge(self, url: str, page: PageFingerprints, match: Match | None) -> Decision:
        """The decision for a page once the store answered ``match``; a match on another host
        tells the template learning that the page's host serves copies (``HostTemplates.copies``)."""
        if match is None:
            return Decision("kept", page)
        if self.templates is not None and (host := _host(url)) != _host(match.url):
            self.templates.copies(host)
        if match.url == url:  # the same URL fetched again (a start URL also linked, a resumed job)
            return Decision("revisited" if self.revisits == "follow" else "refetched", page, match)
        return Decision("dropped", page, match)

    def decide(self, url: str, status: int, content_type: bytes | str | None, body: bytes) -> Decision:
        """The decision for one downloaded page, asking the store in this thread; stores its
        fingerprints when it is kept."""
        decision = self.prepare(url, status, content_type, body)
        if decision.outcome != "check":
            return decision
        page = decision.page
        try:
            match = self.check(url, page, decision.second)
        except StoreError as exc:
            return Decision("store_error", page, reason=str(exc))
        return self.judge(url, page, match)


def shareable(page: PageFingerprints, texts: PageText) -> bool:
    """Whether a page's content block may be its host's rather than its own
    (``PageFingerprints.shared``): a block the narrowing chose, or one its markup marks that
    holds less than ``SHARED_SHARE`` of its text outside links and boilerplate
    (``PageText.own_share``, asked when it holds less than that of all its text: a thread's
    opening post, repeated above each page's own replies; a marked block holding more, at another
    URL of the host beside another sidebar, is the page again), or one
    ``<article>`` beside the page's title (``PageText.beside_title``: a site's featured teaser
    beside each story, or a post under its title), of a page neither short nor a sliver (whose
    content fingerprint counts its whole text already)."""
    return (texts.narrowed or texts.own_share < SHARED_SHARE or texts.beside_title) and not (page.exact or page.sliver)


def _host(url: str) -> str:
    """The host a page's template is learned on: host (case folded, as DNS does) and port (two
    servers on one address are two hosts)."""
    parts = urlsplit(url)
    try:
        port = parts.port if parts.port is not None else ""
    except ValueError:  # not a port number: the URL's own spelling
        return parts.netloc.lower()
    return f"{parts.hostname or ''}:{port}"


def _takes(method: Callable, argument: str) -> bool:
    try:
        return argument in inspect.signature(method).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False
