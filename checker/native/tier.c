/* What the disk tier (checker/search/disk.py) asks of the compiled engine: how many bytes it
 * holds, its seen set emptied once Python has written it to a sorted run on disk, and the
 * level being built read out and thinned by delayed duplicate detection (the states a run on
 * disk already holds are dropped before eng_finish).
 *
 * Every call here runs between the engine's level calls (after eng_expand has covered the
 * whole frontier, or after eng_advance), on the caller's thread. */
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "engine.h"

static size_t table_bytes(const Table *t, int width) {
    return t->cap * ((size_t)width + sizeof(uint64_t) + sizeof(uint32_t) + sizeof(uint16_t))
           + t->index_cap * sizeof(uint32_t);
}

/* Bytes the engine holds in its growing arrays: the seen set's slots, the level tables
 * (each partition's, and with threads each worker's lists for the others), the frontier
 * and the gathered level. Fixed buffers (a worker's scratch) are not counted. */
int64_t eng_memory(const Engine *e) {
    size_t bytes = 0;
    for (int p = 0; p < e->threads; p++) {
        for (int t = 0; t < SUBTABLES; t++) bytes += (size_t)e->seen[p].sub[t].cap * sizeof(uint64_t);
        bytes += table_bytes(&e->part[p], e->width);
        if (e->threads > 1)
            for (int q = 0; q < e->threads; q++) bytes += table_bytes(&e->workers[p].out[q], e->width);
    }
    bytes += e->front_cap * ((size_t)e->width + sizeof(uint64_t));
    bytes += e->next.cap * (sizeof(uint32_t) + sizeof(uint16_t) + sizeof(uint32_t) + sizeof(uint64_t));
    return (int64_t)bytes;
}

/* Empty the seen set (its hashes were copied out with eng_seen_copy and written to disk):
 * every sub-table back to 64 slots, and the freed memory handed back to the system. 0, or
 * ENG_NO_MEMORY. */
int eng_seen_clear(Engine *e) {
    for (int p = 0; p < e->threads; p++)
        for (int t = 0; t < SUBTABLES; t++) {
            SubSeen *s = &e->seen[p].sub[t];
            free(s->slots);
            s->slots = calloc(64, sizeof(uint64_t));
            s->cap = s->slots ? 64 : 0;
            s->count = 0;
            if (!s->slots) return ENG_NO_MEMORY;
        }
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    return 0;
}

/* The row hashes of the level being built, in the order eng_finish gathers it (partition
 * after partition, each in its table's order), into `out` (eng_next_size of them). */
void eng_next_hashes(const Engine *e, uint64_t *out) {
    for (int p = 0; p < e->threads; p++) {
        memcpy(out, e->part[p].h, e->part[p].n * sizeof(uint64_t));
        out += e->part[p].n;
    }
}

/* Drop the entries of the level being built whose `drop` byte is set (eng_next_hashes'
 * order): the others keep their order, parents and labels, and each table is re-indexed.
 * 0, or ENG_NO_MEMORY. */
int eng_next_drop(Engine *e, const uint8_t *drop) {
    int width = e->width;
    for (int p = 0; p < e->threads; p++) {
        Table *t = &e->part[p];
        size_t kept = 0;
        for (size_t k = 0; k < t->n; k++, drop++) {
            if (*drop) continue;
            if (kept != k) {
                memcpy(t->rows + kept * width, t->rows + k * width, width);
                t->h[kept] = t->h[k];
                t->parent[kept] = t->parent[k];
                t->label[kept] = t->label[k];
            }
            kept++;
        }
        t->n = kept;
        if (table_reindex(t, t->index_cap)) return ENG_NO_MEMORY;
    }
    return 0;
}
