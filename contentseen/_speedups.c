/* Two scans of contentseen in C, an optional build (without it the same is done in Python):
   the token scan of contentseen.tokens and the tag scan of contentseen.text.

   scan(data, separators) reads ``data`` (UTF-8 bytes) as tokens._pieces does -- ASCII letters
   lower-cased, digits and bytes >= 0x80 kept, every other byte a separator, and so are the
   characters whose UTF-8 bytes ``separators`` (a tuple) lists -- and returns

     (hashes, counts, flags, sequence, words, indices, others)

   hashes   bytes: the xxh64 (seed 0) of each distinct piece, uint64 in native order, in the order
            each piece is first met (a Counter's order);
   counts   bytes: how often each occurs, int64;
   flags    bytes: one per distinct piece, 1 = digits only, 2 = holds a byte >= 0x80;
   sequence bytes: for every piece in order, the index of its distinct piece, int32;
   words    bytes: the xxh64 of every piece in order that is neither digits only nor holds a
            byte >= 0x80, uint64 (word_sequence's words when there are no others);
   indices  bytes: the indices of the distinct pieces holding a byte >= 0x80, int64, in order;
   others   bytes: those pieces, joined by a zero byte: the Python side case-folds them all at
            once and merge_others splits them into tokens.

   merge_others(hashes, counts, flags, sequence, indices, folded) then does what
   tokens.token_counts does with such pieces, on the scan's results: each piece, in order, is
   taken out and its tokens (``folded``: the pieces case-folded, joined by a zero byte, as UTF-8)
   counted in, its count times theirs -- in place where a token's hash is counted already, else
   after all others -- and the words of word_sequence made of them. A token is a maximal run of
   letters, digits and marks of spaced scripts (tokens._RUN: Py_UNICODE_ISALNUM but "_", or a mark
   of marks.MARK_RANGES), then each pair of neighbouring characters of a run of an unspaced script
   (tokens.UNSPACED; one character alone is a token). It returns (hashes, counts, kinds, words):
   tokens.HashedTokens's arrays (kinds: one byte a token, 0 a word, 1 digits only, 2 of an
   unspaced script), or None where they would cost too many probes (crafted hashes).

   Pieces are told apart by their bytes. None instead where the pieces would cost too many
   probes of the table (a text crafted to collide): Python's dict is the way there.

   simhash(table, bits, size, stop, log_weights, mode, quantum, min_total, parts) makes a page's
   fingerprint from the scan's hashes as fingerprints.PageFingerprinter's numpy way does: see
   simhash below.

   line_keys(text, min_chars) keys the long lines of a text as contentseen.templates._keys does.

   nonblank(text) counts the characters of a str that are not blank, as weights.nonblank, and
   weigh(text) their UTF-8 bytes, as weights.chars.

   tag_scan(raw, swallower_keys) reads the tags of ``raw`` (UTF-8 HTML) as
   markup.prepared's numpy scan does: see tag_scan below; tag_model(raw, most, reopen_cost,
   quirks, limit) follows the tree builder's stack of open elements and list of formatting
   elements, and reckons its quadratic work as markup._tag_model does.

   Nothing here allocates more than a constant times the input's length. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#define P1 11400714785074694791ULL
#define P2 14029467366897019727ULL
#define P3 1609587929392839161ULL
#define P4 9650029242287828579ULL
#define P5 2870177450012600261ULL

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t read64(const uint8_t *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static inline uint32_t read32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t xxh_round(uint64_t acc, uint64_t input) {
    acc += input * P2;
    acc = rotl64(acc, 31);
    return acc * P1;
}

static inline uint64_t xxh_merge(uint64_t acc, uint64_t val) {
    acc ^= xxh_round(0, val);
    return acc * P1 + P4;
}

/* XXH64 (Yann Collet's specification), seed 0: the hash the xxhash package gives. */
static uint64_t xxh64(const uint8_t *p, size_t len) {
    const uint8_t *end = p + len;
    uint64_t h;
    if (len >= 32) {
        const uint8_t *limit = end - 32;
        uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = (uint64_t)0 - P1;
        do {
            v1 = xxh_round(v1, read64(p));
            v2 = xxh_round(v2, read64(p + 8));
            v3 = xxh_round(v3, read64(p + 16));
            v4 = xxh_round(v4, read64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xxh_merge(h, v1);
        h = xxh_merge(h, v2);
        h = xxh_merge(h, v3);
        h = xxh_merge(h, v4);
    } else {
        h = P5;
    }
    h += (uint64_t)len;
    while (p + 8 <= end) {
        h ^= xxh_round(0, read64(p));
        h = rotl64(h, 27) * P1 + P4;
        p += 8;
    }
    if (p + 4 <= end) {
        h ^= (uint64_t)read32(p) * P1;
        h = rotl64(h, 23) * P2 + P3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)(*p) * P5;
        h = rotl64(h, 11) * P1;
        p++;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

/* 0: a separator; else the byte the piece holds (ASCII letters lower-cased). */
static uint8_t piece_byte[256];

typedef struct {
    uint64_t *keys;   /* quick_key of each distinct piece: what the slots are probed by */
    uint64_t *hashes; /* its xxh64 */
    int64_t *counts;
    uint8_t *flags;
    Py_ssize_t *starts, *lens; /* where each distinct piece was first met */
    Py_ssize_t n, cap;
    int32_t *slots; /* open addressing: index + 1, 0 = empty; at most half full */
    size_t mask;
    const uint8_t *text; /* the lower-cased text the pieces are in, 8 zero bytes after its end */
    Py_ssize_t probes, budget; /* slots looked at and bytes compared, and how many a text may cost (see scan) */
} Table;

/* A cheap key of a piece of ``len`` bytes at ``p`` (8 readable bytes after it): its first and
   last 8 bytes and its length, mixed. Pieces are compared by their bytes; xxh64 is computed
   only for each distinct one. */
static inline uint64_t low_bytes(Py_ssize_t len) { return len >= 8 ? ~(uint64_t)0 : (((uint64_t)1) << (8 * len)) - 1; }

static inline uint64_t quick_key(const uint8_t *p, size_t len) {
    uint64_t head = read64(p) & low_bytes((Py_ssize_t)len);
    uint64_t tail = len > 8 ? read64(p + len - 8) : 0;
    uint64_t h = (head ^ (uint64_t)len) * P1 ^ rotl64(tail * P2, 29);
    return h ^ (h >> 32);
}

/* Open addressing of the scan's and the merge's tables: entry k (of n; only the live ones when
   ``alive`` is given) at the first empty slot from its key, in fresh, empty ``slots``. */
static void slots_fill(int32_t *slots, size_t mask, const uint64_t *keys, const uint8_t *alive, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++) {
        if (alive && !alive[k])
            continue;
        size_t i = (size_t)keys[k] & mask;
        while (slots[i])
            i = (i + 1) & mask;
        slots[i] = (int32_t)(k + 1);
    }
}

/* Room for twice as many distinct pieces (without the GIL: raw allocators); 0 on no memory. */
static int table_grow(Table *t) {
    Py_ssize_t cap = t->cap ? 2 * t->cap : 1024;
    uint64_t *keys = PyMem_RawRealloc(t->keys, cap * sizeof(uint64_t));
    if (keys) t->keys = keys;
    uint64_t *hashes = PyMem_RawRealloc(t->hashes, cap * sizeof(uint64_t));
    if (hashes) t->hashes = hashes;
    int64_t *counts = PyMem_RawRealloc(t->counts, cap * sizeof(int64_t));
    if (counts) t->counts = counts;
    uint8_t *flags = PyMem_RawRealloc(t->flags, cap);
    if (flags) t->flags = flags;
    Py_ssize_t *starts = PyMem_RawRealloc(t->starts, cap * sizeof(Py_ssize_t));
    if (starts) t->starts = starts;
    Py_ssize_t *lens = PyMem_RawRealloc(t->lens, cap * sizeof(Py_ssize_t));
    if (lens) t->lens = lens;
    int32_t *slots = PyMem_RawCalloc((size_t)cap * 2, sizeof(int32_t));
    if (!keys || !hashes || !counts || !flags || !starts || !lens || !slots) {
        PyMem_RawFree(slots);
        return 0;
    }
    PyMem_RawFree(t->slots);
    t->slots = slots;
    t->mask = (size_t)cap * 2 - 1;
    t->cap = cap;
    slots_fill(slots, t->mask, t->keys, NULL, t->n);
    return 1;
}

static void table_free(Table *t) {
    PyMem_RawFree(t->keys);
    PyMem_RawFree(t->hashes);
    PyMem_RawFree(t->counts);
    PyMem_RawFree(t->flags);
    PyMem_RawFree(t->starts);
    PyMem_RawFree(t->lens);
    PyMem_RawFree(t->slots);
}

/* The index of the distinct piece of ``len`` bytes at ``start`` in the text, added (count 0,
   its xxh64 and flags computed) when new; -1 on no memory, -2 past the probe budget. */
static Py_ssize_t table_index(Table *t, Py_ssize_t start, Py_ssize_t len) {
    const uint8_t *piece = t->text + start;
    uint64_t key = quick_key(piece, (size_t)len);
    size_t i = (size_t)key & t->mask;
    for (;;) {
        int32_t s = t->slots[i];
        if (s == 0)
            break;
        Py_ssize_t k = s - 1;
        if (++t->probes > t->budget)
            return -2;
        if (t->keys[k] == key && t->lens[k] == len) {
            if (len <= 8) {
                if (!((read64(t->text + t->starts[k]) ^ read64(piece)) & low_bytes(len)))
                    return k;
            } else {
                t->probes += len;
                if (!memcmp(t->text + t->starts[k], piece, (size_t)len))
                    return k;
            }
        }
        i = (i + 1) & t->mask;
    }
    if (t->n == t->cap) {
        if (!table_grow(t))
            return -1;
        i = (size_t)key & t->mask;
        while (t->slots[i])
            i = (i + 1) & t->mask;
    }
    int digits = 1, high = 0;
    for (Py_ssize_t j = 0; j < len; j++) {
        high |= piece[j] >= 0x80;
        digits &= piece[j] >= '0' && piece[j] <= '9';
    }
    Py_ssize_t k = t->n++;
    t->keys[k] = key;
    t->hashes[k] = xxh64(piece, (size_t)len);
    t->counts[k] = 0;
    t->flags[k] = high ? 2 : (digits ? 1 : 0);
    t->starts[k] = start;
    t->lens[k] = len;
    t->slots[i] = (int32_t)(k + 1);
    return k;
}

#define MAX_SEPARATORS 32

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer buf;
    PyObject *separators;
    if (!PyArg_ParseTuple(args, "y*O!", &buf, &PyTuple_Type, &separators))
        return NULL;
    const uint8_t *data = (const uint8_t *)buf.buf;
    Py_ssize_t size = buf.len;
    /* Characters that separate pieces beside the ASCII ones, as UTF-8: matched at lead bytes. */
    const uint8_t *seps[MAX_SEPARATORS];
    Py_ssize_t sep_lens[MAX_SEPARATORS], n_seps = PyTuple_GET_SIZE(separators);
    if (n_seps > MAX_SEPARATORS) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "too many separators");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < n_seps; j++) {
        PyObject *sep = PyTuple_GET_ITEM(separators, j);
        if (!PyBytes_Check(sep) || PyBytes_GET_SIZE(sep) < 2 || (uint8_t)PyBytes_AS_STRING(sep)[0] < 0xC0) {
            PyBuffer_Release(&buf);
            PyErr_SetString(PyExc_ValueError, "a separator must be the UTF-8 bytes of one non-ASCII character");
            return NULL;
        }
        seps[j] = (const uint8_t *)PyBytes_AS_STRING(sep);
        sep_lens[j] = PyBytes_GET_SIZE(sep);
    }
    if (size > INT32_MAX) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "text too long for the token scan");
        return NULL;
    }
    Table t = {0};
    /* A text crafted so that its pieces share a slot would cost time quadratic in its length: past
       a few slots looked at and bytes compared a byte of text (about 1.5 for a real one), the
       scan gives up (None) and the caller counts in Python, whose dict hashes are seeded at
       random. */
    t.budget = 8 * size + 4096;
    int gave_up = 0;
    uint8_t *lower = PyMem_RawMalloc(size + 8);
    Py_ssize_t seq_cap = 1024, pieces = 0, n_words = 0;
    int32_t *sequence = PyMem_RawMalloc(seq_cap * sizeof(int32_t));
    uint64_t *words = PyMem_RawMalloc(seq_cap * sizeof(uint64_t));
    t.text = lower;
    int ok = lower && sequence && words && table_grow(&t);
    PyObject *result = NULL;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < size; i++)
            lower[i] = piece_byte[data[i]];
        /* The separators' bytes made separators: found by their lead bytes (valid UTF-8 holds
           such a sequence only as that character). */
        for (Py_ssize_t j = 0; j < n_seps; j++) {
            const uint8_t *at = data, *end = data + size;
            while ((at = memchr(at, seps[j][0], (size_t)(end - at))) != NULL) {
                if (at + sep_lens[j] <= end && !memcmp(at, seps[j], sep_lens[j]))
                    memset(lower + (at - data), 0, sep_lens[j]);
                at++;
            }
        }
        memset(lower + size, 0, 8); /* also ends the last piece */
        Py_ssize_t i = 0;
        while (ok && i < size) {
            while (i < size && lower[i] == 0)
                i++;
            if (i >= size)
                break;
            Py_ssize_t start = i;
            while (lower[i] != 0)
                i++;
            Py_ssize_t k = table_index(&t, start, i - start);
            if (k >= 0 && pieces == seq_cap) {
                int32_t *more = PyMem_RawRealloc(sequence, 2 * seq_cap * sizeof(int32_t));
                if (more)
                    sequence = more;
                uint64_t *more_words = more ? PyMem_RawRealloc(words, 2 * seq_cap * sizeof(uint64_t)) : NULL;
                if (more_words) {
                    words = more_words;
                    seq_cap *= 2;
                }
            }
            if (k == -2) {
                gave_up = 1;
                break;
            }
            if (k < 0 || pieces == seq_cap) {
                ok = 0;
                break;
            }
            t.counts[k]++;
            sequence[pieces++] = (int32_t)k;
            if (!t.flags[k])
                words[n_words++] = t.hashes[k];
        }
        Py_END_ALLOW_THREADS
    }
    if (!ok) {
        PyErr_NoMemory();
        goto done;
    }
    if (gave_up) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    /* The distinct pieces holding a byte >= 0x80: their indices (int64) and their bytes, joined
       by a zero byte (which no piece holds). */
    Py_ssize_t n_others = 0, joined = 0;
    for (Py_ssize_t k = 0; k < t.n; k++)
        if (t.flags[k] == 2) {
            n_others++;
            joined += t.lens[k] + 1;
        }
    int64_t *indices = PyMem_RawMalloc((n_others + 1) * sizeof(int64_t));
    uint8_t *pieces_of = PyMem_RawMalloc(joined + 1);
    if (!indices || !pieces_of) {
        PyMem_RawFree(indices);
        PyMem_RawFree(pieces_of);
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t j = 0, at = 0;
    for (Py_ssize_t k = 0; k < t.n; k++) {
        if (t.flags[k] != 2)
            continue;
        indices[j++] = k;
        if (at)
            pieces_of[at++] = 0;
        memcpy(pieces_of + at, lower + t.starts[k], (size_t)t.lens[k]);
        at += t.lens[k];
    }
    result = Py_BuildValue("(y#y#y#y#y#y#y#)", (const char *)t.hashes, t.n * (Py_ssize_t)sizeof(uint64_t),
                           (const char *)t.counts, t.n * (Py_ssize_t)sizeof(int64_t), (const char *)t.flags, t.n,
                           (const char *)sequence, pieces * (Py_ssize_t)sizeof(int32_t),
                           (const char *)words, n_words * (Py_ssize_t)sizeof(uint64_t),
                           (const char *)indices, n_others * (Py_ssize_t)sizeof(int64_t), (const char *)pieces_of, at);
    PyMem_RawFree(indices);
    PyMem_RawFree(pieces_of);
done:
    PyMem_RawFree(lower);
    PyMem_RawFree(sequence);
    PyMem_RawFree(words);
    table_free(&t);
    PyBuffer_Release(&buf);
    return result;
}

