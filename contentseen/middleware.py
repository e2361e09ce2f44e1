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
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterable

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Request, Response, TextResponse
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.conf import build_component_list
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import load_object

from .engine import REVISITS, Decision, Engine
from .errors import ContentSeenError, report_startup_error
from .settings import duration_text, reset_wanted, scheme_from_settings, seconds_setting, store_location
from .signals import page_decided
from .stores import StoreError, display_url, open_store_from_settings
from .stores.base import expire_seconds
from .stores.worker import StoreSkipped, StoreWorker

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
        if revisits == "follow" and not _spider_middleware_enabled(settings):
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
            )
        except ContentSeenError as exc:  # its message names the store: never its password
            raise ContentSeenError(str(exc).replace(url, display_url(url))) from None
        try:
            if reset:  # as deltafetch's DELTAFETCH_RESET: this crawl starts from an empty store
                worker.call_now(worker.store.reset, wait=None)  # grows with the store: no time limit
            initial = worker.call_now(len, worker.store)  # cheap in every store: no scan
        except Exception as exc:
            worker.close()
            raise ContentSeenError(f"store {display_url(url)}: cannot {'reset' if reset else 'count'} it "
                                   f"({str(exc).replace(url, display_url(url))})") from None
        mw = cls(crawler, Engine(pages, worker.store, revisits), worker, on_error)
        crawler.signals.connect(mw.spider_closed, signal=signals.spider_closed)
        crawler.stats.set_value("contentseen/initial", initial)
        logger.info("ContentSeen: store %s holds %d fingerprints%s%s; %d bits, distance %d, page distance %d, "
                    "extract %s", display_url(url), initial, " (reset)" if reset else "",
                    "" if expire is None else f", entries expire after {duration_text(expire)}",
                    scheme.bits, scheme.distance, scheme.page_distance, scheme.extract)
        return mw

    def spider_closed(self, spider: Spider, reason: str) -> None:
        self.close()

    def close(self) -> None:
        """Close the store (in its own thread)."""
        self.worker.close()

    async def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Response:
        # The middleware's own cost, so users can see its share of their crawl (the store's
        # answer included, awaited off the reactor thread).
        started = time.perf_counter()
        try:
            return await self._decide(request, response)
        finally:
            self.stats.inc_value("contentseen/seconds", time.perf_counter() - started, start=0.0)

    async def _check(self, url: str, decision: Decision) -> Decision:
        """The store's answer for a prepared page, asked in the store's thread."""
        page = decision.page
        if self._closing:  # CONTENTSEEN_ON_STORE_ERROR=stop: nothing checked any more
            return Decision("store_error", page, reason="the spider is closing after a store error")
        try:
            match = await self.worker.call(self.engine.store.check_and_add, page.fingerprint, url, page=page.page)
        except StoreSkipped as exc:
            return Decision("store_error", page, reason=str(exc), skipped=True)
        except StoreError as exc:
            return Decision("store_error", page, reason=str(exc))
        return self.engine.judge(url, page, match)

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
        decision = self.engine.prepare(response.url, response.status, response.headers.get(b"Content-Type"), response.body)
        if decision.outcome == "check":
            decision = await self._check(response.url, decision)
        self.crawler.signals.send_catch_log(page_decided, request=request, response=response, decision=decision,
                                            spider=self.crawler.spider)
        page = decision.page
        if page is not None and page.fingerprint is not None:
            request.meta["contentseen"] = {"fingerprint": page.hex(self.bits), "page_fingerprint": f"{page.page:016x}",
                                           "text_chars": page.text_chars, "exact": page.exact}
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
        whole = "" if match.page_distance is None else f"; whole page distance {match.page_distance}"
        logger.info(
            "ContentSeen: dropped %s: duplicates %s (distance %d, fingerprint %s)%s",
            response.url, match.url, match.distance, page.hex(self.bits), whole,
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


class ContentSeenSpiderMiddleware:
    """With ``CONTENTSEEN_REVISITS=follow``: drops the items a spider makes from a page that
    ``ContentSeenMiddleware`` found unchanged since it was stored, and lets its requests (the
    links it follows) through. Enable with
    ``SPIDER_MIDDLEWARES = {"contentseen.middleware.ContentSeenSpiderMiddleware": 100}``."""

    def __init__(self, stats: Any):
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> "ContentSeenSpiderMiddleware":
        return cls(crawler.stats)

    @staticmethod
    def _unchanged(response: Response) -> bool:
        return "unchanged" in response.meta.get("contentseen", {})

    def _keep(self, output: Any) -> bool:
        if isinstance(output, Request):
            return True
        self.stats.inc_value("contentseen/revisit_items_dropped")
        return False

    def process_spider_output(self, response: Response, result: Iterable[Any], spider: Spider | None = None) -> Iterable[Any]:
        if not self._unchanged(response):
            return result
        return (x for x in result if self._keep(x))

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Spider | None = None
    ) -> AsyncIterator[Any]:
        unchanged = self._unchanged(response)
        async for x in result:
            if not unchanged or self._keep(x):
                yield x
