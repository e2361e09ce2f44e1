"""The shared store on a Redis Cluster: ``redis+cluster://host:port`` (any node; ``rediss+cluster://``
for TLS; credentials and redis-py query options as in ``redis://``).

Same keys as the single-server store (:mod:`.redis_layout`, ``redis-v3``): the tables of a group
share a hash slot, so a check touches at most k+1 slots, whatever the number of tables. A check
is one script per group, sent to every shard at once (one round trip; the slot map is read from
the cluster and kept, and refreshed when a node answers MOVED or a connection fails):

1. *lookup*: each group returns its matching entries, group 0 with their records (same slot);
   the closest match wins (ties: stored first); a match found only outside group 0 has its
   record read in one more round trip (a match without a record is an unfinished add: skipped).
2. if none, *add*: group 0 claims the query's record -- atomic on its shard, so of crawlers
   racing with identical content (and page) exactly one keeps it, the others get its record as
   their match -- and every group appends the entry to its buckets unless it is there.

Near (not identical) copies checked by two crawlers within one round trip of each other may both
be kept: neither saw the other's entry in step 1. Nothing is kept twice otherwise.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any, Iterator
from urllib.parse import urlsplit, urlunsplit

from ..errors import ContentSeenError
from .base import Match
from . import redis as single
from .redis import READ_BATCH, USE_ERRORS, Command, RedisBackedStore, _redis, client_options, one_line
from .redis_layout import ADD_MANY_LUA, GROUP_LUA

if _redis is not None:
    from redis.crc import key_slot
    from redis.exceptions import AskError, MovedError, NoScriptError, TryAgainError

SLOTS = 16384


class ClusterRouter:
    """Commands to the primaries of a Redis Cluster, grouped by node: each node's commands are
    written on one connection, all nodes first, then every reply is read. EVALSHA of a script
    the node does not have is loaded there and sent again; MOVED/ASK/TRYAGAIN refresh the slot
    map and send those commands once more."""

    def __init__(self, seed: str, options: dict[str, Any]):
        self._seed, self._options = seed, options
        self._pools: dict[tuple[str, int], Any] = {}
        self._slots: list[tuple[str, int]] = []
        self._scripts: dict[bytes, str] = {}
        self.refresh()

    def script(self, source: str) -> str:
        """The SHA1 of ``source``, which EVALSHA commands may then name."""
        sha = hashlib.sha1(source.encode()).hexdigest()
        self._scripts[sha.encode()] = source
        return sha

    def _pool(self, node: tuple[str, int]) -> Any:
        pool = self._pools.get(node)
        if pool is None:
            base = _redis.ConnectionPool.from_url(self._seed, **self._options)
            kwargs = {**base.connection_kwargs, "host": node[0], "port": node[1]}
            pool = self._pools[node] = _redis.ConnectionPool(connection_class=base.connection_class, **kwargs)
        return pool

    def nodes(self) -> list[tuple[str, int]]:
        return sorted(set(self._slots))

    def refresh(self) -> None:
        """Read the slot map (CLUSTER SLOTS) from the seed or any node known so far."""
        seed = urlsplit(self._seed)
        candidates = [(seed.hostname or "localhost", seed.port or 6379), *self._pools]
        last: BaseException | None = None
        for node in dict.fromkeys(candidates):
            try:
                client = _redis.Redis(connection_pool=self._pool(node))
                reply = client.execute_command("CLUSTER SLOTS")
            except USE_ERRORS as exc:
                last = exc
                continue
            slots: list[tuple[str, int] | None] = [None] * SLOTS
            for start, end, primary, *_ in reply:
                host = primary[0].decode() if isinstance(primary[0], bytes) else primary[0]
                for slot in range(int(start), int(end) + 1):
                    slots[slot] = (host or node[0], int(primary[1]))
            if None in slots:
                last = _redis.ResponseError(f"CLUSTERDOWN {slots.count(None)} of {SLOTS} slots have no node")
                continue
            self._slots = slots  # type: ignore[assignment]
            return
        raise last if last is not None else _redis.ConnectionError("no cluster node")

    def send(self, commands: list[Command]) -> list:
        """Replies to ``commands`` in order; an error reply is its exception."""
        replies: list = [None] * len(commands)
        todo = list(range(len(commands)))
        for attempt in range(3):
            self._send(commands, todo, replies)
            retry = [i for i in todo if isinstance(replies[i], (AskError, TryAgainError, NoScriptError))
                     or _down(replies[i])]
            if not retry:
                break
            if any(isinstance(replies[i], (AskError, TryAgainError)) or _down(replies[i]) for i in retry):
                self.refresh()
            for i in retry:
                if isinstance(replies[i], NoScriptError):
                    self._load(commands[i])
            todo = retry
        return replies

    def _load(self, command: Command) -> None:
        source = self._scripts.get(_bytes(command[1][1]))
        if source is not None:
            node = self._slots[key_slot(command[0].encode())]
            _redis.Redis(connection_pool=self._pool(node)).script_load(source)

    def _send(self, commands: list[Command], todo: list[int], replies: list) -> None:
        by_node: dict[tuple[str, int], list[int]] = {}
        for i in todo:
            by_node.setdefault(self._slots[key_slot(commands[i][0].encode())], []).append(i)
        sent = []
        try:
            for node, numbers in by_node.items():
                pool = self._pool(node)
                connection = pool.get_connection()
                sent.append((pool, connection, numbers))
                connection.send_packed_command(connection.pack_commands([commands[i][1] for i in numbers]))
            for pool, connection, numbers in sent:
                for i in numbers:
                    try:
                        replies[i] = connection.read_response()
                    except _redis.ResponseError as exc:
                        replies[i] = exc
        except BaseException:
            for pool, connection, _ in sent:
                connection.disconnect()  # replies may be left unread on it
            raise
        finally:
            for pool, connection, _ in sent:
                pool.release(connection)

    def scan(self, pattern: str) -> Iterator[bytes]:
        for node in self.nodes():
            yield from _redis.Redis(connection_pool=self._pool(node)).scan_iter(match=pattern, count=READ_BATCH)

    def close(self) -> None:
        for pool in self._pools.values():
            pool.disconnect()
        self._pools.clear()


def _down(reply: Any) -> bool:
    """A reply that the slot map is out of date or the cluster is healing."""
    return isinstance(reply, _redis.ResponseError) and str(reply).startswith(("CLUSTERDOWN", "MOVED"))


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def seed_url(url: str) -> str:
    """``redis+cluster://h:p`` -> ``redis://h:p`` (``rediss+cluster`` -> ``rediss``)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("redis+cluster", "rediss+cluster") or not parts.hostname:
        raise ContentSeenError(f"CONTENTSEEN_STORE: {url!r} is not redis+cluster://host:port or rediss+cluster://...")
    if parts.path.strip("/") not in ("", "0"):
        raise ContentSeenError(f"CONTENTSEEN_STORE: {url!r}: a Redis Cluster has only database 0")
    try:
        parts.port
    except ValueError as exc:
        raise ContentSeenError(f"CONTENTSEEN_STORE: {url!r}: {one_line(exc)}") from None
    return urlunsplit((scheme.split("+")[0], parts.netloc, "", parts.query, ""))


