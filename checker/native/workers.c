/* The level loop's workers (engine.c drives them): each expands blocks of the frontier into
 * its own partition's level table and lists for the others (eng_worker_expand), then merges
 * the lists for its partition (eng_worker_merge); a level's counts, violations and guards are
 * folded from them afterwards (eng_worker_fold). One worker a thread, worker 0 on the
 * caller's. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* Zeroed memory of its own cache lines: a thread's scratch buffers never share a line with
 * another thread's or with the model (false sharing cost the second thread a fifth). */
static void *own(size_t bytes) {
    bytes = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (p) memset(p, 0, bytes);
    return p;
}

/* A worker's buffers, sized from the model's maxima once: max_succ successors (rows, keys,
 * labels, verdicts), a canonical row, a max_marshal encoding and the model's own scratch. */
int eng_worker_init(Engine *e, Worker *w) {
    memset(w, 0, sizeof(Worker));
    w->e = e;
    w->succ = own((size_t)e->max_succ * e->width);
    w->canon = own(e->width);
    w->keys = own(e->max_succ * sizeof(Key));
    w->labels = own(e->max_succ * sizeof(uint16_t));
    w->violated = own(e->max_succ * sizeof(uint32_t));
    w->broken_row = own((size_t)MAXBITS * e->width);
    w->marshal = own(e->max_marshal);
    w->scratch = own(model_scratch_size(e->m));
    if (!w->succ || !w->canon || !w->keys || !w->labels || !w->violated || !w->broken_row
        || !w->marshal || !w->scratch)
        return -1;
    if (e->threads == 1) return 0;
    w->out = own(e->threads * sizeof(Table));
    if (!w->out) return -1;
    return 0;
}

void eng_worker_free(Worker *w) {
    free(w->succ);
    free(w->canon);
    free(w->keys);
    free(w->labels);
    free(w->violated);
    free(w->broken_row);
    free(w->marshal);
    free(w->scratch);
    if (w->out)
        for (int p = 0; p < w->e->threads; p++) table_free(&w->out[p]);
    free(w->out);
}

static void note_broken(Broken *broken, uint8_t *rows, int width, int bit, uint64_t pfp,
                        uint16_t rank, uint16_t label, uint32_t parent, const uint8_t *row) {
    Broken *b = &broken[bit];
    if (!b->has || better(pfp, rank, b->pfp, b->rank)) {
        b->has = 1;
        b->pfp = pfp;
        b->rank = rank;
        b->label = label;
        b->parent = parent;
        memcpy(rows + bit * width, row, width);
    }
}

/* Expand frontier states [w->start, w->end): a new state of the worker's own partition
 * straight into that partition's level table (only this worker writes it until the merge),
 * any other appended to the worker's list for its owner. Reads the seen set only. */
void eng_worker_run(Worker *w) {
    Engine *e = w->e;
    int width = e->width;
    uint32_t guards = e->guard_mask;
    for (int64_t i = w->start; i < w->end && !w->failed; i++) {
        uint64_t pfp = e->front_fp[i];
        const uint8_t *row = e->window + (i - e->window_base) * width;
        int k = model_expand(e->m, w->scratch, row, e->max_succ, w->succ, w->labels, e->trans_mask,
                             w->violated, guards & ~w->reached, &w->reached);
        if (k < 0) {
            w->failed = ENG_OVERFLOW;
            break;
        }
        /* first every successor's canonical row (in place of the successor) and key, each
         * key's bucket fetched ahead once the seen set outgrows the caches (PREFETCH_FROM),
         * then the lookups: their cache misses overlap */
        for (int j = 0; j < k; j++) {
            uint16_t label = w->labels[j], rank = e->rank[label];
            uint8_t *succ = w->succ + (size_t)j * width;
            w->generated[model_action_of(label)]++;
            for (uint32_t bad = w->violated[j]; bad; bad &= bad - 1)
                note_broken(w->broken, w->broken_row, width, __builtin_ctz(bad), pfp, rank, label,
                            (uint32_t)i, succ);
            if (e->symmetry) {
                if (model_canonical(e->m, w->scratch, succ, w->canon)) {
                    w->failed = ENG_OVERFLOW;
                    break;
                }
                memcpy(succ, w->canon, width);
            }
            w->keys[j] = row_hash(succ, width);
            if (e->prefetch) seen_prefetch(e->seen, e->threads, w->keys[j]);
        }
        if (e->prefetch)
            for (int j = 0; j < k && !w->failed; j++)
                seen_prefetch_entries(e->seen, e->threads, w->keys[j]);
        for (int j = 0; j < k && !w->failed; j++) {
            Key h = w->keys[j];
            if (seen_has(e->seen, e->threads, h)) continue;
            const uint8_t *key = w->succ + (size_t)j * width;
            uint16_t label = w->labels[j];
            int owner = part_of(e->threads, h); /* this worker's own partition takes it directly */
            int rc = owner == w->index
                ? table_offer(&e->part[owner], width, e->front_fp, e->rank, key, h, (uint32_t)i,
                              label)
                : table_push(&w->out[owner], width, key, h, (uint32_t)i, label);
            if (rc) {
                w->failed = rc;
                break;
            } /* ENG_NO_MEMORY or ENG_LIMIT */
        }
    }
}

