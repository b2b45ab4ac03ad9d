/* The compiled engine's accessors for the Python side (checker/search/compiled/search.py, compiled_level.py,
 * checker/simulate/compiled.py, checker/native/core.py): views into its arrays, and single-state calls into the model for
 * the differential tests and the partitioned engines. */
#include "engine.h"
#include "xxh3.h"

int eng_width(const Engine *e) { return e->width; }
/* model_new's parameter names, in its struct's order, each followed by a space (model.h). */
const char *eng_param_names(void) { return model_param_names(); }
Model *eng_model(Engine *e) { return e->m; }
int eng_max_marshal(const Engine *e) { return e->max_marshal; }
int eng_max_successors(const Engine *e) { return e->max_succ; }

/* States found so far in the level being built. */
int64_t eng_next_size(const Engine *e) {
    int64_t n = 0;
    for (int p = 0; p < e->threads; p++) n += (int64_t)e->part[p].n;
    return n;
}

/* Views into the engine's arrays (valid until the next call that changes them). */
const uint32_t *eng_next_parents(const Engine *e) { return e->next.parent; }
const uint16_t *eng_next_labels(const Engine *e) { return e->next.label; }
const uint32_t *eng_next_bad(const Engine *e) { return e->next.bad; }
const uint64_t *eng_next_fps(const Engine *e) { return e->next.fp; }
const uint64_t *eng_front_fps(const Engine *e) { return e->front_fp; }
/* The new states' rows, in eng_next_*'s order (one thread: partition 0 holds them all). */
const uint8_t *eng_next_rows(const Engine *e) { return e->threads == 1 ? e->part[0].rows : NULL; }

/* The invariants in `mask` violated by each of `n` rows (the partitioned engines' check of
 * their new states): bad[i] gets row i's bits. */
void eng_check_rows(Engine *e, const uint8_t *rows, int64_t n, uint32_t mask, uint32_t *bad) {
    for (int64_t i = 0; i < n; i++) bad[i] = model_invariants(e->m, rows + i * e->width, mask);
}
/* Generated successors per action index (MODEL_MAX_ACTIONS counts). */
const int64_t *eng_generated(const Engine *e) { return e->generated; }
/* labels.h's layout (checker.native.layout.Layout.numbers): bits, shift, argument bits,
 * action codes, action indices; and every label code's action index (model_action_of) into
 * out[LABEL_CODES]. */
void eng_label_layout(int32_t *out) {
    out[0] = LABEL_BITS;
    out[1] = LABEL_SHIFT;
    out[2] = LABEL_ARG_BITS;
    out[3] = LABEL_ACTIONS;
    out[4] = MODEL_MAX_ACTIONS;
}
void eng_action_table(uint8_t *out) {
    for (int code = 0; code < NLABELS; code++) out[code] = (uint8_t)model_action_of((uint16_t)code);
}
uint32_t eng_guard_mask(const Engine *e) { return e->guard_mask; }

/* The winning violation of transition property `bit` in this level: its parent (frontier
 * index), label and successor row (as generated). 0 if none. */
int eng_broken(const Engine *e, int bit, uint32_t *parent, uint16_t *label, uint8_t *row) {
    const Broken *b = &e->broken[bit];
    if (!b->has) return 0;
    *parent = b->parent;
    *label = b->label;
    memcpy(row, e->broken_row + bit * e->width, e->width);
    return 1;
}

/* Direct access to the model, for the differential tests and traces (between the engine's
 * level calls: these use worker 0's scratch). Every successor, at most `cap` (the room of
 * out, labels and bits), with the bits of every transition property it violates and every
 * guard it reaches: the count, or ENG_OVERFLOW. */
int eng_successors(Engine *e, const uint8_t *row, int cap, uint8_t *out, uint16_t *labels,
                   uint32_t *bits) {
    uint32_t reached = 0;
    int k = model_expand(e->m, e->workers[0].scratch, row, cap, out, labels, 0xFFFFFFFFu, bits, 0,
                         &reached);
    return k < 0 ? ENG_OVERFLOW : k;
}
/* The canonical row into `out` (a row): 0, or ENG_OVERFLOW. */
int eng_canonical(Engine *e, const uint8_t *row, uint8_t *out) {
    return model_canonical(e->m, e->workers[0].scratch, row, out) ? ENG_OVERFLOW : 0;
}
uint32_t eng_invariants(Engine *e, const uint8_t *row, uint32_t mask) {
    return model_invariants(e->m, row, mask);
}
/* The marshal encoding into `buf` (eng_max_marshal bytes): its length, or ENG_OVERFLOW when
 * it came out longer (a wrong bound). */
int eng_row_marshal(Engine *e, const uint8_t *row, uint8_t *buf) {
    int len = model_marshal(e->m, row, buf);
    return len > e->max_marshal ? ENG_OVERFLOW : len;
}
uint64_t hwcheck_xxh3(const void *data, size_t len) { return xxh3_64(data, len); }
/* The bytes of a key the seen set dedups on (tables.h: Key): 8, or 16 in a library built
 * with -DHW_KEY_BITS=128. Every hash array below holds keys of this size. */
int eng_key_bytes(void) { return (int)sizeof(Key); }

/* For checkpoints (checker/checkpoint.py): the frontier's rows, and the seen set's row hashes
 * (how many; all of them copied to `out`, in table order). */
const uint8_t *eng_front_rows(const Engine *e) { return e->front; }
int64_t eng_seen_count(const Engine *e) { return (int64_t)seen_count(e->seen, e->threads); }
void eng_seen_copy(const Engine *e, Key *out) { seen_copy(e->seen, e->threads, out); }
/* Bytes the seen set's arrays hold (seen.h: about 5.5 a 64-bit key at 10^8 keys). */
int64_t eng_seen_bytes(const Engine *e) { return (int64_t)seen_bytes(e->seen, e->threads); }
/* Whether each of `n` keys is in the seen set: out[i] 1 or 0 (the tests' view of it). */
void eng_seen_has(const Engine *e, const Key *keys, int64_t n, uint8_t *out) {
    for (int64_t i = 0; i < n; i++) out[i] = (uint8_t)seen_has(e->seen, e->threads, keys[i]);
}
/* A resumed search's seen set, or keys the disk tier keeps in memory: `n` row hashes (any
 * thread count), added 2^24 at a time (the sort's copies of a batch stay under 512 MiB). 0,
 * or -1 out of memory. */
int eng_seen_load(Engine *e, const Key *hashes, int64_t n) {
    const int64_t batch = (int64_t)1 << 24;
    for (int64_t at = 0; at < n; at += batch) {
        size_t m = (size_t)(n - at < batch ? n - at : batch);
        if (seen_add_any(e->seen, e->threads, hashes + at, m)) return -1;
    }
    return 0;
}
