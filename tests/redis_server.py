"""A real, throwaway ``redis-server`` for the tests, and pytest fixtures around it.

``RedisServer(tmp_dir).start()`` runs ``redis-server --port N --save '' --appendonly no --dir tmp``
on a free 127.0.0.1 port, waits until it answers PING and ``stop()``s (or ``kill()``s) it. Tests
import the fixtures::

    from redis_server import redis_server, redis_url, own_redis  # noqa: F401  (fixtures)

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


def _ping(port: int, timeout: float = 0.5) -> bool:
    """True when a Redis server on 127.0.0.1:port answers PING (raw RESP, no client needed)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            return s.recv(16).startswith(b"+PONG")
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

    def start(self, timeout: float = 10.0) -> "RedisServer":
        last = ""
        for _ in range(5):  # the free port may be taken between finding and binding it
            self.port = free_port()
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
