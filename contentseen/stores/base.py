"""The fingerprint store interface (``registry.open_store`` picks a backend by URL).

A store keeps (fingerprint, page fingerprint, rest fingerprint, URL, time) and answers,
atomically, "is any stored fingerprint within the distance of this one, with a page fingerprint
that agrees? if not, add it". It saves the scheme it was made with (bits, features, table,
stopwords, extraction, block layout, storage layout, page distance) and refuses to open under
another.

The fingerprint is of a page's main content; the optional *page* fingerprint (64 bits, of all
its visible text) is evidence a drop must also have: a stored entry matches only when both are
near, or when either side has no page fingerprint. The index is keyed by the content
fingerprint alone; page fingerprints are compared on its candidates. The optional *rest*
fingerprint (64 bits, of the page's text outside its content block) is stored when given and
compared only when a check asks for it (``rest_distance``): a page whose content block its host
shows on other pages too, against the pages of its own host (``engine.Engine.check``).
"""

from __future__ import annotations

import abc
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Sequence

from ..blocks import DEFAULT_EXPECTED, plan_for
from ..errors import ContentSeenError


class StoreError(ContentSeenError):
    """The store failed while in use (I/O, lock, connection): the page's fate is a policy choice."""


@dataclass(frozen=True)
class Match:
    """A stored page that a fingerprint duplicates."""

    url: str
    fingerprint: int
    distance: int
    # distance of the page fingerprints, when both the query and the stored page have one
    page_distance: int | None = None
    # found by the engine's second look: lines of the page's host template left out (templates)
    template_lines: int = 0
    # found by the fingerprint of the page's content block alone (a sliver page's: ``alone``)
    alone: bool = False


class Query(NamedTuple):
    """One page's ``check_and_add``, as ``check_many`` takes a batch of them."""

    fingerprint: int
    url: str
    page: int | None = None
    page_distance: int | None = None
    rest: int | None = None
    rest_distance: int | None = None


class Entry(NamedTuple):
    """One stored page, as ``entries()`` yields it and ``add_many`` takes it back."""

    fingerprint: int
    page: int | None
    url: str
    seen: float  # unix time it was stored
    rest: int | None = None  # the text outside its content block (stores taking one; None: none)


