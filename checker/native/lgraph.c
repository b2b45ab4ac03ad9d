/* The compiled liveness graph: checker/liveness/graph.py's build, on rows.
 *
 * States are numbered in breadth-first order from the initial rows, successors in the model's
 * order (model_expand gives the reference's), so the numbering, the parents and the label
 * order equal the reference graph's. A new row gets the next number: the frontier is then
 * simply the states numbered in one level, expanded in number order. Self-loops are dropped.
 * Every buffer grows by realloc and is checked; past max_states the build stops. */
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"
#include "xxh3.h"

#define NONE32 UINT32_MAX

LGraph *lg_new(const int32_t *params, int nparams) {
    LGraph *g = calloc(1, sizeof(LGraph));
    if (!g) return NULL;
    g->m = model_new(params, nparams);
    if (!g->m) { free(g); return NULL; }
    g->width = model_width(g->m);
    g->max_succ = model_max_successors(g->m);
    g->succ = malloc((size_t)g->max_succ * g->width);
    g->labels = malloc((size_t)g->max_succ * sizeof(uint16_t));
    g->violated = malloc((size_t)g->max_succ * sizeof(uint32_t));
    if (!g->succ || !g->labels || !g->violated) { lg_free(g); return NULL; }
    return g;
}

void lg_free(LGraph *g) {
    if (!g) return;
    if (g->m) model_free(g->m);
    free(g->rows); free(g->slots); free(g->off); free(g->dst); free(g->lab);
    free(g->parent); free(g->plabel); free(g->depth); free(g->poff); free(g->psrc);
    free(g->succ); free(g->labels); free(g->violated);
    free(g);
}

static int grow(void **p, size_t item, int64_t want) {
    void *q = realloc(*p, (size_t)want * item);
    if (!q) return -1;
    *p = q;
    return 0;
}

/* Room for one more state (rows, off, parent, plabel, depth). */
static int reserve_state(LGraph *g) {
    if (g->n + 1 < g->cap) return 0;
    int64_t want = g->cap ? g->cap + g->cap / 2 : 1 << 16;
    if (grow((void **)&g->rows, g->width, want) || grow((void **)&g->off, 8, want + 1)
        || grow((void **)&g->parent, 4, want) || grow((void **)&g->plabel, 2, want)
        || grow((void **)&g->depth, 4, want))
        return -1;
    g->cap = want;
    return 0;
}

static int rehash(LGraph *g, int64_t nslots) {
    uint64_t *slots = calloc((size_t)nslots, 8);
    if (!slots) return -1;
    for (int64_t i = 0; i < g->n; i++) {
        uint64_t h = xxh3_64(g->rows + i * g->width, g->width);
        int64_t at = (int64_t)(h & (uint64_t)(nslots - 1));
        while (slots[at]) at = (at + 1) & (nslots - 1);
        slots[at] = (h >> 32 << 32) | (uint64_t)(i + 1);
    }
    free(g->slots);
    g->slots = slots;
    g->nslots = nslots;
    return 0;
}

/* The number of `row`, adding it as a new state (depth, parent, label) when unseen; -1 when
 * out of memory, -2 past max_states. */
static int64_t add(LGraph *g, const uint8_t *row, uint32_t depth, uint32_t parent,
                   uint16_t label, int64_t max_states) {
    if ((g->n + 1) * 2 > g->nslots && rehash(g, g->nslots ? g->nslots * 2 : 1 << 16)) return -1;
    uint64_t h = xxh3_64(row, g->width), tag = h >> 32 << 32;
    int64_t mask = g->nslots - 1, at = (int64_t)(h & (uint64_t)mask);
    for (uint64_t s; (s = g->slots[at]); at = (at + 1) & mask) {
        if ((s & ~0xFFFFFFFFull) != tag) continue;
        int64_t i = (int64_t)(s & 0xFFFFFFFFull) - 1;
        if (!memcmp(g->rows + i * g->width, row, g->width)) return i;
    }
    if (g->n >= max_states) { g->error_depth = depth; return -2; }
    if (reserve_state(g)) return -1;
    int64_t i = g->n++;
    memcpy(g->rows + i * g->width, row, g->width);
    g->parent[i] = parent; g->plabel[i] = label; g->depth[i] = depth;
    g->slots[at] = tag | (uint64_t)(i + 1);
    return i;
}

