/* The compiled core of the kafka model (spec/kafka/): the state as a C struct, its row
 * encoding, and the helpers the actions share. Every rule here restates one in the Python
 * reference model; each function names the Python function it mirrors. */
#ifndef HWCHECK_KAFKA_H
#define HWCHECK_KAFKA_H

#include <stdint.h>
#include <string.h>

#include "model.h"
#include "rows.h"

#define MAXN 8  /* replicas (spec.kafka.config.MAX_REPLICAS is 7) */
#define MAXR 8  /* records: a log holds at most max_records records */
#define MAXE 16 /* leader epochs 0..max_epoch */

/* Action codes (labels.h: the label's action). Successors come in spec.kafka.model's order:
 * ACTIONS (with split-fetch, Fetch's place holds FetchRequest, which takes A_FETCH's code,
 * then FetchResponse and LoseResponse; with hw-before-truncation, TruncateOnFetchResponse
 * follows the fetch actions; with async-isr, ShrinkIsr's and ExpandIsr's places hold their
 * request forms and then AlterPartition), then ELR_ACTIONS, then DURABILITY_ACTIONS. */
enum {
    A_PRODUCE,
    A_FETCH,
    A_SHRINK,
    A_EXPAND,
    A_CTRL_SHRINK,
    A_ELECT,
    A_UNCLEAN_ELECT,
    A_CRASH,
    A_RESTART,
    A_BECOME_LEADER,
    A_BECOME_FOLLOWER,
    A_ALTER_PARTITION,
    A_FLUSH,
    A_UNCLEAN_SHUTDOWN,
    A_FETCH_RESPONSE,
    A_LOSE_RESPONSE
};
/* UncleanElect and UncleanRecovery never share a model (elr replaces the one by the other),
 * so UncleanRecovery takes UncleanElect's code, A_UNCLEAN_ELECT. All LABEL_ACTIONS codes are
 * taken, so TruncateOnFetchResponse(follower) shares FetchResponse's, told apart by its
 * second argument: LABEL(A_FETCH_RESPONSE, f, 1) (FetchResponse(f) has 0); its action index
 * (model_action_of) is A_TRUNCATE_ON_FETCH_RESPONSE. */
#define LABEL(action, a, b) LABEL_OF(action, a, b, 0)
#define A_TRUNCATE_ON_FETCH_RESPONSE LABEL_ACTIONS
_Static_assert(A_LOSE_RESPONSE < LABEL_ACTIONS, "an action code past the label's bits");
_Static_assert(A_TRUNCATE_ON_FETCH_RESPONSE < MODEL_MAX_ACTIONS,
               "an action index past the engine's counts");
#define TRUNCATE_ON_FETCH_RESPONSE(f) LABEL(A_FETCH_RESPONSE, f, 1)

/* Property bits (spec/kafka/native/__init__.py: PROPERTY_BITS). */
enum {
    P_HW_LE_LEO,
    P_LEADER_IN_ISR,
    P_NO_COMMITTED_LOSS,
    P_NO_ACKED_LOSS,
    P_NO_DIVERGENCE,
    P_WEAK_ISR,
    P_STRONG_ISR,
    P_RECORD_EPOCHS,
    P_EPOCH_MONOTONIC,
    P_HW_ADVANCES,
    P_CRASH_HAPPENS,
    P_RESTART_HAPPENS,
    P_TRUNCATION_REMOVES,
    P_SECOND_ELECTION,
    P_NO_UNCOMMITTED_READ
};

/* Truncation rules (spec.kafka.variants.RULES). */
enum { RULE_HW, RULE_LEADER_EPOCH, RULE_LAST_MATCH, RULE_DIVERGING };

/* One replica: state.py's (log, hw, alive, view, remote). -1 stands for None. */
typedef struct {
    int8_t len; /* LEO */
    int8_t hw;
    int8_t alive;
    int8_t vleader; /* view: leader (-1: None), epoch, ISR as a bit mask */
    int8_t vepoch;
    uint8_t visr;
    int8_t has_remote; /* remote LEOs kept (a presumed leader) or () */
    int8_t id[MAXR], ep[MAXR];
    int8_t remote[MAXN];
} Rep;

