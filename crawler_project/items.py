"""The item the ``site`` spider yields for each kept page."""

from dataclasses import dataclass


@dataclass
class PageItem:
    url: str
    title: str
    fingerprint: str | None  # hex, of the content; None when the page had no text to fingerprint
    page_fingerprint: str | None  # hex, of the whole page (see README: a drop needs both)
    text_chars: int
    exact: bool  # fingerprinted by an exact hash of its text (fewer than CONTENTSEEN_MIN_WORDS words)
    sliver: bool = False  # its content block held little of its text: the whole text counted too
    flat: bool = False  # its markup was read flat, not parsed (it would cost the parser quadratic time)
    shared: bool = False  # its content block is on other pages of its host too: the whole page decides
