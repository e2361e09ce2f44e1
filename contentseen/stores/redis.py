"""The shared store on one Redis server, used by any number of crawlers on any machines.

``CONTENTSEEN_STORE = "redis://host:6379/0"`` (also ``rediss://`` for TLS and
``unix:///path/to/redis.sock?db=0``; redis-py's URL query options such as ``socket_timeout=``
apply). Every key starts with the prefix (``CONTENTSEEN_REDIS_PREFIX``, default ``contentseen``),
so projects sharing a server do not see each other's pages.

The keys are those of :mod:`.redis_layout` (``redis-v3``), shared with the cluster store; meta
in ``P:meta`` (the fingerprint scheme, ``index``, ``buckets``, ``layout``, ``page_distance``),
written once by the first opener and checked on every open. Check-and-add is one Lua script
(EVALSHA): it reads the query's buckets, computes Hamming distances in Lua, and returns the
closest stored entry within the distances, or else appends the query to its buckets and writes
its record. Redis runs a script alone, so two crawlers adding the same or near content at the
same moment keep exactly one copy.

:class:`RedisBackedStore` holds what both Redis stores share: options, the meta check, entry
encoding, ``add_many``, ``entries`` and ``len``, over a transport of batches of commands.
"""

from __future__ import annotations

import abc
import logging
import re
import struct
import time
from typing import Any, Iterable, Iterator, Mapping, Sequence
from urllib.parse import urlsplit

import numpy as np

from ..blocks import DEFAULT_EXPECTED, plan_for
from ..errors import ContentSeenError, one_line
from ..simhash import from_int
from .base import (
    Entry, FingerprintStore, Match, Query, StoreError, applied_page_distance, check_batch, check_identity,
    expected_pages, expire_seconds, page_argument, recorded_expected, rest_argument, saved_scheme,
)
from .registry import display_url
from .redis_layout import ADD_MANY_LUA, CHECK_AND_ADD_LUA, LAYOUT, OPEN_LUA, REMOVE_LUA, RedisLayout, hash_bits

from .redis_wire import USE_ERRORS, Command, Node, Scripts, _redis, client_options

logger = logging.getLogger(__name__)

DEFAULT_PREFIX = "contentseen"
# Seconds between checks that the scheme record is still there: a server restarted empty (or an
# eviction) loses it, and a crawl with another scheme could then open the store unrefused.
SCHEME_CHECK_S = 1.0
# Entries per script call of add_many: one script blocks its server while it runs.
ADD_MANY_BATCH = 2000
# Commands per round trip of len(), entries() and bulk loads
READ_BATCH = 1000
# With an expiry, every SWEEP_EVERY-th add also sweeps SWEEP_KEYS record hashes for expired
# entries (about one more round trip per SWEEP_EVERY pages), so their memory returns.
SWEEP_EVERY, SWEEP_KEYS = 16, 64