/* Scripts written without spaces between words (tokens.UNSPACED). */
static inline int unspaced(Py_UCS4 c) {
    return (c >= 0x0E00 && c <= 0x0EFF) || (c >= 0x1000 && c <= 0x109F) || (c >= 0x1780 && c <= 0x17FF) ||
           (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3100 && c <= 0x312F) || (c >= 0x31A0 && c <= 0x31FF) ||
           (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF);
}

/* The combining marks words are made of (marks.MARK_RANGES: the same table), sorted. */
static const Py_UCS4 MARK_RANGES[][2] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x05BF, 0x05BF}, {0x05C1, 0x05C2}, {0x05C4, 0x05C5},
    {0x05C7, 0x05C7}, {0x0610, 0x061A}, {0x064B, 0x065F}, {0x0670, 0x0670}, {0x06D6, 0x06DC}, {0x06DF, 0x06E4},
    {0x06E7, 0x06E8}, {0x06EA, 0x06ED}, {0x0711, 0x0711}, {0x0730, 0x074A}, {0x07A6, 0x07B0}, {0x07EB, 0x07F3},
    {0x07FD, 0x07FD}, {0x0816, 0x0819}, {0x081B, 0x0823}, {0x0825, 0x0827}, {0x0829, 0x082D}, {0x0859, 0x085B},
    {0x0898, 0x089F}, {0x08CA, 0x08E1}, {0x08E3, 0x0903}, {0x093A, 0x093C}, {0x093E, 0x094F}, {0x0951, 0x0957},
    {0x0962, 0x0963}, {0x0981, 0x0983}, {0x09BC, 0x09BC}, {0x09BE, 0x09C4}, {0x09C7, 0x09C8}, {0x09CB, 0x09CD},
    {0x09D7, 0x09D7}, {0x09E2, 0x09E3}, {0x09FE, 0x09FE}, {0x0A01, 0x0A03}, {0x0A3C, 0x0A3C}, {0x0A3E, 0x0A42},
    {0x0A47, 0x0A48}, {0x0A4B, 0x0A4D}, {0x0A51, 0x0A51}, {0x0A70, 0x0A71}, {0x0A75, 0x0A75}, {0x0A81, 0x0A83},
    {0x0ABC, 0x0ABC}, {0x0ABE, 0x0AC5}, {0x0AC7, 0x0AC9}, {0x0ACB, 0x0ACD}, {0x0AE2, 0x0AE3}, {0x0AFA, 0x0AFF},
    {0x0B01, 0x0B03}, {0x0B3C, 0x0B3C}, {0x0B3E, 0x0B44}, {0x0B47, 0x0B48}, {0x0B4B, 0x0B4D}, {0x0B55, 0x0B57},
    {0x0B62, 0x0B63}, {0x0B82, 0x0B82}, {0x0BBE, 0x0BC2}, {0x0BC6, 0x0BC8}, {0x0BCA, 0x0BCD}, {0x0BD7, 0x0BD7},
    {0x0C00, 0x0C04}, {0x0C3C, 0x0C3C}, {0x0C3E, 0x0C44}, {0x0C46, 0x0C48}, {0x0C4A, 0x0C4D}, {0x0C55, 0x0C56},
    {0x0C62, 0x0C63}, {0x0C81, 0x0C83}, {0x0CBC, 0x0CBC}, {0x0CBE, 0x0CC4}, {0x0CC6, 0x0CC8}, {0x0CCA, 0x0CCD},
    {0x0CD5, 0x0CD6}, {0x0CE2, 0x0CE3}, {0x0D00, 0x0D03}, {0x0D3B, 0x0D3C}, {0x0D3E, 0x0D44}, {0x0D46, 0x0D48},
    {0x0D4A, 0x0D4D}, {0x0D57, 0x0D57}, {0x0D62, 0x0D63}, {0x0D81, 0x0D83}, {0x0DCA, 0x0DCA}, {0x0DCF, 0x0DD4},
    {0x0DD6, 0x0DD6}, {0x0DD8, 0x0DDF}, {0x0DF2, 0x0DF3}, {0x0F18, 0x0F19}, {0x0F35, 0x0F35}, {0x0F37, 0x0F37},
    {0x0F39, 0x0F39}, {0x0F3E, 0x0F3F}, {0x0F71, 0x0F84}, {0x0F86, 0x0F87}, {0x0F8D, 0x0F97}, {0x0F99, 0x0FBC},
    {0x0FC6, 0x0FC6}, {0x135D, 0x135F}, {0x1712, 0x1715}, {0x1732, 0x1734}, {0x1752, 0x1753}, {0x1772, 0x1773},
    {0x1885, 0x1886}, {0x18A9, 0x18A9}, {0x1920, 0x192B}, {0x1930, 0x193B}, {0x1A17, 0x1A1B}, {0x1A55, 0x1A5E},
    {0x1A60, 0x1A7C}, {0x1A7F, 0x1A7F}, {0x1AB0, 0x1ACE}, {0x1B00, 0x1B04}, {0x1B34, 0x1B44}, {0x1B6B, 0x1B73},
    {0x1B80, 0x1B82}, {0x1BA1, 0x1BAD}, {0x1BE6, 0x1BF3}, {0x1C24, 0x1C37}, {0x1CD0, 0x1CD2}, {0x1CD4, 0x1CE8},
    {0x1CED, 0x1CED}, {0x1CF4, 0x1CF4}, {0x1CF7, 0x1CF9}, {0x1DC0, 0x1DFF}, {0x20D0, 0x20F0}, {0x2CEF, 0x2CF1},
    {0x2D7F, 0x2D7F}, {0x2DE0, 0x2DFF}, {0x302A, 0x302F}, {0xA66F, 0xA672}, {0xA674, 0xA67D}, {0xA69E, 0xA69F},
    {0xA6F0, 0xA6F1}, {0xA802, 0xA802}, {0xA806, 0xA806}, {0xA80B, 0xA80B}, {0xA823, 0xA827}, {0xA82C, 0xA82C},
    {0xA880, 0xA881}, {0xA8B4, 0xA8C5}, {0xA8E0, 0xA8F1}, {0xA8FF, 0xA8FF}, {0xA926, 0xA92D}, {0xA947, 0xA953},
    {0xA980, 0xA983}, {0xA9B3, 0xA9C0}, {0xA9E5, 0xA9E5}, {0xAA29, 0xAA36}, {0xAA43, 0xAA43}, {0xAA4C, 0xAA4D},
    {0xAA7B, 0xAA7D}, {0xAAB0, 0xAAB0}, {0xAAB2, 0xAAB4}, {0xAAB7, 0xAAB8}, {0xAABE, 0xAABF}, {0xAAC1, 0xAAC1},
    {0xAAEB, 0xAAEF}, {0xAAF5, 0xAAF6}, {0xABE3, 0xABEA}, {0xABEC, 0xABED}, {0xFB1E, 0xFB1E}, {0xFE20, 0xFE2F},
    {0x101FD, 0x101FD}, {0x102E0, 0x102E0}, {0x10376, 0x1037A}, {0x10A01, 0x10A03}, {0x10A05, 0x10A06},
    {0x10A0C, 0x10A0F}, {0x10A38, 0x10A3A}, {0x10A3F, 0x10A3F}, {0x10AE5, 0x10AE6}, {0x10D24, 0x10D27},
    {0x10EAB, 0x10EAC}, {0x10F46, 0x10F50}, {0x10F82, 0x10F85}, {0x11000, 0x11002}, {0x11038, 0x11046},
    {0x11070, 0x11070}, {0x11073, 0x11074}, {0x1107F, 0x11082}, {0x110B0, 0x110BA}, {0x110C2, 0x110C2},
    {0x11100, 0x11102}, {0x11127, 0x11134}, {0x11145, 0x11146}, {0x11173, 0x11173}, {0x11180, 0x11182},
    {0x111B3, 0x111C0}, {0x111C9, 0x111CC}, {0x111CE, 0x111CF}, {0x1122C, 0x11237}, {0x1123E, 0x1123E},
    {0x112DF, 0x112EA}, {0x11300, 0x11303}, {0x1133B, 0x1133C}, {0x1133E, 0x11344}, {0x11347, 0x11348},
    {0x1134B, 0x1134D}, {0x11357, 0x11357}, {0x11362, 0x11363}, {0x11366, 0x1136C}, {0x11370, 0x11374},
    {0x11435, 0x11446}, {0x1145E, 0x1145E}, {0x114B0, 0x114C3}, {0x115AF, 0x115B5}, {0x115B8, 0x115C0},
    {0x115DC, 0x115DD}, {0x11630, 0x11640}, {0x116AB, 0x116B7}, {0x1171D, 0x1172B}, {0x1182C, 0x1183A},
    {0x11930, 0x11935}, {0x11937, 0x11938}, {0x1193B, 0x1193E}, {0x11940, 0x11940}, {0x11942, 0x11943},
    {0x119D1, 0x119D7}, {0x119DA, 0x119E0}, {0x119E4, 0x119E4}, {0x11A01, 0x11A0A}, {0x11A33, 0x11A39},
    {0x11A3B, 0x11A3E}, {0x11A47, 0x11A47}, {0x11A51, 0x11A5B}, {0x11A8A, 0x11A99}, {0x11C2F, 0x11C36},
    {0x11C38, 0x11C3F}, {0x11C92, 0x11CA7}, {0x11CA9, 0x11CB6}, {0x11D31, 0x11D36}, {0x11D3A, 0x11D3A},
    {0x11D3C, 0x11D3D}, {0x11D3F, 0x11D45}, {0x11D47, 0x11D47}, {0x11D8A, 0x11D8E}, {0x11D90, 0x11D91},
    {0x11D93, 0x11D97}, {0x11EF3, 0x11EF6}, {0x16AF0, 0x16AF4}, {0x16B30, 0x16B36}, {0x16F4F, 0x16F4F},
    {0x16F51, 0x16F87}, {0x16F8F, 0x16F92}, {0x16FE4, 0x16FE4}, {0x16FF0, 0x16FF1}, {0x1BC9D, 0x1BC9E},
    {0x1CF00, 0x1CF2D}, {0x1CF30, 0x1CF46}, {0x1D165, 0x1D169}, {0x1D16D, 0x1D172}, {0x1D17B, 0x1D182},
    {0x1D185, 0x1D18B}, {0x1D1AA, 0x1D1AD}, {0x1D242, 0x1D244}, {0x1DA00, 0x1DA36}, {0x1DA3B, 0x1DA6C},
    {0x1DA75, 0x1DA75}, {0x1DA84, 0x1DA84}, {0x1DA9B, 0x1DA9F}, {0x1DAA1, 0x1DAAF}, {0x1E000, 0x1E006},
    {0x1E008, 0x1E018}, {0x1E01B, 0x1E021}, {0x1E023, 0x1E024}, {0x1E026, 0x1E02A}, {0x1E130, 0x1E136},
    {0x1E2AE, 0x1E2AE}, {0x1E2EC, 0x1E2EF}, {0x1E8D0, 0x1E8D6}, {0x1E944, 0x1E94A}
};

