/* The orbit graph sealed as it is built: a sealed build (lg_build_orbits with nprops >= 0)
 * never holds every orbit's row, the largest part of the graph. It keeps the rows of the
 * orbits not yet expanded (a window: lg_seal_slide lets the expanded ones go), tells rows
 * apart by two hashes instead of their bytes (lg_add), and keeps, from each new orbit's row,
 * what the liveness check reads of it:
 *
 * - its fairness conditions (model_conditions), as they are;
 * - every liveness property's atoms (model_liveness: the keys the orbit opens and the ones
 *   whose goal holds there) as a 16-bit code into the property's table of the distinct
 *   (opened, goal) pairs, which is small (kafka at 3 replicas: a few hundred);
 * - 16 more bits of its second hash, so that lg_find only replays rows that match (lg_find
 *   is here, beside lg_row, for sealed and whole graphs alike).
 *
 * A representative is found again by replaying its breadth-first path: from the initial
 * row its root came from, each step expands the parent's representative (model_expand, in
 * the model's order) and canonicalizes the successor the build first reached the orbit
 * through (`via`). Replays use their own buffers, so two threads may replay at once. */
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"
#include "tables.h"
#include "xxh3.h"

#define NONE32 UINT32_MAX
#define CSLOTS (1 << 17) /* a property's codes' table: at most half full */

int lg_seal_begin(LGraph *g, int nprops, int max_codes) {
    g->nprops = nprops;
    g->max_codes = max_codes < 0 || max_codes > LG_MAX_CODES ? LG_MAX_CODES : max_codes;
    g->atab = malloc((size_t)nprops * 2 * LG_MAX_CODES * sizeof(uint64_t) + 1);
    g->cslots = calloc((size_t)nprops * CSLOTS + 1, sizeof(uint32_t));
    g->ncodes = calloc((size_t)nprops + 1, sizeof(uint32_t));
    if (!g->atab || !g->cslots || !g->ncodes) return -1;
    g->sealing = 1;
    return 0;
}

/* Property p's code of (opened, goal), numbered as first met: -1 past g->max_codes. */
static int64_t code_of(LGraph *g, int p, uint64_t opened, uint64_t goal) {
    uint64_t key[2] = {opened, goal}, *pairs = g->atab + (size_t)p * 2 * LG_MAX_CODES;
    uint32_t *slots = g->cslots + (size_t)p * CSLOTS;
    int64_t at = (int64_t)(xxh3_64(key, sizeof key) & (CSLOTS - 1));
    for (uint32_t s; (s = slots[at]); at = (at + 1) & (CSLOTS - 1))
        if (pairs[2 * (s - 1)] == opened && pairs[2 * (s - 1) + 1] == goal) return s - 1;
    uint32_t code = g->ncodes[p];
    if (code == (uint32_t)g->max_codes) return -1;
    pairs[2 * code] = opened;
    pairs[2 * code + 1] = goal;
    slots[at] = ++g->ncodes[p];
    return code;
}

int lg_seal_orbit(LGraph *g, int64_t orbit, const uint8_t *row) {
    g->cond[orbit] = model_conditions(g->m, row);
    for (int p = 0; p < g->nprops; p++) {
        uint64_t opened = 0, goal = 0;
        model_liveness(g->m, row, p, &opened, &goal);
        int64_t code = code_of(g, p, opened, goal);
        if (code < 0) return -2;
        g->acode[orbit * g->nprops + p] = (uint16_t)code;
    }
    return 0;
}

void lg_seal_slide(LGraph *g, int64_t first) {
    if (first <= g->rbase || (first - g->rbase) * 2 < g->n - g->rbase) return;
    memmove(g->rows, lg_row_at(g, first), (size_t)(g->n - first) * g->width);
    g->rbase = first;
}

/* lg_find's table: 4 bytes a slot (orbit + 1, 0 free), at most three quarters full, probed
 * linearly from the row's row_hash64; -1 out of memory. */
static int found_table(LGraph *g) {
    int64_t nslots = 1 << 4;
    while (nslots * 3 < g->n * 4) nslots *= 2;
    if (lg_zeroed(g, (void **)&g->found, sizeof(uint32_t), nslots)) return -1;
    g->nfound = nslots;
    return 0;
}

static void found_put(LGraph *g, int64_t orbit, uint64_t h) {
    int64_t at = (int64_t)(h & (uint64_t)(g->nfound - 1));
    while (g->found[at]) at = (at + 1) & (g->nfound - 1);
    g->found[at] = (uint32_t)(orbit + 1);
}

int lg_index_rows(LGraph *g) {
    if (found_table(g)) return -1;
    for (int64_t i = 0; i < g->n; i++) found_put(g, i, row_hash64(lg_row_at(g, i), g->width));
    return 0;
}

