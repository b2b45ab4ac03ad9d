/* Strong components of a CSR graph (checker/liveness/compiled.py's fair components): Tarjan's
 * algorithm (Tarjan 1972, "Depth-first search and linear graph algorithms"), with its
 * recursion held in arrays so that a path of millions of states needs no C stack. Edges may
 * repeat and loop on their source. And a CSR graph's reverse (lg_transpose). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"

int64_t lg_scc(int64_t k, const int64_t *indptr, const int32_t *indices, int32_t *comp) {
    for (int64_t v = 0; v < k; v++)
        if (indptr[v + 1] - indptr[v] > (int64_t)UINT32_MAX) return LG_OVERFLOW;
    size_t slots = (size_t)(k ? k : 1); /* malloc(0) may return NULL */
    int32_t *index = malloc(slots * sizeof *index);
    int32_t *low = malloc(slots * sizeof *low);
    int32_t *stack = malloc(slots * sizeof *stack);
    int32_t *calls = malloc(slots * sizeof *calls);
    uint32_t *next = malloc(slots * sizeof *next); /* the next out-edge's offset in indptr */
    if (!index || !low || !stack || !calls || !next) {
        free(index), free(low), free(stack), free(calls), free(next);
        return LG_NO_MEMORY;
    }
    for (int64_t v = 0; v < k; v++) index[v] = -1, comp[v] = -1;
    int32_t counter = 0, components = 0;
    int64_t top = 0, depth = 0; /* the Tarjan stack's and the call stack's heights */
    for (int64_t root = 0; root < k; root++) {
        if (index[root] >= 0) continue;
        index[root] = low[root] = counter++;
        stack[top++] = (int32_t)root;
        calls[depth] = (int32_t)root, next[depth++] = 0;
        while (depth > 0) {
            int32_t v = calls[depth - 1];
            if (indptr[v] + next[depth - 1] < indptr[v + 1]) {
                int32_t w = indices[indptr[v] + next[depth - 1]++];
                if (index[w] < 0) { /* a tree edge: descend */
                    index[w] = low[w] = counter++;
                    stack[top++] = w;
                    calls[depth] = w, next[depth++] = 0;
                } else if (comp[w] < 0 && index[w] < low[v]) {
                    low[v] = index[w]; /* w is still on the Tarjan stack */
                }
                continue;
            }
            depth--; /* v is done: it roots a component, or passes its low link up */
            if (low[v] == index[v]) {
                int32_t w;
                do {
                    w = stack[--top];
                    comp[w] = components;
                } while (w != v);
                components++;
            }
            if (depth > 0 && low[v] < low[calls[depth - 1]]) low[calls[depth - 1]] = low[v];
        }
    }
    free(index), free(low), free(stack), free(calls), free(next);
    return components;
}

void lg_transpose(int64_t k, const int64_t *indptr, const int32_t *indices, int64_t *rptr,
                  int32_t *rsrc) {
    memset(rptr, 0, (size_t)(k + 1) * sizeof *rptr);
    for (int64_t e = 0; e < indptr[k]; e++) rptr[indices[e] + 1]++;
    for (int64_t v = 0; v < k; v++) rptr[v + 1] += rptr[v];
    for (int64_t v = 0; v < k; v++) /* rptr[t] moves on to t's next free place */
        for (int64_t e = indptr[v]; e < indptr[v + 1]; e++) rsrc[rptr[indices[e]]++] = (int32_t)v;
    for (int64_t v = k; v > 0; v--) rptr[v] = rptr[v - 1]; /* each had moved to its end */
    rptr[0] = 0;
}
