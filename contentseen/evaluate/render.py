"""An evaluation as a table for people, a JSON document for machines, a PNG histogram."""

from __future__ import annotations

from ..errors import ContentSeenError
from .core import MAX_D, Evaluation, PairResult


def scheme_line(ev: Evaluation) -> str:
    s = ev.scheme
    extra = "".join(
        f", {name} {value}" for name, value in (("stopwords", s.stopwords), ("hash table", s.hashvalues),
                                                 ("corpus", s.corpus)) if value
    )
    return (f"{s.bits} bits, distance {s.distance}, page distance {s.page_distance}, {s.features} features, "
            f"weighting {s.word_weighting}, extract {s.extract}, min {s.min_words} words{extra}")


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:5.1f}%" if d else "    -"


def table(ev: Evaluation, title: str | None = None) -> str:
    """The per-group table with distance counts 0..8, then P/R, within-host drops, targets."""
    rule = f"content within {ev.scheme.distance} and whole page within {ev.scheme.page_distance}"
    lines = []
    if title:
        lines.append(title)
    lines.append(f"pairs: {ev.source}  [{scheme_line(ev)}]")
    head = f"{'truth':<11} {'pairs':>6} {'no fp':>6} {'dropped':>15} " + " ".join(
        f"{('d=' if d == 0 else '') + str(d):>5}" for d in range(MAX_D + 1)) + f" {'>8':>5}"
    lines.append(head)
    for r in ev.rows:
        cells = " ".join(f"{n:>5}" for n in r.hist)
        lines.append(f"{r.group:<11} {r.pairs:>6} {r.no_fp:>6} {r.dropped:>7} {_pct(r.dropped, r.pairs):>7} {cells} {r.over:>5}")
    truth = "identical+near" if ev.labelled else f"Jaccard >= {ev.dup_jaccard:g}"
    lines.append(f"dropped ({rule}) vs truth ({truth}): precision {ev.precision:.3f}, "
                 f"recall {ev.recall:.3f} (tp {ev.tp}, fp {ev.fp}, fn {ev.fn}, tn {ev.tn})")
    w = ev.within
    lines.append(
        f"within host a: {w['dropped']} of {w['pages']} pages dropped as copies of an earlier page of a, "
        f"{w['false']} of them false drops (Jaccard < {ev.low_jaccard:g}): {_pct(w['false'], w['pages']).strip()}"
    )
    targets = ev.targets()
    if targets:
        lines.append("targets: " + "; ".join(
            f"{name} {100 * value:.1f}% ({need}) {'ok' if met else 'MISSED'}" for name, need, value, met in targets))
    if ev.skipped:
        key, why = ev.skipped[0]
        lines.append(f"left out: {len(ev.skipped)} pairs (e.g. {key}: {why})")
    if ev.only_a or ev.only_b:
        lines.append(f"unpaired: {ev.only_a} pages only in a, {ev.only_b} only in b")
    lines.append(f"pages fingerprinted exactly (fewer than {ev.scheme.min_words} words): {ev.short}; "
                 f"pages that could not be fingerprinted (errors): {ev.errors}")
    return "\n".join(lines)


def _case(r: PairResult) -> str:
    dist = f"distance {r.distance}" if r.distance is not None else f"no fingerprint ({min(r.words_a, r.words_b)} words)"
    return f"{r.group:<10} {dist:<28} Jaccard {r.jaccard:.3f}  a/{r.key}  b/{r.key}"


def worst(ev: Evaluation, n: int = 10) -> str:
    w = ev.worst(n)
    lines = []
    if w["missed"]:
        lines.append("duplicates not dropped (worst first):")
        lines += ["  " + _case(r) for r in w["missed"]]
    if w["false"]:
        lines.append("non-duplicates dropped (worst first):")
        lines += ["  " + _case(r) for r in w["false"]]
    if ev.within["cases"]:
        lines.append("false drops within host a (worst first):")
        lines += [f"  distance {c['distance']}  Jaccard {c['jaccard']:.3f}  a/{c['b']} ~ a/{c['a']}"
                  for c in ev.within["cases"][:n]]
    if not lines:
        lines.append("no worst cases: every duplicate dropped, nothing else dropped")
    return "\n".join(lines)


def to_json(ev: Evaluation, n: int = 10) -> dict:
    s = ev.scheme
    w = ev.worst(n)

    def case(r: PairResult) -> dict:
        return {"path": r.key, "truth": r.group, "distance": r.distance, "page_distance": r.page_distance,
                "jaccard": round(r.jaccard, 4), "words_a": r.words_a, "words_b": r.words_b}

    return {
        "source": ev.source,
        "scheme": {"bits": s.bits, "distance": s.distance, "page_distance": s.page_distance,
                   "features": s.features, "stopwords": s.stopwords,
                   "hashvalues": s.hashvalues, "corpus": s.corpus, "extract": s.extract,
                   "min_words": s.min_words, "weighting": s.word_weighting},
        "truth": "label" if ev.labelled else f"jaccard>={ev.dup_jaccard}",
        "groups": [{"truth": r.group, "pairs": r.pairs, "no_fingerprint": r.no_fp, "dropped": r.dropped,
                    "dropped_rate": round(r.rate, 6), "distances": {str(d): c for d, c in enumerate(r.hist)},
                    "over_8": r.over} for r in ev.rows],
        "precision": round(ev.precision, 6),
        "recall": round(ev.recall, 6),
        "confusion": {"tp": ev.tp, "fp": ev.fp, "fn": ev.fn, "tn": ev.tn},
        "within_host_a": {**ev.within, "false_rate": round(ev.within["false"] / ev.within["pages"], 6)
                          if ev.within["pages"] else 0.0, "low_jaccard": ev.low_jaccard},
        "targets": [{"name": name, "need": need, "value": round(value, 6), "met": met}
                    for name, need, value, met in ev.targets()],
        "worst": {"missed": [case(r) for r in w["missed"]], "false": [case(r) for r in w["false"]]},
        "left_out": [{"path": k, "why": why} for k, why in ev.skipped],
        "unpaired": {"a": ev.only_a, "b": ev.only_b},
        "pages_exact": ev.short,
        "pages_errors": ev.errors,
    }


def plot_module():
    """matplotlib's pyplot (Agg backend); ContentSeenError when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ContentSeenError("--plot needs matplotlib (pip install 'contentseen[plot]')") from None
    return plt


def plot(ev: Evaluation, path: str) -> None:
    """Write a histogram of distance per truth group to ``path`` (PNG)."""
    plt = plot_module()
    bits = ev.scheme.bits
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=110)
    edges = [x - 0.5 for x in range(bits + 2)]
    for row in ev.rows:
        ds = [r.distance for r in ev.results if r.group == row.group and r.distance is not None]
        if ds:
            ax.hist(ds, bins=edges, histtype="step", linewidth=1.6, label=f"{row.group} ({len(ds)})")
    ax.axvline(ev.scheme.distance + 0.5, color="k", linestyle="--", linewidth=1,
               label=f"distance {ev.scheme.distance}: dropped to the left")
    ax.set_xlim(-0.5, max(bits * 0.6, 12))
    ax.set_xlabel(f"Hamming distance of the pair's fingerprints ({bits} bits)")
    ax.set_ylabel("pairs")
    ax.set_yscale("symlog", linthresh=10)
    ax.set_title(f"contentseen-evaluate: {scheme_line(ev)}", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
