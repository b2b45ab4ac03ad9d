/* The compiled liveness graph: checker/liveness/graph.py's build, on rows.
 *
 * States are numbered in breadth-first order from the initial rows, successors in the model's
 * order (model_expand gives the reference's), so the numbering, the parents and the label
 * order equal the reference graph's. A new row gets the next number: the frontier is then
 * simply the states numbered in one level, expanded in number order. Self-loops are dropped.
 * Every buffer grows by realloc and is checked; past max_states the build stops. The orbit
 * graph (ograph.c) is built from the same blocks (lgraph.h: lg_add and the others). */
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"
#include "tables.h"
#include "xxh3.h"

#define NONE32 UINT32_MAX
#define BATCH 16 /* states expanded before their successors are looked up */

/* The graph of the model for `params`; NULL with the reason in `why` (model_new). */
LGraph *lg_new(const ModelParams *params, char *why, size_t room) {
    LGraph *g = calloc(1, sizeof(LGraph));
    if (!g) return refuse(why, room, "out of memory");
    g->m = model_new(params, why, room);
    if (!g->m) {
        free(g);
        return NULL;
    }
    g->width = model_width(g->m);
    g->max_succ = model_max_successors(g->m);
    g->succ = malloc((size_t)BATCH * g->max_succ * g->width);
    g->labels = malloc((size_t)BATCH * g->max_succ * sizeof(uint16_t));
    g->violated = malloc((size_t)BATCH * g->max_succ * sizeof(uint32_t));
    g->scratch = aligned_alloc(64, model_scratch_size(g->m));
    if (!g->succ || !g->labels || !g->violated || !g->scratch) {
        lg_free(g);
        return refuse(why, room, "out of memory");
    }
    return g;
}

void lg_free(LGraph *g) {
    if (!g) return;
    if (g->m) model_free(g->m);
    lg_drop(g, (void **)&g->rows);
    lg_drop(g, (void **)&g->slots);
    lg_drop(g, (void **)&g->off);
    lg_drop(g, (void **)&g->dst);
    lg_drop(g, (void **)&g->lab);
    lg_drop(g, (void **)&g->parent);
    lg_drop(g, (void **)&g->plabel);
    lg_drop(g, (void **)&g->depth);
    lf_release(g->poff);
    lf_release(g->psrc);
    free(g->perms);
    lg_drop(g, (void **)&g->ren);
    lg_drop(g, (void **)&g->pren);
    lg_drop(g, (void **)&g->entry);
    lg_drop(g, (void **)&g->stab);
    lg_drop(g, (void **)&g->via);
    free(g->init);
    lg_drop(g, (void **)&g->cond);
    lg_drop(g, (void **)&g->acode);
    lg_drop(g, (void **)&g->tag);
    free(g->atab);
    lg_drop(g, (void **)&g->fp);
    free(g->cslots);
    free(g->ncodes);
    lg_drop(g, (void **)&g->found);
    free(g->succ);
    free(g->labels);
    free(g->violated);
    free(g->scratch);
    lg_drop_files(g);
    free(g);
}

int lg_grow(void **p, size_t item, int64_t want) {
    void *q = realloc(*p, (size_t)want * item);
    if (!q) return -1;
    *p = q;
    return 0;
}

/* Room for one more state (rows, off, parent, plabel, depth; an orbit's pren, entry, stab;
 * in a sealed build, its second hash, conditions and codes, and the rows' window its row). */
static int reserve_state(LGraph *g) {
    if (g->sealing && g->n + 1 - g->rbase >= g->rcap) {
        int64_t want = g->rcap ? g->rcap + g->rcap / 2 : 1 << 12;
        if (lg_hold(g, (void **)&g->rows, g->width, want)) return -1;
        g->rcap = want;
    }
    if (g->n + 1 < g->cap) return 0;
    int64_t want = g->cap ? g->cap + g->cap / 2 : 1 << 16;
    size_t codes = (size_t)2 * (g->nprops ? g->nprops : 1);
    if (g->sealing
        && (lg_hold(g, (void **)&g->fp, 8, want) || lg_hold(g, (void **)&g->cond, 4, want)
            || lg_hold(g, (void **)&g->acode, codes, want)))
        return -1;
    if ((!g->sealing && lg_hold(g, (void **)&g->rows, g->width, want))
        || lg_hold(g, (void **)&g->off, 8, want + 1) || lg_hold(g, (void **)&g->parent, 4, want)
        || lg_hold(g, (void **)&g->plabel, 2, want) || lg_hold(g, (void **)&g->depth, 4, want))
        return -1;
    if (g->perms
        && (lg_hold(g, (void **)&g->pren, 1, want) || lg_hold(g, (void **)&g->entry, 1, want)
            || lg_hold(g, (void **)&g->stab, 4, want) || lg_hold(g, (void **)&g->via, 2, want)))
        return -1;
    g->cap = want;
    return 0;
}

