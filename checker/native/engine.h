/* The compiled level loop's state (engine.c; its accessors are in access.c). */
#ifndef HWCHECK_ENGINE_H
#define HWCHECK_ENGINE_H

#include <pthread.h>

#include "model.h"
#include "seen.h"
#include "tables.h"
#include "xxh3.h"

#define NLABELS LABEL_CODES
#define MAXBITS 32
/* The most threads: a row hash's partition scales 16 of its bits (tables.h: part_of). */
#define ENG_MAX_THREADS 65536

/* The seen set's size (keys) from which lookups fetch their buckets ahead (engine.c
 * worker_run): about 23 MB of compact set, past what the caches hold; below it the set
 * mostly sits in them and the fetches would be work for nothing. */
#define PREFETCH_FROM ((size_t)1 << 22)

/* The engine's errors (checker/native/core.py: check). */
#define ENG_NO_MEMORY TABLE_NO_MEMORY
#define ENG_OVERFLOW (-2)     /* a model call past its buffers' room (model.h: MODEL_OVERFLOW) */
#define ENG_LIMIT TABLE_LIMIT /* a level past the engine's level limit (tables.h: LEVEL_MAX) */
#define ENG_MISMATCH (-4) /* a regenerated successor that is not the one a flush named (tier.c) */

typedef struct {
    int has;
    uint64_t pfp;
    uint16_t rank, label;
    uint32_t parent;
} Broken;

/* What one thread needs to expand frontier states. */
typedef struct {
    struct Engine *e;
    int64_t start, end;
    int index;  /* this worker's number; with threads, also the partition it merges */
    Table *out; /* with threads: this worker's finds, one table per owning partition */
    int64_t generated[MODEL_MAX_ACTIONS];
    Broken broken[MAXBITS];
    uint8_t *broken_row;
    uint32_t reached;
    uint8_t *succ, *canon, *marshal; /* max_succ rows; one row; max_marshal bytes */
    Key *keys;                       /* max_succ successors' keys */
    uint16_t *labels;
    uint32_t *violated;
    void *scratch; /* the model's (model_scratch_size) */
    int failed;    /* 0, or an ENG_ error */
} __attribute__((aligned(64))) Worker;

typedef struct {
    uint32_t *parent;
    uint16_t *label;
    uint32_t *bad;
    uint64_t *fp;
    size_t n, cap;
} Level;

typedef struct Engine {
    Model *m;
    int width, max_succ, max_marshal, threads;
    uint32_t inv_mask, trans_mask, guard_mask;
    int symmetry;
    int prefetch; /* whether lookups fetch ahead (a seen set of PREFETCH_FROM keys or more) */
    uint16_t rank[NLABELS];
    /* every state seen so far: row hashes in one compact set per partition (seen.h; a
     * hash's partition owns it: part_of), so threads insert without locks */
    Seen *seen;
    /* the frontier: every state's fingerprint; its rows here, or (a streamed level, tier.c)
     * on disk with a window of them lent by Python: the rows of states window_base on */
    uint8_t *front;
    uint64_t *front_fp;
    size_t front_n, front_cap;
    const uint8_t *window;
    int64_t window_base;
    /* rows given to finish on every thread (eng_rows_finish, tier.c) and where their
     * fingerprints and verdicts go */
    const uint8_t *given;
    uint64_t *given_fps;
    uint32_t *given_bad;
    int64_t given_n;
    /* successors to regenerate (eng_regen, tier.c): each its parent (a frontier index in
     * the window), label and row hash, and where its row goes */
    const uint32_t *want_parent;
    const uint16_t *want_label;
    const Key *want_key;
    uint8_t *want_rows;
    int64_t want_n;
    /* the level being built, one table per partition, and once finished what Python reads
     * of all of it (parents, labels, invariant verdicts, fingerprints) */
    Table *part;
    size_t level_limit; /* the most states a level may hold (LEVEL_MAX unless lowered) */
    Level next;
    Worker *workers;
    pthread_t *ids; /* one per worker (worker 0's unused: it runs on the caller's thread) */
    /* the slice being expanded: next block to take (on a line of its own: every worker
     * bumps it), its end */
    int64_t cursor __attribute__((aligned(64)));
    char cursor_line[56];
    int64_t stop;
    int64_t generated[MODEL_MAX_ACTIONS];
    Broken broken[MAXBITS];
    uint8_t *broken_row;
} Engine;

/* What a new state gets once found (eng_finish, eng_rows_finish): the invariants' verdicts
 * into *bad and its fingerprint, xxh3 of the reference state's marshal encoding
 * (checker.fingerprint.fingerprint), into *fp, with worker w's buffer. 0, or -1 when the
 * encoding came out longer than the model's bound. */
static inline int finish_row(const struct Engine *e, Worker *w, const uint8_t *row, uint32_t *bad,
                             uint64_t *fp) {
    *bad = e->inv_mask ? model_invariants(e->m, row, e->inv_mask) : 0;
    int len = model_marshal(e->m, row, w->marshal);
    if (len > e->max_marshal) return -1;
    *fp = xxh3_64(w->marshal, len);
    return 0;
}

/* access.c */
int64_t eng_next_size(const Engine *e);
/* engine.c */
void eng_level_reset(Engine *e);
void eng_level_restart(Engine *e);
/* workers.c: a worker's buffers (-1 when memory runs out), its frontier slice [start, end)
 * expanded, the pthread bodies of a level's expansion and merge, its finds folded into the
 * level's, and `fn` run on every worker, each `failed` cleared first (the first error, or 0) */
int eng_worker_init(Engine *e, Worker *w);
void eng_worker_free(Worker *w);
void eng_worker_run(Worker *w);
void *eng_worker_expand(void *arg);
void *eng_worker_merge(void *arg);
void eng_worker_fold(Engine *e, Worker *w);
int eng_run_workers(Engine *e, void *(*fn)(void *));

#endif
