"""The ±1 projection table of SimHash (the assignment's "hash value" table): one row per feature,
one column per fingerprint bit.

Either the first N rows and M columns of an ``hashvalue.txt``-format file ('1' -> +1, '0' -> -1),
or a deterministic built-in table: bit j of row i is bit 63 of splitmix64(seed + i * 2 + j // 64)
shifted by j % 64 -- i.e. row i is the 128-bit string of two splitmix64 outputs, MSB first, so a
table with fewer columns is a prefix of a wider one, and any N x M table is reproducible anywhere.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np

from .errors import ContentSeenError
from .tokens import read_text_file

MAX_BUILTIN_BITS = 128
BUILTIN_SEED = 0x5EED_C0DE_C0FF_EE00

_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def mix64(z: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser (Steele et al.; a bijection on uint64), vectorised, wrapping."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 output for counters ``x``."""
    with np.errstate(over="ignore"):
        return mix64(x + np.uint64(0x9E3779B97F4A7C15))


def builtin_hashtable(n: int, m: int, seed: int = BUILTIN_SEED) -> np.ndarray:
    """The deterministic built-in N x M table of ±1 (int8)."""
    if not 1 <= m <= MAX_BUILTIN_BITS:
        raise ContentSeenError(f"bits: {m} is out of range 1..{MAX_BUILTIN_BITS}")
    if n < 1:
        raise ContentSeenError(f"features: {n} must be a positive integer")
    counters = np.uint64(seed) + np.arange(2 * n, dtype=np.uint64)
    words = _splitmix64(counters).reshape(n, 2)
    shifts = np.arange(63, -1, -1, dtype=np.uint64)
    bits = ((words[:, :, None] >> shifts) & np.uint64(1)).reshape(n, 128)[:, :m]
    return (bits.astype(np.int8) * 2 - 1).astype(np.int8)


def parse_hashtable(data: bytes, n: int, m: int, name: str = "hash file") -> np.ndarray:
    """The first ``n`` rows and ``m`` columns of a 0/1 text table, as ±1 int8.

    Raises ContentSeenError naming ``name`` and the line when the file has too few rows, a row
    shorter than ``m``, or a character other than 0/1 in a used row.
    """
    lines = data.split(b"\n")
    if lines and lines[-1].strip() == b"":
        lines.pop()
    if len(lines) < n:
        raise ContentSeenError(f"{name}: has {len(lines)} rows, N={n} needs {n}")
    rows = [line.rstrip(b"\r") for line in lines[:n]]
    short = next((i for i, r in enumerate(rows) if len(r) < m), None)
    if short is not None:
        raise ContentSeenError(
            f"{name}: line {short + 1} has {len(rows[short])} columns, M={m} needs {m}"
        )
    used = b"".join(rows)
    bad = used.translate(None, b"01")
    if bad:
        line = next(i for i, r in enumerate(rows) if r.translate(None, b"01"))
        raise ContentSeenError(f"{name}: line {line + 1} holds {bad[:1]!r}; only 0 and 1 are allowed")
    arr = np.frombuffer(b"".join(r[:m] for r in rows), dtype=np.uint8).reshape(n, m)
    return ((arr == ord("1")).astype(np.int8) * 2 - 1).astype(np.int8)


def hashtable_shape(data: bytes) -> tuple[int, int]:
    """(rows, columns of the first row) of a 0/1 text table, for range checks of N and M."""
    lines = [ln.rstrip(b"\r") for ln in data.split(b"\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    return len(lines), (len(lines[0]) if lines else 0)


def load_hashtable(path: str | os.PathLike[str], n: int, m: int) -> np.ndarray:
    """Read the first ``n`` x ``m`` block of an ``hashvalue.txt``-format file."""
    name = f"hash file {os.fspath(path)}"
    return parse_hashtable(read_text_file(path, "hash file"), n, m, name)


def table_digest(table: np.ndarray) -> str:
    """A short stable digest of a table, stored with fingerprints so schemes never mix."""
    return hashlib.blake2b(
        np.ascontiguousarray(table, dtype=np.int8).tobytes() + repr(table.shape).encode(),
        digest_size=8,
    ).hexdigest()
