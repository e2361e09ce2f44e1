"""A store served from a thread of its own, so that Scrapy's reactor thread never waits on it.

``StoreWorker`` opens the store in that thread and runs every call of it there (a SQLite
connection stays in the thread that made it); the caller awaits the result with a time limit.
A *circuit breaker* guards the crawl against a store that hangs or fails: after
``failures`` failed or late calls in a row the store is not called at all for ``cooldown``
seconds (each call fails at once with ``StoreError``), then one call probes it again; a success
closes the circuit. A frozen Redis then costs the crawl a few seconds, not a reply timeout for
every page.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from typing import Any, Callable, TypeVar

from ..errors import one_line
from .base import FingerprintStore, StoreError
from .registry import display_url

T = TypeVar("T")
logger = logging.getLogger(__name__)


class StoreSkipped(StoreError):
    """The store was not called: the circuit is open."""


class StoreWorker:
    """One store, one thread, a time limit per call and a circuit breaker (see the module)."""

    def __init__(self, opener: Callable[[], FingerprintStore], *, timeout: float = 5.0,
                 failures: int = 3, cooldown: float = 10.0):
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="contentseen-store")
        self.timeout, self.failures, self.cooldown = timeout, failures, cooldown
        self._failed = 0
        self._open_until = 0.0
        self.busy = 0.0  # seconds the store's thread spent in calls (written by that thread only)
        self._lock = threading.Lock()
        try:
            self.store: FingerprintStore = self._pool.submit(opener).result()
        except BaseException:
            self._pool.shutdown(wait=False)
            raise
        self._raw_url = self.store.url
        self.url = display_url(self._raw_url)

    def _masked(self, message: str) -> str:
        """``message`` with the store URL's password masked (no secret reaches a log)."""
        return message.replace(self._raw_url, self.url) if self._raw_url != self.url else message

    @property
    def circuit_open(self) -> bool:
        """Whether calls are being skipped (the store failed ``failures`` times in a row)."""
        return time.monotonic() < self._open_until

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` (a method of the store) in the store's thread, awaited at most
        ``timeout`` seconds; ``StoreError`` when it fails, is late, or the circuit is open."""
        if self.circuit_open:
            raise StoreSkipped(f"store {self.url}: not called for {self._open_until - time.monotonic():.1f} s more "
                               f"after {self.failures} failures in a row")
        future = self._pool.submit(self._timed, fn, *args, **kwargs)
        try:
            result = await _wait(future, self.timeout)
        except (asyncio.TimeoutError, concurrent.futures.TimeoutError):
            self._failure()
            raise StoreError(f"store {self.url}: no answer within {self.timeout:g} s") from None
        except StoreError as exc:
            self._failure()
            raise StoreError(self._masked(str(exc))) from None
        except Exception as exc:  # a store must raise StoreError; anything else is a failure too
            self._failure()
            raise StoreError(self._masked(f"store {self.url}: {type(exc).__name__}: {exc}")) from None
        with self._lock:
            self._failed = 0
        return result

    def submit(self, fn: Callable[..., Any], *args: Any) -> concurrent.futures.Future:
        """``fn(*args)`` in the store's thread, in the order submitted, not awaited and outside
        the circuit breaker (journal lines, discards: work that must be done in order, or be
        left for the next start when it fails)."""
        return self._pool.submit(self._timed, fn, *args)

    def _timed(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.busy += time.perf_counter() - started

    def call_now(self, fn: Callable[..., T], *args: Any, wait: float | None = -1, **kwargs: Any) -> T:
        """``fn`` in the store's thread, waited for here (start-up and shutdown only): at most
        ``wait`` seconds (default 4 x the call timeout; None: as long as it takes, for work that
        grows with the store, such as a reset)."""
        return self._pool.submit(fn, *args, **kwargs).result(timeout=self.timeout * 4 if wait == -1 else wait)

    def _failure(self) -> None:
        with self._lock:
            self._failed += 1
            if self._failed >= self.failures:
                self._open_until = time.monotonic() + self.cooldown
                self._failed = self.failures - 1  # after the cooldown, one more failure reopens it

    def close(self, before: Callable[[], None] | None = None) -> None:
        """Run ``before`` and close the store, in its thread, waiting at most 4 x the call time
        limit (a hung store must not hold the crawl's end); then end the thread."""
        try:
            self.call_now(self._last_calls, before)
        except Exception as exc:
            self._unclosed(exc)
        finally:
            self._pool.shutdown(wait=False, cancel_futures=True)

    async def aclose(self, before: Callable[[], None] | None = None) -> None:
        """``close``, awaited instead of waited for."""
        try:
            await _wait(self._pool.submit(self._last_calls, before), self.timeout * 4)
        except Exception as exc:
            self._unclosed(exc)
        finally:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _last_calls(self, before: Callable[[], None] | None) -> None:
        try:
            if before is not None:
                before()
        finally:
            self.store.close()

    def _unclosed(self, exc: BaseException) -> None:
        logger.warning("ContentSeen: store %s did not close cleanly (%s)", self.url, self._masked(one_line(exc)))


async def _wait(future: concurrent.futures.Future, timeout: float) -> Any:
    """The future's result, awaited in asyncio (Scrapy's default reactor) or in Twisted."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        from twisted.internet import threads
        from scrapy.utils.defer import maybe_deferred_to_future

        d = threads.deferToThread(future.result, timeout)
        return await maybe_deferred_to_future(d)
    return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
