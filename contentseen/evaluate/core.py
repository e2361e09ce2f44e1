"""Evaluate a fingerprint scheme on pairs of pages: how far apart are duplicates, and others?

Every page goes through ``PageFingerprinter.of_html`` -- the middleware's own code path -- so
the numbers are those of a crawl under the same settings. Per pair: the Hamming distance of the
two fingerprints (none when a page is too short to fingerprint) and the truth (the pair's label,
and the Jaccard similarity of word 3-shingles of the visible text).

Within one host, pages of A go through a memory store (no all-pairs loop) in key order, as a
crawl in that order would see them: a page is *dropped* when the store finds an earlier page it
duplicates (``fingerprints.same_page``), and a *false drop* when that page is no near-duplicate of
it (Jaccard below ``low_jaccard``).
"""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

import numpy as np

from ..errors import ContentSeenError
from ..fingerprints import PageFingerprints, PageFingerprinter, Scheme, same_page
from ..engine import SECOND_LOOK_DISTANCE, second_look, shareable
from ..templates import HostTemplates, content_lines, whole_lines
from ..text import decode_html
from .inputs import Pair, PairSet, PageRef, looks_binary
from .mirror import LABELS
from .truth import html_shingles, jaccard

MAX_D = 8
# Jaccard bands for unlabelled pairs: (name, low, high) with low <= J < high (J = 1 exactly first).
BANDS = (
    ("J=1", 1.0, 2.0),
    ("J 0.9-1", 0.9, 1.0),
    ("J 0.8-0.9", 0.8, 0.9),
    ("J 0.5-0.8", 0.5, 0.8),
    ("J 0.2-0.5", 0.2, 0.5),
    ("J 0-0.2", 0.0, 0.2),
)
DUPLICATE_LABELS = ("identical", "near")
TARGETS = {"identical": 1.0, "near": 0.95, "different": 0.01, "within": 0.01}
WORST = 10

Make = Callable[[Scheme], Any]


@dataclass
class PairResult:
    key: str
    group: str
    duplicate: bool
    jaccard: float
    distance: int | None  # None: a page has no fingerprint
    words_a: int
    words_b: int
    fp_a: int | None
    dropped: bool  # both fingerprints agree (fingerprints.same_page)
    page_a: int | None = None  # page A's whole-page fingerprint
    page_distance: int | None = None  # of the whole-page fingerprints
    page_limit_a: int | None = None  # page A's own page distance, when it is checked (Scheme.page_limit)
    alone_a: int | None = None  # page A's fingerprint of its block alone (PageFingerprints.alone)
    b: PageFingerprints | None = None  # page B's fingerprints


@dataclass
class Row:
    group: str
    pairs: int = 0
    no_fp: int = 0
    dropped: int = 0
    hist: list[int] = field(default_factory=lambda: [0] * (MAX_D + 1))
    over: int = 0  # distance > MAX_D

    @property
    def rate(self) -> float:
        return self.dropped / self.pairs if self.pairs else 0.0


@dataclass
class Evaluation:
    scheme: Scheme
    source: str
    labelled: bool
    rows: list[Row]
    results: list[PairResult]
    skipped: list[tuple[str, str]]
    tp: int
    fp: int
    fn: int
    tn: int
    within: dict
    dup_jaccard: float
    low_jaccard: float
    only_a: int = 0
    only_b: int = 0
    errors: int = 0  # pages whose fingerprinting raised (each would go on unchecked)
    short: int = 0  # pages fingerprinted exactly (fewer than min_words content words)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def row(self, group: str) -> Row | None:
        return next((r for r in self.rows if r.group == group), None)

    def targets(self) -> list[tuple[str, str, float, bool]]:
        """(name, requirement, measured, met) of the issue's targets (labelled pairs only)."""
        if not self.labelled:
            return []
        out = []
        for label, need in (("identical", ">= 100%"), ("near", ">= 95%"), ("different", "<= 1%")):
            row = self.row(label)
            if row is None or not row.pairs:
                continue
            met = row.rate >= TARGETS[label] if label != "different" else row.rate <= TARGETS[label]
            out.append((f"{label} dropped", need, row.rate, met))
        w = self.within
        rate = w["false"] / w["pages"] if w["pages"] else 0.0
        out.append(("host a false drops", "<= 1%", rate, rate <= TARGETS["within"]))
        return out

    def worst(self, n: int = WORST) -> dict[str, list[PairResult]]:
        missed = [r for r in self.results if r.duplicate and not r.dropped]
        missed.sort(key=lambda r: (r.distance is not None, -(r.distance or 0), r.jaccard, r.key))
        false = [r for r in self.results if not r.duplicate and r.dropped]
        false.sort(key=lambda r: (r.jaccard, r.distance, r.key))
        return {"missed": missed[:n], "false": false[:n]}


