/* The async-isr mechanism in the compiled core: spec/kafka/alter.py's ShrinkIsr and ExpandIsr
 * as AlterPartition requests, then AlterPartition, in the same order and with the same
 * guards and effects. */
#include "kafka.h"

/* alter._leaders: up, presumes leadership, no request of its view's epoch in flight. */
static int may_ask(const St *s, int r) {
    const Rep *x = &s->r[r];
    return x->alive && x->vleader == r && !(s->al_has[r] && s->al_epoch[r] == x->vepoch);
}

/* alter._ask: r's request for `isr`, based on its committed ISR. */
static void ask(St *t, const Rep *x, int r, uint8_t isr) {
    t->al_has[r] = 1;
    t->al_epoch[r] = x->vepoch;
    t->al_base[r] = x->visr;
    t->al_isr[r] = isr;
}

int kafka_alter_successors(const Model *m, const St *s, St *out, uint16_t *labels, int k) {
    int n = m->n;
#define EMIT(label) emit(m, out, labels, &k, s, (label))
    /* ShrinkIsr(leader, follower): the request */
    for (int r = 0; r < n; r++) {
        if (!may_ask(s, r)) continue;
        const Rep *x = &s->r[r];
        for (int f = 0; f < n; f++) {
            if (!lagging(x, r, f)) continue;
            St *t = EMIT(LABEL(A_SHRINK, r, f));
            ask(t, x, r, (uint8_t)(x->visr & ~(1u << f)));
        }
    }
    /* ExpandIsr(leader, follower): the request */
    for (int r = 0; r < n; r++) {
        if (!may_ask(s, r)) continue;
        const Rep *x = &s->r[r];
        int least = in_sync_from(m, x);
        for (int f = 0; f < n; f++) {
            if (!caught_up(m, s, x, f, least)) continue;
            St *t = EMIT(LABEL(A_EXPAND, r, f));
            ask(t, x, r, (uint8_t)(x->visr | (1u << f)));
        }
    }
    /* AlterPartition(leader): the controller accepts (same leader, epoch and ISR) or rejects */
    for (int r = 0; r < n; r++) {
        if (!s->al_has[r]) continue;
        St *t = EMIT(LABEL(A_ALTER_PARTITION, r, 0));
        t->al_has[r] = 0;
        int epoch = s->al_epoch[r];
        uint8_t isr = s->al_isr[r];
        if (s->cepoch != epoch || s->cleader != r || s->cisr != s->al_base[r]) continue;
        record_isr(m, t, r, isr);
        const Rep *x = &s->r[r];
        if (x->alive && x->vleader == r && x->vepoch == epoch) {
            Rep *y = &t->r[r];
            y->visr = isr;
            y->hw =
                (int8_t)leader_hw(x->len, x->hw, r, isr, x->remote, m->hw_min_isr, popcount8(isr));
            commit(m, t, x, x->hw, y->hw);
        }
    }
#undef EMIT
    return k;
}
