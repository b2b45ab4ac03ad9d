/* The kafka model's liveness atoms (model.h: model_liveness, model_conditions), twins of
 * spec/kafka/progress.py. Keys (spec/kafka/native/__init__.py: Codec.liveness_key):
 * AckedReachesIsr (offset, id) -> offset * R + id; HwReachesLeo (leader, epoch) and
 * FollowerCatchesUp (follower, epoch) -> replica * (E + 1) + epoch; LeaderElected () -> 0;
 * ReplicasConverge (eventually-always): bit 0 where its P is false. */
#include "kafka.h"

/* progress.leader_offline */
static int leader_offline(const St *s) { return s->cleader < 0 || !s->r[s->cleader].alive; }

/* progress.took_over */
static int took_over(const St *s) {
    if (leader_offline(s)) return 0;
    const Rep *x = &s->r[s->cleader];
    return x->vleader == s->cleader && x->vepoch == s->cepoch;
}

/* progress._eligible is non-empty */
static int eligible(const Model *m, const St *s) {
    uint8_t members = (uint8_t)(s->cisr | (m->elr ? s->celr : 0));
    int lkl = last_known_leader(m, s);
    if (lkl >= 0) members |= (uint8_t)(1u << lkl);
    for (int r = 0; r < m->n; r++)
        if (has(members, r) && s->r[r].alive) return 1;
    return 0;
}

static int same_log(const Rep *a, const Rep *b) {
    if (a->len != b->len) return 0;
    for (int o = 0; o < a->len; o++)
        if (a->id[o] != b->id[o] || a->ep[o] != b->ep[o]) return 0;
    return 1;
}

/* progress._reached */
static int reached(const Model *m, const St *s, int offset, int id) {
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        if (has(s->cisr, r) && x->alive && (x->len <= offset || x->id[offset] != id)) return 0;
    }
    return 1;
}

/* progress._hw_reached */
static int hw_reached(const Model *m, const St *s, int leader, int epoch) {
    const Rep *x = &s->r[leader];
    if (s->cepoch != epoch || !x->alive) return 1;
    for (int r = 0; r < m->n; r++)
        if (has(x->visr, r) && !s->r[r].alive) return 1;
    return x->hw == x->len;
}

/* progress.converged (ReplicasConverge's P; an eventually-always property opens bit 0 where
 * P is false) */
static int converged(const Model *m, const St *s) {
    if (!took_over(s)) return 0;
    const Rep *leader = &s->r[s->cleader];
    for (int r = 0; r < m->n; r++)
        if (s->r[r].alive && !same_log(&s->r[r], leader)) return 0;
    return leader->hw == leader->len;
}

/* progress._caught_up */
static int follower_caught_up(const St *s, int f, int epoch) {
    if (s->cepoch != epoch || !has(s->cisr, f) || !s->r[f].alive) return 1;
    if (leader_offline(s)) return 1;
    return same_log(&s->r[f], &s->r[s->cleader]);
}

static uint64_t bit(int k) { return k < 64 ? 1ull << k : 0; }

void model_liveness(const Model *m, const uint8_t *row, int prop, uint64_t *opened,
                    uint64_t *goal) {
    St s;
    kafka_decode(m, row, &s);
    uint64_t open = 0, q = 0;
    int epochs = m->E + 1, took = took_over(&s), l = s.cleader;
    if (prop == 0) {
        open = s.committed;
        for (int o = 0; o < m->R; o++)
            for (int id = 0; id < m->R; id++)
                if (reached(m, &s, o, id)) q |= bit(o * m->R + id);
    } else if (prop == 1) {
        if (took && s.r[l].hw < s.r[l].len) open = bit(l * epochs + s.cepoch);
        for (int r = 0; r < m->n; r++)
            for (int e = 0; e < epochs; e++)
                if (hw_reached(m, &s, r, e)) q |= bit(r * epochs + e);
    } else if (prop == 2) {
        open = !took && eligible(m, &s);
        q = (uint64_t)took;
    } else if (prop == 3) {
        for (int f = 0; took && f < m->n; f++)
            if (f != l && has(s.cisr, f) && s.r[f].alive && !same_log(&s.r[f], &s.r[l]))
                open |= bit(f * epochs + s.cepoch);
        for (int f = 0; f < m->n; f++)
            for (int e = 0; e < epochs; e++)
                if (follower_caught_up(&s, f, e)) q |= bit(f * epochs + e);
    } else if (prop == 4) {
        open = !converged(m, &s);
    }
    *opened = open;
    *goal = q;
}

/* Bit 0: progress.leader_offline; MODEL_CUT_BIT: progress.make_cut's cut. */
uint32_t model_conditions(const Model *m, const uint8_t *row) {
    St s;
    kafka_decode(m, row, &s);
    uint32_t bits = (uint32_t)leader_offline(&s);
    if (s.cepoch >= m->E && leader_offline(&s)) {
        int any_alive = 0;
        for (int r = 0; r < m->n; r++) any_alive |= s.r[r].alive;
        if (s.cleader >= 0 || eligible(m, &s) || (m->unclean_election && any_alive))
            bits |= 1u << MODEL_CUT_BIT;
    }
    return bits;
}
