"""ContentSeen: drop near-duplicate pages in a crawl by SimHash fingerprints.

Data flows one way: bytes -> text (``text``) -> words (``tokens``) -> features (``features``)
-> fingerprint (``simhash``) -> index / store (``index``, ``stores``) -> decision (``middleware``).
Submodules are imported on use so that the command-line tools start fast.
"""

__version__ = "0.1.0"
