/* The TLA+ port's actions in the compiled core: spec/tla/actions.py and fenced.py, operator by
 * operator, with the same enabling conditions, effects and order. Each action appends its
 * successors to out[*k..] with labels whose action is `index` (its place in Next). */
#include "tla.h"

/* Append a copy of `s` (out and labels have room for m->max_succ and one spare past it:
 * state.c's scratch); past the room the copy goes to the spare and only the count grows, and
 * model_expand reports the overflow. */
static St *emit(const Model *m, St *out, uint16_t *labels, int *k, const St *s, uint16_t label) {
    int at = *k < m->max_succ ? *k : m->max_succ;
    (*k)++;
    labels[at] = label;
    out[at] = *s;
    return &out[at];
}

#define ARGS const Model *m, const St *s, int index, St *out, uint16_t *labels, int *k
#define EMIT(a, b, c) emit(m, out, labels, k, s, LABEL3(index, (a), (b), (c)))

static int last_match_end(const Rep *f, const Rep *l) {
    for (int o = (f->len < l->len ? f->len : l->len) - 1; o >= 0; o--)
        if (f->id[o] == l->id[o] && f->ep[o] == l->ep[o]) return o + 1;
    return 0;
}

/* ControllerUpdateIsr: the next epoch, the quorum state and a request. */
static void update_isr(ARGS, int a, int leader, uint8_t isr) {
    int epoch = s->next_epoch;
    if (epoch > m->E) return;
    St *t = EMIT(a, 0, 0);
    t->next_epoch++;
    t->rleader[t->nreq] = (int8_t)leader; t->risr[t->nreq] = isr; t->nreq++;
    t->qepoch = (int8_t)epoch; t->qleader = (int8_t)leader; t->qisr = isr;
}

static void controller_elect_leader(ARGS) {
    for (int l = 0; l < m->n; l++)
        if (has(s->qisr, l) && l != s->qleader) update_isr(m, s, index, out, labels, k, l, l, s->qisr);
}

static void controller_shrink_isr(ARGS) {
    for (int x = 0; x < m->n; x++) {
        uint8_t without = (uint8_t)(s->qisr & ~(1u << x));
        if (s->qleader == x)
            update_isr(m, s, index, out, labels, k, x, -1, s->qisr == (1u << x) ? s->qisr : without);
        else if (has(s->qisr, x))
            update_isr(m, s, index, out, labels, k, x, s->qleader, without);
    }
}

static void become_leader(ARGS) {
    for (int e = 0; e < s->nreq; e++) {
        int l = s->rleader[e];
        if (l < 0 || e <= s->r[l].epoch) continue;
        St *t = EMIT(l, e, 0);
        t->r[l].epoch = (int8_t)e; t->r[l].leader = (int8_t)l; t->r[l].isr = s->risr[e];
    }
}

static void leader_write(ARGS) {
    if (s->next_id > m->R - 1) return;
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        if (x->leader != r || x->len >= m->L) continue;
        St *t = EMIT(r, 0, 0);
        Rep *y = &t->r[r];
        y->id[y->len] = s->next_id; y->ep[y->len] = x->epoch; y->len++;
        t->next_id++;
    }
}

/* QuorumUpdateLeaderAndIsr: only the true leader writes the ISR, no epoch bump. */
static void quorum_update(ARGS, int l, int a, uint8_t isr) {
    const Rep *x = &s->r[l];
    if (s->qleader != l || x->leader != l || x->epoch != s->qepoch) return;
    St *t = EMIT(l, a, 0);
    t->r[l].isr = isr;
    t->qleader = (int8_t)l; t->qisr = isr;
}

static int caught_up(const St *s, int l, int f, int end) {
    if (s->r[f].leader != l) return 0;
    return end == 0 || (end - 1 < s->r[l].len && end - 1 < s->r[f].len);
}

static void leader_shrink_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        uint8_t isr = s->r[l].isr;
        for (int x = 0; x < m->n; x++)
            if (has(isr, x) && x != l && !caught_up(s, l, x, s->r[l].len))
                quorum_update(m, s, index, out, labels, k, l, x, (uint8_t)(isr & ~(1u << x)));
    }
}

static void leader_expand_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        uint8_t isr = s->r[l].isr;
        for (int x = 0; x < m->n; x++)
            if (!has(isr, x) && caught_up(s, l, x, s->r[l].hw))
                quorum_update(m, s, index, out, labels, k, l, x, (uint8_t)(isr | (1u << x)));
    }
}

