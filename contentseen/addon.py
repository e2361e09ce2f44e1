"""The Scrapy add-on: ``ADDONS = {"contentseen.addon.ContentSeenAddon": 100}`` enables ContentSeen
in a project with that one line.

It puts ``ContentSeenMiddleware`` among the downloader middlewares at 560 (below
``HttpCompressionMiddleware`` 590 and ``MetaRefreshMiddleware`` 580, so it sees decompressed
bodies of final pages) and ``ContentSeenSpiderMiddleware`` among the spider middlewares at 100
(it drops the items of pages crawled again unchanged, with ``CONTENTSEEN_REVISITS=follow``).
Where the project already lists either, its own priority is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .middleware import ContentSeenMiddleware, ContentSeenSpiderMiddleware

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

DOWNLOADER_PRIORITY = 560
SPIDER_PRIORITY = 100


class ContentSeenAddon:
    """Enables the ContentSeen middlewares (see the module's docstring)."""

    def update_settings(self, settings: BaseSettings) -> None:
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", ContentSeenMiddleware, DOWNLOADER_PRIORITY)
        settings.setdefault_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", ContentSeenSpiderMiddleware, SPIDER_PRIORITY)
