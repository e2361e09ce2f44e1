"""The shared store: one Redis database, used by any number of crawlers on any machines.

``CONTENTSEEN_STORE = "redis://host:6379/0"`` (also ``rediss://`` for TLS and
``unix:///path/to/redis.sock?db=0``; redis-py's URL query options such as ``socket_timeout=``
apply). Every key starts with the prefix (``CONTENTSEEN_REDIS_PREFIX``, default ``contentseen``),
so projects sharing a server do not see each other's pages.

Layout ``redis-v2`` (the SQLite layout, as Redis types; ``P`` is the prefix, ``HEX`` a
fingerprint as fixed-width lower-case hex; an *entry* is the HEX, followed, when the store
compares page fingerprints, by the page's 16 hex digits or 16 ``-`` when it has none -- stored
entries are distinct, so an entry is also its id):

``P:meta``          hash: the fingerprint scheme + ``index`` (``BlockPlan.description``) +
                    ``layout`` + ``page_distance``; written once, by the first opener, and
                    checked on every open.
``P:b:<t>``         hash, one per block table ``t`` (the SQLite ``k<t>`` index): field = block
                    key (decimal) of the HEX, value = every entry with that key, end to end.
``P:fp``            hash entry -> ``"<unix time> <url>"`` of the page stored with it.

The page fingerprint rides in the entry, so the script compares it on the candidates it has
already read, without a round trip per candidate; the same HEX may be stored again with a page
fingerprint that disagrees.

Check-and-add is one Lua script (EVALSHA): it reads the query's T buckets, computes Hamming
distances in Lua on 32-bit chunks, and returns the closest stored entry within the distances,
or else appends the query to its buckets and records it in ``P:fp``. Redis runs a script alone,
so two crawlers adding the same content at the same moment keep exactly one copy.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import ContentSeenError
from ..blocks import BlockPlan
from ..simhash import from_int
from .base import (
    PAGE_BITS, FingerprintStore, Match, StoreError, check_identity, page_argument, saved_scheme,
)

try:  # optional dependency: pip install 'contentseen[redis]'
    import redis as _redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry
except ImportError:  # pragma: no cover - exercised only without redis-py
    _redis = None

LAYOUT = "redis-v2"
DEFAULT_PREFIX = "contentseen"
# A dead or stuck server must not hang the crawl: connect and reply timeouts (seconds). A URL
# query (``?socket_timeout=1``) overrides them.
CONNECT_TIMEOUT_S = 3.0
SOCKET_TIMEOUT_S = 5.0
# A pooled connection idle this long is PINGed before use (servers drop idle clients).
HEALTH_CHECK_S = 30
# Entries per script call of add_many: one script blocks the server while it runs.
ADD_MANY_BATCH = 2000
_NO_PAGE = "-" * (PAGE_BITS // 4)

# KEYS[1] = P:fp, KEYS[2..T+1] = P:b:<t>. ARGV[1] = "add" | "lookup", ARGV[2] = distance k,
# ARGV[3] = query entry, ARGV[4] = "<time> <url>", ARGV[5] = page distance ("" when the store
# ignores pages: entries are the HEX alone), ARGV[6..T+5] = the query's block keys.
# Returns nil (no match; added when "add") or {HEX, distance, URL, page distance or -1}.
# Redis Lua is 5.1: numbers are doubles and ``bit`` works on 32-bit signed integers, so a
# fingerprint is compared as 8-hex-digit (32-bit) chunks, popcount by SWAR without multiply.
CHECK_AND_ADD_LUA = r"""
local band, bxor, rshift = bit.band, bit.bxor, bit.rshift
local sub, byte, tonumber = string.sub, string.byte, tonumber
local k, q, pk = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[5])
local we = #q
local w = pk and we - 16 or we
local qc, first, last = {}, {}, {}
for i = 1, w, 8 do
  first[#first + 1], last[#last + 1] = i, math.min(i + 7, w)
  qc[#qc + 1] = tonumber(sub(q, i, last[#last]), 16)
end
local nc = #qc
-- the query's page fingerprint as two chunks; nil when it has none ('-' is byte 45)
local qp1, qp2
if pk and byte(q, w + 1) ~= 45 then
  qp1, qp2 = tonumber(sub(q, w + 1, w + 8), 16), tonumber(sub(q, w + 9, w + 16), 16)
end

local function popcount(x)
  x = x - band(rshift(x, 1), 0x55555555)
  x = band(x, 0x33333333) + band(rshift(x, 2), 0x33333333)
  x = band(x + rshift(x, 4), 0x0F0F0F0F)
  x = x + rshift(x, 8)
  x = x + rshift(x, 16)
  return band(x, 0x3F)
end

-- distance of the page fingerprints of the query and entry m; -1 when either has none
local function page_distance(m)
  if not qp1 or byte(m, w + 1) == 45 then return -1 end
  return popcount(bxor(qp1, tonumber(sub(m, w + 1, w + 8), 16)))
    + popcount(bxor(qp2, tonumber(sub(m, w + 9, w + 16), 16)))
end

local function seen_at(entry)
  return tonumber(string.match(redis.call('HGET', KEYS[1], entry) or '0', '^(%S+)'))
end

local best, bestd, bestt, bestp = nil, k + 1, nil, -1
local buckets, visited = {}, {}
for i = 2, #KEYS do
  local bucket = redis.call('HGET', KEYS[i], ARGV[i + 4]) or ''
  buckets[i] = bucket
  for s = 1, #bucket, we do
    local m = sub(bucket, s, s + we - 1)
    if not visited[m] then
      visited[m] = true
      local d, j = 0, 1
      while j <= nc and d <= bestd do
        d = d + popcount(bxor(qc[j], tonumber(sub(m, first[j], last[j]), 16)))
        j = j + 1
      end
      if d <= k and d <= bestd then
        local pd = page_distance(m)
        if pd <= (pk or 0) then  -- -1, a side without a page, always agrees
          if d < bestd then
            best, bestd, bestt, bestp = m, d, nil, pd
          else
            -- a tie: the entry stored first wins (then the smaller entry), as in SQLite
            bestt = bestt or seen_at(best)
            local t = seen_at(m)
            if t < bestt or (t == bestt and m < best) then best, bestt, bestp = m, t, pd end
          end
        end
      end
    end
  end
end

if best then
  local record = redis.call('HGET', KEYS[1], best) or ''
  return {sub(best, 1, w), bestd, string.match(record, '^%S+ (.*)$') or '', bestp}
end
if ARGV[1] == 'add' then
  for i = 2, #KEYS do redis.call('HSET', KEYS[i], ARGV[i + 4], buckets[i] .. q) end
  redis.call('HSET', KEYS[1], q, ARGV[4])
end
return false
"""

# KEYS as above. ARGV = (entry, "<time> <url>", its T block keys) for each entry to store; an
# entry already stored is skipped, so entries stay distinct.
ADD_MANY_LUA = r"""
local T, step, i = #KEYS - 1, #KEYS + 1, 1
while i <= #ARGV do
  local entry = ARGV[i]
  if redis.call('HSETNX', KEYS[1], entry, ARGV[i + 1]) == 1 then
    for t = 1, T do
      local key = ARGV[i + 1 + t]
      redis.call('HSET', KEYS[t + 1], key, (redis.call('HGET', KEYS[t + 1], key) or '') .. entry)
    end
  end
  i = i + step
end
return 0
"""

OPEN_LUA = r"""
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV))
end
return redis.call('HGETALL', KEYS[1])
"""

_USE_ERRORS: tuple[type[BaseException], ...] = ()
if _redis is not None:
    _USE_ERRORS = (_redis.ConnectionError, _redis.TimeoutError, _redis.ResponseError, OSError)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class RedisStore(FingerprintStore):
    """Fingerprints in Redis, shared by many crawlers; check-and-add is one atomic Lua script."""

    OPTIONS = frozenset(("prefix",))

    @classmethod
    def options_from_settings(cls, settings: Any) -> dict[str, Any]:
        return {"prefix": settings.get("CONTENTSEEN_REDIS_PREFIX", DEFAULT_PREFIX)}

    def __init__(
        self,
        url: str,
        identity: Mapping[str, str],
        bits: int,
        distance: int,
        prefix: str | None = DEFAULT_PREFIX,
        *,
        page_distance: int | None = None,
    ):
        self.url = url
        if _redis is None:
            raise ContentSeenError(
                f"store {url}: the Redis store needs redis-py (pip install 'contentseen[redis]')"
            )
        prefix = DEFAULT_PREFIX if prefix is None else prefix
        if not isinstance(prefix, str) or not prefix or any(c.isspace() for c in prefix):
            raise ContentSeenError(f"CONTENTSEEN_REDIS_PREFIX: {prefix!r} must be a non-empty word")
        self.prefix = prefix
        self.bits, self.distance, self.page_distance = bits, distance, page_distance
        self.plan = BlockPlan(bits, distance)
        self.identity = saved_scheme(identity, self.plan.description, LAYOUT, page_distance)
        self._hex_width = (bits + 3) // 4
        self._fp_key = f"{prefix}:fp"
        self._keys = [self._fp_key] + [f"{prefix}:b:{t}" for t in range(self.plan.n_tables)]
        self._meta_key = f"{prefix}:meta"
        self._client = None
        parts = urlsplit(url)
        if parts.scheme.lower() in ("redis", "rediss") and parts.path.strip("/") and not parts.path.strip("/").isdigit():
            raise ContentSeenError(
                f"CONTENTSEEN_STORE: {url!r}: the database after the port must be a number (redis://host:port/0)"
            )
        try:
            client = _redis.Redis.from_url(
                url,
                socket_connect_timeout=CONNECT_TIMEOUT_S,
                socket_timeout=SOCKET_TIMEOUT_S,
                health_check_interval=HEALTH_CHECK_S,
                retry=Retry(NoBackoff(), 0),  # retried once by hand, see _run
                decode_responses=True,
            )
        except (ValueError, TypeError) as exc:
            raise ContentSeenError(
                f"CONTENTSEEN_STORE: {url!r} is not a Redis URL "
                f"(redis://host:port/db, rediss://..., unix:///path?db=N): {_one_line(exc)}"
            ) from None
        self._client = client
        self._script = client.register_script(CHECK_AND_ADD_LUA)
        self._add_script = client.register_script(ADD_MANY_LUA)
        try:
            saved = client.register_script(OPEN_LUA)(
                keys=[self._meta_key],
                args=[x for kv in sorted(self.identity.items()) for x in kv],
            )
        except _redis.ResponseError as exc:
            self.close()
            raise ContentSeenError(f"store {url}: cannot use key {self._meta_key} ({_one_line(exc)})") from None
        except _USE_ERRORS as exc:
            self.close()
            raise ContentSeenError(f"store {url}: cannot connect to Redis ({_one_line(exc)})") from None
        saved_map = dict(zip(saved[::2], saved[1::2]))
        try:
            check_identity(self._describe(), saved_map, self.identity)
        except ContentSeenError:
            self.close()
            raise

    def _describe(self) -> str:
        return f"{self.url} (prefix {self.prefix})"

    def _entry(self, fingerprint: int, page: int | None) -> str:
        """The HEX of ``fingerprint``, then (when pages are compared) the page's or ``-``s."""
        if self._client is None:
            raise StoreError(f"store {self._describe()}: used after close")
        if not 0 <= fingerprint < 1 << self.bits:
            raise ContentSeenError(f"fingerprint {fingerprint:#x} does not fit in {self.bits} bits")
        entry = format(fingerprint, f"0{self._hex_width}x")
        if self.page_distance is None:
            return entry
        page = page_argument(page, self.page_distance)
        return entry + (_NO_PAGE if page is None else format(page, f"0{len(_NO_PAGE)}x"))

    def _run(self, mode: str, fingerprint: int, url: str, page: int | None) -> Match | None:
        keys = self._keys
        args = [mode, self.distance, self._entry(fingerprint, page), f"{time.time():.6f} {url}",
                "" if self.page_distance is None else self.page_distance,
                *(int(key) for key in self.plan.query_keys(fingerprint))]
        try:
            try:
                reply = self._script(keys=keys, args=args)
                retried = False
            except (_redis.ConnectionError, _redis.TimeoutError):
                # A dropped connection (server restart, idle close): one more try on a fresh
                # one. The first try may have run; finding our own fingerprint and URL at
                # distance 0 then means "we added it", not "a duplicate".
                reply = self._script(keys=keys, args=args)
                retried = True
        except _USE_ERRORS as exc:
            what = "check-and-add" if mode == "add" else "lookup"
            raise StoreError(f"store {self._describe()}: {what} failed ({_one_line(exc)})") from None
        if not reply:
            return None
        hex_fp, d, match_url, page_d = reply
        if retried and mode == "add" and int(d) == 0 and int(page_d) <= 0 and match_url == url:
            return None
        return Match(url=match_url, fingerprint=int(hex_fp, 16), distance=int(d),
                     page_distance=int(page_d) if int(page_d) >= 0 else None)

    def check_and_add(self, fingerprint: int, url: str, page: int | None = None) -> Match | None:
        return self._run("add", fingerprint, url, page)

    def lookup(self, fingerprint: int, page: int | None = None) -> Match | None:
        return self._run("lookup", fingerprint, "", page)

    def add_many(self, fingerprints: Sequence[int], urls: Sequence[str],
                 pages: Sequence[int | None] | None = None) -> None:
        """Bulk-load fingerprints (and page fingerprints) without checking them (seeding or
        migrating a store); an entry already stored is skipped. Runs as one script per
        ``ADD_MANY_BATCH`` entries, so other crawlers are not held up for the whole load, and
        on error the batches before the failed one stay stored."""
        if len(fingerprints) != len(urls) or (pages is not None and len(pages) != len(urls)):
            raise ValueError("add_many: fingerprints, urls and pages differ in length")
        entries = [self._entry(fp, None if pages is None else pages[i]) for i, fp in enumerate(fingerprints)]
        words = np.array([from_int(fp, self.bits) for fp in fingerprints], dtype=np.uint64)
        keys = self.plan.keys(words.reshape(len(entries), self.plan.words)).tolist()
        now = f"{time.time():.6f}"
        for lo in range(0, len(entries), ADD_MANY_BATCH):
            args = [x for i in range(lo, min(lo + ADD_MANY_BATCH, len(entries)))
                    for x in (entries[i], f"{now} {urls[i]}", *keys[i])]
            try:
                self._add_script(keys=self._keys, args=args)
            except _USE_ERRORS as exc:
                raise StoreError(f"store {self._describe()}: bulk add failed ({_one_line(exc)})") from None

    def __len__(self) -> int:
        if self._client is None:
            raise StoreError(f"store {self._describe()}: used after close")
        try:
            return int(self._client.hlen(self._fp_key))
        except _USE_ERRORS as exc:
            raise StoreError(f"store {self._describe()}: count failed ({_one_line(exc)})") from None

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001 - closing a dead connection must not fail a crawl
                pass
