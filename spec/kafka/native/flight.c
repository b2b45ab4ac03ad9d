/* The split-fetch mechanism in the compiled core: spec/kafka/flight.py's FetchRequest,
 * FetchResponse and LoseResponse, in the same order and with the same guards and effects
 * (with truncation on fetch, the leader's answer and the follower's apply are diverging.c's:
 * spec/kafka/fetching.py's fetch_request and apply_response). */
#include "kafka.h"

/* flight.applies: the follower still follows the leader that answered, at the fetch offset
 * (and, where the release checks it, in the response's epoch). */
static int applies(const Model *m, const St *s, int f) {
    const Rep *x = &s->r[f];
    int checked = m->rule == RULE_DIVERGING ? m->fenced_response : m->fenced_fetch;
    return x->vleader == s->fl_leader[f] && x->len == s->fl_offset[f]
        && (!checked || x->vepoch == s->fl_epoch[f]);
}

int kafka_flight_successors(const Model *m, const St *s, St *out, uint16_t *labels, int k) {
    int n = m->n;
#define EMIT(label) emit(m, out, labels, &k, s, (label))
    /* FetchRequest(follower, leader) */
    for (int f = 0; f < n; f++) {
        int l = s->fl_len[f] == FL_NONE ? fetch_leader(m, s, f) : -1;
        if (l < 0 || kafka_diverging_pending(m, s, f)) continue;
        const Rep *x = &s->r[f], *lx = &s->r[l];
        St *t = EMIT(LABEL(A_FETCH, f, l));
        int offset = x->len, lleo = lx->len;
        t->fl_leader[f] = (int8_t)l;
        t->fl_epoch[f] = lx->vepoch;
        t->fl_offset[f] = (int8_t)offset;
        if (m->rule == RULE_DIVERGING) { /* fetching.fetch_request */
            kafka_diverging_request(m, s, t, f, l);
            continue;
        }
        if (offset > lleo) { /* OFFSET_OUT_OF_RANGE */
            t->fl_len[f] = FL_OUT_OF_RANGE;
            t->fl_hw[f] = (int8_t)lleo;
            continue;
        }
        int response_hw = leader_answers(m, s, t, l, f, offset);
        t->fl_len[f] = (int8_t)(lleo - offset);
        t->fl_hw[f] = (int8_t)response_hw;
        for (int o = offset; o < lleo; o++) {
            t->fl_id[f][o - offset] = lx->id[o];
            t->fl_ep[f][o - offset] = lx->ep[o];
        }
    }
    /* FetchResponse(follower) */
    for (int f = 0; f < n; f++) {
        if (s->fl_len[f] == FL_NONE) continue;
        St *t = EMIT(LABEL(A_FETCH_RESPONSE, f, 0));
        t->fl_len[f] = FL_NONE;
        if (!applies(m, s, f)) continue;
        if (m->rule == RULE_DIVERGING) { /* fetching.apply_response */
            kafka_diverging_apply(m, s, t, f);
            continue;
        }
        Rep *y = &t->r[f];
        if (s->fl_len[f] == FL_OUT_OF_RANGE) {
            int leo = s->fl_hw[f];
            y->len = (int8_t)leo;
            if (y->hw > leo) y->hw = (int8_t)leo;
            y->has_remote = 0;
            truncated(m, t, f, leo);
            continue;
        }
        for (int i = 0; i < s->fl_len[f]; i++) {
            y->id[y->len] = s->fl_id[f][i];
            y->ep[y->len] = s->fl_ep[f][i];
            y->len++;
        }
        y->hw = (int8_t)(s->fl_hw[f] < y->len ? s->fl_hw[f] : y->len);
        y->has_remote = 0;
    }
    /* LoseResponse(follower) */
    if (s->lost < m->max_lost)
        for (int f = 0; f < n; f++) {
            if (s->fl_len[f] == FL_NONE) continue;
            St *t = EMIT(LABEL(A_LOSE_RESPONSE, f, 0));
            t->fl_len[f] = FL_NONE;
            t->lost++;
        }
#undef EMIT
    return k;
}
