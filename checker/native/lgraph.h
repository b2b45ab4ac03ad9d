/* The compiled liveness graph (lgraph.c): a model's whole plain state graph, built breadth
 * first from the initial rows exactly as checker/liveness/graph.py numbers it, held as
 * contiguous rows and CSR out-edges, with the graph walks the liveness check needs
 * (checker/liveness/compiled.py drives it through ctypes). */
#ifndef HWCHECK_LGRAPH_H
#define HWCHECK_LGRAPH_H

#include <stdint.h>

#include "model.h"

/* lg_build's errors (its result is the state count when >= 0). */
#define LG_TOO_LARGE (-1) /* past max_states (lg_error_depth: the depth it reached) */
#define LG_NO_MEMORY (-2)
#define LG_OVERFLOW (-3) /* a model call past its room (model.h: MODEL_OVERFLOW) */

typedef struct LGraph {
    Model *m;
    int width, max_succ;
    uint8_t *rows; /* n rows of `width` bytes, in state order */
    int64_t n, cap;
    uint64_t *slots; /* open addressing: hash's high half << 32 | (state + 1); 0 free */
    int64_t nslots;
    int64_t *off;  /* CSR: state i's out-edges are [off[i], off[i + 1]) */
    uint32_t *dst; /* edge targets */
    uint16_t *lab; /* edge label codes */
    int64_t ne, ecap;
    uint32_t *parent; /* breadth-first parent (UINT32_MAX for an initial state) */
    uint16_t *plabel; /* label code of the step from the parent */
    uint32_t *depth;  /* states on the shortest path, itself included (initial: 1) */
    int64_t *poff;    /* predecessors (lg_reach backward), built on first use */
    uint32_t *psrc;
    int64_t error_depth;
    uint8_t *succ; /* a batch's successors: room for max_succ per state */
    uint16_t *labels;
    uint32_t *violated;
    void *scratch; /* the model's (model_scratch_size) */
} LGraph;

LGraph *lg_new(const ModelParams *params, char *why, size_t room);
void lg_free(LGraph *g);
int64_t lg_build(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states);
/* scc.c: the strong component of each of k nodes of the CSR graph (indptr, indices), numbered
 * from 0 in the order Tarjan's algorithm completes them; the count, or LG_NO_MEMORY. */
int64_t lg_scc(int64_t k, const int64_t *indptr, const int32_t *indices, int32_t *comp);

#endif
