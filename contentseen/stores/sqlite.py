"""The embedded store: one SQLite file, WAL mode, shareable by processes on one machine.

Layout (``sqlite-v2``): ``fingerprints(id, w0[, w1], p, k0..kT, url, seen, r)`` where ``w*`` are
the fingerprint's 64-bit words, ``p`` the page fingerprint and ``r`` the rest fingerprint or NULL
(signed, as SQLite stores integers; ``r`` is added to a store made before it, its rows NULL, and
read only for a check that compares rests), ``k*`` the table keys of the store's
``contentseen.blocks.BlockPlan`` (chosen from the ``expected`` size, saved as ``index`` in
``meta``); each ``k`` column has a covering index
``(k, w..., p)``, so a lookup reads only the rows that agree with the query on some table's
blocks -- never the whole table.

``counts(n)`` holds the number of rows, updated in the transaction of every insert and delete
(check-and-add, bulk loads, expiry, the ``contentseen`` command), so ``len`` reads one row instead
of counting millions; ``max(rowid)`` would be as cheap but wrong once rows are deleted. Not by
triggers: a trigger per row made bulk loads 2.5 times slower.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import numpy as np

from ..errors import ContentSeenError
from ..blocks import DEFAULT_EXPECTED, plan_for
from ..simhash import from_int, n_words
from .base import (
    REST_TRIES, Entry, FingerprintStore, Match, StoreError, applied_page_distance, check_batch, check_identity,
    expected_pages, expire_seconds, page_argument, rest_argument, rest_vetoes, saved_scheme,
)

_BUSY_TIMEOUT_S = 60.0
# Page cache of the connection while add_many runs (KiB; SQLite's default is 2 MiB): every row
# goes into k+1 B-trees at random places, and at millions of rows a small cache rewrites the same
# index pages over and over. Given back when the load ends.
_BULK_CACHE_KIB = 1 << 20
# Page cache of the connection otherwise (KiB; SQLite's default is 2 MiB): a lookup descends T
# B-trees, and their inner pages (about 1% of a store: 3.5 MB at 3M fingerprints with 10
# tables) must stay cached, else every level is a read from the OS.
_CACHE_KIB = 1 << 16
# Rows per query of entries(): a long read would keep the WAL from being checkpointed.
_ENTRIES_CHUNK = 10_000
# With CONTENTSEEN_EXPIRE, each add also deletes the expired among this many oldest rows: the
# store sheds old rows at up to this many times the rate it grows, in bounded work per page.
_SWEEP_ROWS = 4
# Up to this many candidates a lookup compares them in Python, beyond it in numpy.
_FEW_CANDIDATES = 48
_WORD = (1 << 64) - 1
LAYOUT = "sqlite-v2"

# (content distance, id, fingerprint, page distance or None) of a stored entry
_Best = tuple[int, int, int, "int | None"]


def sqlite_path(url: str) -> Path:
    """``sqlite:///relative/path`` or ``sqlite:////absolute/path`` (SQLAlchemy's spelling)."""
    prefix = "sqlite:///"
    if not url.lower().startswith(prefix) or len(url) == len(prefix):
        raise ContentSeenError(
            f"CONTENTSEEN_STORE: {url!r} is not sqlite:///relative/path or sqlite:////absolute/path"
        )
    return Path(url[len(prefix):])


def unusable(path: Path, exc: sqlite3.DatabaseError) -> str:
    """Why the file at ``path`` cannot serve as a store, from SQLite's error: a disk that is
    full or read-only is not a damaged file."""
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return f"cannot write {path}: it, its folder or its file system is read-only ({text})"
    if "full" in text or "I/O error" in text:
        return f"cannot write {path} ({text}): is the disk full?"
    if "unable to open" in text:
        return f"cannot open {path} ({text}): can this user read and write it and its folder?"
    return f"{path} is not a usable SQLite file ({text})"


def _signed(word: int | None) -> int | None:
    if word is None:
        return None
    return word - (1 << 64) if word >= 1 << 63 else word


