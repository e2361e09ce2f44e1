"""Which store class serves a store URL: by its scheme, as Scrapy picks a download handler
(``DOWNLOAD_HANDLERS``), from ``STORES_BASE`` and the ``CONTENTSEEN_STORES`` setting
(``{"myscheme": "mypackage.MyStore"}``: a ``FingerprintStore`` subclass; ``None`` disables a
scheme). Backends are imported only when used."""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import urlsplit, urlunsplit

from ..errors import ContentSeenError, load_subclass
from .base import FingerprintStore

STORES_BASE: dict[str, str] = {
    "sqlite": "contentseen.stores.sqlite.SQLiteStore",
    "redis": "contentseen.stores.redis.RedisStore",
    "rediss": "contentseen.stores.redis.RedisStore",
    "unix": "contentseen.stores.redis.RedisStore",
    "redis+cluster": "contentseen.stores.redis_cluster.RedisClusterStore",
    "rediss+cluster": "contentseen.stores.redis_cluster.RedisClusterStore",
    "memory": "contentseen.stores.memory.MemoryStore",
}


def store_class(url: str, stores: Mapping[str, Any] | None = None) -> type[FingerprintStore]:
    """The class for ``url``'s scheme (``stores`` over ``STORES_BASE``)."""
    table = {**STORES_BASE, **(stores or {})}
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    path = table.get(scheme)
    if path is None:
        known = ", ".join(f"{s}://" for s, v in table.items() if v)
        raise ContentSeenError(f"CONTENTSEEN_STORE: {url!r} is not a store URL (one of {known})")
    return load_subclass(path, FingerprintStore, f"CONTENTSEEN_STORES[{scheme!r}]")


def open_store(
    url: str, identity: Mapping[str, str], bits: int, distance: int, *,
    page_distance: int | None = None, stores: Mapping[str, Any] | None = None, **options: Any,
) -> FingerprintStore:
    """Open (creating if needed) the store at ``url``: ``sqlite:///path``, ``redis://host:port/db``,
    ``memory://`` or a scheme of ``stores``. ``page_distance`` (0..64) makes drops need near page
    fingerprints too; None ignores them. ``options`` go to the backend, which must take them."""
    cls = store_class(url, stores)
    unknown = sorted(set(options) - cls.OPTIONS)
    if unknown:
        takes = ", ".join(sorted(cls.OPTIONS)) or "none"
        raise ContentSeenError(f"store {url}: {cls.__name__} has no option {', '.join(unknown)} (it takes: {takes})")
    return cls(url, identity, bits, distance, page_distance=page_distance, **options)


def open_recorded(url: str, stores: Mapping[str, Any] | None = None, **options: Any) -> FingerprintStore:
    """Open the existing store at ``url`` under the scheme it saved (see
    ``FingerprintStore.open_recorded``): no crawl settings needed."""
    return store_class(url, stores).open_recorded(url, **options)


def open_store_from_settings(url: str, settings: Any, identity: Mapping[str, str], bits: int, distance: int,
                             page_distance: int | None = None) -> FingerprintStore:
    """``open_store`` with the backend's options read from Scrapy ``settings``."""
    stores = settings.getdict("CONTENTSEEN_STORES")
    cls = store_class(url, stores)
    return open_store(url, identity, bits, distance, page_distance=page_distance, stores=stores,
                      **cls.options_from_settings(settings))


def display_url(url: str) -> str:
    """``url`` with its password masked (``redis://:***@host:6379/0``), for logs, stats and
    errors: a store URL may carry credentials, which must reach no log."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))
