"""A labelled two-host mirror built from a real HTML tree.

Host A holds a sample of the tree's pages, byte for byte. Host B holds the same paths:

* ``identical`` (about half) -- the same bytes;
* ``near`` (about a third) -- one or two of the edits real mirrors make: a banner line at the top,
  a changed or added "last updated" timestamp, a cookie or advertising notice, a footer line, a
  whitespace-only reformatting (CRLF line ends, tabs for indentation);
* ``different`` (the rest) -- the page's template (head, navigation, sidebars, footer) kept
  around the main content of another page of the tree.

``labels.json`` records, per path, the label, the edits, the page the content came from and the
truth: the Jaccard similarity of word 3-shingles of the visible text of A's and B's page
(:mod:`contentseen.evaluate.truth`). Everything follows from ``seed``: the same tree and seed
give the same bytes.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser
from w3lib.encoding import html_to_unicode

from ..errors import ContentSeenError
from .truth import html_shingles, jaccard

LABELS_FORMAT = "contentseen-mirror-labels/1"
LABELS_FILE = "labels.json"
HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml")
LABELS = ("identical", "near", "different")
EDITS = ("banner", "timestamp", "notice", "footer", "whitespace")

# Where the main content of a page is, most specific first; the first group that matches wins
# and, within it, the element with the most text. The body when none matches.
CONTENT_SELECTORS = (
    "main, article, [role=main]",
    "#content, #main, #main-content, .main-content, .content, .body, .document",
)

_ORGS = ("Example University Computing Services", "the Northwind Open Source Mirror Network",
         "Contoso Libraries", "the Fabrikam Research Institute", "Tailspin Hosting",
         "the Adventure Works Software Archive")
_DOMAINS = ("mirror.example.edu", "docs.example.net", "ftp.example.org", "archive.example.com")
_BANNERS = (
    "This is an unofficial mirror of this documentation, refreshed every night by {org}.",
    "You are reading a copy hosted by {org}; the original site may be more recent.",
    "Mirror notice: {domain} is provided by {org} and is not affiliated with the authors.",
    "Scheduled maintenance: {domain} will be unavailable on Saturday between two and four.",
)
_NOTICES = (
    "We use cookies to remember your preferences and to count visits. By continuing to browse "
    "this site you agree to our use of cookies. Read our privacy policy to learn more.",
    "This site uses cookies for analytics. You can change your cookie settings at any time.",
    "Advertisement: fast and reliable hosting for open source projects, sponsored by {org}.",
    "Support this mirror: {org} relies on donations from readers like you.",
)
_FOOTERS = (
    "Mirrored by {org}. Report problems with this mirror to webmaster@{domain}.",
    "Hosted by {org} at {domain}.",
    "Mirror statistics and status: https://{domain}/status",
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_LAST_UPDATED = re.compile(r"(Last updated(?: on)?:?\s*)([A-Z][a-z]+ \d{1,2}, \d{4}|\d{4}-\d{2}-\d{2}[^<.]*)")
_BODY_OPEN = re.compile(r"<body\b[^>]*>", re.I)
_BODY_CLOSE = re.compile(r"</body\s*>", re.I)
_H1_CLOSE = re.compile(r"</h1\s*>", re.I)

# Standard-library modules rendered into the pydoc tree: pure Python, importable everywhere,
# no side effects on import.
PYDOC_MODULES = (
    "abc", "argparse", "base64", "bisect", "calendar", "cmd", "codecs", "colorsys", "configparser",
    "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal", "difflib", "dis",
    "enum", "filecmp", "fileinput", "fnmatch", "fractions", "ftplib", "functools", "getopt",
    "gettext", "glob", "graphlib", "gzip", "hashlib", "heapq", "hmac", "html", "imaplib",
    "inspect", "ipaddress", "json", "keyword", "linecache", "locale", "logging", "lzma",
    "mailbox", "mimetypes", "netrc", "numbers", "operator", "optparse", "pathlib", "pickle",
    "pkgutil", "platform", "plistlib", "poplib", "pprint", "profile", "pstats", "queue",
    "quopri", "random", "reprlib", "sched", "secrets", "selectors", "shelve", "shlex",
    "shutil", "smtplib", "socketserver", "statistics", "string", "stringprep", "struct",
    "subprocess", "symtable", "tabnanny", "tarfile", "tempfile", "textwrap", "threading",
    "timeit", "token", "tokenize", "trace", "traceback", "tracemalloc", "types", "typing",
    "uuid", "warnings", "wave", "weakref", "zipapp", "zipfile",
)
# The pydoc browser's page template: a navigation bar, then one div with the content.
PYDOC_CONTENT = 'div[style*="clear:both"]'


@dataclass(frozen=True)
class Page:
    """A page as read from the tree: bytes, decoded text and the encoding to write it back."""

    path: str
    raw: bytes
    html: str
    encoding: str


def html_files(root: str | os.PathLike[str]) -> list[str]:
    """Relative paths (``/``-separated, sorted) of the files under ``root`` named like HTML."""
    root = Path(root)
    if not root.is_dir():
        raise ContentSeenError(f"source {root}: not a directory")
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in filenames:
            full = Path(dirpath, name)
            if name.lower().endswith(HTML_SUFFIXES) and full.is_file():
                found.append(full.relative_to(root).as_posix())
    return sorted(found)


def read_page(root: Path, path: str) -> Page:
    raw = (root / path).read_bytes()
    encoding, html = html_to_unicode(None, raw)
    return Page(path, raw, html, encoding)


def encode(html: str, encoding: str) -> bytes:
    """Write a page back in the encoding it was read in (characters it lacks as references)."""
    try:
        return html.encode(encoding, "xmlcharrefreplace")
    except LookupError:
        return html.encode("utf-8", "xmlcharrefreplace")


def content_node(tree: LexborHTMLParser, selector: str | None = None):
    """The element holding a page's main content (see ``CONTENT_SELECTORS``), else the body."""
    groups = (selector,) if selector else CONTENT_SELECTORS
    for group in groups:
        nodes = tree.css(group)
        if nodes:
            return max(nodes, key=lambda n: len(n.text(separator=" ")))
    return tree.body