class RedisBackedStore(FingerprintStore):
    """What the Redis stores share; subclasses connect (``_connect``), run batches of commands
    (``_batch``), scan keys (``_scan``), check (``_lookup``, ``_check_many``) and bulk-load
    (``_load``)."""

    OPTIONS = frozenset(("prefix", "expected", "expire"))
    OWN_FIELDS = FingerprintStore.OWN_FIELDS | {"buckets"}

    @classmethod
    def options_from_settings(cls, settings: Any) -> dict[str, Any]:
        return {"prefix": settings.get("CONTENTSEEN_REDIS_PREFIX", DEFAULT_PREFIX),
                "expected": expected_pages(settings), "expire": expire_seconds(settings)}

    @classmethod
    def saved_meta(cls, url: str, prefix: str = DEFAULT_PREFIX, **options: Any) -> dict[str, str]:
        store = cls.__new__(cls)  # a connection, without writing the meta as __init__ does
        store.url, store.prefix = url, prefix
        store._connect()
        store._open = True
        try:
            reply = store._batch([(f"{prefix}:meta", ("HGETALL", f"{prefix}:meta"))])[0]
        finally:
            store.close()
        if not reply:
            raise ContentSeenError(f"store {url}: no contentseen store with prefix {prefix} ({prefix}:meta is absent)")
        return _as_dict(reply)

    @classmethod
    def expected_of(cls, saved: Mapping[str, str], bits: int, distance: int) -> int:
        return recorded_expected(saved, lambda n: {"index": plan_for(bits, distance, n).description,
                                                   "buckets": str(hash_bits(n))})

    def __init__(self, url: str, identity: Mapping[str, str], bits: int, distance: int,
                 prefix: str | None = DEFAULT_PREFIX, expected: int = DEFAULT_EXPECTED, expire: float | None = None,
                 *, page_distance: int | None = None):
        self.url = url
        self.expire = expire
        self._adds = 0
        self._sweep: Iterator[bytes] | None = None
        if _redis is None:
            raise ContentSeenError(f"store {url}: the Redis stores need redis-py (pip install 'contentseen[redis]')")
        prefix = DEFAULT_PREFIX if prefix is None else prefix
        # braces would change which part of a key names its cluster hash slot
        if not isinstance(prefix, str) or not prefix or any(c.isspace() or c in "{}" for c in prefix):
            raise ContentSeenError(f"CONTENTSEEN_REDIS_PREFIX: {prefix!r} must be a non-empty word without braces")
        self.prefix = prefix
        self.bits, self.distance, self.page_distance = bits, distance, page_distance
        self.plan = plan_for(bits, distance, expected)
        self.layout = RedisLayout(prefix, self.plan, expected, page_distance is not None)
        self.identity = saved_scheme({**identity, **self.layout.describe()}, self.plan.description, LAYOUT,
                                     page_distance)
        self._meta_key = f"{prefix}:meta"
        self._open = False
        self._connect()
        self._open = True
        try:
            self._record_scheme()
        except ContentSeenError:
            self.close()
            raise
        self._scheme_checked = time.monotonic()
        self._scheme_error: str | None = None

    def _record_scheme(self) -> None:
        """Write the scheme record unless there is one; refuse a store of another scheme."""
        scheme = [x for kv in sorted(self.identity.items()) for x in kv]
        try:
            saved = self._send([(self._meta_key, ("EVAL", OPEN_LUA, 1, self._meta_key, *scheme))])[0]
        except USE_ERRORS as exc:
            saved = exc
        if isinstance(saved, Exception):
            raise ContentSeenError(f"store {self.url}: cannot use key {self._meta_key} ({one_line(saved)})")
        check_identity(self._describe(), _as_dict(saved), self.identity)

    def _check_scheme(self) -> None:
        """At most once every ``SCHEME_CHECK_S``, read the scheme record: one that was lost
        (restarted empty, keys evicted) is written again; one of another scheme (a crawl that
        opened the store while it had none) makes every call fail from now on (StoreError)."""
        if self._scheme_error is not None:
            raise StoreError(self._scheme_error)
        now = time.monotonic()
        if now - self._scheme_checked < SCHEME_CHECK_S:
            return
        (saved,) = self._batch([(self._meta_key, ("HGETALL", self._meta_key))], "scheme check")
        try:
            if saved:
                check_identity(self._describe(), _as_dict(saved), self.identity)
            else:
                logger.warning("ContentSeen: store %s (prefix %s) lost its scheme record (restarted empty, or its "
                               "keys were evicted); recording it again", display_url(self.url), self.prefix)
                self._record_scheme()
        except ContentSeenError as exc:
            self._scheme_error = f"{exc} (it changed while this crawl used the store)"
            raise StoreError(self._scheme_error) from None
        self._scheme_checked = now

    def _describe(self) -> str:
        return f"{self.url} (prefix {self.prefix})"

    def _fail(self, what: str, exc: BaseException) -> StoreError:
        return StoreError(f"store {self._describe()}: {what} failed ({one_line(exc)})")

    # ---------------------------------------------------------------- the transport

    @abc.abstractmethod
    def _connect(self) -> None:
        """Make the client(s); a bad URL or an unreachable server is a ContentSeenError."""

    @abc.abstractmethod
    def _nodes(self) -> list[Node]:
        """Every server the store's keys live on."""

    def server_memory(self) -> int:
        """Bytes the store's server(s) use (``used_memory``, summed over the nodes): every prefix
        on them, not this store's alone, which only a scan of its keys could tell."""
        total = 0
        try:
            for node in self._nodes():
                (reply,) = node.exchange([("INFO", "memory")])
                total += int(re.search(rb"used_memory:(\d+)", reply)[1])
        except USE_ERRORS as exc:
            raise self._fail("INFO memory", exc) from None
        return total

    @abc.abstractmethod
    def _send(self, commands: list[Command]) -> list:
        """Run ``commands`` in as few round trips as can be; replies in order (an error reply
        is returned as its exception); a lost connection raises."""

    def _scan(self, pattern: str) -> Iterator[bytes]:
        """Every key that matches ``pattern``, node by node (SCAN, never KEYS)."""
        try:
            for node in self._nodes():
                yield from node.scan(pattern, READ_BATCH)
        except USE_ERRORS as exc:
            raise self._fail("listing entries", exc) from None

    def _batch(self, commands: list[Command], what: str = "meta", error_replies: bool = False) -> list:
        """``_send``, every failure a StoreError (an error reply too, unless ``error_replies``)."""
        if not self._open:
            raise StoreError(f"store {self._describe()}: used after close")
        try:
            replies = self._send(commands)
        except USE_ERRORS as exc:
            raise self._fail(what, exc) from None
        for reply in replies:
            if isinstance(reply, Exception) and not error_replies:
                raise self._fail(what, reply)
        return replies

    # ---------------------------------------------------------------- the store

    def _entry(self, fingerprint: int, page: int | None) -> bytes:
        if not self._open:
            raise StoreError(f"store {self._describe()}: used after close")
        if not 0 <= fingerprint < 1 << self.bits:
            raise ContentSeenError(f"fingerprint {fingerprint:#x} does not fit in {self.bits} bits")
        return self.layout.entry(fingerprint, page_argument(page, self.page_distance))

    @abc.abstractmethod
    def _lookup(self, fingerprint: int, page: int | None, limit: int | None, rest: int | None,
                rest_distance: int | None) -> Match | None:
        """``lookup``, page fingerprints within ``limit``, rests within ``rest_distance``."""

    @abc.abstractmethod
    def _check_many(self, queries: list[Query]) -> list[Match | None]:
        """check_and_add of each query (its page distance the one the store applies), in order,
        in as few round trips as the backend can."""

    def check_and_add(self, fingerprint: int, url: str, page: int | None = None, page_distance: int | None = None,
                      rest: int | None = None, rest_distance: int | None = None) -> Match | None:
        return self.check_many([Query(fingerprint, url, page, page_distance, rest, rest_distance)])[0]

    def check_many(self, queries: Sequence[Query]) -> list[Match | None]:
        if not queries:
            return []
        self._check_scheme()
        matches = self._check_many([
            q._replace(page_distance=applied_page_distance(self.page_distance, q.page_distance),
                       rest=rest_argument(q.rest)) for q in queries])
        if self.expire is not None:
            adds, self._adds = self._adds, self._adds + matches.count(None)
            if self._adds // SWEEP_EVERY > adds // SWEEP_EVERY:
                self.prune(self.cutoff(), SWEEP_KEYS)
        return matches

    def lookup(self, fingerprint: int, page: int | None = None, page_distance: int | None = None,
               rest: int | None = None, rest_distance: int | None = None) -> Match | None:
        limit = applied_page_distance(self.page_distance, page_distance)
        return self._lookup(fingerprint, page, limit, rest_argument(rest), rest_distance)

    def _match(self, fp_bytes: bytes, distance: int, record: bytes, page_distance: int) -> Match:
        """The match of a stored entry's fingerprint bytes, given its ``record``."""
        return Match(url=self.layout.record_url(record).decode("utf-8", "surrogateescape"),
                     fingerprint=int.from_bytes(fp_bytes, "big"), distance=int(distance),
                     page_distance=int(page_distance) if int(page_distance) >= 0 else None)

    def add_many(self, fingerprints: Sequence[int], urls: Sequence[str], pages: Sequence[int | None] | None = None,
                 seen: Sequence[float] | None = None, rests: Sequence[int | None] | None = None) -> None:
        """Bulk-load fingerprints (with page and rest fingerprints, times) without checking them
        (seeding or migrating a store); an entry already stored is skipped. Runs as scripts of
        at most ``ADD_MANY_BATCH`` entries each, so other crawlers are not held up for the whole
        load; on error the batches before the failed one stay stored."""
        check_batch(fingerprints, urls, pages, seen, rests)
        if not len(fingerprints):
            return
        now = time.time()
        entries = [self._entry(fp, None if pages is None else pages[i]) for i, fp in enumerate(fingerprints)]
        words = np.array([from_int(fp, self.bits) for fp in fingerprints], dtype=np.uint64)
        keys = self.plan.keys(words.reshape(len(entries), self.plan.words)).tolist()
        layout = self.layout
        rows = [
            (entry, layout.record(url, now if seen is None else seen[i],
                                  None if rests is None else rest_argument(rests[i])), layout.buckets(fp, keys[i]),
             layout.record_key(fp), layout.counter_key(layout.tag0(fp)), fp)
            for i, (entry, fp, url) in enumerate(zip(entries, fingerprints, urls))
        ]
        self._load(rows)

    @abc.abstractmethod
    def _load(self, rows: list[tuple]) -> None:
        """Store rows of (entry, record, buckets, record key, counter key, fingerprint)."""

    def _add_many_call(self, rows: Iterable[tuple], tables: Sequence[int], claim: bool) -> tuple[list, list]:
        """KEYS and ARGV of one ADD_MANY script call for ``rows``' buckets of ``tables`` (and
        their records when ``claim``)."""
        keys, args = [], [len(tables), "1" if claim else "0", self.layout.entry_bytes]
        for entry, record, buckets, record_key, counter_key, _ in rows:
            keys += [buckets[t][0] for t in tables]
            if claim:
                keys += [record_key, counter_key]
            args += [entry, record, *(buckets[t][1] for t in tables)]
        return keys, args

    def _records(self, keys: Sequence[bytes], what: str) -> list[tuple[bytes, bytes]]:
        """(entry, record) of every record in the record hashes ``keys``."""
        rows = []
        for lo in range(0, len(keys), READ_BATCH):
            part = keys[lo : lo + READ_BATCH]
            for reply in self._batch([(key.decode(), ("HGETALL", key)) for key in part], what):
                rows += _as_dict(reply, decode=False).items()
        return rows

    def entries(self) -> Iterator[Entry]:
        """Every record, by the time it was stored (then by entry). Reads all of them first, to
        sort them: about 100 bytes of client memory per entry."""
        rows = self._records(list(self._scan(self.layout.record_pattern())), "listing entries")
        rows.sort(key=lambda row: (row[1][:8], row[0]))
        for entry, record in rows:
            fingerprint, page = self.layout.decode_entry(entry)
            seen, url, rest = self.layout.decode_record(record)
            yield Entry(fingerprint, page, url, seen, rest)

    def __len__(self) -> int:
        keys = self.layout.counter_keys()
        total = 0
        for lo in range(0, len(keys), READ_BATCH):
            replies = self._batch([(key, ("GET", key)) for key in keys[lo : lo + READ_BATCH]], "count")
            total += sum(int(r) for r in replies if r is not None)
        return total

    def _sweep_keys(self, limit: int | None) -> list[bytes]:
        """The next ``limit`` record hashes of a scan kept across calls (started again when it
        ends), or all of them."""
        pattern = self.layout.record_pattern()
        if limit is None:
            return list(self._scan(pattern))
        keys: list[bytes] = []
        for _ in range(2):
            if self._sweep is None:
                self._sweep = self._scan(pattern)
            keys += [key for _, key in zip(range(limit - len(keys)), self._sweep)]
            if len(keys) == limit:
                break
            self._sweep = None
        return list(dict.fromkeys(keys))

    def prune(self, before: float, limit: int | None = None) -> int:
        """Remove entries stored before ``before`` (with a ``limit``: those in the next
        ``limit`` record hashes of a sweep that goes round the store)."""
        cutoff = struct.pack(">d", before)
        old = [entry for entry, record in self._records(self._sweep_keys(limit), "prune") if record[:8] < cutoff]
        return self._remove(old, cutoff)

    def delete_url(self, url: str) -> int:
        wanted = url.encode("utf-8", "surrogateescape")
        rows = self._records(self._sweep_keys(None), "delete")
        return self._remove([entry for entry, record in rows if self.layout.record_url(record) == wanted], b"")

    def discard(self, fingerprint: int, url: str, since: float) -> int:
        """The entries of the fingerprint's record hash with this URL, stored since ``since``
        (any page fingerprint: the hash is keyed by content), out of every bucket."""
        layout, fp = self.layout, fingerprint.to_bytes(self.layout.fp_bytes, "big")
        key = layout.record_key(fingerprint)
        (reply,) = self._batch([(key, ("HGETALL", key))], "discard")
        wanted, after = url.encode("utf-8", "surrogateescape"), struct.pack(">d", since)
        mine = [entry for entry, record in _as_dict(reply, decode=False).items()
                if entry[: len(fp)] == fp and layout.record_url(record) == wanted and record[:8] >= after]
        return self._remove(mine, b"")

    def _remove_call(self, entry: bytes, tables: Sequence[int], claim: bool, cutoff: bytes) -> Command:
        """One REMOVE script call: ``entry`` out of ``tables``' buckets (and its record when
        ``claim``, if older than ``cutoff``)."""
        layout = self.layout
        fingerprint = layout.decode_entry(entry)[0]
        buckets = layout.buckets(fingerprint)
        keys = [buckets[t][0] for t in tables]
        if claim:
            keys += [layout.record_key(fingerprint), layout.counter_key(layout.tag0(fingerprint))]
        return keys[0], ("EVALSHA", self._remove_sha, len(keys), *keys, entry, cutoff, "1" if claim else "0",
                         *(buckets[t][1] for t in tables))

    @abc.abstractmethod
    def _remove(self, entries: list[bytes], cutoff: bytes) -> int:
        """Remove ``entries`` whose record is older than ``cutoff`` (b"": any); how many went."""

    def reset(self) -> None:
        """UNLINK every key of the store but its meta, found by SCAN (never KEYS: it would block
        the server), in batches; on a cluster, node by node."""
        keys = list(self._scan(self.layout.data_pattern()))
        for lo in range(0, len(keys), READ_BATCH):
            self._batch([(key.decode(), ("UNLINK", key)) for key in keys[lo : lo + READ_BATCH]], "reset")
        self._sweep = None

    def close(self) -> None:
        self._open = False


