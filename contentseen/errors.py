"""The one exception type the library raises for bad input or configuration, how a class named
by a setting is loaded with such errors, and how a start-up error reaches a Scrapy user: one
CRITICAL line, no traceback."""

import logging
from typing import Any


class ContentSeenError(Exception):
    """Bad input, configuration or store: the message names the file, setting or argument."""


class _Reported(logging.Filter):
    """Drops asyncio's "Task exception was never retrieved" record of one exception already
    logged as one line. (Under the asyncio reactor, Scrapy's default; other reactors still print
    Twisted's traceback after that line.)"""

    def __init__(self, exc: BaseException):
        super().__init__()
        self.exc = exc

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and record.exc_info[1] is self.exc)


def report_startup_error(logger: logging.Logger, exc: BaseException, what: str = "ContentSeen") -> None:
    """Log ``exc`` as one CRITICAL line (``what cannot start: message``) and keep the traceback of
    the same exception out of the log when the crawl then fails with it (exit code 1)."""
    logger.critical("%s cannot start: %s", what, exc)
    logging.getLogger("asyncio").addFilter(_Reported(exc))


def load_subclass(path: Any, base: type, what: str) -> type:
    """The class ``path`` names (or ``path`` itself, a class), which must subclass ``base``;
    ContentSeenError naming ``what`` (the setting) otherwise."""
    from scrapy.utils.misc import load_object

    try:
        cls = load_object(path) if isinstance(path, str) else path
    except (ImportError, ValueError, NameError, AttributeError) as exc:
        raise ContentSeenError(f"{what}: cannot load {path!r} ({exc})") from None
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ContentSeenError(f"{what}: {path!r} is not a {base.__module__}.{base.__qualname__} subclass")
    return cls


def one_line(exc: BaseException) -> str:
    """An exception's message on one line, or its type's name when it has none (a timeout)."""
    return " ".join(str(exc).split()) or type(exc).__name__
