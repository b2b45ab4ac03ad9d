/* hwcheck's compiled level loop: one BFS level at a time over rows (model.h), with the seen
 * set, the frontier and the level being built held in flat arrays.
 *
 * The Python driver (checker/search/compiled/search.py) owns everything around it: the initial level,
 * fingerprints (xxh3 of each new state's marshal encoding, so they are the reference core's),
 * parent pointers, limits, progress and counterexamples. Per level it calls eng_expand over
 * slices of the frontier, then eng_finish, then eng_advance with the new states'
 * fingerprints.
 *
 * Deduplication uses a hash of the (canonical) row, 64 or 128 bits (tables.h: Key); a level
 * holds at most LEVEL_MAX states (tables.h: parents are 32-bit frontier indices), past which
 * ENG_LIMIT; the tie-breaks are the reference
 * engine's (checker.search.reference.bfs): a new state's parent is the smallest (parent fingerprint, label
 * rank), where a label's rank is its position in the order of label texts.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "xxh3.h"

/* -- the engine --------------------------------------------------------------------------- */

/* Zeroed memory on a cache-line boundary (sizes here are multiples of 64). */
static void *zeroed(size_t bytes) {
    void *p = aligned_alloc(64, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}
void eng_free(Engine *e);

/* An engine for the model of `params`; NULL with the reason in `why` (`room` bytes) when the
 * model refuses them (model_new) or memory runs out. */
Engine *eng_new(const ModelParams *params, const uint16_t *ranks, uint32_t inv_mask,
                uint32_t trans_mask, uint32_t guard_mask, int symmetry, int threads, char *why,
                size_t room) {
    Engine *e = zeroed(sizeof(Engine));
    if (!e) return refuse(why, room, "out of memory");
    e->m = model_new(params, why, room);
    if (!e->m) {
        free(e);
        return NULL;
    }
    e->width = model_width(e->m);
    e->max_succ = model_max_successors(e->m);
    e->max_marshal = model_max_marshal(e->m);
    if (threads > ENG_MAX_THREADS) {
        eng_free(e);
        return refuse(why, room, "%d threads: at most %d", threads, ENG_MAX_THREADS);
    }
    e->threads = threads < 1 ? 1 : threads;
    e->inv_mask = inv_mask;
    e->trans_mask = trans_mask;
    e->guard_mask = guard_mask;
    e->symmetry = symmetry;
    memcpy(e->rank, ranks, sizeof(e->rank));
    e->seen = zeroed(e->threads * sizeof(Seen));
    e->part = zeroed(e->threads * sizeof(Table));
    e->broken_row = calloc(MAXBITS, e->width);
    e->workers = zeroed(e->threads * sizeof(Worker));
    e->ids = calloc(e->threads, sizeof(pthread_t));
    int failed = !e->seen || !e->part || !e->broken_row || !e->workers || !e->ids;
    for (int p = 0; p < e->threads && !failed; p++) {
        failed = table_grow(&e->part[p], e->width) || eng_worker_init(e, &e->workers[p]);
        e->workers[p].index = p;
    }
    if (failed) {
        eng_free(e);
        return refuse(why, room, "out of memory");
    }
    e->level_limit = LEVEL_MAX;
    return e;
}

/* Lower the most states a level may hold to `limit` (at most LEVEL_MAX; tests reach the
 * limit's refusal with it): eng_seed and eng_finish refuse a level past it. */
void eng_set_level_limit(Engine *e, int64_t limit) {
    e->level_limit = limit > 0 && (size_t)limit < LEVEL_MAX ? (size_t)limit : LEVEL_MAX;
}

void eng_free(Engine *e) {
    if (!e) return;
    for (int p = 0; p < e->threads; p++) {
        if (e->workers && e->workers[p].e) eng_worker_free(&e->workers[p]);
        if (e->part) table_free(&e->part[p]);
    }
    if (e->seen) seen_clear(e->seen, e->threads);
    if (e->m) model_free(e->m);
    free(e->workers);
    free(e->ids);
    free(e->seen);
    free(e->part);
    free(e->front);
    free(e->front_fp);
    free(e->broken_row);
    free(e->next.parent);
    free(e->next.label);
    free(e->next.bad);
    free(e->next.fp);
    free(e);
}

/* Forget the level being built, keeping the counts of its expansion (a streamed level,
 * once Python has taken it: tier.c). */
void eng_level_reset(Engine *e) {
    for (int p = 0; p < e->threads; p++) table_clear(&e->part[p]);
    e->next.n = 0;
}

/* Forget the level being built and its counts: a new level starts. */
void eng_level_restart(Engine *e) {
    eng_level_reset(e);
    memset(e->generated, 0, sizeof(e->generated));
    memset(e->broken, 0, sizeof(e->broken));
}

static int set_frontier(Engine *e, const uint8_t *rows, const uint64_t *fps, size_t n) {
    if (n > e->front_cap) {
        uint8_t *front = realloc(e->front, n * e->width);
        if (!front) return ENG_NO_MEMORY;
        e->front = front;
        uint64_t *fp = realloc(e->front_fp, n * sizeof(uint64_t));
        if (!fp) return ENG_NO_MEMORY;
        e->front_fp = fp;
        e->front_cap = n;
    }
    memcpy(e->front, rows, n * e->width);
    memcpy(e->front_fp, fps, n * sizeof(uint64_t));
    e->front_n = n;
    e->window = e->front;
    e->window_base = 0;
    return 0;
}

/* The initial level: `n` canonical rows and their fingerprints. */
int eng_seed(Engine *e, const uint8_t *rows, const uint64_t *fps, int64_t n) {
    if ((size_t)n > e->level_limit) return ENG_LIMIT;
    Key *hashes = calloc(n ? (size_t)n : 1, sizeof(Key));
    if (!hashes) return ENG_NO_MEMORY;
    for (int64_t i = 0; i < n; i++) hashes[i] = row_hash(rows + i * e->width, e->width);
    int rc = seen_add_any(e->seen, e->threads, hashes, (size_t)n);
    free(hashes);
    if (rc) return rc;
    eng_level_restart(e);
    return set_frontier(e, rows, fps, (size_t)n);
}

/* Properties that need no more checking (violated already, or guards reached). */
void eng_set_masks(Engine *e, uint32_t inv_mask, uint32_t trans_mask, uint32_t guard_mask) {
    e->inv_mask = inv_mask;
    e->trans_mask = trans_mask;
    e->guard_mask = guard_mask;
}

/* Expand frontier states [start, end) into the level being built. With threads: each
 * expands a slice into tables per owning partition, then each merges one partition's.
 * 0, or an ENG_ error. */
int eng_expand(Engine *e, int64_t start, int64_t end) {
    int failed = 0;
    e->prefetch = seen_count(e->seen, e->threads) >= PREFETCH_FROM;
    if (e->threads == 1) {
        Worker *w = &e->workers[0];
        w->start = start;
        w->end = end;
        w->failed = 0;
        eng_worker_run(w);
        failed = w->failed;
    } else {
        e->cursor = start;
        e->stop = end;
        for (int t = 0; t < e->threads; t++) e->workers[t].failed = 0;
        failed = eng_run_workers(e, eng_worker_expand);
        if (!failed) failed = eng_run_workers(e, eng_worker_merge);
    }
    for (int t = 0; t < e->threads; t++) eng_worker_fold(e, &e->workers[t]);
    return failed;
}

/* Whether some successor of frontier states [start, end) (in the window) is unseen (the
 * depth bound's question): 1, 0, or ENG_OVERFLOW. */
int eng_probe(Engine *e, int64_t start, int64_t end) {
    Worker *w = &e->workers[0];
    int width = e->width;
    uint32_t reached = 0;
    for (int64_t i = start; i < end; i++) {
        const uint8_t *row = e->window + (i - e->window_base) * width;
        int k = model_expand(e->m, w->scratch, row, e->max_succ, w->succ, w->labels, 0, w->violated,
                             0, &reached);
        if (k < 0) return ENG_OVERFLOW;
        for (int j = 0; j < k; j++) {
            const uint8_t *key = w->succ + (size_t)j * width;
            if (e->symmetry) {
                if (model_canonical(e->m, w->scratch, key, w->canon)) return ENG_OVERFLOW;
                key = w->canon;
            }
            if (!seen_has(e->seen, e->threads, row_hash(key, width))) return 1;
        }
    }
    return 0;
}

/* For partition w->index's new states, written to the gathered level from w->start on:
 * parent and label, the invariants' verdicts and the fingerprint (xxh3 of the reference
 * state's marshal encoding: checker.fingerprint.fingerprint); and into the partition's seen
 * set. */
static void *worker_finish(void *arg) {
    Worker *w = arg;
    Engine *e = w->e;
    Table *t = &e->part[w->index];
    Level *all = &e->next;
    for (size_t k = 0; k < t->n; k++) {
        const uint8_t *row = t->rows + k * e->width;
        size_t at = (size_t)w->start + k;
        all->parent[at] = t->parent[k];
        all->label[at] = t->label[k];
        if (finish_row(e, w, row, &all->bad[at], &all->fp[at])) {
            w->failed = ENG_OVERFLOW;
            break;
        }
    }
    if (!w->failed) w->failed = seen_add(&e->seen[w->index], t->h, t->n);
    return NULL;
}

/* End the level: the new states join the seen set, their invariants are checked and their
 * fingerprints computed, gathered partition after partition (eng_next_*; the rows stay in
 * the partitions until eng_advance). Returns how many new states there are, or an ENG_
 * error. */
int64_t eng_finish(Engine *e) {
    Level *all = &e->next;
    size_t total = (size_t)eng_next_size(e);
    if (total > e->level_limit) return ENG_LIMIT; /* the whole level, all partitions */
    if (total > all->cap) {
#define GROW(field, type)                                                                          \
    do {                                                                                           \
        type *p = realloc(all->field, total * sizeof(type));                                       \
        if (!p) return ENG_NO_MEMORY;                                                              \
        all->field = p;                                                                            \
    } while (0)
        GROW(parent, uint32_t);
        GROW(label, uint16_t);
        GROW(bad, uint32_t);
        GROW(fp, uint64_t);
#undef GROW
        all->cap = total;
    }
    size_t at = 0;
    for (int t = 0; t < e->threads; t++) {
        e->workers[t].failed = 0;
        e->workers[t].start = (int64_t)at;
        at += e->part[t].n;
    }
    all->n = total;
    int failed = eng_run_workers(e, worker_finish);
    return failed ? failed : (int64_t)total;
}

/* The new states become the frontier, with fingerprints `fps` (eng_next_fps's order). */
int eng_advance(Engine *e, const uint64_t *fps) {
    size_t n = e->next.n;
    if (n > e->front_cap) {
        free(e->front);
        free(e->front_fp);
        e->front = malloc(n * e->width);
        e->front_fp = malloc(n * sizeof(uint64_t));
        e->front_cap = e->front && e->front_fp ? n : 0;
        if (!e->front_cap) return ENG_NO_MEMORY;
    }
    size_t at = 0;
    for (int p = 0; p < e->threads; p++) {
        memcpy(e->front + at * e->width, e->part[p].rows, e->part[p].n * e->width);
        at += e->part[p].n;
    }
    memcpy(e->front_fp, fps, n * sizeof(uint64_t));
    e->front_n = n;
    e->window = e->front;
    e->window_base = 0;
    eng_level_restart(e);
    return 0;
}