/* No response in flight (fl_len), OFFSET_OUT_OF_RANGE (whose fl_hw is the leader's LEO), and
 * (diverging-epoch-truncation) a DivergingEpoch (fl_div_epoch, fl_div_end) with no records. */
#define FL_NONE (-2)
#define FL_OUT_OF_RANGE (-1)
#define FL_DIVERGING (-3)

/* A replica's fetcher value (spec.kafka.diverging): None (the last fetched epoch is its last
 * record's), EPOCH_CLEARED, FRESH, or an offset >= 0: a truncation to it is pending. */
#define FE_NONE (-3)
#define FE_CLEARED (-1)
#define FE_FRESH (-2)

/* A whole state: replicas, controller (epoch, leader, ISR[, ELR]), LeaderAndIsr requests
 * (request e has epoch e), ghost (next id, crashes, committed (offset, id) pairs as bit
 * offset * R + id), the durable component (flushed offsets, unclean shutdowns), the
 * alter component (per replica its AlterPartition request in flight: epoch, committed ISR
 * it was based on, ISR asked for), the fetcher component (per replica its fetcher value,
 * FE_NONE when the model has no such component) and the flight component (per follower the
 * response in flight to it: leader, epoch, fetch offset, record count or FL_NONE /
 * FL_OUT_OF_RANGE / FL_DIVERGING, records, HW, a DivergingEpoch's epoch and end offset;
 * responses lost). */
typedef struct {
    Rep r[MAXN];
    int8_t cepoch, cleader;
    uint8_t cisr, celr;
    int8_t clkl; /* elr: the last known leader, -1 for none */
    int8_t nreq;
    int8_t rleader[MAXE];
    uint8_t risr[MAXE];
    int8_t next_id, crashes;
    uint64_t committed;
    int8_t flushed[MAXN];
    int8_t unclean;
    int8_t fl_leader[MAXN], fl_epoch[MAXN], fl_offset[MAXN], fl_len[MAXN], fl_hw[MAXN];
    int8_t fl_id[MAXN][MAXR], fl_ep[MAXN][MAXR];
    int8_t fl_div_epoch[MAXN], fl_div_end[MAXN]; /* FL_DIVERGING: the DivergingEpoch */
    int8_t lost;
    int8_t al_has[MAXN], al_epoch[MAXN]; /* async-isr: each replica's AlterPartition in flight */
    uint8_t al_base[MAXN], al_isr[MAXN];
    int8_t fetcher[MAXN]; /* the fetcher component (FE_* or a pending truncation offset) */
} St;

struct Model {
    int n, R, E, max_crashes, min_isr, unclean_election, rule;
    int fenced_lookup, fenced_fetch, fenced_expand, live_isr, broker_epoch, strict_min_isr, elr;
    int fenced_response;
    int fence_live, shrink_in_epoch; /* ControllerShrinkIsr of a live member; in the same epoch */
    int durable, flush_always, max_unclean, acks_all, split_fetch, max_lost, async_isr;
    /* truncation on fetch (rule RULE_DIVERGING): its switches, and whether the state has the
     * fetcher component (Variant.fetcher_state) */
    int diverging_fetch_state, hw_before_truncation, empty_clears_epoch, fetcher;
    int hw_min_isr, produce_min_isr;
    int rep_width, width, committed_bytes;
    int max_succ, max_marshal; /* model_max_successors, model_max_marshal */
    ScratchPlan plan;          /* model_scratch_size */
};

/* state.c (model.h's functions: glue.h's MODEL_GLUE(kafka) there) */
void kafka_decode(const Model *m, const uint8_t *row, St *s);
void kafka_encode(const Model *m, const St *s, uint8_t *row);

/* marshal.c: the reference state's marshal encoding; its largest size at m's bounds */
int kafka_marshal(const Model *m, const St *s, uint8_t *buf);
int kafka_max_marshal(const Model *m);

/* canonical.c: the representative of s's orbit into out; 0, or -1 (an encoding past
 * max_marshal) */
int kafka_canonical(const Model *m, void *scratch, const St *s, St *out, Renaming *kept);
/* canonical.c: s with replica r renamed perm[r] (spec.kafka.symmetry.permute); how many
 * replicas a renaming names */
