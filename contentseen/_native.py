"""The optional C speedups (``contentseen/_speedups.c``, built by ``setup.py``), or None where
they are not built, or were built from other sources than these (a checkout updated without
reinstalling: its functions would take other arguments); then Python does the same work
(``pure_python.left_out`` switches them off for a while)."""

from __future__ import annotations

from types import ModuleType

# Raised with every change of the C functions' arguments or results (``API`` in _speedups.c).
API = 20

speedups: ModuleType | None
try:
    from . import _speedups as speedups
except ImportError:  # pragma: no cover - depends on the install
    speedups = None
if speedups is not None and getattr(speedups, "API", None) != API:
    speedups = None

