"""Mark a page seen only once it is delivered: the pages stored but not delivered yet.

A kept page's fingerprints are stored when it is checked (so that its copies arriving at the same
time are caught), but it counts as seen only once it is *delivered*: its callback finished and
every item it made passed the item pipeline (or was dropped there on purpose). Until then it is
*in flight*: ``Deliveries`` tracks it in memory, and ``Journal`` lists it in a file of this
process, so that:

- a page whose callback raises, whose item fails in the pipeline, or that never reaches its
  callback before the spider closes has its entry discarded from the store (the store's
  ``discard``): a later copy, or the next crawl, keeps it again;
- after a kill (``kill -9``, a crash, a power cut) the next start discards every entry the dead
  process had in flight (``Journal.orphans``), so a re-crawl fetches and delivers those pages
  again: a kill costs at most the pages in flight, fetched twice, never a page lost.

The journal is an append-only file of JSON lines, one per process (``<spider>.<random>.inflight``
in the project's data dir, or in ``JOBDIR``), held under an exclusive ``flock`` while the
process lives: a file nobody holds belongs to a dead process. Lines are written with one
``write`` each, unbuffered, so a kill of the process loses none (only the OS's crash could). It
is rewritten with only the pages in flight once it grows long, so it stays small however long
the crawl.
"""

from __future__ import annotations

import glob
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, NamedTuple

if TYPE_CHECKING:
    from .stores import FingerprintStore, Match

try:
    import fcntl  # POSIX: where a journal's lock tells a live process from a dead one
except ImportError:  # Windows: no journal (pages count as seen once checked)
    fcntl = None

logger = logging.getLogger(__name__)

SUFFIX = ".inflight"
# Lines after which the journal is rewritten with only the pages in flight.
_COMPACT_LINES = 100_000
# Pages tracked at most: beyond, the oldest is taken as delivered (a page that never reached
# its callback, filtered on the way, would otherwise be held until the spider closes).
MAX_TRACKED = 100_000


class Pending(NamedTuple):
    """A page stored by ``check_and_add`` at or after ``since`` and not delivered yet."""

    fingerprint: int
    page: int | None
    url: str
    since: float


class Journal:
    """The in-flight pages of this process, in a locked file (see the module's docstring).
    Not thread-safe: one thread (the store's) writes it."""

    def __init__(self, directory: Path, name: str, store: str):
        self.directory, self.name, self.store = Path(directory), name, store
        self.directory.mkdir(parents=True, exist_ok=True)
        self._open: dict[int, Pending] = {}
        self._lines = 0
        self._file = self._new_file()

    def _new_file(self):
        fd, path = tempfile.mkstemp(prefix=f"{self.name}.", suffix=SUFFIX, dir=self.directory)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file: nobody else holds it
        self.path = Path(path)
        file = os.fdopen(fd, "ab", buffering=0)
        file.write(_line({"store": self.store}))
        for key, pending in self._open.items():
            file.write(_line(["+", key, *pending]))
        self._lines = len(self._open) + 1
        return file

    def begin(self, key: int, pending: Pending) -> None:
        """``pending`` may be stored from now on: written before the store is asked."""
        self._open[key] = pending
        self._write(["+", key, *pending])

    def end(self, key: int) -> None:
        """The page ``key`` was delivered, or its entry discarded (or never stored)."""
        if self._open.pop(key, None) is not None:
            self._write(["-", key])

    def _write(self, record: list) -> None:
        self._file.write(_line(record))
        self._lines += 1
        if self._lines > _COMPACT_LINES + 2 * len(self._open):
            old, old_path = self._file, self.path
            self._file = self._new_file()  # complete before the old one goes: a kill between leaves both
            old.close()
            old_path.unlink(missing_ok=True)

    def close(self) -> list[Pending]:
        """Close the journal: removed when nothing is in flight, else kept (with what is still
        in flight, returned) for the next start to discard."""
        left = list(self._open.values())
        if not self._file.closed:
            if not left:
                self.path.unlink(missing_ok=True)
            self._file.close()
        return left

    @staticmethod
    def orphans(directory: Path, name: str, store: str) -> Iterator[tuple[Path, list[Pending]]]:
        """The journals of ``name`` that no live process holds and that were written for
        ``store``, each with its pages left in flight; each stays locked until the caller moves
        to the next, so that two processes starting together never both replay it. The caller
        unlinks a journal once its pages are discarded."""
        for path in sorted(Path(directory).glob(f"{glob.escape(name)}.*{SUFFIX}")):
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:  # replayed by another process meanwhile
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # its process is alive
                    continue
                with os.fdopen(os.dup(fd), "rb") as file:
                    header, pending = _read(file)
                if header.get("store") != store:
                    logger.warning("ContentSeen: %s lists pages of another store (%s); left as it is",
                                   path, header.get("store"))
                    continue
                if path.exists():
                    yield path, pending
            finally:
                os.close(fd)


