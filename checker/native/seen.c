/* The seen set's batch insert, copy and bytes (seen.h has the layout and the lookup). */
#include <stdlib.h>
#include <string.h>

#include "seen.h"

/* A key's place in a partition's order: sub-table, then residual. */
static inline uint64_t sort_word(Key h) {
    return (uint64_t)sub_index(h) << RESIDUAL_BITS | seen_residual(key_low(h));
}

static inline int key_less(Key a, Key b) {
    uint64_t wa = sort_word(a), wb = sort_word(b);
#if HW_KEY_BITS == 128
    return wa < wb || (wa == wb && (uint64_t)(a >> 64) < (uint64_t)(b >> 64));
#else
    return wa < wb;
#endif
}

/* Sort `n` keys into `a` by sort_word (then, at 128 bits, high word), with `tmp` of n keys:
 * least significant byte first, a pass skipped when every key shares its byte. */
static void sort_keys(Key *a, Key *tmp, size_t n) {
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++) count[((sort_word(a[i]) >> shift) & 0xFF) + 1]++;
        int one = 0;
        for (int d = 1; d <= 256; d++) one |= count[d] == n;
        if (one) continue;
        for (int d = 1; d <= 256; d++) count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++) tmp[count[(sort_word(a[i]) >> shift) & 0xFF]++] = a[i];
        memcpy(a, tmp, n * sizeof(Key));
    }
#if HW_KEY_BITS == 128
    for (size_t i = 1; i < n; i++) { /* keys sharing a low word (rare): by high word */
        Key k = a[i];
        size_t j = i;
        for (; j > 0 && key_less(k, a[j - 1]); j--) a[j] = a[j - 1];
        a[j] = k;
    }
#endif
}

/* Bucket bits for a sub-table of n keys: about 8 to 16 keys a bucket. */
static int bucket_bits(size_t n) {
    int b = 0;
    while (b < 24 && ((size_t)16 << b) <= n) b++;
    return b;
}

/* Rebuild sub-table `sub` of s with `add` (n keys of it, sorted, none repeated) merged in. */
static int sub_merge(SubSeen *s, int sub, const Key *add, size_t n) {
    size_t total = s->count + n;
    if (total > SUB_MAX) return TABLE_LIMIT;
    int b = bucket_bits(total), width = RESIDUAL_BITS - b;
    uint64_t mask = (1ull << width) - 1;
    uint8_t *packed = calloc((total * width + 7) / 8 + 8, 1);
    uint32_t *start = calloc(((size_t)1 << b) + 1, sizeof(uint32_t));
#if HW_KEY_BITS == 128
    uint64_t *high = malloc(total * sizeof(uint64_t));
    int lost = !high;
#else
    int lost = 0;
#endif
    if (lost || !packed || !start) {
        free(packed);
        free(start);
#if HW_KEY_BITS == 128
        free(high);
#endif
        return TABLE_NO_MEMORY;
    }
    size_t i = 0, k = 0, out = 0, bucket = 0, bit = 0;
    while (i < s->count || k < n) {
        uint64_t r;
        Key key = 0;
        if (i < s->count) { /* the old entry i, as a key */
            while (s->start[bucket + 1] <= i) bucket++;
            uint64_t old = (uint64_t)bucket << s->width | packed_get(s->packed, s->width, i);
            key = seen_unresidual(old, sub);
#if HW_KEY_BITS == 128
            key |= (Key)s->high[i] << 64;
#endif
        }
        if (k < n && (i == s->count || !key_less(key, add[k]))) {
            if (i < s->count && key == add[k]) i++; /* already held: keep one */
            key = add[k++];
        } else {
            i++;
        }
        r = seen_residual(key_low(key));
        uint64_t w;
        memcpy(&w, packed + (bit >> 3), 8);
        w |= (r & mask) << (bit & 7);
        memcpy(packed + (bit >> 3), &w, 8);
        bit += (size_t)width;
        start[(r >> width) + 1]++;
#if HW_KEY_BITS == 128
        high[out] = (uint64_t)(key >> 64);
#endif
        out++;
    }
    for (size_t j = 1; j <= ((size_t)1 << b); j++) start[j] += start[j - 1];
    free(s->packed);
    free(s->start);
    s->packed = packed;
    s->start = start;
#if HW_KEY_BITS == 128
    free(s->high);
    s->high = high;
#endif
    s->count = out;
    s->b = b;
    s->width = width;
    return 0;
}