class SQLiteStore(FingerprintStore):
    """Fingerprints in a SQLite file; check-and-add runs in one ``BEGIN IMMEDIATE`` transaction,
    so processes sharing the file never both keep the same content."""

    OPTIONS = frozenset(("expected", "expire"))

    @classmethod
    def options_from_settings(cls, settings) -> dict:
        return {"expected": expected_pages(settings), "expire": expire_seconds(settings)}

    @classmethod
    def saved_meta(cls, url: str, **options) -> dict[str, str]:
        path = sqlite_path(url)
        if not path.is_file():
            raise ContentSeenError(f"store {url}: no such file {path}")
        try:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=_BUSY_TIMEOUT_S)
            try:
                return dict(db.execute("SELECT key, value FROM meta"))
            finally:
                db.close()
        except sqlite3.Error as exc:
            raise ContentSeenError(f"store {url}: {path} is not a contentseen store ({exc})") from None

    def __init__(self, url: str, identity: Mapping[str, str], bits: int, distance: int,
                 expected: int = DEFAULT_EXPECTED, expire: float | None = None, *, page_distance: int | None = None):
        self.url = url
        self.expire = expire
        self.path = sqlite_path(url)
        self.bits, self.distance, self.page_distance = bits, distance, page_distance
        self.plan = plan_for(bits, distance, expected)
        self.identity = saved_scheme(identity, self.plan.description, LAYOUT, page_distance)
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
            raise ContentSeenError(f"store {url}: {unusable(self.path, exc)}") from None
        except ContentSeenError:
            self._db.close()
            raise
        words = ", ".join(self._w)
        # The candidates come back as one row of comma-separated lists (ids, each word), parsed
        # and compared in numpy: at 10M fingerprints a lookup has ~600 candidates, and fetching
        # them as Python tuples was most of its time. UNION ALL: a row that shares several
        # blocks with the query comes twice, which cannot change the closest match (UNION
        # would de-duplicate through a temp B-tree).
        union = " UNION ALL ".join(f"SELECT id, {words}, p FROM fingerprints WHERE {k} = ?" for k in self._k)
        lists = ", ".join(f"group_concat({c})" for c in ["id", *self._w])
        self._select = f"SELECT {lists} FROM ({union})"
        # A query with a page also gets the pages: group_concat skips NULLs, so a missing page
        # is listed as 0 and its id again in a last list (NULL when, as usual, every candidate
        # has a page). Only then: listing pages costs ~10% of a lookup.
        self._select_pages = (
            f"SELECT {lists}, group_concat(ifnull(p, 0)), group_concat(CASE WHEN p IS NULL THEN id END) "
            f"FROM ({union})"
        )
        self._insert = (
            f"INSERT INTO fingerprints ({words}, p, {', '.join(self._k)}, url, seen, r) "
            f"VALUES ({', '.join('?' * (len(self._w) + len(self._k) + 4))})"
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
        db.execute(f"PRAGMA cache_size={-_CACHE_KIB}")
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            saved = dict(db.execute("SELECT key, value FROM meta"))
            if saved:
                check_identity(self.url, saved, self.identity)
            else:
                db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(self.identity.items()))
                cols = [f"{w} INTEGER NOT NULL" for w in self._w] + ["p INTEGER"]
                cols += [f"{k} INTEGER NOT NULL" for k in self._k]
                db.execute(
                    "CREATE TABLE fingerprints (id INTEGER PRIMARY KEY, "
                    + ", ".join(cols) + ", url TEXT NOT NULL, seen REAL NOT NULL, r INTEGER)"
                )
                for k in self._k:
                    db.execute(f"CREATE INDEX fingerprints_{k} ON fingerprints ({k}, {', '.join(self._w)}, p)")
            if "r" not in {row[1] for row in db.execute("PRAGMA table_info(fingerprints)")}:
                db.execute("ALTER TABLE fingerprints ADD COLUMN r INTEGER")  # a store made before rests: none
            if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'counts'").fetchone():
                # a store made before the count was kept is counted once, here
                db.execute("CREATE TABLE counts (n INTEGER NOT NULL)")
                db.execute("INSERT INTO counts SELECT count(*) FROM fingerprints")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # a failed BEGIN or COMMIT (a full disk) left none to roll back
                db.execute("ROLLBACK")
            raise

    def _closest(self, fingerprint: int, page: int | None, limit: int | None,
                 skip: frozenset[int] = frozenset()) -> _Best | None:
        """The closest stored entry that matches, as ``check_and_add`` defines it (page
        fingerprints within ``limit``), of those whose id is not in ``skip``."""
        keys = self.plan.int_keys(fingerprint)
        page_list, pageless = "", None
        if page is None:
            id_list, *word_lists = self._db.execute(self._select, keys).fetchone()
        else:
            id_list, *word_lists, page_list, pageless = self._db.execute(self._select_pages, keys).fetchone()
        if id_list is None:  # no candidate at all
            return None
        if id_list.count(",") < _FEW_CANDIDATES:
            return self._closest_of_few(fingerprint, page, limit, id_list, word_lists, page_list, pageless, skip)
        words = np.stack(
            [np.fromstring(text, dtype=np.int64, sep=",") for text in word_lists], axis=1
        ).view(np.uint64)
        dist = np.bitwise_count(words ^ from_int(fingerprint, self.bits)).sum(axis=1)
        ids = np.fromstring(id_list, dtype=np.int64, sep=",")
        near = np.flatnonzero(dist <= self.distance)
        if skip:
            near = near[~np.isin(ids[near], list(skip))]
        if not len(near):
            return None
        page_dist = np.full(len(near), -1)  # -1: no page on one side, which cannot disagree
        if page is not None:
            pages = np.fromstring(page_list, dtype=np.int64, sep=",")[near].view(np.uint64)
            page_dist = np.bitwise_count(pages ^ np.uint64(page)).astype(np.int64)
            if pageless is not None:
                page_dist[np.isin(ids[near], np.fromstring(pageless, dtype=np.int64, sep=","))] = -1
            agree = page_dist <= limit
            near, page_dist = near[agree], page_dist[agree]
            if not len(near):
                return None
        first = np.lexsort((ids[near], page_dist, dist[near]))[0]  # closest, closer page, first stored
        best = near[first]
        value = 0
        for w in words[best].tolist():
            value = (value << 64) | w
        pd = int(page_dist[first])
        return int(dist[best]), int(ids[best]), value, pd if pd >= 0 else None

    def _closest_of_few(self, fingerprint: int, page: int | None, limit: int | None, id_list: str,
                        word_lists: list[str], page_list: str, pageless: str | None,
                        skip: frozenset[int]) -> _Best | None:
        """``_closest`` for a few candidates, in Python ints: numpy's fixed cost per call is
        most of a lookup's time while a store is small."""
        values = [0] * (id_list.count(",") + 1)
        for text in word_lists:
            values = [(v << 64) | (int(w) & _WORD) for v, w in zip(values, text.split(","))]
        near = sorted(  # closest, then first stored
            (d, int(i), v, n) for n, (i, v) in enumerate(zip(id_list.split(","), values))
            if (d := (v ^ fingerprint).bit_count()) <= self.distance and int(i) not in skip
        )
        if not near:
            return None
        if page is None:
            d, i, v, _ = near[0]
            return d, i, v, None
        pages = page_list.split(",")
        no_page = {int(i) for i in pageless.split(",")} if pageless else set()
        best = None  # (distance, page distance or -1, id, fingerprint): the closer page wins a tie
        for d, i, v, n in near:
            if best is not None and d > best[0]:
                break
            pd = -1 if i in no_page else ((int(pages[n]) & _WORD) ^ page).bit_count()
            if pd <= limit and (best is None or (d, pd, i) < best[:3]):
                best = (d, pd, i, v)
        if best is None:
            return None
        d, pd, i, v = best
        return d, i, v, pd if pd >= 0 else None

    def _live_match(self, fingerprint: int, page: int | None, limit: int | None, rest: int | None = None,
                    rest_distance: int | None = None) -> tuple[Match | None, frozenset[int]]:
        """The closest match that has not expired and whose rest agrees (``rest_vetoes``), and
        the ids of the expired ones closer than it (re-queried without them and without those
        passed over: an expired match is rare, a rest compared only on some pages' checks; past
        ``REST_TRIES`` of those, no match)."""
        cutoff, expired, passed = self.cutoff(), frozenset(), frozenset()
        while (best := self._closest(fingerprint, page, limit, expired | passed)) is not None:
            url, seen, stored_rest = self._db.execute(
                "SELECT url, seen, r FROM fingerprints WHERE id = ?", (best[1],)).fetchone()
            if cutoff is not None and seen < cutoff:
                expired |= {best[1]}
            elif rest_vetoes(rest, None if stored_rest is None else stored_rest & _WORD, rest_distance):
                if len(passed) + 1 >= REST_TRIES:
                    break
                passed |= {best[1]}
            else:
                return Match(url=url, fingerprint=best[2], distance=best[0], page_distance=best[3]), expired
        return None, expired

    def lookup(self, fingerprint: int, page: int | None = None, page_distance: int | None = None,
               rest: int | None = None, rest_distance: int | None = None) -> Match | None:
        page = page_argument(page, self.page_distance)
        limit = applied_page_distance(self.page_distance, page_distance)
        try:
            return self._live_match(fingerprint, page, limit, rest_argument(rest), rest_distance)[0]
        except sqlite3.Error as exc:
            raise StoreError(f"store {self.url}: lookup failed ({exc})") from None

    def check_and_add(self, fingerprint: int, url: str, page: int | None = None, page_distance: int | None = None,
                      rest: int | None = None, rest_distance: int | None = None) -> Match | None:
        page = page_argument(page, self.page_distance)
        limit = applied_page_distance(self.page_distance, page_distance)
        rest = rest_argument(rest)
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                match, expired = self._live_match(fingerprint, page, limit, rest, rest_distance)
                if expired:
                    db.executemany("DELETE FROM fingerprints WHERE id = ?", [(i,) for i in expired])
                    self._count(-len(expired))
                if match is None:
                    db.execute(self._insert, self._words(fingerprint) + [_signed(page)] + self.plan.int_keys(fingerprint)
                               + [url, time.time(), _signed(rest)])
                    self._count(1)
                    if self.expire is not None:
                        self._prune(self.cutoff(), _SWEEP_ROWS)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise StoreError(f"store {self.url}: check-and-add failed ({exc})") from None
        return match

    def add_many(self, fingerprints: Sequence[int], urls: Sequence[str], pages: Sequence[int | None] | None = None,
                 seen: Sequence[float] | None = None, rests: Sequence[int | None] | None = None) -> None:
        """Bulk-load fingerprints (and page and rest fingerprints, times) without checking them
        (seeding or migrating a store), in one transaction: all are stored or, on error, none."""
        check_batch(fingerprints, urls, pages, seen, rests)
        stored_rests = [_signed(rest_argument(r)) for r in rests] if rests is not None else [None] * len(urls)
        stored_pages = (
            [_signed(page_argument(p, self.page_distance)) for p in pages] if pages is not None
            else [None] * len(urls)
        )
        words = None
        if len(self._w) == 1:
            try:  # numpy converts the ints itself; one outside 0..2**64-1 takes from_int, which masks
                words = np.fromiter(fingerprints, dtype=np.uint64, count=len(fingerprints))
            except OverflowError:
                pass
        if words is None:
            words = np.array([from_int(fp, self.bits) for fp in fingerprints], dtype=np.uint64)
        words = words.reshape(len(fingerprints), len(self._w))
        keys = self.plan.keys(words).tolist()
        signed = words.view(np.int64).tolist()  # SQLite integers are signed 64-bit
        times = seen if seen is not None else [time.time()] * len(urls)
        rows = (w + [p] + k + [u, s, r]
                for w, p, k, u, s, r in zip(signed, stored_pages, keys, urls, times, stored_rests))
        try:
            (cache,) = self._db.execute("PRAGMA cache_size").fetchone()
            self._db.execute(f"PRAGMA cache_size={-_BULK_CACHE_KIB}")
            try:
                with self._db:
                    self._db.execute("BEGIN IMMEDIATE")
                    self._count(self._db.executemany(self._insert, rows).rowcount)
            finally:
                self._db.execute(f"PRAGMA cache_size={cache}")
        except sqlite3.Error as exc:
            raise StoreError(f"store {self.url}: bulk add failed ({exc})") from None

    def entries(self) -> Iterator[Entry]:
        """Every row by id (the order they were stored), read in chunks."""
        select = (f"SELECT id, {', '.join(self._w)}, p, url, seen, r FROM fingerprints "
                  f"WHERE id > ? ORDER BY id LIMIT {_ENTRIES_CHUNK}")
        last = 0
        while True:
            try:
                rows = self._db.execute(select, (last,)).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"store {self.url}: listing entries failed ({exc})") from None
            for row_id, *words, page, url, seen, rest in rows:
                fingerprint = 0
                for word in words:
                    fingerprint = (fingerprint << 64) | (word & _WORD)
                yield Entry(fingerprint, None if page is None else page & _WORD, url, seen,
                            None if rest is None else rest & _WORD)
            if len(rows) < _ENTRIES_CHUNK:
                return
            last = rows[-1][0]

    def __len__(self) -> int:
        (n,) = self._db.execute("SELECT n FROM counts").fetchone()
        return int(n)

    def _words(self, fingerprint: int) -> list[int]:
        """The fingerprint's 64-bit words as SQLite stores them (signed)."""
        return [_signed(int(w)) for w in from_int(fingerprint, self.bits)]

    def _count(self, change: int) -> None:
        """Rows added (removed, when negative), in the caller's transaction."""
        self._db.execute("UPDATE counts SET n = n + ?", (change,))

    def _delete(self, sql: str, args: tuple) -> int:
        """Run a DELETE in the caller's transaction, counting the rows it removed."""
        removed = self._db.execute(sql, args).rowcount
        self._count(-removed)
        return removed

    def _prune(self, before: float, limit: int | None) -> int:
        """Delete rows stored before ``before``; with a ``limit``, only among that many oldest
        rows by id (rows are appended as they are stored, so the oldest come first): bounded
        work, no index on the time needed."""
        if limit is None:
            return self._delete("DELETE FROM fingerprints WHERE seen < ?", (before,))
        return self._delete(
            "DELETE FROM fingerprints WHERE id IN (SELECT id FROM "
            "(SELECT id, seen FROM fingerprints ORDER BY id LIMIT ?) WHERE seen < ?)", (limit, before))

    def _write(self, what: str, sql: str, args: tuple = ()) -> int:
        """One DELETE in its own transaction; the rows it removed."""
        return self._in_transaction(what, self._delete, sql, args)

    def _in_transaction(self, what: str, fn, *args) -> int:
        """``fn(*args)`` in a ``BEGIN IMMEDIATE`` transaction of its own; a failure is a
        StoreError naming ``what``."""
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                return fn(*args)
        except sqlite3.Error as exc:
            raise StoreError(f"store {self.url}: {what} failed ({exc})") from None

    def prune(self, before: float, limit: int | None = None) -> int:
        return self._in_transaction("prune", self._prune, before, limit)

    def reset(self) -> None:
        self._write("reset", "DELETE FROM fingerprints")

    def delete_url(self, url: str) -> int:
        return self._write("delete", "DELETE FROM fingerprints WHERE url = ?", (url,))

    def discard(self, fingerprint: int, url: str, since: float) -> int:
        # k0 first: its index finds the fingerprint's rows without reading the table
        same = " AND ".join(f"{w} = ?" for w in self._w)
        return self._write("discard", f"DELETE FROM fingerprints WHERE id = (SELECT id FROM fingerprints WHERE "
                           f"k0 = ? AND {same} AND url = ? AND seen >= ? ORDER BY id DESC LIMIT 1)",
                           (self.plan.int_keys(fingerprint)[0], *self._words(fingerprint), url, since))

    def time_range(self) -> tuple[float, float] | None:
        """(oldest, newest) time stored, or None when empty."""
        low, high = self._db.execute("SELECT min(seen), max(seen) FROM fingerprints").fetchone()
        return None if low is None else (low, high)

    def close(self) -> None:
        if getattr(self, "_db", None) is not None:
            self._db.close()
            self._db = None  # type: ignore[assignment]


def default_sqlite_url(jobdir: str | None) -> str:
    """``JOBDIR/contentseen.sqlite`` when a job directory is set, else ``.contentseen/fingerprints.sqlite``."""
    path = Path(jobdir) / "contentseen.sqlite" if jobdir else Path(".contentseen") / "fingerprints.sqlite"
    return "sqlite:///" + os.fspath(path)
