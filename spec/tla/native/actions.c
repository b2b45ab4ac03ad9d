/* The TLA+ port's actions in the compiled core: spec/tla/actions.py, operator by operator,
 * with the same enabling conditions, effects and order (fenced.py's are in fenced.c). Each
 * action appends its successors to out[*k..] with labels whose action is `index` (its place
 * in Next). */
#include "tla.h"
#include "actions.h"

/* ControllerUpdateIsr: the next epoch, the quorum state and a request. */
static void update_isr(ARGS, int a, int leader, uint8_t isr) {
    int epoch = s->next_epoch;
    if (epoch > m->E) return;
    St *t = EMIT(a, 0, 0);
    t->next_epoch++;
    t->rleader[t->nreq] = (int8_t)leader;
    t->risr[t->nreq] = isr;
    t->nreq++;
    t->qepoch = (int8_t)epoch;
    t->qleader = (int8_t)leader;
    t->qisr = isr;
}

static void controller_elect_leader(ARGS) {
    for (int l = 0; l < m->n; l++)
        if (has(s->qisr, l) && l != s->qleader)
            update_isr(m, s, index, out, labels, k, l, l, s->qisr);
}

static void controller_shrink_isr(ARGS) {
    for (int x = 0; x < m->n; x++) {
        uint8_t without = (uint8_t)(s->qisr & ~(1u << x));
        if (s->qleader == x)
            update_isr(m, s, index, out, labels, k, x, -1,
                       s->qisr == (1u << x) ? s->qisr : without);
        else if (has(s->qisr, x))
            update_isr(m, s, index, out, labels, k, x, s->qleader, without);
    }
}

static void become_leader(ARGS) {
    for (int e = 0; e < s->nreq; e++) {
        int l = s->rleader[e];
        if (l < 0 || e <= s->r[l].epoch) continue;
        St *t = EMIT(l, e, 0);
        t->r[l].epoch = (int8_t)e;
        t->r[l].leader = (int8_t)l;
        t->r[l].isr = s->risr[e];
    }
}

static void leader_write(ARGS) {
    if (s->next_id > m->R - 1) return;
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        if (x->leader != r || x->len >= m->L) continue;
        St *t = EMIT(r, 0, 0);
        Rep *y = &t->r[r];
        y->id[y->len] = s->next_id;
        y->ep[y->len] = x->epoch;
        y->len++;
        t->next_id++;
    }
}

/* QuorumUpdateLeaderAndIsr: only the true leader writes the ISR, no epoch bump. */
void tla_quorum_update(ARGS, int l, int a, uint8_t isr) {
    const Rep *x = &s->r[l];
    if (s->qleader != l || x->leader != l || x->epoch != s->qepoch) return;
    St *t = EMIT(l, a, 0);
    t->r[l].isr = isr;
    t->qleader = (int8_t)l;
    t->qisr = isr;
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
                tla_quorum_update(m, s, index, out, labels, k, l, x, (uint8_t)(isr & ~(1u << x)));
    }
}

static void leader_expand_isr(ARGS) {
    for (int l = 0; l < m->n; l++) {
        uint8_t isr = s->r[l].isr;
        for (int x = 0; x < m->n; x++)
            if (!has(isr, x) && caught_up(s, l, x, s->r[l].hw))
                tla_quorum_update(m, s, index, out, labels, k, l, x, (uint8_t)(isr | (1u << x)));
    }
}

void tla_inc_hw(ARGS, int l) {
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
        if (all) tla_inc_hw(m, s, index, out, labels, k, l);
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
        y->epoch = (int8_t)e;
        y->leader = (int8_t)l;
        y->isr = s->risr[e];
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
    for (int o = 0; o < l->len; o++)
        if (l->ep[o] > epoch) return o;
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
void tla_replicate(ARGS, int f, int l) {
    const Rep *x = &s->r[f], *lx = &s->r[l];
    int end = x->len;
    if (end >= lx->len || end >= m->L) return;
    St *t = EMIT(f, l, 0);
    Rep *y = &t->r[f];
    y->id[end] = lx->id[end];
    y->ep[end] = lx->ep[end];
    y->len++;
    y->hw = (int8_t)(lx->hw < end + 1 ? lx->hw : end + 1);
}

static void follower_replicate(ARGS) {
    for (int f = 0; f < m->n; f++) {
        int l = s->r[f].leader;
        if (l >= 0 && l != f && s->r[l].leader == l)
            tla_replicate(m, s, index, out, labels, k, f, l);
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
        next[a++] = first_try_expand_isr;
        next[a++] = first_try_shrink_isr;
        next[a++] = leader_write;
        next[a++] = first_try_inc_high_watermark;
        next[a++] = first_try_become_follower;
        next[a++] = first_try_fetch;
        next[a++] = first_try_truncate;
        return a;
    }
    if (variant == V_KIP320 || variant == V_KIP320_KIP279) {
        next[a++] = fenced_expand_isr;
        next[a++] = fenced_shrink_isr;
        next[a++] = leader_write;
        next[a++] = fenced_inc_high_watermark;
        next[a++] = variant == V_KIP320 ? fenced_become_follower : truncate_kip279;
        next[a++] = fenced_follower_fetch;
        return a;
    }
    next[a++] = leader_expand_isr;
    next[a++] = leader_shrink_isr;
    next[a++] = leader_write;
    next[a++] = leader_inc_high_watermark;
    next[a++] = variant == V_HW ? truncate_to_high_watermark
        : variant == V_KIP101   ? truncate_kip101
                                : truncate_kip279;
    next[a++] = follower_replicate;
    return a;
}
