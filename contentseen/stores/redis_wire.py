"""How the Redis stores talk to their servers: batches of commands, each batch written on one
connection at once and its replies read in order (one round trip), to one server (:class:`Node`)
or to the primaries of a Redis Cluster (:class:`ClusterRouter`, all nodes written first, then
read). Commands are packed here, without redis-py's per-argument encoding (most of a bulk load's
client time); an EVALSHA the server does not know is answered by loading the script there and
sending the command again."""

from __future__ import annotations

import hashlib
import threading
from typing import Any, Iterator
from urllib.parse import urlsplit

try:  # optional dependency: pip install 'contentseen[redis]'
    import redis as _redis
    from redis.backoff import NoBackoff
    from redis.crc import key_slot
    from redis.exceptions import AskError, NoScriptError, TryAgainError
    from redis.retry import Retry
except ImportError:  # pragma: no cover - exercised only without redis-py
    _redis = None

# A dead or stuck server must not hang the crawl: connect and reply timeouts (seconds). A URL
# query (``?socket_timeout=1``) overrides them.
CONNECT_TIMEOUT_S = 3.0
SOCKET_TIMEOUT_S = 5.0
# A pooled connection idle this long is PINGed before use (servers drop idle clients).
HEALTH_CHECK_S = 30
SLOTS = 16384

USE_ERRORS: tuple[type[BaseException], ...] = ()
if _redis is not None:
    USE_ERRORS = (_redis.RedisError, OSError)

# (route key, command): the key picks the node on a cluster
Command = tuple[str, tuple]


def client_options() -> dict[str, Any]:
    """redis-py options of every connection the stores make."""
    return dict(socket_connect_timeout=CONNECT_TIMEOUT_S, socket_timeout=SOCKET_TIMEOUT_S,
                health_check_interval=HEALTH_CHECK_S, retry=Retry(NoBackoff(), 0))  # retried by hand


def _arg(arg: bytes | str | int) -> bytes:
    if isinstance(arg, bytes):
        return b"$%d\r\n%b\r\n" % (len(arg), arg)
    arg = arg.encode() if isinstance(arg, str) else b"%d" % arg
    return b"$%d\r\n%b\r\n" % (len(arg), arg)


def pack(commands: list[tuple]) -> bytes:
    """RESP of ``commands`` (arguments bytes, str or int)."""
    return b"".join(b"*%d\r\n%b" % (len(command), b"".join(map(_arg, command))) for command in commands)


class Scripts:
    """Lua sources by SHA1, for EVALSHA."""

    def __init__(self) -> None:
        self._sources: dict[bytes, str] = {}

    def sha(self, source: str) -> str:
        sha = hashlib.sha1(source.encode()).hexdigest()
        self._sources[sha.encode()] = source
        return sha

    def source(self, command: tuple) -> str | None:
        sha = command[1]
        return self._sources.get(sha if isinstance(sha, bytes) else str(sha).encode())


class Node:
    """One server: one connection of its own, taken by a batch from its write to its read (a
    lock, so threads may share a store); the pool serves the rest (script loads, scans)."""

    def __init__(self, pool: Any, scripts: Scripts):
        self.pool, self.scripts = pool, scripts
        self.address = (pool.connection_kwargs.get("host", ""), pool.connection_kwargs.get("port", 0))
        self._connection = pool.make_connection()
        self._lock = threading.Lock()

    def write(self, commands: list[tuple]) -> Any:
        """Send ``commands``; the connection to read their replies from (held until read)."""
        self._lock.acquire()
        try:
            self._connection.send_packed_command([pack(commands)])
        except BaseException:
            self.release(self._connection, broken=True)
            raise
        return self._connection

    def read(self, connection: Any, count: int) -> list:
        """``count`` replies, an error reply as its exception; the connection is given back."""
        replies = []
        try:
            for _ in range(count):
                try:
                    replies.append(connection.read_response())
                except _redis.ResponseError as exc:
                    replies.append(exc)
        except BaseException:
            self.release(connection, broken=True)
            raise
        self.release(connection)
        return replies

    def release(self, connection: Any, broken: bool = False) -> None:
        if broken:
            connection.disconnect()  # replies may be left unread on it; the next write reconnects
        self._lock.release()

    def load_missing(self, commands: list[tuple], replies: list) -> list[int]:
        """Load the scripts of commands answered NOSCRIPT; their numbers, to send again."""
        again = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        for source in {self.scripts.source(commands[i]) for i in again} - {None}:
            client = _redis.Redis(connection_pool=self.pool)
            client.script_load(source)
        return again

    def exchange(self, commands: list[tuple]) -> list:
        """Replies to ``commands`` (one round trip, two when a script had to be loaded)."""
        replies = self.read(self.write(commands), len(commands))
        again = self.load_missing(commands, replies)
        if again:
            for i, reply in zip(again, self.read(self.write([commands[i] for i in again]), len(again))):
                replies[i] = reply
        return replies

    def scan(self, pattern: str, count: int) -> Iterator[bytes]:
        yield from _redis.Redis(connection_pool=self.pool).scan_iter(match=pattern, count=count)

    def close(self) -> None:
        self._connection.disconnect()
        self.pool.disconnect()


