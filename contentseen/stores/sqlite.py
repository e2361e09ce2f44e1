"""The embedded store: one SQLite file, WAL mode, shareable by processes on one machine.

Layout: ``fingerprints(id, w0[, w1], k0..kT, url, seen)`` where ``w*`` are the fingerprint's
64-bit words (signed, as SQLite stores integers) and ``k*`` the block keys of
``contentseen.index.BlockPlan``; each ``k`` column has a covering index ``(k, w...)``, so a
lookup reads only the rows that agree with the query on some block -- never the whole table.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..errors import ContentSeenError
from ..index import BlockPlan
from ..simhash import from_int, n_words
from .base import FingerprintStore, Match, StoreError, check_identity

_BUSY_TIMEOUT_S = 60.0


def sqlite_path(url: str) -> Path:
    """``sqlite:///relative/path`` or ``sqlite:////absolute/path`` (SQLAlchemy's spelling)."""
    prefix = "sqlite:///"
    if not url.lower().startswith(prefix) or len(url) == len(prefix):
        raise ContentSeenError(
            f"CONTENTSEEN_STORE: {url!r} is not sqlite:///relative/path or sqlite:////absolute/path"
        )
    return Path(url[len(prefix):])


def _signed(word: int) -> int:
    return word - (1 << 64) if word >= 1 << 63 else word


def _unsigned(value: int) -> int:
    return value & 0xFFFFFFFFFFFFFFFF


class SQLiteStore(FingerprintStore):
    """Fingerprints in a SQLite file; check-and-add runs in one ``BEGIN IMMEDIATE`` transaction,
    so processes sharing the file never both keep the same content."""

    def __init__(self, url: str, identity: Mapping[str, str], bits: int, distance: int):
        self.url = url
        self.path = sqlite_path(url)
        self.bits, self.distance = bits, distance
        self.plan = BlockPlan(bits, distance)
        self.identity = {**identity, "index": self.plan.description}
        self._w = [f"w{i}" for i in range(n_words(bits))]
        self._k = [f"k{i}" for i in range(self.plan.n_tables)]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise ContentSeenError(f"store {url}: cannot open {self.path} ({exc})") from None
        try:
            self._setup()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise ContentSeenError(f"store {url}: {self.path} is not a usable SQLite file ({exc})") from None
        except ContentSeenError:
            self._db.close()
            raise
        words = ", ".join(self._w)
        self._select = " UNION ".join(
            f"SELECT id, {words} FROM fingerprints WHERE {k} = ?" for k in self._k
        )
        self._insert = (
            f"INSERT INTO fingerprints ({words}, {', '.join(self._k)}, url, seen) "
            f"VALUES ({', '.join('?' * (len(self._w) + len(self._k) + 2))})"
        )

    def _setup(self) -> None:
        db = self._db
        # Before anything writes: another application's database is refused, not annexed.
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "meta" not in tables:
            raise ContentSeenError(
                f"store {self.url}: {self.path} is a SQLite database of another application "
                f"(tables: {', '.join(sorted(tables)[:5])}); give CONTENTSEEN_STORE a new file"
            )
        db.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a commit survives a crash of the process (kill -9); only a power
        # loss can lose the last commits, and the file is never corrupt either way.
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            saved = dict(db.execute("SELECT key, value FROM meta"))
            if saved:
                check_identity(self.url, saved, self.identity)
            else:
                db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(self.identity.items()))
                cols = [f"{w} INTEGER NOT NULL" for w in self._w] + [f"{k} INTEGER NOT NULL" for k in self._k]
                db.execute(
                    "CREATE TABLE fingerprints (id INTEGER PRIMARY KEY, "
                    + ", ".join(cols) + ", url TEXT NOT NULL, seen REAL NOT NULL)"
                )
                for k in self._k:
                    db.execute(f"CREATE INDEX fingerprints_{k} ON fingerprints ({k}, {', '.join(self._w)})")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _closest(self, fingerprint: int) -> tuple[int, int, int] | None:
        """(distance, id, fingerprint) of the closest stored fingerprint within the distance."""
        words = from_int(fingerprint, self.bits)
        keys = [int(k) for k in self.plan.query_keys(words)]
        best = None
        for row in self._db.execute(self._select, keys):
            value = 0
            for w in row[1:]:
                value = (value << 64) | _unsigned(w)
            d = (value ^ fingerprint).bit_count()
            if d <= self.distance and (best is None or (d, row[0]) < best[:2]):
                best = (d, row[0], value)
        return best

    def _match(self, best: tuple[int, int, int]) -> Match:
        (url,) = self._db.execute("SELECT url FROM fingerprints WHERE id = ?", (best[1],)).fetchone()
        return Match(url=url, fingerprint=best[2], distance=best[0])

    def lookup(self, fingerprint: int) -> Match | None:
        try:
            best = self._closest(fingerprint)
            return self._match(best) if best else None
        except sqlite3.Error as exc:
            raise StoreError(f"store {self.url}: lookup failed ({exc})") from None

    def check_and_add(self, fingerprint: int, url: str) -> Match | None:
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                best = self._closest(fingerprint)
                if best is not None:
                    match = self._match(best)
                else:
                    words = from_int(fingerprint, self.bits)
                    keys = self.plan.query_keys(words)
                    db.execute(
                        self._insert,
                        [_signed(int(w)) for w in words] + [int(k) for k in keys] + [url, time.time()],
                    )
                    match = None
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise StoreError(f"store {self.url}: check-and-add failed ({exc})") from None
        return match

    def add_many(self, fingerprints: Sequence[int], urls: Sequence[str]) -> None:
        """Bulk-load fingerprints without checking them (seeding or migrating a store), in one
        transaction: all are stored or, on error, none."""
        if len(fingerprints) != len(urls):
            raise ValueError("add_many: fingerprints and urls differ in length")
        words = np.array([from_int(fp, self.bits) for fp in fingerprints], dtype=np.uint64)
        words = words.reshape(len(fingerprints), len(self._w))
        keys = self.plan.keys(words).tolist()
        signed = words.view(np.int64).tolist()  # SQLite integers are signed 64-bit
        now = time.time()
        rows = (w + k + [u, now] for w, k, u in zip(signed, keys, urls))
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany(self._insert, rows)
        except sqlite3.Error as exc:
            raise StoreError(f"store {self.url}: bulk add failed ({exc})") from None

    def __len__(self) -> int:
        (n,) = self._db.execute("SELECT count(*) FROM fingerprints").fetchone()
        return int(n)

    def close(self) -> None:
        if getattr(self, "_db", None) is not None:
            self._db.close()
            self._db = None  # type: ignore[assignment]


def default_sqlite_url(jobdir: str | None) -> str:
    """``JOBDIR/contentseen.sqlite`` when a job directory is set, else ``.contentseen/fingerprints.sqlite``."""
    path = Path(jobdir) / "contentseen.sqlite" if jobdir else Path(".contentseen") / "fingerprints.sqlite"
    return "sqlite:///" + os.fspath(path)