static int is_mark(Py_UCS4 c) {
    size_t lo = 0, hi = sizeof MARK_RANGES / sizeof MARK_RANGES[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < MARK_RANGES[mid][0])
            hi = mid;
        else if (c > MARK_RANGES[mid][1])
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

/* A character of tokens._RUN: \w as Python's re reads it (Py_UNICODE_ISALNUM, or "_"), less "_"
   and the unspaced scripts (which hold no mark of the table), or a mark. */
static inline int in_run(Py_UCS4 c) {
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (unspaced(c))
        return 0;
    return Py_UNICODE_ISALNUM(c) || (c >= MARK_RANGES[0][0] && is_mark(c));
}

/* The code point at ``p`` (valid UTF-8, as Python encodes a str) and its length in bytes. */
static inline Py_ssize_t code_point(const uint8_t *p, const uint8_t *end, Py_UCS4 *c) {
    uint8_t b = p[0];
    if (b < 0x80 || end - p < 2) {
        *c = b;
        return 1;
    }
    if (b < 0xE0) {
        *c = (Py_UCS4)(b & 0x1F) << 6 | (p[1] & 0x3F);
        return 2;
    }
    if (b < 0xF0 || end - p < 4) {
        *c = end - p < 3 ? 0xFFFD : (Py_UCS4)(b & 0x0F) << 12 | (Py_UCS4)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
        return end - p < 3 ? 1 : 3;
    }
    *c = (Py_UCS4)(b & 0x07) << 18 | (Py_UCS4)(p[1] & 0x3F) << 12 | (Py_UCS4)(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
    return 4;
}

/* The distinct tokens of a text by their hashes, in the order first counted; an entry taken out
   (a piece split into its tokens) stays in place, dead, and is never found again. */
typedef struct {
    uint64_t *hashes;
    int64_t *counts;
    uint8_t *kinds, *alive;
    Py_ssize_t n, cap;
    int32_t *slots; /* index + 1 of live entries, 0 = empty; at most half full */
    size_t mask;
    Py_ssize_t probes, budget;
} Merge;

static int merge_grow(Merge *m) {
    Py_ssize_t cap = m->cap ? 2 * m->cap : 1024;
    uint64_t *hashes = PyMem_RawRealloc(m->hashes, cap * sizeof(uint64_t));
    if (hashes) m->hashes = hashes;
    int64_t *counts = PyMem_RawRealloc(m->counts, cap * sizeof(int64_t));
    if (counts) m->counts = counts;
    uint8_t *kinds = PyMem_RawRealloc(m->kinds, cap);
    if (kinds) m->kinds = kinds;
    uint8_t *alive = PyMem_RawRealloc(m->alive, cap);
    if (alive) m->alive = alive;
    int32_t *slots = PyMem_RawCalloc((size_t)cap * 2, sizeof(int32_t));
    if (!hashes || !counts || !kinds || !alive || !slots) {
        PyMem_RawFree(slots);
        return 0;
    }
    PyMem_RawFree(m->slots);
    m->slots = slots;
    m->mask = (size_t)cap * 2 - 1;
    m->cap = cap;
    slots_fill(slots, m->mask, m->hashes, m->alive, m->n);
    return 1;
}

static void merge_free(Merge *m) {
    PyMem_RawFree(m->hashes);
    PyMem_RawFree(m->counts);
    PyMem_RawFree(m->kinds);
    PyMem_RawFree(m->alive);
    PyMem_RawFree(m->slots);
}

/* A merged token's kind (merge_others' third array): a word, digits only, or of an unspaced script. */
enum { WORD_TOKEN = 0, DIGITS_TOKEN = 1, UNSPACED_TOKEN = 2 };

/* Count ``n`` more of the token with hash ``h``, of ``kind``: in place when a live entry has that
   hash, else a new entry last. 0 on success, -1 on no memory, -2 past the probe budget. */
static int merge_add(Merge *m, uint64_t h, int64_t n, int kind) {
    size_t i = (size_t)h & m->mask;
    for (;;) {
        int32_t s = m->slots[i];
        if (s == 0)
            break;
        if (++m->probes > m->budget)
            return -2;
        Py_ssize_t k = s - 1;
        if (m->alive[k] && m->hashes[k] == h) {
            m->counts[k] += n;
            return 0;
        }
        i = (i + 1) & m->mask;
    }
    if (m->n == m->cap) {
        if (!merge_grow(m))
            return -1;
        i = (size_t)h & m->mask;
        while (m->slots[i])
            i = (i + 1) & m->mask;
    }
    Py_ssize_t k = m->n++;
    m->hashes[k] = h;
    m->counts[k] = n;
    m->kinds[k] = (uint8_t)kind;
    m->alive[k] = 1;
    m->slots[i] = (int32_t)(k + 1);
    return 0;
}

/* Take entry ``k`` out: never found again (a token of the same hash counted later is new). Its
   slot stays taken, for the probes of other entries that pass over it. */
static inline void merge_take(Merge *m, Py_ssize_t k) { m->alive[k] = 0; }

static inline int all_digits(const uint8_t *p, Py_ssize_t len) {
    for (Py_ssize_t j = 0; j < len; j++)
        if (p[j] < '0' || p[j] > '9')
            return 0;
    return len > 0;
}

static PyObject *merge_others(PyObject *self, PyObject *args) {
    Py_buffer hb, cb, fb, sb, ib, ob;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*", &hb, &cb, &fb, &sb, &ib, &ob))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = fb.len, n_seq = sb.len / (Py_ssize_t)sizeof(int32_t), n_others = ib.len / (Py_ssize_t)sizeof(int64_t);
    const uint64_t *hashes = hb.buf;
    const int64_t *counts = cb.buf, *indices = ib.buf;
    const uint8_t *flags = fb.buf, *folded = ob.buf, *folded_end = folded + ob.len;
    const int32_t *seq = sb.buf;
    Merge m = {0};
    m.budget = 8 * (n + ob.len) + 4096;
    Py_ssize_t *other_of = PyMem_RawMalloc((n + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *word_at = PyMem_RawMalloc((n_others + 1) * sizeof(Py_ssize_t));
    Py_ssize_t words_cap = 1024, n_words = 0, out_cap = n_seq + 1024, n_out = 0;
    uint64_t *words = PyMem_RawMalloc(words_cap * sizeof(uint64_t));
    uint64_t *out = NULL;
    int status = 0; /* -1 no memory, -2 gave up, -3 bad arguments */
    if (hb.len != n * (Py_ssize_t)sizeof(uint64_t) || cb.len != n * (Py_ssize_t)sizeof(int64_t))
        status = -3;
    else if (!other_of || !word_at || !words)
        status = -1;
    else {
        while (m.cap < n + 1)
            if (!merge_grow(&m)) {
                status = -1;
                break;
            }
    }
    if (status == 0) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < n && status == 0; k++) {
            other_of[k] = -1;
            status = merge_add(&m, hashes[k], counts[k], flags[k] == 1 ? DIGITS_TOKEN : WORD_TOKEN);
        }
        const uint8_t *piece = folded;
        for (Py_ssize_t j = 0; j < n_others && status == 0; j++) {
            Py_ssize_t k = (Py_ssize_t)indices[j];
            if (k < 0 || k >= n || flags[k] != 2) {
                status = -3;
                break;
            }
            other_of[k] = j;
            const uint8_t *end = memchr(piece, 0, (size_t)(folded_end - piece));
            if (!end)
                end = folded_end;
            int64_t times = m.counts[k]; /* its count now: tokens of earlier pieces may have added to it */
            merge_take(&m, k);
            word_at[j] = n_words;
            /* tokens._tokens: the runs of _RUN in order, then the pairs of the unspaced runs */
            for (int pass = 0; pass < 2 && status == 0; pass++) {
                const uint8_t *p = piece, *start = NULL, *prev = NULL;
                Py_ssize_t run = 0;
                while (status == 0) {
                    Py_UCS4 c = 0;
                    Py_ssize_t len = p < end ? code_point(p, end, &c) : 0;
                    int inside = len && (pass == 0 ? in_run(c) : unspaced(c));
                    if (inside) {
                        if (!run)
                            start = p;
                        if (pass == 1 && run)
                            status = merge_add(&m, xxh64(prev, (size_t)(p + len - prev)), times, UNSPACED_TOKEN);
                        prev = p;
                        run++;
                    } else if (run) {
                        if (pass == 0) {
                            Py_ssize_t size = p - start;
                            uint64_t h = xxh64(start, (size_t)size);
                            int number = all_digits(start, size);
                            status = merge_add(&m, h, times, number ? DIGITS_TOKEN : WORD_TOKEN);
                            if (status == 0 && !number) {
                                if (n_words == words_cap) {
                                    uint64_t *more = PyMem_RawRealloc(words, 2 * words_cap * sizeof(uint64_t));
                                    if (!more) {
                                        status = -1;
                                        break;
                                    }
                                    words = more;
                                    words_cap *= 2;
                                }
                                words[n_words++] = h;
                            }
                        } else if (run == 1) {
                            status = merge_add(&m, xxh64(start, (size_t)(p - start)), times, UNSPACED_TOKEN);
                        }
                        run = 0;
                    }
                    if (!len)
                        break;
                    p += len;
                }
            }
            piece = end < folded_end ? end + 1 : folded_end;
        }
        word_at[n_others] = n_words;
        /* word_sequence: each piece in order, an ASCII one its own word (none for a number), one
           holding other characters the words of its runs */
        if (status == 0) {
            for (Py_ssize_t p = 0; p < n_seq; p++) {
                Py_ssize_t k = seq[p];
                if (k < 0 || k >= n) {
                    status = -3;
                    break;
                }
                out_cap += other_of[k] >= 0 ? word_at[other_of[k] + 1] - word_at[other_of[k]] : 0;
            }
        }
        if (status == 0 && !(out = PyMem_RawMalloc(out_cap * sizeof(uint64_t))))
            status = -1;
        for (Py_ssize_t p = 0; p < n_seq && status == 0; p++) {
            Py_ssize_t k = seq[p];
            if (flags[k] == 0)
                out[n_out++] = hashes[k];
            else if (flags[k] == 2 && other_of[k] >= 0)
                for (Py_ssize_t w = word_at[other_of[k]]; w < word_at[other_of[k] + 1]; w++)
                    out[n_out++] = words[w];
        }
        Py_END_ALLOW_THREADS
    }
    if (status == -1)
        PyErr_NoMemory();
    else if (status == -3)
        PyErr_SetString(PyExc_ValueError, "merge_others: arguments that are not one scan's results");
    else if (status == -2)
        result = Py_NewRef(Py_None);
    else {
        /* the live entries, in order */
        Py_ssize_t live = 0;
        for (Py_ssize_t k = 0; k < m.n; k++) {
            if (!m.alive[k])
                continue;
            m.hashes[live] = m.hashes[k];
            m.counts[live] = m.counts[k];
            m.kinds[live] = m.kinds[k];
            live++;
        }
        result = Py_BuildValue("(y#y#y#y#)", (const char *)m.hashes, live * (Py_ssize_t)sizeof(uint64_t),
                               (const char *)m.counts, live * (Py_ssize_t)sizeof(int64_t), (const char *)m.kinds, live,
                               (const char *)out, n_out * (Py_ssize_t)sizeof(uint64_t));
    }
    PyMem_RawFree(other_of);
    PyMem_RawFree(word_at);
    PyMem_RawFree(words);
    PyMem_RawFree(out);
    merge_free(&m);
    PyBuffer_Release(&hb);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&ib);
    PyBuffer_Release(&ob);
    return result;
}

/* The tree builder's walk (tag_model, markup._tag_model): tags read as the tokenizer reads them,
   its stack of open elements followed, the counts it reads in quadratic time summed. */

/* tag_class[c]: what the tokenizer makes of a byte in a tag: a blank, "/", ">", "=" */
enum { TAG_BLANK = 1, TAG_SLASH = 2, TAG_GT = 4, TAG_EQUALS = 8 };
static uint8_t tag_class[256];

/* A count's share of the quadratic work: its square, past COSTLY (markup._costly; capped). */
#define COSTLY 16
static inline int64_t costly(int64_t n) { return n > COSTLY ? (n > 3037000499LL ? INT64_MAX / 4 : n * n) : 0; }

/* The end of the run of bytes from ``q`` (before ``end``) whose class has none of ``stop``. */
static inline const uint8_t *tag_run(const uint8_t *q, const uint8_t *end, uint8_t stop) {
    while (q < end && !(tag_class[*q] & stop))
        q++;
    return q;
}

/* The end of the run of bytes from ``q`` whose class is among ``keep``. */
static inline const uint8_t *tag_skip(const uint8_t *q, const uint8_t *end, uint8_t keep) {
    while (q < end && tag_class[*q] && !(tag_class[*q] & ~keep))
        q++;
    return q;
}

/* Whether ``len`` bytes at ``a`` and at ``b`` are the same name (ASCII case folded). */
static int same_name(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len) {
    if (a_len != b_len)
        return 0;
    for (size_t j = 0; j < a_len; j++) {
        uint8_t x = a[j] >= 'A' && a[j] <= 'Z' ? a[j] | 0x20 : a[j];
        uint8_t y = b[j] >= 'A' && b[j] <= 'Z' ? b[j] | 0x20 : b[j];
        if (x != y)
            return 0;
    }
    return 1;
}

/* Whether a name is ``lower`` (ASCII case folded). */
static inline int name_eq(const uint8_t *name, size_t len, const char *lower) {
    return same_name(name, len, (const uint8_t *)lower, strlen(lower));
}

/* The names whose elements or attributes text.Extractor queries (markup.MARKED_NAMES,
   MARKED_ATTRIBUTE_NAMES), given by tag_names: bit j of a page's marks is the j-th of the
   elements, then of the attributes. */
#define MARKS 16
#define MARK_BYTES 16
static char mark_attributes[MARKS][MARK_BYTES];
static size_t mark_lengths[MARKS], n_mark_attributes = 0, n_mark_elements = 0;

/* The mark of an attribute name (ASCII case folded), 0 for one not queried. */
static inline uint32_t attribute_mark(const uint8_t *name, size_t len) {
    for (size_t j = 0; j < n_mark_attributes; j++)
        if (mark_lengths[j] == len && same_name(name, len, (const uint8_t *)mark_attributes[j], len))
            return 1u << (n_mark_elements + j);
    return 0;
}

/* One tag as the tokenizer reads it (read_tag). */
typedef struct {
    const uint8_t *name;
    size_t len;
    int64_t attributes;
    int self_closed, font_breaks, html_encoding;
    uint32_t marks;           /* of its attributes' names */
    const uint8_t *written;   /* its attributes as written (markup._written) */
    size_t written_len;
} TagRead;

/* markup._written: ``tag``'s attributes up to ``area_end`` (its closing ">", or the end), without
   the blanks and "/" before them and the blanks after them. */
static void tag_written(TagRead *tag, const uint8_t *area_end) {
    const uint8_t *w = tag->name + tag->len;
    while (w < area_end && (tag_class[*w] & (TAG_BLANK | TAG_SLASH)))
        w++;
    while (area_end > w && (tag_class[area_end[-1]] & TAG_BLANK))
        area_end--;
    tag->written = w;
    tag->written_len = (size_t)(area_end - w);
}

/* One tag read as the tokenizer reads it, from the byte after "<" or "</", into ``tag``: its name,
   attributes and whether it ends "/>", and the marks of its attributes' names; returns where it
   ends. As markup._MARKUP's tags. */
static const uint8_t *read_tag(const uint8_t *q, const uint8_t *end, TagRead *tag) {
    *tag = (TagRead){q, 0, 0, 0, 0, 0, 0, NULL, 0};
    q = tag_run(q, end, TAG_BLANK | TAG_SLASH | TAG_GT);
    tag->len = (size_t)(q - tag->name);
    int font = name_eq(tag->name, tag->len, "font"), annotation = name_eq(tag->name, tag->len, "annotation-xml");
    int encoding_seen = 0;
    for (;;) {
        const uint8_t *run = q;
        q = tag_skip(q, end, TAG_BLANK | TAG_SLASH);
        if (q >= end) {
            tag_written(tag, end);
            return q;
        }
        if (*q == '>') {
            tag->self_closed = q > run && q[-1] == '/';
            tag_written(tag, q);
            return q + 1;
        }
        /* a name's first byte may be any other, "=" and quotes too */
        const uint8_t *attribute = q;
        q = tag_run(q + 1, end, TAG_BLANK | TAG_SLASH | TAG_GT | TAG_EQUALS);
        size_t attribute_len = (size_t)(q - attribute);
        tag->attributes++;
        tag->marks |= attribute_mark(attribute, attribute_len);
        if (font && (name_eq(attribute, attribute_len, "color") || name_eq(attribute, attribute_len, "face") ||
                     name_eq(attribute, attribute_len, "size")))
            tag->font_breaks = 1;
        int encoding = annotation && !encoding_seen && name_eq(attribute, attribute_len, "encoding");
        encoding_seen |= encoding;
        const uint8_t *value = q, *value_end = q; /* none: empty */
        const uint8_t *r = tag_skip(q, end, TAG_BLANK);
        if (r < end && *r == '=') {
            q = tag_skip(r + 1, end, TAG_BLANK);
            if (q < end && (*q == '"' || *q == '\'')) {
                const uint8_t *close = memchr(q + 1, *q, (size_t)(end - q - 1));
                value = q + 1;
                value_end = close ? close : end;
                q = close ? close + 1 : end;
            } else {
                value = q;
                q = tag_run(q, end, TAG_BLANK | TAG_GT);
                value_end = q;
            }
        }
        if (encoding)
            tag->html_encoding = name_eq(value, (size_t)(value_end - value), "text/html") ||
                                 name_eq(value, (size_t)(value_end - value), "application/xhtml+xml");
    }
}


/* tag_names(names, flags): the tree builder's element names (lower case; SVG's and MathML's as
   "svg:..." and "math:...") and what markup._StackModel makes of each (markup._MODEL_SETS' bits),
   given once by markup at import: the sets live on the Python side only. */
enum {
    M_VOID = 1, M_RAW = 2, M_FOREIGN = 4, M_INTEGRATION = 8, M_BREAKOUT = 16, M_SPECIAL = 32, M_ITEM_PASSES = 64,
    M_SCOPE = 128, M_BUTTON_SCOPE = 256, M_LIST_SCOPE = 512, M_HEADING = 1024, M_RUBY_PART = 2048,
    M_CLOSES_P = 4096, M_FORMATTING = 8192, M_CELL = 16384, M_SCOPED_END = 32768,
    M_CURRENT_END = 65536, M_MARKER = 131072
};
#define MODEL_NAMES 256
#define MODEL_NAME_BYTES 24 /* "math:annotation-xml" and a zero */
#define MODEL_SLOTS 1024    /* the names by a hash of their bytes: index + 1, 0 empty */
static char model_names[MODEL_NAMES][MODEL_NAME_BYTES];
static uint32_t model_flags[MODEL_NAMES];
static uint32_t model_marks[MODEL_NAMES]; /* of an element's name: its bit of a page's marks */
static int16_t model_slots[MODEL_SLOTS];
static Py_ssize_t n_model_names = 0;
static const char *const model_spaces[] = {"", "svg:", "math:"};

static inline uint32_t model_hash(const char *name, size_t len) {
    uint32_t h = 2166136261u;
    for (size_t j = 0; j < len; j++)
        h = (h ^ (uint8_t)name[j]) * 16777619u;
    return h;
}

/* The index of a name of ``space`` (0: HTML, 1: SVG, 2: MathML), -1 for one the model does not
   know. */
static int model_id(const uint8_t *name, size_t len, int space) {
    size_t prefix = strlen(model_spaces[space]);
    if (prefix + len >= MODEL_NAME_BYTES)
        return -1;
    char lower[MODEL_NAME_BYTES] = {0};
    memcpy(lower, model_spaces[space], prefix);
    for (size_t j = 0; j < len; j++)
        lower[prefix + j] = (char)(name[j] >= 'A' && name[j] <= 'Z' ? name[j] | 0x20 : name[j]);
    size_t n = prefix + len;
    for (uint32_t i = model_hash(lower, n) & (MODEL_SLOTS - 1);; i = (i + 1) & (MODEL_SLOTS - 1)) {
        int16_t k = model_slots[i];
        if (!k)
            return -1;
        if (!memcmp(model_names[k - 1], lower, n + 1))
            return k - 1;
    }
}

static inline uint32_t model_flags_of(int id) { return id >= 0 ? model_flags[id] : 0; }

/* The HTML names the model tests one by one, and their ids (markup._MODEL_NAMES holds them all). */
enum { N_LI, N_DD, N_DT, N_P, N_OPTION, N_OPTGROUP, N_RUBY, N_TABLE, N_TEMPLATE, N_TD, N_TH, N_TR, N_TBODY, N_THEAD,
       N_TFOOT, N_CAPTION, N_COLGROUP, N_BODY, N_HTML, N_BR, N_FORM, N_SELECT, N_ANNOTATION, N_SVG, N_MGLYPH,
       N_MALIGNMARK, N_HEAD, N_A, N_COL, N_FRAME, N_FRAMESET, N_NOFRAMES, N_COUNT };
static const char *const model_literals[N_COUNT] = {
    "li", "dd", "dt", "p", "option", "optgroup", "ruby", "table", "template", "td", "th", "tr", "tbody", "thead",
    "tfoot", "caption", "colgroup", "body", "html", "br", "form", "select", "annotation-xml", "svg", "mglyph",
    "malignmark", "head", "a", "col", "frame", "frameset", "noframes"};
static int ID[N_COUNT];

static PyObject *tag_names(PyObject *self, PyObject *args) {
    PyObject *names, *flags, *elements, *attributes;
    if (!PyArg_ParseTuple(args, "O!O!O!O!", &PyList_Type, &names, &PyList_Type, &flags, &PyList_Type, &elements,
                          &PyList_Type, &attributes))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(names), n_elements = PyList_GET_SIZE(elements),
               n_attributes = PyList_GET_SIZE(attributes);
    if (n > MODEL_NAMES || PyList_GET_SIZE(flags) != n || n_elements + n_attributes > MARKS) {
        PyErr_SetString(PyExc_ValueError, "tag_names: too many names or marks, or not one flag a name");
        return NULL;
    }
    n_model_names = 0;
    n_mark_elements = n_mark_attributes = 0;
    memset(model_marks, 0, sizeof(model_marks));
    memset(model_slots, 0, sizeof(model_slots));
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        const char *name = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(names, i), &len);
        unsigned long f = PyLong_AsUnsignedLong(PyList_GET_ITEM(flags, i));
        if (!name || PyErr_Occurred())
            return NULL;
        if (len < 1 || len >= MODEL_NAME_BYTES) {
            PyErr_SetString(PyExc_ValueError, "tag_names: a name of 1 to 23 bytes");
            return NULL;
        }
        memset(model_names[i], 0, MODEL_NAME_BYTES);
        memcpy(model_names[i], name, (size_t)len);
        model_flags[i] = (uint32_t)f;
        uint32_t h = model_hash(model_names[i], (size_t)len) & (MODEL_SLOTS - 1);
        while (model_slots[h])
            h = (h + 1) & (MODEL_SLOTS - 1);
        model_slots[h] = (int16_t)(i + 1);
    }
    for (int j = 0; j < N_COUNT; j++) {
        ID[j] = model_id((const uint8_t *)model_literals[j], strlen(model_literals[j]), 0);
        if (ID[j] < 0) {
            memset(model_slots, 0, sizeof(model_slots));
            PyErr_Format(PyExc_ValueError, "tag_names: %s is not among the names", model_literals[j]);
            return NULL;
        }
    }
    for (Py_ssize_t j = 0; j < n_elements; j++) {
        Py_ssize_t len;
        const char *name = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(elements, j), &len);
        if (!name)
            return NULL;
        int id = model_id((const uint8_t *)name, (size_t)len, 0);
        if (id < 0) {
            memset(model_slots, 0, sizeof(model_slots));
            PyErr_Format(PyExc_ValueError, "tag_names: the marked %s is not among the names", name);
            return NULL;
        }
        model_marks[id] = 1u << j;
    }
    for (Py_ssize_t j = 0; j < n_attributes; j++) {
        Py_ssize_t len;
        const char *name = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(attributes, j), &len);
        if (!name)
            return NULL;
        if (len < 1 || len >= MARK_BYTES) {
            memset(model_slots, 0, sizeof(model_slots));
            PyErr_SetString(PyExc_ValueError, "tag_names: a marked attribute of 1 to 15 bytes");
            return NULL;
        }
        memset(mark_attributes[j], 0, MARK_BYTES);
        memcpy(mark_attributes[j], name, (size_t)len);
        mark_lengths[j] = (size_t)len;
    }
    n_mark_elements = (size_t)n_elements;
    n_mark_attributes = (size_t)n_attributes;
    n_model_names = n;
    Py_RETURN_NONE;
}