def swap_content(page: Page, donor: Page, selector: str | None = None) -> tuple[str, bool]:
    """``page``'s template around ``donor``'s main content; the flag says whether a content
    element was found (when not, the whole body is the donor's)."""
    tree = LexborHTMLParser(page.html)
    node = content_node(tree, selector)
    donor_node = content_node(LexborHTMLParser(donor.html), selector)
    if node is None or donor_node is None:
        return donor.html, False
    node.inner_html = donor_node.inner_html
    return tree.html or "", node.tag != "body"


def _fill(template: str, rng: random.Random) -> str:
    return template.format(org=rng.choice(_ORGS), domain=rng.choice(_DOMAINS))


def _insert_after_body(html: str, snippet: str) -> str:
    m = _BODY_OPEN.search(html)
    return html[: m.end()] + snippet + html[m.end():] if m else snippet + html


def _insert_before_body_end(html: str, snippet: str) -> str:
    matches = list(_BODY_CLOSE.finditer(html))
    if not matches:
        return html + snippet
    at = matches[-1].start()
    return html[:at] + snippet + html[at:]


def _timestamp(rng: random.Random) -> tuple[int, int, int, int, int]:
    return rng.randrange(2019, 2026), rng.randrange(12), rng.randrange(1, 29), rng.randrange(24), rng.randrange(60)


