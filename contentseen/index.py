"""Hamming-distance lookup of SimHash fingerprints in memory: :class:`HammingIndex`.

Fingerprints and blocks as in :mod:`contentseen.blocks` (whose :class:`BlockPlan` is the stores'
persistent key layout); here every table of a plan is sorted in memory, candidates verified by
popcount.
"""

from __future__ import annotations

import operator

import numpy as np

from .blocks import BlockPlan, IndexConfigError, _as_words, _int_to_words

__all__ = ["BlockPlan", "HammingIndex", "IndexConfigError"]

_M64 = 0xFFFFFFFFFFFFFFFF

# ---------------------------------------------------------------- in-memory index

_BUFFER = 2048  # unsorted append buffer, scanned by brute force; flushed into a segment when full
_GROWTH = 8  # consecutive segments differ in size by more than this factor (LSM levelling)
_DIR_MAX_BITS = 26  # directory of one table has at most 2**26 + 1 entries (segments of 2**29)
_NO_IDS = np.empty(0, dtype=np.int64)
_SMALL = 64  # results up to this size are sorted and de-duplicated in plain Python


def _dir_bits(size: int) -> int:
    """Directory bits for a segment of ``size`` entries: about size/8 buckets (>= 1 entry each)."""
    return max(1, min(_DIR_MAX_BITS, size.bit_length() - 3))