int lg_seal_end(LGraph *g) {
    size_t n = (size_t)g->n, nprops = (size_t)g->nprops;
    lg_drop(g, (void **)&g->rows);
    free(g->cslots);
    free(g->ncodes);
    g->cslots = g->ncodes = NULL;
    uint16_t *acode = NULL;
    if (lg_hold(g, (void **)&acode, sizeof(uint16_t), (int64_t)(n * nprops + 1))
        || lg_hold(g, (void **)&g->tag, sizeof(uint16_t), (int64_t)n + 1) || found_table(g)) {
        lg_drop(g, (void **)&acode);
        return -1;
    }
    for (size_t p = 0; p < nprops; p++) /* property-major, as lg_acode gives them */
        for (size_t i = 0; i < n; i++) acode[p * n + i] = g->acode[i * nprops + p];
    lg_drop(g, (void **)&g->acode);
    g->acode = acode;
    for (size_t i = 0; i < n; i++) {
        g->tag[i] = (uint16_t)(g->fp[i] >> 48);
        found_put(g, (int64_t)i, g->fp[i]);
    }
    lg_drop(g, (void **)&g->fp);
    g->sealing = 0;
    return 0;
}

/* Orbit `orbit`'s representative into `out` (width bytes) by replaying its path: 0, or
 * LG_NO_MEMORY, LG_OVERFLOW (a model call past its room). */
static int64_t replay(const LGraph *g, int64_t orbit, uint8_t *out) {
    int64_t steps = g->depth[orbit];
    uint32_t *path = malloc((size_t)steps * sizeof(uint32_t));
    uint8_t *succ = malloc((size_t)g->max_succ * g->width), *row = malloc(g->width);
    uint16_t *labels = malloc((size_t)g->max_succ * sizeof(uint16_t));
    uint32_t *violated = malloc((size_t)g->max_succ * sizeof(uint32_t)), reached = 0;
    void *scratch = aligned_alloc(64, model_scratch_size(g->m));
    int64_t done = path && succ && row && labels && violated && scratch ? 0 : LG_NO_MEMORY;
    int64_t k = 0;
    for (int64_t at = orbit; !done && at != NONE32 && k < steps; at = g->parent[at])
        path[k++] = (uint32_t)at;
    if (!done
        && model_canonical(g->m, scratch, g->init + (size_t)g->via[path[k - 1]] * g->width, out))
        done = LG_OVERFLOW;
    for (int64_t s = k - 2; s >= 0 && !done; s--) {
        memcpy(row, out, g->width);
        int count =
            model_expand(g->m, scratch, row, g->max_succ, succ, labels, 0, violated, 0, &reached);
        if (count <= g->via[path[s]]
            || model_canonical(g->m, scratch, succ + (size_t)g->via[path[s]] * g->width, out))
            done = LG_OVERFLOW;
    }
    free(path);
    free(succ);
    free(row);
    free(labels);
    free(violated);
    free(scratch);
    return done;
}

/* Orbit `orbit`'s representative into `out`: 0, or replay's error (-1 for no such orbit). */
int64_t lg_row(const LGraph *g, int64_t orbit, uint8_t *out) {
    if (orbit < 0 || orbit >= g->n) return -1;
    if (g->rows) {
        memcpy(out, g->rows + orbit * g->width, g->width);
        return 0;
    }
    return replay(g, orbit, out);
}

int64_t lg_find(const LGraph *g, const uint8_t *row) {
    uint64_t h = row_hash64(row, g->width);
    uint8_t *rep = malloc(g->width);
    if (!g->found || !rep) {
        free(rep);
        return -1;
    }
    int64_t mask = g->nfound - 1, at = (int64_t)(h & (uint64_t)mask), found = -1;
    for (uint32_t s; found < 0 && (s = g->found[at]); at = (at + 1) & mask) {
        if (g->tag && g->tag[s - 1] != (uint16_t)(h >> 48)) continue; /* sealed: replay less */
        if (!lg_row(g, s - 1, rep) && !memcmp(rep, row, g->width)) found = s - 1;
    }
    free(rep);
    return found;
}

/* A sealed graph's own arrays, NULL on a whole graph or for no such property: property
 * `prop`'s atom codes (n) and their table (opened, goal per code; only the codes met are
 * set), and every orbit's conditions (n). */
void *lg_acode(const LGraph *g, int prop) {
    return g->rows || prop < 0 || prop >= g->nprops ? NULL : g->acode + (size_t)prop * g->n;
}
void *lg_atab(const LGraph *g, int prop) {
    return g->rows || prop < 0 || prop >= g->nprops ? NULL
                                                    : g->atab + (size_t)prop * 2 * LG_MAX_CODES;
}
void *lg_cond(const LGraph *g) { return g->rows ? NULL : g->cond; }
