/* The orbit graph sealed (lg_seal): after the build its rows, the largest part of it, are
 * freed. What the liveness check reads of them is kept in a compact form first:
 *
 * - every orbit's fairness conditions (model_conditions), as they were;
 * - every liveness property's atoms (model_liveness: the keys each orbit opens and the ones
 *   whose goal holds there) as a 16-bit code per orbit into the property's table of the
 *   distinct (opened, goal) pairs, which is small (kafka at 3 replicas: a few hundred);
 * - 16 more bits of each representative's hash, so that lg_find only replays rows that
 *   match (lg_find is here, beside lg_row, for sealed and whole graphs alike).
 *
 * A representative is found again by replaying its breadth-first path: from the initial
 * row its root came from, each step expands the parent's representative (model_expand, in
 * the model's order) and canonicalizes the successor the build first reached the orbit
 * through (`via`). Replays use their own buffers, so two threads may replay at once. */
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"
#include "xxh3.h"

#define NONE32 UINT32_MAX
#define MAX_CODES 65535 /* distinct (opened, goal) pairs a property may have: codes are 16-bit */

/* One property's distinct (opened, goal) pairs, numbered as first met: open addressing on
 * the pair's hash, slots (code + 1) or 0 free. */
typedef struct {
    uint64_t *pairs; /* 2 per code */
    uint32_t *slots;
    int64_t count, nslots;
} Codes;

static int64_t code_of(Codes *c, uint64_t opened, uint64_t goal) {
    uint64_t key[2] = {opened, goal};
    int64_t at = (int64_t)(xxh3_64(key, sizeof key) & (uint64_t)(c->nslots - 1));
    for (uint32_t s; (s = c->slots[at]); at = (at + 1) & (c->nslots - 1))
        if (c->pairs[2 * (s - 1)] == opened && c->pairs[2 * (s - 1) + 1] == goal) return s - 1;
    if (c->count == MAX_CODES) return -1;
    c->pairs[2 * c->count] = opened;
    c->pairs[2 * c->count + 1] = goal;
    c->slots[at] = (uint32_t)++c->count;
    return c->count - 1;
}

/* Code property p's atoms of every orbit into g->acode + p * n and g->atab + p * 2 *
 * MAX_CODES; 0, -1 out of memory, -2 past MAX_CODES. */
static int code_property(LGraph *g, int p, uint64_t *opened, uint64_t *goal) {
    lg_atoms(g, p, opened, goal);
    Codes c = {.pairs = g->atab + (size_t)p * 2 * MAX_CODES, .nslots = 1 << 17};
    c.slots = calloc((size_t)c.nslots, sizeof(uint32_t));
    if (!c.slots) return -1;
    uint16_t *codes = g->acode + (size_t)p * g->n;
    for (int64_t i = 0; i < g->n; i++) {
        int64_t code = code_of(&c, opened[i], goal[i]);
        if (code < 0) {
            free(c.slots);
            return -2;
        }
        codes[i] = (uint16_t)code;
    }
    free(c.slots);
    return 0;
}

/* Seal the orbit graph for `nprops` liveness properties: 0; LG_OVERFLOW (nothing changed)
 * when it cannot be (not an orbit graph, already sealed, a property with more than
 * MAX_CODES distinct atoms, paths the 16-bit `via` cannot name); LG_NO_MEMORY (nothing
 * changed). */
int64_t lg_seal(LGraph *g, int nprops) {
    if (!g->perms || !g->rows || !g->via || g->ninit > 65535 || g->max_succ > 65535 || nprops < 0)
        return LG_OVERFLOW;
    size_t n = (size_t)g->n;
    uint32_t *cond = malloc(n * sizeof(uint32_t) + 1);
    uint16_t *acode = malloc(n * (size_t)nprops * sizeof(uint16_t) + 1);
    uint64_t *atab = malloc((size_t)nprops * 2 * MAX_CODES * sizeof(uint64_t) + 1);
    uint16_t *tag = malloc(n * sizeof(uint16_t) + 1);
    uint64_t *opened = malloc(n * 8 + 1), *goal = malloc(n * 8 + 1);
    int64_t done = cond && acode && atab && tag && opened && goal ? 0 : LG_NO_MEMORY;
    g->acode = acode;
    g->atab = atab;
    for (int p = 0; p < nprops && !done; p++) {
        int coded = code_property(g, p, opened, goal);
        if (coded) done = coded == -1 ? LG_NO_MEMORY : LG_OVERFLOW;
    }
    free(opened);
    free(goal);
    g->acode = NULL;
    g->atab = NULL;
    if (done) {
        free(cond);
        free(acode);
        free(atab);
        free(tag);
        return done;
    }
    lg_conditions(g, cond);
    for (size_t i = 0; i < n; i++)
        tag[i] = (uint16_t)(xxh3_64(g->rows + i * g->width, g->width) >> 48);
    g->cond = cond;
    g->acode = acode;
    g->atab = atab;
    g->tag = tag;
    g->nprops = nprops;
    free(g->rows);
    g->rows = NULL;
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
    uint64_t h = xxh3_64(row, g->width);
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
    return g->rows || prop < 0 || prop >= g->nprops ? NULL : g->atab + (size_t)prop * 2 * MAX_CODES;
}
void *lg_cond(const LGraph *g) { return g->rows ? NULL : g->cond; }