#define MODEL_SCAN 64 /* markup._SCAN */
typedef struct {
    const uint8_t *name;
    size_t len;
    int id;         /* of its name as an HTML name (-1: none the model knows) */
    uint32_t flags; /* of its name in its space */
    int space;      /* 0: HTML, 1: SVG, 2: MathML */
    int point;      /* an integration point */
    int paragraphs; /* HTML <p> elements open up to this one (none: no paragraph to close) */
    int body;       /* a template whose content is a body (its first start tag was no table part) */
} Open;
/* The ids of a page's HTML names of at most 8 bytes as written, by those bytes: a page names
   few elements many times. */
#define ID_CACHE 256
typedef struct {
    uint64_t bytes;
    size_t len; /* 0: empty */
    int id;
} CachedId;
/* An entry of the tree builder's list of formatting elements (markup._StackModel.formatting): an
   element's name and attributes as written (markup._written), or a marker (id -1) and its
   element's index on the stack when pushed and its serial number (the list keeps a marker whose
   element closed until it is cleared). */
typedef struct {
    int id;
    Py_ssize_t at;
    int64_t serial;
    const uint8_t *written;
    size_t written_len;
} Entry;
/* A marker whose element is open: its element's index, serial, and whether it surely is the tree
   builder's (not a cell's in a template). */
typedef struct {
    Py_ssize_t at;
    int64_t serial;
    int sure;
} Marker;
typedef struct {
    Open *open;
    Py_ssize_t n, cap;
    Entry *list;
    Py_ssize_t n_list, list_cap;
    Marker *markers; /* those whose element is open (cap of them), in order */
    Py_ssize_t n_markers;
    int64_t serials;
    int failed;       /* out of memory: the walk stops, the page deemed deep */
    int64_t listed;   /* the list's elements */
    int64_t unclosed; /* and those left out as a fourth of their kind: with the stack, the depth */
    int quirks;       /* lexbor's mode: a <table> closes no paragraph */
    Py_ssize_t fresh_template; /* the index of a template no start tag has followed yet, else -1 */
    CachedId ids[ID_CACHE];
} Model;

static int model_html_id(Model *m, const uint8_t *name, size_t len) {
    if (len > 8)
        return model_id(name, len, 0);
    uint64_t bytes = 0;
    memcpy(&bytes, name, len);
    CachedId *c = &m->ids[(bytes * 0x9E3779B97F4A7C15ULL >> 56) ^ len];
    if (c->len != len || c->bytes != bytes)
        *c = (CachedId){bytes, len, model_id(name, len, 0)};
    return c->id;
}

/* A tag: its name, and its name's id as an HTML name. */
typedef struct {
    const uint8_t *name;
    size_t len;
    int id;
} Tag;

static inline int64_t model_depth(const Model *m) { return m->n > m->unclosed ? m->n : m->unclosed; }
static inline const Open *model_top(const Model *m) { return m->n > 0 && m->n <= m->cap ? &m->open[m->n - 1] : NULL; }
/* An HTML element of the name N_... ``which``. */
static inline int html_is(const Open *o, int which) { return !o->space && o->id == ID[which]; }
/* Whether ``o``'s name is the tag's (its own name, whatever its space). */
static inline int named_as(const Open *o, const Tag *t) {
    return t->id >= 0 ? o->id == t->id : o->id < 0 && same_name(o->name, o->len, t->name, t->len);
}

/* One more entry at the end of the list; 0 when out of memory (the walk then stops). */
static int model_list_add(Model *m, Entry e) {
    if (m->n_list == m->list_cap) {
        Py_ssize_t cap = m->list_cap ? 2 * m->list_cap : 64;
        Entry *grown = PyMem_RawRealloc(m->list, (size_t)cap * sizeof(Entry));
        if (!grown) {
            m->failed = 1;
            return 0;
        }
        m->list = grown;
        m->list_cap = cap;
    }
    m->list[m->n_list++] = e;
    return 1;
}

static void model_push(Model *m, const Tag *t, int space, int html_encoding) {
    int own = space ? model_id(t->name, t->len, space) : t->id;
    uint32_t flags = model_flags_of(own);
    int point = (flags & M_INTEGRATION) || (space == 2 && html_encoding && t->id == ID[N_ANNOTATION]);
    int paragraphs = (m->n > 0 && m->n <= m->cap ? m->open[m->n - 1].paragraphs : 0) + (!space && t->id == ID[N_P]);
    if (m->n < m->cap) {
        m->open[m->n] = (Open){t->name, t->len, t->id, flags, space, point, paragraphs, 0};
        if (!space && t->id == ID[N_TEMPLATE])
            m->fresh_template = m->n;
        if (!space && (flags & M_MARKER) && model_list_add(m, (Entry){-1, m->n, ++m->serials, NULL, 0}))
            m->markers[m->n_markers++] = (Marker){m->n, m->serials, 1};
    }
    m->n++; /* past cap only as the walk stops: the depth is what counts */
}

/* markup._StackModel._clear */
static void model_clear(Model *m) {
    while (m->n_list > 0)
        if (m->list[--m->n_list].id < 0)
            return;
        else
            m->listed--, m->unclosed--;
}

/* Takes entry ``k`` out of the list; ``closed``: its element too (not one left out as a fourth). */
static void model_list_remove(Model *m, Py_ssize_t k, int closed) {
    if (m->list[k].id >= 0)
        m->listed--, m->unclosed -= closed;
    memmove(m->list + k, m->list + k + 1, (size_t)(m->n_list - k - 1) * sizeof(Entry));
    m->n_list--;
}

static Py_ssize_t model_last_marker(const Model *m) {
    Py_ssize_t k = m->n_list - 1;
    while (k >= 0 && m->list[k].id >= 0)
        k--;
    return k;
}

/* markup._StackModel._last_of: the last entry of name ``id`` since the last marker, else -1. */
static Py_ssize_t model_last_of(const Model *m, int id) {
    for (Py_ssize_t k = m->n_list - 1; k >= 0 && m->list[k].id >= 0; k--)
        if (m->list[k].id == id)
            return k;
    return -1;
}

/* markup._StackModel._pop_to */
static void model_pop_to(Model *m, Py_ssize_t i, int own) {
    while (m->n_markers > 0 && m->markers[m->n_markers - 1].at >= i) {
        Marker mk = m->markers[--m->n_markers];
        const Open *o = &m->open[mk.at];
        if (mk.sure && (html_is(o, N_TD) || html_is(o, N_TH) || html_is(o, N_CAPTION) || (own && mk.at == i)))
            model_clear(m);
    }
    m->n = i;
}

/* markup._StackModel.opened */
static void model_opened(Model *m, const Tag *t, const uint8_t *written, size_t written_len, int html) {
    Py_ssize_t a = html && t->id == ID[N_A] ? model_last_of(m, t->id) : -1;
    if (a >= 0)
        model_list_remove(m, a, 1);
    Py_ssize_t start = model_last_marker(m) + 1, first = -1, same = 0;
    for (Py_ssize_t k = start; k < m->n_list; k++) {
        const Entry *e = &m->list[k];
        if (e->id == t->id && e->written_len == written_len && !memcmp(e->written, written, written_len)) {
            first = first < 0 ? k : first;
            same++;
        }
    }
    if (same >= 3)
        model_list_remove(m, first, 0);
    if (model_list_add(m, (Entry){t->id, 0, 0, written, written_len}))
        m->listed++, m->unclosed++;
}

/* What a search matches or stops at (markup._StackModel._find's predicates). */
typedef enum { BY_NAME, OWN_NAME, BY_FLAGS, NOT_OPTION, NOTHING, SPECIAL_NOT, TABLE_CONTEXT, TABLE_SCOPE,
               CELL_OR_CAPTION, PART_CONTEXT } Test;
typedef struct {
    Test test;
    int which;      /* BY_NAME: an HTML element of the name N_... */
    uint32_t flags; /* BY_FLAGS: of these; SPECIAL_NOT: special and of none of these */
} Rule;

static inline int rule_holds(const Rule *r, const Open *o, const Tag *t) {
    switch (r->test) {
    case BY_NAME:
        return html_is(o, r->which);
    case OWN_NAME: /* an HTML element of the tag's name */
        return !o->space && named_as(o, t);
    case BY_FLAGS:
        return (o->flags & r->flags) != 0;
    case NOT_OPTION: /* select's scope: all but option and optgroup */
        return !(html_is(o, N_OPTION) || html_is(o, N_OPTGROUP));
    case NOTHING:
        return 0;
    case SPECIAL_NOT:
        return (o->flags & M_SPECIAL) && !(o->flags & r->flags);
    case TABLE_CONTEXT: /* where a table part is read: a table, or a template */
        return html_is(o, N_TABLE) || html_is(o, N_TEMPLATE);
    case TABLE_SCOPE: /* where a table part's scope ends */
        return html_is(o, N_HTML) || html_is(o, N_TABLE) || html_is(o, N_TEMPLATE);
    case CELL_OR_CAPTION: /* where a table opens one inside another */
        return html_is(o, N_TD) || html_is(o, N_TH) || html_is(o, N_CAPTION);
    case PART_CONTEXT: /* what a table part closes, or is read in */
        return html_is(o, N_TD) || html_is(o, N_TH) || html_is(o, N_CAPTION) || html_is(o, N_TABLE) ||
               html_is(o, N_TEMPLATE);
    }
    return 0;
}

/* markup._StackModel._find: the topmost element matching, looking at most MODEL_SCAN down, -1
   at a stop. */
static Py_ssize_t model_find(const Model *m, Rule match, Rule stop, const Tag *t) {
    Py_ssize_t top = m->n < m->cap ? m->n : m->cap;
    for (Py_ssize_t i = top - 1; i >= 0 && i > top - 1 - MODEL_SCAN; i--) {
        if (match.test == TABLE_CONTEXT && m->open[i].body) /* markup._StackModel._table */
            return -1;
        if (rule_holds(&match, &m->open[i], t))
            return i;
        if (rule_holds(&stop, &m->open[i], t))
            return -1;
    }
    return -1;
}

static void model_close(Model *m, Rule match, Rule stop, const Tag *t, int own) {
    Py_ssize_t i = model_find(m, match, stop, t);
    if (i >= 0)
        model_pop_to(m, i, own);
}