class FingerprintStore(abc.ABC):
    """Persistent fingerprints with a Hamming lookup that never reads them all.

    A backend is made by ``cls(url, identity, bits, distance, page_distance=..., **options)``;
    ``OPTIONS`` names the options it takes (anything else is refused by ``open_store``), and
    ``options_from_settings`` reads them from Scrapy settings. The built-in stores take
    ``expected``, the number of fingerprints to lay the store out for (``blocks.plan_for``), and
    ``expire``: seconds after which a stored entry no longer matches (None: never).
    """

    url: str
    OPTIONS: frozenset[str] = frozenset()
    expire: float | None = None
    # Fields of the saved scheme that the store adds itself (not the fingerprinter's identity)
    OWN_FIELDS: frozenset[str] = frozenset(("index", "layout", "page_distance"))

    @classmethod
    def options_from_settings(cls, settings: Any) -> dict[str, Any]:
        """This backend's options from the ``CONTENTSEEN_*`` settings (none by default)."""
        return {}

    @abc.abstractmethod
    def check_and_add(self, fingerprint: int, url: str, page: int | None = None,
                      page_distance: int | None = None) -> Match | None:
        """Atomically: return the closest stored match (content within the distance, page
        fingerprints within the page distance or either missing; ties: the closer page, then the
        one stored first), else store the fingerprints with ``url`` and return None. Two processes adding the same
        content at once keep exactly one copy. ``page_distance``: a smaller page distance for
        this page (``Scheme.page_limit``; never a larger one than the store's). A store taking
        ``rest`` and ``rest_distance`` too (every built-in store) stores the
        ``rest`` fingerprint, and with a ``rest_distance`` matches only entries whose rest is
        within it or missing (``rest_vetoes``)."""

    @abc.abstractmethod
    def lookup(self, fingerprint: int, page: int | None = None, page_distance: int | None = None) -> Match | None:
        """The closest stored match, as ``check_and_add`` finds it, without adding (a store taking
        ``rest`` and ``rest_distance`` in ``check_and_add`` takes them here too)."""

    def check_many(self, queries: Sequence[Query]) -> list[Match | None]:
        """``check_and_add`` of each query, in order, as if one after another (a query may
        match an earlier one of the batch); each query atomic as ``check_and_add`` is. A store
        that can answers them in fewer round trips than one a query (the Redis stores); on a
        failure some of the batch may be stored. Third-party stores inherit this loop (a query's
        rest is passed on only when it has one: the engine gives one only to a store taking it)."""
        return [self.check_and_add(q.fingerprint, q.url, q.page, q.page_distance,
                                   **rest_arguments(q.rest, q.rest_distance)) for q in queries]

    def add_many(self, fingerprints: Sequence[int], urls: Sequence[str],
                 pages: Sequence[int | None] | None = None, seen: Sequence[float] | None = None) -> None:
        """Store entries without checking them (seeding a store, or migrating one: ``add_many``
        of another store's ``entries()``, in their order). ``seen``: their unix times (now when
        None). A store keeping rest fingerprints takes ``rests`` too. Optional for third-party
        stores."""
        raise NotImplementedError(f"{type(self).__name__} has no add_many")

    def entries(self) -> Iterator[Entry]:
        """Every stored entry, in the order they were stored (the first of a tie first), as
        ``Entry(fingerprint, page, url, seen)``: what a migration to another layout or
        backend reads. Optional for third-party stores."""
        raise NotImplementedError(f"{type(self).__name__} cannot list its entries")

    @abc.abstractmethod
    def __len__(self) -> int:
        """Number of stored fingerprints, without reading them (cheap at any size)."""

    def reset(self) -> None:
        """Remove every entry; the saved scheme stays. Optional for third-party stores."""
        raise NotImplementedError(f"{type(self).__name__} cannot be reset")

    def prune(self, before: float, limit: int | None = None) -> int:
        """Remove entries stored before unix time ``before`` (at most about ``limit`` of them,
        None: all); return how many were removed. Optional for third-party stores."""
        raise NotImplementedError(f"{type(self).__name__} cannot prune")

    def delete_url(self, url: str) -> int:
        """Remove every entry stored for ``url`` (reads the whole store); return how many."""
        raise NotImplementedError(f"{type(self).__name__} cannot delete entries")

    def discard(self, fingerprint: int, url: str, since: float) -> int:
        """Remove the entry ``check_and_add`` stored for ``url`` with exactly this fingerprint at
        or after unix time ``since`` (a page that was never delivered: it must not make its
        copies duplicates); how many went (0 or 1). Reads only the fingerprint's own entries.
        Optional for third-party stores: without it a page is marked seen when checked."""
        raise NotImplementedError(f"{type(self).__name__} cannot discard an entry")

    def time_range(self) -> tuple[float, float] | None:
        """(oldest, newest) time an entry was stored, or None when empty (reads every entry
        unless a backend knows better)."""
        times = [entry.seen for entry in self.entries()]
        return (min(times), max(times)) if times else None

    def cutoff(self) -> float | None:
        """Entries stored before this unix time have expired (None: nothing expires)."""
        return None if self.expire is None else time.time() - self.expire

    @classmethod
    def saved_meta(cls, url: str, **options: Any) -> dict[str, str]:
        """The scheme saved in the store at ``url`` (ContentSeenError when there is none),
        read without changing anything."""
        raise NotImplementedError(f"{cls.__name__} cannot be opened as recorded")

    @classmethod
    def expected_of(cls, saved: Mapping[str, str], bits: int, distance: int) -> int:
        """An ``expected`` size that gives the saved block layout."""
        return recorded_expected(saved, lambda n: {"index": plan_for(bits, distance, n).description})

    @classmethod
    def open_recorded(cls, url: str, **options: Any) -> "FingerprintStore":
        """Open the store at ``url`` under the scheme it saved (no crawl settings needed):
        what the ``contentseen`` command uses on any store. ``options`` go to the backend."""
        saved = cls.saved_meta(url, **{k: v for k, v in options.items() if k in ("prefix",)})
        match = re.match(r"blocks-v\d+:(\d+)/(\d+):", saved.get("index", ""))
        if not match:
            raise ContentSeenError(f"store {url} has no block layout this contentseen reads ({saved.get('index')!r})")
        bits, distance = int(match[1]), int(match[2])
        pages = saved.get("page_distance", "off")
        page_distance = None if pages == "off" else int(pages)
        identity = {k: v for k, v in saved.items() if k not in cls.OWN_FIELDS}
        expected = cls.expected_of(saved, bits, distance)
        return cls(url, identity, bits, distance, page_distance=page_distance, expected=expected, **options)

    @abc.abstractmethod
    def close(self) -> None:
        """Flush and release the store; safe to call twice."""

    def __enter__(self) -> "FingerprintStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