/* A row's slot is picked by its hash's high half, which the slot keeps: the table grows
 * without the rows (a sealed build has let most of them go). */
static inline int64_t home(uint64_t h, int64_t nslots) {
    return (int64_t)((h >> 32) & (uint64_t)(nslots - 1));
}

static int rehash(LGraph *g, int64_t nslots) {
    uint64_t *slots = NULL;
    if (lg_zeroed(g, (void **)&slots, 8, nslots)) return -1;
    for (int64_t k = 0; k < g->nslots; k++) {
        uint64_t s = g->slots[k];
        if (!s) continue;
        int64_t at = home(s, nslots);
        while (slots[at]) at = (at + 1) & (nslots - 1);
        slots[at] = s;
    }
    lg_drop(g, (void **)&g->slots);
    g->slots = slots;
    g->nslots = nslots;
    return 0;
}

/* Room in the table for `more` states at most three quarters full (no rehash until then):
 * linear probes stay short (about 2.5 slots for a row seen, 8.5 for a new one, 8 slots a
 * cache line), and the table, which peaks with the rest of the graph at the build's end, is
 * half a half-full one's size for a third of the state counts. */
int lg_room(LGraph *g, int64_t more) {
    int64_t want = g->nslots ? g->nslots : 1 << 16;
    while ((g->n + more) * 4 > want * 3) want *= 2;
    return want == g->nslots ? 0 : rehash(g, want);
}

/* The number of `row` (hash h), adding it as a new state (depth, parent, label) when
 * unseen; -1 when out of memory, -2 past max_states. The table has room (lg_room()). Rows are
 * told apart by their bytes; in a sealed build, whose rows are gone once expanded, by h (its
 * slot and high half) and a second hash of another design (row_hash64), 96 bits or more. */
int64_t lg_add(LGraph *g, const uint8_t *row, uint64_t h, uint32_t depth, uint32_t parent,
               uint16_t label, int64_t max_states) {
    uint64_t tag = h >> 32 << 32, fp = 0; /* row_hash64 is never 0 */
    int64_t mask = g->nslots - 1, at = home(h, g->nslots);
    for (uint64_t s; (s = g->slots[at]); at = (at + 1) & mask) {
        if ((s & ~0xFFFFFFFFull) != tag) continue;
        int64_t i = (int64_t)(s & 0xFFFFFFFFull) - 1;
        if (g->sealing) {
            if (!fp) fp = row_hash64(row, g->width);
            if (g->fp[i] == fp) return i;
        } else if (!memcmp(g->rows + i * g->width, row, g->width))
            return i;
    }
    if (g->n >= max_states) {
        g->error_depth = depth;
        return -2;
    }
    if (reserve_state(g)) return -1;
    int64_t i = g->n++;
    memcpy(lg_row_at(g, i), row, g->width);
    if (g->sealing) g->fp[i] = fp ? fp : row_hash64(row, g->width);
    g->parent[i] = parent;
    g->plabel[i] = label;
    g->depth[i] = depth;
    g->slots[at] = tag | (uint64_t)(i + 1);
    return i;
}

int lg_add_edge(LGraph *g, uint32_t target, uint16_t label) {
    if (g->ne == g->ecap) {
        int64_t want = g->ecap ? g->ecap + g->ecap / 2 : 1 << 18;
        if (lg_hold(g, (void **)&g->dst, 4, want) || lg_hold(g, (void **)&g->lab, 2, want))
            return -1;
        if (g->perms && lg_hold(g, (void **)&g->ren, 1, want)) return -1;
        g->ecap = want;
    }
    g->dst[g->ne] = target;
    g->lab[g->ne] = label;
    g->ne++;
    return 0;
}

static int64_t expand_all(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states,
                          uint64_t *hs);