void kafka_permute(const Model *m, const St *s, const int *perm, St *out);
int kafka_symmetric_ids(const Model *m);

/* actions.c */
int kafka_successors(const Model *m, const St *s, St *out, uint16_t *labels);

/* properties.c */
uint32_t kafka_invariants(const Model *m, const St *s, uint32_t mask);
uint32_t kafka_transition(const Model *m, const St *before, uint16_t label, const St *after,
                          uint32_t mask);

/* The leader's half of a fetch from `offset` (not past its LEO), on successor t of s: the
 * remote LEO, then the HW over the ISR it counts, and what that commits. Returns the HW read
 * before the update, the one the response carries. */
static inline int leader_answers(const Model *m, const St *s, St *t, int l, int f, int offset);

/* flight.c: FetchRequest, FetchResponse and LoseResponse (split-fetch), appended from out[k] */
int kafka_flight_successors(const Model *m, const St *s, St *out, uint16_t *labels, int k);
/* alter.c: ShrinkIsr and ExpandIsr as requests, then AlterPartition (async-isr) */
int kafka_alter_successors(const Model *m, const St *s, St *out, uint16_t *labels, int k);
/* diverging.c: truncation on the fetch response (spec/kafka/fetching.py): the one-step Fetch
 * and TruncateOnFetchResponse (hw-before-truncation), appended from out[k]; whether f has a
 * truncation pending (it does not fetch then); the leader's half of FetchRequest(f, l) into
 * successor t; FetchResponse(f) applying the response s holds for f, on t. */
int kafka_diverging_fetch(const Model *m, const St *s, St *out, uint16_t *labels, int k);
int kafka_truncate_successors(const Model *m, const St *s, St *out, uint16_t *labels, int k);
int kafka_diverging_pending(const Model *m, const St *s, int f);
void kafka_diverging_request(const Model *m, const St *s, St *t, int f, int l);
void kafka_diverging_apply(const Model *m, const St *s, St *t, int f);

static inline int popcount8(uint8_t x) { return __builtin_popcount(x); }
static inline int has(uint8_t mask, int r) { return (mask >> r) & 1; }

/* Helpers the actions of actions.c, alter.c and flight.c share. */
/* state.leader_hw: max(hw, min(LEO, remote LEO of every other ISR member)); the HW stays
 * while the committed ISR has fewer than min_isr members (KIP-966's strict min ISR). With
 * async-isr `isr` is the maximal ISR (counted_isr), `committed` the committed ISR's size. */
static inline int leader_hw(int len, int hw, int me, uint8_t isr, const int8_t *remote, int min_isr,
                            int committed) {
    if (committed < min_isr) return hw;
    int low = len;
    for (int r = 0; r < MAXN; r++)
        if (has(isr, r) && r != me && remote[r] < low) low = remote[r];
    return hw > low ? hw : low;
}

/* state.last_known: the last known leader once the controller (elr) names leader and isr
 * (the ISR's last member when it empties: one leaves at a time) */
static inline int last_known(const St *s, int leader, uint8_t isr) {
    if (leader >= 0) return -1;
    if (!isr && s->cisr) return __builtin_ctz(s->cisr);
    return s->clkl;
}

/* state.last_known_leader: the last known leader while ISR and ELR are empty, else -1 */
static inline int last_known_leader(const Model *m, const St *s) {
    return !m->elr || s->cisr || s->celr ? -1 : s->clkl;
}

/* state.controller_after: the controller once it decided (epoch, leader, isr). */
static inline void controller_after(const Model *m, St *s, int epoch, int leader, uint8_t isr) {
    uint8_t old_isr = s->cisr;
    int lkl = last_known(s, leader, isr);
    s->cepoch = (int8_t)epoch;
    s->cleader = (int8_t)leader;
    s->cisr = isr;
    if (!m->elr) return;
    s->clkl = (int8_t)lkl;
    if (popcount8(isr) >= m->min_isr)
        s->celr = 0;
    else
        s->celr = (uint8_t)((s->celr | (old_isr & ~isr)) & ~isr);
}

/* actions._record_isr: the true leader changed the ISR; the latest request is rewritten. */
static inline void record_isr(const Model *m, St *s, int leader, uint8_t isr) {
    s->rleader[s->nreq - 1] = (int8_t)leader;
    s->risr[s->nreq - 1] = isr;
    controller_after(m, s, s->cepoch, leader, isr);
}