static int add_edge(LGraph *g, uint32_t target, uint16_t label) {
    if (g->ne == g->ecap) {
        int64_t want = g->ecap ? g->ecap + g->ecap / 2 : 1 << 18;
        if (grow((void **)&g->dst, 4, want) || grow((void **)&g->lab, 2, want)) return -1;
        g->ecap = want;
    }
    g->dst[g->ne] = target; g->lab[g->ne] = label; g->ne++;
    return 0;
}

int64_t lg_build(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states) {
    if (max_states >= (int64_t)NONE32) max_states = (int64_t)NONE32 - 1;
    for (int64_t i = 0; i < ninit; i++) {
        int64_t at = add(g, init + i * g->width, 1, NONE32, 0, max_states);
        if (at < 0) return at == -1 ? LG_NO_MEMORY : LG_TOO_LARGE;
    }
    uint32_t reached = 0;
    for (int64_t node = 0; node < g->n; node++) {
        g->off[node] = g->ne;
        int k = model_expand(g->m, g->rows + node * g->width, g->succ, g->labels, 0,
                             g->violated, 0, &reached);
        if (k < 0 || k > g->max_succ) return LG_OVERFLOW;
        for (int j = 0; j < k; j++) {
            int64_t t = add(g, g->succ + (size_t)j * g->width, g->depth[node] + 1,
                            (uint32_t)node, g->labels[j], max_states);
            if (t < 0) return t == -1 ? LG_NO_MEMORY : LG_TOO_LARGE;
            if (t == node) continue;
            if (add_edge(g, (uint32_t)t, g->labels[j])) return LG_NO_MEMORY;
        }
    }
    g->off[g->n] = g->ne;
    return g->n;
}

/* -- what Python reads ------------------------------------------------------------------- */
int lg_width(const LGraph *g) { return g->width; }
int64_t lg_count(const LGraph *g) { return g->n; }
int64_t lg_edges(const LGraph *g) { return g->ne; }
int64_t lg_error_depth(const LGraph *g) { return g->error_depth; }
void *lg_rows(const LGraph *g) { return g->rows; }
void *lg_off(const LGraph *g) { return g->off; }
void *lg_dst(const LGraph *g) { return g->dst; }
void *lg_lab(const LGraph *g) { return g->lab; }
void *lg_parent(const LGraph *g) { return g->parent; }
void *lg_plabel(const LGraph *g) { return g->plabel; }
void *lg_depth(const LGraph *g) { return g->depth; }

/* Every state's liveness atoms for property `prop` (model_liveness). */
void lg_atoms(const LGraph *g, int prop, uint64_t *opened, uint64_t *goal) {
    for (int64_t i = 0; i < g->n; i++)
        model_liveness(g->m, g->rows + i * g->width, prop, &opened[i], &goal[i]);
}

/* Every state's named conditions (model_conditions). */
void lg_conditions(const LGraph *g, uint32_t *out) {
    for (int64_t i = 0; i < g->n; i++) out[i] = model_conditions(g->m, g->rows + i * g->width);
}

/* Per state, the fairness constraints enabled there: the OR over its out-edges of the
 * constraints of the edge's label code, within those its condition covers. */
void lg_enabled(const LGraph *g, const uint64_t *of_code, const uint64_t *covered,
                uint64_t *enabled) {
    for (int64_t i = 0; i < g->n; i++) {
        uint64_t bits = 0;
        for (int64_t e = g->off[i]; e < g->off[i + 1]; e++) bits |= of_code[g->lab[e]];
        enabled[i] = bits & covered[i];
    }
}
