"""Detection quality of the default fingerprint scheme and of each alternative tried.

Builds labelled two-host mirrors (``contentseen.evaluate.mirror``) from real HTML trees and runs
``contentseen.evaluate.evaluate`` -- the middleware's code path -- on each:

* ``python-doc``: the Python HTML manual of Debian's ``python3-doc`` (Sphinx: a navigation bar,
  sidebars and a footer around ``<div role="main">``);
* ``git-doc``: git's manual pages in HTML, Debian's ``git-doc`` (asciidoc: ``#header``,
  ``#content``, ``#footer``, no landmarks);
* ``pydoc``: the pages of Python's own documentation browser (``pydoc -b``) for standard-library
  modules, help topics and keywords (a navigation bar and search forms around a content
  ``<div>``, no landmarks; many short pages);
* ``pydoc-modules``: pydoc's stand-alone module pages, ``pydoc.html.page(describe(m),
  html.document(m))`` (``benchmarks/htmlcorpus.py``), for every importable standard-library
  module: no template around the content at all, sections in nested tables, and on every module
  that defines an exception the same inherited-methods text of ``BaseException`` -- the tree
  where narrowing to one block once threw a module's own text away and made unrelated modules
  collide (a within-host false drop).

The Debian packages are installed with apt-get when missing (as root); a tree that cannot be
had is skipped, saying so. Usage::

    python benchmarks/quality.py                  # all trees, default and alternatives
    python benchmarks/quality.py --only default   # the default only
    python benchmarks/quality.py --sources pydoc --seeds 1,2,3
    python benchmarks/quality.py --sources pydoc-modules --worst 10

Each alternative is a ``Scheme`` with one setting changed, or with another ``Extractor`` (the
narrowing's knobs): the same code path as a crawl, only the step named changes.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from contentseen.evaluate.core import evaluate  # noqa: E402
from contentseen.evaluate.inputs import read_labels  # noqa: E402
from contentseen.evaluate.mirror import PYDOC_CONTENT, build_mirror, pydoc_tree  # noqa: E402
from contentseen.evaluate.render import table, worst  # noqa: E402
from contentseen.fingerprints import Scheme  # noqa: E402
from contentseen.text import Extractor  # noqa: E402
from htmlcorpus import pydoc_pages  # noqa: E402

DEBIAN = {
    "python-doc": ("python3-doc", "/usr/share/doc/python3.*/html"),  # python3.X-doc, not python3-foo
    "git-doc": ("git-doc", "/usr/share/doc/git-doc"),
}


# ----------------------------------------------------------------------------- sources

def debian_tree(name: str, install: bool) -> str | None:
    package, pattern = DEBIAN[name]
    found = sorted(p for p in glob.glob(pattern) if glob.glob(os.path.join(p, "*.html")))
    if not found and install and shutil.which("apt-get") and os.geteuid() == 0:
        print(f"[{name}] apt-get install {package} ...", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", package]
        if subprocess.run(cmd, env=env, capture_output=True).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True)
            subprocess.run(cmd, env=env, capture_output=True)
        found = sorted(p for p in glob.glob(pattern) if glob.glob(os.path.join(p, "*.html")))
    return found[-1] if found else None


def pydoc_modules_tree(dest: Path) -> int:
    """Write pydoc's stand-alone module pages (``htmlcorpus.pydoc_pages``, without its index)
    under ``dest``; returns how many."""
    dest.mkdir(parents=True, exist_ok=True)
    pages = {p: b for p, b in pydoc_pages(1000).items() if p != "/index.html"}
    for path, body in pages.items():
        (dest / path.lstrip("/")).write_bytes(body)
    return len(pages)


def build_corpora(sources: list[str], work: Path, pages: int, seed: int, install: bool) -> dict[str, tuple[Path, dict]]:
    out = {}
    for name in sources:
        start = time.perf_counter()
        target = work / f"{name}-seed{seed}"
        if name == "pydoc":
            tree = work / "pydoc-tree"
            if not tree.is_dir():
                pydoc_tree(tree)
            doc = build_mirror(tree, target, pages, seed, PYDOC_CONTENT,
                               source_name=f"pydoc browser pages (Python {sys.version.split()[0]})")
        elif name == "pydoc-modules":
            tree = work / "pydoc-modules-tree"
            if not tree.is_dir():
                pydoc_modules_tree(tree)
            doc = build_mirror(tree, target, pages, seed,
                               source_name=f"pydoc module pages (pydoc.html.page, Python {sys.version.split()[0]})")
        else:
            tree = debian_tree(name, install)
            if tree is None:
                print(f"[{name}] skipped: Debian package {DEBIAN[name][0]} is not installed and cannot be", file=sys.stderr)
                continue
            doc = build_mirror(tree, target, pages, seed)
        c = doc["counts"]
        print(f"[{name}] {doc['pages']} pairs from {doc['source']} (seed {seed}): {c['identical']} identical, "
              f"{c['near']} near, {c['different']} different; built in {time.perf_counter() - start:.1f} s",
              file=sys.stderr)
        out[name] = (target, doc)
    return out


# ----------------------------------------------------------------------------- variants

def variants(default: Scheme) -> list[tuple[str, Scheme]]:
    """(name, scheme) of the default and each alternative: one setting or one stage changed
    (extraction knobs through ``Scheme.extractor``, an ``Extractor``)."""
    d = default

    def ext(**knobs) -> Scheme:
        return replace(d, extractor=Extractor(d.extract, **knobs))

    out = [("default", d)]
    out += [(f"weighting {w}", replace(d, weighting=w)) for w in ("tf", "log", "binary") if w != d.word_weighting]
    out += [
        ("no whole-page check (page distance 64)", replace(d, page_distance=64)),
        *[(f"page distance {p}", replace(d, page_distance=p)) for p in (6, 8, 12, 14, 16) if p != d.page_distance],
        ("extract main v1 (no narrowing)", ext(narrow=False)),
        ("extract body", replace(d, extract="body")),
        ("links weighed where they are 2/3 of a block", ext(link_share=1 / 3)),
        ("no stop at sections", ext(stop_at_sections=False)),
        ("no dropping of edge elements", ext(edge_share=0)),
        ("the body's edge elements may be its content block", ext(body_edges=False)),
        ("a sliver block decides alone (v5)", ext(min_share=0)),
        ("a heading before a child does not stop the narrowing (v6)", ext(titled_sections=False)),
        ("a child named footer or copyright may be the content (v6)", ext(closing_names=False)),
        ("a block of closing matter alone may be the content (v7)", ext(closing_steps_back=False)),
        ("text weighed in characters (v7)", ext(weigh_bytes=False)),
        ("a heading after a child does not stop the narrowing (v7)", ext(headings_after=False)),
        ("a titled block may be one of the body's edges (v8)", ext(titled_not_edge=False)),
        ("edge elements up to 0.1 each", ext(edge_share=0.1)),
        ("edge elements up to 1/2 each", ext(edge_share=0.5)),
        ("dominant block share 2/3", ext(dominant_share=2 / 3)),
    ]
    out += [(f"min_words {m}", replace(d, min_words=m)) for m in (0, 10, 40) if m != d.min_words]
    out += [(f"bits {b}", replace(d, bits=b)) for b in (32, 64, 128) if b != d.bits]
    return out


# ----------------------------------------------------------------------------- report

def summary_header() -> str:
    return (f"{'scheme':<42} {'identical':>9} {'near':>7} {'different':>9} {'host a':>7} {'a false':>7} "
            f"{'prec.':>6} {'recall':>6}  targets")


def summary_line(name: str, ev) -> str:
    rate = {r.group: r.rate for r in ev.rows}
    w = ev.within
    false_rate = w["false"] / w["pages"] if w["pages"] else 0.0
    met = sum(m for *_, m in ev.targets())
    return (f"{name:<42} {100 * rate.get('identical', 0):8.1f}% {100 * rate.get('near', 0):6.1f}% "
            f"{100 * rate.get('different', 0):8.1f}% {100 * false_rate:6.1f}% {w['false']:7d} {ev.precision:6.3f} {ev.recall:6.3f}  "
            f"{met}/{len(ev.targets())}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sources", default="python-doc,git-doc,pydoc,pydoc-modules")
    p.add_argument("--pages", type=int, default=300)
    p.add_argument("--seeds", default="1")
    p.add_argument("--only", help="evaluate only the variants whose name contains this")
    p.add_argument("--out", help="keep the mirrors here (default: a temporary directory)")
    p.add_argument("--no-install", action="store_true", help="never apt-get install a missing tree")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--worst", type=int, default=0, help="list the worst cases of the default")
    args = p.parse_args()
    sources = [s.strip() for s in args.sources.split(",") if s.strip()]
    seeds = [int(s) for s in args.seeds.split(",")]
    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="contentseen-quality-"))
    work.mkdir(parents=True, exist_ok=True)
    default = Scheme()
    try:
        for seed in seeds:
            corpora = build_corpora(sources, work, args.pages, seed, not args.no_install)
            for name, (path, doc) in corpora.items():
                pairs = read_labels(path)
                c = doc["counts"]
                print(f"\n### {name}: {doc['source']}, {doc['pages']} pages per host "
                      f"({c['identical']} identical, {c['near']} near, {c['different']} different), seed {seed}\n")
                lines = [summary_header()]
                default_ev = None
                for vname, scheme in variants(default):
                    if args.only and args.only not in vname:
                        continue
                    start = time.perf_counter()
                    ev = evaluate(pairs, scheme, jobs=args.jobs)
                    spent = time.perf_counter() - start
                    if vname == "default":
                        default_ev = ev
                    lines.append(summary_line(vname, ev))
                    print(f"  {vname}: {spent:.1f} s", file=sys.stderr)
                if default_ev is not None:
                    print("```\n" + table(default_ev, title="default scheme:") + "\n```\n")
                    if args.worst:
                        print("```\n" + worst(default_ev, args.worst) + "\n```\n")
                print("```\n" + "\n".join(lines) + "\n```")
    finally:
        if not args.out:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
