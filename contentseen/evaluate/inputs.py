"""Where the pairs come from: a mirror's labels file, or two crawls saved to disk.

A crawl on disk is one of

* a directory of HTML files (a mirror's ``a/`` or ``b/``, ``wget -m`` output, ...): pages are
  keyed by their path relative to the directory;
* a Scrapy HTTP cache directory (``HTTPCACHE_ENABLED``, filesystem storage): every
  ``<fingerprint>/response_body`` with its ``meta`` (the URL) and ``response_headers``
  (the Content-Type); pages are keyed by the URL's path and query, so two hosts pair up;
* a feed export with bodies (``scrapy crawl ... -O pages.jsonl`` of items holding ``url`` and
  ``body``, ``html`` or ``text``), JSON lines or a JSON array; keyed like the cache.

Two crawls pair by key. Files and responses that are not HTML (by name, Content-Type or NUL
bytes) are left out and counted.
"""

from __future__ import annotations

import ast
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ..engine import HTML_TYPES, media_type
from ..errors import ContentSeenError
from .mirror import HTML_SUFFIXES, LABELS, LABELS_FILE, LABELS_FORMAT


@dataclass(frozen=True)
class PageRef:
    """One page: a file on disk (``path``) or a body held in memory (``body``)."""

    name: str
    path: str | None = None
    body: bytes | None = None
    content_type: str | None = None

    def load(self) -> bytes:
        if self.body is not None:
            return self.body
        try:
            with open(self.path, "rb") as fh:  # type: ignore[arg-type]
                return fh.read()
        except OSError as exc:
            raise ContentSeenError(f"{self.name}: cannot read ({exc.strerror})") from None


@dataclass(frozen=True)
class Pair:
    key: str
    a: PageRef
    b: PageRef
    label: str | None = None
    jaccard: float | None = None


@dataclass
class Crawl:
    """Pages of one host by key, and what was left out."""

    root: str
    kind: str
    pages: dict[str, PageRef] = field(default_factory=dict)
    not_html: list[str] = field(default_factory=list)


@dataclass
class PairSet:
    pairs: list[Pair]
    a: Crawl
    b: Crawl
    labelled: bool
    source: str

    @property
    def only_a(self) -> list[str]:
        return sorted(set(self.a.pages) - set(self.b.pages))

    @property
    def only_b(self) -> list[str]:
        return sorted(set(self.b.pages) - set(self.a.pages))


def looks_binary(data: bytes) -> bool:
    """NUL bytes in the first 4 KiB: an image, archive or other binary, not HTML (UTF-16
    HTML, which has NULs too, starts with its BOM)."""
    head = data[:4096]
    return b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff"))


def url_key(url: str) -> str:
    """A URL's path and query: the key that pairs the same page on two hosts."""
    parts = urlsplit(url)
    key = parts.path.lstrip("/") or "/"
    return key + ("?" + parts.query if parts.query else "")


def _is_httpcache(root: Path) -> bool:
    return next(root.glob("*/*/response_body"), None) is not None or \
        next(root.glob("*/*/*/response_body"), None) is not None


def _header_value(raw: bytes, name: bytes) -> str | None:
    for line in raw.splitlines():
        key, sep, value = line.partition(b":")
        if sep and key.strip().lower() == name:
            return value.strip().decode("latin-1")
    return None


def _read_httpcache(root: Path) -> Crawl:
    crawl = Crawl(str(root), "scrapy-httpcache")
    for body in sorted(root.rglob("response_body")):
        entry = body.parent
        try:
            meta = ast.literal_eval((entry / "meta").read_text(encoding="utf-8", errors="replace"))
            url = str(meta["url"])
        except (OSError, ValueError, SyntaxError, KeyError, TypeError):
            crawl.not_html.append(str(entry))
            continue
        try:
            headers = (entry / "response_headers").read_bytes()
        except OSError:
            headers = b""
        ctype = _header_value(headers, b"content-type")
        if ctype is not None and media_type(ctype) not in HTML_TYPES:
            crawl.not_html.append(url)
            continue
        crawl.pages.setdefault(url_key(url), PageRef(url, path=str(body), content_type=ctype))
    return crawl


def _read_tree(root: Path) -> Crawl:
    crawl = Crawl(str(root), "directory")
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = Path(dirpath, name)
            rel = full.relative_to(root).as_posix()
            if name.lower().endswith(HTML_SUFFIXES) and full.is_file():
                crawl.pages[rel] = PageRef(str(full), path=str(full))
            else:
                crawl.not_html.append(rel)
    return crawl


