/* What the disk tier (checker/search/tier/spill.py, stream.py) asks of the compiled engine: its
 * seen set emptied once Python has written it to a sorted run on disk, and the level being
 * built read out and thinned by delayed duplicate detection (the states a run on
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

/* Empty the seen set (its hashes were copied out with eng_seen_copy and written to disk),
 * handing the freed memory back to the system. 0 (kept for the callers' check). */
int eng_seen_clear(Engine *e) {
    seen_clear(e->seen, e->threads);
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    return 0;
}

/* The row hashes of the level being built, in the order eng_finish gathers it (partition
 * after partition, each in its table's order), into `out` (eng_next_size of them). */
void eng_next_hashes(const Engine *e, Key *out) {
    for (int p = 0; p < e->threads; p++) {
        memcpy(out, e->part[p].h, e->part[p].n * sizeof(Key));
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

/* -- a streamed level (checker/search/tier/stream.py) ------------------------------------------- */

/* Lend the engine frontier rows [base, base + n) to expand (Python keeps them alive until
 * the next call; eng_expand and eng_probe read only inside the window). */
void eng_window(Engine *e, const uint8_t *rows, int64_t base) {
    e->window = rows;
    e->window_base = base;
}

/* The row hashes of the frontier's rows (in memory), into `out` (front_n of them): the keys
 * its states have in the seen set. */
void eng_front_hashes(const Engine *e, Key *out) {
    for (size_t i = 0; i < e->front_n; i++) out[i] = row_hash(e->front + i * e->width, e->width);
}

/* The frontier's fingerprints, `n` of them, its rows staying on disk (lent through
 * eng_window): the engine's own rows are freed. 0, or ENG_NO_MEMORY. */
int eng_front_fps_set(Engine *e, const uint64_t *fps, int64_t n) {
    free(e->front);
    e->front = NULL;
    uint64_t *fp = realloc(e->front_fp, (n ? (size_t)n : 1) * sizeof(uint64_t));
    if (!fp) return ENG_NO_MEMORY;
    e->front_fp = fp;
    memcpy(fp, fps, (size_t)n * sizeof(uint64_t));
    e->front_cap = 0; /* no rows held: eng_advance and eng_seed allocate anew */
    e->front_n = (size_t)n;
    e->window = NULL;
    e->window_base = 0;
    eng_level_restart(e);
    return 0;
}

/* Hand back the level tables' memory (a streamed level, before it starts and at each flush
 * of its tables to disk). 0, or ENG_NO_MEMORY. */
int eng_level_release(Engine *e) {
    for (int p = 0; p < e->threads; p++) {
        table_free(&e->part[p]);
        memset(&e->part[p], 0, sizeof(Table));
        if (table_grow(&e->part[p], e->width)) return ENG_NO_MEMORY;
        if (e->threads > 1)
            for (int q = 0; q < e->threads; q++) {
                table_free(&e->workers[p].out[q]);
                memset(&e->workers[p].out[q], 0, sizeof(Table));
            }
    }
    free(e->next.parent);
    free(e->next.label);
    free(e->next.bad);
    free(e->next.fp);
    memset(&e->next, 0, sizeof(Level));
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    return 0;
}

/* Every entry of the level being built, in eng_next_hashes' order: row hashes, parents
 * (frontier indices), labels and rows into the four arrays (eng_next_size each; `rows`
 * may be NULL: a streamed level's flush keeps none, eng_regen makes them again). */
void eng_next_entries(const Engine *e, Key *h, uint32_t *parent, uint16_t *label, uint8_t *rows) {
    for (int p = 0; p < e->threads; p++) {
        const Table *t = &e->part[p];
        memcpy(h, t->h, t->n * sizeof(Key));
        memcpy(parent, t->parent, t->n * sizeof(uint32_t));
        memcpy(label, t->label, t->n * sizeof(uint16_t));
        if (rows) {
            memcpy(rows, t->rows, t->n * (size_t)e->width);
            rows += t->n * (size_t)e->width;
        }
        h += t->n;
        parent += t->n;
        label += t->n;
    }
}

/* Worker w->index's share of the rows given: their invariants' verdicts and fingerprints. */
static void *finish_share(void *arg) {
    Worker *w = arg;
    Engine *e = w->e;
    int64_t per = (e->given_n + e->threads - 1) / e->threads;
    int64_t start = per * w->index, end = start + per < e->given_n ? start + per : e->given_n;
    for (int64_t i = start; i < end; i++)
        if (finish_row(e, w, e->given + i * e->width, &e->given_bad[i], &e->given_fps[i])) {
            w->failed = ENG_OVERFLOW;
            break;
        }
    return NULL;
}

/* What eng_finish computes of a new state, for `n` rows given (a streamed level's merged
 * states), on every thread: the invariants' verdicts into `bad` and the fingerprints (xxh3
 * of the marshal encoding) into `fps`. 0, or ENG_OVERFLOW. */
int eng_rows_finish(Engine *e, const uint8_t *rows, int64_t n, uint64_t *fps, uint32_t *bad) {
    e->given = rows;
    e->given_fps = fps;
    e->given_bad = bad;
    e->given_n = n;
    int failed = eng_run_workers(e, finish_share);
    e->given = NULL;
    return failed;
}

/* Worker w->index's share of the successors to regenerate: each parent's row (in the window)
 * expanded once for a run of entries that share it, and of its successors the one with the
 * entry's label whose canonical row hashes to the entry's key copied out. */
static void *regen_share(void *arg) {
    Worker *w = arg;
    Engine *e = w->e;
    int width = e->width, k = 0;
    uint32_t reached = 0;
    int64_t per = (e->want_n + e->threads - 1) / e->threads;
    int64_t start = per * w->index, end = start + per < e->want_n ? start + per : e->want_n;
    for (int64_t i = start; i < end; i++) {
        uint32_t parent = e->want_parent[i];
        if (i == start || parent != e->want_parent[i - 1]) {
            const uint8_t *row = e->window + ((int64_t)parent - e->window_base) * width;
            k = model_expand(e->m, w->scratch, row, e->max_succ, w->succ, w->labels, 0, w->violated,
                             0, &reached);
            if (k < 0) {
                w->failed = ENG_OVERFLOW;
                return NULL;
            }
        }
        int found = 0;
        for (int j = 0; j < k && !found; j++) {
            if (w->labels[j] != e->want_label[i]) continue;
            const uint8_t *succ = w->succ + (size_t)j * width;
            if (e->symmetry) {
                if (model_canonical(e->m, w->scratch, succ, w->canon)) {
                    w->failed = ENG_OVERFLOW;
                    return NULL;
                }
                succ = w->canon;
            }
            if (row_hash(succ, width) != e->want_key[i]) continue;
            memcpy(e->want_rows + i * width, succ, width);
            found = 1;
        }
        if (!found) {
            w->failed = ENG_MISMATCH;
            return NULL;
        }
    }
    return NULL;
}

/* The rows of `n` successors a streamed level's flushes named by parent, label and row hash
 * (a flush keeps no rows: checker/search/tier/stream.py), made again from their parents' rows in
 * the window, on every thread, into `rows` (n x width). `parent`: frontier indices in the
 * window, ascending, so a parent is expanded once per run of its entries. 0, ENG_OVERFLOW,
 * or ENG_MISMATCH when no successor of the parent has that label and key. */
int eng_regen(Engine *e, const uint32_t *parent, const uint16_t *label, const Key *key, int64_t n,
              uint8_t *rows) {
    e->want_parent = parent;
    e->want_label = label;
    e->want_key = key;
    e->want_rows = rows;
    e->want_n = n;
    int failed = eng_run_workers(e, regen_share);
    e->want_rows = NULL;
    return failed;
}
