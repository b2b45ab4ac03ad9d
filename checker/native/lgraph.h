/* The compiled liveness graph (lgraph.c): a model's whole plain state graph, built breadth
 * first from the initial rows exactly as checker/liveness/graph.py numbers it, held as
 * contiguous rows and CSR out-edges, with the graph walks the liveness check needs
 * (checker/liveness/compiled.py drives it through ctypes). Or its orbit graph (ograph.c: one
 * node per orbit under replica renamings, as checker/liveness/orbits.py numbers it), the same
 * structure with a renaming per edge. */
#ifndef HWCHECK_LGRAPH_H
#define HWCHECK_LGRAPH_H

#include <stdint.h>

#include "model.h"

/* lg_build's errors (its result is the state count when >= 0). */
#define LG_TOO_LARGE (-1) /* past max_states (lg_error_depth: the depth it reached) */
#define LG_NO_MEMORY (-2)
#define LG_OVERFLOW (-3)     /* a model call past its room (model.h: MODEL_OVERFLOW) */
#define LG_TOO_MANY_IDS (-4) /* lg_build_orbits: more than LG_MAX_PERMS renamings */
#define LG_MAX_PERMS 24      /* 4 replicas: renaming numbers fit a byte, stabilizers 32 bits */
#define LG_CODES (-5)        /* a sealed lg_build_orbits: a property past LG_MAX_CODES atoms */
#define LG_MAX_CODES 65535   /* distinct (opened, goal) pairs a property may have: 16-bit codes */
#define LG_MAX_FILES 32      /* arrays a graph may hold in files (lfiles.c) */

typedef struct {
    void *addr;   /* the file's mapping */
    size_t bytes; /* its length, and the file's */
    int fd;
} LgFile;

typedef struct LGraph {
    Model *m;
    int width, max_succ;
    uint8_t *rows;               /* rows of `width` bytes, in state order: states rbase to n - 1 */
    int64_t n, cap, rbase, rcap; /* rcap: rows' room (cap, but for a sealed build's window) */
    uint64_t *slots;             /* open addressing: hash's high half << 32 | (state + 1); 0 free */
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
    /* the orbit graph's (ograph.c; NULL in the plain graph): renamings are numbered as
     * itertools.permutations(range(ids)) orders them, 0 the identity */
    int ids, nperms; /* model_symmetric_ids, and its factorial */
    int *perms;      /* nperms renamings of `ids` ids: replica r becomes perms[k * ids + r] */
    uint8_t *ren;    /* per edge: the first renaming taking its concrete target to the rep */
    uint8_t *pren;   /* per orbit: the renaming of the edge from its parent */
    uint8_t *entry;  /* per initial orbit: the one taking its initial row to the rep */
    uint32_t *stab;  /* per orbit: bit k when renaming k leaves the rep as it is */
    uint16_t *via;   /* per orbit: which successor of its parent's (or which initial row) */
    uint8_t *init;   /* the initial rows (ninit), where replays begin */
    int64_t ninit;
    /* sealed (oseal.c: rows freed): conditions, atoms as codes into per-property tables */
    uint32_t *cond;
    uint16_t *acode, *tag; /* acode: property-major after the build, orbit-major during it */
    uint64_t *atab;
    int nprops, sealing, max_codes; /* sealing: a sealed build under way (oseal.c) */
    uint64_t *fp;              /* while sealing, per orbit: the row's second hash (row_hash64) */
    uint32_t *cslots, *ncodes; /* while sealing, per property: its codes' table and count */
    uint32_t *found; /* after the build, lg_find's table: (orbit + 1) or 0 free, by row hash */
    int64_t nfound;  /* its slots: a power of two, at most three quarters full */
    uint8_t *succ;   /* a batch's successors: room for max_succ per state */
    uint16_t *labels;
    uint32_t *violated;
    void *scratch; /* the model's (model_scratch_size) */
    /* lfiles.c: with `dir` set, the arrays lg_hold grows are files there, mapped */
    char *dir;
    LgFile files[LG_MAX_FILES];
    int nfiles, disk_errno;
} LGraph;

LGraph *lg_new(const ModelParams *params, char *why, size_t room);
void lg_free(LGraph *g);
int64_t lg_build(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states);
/* nprops >= 0: sealed as built, for nprops liveness properties with at most max_codes
 * distinct atoms each (at most LG_MAX_CODES; oseal.c); nprops < 0: kept whole. */
int64_t lg_build_orbits(LGraph *g, const uint8_t *init, int64_t ninit, int64_t max_states,
                        int nprops, int max_codes);
/* The orbit whose representative is `row` (an orbit graph's), -1 when none is. */
int64_t lg_find(const LGraph *g, const uint8_t *row);
/* latoms.c: every state's liveness atoms for property `prop` (model_liveness; the opened
 * pairs' count) and every state's conditions (model_conditions), from the rows: -1 and nothing
 * written on a sealed graph (its codes and conditions are read in place: lg_acode, lg_cond). */
