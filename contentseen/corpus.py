"""The course's page-file format: pages separated by form feeds, the first line an ID."""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import ContentSeenError
from .tokens import read_text_file


@dataclass(frozen=True)
class Page:
    """One page of an ``article.txt``-format file: its ID line and its content."""

    id: str
    text: str


def parse_pages(data: bytes) -> list[Page]:
    """Split ``data`` on ``\\f``; each non-blank chunk is a page whose first non-blank line is its ID.

    Bytes are decoded as Latin-1, which is lossless, so IDs are written back byte for byte.
    """
    pages = []
    for chunk in data.decode("latin-1").split("\f"):
        chunk = chunk.lstrip("\r\n \t\v")
        if not chunk:
            continue
        head, _, body = chunk.partition("\n")
        pages.append(Page(head.strip(), body))
    return pages


def read_pages(path: str | os.PathLike[str], what: str = "page file") -> list[Page]:
    """Read an ``article.txt``-format file; an empty file or one with no pages is an error."""
    pages = parse_pages(read_text_file(path, what))
    if not pages:
        raise ContentSeenError(f"{what} {os.fspath(path)}: no pages")
    return pages
