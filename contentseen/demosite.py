"""A small, real-looking website and its mirror, built in memory and served on 127.0.0.1.

``contentseen-demo`` and the crawl tests use it: a magazine, *The Field Notes Review*, with one
shared page template (head, top navigation, sidebar with related articles and a tag cloud,
footer, cookie notice) around different article bodies, an index page, a PNG image, a PDF, a
plain-text page and a ``robots.txt``. A few pages exercise what real sites do to crawlers:

* ``/articles/roman-roads.html`` -- windows-1252, declared only in the HTTP header;
* ``/articles/lighthouse-keepers.html`` -- ISO-8859-1, declared only in ``<meta http-equiv>``;
* ``/articles/chess-openings.html`` -- Latin-1 bytes and no charset anywhere;
* ``/articles/urban-beekeeping.html`` -- broken HTML (unclosed elements, stray end tags);
* ``/articles/solar-ovens.html`` -- sent with ``Content-Encoding: gzip``.

The mirror (``build_site(mirror=True)``) serves the same paths: byte-identical copies of most,
near-copies of some (``NEAR_CHANGES`` says what differs) and a few pages that keep the template
but carry a different body; ``MIRROR_LABELS`` labels every mirror path ``identical``, ``near``
or ``different``. ``serve(pages)`` runs a threaded ``http.server`` on ``127.0.0.1`` port 0.

The texts (articles, the plain-text page, the cookie notice) and the page template are package
data in ``contentseen/demo_site/``; this module assembles the pages from them.
"""

from __future__ import annotations

import gzip
import re
import string
import struct
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Iterator, Mapping, NamedTuple
from urllib.parse import urlsplit

SITE_NAME = "The Field Notes Review"

IDENTICAL, NEAR, DIFFERENT = "identical", "near", "different"
LABELS = (IDENTICAL, NEAR, DIFFERENT)


class Page(NamedTuple):
    """One resource: its Content-Type header, its (uncompressed) body, and whether the server
    sends it gzip-compressed (``Content-Encoding: gzip``)."""

    content_type: str
    body: bytes
    gzip: bool = False


Site = dict[str, Page]


@dataclass(frozen=True)
class Article:
    slug: str
    section: str
    title: str
    author: str
    published: str
    summary: str
    tags: tuple[str, ...]
    text: str  # paragraphs separated by blank lines; "## " starts a subheading
    folder: str = "articles"

    @property
    def path(self) -> str:
        return f"/{self.folder}/{self.slug}.html"


# --------------------------------------------------------------------------------------------
# The texts (prose written for this demo): package data in contentseen/demo_site/, so that
# they can be read and edited as text.

_DATA = resources.files(__package__) / "demo_site"


def _text(*parts: str) -> str:
    """The UTF-8 data file ``demo_site/<parts...>``."""
    node = _DATA
    for part in parts:  # one step at a time: a Traversable's "/" takes one name on Python 3.10
        node = node / part
    return node.read_text("utf-8")


def _article(*parts: str) -> Article:
    """An article file: ``field: value`` lines (``tags`` comma-separated), a blank line, the text."""
    head, _, text = _text(*parts).partition("\n\n")
    fields = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in head.splitlines())}
    tags = tuple(t.strip() for t in fields.pop("tags").split(","))
    return Article(**fields, tags=tags, text=text.rstrip("\n"))


# In the order of the index. Each file's header gives the URL's folder (``briefs`` for the news).
ARTICLES: tuple[Article, ...] = tuple(_article("articles", f"{slug}.txt") for slug in (
    "sourdough-winter", "night-trains", "tide-pools", "mechanical-keyboards", "roman-roads",
    "urban-beekeeping", "lighthouse-keepers", "solar-ovens", "chess-openings",
    "library-hours", "river-cleanup", "podcast-launch",
))
ABOUT = _article("about.txt")
SOURCES = _article("roman-roads-sources.txt")
# The mirror replaced this article with another one at the same path (kept: a different body).
MIRROR_REPLACEMENT = _article("mirror-night-trains.txt")
MIRROR_ABOUT = _article("mirror-about.txt")
CONTRIBUTING_TXT = _text("contributing.txt")

