/* The TLA+ port's properties in the compiled core: invariants.tla_catalog (sanity with the
 * spec's strict LeaderInIsr, WeakIsr, StrongIsr, the guards without crashes) and
 * spec.tla.typeok's TypeOk. */
#include "tla.h"
#include "rows.h"

/* rows.h's same_prefix on two replicas' logs. */
static int same_prefix_of(const Rep *a, const Rep *b, int h) {
    return same_prefix(a->len, a->id, a->ep, b->len, b->id, b->ep, h);
}

/* safety._isr_holds over the port's presumed leaders (leader = self; nobody crashes). */
static int isr_holds(const Model *m, const St *s, int strong) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (x->leader != l || x->hw == 0) continue;
        if (x->len < x->hw) return 0;
        uint8_t isr = strong ? s->qisr : x->isr;
        for (int r = 0; r < m->n; r++)
            if (has(isr, r) && !same_prefix_of(&s->r[r], x, x->hw)) return 0;
    }
    return 1;
}

static int decision_ok(const Model *m, int epoch, int leader, uint8_t isr) {
    return epoch >= -1 && epoch <= m->E && leader >= -1 && leader < m->n && (isr >> m->n) == 0;
}

/* spec.tla.typeok.type_ok */
static int type_ok(const Model *m, const St *s) {
    if (s->next_epoch < 0 || s->next_epoch > m->E + 1 || s->next_id < 0 || s->next_id > m->R)
        return 0;
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        if (x->len > m->L) return 0;
        for (int o = 0; o < x->len; o++)
            if (x->id[o] < 0 || x->id[o] >= m->R || x->ep[o] < 0 || x->ep[o] > m->E) return 0;
        if (x->hw < 0 || x->hw > m->L || !decision_ok(m, x->epoch, x->leader, x->isr)) return 0;
    }
    if (!decision_ok(m, s->qepoch, s->qleader, s->qisr)) return 0;
    for (int e = 0; e < s->nreq; e++)
        if (!decision_ok(m, e, s->rleader[e], s->risr[e])) return 0;
    return 1;
}

uint32_t tla_invariants(const Model *m, const St *s, uint32_t mask) {
    uint32_t bad = 0;
#define CHECK(bit, holds)                                                                          \
    if ((mask >> (bit)) & 1 && !(holds)) bad |= 1u << (bit)
    if (mask & (1u << P_HW_LE_LEO))
        for (int r = 0; r < m->n; r++)
            if (s->r[r].hw > s->r[r].len) bad |= 1u << P_HW_LE_LEO;
    CHECK(P_LEADER_IN_ISR, s->qleader >= 0 && has(s->qisr, s->qleader));
    CHECK(P_LEADER_IN_ISR_OR_NONE, s->qleader < 0 || has(s->qisr, s->qleader));
    CHECK(P_WEAK_ISR, isr_holds(m, s, 0));
    CHECK(P_STRONG_ISR, isr_holds(m, s, 1));
    CHECK(P_TYPE_OK, type_ok(m, s));
#undef CHECK
    return bad;
}

/* The guards (reached: bit set); the port has no transition property. */
uint32_t tla_transition(const Model *m, const St *a, uint16_t label, const St *b, uint32_t mask) {
    uint32_t bits = 0;
    if (mask & (1u << P_HW_ADVANCES))
        for (int r = 0; r < m->n; r++)
            if (b->r[r].hw > a->r[r].hw) bits |= 1u << P_HW_ADVANCES;
    if (mask & (1u << P_TRUNCATION_REMOVES))
        for (int r = 0; r < m->n; r++)
            if (b->r[r].len < a->r[r].len) bits |= 1u << P_TRUNCATION_REMOVES;
    if (LABEL_ACTION(label) == m->election && a->qleader >= 0) bits |= 1u << P_SECOND_ELECTION;
    return bits & mask;
}
