"""``contentseen``: look into and look after a store, and explain a decision.

Subcommands: ``info``, ``find``, ``export``, ``import``, ``delete``, ``prune``, ``reset`` over any
store URL (opened under the scheme it saved: no crawl settings needed), and ``explain A B`` (two
URLs or files: what the middleware would decide for B after A, and why).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Iterator, NoReturn, Sequence

from .. import blas
from ..engine import Engine, _host, _takes
from ..templates import HostTemplates
from ..errors import ContentSeenError
from ..fingerprints import Scheme, same_page
from ..stores import FingerprintStore, StoreError, display_url, open_store, store_class
from ..stores.base import Entry, parse_duration
from ..stores.redis import DEFAULT_PREFIX
from . import OneLineParser, fail

PROG = "contentseen"
FETCH_TIMEOUT_S = 20
FETCH_MAX_BYTES = 8 << 20  # the middleware reads no more of a page either
IMPORT_BATCH = 10_000
SHOWN_CHARS = 600  # of each text, in explain


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def _options(url: str, prefix: str) -> dict[str, str]:
    return {"prefix": prefix} if "prefix" in store_class(url).OPTIONS else {}


def open_any(url: str, prefix: str, like: str | None = None) -> FingerprintStore:
    """The store at ``url`` under its saved scheme (``prefix`` for the Redis stores); with
    ``like``, made if need be with the scheme saved in that other store."""
    if like is None:
        return store_class(url).open_recorded(url, **_options(url, prefix))
    with open_any(like, prefix) as model:
        own = type(model).OWN_FIELDS | {"buckets"}
        identity = {k: v for k, v in model.identity.items() if k not in own}
        expected = type(model).expected_of(model.identity, model.bits, model.distance)
        return open_store(url, identity, model.bits, model.distance, page_distance=model.page_distance,
                          expected=expected, **_options(url, prefix))


def entry_json(entry: Entry, bits: int) -> str:
    row = {
        "fingerprint": format(entry.fingerprint, f"0{(bits + 3) // 4}x"),
        "page": None if entry.page is None else f"{entry.page:016x}",
        "url": entry.url, "seen": entry.seen,
    }
    if entry.rest is not None:
        row["rest"] = f"{entry.rest:016x}"
    return json.dumps(row, ensure_ascii=False)


def cmd_info(store: FingerprintStore, args: argparse.Namespace) -> int:
    print(f"store: {display_url(store.url)}")
    print(f"fingerprints: {len(store)}")
    span = store.time_range()
    print(f"oldest: {_when(span[0]) if span else '-'}")
    print(f"newest: {_when(span[1]) if span else '-'}")
    path = getattr(store, "path", None)
    if path is not None:  # SQLite: the file and its write-ahead log
        size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
        print(f"size on disk: {size} bytes")
    memory = getattr(store, "server_memory", None)
    if memory is not None:  # Redis: what the server(s) use, all prefixes
        print(f"server memory: {memory()} bytes (all keys of the server{'s' if '+cluster' in store.url else ''})")
    for key, value in sorted(store.identity.items()):
        print(f"scheme {key}: {value}")
    return 0


def cmd_find(store: FingerprintStore, args: argparse.Namespace) -> int:
    found = [e for e in store.entries() if e.url == args.url]
    for entry in found:
        print(entry_json(entry, store.bits))
    if not found:
        print(f"no entry for {args.url}", file=sys.stderr)
    return 0 if found else 1


def cmd_export(store: FingerprintStore, args: argparse.Namespace) -> int:
    out: IO[str] = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        for entry in store.entries():
            out.write(entry_json(entry, store.bits) + "\n")
    finally:
        if args.output:
            out.close()
    return 0


def _parse_line(line: str, number: int, name: str) -> Entry:
    try:
        row = json.loads(line)
        page, rest = row.get("page"), row.get("rest")
        return Entry(int(row["fingerprint"], 16), None if page is None else int(page, 16), str(row["url"]),
                     float(row.get("seen", time.time())), None if rest is None else int(rest, 16))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        fail(PROG, f"{name}: line {number}: not an exported entry "
                   f"(JSON with fingerprint and page in hex, url, seen): {type(exc).__name__}: {exc}")


def _batches(lines: Iterator[str], name: str) -> Iterator[list[Entry]]:
    batch: list[Entry] = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            batch.append(_parse_line(line, number, name))
        if len(batch) == IMPORT_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def cmd_import(store: FingerprintStore, args: argparse.Namespace) -> int:
    total = 0
    try:
        source = open(args.file, encoding="utf-8") if args.file != "-" else sys.stdin
    except OSError as exc:
        fail(PROG, f"{args.file}: {exc.strerror}")
    with source:
        for batch in _batches(source, args.file):
            fps, pages, urls, seen, rests = zip(*batch)
            # (a third-party store's add_many may keep no rests)
            kept = any(r is not None for r in rests) and _takes(store.add_many, "rests")
            extra = {"rests": list(rests)} if kept else {}
            store.add_many(list(fps), list(urls), list(pages), list(seen), **extra)
            total += len(batch)
    print(f"imported {total} entries; the store holds {len(store)}")
    return 0


def cmd_delete(store: FingerprintStore, args: argparse.Namespace) -> int:
    print(f"deleted {store.delete_url(args.url)} entries of {args.url}")
    return 0


def duration(text: str) -> str:
    """An ``--older-than`` argument, checked before any store is opened."""
    try:
        seconds = parse_duration(text, "--older-than")
    except ContentSeenError as exc:
        raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[1]) from None
    if seconds is None:
        raise argparse.ArgumentTypeError("give a duration of at least 1 s (30d, 12h, 15m, 90)")
    return text


def cmd_prune(store: FingerprintStore, args: argparse.Namespace) -> int:
    removed = store.prune(time.time() - (parse_duration(args.older_than) or 0))
    print(f"removed {removed} entries older than {args.older_than}")
    return 0


def cmd_reset(store: FingerprintStore, args: argparse.Namespace) -> int:
    before = len(store)
    store.reset()
    print(f"removed {before} entries; the scheme stays")
    return 0


def _read_page(source: str) -> tuple[str, bytes, str | None]:
    """(name, body, Content-Type) of a URL (fetched, size-capped) or a local file."""
    if source.startswith(("http://", "https://")):
        request = urllib.request.Request(source, headers={"User-Agent": "contentseen-explain"})
        try:
            with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_S) as response:
                body = response.read(FETCH_MAX_BYTES)
                return response.geturl(), body, response.headers.get("Content-Type")
        except (OSError, ValueError) as exc:
            fail(PROG, f"cannot fetch {source}: {exc}")
    path = Path(source)
    try:
        body = path.read_bytes()[:FETCH_MAX_BYTES]
    except OSError as exc:
        fail(PROG, f"{source}: {exc.strerror or exc}")
    kind = "text/plain" if path.suffix.lower() in (".txt", ".text") else "text/html"
    return source, body, kind


def _abridged(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]} … ({len(text)} characters)"


def cmd_explain(args: argparse.Namespace) -> int:
    scheme = Scheme(distance=args.distance, page_distance=args.page_distance, extract=args.extract)
    pages = scheme.build()
    # prepare() never asks the store; the templates learn A's lines before B's (a block on both)
    engine = Engine(pages, None, templates=HostTemplates())  # type: ignore[arg-type]
    seen = []
    for label, source in (("A", args.a), ("B", args.b)):
        name, body, ctype = _read_page(source)
        decision = engine.prepare(name, 200, ctype, body)
        texts = pages.extractor.texts(body.decode("utf-8", "replace")) if ctype != "text/plain" else None
        print(f"{label}: {name} ({ctype}, {len(body)} bytes)")
        if texts is not None:
            print(f"  content: {_abridged(texts.content)}")
            print(f"  whole:   {_abridged(texts.whole)}")
        page = decision.page
        if decision.outcome == "skipped":
            print(f"  not judged: {decision.reason}")
            return 0
        how = (" (exact: fewer than the minimum)" if page.exact else
               " (a sliver of the page: its whole text counts in the content fingerprint too)" if page.sliver else "")
        print(f"  fingerprint {page.hex(scheme.bits)}, whole page {page.page:016x}, {page.word_count} content words{how}")
        if page.alone is not None:
            print(f"  its content block alone: fingerprint {page.alone:0{(scheme.bits + 3) // 4}x} (looked up too: "
                  f"the block holds {page.share:.0%} of the text)")
        seen.append((name, page))
    (a_name, a), (b_name, b) = seen
    d, pd = (a.fingerprint ^ b.fingerprint).bit_count(), (a.page ^ b.page).bit_count()
    alone = "" if b.alone is None else f", of B's content block alone {(a.fingerprint ^ b.alone).bit_count()}"
    # two pages of one host showing one block: what Engine.check holds B to (files: hosts unknown)
    own_host = "://" in a_name and _host(a_name) == _host(b_name)
    limit = scheme.page_limit(b, own_host)
    minor = f", B's content being {b.share:.0%} of its text" if limit < scheme.page_distance else ""
    rd, rest_limit = None, scheme.page_limit(b)
    if b.shared and own_host:
        minor = ", B's content block being on A too, a page of its host"
        if a.rest is not None and b.rest is not None:  # and the text outside the block, as Engine.check asks
            rd = (a.rest ^ b.rest).bit_count()
    print(f"content distance {d}{alone} (drop at <= {scheme.distance}), whole-page distance {pd} "
          f"(drop at <= {limit}{minor})")
    if rd is not None:
        print(f"text outside the content block: distance {rd} (drop at <= {rest_limit})")
    if rd is not None and same_page(a, b, scheme) and pd <= limit and rd > rest_limit:
        print(f"decision: B is kept: content and whole page near, but the text outside the block differs "
              f"({rd} > {rest_limit})")
    elif same_page(a, b, scheme) and pd <= limit:
        by = " (B's block alone)" if d > scheme.distance else ""
        print(f"decision: B is dropped as a near-duplicate of A: content{by} within {scheme.distance} and whole page "
              f"within {limit}")
    elif d > scheme.distance:
        print(f"decision: B is kept: its content differs ({d} > {scheme.distance})")
    else:
        print(f"decision: B is kept: content near ({d}) but the whole pages differ ({pd} > {limit})")
    return 0


STORE_COMMANDS = {
    "info": (cmd_info, "count, scheme, size, oldest and newest entry"),
    "find": (cmd_find, "the entries stored for a URL (JSON Lines)"),
    "export": (cmd_export, "every entry as JSON Lines: fingerprint, page (hex), url, seen"),
    "import": (cmd_import, "bulk-load entries from an export (JSON Lines; - for stdin)"),
    "delete": (cmd_delete, "remove the entries of a URL"),
    "prune": (cmd_prune, "remove entries older than a duration"),
    "reset": (cmd_reset, "remove every entry (the saved scheme stays)"),
}


class _SubcommandParser(OneLineParser):
    """A subcommand's parser: its errors read ``contentseen: error: ...`` as the command's."""

    def error(self, message: str) -> NoReturn:
        fail(PROG, message)


def parser() -> OneLineParser:
    top = OneLineParser(prog=PROG, description="Look into and look after a ContentSeen store; explain a decision.")
    sub = top.add_subparsers(dest="command", required=True, parser_class=_SubcommandParser)
    for name, (_, summary) in STORE_COMMANDS.items():
        p = sub.add_parser(name, help=summary, description=summary)
        p.add_argument("store", help="store URL: sqlite:///path, redis://host:port/db, redis+cluster://host:port")
        p.add_argument("--prefix", default=DEFAULT_PREFIX,
                       help="Redis key prefix (a crawl's default is contentseen:SPIDER)")
        if name in ("find", "delete"):
            p.add_argument("url")
        if name == "export":
            p.add_argument("-o", "--output", help="file to write (default: stdout)")
        if name == "import":
            p.add_argument("file", help="an export (JSON Lines), - for stdin")
            p.add_argument("--like", metavar="STORE",
                           help="make the store, if new, with the scheme of this one (an export holds none)")
        if name == "prune":
            p.add_argument("--older-than", required=True, type=duration, help="a duration: seconds, or 30d, 12h, 15m")
    p = sub.add_parser("explain", help="what the middleware decides for page B after page A, and why",
                       description="Fingerprint two pages (URLs or local files) and tell whether B would "
                                   "be dropped as a near-duplicate of A, and why.")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--distance", type=int, default=Scheme.distance, help="CONTENTSEEN_DISTANCE")
    p.add_argument("--page-distance", type=int, default=Scheme.page_distance, help="CONTENTSEEN_PAGE_DISTANCE")
    p.add_argument("--extract", default=Scheme.extract, help="CONTENTSEEN_EXTRACT")
    return top


@blas.holding  # fingerprints summed on one thread, as in a crawl
def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    store_url = getattr(args, "store", "")
    try:
        if args.command == "explain":
            return cmd_explain(args)
        with open_any(store_url, args.prefix, getattr(args, "like", None)) as store:
            return STORE_COMMANDS[args.command][0](store, args)
    except (ContentSeenError, StoreError, NotImplementedError) as exc:
        message = str(exc)
        fail(PROG, message.replace(store_url, display_url(store_url)) if store_url else message)
    except BrokenPipeError:  # `contentseen export ... | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
