/* Helpers every compiled model shares: writing the reference state's marshal encoding
 * (format 2: checker.fingerprint.encode), stepping through the renamings of tied replicas
 * (checker.symmetry's canonical form) and laying out a thread's scratch space. */
#ifndef HWCHECK_ROWS_H
#define HWCHECK_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The most replicas a row can name: replica sets are 8-bit masks (w_members). A model's own
 * limit (its MAXN) is at most this. */
#define ROWS_MAX_REPLICAS 8

/* Where the parts of a model's scratch block (model.h: model_scratch_size) start: the
 * successor states being generated at 0 (room for `succ` and a spare: emit), their labels,
 * then the canonical form's two encodings (`marshal` bytes each); each part on a 64-byte
 * boundary, `size` bytes in all. A model plans it once, in model_new. */
typedef struct {
    size_t labels, best, bytes, size;
} ScratchPlan;

static inline size_t round64(size_t bytes) { return (bytes + 63) / 64 * 64; }

static inline ScratchPlan scratch_plan(int succ, size_t state_size, int marshal) {
    ScratchPlan p;
    p.labels = round64((size_t)(succ + 1) * state_size);
    p.best = p.labels + round64((size_t)(succ + 1) * sizeof(uint16_t));
    p.bytes = p.best + round64((size_t)marshal);
    p.size = p.bytes + round64((size_t)marshal);
    return p;
}

/* The part of a scratch block at `at`. */
static inline void *part(void *scratch, size_t at) { return (uint8_t *)scratch + at; }

/* A tuple of n items: '(' and n as a 32-bit little-endian count. */
static inline uint8_t *w_tuple(uint8_t *b, int n) {
    *b++ = '(';
    b[0] = (uint8_t)n;
    b[1] = (uint8_t)(n >> 8);
    b[2] = 0;
    b[3] = 0;
    return b + 4;
}

/* An int: 'i' and its 32-bit little-endian value. */
static inline uint8_t *w_int(uint8_t *b, int v) {
    uint32_t u = (uint32_t)(int32_t)v;
    *b++ = 'i';
    b[0] = u;
    b[1] = u >> 8;
    b[2] = u >> 16;
    b[3] = u >> 24;
    return b + 4;
}

/* An int, or None ('N') for a negative value. */
static inline uint8_t *w_opt(uint8_t *b, int v) {
    if (v < 0) {
        *b++ = 'N';
        return b;
    }
    return w_int(b, v);
}

/* The sorted tuple of the members of a bit mask. */
static inline uint8_t *w_members(uint8_t *b, uint8_t mask) {
    b = w_tuple(b, __builtin_popcount(mask));
    for (int r = 0; r < ROWS_MAX_REPLICAS; r++)
        if ((mask >> r) & 1) b = w_int(b, r);
    return b;
}

/* Two logs' records [0, h) as Python compares the slices a[:h] == b[:h]: a log is its LEO and
 * the id and epoch of each record. */
static inline int same_prefix(int len_a, const int8_t *id_a, const int8_t *ep_a, int len_b,
                              const int8_t *id_b, const int8_t *ep_b, int h) {
    int la = len_a < h ? len_a : h, lb = len_b < h ? len_b : h;
    if (la != lb) return 0;
    for (int o = 0; o < la; o++)
        if (id_a[o] != id_b[o] || ep_a[o] != ep_b[o]) return 0;
    return 1;
}

/* Python's bytes order: a < b. */
static inline int bytes_less(const uint8_t *a, int la, const uint8_t *b, int lb) {
    int c = memcmp(a, b, la < lb ? la : lb);
    return c < 0 || (c == 0 && la < lb);
}

/* The next permutation of a[0..len) in increasing order; 0 once it wrapped to sorted. */
static inline int next_permutation(int *a, int len) {
    int i = len - 2;
    while (i >= 0 && a[i] >= a[i + 1]) i--;
    if (i < 0) {
        for (int lo = 0, hi = len - 1; lo < hi; lo++, hi--) {
            int t = a[lo];
            a[lo] = a[hi];
            a[hi] = t;
        }
        return 0;
    }
    int j = len - 1;
    while (a[j] <= a[i]) j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int lo = i + 1, hi = len - 1; lo < hi; lo++, hi--) {
        t = a[lo];
        a[lo] = a[hi];
        a[hi] = t;
    }
    return 1;
}

typedef int (*KeyCmp)(const void *model, const void *state, int a, int b);
typedef void (*Rename)(const void *model, const void *state, const int *perm, void *out);
typedef int (*Encode)(const void *model, const void *state, uint8_t *buf);

/* What canonical_form says of the renaming it kept (when asked): replica r became perm[r], and
 * whether two replicas' keys tie (when none does, the identity is the only renaming that leaves
 * the representative as it is: a renaming that fixes a state keeps each replica's key). */
typedef struct {
    int perm[ROWS_MAX_REPLICAS];
    int tied;
} Renaming;

/* checker.symmetry.ReplicaSymmetry.canonical for a model whose `n` replicas compare by `cmp`
 * (its replica keys), are renamed by `rename` (replica r becomes perm[r]) and encoded by
 * `encode` (the reference state's marshal bytes): the replicas sorted by key (a stable sort);
 * with no tie, the one renaming that sorts them; else every order of the tied replicas,
 * keeping the renamed state with the smallest encoding. `cand` is scratch for one state,
 * `best` and `bytes` for one encoding each, `room` bytes (the model's max_marshal, which
 * bounds every encoding). 0, or -1 when n is past ROWS_MAX_REPLICAS or an encoding came out
 * longer than `room` (a wrong bound: the caller reports it). */
static inline int canonical_form(const void *model, const void *state, int n, size_t state_size,
                                 KeyCmp cmp, Rename rename, Encode encode, void *out, void *cand,
                                 uint8_t *best, uint8_t *bytes, int room, Renaming *kept) {
    if (n < 1 || n > ROWS_MAX_REPLICAS) return -1;
    int order[ROWS_MAX_REPLICAS], perm[ROWS_MAX_REPLICAS], starts[ROWS_MAX_REPLICAS + 1];
    int groups = 0, tied = 0;
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++) {
        int v = order[i], j = i - 1;
        while (j >= 0 && cmp(model, state, order[j], v) > 0) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = v;
    }
    for (int i = 0; i < n; i++) {
        if (i == 0 || cmp(model, state, order[i - 1], order[i]) != 0)
            starts[groups++] = i;
        else
            tied = 1;
    }
    starts[groups] = n;
    if (kept) kept->tied = tied;
    if (!tied) {
        for (int pos = 0; pos < n; pos++) perm[order[pos]] = pos;
        rename(model, state, perm, out);
        if (kept) memcpy(kept->perm, perm, sizeof(int) * (size_t)n);
        return 0;
    }
    int best_len = -1;
    for (;;) {
        for (int pos = 0; pos < n; pos++) perm[order[pos]] = pos;
        rename(model, state, perm, cand);
        int len = encode(model, cand, bytes);
        if (len > room) return -1;
        if (best_len < 0 || bytes_less(bytes, len, best, best_len)) {
            memcpy(best, bytes, len);
            best_len = len;
            memcpy(out, cand, state_size);
            if (kept) memcpy(kept->perm, perm, sizeof(int) * (size_t)n);
        }
        int g = groups - 1;
        while (g >= 0 && !next_permutation(order + starts[g], starts[g + 1] - starts[g])) g--;
        if (g < 0) break;
    }
    return 0;
}

#endif