static void inc_hw(ARGS, int l) {
    St *t = EMIT(l, 0, 0);
    t->r[l].hw++;
}

static void leader_inc_high_watermark(ARGS) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (x->leader != l || x->hw >= m->L) continue;
        int all = 1;
        for (int f = 0; f < m->n && all; f++)
            if (has(x->isr, f)) all = s->r[f].leader == l && x->hw < s->r[f].len;
        if (all) inc_hw(m, s, index, out, labels, k, l);
    }
}

/* BecomeFollowerAndTruncateTo(leader, replica, offset) for every newer request naming it. */
static void become_follower_truncate(ARGS, int l, int r, int offset) {
    const Rep *x = &s->r[r];
    if (l == r || offset > x->len) return;
    for (int e = 0; e < s->nreq; e++) {
        if (s->rleader[e] != l || e <= x->epoch) continue;
        St *t = EMIT(l, r, e);
        Rep *y = &t->r[r];
        y->len = (int8_t)offset;
        y->hw = (int8_t)(offset < x->hw ? offset : x->hw);
        y->epoch = (int8_t)e; y->leader = (int8_t)l; y->isr = s->risr[e];
    }
}

static void truncate_to_high_watermark(ARGS) {
    for (int l = 0; l < m->n; l++)
        for (int r = 0; r < m->n; r++)
            become_follower_truncate(m, s, index, out, labels, k, l, r, s->r[r].hw);
}

/* Kip101's LookupOffsetForEpoch (log.end_offset_for_epoch, else the follower's HW). */
static int lookup_offset_for_epoch(const Rep *l, int hw, int epoch) {
    if (!l->len) return hw;
    if (l->ep[l->len - 1] == epoch) return l->len;
    for (int o = 0; o < l->len; o++) if (l->ep[o] > epoch) return o;
    return hw;
}

static void truncate_kip101(ARGS) {
    for (int l = 0; l < m->n; l++)
        for (int r = 0; r < m->n; r++) {
            const Rep *x = &s->r[r];
            int offset = !x->len ? 0 : lookup_offset_for_epoch(&s->r[l], x->hw, x->ep[x->len - 1]);
            become_follower_truncate(m, s, index, out, labels, k, l, r, offset);
        }
}

static void truncate_kip279(ARGS) {
    for (int l = 0; l < m->n; l++)
        for (int r = 0; r < m->n; r++)
            become_follower_truncate(m, s, index, out, labels, k, l, r,
                                     last_match_end(&s->r[r], &s->r[l]));
}

/* ReplicateTo(leader, follower) with the follower HW rule. */
static void replicate(ARGS, int f, int l) {
    const Rep *x = &s->r[f], *lx = &s->r[l];
    int end = x->len;
    if (end >= lx->len || end >= m->L) return;
    St *t = EMIT(f, l, 0);
    Rep *y = &t->r[f];
    y->id[end] = lx->id[end]; y->ep[end] = lx->ep[end]; y->len++;
    y->hw = (int8_t)(lx->hw < end + 1 ? lx->hw : end + 1);
}

static void follower_replicate(ARGS) {
    for (int f = 0; f < m->n; f++) {
        int l = s->r[f].leader;
        if (l >= 0 && l != f && s->r[l].leader == l) replicate(m, s, index, out, labels, k, f, l);
    }
}

/* -- Kip320 ----------------------------------------------------------------------------- */
static int following_epoch(const St *s, int l, int f) {
    return s->r[l].leader == l && s->r[f].leader == l && s->r[f].epoch == s->r[l].epoch;
}

static void fenced_follower_fetch(ARGS) {
    for (int f = 0; f < m->n; f++) {
        int l = s->r[f].leader;
        if (l >= 0 && following_epoch(s, l, f)) replicate(m, s, index, out, labels, k, f, l);
    }
}

static void fenced_inc_high_watermark(ARGS) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (x->hw >= x->len) continue;
        int all = 1;
        for (int f = 0; f < m->n && all; f++)
            if (has(x->isr, f)) all = following_epoch(s, l, f) && x->hw < s->r[f].len;
        if (all) inc_hw(m, s, index, out, labels, k, l);
    }
}