class ClusterRouter:
    """The primaries of a Redis Cluster: each command goes to the node of its route key's slot
    (from CLUSTER SLOTS, read from the seed or any node known); ASK/MOVED/TRYAGAIN/CLUSTERDOWN
    replies refresh the slot map and send those commands again, up to twice."""

    def __init__(self, seed: str, options: dict[str, Any], scripts: Scripts):
        self._seed, self._options, self._scripts = seed, options, scripts
        self._nodes: dict[tuple[str, int], Node] = {}
        self._slots: list[Node] = []
        self.refresh()

    def _node(self, address: tuple[str, int]) -> Node:
        node = self._nodes.get(address)
        if node is None:
            base = _redis.ConnectionPool.from_url(self._seed, **self._options)
            kwargs = {**base.connection_kwargs, "host": address[0], "port": address[1]}
            pool = _redis.ConnectionPool(connection_class=base.connection_class, **kwargs)
            node = self._nodes[address] = Node(pool, self._scripts)
        return node

    def refresh(self) -> None:
        seed = urlsplit(self._seed)
        last: BaseException = _redis.ConnectionError("no cluster node")
        for address in dict.fromkeys([(seed.hostname or "localhost", seed.port or 6379), *self._nodes]):
            try:
                reply = _redis.Redis(connection_pool=self._node(address).pool).execute_command("CLUSTER SLOTS")
            except USE_ERRORS as exc:
                last = exc
                continue
            slots: list[Node | None] = [None] * SLOTS
            for start, end, primary, *_ in reply:
                host = primary[0].decode() if isinstance(primary[0], bytes) else primary[0]
                node = self._node((host or address[0], int(primary[1])))
                slots[int(start) : int(end) + 1] = [node] * (int(end) + 1 - int(start))
            if None in slots:
                last = _redis.ResponseError(f"CLUSTERDOWN {slots.count(None)} of {SLOTS} slots have no node")
                continue
            self._slots = slots  # type: ignore[assignment]
            return
        raise last

    def nodes(self) -> list[Node]:
        return list(dict.fromkeys(self._slots))

    def node_of(self, key: str) -> Node:
        """The node of ``key``'s slot, by the slot map as last read."""
        return self._slots[key_slot(key.encode())]

    def send(self, commands: list[Command]) -> list:
        """Replies to ``commands`` in order; an error reply is its exception."""
        replies: list = [None] * len(commands)
        todo = list(range(len(commands)))
        for attempt in range(3):
            by_node: dict[Node, list[int]] = {}
            for i in todo:
                by_node.setdefault(self._slots[key_slot(commands[i][0].encode())], []).append(i)
            # nodes in one order for every thread: a batch holds each node's connection from
            # its write to its read
            by_node = dict(sorted(by_node.items(), key=lambda item: item[0].address))
            written = []
            try:
                for node, numbers in by_node.items():
                    written.append((node, node.write([commands[i][1] for i in numbers]), numbers))
            except BaseException:
                for node, connection, _ in written:
                    node.release(connection, broken=True)
                raise
            retry = []
            for n, (node, connection, numbers) in enumerate(written):
                try:
                    got = node.read(connection, len(numbers))
                except BaseException:
                    for other, connection, _ in written[n + 1 :]:
                        other.release(connection, broken=True)
                    raise
                for i, reply in zip(numbers, got):
                    replies[i] = reply
                retry += [numbers[j] for j in node.load_missing([commands[i][1] for i in numbers], got)]
            moved = [i for i in todo if _moved(replies[i])]
            if moved:
                self.refresh()
            todo = retry + moved
            if not todo:
                break
        return replies

    def close(self) -> None:
        for node in self._nodes.values():
            node.close()
        self._nodes.clear()


def _moved(reply: Any) -> bool:
    """A reply that the slot map is out of date or the cluster is healing."""
    return isinstance(reply, (AskError, TryAgainError)) or (
        isinstance(reply, _redis.ResponseError) and str(reply).startswith(("CLUSTERDOWN", "MOVED")))