ROBOTS_TXT = "User-agent: *\nDisallow: /drafts/\n"

# --------------------------------------------------------------------------------------------
# Paths

INDEX = "/"
ABOUT_PATH = "/about.html"
CONTRIBUTING = "/notes/contributing.txt"
SOURCES_PATH = SOURCES.path
IMAGE = "/images/cover.png"
PDF = "/downloads/spring-edition.pdf"
ROBOTS = "/robots.txt"
SUBSCRIBE = "/subscribe.html"

ARTICLE = {a.slug: a.path for a in ARTICLES}
CP1252_HEADER = ARTICLE["roman-roads"]       # charset=windows-1252 in the HTTP header only
META_CHARSET = ARTICLE["lighthouse-keepers"]  # iso-8859-1 in <meta http-equiv> only
NO_CHARSET = ARTICLE["chess-openings"]        # Latin-1 bytes, no charset anywhere
BROKEN_HTML = ARTICLE["urban-beekeeping"]     # unclosed elements, stray end tags
GZIPPED = ARTICLE["solar-ovens"]              # Content-Encoding: gzip

BINARY_PATHS = frozenset({IMAGE, PDF})
# Pages with fewer content words than CONTENTSEEN_MIN_WORDS (default 5): fingerprinted exactly
# (a hash of their whole text), so only a copy of that text is dropped. (The three news briefs are short too, 50-80 words of prose, but with headline, byline and
# standfirst they reach 48-63 content words and are fingerprinted.)
SHORT_PATHS = frozenset({SUBSCRIBE})
# Linked only from this page (on either host): never requested when that page is dropped.
ONLY_LINKED_FROM = {SOURCES_PATH: CP1252_HEADER, IMAGE: GZIPPED}

# What the mirror changed in each near-copy (all in the page template or markup, not the text).
NEAR_CHANGES: dict[str, str] = {
    ARTICLE["sourdough-winter"]: "site banner line changed",
    ARTICLE["tide-pools"]: "'last updated' timestamp in the byline changed",
    ARTICLE["mechanical-keyboards"]: "footer line changed",
    META_CHARSET: "cookie notice added",
    NO_CHARSET: "whitespace-only reformatting",
}
DIFFERENT_PATHS = frozenset({INDEX, ABOUT_PATH, ARTICLE["night-trains"]})


def _mirror_labels() -> dict[str, str]:
    labels = {p: IDENTICAL for p in build_site(mirror=False) if p != ROBOTS}
    labels.update({p: NEAR for p in NEAR_CHANGES})
    labels.update({p: DIFFERENT for p in DIFFERENT_PATHS})
    return labels


# --------------------------------------------------------------------------------------------
# The template

BANNER = "Spring offer: a year of the print anthology for 25 pounds, delivered anywhere."
MIRROR_BANNER = "Summer reading: our editors pick twelve long reads for the holidays."
FOOTER_NOTE = "Registered in Scotland, company number SC612345."
MIRROR_FOOTER_NOTE = "Snapshot kept by the Leith Institute library, 18 June 2024."
UPDATED = "Updated 2 April 2024, 10:05 GMT"
MIRROR_UPDATED = "Updated 17 June 2024, 16:48 GMT"

NAV = (
    ("/", "Home"), ("/#science", "Science"), ("/#travel", "Travel"), ("/#food", "Food"),
    ("/#technology", "Technology"), ("/#history", "History"), (ABOUT_PATH, "About"),
    (CONTRIBUTING, "Write for us"),
)
SECTIONS = ("science", "travel", "food", "technology", "history", "culture", "news")

COOKIE_NOTICE = _text("cookie-notice.html").rstrip("\n")
# The page template: string.Template placeholders, filled by render().
_PAGE = string.Template(_text("page.html"))


def _tags() -> list[tuple[str, int]]:
    """Every tag with the number of articles that carry it, alphabetically (the tag cloud)."""
    seen: dict[str, int] = {}
    for a in ARTICLES:
        for t in a.tags:
            seen[t] = seen.get(t, 0) + 1
    return sorted(seen.items())


