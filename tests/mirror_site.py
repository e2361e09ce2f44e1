"""A small, real-looking web site and a mirror of it, served by threaded ``http.server``s on
127.0.0.1, for tests that run real ``scrapy crawl`` processes.

``site_pages(n)`` builds the pages (path -> HTML bytes): a front page and ``n`` articles, each
with 150+ content words in ``<main>``, distinct text, and links to other articles. ``serve``
runs a server over them; two servers over the same dict are a host and its byte-identical
mirror. ``Server.delay`` slows every page down (seconds) so a test can act mid-crawl; clearing
``Server.gate`` holds every page (not robots.txt) until it is set again, so crawlers that started
at different moments can be released together.
"""

from __future__ import annotations

import random
import re
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

_TOPICS = [
    "river ferries", "mountain railways", "urban beekeeping", "lighthouse keepers", "glacier retreat",
    "sourdough baking", "harbour cranes", "violin making", "desert observatories", "tram networks",
    "coral nurseries", "salt marshes", "paper mills", "wind tunnels", "seed banks", "canal locks",
    "printing presses", "clock towers", "weather balloons", "orchard grafting", "copper mines",
    "night markets", "bridge inspections", "library bindings", "tidal power", "wool dyeing",
    "radio telescopes", "cave surveys", "olive harvests", "postal routes", "ice roads", "kiln firing",
]
_NOUNS = """engineer village council archive ledger harbour engine valley summit workshop crew
surveyor apprentice foreman museum warehouse journal committee district festival market
schedule timber granite lantern compass rope ballast pulley furnace chimney barrel cargo
meadow orchard quarry estuary plateau ridge cliff lagoon delta terrace vineyard pasture
blueprint prototype gauge lever valve piston spindle loom anvil chisel sextant telescope
beacon signal timetable voyage expedition census survey budget tariff subsidy contract
winter spring autumn summer storm drought flood frost thaw harvest migration tide current""".split()
_VERBS = """repaired measured recorded restored expanded replaced inspected surveyed painted
rebuilt carried hauled stored traded mapped charted calibrated tested documented financed
organised scheduled photographed dismantled reassembled polished sharpened welded stitched
planted pruned harvested excavated drained flooded reinforced widened narrowed relocated""".split()
_ADJS = """narrow steep weathered ancient modern heavy fragile careful patient rusty polished
crowded quiet remote coastal northern southern eastern western seasonal daily annual wooden
iron brass stone clay woollen copper golden silver grey crimson amber cobalt emerald""".split()
_PEOPLE = """Mara Tobias Ilse Rafael Oona Casimir Wren Bertil Solveig Anselm Priya Dorian
Ingrid Matteo Noor Lucan Halvard Esme Kofi Greta Yusuf Linnea Piet Amara""".split()


def _plural(noun: str) -> str:
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _sentence(rng: random.Random, topic: str) -> str:
    forms = [
        lambda: f"The {rng.choice(_ADJS)} {rng.choice(_NOUNS)} was {rng.choice(_VERBS)} by the "
                f"{rng.choice(_NOUNS)} {rng.choice(_NOUNS)} after a {rng.choice(_ADJS)} {rng.choice(_NOUNS)}.",
        lambda: f"{rng.choice(_PEOPLE)} {rng.choice(_VERBS)} every {rng.choice(_NOUNS)} near the "
                f"{rng.choice(_ADJS)} {rng.choice(_NOUNS)} during the {rng.choice(_NOUNS)} of {rng.randint(1850, 2020)}.",
        lambda: f"Records of {topic} mention {rng.randint(2, 90)} {rng.choice(_ADJS)} "
                f"{_plural(rng.choice(_NOUNS))} and a {rng.choice(_NOUNS)} {rng.choice(_VERBS)} twice.",
        lambda: f"Visitors still ask why the {rng.choice(_NOUNS)} beside the {rng.choice(_NOUNS)} "
                f"looks so {rng.choice(_ADJS)} when the {rng.choice(_NOUNS)} turns {rng.choice(_ADJS)}.",
        lambda: f"Each {rng.choice(_NOUNS)}, {rng.choice(_PEOPLE)} wrote, needs a {rng.choice(_ADJS)} "
                f"{rng.choice(_NOUNS)}, a {rng.choice(_NOUNS)} and {rng.choice(_ADJS)} {_plural(rng.choice(_NOUNS))}.",
    ]
    return re.sub(r"\b([Aa]) ([aeiou])", r"\1n \2", rng.choice(forms)())