int seen_add(Seen *part, const Key *keys, size_t n) {
    if (!n) return 0;
    Key *a = malloc(n * sizeof(Key)), *tmp = malloc(n * sizeof(Key));
    if (!a || !tmp) {
        free(a);
        free(tmp);
        return TABLE_NO_MEMORY;
    }
    memcpy(a, keys, n * sizeof(Key));
    sort_keys(a, tmp, n);
    size_t kept = 0; /* drop repeats */
    for (size_t i = 0; i < n; i++)
        if (!kept || a[i] != a[kept - 1]) a[kept++] = a[i];
    int rc = 0;
    for (size_t from = 0; from < kept && !rc;) {
        int sub = sub_index(a[from]);
        size_t to = from;
        while (to < kept && sub_index(a[to]) == sub) to++;
        rc = sub_merge(&part->sub[sub], sub, a + from, to - from);
        from = to;
    }
    free(a);
    free(tmp);
    return rc;
}

int seen_add_any(Seen *parts, int threads, const Key *keys, size_t n) {
    if (threads == 1) return seen_add(parts, keys, n);
    Key *mine = malloc((n ? n : 1) * sizeof(Key));
    if (!mine) return TABLE_NO_MEMORY;
    int rc = 0;
    for (int p = 0; p < threads && !rc; p++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (part_of(threads, keys[i]) == p) mine[m++] = keys[i];
        rc = seen_add(&parts[p], mine, m);
    }
    free(mine);
    return rc;
}

size_t seen_count(const Seen *parts, int threads) {
    size_t n = 0;
    for (int p = 0; p < threads; p++)
        for (int t = 0; t < SUBTABLES; t++) n += parts[p].sub[t].count;
    return n;
}

size_t seen_bytes(const Seen *parts, int threads) {
    size_t bytes = 0;
    for (int p = 0; p < threads; p++)
        for (int t = 0; t < SUBTABLES; t++) {
            const SubSeen *s = &parts[p].sub[t];
            if (!s->count) continue;
            bytes +=
                (s->count * s->width + 7) / 8 + 8 + (((size_t)1 << s->b) + 1) * sizeof(uint32_t);
#if HW_KEY_BITS == 128
            bytes += s->count * sizeof(uint64_t);
#endif
        }
    return bytes;
}

void seen_copy(const Seen *parts, int threads, Key *out) {
    for (int p = 0; p < threads; p++)
        for (int t = 0; t < SUBTABLES; t++) {
            const SubSeen *s = &parts[p].sub[t];
            size_t bucket = 0;
            for (size_t i = 0; i < s->count; i++) {
                while (s->start[bucket + 1] <= i) bucket++;
                uint64_t r = (uint64_t)bucket << s->width | packed_get(s->packed, s->width, i);
                Key key = seen_unresidual(r, t);
#if HW_KEY_BITS == 128
                key |= (Key)s->high[i] << 64;
#endif
                *out++ = key;
            }
        }
}

void seen_clear(Seen *parts, int threads) {
    for (int p = 0; p < threads; p++)
        for (int t = 0; t < SUBTABLES; t++) {
            SubSeen *s = &parts[p].sub[t];
            free(s->packed);
            free(s->start);
#if HW_KEY_BITS == 128
            free(s->high);
#endif
            memset(s, 0, sizeof(*s));
        }
}
