"""Whether a change left extraction and fingerprints as they were: the same pages through this
checkout and through another revision (or through this one with the C speedups left out).

For every HTML file under ``--root`` (default /usr/share/doc: the Debian documentation trees
installed), pydoc's pages of the standard library (written once to a temporary folder, so both
sides read the same bytes: pydoc prints object addresses) and, from the first 300 of them,
a truncated copy and a copy with a self-closed ``<iframe/>`` after ``<body>``, one digest of
``Extractor.texts``, ``html_title`` and ``PageFingerprinter.of_html`` under three schemes
(default, ``extract="body"``, 128 bits). Each side runs in a process of its own, importing
contentseen from its own tree (the revision's C speedups built in it first); the differing
pages are listed.

    python3 benchmarks/same_output.py --against b8bb79a      # a git revision, checked out aside
    python3 benchmarks/same_output.py --python-only           # this tree with and without the C speedups
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def pages(root: str, pydoc_dir: Path) -> list[tuple[str, str]]:
    """(name, HTML) of every page compared, in a fixed order."""
    from contentseen.text import decode_html

    files = sorted({os.path.realpath(f) for f in glob.glob(f"{root}/**/*.html", recursive=True) if os.path.isfile(f)})
    files += sorted(str(p) for p in pydoc_dir.glob("*.html"))
    out = [(f, decode_html(Path(f).read_bytes(), "text/html")) for f in files]
    rnd = random.Random(5)
    for name, html in out[:300]:
        out.append((f"{name} (truncated)", html[: rnd.randint(0, len(html))]))
        out.append((f"{name} (<iframe/>)", html.replace("<body>", "<body><iframe src=x/>", 1)))
    return out


def digests(root: str, pydoc_dir: Path, python_only: bool, fingerprints_only: bool = False) -> list[str]:
    """One line per page: its name and the digest of everything compared (with
    ``fingerprints_only``, not the extracted texts: a change of how they are laid out)."""
    from contentseen import text
    from contentseen.fingerprints import Scheme

    if python_only:  # this tree's own switch (a revision checked out aside never runs without them)
        from contentseen.pure_python import left_out

        switch = left_out()
    else:
        switch = contextlib.nullcontext()
    lines = []
    with switch:
        schemes = [Scheme().build(), Scheme(extract="body").build(), Scheme(bits=128).build()]
        for name, html in pages(root, pydoc_dir):
            parts = [text.html_title(html)]
            if not fingerprints_only:
                parts.append(repr(schemes[0].extractor.texts(html)))
            # (a page's fingerprints say since 2026-11 whether it was read flat, as its texts said before:
            # compared through the texts, so that revisions before and after it compare)
            parts += [re.sub(r", flat=(?:True|False)", "", repr(pf.of_html(html))) for pf in schemes]
            digest = hashlib.sha1("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
            lines.append(f"{digest} {name}")
    return lines


def run_side(tree: Path, root: str, pydoc_dir: Path, python_only: bool, out: Path, fingerprints_only: bool) -> None:
    """``digests`` in a process importing contentseen from ``tree``."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]);"
            "from same_output import digests; from pathlib import Path;"
            "Path(sys.argv[6]).write_text('\\n'.join(digests(sys.argv[3], Path(sys.argv[4]), sys.argv[5] == '1',"
            " sys.argv[7] == '1')))")
    subprocess.run([sys.executable, "-c", code, str(tree), str(REPO / "benchmarks"), root, str(pydoc_dir),
                    "1" if python_only else "0", str(out), "1" if fingerprints_only else "0"], check=True, cwd=tree)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    side = p.add_mutually_exclusive_group(required=True)
    side.add_argument("--against", metavar="REV", help="a git revision of this repository")
    side.add_argument("--python-only", action="store_true", help="this tree without its C speedups")
    p.add_argument("--root", default="/usr/share/doc", help="where the HTML files are (default %(default)s)")
    p.add_argument("--fingerprints-only", action="store_true",
                   help="compare titles and fingerprints, not the extracted texts (their layout changed)")
    args = p.parse_args(argv)
    sys.path.insert(0, str(REPO / "benchmarks"))
    from htmlcorpus import pydoc_pages

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        pydoc_dir = tmp_path / "pydoc"
        pydoc_dir.mkdir()
        for i, body in enumerate(pydoc_pages(200).values()):
            (pydoc_dir / f"{i:03d}.html").write_bytes(body)
        other = REPO
        if args.against:
            other = tmp_path / "other"
            subprocess.run(["git", "worktree", "add", "-q", "--detach", str(other), args.against], cwd=REPO, check=True)
            # its own C speedups, as this checkout has them: else it would run without them, and
            # the two ways' differences would count as the change's
            subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=other, check=True,
                           capture_output=True)
        try:
            only = args.fingerprints_only
            run_side(REPO, args.root, pydoc_dir, False, tmp_path / "this.txt", only)
            run_side(other, args.root, pydoc_dir, bool(args.python_only), tmp_path / "other.txt", only)
        finally:
            if args.against:
                subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=REPO, check=False)
        this = (tmp_path / "this.txt").read_text().splitlines()
        that = (tmp_path / "other.txt").read_text().splitlines()
    differ = [a.split(" ", 1)[1] for a, b in zip(this, that) if a != b]
    label = f"revision {args.against}" if args.against else "this tree without the C speedups"
    print(f"{len(this)} pages; {len(differ)} differ from {label}")
    for name in differ[:50]:
        print(f"  {name}")
    return 1 if differ or len(this) != len(that) else 0


if __name__ == "__main__":
    sys.exit(main())