PAGE_BITS = 64
# Candidates a check passes over whose rest disagrees (``rest_vetoes``): past them the page is
# taken for no copy. The closest whole page comes first, and a copy's whole page is closest.
REST_TRIES = 16
EXPECTED_SETTING = "CONTENTSEEN_EXPECTED_PAGES"
EXPIRE_SETTING = "CONTENTSEEN_EXPIRE"
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_DURATION = 100 * 365 * 86400  # a century: anything longer is a typo


def parse_duration(value: Any, name: str = EXPIRE_SETTING) -> float | None:
    """Seconds from ``value``: a number of seconds or ``30d`` / ``12h`` / ``15m`` / ``90s``;
    None, "" or 0: never. Out of 1 s..100 years is an error naming ``name``."""
    if value is None or value == "" or value == 0 or value == "0":
        return None
    text = str(value).strip().lower()
    unit = _UNITS.get(text[-1:], None) if text else None
    try:
        seconds = float(text[:-1] if unit else text) * (unit or 1)
    except ValueError:
        seconds = -1.0
    if isinstance(value, bool) or not 1 <= seconds <= MAX_DURATION:
        raise ContentSeenError(f"{name}: {value!r} is not a duration in 1 s..100 years "
                               "(seconds, or a number followed by s, m, h or d: 30d, 12h, 15m)")
    return seconds


def expire_seconds(settings: Any) -> float | None:
    """``CONTENTSEEN_EXPIRE`` in seconds, or None."""
    return parse_duration(settings.get(EXPIRE_SETTING))