def _body_html(text: str) -> str:
    out = []
    for block in text.strip().split("\n\n"):
        block = " ".join(block.split())
        if block.startswith("## "):
            out.append(f"<h2>{escape(block[3:], quote=False)}</h2>")
        else:
            out.append(f"<p>{escape(block, quote=False)}</p>")
    return "\n".join(out)


def _related(article: Article) -> list[Article]:
    longs = [a for a in ARTICLES if a.folder == "articles"]
    if article not in longs:
        return longs[:3]
    i = longs.index(article)
    return [longs[(i + k) % len(longs)] for k in (1, 2, 4)]


def render(
    title: str,
    main_html: str,
    *,
    description: str,
    section: str,
    related: list[Article],
    banner: str = BANNER,
    footer_note: str = FOOTER_NOTE,
    cookie_notice: bool = True,
    head_charset: str | None = '<meta charset="utf-8">',
) -> str:
    """The shared page template (``demo_site/page.html``) around ``main_html`` (ASCII-only
    markup: entities for the rest)."""
    nav = "\n".join(f'      <li><a href="{href}">{label}</a></li>' for href, label in NAV)
    rel = "\n".join(f'        <li><a href="{a.path}">{escape(a.title)}</a></li>' for a in related)
    tags = " ".join(
        f'<a href="/#tag-{t}" class="tag tag-{min(n, 3)}">{t}</a>' for t, n in _tags()
    )
    return _PAGE.substitute(
        charset=f"\n  {head_charset}" if head_charset else "", title=escape(title), site_name=SITE_NAME,
        description=escape(description), section=section, banner=escape(banner), subscribe=SUBSCRIBE,
        nav=nav, main=main_html, related=rel, tags=tags, pdf=PDF, contributing=CONTRIBUTING,
        footer_note=escape(footer_note), cookie_notice=COOKIE_NOTICE if cookie_notice else "",
    )


def _article_main(article: Article, *, updated: str | None = None, extra: str = "") -> str:
    byline = f"By {escape(article.author)} &middot; Published {article.published}"
    if updated:
        byline += f' &middot; <span class="updated">{updated}</span>'
    return f"""      <article class="story">
        <p class="kicker">{article.section.title()}</p>
        <h1>{escape(article.title)}</h1>
        <p class="byline">{byline}</p>
        <p class="standfirst">{escape(article.summary)}</p>
{_body_html(article.text)}
{extra}
      </article>"""


_EXTRAS = {
    "roman-roads": f'<p class="sources"><a href="{SOURCES_PATH}">Sources and further reading</a></p>',
    "solar-ovens": (
        f'<figure><a href="{IMAGE}"><img src="{IMAGE}" alt="Three solar cookers on a lawn" '
        'width="48" height="32"></a><figcaption>The three cookers at noon on day four.</figcaption></figure>'
    ),
}


def article_page(article: Article, **template: object) -> str:
    updated = template.pop("updated", UPDATED if article.slug == "tide-pools" else None)
    main = _article_main(article, updated=updated, extra=_EXTRAS.get(article.slug, ""))  # type: ignore[arg-type]
    return render(
        article.title, main, description=article.summary, section=article.section,
        related=_related(article), **template,  # type: ignore[arg-type]
    )


def _index_main(mirror: bool) -> str:
    if mirror:
        items = "\n".join(f'          <li><a href="{a.path}">{escape(a.title)}</a></li>' for a in ARTICLES)
        return f"""      <section class="mirror-home">
        <h1>Archive mirror</h1>
        <p>You are reading a preservation copy kept by the Leith Institute library. Pages here
        are refreshed overnight from the magazine's own servers and may trail the live edition;
        earlier revisions stay available on request to the reading room staff.</p>
        <p>Subscriptions, letters and corrections belong with the publisher. Researchers citing
        this collection should quote the snapshot date printed at the foot of each page.</p>
        <h2>Holdings</h2>
        <ol class="holdings">
{items}
        </ol>
      </section>"""
    parts = ['      <section class="home">', f"        <h1>{SITE_NAME}</h1>",
             "        <p>Long reads on science, travel, food, history and the things people make. "
             "New articles every fortnight; browse the archive by section below.</p>"]
    for section in SECTIONS:
        arts = [a for a in ARTICLES if a.section == section]
        if not arts:
            continue
        parts.append(f'        <h2 id="{section}">{section.title()}</h2>\n        <ul>')
        for a in arts:
            parts.append(f'          <li><a href="{a.path}">{escape(a.title)}</a> '
                         f"&mdash; {escape(a.summary)}</li>")
        parts.append("        </ul>")
    parts.append("      </section>")
    return "\n".join(parts)


