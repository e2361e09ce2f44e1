"""``contentseen-evaluate``: how well does a fingerprint scheme tell duplicates from other pages?

    contentseen-evaluate MIRROR/labels.json        # a mirror built by contentseen-mirror
    contentseen-evaluate CRAWL_A CRAWL_B           # two crawls on disk, paired by path

A crawl is a directory of HTML files, a Scrapy HTTP cache directory, or a JSON/JSON-lines feed
export whose items hold ``url`` and ``body``. The scheme options are the middleware's
``CONTENTSEEN_*`` settings, with the same defaults.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import fields
from typing import Sequence

from scrapy.settings import Settings

from .. import blas
from ..errors import ContentSeenError
from ..evaluate.core import default_jobs, evaluate
from ..evaluate.inputs import pair_crawls, read_labels
from ..evaluate.render import plot, plot_module, table, to_json, worst
from ..fingerprints import WEIGHTINGS, Scheme
from ..settings import SCHEME_SETTINGS, scheme_from_settings
from ..text import EXTRACT_MODES
from . import OneLineParser, fail, int_in_range

PROG = "contentseen-evaluate"
_DEFAULTS = {f.name: f.default for f in fields(Scheme)}


def _parser() -> OneLineParser:
    p = OneLineParser(
        prog=PROG,
        description="Fingerprint pairs of pages as the ContentSeen middleware does and count, per "
        "truth (label or Jaccard band), how many are dropped at each Hamming distance.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="a labels file (or the mirror directory holding labels.json), or two crawls: "
                        "directories of HTML, Scrapy HTTP cache directories or .jsonl feed exports")
    s = p.add_argument_group("fingerprint scheme (the middleware's CONTENTSEEN_* settings)")
    s.add_argument("--bits", type=int, default=_DEFAULTS["bits"], help="CONTENTSEEN_BITS (default %(default)s)")
    s.add_argument("--distance", type=int, default=_DEFAULTS["distance"], help="CONTENTSEEN_DISTANCE (default %(default)s)")
    s.add_argument("--page-distance", type=int, default=_DEFAULTS["page_distance"],
                   help="CONTENTSEEN_PAGE_DISTANCE (default %(default)s)")
    s.add_argument("--features", type=int, default=_DEFAULTS["features"], help="CONTENTSEEN_FEATURES (default %(default)s)")
    s.add_argument("--stopwords", help="CONTENTSEEN_STOPWORDS: a stopword file (default: built-in list)")
    s.add_argument("--hashvalues", help="CONTENTSEEN_HASHVALUES: a 0/1 hash table file (default: built-in)")
    s.add_argument("--corpus", help="CONTENTSEEN_CORPUS: pages whose top words are the features")
    s.add_argument("--extract", choices=EXTRACT_MODES, default=_DEFAULTS["extract"],
                   help="CONTENTSEEN_EXTRACT (default %(default)s)")
    s.add_argument("--min-words", type=int, default=_DEFAULTS["min_words"],
                   help="CONTENTSEEN_MIN_WORDS (default %(default)s)")
    s.add_argument("--weighting", choices=WEIGHTINGS, default=_DEFAULTS["weighting"],
                   help="CONTENTSEEN_WEIGHTING: a word's weight is its count (tf), 1+ln(count) (log) or 1 "
                        "(binary); auto: tf with --corpus, else log (default %(default)s)")
    t = p.add_argument_group("truth and output")
    t.add_argument("--bands", action="store_true", help="group by Jaccard band even when the pairs are labelled")
    t.add_argument("--dup-jaccard", type=float, default=0.8,
                   help="unlabelled pairs: a duplicate when Jaccard >= this (default %(default)s)")
    t.add_argument("--low-jaccard", type=float, default=0.5,
                   help="within host a: a drop is false when Jaccard < this (default %(default)s)")
    t.add_argument("--worst", default="10", metavar="N", help="worst cases listed, 0..10000 (default %(default)s)")
    t.add_argument("--json", action="store_true", help="print JSON instead of the table")
    t.add_argument("--plot", metavar="PNG", help="write a histogram of distance by truth (needs matplotlib)")
    t.add_argument("--check", action="store_true",
                   help="exit with status 1 when a quality target is missed (labelled pairs)")
    t.add_argument("--jobs", default=None, help="worker processes, 1..64 (default: one per core)")
    return p


def _progress(done: int, total: int) -> None:
    """A one-line progress bar on the terminal (stderr), cleared at the end."""
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} pairs")
    if done >= total:
        sys.stderr.write("\r" + " " * (width + 30) + "\r")
    sys.stderr.flush()


@blas.holding  # fingerprints summed on one thread, as in a crawl
def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    jobs = int_in_range("--jobs", args.jobs, 1, 64, PROG) if args.jobs is not None else default_jobs()
    args.worst = int_in_range("--worst", args.worst, 0, 10_000, PROG)
    if len(args.inputs) > 2:
        fail(PROG, f"expected a labels file or two crawls, got {len(args.inputs)} inputs")
    if not 0.0 <= args.dup_jaccard <= 1.0 or not 0.0 <= args.low_jaccard <= 1.0:
        fail(PROG, "--dup-jaccard and --low-jaccard must be within 0..1")
    try:
        scheme = scheme_from_settings(Settings({f"CONTENTSEEN_{name}": getattr(args, field)
                                                for name, field in SCHEME_SETTINGS.items()}))
        scheme.build()  # bad stopword, table or corpus files fail here, before any page is read
        if len(args.inputs) == 1:
            if not os.path.exists(args.inputs[0]):
                raise ContentSeenError(f"{args.inputs[0]}: no such file or directory")
            pairs = read_labels(args.inputs[0])
        else:
            pairs = pair_crawls(*args.inputs)
        if args.plot:
            plot_module()  # before the long part: no matplotlib, no run
        ev = evaluate(pairs, scheme, jobs=jobs, dup_jaccard=args.dup_jaccard,
                      low_jaccard=args.low_jaccard, bands=args.bands,
                      progress=_progress if sys.stderr.isatty() else None)
    except ContentSeenError as exc:
        fail(PROG, str(exc))
    except OSError as exc:
        fail(PROG, f"{exc.filename or 'input'}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    if args.plot:
        try:
            plot(ev, args.plot)
        except OSError as exc:
            fail(PROG, f"--plot {args.plot}: cannot write ({exc.strerror or exc})")
    if args.json:
        doc = to_json(ev, args.worst)
        doc["plot"] = args.plot
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
    else:
        sys.stdout.write(table(ev) + "\n")
        if args.worst > 0:
            sys.stdout.write(worst(ev, args.worst) + "\n")
        if args.plot:
            sys.stdout.write(f"histogram: {args.plot}\n")
    sys.stdout.flush()
    if args.check and any(not met for *_, met in ev.targets()):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
