"""A real, throwaway ``redis-server`` for the tests, and pytest fixtures around it.

``RedisServer(tmp_dir).start()`` runs ``redis-server --port N --save '' --appendonly no --dir tmp``
on a free 127.0.0.1 port, waits until it answers PING and ``stop()``s (or ``kill()``s) it;
``RedisClusterNodes`` does the same for a 3-node cluster (``redis-cli --cluster create``). Tests
import the fixtures::

    from redis_server import redis_server, redis_url, own_redis  # noqa: F401  (fixtures)
    from redis_server import redis_cluster, cluster_url  # noqa: F401  (fixtures)

They skip, saying why, when ``redis-server`` is not installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest

REDIS_SERVER = os.environ.get("CONTENTSEEN_REDIS_SERVER") or shutil.which("redis-server")
SKIP_REASON = "redis-server is not installed (apt-get install redis-server; .ci/run installs it)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free too; at most 55535."""
    import random

    rng = random.Random()
    while True:
        port = rng.randrange(20000, 55535)
        try:
            for p in (port, port + 10000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
            return port
        except OSError:
            continue


def _ping(port: int, timeout: float = 0.5) -> bool:
    """True when a Redis server on 127.0.0.1:port answers PING (raw RESP, no client needed):
    PONG, or NOAUTH from a server that wants a password."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            reply = s.recv(16)
            return reply.startswith(b"+PONG") or reply.startswith(b"-NOAUTH")
    except OSError:
        return False


class RedisServer:
    """One ``redis-server`` process, no persistence, data dir ``directory``."""

    def __init__(self, directory: Path):
        if not REDIS_SERVER:
            raise RuntimeError(SKIP_REASON)
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = 0
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0, port: int | None = None) -> "RedisServer":
        """Start on a free port (or on ``port``: the same server, back empty after a kill)."""
        last = ""
        for _ in range(5 if port is None else 50):  # a free port may be taken before it is bound
            self.port = free_port() if port is None else port
            log = self.directory / f"redis-{self.port}.log"
            self.proc = subprocess.Popen(
                [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", str(self.directory), "--logfile", str(log)],
                stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
            )
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                if _ping(self.port):
                    return self
                time.sleep(0.02)
            last = log.read_text(errors="replace")[-500:] if log.exists() else ""
            self.stop()
        raise RuntimeError(f"redis-server did not start: {last}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: the server vanishes mid-use, as a crashed one does."""
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(10)

    def restart_empty(self) -> None:
        """Killed and started again on its port, with nothing stored (no persistence)."""
        self.kill()
        self.start(port=self.port)

    def stop(self) -> None:
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def flush(self) -> None:
        import redis

        with redis.Redis(port=self.port) as client:
            client.flushall()

    def __enter__(self) -> "RedisServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class RedisClusterNodes:
    """A Redis Cluster of ``n`` primaries (no replicas) on loopback ports, each node a
    ``redis-server --cluster-enabled yes`` with its config file in ``directory``; ``restart(i)``
    stops node i and starts it again on its port (it rejoins from its config file)."""

    def __init__(self, directory: Path, n: int = 3):
        if not REDIS_SERVER:
            raise RuntimeError(SKIP_REASON)
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.ports: list[int] = []
        self.procs: list[subprocess.Popen | None] = []
        self.n = n

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def _launch(self, i: int) -> None:
        port = self.ports[i]
        self.procs[i] = subprocess.Popen(
            [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
             "--cluster-config-file", f"nodes-{port}.conf", "--cluster-node-timeout", "2000",
             "--save", "", "--appendonly", "no", "--dir", str(self.directory),
             "--logfile", str(self.directory / f"redis-{port}.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        )

    def _wait_ping(self, i: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _ping(self.ports[i]):
                return
            if self.procs[i].poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError(f"cluster node {self.ports[i]} did not start")

    def cluster_ok(self) -> bool:
        """Every node reports cluster_state:ok."""
        import redis

        for port in self.ports:
            try:
                with redis.Redis(port=port, socket_timeout=1) as client:
                    if client.cluster("info")["cluster_state"] != "ok":
                        return False
            except (redis.RedisError, OSError, KeyError):
                return False
        return True

    def wait_ok(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.cluster_ok():
                return
            time.sleep(0.05)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    def start(self) -> "RedisClusterNodes":
        self.ports = [free_cluster_port() for _ in range(self.n)]
        self.procs = [None] * self.n
        try:
            for i in range(self.n):
                self._launch(i)
            for i in range(self.n):
                self._wait_ping(i)
        except BaseException:
            self.stop()
            raise
        cli = shutil.which("redis-cli", path=os.path.dirname(REDIS_SERVER) + os.pathsep + os.environ.get("PATH", ""))
        if not cli:
            self.stop()
            raise RuntimeError("redis-cli is not installed (it comes with redis-server)")
        self._cli = cli
        made = subprocess.run(
            [cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports), "--cluster-replicas", "0",
             "--cluster-yes"], capture_output=True, text=True, timeout=60)
        if made.returncode != 0:
            self.stop()
            raise RuntimeError(f"redis-cli --cluster create failed: {made.stdout[-500:]} {made.stderr[-500:]}")
        self.wait_ok()
        return self

    def reshard(self, source: int, target: int, slots: int) -> None:
        """Move ``slots`` hash slots and their keys from node ``source`` to node ``target`` as an
        operator does (``redis-cli --cluster reshard``); returns once the cluster is ok."""
        import redis

        ids = []
        for i in (source, target):
            with redis.Redis(port=self.ports[i]) as client:
                ids.append(client.execute_command("CLUSTER MYID").decode())
        moved = subprocess.run(
            [self._cli, "--cluster", "reshard", f"127.0.0.1:{self.ports[source]}", "--cluster-from", ids[0],
             "--cluster-to", ids[1], "--cluster-slots", str(slots), "--cluster-yes"],
            capture_output=True, text=True, timeout=120)
        if moved.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster reshard failed: {moved.stdout[-500:]} {moved.stderr[-500:]}")
        self.wait_ok()

    def kill(self, i: int) -> None:
        proc = self.procs[i]
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)

    def restart(self, i: int, down_for: float = 0.0) -> None:
        """Kill node i, wait ``down_for`` seconds, start it again; returns once the cluster is ok."""
        self.kill(i)
        time.sleep(down_for)
        self._launch(i)
        self._wait_ping(i)
        self.wait_ok()

    def flush(self) -> None:
        import redis

        for port in self.ports:
            with redis.Redis(port=port) as client:
                client.flushall()

    def stop(self) -> None:
        for proc in self.procs:
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
        self.procs = [None] * len(self.procs)

    def __enter__(self) -> "RedisClusterNodes":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def node_clients(url: str) -> list:
    """redis-py clients of every node behind a store URL: the server, or each cluster primary."""
    import redis
    from urllib.parse import urlsplit

    if not url.startswith("redis+cluster://"):
        return [redis.Redis.from_url(url)]
    seed = urlsplit(url)
    with redis.Redis(host=seed.hostname, port=seed.port) as client:
        primaries = {(p[0].decode() or seed.hostname, int(p[1])) for _, _, p, *_ in client.execute_command("CLUSTER SLOTS")}
    return [redis.Redis(host=host, port=port) for host, port in sorted(primaries)]


def all_keys(url: str, pattern: str = "*") -> dict[bytes, object]:
    """Every key matching ``pattern`` on every node, with the client of its node."""
    return {key: client for client in node_clients(url) for key in client.scan_iter(match=pattern, count=1000)}


def stored_count(url: str, prefix: str) -> int:
    """Entries a Redis store under ``prefix`` holds, from its counters (no scheme needed)."""
    return sum(int(client.get(key) or 0) for key, client in all_keys(url, f"{prefix}:{{0.*}}:n").items())


def _require() -> None:
    if not REDIS_SERVER:
        pytest.skip(SKIP_REASON)
    pytest.importorskip("redis", reason="redis-py is not installed (pip install -e '.[dev]')")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One server for the whole session."""
    _require()
    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session server's URL, emptied for this test."""
    redis_server.flush()
    return redis_server.url


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisClusterNodes]:
    """One 3-node cluster for the whole session."""
    _require()
    with RedisClusterNodes(tmp_path_factory.mktemp("cluster")) as cluster:
        yield cluster


@pytest.fixture
def cluster_url(redis_cluster: RedisClusterNodes) -> str:
    """The session cluster's seed URL, every node emptied for this test."""
    if not redis_cluster.cluster_ok():  # a test restarted a node: wait for it
        redis_cluster.wait_ok()
    redis_cluster.flush()
    return redis_cluster.url


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A server of this test's own (to kill it, say)."""
    _require()
    with RedisServer(tmp_path / "redis") as server:
        yield server


# --------------------------------------------------------------------------------------------
# ``python tests/redis_server.py [N_ADDS] [N_QUERIES] [BITS]``: check-and-add latency of the
# Redis store against a throwaway local server (the figures in README, "Redis store").


def _percentiles(samples: list[float]) -> str:
    samples = sorted(samples)
    pick = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))] * 1e6  # noqa: E731
    return f"p50 {pick(0.50):6.0f} us   p99 {pick(0.99):6.0f} us   max {samples[-1] * 1e6:7.0f} us"


