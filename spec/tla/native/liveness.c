/* The TLA+ port's liveness atoms (model.h: model_liveness, model_conditions), twins of
 * spec/tla/liveness.py. Keys (spec/tla/native/__init__.py: Codec.liveness_key):
 * NamedLeaderTakesOver (epoch, replica) -> epoch * n + replica; CommitProgress replica r -> r.
 * The port has no named condition and no cut. */
#include "tla.h"

static uint64_t bit(int k) { return k >= 0 && k < 64 ? 1ull << k : 0; }

void model_liveness(const Model *m, const uint8_t *row, int prop, uint64_t *opened,
                    uint64_t *goal) {
    St s;
    tla_decode(m, row, &s);
    uint64_t open = 0, q = 0;
    if (prop == 0) {
        if (s.qleader >= 0 && s.qepoch >= 0) open = bit(s.qepoch * m->n + s.qleader);
        for (int e = 0; e <= m->E; e++)
            for (int r = 0; r < m->n; r++)
                if (s.r[r].epoch >= e) q |= bit(e * m->n + r);
    } else if (prop == 1) {
        for (int r = 0; r < m->n; r++) {
            const Rep *x = &s.r[r];
            if (x->leader == r && x->hw < x->len) open |= bit(r);
            if (x->hw == x->len || x->leader != r) q |= bit(r);
        }
    }
    *opened = open;
    *goal = q;
}

uint32_t model_conditions(const Model *m, const uint8_t *row) {
    (void)m;
    (void)row;
    return 0;
}
