/* The rules kafka_successors (actions.c) applies inside its actions: the controller's
 * decisions and ISR changes (spec/kafka/membership.py, elr.py), a follower's truncation point
 * (spec/kafka/rules.py) and the state a crash or a restart leaves. Static inline, so each is
 * compiled into the actions that use it, as when they lived in actions.c. */
#ifndef HWCHECK_KAFKA_MEMBERSHIP_H
#define HWCHECK_KAFKA_MEMBERSHIP_H

#include "kafka.h"

/* elr.decide: the next epoch, decided and sent as a LeaderAndIsr. */
static inline void decide(const Model *m, St *s, int leader, uint8_t isr) {
    int epoch = s->cepoch + 1;
    controller_after(m, s, epoch, leader, isr);
    s->rleader[s->nreq] = (int8_t)leader;
    s->risr[s->nreq] = isr;
    s->nreq++;
}

/* actions.true_leader */
static inline int true_leader(const St *s, int r) {
    const Rep *x = &s->r[r];
    return x->alive && x->vleader == r && s->cleader == r && s->cepoch == x->vepoch;
}

static inline int last_epoch(const Rep *x) { return x->len ? x->ep[x->len - 1] : -1; }

/* variants.truncation_point: where r truncates applying (epoch, leader); -1: no answer. */
static inline int truncation_point(const Model *m, const St *s, int r, int leader, int epoch) {
    const Rep *x = &s->r[r];
    int offset;
    if (m->rule == RULE_HW) {
        offset = x->hw;
    } else if (m->rule == RULE_DIVERGING) { /* rules.to_log_end: nothing is truncated */
        offset = x->len;
    } else {
        if (!x->len) return 0;
        const Rep *l = &s->r[leader];
        if (!l->alive || l->vleader != leader) return -1;
        if (m->fenced_lookup && l->vepoch != epoch) return -1;
        if (m->rule == RULE_LEADER_EPOCH) { /* log.end_offset_for_epoch, else the HW */
            int want = last_epoch(x), answer = -1;
            if (l->len) {
                if (l->ep[l->len - 1] == want)
                    answer = l->len;
                else
                    for (int o = 0; o < l->len; o++)
                        if (l->ep[o] > want) {
                            answer = o;
                            break;
                        }
            }
            offset = answer < 0 ? x->hw : answer;
        } else { /* log.last_match_end */
            int common = x->len < l->len ? x->len : l->len;
            offset = 0;
            for (int o = common - 1; o >= 0; o--)
                if (x->id[o] == l->id[o] && x->ep[o] == l->ep[o]) {
                    offset = o + 1;
                    break;
                }
        }
    }
    if (offset > x->len) offset = x->len;
    return offset < 0 ? 0 : offset;
}

/* state.without_flights: r stopped; what is in flight to or from it is dropped. */
static inline void without_flights(const Model *m, St *s, int r) {
    if (!m->split_fetch) return;
    for (int f = 0; f < m->n; f++)
        if (s->fl_len[f] != FL_NONE && (f == r || s->fl_leader[f] == r)) s->fl_len[f] = FL_NONE;
}

static inline void no_view(Rep *x, int epoch) {
    x->vleader = -1;
    x->vepoch = (int8_t)epoch;
    x->visr = 0;
    x->has_remote = 0;
}

/* elr.fence_unclean: r (not the leader) registers again after an unclean shutdown or a
 * crash; with elr it leaves ISR and ELR in the same epoch. */
static inline void fence_unclean(const Model *m, const St *s, St *t, int r) {
    if (!m->elr || (!has(s->cisr, r) && !has(s->celr, r))) return;
    int leader = s->cleader;
    uint8_t isr = (uint8_t)(s->cisr & ~(1u << r));
    if (leader >= 0 && true_leader(s, leader)) t->r[leader].visr = isr;
    if (s->nreq) {
        t->rleader[s->nreq - 1] = (int8_t)leader;
        t->risr[s->nreq - 1] = isr;
    }
    t->cleader = (int8_t)leader;
    t->cisr = isr;
    t->celr = (uint8_t)(s->celr & ~(1u << r));
    t->clkl = (int8_t)last_known(s, leader, isr);
}

/* elr.last_known_choice: the last known leader when Elect may pick it (up), else -1. */
static inline int last_known_choice(const Model *m, const St *s) {
    int lkl = last_known_leader(m, s);
    return lkl >= 0 && s->r[lkl].alive ? lkl : -1;
}

/* membership.replaceable: a live replica other than `fenced` the controller could elect:
 * a live ISR member, a live ELR member (elr), or (unclean election) any live replica; with
 * fence_live only a live ISR member (the others may be fenced brokers). */
static inline int replaceable(const Model *m, const St *s, int fenced) {
    for (int r = 0; r < m->n; r++) {
        if (r == fenced || !s->r[r].alive) continue;
        if (has(s->cisr, r)) return 1;
        if (m->fence_live) continue; /* a live ELR member or outsider may be fenced */
        if ((m->elr && has(s->celr, r)) || m->unclean_election) return 1;
    }
    return 0;
}

/* membership.shrink_in_epoch: the controller sets the ISR to `isr` in the same epoch; the
 * latest request is rewritten and a true leader takes the ISR and recomputes its HW. */
static inline void shrink_in_epoch(const Model *m, const St *s, St *t, uint8_t isr) {
    int leader = s->cleader;
    if (leader >= 0 && true_leader(s, leader)) {
        const Rep *x = &s->r[leader];
        Rep *y = &t->r[leader];
        y->visr = isr;
        y->hw = (int8_t)leader_hw(x->len, x->hw, leader, counted_isr(m, t, leader), x->remote,
                                  m->hw_min_isr, popcount8(isr));
        commit(m, t, x, x->hw, y->hw);
    }
    record_isr(m, t, leader, isr);
}

#endif
