/* An orbit graph's orbits expanded in batches on every processor online (oexpand.c, for
 * ograph.c), while the caller numbers the batch before: a batch's rows are copied, then its
 * chunks of OCHUNK orbits are claimed one at a time by helper threads, and by the caller once
 * it has numbered the batch before. Each chunk's orbits are expanded (model_expand) and their
 * successors canonicalized (model_canonical_renaming) into the chunk's own buffers, reading
 * nothing the caller writes. The caller numbers them chunk after chunk, in the batch's order,
 * so the numbering does not depend on the threads. */
#ifndef HWCHECK_OEXPAND_H
#define HWCHECK_OEXPAND_H

#include <pthread.h>
#include <stdint.h>

#include "lgraph.h"

#define OBATCH 4096               /* orbits a batch holds at most */
#define OCHUNK 256                /* orbits a chunk holds at most: what a thread claims */
#define OCHUNKS (OBATCH / OCHUNK) /* chunks a batch holds at most */
#define OHELPERS 7                /* helper threads at most: the processors online but one */
#define STUTTER 0xFFu             /* a successor's gs: a concrete stutter, dropped */

typedef struct {  /* a chunk's orbits' successors, in order */
    int from, to; /* the chunk's orbits: positions in the batch */
    /* per successor: its representative's hash, the successor, its representative, STUTTER
     * or whether the replicas' keys tie, its label, the renaming canonicalization applied
     * (ids ints) */
    uint64_t *hs;
    uint8_t *succ, *reps, *gs;
    uint16_t *labels;
    int *kept;
    int64_t n, room; /* successors held; room for */
    int64_t error;
} OChunk;

typedef struct { /* a batch: orbits first to first + batch - 1 */
    int64_t first;
    int nchunks;
    uint8_t *rows;      /* a copy of its orbits' rows (OBATCH rows of room) */
    int counts[OBATCH]; /* per orbit, its successors */
    OChunk chunks[OCHUNKS];
    int claimed; /* the next chunk to claim (atomic) */
} OSet;

typedef struct { /* a thread's own: the model's scratch, a violated buffer */
    void *scratch;
    uint32_t *violated;
} OThread;

typedef struct {
    LGraph *g;
    int helpers, numbered;         /* helper threads; those given a number (atomic) */
    OSet sets[2];                  /* the batch being numbered and the one being expanded */
    OSet *busy;                    /* the set the helpers expand */
    OThread threads[OHELPERS + 1]; /* 0: the caller's */
    pthread_t ids[OHELPERS];
    int started[OHELPERS];
} OBatch;

/* The threads' and the sets' buffers for graph g: 0, -1 out of memory (ob_end frees what was
 * made). */
int ob_begin(OBatch *o, LGraph *g);
/* Set `set` made the batch of orbits first to first + batch - 1 (every one numbered, its row
 * in the graph's rows), its rows copied, the helpers started on it. */
void ob_start(OBatch *o, int set, int64_t first, int batch);
/* The set started last expanded to its end, the caller taking the chunks left, the helpers
 * joined: its successors' count, or LG_NO_MEMORY, LG_OVERFLOW. */
int64_t ob_finish(OBatch *o);
/* The helpers joined if they run, every buffer freed. */
void ob_end(OBatch *o);

#endif
