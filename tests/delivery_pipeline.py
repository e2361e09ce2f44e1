"""An item pipeline for the delivery tests: each item's URL is appended to ``DELIVERED_FILE``
and fsynced before the item goes on, as a pipeline that must never lose an item writes it; an
item whose URL contains ``FAIL_URLS_WITH`` (when set) fails in the pipeline instead."""

from __future__ import annotations

import os

from itemadapter import ItemAdapter


class FsyncPipeline:
    def __init__(self, path: str, fail_with: str):
        self.path, self.fail_with = path, fail_with
        self.fd = -1

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings.get("DELIVERED_FILE"), crawler.settings.get("FAIL_URLS_WITH", ""))

    def open_spider(self, spider=None):
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def close_spider(self, spider=None):
        os.close(self.fd)

    def process_item(self, item, spider=None):
        url = ItemAdapter(item)["url"]
        if self.fail_with and self.fail_with in url:
            raise ValueError(f"pipeline failure for {url}")
        os.write(self.fd, url.encode() + b"\n")
        os.fsync(self.fd)
        return item
