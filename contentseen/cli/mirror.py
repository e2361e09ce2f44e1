"""``contentseen-mirror``: build a labelled two-host mirror from a real HTML tree.

    contentseen-mirror /usr/share/doc/python3.11/html OUT --pages 300 --seed 1
    contentseen-mirror --pydoc OUT          # the pydoc browser's pages of the standard library

OUT gets ``a/`` (pages of the tree, byte for byte), ``b/`` (the same paths: identical, near
copies, or another page's content in this page's template) and ``labels.json``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from typing import Sequence

from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from ..errors import ContentSeenError
from ..evaluate.mirror import PYDOC_CONTENT, build_mirror, pydoc_tree
from . import OneLineParser, fail, int_in_range, positive_int

PROG = "contentseen-mirror"


def _parser() -> OneLineParser:
    p = OneLineParser(prog=PROG, description="Build a labelled two-host mirror (a/, b/, labels.json) "
                      "from a real HTML tree, deterministically for a seed.")
    p.add_argument("source", nargs="?", help="the HTML tree (omit with --pydoc)")
    p.add_argument("out", help="output directory (created; an earlier mirror there is replaced)")
    p.add_argument("--pydoc", action="store_true",
                   help="use the pydoc browser's pages of standard-library modules, topics and keywords")
    p.add_argument("--pages", default="300", help="pages of host A (default %(default)s)")
    p.add_argument("--seed", default="0", help="random seed (default %(default)s)")
    p.add_argument("--content", metavar="CSS",
                   help="selector of the main content element (default: main, article, [role=main], "
                        "#content, .body, ...; with --pydoc the pydoc content div); on a page it does "
                        "not match, the container holding most of the page's text outside links")
    p.add_argument("--host-edits", action="store_true",
                   help="word host B's banner, notice and footer once, the same on every near page "
                        "that carries them, as a real mirror does (default: drawn per page)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    pages = positive_int("--pages", args.pages, PROG)
    seed = int_in_range("--seed", args.seed, 0, 2**63 - 1, PROG)
    if args.pydoc == bool(args.source):
        fail(PROG, "give either a SOURCE tree or --pydoc")
    if args.content:
        try:
            LexborHTMLParser("<p></p>").css(args.content)
        except SelectolaxError as exc:
            fail(PROG, f"argument --content: {args.content!r} is not a CSS selector ({exc})")
    start = time.perf_counter()
    try:
        if args.pydoc:
            with tempfile.TemporaryDirectory(prefix="contentseen-pydoc-") as tree:
                pydoc_tree(tree)
                doc = build_mirror(tree, args.out, pages, seed, args.content or PYDOC_CONTENT,
                                   source_name=f"pydoc browser pages, Python {sys.version.split()[0]}",
                                   host_edits=args.host_edits)
        else:
            doc = build_mirror(args.source, args.out, pages, seed, args.content, host_edits=args.host_edits)
    except ContentSeenError as exc:
        fail(PROG, str(exc))
    except OSError as exc:
        fail(PROG, f"{exc.filename or args.out}: {exc.strerror or exc}")
    c = doc["counts"]
    print(f"{args.out}: {doc['pages']} pairs from {doc['source']} (seed {seed}): "
          f"{c['identical']} identical, {c['near']} near, {c['different']} different "
          f"in {time.perf_counter() - start:.1f} s"
          + (f" ({doc['redirects_left_out']} redirect pages left out)" if doc["redirects_left_out"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
