"""The Scrapy downloader middleware: drop near-duplicate pages before the item pipeline.

Enable it with one entry (below 580 so that it sees decompressed bodies and final pages after
redirects)::

    DOWNLOADER_MIDDLEWARES = {"contentseen.middleware.ContentSeenMiddleware": 560}

All logic lives in ``contentseen.engine`` (over ``fingerprints`` and ``stores``); this class reads
``CONTENTSEEN_*`` settings, keeps stats under ``contentseen/`` and logs each drop.
``ContentSeenSpiderMiddleware`` serves ``CONTENTSEEN_REVISITS=follow``: it drops the items of a
page crawled again unchanged, whose links the spider still follows.
"""

from __future__ import annotations

import logging
import time
from functools import partial
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Iterable

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Request, Response, TextResponse
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.conf import build_component_list
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import load_object

from . import _native, blas
from .delivery import Deliveries, Journal, Pending, discard_all, discard_one, fcntl, journaled_check
from .engine import REVISITS, Decision, Engine, _host
from .errors import ContentSeenError, one_line, report_startup_error
from .settings import (
    batch_setting, duration_text, file_name, journal_dir, reset_wanted, scheme_from_settings, seconds_setting,
    store_location, templates_wanted,
)
from .signals import page_decided
from .stores import FingerprintStore, StoreError, display_url, open_store_from_settings
from .stores.base import expire_seconds
from .stores.worker import StoreSkipped, StoreWorker
from .templates import HostTemplates

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings
    from scrapy.spiders import Spider

logger = logging.getLogger(__name__)

ON_STORE_ERROR = ("keep", "stop")
SPIDER_MIDDLEWARE = "contentseen.middleware.ContentSeenSpiderMiddleware"


def _spider_middleware_enabled(settings: BaseSettings) -> bool:
    """Whether Scrapy will run ContentSeenSpiderMiddleware (or a subclass): the component list
    as Scrapy builds it, so a key set to None or given twice counts as Scrapy counts it."""
    with_base = getattr(settings, "get_component_priority_dict_with_base", settings.getwithbase)
    components = build_component_list(with_base("SPIDER_MIDDLEWARES"))
    return any(
        isinstance(cls, type) and issubclass(cls, ContentSeenSpiderMiddleware)
        for cls in (load_object(c) if isinstance(c, str) else c for c in components)
    )