# ----------------------------------------------------------------------------- workers

_WORKER: dict[str, Any] = {}


def _init(scheme: Scheme, make: Make | None) -> None:
    _WORKER["pages"] = make(scheme) if make else scheme.build()


def _page(pages: PageFingerprinter, ref: PageRef, truth: bool):
    data = ref.load()
    if looks_binary(data):
        return None
    html = decode_html(data, ref.content_type)  # = of_html_bytes, keeping the text for the truth
    try:
        texts = pages.extractor.texts(html)
        page, content = pages.of_texts(texts), content_lines(texts)
        lines = (content | whole_lines(texts), content if shareable(page, texts) else None)
    except Exception:  # as the engine does: the page goes on unchecked (counted)
        page = lines = None
    return page, lines, (html_shingles(html) if truth else None)


def _one_pair(pair: Pair) -> tuple:
    pages: PageFingerprinter = _WORKER["pages"]
    truth = pair.jaccard is None
    pa = _page(pages, pair.a, truth)
    pb = _page(pages, pair.b, truth)
    if pa is None or pb is None:
        return ("skip", pair.key, f"not HTML (binary data): {(pair.a if pa is None else pair.b).name}")
    (a, la, sa), (b, lb, sb) = pa, pb
    jac = pair.jaccard if not truth else jaccard(sa, sb)
    return ("ok", pair.key, a, b, jac, (la, lb))


def _shingles_of(ref: PageRef) -> np.ndarray:
    return html_shingles(decode_html(ref.load(), ref.content_type))