static void fenced_shrink_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        uint8_t isr = s->r[l].isr;
        for (int x = 0; x < m->n; x++) {
            if (!has(isr, x) || x == l) continue;
            if (!following_epoch(s, l, x) || s->r[x].len < s->r[l].len)
                quorum_update(m, s, index, out, labels, k, l, x, (uint8_t)(isr & ~(1u << x)));
        }
    }
}

static int hw_reached_current_epoch(const St *s, int l) {
    const Rep *x = &s->r[l];
    return x->hw == x->len || (x->hw < x->len && x->ep[x->hw] == x->epoch);
}

static void fenced_expand_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (!hw_reached_current_epoch(s, l)) continue;
        for (int r = 0; r < m->n; r++)
            if (!has(x->isr, r) && following_epoch(s, l, r)
                && (x->hw == 0 || x->hw - 1 < s->r[r].len))
                quorum_update(m, s, index, out, labels, k, l, r, (uint8_t)(x->isr | (1u << r)));
    }
}

static void fenced_become_follower(ARGS) {
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
            y->epoch = (int8_t)e; y->leader = (int8_t)l; y->isr = s->risr[e];
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

static void first_try_fetch(ARGS) {
    for (int f = 0; f < m->n; f++) {
        int l = s->r[f].leader;
        if (l >= 0 && caught_up_to_epoch(s, l, f, s->r[f].len))
            replicate(m, s, index, out, labels, k, f, l);
    }
}

static void first_try_inc_high_watermark(ARGS) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (x->leader != l || x->hw >= x->len) continue;
        int all = 1;
        for (int f = 0; f < m->n && all; f++)
            if (has(x->isr, f)) all = caught_up_to_epoch(s, l, f, x->hw + 1);
        if (all) inc_hw(m, s, index, out, labels, k, l);
    }
}

static void first_try_shrink_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        uint8_t isr = s->r[l].isr;
        for (int x = 0; x < m->n; x++)
            if (has(isr, x) && x != l && !caught_up_to_epoch(s, l, x, s->r[l].len))
                quorum_update(m, s, index, out, labels, k, l, x, (uint8_t)(isr & ~(1u << x)));
    }
}

static void first_try_expand_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        const Rep *x = &s->r[l];
        if (!hw_reached_current_epoch(s, l)) continue;
        for (int r = 0; r < m->n; r++)
            if (!has(x->isr, r) && caught_up_to_epoch(s, l, r, x->hw))
                quorum_update(m, s, index, out, labels, k, l, r, (uint8_t)(x->isr | (1u << r)));
    }
}

static void first_try_become_follower(ARGS) {
    for (int e = 0; e < s->nreq; e++) {
        int l = s->rleader[e];
        if (l < 0) continue;
        for (int r = 0; r < m->n; r++) {
            if (r == l || e <= s->r[r].epoch) continue;
            St *t = EMIT(l, r, e);
            t->r[r].epoch = (int8_t)e; t->r[r].leader = (int8_t)l; t->r[r].isr = s->risr[e];
        }
    }
}

static void first_try_truncate(ARGS) {
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

/* spec.tla.model.NEXT: each variant's Next, in its module's order. */
int tla_next(const Model *m, int variant, Action *next) {
    (void)m;
    int a = 0;
    next[a++] = controller_elect_leader;
    next[a++] = controller_shrink_isr;
    next[a++] = become_leader;
    if (variant == V_FIRST_TRY) {
        next[a++] = first_try_expand_isr; next[a++] = first_try_shrink_isr;
        next[a++] = leader_write; next[a++] = first_try_inc_high_watermark;
        next[a++] = first_try_become_follower; next[a++] = first_try_fetch;
        next[a++] = first_try_truncate;
        return a;
    }
    if (variant == V_KIP320 || variant == V_KIP320_KIP279) {
        next[a++] = fenced_expand_isr; next[a++] = fenced_shrink_isr;
        next[a++] = leader_write; next[a++] = fenced_inc_high_watermark;
        next[a++] = variant == V_KIP320 ? fenced_become_follower : truncate_kip279;
        next[a++] = fenced_follower_fetch;
        return a;
    }
    next[a++] = leader_expand_isr; next[a++] = leader_shrink_isr;
    next[a++] = leader_write; next[a++] = leader_inc_high_watermark;
    next[a++] = variant == V_HW ? truncate_to_high_watermark
              : variant == V_KIP101 ? truncate_kip101 : truncate_kip279;
    next[a++] = follower_replicate;
    return a;
}
