"""The C speedups left out for a while, as on an install without a compiler: tests and benchmarks
compare the two ways (``contentseen._native`` says whether they are built)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from . import fingerprints, markup, parse, templates, tokens, weights

MODULES = (fingerprints, markup, parse, templates, tokens, weights)  # every module that calls them


@contextmanager
def replaced(by: object) -> Iterator[None]:
    """Every module's C speedups replaced ``by`` another module (or None) while the block runs."""
    saved = [module._speedups for module in MODULES]
    for module in MODULES:
        module._speedups = by
    try:
        yield
    finally:
        for module, speedups_of in zip(MODULES, saved):
            module._speedups = speedups_of


def left_out():
    """Every module's C speedups left out while the block runs, as on an install without a
    compiler (benchmarks and tests compare the two ways). A fingerprinter built before sums in C
    only what the token scan hashes, so it follows too."""
    return replaced(None)