class RedisClusterStore(RedisBackedStore):
    """Fingerprints on a Redis Cluster, shared by many crawlers (see the module's docstring)."""

    def _connect(self) -> None:
        seed = seed_url(self.url)
        try:
            self._router = ClusterRouter(seed, client_options())
        except (ValueError, TypeError) as exc:
            raise ContentSeenError(f"CONTENTSEEN_STORE: {self.url!r} is not a Redis URL: {one_line(exc)}") from None
        except USE_ERRORS as exc:
            raise ContentSeenError(f"store {self.url}: cannot connect to the Redis Cluster ({one_line(exc)})") from None
        self._group_sha = self._router.script(GROUP_LUA)
        self._add_sha = self._router.script(ADD_MANY_LUA)

    def _send(self, commands: list[Command]) -> list:
        try:
            return self._router.send(commands)
        except USE_ERRORS:
            # a lost connection or a moved slot: once more with a fresh slot map
            try:
                self._router.refresh()
            except USE_ERRORS:
                pass
            return self._router.send(commands)

    def _scan(self, pattern: str) -> Iterator[bytes]:
        try:
            yield from self._router.scan(pattern)
        except USE_ERRORS as exc:
            raise self._fail("listing entries", exc) from None

    def _group_commands(self, mode: str, fingerprint: int, entry: bytes, record: bytes) -> list[Command]:
        layout = self.layout
        buckets = layout.buckets(fingerprint)
        head = layout.head(mode, self.distance, self.page_distance, entry, record)
        commands = []
        for g, tables in layout.groups.items():
            keys = [buckets[t][0] for t in tables]
            if g == 0:
                keys += [layout.record_key(fingerprint), layout.counter_key(layout.tag0(fingerprint))]
            command = ("EVALSHA", self._group_sha, len(keys), *keys, *head, "1" if g == 0 else "0",
                       *(buckets[t][1] for t in tables))
            commands.append((keys[0], command))
        return commands

    def _check(self, mode: str, fingerprint: int, url: str, page: int | None) -> Match | None:
        entry = self._entry(fingerprint, page)
        record = self.layout.record(url, time.time())
        what = "check-and-add" if mode == "add" else "lookup"
        replies = self._batch(self._group_commands("lookup", fingerprint, entry, record), what)
        found: dict[bytes, list] = {}  # entry -> [distance, page distance, record or None]
        for reply in replies:
            for i in range(0, len(reply), 4):
                m, d, pd, rec = reply[i : i + 4]
                if m not in found or isinstance(rec, bytes):
                    found[m] = [int(d), int(pd), rec if isinstance(rec, bytes) else None]
        match = self._closest(found, what)
        if match is not None or mode == "lookup":
            return match
        claims = self._batch(self._group_commands("add", fingerprint, entry, record), what)
        rec = claims[list(self.layout.groups).index(0)]
        if not rec or rec == record:  # stored; or stored by our own earlier try of this call
            return None
        # a racer stored the identical entry first
        _, match_url = self.layout.decode_record(rec)
        has_page = self.layout.decode_entry(entry)[1] is not None
        return Match(url=match_url, fingerprint=fingerprint, distance=0, page_distance=0 if has_page else None)

    def _closest(self, found: dict[bytes, list], what: str) -> Match | None:
        """The closest entry of ``found`` that has a record (ties: stored first, smaller entry);
        records not read yet are read, those at the least distance first."""
        layout = self.layout
        while found:
            least = min(c[0] for c in found.values())
            tied = [m for m, c in found.items() if c[0] == least]
            unread = [m for m in tied if found[m][2] is None]
            if unread:
                keys = [layout.record_key(layout.decode_entry(m)[0]) for m in unread]
                for m, rec in zip(unread, self._batch([(key, ("HGET", key, m)) for key, m in zip(keys, unread)], what)):
                    found[m][2] = rec or b""
            stored = [m for m in tied if found[m][2]]
            if stored:
                best = min(stored, key=lambda m: (found[m][2][:8], m))
                d, pd, rec = found[best]
                return self._match(best[: layout.fp_bytes], d, rec[8:], pd)
            for m in tied:
                del found[m]
        return None

    def _load(self, rows: list[tuple]) -> None:
        layout = self.layout
        commands = []
        for g, tables in layout.groups.items():
            by_tag: dict[int, list[tuple]] = {}
            for row in rows:
                by_tag.setdefault(layout.tag(g, row[5]), []).append(row)
            for part in by_tag.values():
                for lo in range(0, len(part), single.ADD_MANY_BATCH):
                    keys, args = self._add_many_call(part[lo : lo + single.ADD_MANY_BATCH], tables, claim=g == 0)
                    commands.append((keys[0], ("EVALSHA", self._add_sha, len(keys), *keys, *args)))
        for lo in range(0, len(commands), READ_BATCH):
            self._batch(commands[lo : lo + READ_BATCH], "bulk add")

    def close(self) -> None:
        super().close()
        router, self._router = getattr(self, "_router", None), None
        if router is not None:
            router.close()
