"""Fingerprint stores: SQLite (embedded default), Redis (shared by many crawlers), memory (tests
and one-off runs), chosen by URL scheme (``registry``)."""

from .base import FingerprintStore, Match, Query, StoreError
from .registry import STORES_BASE, display_url, open_store, open_store_from_settings, store_class

__all__ = ["FingerprintStore", "Match", "Query", "STORES_BASE", "StoreError", "display_url", "open_store",
           "open_store_from_settings", "store_class"]
