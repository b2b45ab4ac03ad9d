/* The kafka model's state in the compiled core: bounds and the row encoding (the reference
 * state's marshal encoding is marshal.c's, the canonical form canonical.c's). */
#include <stdlib.h>

#include "glue.h"
#include "kafka.h"
#include "rows.h"

_Static_assert(MAXN <= ROWS_MAX_REPLICAS, "more replicas than a row's masks hold");

/* model_new's parameters (model.h; spec/kafka/native/params.py gives them by name). */
/* clang-format off */
#define MODEL_PARAMS(X)                                                                        \
    X(replicas) X(max_records) X(max_epoch) X(max_crashes) X(min_isr) X(unclean_election)      \
    X(rule) X(fenced_lookup) X(fenced_fetch) X(fenced_expand) X(live_isr) X(broker_epoch)      \
    X(strict_min_isr) X(elr) X(durable) X(flush_always) X(max_unclean_shutdowns) X(acks_all)   \
    X(split_fetch) X(max_lost_responses) X(async_isr) X(diverging_fetch_state)                 \
    X(hw_before_truncation) X(empty_clears_epoch) X(fetcher) X(fenced_response)   \
    X(fence_live) X(shrink_in_epoch)
/* clang-format on */
struct ModelParams {
    MODEL_PARAMS(PARAM_FIELD)
};
const char *model_param_names(void) { return MODEL_PARAMS(PARAM_NAME); }

/* Row bytes of one response in flight: count, leader, epoch, fetch offset, HW, the records,
 * and with truncation on fetch a DivergingEpoch's epoch and end offset. */
static int flight_width(const Model *m) {
    return 5 + 2 * m->R + (m->rule == RULE_DIVERGING ? 2 : 0);
}

Model *model_new(const ModelParams *p, char *why, size_t room) {
    if (p->replicas < 1 || p->replicas > MAXN - 1)
        return refuse(why, room, "replicas %d outside 1..%d", p->replicas, MAXN - 1);
    if (p->max_records < 0 || p->max_records > MAXR - 1)
        return refuse(why, room, "max_records %d outside 0..%d", p->max_records, MAXR - 1);
    if (p->max_epoch < 0 || p->max_epoch > MAXE - 1)
        return refuse(why, room, "max_epoch %d outside 0..%d", p->max_epoch, MAXE - 1);
    if (p->rule < RULE_HW || p->rule > RULE_DIVERGING)
        return refuse(why, room, "no truncation rule %d", p->rule);
    if (p->fetcher && p->rule != RULE_DIVERGING)
        return refuse(why, room, "a fetcher component without truncation on fetch");
    if (p->max_crashes > 100 || p->max_unclean_shutdowns > 100 || p->max_lost_responses > 100)
        return refuse(why, room, "over 100 crashes, unclean shutdowns or lost responses");
    Model *m = calloc(1, sizeof(Model));
    if (!m) return refuse(why, room, "out of memory");
    m->n = p->replicas;
    m->R = p->max_records;
    m->E = p->max_epoch;
    m->max_crashes = p->max_crashes;
    m->min_isr = p->min_isr;
    m->unclean_election = p->unclean_election;
    m->rule = p->rule;
    m->fenced_lookup = p->fenced_lookup;
    m->fenced_fetch = p->fenced_fetch;
    m->fenced_expand = p->fenced_expand;
    m->strict_min_isr = p->strict_min_isr;
    m->elr = p->elr;
    m->live_isr = p->live_isr;
    m->broker_epoch = p->broker_epoch;
    m->fenced_response = p->fenced_response;
    m->fence_live = p->fence_live;
    m->shrink_in_epoch = p->shrink_in_epoch;
    m->durable = p->durable;
    m->flush_always = p->flush_always;
    m->max_unclean = p->max_unclean_shutdowns;
    m->acks_all = p->acks_all;
    m->split_fetch = p->split_fetch;
    m->max_lost = p->max_lost_responses;
    m->async_isr = p->async_isr;
    m->diverging_fetch_state = p->diverging_fetch_state;
    m->hw_before_truncation = p->hw_before_truncation;
    m->empty_clears_epoch = p->empty_clears_epoch;
    m->fetcher = p->fetcher;
    m->hw_min_isr = m->strict_min_isr ? m->min_isr : 1;
    m->produce_min_isr = m->acks_all ? m->min_isr : 1;
    m->max_succ = 19 * m->n + 2 * m->n * (m->E + 2);
    m->rep_width = 7 + 2 * m->R + m->n;
    m->committed_bytes = (m->R * m->R + 7) / 8;
    m->width = m->n * m->rep_width + 3 + (m->elr ? 2 : 0) + 1 + 2 * (m->E + 1) + 2
        + m->committed_bytes + (m->durable ? 1 + (m->flush_always ? 0 : m->n) : 0)
        + (m->async_isr ? 4 * m->n : 0) + (m->fetcher ? m->n : 0)
        + (m->split_fetch ? m->n * flight_width(m) + 1 : 0);
    m->max_marshal = kafka_max_marshal(m);
    m->plan = scratch_plan(m->max_succ, sizeof(St), m->max_marshal);
    return m;
}

/* model_new's m->max_succ (model_max_successors): 19 per replica, and per (replica, request)
 * a BecomeLeader or a BecomeFollower (one more n than before truncation on fetch:
 * TruncateOnFetchResponse). emit() checks it. m->plan (model_scratch_size): the successors
 * being generated, their labels and the canonical form's two encodings (rows.h: ScratchPlan). */

/* The label's action code, but TruncateOnFetchResponse, which shares FetchResponse's code
 * (kafka.h), has an index of its own. */