/* Frontier states a worker takes at a time: workers take blocks until the slice is done,
 * so one that drew slow states does not hold the others at the merge. */
#define BLOCK 256

void *eng_worker_expand(void *arg) {
    Worker *w = arg;
    Engine *e = w->e;
    int64_t stop = e->stop;
    for (;;) {
        int64_t start = __atomic_fetch_add(&e->cursor, BLOCK, __ATOMIC_RELAXED);
        if (start >= stop || w->failed) break;
        w->start = start;
        w->end = start + BLOCK < stop ? start + BLOCK : stop;
        eng_worker_run(w);
    }
    return NULL;
}

/* Merge every worker's finds for partition w->index into that partition's level table. */
void *eng_worker_merge(void *arg) {
    Worker *w = arg;
    Engine *e = w->e;
    Table *into = &e->part[w->index];
    for (int t = 0; t < e->threads && !w->failed; t++) {
        if (t == w->index) continue; /* its own finds went straight in */
        Table *from = &e->workers[t].out[w->index];
        for (size_t k = 0; k < from->n && !w->failed; k++)
            w->failed = table_offer(into, e->width, e->front_fp, e->rank, from->rows + k * e->width,
                                    from->h[k], from->parent[k], from->label[k]);
        table_clear(from);
    }
    return NULL;
}

/* Run `fn` on every worker, on its own thread (worker 0 on this one; a worker whose thread
 * could not start runs on this one too), each worker's `failed` cleared first. Returns the
 * first failed worker's error, or 0. (engine.c and tier.c) */
int eng_run_workers(Engine *e, void *(*fn)(void *)) {
    pthread_t *ids = e->ids;
    int started = 1, failed = 0;
    for (int t = 0; t < e->threads; t++) e->workers[t].failed = 0;
    for (; started < e->threads; started++)
        if (pthread_create(&ids[started], NULL, fn, &e->workers[started])) break;
    fn(&e->workers[0]);
    for (int t = 1; t < started; t++) pthread_join(ids[t], NULL);
    for (int t = started; t < e->threads; t++) fn(&e->workers[t]);
    for (int t = 0; t < e->threads && !failed; t++) failed = e->workers[t].failed;
    return failed;
}

/* Fold a worker's counts, violations and guards into the level's. */
void eng_worker_fold(Engine *e, Worker *w) {
    for (int a = 0; a < MODEL_MAX_ACTIONS; a++) {
        e->generated[a] += w->generated[a];
        w->generated[a] = 0;
    }
    for (int bit = 0; bit < MAXBITS; bit++) {
        Broken *b = &w->broken[bit];
        if (b->has)
            note_broken(e->broken, e->broken_row, e->width, bit, b->pfp, b->rank, b->label,
                        b->parent, w->broken_row + bit * e->width);
        b->has = 0;
    }
    e->guard_mask &= ~w->reached;
    w->reached = 0;
}
