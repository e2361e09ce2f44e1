"""A store served from a thread of its own, so that Scrapy's reactor thread never waits on it.

``StoreWorker`` opens the store in that thread and runs every call of it there (a SQLite
connection stays in the thread that made it); the caller awaits the result with a time limit.
A *circuit breaker* guards the crawl against a store that hangs or fails: after
``failures`` failed or late calls in a row the store is not called at all for ``cooldown``
seconds (each call fails at once with ``StoreError``), then one call probes it again; a success
closes the circuit. A frozen Redis then costs the crawl a few seconds, not a reply timeout for
every page.

``check`` queues a page's ``check_and_add``: the checks queued while the thread is busy go to
the store together (``check_many``, at most ``batch``: ``CONTENTSEEN_STORE_BATCH``), so a shared
store under load is asked in a few round trips for many pages instead of a few for each.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from typing import Any, Callable, TypeVar

from ..errors import one_line
from .base import FingerprintStore, Match, Query, StoreError
from .registry import display_url

T = TypeVar("T")
logger = logging.getLogger(__name__)
# The most checks sent to the store at once by default (a crawl has at most CONCURRENT_REQUESTS
# pages waiting: 16 by default)
DEFAULT_BATCH = 32


class StoreSkipped(StoreError):
    """The store was not called: the circuit is open."""


class StoreWorker:
    """One store, one thread, a time limit per call and a circuit breaker (see the module)."""

    def __init__(self, opener: Callable[[], FingerprintStore], *, timeout: float = 5.0,
                 failures: int = 3, cooldown: float = 10.0, batch: int = DEFAULT_BATCH):
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="contentseen-store")
        self.timeout, self.failures, self.cooldown, self.batch = timeout, failures, cooldown, batch
        self._failed = 0
        self._open_until = 0.0
        self.busy = 0.0  # seconds the store's thread spent in calls (written by that thread only)
        self._lock = threading.Lock()
        # checks queued for the store's thread: (query, what to run first, its future)
        self._queued: list[tuple[Query, Callable[[], object] | None, concurrent.futures.Future]] = []
        self._draining = False
        self.batches = self.batched = 0  # check_many calls, and the checks they carried
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
        self._skip_if_open()
        return await self._result(self._pool.submit(self._timed, fn, *args, **kwargs))

    async def check(self, query: Query, first: Callable[[], object] | None = None) -> Match | None:
        """The store's ``check_and_add`` of ``query``, with checks queued beside it in one
        ``check_many``; ``first`` runs in the store's thread just before (a journal line). As
        ``call`` for time limit, errors and the circuit."""
        self._skip_if_open()
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            self._queued.append((query, first, future))
            start, self._draining = not self._draining, True
        if start:
            self._pool.submit(self._drain)
        return await self._result(future, count_errors=False)  # a failed batch counts once: _drain

    def _drain(self) -> None:
        """In the store's thread: one ``check_many`` of the queued checks (at most ``batch``);
        queued again behind other work while more wait."""
        with self._lock:
            batch, self._queued = self._queued[: self.batch], self._queued[self.batch :]
        started = time.perf_counter()
        live = [item for item in batch if item[2].set_running_or_notify_cancel()]  # not given up on
        try:
            for _, first, _ in live:
                if first is not None:
                    first()
            matches = self.store.check_many([query for query, _, _ in live]) if live else []
        except BaseException as exc:  # every page of the batch gets the error
            if live:
                self._failure()
            for _, _, future in live:
                future.set_exception(exc)
        else:
            self.batches += bool(live)
            self.batched += len(live)
            for (_, _, future), match in zip(live, matches):
                future.set_result(match)
        finally:
            self.busy += time.perf_counter() - started
            with self._lock:
                self._draining = bool(self._queued)
                if self._draining:
                    try:
                        self._pool.submit(self._drain)
                    except RuntimeError:  # closed meanwhile: the rest are never checked
                        for _, _, future in self._queued:
                            future.set_exception(StoreError(f"store {self.url}: closed"))
                        self._queued, self._draining = [], False

    def _skip_if_open(self) -> None:
        if self.circuit_open:
            raise StoreSkipped(f"store {self.url}: not called for {self._open_until - time.monotonic():.1f} s more "
                               f"after {self.failures} failures in a row")

    async def _result(self, future: concurrent.futures.Future, count_errors: bool = True) -> Any:
        """``future``'s result, awaited at most ``timeout`` seconds; failures counted (the store's
        errors only with ``count_errors``)."""
        try:
            result = await _wait(future, self.timeout)
        except (asyncio.TimeoutError, concurrent.futures.TimeoutError):
            self._failure()
            raise StoreError(f"store {self.url}: no answer within {self.timeout:g} s") from None
        except StoreError as exc:
            if count_errors:
                self._failure()
            raise StoreError(self._masked(str(exc))) from None
        except Exception as exc:  # a store must raise StoreError; anything else is a failure too
            if count_errors:
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
