"""Block keys of SimHash fingerprints: the key layout the stores persist.

Fingerprints follow :mod:`contentseen.simhash`: ``bits`` bits (1..128) as W = ceil(bits/64)
uint64 words, most significant word first, right-aligned. Bit *position* 0 is the most
significant bit of the ``bits``-bit string (the assignment's column 0).

Blocks and tables (Manku, Jain, Das Sarma, WWW 2007): split the ``bits`` positions into m >= k+1
contiguous blocks, sizes as equal as possible, larger blocks first, block 0 at the most
significant end. Two fingerprints within Hamming distance k differ in at most k blocks, so they
agree exactly on at least m-k of them: every choice of m-k blocks is a *table*, keyed by those
blocks side by side, and a near pair shares the key of at least one table. m = k+1 is one table
per block (``blocks-v1``, few tables of narrow keys: each probe meets about n / 2^(bits/(k+1))
candidates); more blocks give C(m, m-k) tables of wider keys, so a probe meets about
n / 2^((m-k) bits/m) (``blocks-v2``). :func:`plan_for` picks m from the number of fingerprints
a store expects. When k >= bits every pair is within k; the plan is then a single empty block
whose key is always 0 (a lookup returns everything, which is the answer anyway).
:class:`BlockPlan` turns every table into an int64 key; the stores look up ``key_t = ?`` per
table and check the candidates by popcount, as :class:`contentseen.index.HammingIndex` does in
memory.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

from .errors import ContentSeenError
from .projection import mix64
from .simhash import MAX_BITS, MAX_K, from_int

__all__ = ["BlockPlan", "DEFAULT_EXPECTED", "IndexConfigError", "plan_for"]

KEY_BITS = 62  # keys are 0 <= key < 2**62
MAX_TABLES = 64  # C(m, m-k) grows fast with m; more tables than this cost more than they save
DEFAULT_EXPECTED = 100_000_000  # fingerprints a store is laid out for unless told otherwise
# plan_for's cost model, in candidates: one more table costs about as much as this many more
# candidates met by a lookup. Measured on SQLite at 1M (benchmarks/store.py --plans): a table
# costs ~1.4 us to probe and ~10 us to insert into, a candidate 0.1 us while the store is cached
# and ~0.5 us at 10M; a table also costs 20-45 bytes per fingerprint.
PROBE_COST = 24.0


class IndexConfigError(ContentSeenError, ValueError):
    """Bad ``bits``/``k``/blocks or a fingerprint array of the wrong shape."""


def _check_int(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise IndexConfigError(f"{name} must be an integer in {lo}..{hi}, got {value!r}")
    return int(value)


def _check_bits_k(bits, k) -> tuple[int, int]:
    return _check_int("bits", bits, 1, MAX_BITS), _check_int("k", k, 0, MAX_K)


def _block_widths(bits: int, m: int) -> list[int]:
    """m contiguous blocks, as equal as possible, larger first."""
    base, extra = divmod(bits, m)
    return [base + 1] * extra + [base] * (m - extra)


def _as_words(fps, bits: int, name: str = "fps") -> np.ndarray:
    """Fingerprints -> C-contiguous uint64 (n, W). Accepts (n,) when W == 1."""
    w = (bits + 63) // 64
    arr = np.asarray(fps)
    if arr.dtype != np.uint64:
        if arr.dtype.kind not in "iu":
            raise IndexConfigError(f"{name} must be uint64 words, got dtype {arr.dtype}")
        arr = arr.astype(np.uint64)
    if arr.ndim == 1 and w == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] != w:
        raise IndexConfigError(f"{name} must have shape (n, {w}) for {bits}-bit fingerprints, got {arr.shape}")
    return np.ascontiguousarray(arr)


def _extract(words: np.ndarray, lo: int, width: int, out: np.ndarray | None = None) -> np.ndarray:
    """Integer bits [lo, lo+width) (width 1..64) of every row of ``words`` (n, W) -> uint64 (n,),
    written into ``out`` when given (a scratch array, to spare fresh memory on big builds)."""
    w = words.shape[1]
    j, off = divmod(lo, 64)
    col = w - 1 - j
    if out is None:
        out = np.empty(len(words), dtype=np.uint64)
    if off:
        np.right_shift(words[:, col], np.uint64(off), out=out)
        if off + width > 64:
            out |= words[:, col - 1] << np.uint64(64 - off)
    else:
        out[...] = words[:, col]
    if width < 64:
        np.bitwise_and(out, np.uint64((1 << width) - 1), out=out)
    return out


# (lo, mask, shift) pieces: a value is sum(((fp >> lo) & mask) << shift) over its pieces
Pieces = tuple[tuple[int, int, int], ...]


class BlockPlan:
    """Persistent block layout for stores: one int64 key per table per fingerprint.

    ``blocks`` (m, default k+1) splits the bits; every choice of m-k blocks is a table
    (``tables[t]``: its block numbers, ascending). A table's key is its blocks side by side,
    block order (so its first block is its most significant part); one of at most 62 bits is
    that value. A wider one (only when its blocks hold more than 62 bits) is reduced to 62 bits
    by a fixed hash (SplitMix64 of its high part XOR its width, XOR its low 64 bits, SplitMix64
    again, >> 2): equal blocks still give equal keys; unequal ones rarely collide, and
    candidates are verified by popcount anyway. With m = k+1 these are the rules of
    ``blocks-v1``; with more blocks, of ``blocks-v2``.
    """

    def __init__(self, bits: int, k: int, blocks: int | None = None):
        self.bits, self.k = _check_bits_k(bits, k)
        if self.k >= self.bits:  # every pair is within k: one empty block
            if blocks not in (None, 1):
                raise IndexConfigError(f"{self.bits}-bit fingerprints within {self.k} need no blocks, got {blocks!r}")
            m, widths, tables = 1, [0], [(0,)]
        else:
            m = self.k + 1 if blocks is None else _check_int("blocks", blocks, self.k + 1, self.bits)
            if self.k == 0:
                m = 1  # one table of every block is the whole fingerprint, however it is split
            if comb(m, m - self.k) > MAX_TABLES:
                raise IndexConfigError(f"{m} blocks within {self.k} make {comb(m, m - self.k)} tables "
                                       f"(at most {MAX_TABLES})")
            widths = _block_widths(self.bits, m)
            tables = list(combinations(range(m), m - self.k))
        self.blocks = m
        self.widths: tuple[int, ...] = tuple(widths)  # of the blocks
        los, top = [], self.bits
        for width in self.widths:
            top -= width
            los.append(top)
        self.los: tuple[int, ...] = tuple(los)  # integer bit index of each block's least significant bit
        self.tables: tuple[tuple[int, ...], ...] = tuple(tables)
        self.n_tables = len(self.tables)
        self.table_widths: tuple[int, ...] = tuple(sum(self.widths[b] for b in tb) for tb in self.tables)
        self.words = (self.bits + 63) // 64
        self._pieces = [self.prefix_pieces(t, w) if w <= KEY_BITS else None
                        for t, w in enumerate(self.table_widths)]
        joined = ",".join(map(str, self.widths))
        if m == self.k + 1 or self.k >= self.bits or self.k == 0:
            self.description = f"blocks-v1:{self.bits}/{self.k}:{joined}"
        else:
            self.description = f"blocks-v2:{self.bits}/{self.k}:{joined}:choose-{m - self.k}"

    def __repr__(self) -> str:
        return f"BlockPlan({self.bits}, {self.k}, blocks={self.blocks})  # {self.description}"

    def __eq__(self, other) -> bool:
        return isinstance(other, BlockPlan) and other.description == self.description

    def __hash__(self) -> int:
        return hash(self.description)

    def candidates(self, n: float) -> float:
        """Expected fingerprints a lookup meets in its tables' buckets among ``n`` random ones."""
        return sum(min(n, n / 2.0 ** w) for w in self.table_widths)

    def prefix_pieces(self, t: int, d: int) -> Pieces:
        """The top ``d`` bits (d <= 64) of table ``t``'s blocks side by side, as pieces."""
        pieces, left = [], d
        for b in self.tables[t]:
            if left <= 0:
                break
            take = min(left, self.widths[b])
            left -= take
            pieces.append((self.los[b] + self.widths[b] - take, (1 << take) - 1, left))
        return tuple(pieces)

    def prefix(self, fps: np.ndarray, pieces: Pieces, out: np.ndarray | None = None) -> np.ndarray:
        """``pieces`` (of ``prefix_pieces``) of every row of ``fps`` (n, W) -> uint64 (n,)."""
        if out is None:
            out = np.empty(len(fps), dtype=np.uint64)
        out[...] = 0
        for lo, mask, shift in pieces:
            part = _extract(fps, lo, mask.bit_length())
            out |= part << np.uint64(shift) if shift else part
        return out

    def keys(self, fps: np.ndarray) -> np.ndarray:
        """Fingerprints (n, W) uint64 -> keys (n, n_tables) int64, each 0 <= key < 2**62."""
        fps = _as_words(fps, self.bits)
        n = fps.shape[0]
        out = np.zeros((n, self.n_tables), dtype=np.int64)
        for t, width in enumerate(self.table_widths):
            if width == 0:
                continue
            if width <= KEY_BITS:
                out[:, t] = self.prefix(fps, self._pieces[t]).view(np.int64)
                continue
            high, low = self._wide(fps, t)
            h = mix64(mix64(high ^ np.uint64(width)) ^ low) >> np.uint64(64 - KEY_BITS)
            out[:, t] = h.view(np.int64)
        return out

    def _wide(self, fps: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Table ``t``'s blocks side by side as 128-bit (high, low) uint64 halves."""
        n = len(fps)
        (first, *rest) = self.tables[t]
        width = self.widths[first]
        if width > 64:  # a single block
            return _extract(fps, self.los[first] + 64, width - 64), _extract(fps, self.los[first], 64)
        high, low = np.zeros(n, dtype=np.uint64), _extract(fps, self.los[first], width)
        for b in rest:  # blocks of at most 64 bits: there are at least two
            s, value = self.widths[b], _extract(fps, self.los[b], self.widths[b])
            if s == 64:
                high, low = low, value
            else:
                high = (high << np.uint64(s)) | (low >> np.uint64(64 - s))
                low = (low << np.uint64(s)) | value
        return high, low

    def int_keys(self, fingerprint: int) -> list[int]:
        """One fingerprint (an int that fits) -> its keys, a list of ints (no numpy when every
        table is at most 62 bits: the stores' per-page path)."""
        keys = []
        for t, pieces in enumerate(self._pieces):
            if pieces is None:
                return [int(key) for key in self.query_keys(fingerprint)]
            keys.append(sum(((fingerprint >> lo) & mask) << shift for lo, mask, shift in pieces))
        return keys

    def query_keys(self, fp_words) -> np.ndarray:
        """One fingerprint's words (W,) (or an int) -> keys (n_tables,) int64."""
        if isinstance(fp_words, (int, np.integer)) and not isinstance(fp_words, bool):
            fp_words = _int_to_words(int(fp_words), self.bits)
        arr = np.asarray(fp_words, dtype=np.uint64).reshape(1, -1)
        return self.keys(arr)[0]


def plan_for(bits: int, k: int, expected: int = DEFAULT_EXPECTED) -> BlockPlan:
    """The plan of least cost for a store of ``expected`` fingerprints: each table probed costs
    ``PROBE_COST`` candidates, plus the candidates met (``BlockPlan.candidates``), over m = k+1
    to k+4 blocks; on a tie, fewer tables. With 64 bits and k = 3: 4 tables (16-bit keys) up to
    2.4M fingerprints, 10 tables (5 blocks, two per table: 25-26-bit keys) up to 1.2B, then 20
    (6 blocks, three per table: 31-33-bit keys)."""
    bits, k = _check_bits_k(bits, k)
    expected = _check_int("expected fingerprints", expected, 1, 1 << 62)
    best, best_cost = None, 0.0
    for m in range(k + 1, min(bits, k + 4) + 1) if k < bits else [None]:
        if m is not None and comb(m, m - k) > MAX_TABLES:
            break
        plan = BlockPlan(bits, k, m)
        cost = plan.n_tables * PROBE_COST + plan.candidates(expected)
        if best is None or cost < best_cost:
            best, best_cost = plan, cost
    return best


def _int_to_words(value: int, bits: int) -> np.ndarray:
    if value < 0 or value >> bits:
        raise IndexConfigError(f"fingerprint {value:#x} does not fit in {bits} bits")
    return from_int(value, bits)