def _paragraphs(rng: random.Random, topic: str, min_words: int) -> list[str]:
    paras, words = [], 0
    while words < min_words:
        para = " ".join(_sentence(rng, topic) for _ in range(rng.randint(3, 5)))
        paras.append(para)
        words += len(para.split())
    return paras


def _page(title: str, paras: list[str], links: list[tuple[str, str]], nav: list[tuple[str, str]]) -> bytes:
    nav_html = " | ".join(f'<a href="{href}">{text}</a>' for href, text in nav)
    body = "\n".join(f"    <p>{p}</p>" for p in paras)
    related = "\n".join(f'      <li><a href="{href}">{text}</a></li>' for href, text in links)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{title} | Field Notes</title>
  <link rel="stylesheet" href="/style.css">
</head>
<body>
  <header><h1 class="brand">Field Notes</h1><nav>{nav_html}</nav></header>
  <main>
    <article>
    <h2>{title}</h2>
{body}
    <h3>Related</h3>
    <ul>
{related}
    </ul>
    </article>
  </main>
  <footer><p>Field Notes, an independent journal of working places. Reprints welcome.</p></footer>
</body>
</html>
""".encode()


def site_pages(n: int = 20, seed: int = 0) -> dict[str, bytes]:
    """``/`` and ``/articles/<i>-<slug>.html`` for i < n (n <= 32): path -> HTML bytes."""
    rng = random.Random(seed)
    topics = _TOPICS[:n]
    paths = [f"/articles/{i:02d}-{t.replace(' ', '-')}.html" for i, t in enumerate(topics)]
    nav = [("/", "Home")] + [(paths[i], topics[i].title()) for i in range(min(3, n))]
    pages: dict[str, bytes] = {}
    front = _paragraphs(rng, "the journal", 160)
    pages["/"] = _page("Field Notes from Working Places", front,
                       [(paths[i], topics[i].title()) for i in range(0, n, 3)], nav)
    for i, topic in enumerate(topics):
        links = [(paths[(i + j) % n], topics[(i + j) % n].title()) for j in (1, 2, 5)]
        pages[paths[i]] = _page(f"On {topic.title()}", _paragraphs(rng, topic, 170), links, nav)
    pages["/robots.txt"] = b"User-agent: *\nAllow: /\n"
    return pages


class Server(ThreadingHTTPServer):
    daemon_threads = True
    pages: dict[str, bytes]
    delay: float = 0.0
    hits: int = 0
    robots_hits: int = 0
    gate: threading.Event

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Server

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?", 1)[0]
        body = self.server.pages.get(path)
        if body is None:
            self.send_error(404)
            return
        if path == "/robots.txt":
            self.server.robots_hits += 1
        else:
            self.server.hits += 1
            self.server.gate.wait(60)
            if self.server.delay:
                time.sleep(self.server.delay)
        self.send_response(200)
        ctype = "text/plain" if path.endswith(".txt") else "text/html; charset=utf-8"
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serve(pages: dict[str, bytes], delay: float = 0.0) -> Iterator[Server]:
    """Serve ``pages`` on 127.0.0.1 (a free port) in a thread; ``server.base_url``."""
    server = Server(("127.0.0.1", 0), _Handler)
    server.pages, server.delay = pages, delay
    server.gate = threading.Event()
    server.gate.set()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.gate.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