def apply_edit(html: str, edit: str, rng: random.Random) -> str:
    """One mirror edit (see ``EDITS``) applied to decoded HTML."""
    if edit == "banner":
        return _insert_after_body(html, f'\n<div class="mirror-banner">{_fill(rng.choice(_BANNERS), rng)}</div>\n')
    if edit == "notice":
        text = _fill(rng.choice(_NOTICES), rng)
        return _insert_before_body_end(
            html, f'<div class="site-notice" id="notice">{text} <button>OK</button></div>\n')
    if edit == "footer":
        return _insert_before_body_end(html, f'<p class="mirror-footer">{_fill(rng.choice(_FOOTERS), rng)}</p>\n')
    if edit == "timestamp":
        year, month, day, hour, minute = _timestamp(rng)
        m = _LAST_UPDATED.search(html)
        if m:  # the site prints its build date: the mirror's rebuild changes it
            stamp = f"{_MONTHS[month]} {day:02d}, {year}" if m.group(2)[:1].isalpha() else \
                f"{year}-{month + 1:02d}-{day:02d} {hour:02d}:{minute:02d}"
            return html[: m.start(2)] + stamp + html[m.end(2):]
        snippet = f'\n<p class="last-updated">Last updated: {year}-{month + 1:02d}-{day:02d} {hour:02d}:{minute:02d} UTC</p>\n'
        h1 = _H1_CLOSE.search(html)
        if h1:  # under the page title, inside the content, as content systems print it
            return html[: h1.end()] + snippet + html[h1.end():]
        return _insert_after_body(html, snippet)
    if edit == "whitespace":
        lines = html.split("\n")
        out = []
        for line in lines:
            stripped = line.lstrip(" ")
            indent = len(line) - len(stripped)
            out.append("\t" * (indent // 2) + " " * (indent % 2) + stripped.rstrip(" \t"))
        return "\r\n".join(out)
    raise ValueError(f"unknown edit {edit!r}")


def _split_counts(n: int) -> tuple[int, int, int]:
    identical = round(n / 2)
    near = min(round(n / 3), n - identical)
    return identical, near, n - identical - near


def build_mirror(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    pages: int = 300,
    seed: int = 0,
    content: str | None = None,
    source_name: str | None = None,
) -> dict:
    """Build ``out/a``, ``out/b`` and ``out/labels.json`` from the HTML tree ``source``.

    Returns the labels document. Refuses an ``out`` that holds anything but an earlier mirror
    (``a/``, ``b/``, ``labels.json``), so no user's files are overwritten.
    """
    source, out = Path(source), Path(out)
    files = html_files(source)
    if len(files) < 2:
        raise ContentSeenError(f"source {source}: needs at least 2 HTML files, found {len(files)}")
    if pages < 2:
        raise ContentSeenError(f"pages: {pages} is too few (at least 2)")
    if out.exists():
        if not out.is_dir():
            raise ContentSeenError(f"output {out}: exists and is not a directory")
        if {p.name for p in out.iterdir()} - {"a", "b", LABELS_FILE}:
            raise ContentSeenError(f"output {out}: holds files other than a mirror's (a/, b/, {LABELS_FILE}); refusing to overwrite")
        for sub in ("a", "b"):
            shutil.rmtree(out / sub, ignore_errors=True)
        (out / LABELS_FILE).unlink(missing_ok=True)
    rng = random.Random(seed)
    chosen = sorted(rng.sample(files, min(pages, len(files))))
    order = chosen[:]
    rng.shuffle(order)
    n_identical, n_near, _ = _split_counts(len(order))
    label_of = {p: ("identical" if i < n_identical else "near" if i < n_identical + n_near else "different")
                for i, p in enumerate(order)}
    cache: dict[str, Page] = {}

    def page(path: str) -> Page:
        if path not in cache:
            cache[path] = read_page(source, path)
        return cache[path]

    records = []
    for path in chosen:
        a = page(path)
        label = label_of[path]
        rec: dict = {"path": path, "label": label}
        if label == "identical":
            b_raw = a.raw
        elif label == "near":
            edits = rng.sample(EDITS, rng.choice((1, 2)))
            html = a.html
            for edit in edits:
                html = apply_edit(html, edit, rng)
            b_raw = encode(html, a.encoding)
            rec["edits"] = edits
        else:
            donor_path = rng.choice(files)
            for _ in range(50):  # another page, with other text when the tree has one
                if donor_path != path and page(donor_path).html != a.html:
                    break
                donor_path = rng.choice([f for f in files if f != path])
            html, templated = swap_content(a, page(donor_path), content)
            b_raw = encode(html, a.encoding)
            rec["content_from"] = donor_path
            rec["template_kept"] = templated
        for host, data in (("a", a.raw), ("b", b_raw)):
            target = out / host / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        b_html = html_to_unicode(None, b_raw)[1]
        rec["jaccard"] = round(jaccard(html_shingles(a.html), html_shingles(b_html)), 6)
        records.append(rec)
        if len(cache) > 256:  # donors are drawn from the whole tree; keep memory flat
            cache.clear()
    doc = {
        "format": LABELS_FORMAT,
        "source": source_name or str(source),
        "seed": seed,
        "pages": len(records),
        "content_selector": content,
        "hosts": {"a": "a", "b": "b"},
        "counts": {label: sum(r["label"] == label for r in records) for label in LABELS},
        "truth": "Jaccard similarity of word 3-shingles of all visible text (every word, stopwords too)",
        "pairs": records,
    }
    (out / LABELS_FILE).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return doc


def pydoc_tree(dest: str | os.PathLike[str], modules: tuple[str, ...] | None = PYDOC_MODULES,
               topics: bool = True) -> list[str]:
    """Render pages of the pydoc browser (``python -m pydoc -b``) into ``dest``: one page per
    standard-library module and, with ``topics``, per help topic and keyword -- one shared
    template (navigation bar, search forms) around each page's content. Returns the paths
    written. Which pages exist depends on the Python version; the bytes are deterministic for
    a given interpreter."""
    import pydoc

    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    urls: list[tuple[str, str]] = []
    for name in modules or ():
        urls.append((f"{name}.html", f"{name}.html"))
    if topics:
        for key in sorted(pydoc.Helper.topics):
            urls.append((f"topic?key={key}.html", f"topics/{key}.html"))
        for key in sorted(pydoc.Helper.keywords):
            urls.append((f"topic?key={key}.html", f"keywords/{key}.html"))
    written = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for url, path in urls:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                try:
                    html = pydoc._url_handler(url, "text/html")  # the pydoc -b server's pages
                except Exception:  # pragma: no cover - a module that fails here is skipped
                    continue
            if "<title>Pydoc: Error" in html:
                continue
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(html, encoding="utf-8")
            written.append(path)
    return written