def _read_export(path: Path) -> Crawl:
    crawl = Crawl(str(path), "feed export")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ContentSeenError(f"{path}: not a UTF-8 feed export (JSON or JSON lines)") from None
    except OSError as exc:
        raise ContentSeenError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        if text.lstrip().startswith("["):
            items = json.loads(text)
        else:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise ContentSeenError(f"{path}: not a JSON or JSON-lines feed export ({exc.msg}, line {exc.lineno})") from None
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("url"), str):
            raise ContentSeenError(f"{path}: item {n} has no \"url\" string")
        body = next((item[k] for k in ("body", "html", "text") if isinstance(item.get(k), str)), None)
        if body is None:
            raise ContentSeenError(f"{path}: item {n} ({item['url']}) has no \"body\", \"html\" or \"text\" string")
        ctype = item.get("content_type") if isinstance(item.get("content_type"), str) else None
        if ctype is not None and media_type(ctype) not in HTML_TYPES:
            crawl.not_html.append(item["url"])
            continue
        crawl.pages.setdefault(url_key(item["url"]), PageRef(item["url"], body=body.encode("utf-8"),
                                                             content_type="text/html; charset=utf-8"))
    return crawl


def read_crawl(location: str | os.PathLike[str]) -> Crawl:
    """A crawl saved to disk (see the module text for the kinds)."""
    path = Path(location)
    if not path.exists():
        raise ContentSeenError(f"{path}: no such file or directory")
    if path.is_dir():
        return _read_httpcache(path) if _is_httpcache(path) else _read_tree(path)
    if path.suffix.lower() in (".json", ".jsonl", ".jl", ".ndjson"):
        return _read_export(path)
    raise ContentSeenError(f"{path}: not a directory or a .json/.jsonl feed export")


def pair_crawls(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> PairSet:
    """Pages of two crawls paired by key, sorted by key."""
    ca, cb = read_crawl(a), read_crawl(b)
    for crawl in (ca, cb):
        if not crawl.pages:
            extra = f" ({len(crawl.not_html)} other files, e.g. {crawl.not_html[0]})" if crawl.not_html else ""
            raise ContentSeenError(f"{crawl.root}: no HTML pages{extra}")
    keys = sorted(set(ca.pages) & set(cb.pages))
    if not keys:
        raise ContentSeenError(
            f"no pairs: none of the {len(ca.pages)} pages of {ca.root} has the same path in {cb.root} "
            f"(e.g. {next(iter(ca.pages))} vs {next(iter(cb.pages))})"
        )
    pairs = [Pair(k, ca.pages[k], cb.pages[k]) for k in keys]
    return PairSet(pairs, ca, cb, labelled=False, source=f"{ca.root} vs {cb.root}")


def read_labels(location: str | os.PathLike[str]) -> PairSet:
    """The pairs of a mirror built by ``contentseen-mirror`` (its ``labels.json`` or its folder)."""
    path = Path(location)
    if path.is_dir():
        path = path / LABELS_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ContentSeenError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ContentSeenError(f"{path}: not UTF-8 text, not a labels file") from None
    except json.JSONDecodeError as exc:
        raise ContentSeenError(f"{path}: not JSON ({exc.msg}, line {exc.lineno}), not a labels file") from None
    except OSError as exc:
        raise ContentSeenError(f"{path}: cannot read ({exc.strerror})") from None
    if not isinstance(doc, dict) or doc.get("format") != LABELS_FORMAT or not isinstance(doc.get("pairs"), list):
        raise ContentSeenError(f"{path}: not a labels file (format {LABELS_FORMAT!r} expected)")
    base = path.parent
    hosts = doc.get("hosts") or {"a": "a", "b": "b"}
    ca = Crawl(str(base / hosts["a"]), "mirror host a")
    cb = Crawl(str(base / hosts["b"]), "mirror host b")
    pairs = []
    for n, rec in enumerate(doc["pairs"], 1):
        if not isinstance(rec, dict) or not isinstance(rec.get("path"), str) or rec.get("label") not in LABELS:
            raise ContentSeenError(f"{path}: pair {n} needs a \"path\" and a \"label\" in {LABELS}")
        rel = rec["path"]
        refs = []
        for crawl in (ca, cb):
            full = Path(crawl.root) / rel
            if not full.is_file():
                raise ContentSeenError(f"{path}: pair {n}: {full} is missing")
            ref = PageRef(str(full), path=str(full))
            crawl.pages[rel] = ref
            refs.append(ref)
        jac = rec.get("jaccard")
        pairs.append(Pair(rel, refs[0], refs[1], rec["label"], float(jac) if isinstance(jac, (int, float)) else None))
    if not pairs:
        raise ContentSeenError(f"{path}: no pairs")
    return PairSet(pairs, ca, cb, labelled=True, source=str(path))