class ContentSeenMiddleware:
    """Fingerprint each 2xx HTML/text response; drop it (``IgnoreRequest``) when a stored page is
    within ``CONTENTSEEN_DISTANCE`` (and its whole text within ``CONTENTSEEN_PAGE_DISTANCE``),
    else store its fingerprints and let it through. A shell over ``contentseen.engine.Engine``."""

    def __init__(self, crawler: Crawler, engine: Engine, worker: StoreWorker, on_store_error: str = "keep"):
        self.crawler = crawler
        self.stats = crawler.stats
        self.engine = engine
        self.worker = worker
        self._skip_said = False  # a page skipped while the store's circuit is open was logged
        self.on_store_error = on_store_error
        self.bits = engine.pages.scheme.bits
        self._closing = False
        # Pages kept but not delivered yet (see contentseen.delivery); None: a page counts as
        # seen once checked (no spider middleware to see it delivered, or a store that cannot
        # discard an entry).
        self.deliveries: Deliveries | None = None
        self.journal: Journal | None = None
        self._blas_held = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "ContentSeenMiddleware":
        if not crawler.settings.getbool("CONTENTSEEN_ENABLED", True):
            raise NotConfigured("CONTENTSEEN_ENABLED is off")
        try:
            return cls._from_settings(crawler)
        except ContentSeenError as exc:
            report_startup_error(logger, exc)
            raise

    @classmethod
    def _from_settings(cls, crawler: Crawler) -> "ContentSeenMiddleware":
        settings = crawler.settings
        on_error = settings.get("CONTENTSEEN_ON_STORE_ERROR", "keep")
        if on_error not in ON_STORE_ERROR:
            raise ContentSeenError(f"CONTENTSEEN_ON_STORE_ERROR: {on_error!r} is not one of {ON_STORE_ERROR}")
        revisits = settings.get("CONTENTSEEN_REVISITS", "drop")
        if revisits not in REVISITS:
            raise ContentSeenError(f"CONTENTSEEN_REVISITS: {revisits!r} is not one of {REVISITS}")
        spider_mw = _spider_middleware_enabled(settings)  # what sees pages delivered
        if revisits == "follow" and not spider_mw:
            # Without it the items of unchanged pages would reach the item pipeline again.
            raise ContentSeenError(f"CONTENTSEEN_REVISITS=follow needs SPIDER_MIDDLEWARES = {{{SPIDER_MIDDLEWARE!r}: 100}}")
        pages = scheme_from_settings(settings).build()
        scheme = pages.scheme
        spider = crawler.spider.name if crawler.spider is not None else "default"
        reset = reset_wanted(settings, crawler.spider)
        expire = expire_seconds(settings)  # refused here, before the store opens, when bad
        url, settings = store_location(settings, spider)
        try:
            worker = StoreWorker(
                lambda: open_store_from_settings(url, settings, pages.identity, scheme.bits, scheme.distance,
                                                 scheme.page_distance),
                timeout=seconds_setting(settings, "CONTENTSEEN_STORE_TIMEOUT", 5.0),
                failures=3, cooldown=seconds_setting(settings, "CONTENTSEEN_STORE_COOLDOWN", 10.0),
                batch=batch_setting(settings),
            )
        except ContentSeenError as exc:  # its message names the store: never its password
            raise ContentSeenError(str(exc).replace(url, display_url(url))) from None
        templates = HostTemplates() if templates_wanted(settings) else None
        mw = cls(crawler, Engine(pages, worker.store, revisits, templates), worker, on_error)
        crawler.signals.connect(mw.spider_closed, signal=signals.spider_closed)
        try:
            why_not = (f"enable {SPIDER_MIDDLEWARE} to mark them on delivery" if not spider_mw
                       else "the store cannot discard an entry" if type(worker.store).discard is FingerprintStore.discard
                       else "no file locks on this platform" if fcntl is None else None)
            if why_not is None:
                what = "discard the pages a killed crawl left in flight"
                mw._track_deliveries(journal_dir(settings, url), file_name(spider), display_url(url))
            else:
                logger.info("ContentSeen: pages count as seen once checked, not once delivered (%s)", why_not)
            what = "reset it" if reset else "count it"
            if reset:  # as deltafetch's DELTAFETCH_RESET: this crawl starts from an empty store
                worker.call_now(worker.store.reset, wait=None)  # grows with the store: no time limit
            initial = worker.call_now(len, worker.store)  # cheap in every store: no scan
        except Exception as exc:
            worker.close()
            raise ContentSeenError(f"store {display_url(url)}: cannot {what} "
                                   f"({str(exc).replace(url, display_url(url))})") from None
        crawler.stats.set_value("contentseen/initial", initial)
        logger.info("ContentSeen: store %s holds %d fingerprints%s%s; %d bits, distance %d, page distance %d, "
                    "extract %s", display_url(url), initial, " (reset)" if reset else "",
                    "" if expire is None else f", entries expire after {duration_text(expire)}",
                    scheme.bits, scheme.distance, scheme.page_distance, scheme.extract)
        blas.hold()  # given back at close (contentseen.blas)
        mw._blas_held = True
        if _native.speedups is None:
            logger.info("ContentSeen: its C speedups are not built (no C compiler or Python headers when it was "
                        "installed, or built from other sources: reinstall): pages are fingerprinted in Python, "
                        "at about 4-5 times the cost (README, \"Quick start\")")
        return mw

    def _track_deliveries(self, directory, name: str, store: str) -> None:
        """Discard what dead crawls of this spider left in flight, then journal this one's."""
        orphans = 0
        for path, pending in Journal.orphans(directory, name, store):
            orphans += self.worker.call_now(discard_all, self.worker.store, pending, wait=None)
            path.unlink()
        if orphans:
            logger.info("ContentSeen: %d pages stored by a crawl that ended before delivering them are removed "
                        "from the store (they are fetched again)", orphans)
        self.stats.set_value("contentseen/orphans_discarded", orphans)
        self.journal = self.worker.call_now(Journal, directory, name, store)
        self.deliveries = Deliveries(self._settle)
        for signal, ok in ((signals.item_scraped, True), (signals.item_dropped, True), (signals.item_error, False)):
            self.crawler.signals.connect(self._item_passed if ok else self._item_failed, signal=signal)

    @staticmethod
    def _key(response: Any) -> int | None:
        """The in-flight key of a page (an errback's items come with a Failure, not a page)."""
        try:
            return response.meta.get("contentseen", {}).get("inflight")
        except AttributeError:
            return None

    def _item_passed(self, item: Any, response: Response | None = None, **kwargs: Any) -> None:
        if self.deliveries is not None and (key := self._key(response)) is not None:
            self.deliveries.item_passed(key)

    def _item_failed(self, item: Any, response: Response | None = None, **kwargs: Any) -> None:
        if self.deliveries is not None and (key := self._key(response)) is not None:
            self.deliveries.item_passed(key, ok=False)

    def _settle(self, key: int, pending: Pending, delivered: bool) -> None:
        """A page's fate is known: delivered (its journal line is closed), or not (its entry is
        discarded from the store, so that a copy or the next crawl keeps it again)."""
        if delivered:
            self.worker.submit(self.journal.end, key)
            return
        self._said_undelivered(pending)
        self.worker.submit(discard_one, self.worker.store, self.journal, key, pending).add_done_callback(
            _log_failed_discard)

    def _said_undelivered(self, pending: Pending) -> None:
        self.stats.inc_value("contentseen/undelivered")
        logger.info("ContentSeen: %s was not delivered (its callback or an item failed, or the spider closed "
                    "first): its fingerprint is removed from the store", pending.url)

    async def spider_closed(self, spider: Spider, reason: str) -> None:
        """Close as ``close`` does, awaited: a frozen store holds up no other crawl's reactor."""
        self._store_stats()
        self._release_blas()
        await self.worker.aclose(self._closing_steps())

    def close(self) -> None:
        """Discard the pages still in flight (none will be delivered now), close the journal,
        then the store, in the store's thread (waiting at most 4 x the call timeout)."""
        self._store_stats()
        self._release_blas()
        self.worker.close(self._closing_steps())

    def _store_stats(self) -> None:
        worker = self.worker
        self.stats.set_value("contentseen/store_seconds", worker.busy)
        if worker.batches:
            self.stats.set_value("contentseen/store_batches", worker.batches)
            self.stats.set_value("contentseen/store_batched_checks", worker.batched)

    def _release_blas(self) -> None:
        if self._blas_held:
            self._blas_held = False
            blas.release()

    def _closing_steps(self) -> Callable[[], None] | None:
        """What closing does in the store's thread before the store closes (None: nothing)."""
        if self.deliveries is None:
            return None
        left = self.deliveries.undelivered()
        self.deliveries = None
        for _, pending in left:
            self._said_undelivered(pending)
        store, journal = self.worker.store, self.journal

        def steps() -> None:
            try:
                for key, pending in left:
                    discard_one(store, journal, key, pending)
                journal.close()
            except Exception as exc:  # the journal stays: the next start discards its pages
                logger.warning("ContentSeen: pages still in flight are left to the next start to discard (%s)",
                               one_line(exc))

        return steps

    async def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        return await self._decide(request, response)

    def _spent(self, started: float) -> None:
        """Add the reactor thread's time since ``started`` to ``contentseen/seconds``: the
        middleware's own cost, to set beside the crawl's elapsed time (the store's calls run in
        their own thread, concurrently: ``contentseen/store_seconds``)."""
        self.stats.inc_value("contentseen/seconds", time.perf_counter() - started, start=0.0)

    async def _check(self, url: str, decision: Decision) -> tuple[Decision, int | None]:
        """The store's answer for a prepared page, asked in the store's thread; with the key of
        the page in flight when it was stored, or may have been (a store error)."""
        page = decision.page
        if self._closing:  # CONTENTSEEN_ON_STORE_ERROR=stop: nothing checked any more
            return Decision("store_error", page, reason="the spider is closing after a store error"), None
        key = None
        # a page that needs no lookup first is checked with the others queued beside it (check_many)
        query = self.engine.query(url, page, decision.second)
        try:
            if self.deliveries is None:
                match = await (self.worker.check(query) if query is not None
                               else self.worker.call(self.engine.check, url, page, decision.second))
            else:
                key = self.deliveries.new_key()
                pending = Pending(page.fingerprint, page.page, url, time.time())
                if query is not None:
                    match = await self.worker.check(query, partial(self.journal.begin, key, pending))
                else:
                    check = partial(self.engine.check, url, page, decision.second)
                    match = await self.worker.call(journaled_check, check, self.journal, key, pending)
        except StoreSkipped as exc:  # not called: nothing journaled, nothing stored
            return Decision("store_error", page, reason=str(exc), skipped=True), None
        except StoreError as exc:  # stored or not: in flight as if kept, discarded unless delivered
            if key is not None:
                self.deliveries.track(key, pending)
            return Decision("store_error", page, reason=str(exc)), key
        decision = self.engine.judge(url, page, match)
        if key is not None:
            if decision.outcome == "kept":
                self.deliveries.track(key, pending)
            else:  # nothing was stored
                self.worker.submit(self.journal.end, key)
                key = None
        return decision, key

    async def _decide(self, request: Request, response: Response) -> Response:
        # A spider that copies response.meta into the requests it makes would pass on this
        # page's mark ("unchanged" above all) to pages never checked.
        request.meta.pop("contentseen", None)
        if request.meta.get("contentseen_skip"):
            self.stats.inc_value("contentseen/skipped/meta")
            return response
        if request.callback is NO_CALLBACK or request.meta.get("dont_obey_robotstxt"):
            # Scrapy's own requests (robots.txt, sitemaps fetched for a middleware): stored, the
            # next crawl would drop robots.txt as a copy of itself and obey nothing.
            self.stats.inc_value("contentseen/skipped/internal")
            return response
        if not isinstance(response, TextResponse):  # Scrapy found no text in it
            self.stats.inc_value("contentseen/skipped/type")
            return response
        started = time.perf_counter()
        decision = self.engine.prepare(response.url, response.status, response.headers.get(b"Content-Type"), response.body)
        inflight = None
        if decision.outcome == "check":
            if decision.second is not None:  # what the host templates cost ("Host templates")
                self.stats.inc_value("contentseen/second_looks")
            self._spent(started)
            decision, inflight = await self._check(response.url, decision)
            started = time.perf_counter()
        try:
            return self._decided(request, response, decision, inflight)
        finally:
            self._spent(started)

    def _decided(self, request: Request, response: Response, decision: Decision, inflight: int | None) -> Response:
        """Signal, stats, log line and the response's fate for a page's decision."""
        self.crawler.signals.send_catch_log(page_decided, request=request, response=response, decision=decision,
                                            spider=self.crawler.spider)
        page = decision.page
        if page is not None and page.fingerprint is not None:
            request.meta["contentseen"] = {"fingerprint": page.hex(self.bits), "page_fingerprint": f"{page.page:016x}",
                                           "text_chars": page.text_chars, "exact": page.exact,
                                           "sliver": page.sliver, "flat": page.flat,
                                           "shared": page.shared}
            if inflight is not None:
                request.meta["contentseen"]["inflight"] = inflight
        outcome = decision.outcome
        if outcome == "skipped":
            reason = decision.reason.split(":", 1)[0]
            self.stats.inc_value(f"contentseen/skipped/{reason}")
            if reason == "error":
                logger.warning("ContentSeen: cannot fingerprint %s (%s); kept unchecked",
                               response.url, decision.reason[len("error: "):])
            return response
        self.stats.inc_value("contentseen/checked")
        if page is not None and page.exact:
            self.stats.inc_value("contentseen/checked/exact")
        elif page is not None and page.sliver:
            self.stats.inc_value("contentseen/checked/sliver")
        if page is not None and page.flat:
            self.stats.inc_value("contentseen/checked/flat")
        if page is not None and page.shared:
            self.stats.inc_value("contentseen/checked/shared")
        if outcome == "store_error":
            return self._store_failed(decision, response)
        if outcome == "kept":
            self.stats.inc_value("contentseen/stored")
            return response
        match = decision.match
        assert match is not None
        if outcome == "revisited":
            self.stats.inc_value("contentseen/revisited")
            request.meta["contentseen"]["unchanged"] = match.distance
            logger.info(
                "ContentSeen: %s is unchanged since it was stored (distance %d): links followed, items dropped",
                response.url, match.distance,
            )
            return response
        if outcome == "refetched":
            self.stats.inc_value("contentseen/refetched")
            logger.info("ContentSeen: refetched %s: unchanged since it was stored (distance %d); not followed "
                        "again (CONTENTSEEN_REVISITS=drop)", response.url, match.distance)
            raise IgnoreRequest(f"refetched, unchanged since stored (distance {match.distance})")
        self.stats.inc_value("contentseen/dropped")
        self.stats.inc_value(f"contentseen/dropped/distance_{match.distance}")
        evidence = "" if match.page_distance is None else f"; whole page distance {match.page_distance}"
        if match.template_lines:
            self.stats.inc_value("contentseen/dropped/template")
            evidence += f"; without {match.template_lines} line(s) of its host's template"
        if match.alone:
            self.stats.inc_value("contentseen/dropped/block_alone")
            evidence += "; by its content block alone"
        if page.shared and _host(match.url) == _host(response.url):
            evidence += "; its content block on other pages of its host: by the whole page"
        logger.info(
            "ContentSeen: dropped %s: duplicates %s (distance %d, fingerprint %s)%s",
            response.url, match.url, match.distance, page.hex(self.bits), evidence,
        )
        raise IgnoreRequest(f"near-duplicate of {match.url} (distance {match.distance})")

    def _store_failed(self, decision: Decision, response: Response) -> Response:
        error = decision.reason
        self.stats.inc_value("contentseen/store_errors")
        if decision.skipped:  # the circuit is open: said once when it opened, counted since
            self.stats.inc_value("contentseen/store_errors/skipped")
            if self.on_store_error == "stop":
                raise IgnoreRequest(f"not checked: {error}")
            if self._skip_said:
                logger.debug("ContentSeen: %s; keeping %s", error, response.url)
                return response
            self._skip_said = True
        else:
            self._skip_said = False
        if self.on_store_error == "stop":
            # No page goes on unchecked: this one and those still in flight are left for the
            # next crawl to fetch again.
            if not self._closing:
                logger.error("ContentSeen: %s; closing the spider (CONTENTSEEN_ON_STORE_ERROR=stop)", error)
                self._close_spider("contentseen_store_error")
            raise IgnoreRequest(f"not checked: {error}")
        logger.error("ContentSeen: %s; keeping %s (CONTENTSEEN_ON_STORE_ERROR=keep)", error, response.url)
        return response

    def _close_spider(self, reason: str) -> None:
        engine = self.crawler.engine
        if engine is None or self._closing:
            return
        self._closing = True
        deferred_from_coro(engine.close_spider_async(reason=reason))