def recorded_expected(saved: Mapping[str, str], describe: Callable[[int], Mapping[str, str]]) -> int:
    """The first size (1, 1.25, 1.5, 1.75 times powers of two) whose ``describe`` agrees with
    the saved fields: the layout follows the expected size, which the store does not save."""
    for exp in range(63):
        for quarter in (4, 5, 6, 7):
            n = max(1, (quarter << exp) // 4)
            if all(saved.get(k) == v for k, v in describe(n).items()):
                return n
    raise ContentSeenError(f"no expected size gives the saved layout {dict(saved)}")


def expected_pages(settings: Any) -> int:
    """``CONTENTSEEN_EXPECTED_PAGES``: how many pages a new store is laid out for."""
    value = settings.get(EXPECTED_SETTING, DEFAULT_EXPECTED)
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    if isinstance(value, (bool, float)) or number < 1:
        raise ContentSeenError(f"{EXPECTED_SETTING}: {value!r} must be a whole number of pages, at least 1")
    return number


def check_batch(fingerprints: Sequence[int], urls: Sequence[str], pages: Sequence[int | None] | None,
                seen: Sequence[float] | None, rests: Sequence[int | None] | None = None) -> None:
    """``add_many``'s arguments must line up."""
    if len(fingerprints) != len(urls) or any(x is not None and len(x) != len(urls) for x in (pages, seen, rests)):
        raise ValueError("add_many: fingerprints, urls, pages, seen and rests differ in length")


def saved_scheme(identity: Mapping[str, str], index: str, layout: str, page_distance: int | None) -> dict[str, str]:
    """What a store saves and checks on open: the fingerprint scheme, the block layout
    (``index``), the storage ``layout`` and the page distance ("off": pages ignored)."""
    if page_distance is not None and (
        isinstance(page_distance, bool) or not isinstance(page_distance, int) or not 0 <= page_distance <= PAGE_BITS
    ):
        raise ContentSeenError(f"page distance {page_distance!r} must be a whole number 0..{PAGE_BITS} or None")
    pages = "off" if page_distance is None else str(page_distance)
    return {**identity, "index": index, "layout": layout, "page_distance": pages}


def rest_argument(rest: int | None) -> int | None:
    """A rest fingerprint as a store keeps it (64 bits, or None)."""
    if rest is not None and not 0 <= rest < 1 << PAGE_BITS:
        raise ContentSeenError(f"rest fingerprint {rest:#x} does not fit in {PAGE_BITS} bits")
    return rest


def page_argument(page: int | None, page_distance: int | None) -> int | None:
    """The page fingerprint a store compares: None when it has none or the store ignores pages."""
    if page is None or page_distance is None:
        return None
    if not 0 <= page < 1 << PAGE_BITS:
        raise ContentSeenError(f"page fingerprint {page:#x} does not fit in {PAGE_BITS} bits")
    return page


def rest_arguments(rest: int | None, rest_distance: int | None) -> dict[str, int]:
    """The ``rest`` keyword arguments of a check, none when it has no rest (any store takes that)."""
    if rest is None:
        return {}
    return {"rest": rest} if rest_distance is None else {"rest": rest, "rest_distance": rest_distance}


def rest_vetoes(rest: int | None, stored: int | None, rest_distance: int | None) -> bool:
    """Whether a stored entry's ``stored`` rest fingerprint rules it out as a match of a check
    with this ``rest`` and ``rest_distance``: only when the check asks (a distance) and both
    sides have one, as with page fingerprints."""
    return (rest_distance is not None and rest is not None and stored is not None
            and (rest ^ stored).bit_count() > rest_distance)


def applied_page_distance(store_limit: int | None, asked: int | None) -> int | None:
    """The page distance a check applies: the store's, or the smaller one asked for this page."""
    if store_limit is None or asked is None:
        return store_limit
    if isinstance(asked, bool) or not isinstance(asked, int) or asked < 0:
        raise ContentSeenError(f"page distance {asked!r} must be a whole number, at least 0")
    return min(store_limit, asked)


def check_identity(url: str, saved: Mapping[str, str], wanted: Mapping[str, str]) -> None:
    """Raise ContentSeenError naming every field where a store's saved scheme differs; a store of
    another storage layout is refused on its own, as no setting can open it."""
    layout = wanted.get("layout")
    if layout is not None and saved.get("layout") != layout:
        raise ContentSeenError(
            f"store {url} has storage layout {saved.get('layout', '(none: an older contentseen)')}, "
            f"this contentseen reads {layout} and does not mix the two. "
            "Use a new CONTENTSEEN_STORE file or CONTENTSEEN_REDIS_PREFIX, or the contentseen version that made it."
        )
    diffs = [
        f"{key} {saved.get(key, '(none)')} (store) vs {wanted[key]} (this crawl)"
        for key in sorted(wanted)
        if saved.get(key) != wanted[key]
    ]
    if diffs:
        # the block layout follows the expected size: say which setting picks it
        hint = (f" (the block layout follows {EXPECTED_SETTING}: the size the store was made for, "
                "or migrate it: add_many of its entries() into a new store)"
                if any(saved.get(key) != wanted[key] for key in ("index", "buckets") if key in wanted) else "")
        raise ContentSeenError(
            f"store {url} was made with another fingerprint scheme: {'; '.join(diffs)}. "
            f"Use another CONTENTSEEN_STORE or the settings the store was made with{hint}."
        )
