"""The shared store on a Redis Cluster: ``redis+cluster://host:port`` (any node; ``rediss+cluster://``
for TLS; credentials and redis-py query options as in ``redis://``).

Same keys as the single-server store (:mod:`.redis_layout`, ``redis-v3``): the tables of a group
share a hash slot, so a check touches at most k+1 slots, whatever the number of tables. Commands
of a step go to every shard at once: one round trip (the slot map is read from the cluster and
kept, and refreshed when a node answers MOVED or a connection fails).

1. *lookup*: HGET of the query's bucket in every table; the matching entries are compared in
   Python, and the records of the closest are read (one more round trip, only when something
   matches; ties: the closer page, then stored first; a match without a record is an add that did not finish: skipped).
2. if none, *add*, a group at a time (ADD_LUA). Group 0's claims the query's record -- atomic on
   its shard, so of crawlers racing with identical content (and page) exactly one keeps it, the
   others get its record as their match -- and every group appends the entry to its buckets
   unless it is there. The groups a node serves go as one script call (ADD_LOCAL_LUA, see
   ``_add``): a call costs its server more than the commands it runs.

Near (not identical) copies checked by two crawlers within one round trip of each other may both
be kept: neither saw the other's entry in step 1. Nothing is kept twice otherwise.

``check_many`` takes both steps for a batch of pages at once: a round trip costs a server far
more than the commands it carries, and a check meets up to k+1 shards twice.
"""

from __future__ import annotations

import logging
import struct
import time
from typing import NamedTuple
from urllib.parse import urlsplit, urlunsplit

from ..errors import ContentSeenError, one_line
from . import redis as single
from .base import Match, Query, rest_vetoes
from .registry import display_url
from .redis import READ_BATCH, RedisBackedStore
from .redis_layout import ADD_LOCAL_LUA, ADD_LUA, ADD_MANY_LUA, REMOVE_LUA
from .redis_wire import USE_ERRORS, ClusterRouter, Command, Scripts, client_options

logger = logging.getLogger(__name__)


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


class _Asked(NamedTuple):
    """A query of ``check_many`` as the steps use it."""

    fingerprint: int
    url: str
    entry: bytes
    record: bytes
    buckets: list
    limit: int | None
    rest: int | None = None
    rest_distance: int | None = None


class _Group(NamedTuple):
    """A query's group in step 2: sent as one ADD script call (``command``), or as its part of
    a node's ADD_LOCAL call (``part``); routed by its first bucket."""

    keys: list[str]  # the bucket hashes of its tables
    fields: list[int]
    claim: list[str]  # group 0: the query's record key and counter key; else none
    entry: bytes
    record: bytes

    def command(self, sha: str) -> tuple:
        return ("EVALSHA", sha, len(self.keys) + len(self.claim), *self.keys, *self.claim, self.entry, self.record,
                "1" if self.claim else "0", *self.fields)

    def part(self) -> list:
        return ["1" if self.claim else "0", len(self.keys), self.entry, self.record, *self.claim,
                *(x for key, field in zip(self.keys, self.fields) for x in (key, field))]


