"""A labelled two-host mirror built from a real HTML tree.

Host A holds a sample of the tree's pages, byte for byte. Host B holds the same paths:

* ``identical`` (about half) -- the same bytes;
* ``near`` (about a third) -- one or two of the edits real mirrors make: a banner line at the top,
  a changed or added "last updated" timestamp, a cookie or advertising notice, a footer line, a
  whitespace-only reformatting (CRLF line ends, tabs for indentation). Each page draws its own
  wording, or, with ``host_edits``, host B has one banner, one notice and one footer, the same on
  every page that carries them, as a real mirror's are;
* ``different`` (the rest) -- the page's template (head, navigation, sidebars, footer) kept
  around the main content of another page of the tree (see :func:`content_node`).

``labels.json`` records, per path, the label, the edits, the page the content came from and the
truth: the Jaccard similarity of word 3-shingles of the visible text of A's and B's page
(:mod:`contentseen.evaluate.truth`). Everything follows from ``seed``: the same tree and seed
give the same bytes. Pages that only redirect (a ``<meta http-equiv="refresh">`` to another URL,
as rustdoc writes for moved items) are left out: a crawler follows them (Scrapy's
``MetaRefreshMiddleware``) and never sees their bodies as pages.
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
from typing import Iterator

from selectolax.lexbor import LexborHTMLParser, LexborNode
from w3lib.html import get_meta_refresh

from ..errors import ContentSeenError
from ..text import decode_html, read_html
from .truth import html_shingles, jaccard

LABELS_FORMAT = "contentseen-mirror-labels/1"
LABELS_FILE = "labels.json"
HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml")
LABELS = ("identical", "near", "different")
EDITS = ("banner", "timestamp", "notice", "footer", "whitespace")

# Where the main content of a page is, most specific first; the first group that matches wins
# and, within it, the element with the most text. When none matches, the generic rule
# (``generic_content_node``).
CONTENT_SELECTORS = (
    "main, article, [role=main]",
    "#content, #main, #main-content, .main-content, .content, .body, .document",
)
# The generic rule steps into a child holding more than this share of its parent's text, and only
# into elements that group blocks (a template's content box), never into one block of the content
# itself (a paragraph, a list, a code listing).
CONTENT_SHARE = 0.5
_CONTAINERS = frozenset(("div", "section", "main", "article", "center", "table", "tbody", "tr", "td"))
# Never visible text: not weighed by the generic rule.
_NOT_TEXT = frozenset(("script", "style", "noscript", "template", "svg", "math", "iframe", "object",
                       "head", "title", "-comment", "-doctype"))
# Scrapy's METAREFRESH_MAXDELAY: a refresh this soon is followed, the page never seen.
REFRESH_MAX_DELAY = 100
_REFRESH_SCAN = 4096  # bytes: the refresh is in the head
# A "different" page shares less than this Jaccard with the page (evaluate's "unrelated"), when one
# of this many donors gives such a page.
DIFFERENT_JACCARD = 0.5
DONOR_TRIES = 10

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
_WORDINGS = {"banner": _BANNERS, "notice": _NOTICES, "footer": _FOOTERS}
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
    """A page, read as the middleware reads it (``text.read_html``): written back in the same
    encoding, a copy is its bytes again (a UTF-8 page declared ISO-8859-1, read as Latin-1 and
    written back so, lost the bytes Windows-1252 lacks)."""
    raw = (root / path).read_bytes()
    encoding, html = read_html(raw)
    return Page(path, raw, html, encoding)


def encode(html: str, encoding: str) -> bytes:
    """Write a page back in the encoding it was read in (characters it lacks as references)."""
    try:
        return html.encode(encoding, "xmlcharrefreplace")
    except LookupError:
        return html.encode("utf-8", "xmlcharrefreplace")


def is_redirect(path: Path) -> bool:
    """Whether the page at ``path`` only sends the browser on: a meta refresh to a URL within
    ``REFRESH_MAX_DELAY`` seconds."""
    with path.open("rb") as f:
        head = f.read(_REFRESH_SCAN).decode("utf-8", "replace")
    delay, url = get_meta_refresh(head, "http://mirror.invalid/")
    return url is not None and delay is not None and delay <= REFRESH_MAX_DELAY


def _text_nodes(node: LexborNode) -> Iterator[tuple[str, str]]:
    """(text with blanks collapsed, without blanks) of each visible text node under ``node``
    outside links (``a[href]``; an ``<a name>`` anchor is text)."""
    stack = [node]
    while stack:
        n = stack.pop()
        tag = n.tag
        if tag == "-text":
            words = n.text(deep=False).split()
            if words:
                yield " ".join(words), "".join(words)
        elif tag not in _NOT_TEXT and not (tag == "a" and "href" in n.attributes):
            stack.extend(n.iter(include_text=True))


def _weight(node: LexborNode, shared: frozenset[str]) -> int:
    """Non-blank characters of ``node``'s own text: visible, outside links (navigation is mostly
    links, so a menu never outweighs content), not in ``shared``."""
    return sum(len(bare) for text, bare in _text_nodes(node) if text not in shared)


def _kind(node: LexborNode) -> tuple[str, str | None]:
    return node.tag, node.attributes.get("class")


def generic_content_node(body: LexborNode, shared: frozenset[str] = frozenset()) -> LexborNode:
    """The generic content element under ``body``, for pages of any generator: from the body
    down, step into the child element holding more than ``CONTENT_SHARE`` of its parent's text
    -- a template's content ``<div>``, not the bars, headers and footers beside it -- unless it
    is no container of blocks (``_CONTAINERS``: a paragraph holding most of a short page is the
    content, not its box) or a sibling of the same kind (tag and class) holds text too (it is
    one section of the content among others): either would leave part of the page's own content
    behind. The body itself when no child holds most of its text (a page without a template).

    Text is weighed outside links and without the text nodes in ``shared`` (those the page has
    in common with the other page of the swap: a template's labels, footer, copyright line), so
    a footer never outweighs the content of a short page."""
    node, total = body, _weight(body, shared)
    while total:
        kids = [k for k in node.iter() if k.tag not in _NOT_TEXT]
        weights = [_weight(k, shared) for k in kids]
        i = max(range(len(kids)), key=weights.__getitem__, default=None)
        if (i is None or weights[i] <= CONTENT_SHARE * total or kids[i].tag not in _CONTAINERS
                or any(j != i and weights[j] and _kind(k) == _kind(kids[i]) for j, k in enumerate(kids))):
            break
        node, total = kids[i], weights[i]
    return node


def content_node(tree: LexborHTMLParser, selector: str | None = None,
                 shared: frozenset[str] = frozenset()) -> LexborNode | None:
    """The element holding a page's main content: the largest match of ``selector`` or of the
    first group of ``CONTENT_SELECTORS`` that matches; when none does, the body's
    ``generic_content_node`` (None without a body)."""
    groups = (selector,) if selector else CONTENT_SELECTORS
    for group in groups:
        nodes = tree.css(group)
        if nodes:
            return max(nodes, key=lambda n: len(n.text(separator=" ")))
    return generic_content_node(tree.body, shared) if tree.body is not None else None


def swap_content(page: Page, donor: Page, selector: str | None = None) -> tuple[str, bool]:
    """``page``'s template around ``donor``'s main content; the flag says whether the page's
    template was kept (when not, the whole body is the donor's)."""
    tree, donor_tree = LexborHTMLParser(page.html), LexborHTMLParser(donor.html)
    shared: frozenset[str] = frozenset()
    if tree.body is not None and donor_tree.body is not None:
        shared = frozenset(t for t, _ in _text_nodes(tree.body))
        shared &= frozenset(t for t, _ in _text_nodes(donor_tree.body))
    node = content_node(tree, selector, shared)
    donor_node = content_node(donor_tree, selector, shared)
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


def host_texts(rng: random.Random) -> dict[str, str]:
    """One mirror host's banner, notice and footer, for ``apply_edit(..., texts=)``."""
    return {edit: _fill(rng.choice(wordings), rng) for edit, wordings in _WORDINGS.items()}


def apply_edit(html: str, edit: str, rng: random.Random, texts: dict[str, str] | None = None) -> str:
    """One mirror edit (see ``EDITS``) applied to decoded HTML; a banner, notice or footer worded
    as ``texts`` gives it (``host_texts``), else as drawn for this page (drawn either way, so
    ``rng`` goes on as without ``texts``: the same edits land on the same pages)."""
    if edit in ("banner", "notice", "footer"):
        drawn = _fill(rng.choice(_WORDINGS[edit]), rng)
        text = texts[edit] if texts else drawn
        if edit == "banner":
            return _insert_after_body(html, f'\n<div class="mirror-banner">{text}</div>\n')
        if edit == "notice":
            return _insert_before_body_end(
                html, f'<div class="site-notice" id="notice">{text} <button>OK</button></div>\n')
        return _insert_before_body_end(html, f'<p class="mirror-footer">{text}</p>\n')
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
    host_edits: bool = False,
) -> dict:
    """Build ``out/a``, ``out/b`` and ``out/labels.json`` from the HTML tree ``source``; with
    ``host_edits``, host B's banner, notice and footer are worded once for all its pages.

    Returns the labels document. Refuses an ``out`` that holds anything but an earlier mirror
    (``a/``, ``b/``, ``labels.json``), so no user's files are overwritten.
    """
    source, out = Path(source), Path(out)
    listed = html_files(source)
    files = [f for f in listed if not is_redirect(source / f)]
    if len(files) < 2:
        redirects = f" (and {len(listed) - len(files)} redirects)" if len(listed) > len(files) else ""
        raise ContentSeenError(f"source {source}: needs at least 2 HTML files, found {len(files)}{redirects}")
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
    # Drawn from a generator of their own, so a seed's mirror without them stays as it was.
    texts = host_texts(random.Random(f"host-edits-{seed}")) if host_edits else None
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
                html = apply_edit(html, edit, rng, texts)
            b_raw = encode(html, a.encoding)
            rec["edits"] = edits
        else:
            # When the result still shares much of its text with the page (rustdoc's pages of
            # alike items, index pages that are mostly template), other donors are tried and the
            # least similar result kept: the truth should call a "different" pair unrelated.
            a_shingles = html_shingles(a.html)
            tries = []
            for _ in range(DONOR_TRIES):
                donor_path = rng.choice(files)
                for _ in range(50):  # another page, with other text when the tree has one
                    if donor_path != path and page(donor_path).html != a.html:
                        break
                    donor_path = rng.choice([f for f in files if f != path])
                html, templated = swap_content(a, page(donor_path), content)
                b_raw = encode(html, a.encoding)
                jac = jaccard(a_shingles, html_shingles(decode_html(b_raw)))
                tries.append((jac, donor_path, templated, b_raw))
                if jac < DIFFERENT_JACCARD:
                    break
            jac, donor_path, templated, b_raw = min(tries, key=lambda t: t[0])
            if jac >= DIFFERENT_JACCARD:
                # No donor's content makes it another page (a manual on one page, of which the
                # donor's content replaces one section): the donor page itself, whole, is.
                b_raw, templated = page(donor_path).raw, False
                jac = jaccard(a_shingles, html_shingles(page(donor_path).html))
            rec["content_from"] = donor_path
            rec["template_kept"] = templated
        for host, data in (("a", a.raw), ("b", b_raw)):
            target = out / host / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if label != "different":
            jac = jaccard(html_shingles(a.html), html_shingles(decode_html(b_raw)))
        rec["jaccard"] = round(jac, 6)
        records.append(rec)
        if len(cache) > 256:  # donors are drawn from the whole tree; keep memory flat
            cache.clear()
    doc = {
        "format": LABELS_FORMAT,
        "source": source_name or str(source),
        "seed": seed,
        "pages": len(records),
        "redirects_left_out": len(listed) - len(files),
        "content_selector": content,
        "host_edits": texts,
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
