"""Pieces the benchmarks share: sizes, planted bit flips, the printed table, the best of passes,
the Python documentation's pages."""

from __future__ import annotations

import time

import numpy as np

PYTHON_DOC = "/usr/share/doc/python3.*/html/**/*.html"  # python3.X-doc; python3-foo/html are other packages


def parse_size(text: str) -> int:
    """'1M' -> 1_000_000, '100k' -> 100_000, '5000' -> 5000."""
    text = text.strip().upper()
    mult = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("KM")) * mult)


def flips(rng: np.random.Generator, count: int, d: int) -> np.ndarray:
    """``count`` uint64 masks with exactly d one-bits each."""
    if d == 0:
        return np.zeros(count, dtype=np.uint64)
    pos = rng.random((count, 64)).argsort(axis=1)[:, :d].astype(np.uint64)
    return np.bitwise_or.reduce(np.uint64(1) << pos, axis=1)


def print_table(rows: list[dict], cols: list[tuple[str, str]]) -> None:
    """Print ``rows`` as a Markdown table of ``cols`` (key, heading); ints get thousands commas."""
    cells = [[h for _, h in cols]] + [
        [f"{r[c]:,}" if isinstance(r.get(c), int) else str(r.get(c, "-")) for c, _ in cols] for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(len(cols))]
    print()
    for j, line in enumerate(cells):
        print("| " + " | ".join(x.ljust(w) for x, w in zip(line, widths)) + " |")
        if j == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")

def timed(fn, args: list) -> tuple[list, np.ndarray, float]:
    """Call ``fn`` on each argument; answers, latencies (ns) and the wall time (s)."""
    lat = np.empty(len(args), dtype=np.int64)
    out = []
    clock = time.perf_counter_ns
    start = clock()
    for i, a in enumerate(args):
        t = clock()
        out.append(fn(a))
        lat[i] = clock() - t
    return out, lat, (clock() - start) / 1e9


def best(fn, items: list, repeat: int) -> float:
    """Seconds per item of ``fn``, best of ``repeat`` passes over all items."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for x in items:
            fn(x)
        times.append((time.perf_counter() - t) / len(items))
    return min(times)
