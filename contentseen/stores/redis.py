"""The shared store: one Redis database, used by any number of crawlers on any machines.

``CONTENTSEEN_STORE = "redis://host:6379/0"`` (also ``rediss://`` for TLS and
``unix:///path/to/redis.sock?db=0``; redis-py's URL query options such as ``socket_timeout=``
apply). Every key starts with the prefix (``CONTENTSEEN_REDIS_PREFIX``, default ``contentseen``),
so projects sharing a server do not see each other's pages.

Layout (the SQLite layout, as Redis types; ``P`` is the prefix, ``HEX`` a fingerprint as
fixed-width lower-case hex -- stored fingerprints are distinct, so it is also their id):

``P:meta``          hash: the fingerprint scheme + ``index`` (``BlockPlan.description``) +
                    ``layout``; written once, by the first opener, and checked on every open.
``P:b:<t>``         hash, one per block table ``t`` (the SQLite ``k<t>`` index): field = block
                    key (decimal), value = the HEX of every fingerprint with that key, end to end.
``P:fp``            hash HEX -> ``"<unix time> <url>"`` of the page first stored with it.

Check-and-add is one Lua script (EVALSHA): it reads the query's T buckets, computes Hamming
distances in Lua on 32-bit chunks, and returns the closest stored fingerprint within the
distance, or else appends the query to its buckets and records it in ``P:fp``. Redis runs a
script alone, so two crawlers adding the same content at the same moment keep exactly one copy.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit
from typing import Any, Mapping

from ..errors import ContentSeenError
from ..index import BlockPlan
from .base import FingerprintStore, Match, StoreError, check_identity

try:  # optional dependency: pip install 'contentseen[redis]'
    import redis as _redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry
except ImportError:  # pragma: no cover - exercised only without redis-py
    _redis = None

LAYOUT = "redis-v1"
DEFAULT_PREFIX = "contentseen"
# A dead or stuck server must not hang the crawl: connect and reply timeouts (seconds). A URL
# query (``?socket_timeout=1``) overrides them.
CONNECT_TIMEOUT_S = 3.0
SOCKET_TIMEOUT_S = 5.0
# A pooled connection idle this long is PINGed before use (servers drop idle clients).
HEALTH_CHECK_S = 30

# KEYS[1] = P:fp, KEYS[2..T+1] = P:b:<t>. ARGV[1] = "add" | "lookup", ARGV[2] = distance k,
# ARGV[3] = query HEX, ARGV[4] = "<time> <url>", ARGV[5..T+4] = the query's block keys.
# Returns nil (no match; added when "add") or {HEX, distance, URL}.
# Redis Lua is 5.1: numbers are doubles and ``bit`` works on 32-bit signed integers, so a
# fingerprint is compared as 8-hex-digit (32-bit) chunks, popcount by SWAR without multiply.
CHECK_AND_ADD_LUA = r"""
local band, bxor, rshift = bit.band, bit.bxor, bit.rshift
local sub, tonumber = string.sub, tonumber
local k, q = tonumber(ARGV[2]), ARGV[3]
local w = #q
local qc = {}
for i = 1, w, 8 do qc[#qc + 1] = tonumber(sub(q, i, i + 7), 16) end
local nc = #qc

local function popcount(x)
  x = x - band(rshift(x, 1), 0x55555555)
  x = band(x, 0x33333333) + band(rshift(x, 2), 0x33333333)
  x = band(x + rshift(x, 4), 0x0F0F0F0F)
  x = x + rshift(x, 8)
  x = x + rshift(x, 16)
  return band(x, 0x3F)
end

local function seen_at(hex)
  return tonumber(string.match(redis.call('HGET', KEYS[1], hex) or '0', '^(%S+)'))
end

local best, bestd, bestt = nil, k + 1, nil
local buckets, visited = {}, {}
for i = 2, #KEYS do
  local bucket = redis.call('HGET', KEYS[i], ARGV[i + 3]) or ''
  buckets[i] = bucket
  for s = 1, #bucket, w do
    local m = sub(bucket, s, s + w - 1)
    if not visited[m] then
      visited[m] = true
      local d, j = 0, 1
      while j <= nc and d <= bestd do
        local p = 8 * j - 7
        d = d + popcount(bxor(qc[j], tonumber(sub(m, p, p + 7), 16)))
        j = j + 1
      end
      if d < bestd then
        best, bestd, bestt = m, d, nil
      elseif d == bestd and d <= k then
        -- a tie: the fingerprint stored first wins (then the smaller HEX), as in SQLite
        bestt = bestt or seen_at(best)
        local t = seen_at(m)
        if t < bestt or (t == bestt and m < best) then best, bestt = m, t end
      end
    end
  end
end

if best then
  local record = redis.call('HGET', KEYS[1], best) or ''
  return {best, bestd, string.match(record, '^%S+ (.*)$') or ''}
end
if ARGV[1] == 'add' then
  for i = 2, #KEYS do redis.call('HSET', KEYS[i], ARGV[i + 3], buckets[i] .. q) end
  redis.call('HSET', KEYS[1], q, ARGV[4])
end
return false
"""

# KEYS[1] = P:meta; ARGV = field, value, ... The first opener writes the scheme; everyone gets
# the saved one back (atomically, so two first openers cannot both write).
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

    def __init__(
        self,
        url: str,
        identity: Mapping[str, str],
        bits: int,
        distance: int,
        prefix: str | None = DEFAULT_PREFIX,
        **_: Any,
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
        self.bits, self.distance = bits, distance
        self.plan = BlockPlan(bits, distance)
        self.identity = {**identity, "index": self.plan.description, "layout": LAYOUT}
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

    def _run(self, mode: str, fingerprint: int, url: str) -> Match | None:
        if self._client is None:
            raise StoreError(f"store {self._describe()}: used after close")
        if not 0 <= fingerprint < 1 << self.bits:
            raise ContentSeenError(f"fingerprint {fingerprint:#x} does not fit in {self.bits} bits")
        query = format(fingerprint, f"0{self._hex_width}x")
        keys = self._keys
        args = [mode, self.distance, query, f"{time.time():.6f} {url}",
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
        hex_fp, d, match_url = reply
        if retried and mode == "add" and int(d) == 0 and match_url == url:
            return None
        return Match(url=match_url, fingerprint=int(hex_fp, 16), distance=int(d))

    def check_and_add(self, fingerprint: int, url: str) -> Match | None:
        return self._run("add", fingerprint, url)

    def lookup(self, fingerprint: int) -> Match | None:
        return self._run("lookup", fingerprint, "")

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
