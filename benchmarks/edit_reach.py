"""How far a line added inside a page's content moves its content fingerprint, by content length.

A near copy whose added line lands outside the content block (a banner, a notice, a footer)
keeps its content fingerprint: extraction's job. One whose line lands inside it (a "Last
updated" line under the title, as content systems print it) changes the content's words, and
whether SimHash keeps it within ``CONTENTSEEN_DISTANCE`` (3) depends only on how much of the
content the line is. This measures that limit with the default scheme: texts of N words cut
from real pages (the Python documentation's content blocks, else pydoc's pages; "content
words" are those the fingerprint counts, stopwords and numbers left out, as in
``benchmarks/trees.py``), each
fingerprinted with and without the line, at its start and at its end; the share within 3 is
what any extraction can reach on such pages.

    python3 benchmarks/edit_reach.py [--line "Last updated: 2024-03-14 12:00 UTC"] [--pages 120]
"""

from __future__ import annotations

import argparse
import glob
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import print_table  # noqa: E402
from htmlcorpus import pydoc_pages  # noqa: E402

from contentseen.fingerprints import Scheme  # noqa: E402

PYTHON_DOC = "/usr/share/doc/python3.*/html/library/*.html"
LENGTHS = (10, 20, 30, 45, 60, 100, 150, 200, 300, 400, 600)


def content_words(extract, pages: int, seed: int) -> tuple[str, list[list[str]]]:
    """The corpus's name and the content text words (by ``extract``, an ``Extractor.texts``) of
    up to ``pages`` pages of at least 800."""
    files = sorted(glob.glob(PYTHON_DOC))
    if files:
        htmls = [Path(f).read_text("utf-8", "replace") for f in random.Random(seed).sample(files, min(pages, len(files)))]
        name = "python-doc library pages"
    else:
        htmls = [b.decode("utf-8", "replace") for b in list(pydoc_pages(pages).values())]
        name = "pydoc module pages"
    words = [extract(h).content.split() for h in htmls]
    return name, [w for w in words if len(w) >= 800]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--line", default="Last updated: 2024-03-14 12:00 UTC", help="the line added (default %(default)r)")
    p.add_argument("--pages", type=int, default=120, help="pages sampled (default %(default)s)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    scheme = Scheme()
    pages = scheme.build()
    fingerprint = pages.of_text
    name, texts = content_words(pages.extractor.texts, args.pages, args.seed)
    if not texts:
        print("no page of 800 words of content text found", file=sys.stderr)
        return 1
    rows = []
    for n in LENGTHS:
        start = end = cut = 0
        counted = []
        for words in texts:
            for offset in (0, 300):  # two cuts a page: its opening and its body
                text = " ".join(words[offset:offset + n])
                page = fingerprint(text)
                base = page.fingerprint
                counted.append(page.word_count)
                start += (base ^ fingerprint(f"{args.line} {text}").fingerprint).bit_count() <= scheme.distance
                end += (base ^ fingerprint(f"{text} {args.line}").fingerprint).bit_count() <= scheme.distance
                cut += 1
        rows.append({"n": n, "counted": int(statistics.median(counted)), "start": f"{100 * start / cut:.1f}%", "end": f"{100 * end / cut:.1f}%", "cuts": cut})
    print(f"{name}: {len(texts)} pages of at least 800 words of content text; line added: {args.line!r}; "
          f"content fingerprints within {scheme.distance}")
    print_table(rows, [("n", "words of text"), ("counted", "content words (median)"), ("start", "line at the start"), ("end", "line at the end"),
                       ("cuts", "texts")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
