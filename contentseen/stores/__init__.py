"""Fingerprint stores: SQLite (embedded default) and Redis (shared by many crawlers)."""

from .base import FingerprintStore, Match, StoreError, open_store

__all__ = ["FingerprintStore", "Match", "StoreError", "open_store"]
