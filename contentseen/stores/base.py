"""The fingerprint store interface, and ``open_store`` which picks a backend by URL.

A store keeps (fingerprint, URL, time) and answers, atomically, "is any stored fingerprint within
the distance of this one? if not, add it". It saves the scheme it was made with (bits, features,
table, stopwords, extraction, block layout) and refuses to open under another.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Mapping

from ..errors import ContentSeenError


class StoreError(ContentSeenError):
    """The store failed while in use (I/O, lock, connection): the page's fate is a policy choice."""


@dataclass(frozen=True)
class Match:
    """A stored page that a fingerprint duplicates."""

    url: str
    fingerprint: int
    distance: int


class FingerprintStore(abc.ABC):
    """Persistent fingerprints with a Hamming lookup that never reads them all."""

    url: str

    @abc.abstractmethod
    def check_and_add(self, fingerprint: int, url: str) -> Match | None:
        """Atomically: return the closest stored match within the distance, else store the
        fingerprint with ``url`` and return None. Two processes adding the same content at
        once keep exactly one copy."""

    @abc.abstractmethod
    def lookup(self, fingerprint: int) -> Match | None:
        """The closest stored match within the distance, without adding."""

    @abc.abstractmethod
    def __len__(self) -> int:
        """Number of stored fingerprints."""

    @abc.abstractmethod
    def close(self) -> None:
        """Flush and release the store; safe to call twice."""

    def __enter__(self) -> "FingerprintStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_identity(url: str, saved: Mapping[str, str], wanted: Mapping[str, str]) -> None:
    """Raise ContentSeenError naming every field where a store's saved scheme differs."""
    diffs = [
        f"{key} {saved.get(key, '(none)')} (store) vs {wanted[key]} (this crawl)"
        for key in sorted(wanted)
        if saved.get(key) != wanted[key]
    ]
    if diffs:
        raise ContentSeenError(
            f"store {url} was made with another fingerprint scheme: {'; '.join(diffs)}. "
            "Use another CONTENTSEEN_STORE or the settings the store was made with."
        )


def open_store(url: str, identity: Mapping[str, str], bits: int, distance: int, **options: object) -> FingerprintStore:
    """Open (creating if needed) the store at ``url``: ``sqlite:///path`` or ``redis://host:port/db``."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme == "sqlite":
        from .sqlite import SQLiteStore

        return SQLiteStore(url, identity, bits, distance)
    if scheme in ("redis", "rediss", "unix"):
        from .redis import RedisStore

        return RedisStore(url, identity, bits, distance, **options)
    raise ContentSeenError(
        f"CONTENTSEEN_STORE: {url!r} is not a store URL (sqlite:///path or redis://host:port/db)"
    )
