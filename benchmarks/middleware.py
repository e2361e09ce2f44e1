"""How much ContentSeen costs next to a crawl.

1. Per page, on real HTML (pydoc pages of the standard library): decode, extract, words,
   fingerprint, SQLite check-and-add against a store already holding 100,000 fingerprints --
   pages/s on one core, beside what a spider does with the same page anyway (parsel's text
   extraction) as the baseline measured in the same run.
2. A real local crawl of those pages (`scrapy crawl site`, served on 127.0.0.1), with the
   middleware on and off: wall time and the middleware's share.

    python3 benchmarks/middleware.py [--pages 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from htmlcorpus import pydoc_pages  # noqa: E402

from contentseen.pipeline import Scheme  # noqa: E402
from contentseen.stores import open_store  # noqa: E402
from contentseen.text import decode_html, visible_text  # noqa: E402
from contentseen.tokens import content_words  # noqa: E402


def per_page(pages: list[bytes], repeat: int) -> list[tuple[str, float]]:
    """Seconds per page of each stage, best of ``repeat`` passes over all pages."""
    from parsel import Selector

    pf = Scheme().build()
    scheme = pf.scheme
    ctype = "text/html; charset=utf-8"
    n = len(pages)

    def best(fn) -> float:
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            for i in range(n):
                fn(i)
            times.append((time.perf_counter() - t) / n)
        return min(times)

    htmls = [decode_html(p, ctype) for p in pages]
    texts = [visible_text(h, scheme.extract) for h in htmls]
    words = [content_words(t, pf.stopwords) for t in texts]
    fps = [f for f in (pf.of_words(w, 0).fingerprint for w in words) if f is not None]

    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"sqlite:///{tmp}/bench.sqlite", pf.identity, scheme.bits, scheme.distance)
        rnd = random.Random(1)
        for i in range(100_000):
            store.check_and_add(rnd.getrandbits(scheme.bits), f"http://filler/{i}")
        # Fresh fingerprints (high bits flipped): each call is a lookup plus an insert.
        t_store = best(lambda i: store.check_and_add(fps[i % len(fps)] ^ rnd.getrandbits(scheme.bits), "http://x/"))
        store.close()

    t_all = best(lambda i: pf.of_html_bytes(pages[i], ctype))
    return [
        ("decode (w3lib)", best(lambda i: decode_html(pages[i], ctype))),
        ("extract visible text (selectolax)", best(lambda i: visible_text(htmls[i], scheme.extract))),
        ("words (tokenise + stopwords)", best(lambda i: content_words(texts[i], pf.stopwords))),
        ("fingerprint", best(lambda i: pf.of_words(words[i], 0))),
        ("SQLite check-and-add (100k stored)", t_store),
        ("ALL: bytes -> decision", t_all + t_store),
        ("baseline: parsel //body//text()", best(lambda i: Selector(text=htmls[i]).xpath("//body//text()").getall())),
    ]


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


def crawl_stats(url: str, enabled: bool, workdir: Path) -> tuple[float, dict]:
    """Wall seconds of one real crawl, and its final Scrapy stats."""
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="crawler_project.settings")
    store = workdir / f"fp-{time.monotonic_ns()}.sqlite"
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start_urls={url}",
         "-s", f"CONTENTSEEN_ENABLED={enabled}", "-s", f"CONTENTSEEN_STORE=sqlite:///{store}",
         "-s", "ROBOTSTXT_OBEY=False", "-s", "LOG_LEVEL=INFO", "-O", str(workdir / "items.jsonl")],
        cwd=workdir, env=env, capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"crawl failed: {r.stderr[-2000:]}")
    dump = r.stderr[r.stderr.index("Dumping Scrapy stats:") :]
    stats = {k: float(v) for k, v in re.findall(r"'([\w/]+)': ([0-9.]+)[,}]", dump)}
    return elapsed, stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    site = pydoc_pages(args.pages)
    bodies = [b for p, b in site.items() if p != "/index.html"]
    total = sum(map(len, bodies))
    print(f"corpus: {len(bodies)} pydoc pages of the standard library, "
          f"{total / len(bodies) / 1024:.1f} KiB mean HTML, {total / 2**20:.1f} MiB in all\n")

    rows = per_page(bodies, args.runs)
    base = rows[-1][1]
    print(f"{'stage (one core)':38} {'ms/page':>8} {'pages/s':>9} {'x baseline':>10}")
    for name, sec in rows:
        print(f"{name:38} {sec * 1e3:8.3f} {1 / sec:9.0f} {sec / base:10.2f}")

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
    print(f"{'':24} {'wall s':>7} {'requests':>9} {'items':>6} {'dropped':>8} {'in middleware s':>16} {'share':>6}")
    for enabled in (False, True):
        wall = statistics.median(w for w, _ in runs[enabled])
        st = runs[enabled][len(runs[enabled]) // 2][1]
        mw = statistics.median(s.get("contentseen/seconds", 0.0) for _, s in runs[enabled])
        print(f"{'middleware ' + ('on' if enabled else 'off'):24} {wall:7.2f} {st.get('downloader/request_count', 0):9.0f} "
              f"{st.get('item_scraped_count', 0):6.0f} {st.get('contentseen/dropped', 0):8.0f} {mw:16.3f} {mw / wall * 100:5.1f}%")


if __name__ == "__main__":
    main()