/* markup._StackModel.closed: before the stack changes. */
static void model_closed(Model *m, const Tag *t) {
    Py_ssize_t k = model_last_of(m, t->id);
    if (k < 0)
        return;
    Py_ssize_t last = model_last_marker(m);
    Py_ssize_t top = m->n < m->cap ? m->n : m->cap;
    Py_ssize_t bottom = last >= 0 && m->n_markers > 0 && m->markers[m->n_markers - 1].serial == m->list[last].serial
                            ? m->list[last].at : -1; /* its element open */
    int special = 0; /* above it: the adoption agency gives up after 8 of them, the entry kept */
    for (Py_ssize_t i = top - 1; i > bottom; i--) { /* its element is above the marker's, if open */
        const Open *o = &m->open[i];
        if (top - 1 - i >= MODEL_SCAN || html_is(o, N_SELECT))
            return; /* past the scan; in a select, the end tag is ignored */
        if (!o->space && o->id == t->id) {
            if (special >= 7)
                return;
            break;
        }
        if ((o->flags & M_SCOPE) && !html_is(o, N_HTML))
            return;
        special += (o->flags & M_SPECIAL) != 0;
    }
    model_list_remove(m, k, 1);
}

static inline int model_in_foreign(const Model *m) {
    const Open *top = model_top(m);
    return top && top->space && !top->point;
}

static void model_leave_foreign(Model *m) {
    while (model_in_foreign(m)) /* the tree builder closes the foreign elements it leaves */
        model_pop_to(m, m->n - 1, 0);
}

#define IS(t, which) ((t)->id == ID[which])

/* markup._StackModel.start; 1 for a raw-text element. */
static int model_start(Model *m, const Tag *t, int self_closed, int breaks, int html_encoding, const uint8_t *written,
                       size_t written_len) {
    uint32_t f = model_flags_of(t->id);
    if (m->fresh_template >= 0) { /* a template's first start tag: whether it reads a table or a body */
        if (m->fresh_template == m->n - 1 && m->n <= m->cap && html_is(&m->open[m->n - 1], N_TEMPLATE) &&
            !((f & M_CELL) || IS(t, N_CAPTION) || IS(t, N_COL) || IS(t, N_COLGROUP)))
            m->open[m->n - 1].body = 1;
        m->fresh_template = -1;
    }
    const Open *top = model_top(m);
    if (f & M_FORMATTING)
        model_opened(m, t, written, written_len, !model_in_foreign(m) || (f & M_BREAKOUT) || breaks);
    if (top && top->point && top->space == 2 && top->id != ID[N_ANNOTATION] && (IS(t, N_MGLYPH) || IS(t, N_MALIGNMARK))) {
        model_push(m, t, 2, html_encoding); /* MathML's own, in its text integration points */
        return 0;
    }
    if (model_in_foreign(m)) {
        if (!(f & M_BREAKOUT) && !breaks) {
            if (!self_closed) /* SVG in MathML's annotation-xml is SVG */
                model_push(m, t, top->space == 2 && top->id == ID[N_ANNOTATION] && IS(t, N_SVG) ? 1 : top->space,
                           html_encoding);
            return 0;
        }
        model_leave_foreign(m);
    }
    if ((f & M_CELL) || IS(t, N_CAPTION) || IS(t, N_COL) || IS(t, N_COLGROUP)) {
        /* markup._StackModel.start: a caption, and a cell at a caption or column, closes first */
        Py_ssize_t part = model_find(m, (Rule){PART_CONTEXT, 0, 0}, (Rule){NOTHING, 0, 0}, t);
        if (part >= 0 && (html_is(&m->open[part], N_CAPTION) ||
                          ((html_is(&m->open[part], N_TD) || html_is(&m->open[part], N_TH)) &&
                           (IS(t, N_CAPTION) || IS(t, N_COL) || IS(t, N_COLGROUP)))))
            model_pop_to(m, part, 0);
        if (IS(t, N_CAPTION) || IS(t, N_COL) || IS(t, N_COLGROUP)) { /* in a table, after all its open parts */
            Py_ssize_t table = model_find(m, (Rule){TABLE_CONTEXT, 0, 0}, (Rule){NOTHING, 0, 0}, t);
            if (table >= 0 && html_is(&m->open[table], N_TABLE))
                model_pop_to(m, table + 1, 0);
        }
    }
    if ((f & M_VOID) || IS(t, N_HTML) || IS(t, N_BODY)) /* (the tree builder merges their attributes) */
        return 0;
    if (f & M_FOREIGN) {
        if (!self_closed)
            model_push(m, t, IS(t, N_SVG) ? 1 : 2, html_encoding);
        return 0;
    }
    if (f & M_RAW) {
        top = model_top(m);
        if ((f & M_CLOSES_P) && top && top->paragraphs) /* xmp, plaintext */
            model_close(m, (Rule){BY_NAME, N_P, 0}, (Rule){BY_FLAGS, 0, M_BUTTON_SCOPE}, t, 0);
        return 1;
    }
    /* a head opens one before the body only; a caption or column group, in a table only */
    if (IS(t, N_HEAD) || ((IS(t, N_CAPTION) || IS(t, N_COLGROUP)) &&
                          model_find(m, (Rule){TABLE_CONTEXT, 0, 0}, (Rule){NOTHING, 0, 0}, t) < 0))
        return 0;
    Rule item_stop = {SPECIAL_NOT, 0, M_ITEM_PASSES};
    if (IS(t, N_LI)) {
        model_close(m, (Rule){BY_NAME, N_LI, 0}, item_stop, t, 0);
    } else if (IS(t, N_DD) || IS(t, N_DT)) {
        Py_ssize_t a = model_find(m, (Rule){BY_NAME, N_DD, 0}, item_stop, t);
        Py_ssize_t b = model_find(m, (Rule){BY_NAME, N_DT, 0}, item_stop, t);
        Py_ssize_t i = a > b ? a : b;
        if (i >= 0)
            model_pop_to(m, i, 0);
    }
    top = model_top(m);
    if ((f & M_CLOSES_P) && top && top->paragraphs && !(m->quirks && IS(t, N_TABLE)))
        model_close(m, (Rule){BY_NAME, N_P, 0}, (Rule){BY_FLAGS, 0, M_BUTTON_SCOPE}, t, 0);
    top = model_top(m);
    if ((f & M_HEADING) && top && (top->flags & M_HEADING)) {
        model_pop_to(m, m->n - 1, 0);
    } else if ((IS(t, N_OPTION) || IS(t, N_OPTGROUP)) && top && html_is(top, N_OPTION)) {
        model_pop_to(m, m->n - 1, 0);
    } else if ((f & M_RUBY_PART) && model_find(m, (Rule){BY_NAME, N_RUBY, 0}, (Rule){BY_FLAGS, 0, M_SCOPE}, t) >= 0) {
        while ((top = model_top(m)) && (top->flags & M_RUBY_PART))
            model_pop_to(m, m->n - 1, 0);
    } else if (f & M_CELL) {
        Py_ssize_t table = model_find(m, (Rule){TABLE_CONTEXT, 0, 0}, (Rule){NOTHING, 0, 0}, t);
        Py_ssize_t top_i = m->n < m->cap ? m->n : m->cap;
        if (table < 0)
            return 0; /* outside a table: ignored */
        if (html_is(&m->open[table], N_TABLE)) {
            /* markup._StackModel._close_part */
            int cell = IS(t, N_TD) || IS(t, N_TH), row = IS(t, N_TR);
            Py_ssize_t found = -1;
            for (Py_ssize_t i = table + 1; i < top_i; i++) { /* the outermost: a row closes the cell in it too */
                const Open *o = &m->open[i];
                if (html_is(o, N_TD) || html_is(o, N_TH) || (!cell && html_is(o, N_TR)) ||
                    (!cell && !row && (html_is(o, N_TBODY) || html_is(o, N_THEAD) || html_is(o, N_TFOOT)))) {
                    found = i;
                    break;
                }
            }
            if (found >= 0) {
                model_pop_to(m, found, 0);
            } else if (cell || row) {
                /* a row or row group open: only what is missing below it */
                int has_row = 0, has_group = 0;
                for (Py_ssize_t i = top_i - 1; i > table; i--) {
                    const Open *o = &m->open[i];
                    if (html_is(o, N_TR) || html_is(o, N_TBODY) || html_is(o, N_THEAD) || html_is(o, N_TFOOT)) {
                        has_row = html_is(o, N_TR);
                        has_group = !has_row;
                        break;
                    }
                }
                Tag tbody = {(const uint8_t *)"tbody", 5, ID[N_TBODY]}, tr = {(const uint8_t *)"tr", 2, ID[N_TR]};
                if (!has_row && !has_group)
                    model_push(m, &tbody, 0, 0);
                if (cell && !has_row)
                    model_push(m, &tr, 0, 0);
            }
        }
    } else if (IS(t, N_TABLE)) { /* a table in a table, not in a cell or caption of it, closes the first */
        Py_ssize_t table = model_find(m, (Rule){TABLE_CONTEXT, 0, 0}, (Rule){CELL_OR_CAPTION, 0, 0}, t);
        if (table >= 0 && html_is(&m->open[table], N_TABLE))
            model_pop_to(m, table, 0);
    }
    model_push(m, t, 0, html_encoding);
    if (IS(t, N_TD) || IS(t, N_TH) || IS(t, N_CAPTION)) { /* in a template: the tree builder may have ignored it */
        Py_ssize_t table = model_find(m, (Rule){TABLE_CONTEXT, 0, 0}, (Rule){NOTHING, 0, 0}, t);
        Marker *last = m->n_markers > 0 ? &m->markers[m->n_markers - 1] : NULL;
        if (last && last->at == m->n - 1 && !(table >= 0 && html_is(&m->open[table], N_TABLE)))
            last->sure = 0;
    }
    return 0;
}

/* markup._StackModel.end */
static void model_end(Model *m, const Tag *t) {
    uint32_t f = model_flags_of(t->id);
    const Open *top = model_top(m);
    if (top && top->space) {
        if (IS(t, N_BR) || IS(t, N_P)) { /* they leave SVG and MathML too */
            model_leave_foreign(m);
        } else {
            Py_ssize_t top_i = m->n, i;
            for (i = top_i - 1; i >= 0 && i > top_i - 1 - MODEL_SCAN; i--) {
                if (named_as(&m->open[i], t)) {
                    if (f & M_FORMATTING) { /* markup._StackModel._foreign_closed */
                        int bounded = 0;
                        for (Py_ssize_t j = i + 1; j < top_i; j++)
                            bounded |= (model_flags_of(m->open[j].id) & M_SCOPE) != 0;
                        Py_ssize_t k = bounded ? -1 : model_last_of(m, t->id);
                        if (k >= 0)
                            model_list_remove(m, k, 1);
                    }
                    model_pop_to(m, i, 0);
                    return;
                }
                if (i == 0 || !m->open[i - 1].space)
                    break;
            }
            if (i >= 0 && i <= top_i - 1 - MODEL_SCAN)
                return; /* past the scan: nothing closes */
        }
    }
    if (IS(t, N_BODY) || IS(t, N_HTML) || IS(t, N_BR) || IS(t, N_FORM))
        return;
    Rule own = {OWN_NAME, 0, 0};
    top = model_top(m);
    if (f & M_CURRENT_END) { /* the current element only */
        if (top && !top->space && named_as(top, t))
            model_pop_to(m, m->n - 1, 0);
        return;
    }
    if (IS(t, N_P)) {
        if (top && top->paragraphs)
            model_close(m, own, (Rule){BY_FLAGS, 0, M_BUTTON_SCOPE}, t, 0);
    }
    else if (IS(t, N_LI))
        model_close(m, own, (Rule){BY_FLAGS, 0, M_LIST_SCOPE}, t, 0);
    else if (f & M_HEADING)
        model_close(m, (Rule){BY_FLAGS, 0, M_HEADING}, (Rule){BY_FLAGS, 0, M_SCOPE}, t, 0);
    else if (f & M_FORMATTING) {
        model_closed(m, t);
        model_close(m, own, (Rule){BY_FLAGS, 0, M_SPECIAL | M_SCOPE}, t, 0);
    }
    else if (IS(t, N_SELECT))
        model_close(m, own, (Rule){NOT_OPTION, 0, 0}, t, 0);
    else if ((f & M_CELL) || IS(t, N_TABLE) || IS(t, N_CAPTION) || IS(t, N_COLGROUP))
        model_close(m, own, (Rule){TABLE_SCOPE, 0, 0}, t, 0);
    else if (IS(t, N_TEMPLATE))
        model_close(m, own, (Rule){NOTHING, 0, 0}, t, 1);
    else if (f & M_SCOPED_END)
        model_close(m, own, (Rule){BY_FLAGS, 0, M_SCOPE}, t, 1);
    else
        model_close(m, own, (Rule){BY_FLAGS, 0, M_SPECIAL}, t, 0);
}

/* Where the markup at the "<" at ``p`` that starts no tag ends: markup._MARKUP's comments, doctypes
   and bogus comments. */
static const uint8_t *markup_end(const uint8_t *p, const uint8_t *end) {
    size_t left = (size_t)(end - p);
    if (left >= 4 && !memcmp(p, "<!--", 4)) {
        if (left > 4 && (p[4] == '>' || (left > 5 && p[4] == '-' && p[5] == '>'))) {
            const uint8_t *gt = memchr(p + 4, '>', left - 4);
            return gt + 1;
        }
        const uint8_t *best = end;
        for (const uint8_t *q = p + 4; q + 2 < end; q++) {
            q = memchr(q, '-', (size_t)(end - q));
            if (!q)
                break;
            if (q + 2 < end && q[1] == '-' && q[2] == '>') {
                best = q + 3;
                break;
            }
            if (q + 3 < end && q[1] == '-' && q[2] == '!' && q[3] == '>') {
                best = q + 4;
                break;
            }
        }
        return best;
    }
    if (left >= 2 && (p[1] == '!' || p[1] == '?' || p[1] == '/')) {
        const uint8_t *gt = left > 2 ? memchr(p + 2, '>', left - 2) : NULL;
        return gt ? gt + 1 : end;
    }
    return p + 1;
}

/* tag_model(raw, most, reopen_cost, quirks, limit) -> (cost, depth, marks): markup._tag_model's
   figures (markup.REOPEN_COST; quirks: markup._quirks), the walk stopping once the depth passes
   ``most`` or the cost ``limit``; and the marks (tag_names) of the names of the start tags it read and
   of their attributes. */
