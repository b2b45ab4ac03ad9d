/* The compiled level loop's keys (Key: 64 or 128 bits) and hash tables (engine.c): the tables of
 * a level being built, with the engines' tie-break (the seen set is seen.h's). Header-only so
 * the hot paths inline into the loop. */
#ifndef HWCHECK_TABLES_H
#define HWCHECK_TABLES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xxh3.h"

#ifndef HW_KEY_BITS
#define HW_KEY_BITS 64
#endif

/* A 64-bit hash of a row: 8-byte words folded by multiply and rotate, then a final mix.
 * Never 0 (the tables' empty slot). */
static inline uint64_t row_hash64(const uint8_t *p, int len) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)len;
    int i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h ^= w * 0xC2B2AE3D27D4EB4Full;
        h = ((h << 31) | (h >> 33)) * 0x9E3779B97F4A7C15ull;
    }
    uint64_t w = 0;
    memcpy(&w, p + i, len - i);
    h ^= w * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return h ? h : 1;
}

/* The key a state is deduplicated on (HW_KEY_BITS, 64 unless the library was built with
 * -DHW_KEY_BITS=128, checker/native/build.py): the row's 64-bit hash, and with 128 bits
 * xxh3_64 of the row above it, a hash of another design, which two distinct states must
 * also share to be taken for one. The low word alone picks partitions, sub-tables, slots. */
#if HW_KEY_BITS == 128
typedef unsigned __int128 Key;
static inline Key row_hash(const uint8_t *p, int len) {
    return (Key)xxh3_64(p, (size_t)len) << 64 | row_hash64(p, len);
}
#else
typedef uint64_t Key;
static inline Key row_hash(const uint8_t *p, int len) { return row_hash64(p, len); }
#endif

static inline uint64_t key_low(Key h) { return (uint64_t)h; }

/* The most states a level may hold (LEVEL_MAX): a state's parent is its frontier index, and
 * the index stores entry + 1, both as uint32. A table past it is refused (TABLE_LIMIT, the
 * engine's ENG_LIMIT), not wrapped; the engine checks the whole level against its own
 * limit (eng_finish; tests lower it with eng_set_level_limit). */
#define LEVEL_MAX ((size_t)UINT32_MAX - 1)
#define TABLE_NO_MEMORY (-1)
#define TABLE_LIMIT (-3)

/* States found in a level: rows, row hashes, parent (frontier index) and label, with an
 * open-addressing index by hash. The engine builds the level in one; with threads, each
 * worker fills its own and the engine merges them. At most LEVEL_MAX entries: table_push
 * and table_offer return TABLE_LIMIT past it. */
typedef struct {
    uint8_t *rows;
    Key *h;
    uint32_t *parent;
    uint16_t *label;
    size_t n, cap;
    uint32_t *index; /* entry + 1 per slot (0: empty) */
    size_t index_cap;
} __attribute__((aligned(64))) Table; /* one cache line apart: each thread writes its own */

static inline int table_full(const Table *t) { return t->n >= LEVEL_MAX; }

/* The partition that owns a key, of `threads`: bits 32..47 scaled by a multiply (no
 * division on the hot path; the low bits pick table slots, bits 48..55 the seen set's
 * sub-tables: seen.h). */
static inline int part_of(int threads, Key h) {
    return (int)((((key_low(h) >> 32) & 0xFFFF) * (uint64_t)threads) >> 16);
}

/* -- level tables ---------------------------------------------------------------------------- */
static inline int table_reindex(Table *t, size_t cap) {
    uint32_t *index = calloc(cap, sizeof(uint32_t));
    if (!index) return -1;
    free(t->index);
    t->index = index;
    t->index_cap = cap;
    for (size_t k = 0; k < t->n; k++) {
        size_t mask = cap - 1, i = key_low(t->h[k]) & mask;
        while (index[i]) i = (i + 1) & mask;
        index[i] = (uint32_t)(k + 1);
    }
    return 0;
}

/* Double the entry arrays (from 1024 entries); the index is the caller's. */
static inline int table_double(Table *t, int width) {
    size_t cap = t->cap ? t->cap * 2 : 1024;
    uint8_t *rows = realloc(t->rows, cap * width);
    if (!rows) return -1;
    t->rows = rows;
#define GROW(field, type)                                                                          \
    do {                                                                                           \
        type *p = realloc(t->field, cap * sizeof(type));                                           \
        if (!p) return -1;                                                                         \
        t->field = p;                                                                              \
    } while (0)
    GROW(h, Key);
    GROW(parent, uint32_t);
    GROW(label, uint16_t);
#undef GROW
    t->cap = cap;
    return 0;
}

static inline int table_grow(Table *t, int width) {
    return table_double(t, width) ? -1 : table_reindex(t, t->cap * 2);
}

/* Append an entry without looking for it (a worker's finds for another partition: its
 * owner dedups them at the merge). 0, TABLE_NO_MEMORY or TABLE_LIMIT. */
static inline int table_push(Table *t, int width, const uint8_t *row, Key h, uint32_t parent,
                             uint16_t label) {
    if (table_full(t)) return TABLE_LIMIT;
    if (t->n == t->cap && table_double(t, width)) return TABLE_NO_MEMORY;
    size_t at = t->n++;
    memcpy(t->rows + at * width, row, width);
    t->h[at] = h;
    t->parent[at] = parent;
    t->label[at] = label;
    return 0;
}

static inline void table_clear(Table *t) { /* keeps its arrays */
    t->n = 0;
    if (t->index) memset(t->index, 0, t->index_cap * sizeof(uint32_t));
}

static inline void table_free(Table *t) {
    free(t->rows);
    free(t->h);
    free(t->parent);
    free(t->label);
    free(t->index);
}

static inline int better(uint64_t pfp, uint16_t rank, uint64_t old_pfp, uint16_t old_rank) {
    return pfp < old_pfp || (pfp == old_pfp && rank < old_rank);
}

/* Offer a state found from frontier state `parent` by `label`: a new entry, or the entry
 * already there re-parented if this discovery wins the tie-break. 0, TABLE_NO_MEMORY or
 * TABLE_LIMIT (a new entry past LEVEL_MAX). */
static inline int table_offer(Table *t, int width, const uint64_t *front_fp, const uint16_t *rank,
                              const uint8_t *row, Key h, uint32_t parent, uint16_t label) {
    size_t mask = t->index_cap - 1, slot = key_low(h) & mask;
    for (; t->index[slot]; slot = (slot + 1) & mask) {
        size_t at = t->index[slot] - 1;
        if (t->h[at] != h) continue;
        if (better(front_fp[parent], rank[label], front_fp[t->parent[at]], rank[t->label[at]])) {
            t->parent[at] = parent;
            t->label[at] = label;
        }
        return 0;
    }
    if (table_full(t)) return TABLE_LIMIT;
    if (t->n == t->cap) {
        if (table_grow(t, width)) return TABLE_NO_MEMORY;
        mask = t->index_cap - 1;
        for (slot = key_low(h) & mask; t->index[slot]; slot = (slot + 1) & mask) {}
    }
    size_t at = t->n++;
    memcpy(t->rows + at * width, row, width);
    t->h[at] = h;
    t->parent[at] = parent;
    t->label[at] = label;
    t->index[slot] = (uint32_t)(at + 1);
    return 0;
}

#endif