def _ranges(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate the ranges [starts[i], ends[i]) -> (owner i of each element, the element)."""
    counts = (ends - starts).astype(np.int64)
    total = int(counts.sum())
    owner = np.repeat(np.arange(len(counts)), counts)
    shift = starts.astype(np.int64) - (np.cumsum(counts) - counts)
    return owner, np.arange(total, dtype=np.int64) + np.repeat(shift, counts)


def _fold16(fps: np.ndarray) -> np.ndarray:
    """XOR of all 16-bit chunks of every fingerprint (n, W) -> uint16 (n,).

    Linear over XOR and never adds one-bits, so fold16(a) ^ fold16(b) = fold16(a ^ b) has at
    most hamming(a, b) one-bits: entries whose fold is more than k away can be skipped."""
    chunks = np.ascontiguousarray(fps).view(np.uint16)  # (n, 4W); the order of chunks is irrelevant
    out = chunks[:, 0] ^ chunks[:, 1]
    for j in range(2, chunks.shape[1]):
        out ^= chunks[:, j]
    return out


def _probe(value: int, words: int):
    """The query as numpy operand: a np.uint64 (one word) or its words (W,)."""
    if words == 1:
        return np.uint64(value)
    return np.array([(value >> (64 * (words - 1 - i))) & _M64 for i in range(words)], dtype=np.uint64)


def _fold16_int(value: int) -> int:
    while value >> 16:
        value = (value & 0xFFFF) ^ (value >> 16)
    return value


class _Segment:
    """An immutable sorted part of the index, with the tables of the index's plan.

    ``fps``/``ids`` are sorted by table 0's key, so table 0's ranges index them directly; table
    t >= 1 has ``perms[t-1]``, the uint32 positions sorted by its key. ``dirs[t]`` (uint32,
    2**d + 1 entries) maps the top d bits of table t's key (``pieces[t]``) to a range. Aligned with every table,
    ``checks[t]`` holds each entry's 16-bit fold (see ``_fold16``): a query reads its range of
    checks (contiguous) and fetches at random only the ~1% of fingerprints that pass. Entries
    are tombstoned through ``alive``.
    """

    __slots__ = ("fps", "flat", "ids", "size", "pieces", "masks", "dirs", "views", "perms", "checks",
                 "alive", "alive_view", "id_view", "fp_view", "perm_views", "tables", "dead", "_id_sorted", "_id_order")

    def __init__(self, index: "HammingIndex", fps: np.ndarray, ids: np.ndarray):
        self.size = n = len(ids)
        if n >= 1 << 32:
            raise IndexConfigError("a segment holds fewer than 2**32 fingerprints")
        self.alive = self.alive_view = None
        self.dead = 0
        self._id_sorted = self._id_order = None
        self.pieces, self.masks, self.dirs, self.perms, self.checks = [], [], [], [], []
        plan = index.plan
        # A table's directory key is the top d bits of its full key (``HammingIndex._keys``):
        # a query computes each full key once and shifts it right by ``width - d`` per segment.
        drops: list[int] = []
        if index._scan_only:
            self.fps, self.ids = fps.copy(), ids.copy()
            self.checks.append(_fold16(fps))
        else:
            cap = _dir_bits(n)
            keys = []
            scratch = np.empty(n, dtype=np.uint64)
            for t, width in enumerate(plan.table_widths):
                d = min(width, cap)
                drops.append(width - d)
                self.pieces.append(plan.prefix_pieces(t, d))
                self.masks.append((1 << d) - 1)
                key = plan.prefix(fps, self.pieces[t], out=scratch)
                keys.append(key.astype(np.uint16 if d <= 16 else np.uint32))
            del scratch
            order = np.argsort(keys[0], kind="stable")
            self.fps = fps[order]
            self.ids = ids[order]
            del fps, ids
            check = _fold16(self.fps)
            for t, key in enumerate(keys):
                key = key[order]
                counts = np.bincount(key, minlength=self.masks[t] + 1)
                directory = np.zeros(len(counts) + 1, dtype=np.uint32)
                np.cumsum(counts, out=directory[1:])
                self.dirs.append(directory)
                if t:
                    perm = np.argsort(key, kind="stable")
                    self.checks.append(check[perm])
                    self.perms.append(perm.astype(np.uint32))
                    del perm
                else:
                    self.checks.append(check)
        self.flat = self.fps[:, 0] if self.fps.shape[1] == 1 else None
        # indexing a memoryview gives a Python int, much faster than indexing the array
        self.views = [memoryview(d) for d in self.dirs]
        self.perm_views = [memoryview(p) for p in self.perms]
        # per table, what a single query needs: (key shift, directory, checks, perm or None)
        self.tables = list(zip(drops, self.views, self.checks, [None] + self.perm_views))
        self.id_view = memoryview(self.ids)
        self.fp_view = memoryview(self.fps.reshape(-1))

    @property
    def nbytes(self) -> int:
        arrays = [self.fps, self.ids, *self.dirs, *self.perms, *self.checks, self.alive,
                  self._id_sorted, self._id_order]
        return sum(a.nbytes for a in arrays if a is not None)

    def _dist(self, pos, probe) -> np.ndarray:
        """Distances from ``probe`` (a np.uint64, or words) to the entries at ``pos`` (a slice
        or an index array); with an array of probes, row i against entry i."""
        if self.flat is not None:
            return np.bitwise_count(self.flat[pos] ^ probe)
        return np.bitwise_count(self.fps[pos] ^ probe).sum(axis=1, dtype=np.uint8)

    def verify(self, pos: np.ndarray, q_int: int, k: int):
        """numpy path of a query: the live entries among positions ``pos`` (int64, maybe
        repeated) that are within k -> (ids, distances) arrays, each entry once."""
        dist = self._dist(pos, _probe(q_int, self.fps.shape[1]))
        sel = (dist <= k).nonzero()[0]
        pos, dist = pos[sel], dist[sel]
        if len(pos) > 1:
            # an entry that agrees with the query on several blocks comes from several tables
            pos, first = np.unique(pos, return_index=True)
            dist = dist[first]
        if self.alive is not None and len(pos):
            live = self.alive[pos]
            pos, dist = pos[live], dist[live]
        return self.ids[pos], dist

    def search_many(self, plan: BlockPlan, qfps: np.ndarray, qchecks: np.ndarray, lut: np.ndarray, k: int):
        """Live entries within k of each of the queries ``qfps`` (Q, W) (folds ``qchecks``),
        vectorised over the queries -> (query number, position, distance), each pair once."""
        probes = qfps[:, 0] if self.flat is not None else qfps
        out_q, out_p, out_d = [], [], []
        if not self.dirs:  # scan-only plan: a distance matrix, a block of queries at a time
            step = max(1, (1 << 22) // max(1, self.size))
            for lo in range(0, len(qfps), step):
                pr = probes[lo : lo + step]
                if self.flat is not None:
                    dist = np.bitwise_count(self.flat[None, :] ^ pr[:, None])
                else:
                    dist = np.bitwise_count(self.fps[None, :, :] ^ pr[:, None, :]).sum(axis=2, dtype=np.uint8)
                qi, pos = (dist <= k).nonzero()
                out_q.append(qi + lo)
                out_p.append(pos)
                out_d.append(dist[qi, pos])
        else:
            for t, directory in enumerate(self.dirs):
                key = plan.prefix(qfps, self.pieces[t]).astype(np.int64)
                owner, off = _ranges(directory[key], directory[key + 1])
                keep = lut.take(self.checks[t].take(off) ^ qchecks.take(owner)).nonzero()[0]
                owner = owner[keep]
                pos = self.perms[t - 1][off[keep]].astype(np.int64) if t else off[keep]
                dist = self._dist(pos, probes[owner])
                keep = (dist <= k).nonzero()[0]
                out_q.append(owner[keep])
                out_p.append(pos[keep])
                out_d.append(dist[keep])
        owner, pos, dist = np.concatenate(out_q), np.concatenate(out_p), np.concatenate(out_d)
        if len(self.dirs) > 1 and len(pos) > 1:
            _, first = np.unique((owner.astype(np.int64) << 32) | pos, return_index=True)
            owner, pos, dist = owner[first], pos[first], dist[first]
        if self.alive is not None and len(pos):
            live = self.alive[pos]
            owner, pos, dist = owner[live], pos[live], dist[live]
        return owner, pos, dist

    def id_lookup(self, remove: np.ndarray) -> np.ndarray:
        """Positions of the entries whose id is in ``remove`` (sorted unique int64)."""
        if self._id_order is None:
            self._id_order = np.argsort(self.ids, kind="stable").astype(np.uint32)
            self._id_sorted = self.ids[self._id_order]
        lo = np.searchsorted(self._id_sorted, remove, "left")
        hi = np.searchsorted(self._id_sorted, remove, "right")
        owner, off = _ranges(lo, hi)
        return self._id_order[off].astype(np.int64)


class HammingIndex:
    """In-memory index of fingerprints with ids: who is within Hamming distance ``k``?

    Layout (Manku, Jain, Das Sarma, WWW 2007, the tables of a :class:`BlockPlan`, by default
    one per block; ``plan=plan_for(bits, k, n)`` for more tables of wider keys):
    entries live in an LSM-style list of immutable sorted segments, each more than 8x the size
    of the next, plus an unsorted append buffer (2048 entries) that becomes a segment when full.
    A segment keeps fingerprints and ids sorted by table 0's key and, per further table, a
    uint32 permutation sorted by its key; each table has a directory from the key's top bits
    (at most 26, about size/8 buckets) to a range, and a 16-bit fold of every entry aligned with
    it. A query takes one range per table and segment, drops candidates by their fold with one
    table lookup over all ranges at once, verifies the survivors by XOR and popcount, and scans
    the buffer. When blocks are too narrow to prune (sum of 2**-width >= 1/2: bits < ~2(k+1)),
    segments hold no tables and are scanned. ids are int64 labels; duplicates are allowed.
    Memory for T tables of 64-bit fingerprints: 8 (fingerprint) + 8 (id) + (T-1) x 4
    (permutations) + T x 2 (folds) bytes per entry (36 for k = 3 by blocks, 72 with 10 tables),
    plus directories of under 1 byte per entry and table.
    """

    def __init__(self, bits: int = 64, k: int = 3, buffer: int = _BUFFER, plan: BlockPlan | None = None):
        if isinstance(buffer, bool) or not isinstance(buffer, (int, np.integer)) or buffer < 1:
            raise IndexConfigError(f"buffer must be a positive integer, got {buffer!r}")
        self.plan = BlockPlan(bits, k) if plan is None else plan
        if (self.plan.bits, self.plan.k) != (bits, k):
            raise IndexConfigError(f"{self.plan!r} is not a plan for {bits} bits within {k}")
        self.bits, self.k = self.plan.bits, self.plan.k
        self.words = self.plan.words
        self._scan_only = sum(2.0 ** -w for w in self.plan.table_widths) >= 0.5
        self._full_pieces = [self.plan.prefix_pieces(t, w) for t, w in enumerate(self.plan.table_widths)]
        self._lut = np.bitwise_count(np.arange(1 << 16, dtype=np.uint16)) <= self.k
        self._k8 = np.array(self.k, dtype=np.uint8)  # comparing with a 0-d array is faster than with an int
        self._segments: list[_Segment] = []
        self._cap = int(buffer)
        self._buf_fps = np.zeros((self._cap, self.words), dtype=np.uint64)
        self._buf_ids = np.zeros(self._cap, dtype=np.int64)
        self._buf_flat = self._buf_fps[:, 0]
        self._nbuf = 0
        self._len = 0

    # ------------------------------------------------------------ sizes

    def __len__(self) -> int:
        return self._len

    def __repr__(self) -> str:
        return f"HammingIndex(bits={self.bits}, k={self.k}): {self._len} fingerprints, {len(self._segments)} segments"

    @property
    def nbytes(self) -> int:
        """Bytes held in numpy arrays (fingerprints, ids, tables, buffer)."""
        buffer = self._buf_fps.nbytes + self._buf_ids.nbytes
        return sum(s.nbytes for s in self._segments) + buffer

    # ------------------------------------------------------------ adding

    def add(self, fps, ids) -> None:
        """Add many fingerprints: uint64 (n,) when bits <= 64, or words (n, W); ids int64 (n,)."""
        fps = _as_words(fps, self.bits)
        ids = np.asarray(ids)
        if ids.dtype.kind not in "iu":
            raise IndexConfigError(f"ids must be integers, got dtype {ids.dtype}")
        if ids.dtype == np.uint64 and ids.size and ids.max() >> np.uint64(63):
            raise IndexConfigError("ids must fit in int64")
        ids = ids.astype(np.int64, copy=False).reshape(-1)
        if len(ids) != len(fps):
            raise IndexConfigError(f"{len(fps)} fingerprints but {len(ids)} ids")
        self._check_range(fps)
        n = len(ids)
        if n == 0:
            return
        if n < self._cap - self._nbuf:
            self._buf_fps[self._nbuf : self._nbuf + n] = fps
            self._buf_ids[self._nbuf : self._nbuf + n] = ids
            self._nbuf += n
            self._len += n
            return
        # large batch: it and the buffer become one new segment (which copies them)
        if self._nbuf:
            fps = np.concatenate([self._buf_fps[: self._nbuf], fps])
            ids = np.concatenate([self._buf_ids[: self._nbuf], ids])
        self._len += n
        self._nbuf = 0
        self._push(fps, ids)

    def add_one(self, fp, id: int) -> None:
        """Add one fingerprint (int or words) with its id."""
        value = self._one(fp)
        try:
            self._buf_ids[self._nbuf] = operator.index(id)
        except (TypeError, OverflowError) as exc:
            raise IndexConfigError(f"id must be an int64, got {id!r}") from exc
        if self.words == 1:
            self._buf_flat[self._nbuf] = value
        else:
            self._buf_fps[self._nbuf] = _probe(value, self.words)
        self._nbuf += 1
        self._len += 1
        if self._nbuf == self._cap:
            fps, ids = self._buf_fps.copy(), self._buf_ids.copy()
            self._nbuf = 0
            self._push(fps, ids)

    def _check_range(self, fps: np.ndarray) -> None:
        extra = self.words * 64 - self.bits
        if extra and len(fps) and (fps[:, 0] >> np.uint64(64 - extra)).any():
            raise IndexConfigError(f"fingerprints do not fit in {self.bits} bits")

    def _push(self, fps: np.ndarray, ids: np.ndarray) -> None:
        segs = self._segments
        segs.append(_Segment(self, fps, ids))
        while len(segs) >= 2 and segs[-2].size <= _GROWTH * segs[-1].size:
            b, a = segs.pop(), segs.pop()
            segs.append(self._merged([a, b]))

    def _merged(self, parts: list[_Segment]) -> _Segment:
        fps, ids = [], []
        for s in parts:
            if s.alive is None:
                fps.append(s.fps)
                ids.append(s.ids)
            else:
                fps.append(s.fps[s.alive])
                ids.append(s.ids[s.alive])
        return _Segment(self, np.concatenate(fps), np.concatenate(ids))

    # ------------------------------------------------------------ removing

    def remove(self, ids) -> int:
        """Remove every entry whose id is in ``ids``; returns how many were removed."""
        remove = np.unique(np.asarray(ids, dtype=np.int64).reshape(-1))
        if remove.size == 0:
            return 0
        removed = 0
        if self._nbuf:
            keep = ~np.isin(self._buf_ids[: self._nbuf], remove)
            kept = int(keep.sum())
            if kept < self._nbuf:
                removed += self._nbuf - kept
                self._buf_fps[:kept] = self._buf_fps[: self._nbuf][keep]
                self._buf_ids[:kept] = self._buf_ids[: self._nbuf][keep]
                self._nbuf = kept
        for i, seg in enumerate(self._segments):
            pos = seg.id_lookup(remove)
            if seg.alive is not None:
                pos = pos[seg.alive[pos]]
            if not pos.size:
                continue
            if seg.alive is None:
                seg.alive = np.ones(seg.size, dtype=bool)
                seg.alive_view = memoryview(seg.alive)
            seg.alive[pos] = False
            seg.dead += len(pos)
            removed += len(pos)
        self._len -= removed
        # compact segments that are more than half dead; keep the size ordering
        if any(s.dead * 2 > s.size for s in self._segments):
            rebuilt = []
            for s in self._segments:
                if s.dead * 2 > s.size:
                    if s.dead < s.size:
                        rebuilt.append(self._merged([s]))
                else:
                    rebuilt.append(s)
            self._segments = []
            for s in sorted(rebuilt, key=lambda s: -s.size):
                self._segments.append(s)
                while len(self._segments) >= 2 and self._segments[-2].size <= _GROWTH * self._segments[-1].size:
                    b, a = self._segments.pop(), self._segments.pop()
                    self._segments.append(self._merged([a, b]))
        return removed

    # ------------------------------------------------------------ querying

    def _one(self, fp) -> int:
        """A query fingerprint (int, numpy integer or words (W,)) -> int, checked."""
        if isinstance(fp, (int, np.integer)) and not isinstance(fp, bool):
            value = int(fp)
        else:
            words = np.asarray(fp)
            if words.dtype.kind not in "iu" or words.shape != (self.words,):
                raise IndexConfigError(
                    f"a {self.bits}-bit fingerprint is an int or {self.words} uint64 words, got {fp!r}")
            value = 0
            for w in words.tolist():
                if not 0 <= w <= _M64:
                    raise IndexConfigError(f"fingerprint word {w} is not a uint64")
                value = (value << 64) | w
        if value < 0 or value >> self.bits:
            raise IndexConfigError(f"fingerprint {value:#x} does not fit in {self.bits} bits")
        return value

    def _keys(self, q_int: int) -> list[int]:
        """Each table's full key of one query (its blocks side by side)."""
        keys = []
        for pieces in self._full_pieces:
            key = 0
            for lo, mask, shift in pieces:
                key |= ((q_int >> lo) & mask) << shift
            keys.append(key)
        return keys

    def _search(self, q_int: int) -> list:
        """Live entries within k of one query: a list of (ids, distances) pairs, as lists or
        arrays, unsorted, each entry once.

        One pass over all segments: each contributes its directory range per table, as slices of
        the 16-bit fold arrays; those are concatenated and filtered with one table lookup, so the
        numpy calls per query do not grow with the number of segments. The few survivors are
        verified in plain Python. The append buffer is scanned exactly."""
        k = self.k
        cs = []
        meta = []  # per slice: (its end in the concatenation, shift to a table index, perm view
        total = 0  # or None, segment)
        fulls = None
        for seg in self._segments:
            checks = seg.checks
            if not seg.dirs:  # scan-only plan
                total += seg.size
                cs.append(checks[0])
                meta.append((total, -(total - seg.size), None, seg))
                continue
            if fulls is None:
                fulls = self._keys(q_int)
            for full, (drop, view, check, perm) in zip(fulls, seg.tables):
                key = full >> drop
                a = view[key]
                b = view[key + 1]
                if a != b:
                    cs.append(check[a:b])
                    total += b - a
                    meta.append((total, b - total, perm, seg))
        found_buffer = []
        n = self._nbuf
        if n:  # exact distances: cheaper than verifying the ~1% of the buffer a fold check passes
            if self.words == 1:
                dist = np.bitwise_count(self._buf_flat[:n] ^ np.uint64(q_int))
            else:
                dist = np.bitwise_count(self._buf_fps[:n] ^ _probe(q_int, self.words)).sum(axis=1, dtype=np.uint8)
            hit = (dist <= self._k8).nonzero()[0]
            if len(hit):
                found_buffer.append((self._buf_ids[hit], dist[hit]))
        if not cs:
            return found_buffer
        qcheck = np.array(_fold16_int(q_int), dtype=np.uint16)
        sel = self._lut.take((cs[0] if len(cs) == 1 else np.concatenate(cs)) ^ qcheck).nonzero()[0]
        if not len(sel):
            return found_buffer
        if len(sel) > _SMALL:
            return self._search_arrays(sel, meta, q_int) + found_buffer
        w = self.words
        found = {}  # (segment, position) -> distance
        r = 0
        end, shift, perm, seg = meta[0]
        values = seg.fp_view
        for i in sel.tolist():
            if i >= end:
                while i >= end:
                    r += 1
                    end, shift, perm, seg = meta[r]
                values = seg.fp_view
            p = shift + i if perm is None else perm[shift + i]
            if w == 1:
                v = values[p]
            else:
                v = 0
                for j in range(p * w, p * w + w):
                    v = (v << 64) | values[j]
            d = (v ^ q_int).bit_count()
            if d <= k:
                found[seg, p] = d
        ids, dist = [], []
        for (seg, p), d in found.items():
            if seg.alive is None or seg.alive_view[p]:
                ids.append(seg.id_view[p])
                dist.append(d)
        return ([(ids, dist)] if ids else []) + found_buffer

    def _search_arrays(self, sel: np.ndarray, meta: list, q_int: int) -> list:
        """``_search`` when many candidates pass the fold check: verify them with numpy, per part."""
        ends = np.array([m[0] for m in meta])
        which = np.searchsorted(ends, sel, side="right")
        per_part: dict = {}
        for r in np.unique(which).tolist():
            end, shift, perm, seg = meta[r]
            local = sel[which == r] + shift
            pos = local if perm is None else np.asarray(perm)[local].astype(np.int64)
            per_part.setdefault(id(seg), (seg, []))[1].append(pos)
        found = []
        for seg, parts in per_part.values():
            ids, dist = seg.verify(parts[0] if len(parts) == 1 else np.concatenate(parts), q_int, self.k)
            if len(ids):
                found.append((ids, dist))
        return found

    @staticmethod
    def _ordered(found: list) -> tuple[np.ndarray, np.ndarray]:
        if not found:
            return _NO_IDS, _NO_IDS
        if len(found) == 1:
            ids, dist = found[0]
            if isinstance(ids, list):  # the usual case: a few matches from the segments
                if len(ids) > 1:
                    dist, ids = zip(*sorted(zip(dist, ids)))
                return np.array(ids, dtype=np.int64), np.array(dist, dtype=np.int64)
        else:
            ids = np.concatenate([np.asarray(f[0], dtype=np.int64) for f in found])
            dist = np.concatenate([np.asarray(f[1], dtype=np.int64) for f in found])
        if len(ids) <= _SMALL:
            pairs = sorted(zip(dist.tolist() if isinstance(dist, np.ndarray) else dist,
                               ids.tolist() if isinstance(ids, np.ndarray) else ids))
            return (np.array([p[1] for p in pairs], dtype=np.int64),
                    np.array([p[0] for p in pairs], dtype=np.int64))
        order = np.lexsort((ids, dist))
        return ids[order], dist[order].astype(np.int64)

    def query(self, fp) -> tuple[np.ndarray, np.ndarray]:
        """ids (int64) and distances (int64) of every entry within k of ``fp``, by (distance, id)."""
        return self._ordered(self._search(self._one(fp)))

    def query_many(self, fps, chunk: int = 2048) -> list[tuple[np.ndarray, np.ndarray]]:
        """``query`` for many fingerprints (uint64 (n,) when bits <= 64, words (n, W), or a list
        of ints), vectorised over the queries; one (ids, distances) pair per fingerprint."""
        if isinstance(fps, (list, tuple)) and (not fps or isinstance(fps[0], (int, np.integer))):
            fps = np.array([_int_to_words(int(v), self.bits) for v in fps], dtype=np.uint64).reshape(-1, self.words)
        fps = _as_words(fps, self.bits)
        self._check_range(fps)
        out: list[tuple[np.ndarray, np.ndarray]] = []
        for lo in range(0, len(fps), chunk):
            out.extend(self._query_block(fps[lo : lo + chunk]))
        return out

    def _query_block(self, qfps: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        k = self.k
        parts_q, parts_i, parts_d = [], [], []
        qchecks = _fold16(qfps)
        for seg in self._segments:
            owner, pos, dist = seg.search_many(self.plan, qfps, qchecks, self._lut, k)
            parts_q.append(owner)
            parts_i.append(seg.ids[pos])
            parts_d.append(dist)
        n = self._nbuf
        if n:
            if self.words == 1:
                dist = np.bitwise_count(self._buf_flat[:n][None, :] ^ qfps[:, 0][:, None])
            else:
                dist = np.bitwise_count(self._buf_fps[:n][None] ^ qfps[:, None]).sum(axis=2, dtype=np.uint8)
            owner, pos = (dist <= k).nonzero()
            parts_q.append(owner)
            parts_i.append(self._buf_ids[pos])
            parts_d.append(dist[owner, pos])
        nq = len(qfps)
        if not parts_q:
            return [(_NO_IDS, _NO_IDS) for _ in range(nq)]
        owner = np.concatenate(parts_q)
        ids = np.concatenate(parts_i)
        dist = np.concatenate(parts_d).astype(np.int64)
        order = np.lexsort((ids, dist, owner))
        owner, ids, dist = owner[order], ids[order], dist[order]
        bounds = np.searchsorted(owner, np.arange(nq + 1)).tolist()
        return [(ids[a:b], dist[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]

    def nearest(self, fp) -> tuple[int, int] | None:
        """(id, distance) of the closest entry within k (smallest id on ties), or None."""
        best = None
        for ids, dist in self._search(self._one(fp)):
            if isinstance(ids, list):
                cand = min(zip(dist, ids))
            else:
                i = np.lexsort((ids, dist))[0]
                cand = (int(dist[i]), int(ids[i]))
            if best is None or cand < best:
                best = cand
        return None if best is None else (best[1], best[0])

    def __contains__(self, fp) -> bool:
        """Is any entry within k of ``fp``?"""
        return bool(self._search(self._one(fp)))

    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """All live entries: fingerprints (n, W) uint64 and ids (n,) int64, in no set order."""
        fps = [s.fps if s.alive is None else s.fps[s.alive] for s in self._segments]
        ids = [s.ids if s.alive is None else s.ids[s.alive] for s in self._segments]
        fps.append(self._buf_fps[: self._nbuf])
        ids.append(self._buf_ids[: self._nbuf])
        return np.concatenate(fps), np.concatenate(ids)
