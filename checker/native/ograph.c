/* The compiled orbit graph: checker/liveness/orbits.py's build, on rows. One node per orbit
 * of the replica renamings, standing for its representative (model_canonical), each edge with
 * the renaming that took its concrete target to the target's representative: Emerson and
 * Sistla's annotated quotient (checker/liveness/annotated.py).
 *
 * Orbits are numbered breadth first from the initial rows' representatives, successors in the
 * model's order, as orbits.build numbers them; renamings as itertools.permutations(range(n))
 * orders them (0: the identity). An edge keeps the first renaming g with g . target == its
 * representative. A concrete stutter (a successor equal to the representative expanded) is
 * dropped; a step to another member of the same orbit is kept, as an edge to itself. After
 * the build lg_find's table (4 bytes a slot, oseal.c) replaces the build's (8). A sealed
 * build (oseal.c) lets each row go once its orbit is expanded; a whole one keeps them all.
 *
 * Orbits are expanded OBATCH at a time on every processor online (oexpand.c), the next batch
 * while the caller numbers this one, alone and in the batch's order, so the numbering does
 * not depend on the threads. */
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"
#include "oexpand.h"
#include "rows.h"
#include "xxh3.h"

#define NONE32 UINT32_MAX
#define PREFETCH 16 /* orbits whose successors' slots are prefetched at once */

/* Number the renamings of model_symmetric_ids() ids (lexicographic order, itertools'); 0, or
 * LG_TOO_MANY_IDS past LG_MAX_PERMS, LG_NO_MEMORY. */
static int64_t number_perms(LGraph *g) {
    int n = model_symmetric_ids(g->m), count = 1;
    if (n < 1 || n > ROWS_MAX_REPLICAS) return LG_TOO_MANY_IDS;
    for (int k = 2; k <= n; k++) count *= k;
    if (count > LG_MAX_PERMS) return LG_TOO_MANY_IDS;
    g->perms = malloc((size_t)count * n * sizeof(int));
    if (!g->perms) return LG_NO_MEMORY;
    int a[ROWS_MAX_REPLICAS];
    for (int r = 0; r < n; r++) a[r] = r;
    for (int k = 0; k < count; k++) {
        memcpy(g->perms + k * n, a, (size_t)n * sizeof(int));
        next_permutation(a, n);
    }
    g->ids = n;
    g->nperms = count;
    return 0;
}

/* Where a renaming sits in itertools' order: `index` by the code sum(perm[r] * ids^r). */
typedef struct {
    uint8_t index[256];
} PermIndex;

static int perm_code(const LGraph *g, const int *perm) {
    int code = 0;
    for (int r = g->ids - 1; r >= 0; r--) code = code * g->ids + perm[r];
    return code;
}

static void index_perms(const LGraph *g, PermIndex *at) {
    for (int k = 0; k < g->nperms; k++) at->index[perm_code(g, g->perms + k * g->ids)] = (uint8_t)k;
}

/* The first renaming (itertools' order) that takes a row to the representative `orbit`, given
 * one that does, `kept` (model_canonical_renaming's): they are `s . kept` for the renamings `s`
 * that leave the representative as it is (its stabilizer). */
static int first_renaming(const LGraph *g, const PermIndex *at, int64_t orbit, const int *kept) {
    uint32_t stab = g->stab[orbit];
    if (stab == 1) return at->index[perm_code(g, kept)];
    int best = g->nperms, composed[ROWS_MAX_REPLICAS];
    for (int k = 0; k < g->nperms; k++) {
        if (!(stab >> k & 1)) continue;
        const int *s = g->perms + k * g->ids;
        for (int r = 0; r < g->ids; r++) composed[r] = s[kept[r]];
        int found = at->index[perm_code(g, composed)];
        if (found < best) best = found;
    }
    return best;
}

/* A new orbit's stabilizer (only the identity unless two replicas' keys tie: `tied`), from
 * its representative `rep`; in a sealed build, its conditions and codes too (0, or
 * lg_seal_orbit's error). */
static int fresh(LGraph *g, int64_t orbit, int tied, uint8_t *buf, const uint8_t *rep) {
    uint32_t stab = 1;
    for (int k = 1; tied && k < g->nperms; k++) {
        model_rename(g->m, rep, g->perms + k * g->ids, buf);
        if (!memcmp(buf, rep, g->width)) stab |= 1u << k;
    }
    g->pren[orbit] = 0;
    g->entry[orbit] = 0;
    g->stab[orbit] = stab;
    return g->sealing ? lg_seal_orbit(g, orbit, rep) : 0;
}

static int64_t fresh_error(int error) { return error == -1 ? LG_NO_MEMORY : LG_CODES; }

typedef struct {
    uint8_t *buf, *rep;          /* a row; an initial row's representative */
    int kept[ROWS_MAX_REPLICAS]; /* the renaming canonicalization applied to it */
    PermIndex at;
    OBatch batch;
} Work;

static int64_t initial(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states, Work *w) {
    if (lg_room(g, ninit)) return LG_NO_MEMORY;
    for (int64_t i = 0; i < ninit; i++) {
        const uint8_t *row = init + i * g->width;
        int tied = 0;
        if (model_canonical_renaming(g->m, g->scratch, row, w->rep, w->kept, &tied))
            return LG_OVERFLOW;
        int64_t before = g->n;
        int64_t at = lg_add(g, w->rep, xxh3_64(w->rep, g->width), 1, NONE32, 0, max_states);
        if (at < 0) return at == -1 ? LG_NO_MEMORY : LG_TOO_LARGE;
        if (at < before) continue;
        int error = fresh(g, at, tied, w->buf, w->rep);
        if (error) return fresh_error(error);
        g->via[at] = (uint16_t)i;
        g->entry[at] = (uint8_t)first_renaming(g, &w->at, at, w->kept);
    }
    return 0;
}