static PyObject *tag_model(PyObject *self, PyObject *args) {
    Py_buffer buf;
    Py_ssize_t most;
    long long reopen_cost, limit;
    int quirks;
    if (!PyArg_ParseTuple(args, "y*nLpL", &buf, &most, &reopen_cost, &quirks, &limit))
        return NULL;
    if (n_model_names == 0 || most < 0 || most > 1 << 20 || reopen_cost < 0 || reopen_cost > 1 << 20) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "tag_model: no tag_names given, or a depth or cost out of range");
        return NULL;
    }
    Model *m = PyMem_RawCalloc(1, sizeof(Model));
    Open *open = PyMem_RawMalloc((size_t)(most + 8) * sizeof(Open));
    Marker *markers = PyMem_RawMalloc((size_t)(most + 8) * sizeof(Marker));
    if (!m || !open || !markers) {
        PyMem_RawFree(m);
        PyMem_RawFree(open);
        PyMem_RawFree(markers);
        PyBuffer_Release(&buf);
        return PyErr_NoMemory();
    }
    m->open = open;
    m->cap = most + 8;
    m->markers = markers;
    m->quirks = quirks;
    m->fresh_template = -1;
    int64_t cost = 0, html = 0, body = 0, in_select = 0, select_tags = 0;
    uint32_t marks = 0;
    const uint8_t *p = buf.buf, *end = p + buf.len;
    Py_BEGIN_ALLOW_THREADS
    while (model_depth(m) <= most && !m->failed && cost <= limit && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        const uint8_t *q = p + 1;
        int closing = q < end && *q == '/';
        q += closing;
        if (q >= end || (uint8_t)((*q | 0x20) - 'a') > 'z' - 'a') {
            const Open *top = model_top(m);
            if (top && top->space && end - p >= 9 && !memcmp(p, "<![CDATA[", 9)) { /* CDATA, in SVG and MathML */
                const uint8_t *r = p + 9;
                while ((r = memchr(r, ']', (size_t)(end - r))) != NULL && !(end - r >= 3 && r[1] == ']' && r[2] == '>'))
                    r++;
                p = r ? r + 3 : end;
                continue;
            }
            p = markup_end(p, end);
            continue;
        }
        if (m->listed > COSTLY) /* markup.REOPEN_COST */
            cost += reopen_cost * m->listed;
        TagRead tag;
        p = read_tag(q, end, &tag);
        const uint8_t *name = tag.name;
        size_t len = tag.len;
        Tag t = {name, len, model_html_id(m, name, len)};
        if (!closing)
            marks |= tag.marks | (t.id >= 0 ? model_marks[t.id] : 0);
        /* the quadratic work: attributes of a tag, of all <html> and all <body> tags, tags of a select */
        if (IS(&t, N_SELECT)) {
            if (in_select)
                cost += costly(select_tags);
            in_select = !closing;
            select_tags = 0;
        } else if (in_select && !closing) {
            select_tags++;
        }
        if (IS(&t, N_HTML))
            html += tag.attributes;
        else if (IS(&t, N_BODY))
            body += tag.attributes;
        else
            cost += costly(tag.attributes);
        if (cost > INT64_MAX / 4)
            cost = INT64_MAX / 4;
        if (closing) {
            model_end(m, &t);
        } else {
            if (!model_start(m, &t, tag.self_closed, tag.font_breaks, tag.html_encoding, tag.written, tag.written_len))
                continue;
            /* raw text: up to "</name" and a blank, "/" or ">" */
            const uint8_t *r = p, *stop = end;
            while ((r = memchr(r, '<', (size_t)(end - r))) != NULL) {
                if (r + 2 + len < end && r[1] == '/' && same_name(r + 2, len, name, len) &&
                    (tag_class[r[2 + len]] & (TAG_BLANK | TAG_SLASH | TAG_GT))) {
                    stop = r;
                    break;
                }
                r++;
            }
            /* Its start tags are read all the same, for the marks and, of those the tree builder
               reads there, the costs: it reads it as markup where it ignores the start tag (in a
               frameset, a template's column group) or is in SVG or MathML still. */
            for (r = p; r < stop && (r = memchr(r, '<', (size_t)(stop - r))) != NULL;) {
                if (r + 1 < stop && (uint8_t)((r[1] | 0x20) - 'a') <= 'z' - 'a') {
                    TagRead in;
                    r = read_tag(r + 1, stop, &in);
                    int id = model_html_id(m, in.name, in.len);
                    marks |= in.marks | (id >= 0 ? model_marks[id] : 0);
                    /* and the attributes of those the tree builder reads there (markup._READ_IN_RAW_TEXT) */
                    if (id == ID[N_HTML])
                        html += in.attributes;
                    else if (id == ID[N_BODY])
                        body += in.attributes;
                    else if ((id == ID[N_FRAME] || id == ID[N_FRAMESET] || id == ID[N_NOFRAMES] || id == ID[N_COL] ||
                              id == ID[N_COLGROUP] || id == ID[N_TEMPLATE]) &&
                             (cost += costly(in.attributes)) > INT64_MAX / 4)
                        cost = INT64_MAX / 4;
                } else {
                    r++;
                }
            }
            p = stop;
        }
    }
    Py_END_ALLOW_THREADS
    cost += costly(html) + costly(body) + (in_select ? costly(select_tags) : 0);
    int64_t depth = m->failed ? most + 1 : model_depth(m);
    PyMem_RawFree(m->list);
    PyMem_RawFree(markers);
    PyMem_RawFree(open);
    PyMem_RawFree(m);
    PyBuffer_Release(&buf);
    return Py_BuildValue("(LLk)", (long long)(cost < INT64_MAX / 4 ? cost : INT64_MAX / 4), (long long)depth,
                         (unsigned long)marks);
}

/* A tag name's key, as markup._name_keys: its first 4 bytes after "<" or "</" (bytes past the end
   read as 0), each OR 0x20, up to the first that is then not [a-z0-9], little-endian. */
static uint32_t name_key(const uint8_t *raw, Py_ssize_t size, Py_ssize_t at, uint8_t *first) {
    uint32_t key = 0;
    for (int j = 0; j < 4; j++) {
        uint8_t b = (uint8_t)((at + j < size ? raw[at + j] : 0) | 0x20);
        if (j == 0)
            *first = b;
        if (!((b >= 'a' && b <= 'z') || (b >= '0' && b <= '9')))
            break;
        key |= (uint32_t)b << (8 * j);
    }
    return key;
}

/* Whether the sorted ``keys`` (n of them) hold ``key``: a binary search, for each width of key. */
#define SORTED_HOLDS(NAME, TYPE)                                                               \
    static inline int NAME(TYPE key, const TYPE *keys, Py_ssize_t n) {                         \
        Py_ssize_t lo = 0, hi = n;                                                             \
        while (lo < hi) {                                                                      \
            Py_ssize_t mid = (lo + hi) / 2;                                                    \
            if (keys[mid] < key)                                                               \
                lo = mid + 1;                                                                  \
            else                                                                               \
                hi = mid;                                                                      \
        }                                                                                      \
        return lo < n && keys[lo] == key;                                                      \
    }
SORTED_HOLDS(key_in, uint32_t)
SORTED_HOLDS(key_in64, uint64_t)

typedef struct {
    uint32_t *keys;
    int64_t *open;
    size_t mask, n;
    Py_ssize_t probes, budget; /* as the token scan's Table: past the budget, give up */
} OpenCounts;

/* The open count of ``key``'s elements (added at 0 when new); NULL on no memory or past the
   probe budget (``probes > budget`` then). */
static int64_t *open_count(OpenCounts *c, uint32_t key) {
    if (c->n * 2 >= c->mask + 1) {
        size_t slots = (c->mask + 1) * 2;
        uint32_t *keys = PyMem_RawCalloc(slots, sizeof(uint32_t));
        int64_t *open = PyMem_RawCalloc(slots, sizeof(int64_t));
        if (!keys || !open) {
            PyMem_RawFree(keys);
            PyMem_RawFree(open);
            return NULL;
        }
        for (size_t i = 0; i <= c->mask; i++) {
            if (!c->keys[i])
                continue;
            size_t j = (c->keys[i] * 2654435761u) & (slots - 1);
            while (keys[j])
                j = (j + 1) & (slots - 1);
            keys[j] = c->keys[i];
            open[j] = c->open[i];
        }
        PyMem_RawFree(c->keys);
        PyMem_RawFree(c->open);
        c->keys = keys;
        c->open = open;
        c->mask = slots - 1;
    }
    size_t i = (key * 2654435761u) & c->mask;  /* a tag's key is never 0: it starts with a letter */
    while (c->keys[i] && c->keys[i] != key) {
        if (++c->probes > c->budget)
            return NULL;
        i = (i + 1) & c->mask;
    }
    if (!c->keys[i]) {
        c->keys[i] = key;
        c->n++;
    }
    return &c->open[i];
}

/* tag_scan(raw, swallower_keys) -> (tags, swallower_starts, names)

   tags: how many "<" ``raw`` holds; swallower_starts: where the start tags named in
   ``swallower_keys`` (sorted uint32) are; names: the key of every name a start tag starting with
   a letter has, once each, uint32 in native order, in no order. None where the names would cost
   too many probes of its table (crafted to collide). */
static PyObject *tag_scan(PyObject *self, PyObject *args) {
    Py_buffer buf, swallow_buf;
    if (!PyArg_ParseTuple(args, "y*y*", &buf, &swallow_buf))
        return NULL;
    const uint8_t *raw = (const uint8_t *)buf.buf;
    Py_ssize_t size = buf.len;
    const uint32_t *swallow = (const uint32_t *)swallow_buf.buf;
    Py_ssize_t n_swallow = swallow_buf.len / 4;
    PyObject *starts = PyList_New(0), *result = NULL;
    Py_ssize_t budget = 8 * size + 4096;
    OpenCounts names = {PyMem_RawCalloc(64, sizeof(uint32_t)), PyMem_RawCalloc(64, sizeof(int64_t)), 63, 0, 0, budget};
    uint32_t *name_keys = NULL;
    if (!starts || !names.keys || !names.open) {
        if (starts)
            PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t tags = 0;
    const uint8_t *p = raw, *end = raw + size;
    while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        Py_ssize_t at = p - raw;
        tags++;
        int closing = at + 1 < size && raw[at + 1] == '/';
        uint8_t first;
        uint32_t key = name_key(raw, size, at + 1 + closing, &first);
        p++;
        if (closing)
            continue;
        if (key_in(key, swallow, n_swallow)) {
            PyObject *pos = PyLong_FromSsize_t(at);
            if (!pos || PyList_Append(starts, pos) < 0) {
                Py_XDECREF(pos);
                goto done;
            }
            Py_DECREF(pos);
        }
        if (first >= 'a' && first <= 'z' && !open_count(&names, key))
            goto failed;
    }
    name_keys = PyMem_RawMalloc(names.n * sizeof(uint32_t) + 1);
    if (!name_keys) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n_names = 0;
    for (size_t i = 0; i <= names.mask; i++)
        if (names.keys[i])
            name_keys[n_names++] = names.keys[i];
    result = Py_BuildValue("(nOy#)", tags, starts, (const char *)name_keys, n_names * (Py_ssize_t)sizeof(uint32_t));
    goto done;
failed: /* no memory, or names crafted to share slots: None, and the caller scans in numpy */
    if (names.probes > names.budget)
        result = Py_NewRef(Py_None);
    else
        PyErr_NoMemory();
done:
    Py_XDECREF(starts);
    PyMem_RawFree(names.keys);
    PyMem_RawFree(names.open);
    PyMem_RawFree(name_keys);
    PyBuffer_Release(&buf);
    PyBuffer_Release(&swallow_buf);
    return result;
}

static uint8_t low_weight[2][256]; /* [utf8][c]: what a character below U+0100 counts (0: blank) */

#define COUNT_NONBLANK(TYPE)                                                                   \
    do {                                                                                       \
        const TYPE *p = data;                                                                  \
        const uint8_t *low = low_weight[utf8 != 0];                                            \
        for (Py_ssize_t i = 0; i < n; i++) {                                                   \
            Py_UCS4 c = p[i];                                                                  \
            count += c < 0x100 ? low[c]                                                        \
                   : !utf8 || (c >= 0xD800 && c <= 0xDFFF) ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; \
        }                                                                                      \
    } while (0)

/* The characters of ``text`` other than " \t\n\r\f\v" and U+00A0, each counted as 1 or, with
   ``utf8``, as its length in UTF-8 (a lone surrogate as 1: encoded with "replace", it is "?"). */
static PyObject *count_nonblank(PyObject *text, int utf8) {
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "a str is needed");
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), count = 0;
    const void *data = PyUnicode_DATA(text);
    /* a loop a kind of str (1, 2 or 4 bytes a character): no switch a character */
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        COUNT_NONBLANK(Py_UCS1);
        break;
    case PyUnicode_2BYTE_KIND:
        COUNT_NONBLANK(Py_UCS2);
        break;
    default:
        COUNT_NONBLANK(Py_UCS4);
    }
    return PyLong_FromSsize_t(count);
}

static PyObject *nonblank(PyObject *self, PyObject *arg) { return count_nonblank(arg, 0); }

static PyObject *weigh(PyObject *self, PyObject *arg) { return count_nonblank(arg, 1); }

/* The text each element of a parsed page holds, with and without its links' (weights.chars on the
   element, and on it in a copy of the tree without its a[href] elements), read by lexbor's own
   functions, bound at run time from selectolax's extension, which exports them
   (lexbor_bind): no lexbor header or struct layout is needed, only these functions of its
   public API. */

typedef void *(*lxb_node_fn)(void *);
static struct {
    lxb_node_fn first_child, next, parent;
    uintptr_t (*tag_id)(void *);
    int (*type)(void *);
    uint8_t *(*text_content)(void *, size_t *);
    void *(*destroy_text)(void *, uint8_t *);
    _Bool (*has_attribute)(void *, const uint8_t *, size_t);
} lxb;
static int lxb_bound = 0;
static uintptr_t lxb_tag_text, lxb_tag_a;  /* lexbor's tag ids of text nodes and of <a>: they vary by release */

#define LXB_TYPE_ELEMENT 1 /* the DOM's node type */

static PyObject *lexbor_bind(PyObject *self, PyObject *args) {
    unsigned long long a[8], text_tag, a_tag;
    if (!PyArg_ParseTuple(args, "KKKKKKKKKK", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7], &text_tag, &a_tag))
        return NULL;
    for (int i = 0; i < 8; i++)
        if (!a[i]) {
            PyErr_SetString(PyExc_ValueError, "a lexbor function's address is 0");
            return NULL;
        }
    lxb.first_child = (lxb_node_fn)(uintptr_t)a[0];
    lxb.next = (lxb_node_fn)(uintptr_t)a[1];
    lxb.parent = (lxb_node_fn)(uintptr_t)a[2];
    lxb.tag_id = (uintptr_t(*)(void *))(uintptr_t)a[3];
    lxb.type = (int (*)(void *))(uintptr_t)a[4];
    lxb.text_content = (uint8_t * (*)(void *, size_t *))(uintptr_t)a[5];
    lxb.destroy_text = (void *(*)(void *, uint8_t *))(uintptr_t)a[6];
    lxb.has_attribute = (_Bool (*)(void *, const uint8_t *, size_t))(uintptr_t)a[7];
    lxb_tag_text = (uintptr_t)text_tag;
    lxb_tag_a = (uintptr_t)a_tag;
    lxb_bound = 1;
    Py_RETURN_NONE;
}

/* contentseen.parse: lexbor's lxb_html_parse_chunk_process fed ``data`` a chunk at a time
   (chunk_end); after each chunk, the length of the tree builder's stack of open elements, the
   weight of its list of formatting elements (list_weight) and the thread's CPU time since the
   first call are held against their bounds. The functions are lexbor's, their addresses given
   once (parse_bind). */
static struct {
    unsigned int (*process)(void *, const uint8_t *, size_t);
    void *(*first_attribute)(void *);
    void *(*next_attribute)(void *);
    size_t (*length)(void *);
    void *(*get)(void *, size_t);
    void *marker; /* the list's markers */
} lxp;
static int lxp_bound = 0;

static PyObject *parse_bind(PyObject *self, PyObject *args) {
    unsigned long long a[6];
    if (!PyArg_ParseTuple(args, "KKKKKK", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]))
        return NULL;
    for (int i = 0; i < 6; i++)
        if (!a[i]) {
            PyErr_SetString(PyExc_ValueError, "a lexbor function's address is 0");
            return NULL;
        }
    lxp.process = (unsigned int (*)(void *, const uint8_t *, size_t))(uintptr_t)a[0];
    lxp.first_attribute = (void *(*)(void *))(uintptr_t)a[1];
    lxp.next_attribute = (void *(*)(void *))(uintptr_t)a[2];
    lxp.length = (size_t(*)(void *))(uintptr_t)a[3];
    lxp.get = (void *(*)(void *, size_t))(uintptr_t)a[4];
    lxp.marker = (void *)(uintptr_t)a[5];
    lxp_bound = 1;
    Py_RETURN_NONE;
}

static inline int64_t thread_ns(void) {
#ifdef CLOCK_THREAD_CPUTIME_ID
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0)
        return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
