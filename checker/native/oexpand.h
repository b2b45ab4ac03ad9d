/* A batch of an orbit graph's orbits expanded on several threads (oexpand.c, for ograph.c):
 * each thread takes a run of the batch's orbits, expands each (model_expand) and canonicalizes
 * its successors (model_canonical_renaming) into its own buffers, reading the graph only. The
 * caller then numbers them, share after share, in the batch's order. */
#ifndef HWCHECK_OEXPAND_H
#define HWCHECK_OEXPAND_H

#include <stdint.h>

#include "lgraph.h"

#define OBATCH 4096   /* orbits a batch holds at most */
#define OTHREADS 8    /* threads at most: the processors online, the first being the caller */
#define STUTTER 0xFFu /* a successor's gs: a concrete stutter, dropped */

typedef struct OBatch OBatch;

typedef struct { /* one thread's share of a batch: a run of its orbits, their successors */
    LGraph *g;
    OBatch *o;
    int from, to; /* the batch's orbits from to to - 1 (positions in the batch) */
    void *scratch;
    uint32_t *violated;
    /* per successor, in order: its representative's hash, the successor, its
     * representative, STUTTER or whether the replicas' keys tie, its label, the renaming
     * canonicalization applied (ids ints) */
    uint64_t *hs;
    uint8_t *succ, *reps, *gs;
    uint16_t *labels;
    int *kept;
    int64_t n, room; /* successors held; room for */
    int64_t error;
} OShare;

struct OBatch {
    int counts[OBATCH]; /* per orbit of the batch, its successors */
    int64_t first;      /* the batch: orbits first to first + batch - 1 */
    int batch, threads;
    OShare shares[OTHREADS];
};

/* The threads' buffers for graph g (0, -1 out of memory); a batch expanded (orbits first to
 * first + batch - 1, all numbered already): the successors' count, or LG_NO_MEMORY,
 * LG_OVERFLOW; the buffers freed (also after a failed ob_begin). */
int ob_begin(OBatch *o, LGraph *g);
int64_t ob_expand(OBatch *o, int64_t first, int batch);
void ob_end(OBatch *o);

#endif
