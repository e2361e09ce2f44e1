"""``contentseen-report N M``: replay the course files and write ``result.txt``."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

if "numpy" not in sys.modules:
    # The report's matrix products are one small vector x matrix per page: BLAS threads only
    # cost start-up and spin time (tens of ms of CPU at numpy import). An explicit setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ..corpus import read_pages
from ..errors import ContentSeenError
from ..projection import MAX_BUILTIN_BITS, hashtable_shape, parse_hashtable
from ..report import ReportInput, build_report
from ..tokens import load_stopwords, read_text_file
from . import OneLineParser, fail, int_in_range, positive_int

PROG = "contentseen-report"


def _parser() -> OneLineParser:
    p = OneLineParser(
        prog=PROG,
        description="For each page of sample.txt, list the pages of article.txt whose SimHash "
        "fingerprint is within the distance, and write result.txt.",
    )
    p.add_argument("N", help="features: the N most frequent non-stopword words of article.txt")
    p.add_argument("M", help="fingerprint bits: the first M columns of the hash file")
    p.add_argument("--dir", default=".", help="directory of the input files and result (default: .)")
    p.add_argument("--article", help="article file (default: DIR/article.txt)")
    p.add_argument("--sample", help="sample file (default: DIR/sample.txt)")
    p.add_argument("--stopwords", help="stopword file (default: DIR/stopwords.txt)")
    p.add_argument("--hashvalue", help="hash value file (default: DIR/hashvalue.txt)")
    p.add_argument("-o", "--output", help="result file (default: DIR/result.txt)")
    p.add_argument("--distance", default="3", help="largest Hamming distance listed (default: 3)")
    return p


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file, so no half-written file is left."""
    fd, tmp = tempfile.mkstemp(prefix=".result-", dir=path.parent or ".")
    try:
        # mkstemp makes the file 0600; a result file gets the mode of any new file (0666 - umask).
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    n = positive_int("N", args.N, PROG)
    m = positive_int("M", args.M, PROG)
    # No two fingerprints are further apart than M (at most 128) bits: a larger distance lists
    # nothing more, and is read as M.
    distance = min(int_in_range("--distance", args.distance, 0, MAX_BUILTIN_BITS, PROG), m)
    base = Path(args.dir)
    path = {
        name: Path(getattr(args, name) or base / f"{name}.txt")
        for name in ("article", "sample", "stopwords", "hashvalue")
    }
    output = Path(args.output) if args.output else base / "result.txt"
    try:
        hash_data = read_text_file(path["hashvalue"], "hash file")
        rows, cols = hashtable_shape(hash_data)
        if n > rows:
            fail(PROG, f"argument N: {n} exceeds the {rows} rows of hash file {path['hashvalue']}")
        if m > cols:
            fail(PROG, f"argument M: {m} exceeds the {cols} columns of hash file {path['hashvalue']}")
        table = parse_hashtable(hash_data, n, m, f"hash file {path['hashvalue']}")
        data = ReportInput(
            article=read_pages(path["article"], "article file"),
            sample=read_pages(path["sample"], "sample file"),
            stopwords=load_stopwords(path["stopwords"]),
            table=table,
        )
        blocks = build_report(data, distance)
        if not output.parent.is_dir():
            raise ContentSeenError(f"output {output}: directory {output.parent} does not exist")
        try:
            write_atomically(output, "".join(blocks).encode("latin-1"))
        except OSError as exc:
            raise ContentSeenError(f"output {output}: cannot write ({exc.strerror})") from None
    except ContentSeenError as exc:
        fail(PROG, str(exc))
    sys.stdout.buffer.write(blocks[0].encode("latin-1"))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