#endif
    return (int64_t)((double)clock() * (1e9 / CLOCKS_PER_SEC)); /* the process's CPU time */
}

/* contentseen.parse._chunk_end: where the chunk from ``at`` ends, and whether a tag is open there. */
static Py_ssize_t chunk_end(const uint8_t *b, Py_ssize_t len, Py_ssize_t at, Py_ssize_t chunk, Py_ssize_t cut,
                            int *inside) {
    Py_ssize_t end = len - at <= chunk ? len : at + chunk;
    if (*inside) {
        const uint8_t *close = memchr(b + at, '>', (size_t)(end - at));
        if (close) {
            *inside = 0;
            return close - b + 1;
        }
    }
    if (end < len) { /* before the first '<' among the last ``cut`` bytes */
        Py_ssize_t from = end - cut > at + 1 ? end - cut : at + 1;
        const uint8_t *lt = from < end ? memchr(b + from, '<', (size_t)(end - from)) : NULL;
        if (lt)
            end = lt - b;
    }
    for (Py_ssize_t j = end - 1; j >= at; j--)
        if (b[j] == '<' || b[j] == '>') {
            *inside = b[j] == '<';
            break;
        }
    return end;
}

/* contentseen.parse._Lexbor.listed: an entry each, and each attribute of an entry's element (a
   marker has none), counted until past ``cap``. */
static int64_t list_weight(void *list, int64_t cap) {
    int64_t weight = 0;
    for (size_t i = 0, n = lxp.length(list); i < n && weight <= cap; i++) {
        void *entry = lxp.get(list, i);
        weight++;
        for (void *a = entry == lxp.marker ? NULL : lxp.first_attribute(entry); a && weight <= cap;
             a = lxp.next_attribute(a))
            weight++;
    }
    return weight;
}

static PyObject *parse_chunks(PyObject *self, PyObject *args) {
    unsigned long long parser, opened, listed;
    Py_buffer data;
    Py_ssize_t chunk, cut, most, most_listed;
    long long budget;
    if (!PyArg_ParseTuple(args, "Ky*nnKKnnL", &parser, &data, &chunk, &cut, &opened, &listed, &most, &most_listed,
                          &budget))
        return NULL;
    if (!lxp_bound || !parser || !opened || !listed || chunk < 1) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "parse_chunks: not bound (parse_bind), an address is 0, or the chunk empty");
        return NULL;
    }
    const uint8_t *bytes = data.buf;
    void *open_elements = (void *)(uintptr_t)opened, *list = (void *)(uintptr_t)listed;
    int result = 0, inside = 0;
    Py_BEGIN_ALLOW_THREADS /* lexbor's work alone (the bytes held by the buffer): the store's thread goes on */
    int64_t began = thread_ns(); /* (no Python between the calls: the time since is lexbor's) */
    for (Py_ssize_t at = 0, end; at < data.len; at = end) {
        end = chunk_end(bytes, data.len, at, chunk, cut, &inside);
        if (lxp.process((void *)(uintptr_t)parser, bytes + at, (size_t)(end - at))) {
            result = 2;
            break;
        }
        if (lxp.length(open_elements) > (size_t)most || list_weight(list, most_listed) > most_listed ||
            thread_ns() - began > budget) {
            result = 1;
            break;
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyLong_FromLong(result);
}

/* The bytes of UTF-8 ``p`` other than " \t\n\r\f\v" and U+00A0 (weigh's count on valid UTF-8). */
static int64_t weigh_utf8(const uint8_t *p, size_t n) {
    int64_t count = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c == ' ' || (c >= '\t' && c <= '\r'))
            continue;
        if (c == 0xC2 && i + 1 < n && p[i + 1] == 0xA0) {
            i++;
            continue;
        }
        count++;
    }
    return count;
}

/* Whether the element ``el`` of tag id ``tag`` is a link: <a href>, what a copy without links lacks. */
static inline int is_link(void *el, uintptr_t tag) {
    return tag == lxb_tag_a && lxb.has_attribute(el, (const uint8_t *)"href", 4);
}

/* The weight (weigh_utf8) of a text node's data. */
static int64_t text_weight(void *text_node, void *doc) {
    size_t len = 0;
    uint8_t *text = lxb.text_content(text_node, &len);
    if (!text)
        return 0;
    int64_t weight = weigh_utf8(text, len);
    lxb.destroy_text(doc, text);
    return weight;
}

/* The node at the address ``arg`` (selectolax's Node.mem_id), and its document in ``*doc``;
   NULL with an exception set if there is none. */
static void *node_of(PyObject *arg, void **doc) {
    void *node = PyLong_AsVoidPtr(arg);
    if (!node) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "no node");
        return NULL;
    }
    *doc = node;
    for (void *up = lxb.parent(*doc); up; up = lxb.parent(*doc))
        *doc = up;
    return node;
}

typedef struct {
    uintptr_t *keys;  /* element pointers; 0: empty */
    int64_t *total, *free;
    size_t mask;
} Weights;

static void weights_release(Weights *w) {
    if (w) {
        PyMem_RawFree(w->keys);
        PyMem_RawFree(w->total);
        PyMem_RawFree(w->free);
        PyMem_RawFree(w);
    }
}

static void weights_free(PyObject *capsule) { weights_release(PyCapsule_GetPointer(capsule, "contentseen.weights")); }

static inline size_t weights_slot(const Weights *w, uintptr_t key) {
    size_t i = (size_t)(((uint64_t)key >> 4) * P1 >> 20) & w->mask;
    while (w->keys[i] && w->keys[i] != key)
        i = (i + 1) & w->mask;
    return i;
}

/* ``w``'s arrays, fresh and empty, of ``size`` slots (a power of two); -1 (none held) on no memory. */
static int weights_alloc(Weights *w, size_t size) {
    w->keys = PyMem_RawCalloc(size, sizeof(uintptr_t));
    w->total = PyMem_RawMalloc(size * sizeof(int64_t));
    w->free = PyMem_RawMalloc(size * sizeof(int64_t));
    w->mask = size - 1;
    if (w->keys && w->total && w->free)
        return 0;
    PyMem_RawFree(w->keys);
    PyMem_RawFree(w->total);
    PyMem_RawFree(w->free);
    w->keys = NULL;
    w->total = w->free = NULL;
    return -1;
}

static int weights_grow(Weights *w) {
    Weights bigger;
    if (weights_alloc(&bigger, (w->mask + 1) * 2) < 0)
        return -1;
    for (size_t i = 0; i <= w->mask; i++)
        if (w->keys[i]) {
            size_t j = weights_slot(&bigger, w->keys[i]);
            bigger.keys[j] = w->keys[i];
            bigger.total[j] = w->total[i];
            bigger.free[j] = w->free[i];
        }
    PyMem_RawFree(w->keys);
    PyMem_RawFree(w->total);
    PyMem_RawFree(w->free);
    *w = bigger;
    return 0;
}

typedef struct {
    void *node;
    int64_t total, free;
} Frame;

static int weights_put(Weights *w, size_t *count, void *node, int64_t total, int64_t free) {
    if (2 * (*count + 1) > w->mask + 1 && weights_grow(w) < 0)
        return -1;
    size_t at = weights_slot(w, (uintptr_t)node);
    w->keys[at] = (uintptr_t)node;
    w->total[at] = total;
    w->free[at] = free;
    ++*count;
    return 0;
}

/* tree_weights(root) -> capsule: every element (and comment: 0) of the subtree of ``root`` (a lexbor node's
   address, selectolax's Node.mem_id) with its text's weight (weigh) and that outside a[href]
   elements (weights.chars of the element, and of it in a copy of the tree without its links), in
   one walk of the tree (iterative: any depth), for weights_of; None unless lexbor_bind was
   called. The tree must not change while the capsule is used. */
static PyObject *tree_weights(PyObject *self, PyObject *arg) {
    if (!lxb_bound)
        Py_RETURN_NONE;
    void *doc, *root = node_of(arg, &doc);
    if (!root)
        return NULL;
    Weights *w = PyMem_RawCalloc(1, sizeof(Weights));
    size_t depth_max = 64, depth = 0, count = 0;
    Frame *stack = PyMem_RawMalloc(depth_max * sizeof(Frame));
    if (!w || !stack || weights_alloc(w, 1024) < 0)
        goto nomem;
    size_t link = SIZE_MAX;  /* the depth of the outermost a[href] open, if any */
    stack[0] = (Frame){root, 0, 0};
    void *cur = lxb.first_child(root);
    for (;;) {
        if (cur) {
            uintptr_t tag = lxb.tag_id(cur);
            if (tag == lxb_tag_text) {
                int64_t weight = text_weight(cur, doc);
                stack[depth].total += weight;
                if (link == SIZE_MAX)
                    stack[depth].free += weight;
            } else if (lxb.type(cur) == LXB_TYPE_ELEMENT) {
                if (depth + 1 == depth_max) {
                    Frame *more = PyMem_RawRealloc(stack, 2 * depth_max * sizeof(Frame));
                    if (!more)
                        goto nomem;
                    stack = more;
                    depth_max *= 2;
                }
                stack[++depth] = (Frame){cur, 0, 0};
                if (link == SIZE_MAX && is_link(cur, tag))
                    link = depth;
                cur = lxb.first_child(cur);
                continue;
            } else if (weights_put(w, &count, cur, 0, 0) < 0) {  /* a comment: selectolax's iter() lists them */
                goto nomem;
            }
            cur = lxb.next(cur);
            continue;
        }
        /* the children of stack[depth] are done */
        Frame done = stack[depth];
        if (weights_put(w, &count, done.node, done.total, link <= depth ? -1 : done.free) < 0)  /* -1: not in the copy without links */
            goto nomem;
        if (depth == 0)
            break;
        if (link == depth)
            link = SIZE_MAX;
        depth--;
        stack[depth].total += done.total;
        stack[depth].free += done.free;
        cur = lxb.next(done.node);
    }
    PyMem_RawFree(stack);
    PyObject *capsule = PyCapsule_New(w, "contentseen.weights", weights_free);
    if (!capsule)
        weights_release(w);
    return capsule;
nomem:
    PyMem_RawFree(stack);
    weights_release(w);
    return PyErr_NoMemory();
}

/* The weight of the text of ``node``'s subtree outside a[href] elements (weights.chars of it in a
   copy of the tree without links), or cap + 1 once above ``cap``: links are not entered. */
static int64_t free_capped(void *node, int64_t cap, void *doc) {
    int64_t free = 0;
    void *cur = lxb.first_child(node), *next = NULL;
    while (cur) {
        uintptr_t tag = lxb.tag_id(cur);
        void *down = NULL;
        if (tag == lxb_tag_text) {
            free += text_weight(cur, doc);
            if (free > cap)
                return cap + 1;
        } else if (lxb.type(cur) == LXB_TYPE_ELEMENT
                   && !is_link(cur, tag)) {
            down = lxb.first_child(cur);
        }
        if (down) {
            cur = down;
            continue;
        }
        while (cur != node && !(next = lxb.next(cur)))
            cur = lxb.parent(cur);
        if (cur == node)
            break;
        cur = next;
    }
    return free;
}

/* kid_frees(node, cap, max_kids) -> (frees, loose) or None: for each child of ``node`` that
   weights.elements lists (every child but text and <a>; the first max_kids), its weight outside
   links capped (free_capped; 0 for a comment); and the weight outside links of the rest: its
   own text and its <a> children without href (a[href] ones weigh 0), capped as a whole. None
   unless lexbor_bind was called. */
static PyObject *kid_frees(PyObject *self, PyObject *args) {
    PyObject *ptr;
    long long cap;
    Py_ssize_t max_kids;
    if (!PyArg_ParseTuple(args, "OLn", &ptr, &cap, &max_kids))
        return NULL;
    if (!lxb_bound)
        Py_RETURN_NONE;
    void *doc, *node = node_of(ptr, &doc);
    if (!node)
        return NULL;
    PyObject *frees = PyList_New(0);
    if (!frees)
        return NULL;
    int64_t loose = 0;
    for (void *c = lxb.first_child(node); c; c = lxb.next(c)) {
        uintptr_t tag = lxb.tag_id(c);
        int element = lxb.type(c) == LXB_TYPE_ELEMENT;
        if (tag == lxb_tag_text || (element && tag == lxb_tag_a)) {
            if (loose <= cap && !is_link(c, tag))
                loose += tag == lxb_tag_text ? text_weight(c, doc) : free_capped(c, cap, doc);
            continue;
        }
        if (PyList_GET_SIZE(frees) == max_kids)
            continue;
        PyObject *f = PyLong_FromLongLong(element ? free_capped(c, cap, doc) : 0);
        if (!f || PyList_Append(frees, f) < 0) {
            Py_XDECREF(f);
            Py_DECREF(frees);
            return NULL;
        }
        Py_DECREF(f);
    }
    return Py_BuildValue("(NL)", frees, (long long)(loose > cap ? cap + 1 : loose));
}

/* weights_of(capsule, node) -> (total, free): tree_weights' figures of an element of the subtree;
   free is -1 for an a[href] element and the elements inside one (absent from a copy without links). */
static PyObject *weights_of(PyObject *self, PyObject *args) {
    PyObject *capsule, *node;
    if (!PyArg_ParseTuple(args, "OO", &capsule, &node))
        return NULL;
    Weights *w = (Weights *)PyCapsule_GetPointer(capsule, "contentseen.weights");
    uintptr_t key = (uintptr_t)PyLong_AsVoidPtr(node);
    if (!w || (!key && PyErr_Occurred()))
        return NULL;
    size_t at = weights_slot(w, key);
    if (!key || !w->keys[at]) {
        PyErr_SetString(PyExc_KeyError, "not an element of the tree weighed");
        return NULL;
    }
    return Py_BuildValue("(LL)", (long long)w->total[at], (long long)w->free[at]);
}

/* simhash(table, bits, size, stop, log_weights, mode, quantum, min_total, parts) -> (fingerprint, total)

   A fingerprint of fingerprints.PageFingerprinter made in one pass, as its numpy way makes it
   (_weighted, _Rows.pairs, word_weights, SimHasher.fingerprint_rows): each term's table row
   (``table``: +1 a set bit, -1 a clear one, ``bits`` <= 64 columns packed in ceil(bits / 8)
   bytes a row, column 8b + m in bit m of byte b; rows 0..size-1) added ``k`` times to the column
   sums, k = rint(weight * quantum), the weight quantized so that the sums are exact whatever
   their order. ``parts`` is a tuple of (hashes, counts, multiplier):

   counts given   a page's distinct tokens (uint64 hashes, int64 counts >= 1): row hash % size,
                  none for a stopword (its hash in ``stop``, sorted); weight multiplier * W(count);
   counts None    a sequence of words: each distinct pair of neighbours (r1, r2 their hashes
                  % size) gets row mix64((r1 * size + r2) ^ PAIR_SALT) % size and weight
                  multiplier * W(its count).

   W is the weighting: ``mode`` 0 the count, 1 1 + ln(count) (``log_weights[count]`` below its
   length, as word_weights), 2 one. ``total`` is the count of the first part's terms; below
   ``min_total`` the fingerprint is None. Allocates the weight classes (40 KiB) and, for a sequence,
   a table of twice its words. */

#define PAIR_SALT 0x5EED0F9A125ULL

static inline uint64_t splitmix_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Terms of one weight k are counted, not added: each term's packed row adds one to the 8-bit
   counter of each of its set columns (``spread``: 8 counters a uint64), flushed into the class's
   column counts every 255 terms. A column's sum is then sum over classes of k * (2 * set - terms),
   exact in int64. Terms of a weight whose class is not found in a few probes (all CLASSES taken)
   are added one by one. */
