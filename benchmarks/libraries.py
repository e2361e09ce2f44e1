"""Well-kept content-extraction libraries beside ContentSeen's own narrowing: cost and quality.

Issue 10 asks for the design to be found by measurement, a library among the options. Each
library here is wrapped as an extraction stage (``LibraryExtractor``, an ``Extractor`` subclass:
the library's main text is the page's content, ContentSeen's whole visible text stays beside it,
so the drop rule -- both fingerprints within their distances -- and the sliver rule are the
same for all, and only the choice of the content differs):

* ``trafilatura`` (``trafilatura.extract``, its defaults: its own rules, then readability's and
  jusText's algorithms as fallbacks);
* ``resiliparse`` (``extract_plain_text(..., main_content=True)``: Chatnoir's rules over lexbor);
* ``readability`` (readability-lxml's ``Document.summary()``, the port of Arc90's Readability).

(jusText is left out: it needs the page's language named for its stoplist, which a crawler of
sites in any language does not know; trafilatura runs it as a fallback with a guessed one.)

Cost: ``python3 benchmarks/libraries.py`` times each stage's ``texts`` on pydoc's pages and,
when installed, the Python documentation's, beside the bare parse + body text of the same pages
(issue 10's reference), best of ``--runs``, one core.
Quality: ``python3 benchmarks/trees.py --library trafilatura ...`` runs the tree mirrors with it.
Needs ``pip install trafilatura resiliparse readability-lxml`` (not dependencies of ContentSeen).
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from contentseen.text import Extractor, PageText, content_share  # noqa: E402

LIBRARIES = ("trafilatura", "resiliparse", "readability")
_WHOLE = Extractor("body")


def _trafilatura() -> Callable[[str], str]:
    import trafilatura

    return lambda html: trafilatura.extract(html) or ""


def _resiliparse() -> Callable[[str], str]:
    from resiliparse.extract.html2text import extract_plain_text

    return lambda html: extract_plain_text(html, main_content=True)


def _readability() -> Callable[[str], str]:
    import lxml.html
    from readability import Document

    def extract(html: str) -> str:
        summary = Document(html).summary(html_partial=True)
        return lxml.html.fromstring(summary).text_content() if summary.strip() else ""

    return extract


_LOADERS = {"trafilatura": _trafilatura, "resiliparse": _resiliparse, "readability": _readability}
_loaded: dict[str, Callable[[str], str]] = {}


def library_text(library: str, html: str) -> str:
    """The main text ``library`` extracts from ``html`` ('' when it finds none)."""
    if library not in _loaded:
        try:
            _loaded[library] = _LOADERS[library]()
        except ImportError as exc:
            raise SystemExit(f"{library} is not installed ({exc}): pip install trafilatura resiliparse readability-lxml")
    return _loaded[library](html)


@dataclass(frozen=True)
class LibraryExtractor(Extractor):
    """An extraction stage whose content is ``library``'s main text and whose whole text is
    ContentSeen's (``Extractor("body")``); a content under ``min_share`` of the whole is a sliver,
    as a narrowed block is."""

    library: str = "trafilatura"

    def texts(self, html: str) -> PageText:
        whole = _WHOLE.texts(html).whole
        content = library_text(self.library, html)
        share = content_share(content, whole)
        return PageText(content, whole, sliver=share < self.min_share, share=share, narrowed=True)


def main() -> int:
    from selectolax.lexbor import LexborHTMLParser

    from htmlcorpus import pydoc_pages
    from common import PYTHON_DOC, best

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=200, help="pydoc pages (default %(default)s)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    corpora = {"pydoc": [b for p, b in pydoc_pages(args.pages).items() if p != "/index.html"]}
    sphinx = sorted({os.path.realpath(f) for f in glob.glob(PYTHON_DOC, recursive=True)})
    if sphinx:
        corpora["python-doc"] = [Path(f).read_bytes() for f in sphinx]

    def parse_and_text(body: bytes) -> str:
        tree = LexborHTMLParser(body)
        return tree.body.text(separator=" ") if tree.body is not None else ""

    print(f"{'extraction (one core, ms a page)':36}" + "".join(f"{name:>22}" for name in corpora))
    refs = {name: best(parse_and_text, bodies, args.runs) for name, bodies in corpora.items()}
    htmls = {name: [b.decode("utf-8", "replace") for b in bodies] for name, bodies in corpora.items()}
    stages = [("ContentSeen (default Extractor)", Extractor())] + [
        (f"{lib} + whole text", LibraryExtractor(library=lib)) for lib in LIBRARIES]
    print(f"{'reference: lexbor parse + body text':36}" + "".join(f"{refs[n] * 1e3:12.3f} ms (1.0x)" for n in corpora))
    for label, stage in stages:
        cells = []
        for name in corpora:
            t = best(stage.texts, htmls[name], args.runs)
            cells.append(f"{t * 1e3:9.3f} ms ({t / refs[name]:4.1f}x)")
        print(f"{label:36}" + "".join(f"{c:>22}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
