"""numpy's BLAS kept to one thread while a crawler fingerprints.

A fingerprint's sums are one small product a page (a few thousand rows by 64 bits). OpenBLAS
runs the larger ones on a second thread and keeps its threads spinning for the next call:
fingerprinting pydoc's pages one after another took 0.93 ms of CPU a page with its default
threads and 0.50 ms with one, in the same wall time (1.21 and 0.63 ms with 2 ms between pages,
as in a crawl) -- CPU taken from the core the store's thread, the HTTP server or another crawler
process wants. One thread also sums in one order, whatever the machine's core count. The limit
is the process's (BLAS has no other scope): taken while a middleware runs, counted, and BLAS's
own settings given back when the last one closes.
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, TypeVar

from threadpoolctl import threadpool_info, threadpool_limits

_T = TypeVar("_T")
_lock = threading.Lock()
_users = 0
_limits: threadpool_limits | None = None


def hold() -> None:
    """Keep BLAS to one thread until as many ``release`` calls as ``hold`` calls."""
    global _users, _limits
    with _lock:
        if _users == 0:
            try:
                _limits = threadpool_limits(limits=1, user_api="blas")
            except Exception:  # a BLAS threadpoolctl cannot drive: it costs CPU, never a crawl
                _limits = None
        _users += 1


def release() -> None:
    """Give one ``hold`` back; the last gives BLAS its own thread settings back."""
    global _users, _limits
    with _lock:
        if _users == 0:
            return
        _users -= 1
        if _users == 0 and _limits is not None:
            _limits.restore_original_limits()
            _limits = None


def holding(fn: Callable[..., _T]) -> Callable[..., _T]:
    """``fn`` run with BLAS held to one thread (a command's ``main``)."""
    @functools.wraps(fn)
    def held(*args, **kwargs) -> _T:
        hold()
        try:
            return fn(*args, **kwargs)
        finally:
            release()
    return held


def threads() -> list[int]:
    """The thread count of each BLAS library loaded in this process."""
    return [lib["num_threads"] for lib in threadpool_info() if lib.get("user_api") == "blas"]