def benchmark(n_adds: int = 20_000, n_queries: int = 5_000, bits: int = 64, k: int = 3) -> None:
    import random
    import tempfile

    import redis

    from contentseen.stores.redis import RedisStore

    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp, RedisServer(Path(tmp)) as server:
        ident = {"bits": str(bits), "bench": "1"}
        store = RedisStore(server.url, ident, bits, k)
        client = redis.Redis.from_url(server.url)
        ping = []
        for _ in range(2000):
            t0 = time.perf_counter()
            client.ping()
            ping.append(time.perf_counter() - t0)
        adds, stored = [], []
        for i in range(n_adds):
            fp = rng.getrandbits(bits)
            t0 = time.perf_counter()
            match = store.check_and_add(fp, f"http://bench.test/{i}")
            adds.append(time.perf_counter() - t0)
            if match is None:
                stored.append(fp)
        server_add = client.info("commandstats").get("cmdstat_evalsha", {}).get("usec_per_call", 0.0)
        client.config_resetstat()
        near, fresh = [], []
        for i in range(n_queries):
            fp = rng.choice(stored)
            for p in rng.sample(range(bits), rng.randint(0, k)):
                fp ^= 1 << p
            t0 = time.perf_counter()
            assert store.check_and_add(fp, f"http://bench.test/dup/{i}") is not None
            near.append(time.perf_counter() - t0)
            fp = rng.getrandbits(bits)
            t0 = time.perf_counter()
            store.lookup(fp)
            fresh.append(time.perf_counter() - t0)
        server_query = client.info("commandstats").get("cmdstat_evalsha", {}).get("usec_per_call", 0.0)
        info = client.info("memory")
        print(f"redis-server {client.info('server')['redis_version']}, {bits}-bit fingerprints, k={k}, "
              f"{len(store)} stored, used_memory {info['used_memory_human']}")
        print(f"PING round trip            {_percentiles(ping)}")
        print(f"check_and_add, new page    {_percentiles(adds)}   ({n_adds} adds into a growing store)")
        print(f"check_and_add, duplicate   {_percentiles(near)}   ({n_queries}, distance 0..{k})")
        print(f"lookup, unseen page        {_percentiles(fresh)}   ({n_queries})")
        print(f"inside Redis (the script): {server_add:.1f} us per add, {server_query:.1f} us per query "
              "(INFO commandstats, mean)")
        store.close()
        client.close()


if __name__ == "__main__":
    import sys

    benchmark(*(int(a) for a in sys.argv[1:3]), *(int(a) for a in sys.argv[3:4]))
