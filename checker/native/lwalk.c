/* Walks over the compiled liveness graph (lgraph.c) for checker/liveness/compiled.py:
 * reachability inside a set of states (forward, or backward over the predecessors), the
 * induced subgraph as CSR (for scc.c's strongly connected components), the breadth-first
 * shortest path of checker/liveness/lasso.py's bfs; and the per-state sweeps over the edges
 * and atoms (one key's states, the constraints enabled, the label codes' first edges). */
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"

/* Predecessor CSR (a counting sort of the edges by target), once. */
static int predecessors(LGraph *g) {
    if (g->poff) return 0;
    int64_t *poff = lf_alloc(((size_t)g->n + 1) * 8, 1);
    uint32_t *psrc = lf_alloc((size_t)g->ne * 4, 0);
    if (!poff || !psrc) {
        lf_release(poff);
        lf_release(psrc);
        return -1;
    }
    for (int64_t e = 0; e < g->ne; e++) poff[g->dst[e] + 1]++;
    for (int64_t i = 0; i < g->n; i++) poff[i + 1] += poff[i];
    int64_t *fill = lf_alloc((size_t)g->n * 8, 0);
    if (!fill) {
        lf_release(poff);
        lf_release(psrc);
        return -1;
    }
    memcpy(fill, poff, (size_t)g->n * 8);
    for (int64_t i = 0; i < g->n; i++)
        for (int64_t e = g->off[i]; e < g->off[i + 1]; e++) psrc[fill[g->dst[e]]++] = (uint32_t)i;
    lf_release(fill);
    g->poff = poff;
    g->psrc = psrc;
    return 0;
}

/* Marks (mark[i] = 1) every state of `inside` reachable from the marked ones (forward) or
 * reaching them (backward), through states of `inside`. Returns the marked count, -1 when
 * out of memory. */
int64_t lg_reach(LGraph *g, const uint8_t *inside, uint8_t *mark, int backward) {
    if (backward && predecessors(g)) return -1;
    uint32_t *stack = lf_alloc((size_t)g->n * 4, 0);
    if (!stack) return -1;
    int64_t top = 0, count = 0;
    for (int64_t i = 0; i < g->n; i++)
        if (mark[i]) {
            stack[top++] = (uint32_t)i;
            count++;
        }
    const int64_t *off = backward ? g->poff : g->off;
    const uint32_t *to = backward ? g->psrc : g->dst;
    while (top) {
        uint32_t node = stack[--top];
        for (int64_t e = off[node]; e < off[node + 1]; e++) {
            uint32_t t = to[e];
            if (mark[t] || !inside[t]) continue;
            mark[t] = 1;
            count++;
            stack[top++] = t;
        }
    }
    lf_release(stack);
    return count;
}

/* The edges between the k states `nodes` (local[node] their position, -1 for the others). */
int64_t lg_sub_count(const LGraph *g, const int64_t *nodes, int64_t k, const int32_t *local) {
    int64_t count = 0;
    for (int64_t i = 0; i < k; i++)
        for (int64_t e = g->off[nodes[i]]; e < g->off[nodes[i] + 1]; e++)
            count += local[g->dst[e]] >= 0;
    return count;
}

/* Their CSR in local numbering (indptr: k + 1, indices and the global edge numbers eids:
 * lg_sub_count's). */
void lg_sub_fill(const LGraph *g, const int64_t *nodes, int64_t k, const int32_t *local,
                 int64_t *indptr, int32_t *indices, int64_t *eids) {
    int64_t at = 0;
    for (int64_t i = 0; i < k; i++) {
        indptr[i] = at;
        for (int64_t e = g->off[nodes[i]]; e < g->off[nodes[i] + 1]; e++) {
            int32_t t = local[g->dst[e]];
            if (t < 0) continue;
            indices[at] = t;
            eids[at] = e;
            at++;
        }
    }
    indptr[k] = at;
}

/* lasso.bfs: the shortest path from `start` to a state with goal[] set, through states with
 * inside[] set, successors in order; its edges (global numbers) go to path[0..steps).
 * Returns the steps (0 when start is a goal), -1 when no goal is reachable, -2 out of memory
 * or past `cap` steps. `came` (n entries, all -1) is left all -1. */
int64_t lg_bfs(const LGraph *g, int64_t start, const uint8_t *inside, const uint8_t *goal,
               int64_t *came, int64_t *path, int64_t cap) {
    if (goal[start]) return 0;
    uint32_t *queue = lf_alloc((size_t)g->n * 4, 0);
    if (!queue) return -2;
    int64_t head = 0, tail = 0, found = -1;
    queue[tail++] = (uint32_t)start;
    came[start] = g->ne; /* not -1: visited */
    while (head < tail && found < 0) {
        uint32_t node = queue[head++];
        for (int64_t e = g->off[node]; e < g->off[node + 1]; e++) {
            uint32_t t = g->dst[e];
            if (came[t] != -1 || !inside[t]) continue;
            came[t] = e;
            queue[tail++] = t;
            if (goal[t]) {
                found = t;
                break;
            }
        }
    }
    int64_t steps = 0;
    if (found >= 0) {
        for (int64_t at = found; at != start;) {
            int64_t e = came[at];
            if (steps >= cap) {
                steps = -2;
                break;
            }
            path[steps++] = e;
            /* the edge's source: the last state whose edges start at or before e */
            int64_t lo = 0, hi = g->n - 1;
            while (lo < hi) {
                int64_t mid = (lo + hi + 1) / 2;
                if (g->off[mid] <= e)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            at = lo;
        }
        if (steps > 0)
            for (int64_t i = 0, j = steps - 1; i < j; i++, j--) {
                int64_t x = path[i];
                path[i] = path[j];
                path[j] = x;
            }
    } else {
        steps = -1;
    }
    for (int64_t i = 0; i < tail; i++) came[queue[i]] = -1;
    lf_release(queue);
    return steps;
}

/* One key of lg_atoms' masks: allowed[i] when Q is false for it, seeds[i] when state i also
 * opens it. Returns the seed count. */
int64_t lg_key(const LGraph *g, const uint64_t *opened, const uint64_t *goal, uint64_t bit,
               uint8_t *allowed, uint8_t *seeds) {
    int64_t count = 0;
    for (int64_t i = 0; i < g->n; i++) {
        allowed[i] = !(goal[i] & bit);
        seeds[i] = allowed[i] && (opened[i] & bit);
        count += seeds[i];
    }
    return count;
}

/* Per state of first .. first + count - 1, the fairness constraints enabled there: the OR
 * over its out-edges of the constraints of the edge's label code, within those its condition
 * covers (covered and enabled are indexed from first). */
void lg_enabled(const LGraph *g, const uint64_t *of_code, const uint64_t *covered, int64_t first,
                int64_t count, uint64_t *enabled) {
    for (int64_t k = 0; k < count; k++) {
        int64_t i = first + k;
        uint64_t bits = 0;
        for (int64_t e = g->off[i]; e < g->off[i + 1]; e++) bits |= of_code[g->lab[e]];
        enabled[k] = bits & covered[k];
    }
}

/* Per label code, the first edge that has it (-1: none): label ids are numbered in that
 * order (graph.py numbers labels as it first keeps an edge with them). */
void lg_first_codes(const LGraph *g, int64_t *first) {
    for (int i = 0; i < LABEL_CODES; i++) first[i] = -1;
    for (int64_t e = g->ne - 1; e >= 0; e--) first[g->lab[e]] = e;
}
