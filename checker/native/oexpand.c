/* A batch of an orbit graph's orbits expanded on every processor online (oexpand.h). A thread
 * per share is started for each batch (a batch is a few milliseconds of work, the start some
 * tens of microseconds); one that cannot start has its share taken by the caller. */
#include "oexpand.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xxh3.h"

int ob_begin(OBatch *o, LGraph *g) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    memset(o, 0, sizeof *o);
    o->threads = online < 1 ? 1 : online > OTHREADS ? OTHREADS : (int)online;
    int ready = 1;
    for (int t = 0; t < o->threads; t++) {
        OShare *s = &o->shares[t];
        s->g = g;
        s->o = o;
        s->scratch = aligned_alloc(64, model_scratch_size(g->m));
        s->violated = malloc((size_t)g->max_succ * sizeof(uint32_t));
        ready = ready && s->scratch && s->violated;
    }
    return ready ? 0 : -1;
}

void ob_end(OBatch *o) {
    for (int t = 0; t < o->threads; t++) {
        OShare *s = &o->shares[t];
        free(s->scratch), free(s->violated), free(s->hs), free(s->succ), free(s->reps);
        free(s->gs), free(s->labels), free(s->kept);
    }
}

/* Room in a share for `more` successors: 0, -1 out of memory. */
static int share_room(OShare *s, int64_t more) {
    if (s->n + more <= s->room) return 0;
    int64_t want = s->n + more > 2 * s->room ? s->n + more : 2 * s->room;
    size_t width = (size_t)s->g->width, ids = (size_t)s->g->ids;
    if (lg_grow((void **)&s->hs, 8, want) || lg_grow((void **)&s->succ, width, want)
        || lg_grow((void **)&s->reps, width, want) || lg_grow((void **)&s->gs, 1, want)
        || lg_grow((void **)&s->labels, sizeof(uint16_t), want)
        || lg_grow((void **)&s->kept, ids * sizeof(int), want))
        return -1;
    s->room = want;
    return 0;
}

/* A share's successor j (of `here`): its representative, renaming kept, ties and hash. */
static int64_t settle(OShare *s, const uint8_t *here, int64_t j) {
    LGraph *g = s->g;
    const uint8_t *succ = s->succ + (size_t)j * g->width;
    uint8_t *rep = s->reps + (size_t)j * g->width;
    if (!memcmp(succ, here, g->width)) {
        s->gs[j] = STUTTER;
        s->hs[j] = 0;
        return 0;
    }
    int tied = 0;
    if (model_canonical_renaming(g->m, s->scratch, succ, rep, s->kept + (size_t)j * g->ids, &tied))
        return LG_OVERFLOW;
    s->gs[j] = (uint8_t)tied;
    s->hs[j] = xxh3_64(rep, g->width);
    return 0;
}

/* A share's orbits expanded and settled into its buffers; the first error kept. */
static void *expand_share(void *arg) {
    OShare *s = arg;
    LGraph *g = s->g;
    OBatch *o = s->o;
    uint32_t reached = 0;
    int64_t error = 0;
    s->n = 0;
    for (int b = s->from; b < s->to && !error; b++) {
        const uint8_t *here = lg_row_at(g, o->first + b);
        if (share_room(s, g->max_succ)) {
            error = LG_NO_MEMORY;
            break;
        }
        int k = model_expand(g->m, s->scratch, here, g->max_succ, s->succ + s->n * g->width,
                             s->labels + s->n, 0, s->violated, 0, &reached);
        if (k < 0) error = LG_OVERFLOW;
        for (int64_t j = s->n; j < s->n + k && !error; j++) error = settle(s, here, j);
        o->counts[b] = k < 0 ? 0 : k;
        s->n += k < 0 ? 0 : k;
    }
    s->error = error;
    return NULL;
}

int64_t ob_expand(OBatch *o, int64_t first, int batch) {
    pthread_t ids[OTHREADS];
    int started[OTHREADS] = {0};
    o->first = first;
    o->batch = batch;
    for (int t = 0; t < o->threads; t++) {
        o->shares[t].from = batch * t / o->threads;
        o->shares[t].to = batch * (t + 1) / o->threads;
    }
    for (int t = 1; t < o->threads; t++)
        started[t] = !pthread_create(&ids[t], NULL, expand_share, &o->shares[t]);
    expand_share(&o->shares[0]);
    for (int t = 1; t < o->threads; t++) {
        if (started[t])
            pthread_join(ids[t], NULL);
        else
            expand_share(&o->shares[t]);
    }
    int64_t total = 0;
    for (int t = 0; t < o->threads; t++) {
        if (o->shares[t].error) return o->shares[t].error;
        total += o->shares[t].n;
    }
    return total;
}