def index_page(mirror: bool = False) -> str:
    return render(
        "Home" if not mirror else "Archive mirror", _index_main(mirror),
        description="Long reads on science, travel, food and history.", section="home",
        related=_related(ARTICLES[0]),
    )


def subscribe_page() -> str:
    """A short page: too few words for a SimHash, fingerprinted exactly."""
    main = """      <section class="subscribe">
        <h1>Subscribe</h1>
        <p>Join us.</p>
        <form action="/subscribe" method="post"><input type="email" name="email"
          placeholder="you@example.org"><button type="submit">Join</button></form>
      </section>"""
    return render("Subscribe", main, description="Subscribe to the Review.", section="subscribe",
                  related=_related(ARTICLES[0]))


def break_html(html: str) -> str:
    """Make well-formed template output into the tag soup an old CMS emits: unclosed ``p``,
    ``li``, ``main`` and ``article``; an unclosed ``b`` and ``div``; stray end tags; unquoted
    attributes; no ``</body></html>``."""
    for tag in ("</p>", "</li>", "</main>", "</article>", "</body>", "</html>"):
        html = html.replace(tag, "")
    html = html.replace('<p class="standfirst">', '<p class=standfirst><b>', 1)
    html = html.replace("<h2>Too many hives?", '</span></em><div class=callout><h2>Too many hives?', 1)
    html = html.replace('class="layout"', "class=layout", 1)
    return html + "<td>\n"


def reformat_whitespace(html: str) -> str:
    """The same markup with different whitespace only (CRLF line ends, other indentation,
    double spaces); the text a browser shows is unchanged."""
    lines = [line.strip() for line in html.splitlines()]
    return "\r\n".join("\t" * (i % 3) + re.sub(r" ", "  ", line) for i, line in enumerate(lines) if line) + "\r\n"


# --------------------------------------------------------------------------------------------
# Binary resources

