"""The optional C speedups (``contentseen/_speedups.c``, built by ``setup.py``), or None where
they are not built, or were built from other sources than these (a checkout updated without
reinstalling: its functions would take other arguments); then Python does the same work."""

from __future__ import annotations

from contextlib import contextmanager
from types import ModuleType
from typing import Iterator

# Raised with every change of the C functions' arguments or results (``API`` in _speedups.c).
API = 13

speedups: ModuleType | None
try:
    from . import _speedups as speedups
except ImportError:  # pragma: no cover - depends on the install
    speedups = None
if speedups is not None and getattr(speedups, "API", None) != API:
    speedups = None


@contextmanager
def left_out() -> Iterator[None]:
    """Every module's C speedups left out while the block runs, as on an install without a
    compiler (benchmarks and tests compare the two ways). A fingerprinter built before sums in C
    only what the token scan hashes, so it follows too."""
    from . import fingerprints, templates, text, tokens, weights

    modules = (fingerprints, templates, text, tokens, weights)
    saved = [module._speedups for module in modules]
    for module in modules:
        module._speedups = None
    try:
        yield
    finally:
        for module, speedups_of in zip(modules, saved):
            module._speedups = speedups_of