/* actions.counted_isr / state.maximal_isr: the ISR leader r counts for its HW. */
static inline uint8_t counted_isr(const Model *m, const St *s, int r) {
    const Rep *x = &s->r[r];
    if (!m->async_isr || !s->al_has[r] || s->al_epoch[r] != x->vepoch) return x->visr;
    return (uint8_t)(x->visr | s->al_isr[r]);
}

/* actions.lagging: member f of the ISR of leader r (replica x) is behind x's LEO. */
static inline int lagging(const Rep *x, int r, int f) {
    return has(x->visr, f) && f != r && x->remote[f] < x->len;
}

/* actions.in_sync_from: the offset a follower's fetches must reach to join leader x's ISR:
 * x's HW, and (fenced-expand) the start of x's epoch (its first record of that epoch, else
 * its LEO). Computed once a leader, before its followers are tried. */
static inline int in_sync_from(const Model *m, const Rep *x) {
    int least = x->hw;
    if (m->fenced_expand) {
        int start = x->len;
        for (int o = 0; o < x->len; o++)
            if (x->ep[o] == x->vepoch) {
                start = o;
                break;
            }
        if (start > least) least = start;
    }
    return least;
}

/* actions.caught_up: replica f, outside leader x's ISR, fetched up to `least`
 * (in_sync_from) in this leadership; (live-isr) f is up. */
static inline int caught_up(const Model *m, const St *s, const Rep *x, int f, int least) {
    if (m->live_isr && !s->r[f].alive) return 0;
    return !has(x->visr, f) && x->remote[f] >= 0 && x->remote[f] >= least;
}

/* actions.fetch_leader: the leader f may fetch from, or -1 (f up and following another
 * replica that is up and presumes leadership; with fenced-fetch, in f's epoch). */
static inline int fetch_leader(const Model *m, const St *s, int f) {
    const Rep *x = &s->r[f];
    int l = x->vleader;
    if (!x->alive || l < 0 || l == f) return -1;
    const Rep *lx = &s->r[l];
    if (!lx->alive || lx->vleader != l) return -1;
    if (m->fenced_fetch && lx->vepoch != x->vepoch) return -1;
    return l;
}

/* state.commit: every offset in [old_hw, new_hw) of `x`'s log joins the committed set. */
static inline void commit(const Model *m, St *s, const Rep *x, int old_hw, int new_hw) {
    for (int o = old_hw; o < new_hw; o++) s->committed |= 1ull << (o * m->R + x->id[o]);
}

/* state.truncated: a durable truncation pulls the flushed offset down with it. */
static inline void truncated(const Model *m, St *s, int r, int leo) {
    if (m->durable && !m->flush_always && s->flushed[r] > leo) s->flushed[r] = (int8_t)leo;
}

/* state.put_at (the fetcher component): replica r's fetcher value (nothing without the component). */
static inline void put_fetcher(const Model *m, St *s, int r, int value) {
    if (m->fetcher) s->fetcher[r] = (int8_t)value;
}

/* Append a copy of `s` labelled `label` to the successors `out` and `labels` (room for
 * m->max_succ and one spare past it: state.c's scratch); the caller applies the action's
 * effect to it. Past the room the copy goes to the spare and only the count grows: the
 * successors' taker (model_expand) reports the overflow. */
static inline St *emit(const Model *m, St *out, uint16_t *labels, int *k, const St *s,
                       uint16_t label) {
    int at = *k < m->max_succ ? *k : m->max_succ;
    (*k)++;
    labels[at] = label;
    out[at] = *s;
    return &out[at];
}

static inline int leader_answers(const Model *m, const St *s, St *t, int l, int f, int offset) {
    const Rep *lx = &s->r[l];
    Rep *ly = &t->r[l];
    int response_hw = lx->hw;
    ly->remote[f] = (int8_t)offset;
    ly->hw = (int8_t)leader_hw(lx->len, response_hw, l, counted_isr(m, s, l), ly->remote,
                               m->hw_min_isr, popcount8(lx->visr));
    commit(m, t, lx, response_hw, ly->hw);
    return response_hw;
}

#endif