def _log_failed_discard(future: Any) -> None:
    if (exc := future.exception()) is not None:
        logger.warning("ContentSeen: cannot remove an undelivered page from the store (%s); the next start "
                       "will", one_line(exc))


class ContentSeenSpiderMiddleware:
    """Sees pages delivered: counts the items each kept page's callback makes, and tells
    ``ContentSeenMiddleware`` when the callback ended (or raised), so that a page counts as seen
    only once delivered (``contentseen.delivery``). With ``CONTENTSEEN_REVISITS=follow`` it also
    drops the items a spider makes from a page ``ContentSeenMiddleware`` found unchanged since it
    was stored, and lets its requests (the links it follows) through. Enable with
    ``SPIDER_MIDDLEWARES = {"contentseen.middleware.ContentSeenSpiderMiddleware": 100}`` (the
    add-on does), at a low number: its output is then what reaches the item pipeline."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "ContentSeenSpiderMiddleware":
        return cls(crawler)

    def _deliveries(self, response: Response) -> tuple[Deliveries | None, int | None]:
        key = ContentSeenMiddleware._key(response)
        if key is None:
            return None, None
        downloader = self.crawler.get_downloader_middleware(ContentSeenMiddleware)
        deliveries = None if downloader is None else downloader.deliveries
        return deliveries, (None if deliveries is None else key)

    @staticmethod
    def _unchanged(response: Response) -> bool:
        return "unchanged" in response.meta.get("contentseen", {})

    def _keep(self, output: Any) -> bool:
        if isinstance(output, Request):
            return True
        self.stats.inc_value("contentseen/revisit_items_dropped")
        return False

    def process_spider_output(self, response: Response, result: Iterable[Any], spider: Spider | None = None) -> Iterable[Any]:
        deliveries, key = self._deliveries(response)
        if deliveries is not None:
            return self._delivered(response, result, deliveries, key)
        if not self._unchanged(response):
            return result
        return (x for x in result if self._keep(x))

    def _delivered(self, response: Response, result: Iterable[Any], deliveries: Deliveries, key: int) -> Iterable[Any]:
        try:
            for x in result:
                if not isinstance(x, Request):
                    deliveries.item_made(key)
                yield x
        except BaseException:
            deliveries.callback_ended(key, failed=True)
            raise
        deliveries.callback_ended(key)

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Spider | None = None
    ) -> AsyncIterator[Any]:
        unchanged = self._unchanged(response)
        deliveries, key = self._deliveries(response)
        try:
            async for x in result:
                if unchanged and not self._keep(x):
                    continue
                if deliveries is not None and not isinstance(x, Request):
                    deliveries.item_made(key)
                yield x
        except BaseException:
            if deliveries is not None:
                deliveries.callback_ended(key, failed=True)
            raise
        if deliveries is not None:
            deliveries.callback_ended(key)

    def process_spider_exception(self, response: Response, exception: Exception, spider: Spider | None = None) -> None:
        """A callback that raised before making any output: its page was not delivered."""
        deliveries, key = self._deliveries(response)
        if deliveries is not None:
            deliveries.callback_ended(key, failed=True)