/* Build the graph (once per LGraph: the buffers are trimmed to size at the end). */
int64_t lg_build(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states) {
    if (g->n || g->off) return LG_OVERFLOW;
    if (max_states >= (int64_t)NONE32) max_states = (int64_t)NONE32 - 1;
    uint64_t *hs = malloc((size_t)BATCH * g->max_succ * 8);
    if (!hs) return LG_NO_MEMORY;
    int64_t done = expand_all(g, init, ninit, max_states, hs);
    free(hs);
    return done;
}

/* Successors are hashed and their slots (then their candidate rows) prefetched before they
 * are looked up in order: the lookups are cache misses, overlapped this way. */
void lg_prefetch(const LGraph *g, const uint64_t *hs, int k) {
    int64_t mask = g->nslots - 1;
    for (int j = 0; j < k; j++) __builtin_prefetch(&g->slots[home(hs[j], g->nslots)]);
    for (int j = 0; j < k; j++) {
        uint64_t tag = hs[j] >> 32 << 32;
        int64_t at = home(hs[j], g->nslots);
        for (uint64_t s; (s = g->slots[at]); at = (at + 1) & mask)
            if ((s & ~0xFFFFFFFFull) == tag) {
                int64_t i = (int64_t)(s & 0xFFFFFFFFull) - 1;
                __builtin_prefetch(g->sealing ? (const void *)(g->fp + i) : g->rows + i * g->width);
                break;
            }
    }
}

static int64_t expand_all(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states,
                          uint64_t *hs) {
    if (lg_room(g, ninit)) return LG_NO_MEMORY;
    for (int64_t i = 0; i < ninit; i++) {
        const uint8_t *row = init + i * g->width;
        int64_t at = lg_add(g, row, xxh3_64(row, g->width), 1, NONE32, 0, max_states);
        if (at < 0) return at == -1 ? LG_NO_MEMORY : LG_TOO_LARGE;
    }
    uint32_t reached = 0;
    int counts[BATCH];
    for (int64_t first = 0; first < g->n;) {
        /* expand a batch of states (all known already), then look their successors up in
         * order: the numbering is the one-by-one numbering */
        int batch = g->n - first < BATCH ? (int)(g->n - first) : BATCH, total = 0;
        for (int b = 0; b < batch; b++) {
            int k = model_expand(g->m, g->scratch, g->rows + (first + b) * g->width, g->max_succ,
                                 g->succ + (size_t)total * g->width, g->labels + total, 0,
                                 g->violated, 0, &reached);
            if (k < 0) return LG_OVERFLOW;
            counts[b] = k;
            total += k;
        }
        if (lg_room(g, total)) return LG_NO_MEMORY;
        for (int j = 0; j < total; j++) hs[j] = xxh3_64(g->succ + (size_t)j * g->width, g->width);
        lg_prefetch(g, hs, total);
        for (int b = 0, j = 0; b < batch; b++) {
            int64_t node = first + b;
            g->off[node] = g->ne;
            for (int end = j + counts[b]; j < end; j++) {
                int64_t t = lg_add(g, g->succ + (size_t)j * g->width, hs[j], g->depth[node] + 1,
                                   (uint32_t)node, g->labels[j], max_states);
                if (t < 0) return t == -1 ? LG_NO_MEMORY : LG_TOO_LARGE;
                if (t == node) continue;
                if (lg_add_edge(g, (uint32_t)t, g->labels[j])) return LG_NO_MEMORY;
            }
        }
        first += batch;
    }
    lg_finish(g);
    return g->n;
}

void lg_finish(LGraph *g) {
    g->off[g->n] = g->ne;
    lg_drop(g, (void **)&g->slots); /* the build's table: 8 bytes a slot, <= 3/4 full */
    g->nslots = 0;
    /* give the growth slack back (a sealed build's rows go in lg_seal_end) */
    if (g->n && !g->sealing) lg_hold(g, (void **)&g->rows, g->width, g->n);
    if (g->n && g->sealing) lg_hold(g, (void **)&g->cond, 4, g->n);
    if (g->ne) {
        lg_hold(g, (void **)&g->dst, 4, g->ne);
        lg_hold(g, (void **)&g->lab, 2, g->ne);
        if (g->perms) lg_hold(g, (void **)&g->ren, 1, g->ne);
    }
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