#define CLASSES 64

typedef struct {
    int64_t k, terms, set[64];
    uint64_t counters[8];
    int pending;
} Class;

typedef struct {
    const uint8_t *table; /* ceil(bits / 8) bytes a row, column 8b + m in bit m of byte b */
    Py_ssize_t bits, row_bytes;
    uint64_t size, mask; /* mask: size - 1 when size is a power of two (no division), else 0 */
    const double *log_weights;
    Py_ssize_t n_log;
    int mode;
    double quantum;
    int n_classes;
    Class *classes;
    uint8_t slots[2 * CLASSES]; /* class index + 1 by k's hash; 0: free */
    int64_t sums[64];
} Sums;

static uint64_t spread[256];

static inline uint64_t row_of(const Sums *s, uint64_t h) { return s->mask ? h & s->mask : h % s->size; }

static void class_flush(Class *c, Py_ssize_t row_bytes) {
    for (Py_ssize_t b = 0; b < row_bytes; b++) {
        for (int m = 0; m < 8; m++)
            c->set[8 * b + m] += (int64_t)((c->counters[b] >> (8 * m)) & 0xFF);
        c->counters[b] = 0;
    }
    c->pending = 0;
}

static inline void sums_add(Sums *s, uint64_t row, double multiplier, int64_t count) {
    if (count < 1)
        return;
    double w = s->mode == 0 ? (double)count
             : s->mode == 2 ? 1.0
             : count < s->n_log ? s->log_weights[count] : 1.0 + log((double)count);
    double scaled = multiplier * w;
    int64_t k = (int64_t)rint(scaled * s->quantum);
    const uint8_t *r = s->table + row * (uint64_t)s->row_bytes;
    Class *c = NULL;
    unsigned at = (unsigned)(((uint64_t)k * 0x9E3779B97F4A7C15ULL) >> 57); /* of 2 * CLASSES slots */
    for (int probes = 0; probes < 8; probes++, at = (at + 1) & (2 * CLASSES - 1)) {
        int i = s->slots[at] - 1;
        if (i >= 0 && s->classes[i].k == k) {
            c = s->classes + i;
            break;
        }
        if (i < 0) {
            if (s->n_classes < CLASSES) {
                s->slots[at] = (uint8_t)(s->n_classes + 1);
                c = s->classes + s->n_classes++;
                c->k = k;
            }
            break;
        }
    }
    if (!c) {
        for (Py_ssize_t j = 0; j < s->bits; j++)
            s->sums[j] += (r[j >> 3] >> (j & 7)) & 1 ? k : -k;
        return;
    }
    for (Py_ssize_t b = 0; b < s->row_bytes; b++)
        c->counters[b] += spread[r[b]];
    c->terms++;
    if (++c->pending == 255)
        class_flush(c, s->row_bytes);
}

static void sums_close(Sums *s) {
    for (int i = 0; i < s->n_classes; i++) {
        Class *c = s->classes + i;
        class_flush(c, s->row_bytes);
        for (Py_ssize_t j = 0; j < s->bits; j++)
            s->sums[j] += c->k * (2 * c->set[j] - c->terms);
    }
}

/* The distinct neighbouring pairs of a sequence, counted, then added. 0, or -1: no memory. */
static int pairs_add(Sums *s, const uint64_t *seq, Py_ssize_t n, double multiplier) {
    if (n < 2)
        return 0;
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap <<= 1;
    uint64_t *keys = PyMem_RawMalloc(cap * sizeof(uint64_t));
    int64_t *counts = PyMem_RawCalloc(cap, sizeof(int64_t));
    if (!keys || !counts) {
        PyMem_RawFree(keys);
        PyMem_RawFree(counts);
        return -1;
    }
    size_t mask = cap - 1;
    uint64_t next = row_of(s, seq[0]);
    for (Py_ssize_t i = 0; i + 1 < n; i++) {
        uint64_t first = next;
        next = row_of(s, seq[i + 1]);
        uint64_t key = first * s->size + next;
        size_t at = (size_t)splitmix_mix(key) & mask;
        while (counts[at] && keys[at] != key)
            at = (at + 1) & mask;
        keys[at] = key;
        counts[at]++;
    }
    for (size_t at = 0; at < cap; at++)
        if (counts[at])
            sums_add(s, row_of(s, splitmix_mix(keys[at] ^ PAIR_SALT)), multiplier, counts[at]);
    PyMem_RawFree(keys);
    PyMem_RawFree(counts);
    return 0;
}

static PyObject *simhash(PyObject *self, PyObject *args) {
    Py_buffer tb, sb, lb;
    Py_ssize_t bits, size, min_total;
    int mode;
    double quantum;
    PyObject *parts;
    if (!PyArg_ParseTuple(args, "y*nny*y*idnO!", &tb, &bits, &size, &sb, &lb, &mode, &quantum, &min_total,
                          &PyTuple_Type, &parts))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n_parts = PyTuple_GET_SIZE(parts), done = 0;
    Py_buffer *bufs = PyMem_RawCalloc((size_t)(2 * n_parts + 1), sizeof(Py_buffer));
    double *multipliers = PyMem_RawMalloc((size_t)(n_parts + 1) * sizeof(double));
    Sums s = {tb.buf, bits, (bits + 7) / 8, (uint64_t)size, (size & (size - 1)) ? 0 : (uint64_t)size - 1, lb.buf, lb.len / (Py_ssize_t)sizeof(double), mode, quantum,
              0, PyMem_RawCalloc(CLASSES, sizeof(Class)), {0}, {0}};
    if (!bufs || !multipliers || !s.classes) {
        PyErr_NoMemory();
        goto out;
    }
    if (bits < 1 || bits > 64 || size < 1 || tb.len < size * ((bits + 7) / 8) || mode < 0 || mode > 2) {
        PyErr_SetString(PyExc_ValueError, "simhash: bad table, bits, size or mode");
        goto out;
    }
    for (; done < n_parts; done++) {
        Py_buffer *b = bufs + 2 * done;
        PyObject *counts = Py_None;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(parts, done), "y*Od", b, &counts, multipliers + done))
            goto out;
        if (counts != Py_None && PyObject_GetBuffer(counts, b + 1, PyBUF_SIMPLE) < 0) {
            done++;
            goto out;
        }
        if (b[1].obj && b[1].len != b->len) {
            done++;
            PyErr_SetString(PyExc_ValueError, "simhash: a part's arrays differ in length");
            goto out;
        }
    }
    int64_t total = 0;
    int status = 0;
    const uint64_t *stop = sb.buf;
    Py_ssize_t n_stop = sb.len / 8;
    uint64_t maybe_stop[64] = {0}; /* a bit a stopword's hash % 4096: most words need no search */
    for (Py_ssize_t i = 0; i < n_stop; i++)
        maybe_stop[(stop[i] >> 6) & 63] |= (uint64_t)1 << (stop[i] & 63);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t p = 0; p < n_parts && status == 0; p++) {
        Py_buffer *b = bufs + 2 * p;
        const uint64_t *hashes = b->buf;
        Py_ssize_t n = b->len / 8;
        if (!b[1].obj) {
            status = pairs_add(&s, hashes, n, multipliers[p]);
            continue;
        }
        const int64_t *counts = b[1].buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            uint64_t h = hashes[i];
            if ((maybe_stop[(h >> 6) & 63] >> (h & 63)) & 1 && key_in64(h, stop, n_stop))
                continue;
            if (p == 0)
                total += counts[i];
            sums_add(&s, row_of(&s, h), multipliers[p], counts[i]);
        }
        if (p == 0 && total < min_total)
            status = 1;
    }
    if (status == 0)
        sums_close(&s);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
        goto out;
    }
    if (status == 1) {
        result = Py_BuildValue("(OL)", Py_None, (long long)total);
        goto out;
    }
    uint64_t fingerprint = 0;
    for (Py_ssize_t j = 0; j < bits; j++)
        fingerprint = (fingerprint << 1) | (uint64_t)(s.sums[j] > 0);
    result = Py_BuildValue("(KL)", (unsigned long long)fingerprint, (long long)total);
out:
    for (Py_ssize_t i = 0; bufs && i < 2 * done; i++)
        if (bufs[i].obj)
            PyBuffer_Release(bufs + i);
    PyMem_RawFree(bufs);
    PyMem_RawFree(multipliers);
    PyMem_RawFree(s.classes);
    PyBuffer_Release(&tb);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&lb);
    return result;
}

/* line_keys(text, min_chars) -> (keys, others): templates._keys's lines of ``text``: each line (split
   at "\n") stripped of whitespace (Py_UNICODE_ISSPACE, as re's \s), when ``min_chars`` long or
   more, folded -- each run of ASCII digits one "0", then case-folded as str.casefold folds the
   characters below U+0100 -- and, when still ``min_chars`` characters long, keyed by the xxh64 of
   its UTF-8 (``keys``, ints, in order). A stripped line holding a character from U+0100 on goes
   to ``others`` (strs) as it is: Python folds it. */
static PyObject *line_keys(PyObject *self, PyObject *args) {
    PyObject *text;
    Py_ssize_t min_chars;
    if (!PyArg_ParseTuple(args, "Un", &text, &min_chars))
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    PyObject *keys = PyList_New(0), *others = PyList_New(0), *result = NULL;
    uint8_t *folded = PyMem_RawMalloc(2 * (size_t)n + 1); /* UTF-8 of the folded: 2 bytes a character at most */
    if (!keys || !others || !folded) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t start = 0; start <= n;) {
        Py_ssize_t end = start;
        while (end < n && PyUnicode_READ(kind, data, end) != '\n')
            end++;
        Py_ssize_t a = start, b = end;
        while (a < b && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, a)))
            a++;
        while (b > a && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, b - 1)))
            b--;
        if (b - a >= min_chars) {
            Py_ssize_t len = 0, chars = 0;
            int ascii = 1, in_digits = 0; /* ascii: every character below U+0100, folded here */
            for (Py_ssize_t i = a; i < b && ascii; i++) {
                Py_UCS4 c = PyUnicode_READ(kind, data, i);
                int digit = c >= '0' && c <= '9';
                if (c >= 0x100)
                    ascii = 0;
                else if (digit) {
                    if (!in_digits) {
                        folded[len++] = '0';
                        chars++;
                    }
                } else if (c == 0xDF) { /* str.casefold: sharp s is "ss", micro sign is Greek mu */
                    folded[len++] = 's';
                    folded[len++] = 's';
                    chars += 2;
                } else if (c == 0xB5) {
                    folded[len++] = 0xCE;
                    folded[len++] = 0xBC;
                    chars++;
                } else {
                    if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7))
                        c += 0x20;
                    if (c < 0x80)
                        folded[len++] = (uint8_t)c;
                    else {
                        folded[len++] = (uint8_t)(0xC0 | (c >> 6));
                        folded[len++] = (uint8_t)(0x80 | (c & 0x3F));
                    }
                    chars++;
                }
                in_digits = digit;
            }
            PyObject *item = !ascii ? PyUnicode_Substring(text, a, b)
                           : chars >= min_chars ? PyLong_FromUnsignedLongLong(xxh64(folded, (size_t)len)) : NULL;
            if (!ascii || chars >= min_chars) {
                if (!item || PyList_Append(ascii ? keys : others, item) < 0) {
                    Py_XDECREF(item);
                    goto out;
                }
                Py_DECREF(item);
            }
        }
        start = end + 1;
    }
    result = PyTuple_Pack(2, keys, others);
out:
    Py_XDECREF(keys);
    Py_XDECREF(others);
    PyMem_RawFree(folded);
    return result;
}

static PyObject *hash64(PyObject *self, PyObject *args) {
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "y*", &buf))
        return NULL;
    uint64_t h = xxh64((const uint8_t *)buf.buf, (size_t)buf.len);
    PyBuffer_Release(&buf);
    return PyLong_FromUnsignedLongLong(h);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "scan(data, separators) -> (hashes, counts, flags, sequence, words, indices, others): see the module."},
    {"merge_others", merge_others, METH_VARARGS, "merge_others(hashes, counts, flags, sequence, indices, folded) -> (hashes, counts, kinds, words) or None: see the module."},
    {"tag_names", tag_names, METH_VARARGS, "tag_names(names, flags, marked_elements, marked_attributes): the element names markup._StackModel knows, its flags of each, and the names whose marks tag_model gives."},
    {"tag_model", tag_model, METH_VARARGS, "tag_model(raw, most, reopen_cost, quirks, limit) -> (cost, depth, marks): markup._tag_model's figures."},
    {"tag_scan", tag_scan, METH_VARARGS, "tag_scan(raw, swallower_keys) -> (tags, starts, names)."},
    {"nonblank", nonblank, METH_O, "nonblank(text) -> int: its characters other than ASCII blanks and U+00A0."},
    {"weigh", weigh, METH_O, "weigh(text) -> int: the UTF-8 bytes of those characters."},
    {"lexbor_bind", lexbor_bind, METH_VARARGS, "lexbor_bind(first_child, next, parent, tag_id, type, text_content, destroy_text, has_attribute, text_tag, a_tag): the addresses of lexbor's functions, and its tag ids of text and <a>."},
    {"tree_weights", tree_weights, METH_O, "tree_weights(root) -> capsule or None: every element's text weight, with and without links."},
    {"weights_of", weights_of, METH_VARARGS, "weights_of(capsule, node) -> (total, free)."},
    {"kid_frees", kid_frees, METH_VARARGS, "kid_frees(node, cap, max_kids) -> (frees, loose) or None: the children's weights outside links, capped."},
    {"simhash", simhash, METH_VARARGS, "simhash(table, bits, size, stop, log_weights, mode, quantum, min_total, parts) -> (fingerprint or None, total): see above."},
    {"line_keys", line_keys, METH_VARARGS, "line_keys(text, min_chars) -> (keys, others): templates._keys's lines, keyed."},
    {"parse_bind", parse_bind, METH_VARARGS, "parse_bind(process, first_attribute, next_attribute, array_length, array_get, marker): the addresses of lexbor's functions parse_chunks calls, and of the list's marker."},
    {"parse_chunks", parse_chunks, METH_VARARGS, "parse_chunks(parser, data, chunk, cut, open_elements, list, most, most_listed, budget_ns) -> 0, 1 (stopped) or 2 (lexbor failed): see contentseen.parse."},
    {"hash64", hash64, METH_VARARGS, "hash64(data: bytes) -> int: XXH64 with seed 0."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "contentseen._speedups",
    "The token and tag scans of contentseen in C (an optional build: without it, Python does the same).", -1, methods,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    for (int c = 0; c < 256; c++) {
        if (c >= 'A' && c <= 'Z')
            piece_byte[c] = (uint8_t)(c | 0x20);
        else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80)
            piece_byte[c] = (uint8_t)c;
        else
            piece_byte[c] = 0;
        int blank = c == ' ' || (c >= '\t' && c <= '\r') || c == 0xA0;
        low_weight[0][c] = (uint8_t)!blank;
        low_weight[1][c] = (uint8_t)(blank ? 0 : c < 0x80 ? 1 : 2);
        tag_class[c] = (uint8_t)((c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' ? TAG_BLANK : 0)
                                 | (c == '/' ? TAG_SLASH : 0) | (c == '>' ? TAG_GT : 0) | (c == '=' ? TAG_EQUALS : 0));
    }
    for (int v = 0; v < 256; v++) {
        spread[v] = 0;
        for (int m = 0; m < 8; m++)
            spread[v] |= (uint64_t)((v >> m) & 1) << (8 * m);
    }
    PyObject *m = PyModule_Create(&module);
    /* contentseen._native.API: the Python side uses this module only when they agree. */
    if (m && PyModule_AddIntConstant(m, "API", 20) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