int64_t lg_atoms(const LGraph *g, int prop, uint64_t *opened, uint64_t *goal);
void lg_conditions(const LGraph *g, uint32_t *out);
/* oseal.c: a row, replayed when sealed (lg_row); a sealed graph's codes, tables and
 * conditions. */
int64_t lg_row(const LGraph *g, int64_t orbit, uint8_t *out);
void *lg_acode(const LGraph *g, int prop);
void *lg_atab(const LGraph *g, int prop);
void *lg_cond(const LGraph *g);
/* scc.c: the strong component of each of k nodes of the CSR graph (indptr, indices), numbered
 * from 0 in the order Tarjan's algorithm completes them (so an edge never leads to a higher
 * number); the count, or LG_NO_MEMORY, or LG_OVERFLOW for a node of 2^32 out-edges or more
 * (Pearce's form: 8 bytes and a bit a node besides comp). */
int64_t lg_scc(int64_t k, const int64_t *indptr, const int32_t *indices, int32_t *comp);
/* scc.c: the reverse of a graph given in parts of n edges (source and target positions,
 * sources never decreasing): every part counted into rptr (zeroed, k + 1), rptr summed, every
 * part placed into rsrc; rptr then holds each target's end (shift it by one). */
void lg_transpose_count(int64_t n, const int32_t *dst, int64_t *rptr);
void lg_transpose_place(int64_t n, const int32_t *src, const int32_t *dst, int64_t *rptr,
                        int32_t *rsrc);

/* lscratch.c: the judge's work arrays (and, through numpy's memory handler, its numpy
 * arrays) of `from` bytes or more in files in the folder lf_use_dir names (NULL: none);
 * lf_counts gives the blocks made as files and those the folder refused; lf_alloc zeroes
 * with `zero`, NULL out of memory; lf_release and lf_resize take any block lf_alloc gave. */
int lf_use_dir(const char *dir, int64_t from);
void lf_counts(int64_t *out);
void *lf_alloc(size_t bytes, int zero);
void *lf_resize(void *p, size_t bytes);
void lf_release(void *p);
void *lf_numpy_handler(void);
const char *lf_capsule_name(void);

/* lgraph.c's building blocks, shared with ograph.c: lg_grow reallocs *p to `want` items (-1
 * out of memory); lg_room makes the table room for `more` rows; lg_add numbers a row (hash
 * h), adding it when unseen (-1 out of memory, -2 past max_states); lg_add_edge appends an
 * edge to the last state begun; lg_prefetch prefetches the slots of k hashes; lg_finish
 * closes the CSR and trims the buffers. */
int lg_grow(void **p, size_t item, int64_t want);
int lg_set_dir(LGraph *g, const char *dir);
int lg_disk_error(const LGraph *g);
int lg_hold(LGraph *g, void **p, size_t item, int64_t want);
void lg_drop(LGraph *g, void **p);
void lg_drop_files(LGraph *g);
/* lfiles.c's shared pieces: lg_map_file makes an unlinked file of `bytes` in `dir` (named
 * prefix-XXXXXX), reserves its blocks and maps it shared at *addr, returning its descriptor
 * (-1 with errno); lg_zeroed gives *p n zeroed items, a file in a folder (lg_set_dir) else
 * the heap (0, or -1). */
int lg_map_file(const char *dir, const char *prefix, size_t bytes, void **addr);
int lg_zeroed(LGraph *g, void **p, size_t item, int64_t n);
int lg_room(LGraph *g, int64_t more);
int64_t lg_add(LGraph *g, const uint8_t *row, uint64_t h, uint32_t depth, uint32_t parent,
               uint16_t label, int64_t max_states);
int lg_add_edge(LGraph *g, uint32_t target, uint16_t label);
void lg_prefetch(const LGraph *g, const uint64_t *hs, int k);
void lg_finish(LGraph *g);
/* Where state i's row is while the rows hold it (rbase <= i < n). */
static inline uint8_t *lg_row_at(const LGraph *g, int64_t i) {
    return g->rows + (i - g->rbase) * g->width;
}
/* oseal.c's part of a sealed build (ograph.c): the tables begun (lg_seal_begin: 0, -1 out of
 * memory); each new orbit's conditions and atom codes (lg_seal_orbit: 0, -1 out of memory,
 * -2 past max_codes); the rows already expanded let go (lg_seal_slide, before state
 * `first`); the rows freed and lg_find's table made (lg_seal_end: 0, -1 out of memory). */
int lg_seal_begin(LGraph *g, int nprops, int max_codes);
int lg_seal_orbit(LGraph *g, int64_t orbit, const uint8_t *row);
void lg_seal_slide(LGraph *g, int64_t first);
int lg_seal_end(LGraph *g);
/* lg_find's table over a whole graph's rows (ograph.c): 0, -1 out of memory. */
int lg_index_rows(LGraph *g);

#endif