int model_action_of(uint16_t label) {
    int action = LABEL_ACTION(label);
    if (action == A_FETCH_RESPONSE && LABEL_ARG(label, 1) == 1) return A_TRUNCATE_ON_FETCH_RESPONSE;
    return action;
}

void kafka_decode(const Model *m, const uint8_t *row, St *s) {
    const int8_t *p = (const int8_t *)row;
    memset(s, 0, sizeof(St));
    for (int r = 0; r < m->n; r++) {
        Rep *x = &s->r[r];
        x->len = *p++;
        x->hw = *p++;
        x->alive = *p++;
        x->vleader = *p++;
        x->vepoch = *p++;
        x->visr = (uint8_t)*p++;
        x->has_remote = *p++;
        for (int i = 0; i < m->R; i++) {
            x->id[i] = *p++;
            x->ep[i] = *p++;
        }
        for (int j = 0; j < m->n; j++) x->remote[j] = *p++;
    }
    s->cepoch = *p++;
    s->cleader = *p++;
    s->cisr = (uint8_t)*p++;
    if (m->elr) {
        s->celr = (uint8_t)*p++;
        s->clkl = *p++;
    }
    s->nreq = *p++;
    for (int e = 0; e <= m->E; e++) {
        s->rleader[e] = *p++;
        s->risr[e] = (uint8_t)*p++;
    }
    s->next_id = *p++;
    s->crashes = *p++;
    for (int b = 0; b < m->committed_bytes; b++) s->committed |= (uint64_t)(uint8_t)*p++ << (8 * b);
    if (m->durable) {
        if (!m->flush_always)
            for (int r = 0; r < m->n; r++) s->flushed[r] = *p++;
        s->unclean = *p++;
    }
    if (m->async_isr)
        for (int r = 0; r < m->n; r++) {
            s->al_has[r] = *p++;
            s->al_epoch[r] = *p++;
            s->al_base[r] = (uint8_t)*p++;
            s->al_isr[r] = (uint8_t)*p++;
        }
    for (int r = 0; r < m->n; r++) s->fetcher[r] = m->fetcher ? *p++ : FE_NONE;
    if (m->split_fetch) {
        for (int f = 0; f < m->n; f++) {
            s->fl_len[f] = *p++;
            s->fl_leader[f] = *p++;
            s->fl_epoch[f] = *p++;
            s->fl_offset[f] = *p++;
            s->fl_hw[f] = *p++;
            for (int i = 0; i < m->R; i++) {
                s->fl_id[f][i] = *p++;
                s->fl_ep[f][i] = *p++;
            }
            if (m->rule == RULE_DIVERGING) {
                s->fl_div_epoch[f] = *p++;
                s->fl_div_end[f] = *p++;
            }
        }
        s->lost = *p++;
    }
}

/* Only meaningful fields are written, so equal states give equal rows. */
void kafka_encode(const Model *m, const St *s, uint8_t *row) {
    int8_t *p = (int8_t *)row;
    memset(row, 0, m->width);
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        *p++ = x->len;
        *p++ = x->hw;
        *p++ = x->alive;
        *p++ = x->vleader;
        *p++ = x->vepoch;
        *p++ = (int8_t)x->visr;
        *p++ = x->has_remote;
        for (int i = 0; i < m->R; i++) {
            if (i < x->len) {
                p[0] = x->id[i];
                p[1] = x->ep[i];
            }
            p += 2;
        }
        for (int j = 0; j < m->n; j++, p++)
            if (x->has_remote) *p = x->remote[j];
    }
    *p++ = s->cepoch;
    *p++ = s->cleader;
    *p++ = (int8_t)s->cisr;
    if (m->elr) {
        *p++ = (int8_t)s->celr;
        *p++ = s->clkl;
    }
    *p++ = s->nreq;
    for (int e = 0; e <= m->E; e++, p += 2)
        if (e < s->nreq) {
            p[0] = s->rleader[e];
            p[1] = (int8_t)s->risr[e];
        }
    *p++ = s->next_id;
    *p++ = s->crashes;
    for (int b = 0; b < m->committed_bytes; b++) *p++ = (int8_t)(s->committed >> (8 * b));
    if (m->durable) {
        if (!m->flush_always)
            for (int r = 0; r < m->n; r++) *p++ = s->flushed[r];
        *p++ = s->unclean;
    }
    if (m->async_isr)
        for (int r = 0; r < m->n; r++, p += 4)
            if (s->al_has[r]) {
                p[0] = 1;
                p[1] = s->al_epoch[r];
                p[2] = (int8_t)s->al_base[r];
                p[3] = (int8_t)s->al_isr[r];
            }
    if (m->fetcher)
        for (int r = 0; r < m->n; r++) *p++ = s->fetcher[r];
    if (m->split_fetch) {
        for (int f = 0; f < m->n; f++) {
            int none = s->fl_len[f] == FL_NONE;
            *p++ = s->fl_len[f];
            if (!none) {
                p[0] = s->fl_leader[f];
                p[1] = s->fl_epoch[f];
                p[2] = s->fl_offset[f];
                p[3] = s->fl_hw[f];
            }
            p += 4;
            for (int i = 0; i < m->R; i++, p += 2)
                if (i < s->fl_len[f]) {
                    p[0] = s->fl_id[f][i];
                    p[1] = s->fl_ep[f][i];
                }
            if (m->rule == RULE_DIVERGING) {
                if (s->fl_len[f] == FL_DIVERGING) {
                    p[0] = s->fl_div_epoch[f];
                    p[1] = s->fl_div_end[f];
                }
                p += 2;
            }
        }
        *p++ = s->lost;
    }
}

/* -- model.h: the functions every model writes alike (glue.h) -------------------------- */
MODEL_GLUE(kafka)
