"""ContentSeen: drop near-duplicate pages in a crawl by SimHash fingerprints.

Data flows one way: bytes -> text (``text``) -> words (``tokens``) -> features (``features``)
-> fingerprint (``simhash``) -> index / store (``index``, ``stores``) -> decision (``engine``),
shelled by the Scrapy middleware (``middleware``, ``delivery``) and the commands (``cli``).
The public names below are imported on first use, so the command-line tools start fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "ContentSeenError": "errors",
    "tokenize": "tokens",
    "Vocabulary": "features",
    "HashedFeatures": "features",
    "builtin_hashtable": "projection",
    "load_hashtable": "projection",
    "SimHasher": "simhash",
    "hamming": "simhash",
    "Scheme": "fingerprints",
    "PageFingerprinter": "fingerprints",
    "Weighting": "fingerprints",
    "Words": "tokens",
    "Extractor": "text",
    "Engine": "engine",
    "BlockPlan": "blocks",
    "HammingIndex": "index",
    "open_store": "stores",
    "ContentSeenMiddleware": "middleware",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'contentseen' has no attribute {name!r}")