/* A set's successors numbered, chunk after chunk (the batch's order): their hashes
 * prefetched PREFETCH orbits at a time, each added (a new orbit set up), its edge appended;
 * 0, or LG_NO_MEMORY, LG_TOO_LARGE, LG_CODES. */
static int64_t number_set(LGraph *g, Work *w, const OSet *set, int64_t max_states) {
    for (int k = 0; k < set->nchunks; k++) {
        const OChunk *c = &set->chunks[k];
        for (int64_t b = c->from, j = 0, ahead = 0; b < c->to; b++) {
            if ((b - c->from) % PREFETCH == 0) {
                int64_t upto = j;
                for (int64_t d = b; d < c->to && d < b + PREFETCH; d++) upto += set->counts[d];
                lg_prefetch(g, c->hs + ahead, (int)(upto - ahead));
                ahead = upto;
            }
            int64_t node = set->first + b, base = j;
            g->off[node] = g->ne;
            for (; j < base + set->counts[b]; j++) {
                if (c->gs[j] == STUTTER) continue;
                int64_t before = g->n;
                uint8_t *rep = c->reps + (size_t)j * g->width;
                int64_t t = lg_add(g, rep, c->hs[j], g->depth[node] + 1, (uint32_t)node,
                                   c->labels[j], max_states);
                if (t < 0) return t == -1 ? LG_NO_MEMORY : LG_TOO_LARGE;
                if (t == before) {
                    int error = fresh(g, t, c->gs[j], w->buf, rep);
                    if (error) return fresh_error(error);
                    g->via[t] = (uint16_t)(j - base);
                }
                int ren = first_renaming(g, &w->at, t, c->kept + (size_t)j * g->ids);
                if (t == before) g->pren[t] = (uint8_t)ren;
                if (lg_add_edge(g, (uint32_t)t, c->labels[j])) return LG_NO_MEMORY;
                g->ren[g->ne - 1] = (uint8_t)ren;
            }
        }
    }
    return 0;
}

/* The next batch from orbit `first`: as many orbits as are numbered, at most OBATCH. */
static int next_batch(const LGraph *g, int64_t first) {
    return g->n - first < OBATCH ? (int)(g->n - first) : OBATCH;
}

static int64_t orbits_all(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states,
                          Work *w) {
    int64_t done = initial(g, init, ninit, max_states, w);
    if (done < 0) return done;
    OBatch *o = &w->batch;
    int set = 0, batch = next_batch(g, 0);
    ob_start(o, set, 0, batch);
    int64_t total = ob_finish(o);
    for (int64_t first = 0; batch > 0;) {
        if (total < 0) return total;
        int64_t next = first + batch;
        int ahead = next_batch(g, next); /* expanded while this batch is numbered */
        if (ahead > 0) ob_start(o, 1 - set, next, ahead);
        if (lg_room(g, total)) return LG_NO_MEMORY;
        if (g->sealing) lg_seal_slide(g, next); /* the batch's rows are expanded */
        if ((done = number_set(g, w, &o->sets[set], max_states)) < 0) return done;
        if (!ahead && (ahead = next_batch(g, next)) > 0) ob_start(o, 1 - set, next, ahead);
        total = ahead > 0 ? ob_finish(o) : 0;
        first = next;
        batch = ahead;
        set = 1 - set;
    }
    lg_finish(g);
    return (g->sealing ? lg_seal_end(g) : lg_index_rows(g)) ? LG_NO_MEMORY : g->n;
}

/* Build the orbit graph (once per LGraph, and not after lg_build), sealed for `nprops`
 * liveness properties when nprops >= 0 and the 16-bit `via` can name every path (else whole):
 * the orbit count, or LG_TOO_MANY_IDS (before building), LG_TOO_LARGE, LG_NO_MEMORY,
 * LG_OVERFLOW, LG_CODES (sealed: a property's atoms past max_codes; build it whole). */
int64_t lg_build_orbits(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states,
                        int nprops, int max_codes) {
    if (g->n || g->off || g->perms) return LG_OVERFLOW;
    int64_t done = number_perms(g);
    if (done < 0) return done;
    if (nprops >= 0 && ninit <= 65535 && g->max_succ <= 65535
        && lg_seal_begin(g, nprops, max_codes))
        return LG_NO_MEMORY;
    g->init = malloc((size_t)ninit * g->width + 1);
    if (!g->init) return LG_NO_MEMORY;
    memcpy(g->init, init, (size_t)ninit * g->width);
    g->ninit = ninit;
    if (max_states >= (int64_t)NONE32) max_states = (int64_t)NONE32 - 1;
    Work w = {.buf = malloc(g->width), .rep = malloc(g->width)};
    index_perms(g, &w.at);
    int ready = !ob_begin(&w.batch, g) && w.buf && w.rep;
    done = ready ? orbits_all(g, init, ninit, max_states, &w) : LG_NO_MEMORY;
    ob_end(&w.batch);
    free(w.buf);
    free(w.rep);
    return done;
}

/* -- what Python reads ------------------------------------------------------------------- */
int lg_nperms(const LGraph *g) { return g->nperms; }
void *lg_ren(const LGraph *g) { return g->ren; }
void *lg_stab(const LGraph *g) { return g->stab; }
void *lg_pren(const LGraph *g) { return g->pren; }
void *lg_entry(const LGraph *g) { return g->entry; }