def _map(pairs: list[Pair], scheme: Scheme, make: Make | None, jobs: int) -> Iterable[tuple]:
    if jobs <= 1 or len(pairs) < 64:
        _init(scheme, make)
        return map(_one_pair, pairs)
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    pool = ctx.Pool(jobs, initializer=_init, initargs=(scheme, make))
    chunk = max(1, min(64, len(pairs) // (jobs * 8)))

    def run():
        try:
            yield from pool.imap(_one_pair, pairs, chunksize=chunk)
        finally:
            pool.terminate()
            pool.join()
    return run()


def default_jobs() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


# ----------------------------------------------------------------------------- evaluation

def group_of(label: str | None, jac: float) -> str:
    if label is not None:
        return label
    return next(name for name, lo, hi in BANDS if lo <= jac < hi)


def evaluate(
    pairset: PairSet,
    scheme: Scheme,
    *,
    make: Make | None = None,
    jobs: int = 1,
    dup_jaccard: float = 0.8,
    low_jaccard: float = 0.5,
    bands: bool = False,
    progress: Callable[[int, int], None] | None = None,
    templates: bool = True,
) -> Evaluation:
    """Fingerprint both pages of every pair under ``scheme`` and count.

    ``make(scheme)`` builds the fingerprinter (default ``scheme.build()``; benchmarks pass
    variants). The truth of a pair is its label when the pairs are labelled (identical and near
    are duplicates) and ``bands`` is off; else its Jaccard: a duplicate when >= ``dup_jaccard``.
    With ``templates`` (the middleware's default), both hosts' pages are also learned in key
    order, host A's first, and host B's given the engine's second look without their host's
    template lines (``second_looks``).
    """
    labelled = pairset.labelled and not bands
    results: list[PairResult] = []
    skipped: list[tuple[str, str]] = []
    by_key = {p.key: p for p in pairset.pairs}
    total = len(pairset.pairs)
    errors = short = 0
    none = PageFingerprints(None, 0, 0)
    lines: dict[str, tuple[frozenset[int] | None, frozenset[int] | None]] = {}
    content: dict[str, tuple[frozenset[int] | None, frozenset[int] | None]] = {}
    done = []
    for n, out in enumerate(_map(pairset.pairs, scheme, make, jobs), 1):
        if out[0] == "skip":
            skipped.append((out[1], out[2]))
        else:
            done.append(out)
            key, (la, lb) = out[1], out[5]
            lines[key] = (la and la[0], lb and lb[0])
            content[key] = (la and la[1], lb and lb[1])
        if progress and (n % 50 == 0 or n == total):
            progress(n, total)
    shared = shared_blocks(done, lines, content) if templates else set()
    for _, key, a, b, jac, _ in done:
        errors += (a is None) + (b is None)
        a, b = a or none, b or none
        a = replace(a, shared=True) if key in shared else a
        short += a.exact + b.exact
        label = by_key[key].label if labelled else None
        dup = label in DUPLICATE_LABELS if labelled else jac >= dup_jaccard
        fa, fb = a.fingerprint, b.fingerprint
        dist = None if fa is None or fb is None else (fa ^ fb).bit_count()
        page_dist = None if a.page is None or b.page is None else (a.page ^ b.page).bit_count()
        results.append(PairResult(key, group_of(label, jac), dup, jac, dist, a.word_count, b.word_count, fa,
                                  same_page(a, b, scheme), a.page, page_dist,
                                  scheme.page_limit(a, own_host=True),  # checked against host A's pages
                                  a.alone, b))
    if not results:
        example = f" (e.g. {skipped[0][0]}: {skipped[0][1]})" if skipped else ""
        raise ContentSeenError(f"no pairs to evaluate: all {len(skipped)} pairs were left out{example}")

    pages = (make(scheme) if make else scheme.build()) if templates else None
    seconds = second_looks(pairset, results, pages, lines) if pages is not None else {}
    for r in results:  # a B page dropped by its second look against its own pair's A page
        match = seconds.get(("b", r.key), (None,))[0]
        if match is not None and match.url == r.key:
            r.dropped = True
    order = list(LABELS) if labelled else [b[0] for b in BANDS]
    rows = {g: Row(g) for g in order}
    tp = fp = fn = tn = 0
    for r in results:
        row = rows[r.group]
        row.pairs += 1
        if r.distance is None:
            row.no_fp += 1
        elif r.distance <= MAX_D:
            row.hist[r.distance] += 1
        else:
            row.over += 1
        row.dropped += r.dropped
        if r.duplicate:
            tp += r.dropped
            fn += not r.dropped
        else:
            fp += r.dropped
            tn += not r.dropped
    within = within_host(pairset, results, scheme, low_jaccard, seconds)
    return Evaluation(
        scheme, pairset.source, labelled, [rows[g] for g in order if rows[g].pairs or labelled],
        results, skipped, tp, fp, fn, tn, within, dup_jaccard, low_jaccard,
        only_a=len(pairset.only_a) if not pairset.labelled else 0,
        only_b=len(pairset.only_b) if not pairset.labelled else 0,
        errors=errors, short=short,
    )


def shared_blocks(done: list[tuple], lines: dict, content: dict) -> set[str]:
    """The keys of host A's pages whose content block the engine finds on another page of host A
    (``HostTemplates.shared``, ``Engine.fingerprint``), learned in key order as a crawl of it
    would (only fingerprinted pages, ``engine.shareable``, are asked): checked against a
    page of their own host only as whole pages (``Engine.check``). Host B's pages are checked
    against host A's, as usual."""
    learner, out = HostTemplates(), set()
    for _, key, a, _, _, _ in sorted(done, key=lambda d: d[1]):
        seen = lines[key][0]
        if a is None or a.fingerprint is None or seen is None:
            continue
        learner.learn("a", seen)
        if content[key][0] is not None and learner.shared("a", content[key][0]):
            out.add(key)
    return out


def _memory_store(scheme: Scheme):
    from ..stores.memory import MemoryStore

    return MemoryStore("memory://", {}, scheme.bits, scheme.distance, page_distance=scheme.page_distance)


def _second_look(pages: PageFingerprinter, ref: PageRef, template: frozenset[int]) -> PageFingerprints | None:
    """The engine's second look at a page (``engine.second_look``): its fingerprints without the
    ``template`` lines."""
    try:
        second = second_look(pages, pages.extractor.texts(decode_html(ref.load(), ref.content_type)), template)
    except Exception:  # as the engine does: no second look
        return None
    return second.page if second is not None else None


_B = "\0b:"  # host B's pages in the simulated store (no key starts so): never another host's for B


def second_looks(pairset: PairSet, results: list[PairResult], pages: PageFingerprinter,
                 lines: dict[str, tuple[frozenset[int] | None, frozenset[int] | None]]) -> dict[tuple[str, str], tuple]:
    """The engine's second looks, as a crawl of host A and then host B in key order makes them
    (``Engine.fingerprint``): per ("b", key) of a page of host B holding lines of its host's
    template, (the match found or None, its fingerprints without them), looked up in a store of
    all of host A's pages and the host B pages kept before it, for those that match nothing there
    as they are (the engine answers the others with that match); a match on host B is no drop,
    and looks are made as ``HostTemplates.looking`` allows.
    Host A's pages are learned, but their second looks could meet only pages of their own host,
    which ``Engine.check`` never drops them against."""
    scheme = pages.scheme
    refs = {p.key: p for p in pairset.pairs}
    fingerprinted = {r.key: r for r in results}
    out: dict[tuple[str, str], tuple] = {}
    store = _memory_store(scheme)
    for r in results:
        if r.fp_a is not None:
            store.check_and_add(r.fp_a, r.key, r.page_a, page_distance=r.page_limit_a)
    learner = HostTemplates()  # one crawl: host A's pages, then host B's
    for host in ("a", "b"):
        for key in sorted(lines):
            page = lines[key][0 if host == "a" else 1]
            if page is None or key not in fingerprinted:
                continue
            template = learner.learn(host, page)
            if host == "a":  # a second look drops only against another host's page
                continue
            b = fingerprinted[key].b
            if b.fingerprint is None:
                continue
            looks, second = bool(template) and learner.looking(host), None
            if looks and not learner.copying(host):  # on trial, counted as Engine.fingerprint counts it
                second = _second_look(pages, refs[key].b, template)
                if second is not None:
                    learner.looked(host)
            limit = scheme.page_limit(b)
            match = store.lookup(b.fingerprint, b.page, page_distance=limit)
            if match is None and b.alone is not None:
                match = store.lookup(b.alone, b.page, page_distance=limit)
            if match is not None:  # the page as it is (or its block alone) matches: the engine answers that
                if not match.url.startswith(_B):
                    learner.copies(host)  # as Engine.judge
                continue
            if looks and second is None and learner.copying(host):
                second = _second_look(pages, refs[key].b, template)
            if second is not None:
                match = store.lookup(second.fingerprint, second.page, page_distance=scheme.page_limit(second))
                if match is not None and (match.distance > SECOND_LOOK_DISTANCE or match.url.startswith(_B)):
                    match = None  # as Engine.check: no drop
                out[(host, key)] = (match, second)
                if match is not None:
                    learner.copies(host)
                    continue  # dropped: nothing stored
            store.check_and_add(b.fingerprint, _B + key, b.page, page_distance=limit)  # kept: stored, as the engine does
    return out


def within_host(pairset: PairSet, results: list[PairResult], scheme: Scheme, low_jaccard: float,
                seconds: dict[tuple[str, str], tuple] | None = None) -> dict:
    """Host A's pages, in key order, through a memory store under the scheme's drop rule, as a
    crawl in that order would see them: a drop is false when the page's Jaccard with the page it
    was dropped against is below ``low_jaccard``. Host B's pages dropped by their second look
    against another page of host A than their pair's are counted the same way (``b/`` before
    their keys), a labelled copy by the better of its own Jaccard and its own page's on A."""
    seconds = seconds or {}
    fps = sorted((r.key, r.fp_a, r.page_a, r.page_limit_a, r.alone_a) for r in results if r.fp_a is not None)
    info = {"pages": len(results), "fingerprinted": len(fps), "dropped": 0, "false": 0, "cases": [],
            "template_dropped": 0, "by_own_page": 0}
    store = _memory_store(scheme)
    refs = {p.key: p.a for p in pairset.pairs}
    b_refs = {p.key: p.b for p in pairset.pairs}
    cache: dict[str, np.ndarray] = {}

    def sh(key: str) -> np.ndarray:
        if key not in cache:
            if len(cache) > 4096:
                cache.clear()
            cache[key] = _shingles_of(b_refs[key[2:]] if key.startswith("b/") else refs[key])
        return cache[key]

    def dropped(key: str, match_url: str, distance: int) -> None:
        info["dropped"] += 1
        j = jaccard(sh(key), sh(match_url))
        if j < low_jaccard:
            info["false"] += 1
            info["cases"].append({"a": match_url, "b": key, "distance": distance, "jaccard": round(j, 4)})

    for key, fp, page, limit, alone in fps:
        match = None
        if alone is not None:  # as Engine.check: the page as it is, then its block alone, looked up first
            match = store.lookup(fp, page, page_distance=limit) or store.lookup(alone, page, page_distance=limit)
        match = match or store.check_and_add(fp, key, page, page_distance=limit)
        if match is not None:
            dropped(key, match.url, match.distance)
    copies = {p.key for p in pairset.pairs if p.label in DUPLICATE_LABELS}
    for (host, key), (match, _) in sorted(seconds.items()):
        if match is not None and match.url != key:
            info["template_dropped"] += 1
            j = jaccard(sh(f"b/{key}"), sh(match.url))
            if j < low_jaccard and key in copies:
                # A copy of its own page on A (a mirror's banner on it, the truth counting the
                # banner's words) is dropped against a page its own page shares half its words
                # with: what its own page is dropped against, nothing of it lost.
                own = jaccard(sh(key), sh(match.url))
                info["by_own_page"] += own >= low_jaccard
                j = max(j, own)
            if j < low_jaccard:
                info["false"] += 1
                info["cases"].append({"a": match.url, "b": f"b/{key}", "distance": match.distance,
                                      "jaccard": round(j, 4)})
    info["cases"].sort(key=lambda c: (c["jaccard"], c["distance"]))
    info["cases"] = info["cases"][:WORST]
    return info
