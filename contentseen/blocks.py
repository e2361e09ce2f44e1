"""Block keys of SimHash fingerprints: the key layout the stores persist.

Fingerprints follow :mod:`contentseen.simhash`: ``bits`` bits (1..128) as W = ceil(bits/64)
uint64 words, most significant word first, right-aligned. Bit *position* 0 is the most
significant bit of the ``bits``-bit string (the assignment's column 0).

Blocks (pigeonhole, Manku, Jain, Das Sarma, WWW 2007): split the ``bits`` positions into k+1
contiguous blocks, sizes as equal as possible, larger blocks first, block 0 at the most
significant end. Two fingerprints within Hamming distance k differ in at most k blocks, so they
agree exactly on at least one. When k >= bits every pair is within k; the plan is then a single
empty block whose key is always 0 (a lookup returns everything, which is the answer anyway).
:class:`BlockPlan` turns every block into an int64 key; the stores look up ``key_t = ?`` per
table and check the candidates by popcount, as :class:`contentseen.index.HammingIndex` does in
memory.
"""

from __future__ import annotations

import numpy as np

from .errors import ContentSeenError
from .simhash import from_int

__all__ = ["BlockPlan", "IndexConfigError"]

KEY_BITS = 62  # keys are 0 <= key < 2**62


class IndexConfigError(ContentSeenError, ValueError):
    """Bad ``bits``/``k`` or a fingerprint array of the wrong shape."""


def _check_bits_k(bits, k) -> tuple[int, int]:
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or not 1 <= bits <= 128:
        raise IndexConfigError(f"bits must be an integer in 1..128, got {bits!r}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k <= 8:
        raise IndexConfigError(f"k must be an integer in 0..8, got {k!r}")
    return int(bits), int(k)


def _block_widths(bits: int, k: int) -> list[int]:
    """k+1 contiguous blocks, as equal as possible, larger first; [0] when k >= bits."""
    if k >= bits:
        return [0]
    n = k + 1
    base, extra = divmod(bits, n)
    return [base + 1] * extra + [base] * (n - extra)


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


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finalizer (a bijection on uint64), vectorised."""
    z = z ^ (z >> np.uint64(30))
    z = z * np.uint64(0xBF58476D1CE4E5B9)
    z = z ^ (z >> np.uint64(27))
    z = z * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


class BlockPlan:
    """Persistent block layout for stores: one int64 key per block ("table") per fingerprint.

    Key of a block of width <= 62 is its value. A wider block (only when bits > 62*(k+1)) is
    reduced to 62 bits by a fixed hash (SplitMix64 of its high part, XOR its low 64 bits,
    SplitMix64 again, >> 2): equal blocks still give equal keys; unequal ones rarely collide,
    and candidates are verified by popcount anyway. Both rules belong to ``blocks-v1``.
    """

    VERSION = "blocks-v1"

    def __init__(self, bits: int, k: int):
        self.bits, self.k = _check_bits_k(bits, k)
        self.widths: tuple[int, ...] = tuple(_block_widths(self.bits, self.k))
        self.n_tables = len(self.widths)
        # integer bit index of each block's least significant bit
        los, top = [], self.bits
        for width in self.widths:
            top -= width
            los.append(top)
        self.los: tuple[int, ...] = tuple(los)
        self.words = (self.bits + 63) // 64
        self.description = f"{self.VERSION}:{self.bits}/{self.k}:" + ",".join(map(str, self.widths))

    def __repr__(self) -> str:
        return f"BlockPlan({self.bits}, {self.k})  # {self.description}"

    def __eq__(self, other) -> bool:
        return isinstance(other, BlockPlan) and other.description == self.description

    def __hash__(self) -> int:
        return hash(self.description)

    def block_values(self, fps: np.ndarray, t: int) -> np.ndarray:
        """Raw value of block ``t`` (width <= 64) for every row -> uint64 (n,)."""
        width = self.widths[t]
        if width == 0:
            return np.zeros(len(fps), dtype=np.uint64)
        return _extract(fps, self.los[t], width)

    def keys(self, fps: np.ndarray) -> np.ndarray:
        """Fingerprints (n, W) uint64 -> keys (n, n_tables) int64, each 0 <= key < 2**62."""
        fps = _as_words(fps, self.bits)
        n = fps.shape[0]
        out = np.zeros((n, self.n_tables), dtype=np.int64)
        for t, (width, lo) in enumerate(zip(self.widths, self.los)):
            if width == 0:
                continue
            if width <= KEY_BITS:
                out[:, t] = _extract(fps, lo, width).view(np.int64)
                continue
            low = _extract(fps, lo, min(width, 64))
            high = _extract(fps, lo + 64, width - 64) if width > 64 else np.zeros(n, dtype=np.uint64)
            h = _mix64(_mix64(high ^ np.uint64(width)) ^ low) >> np.uint64(64 - KEY_BITS)
            out[:, t] = h.view(np.int64)
        return out

    def query_keys(self, fp_words) -> np.ndarray:
        """One fingerprint's words (W,) (or an int) -> keys (n_tables,) int64."""
        if isinstance(fp_words, (int, np.integer)) and not isinstance(fp_words, bool):
            fp_words = _int_to_words(int(fp_words), self.bits)
        arr = np.asarray(fp_words, dtype=np.uint64).reshape(1, -1)
        return self.keys(arr)[0]


def _int_to_words(value: int, bits: int) -> np.ndarray:
    if value < 0 or value >> bits:
        raise IndexConfigError(f"fingerprint {value:#x} does not fit in {bits} bits")
    return from_int(value, bits)
