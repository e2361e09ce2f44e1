"""Detection quality on real web pages that are not documentation: news, blogs, shops, wikis.

Every tree of ``benchmarks/trees.py`` is a documentation site. Crawls meet news sites, blogs
and CMS pages too, with other templates (cookie banners, share bars, comment threads, related-
article lists) and in other languages. Two public collections of such pages, made to test
content-extraction libraries, serve as one more held-out "tree", one page a site:

* mozilla/readability's ``test/test-pages/*/source.html`` (130 pages: NYT, BBC, Guardian,
  Le Monde, Folha, Heise, QQ, Wikipedia, Medium, Blogger, WordPress..., a few of them small
  synthetic cases of its own tests);
* adbar/trafilatura's ``tests/cache/*.html`` (110 pages, mostly German sites);
* scrapinghub/article-extraction-benchmark's ``html/*.html.gz`` (181 news and blog articles, a
  few sites twice with two different articles; added at stop 46, held out).

None was ever used to choose a default of ContentSeen. (The first two are the test sets of those
libraries, so ``--library`` results here favour the library whose set it is.) The pages are
copied into one directory and measured as ``trees.py`` measures a tree: a labelled two-host
mirror per seed (``contentseen-mirror``'s builder), evaluated through the middleware's code
path. Host A's pages are of many sites, so its false drops would be pages of two sites taken
for one; the mirror's near copies carry the edits real mirrors make, on these templates.

    git clone --depth 1 https://github.com/mozilla/readability /tmp/readability
    git clone --depth 1 https://github.com/adbar/trafilatura /tmp/trafilatura
    git clone --depth 1 https://github.com/scrapinghub/article-extraction-benchmark /tmp/aeb
    python3 benchmarks/web_pages.py --readability /tmp/readability --trafilatura /tmp/trafilatura \
        --article-benchmark /tmp/aeb --seeds 1,2,3,4,5
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from contentseen.fingerprints import Scheme  # noqa: E402
from libraries import LIBRARIES, LibraryExtractor  # noqa: E402
from trees import Tree, code_version, measure, pooled, table, worst_cases  # noqa: E402


def collect(readability: Path | None, trafilatura: Path | None, out: Path,
            article_benchmark: Path | None = None) -> list[Tree]:
    """Copy the collections' pages into ``out/<collection>/`` (one file a page, named for its
    site or its digest, unpacked where gzipped) and return one tree per collection found."""
    trees = []
    sources = (
        ("readability", readability, "test/test-pages/*/source.html", lambda p: p.parent.name),
        ("trafilatura", trafilatura, "tests/cache/*.html", lambda p: p.stem),
        ("article-benchmark", article_benchmark, "html/*.html.gz", lambda p: p.name.split(".")[0]),
    )
    for name, repo, pattern, named in sources:
        if repo is None:
            continue
        found = sorted(repo.glob(pattern))
        if not found:
            raise SystemExit(f"{repo}: no {pattern} (a checkout of the repository?)")
        target = out / name
        target.mkdir(parents=True)
        for page in found:
            if page.suffix == ".gz":
                (target / f"{named(page)}.html").write_bytes(gzip.decompress(page.read_bytes()))
            else:
                shutil.copyfile(page, target / f"{named(page)}.html")
        trees.append(Tree(name, repo.name, str(target), "news, blogs, CMSs", "many", "", held_out=True))
    return trees


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--readability", type=Path, help="a checkout of github.com/mozilla/readability")
    p.add_argument("--trafilatura", type=Path, help="a checkout of github.com/adbar/trafilatura")
    p.add_argument("--article-benchmark", type=Path,
                   help="a checkout of github.com/scrapinghub/article-extraction-benchmark")
    p.add_argument("--seeds", default="1", help="comma-separated mirror seeds (default %(default)s)")
    p.add_argument("--pages", type=int, default=250, help="pages a host (default %(default)s)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--worst", type=int, nargs="?", const=10, default=0, metavar="N")
    p.add_argument("--host-edits", action="store_true")
    p.add_argument("--library", choices=LIBRARIES, help="a library's main text as the content (benchmarks/libraries.py)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.readability is None and args.trafilatura is None and args.article_benchmark is None:
        p.error("give --readability, --trafilatura and/or --article-benchmark (checkouts of the repositories)")
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        p.error(f"--seeds {args.seeds!r}: not comma-separated whole numbers")
    scheme = Scheme(extractor=LibraryExtractor(library=args.library) if args.library else None)
    rows = []
    with tempfile.TemporaryDirectory(prefix="contentseen-web-") as tmp:
        work = Path(tmp)
        for tree in collect(args.readability, args.trafilatura, work / "sources", args.article_benchmark):
            root = Path(tree.path)
            print(f"[{tree.name}] {len(list(root.iterdir()))} pages ...", file=sys.stderr, flush=True)
            rows.append(pooled([measure(tree, root, work, args.pages, seed, args.jobs, args.worst, scheme,
                                        host_edits=args.host_edits) for seed in seeds]))
    if args.json:
        print(json.dumps({"code": code_version(), "seeds": seeds, "library": args.library,
                          "host_edits": args.host_edits, "trees": rows}, indent=1, default=str))
        return 0
    print(f"code {code_version()}, seeds {args.seeds}" + (f", content by {args.library}" if args.library else "")
          + (", host edits" if args.host_edits else "") + "\n")
    print(table(rows, "web pages (held out)"))
    if args.worst:
        print("\n" + "\n\n".join(worst_cases(r) for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
