"""``CONTENTSEEN_*`` settings (and spider arguments) -> what ContentSeen is made of: the fingerprint
scheme, the store's location, durations, switches. Each error names its setting."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured
from scrapy.utils.project import data_path

from .errors import ContentSeenError, load_subclass
from .fingerprints import Scheme, Weighting
from .stores.worker import DEFAULT_BATCH
from .text import Extractor
from .tokens import Words

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


# CONTENTSEEN_<name> -> the Scheme field it sets (whole numbers first): the one map from settings,
# which contentseen-evaluate's options follow too.
SCHEME_SETTINGS = {
    "BITS": "bits", "FEATURES": "features", "DISTANCE": "distance", "MIN_WORDS": "min_words",
    "PAGE_DISTANCE": "page_distance", "STOPWORDS": "stopwords", "HASHVALUES": "hashvalues",
    "CORPUS": "corpus", "EXTRACT": "extract", "WEIGHTING": "weighting",
}
_NUMBERS = ("BITS", "FEATURES", "DISTANCE", "MIN_WORDS", "PAGE_DISTANCE")


def scheme_from_settings(settings: BaseSettings) -> Scheme:
    """The fingerprint scheme named by ``CONTENTSEEN_*`` settings (unset: Scheme's defaults)."""
    values: dict[str, Any] = {}
    for name, field in SCHEME_SETTINGS.items():
        value = settings.get(f"CONTENTSEEN_{name}")
        if value is None or value == "":
            continue
        if name in _NUMBERS:
            try:
                value = settings.getint(f"CONTENTSEEN_{name}")
            except (TypeError, ValueError):
                raise ContentSeenError(f"CONTENTSEEN_{name}: {value!r} is not a whole number") from None
        values[field] = value
    weighting = values.get("weighting")
    if isinstance(weighting, str) and "." in weighting:  # a class path: another weighting stage
        values["weighting"] = load_subclass(weighting, Weighting, "CONTENTSEEN_WEIGHTING")()
    words = settings.get("CONTENTSEEN_WORDS")
    if words:
        values["words"] = load_subclass(words, Words, "CONTENTSEEN_WORDS")()
    return Scheme(**values, extractor=_extractor(settings))


def _extractor(settings: BaseSettings) -> Extractor | None:
    """``CONTENTSEEN_EXTRACTOR``: the class path of another extraction stage (an ``Extractor``
    subclass, made with the ``CONTENTSEEN_EXTRACT`` mode), or None for the built-in one."""
    path = settings.get("CONTENTSEEN_EXTRACTOR")
    if not path:
        return None
    cls = load_subclass(path, Extractor, "CONTENTSEEN_EXTRACTOR")
    return cls(settings.get("CONTENTSEEN_EXTRACT", Scheme.extract))


def seconds_setting(settings: BaseSettings, name: str, default: float) -> float:
    """A CONTENTSEEN_* duration in seconds, 0.1..3600."""
    try:
        value = settings.getfloat(name, default)
    except (TypeError, ValueError):
        value = -1.0
    if not 0.1 <= value <= 3600:
        raise ContentSeenError(f"{name}: {settings.get(name)!r} is not a number of seconds in 0.1..3600")
    return value


def batch_setting(settings: BaseSettings) -> int:
    """CONTENTSEEN_STORE_BATCH: the most checks the store is asked at once, 1..1000."""
    name = "CONTENTSEEN_STORE_BATCH"
    try:
        value = settings.getint(name, DEFAULT_BATCH)
    except (TypeError, ValueError):
        value = 0
    if not 1 <= value <= 1000:
        raise ContentSeenError(f"{name}: {settings.get(name)!r} is not a whole number in 1..1000")
    return value


def _flag(name: str, value: Any) -> bool:
    """A yes/no setting or spider argument (``-a contentseen_reset=1``: a string)."""
    if isinstance(value, bool) or value is None:
        return bool(value)
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ContentSeenError(f"{name}: {value!r} is not one of 1/0, true/false, yes/no, on/off")


def duration_text(seconds: float) -> str:
    """``30d``, ``12h``, ``15m`` or ``90 s``: a duration as one writes it in the setting."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g} s"


def templates_wanted(settings: BaseSettings) -> bool:
    """``CONTENTSEEN_TEMPLATES`` (default on): the second look without each host's template
    lines (``contentseen.templates``)."""
    return _flag("CONTENTSEEN_TEMPLATES", settings.get("CONTENTSEEN_TEMPLATES", True))


def reset_wanted(settings: BaseSettings, spider: Any) -> bool:
    """``CONTENTSEEN_RESET``, or the spider argument ``-a contentseen_reset=1``."""
    return (_flag("CONTENTSEEN_RESET", settings.get("CONTENTSEEN_RESET", False))
            or _flag("contentseen_reset", getattr(spider, "contentseen_reset", False)))


def file_name(spider: str) -> str:
    """A spider's name as a file name (of its default store, of its journal)."""
    return re.sub(r"[^\w.-]", "_", spider) or "default"


def journal_dir(settings: BaseSettings, url: str) -> Path:
    """Where the journals of pages in flight live (``contentseen.delivery``): ``JOBDIR`` when
    set, else beside a SQLite store, else the project's data dir (``.scrapy/contentseen`` of the
    working directory outside a project)."""
    jobdir = settings.get("JOBDIR")
    if jobdir:
        return Path(jobdir)
    if url.lower().startswith("sqlite:///"):
        return Path(url[len("sqlite:///"):]).parent
    try:
        return Path(data_path("contentseen", createdir=True))
    except NotConfigured:  # a settings module but no scrapy.cfg
        return Path(".scrapy", "contentseen")


def store_location(settings: BaseSettings, spider: str) -> tuple[str, BaseSettings]:
    """The store URL for ``spider``, and the settings with ``%(spider)s`` filled in
    (``CONTENTSEEN_STORE``, ``CONTENTSEEN_REDIS_PREFIX``).

    By default every spider has its own store: ``JOBDIR/contentseen.sqlite`` when a job
    directory is set, else ``<project data dir>/contentseen/<spider>.sqlite`` (Scrapy's
    ``.scrapy`` folder of the project, whatever the working directory), and on Redis the prefix
    ``contentseen:<spider>``. Spiders share a store only when told to: a ``CONTENTSEEN_STORE``
    or ``CONTENTSEEN_REDIS_PREFIX`` without ``%(spider)s``.
    """
    name = file_name(spider)
    resolved = settings.copy()
    resolved.frozen = False  # a copy of the crawler's frozen settings, for the store alone
    for key, default in (("CONTENTSEEN_STORE", None), ("CONTENTSEEN_REDIS_PREFIX", "contentseen:%(spider)s")):
        value = settings.get(key) or default
        if value:
            try:
                value = value % {"spider": name}
            except (KeyError, ValueError, TypeError):
                raise ContentSeenError(f"{key}: {value!r}: the only placeholder is %(spider)s") from None
            resolved.set(key, value, priority="cmdline")
    url = resolved.get("CONTENTSEEN_STORE")
    if not url:
        jobdir = settings.get("JOBDIR")
        path = Path(jobdir, "contentseen.sqlite") if jobdir else Path(data_path("contentseen", createdir=True), f"{name}.sqlite")
        url = "sqlite:///" + os.fspath(path)
    return url, resolved
