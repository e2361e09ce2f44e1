"""The item the ``site`` spider yields for each kept page."""

from dataclasses import dataclass


@dataclass
class PageItem:
    url: str
    title: str
    fingerprint: str | None  # hex; None when the page had too little text to fingerprint
    text_chars: int
