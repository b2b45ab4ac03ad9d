/* The compiled engine's seen set (seen.c): every key found so far, split per partition into
 * SUBTABLES sorted, bit-packed arrays (a compact set, about 5.5 bytes a 64-bit key).
 *
 * A 64-bit key's sub-table is bits 48..55 (implied by where it is kept, not stored). The
 * other 56 bits form its residual (seen_residual), reordered so that the bits that pick its
 * partition (32..47: tables.h part_of) come last and the residual's top bits are uniform
 * over a partition. A sub-table of n keys has 2^b buckets (b = log2 n - 3, so about 8 to 16
 * keys a bucket): a bucket is the residual's top b bits, and an entry stores only the other
 * 56 - b, packed, in order, with a 32-bit start per bucket. So at 10^8 keys on 2 partitions
 * (195,000 a sub-table, b = 14) an entry is 42 bits and its bucket's share 2 to 4 bits.
 * 128-bit keys (HW_KEY_BITS) keep each key's high word beside it, whole.
 *
 * Keys are added a batch at a time (seen_add: a level's new keys, at eng_finish), each
 * touched sub-table rebuilt by a merge; a lookup reads one bucket. The idea is Elias and
 * Fano's (a sorted set kept as high bits in buckets and fixed-width low bits); the
 * quotienting of hash keys is Cleary's (IEEE Trans. Computers, 1984). */
#ifndef HWCHECK_SEEN_H
#define HWCHECK_SEEN_H

#include <stdint.h>
#include <string.h>

#include "tables.h"

#define SUBTABLES 256
#define RESIDUAL_BITS 56
/* The most keys one sub-table holds (its bucket starts are 32-bit): 2^32 - 1, so a seen set
 * holds at most about 2^40 keys a partition; seen_add refuses past it (TABLE_LIMIT). */
#define SUB_MAX ((size_t)UINT32_MAX)

typedef struct {
    uint8_t *packed; /* count entries of `width` bits, in order; 8 bytes of padding after */
    uint32_t *start; /* (1 << b) + 1 of them: bucket j holds entries start[j] .. start[j+1]-1 */
#if HW_KEY_BITS == 128
    uint64_t *high; /* each entry's high word */
#endif
    size_t count;
    int b, width; /* width = RESIDUAL_BITS - b */
} SubSeen;

typedef struct {
    SubSeen sub[SUBTABLES];
} __attribute__((aligned(64))) Seen;

static inline int sub_index(Key h) { return (int)((key_low(h) >> 48) & (SUBTABLES - 1)); }

/* The 56 bits of a 64-bit key that its sub-table does not imply: bits 56..63, then 0..31,
 * then 32..47 (its partition's bits, last). */
static inline uint64_t seen_residual(uint64_t low) {
    return (low >> 56) << 48 | (low & 0xFFFFFFFFull) << 16 | ((low >> 32) & 0xFFFF);
}

/* The key's low word back from its residual and sub-table. */
static inline uint64_t seen_unresidual(uint64_t r, int sub) {
    return (r >> 48) << 56 | (uint64_t)sub << 48 | (r & 0xFFFF) << 32 | ((r >> 16) & 0xFFFFFFFFull);
}

/* Entry i of `width` bits (at most 57) from a packed array: one unaligned 8-byte load. */
static inline uint64_t packed_get(const uint8_t *p, int width, size_t i) {
    size_t bit = i * (size_t)width;
    uint64_t w;
    memcpy(&w, p + (bit >> 3), 8);
    return (w >> (bit & 7)) & ((1ull << width) - 1);
}

/* Whether the seen set `parts` (one Seen per partition, of `threads`) holds h. */
static inline int seen_has(const Seen *parts, int threads, Key h) {
    const SubSeen *s = &parts[part_of(threads, h)].sub[sub_index(h)];
    if (!s->count) return 0;
    uint64_t r = seen_residual(key_low(h));
    int width = s->width;
    uint64_t entry = r & ((1ull << width) - 1);
    size_t j = (size_t)(r >> width);
    for (size_t i = s->start[j], end = s->start[j + 1]; i < end; i++) {
        uint64_t v = packed_get(s->packed, width, i);
        if (v < entry) continue;
        if (v > entry) return 0;
#if HW_KEY_BITS == 128
        if (s->high[i] == (uint64_t)(h >> 64)) return 1;
#else
        return 1;
#endif
    }
    return 0;
}

/* Ask for the cache line of h's bucket start ahead of seen_has. */
static inline void seen_prefetch(const Seen *parts, int threads, Key h) {
    const SubSeen *s = &parts[part_of(threads, h)].sub[sub_index(h)];
    if (s->count) __builtin_prefetch(&s->start[seen_residual(key_low(h)) >> s->width]);
}

/* Ask for the cache line of h's bucket's first entry (its start read: seen_prefetch first). */
static inline void seen_prefetch_entries(const Seen *parts, int threads, Key h) {
    const SubSeen *s = &parts[part_of(threads, h)].sub[sub_index(h)];
    if (s->count) {
        size_t first = s->start[seen_residual(key_low(h)) >> s->width];
        __builtin_prefetch(s->packed + ((first * (size_t)s->width) >> 3));
    }
}

/* seen.c */
/* Add `n` keys, all of one partition, to its Seen (keys already in it, or repeated, are
 * kept once; `keys` is not changed). 0, TABLE_NO_MEMORY, or TABLE_LIMIT past SUB_MAX. */
int seen_add(Seen *part, const Key *keys, size_t n);
/* Add `n` keys of any partitions to the seen set `parts`. 0 or as seen_add. */
int seen_add_any(Seen *parts, int threads, const Key *keys, size_t n);
/* Keys held, bytes held (the arrays' allocations), and every key copied to `out` (sorted by
 * partition, sub-table, residual). */
size_t seen_count(const Seen *parts, int threads);
size_t seen_bytes(const Seen *parts, int threads);
void seen_copy(const Seen *parts, int threads, Key *out);
/* Empty the seen set, freeing its arrays. */
void seen_clear(Seen *parts, int threads);

#endif
