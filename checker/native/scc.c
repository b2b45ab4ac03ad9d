/* Strong components of a CSR graph (checker/liveness/compiled.py's fair components): Tarjan's
 * algorithm (Tarjan 1972, "Depth-first search and linear graph algorithms") in Pearce's
 * space-efficient form (Pearce 2016, "A space-efficient algorithm for finding strongly
 * connected components", IPL 116: one visiting number a node, kept in the output, a bit for
 * whether it is a root, and two stacks sharing one array), with its recursion held in
 * arrays so that a path of millions of states needs no C stack: 8 bytes and a bit a node
 * besides the output, where the textbook form takes 20. Edges may repeat and loop on their
 * source. And the reverse of a graph whose edges come in parts (lg_transpose_count, _place). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"

/* Pearce's search (lg_scc). rindex is the output until the end: 0 unvisited; on either
 * stack, the least visiting number the node reaches (numbers from 1, given back as
 * components close, so that they stay below every closed component's value); closed, k - 1
 * minus its component number (components count down from k - 1). stack holds the calls'
 * nodes from the bottom and the finished nodes awaiting their component from the top: a node
 * is never on both, so k slots hold them. next is each call's next out-edge's offset; root a
 * bit a node, set until an edge leads below it. */
typedef struct {
    int32_t *rindex, *stack;
    uint32_t *next;
    uint8_t *root;
    int64_t index, depth;
} Pearce;

/* Visits w: its visiting number, a root until an edge leads below it, a call. */
static inline void descend(Pearce *s, int32_t w) {
    s->rindex[w] = (int32_t)s->index++;
    s->root[w >> 3] |= (uint8_t)(1u << (w & 7));
    s->stack[s->depth] = w;
    s->next[s->depth++] = 0;
}

/* v's edge to a visited w: v takes w's value when lower, and is then no root. */
static inline void lower(Pearce *s, int32_t v, int32_t w) {
    if (s->rindex[w] < s->rindex[v]) {
        s->rindex[v] = s->rindex[w];
        s->root[v >> 3] &= (uint8_t)~(1u << (v & 7));
    }
}

int64_t lg_scc(int64_t k, const int64_t *indptr, const int32_t *indices, int32_t *comp) {
    for (int64_t v = 0; v < k; v++)
        if (indptr[v + 1] - indptr[v] > (int64_t)UINT32_MAX) return LG_OVERFLOW;
    size_t slots = (size_t)k;
    Pearce s = {comp,
                lf_alloc(slots * sizeof(int32_t), 0),
                lf_alloc(slots * sizeof(uint32_t), 0),
                lf_alloc((slots + 7) / 8, 1),
                1,
                0};
    if (!s.stack || !s.next || !s.root) {
        lf_release(s.stack), lf_release(s.next), lf_release(s.root);
        return LG_NO_MEMORY;
    }
    memset(comp, 0, (size_t)k * sizeof *comp);
    int64_t c = k - 1, top = k; /* the next component's value; the waiting nodes' bottom */
    for (int32_t start = 0; start < k; start++) {
        if (s.rindex[start]) continue;
        descend(&s, start);
        while (s.depth > 0) {
            int32_t v = s.stack[s.depth - 1];
            int64_t at = indptr[v] + s.next[s.depth - 1];
            if (at < indptr[v + 1]) {
                int32_t w = indices[at];
                if (!s.rindex[w]) { /* a tree edge: v takes w's value when w returns */
                    descend(&s, w);
                    continue;
                }
                lower(&s, v, w);
                s.next[s.depth - 1]++;
                continue;
            }
            s.depth--; /* v is done: it closes a component, or waits on the other stack */
            if (s.root[v >> 3] >> (v & 7) & 1) {
                s.index--;
                while (top < k && s.rindex[v] <= s.rindex[s.stack[top]]) {
                    s.rindex[s.stack[top++]] = (int32_t)c;
                    s.index--;
                }
                s.rindex[v] = (int32_t)c--;
            } else {
                s.stack[--top] = v;
            }
            if (s.depth > 0) { /* back in the parent: its tree edge to v is done */
                lower(&s, s.stack[s.depth - 1], v);
                s.next[s.depth - 1]++;
            }
        }
    }
    for (int64_t v = 0; v < k; v++) comp[v] = (int32_t)(k - 1 - comp[v]);
    lf_release(s.stack), lf_release(s.next), lf_release(s.root);
    return k - 1 - c;
}

/* A graph's reverse, its edges given in parts (as a graph's kept edges are found), each
 * part's n edges as their source and target positions, sources never decreasing over the
 * parts: lg_transpose_count adds each target's edges to rptr[target + 1] (rptr zeroed, k + 1
 * long); once the caller has summed rptr (rptr[t]: where t's sources begin),
 * lg_transpose_place writes each source there, moving rptr[t] on; after every part rptr[t] is
 * where t's sources end (the caller shifts it by one). So a target's sources are in
 * increasing order, once per edge, and the forward edges are never all held. */
void lg_transpose_count(int64_t n, const int32_t *dst, int64_t *rptr) {
    for (int64_t e = 0; e < n; e++) rptr[dst[e] + 1]++;
}

void lg_transpose_place(int64_t n, const int32_t *src, const int32_t *dst, int64_t *rptr,
                        int32_t *rsrc) {
    for (int64_t e = 0; e < n; e++) rsrc[rptr[dst[e]]++] = src[e];
}
