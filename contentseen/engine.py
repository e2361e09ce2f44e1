"""One page's fate: a downloaded page (URL, status, Content-Type, body) in, a ``Decision`` out.

The Scrapy middleware and the commands are shells over ``Engine``: it fingerprints the page
(``fingerprints``), asks the store, and says what happened and why. It never raises for a page: a
page that cannot be fingerprinted (any exception from decoding to fingerprinting) is skipped
with the reason, so it goes on unchecked rather than being lost; a store failure is reported as
such, for the caller's policy (``CONTENTSEEN_ON_STORE_ERROR``).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable, Literal

from .fingerprints import PageFingerprints, PageFingerprinter
from .stores import FingerprintStore, Match, StoreError
from .text import decode_html

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/plain",)
REVISITS = ("drop", "follow")

Outcome = Literal["kept", "dropped", "refetched", "revisited", "skipped", "store_error", "check"]


def media_type(content_type: str | None) -> str:
    """The media type of a Content-Type header value, lower-cased, without parameters."""
    return (content_type or "").split(";", 1)[0].strip().lower()


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


class Engine:
    """Decides each page against one store under one fingerprint scheme."""

    def __init__(self, pages: PageFingerprinter, store: FingerprintStore, revisits: str = "drop"):
        self.pages = pages
        self.store = store
        self.revisits = revisits
        # A third-party store written before per-page page distances applies its own to all.
        self._page_limits = store is not None and _takes_page_distance(store.check_and_add)

    def check(self, url: str, page: PageFingerprints) -> Match | None:
        """The store's ``check_and_add`` for a fingerprinted page, with the page's own page
        distance (``Scheme.page_limit``) when it is below the store's; in the caller's thread."""
        limit = self.pages.scheme.page_limit(page)
        extra = {"page_distance": limit} if self._page_limits and limit < self.pages.scheme.page_distance else {}
        return self.store.check_and_add(page.fingerprint, url, page=page.page, **extra)

    def fingerprint(self, ctype: str, body: bytes, content_type: str | None = None) -> PageFingerprints:
        """Fingerprints of a page of media type ``ctype``. The body is decoded by what it
        declares (BOM, header, ``<meta>``), else as UTF-8 -- never by a guess from its bytes,
        which can differ between a page and its copy (Scrapy's ``response.text`` guessed
        mac-latin2 for a Latin-1 page and cp1250 for its copy with other whitespace)."""
        decoded = decode_html(body, content_type)
        return self.pages.of_text(decoded) if ctype in TEXT_TYPES else self.pages.of_html(decoded)

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
            page = self.fingerprint(ctype, body, content_type)
        except Exception as exc:  # fail open: an unreadable page goes on, never lost
            return Decision("skipped", reason=f"error: {type(exc).__name__}: {exc}"[:300])
        if page.fingerprint is None:
            return Decision("skipped", page, reason="empty")
        return Decision("check", page)

    def judge(self, url: str, page: PageFingerprints, match: Match | None) -> Decision:
        """The decision for a page once the store answered ``match``."""
        if match is None:
            return Decision("kept", page)
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
            match = self.check(url, page)
        except StoreError as exc:
            return Decision("store_error", page, reason=str(exc))
        return self.judge(url, page, match)


def _takes_page_distance(method: Callable) -> bool:
    try:
        return "page_distance" in inspect.signature(method).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False
