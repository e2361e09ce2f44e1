"""How much ContentSeen costs next to a crawl.

1. Per page, on real HTML, one core: decode, extract, words -> fingerprint, SQLite
   check-and-add against a store already holding 100,000 fingerprints -- pages/s, beside two
   references measured in the same run: the bare lexbor parse (the floor: no extraction can be
   cheaper than parsing the page), the parse and the body's text (what issue 10's target is
   measured against) and parsel's ``//body//text()`` (what a spider does with a page anyway);
   and the reactor thread's share again without the C speedups (an install without a compiler);
   and where the reactor's way spends a page: lexbor, each C speedup, and Python.
   Corpora: pydoc's pages of the standard library (on every machine) and, when installed
   (``apt-get install python3-doc``), the Python documentation's Sphinx pages.
2. The same, by page size: where the parse alone is already slower than a target rate; and the
   reactor's way on the non-English trees of ``benchmarks/trees.py`` installed, with and without
   the C speedups (words of other scripts).
3. A real local crawl of the pydoc pages (``scrapy crawl site``, served on 127.0.0.1), with the
   middleware on and off: wall time and the middleware's share.

    python3 benchmarks/middleware.py [--pages 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import PYTHON_DOC, best, print_table  # noqa: E402
from htmlcorpus import pydoc_pages  # noqa: E402
from selectolax.lexbor import LexborHTMLParser  # noqa: E402

from contentseen import blas  # noqa: E402
from contentseen import markup, parse, pure_python  # noqa: E402
from contentseen._native import speedups  # noqa: E402
from contentseen.pure_python import left_out  # noqa: E402
from contentseen.fingerprints import Scheme  # noqa: E402
from contentseen.stores import open_store  # noqa: E402
from contentseen.engine import Engine, _host, second_look  # noqa: E402
from contentseen.templates import HostTemplates, page_lines  # noqa: E402
from contentseen.text import decode_html  # noqa: E402

CTYPE = "text/html; charset=utf-8"
URL = "http://host/"  # every page's, as on one host
SIZE_BUCKETS = [(0, 8), (8, 16), (16, 32), (32, 64), (64, 128), (128, 1 << 20)]  # KiB


def store_seconds(pf, bodies: list[bytes], repeat: int) -> float:
    """Seconds per SQLite check-and-add of a fresh fingerprint, 100,000 already stored."""
    scheme = pf.scheme
    pages = [p for p in (pf.of_html_bytes(b, CTYPE) for b in bodies) if p.fingerprint is not None]
    rnd = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{tmp}/bench.sqlite", pf.identity, scheme.bits, scheme.distance,
                           page_distance=scheme.page_distance)
        for i in range(100_000):
            store.check_and_add(rnd.getrandbits(scheme.bits), f"http://filler/{i}", page=rnd.getrandbits(64))
        # Random high bits flipped: each call is a lookup plus an insert.
        t = best(lambda p: store.check_and_add(p.fingerprint ^ rnd.getrandbits(scheme.bits), "http://x/",
                                               page=p.page), pages, repeat)
        store.close()
    return t


def _parse_and_text(body: bytes) -> str:
    """The bare parse and the body's text: what issue 10's cost target is measured against."""
    tree = LexborHTMLParser(body)
    return tree.body.text(separator=" ") if tree.body is not None else ""


def _looks_in_order(pf, texts: list) -> tuple[list[tuple], list[tuple]]:
    """The second looks a crawl of the corpus in this order asks for, one host, learning from
    nothing (``Engine.fingerprint``): those of a host never seen to copy another's (its trial
    looks: ``HostTemplates.looking``), and those of a host serving copies (every page holding
    lines of its template). Each look as ``second_look``'s arguments, with the page's own
    fingerprints."""
    site, mirror = HostTemplates(), HostTemplates()
    mirror.learn("host", frozenset())
    mirror.copies("host")
    trial, every = [], []
    for t in texts:
        lines, own = page_lines(t), pf.of_texts(t)
        for learner, made in ((site, trial), (mirror, every)):
            template = learner.learn("host", lines)
            if template and learner.looking("host") and second_look(pf, t, template, own) is not None:
                learner.looked("host")
                made.append((t, template, own))
    return trial, every


def crawl_seconds(pf, bodies: list[bytes], repeat: int, copying: bool = False) -> float:
    """Seconds a page of the engine's reactor-thread work (Engine.fingerprint), page after page:
    fingerprints, the host template learned, the second looks a crawl makes: of one site (its
    trial), or of a host seen copying (``copying``: every page holding lines of its template);
    each pass a crawl of its own, learning from nothing."""
    engine = Engine(pf, None)

    def whole_way(body: bytes):
        if body is bodies[0]:
            engine.templates = HostTemplates()
            if copying:
                engine.templates.learn(_host(URL), frozenset())
                engine.templates.copies(_host(URL))
        return engine.fingerprint("text/html", body, CTYPE, URL)

    return best(whole_way, bodies, repeat)


def stages(pf, bodies: list[bytes], repeat: int, t_store: float) -> list[tuple[str, float]]:
    """Seconds per page of each stage and of the whole way, of the reactor's share without the
    C speedups, and of the references."""
    from parsel import Selector

    htmls = [decode_html(b, CTYPE) for b in bodies]
    texts = [pf.extractor.texts(h) for h in htmls]
    learner = HostTemplates()
    trial, every = _looks_in_order(pf, texts)

    def looks(made: list[tuple]) -> float:
        """Seconds a page of the corpus, on average, of the second looks ``made``."""
        return best(lambda look: second_look(pf, *look), made, repeat) * len(made) / len(texts) if made else 0.0

    t_site = crawl_seconds(pf, bodies, repeat)
    with left_out():
        t_python = crawl_seconds(pf, bodies, repeat)
    t_copies = crawl_seconds(pf, bodies, repeat, copying=True)
    return [
        ("decode (w3lib)", best(lambda b: decode_html(b, CTYPE), bodies, repeat)),
        ("extract content and whole text", best(pf.extractor.texts, htmls, repeat)),
        ("words -> both fingerprints", best(pf.of_texts, texts, repeat)),
        ("host template: lines counted", best(lambda t: learner.learn("host", page_lines(t)), texts, repeat)),
        (f"second looks, one site ({len(trial)} of {len(texts)}: trial)", looks(trial)),
        (f"second looks, copies ({len(every)} of {len(texts)})", looks(every)),
        ("REACTOR THREAD, one site", t_site),
        ("REACTOR THREAD, a host serving copies", t_copies),
        ("reactor, one site, without C speedups", t_python),
        ("SQLite check-and-add (100k stored)", t_store),
        ("ALL: bytes -> decision (+ store thread)", t_site + t_store),
        ("floor: lexbor parse alone", best(LexborHTMLParser, bodies, repeat)),
        ("reference: lexbor parse + body text", best(_parse_and_text, bodies, repeat)),
        ("reference: parsel //body//text()", best(lambda h: Selector(text=h).xpath("//body//text()").getall(), htmls, repeat)),
    ]


def by_size(pf, bodies: list[bytes], repeat: int, t_store: float) -> list[dict]:
    """Pages/s of the whole way and of the bare parse, per page-size bucket."""
    rows = []
    for lo, hi in SIZE_BUCKETS:
        part = [b for b in bodies if lo * 1024 <= len(b) < hi * 1024]
        if not part:
            continue
        t_all = best(lambda b: pf.of_html_bytes(b, CTYPE), part, repeat) + t_store
        t_parse = best(LexborHTMLParser, part, repeat)
        rows.append({
            "size": f"{lo}-{hi} KiB" if hi < 1 << 20 else f">= {lo} KiB",
            "pages": len(part),
            "kib": f"{sum(map(len, part)) / len(part) / 1024:.1f}",
            "ms": f"{t_all * 1e3:.3f}",
            "rate": int(1 / t_all),
            "parse": int(1 / t_parse),
            "ratio": f"{t_all / t_parse:.1f}",
        })
    return rows


@contextlib.contextmanager
def c_timed(spent: dict[str, float]):
    """Every call of a C speedup timed into ``spent`` (name -> seconds) while the block runs."""
    proxy = types.SimpleNamespace(**{name: getattr(speedups, name) for name in dir(speedups)})

    def timed(name: str, fn):
        def call(*args):
            t = time.perf_counter()
            try:
                return fn(*args)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
        return call

    for name in dir(speedups):
        if not name.startswith("_") and callable(getattr(speedups, name)):
            setattr(proxy, name, timed(name, getattr(speedups, name)))
    with pure_python.replaced(proxy):
        yield


def shares(pf, bodies: list[bytes], repeat: int, whole_way: float, reference: float) -> list[tuple[str, float]]:
    """Where the reactor's way (``whole_way`` seconds a page, one site) spends a page: lexbor's
    parse, queries, removals and texts (timed as the extraction makes them; the content's text
    as the whole text's time times its share of the characters), each C speedup (every call
    timed), and the rest, Python. The first two are the floor of this design's way: the issue's
    2.5 x (parse + body text, ``reference``) is out of reach where they alone pass it."""
    if speedups is None:
        return []
    lexbor: dict[str, float] = {}
    for _ in range(repeat):
        for body in bodies:
            page = markup.prepared(decode_html(body, CTYPE))
            if page.flat:
                continue
            t0 = time.perf_counter()
            tree = parse.parsed(page)  # (watched: in C, parse_chunks, left out of the C rows below)
            t1 = time.perf_counter()
            if tree is None:
                continue
            root = tree.body
            query = markup.invisible_query(page.keys)
            for node in reversed(root.css(query) if query else []):
                node.decompose()
            t2 = time.perf_counter()
            whole = root.text(separator="\n")
            t3 = time.perf_counter()
            query = markup.marked_query(page.keys, page.marks)
            if query:
                root.css(query)
            t4 = time.perf_counter()
            for stage, sec in (("parse", t1 - t0), ("queries and removals", t2 - t1 + t4 - t3), ("whole text", t3 - t2)):
                lexbor[stage] = lexbor.get(stage, 0.0) + sec
            content = pf.extractor.texts(page.html).content
            lexbor["content's text"] = lexbor.get("content's text", 0.0) + (t3 - t2) * len(content) / max(1, len(whole))
    spent: dict[str, float] = {}
    with c_timed(spent):
        crawl_seconds(pf, bodies, 1)
        spent.clear()
        for _ in range(repeat):
            crawl_seconds(pf, bodies, 1)
    spent.pop("parse_chunks", None)  # (the parse, timed above as lexbor's)
    n = repeat * len(bodies)
    rows = [(f"lexbor: {stage}", sec / n) for stage, sec in lexbor.items()]
    rows += [(f"C: {name}", sec / n) for name, sec in sorted(spent.items(), key=lambda kv: -kv[1]) if sec / n >= 5e-6]
    floor = sum(lexbor.values()) / n + sum(spent.values()) / n
    return rows + [("lexbor and C together", floor), ("Python, and the rest", whole_way - floor),
                   ("the reactor's whole way, one site", whole_way), ("reference: lexbor parse + body text", reference)]


def per_page(corpora: dict[str, list[bytes]], repeat: int) -> None:
    """Print the stage table of each corpus, then the by-size table of all of them."""
    pf = Scheme().build()
    everything = [b for bodies in corpora.values() for b in bodies]
    t_store = store_seconds(pf, everything[:2000], repeat)
    for name, bodies in corpora.items():
        total = sum(map(len, bodies))
        print(f"\n{name}: {len(bodies)} pages, {total / len(bodies) / 1024:.1f} KiB mean HTML")
        rows = stages(pf, bodies, repeat, t_store)
        parse, text = rows[-3][1], rows[-2][1]
        print(f"{'stage (one core)':40} {'ms/page':>8} {'pages/s':>9} {'MB/s':>7} {'x parse':>8} {'x parse+text':>13}")
        for stage, sec in rows:
            print(f"{stage:40} {sec * 1e3:8.3f} {1 / sec:9.0f} {total / len(bodies) / sec / 1e6:7.1f} "
                  f"{sec / parse:8.2f} {sec / text:13.2f}")
        # The stages timed one at a time (each over all pages, its code and tables warm) sum to
        # less than the reactor's whole way, timed page after page as a crawl runs it.
        print(f"{'(the first five stages summed)':40} {sum(sec for _, sec in rows[:5]) * 1e3:8.3f}")
        where = shares(pf, bodies, repeat, dict(rows)["REACTOR THREAD, one site"], text)
        if where:
            print("where the reactor's way spends a page (one site; C: every call of the speedups timed):")
            for stage, sec in where:
                print(f"  {stage:38} {sec * 1e3:8.3f} {sec / text:13.2f}")
    print("\nby page size, both corpora (one core; x parse: the whole way's time over the bare parse's):")
    print_table(by_size(pf, everything, repeat, t_store), [
        ("size", "HTML size"), ("pages", "pages"), ("kib", "mean KiB"), ("ms", "ms/page"),
        ("rate", "pages/s"), ("parse", "parse alone, pages/s"), ("ratio", "x parse")])


def other_scripts(repeat: int, pages: int = 150) -> None:
    """The reactor's whole way on the non-English trees of ``benchmarks/trees.py`` installed (up
    to ``pages`` pages each, drawn with seed 1), beside the parse + body text of the same pages,
    with and without the C speedups: the words of other scripts are where the token scan's
    Python twin costs most."""
    from trees import TREES, root_of

    pf = Scheme().build()
    rows = []
    for tree in TREES:
        root = root_of(tree) if tree.language != "en" else None
        if root is None:
            continue
        files = sorted(f for f in root.rglob(tree.only or "*.html") if f.is_file() and f.name.endswith(".html"))
        random.Random(1).shuffle(files)
        bodies = [f.read_bytes() for f in files[:pages]]
        reference = best(_parse_and_text, bodies, repeat)
        reactor = crawl_seconds(pf, bodies, repeat)
        with left_out():
            python = crawl_seconds(pf, bodies, repeat)
        rows.append({"tree": tree.name, "lang": tree.language, "pages": len(bodies),
                     "kib": f"{sum(map(len, bodies)) / len(bodies) / 1024:.1f}", "ref": f"{reference * 1e3:.3f}",
                     "ms": f"{reactor * 1e3:.3f}", "ratio": f"{reactor / reference:.1f}",
                     "python": f"{python / reference:.1f}"})
    if not rows:
        print("\n(no non-English tree of benchmarks/trees.py installed: trees.py --install adds them)")
        return
    print("\nother scripts: the reactor's whole way (one site, page after page) on the non-English trees installed:")
    print_table(rows, [("tree", "tree"), ("lang", "language"), ("pages", "pages"), ("kib", "mean KiB"),
                       ("ref", "parse + body text, ms"), ("ms", "reactor, ms"), ("ratio", "x parse + text"),
                       ("python", "x parse + text, without C")])


class _Handler(BaseHTTPRequestHandler):
    pages: dict[str, bytes] = {}

    def do_GET(self) -> None:  # noqa: N802
        body = self.pages.get(self.path.split("?")[0] if self.path != "/" else "/index.html")
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def crawl_stats(url: str, enabled: bool, workdir: Path) -> tuple[float, float, dict]:
    """Wall seconds of one real crawl, the CPU seconds of its process (all its threads: the
    reactor, the store's, BLAS's), and its final Scrapy stats."""
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="crawler_project.settings")
    store = workdir / f"fp-{time.monotonic_ns()}.sqlite"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start_urls={url}",
         "-s", f"CONTENTSEEN_ENABLED={enabled}", "-s", f"CONTENTSEEN_STORE=sqlite:///{store}",
         "-s", "ROBOTSTXT_OBEY=False", "-s", "LOG_LEVEL=INFO", "-O", str(workdir / "items.jsonl")],
        cwd=workdir, env=env, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if r.returncode != 0:
        raise SystemExit(f"crawl failed: {r.stderr[-2000:]}")
    dump = r.stderr[r.stderr.index("Dumping Scrapy stats:") :]
    stats = {k: float(v) for k, v in re.findall(r"'([\w/]+)': ([0-9.]+)[,}]", dump)}
    return elapsed, cpu, stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    blas.hold()  # as the middleware does in a crawl (contentseen.blas)

    site = pydoc_pages(args.pages)
    corpora = {"pydoc pages of the standard library": [b for p, b in site.items() if p != "/index.html"]}
    sphinx = sorted({os.path.realpath(f) for f in glob.glob(PYTHON_DOC, recursive=True)})  # python3/ links python3.X/
    if sphinx:
        corpora["python-doc (Sphinx) pages"] = [Path(f).read_bytes() for f in sphinx]
    else:
        print(f"(no {PYTHON_DOC}: apt-get install python3-doc adds the Sphinx corpus)")
    per_page(corpora, args.runs)
    other_scripts(args.runs)

    _Handler.pages = site
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    with tempfile.TemporaryDirectory() as tmp:
        runs = {False: [], True: []}
        for _ in range(args.runs):
            for enabled in (False, True):
                runs[enabled].append(crawl_stats(url, enabled, Path(tmp)))
    server.shutdown()
    print(f"\nlocal crawl of the {len(site)} pages (scrapy crawl site, 127.0.0.1), median of {args.runs}:")
    print("(in middleware: the reactor thread's time in it, contentseen/seconds; store thread: the store's calls,\n"
          " contentseen/store_seconds, run beside the reactor)")
    print(f"{'':24} {'wall s':>7} {'CPU s':>6} {'requests':>9} {'items':>6} {'dropped':>8} {'in middleware s':>16} "
          f"{'share':>6} {'store thread s':>15}")
    for enabled in (False, True):
        wall = statistics.median(w for w, _, _ in runs[enabled])
        cpu = statistics.median(c for _, c, _ in runs[enabled])
        st = runs[enabled][len(runs[enabled]) // 2][2]
        mw = statistics.median(s.get("contentseen/seconds", 0.0) for _, _, s in runs[enabled])
        store = statistics.median(s.get("contentseen/store_seconds", 0.0) for _, _, s in runs[enabled])
        print(f"{'middleware ' + ('on' if enabled else 'off'):24} {wall:7.2f} {cpu:6.2f} "
              f"{st.get('downloader/request_count', 0):9.0f} {st.get('item_scraped_count', 0):6.0f} "
              f"{st.get('contentseen/dropped', 0):8.0f} {mw:16.3f} {mw / wall * 100:5.1f}% {store:15.3f}")


if __name__ == "__main__":
    main()
