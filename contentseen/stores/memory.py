"""The in-memory store: ``memory://`` -- a ``HammingIndex`` with each entry's page and rest
fingerprints, URL and time, for tests and one-off runs (a ``contentseen-evaluate``, a short crawl).

Nothing persists: every open starts empty, and the store holds one Python entry per page, so it
is no store for a crawl of many millions of pages. Check-and-add takes a lock: threads sharing
one store keep each content once, as the other stores do across processes.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Iterator, Mapping, Sequence

from ..blocks import DEFAULT_EXPECTED, plan_for
from ..index import HammingIndex
from .base import (
    REST_TRIES, Entry, FingerprintStore, Match, applied_page_distance, check_batch, expected_pages, expire_seconds,
    page_argument, rest_argument, rest_vetoes, saved_scheme,
)

LAYOUT = "memory-v1"


class MemoryStore(FingerprintStore):
    """Fingerprints in process memory (see the module's docstring)."""

    OPTIONS = frozenset(("expected", "expire"))

    @classmethod
    def options_from_settings(cls, settings) -> dict:
        return {"expected": expected_pages(settings), "expire": expire_seconds(settings)}

    def __init__(self, url: str, identity: Mapping[str, str], bits: int, distance: int,
                 expected: int = DEFAULT_EXPECTED, expire: float | None = None, *, page_distance: int | None = None):
        self.url = url
        self.expire = expire
        self.bits, self.distance, self.page_distance = bits, distance, page_distance
        self.plan = plan_for(bits, distance, expected)
        self.index = HammingIndex(bits, distance, plan=self.plan)
        self.identity = saved_scheme(identity, self.plan.description, LAYOUT, page_distance)
        self._entries: list[Entry | None] = []  # by id; None: removed
        self._live = 0
        self._front = 0  # entries before it are all removed: where the oldest live one is sought
        self._lock = threading.RLock()

    def _closest(self, fingerprint: int, page: int | None, limit: int | None, rest: int | None = None,
                 rest_distance: int | None = None) -> Match | None:
        ids, dists = self.index.query(fingerprint)  # by distance, then first stored
        cutoff = self.cutoff()
        agree = []  # (distance, page distance or -1, id, rest, match): the closer page wins a tie
        for i, d in zip(ids.tolist(), dists.tolist()):
            if agree and d > agree[0][0] and rest_distance is None:
                break
            fp, stored_page, url, seen, stored_rest = self._entries[i]
            if cutoff is not None and seen < cutoff:
                continue
            page_d = None if page is None or stored_page is None else (page ^ stored_page).bit_count()
            if page_d is None or page_d <= limit:
                agree.append((d, -1 if page_d is None else page_d, i, stored_rest,
                               Match(url=url, fingerprint=fp, distance=d, page_distance=page_d)))
        agree.sort(key=lambda a: a[:3])
        passed = [a for a in agree[:REST_TRIES] if not rest_vetoes(rest, a[3], rest_distance)]
        return passed[0][4] if passed else None

    def lookup(self, fingerprint: int, page: int | None = None, page_distance: int | None = None,
               rest: int | None = None, rest_distance: int | None = None) -> Match | None:
        return self._closest(fingerprint, page_argument(page, self.page_distance),
                             applied_page_distance(self.page_distance, page_distance), rest_argument(rest),
                             rest_distance)

    def check_and_add(self, fingerprint: int, url: str, page: int | None = None, page_distance: int | None = None,
                      rest: int | None = None, rest_distance: int | None = None) -> Match | None:
        page = page_argument(page, self.page_distance)
        limit = applied_page_distance(self.page_distance, page_distance)
        rest = rest_argument(rest)
        with self._lock:
            match = self._closest(fingerprint, page, limit, rest, rest_distance)
            if match is None:
                self._add(Entry(fingerprint, page, url, time.time(), rest))
                if self.expire is not None:
                    self.prune(self.cutoff(), 4)  # bounded work per page, as the SQLite store
            return match

    def _add(self, entry: Entry) -> None:
        self.index.add_one(entry.fingerprint, len(self._entries))
        self._entries.append(entry)
        self._live += 1

    def _remove(self, ids: list[int]) -> int:
        if ids:
            self.index.remove(ids)
            for i in ids:
                self._entries[i] = None
            self._live -= len(ids)
        return len(ids)

    def _ids(self) -> Iterator[tuple[int, Entry]]:
        while self._front < len(self._entries) and self._entries[self._front] is None:
            self._front += 1
        entries = self._entries
        return ((i, entries[i]) for i in range(self._front, len(entries)) if entries[i] is not None)

    def prune(self, before: float, limit: int | None = None) -> int:
        """Remove entries stored before ``before`` (with a ``limit``: among that many oldest)."""
        with self._lock:
            oldest = list(itertools.islice(self._ids(), limit))
            return self._remove([i for i, e in oldest if e.seen < before])

    def delete_url(self, url: str) -> int:
        with self._lock:
            return self._remove([i for i, e in self._ids() if e.url == url])

    def discard(self, fingerprint: int, url: str, since: float) -> int:
        with self._lock:
            ids, dists = self.index.query(fingerprint)
            return self._remove([i for i, d in zip(ids.tolist(), dists.tolist()) if d == 0
                                 and self._entries[i].url == url and self._entries[i].seen >= since][:1])

    def reset(self) -> None:
        with self._lock:
            self._remove([i for i, _ in self._ids()])

    def add_many(self, fingerprints: Sequence[int], urls: Sequence[str], pages: Sequence[int | None] | None = None,
                 seen: Sequence[float] | None = None, rests: Sequence[int | None] | None = None) -> None:
        """Add fingerprints without checking them (seeding or migrating a store)."""
        check_batch(fingerprints, urls, pages, seen, rests)
        now = time.time()
        with self._lock:
            for i, (fp, url) in enumerate(zip(fingerprints, urls)):
                page = page_argument(pages[i] if pages is not None else None, self.page_distance)
                rest = rest_argument(rests[i] if rests is not None else None)
                self._add(Entry(fp, page, url, now if seen is None else seen[i], rest))

    def entries(self) -> Iterator[Entry]:
        """The entries in the order they were added."""
        return iter([e for e in self._entries if e is not None])

    def __len__(self) -> int:
        return self._live

    def close(self) -> None:
        pass
