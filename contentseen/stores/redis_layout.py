"""The ``redis-v3`` layout, shared by the single-server and the cluster Redis stores: key names,
the binary encoding of entries and records, and the Lua scripts that read and write them.

Terms (``P`` is the prefix; the plan is the store's :class:`contentseen.blocks.BlockPlan`):

*entry*   a content fingerprint as ``ceil(bits/8)`` big-endian bytes; when the store compares
          page fingerprints, then a flag byte (1: a page follows, 0: none) and 8 page bytes.
*group*   table t belongs to group g, its first (most significant) block. Tables of a group share
          a *tag*, the top ``min(width, 14)`` bits of block g, in braces in their key names: on
          a Redis Cluster they live in one hash slot, so one script reads them all. A lookup
          touches at most k+1 groups (the first block of a table is one of blocks 0..k).
*bucket*  table t's key K (of w bits) is split: its top ``min(H, w)`` bits name a small hash
          ``P:{g.tag}:t.hi``, the rest is a field there; the value is every entry with key K,
          end to end. H, the *hash bits*, is chosen so that at the expected size a hash holds
          about 64 fields: Redis keeps such a hash as a listpack (``hash-max-listpack-entries``
          128), about 3 bytes of overhead per field instead of ~60 for a field of a big hash.
*record*  ``P:{0.tag}:u.hi`` (group 0's slot; ``hi`` the top ``min(H, bits)`` bits of the
          fingerprint): field = entry, value = 8-byte big-endian double (unix time), then, for
          a page with a rest fingerprint, a zero byte and its 8 bytes, then the URL (which never
          starts with a zero byte: a store made before rests reads as it was).
          ``P:{0.tag}:n`` counts the records of that tag (``len`` sums them).

The layout depends on the plan (saved as ``index``) and H (saved as ``buckets``); both follow the
expected size, and a store is refused under another.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Sequence

from ..blocks import KEY_BITS, BlockPlan
from ..errors import ContentSeenError

LAYOUT = "redis-v3"
TAG_BITS = 14  # 16384 hash slots
ENTRIES_PER_HASH = 64  # at the expected size; half of hash-max-listpack-entries
MAX_RECORD_BITS = 40  # the scripts compute record keys in doubles


def hash_bits(expected: int) -> int:
    """H: bits of a table key that name its hash, for ``expected`` fingerprints."""
    return max(0, math.ceil(math.log2(max(1.0, expected / ENTRIES_PER_HASH))))


class RedisLayout:
    """Key names and encodings of one store (see the module's docstring)."""

    def __init__(self, prefix: str, plan: BlockPlan, expected: int, pages: bool):
        self.prefix, self.plan, self.pages = prefix, plan, pages
        self.hash_bits = hash_bits(expected)
        self.fp_bytes = (plan.bits + 7) // 8
        self.entry_bytes = self.fp_bytes + (9 if pages else 0)
        self.tag_bits = [min(width, TAG_BITS) for width in plan.widths]
        self.record_bits = min(plan.bits, self.hash_bits, MAX_RECORD_BITS)
        # per table: its group, the table key's width, and how many of its bits stay in the field
        self.table_group = [tables[0] for tables in plan.tables]
        self._split = [min(width, KEY_BITS) - min(self.hash_bits, min(width, KEY_BITS))
                       for width in plan.table_widths]
        self.groups: dict[int, list[int]] = {}
        for t, g in enumerate(self.table_group):
            self.groups.setdefault(g, []).append(t)
        self.record_prefix = f"{prefix}:{{0."  # a record key is this + tag + "}:u." + hi

    def describe(self) -> dict[str, str]:
        """What a store saves beside the plan: the hash bits."""
        return {"buckets": str(self.hash_bits)}

    # ---------------------------------------------------------------- encoding

    def entry(self, fingerprint: int, page: int | None) -> bytes:
        fp = fingerprint.to_bytes(self.fp_bytes, "big")
        if not self.pages:
            return fp
        return fp + (b"\x00" * 9 if page is None else b"\x01" + page.to_bytes(8, "big"))

    def decode_entry(self, entry: bytes) -> tuple[int, int | None]:
        fingerprint = int.from_bytes(entry[: self.fp_bytes], "big")
        if not self.pages or entry[self.fp_bytes] == 0:
            return fingerprint, None
        return fingerprint, int.from_bytes(entry[self.fp_bytes + 1 :], "big")

    @staticmethod
    def record(url: str, seen: float, rest: int | None = None) -> bytes:
        address = url.encode("utf-8", "surrogateescape")
        if address[:1] == b"\x00":
            raise ContentSeenError(f"URL {url!r} starts with a NUL character")
        return struct.pack(">d", seen) + (b"" if rest is None else b"\x00" + rest.to_bytes(8, "big")) + address

    @staticmethod
    def record_url(record: bytes) -> bytes:
        """The URL of a record, as its bytes."""
        return record[17:] if record[8:9] == b"\x00" else record[8:]

    @staticmethod
    def record_rest(record: bytes) -> int | None:
        """The rest fingerprint of a record, or None."""
        return int.from_bytes(record[9:17], "big") if record[8:9] == b"\x00" else None

    def decode_record(self, record: bytes) -> tuple[float, str, int | None]:
        """(time, URL, rest fingerprint or None) of a record."""
        return (struct.unpack(">d", record[:8])[0], self.record_url(record).decode("utf-8", "surrogateescape"),
                self.record_rest(record))

    # ---------------------------------------------------------------- keys

    def tag(self, g: int, fingerprint: int) -> int:
        s = self.tag_bits[g]
        return (fingerprint >> (self.plan.los[g] + self.plan.widths[g] - s)) & ((1 << s) - 1)

    def tag0(self, fingerprint: int) -> int:
        return fingerprint >> (self.plan.bits - self.tag_bits[0])

    def record_key(self, fingerprint: int) -> str:
        hi = fingerprint >> (self.plan.bits - self.record_bits)
        return f"{self.record_prefix}{self.tag0(fingerprint)}}}:u.{hi}"

    def counter_key(self, tag0: int) -> str:
        return f"{self.record_prefix}{tag0}}}:n"

    def counter_keys(self) -> list[str]:
        return [self.counter_key(tag) for tag in range(1 << self.tag_bits[0])]

    def bucket(self, t: int, key: int, tag: int) -> tuple[str, int]:
        """(hash name, field) of table ``t``'s key ``key``, its group's tag ``tag``."""
        low = self._split[t]
        return f"{self.prefix}:{{{self.table_group[t]}.{tag}}}:{t}.{key >> low}", key & ((1 << low) - 1)

    def buckets(self, fingerprint: int, keys: Sequence[int] | None = None) -> list[tuple[str, int]]:
        """(hash name, field) of every table, in table order."""
        keys = self.plan.int_keys(fingerprint) if keys is None else keys
        tags = {g: self.tag(g, fingerprint) for g in self.groups}
        return [self.bucket(t, key, tags[self.table_group[t]]) for t, key in enumerate(keys)]

    def near(self, query: bytes, entry: bytes, distance: int, page_distance: int | None) -> tuple[int, int] | None:
        """(content distance, page distance or -1) of a stored entry that matches the query
        entry, else None: what the scripts' ``near`` computes, in Python."""
        f = self.fp_bytes
        d = (int.from_bytes(query[:f], "big") ^ int.from_bytes(entry[:f], "big")).bit_count()
        if d > distance:
            return None
        if page_distance is None or query[f] == 0 or entry[f] == 0:
            return d, -1
        pd = (int.from_bytes(query[f + 1 :], "big") ^ int.from_bytes(entry[f + 1 :], "big")).bit_count()
        return (d, pd) if pd <= page_distance else None

    def head(self, mode: str, distance: int, page_distance: int | None, entry: bytes, record: bytes,
             cutoff: float | None = None, rest: int | None = None, rest_distance: int | None = None) -> list:
        """The ARGV every check script starts with (see ``_PRELUDE``)."""
        compared = rest is not None and rest_distance is not None
        return [mode, distance, "" if page_distance is None else page_distance, entry, record,
                self.fp_bytes, self.plan.bits, self.record_prefix, self.tag_bits[0], self.record_bits,
                b"" if cutoff is None else struct.pack(">d", cutoff), rest_distance if compared else "",
                rest.to_bytes(8, "big") if compared else b""]

    def record_pattern(self) -> str:
        """A SCAN pattern of every record hash."""
        return _glob_escape(self.record_prefix) + "*}:u.*"

    def data_pattern(self) -> str:
        """A SCAN pattern of every key of the store but its meta (buckets, records, counters);
        a store of a longer prefix (``P:spider``) has no key that matches."""
        return _glob_escape(self.prefix) + ":{*"


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


# ARGV head of the check scripts: 1 mode ("add" | "lookup"), 2 distance k, 3 page distance ("":
# pages off), 4 the query entry, 5 its record (time, rest, URL), 6 fingerprint bytes F, 7 fingerprint
# bits, 8 record key prefix, 9 tag bits of group 0, 10 record hash bits, 11 the expiry cutoff
# (an 8-byte big-endian double, "": nothing expires; positive doubles order as their bytes), 12 the
# rest distance ("": rests not compared), 13 the query's rest (8 bytes, or ""). Redis Lua is 5.1:
# numbers are doubles and ``bit`` works on 32-bit integers, so entries are compared as 32-bit
# chunks, popcount by SWAR without multiply.
_PRELUDE = r"""
local band, bxor, rshift = bit.band, bit.bxor, bit.rshift
local byte, sub, floor, min = string.byte, string.sub, math.floor, math.min
local k, pk, q = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local F, BITS, S0, R = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[9]), tonumber(ARGV[10])
local E = #q

local function popcount(x)
  x = x - band(rshift(x, 1), 0x55555555)
  x = band(x, 0x33333333) + band(rshift(x, 2), 0x33333333)
  x = band(x + rshift(x, 4), 0x0F0F0F0F)
  x = x + rshift(x, 8)
  x = x + rshift(x, 16)
  return band(x, 0x3F)
end

local function chunk(s, i, j)  -- bytes i..j (at most 4) of s as a number
  if j - i == 3 then
    local a, b, c, d = byte(s, i, j)
    return ((a * 256 + b) * 256 + c) * 256 + d
  end
  local v = 0
  for p = i, j do v = v * 256 + byte(s, p) end
  return v
end

local starts, qc = {}, {}
for i = 1, F, 4 do starts[#starts + 1] = i; qc[#qc + 1] = chunk(q, i, min(i + 3, F)) end
local qp1, qp2
if pk and byte(q, F + 1) == 1 then qp1, qp2 = chunk(q, F + 2, F + 5), chunk(q, F + 6, F + 9) end
local rk, qr1, qr2 = tonumber(ARGV[12]), nil, nil
if rk then qr1, qr2 = chunk(ARGV[13], 1, 4), chunk(ARGV[13], 5, 8) end

-- whether record rec's rest fingerprint (after a zero byte past its time) rules its entry out
local function vetoed(rec)
  if not rk or byte(rec, 9) ~= 0 then return false end
  return popcount(bxor(qr1, chunk(rec, 10, 13))) + popcount(bxor(qr2, chunk(rec, 14, 17))) > rk
end

-- content and page distance (-1: a side without a page) of entry m when it matches, else nil
local function near(m)
  local d = 0
  for j = 1, #qc do
    local i = starts[j]
    d = d + popcount(bxor(qc[j], chunk(m, i, min(i + 3, F))))
    if d > k then return nil end
  end
  if not qp1 or byte(m, F + 1) ~= 1 then return d, -1 end
  local pd = popcount(bxor(qp1, chunk(m, F + 2, F + 5))) + popcount(bxor(qp2, chunk(m, F + 6, F + 9)))
  if pd > pk then return nil end
  return d, pd
end

local function top(m, n)  -- the top n bits (n <= 40) of entry m's fingerprint
  if n == 0 then return 0 end
  local off = F * 8 - BITS
  local first, last = floor(off / 8) + 1, floor((off + n - 1) / 8) + 1
  local v = 0
  for p = first, last do v = v * 256 + byte(m, p) end
  return floor(v / 2 ^ ((last - first + 1) * 8 - off % 8 - n)) % 2 ^ n
end

local function record_key(m)
  return ARGV[8] .. string.format('%d', top(m, S0)) .. '}:u.' .. string.format('%d', top(m, R))
end

-- bucket without entry m (E bytes), and whether it held it
local function without(bucket, m)
  local parts, found = {}, false
  for s = 1, #bucket, E do
    local e = sub(bucket, s, s + E - 1)
    if e == m then found = true else parts[#parts + 1] = e end
  end
  return table.concat(parts), found
end
"""

# Appends entry ``v`` (E bytes) to a bucket unless it is there already (a racer stored the same):
# found by a plain find at an entry's start, without a Lua string per entry.
_APPEND = r"""
local function append(key, field, v)
  local bucket = redis.call('HGET', key, field)
  if not bucket then redis.call('HSET', key, field, v); return end
  local at = string.find(bucket, v, 1, true)
  while at do
    if (at - 1) % E == 0 then return end
    at = string.find(bucket, v, at + 1, true)
  end
  redis.call('HSET', key, field, bucket .. v)
end
"""

# Group 0's claim of entry q's record (time + URL) in record hash rkey: the record a racer stored
# first with the identical entry, else false (stored, and the counter ckey counted).
_CLAIM = r"""
local function claim(rkey, ckey, q, record)
  if redis.call('HSETNX', rkey, q, record) == 1 then
    redis.call('INCR', ckey)
    return false
  end
  return redis.call('HGET', rkey, q)
end
"""

# Single server. KEYS = the T buckets, the query's record key, its counter key; ARGV = the head
# (13 values), then the T fields. Returns nil (no match; stored when "add") or {fingerprint bytes, distance,
# record, page distance or -1} of the closest match (ties: the closer page, then the one stored
# first, then the smaller entry). Redis runs a script alone: the whole check-and-add is atomic.
CHECK_AND_ADD_LUA = _PRELUDE + r"""
local T = #KEYS - 2
local cutoff = ARGV[11]
local best, bestd, bestp, bestrec = nil, k + 1, -1, nil
local seen, buckets, expired = {}, {}, {}
for i = 1, T do
  local bucket = redis.call('HGET', KEYS[i], ARGV[13 + i])
  buckets[i] = bucket
  if bucket then
    for s = 1, #bucket, E do
      local m = sub(bucket, s, s + E - 1)
      if not seen[m] then
        seen[m] = true
        local d, pd = near(m)
        if d and d <= bestd then
          -- a match's record: none is an entry removed from other buckets (expired, deleted)
          local rec = redis.call('HGET', record_key(m), m)
          if not rec then
            d = nil
          elseif cutoff ~= '' and sub(rec, 1, 8) < cutoff then
            expired[#expired + 1] = m
            d = nil
          elseif vetoed(rec) then
            d = nil
          end
          if d and (d < bestd or pd < bestp or (pd == bestp and (sub(rec, 1, 8) < sub(bestrec, 1, 8)
                    or (sub(rec, 1, 8) == sub(bestrec, 1, 8) and m < best)))) then
            best, bestd, bestp, bestrec = m, d, pd, rec
          end
        end
      end
    end
  end
end
if ARGV[1] ~= 'add' then
  if best then return {sub(best, 1, F), bestd, bestrec, bestp} end
  return false
end
if best then return {sub(best, 1, F), bestd, bestrec, bestp} end
-- An expired copy of q itself is replaced (record, counter, its place in these buckets, which
-- are all of its buckets). Other expired matches stay for prune's sweep, which removes an entry
-- from every bucket: this script knows only the query's buckets.
for _, m in ipairs(expired) do
  if m == q then
    redis.call('HDEL', KEYS[T + 1], q)
    redis.call('DECR', KEYS[T + 2])
  end
end
-- The identical entry stored, its rest apart (passed over above): one entry, one record; the page
-- is kept, not stored again (its record is not replaced).
if redis.call('HEXISTS', KEYS[T + 1], q) == 1 then return false end
for i = 1, T do
  redis.call('HSET', KEYS[i], ARGV[13 + i], (buckets[i] and without(buckets[i], q) or '') .. q)
end
redis.call('HSET', KEYS[T + 1], q, ARGV[5])
redis.call('INCR', KEYS[T + 2])
return false
"""

# Removes entry ARGV[1] when its record is older than ARGV[2] (8-byte double; "": whatever its
# time): KEYS = its buckets (then, when ARGV[3] is "1", its record key and counter key); ARGV[4..]
# the buckets' fields. With the record (single server: one script, atomic) returns 1 when removed.
REMOVE_LUA = r"""
local sub, q, cutoff = string.sub, ARGV[1], ARGV[2]
local E = #q
local n = #KEYS
if ARGV[3] == '1' then
  n = n - 2
  local rec = redis.call('HGET', KEYS[n + 1], q)
  if not rec or (cutoff ~= '' and sub(rec, 1, 8) >= cutoff) then return 0 end
  redis.call('HDEL', KEYS[n + 1], q)
  redis.call('DECR', KEYS[n + 2])
end
for i = 1, n do
  local bucket = redis.call('HGET', KEYS[i], ARGV[3 + i])
  if bucket then
    local parts = {}
    for s = 1, #bucket, E do
      local e = sub(bucket, s, s + E - 1)
      if e ~= q then parts[#parts + 1] = e end
    end
    if #parts == 0 then redis.call('HDEL', KEYS[i], ARGV[3 + i])
    else redis.call('HSET', KEYS[i], ARGV[3 + i], table.concat(parts)) end
  end
end
return 1
"""

# Cluster, step 2 of a check (step 1 reads the buckets with plain HGETs): store the entry in
# one group's tables, all in one hash slot. KEYS = the group's buckets (then, for group 0, the
# entry's record key and counter key); ARGV = entry, record, "1" for group 0 else "0", the fields.
# Group 0 claims the record: returns the record a racer stored first with the identical entry,
# else stores it (nil). Every group appends the entry to its buckets unless it is there.
ADD_LUA = r"""
local q = ARGV[1]
local E = #q
""" + _APPEND + _CLAIM + r"""
local n = #KEYS
if ARGV[3] == '1' then
  n = n - 2
  local racer = claim(KEYS[n + 1], KEYS[n + 2], q, ARGV[2])
  if racer then return racer end
end
for i = 1, n do append(KEYS[i], ARGV[3 + i], q) end
return false
"""

# Cluster, step 2 of a batch on one node: ADD_LUA for several (query, group) items, one after
# another. Keys are named in ARGV, none is declared: the script may use keys of every slot its
# node serves (Redis 5 and later; 7.0+ for a script without a shebang); a key of a slot served
# elsewhere (the client's slot map was out of date) fails it ("non local key") at an item's first
# key (an item's keys share a slot), so each item is stored whole or not at all. ARGV = E, then
# per item: "1" to claim (group 0) else "0", the number of tables n, entry, record, (claim:
# record key, counter key), then n (bucket key, field). Returns per item the record a racer
# stored first, else nil.
ADD_LOCAL_LUA = r"""
local E = tonumber(ARGV[1])
""" + _APPEND + _CLAIM + r"""
local out, a = {}, 2
while a <= #ARGV do
  local n, q, p, racer = tonumber(ARGV[a + 1]), ARGV[a + 2], a + 4, false
  if ARGV[a] == '1' then
    racer = claim(ARGV[p], ARGV[p + 1], q, ARGV[a + 3])
    p = p + 2
  end
  out[#out + 1] = racer
  if not racer then
    for i = p, p + 2 * n - 1, 2 do append(ARGV[i], ARGV[i + 1], q) end
  end
  a = p + 2 * n
end
return out
"""

# Bulk load. ARGV = buckets per entry nb, "1" to claim records, entry width E, then per entry:
# entry, record, nb fields. KEYS per entry: nb buckets (then its record key and counter key when
# claiming). An entry whose record exists is skipped: entries stay distinct.
ADD_MANY_LUA = r"""
local nb, claim, E = tonumber(ARGV[1]), ARGV[2] == '1', tonumber(ARGV[3])
""" + _APPEND + r"""
local per_key = claim and nb + 2 or nb
local a, kk = 4, 1
while a <= #ARGV do
  local entry = ARGV[a]
  local fresh = true
  if claim then
    fresh = redis.call('HSETNX', KEYS[kk + nb], entry, ARGV[a + 1]) == 1
    if fresh then redis.call('INCR', KEYS[kk + nb + 1]) end
  end
  if fresh then
    for i = 1, nb do append(KEYS[kk + i - 1], ARGV[a + 1 + i], entry) end
  end
  a = a + nb + 2
  kk = kk + per_key
end
return 0
"""

# KEYS[1] = P:meta; ARGV = the scheme as field, value, ...: written by the first opener.
OPEN_LUA = r"""
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV))
end
return redis.call('HGETALL', KEYS[1])
"""