def _as_dict(reply: Any, decode: bool = True) -> dict:
    """A HGETALL reply (a dict, or a flat list from a raw connection)."""
    if not isinstance(reply, dict):
        reply = dict(zip(reply[::2], reply[1::2]))
    if decode:
        return {_text(k): _text(v) for k, v in reply.items()}
    return reply


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisStore(RedisBackedStore):
    """Fingerprints in one Redis server, shared by many crawlers; check-and-add is one atomic
    Lua script."""

    def _connect(self) -> None:
        url = self.url
        parts = urlsplit(url)
        if parts.scheme.lower() in ("redis", "rediss") and parts.path.strip("/") and not parts.path.strip("/").isdigit():
            raise ContentSeenError(
                f"CONTENTSEEN_STORE: {url!r}: the database after the port must be a number (redis://host:port/0)"
            )
        try:
            pool = _redis.ConnectionPool.from_url(url, **client_options())
        except (ValueError, TypeError) as exc:
            raise ContentSeenError(
                f"CONTENTSEEN_STORE: {url!r} is not a Redis URL "
                f"(redis://host:port/db, rediss://..., unix:///path?db=N): {one_line(exc)}"
            ) from None
        scripts = Scripts()
        self._check_sha, self._add_sha = scripts.sha(CHECK_AND_ADD_LUA), scripts.sha(ADD_MANY_LUA)
        self._remove_sha = scripts.sha(REMOVE_LUA)
        self._node = Node(pool, scripts)
        try:
            (pong,) = self._node.exchange([("PING",)])
        except USE_ERRORS as exc:
            pong = exc
        if isinstance(pong, Exception):
            self._node.close()
            raise ContentSeenError(f"store {url}: cannot connect to Redis ({one_line(pong)})")

    def _send(self, commands: list[Command]) -> list:
        plain = [command for _, command in commands]
        try:
            return self._node.exchange(plain)
        except (_redis.ConnectionError, _redis.TimeoutError):
            # A dropped connection (server restart, idle close): once more on a fresh one. A
            # check that ran the first time then finds its own record: see _answer.
            return self._node.exchange(plain)

    def _nodes(self) -> list[Node]:
        return [self._node]

    def _script(self, mode: str, check: Query) -> tuple[Command, bytes]:
        """The check script's call for a query, and the record it stores."""
        layout, fingerprint = self.layout, check.fingerprint
        entry = self._entry(fingerprint, check.page)
        record = layout.record(check.url, time.time(), check.rest)
        buckets = layout.buckets(fingerprint)
        keys = [name for name, _ in buckets] + [layout.record_key(fingerprint),
                                                 layout.counter_key(layout.tag0(fingerprint))]
        args = layout.head(mode, self.distance, check.page_distance, entry, record, self.cutoff(), check.rest,
                           check.rest_distance)
        return (keys[0], ("EVALSHA", self._check_sha, len(keys), *keys, *args, *(field for _, field in buckets))), record

    def _answer(self, mode: str, reply: Any, record: bytes) -> Match | None:
        if not reply:
            return None
        fp_bytes, d, match_record, page_d = reply
        if mode == "add" and match_record == record:  # the first try of a retried call stored it
            return None
        return self._match(fp_bytes, d, match_record, page_d)

    def _lookup(self, fingerprint: int, page: int | None, limit: int | None, rest: int | None,
                rest_distance: int | None) -> Match | None:
        command, record = self._script("lookup", Query(fingerprint, "", page, limit, rest, rest_distance))
        return self._answer("lookup", self._batch([command], "lookup")[0], record)

    def _check_many(self, queries: list[Query]) -> list[Match | None]:
        # One round trip: the scripts run one after another, each atomic, each seeing the ones before.
        calls = [self._script("add", query) for query in queries]
        replies = self._batch([command for command, _ in calls], "check-and-add")
        return [self._answer("add", reply, record) for reply, (_, record) in zip(replies, calls)]

    def _load(self, rows: list[tuple]) -> None:
        tables = range(self.plan.n_tables)
        commands = []
        for lo in range(0, len(rows), ADD_MANY_BATCH):
            keys, args = self._add_many_call(rows[lo : lo + ADD_MANY_BATCH], tables, claim=True)
            commands.append((keys[0], ("EVALSHA", self._add_sha, len(keys), *keys, *args)))
        for lo in range(0, len(commands), 8):  # a few scripts a round trip: the server is never idle
            self._batch(commands[lo : lo + 8], "bulk add")

    def _remove(self, entries: list[bytes], cutoff: bytes) -> int:
        tables = range(self.plan.n_tables)
        commands = [self._remove_call(entry, tables, True, cutoff) for entry in entries]
        removed = 0
        for lo in range(0, len(commands), READ_BATCH):
            removed += sum(self._batch(commands[lo : lo + READ_BATCH], "remove"))
        return removed

    def close(self) -> None:
        super().close()
        node, self._node = getattr(self, "_node", None), None
        if node is not None:
            try:
                node.close()
            except Exception:  # noqa: BLE001 - closing a dead connection must not fail a crawl
                pass
