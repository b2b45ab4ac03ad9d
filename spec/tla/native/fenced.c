/* The TLA+ port's KIP-320 operators in the compiled core (spec/tla/fenced.py): Kip320's
 * fenced fetch, HW, ISR and truncation, and Kip320FirstTry's, with the same enabling
 * conditions, effects and order; actions.c's tla_next puts them into each variant's Next. */
#include "tla.h"
#include "actions.h"

/* -- Kip320 ----------------------------------------------------------------------------- */
static int following_epoch(const St *s, int l, int f) {
    return s->r[l].leader == l && s->r[f].leader == l && s->r[f].epoch == s->r[l].epoch;
}

void fenced_follower_fetch(ARGS) {
    for (int f = 0; f < m->n; f++) {
        int l = s->r[f].leader;
        if (l >= 0 && following_epoch(s, l, f)) tla_replicate(m, s, index, out, labels, k, f, l);
    }
}

void fenced_inc_high_watermark(ARGS) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (x->hw >= x->len) continue;
        int all = 1;
        for (int f = 0; f < m->n && all; f++)
            if (has(x->isr, f)) all = following_epoch(s, l, f) && x->hw < s->r[f].len;
        if (all) tla_inc_hw(m, s, index, out, labels, k, l);
    }
}

void fenced_shrink_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        uint8_t isr = s->r[l].isr;
        for (int x = 0; x < m->n; x++) {
            if (!has(isr, x) || x == l) continue;
            if (!following_epoch(s, l, x) || s->r[x].len < s->r[l].len)
                tla_quorum_update(m, s, index, out, labels, k, l, x, (uint8_t)(isr & ~(1u << x)));
        }
    }
}

static int hw_reached_current_epoch(const St *s, int l) {
    const Rep *x = &s->r[l];
    return x->hw == x->len || (x->hw < x->len && x->ep[x->hw] == x->epoch);
}

void fenced_expand_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (!hw_reached_current_epoch(s, l)) continue;
        for (int r = 0; r < m->n; r++)
            if (!has(x->isr, r) && following_epoch(s, l, r)
                && (x->hw == 0 || x->hw - 1 < s->r[r].len))
                tla_quorum_update(m, s, index, out, labels, k, l, r, (uint8_t)(x->isr | (1u << r)));
    }
}

void fenced_become_follower(ARGS) {
    for (int e = 0; e < s->nreq; e++) {
        int l = s->rleader[e];
        if (l < 0 || s->r[l].leader != l || s->r[l].epoch != e) continue;
        for (int r = 0; r < m->n; r++) {
            const Rep *x = &s->r[r];
            if (r == l || e <= x->epoch) continue;
            int offset = last_match_end(x, &s->r[l]);
            St *t = EMIT(l, r, e);
            Rep *y = &t->r[r];
            y->len = (int8_t)offset;
            y->hw = (int8_t)(offset < x->hw ? offset : x->hw);
            y->epoch = (int8_t)e;
            y->leader = (int8_t)l;
            y->isr = s->risr[e];
        }
    }
}

/* -- Kip320FirstTry --------------------------------------------------------------------- */
static int caught_up_to_epoch(const St *s, int l, int f, int end) {
    if (s->r[l].leader != l || s->r[f].leader != l) return 0;
    if (end == 0) return 1;
    int at = end - 1;
    return at < s->r[l].len && at < s->r[f].len && s->r[f].ep[at] == s->r[l].ep[at];
}

void first_try_fetch(ARGS) {
    for (int f = 0; f < m->n; f++) {
        int l = s->r[f].leader;
        if (l >= 0 && caught_up_to_epoch(s, l, f, s->r[f].len))
            tla_replicate(m, s, index, out, labels, k, f, l);
    }
}

void first_try_inc_high_watermark(ARGS) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (x->leader != l || x->hw >= x->len) continue;
        int all = 1;
        for (int f = 0; f < m->n && all; f++)
            if (has(x->isr, f)) all = caught_up_to_epoch(s, l, f, x->hw + 1);
        if (all) tla_inc_hw(m, s, index, out, labels, k, l);
    }
}

void first_try_shrink_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        uint8_t isr = s->r[l].isr;
        for (int x = 0; x < m->n; x++)
            if (has(isr, x) && x != l && !caught_up_to_epoch(s, l, x, s->r[l].len))
                tla_quorum_update(m, s, index, out, labels, k, l, x, (uint8_t)(isr & ~(1u << x)));
    }
}

void first_try_expand_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (!hw_reached_current_epoch(s, l)) continue;
        for (int r = 0; r < m->n; r++)
            if (!has(x->isr, r) && caught_up_to_epoch(s, l, r, x->hw))
                tla_quorum_update(m, s, index, out, labels, k, l, r, (uint8_t)(x->isr | (1u << r)));
    }
}

void first_try_become_follower(ARGS) {
    for (int e = 0; e < s->nreq; e++) {
        int l = s->rleader[e];
        if (l < 0) continue;
        for (int r = 0; r < m->n; r++) {
            if (r == l || e <= s->r[r].epoch) continue;
            St *t = EMIT(l, r, e);
            t->r[r].epoch = (int8_t)e;
            t->r[r].leader = (int8_t)l;
            t->r[r].isr = s->risr[e];
        }
    }
}

void first_try_truncate(ARGS) {
    for (int f = 0; f < m->n; f++) {
        const Rep *x = &s->r[f];
        int l = x->leader;
        if (l < 0 || s->r[l].leader != l) continue;
        const Rep *lx = &s->r[l];
        int last = x->len - 1;
        int needs = x->len > lx->len || (x->len && last < lx->len && lx->ep[last] != x->ep[last]);
        if (!needs) continue;
        int offset = last_match_end(x, lx);
        St *t = EMIT(f, l, 0);
        t->r[f].len = (int8_t)offset;
        t->r[f].hw = (int8_t)(offset < x->hw ? offset : x->hw);
    }
}
