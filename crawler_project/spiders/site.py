"""``scrapy crawl site -a start_urls=URL[,URL...]``: crawl the hosts of the start URLs.

Links are followed only within the hosts (host:port) of the start URLs; every page the
ContentSeen middleware keeps becomes one ``PageItem``. A dropped page never reaches ``parse``,
so its links are not followed.
"""

from __future__ import annotations

import logging
from typing import Any, AsyncIterator, Iterator
from urllib.parse import urlsplit

import scrapy
from scrapy.http import Response, TextResponse

from crawler_project.items import PageItem
from contentseen.errors import ContentSeenError, report_startup_error
from contentseen.text import html_title

logger = logging.getLogger(__name__)


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start_urls: str = "", *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.start_urls = [u.strip() for u in start_urls.split(",") if u.strip()]
        try:
            if not self.start_urls:
                raise ContentSeenError("give -a start_urls=URL[,URL...]")
            for url in self.start_urls:
                parts = urlsplit(url)
                if parts.scheme not in ("http", "https") or not parts.netloc:
                    raise ContentSeenError(f"start_urls: {url!r} is not an http:// or https:// URL")
        except ContentSeenError as exc:
            report_startup_error(logger, exc, "spider site")
            raise
        self.hosts = {urlsplit(u).netloc.lower() for u in self.start_urls}

    async def start(self) -> AsyncIterator[Any]:
        # Scrapy's default start requests skip the dupefilter, so a page linking back to "/"
        # would fetch the start page again and ContentSeen would drop it as its own copy.
        for url in self.start_urls:
            yield scrapy.Request(url, callback=self.parse)

    def parse(self, response: Response) -> Iterator[Any]:
        if not isinstance(response, TextResponse):
            return  # images, PDFs, other binary: not pages
        # Absent when the middleware is disabled or skipped the response.
        seen = response.meta.get("contentseen", {})
        is_html = b"html" in response.headers.get(b"Content-Type", b"").lower()
        yield PageItem(
            url=response.url,
            title=html_title(response.text) if is_html else "",
            fingerprint=seen.get("fingerprint"),
            page_fingerprint=seen.get("page_fingerprint"),
            text_chars=seen.get("text_chars", len(response.text)),
            exact=seen.get("exact", False),
            sliver=seen.get("sliver", False),
            flat=seen.get("flat", False),
            shared=seen.get("shared", False),
        )
        if not is_html:
            return
        for href in response.css("a::attr(href), area::attr(href)").getall():
            url = response.urljoin(href)
            if urlsplit(url).netloc.lower() in self.hosts:
                yield scrapy.Request(url, callback=self.parse)