class RedisClusterStore(RedisBackedStore):
    """Fingerprints on a Redis Cluster, shared by many crawlers (see the module's docstring)."""

    def _connect(self) -> None:
        seed = seed_url(self.url)
        scripts = Scripts()
        self._add_sha, self._add_many_sha = scripts.sha(ADD_LUA), scripts.sha(ADD_MANY_LUA)
        self._remove_sha = scripts.sha(REMOVE_LUA)
        self._add_local_sha = scripts.sha(ADD_LOCAL_LUA)
        self._local = True  # a call a node in step 2 (see _add)
        try:
            self._router = ClusterRouter(seed, client_options(), scripts)
        except (ValueError, TypeError) as exc:
            raise ContentSeenError(f"CONTENTSEEN_STORE: {self.url!r} is not a Redis URL: {one_line(exc)}") from None
        except USE_ERRORS as exc:
            raise ContentSeenError(f"store {self.url}: cannot connect to the Redis Cluster ({one_line(exc)})") from None

    def _send(self, commands: list[Command]) -> list:
        try:
            return self._router.send(commands)
        except USE_ERRORS:
            # a lost connection (a node restarted, an idle close): once more, with a fresh slot
            # map when one can be read. A step that ran the first time is harmless to repeat.
            try:
                self._router.refresh()
            except USE_ERRORS:
                pass
            return self._router.send(commands)

    def _nodes(self) -> list:
        return self._router.nodes()

    def _add(self, items: list[_Group]) -> list:
        """Replies to step 2's ``items`` in one round trip: the items of a node in one ADD_LOCAL
        call (a script call costs its server more than the commands it runs), a lone item as its
        ADD command. A node's call that fails (the slot map was out of date: an item's keys are
        served elsewhere) is sent again as its items' commands, which the router takes to the
        right nodes; ADD finds the items stored before the failure there and leaves them as they
        are."""
        by_node: dict[object, list[int]] = {}
        for i, item in enumerate(items):
            by_node.setdefault(self._router.node_of(item.keys[0]), []).append(i)
        commands: list[Command] = []
        parts: list[tuple[list[int], bool]] = []  # the items of each command, whether a node's call
        for numbers in by_node.values():
            if self._local and len(numbers) > 1:
                args = [x for i in numbers for x in items[i].part()]
                commands.append((items[numbers[0]].keys[0], ("EVALSHA", self._add_local_sha, 0, self.layout.entry_bytes,
                                                             *args)))
                parts.append((numbers, True))
            else:
                commands += [self._add_command(items[i]) for i in numbers]
                parts += [([i], False) for i in numbers]
        replies: list = [None] * len(items)
        again: list[int] = []
        failed: Exception | None = None
        for (numbers, local), reply in zip(parts, self._batch(commands, "check-and-add", error_replies=True)):
            if isinstance(reply, Exception):
                if not local:
                    raise self._fail("check-and-add", reply)
                again += numbers
                failed = reply
            elif local:
                for i, got in zip(numbers, reply):
                    replies[i] = got
            else:
                replies[numbers[0]] = reply
        if failed is not None:
            self._local_failed(failed)
            for i, got in zip(again, self._batch([self._add_command(items[i]) for i in again], "check-and-add")):
                replies[i] = got
        return replies

    def _add_command(self, item: _Group) -> Command:
        return item.keys[0], item.command(self._add_sha)

    def _local_failed(self, error: Exception) -> None:
        """An ADD_LOCAL call's error: the slot map is read again; a cluster that refuses a
        script keys of several slots (Redis 5 to 7 do not, to a script without a shebang) gets a
        call a group from now on."""
        if "same slot" in str(error) and self._local:
            self._local = False
            logger.warning("ContentSeen: store %s: the cluster refuses scripts over several slots of a node (%s); "
                           "storing with a script call a slot from now on", display_url(self.url), one_line(error))
        try:
            self._router.refresh()
        except USE_ERRORS:
            pass

    def _buckets(self, buckets: list[list[tuple[str, int]]], what: str) -> list:
        """Step 1: each query's ``buckets`` (hash name, field) read, query after query."""
        return self._batch([(name, ("HGET", name, field)) for each in buckets for name, field in each], what)

    def _found(self, entry: bytes, buckets: list, limit: int | None) -> dict[bytes, list]:
        """The entries of a query's ``buckets`` (HGET replies) that match it: entry -> [distance,
        page distance, record (read later)]."""
        layout, width = self.layout, self.layout.entry_bytes
        found: dict[bytes, list] = {}
        for bucket in buckets:
            for i in range(0, len(bucket or b""), width):
                m = bucket[i : i + width]
                if m not in found and (near := layout.near(entry, m, self.distance, limit)):
                    found[m] = [*near, None]
        return found

    def _lookup(self, fingerprint: int, page: int | None, limit: int | None, rest: int | None,
                rest_distance: int | None) -> Match | None:
        entry = self._entry(fingerprint, page)
        cutoff = self.cutoff()
        found = self._found(entry, self._buckets([self.layout.buckets(fingerprint)], "lookup"), limit)
        return self._closest([found], "lookup", b"" if cutoff is None else struct.pack(">d", cutoff),
                             [(rest, rest_distance)])[0][0]

    def _check_many(self, queries: list[Query]) -> list[Match | None]:
        """Step 1 for every query in one round trip; the matches' records in one more (when
        some query has a match); step 2 for every query left, in one round trip. A query also
        matches an earlier one of the batch left to be stored, as if it were (compared here)."""
        layout, now = self.layout, time.time()
        cutoff = self.cutoff()
        cutoff_bytes = b"" if cutoff is None else struct.pack(">d", cutoff)
        asked = [_Asked(q.fingerprint, q.url, self._entry(q.fingerprint, q.page), layout.record(q.url, now, q.rest),
                        layout.buckets(q.fingerprint), q.page_distance, q.rest, q.rest_distance) for q in queries]
        replies = self._buckets([a.buckets for a in asked], "check-and-add")
        n = len(asked[0].buckets)  # tables a query
        closest = self._closest([self._found(a.entry, replies[q * n : (q + 1) * n], a.limit)
                                 for q, a in enumerate(asked)], "check-and-add", cutoff_bytes,
                                [(a.rest, a.rest_distance) for a in asked])
        expired = [m for _, gone in closest for m in gone]
        if expired:
            self._remove(list(dict.fromkeys(expired)), cutoff_bytes)
        matches: list[Match | None] = []
        added: list[tuple[int, _Asked]] = []  # the queries to store, in order
        for q, a in enumerate(asked):
            match = closest[q][0]
            for _, other in added:  # the batch's own, stored after every stored entry: ties go to those
                near = layout.near(a.entry, other.entry, self.distance, a.limit)
                if near and not rest_vetoes(a.rest, other.rest, a.rest_distance) and (
                        match is None or near < (match.distance, -1 if match.page_distance is None
                                                 else match.page_distance)):
                    match = Match(url=other.url, fingerprint=other.fingerprint, distance=near[0],
                                  page_distance=near[1] if near[1] >= 0 else None)
            matches.append(match)
            if match is None:
                added.append((q, a))
        if not added:
            return matches
        groups = len(layout.groups)
        claims = self._add([item for _, a in added for item in self._add_items(a)])
        for i, (q, a) in enumerate(added):
            rec = claims[i * groups]
            if rec and rec != a.record and not rest_vetoes(a.rest, layout.record_rest(rec), a.rest_distance):
                # a racer stored the identical entry first (else: stored, by our own earlier try of
                # this call, or the identical entry's rest is apart: kept, its record not replaced)
                has_page = layout.decode_entry(a.entry)[1] is not None
                matches[q] = Match(url=layout.decode_record(rec)[1], fingerprint=a.fingerprint, distance=0,
                                   page_distance=0 if has_page else None)
        return matches

    def _add_items(self, a: _Asked) -> list[_Group]:
        """Step 2 of a query for ``_add``: a group each, group 0 (the record's claim) first."""
        layout = self.layout
        return [_Group([a.buckets[t][0] for t in tables], [a.buckets[t][1] for t in tables],
                       [layout.record_key(a.fingerprint), layout.counter_key(layout.tag0(a.fingerprint))] if g == 0
                       else [], a.entry, a.record)
                for g, tables in layout.groups.items()]

    def _closest(self, founds: list[dict[bytes, list]], what: str, cutoff: bytes,
                 rests: list[tuple[int | None, int | None]]) -> list[tuple[Match | None, list[bytes]]]:
        """For each query's ``found``: the closest entry that has a record stored at ``cutoff``
        or later (b"": any; ties: the closer page, stored first, smaller entry) and a rest its
        query's ``rests`` (rest, rest distance) do not rule out, and the expired entries met on
        the way. The records of every query's entries at its least distances are read together,
        one round trip (more only when all of a query's were gone)."""
        layout = self.layout
        results: list[Match | None] = [None] * len(founds)
        expired: list[list[bytes]] = [[] for _ in founds]
        todo = [q for q, found in enumerate(founds) if found]
        while todo:
            asks = []
            for q in todo:
                least = min((c[0], c[1]) for c in founds[q].values())
                asks += [(q, m) for m, c in founds[q].items() if (c[0], c[1]) == least]
            keys = [layout.record_key(layout.decode_entry(m)[0]) for _, m in asks]
            recs = self._batch([(key, ("HGET", key, m)) for key, (_, m) in zip(keys, asks)], what)
            tied: dict[int, list[bytes]] = {}
            for (q, m), rec in zip(asks, recs):
                founds[q][m][2] = rec
                if rec and rec[:8] < cutoff:
                    expired[q].append(m)
                tied.setdefault(q, []).append(m)
            todo = []
            for q, ms in tied.items():
                found = founds[q]
                stored = [m for m in ms if found[m][2] and found[m][2][:8] >= cutoff
                          and not rest_vetoes(rests[q][0], layout.record_rest(found[m][2]), rests[q][1])]
                if stored:
                    best = min(stored, key=lambda m: (found[m][2][:8], m))
                    d, pd, rec = found[best]
                    results[q] = self._match(best[: layout.fp_bytes], d, rec, pd)
                    continue
                for m in ms:  # no record (an add that did not finish, a removed entry), expired, or its rest apart
                    del found[m]
                if found:
                    todo.append(q)
        return list(zip(results, expired))

    def _remove(self, entries: list[bytes], cutoff: bytes) -> int:
        """Group 0's script removes each entry's record (when older than ``cutoff``) and its
        buckets of that group; then the other groups' buckets of those removed. Not atomic
        across groups: the identical content stored again in between may miss a few buckets."""
        groups = self.layout.groups
        first = [self._remove_call(entry, groups[0], True, cutoff) for entry in entries]
        gone = [entry for entry, ok in zip(entries, self._batch(first, "remove")) if ok]
        rest = [self._remove_call(entry, tables, False, cutoff) for entry in gone
                for g, tables in groups.items() if g != 0]
        for lo in range(0, len(rest), READ_BATCH):
            self._batch(rest[lo : lo + READ_BATCH], "remove")
        return len(gone)

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
                    commands.append((keys[0], ("EVALSHA", self._add_many_sha, len(keys), *keys, *args)))
        for lo in range(0, len(commands), READ_BATCH):
            self._batch(commands[lo : lo + READ_BATCH], "bulk add")

    def close(self) -> None:
        super().close()
        router, self._router = getattr(self, "_router", None), None
        if router is not None:
            router.close()
