/* The kafka model's properties in the compiled core: invariants/sanity.py, safety.py,
 * acked.py, reads.py, transitions.py and reachability.py, read off the C state. */
#include "kafka.h"
#include "rows.h"

/* Whether `x` holds record (offset, id). */
static int holds_at(const Rep *x, int offset, int id) {
    return offset < x->len && x->id[offset] == id;
}

static int holds_id(const Rep *x, int id) {
    for (int o = 0; o < x->len; o++)
        if (x->id[o] == id) return 1;
    return 0;
}

/* rows.h's same_prefix on two replicas' logs. */
static int same_prefix_of(const Rep *a, const Rep *b, int h) {
    return same_prefix(a->len, a->id, a->ep, b->len, b->id, b->ep, h);
}

/* safety._isr_holds: each presumed leader's committed prefix is on every ISR member
 * (its own cached ISR, or with `strong` the controller's). */
static int isr_holds(const Model *m, const St *s, int strong) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (!x->alive || x->vleader != l || x->hw == 0) continue;
        if (x->len < x->hw) return 0;
        uint8_t isr = strong ? s->cisr : x->visr;
        for (int r = 0; r < m->n; r++)
            if (has(isr, r) && !same_prefix_of(&s->r[r], x, x->hw)) return 0;
    }
    return 1;
}

static int no_committed_loss(const Model *m, const St *s) {
    int bits = m->R * m->R;
    for (int bit = 0; bit < bits; bit++) {
        if (!((s->committed >> bit) & 1)) continue;
        int offset = bit / m->R, id = bit % m->R;
        if (s->cleader >= 0 && s->r[s->cleader].alive) {
            if (!holds_at(&s->r[s->cleader], offset, id)) return 0;
        } else {
            int anywhere = 0;
            for (int r = 0; r < m->n && !anywhere; r++) anywhere = holds_at(&s->r[r], offset, id);
            if (!anywhere) return 0;
        }
    }
    return 1;
}

/* acked: every record produced (acks=1), or every committed id (acks=all). */
static int no_acked_loss(const Model *m, const St *s) {
    for (int id = 0; id < m->R; id++) {
        int acked = 0;
        if (!m->acks_all)
            acked = id < s->next_id;
        else
            for (int o = 0; o < m->R && !acked; o++) acked = (s->committed >> (o * m->R + id)) & 1;
        if (!acked) continue;
        if (s->cleader >= 0 && s->r[s->cleader].alive) {
            if (!holds_id(&s->r[s->cleader], id)) return 0;
        } else {
            int anywhere = 0;
            for (int r = 0; r < m->n && !anywhere; r++) anywhere = holds_id(&s->r[r], id);
            if (!anywhere) return 0;
        }
    }
    return 1;
}

/* reads.no_uncommitted_read (reads._exposed): every record below a live replica's HW was
 * committed at that offset. */
static int no_uncommitted_read(const Model *m, const St *s) {
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        if (!x->hw || !x->alive) continue;
        int h = x->hw < x->len ? x->hw : x->len;
        for (int o = 0; o < h; o++)
            if (!((s->committed >> (o * m->R + x->id[o])) & 1)) return 0;
    }
    return 1;
}

static int no_divergence(const Model *m, const St *s) {
    for (int a = 0; a < m->n - 1; a++) {
        int ha = s->r[a].hw;
        if (!ha) continue;
        for (int b = a + 1; b < m->n; b++) {
            int h = s->r[b].hw < ha ? s->r[b].hw : ha;
            if (h && !same_prefix_of(&s->r[a], &s->r[b], h)) return 0;
        }
    }
    return 1;
}

static int record_epochs_monotonic(const Model *m, const St *s) {
    for (int r = 0; r < m->n; r++)
        for (int o = 1; o < s->r[r].len; o++)
            if (s->r[r].ep[o] < s->r[r].ep[o - 1]) return 0;
    return 1;
}

uint32_t kafka_invariants(const Model *m, const St *s, uint32_t mask) {
    uint32_t bad = 0;
#define CHECK(bit, holds)                                                                          \
    if ((mask >> (bit)) & 1 && !(holds)) bad |= 1u << (bit)
    if (mask & (1u << P_HW_LE_LEO)) {
        for (int r = 0; r < m->n; r++)
            if (s->r[r].hw > s->r[r].len) bad |= 1u << P_HW_LE_LEO;
    }
    CHECK(P_LEADER_IN_ISR, s->cleader < 0 || has(s->cisr, s->cleader));
    CHECK(P_NO_COMMITTED_LOSS, no_committed_loss(m, s));
    CHECK(P_NO_ACKED_LOSS, no_acked_loss(m, s));
    CHECK(P_NO_UNCOMMITTED_READ, no_uncommitted_read(m, s));
    CHECK(P_NO_DIVERGENCE, no_divergence(m, s));
    CHECK(P_WEAK_ISR, isr_holds(m, s, 0));
    CHECK(P_STRONG_ISR, isr_holds(m, s, 1));
    CHECK(P_RECORD_EPOCHS, record_epochs_monotonic(m, s));
#undef CHECK
    return bad;
}

/* EpochMonotonic (violated: bit set) and the "sometimes" guards (reached: bit set). */
uint32_t kafka_transition(const Model *m, const St *a, uint16_t label, const St *b, uint32_t mask) {
    uint32_t bits = 0;
    int action = LABEL_ACTION(label);
    if (mask & (1u << P_EPOCH_MONOTONIC)) {
        int back = b->cepoch < a->cepoch;
        for (int r = 0; r < m->n && !back; r++)
            back = a->r[r].alive && b->r[r].alive && b->r[r].vepoch < a->r[r].vepoch;
        if (back) bits |= 1u << P_EPOCH_MONOTONIC;
    }
    if (mask & (1u << P_HW_ADVANCES))
        for (int r = 0; r < m->n; r++)
            if (b->r[r].hw > a->r[r].hw) bits |= 1u << P_HW_ADVANCES;
    if (action == A_CRASH || action == A_UNCLEAN_SHUTDOWN) bits |= 1u << P_CRASH_HAPPENS;
    if (action == A_RESTART) bits |= 1u << P_RESTART_HAPPENS;
    if (mask & (1u << P_TRUNCATION_REMOVES))
        for (int r = 0; r < m->n; r++)
            if (b->r[r].len < a->r[r].len) bits |= 1u << P_TRUNCATION_REMOVES;
    if ((action == A_ELECT || action == A_UNCLEAN_ELECT) && a->cleader >= 0)
        bits |= 1u << P_SECOND_ELECTION;
    return bits & mask;
}