def _line(record: object) -> bytes:
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def _read(file) -> tuple[dict, list[Pending]]:
    """The header and the pages still in flight of a journal (a torn last line is ignored)."""
    header: dict = {}
    open_: dict[int, Pending] = {}
    for raw in file:
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict):
            header = record
        elif record[0] == "+":
            open_[record[1]] = Pending(*record[2:])
        else:
            open_.pop(record[1], None)
    return header, list(open_.values())


@dataclass
class _Tracked:
    pending: Pending
    items: int = 0  # made by the callback, not yet through the pipeline
    done: bool = False  # the callback finished
    failed: bool = False  # the callback raised, or an item failed in the pipeline


class Deliveries:
    """The in-flight pages of a crawl, by key (in ``response.meta``), in Scrapy's reactor
    thread; ``settle(key, delivered)`` is called once for each, when its fate is known."""

    def __init__(self, settle: Callable[[int, Pending, bool], None]):
        self._settle = settle
        self._pages: dict[int, _Tracked] = {}
        self._next = 0

    def __len__(self) -> int:
        return len(self._pages)

    def new_key(self) -> int:
        self._next += 1
        return self._next

    def track(self, key: int, pending: Pending) -> None:
        """The page ``key`` was kept and is on its way to its callback."""
        self._pages[key] = _Tracked(pending)
        if len(self._pages) > MAX_TRACKED:
            oldest = next(iter(self._pages))
            self._finish(oldest, delivered=True)

    def item_made(self, key: int) -> None:
        if (tracked := self._pages.get(key)) is not None:
            tracked.items += 1

    def item_passed(self, key: int, ok: bool = True) -> None:
        """An item of page ``key`` left the pipeline: passed or dropped on purpose (``ok``), or
        failed there."""
        if (tracked := self._pages.get(key)) is not None:
            tracked.items -= 1
            tracked.failed |= not ok
            self._check(key, tracked)

    def callback_ended(self, key: int, failed: bool = False) -> None:
        if (tracked := self._pages.get(key)) is not None:
            tracked.done = True
            tracked.failed |= failed
            self._check(key, tracked)

    def _check(self, key: int, tracked: _Tracked) -> None:
        if tracked.done and tracked.items <= 0:
            self._finish(key, delivered=not tracked.failed)

    def _finish(self, key: int, delivered: bool) -> None:
        tracked = self._pages.pop(key)
        self._settle(key, tracked.pending, delivered)

    def undelivered(self) -> list[tuple[int, Pending]]:
        """Everything still in flight (the spider is closing: none of it will be delivered),
        forgotten here."""
        left = [(key, tracked.pending) for key, tracked in self._pages.items()]
        self._pages.clear()
        return left


# ---------------------------------------------------------------- in the store's thread


def journaled_check(check: Callable[[], Match | None], journal: Journal, key: int, pending: Pending) -> Match | None:
    """In the store's thread: the page goes into the journal, then to ``check`` (the store's
    ``check_and_add`` for it; a kill between the two leaves a line whose discard finds nothing)."""
    journal.begin(key, pending)
    return check()


def discard_all(store: FingerprintStore, pending: list[Pending]) -> int:
    """Discard the entries of ``pending`` (a dead process's journal); how many were found."""
    return sum(store.discard(p.fingerprint, p.url, p.since) for p in pending)


def discard_one(store: FingerprintStore, journal: Journal, key: int, pending: Pending) -> None:
    """In the store's thread: discard an undelivered page's entry, then close its journal line
    (left open if the store fails: the next start discards it)."""
    store.discard(pending.fingerprint, pending.url, pending.since)
    journal.end(key)
