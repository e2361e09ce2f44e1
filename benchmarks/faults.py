"""Benchmark: what real faults cost a real crawl -- pages delivered, pages never delivered, pages
delivered twice, seconds -- with real ``scrapy crawl site`` processes (the bundled
crawler_project) and a real ``redis-server``, against calm crawls measured in the same run.

    python3 benchmarks/faults.py                         # 300 pages, 3 kills (about 4 minutes on 2 cores)
    python3 benchmarks/faults.py --pages 100 --kills 2   # a quick run (the freeze outlasts it)
    python3 benchmarks/faults.py --seed 7 --keep         # other orders and kill points; keep the logs

Site: ``tests/sites.py``'s ``delivery_site`` -- ``--pages`` unrelated pages of
``tests/sites.generated_site``, an identical copy of the first 20% of them at ``/copy/<i>.html``,
and the index ``/`` linking every page -- served on 127.0.0.1 with a delay per request. Every
crawl starts from all its URLs in an order drawn from ``--seed`` and writes each item's URL
through ``tests/delivery_pipeline.FsyncPipeline`` (appended and fsynced before the item goes
on), so what was delivered is known even of a crawl killed with SIGKILL. A *content* is a page
and its copies; a content is delivered when any of its URLs is.

Faults (each in a fresh temporary directory, with a fresh store and server):

1. calm SQLite crawl (16 concurrent requests, 0.01 s a request): the baseline of 2.
2. SIGKILL at ``--kills`` random points (each after 5..n/9 more delivered items), then one
   crawl to its end, all on the same SQLite store; ``orphans`` is what the crawls after a kill
   discarded of what the dead one had in flight (their start-up line, and the final crawl's
   ``contentseen/orphans_discarded``). Seconds: all its crawls together.
3. calm Redis crawl (1 request at a time, 0.08 s a request, ``CONTENTSEEN_STORE_TIMEOUT=1``,
   ``CONTENTSEEN_STORE_COOLDOWN=3``, as tests/test_store_faults.py): the baseline of 4, 5, 6.
4. the same with ``redis-server`` frozen (SIGSTOP) for 20 s, 4 s after the crawl process
   started; store errors are ``contentseen/store_errors`` (pages kept unchecked).
5. the same with ``redis-server`` killed and started empty on its port 3 s in: whether the
   crawl logs that the store "lost its scheme record" and writes it again, and whether a
   following crawl with ``CONTENTSEEN_BITS=128`` on that server is refused (exit status 1,
   "another fingerprint scheme" in its log).
6. a store URL with a password (``redis-server --requirepass``): a crawl with a wrong password
   (must not start), then the whole crawl with the right one, the server killed 3 s in so that
   the store's error paths log too; lines of the two logs (and of any other file the crawls
   wrote) that contain either password.

"delivered" counts distinct URLs; "never" contents none of whose URLs was delivered; "twice"
deliveries beyond the first of each content: a URL delivered again (at-least-once after a kill)
or a copy delivered beside its original (a duplicate leaked, e.g. while the store was out).
"lost" is the seconds against the calm crawl of the same store.

Exit status 1 when an invariant breaks: a content never delivered, a crawl that should end
normally did not, a journal left by a finished crawl, a password in a file the crawls wrote, a
128-bit crawl accepted on a 64-bit store, or a wrong password accepted.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
TESTS = os.path.join(ROOT, "tests")
sys.path.insert(0, ROOT)
sys.path.insert(0, TESTS)
# The crawl processes import delivery_pipeline (tests/) and crawler_project (the checkout).
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (TESTS, ROOT, os.environ.get("PYTHONPATH", "")) if p)

from common import print_table  # noqa: E402
from crawl_process import crawl_command, crawl_env, kill_9_when, run_crawl  # noqa: E402
from redis_server import REDIS_SERVER, RedisServer, _ping, free_port  # noqa: E402
from sites import Crawl, delivery_site, host, path_of  # noqa: E402

PIPELINE = 'ITEM_PIPELINES={"delivery_pipeline.FsyncPipeline": 300}'
SQLITE_SETTINGS = ("CONCURRENT_REQUESTS=16",)
SQLITE_DELAY = 0.01
REDIS_SETTINGS = ("CONCURRENT_REQUESTS=1", "CONTENTSEEN_STORE_TIMEOUT=1", "CONTENTSEEN_STORE_COOLDOWN=3")
REDIS_DELAY = 0.08
FREEZE_AFTER_S, FREEZE_FOR_S = 4.0, 20.0
RESTART_AFTER_S = 3.0
KILL_SERVER_AFTER_S = 3.0
CRAWL_TIMEOUT_S = 300
ORPHANS_LINE = re.compile(r"ContentSeen: (\d+) pages stored by a crawl that ended before delivering them")


def _quiet_handle_error(self, request, client_address, _print=ThreadingHTTPServer.handle_error) -> None:
    """The test site's server, whose client was killed mid-request: a reset connection is the
    point of the test, not a traceback on stderr; any other error is printed as before."""
    if not isinstance(sys.exc_info()[1], ConnectionError):
        _print(self, request, client_address)


ThreadingHTTPServer.handle_error = _quiet_handle_error  # this process's servers only (sites.host)


# ------------------------------------------------------------------ the site and what was delivered


@dataclass
class Site:
    pages: dict
    paths: list[str]  # every URL path
    content_of: dict[str, int]  # path -> content number (a page and its copies share one)

    @property
    def contents(self) -> int:
        return len(set(self.content_of.values()))


def make_site(n: int) -> Site:
    pages, groups = delivery_site(n, n // 5)
    content_of = {p: i for i, group in enumerate(groups) for p in group}
    content_of["/"] = len(groups)
    assert set(content_of) == set(pages), "every served path belongs to one content"
    return Site(pages, sorted(pages), content_of)


@dataclass
class Delivery:
    """What a fault's crawls delivered, from the pipeline's file."""

    urls: int  # distinct URLs delivered
    never: list[str]  # a path of each content never delivered
    again: int  # deliveries of a URL already delivered
    leaked: int  # URLs delivered beside another URL of the same content
    lines: int

    @property
    def twice(self) -> int:
        return self.again + self.leaked


def delivered_lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


def delivery(site: Site, path: Path) -> Delivery:
    lines = delivered_lines(path)
    urls = set(lines)
    contents = {site.content_of[path_of(u)] for u in urls}
    firsts: dict[int, str] = {}
    for p in site.paths:
        firsts.setdefault(site.content_of[p], p)
    never = [p for c, p in sorted(firsts.items()) if c not in contents]
    return Delivery(len(urls), never, len(lines) - len(urls), len(urls) - len(contents), len(lines))


# ------------------------------------------------------------------ crawls


def crawl_settings(settings, delivered: Path) -> list[str]:
    return [*settings, PIPELINE, f"DELIVERED_FILE={delivered}"]


def crawl(h, paths, workdir: Path, name: str, store: str, settings, delivered: Path) -> Crawl:
    """One crawl to its end (``crawl_process.run_crawl``)."""
    return Crawl(run_crawl([h.u(p) for p in paths], workdir, store, crawl_settings(settings, delivered),
                           name=name, timeout=CRAWL_TIMEOUT_S))


def start_crawl(h, paths, workdir: Path, name: str, store: str, settings, delivered: Path) -> subprocess.Popen:
    """One crawl process, not waited for (to be killed), its log in ``workdir/name.log``."""
    workdir.mkdir(parents=True, exist_ok=True)
    cmd = crawl_command([h.u(p) for p in paths], f"{name}.jsonl", store, crawl_settings(settings, delivered))
    with open(workdir / f"{name}.log", "wb") as log:
        return subprocess.Popen(cmd, cwd=workdir, env=crawl_env(), stdout=log, stderr=subprocess.STDOUT)


def error_lines(c: Crawl) -> int:
    return len(c.errors())


def feed_matches(c: Crawl, delivered: Path, before: int = 0) -> bool:
    """The feed of a finished crawl lists what the pipeline wrote during it."""
    return sorted(i["url"] for i in c.items) == sorted(delivered_lines(delivered)[before:])


# ------------------------------------------------------------------ the faults


@dataclass
class Outcome:
    fault: str
    store: str
    delivery: Delivery | None = None
    seconds: float = 0.0
    baseline: str | None = None  # the fault whose seconds this one is compared with
    notes: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # invariants this fault broke


def check_ended(out: Outcome, c: Crawl, what: str) -> None:
    if c.returncode != 0:
        out.broken.append(f"{what} exited with status {c.returncode}")


def check_delivery(out: Outcome, d: Delivery) -> None:
    if d.never:
        out.broken.append(f"{len(d.never)} contents never delivered, e.g. {d.never[:3]}")


def twice_note(d: Delivery) -> str | None:
    parts = []
    if d.again:
        parts.append(f"{d.again} URL{'s' * (d.again != 1)} delivered again")
    if d.leaked:
        parts.append(f"{d.leaked} cop{'ies' if d.leaked != 1 else 'y'} leaked")
    return "; ".join(parts) or None


def calm_sqlite(site: Site, order: list[str], workdir: Path) -> Outcome:
    out = Outcome("calm crawl (baseline)", "SQLite")
    delivered = workdir / "delivered.txt"
    with host(site.pages, delay=SQLITE_DELAY) as h:
        c = crawl(h, order, workdir, "calm", "sqlite:///" + str(workdir / "fp.sqlite"), SQLITE_SETTINGS, delivered)
    out.seconds = c.result.seconds
    out.delivery = d = delivery(site, delivered)
    check_ended(out, c, "the calm crawl")
    check_delivery(out, d)
    out.notes.append(f"16 requests at a time, {SQLITE_DELAY} s each; dropped {c.stats.get('contentseen/dropped', 0)}")
    if not feed_matches(c, delivered):
        out.notes.append("feed differs from the pipeline's file")
    return out


def killed_sqlite(site: Site, rng: random.Random, kills: int, workdir: Path) -> Outcome:
    out = Outcome(f"kill -9 x{kills}, then a re-crawl", "SQLite", baseline="calm crawl (baseline) SQLite")
    delivered = workdir / "delivered.txt"
    store = "sqlite:///" + str(workdir / "fp.sqlite")
    paths = list(site.paths)
    points, orphans, missed = [], 0, 0
    with host(site.pages, delay=SQLITE_DELAY) as h:
        for round_ in range(kills):
            rng.shuffle(paths)
            started = time.monotonic()
            proc = start_crawl(h, paths, workdir, f"killed{round_}", store, SQLITE_SETTINGS, delivered)
            before = len(delivered_lines(delivered))
            want = before + rng.randint(5, max(5, len(paths) // 9))
            if kill_9_when(proc, lambda: len(delivered_lines(delivered)) >= want, timeout=120):
                points.append(str(len(delivered_lines(delivered)) - before))
            else:
                missed += 1  # it ended (or failed) before its kill point
                points.append(f"ended (status {proc.returncode})")
            out.seconds += time.monotonic() - started
            if round_:
                orphans += sum(int(m) for m in ORPHANS_LINE.findall((workdir / f"killed{round_}.log").read_text()))
        rng.shuffle(paths)
        final = crawl(h, paths, workdir, "final", store, SQLITE_SETTINGS, delivered)
    out.seconds += final.result.seconds
    orphans += int(final.stats.get("contentseen/orphans_discarded", 0))
    out.delivery = d = delivery(site, delivered)
    check_ended(out, final, "the re-crawl")
    check_delivery(out, d)
    if list(workdir.glob("*.inflight")):
        out.broken.append("the re-crawl, ended normally, left its journal of pages in flight")
    out.notes.append(f"killed after {', '.join(points)} items; {orphans} orphans discarded")
    if missed:
        out.notes.append(f"{missed} crawls ended before their kill point")
    elif orphans == 0:
        out.notes.append("no kill left a page in flight")
    if note := twice_note(d):
        out.notes.append(note)
    if n := error_lines(final):
        out.notes.append(f"{n} ERROR lines in the re-crawl")
    return out


def redis_crawl(site: Site, order: list[str], server: RedisServer, workdir: Path, name: str) -> tuple[Crawl, Delivery]:
    delivered = workdir / "delivered.txt"
    with host(site.pages, delay=REDIS_DELAY) as h:
        c = crawl(h, order, workdir, name, server.url, REDIS_SETTINGS, delivered)
    d = delivery(site, delivered)
    return c, d


def calm_redis(site: Site, order: list[str], workdir: Path) -> Outcome:
    out = Outcome("calm crawl (baseline)", "Redis")
    with RedisServer(workdir / "redis") as server:
        c, out.delivery = redis_crawl(site, order, server, workdir, "calm")
    out.seconds = c.result.seconds
    check_ended(out, c, "the calm crawl")
    check_delivery(out, out.delivery)
    out.notes.append(f"1 request at a time, {REDIS_DELAY} s each; store errors "
                     f"{c.stats.get('contentseen/store_errors', 0)}")
    return out


def frozen_redis(site: Site, order: list[str], workdir: Path) -> Outcome:
    out = Outcome(f"Redis frozen (SIGSTOP) {FREEZE_FOR_S:.0f} s, {FREEZE_AFTER_S:.0f} s in", "Redis",
                  baseline="calm crawl (baseline) Redis")
    with RedisServer(workdir / "redis") as server:
        timers = [threading.Timer(FREEZE_AFTER_S, server.proc.send_signal, (signal.SIGSTOP,)),
                  threading.Timer(FREEZE_AFTER_S + FREEZE_FOR_S, server.proc.send_signal, (signal.SIGCONT,))]
        for t in timers:
            t.start()
        try:
            c, out.delivery = redis_crawl(site, order, server, workdir, "frozen")
            frozen_at_end = timers[1].is_alive()
            timers[1].join()  # a crawl shorter than the freeze: the server thaws before it stops
        finally:
            for t in timers:
                t.cancel()
            server.proc.send_signal(signal.SIGCONT)
    out.seconds = c.result.seconds
    check_ended(out, c, "the crawl")
    check_delivery(out, out.delivery)
    s = c.stats
    out.notes.append(f"{s.get('contentseen/store_errors', 0)} store errors "
                     f"({s.get('contentseen/store_errors/skipped', 0)} skipped by the breaker)")
    if frozen_at_end:
        out.notes.append("the crawl ended before the server thawed")
    if note := twice_note(out.delivery):
        out.notes.append(note)
    return out


def restarted_redis(site: Site, order: list[str], workdir: Path) -> Outcome:
    out = Outcome(f"Redis restarted empty, {RESTART_AFTER_S:.0f} s in", "Redis", baseline="calm crawl (baseline) Redis")
    with RedisServer(workdir / "redis") as server:
        restart = threading.Timer(RESTART_AFTER_S, server.restart_empty)
        restart.start()
        try:
            c, out.delivery = redis_crawl(site, order, server, workdir / "first", "first")
        finally:
            restart.join()
        with host(site.pages, delay=REDIS_DELAY) as h:
            other = crawl(h, order[:3], workdir / "other", "other", server.url,
                          (*REDIS_SETTINGS, "CONTENTSEEN_BITS=128"), workdir / "other" / "delivered.txt")
    out.seconds = c.result.seconds
    check_ended(out, c, "the crawl")
    check_delivery(out, out.delivery)
    rewritten = "lost its scheme record" in c.log
    refused = other.returncode == 1 and "another fingerprint scheme" in other.log
    out.notes.append("scheme record written again" if rewritten else "scheme record NOT written again")
    out.notes.append("128-bit crawl refused (exit 1)" if refused else
                     f"128-bit crawl ACCEPTED (exit {other.returncode}, {len(other.items)} items)")
    if not refused:
        out.broken.append(f"a 128-bit crawl on the 64-bit store was not refused (exit {other.returncode})")
    if other.items or delivered_lines(workdir / "other" / "delivered.txt"):
        out.broken.append("the refused 128-bit crawl delivered pages")
    if n := c.stats.get("contentseen/store_errors", 0):
        out.notes.append(f"{n} store errors")
    if note := twice_note(out.delivery):
        out.notes.append(note)
    return out


def password_redis(site: Site, order: list[str], workdir: Path) -> Outcome:
    out = Outcome(f"password in the store URL, server killed {KILL_SERVER_AFTER_S:.0f} s in", "Redis",
                  baseline="calm crawl (baseline) Redis")
    password, wrong = "pw-" + secrets.token_hex(8), "wrong-" + secrets.token_hex(8)
    port = free_port()
    (workdir / "redis").mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", str(workdir / "redis"), "--requirepass", password],
                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 10
        while not _ping(port) and time.monotonic() < deadline:
            time.sleep(0.02)
        with host(site.pages, delay=REDIS_DELAY) as h:
            bad = crawl(h, order[:2], workdir / "wrong", "wrong", f"redis://:{wrong}@127.0.0.1:{port}/0",
                        REDIS_SETTINGS, workdir / "wrong" / "delivered.txt")
            killer = threading.Timer(KILL_SERVER_AFTER_S, server.kill)
            killer.start()
            try:
                c = crawl(h, order, workdir / "right", "right", f"redis://:{password}@127.0.0.1:{port}/0",
                          REDIS_SETTINGS, workdir / "right" / "delivered.txt")
            finally:
                killer.join()
    finally:
        server.kill()
        server.wait(10)
    out.seconds = c.result.seconds
    out.delivery = delivery(site, workdir / "right" / "delivered.txt")
    check_ended(out, c, "the crawl with the right password")
    check_delivery(out, out.delivery)
    log_lines = bad.log.splitlines() + c.log.splitlines()
    leaks = sum(1 for line in log_lines if password in line or wrong in line)
    other_files = [p for d in ("wrong", "right") for p in (workdir / d).rglob("*")
                   if p.is_file() and p.suffix != ".log"]
    file_leaks = sum(1 for p in other_files for line in p.read_text("utf-8", "replace").splitlines()
                     if password in line or wrong in line)
    out.notes.append(f"{leaks} of {len(log_lines)} log lines hold a password")
    if leaks or file_leaks:
        out.broken.append(f"a password is in {leaks} log lines and {file_leaks} lines of other files")
    if file_leaks:
        out.notes.append(f"{file_leaks} lines of other files hold one")
    masked = "redis://:***@127.0.0.1" in bad.log and "redis://:***@127.0.0.1" in c.log
    if not masked:
        out.notes.append("the masked URL is not in both logs")
    if bad.returncode == 1 and "ContentSeen cannot start: " in bad.log:
        out.notes.append("wrong password refused")
    else:
        out.broken.append(f"a crawl with a wrong password was not refused (exit {bad.returncode})")
    out.notes.append(f"{c.stats.get('contentseen/store_errors', 0)} store errors")
    if note := twice_note(out.delivery):
        out.notes.append(note)
    return out


# ------------------------------------------------------------------ main


def versions() -> str:
    import redis
    import scrapy

    server = subprocess.run([REDIS_SERVER, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"v=(\S+)", server)
    return (f"Python {platform.python_version()}, Scrapy {scrapy.__version__}, redis-py {redis.__version__}, "
            f"redis-server {m[1] if m else '?'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=300, help="distinct pages of the site (default 300; +20%% copies)")
    ap.add_argument("--kills", type=int, default=3, help="SIGKILLs before the re-crawl (default 3)")
    ap.add_argument("--seed", type=int, default=1, help="crawl orders and kill points (default 1)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory (logs, feeds, stores)")
    args = ap.parse_args(argv)
    if args.pages < 5 or args.kills < 0:
        ap.error("--pages must be at least 5 and --kills at least 0")
    if not REDIS_SERVER:
        ap.error("redis-server is not installed (apt-get install redis-server)")
    start = time.perf_counter()
    print(f"{versions()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)
    site = make_site(args.pages)
    print(f"site: {args.pages} pages + {args.pages // 5} identical copies + the index = {len(site.paths)} URLs, "
          f"{site.contents} contents; seed {args.seed}", flush=True)
    rng = random.Random(args.seed)
    order = list(site.paths)
    rng.shuffle(order)
    workdir = Path(tempfile.mkdtemp(prefix="contentseen-faults-"))
    scenarios = [
        ("calm-sqlite", lambda d: calm_sqlite(site, order, d)),
        ("killed-sqlite", lambda d: killed_sqlite(site, rng, args.kills, d)),
        ("calm-redis", lambda d: calm_redis(site, order, d)),
        ("frozen-redis", lambda d: frozen_redis(site, order, d)),
        ("restarted-redis", lambda d: restarted_redis(site, order, d)),
        ("password-redis", lambda d: password_redis(site, order, d)),
    ]
    outcomes: list[Outcome] = []
    try:
        for i, (name, run) in enumerate(scenarios, 1):
            print(f"{i}. {name} ...", end="", flush=True)
            d = workdir / f"{i}-{name}"
            d.mkdir()
            try:
                out = run(d)
            except Exception as exc:  # one fault's failure is a row, not the end of the run
                out = Outcome(name, "?", broken=[f"{name} failed: {type(exc).__name__}: {exc}"])
            outcomes.append(out)
            print(f" {out.seconds:.1f} s" + (f"; BROKEN: {'; '.join(out.broken)}" if out.broken else ""), flush=True)
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    seconds = {f"{o.fault} {o.store}": o.seconds for o in outcomes}
    rows = []
    for i, o in enumerate(outcomes, 1):
        d = o.delivery
        base = seconds.get(o.baseline) if o.baseline else None
        rows.append(dict(
            n=str(i), fault=o.fault, store=o.store,
            delivered=d.urls if d else "-", never=len(d.never) if d else "-", twice=d.twice if d else "-",
            seconds=f"{o.seconds:.1f}" if o.seconds else "-",
            lost=f"{o.seconds - base:+.1f}" if base is not None and o.seconds else "-",
            notes="; ".join(o.notes + [f"BROKEN: {b}" for b in o.broken]),
        ))
    print(f"\n{len(site.paths)} URLs, {site.contents} contents; seconds lost against the calm crawl of the same store")
    print_table(rows, [("n", "#"), ("fault", "fault"), ("store", "store"), ("delivered", "delivered"),
                       ("never", "never delivered"), ("twice", "delivered twice"), ("seconds", "seconds"),
                       ("lost", "lost"), ("notes", "notes")])
    broken = [b for o in outcomes for b in o.broken]
    print(f"\ninvariants: {'all held' if not broken else f'{len(broken)} BROKEN'}")
    for b in broken:
        print(f"  - {b}")
    print(f"\n(total {time.perf_counter() - start:.0f} s; load average at the end {os.getloadavg()[0]:.1f})")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