def png_image(width: int = 48, height: int = 32) -> bytes:
    """A small, valid RGB PNG (a gradient)."""
    raw = b"".join(
        b"\x00" + bytes(c for x in range(width) for c in (x * 5 % 256, y * 8 % 256, 160))
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def pdf_document() -> bytes:
    """A small PDF-like file with a compressed (binary) content stream."""
    stream = zlib.compress(b"BT /F1 18 Tf 72 720 Td (The Field Notes Review - Spring edition) Tj ET")
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    for i, body in enumerate(objs, 1):
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    return out + b"trailer\n<< /Root 1 0 R /Size 5 >>\n%%EOF\n"


# --------------------------------------------------------------------------------------------
# The site

def _html(text: str, charset: str = "utf-8", header: bool = True) -> Page:
    ctype = f"text/html; charset={charset}" if header else "text/html"
    return Page(ctype, text.encode(charset, "xmlcharrefreplace"))


def build_site(mirror: bool = False) -> Site:
    """``{path: Page}`` of the original site, or of its mirror (same paths, see ``MIRROR_LABELS``)."""
    site: Site = {}
    for article in ARTICLES:
        template: dict[str, object] = {}
        if mirror and article.path in NEAR_CHANGES:
            template = {
                "sourdough-winter": {"banner": MIRROR_BANNER},
                "tide-pools": {"updated": MIRROR_UPDATED},
                "mechanical-keyboards": {"footer_note": MIRROR_FOOTER_NOTE},
                "lighthouse-keepers": {"cookie_notice": True},
                "chess-openings": {},
            }[article.slug]
        if article.slug == "roman-roads":
            site[article.path] = _html(article_page(article, head_charset=None, **template), "windows-1252")
        elif article.slug == "lighthouse-keepers":
            template.setdefault("cookie_notice", False)  # this page predates the cookie notice
            meta = '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
            site[article.path] = _html(article_page(article, head_charset=meta, **template), "iso-8859-1", header=False)
        elif article.slug == "chess-openings":
            html = article_page(article, head_charset=None, **template)
            site[article.path] = _html(reformat_whitespace(html) if mirror else html, "latin-1", header=False)
        elif article.slug == "urban-beekeeping":
            site[article.path] = _html(break_html(article_page(article, **template)))
        elif article.slug == "solar-ovens":
            site[article.path] = _html(article_page(article, **template))._replace(gzip=True)
        elif article.slug == "night-trains" and mirror:
            site[article.path] = _html(article_page(MIRROR_REPLACEMENT))
        else:
            site[article.path] = _html(article_page(article, **template))
    site[INDEX] = _html(index_page(mirror))
    site[ABOUT_PATH] = _html(article_page(MIRROR_ABOUT if mirror else ABOUT))
    site[SOURCES_PATH] = _html(article_page(SOURCES))
    site[SUBSCRIBE] = _html(subscribe_page())
    site[CONTRIBUTING] = Page("text/plain; charset=utf-8", CONTRIBUTING_TXT.encode())
    site[IMAGE] = Page("image/png", png_image())
    site[PDF] = Page("application/pdf", pdf_document())
    site[ROBOTS] = Page("text/plain", ROBOTS_TXT.encode())
    return site


# Every mirror path (robots.txt aside): "identical", "near" or "different" to the original's.
MIRROR_LABELS: dict[str, str] = _mirror_labels()


def expected_mirror_outcome(path: str) -> str:
    """What the middleware does with the mirror's ``path`` when the original site was crawled
    first into the same store: ``dropped``, ``kept``, ``type`` (not HTML/text: untouched) or
    ``unreached`` (only linked from a dropped page)."""
    if path in ONLY_LINKED_FROM and expected_mirror_outcome(ONLY_LINKED_FROM[path]) == "dropped":
        return "unreached"
    if path in BINARY_PATHS:
        return "type"
    return "kept" if MIRROR_LABELS[path] == DIFFERENT else "dropped"


def html_paths(site: Mapping[str, Page]) -> list[str]:
    """Paths of the pages the middleware fingerprints (HTML and plain text, robots.txt aside)."""
    return [p for p, page in site.items() if p != ROBOTS and page.content_type.startswith("text/")]


# --------------------------------------------------------------------------------------------
# The server

class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FieldNotes/1.0"
    pages: Mapping[str, Page] = {}
    requests: list[str] | None = None
    delay: float = 0.0

    def _send(self, head_only: bool) -> None:
        path = urlsplit(self.path).path or "/"
        if self.requests is not None:
            self.requests.append(path)
        if self.delay:
            time.sleep(self.delay)
        page = self.pages.get(path)
        if page is None:
            body = b"<!DOCTYPE html><title>Not found</title><h1>404 Not found</h1>"
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
        else:
            body = gzip.compress(page.body, mtime=0) if page.gzip else page.body
            self.send_response(200)
            self.send_header("Content-Type", page.content_type)
            if page.gzip:
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head_only:
            self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._send(head_only=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._send(head_only=True)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextmanager
def serve(pages: Mapping[str, Page], *, requests: list[str] | None = None, delay: float = 0.0) -> Iterator[str]:
    """Serve ``pages`` on ``http://127.0.0.1:<free port>`` in background threads; yield the base
    URL (no trailing slash). ``pages`` is read at each request, so a page added to it is served
    from then on. Each requested path is appended to ``requests`` when given; each response
    waits ``delay`` seconds first."""
    handler = type("Handler", (_Handler,), {"pages": pages, "requests": requests, "delay": delay})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="demosite", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
