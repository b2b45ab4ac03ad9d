/* What actions.c and fenced.c share: appending a successor (emit, EMIT), the operators'
 * common steps, and the KIP-320 operators that tla_next lists. */
#ifndef HWCHECK_TLA_ACTIONS_H
#define HWCHECK_TLA_ACTIONS_H

#include "tla.h"

/* Append a copy of `s` (out and labels have room for m->max_succ and one spare past it:
 * state.c's scratch); past the room the copy goes to the spare and only the count grows, and
 * model_expand reports the overflow. */
static inline St *emit(const Model *m, St *out, uint16_t *labels, int *k, const St *s,
                       uint16_t label) {
    int at = *k < m->max_succ ? *k : m->max_succ;
    (*k)++;
    labels[at] = label;
    out[at] = *s;
    return &out[at];
}

#define ARGS const Model *m, const St *s, int index, St *out, uint16_t *labels, int *k
#define EMIT(a, b, c) emit(m, out, labels, k, s, LABEL3(index, (a), (b), (c)))

static inline int last_match_end(const Rep *f, const Rep *l) {
    for (int o = (f->len < l->len ? f->len : l->len) - 1; o >= 0; o--)
        if (f->id[o] == l->id[o] && f->ep[o] == l->ep[o]) return o + 1;
    return 0;
}

/* actions.c: a quorum update with its request, the leader's HW step, a follower's copy */
void tla_quorum_update(ARGS, int l, int a, uint8_t isr);
void tla_inc_hw(ARGS, int l);
void tla_replicate(ARGS, int f, int l);

/* fenced.c */
void fenced_follower_fetch(ARGS);
void fenced_inc_high_watermark(ARGS);
void fenced_shrink_isr(ARGS);
void fenced_expand_isr(ARGS);
void fenced_become_follower(ARGS);
void first_try_fetch(ARGS);
void first_try_inc_high_watermark(ARGS);
void first_try_shrink_isr(ARGS);
void first_try_expand_isr(ARGS);
void first_try_become_follower(ARGS);
void first_try_truncate(ARGS);

#endif
