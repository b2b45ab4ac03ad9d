/* An orbit graph's orbits expanded in batches on every processor online (oexpand.h). Helper
 * threads are started for each batch (a batch is some milliseconds of work, a start some tens
 * of microseconds); a helper that cannot start leaves its chunks to the caller. */
#include "oexpand.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xxh3.h"

int ob_begin(OBatch *o, LGraph *g) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    memset(o, 0, sizeof *o);
    o->g = g;
    o->helpers = online <= 1 ? 0 : online > OHELPERS + 1 ? OHELPERS : (int)online - 1;
    int ready = 1;
    for (int t = 0; t <= o->helpers; t++) {
        o->threads[t].scratch = aligned_alloc(64, model_scratch_size(g->m));
        o->threads[t].violated = malloc((size_t)g->max_succ * sizeof(uint32_t));
        ready = ready && o->threads[t].scratch && o->threads[t].violated;
    }
    for (int s = 0; s < 2; s++) {
        o->sets[s].rows = malloc((size_t)OBATCH * g->width);
        ready = ready && o->sets[s].rows;
    }
    return ready ? 0 : -1;
}

/* Room in a chunk for `more` successors: 0, -1 out of memory. */
static int chunk_room(const LGraph *g, OChunk *c, int64_t more) {
    if (c->n + more <= c->room) return 0;
    int64_t want = c->n + more > 2 * c->room ? c->n + more : 2 * c->room;
    size_t width = (size_t)g->width, ids = (size_t)g->ids;
    if (lg_grow((void **)&c->hs, 8, want) || lg_grow((void **)&c->succ, width, want)
        || lg_grow((void **)&c->reps, width, want) || lg_grow((void **)&c->gs, 1, want)
        || lg_grow((void **)&c->labels, sizeof(uint16_t), want)
        || lg_grow((void **)&c->kept, ids * sizeof(int), want))
        return -1;
    c->room = want;
    return 0;
}

/* A chunk's successor j (of `here`): its representative, renaming kept, ties and hash. */
static int64_t settle(const LGraph *g, OChunk *c, void *scratch, const uint8_t *here, int64_t j) {
    const uint8_t *succ = c->succ + (size_t)j * g->width;
    uint8_t *rep = c->reps + (size_t)j * g->width;
    if (!memcmp(succ, here, g->width)) {
        c->gs[j] = STUTTER;
        c->hs[j] = 0;
        return 0;
    }
    int tied = 0;
    if (model_canonical_renaming(g->m, scratch, succ, rep, c->kept + (size_t)j * g->ids, &tied))
        return LG_OVERFLOW;
    c->gs[j] = (uint8_t)tied;
    c->hs[j] = xxh3_64(rep, g->width);
    return 0;
}

/* Chunk k of a set expanded by thread t: its orbits expanded and settled, the first error
 * kept. */
static void expand_chunk(const OBatch *o, OSet *set, int k, const OThread *t) {
    const LGraph *g = o->g;
    OChunk *c = &set->chunks[k];
    uint32_t reached = 0;
    int64_t error = 0;
    c->n = 0;
    for (int b = c->from; b < c->to && !error; b++) {
        const uint8_t *here = set->rows + (size_t)b * g->width;
        if (chunk_room(g, c, g->max_succ)) {
            error = LG_NO_MEMORY;
            break;
        }
        int n = model_expand(g->m, t->scratch, here, g->max_succ, c->succ + c->n * g->width,
                             c->labels + c->n, 0, t->violated, 0, &reached);
        if (n < 0) error = LG_OVERFLOW;
        for (int64_t j = c->n; j < c->n + n && !error; j++)
            error = settle(g, c, t->scratch, here, j);
        set->counts[b] = n < 0 ? 0 : n;
        c->n += n < 0 ? 0 : n;
    }
    c->error = error;
}

/* Thread t claims the busy set's chunks until none is left. */
static void claim(OBatch *o, int t) {
    OSet *set = o->busy;
    for (int k; (k = __atomic_fetch_add(&set->claimed, 1, __ATOMIC_RELAXED)) < set->nchunks;)
        expand_chunk(o, set, k, &o->threads[t]);
}

static void *helper_run(void *arg) {
    OBatch *o = arg;
    int t = __atomic_add_fetch(&o->numbered, 1, __ATOMIC_RELAXED); /* 1 to helpers */
    claim(o, t);
    return NULL;
}

void ob_start(OBatch *o, int which, int64_t first, int batch) {
    const LGraph *g = o->g;
    OSet *set = &o->sets[which];
    set->first = first;
    set->nchunks = (batch + OCHUNK - 1) / OCHUNK;
    for (int k = 0; k < set->nchunks; k++) {
        set->chunks[k].from = k * OCHUNK;
        set->chunks[k].to = (k + 1) * OCHUNK < batch ? (k + 1) * OCHUNK : batch;
        set->chunks[k].error = 0;
    }
    if (batch > 0) memcpy(set->rows, lg_row_at(g, first), (size_t)batch * g->width);
    set->claimed = 0;
    o->busy = set;
    o->numbered = 0;
    for (int h = 0; h < o->helpers; h++)
        o->started[h] = !pthread_create(&o->ids[h], NULL, helper_run, o);
}

/* The helpers joined. */
static void join(OBatch *o) {
    for (int h = 0; h < o->helpers; h++)
        if (o->started[h]) pthread_join(o->ids[h], NULL), o->started[h] = 0;
}

int64_t ob_finish(OBatch *o) {
    OSet *set = o->busy;
    claim(o, 0);
    join(o);
    int64_t total = 0;
    for (int k = 0; k < set->nchunks; k++) {
        if (set->chunks[k].error) return set->chunks[k].error;
        total += set->chunks[k].n;
    }
    return total;
}

void ob_end(OBatch *o) {
    join(o);
    for (int t = 0; t <= o->helpers; t++) free(o->threads[t].scratch), free(o->threads[t].violated);
    for (int s = 0; s < 2; s++) {
        OSet *set = &o->sets[s];
        free(set->rows);
        for (int k = 0; k < OCHUNKS; k++) {
            OChunk *c = &set->chunks[k];
            free(c->hs), free(c->succ), free(c->reps), free(c->gs), free(c->labels), free(c->kept);
        }
    }
}
