/* The kafka model's actions in the compiled core: spec/kafka/actions.py, membership.py,
 * elr.py and durability.py, in the same order and with the same guards and effects (the
 * fetch actions of split-fetch are in flight.c, those of truncation on fetch in
 * diverging.c, the ISR requests of async-isr in alter.c; the rules they apply inside in
 * membership.h). */
#include "kafka.h"
#include "membership.h"

int kafka_successors(const Model *m, const St *s, St *out, uint16_t *labels) {
    int n = m->n, k = 0;
#define EMIT(label) emit(m, out, labels, &k, s, (label))
    /* Produce(leader) */
    if (s->next_id < m->R)
        for (int r = 0; r < n; r++) {
            const Rep *x = &s->r[r];
            if (!x->alive || x->vleader != r || popcount8(x->visr) < m->produce_min_isr) continue;
            St *t = EMIT(LABEL(A_PRODUCE, r, 0));
            Rep *y = &t->r[r];
            y->id[y->len] = s->next_id;
            y->ep[y->len] = x->vepoch;
            y->len++;
            y->hw = (int8_t)leader_hw(y->len, x->hw, r, counted_isr(m, s, r), x->remote,
                                      m->hw_min_isr, popcount8(x->visr));
            commit(m, t, y, x->hw, y->hw);
            t->next_id++;
        }
    /* model.model_actions: at Fetch's place FetchRequest, FetchResponse and LoseResponse
     * (split-fetch), or with truncation on fetch fetching.fetch; with truncation on fetch
     * and hw-before-truncation, then TruncateOnFetchResponse */
    if (m->split_fetch)
        k = kafka_flight_successors(m, s, out, labels, k);
    else if (m->rule == RULE_DIVERGING)
        k = kafka_diverging_fetch(m, s, out, labels, k);
    if (m->rule == RULE_DIVERGING && m->hw_before_truncation)
        k = kafka_truncate_successors(m, s, out, labels, k);
    /* Fetch(follower, leader) */
    for (int f = 0; f < n && !m->split_fetch && m->rule != RULE_DIVERGING; f++) {
        int l = fetch_leader(m, s, f);
        if (l < 0) continue;
        const Rep *x = &s->r[f], *lx = &s->r[l];
        St *t = EMIT(LABEL(A_FETCH, f, l));
        Rep *y = &t->r[f];
        int offset = x->len, lleo = lx->len;
        if (offset > lleo) { /* OFFSET_OUT_OF_RANGE */
            y->len = (int8_t)lleo;
            if (y->hw > lleo) y->hw = (int8_t)lleo;
            y->has_remote = 0;
            truncated(m, t, f, lleo);
            continue;
        }
        int response_hw = leader_answers(m, s, t, l, f, offset);
        for (int o = offset; o < lleo; o++) {
            y->id[o] = lx->id[o];
            y->ep[o] = lx->ep[o];
        }
        y->len = (int8_t)lleo;
        y->hw = (int8_t)(response_hw < lleo ? response_hw : lleo);
        y->has_remote = 0;
    }
    /* ShrinkIsr(leader, follower) */
    int c = m->async_isr ? -1 : s->cleader;
    if (m->async_isr) k = kafka_alter_successors(m, s, out, labels, k);
    if (c >= 0 && true_leader(s, c)) {
        const Rep *x = &s->r[c];
        for (int f = 0; f < n; f++) {
            if (!lagging(x, c, f)) continue;
            St *t = EMIT(LABEL(A_SHRINK, c, f));
            Rep *y = &t->r[c];
            y->visr = (uint8_t)(x->visr & ~(1u << f));
            y->hw = (int8_t)leader_hw(x->len, x->hw, c, y->visr, x->remote, m->hw_min_isr,
                                      popcount8(y->visr));
            commit(m, t, x, x->hw, y->hw);
            record_isr(m, t, c, y->visr);
        }
    }
    /* ExpandIsr(leader, follower) */
    if (c >= 0 && true_leader(s, c)) {
        const Rep *x = &s->r[c];
        int least = in_sync_from(m, x);
        for (int f = 0; f < n; f++) {
            if (!caught_up(m, s, x, f, least)) continue;
            St *t = EMIT(LABEL(A_EXPAND, c, f));
            Rep *y = &t->r[c];
            y->visr = (uint8_t)(x->visr | (1u << f));
            y->hw = (int8_t)leader_hw(x->len, x->hw, c, y->visr, x->remote, m->hw_min_isr,
                                      popcount8(y->visr));
            commit(m, t, x, x->hw, y->hw);
            record_isr(m, t, c, y->visr);
        }
    }
    /* ControllerShrinkIsr(replica): a crashed (fence_live: any) follower, in a new epoch or
     * (shrink_in_epoch) in the same one, or a crashed (fence_live: any) leader that no other
     * live replica can replace (membership.replaceable) */
    for (int r = 0; r < n; r++) {
        if (!has(s->cisr, r) || (s->r[r].alive && !m->fence_live)) continue;
        uint8_t fewer = (uint8_t)(s->cisr & ~(1u << r));
        if (r != s->cleader) {
            if (popcount8(s->cisr) < 2) continue;
            if (m->shrink_in_epoch && s->cepoch >= 0) {
                St *t = EMIT(LABEL(A_CTRL_SHRINK, r, 0));
                shrink_in_epoch(m, s, t, fewer);
                continue;
            }
            if (s->cepoch >= m->E) continue;
            St *t = EMIT(LABEL(A_CTRL_SHRINK, r, 0));
            decide(m, t, s->cleader, fewer);
        } else {
            if (s->cepoch >= m->E || replaceable(m, s, r)) continue;
            St *t = EMIT(LABEL(A_CTRL_SHRINK, r, 0));
            decide(m, t, -1, fewer || m->elr ? fewer : s->cisr);
        }
    }
    /* Elect(leader): a live ISR member, else (elr) a live ELR member, else (elr, ISR and
     * ELR empty) the last known leader, up */
    if (s->cepoch < m->E) {
        uint8_t live = 0;
        int chosen = 0;
        for (int r = 0; r < n; r++)
            if (has(s->cisr, r) && s->r[r].alive) live |= (uint8_t)(1u << r);
        for (int r = 0; r < n; r++) {
            int from_isr = has(live, r);
            int from_elr = !live && m->elr && has(s->celr, r) && s->r[r].alive;
            if (!from_isr && !from_elr) continue;
            chosen = 1;
            if (r == s->cleader) continue;
            St *t = EMIT(LABEL(A_ELECT, r, 0));
            decide(m, t, r, from_isr ? live : (uint8_t)(1u << r));
        }
        int lkl = chosen ? -1 : last_known_choice(m, s);
        if (lkl >= 0 && lkl != s->cleader) {
            St *t = EMIT(LABEL(A_ELECT, lkl, 0));
            decide(m, t, lkl, (uint8_t)(1u << lkl));
        }
    }
    /* UncleanElect(leader): no ISR member up (replaced by UncleanRecovery with elr) */
    if (m->unclean_election && s->cepoch < m->E && !m->elr) {
        int any = 0;
        for (int r = 0; r < n; r++)
            if (has(s->cisr, r) && s->r[r].alive) any = 1;
        if (!any)
            for (int r = 0; r < n; r++) {
                if (!s->r[r].alive) continue;
                St *t = EMIT(LABEL(A_UNCLEAN_ELECT, r, 0));
                decide(m, t, r, (uint8_t)(1u << r));
            }
    }
    /* Crash(replica) */
    if (s->crashes < m->max_crashes)
        for (int r = 0; r < n; r++) {
            if (!s->r[r].alive) continue;
            St *t = EMIT(LABEL(A_CRASH, r, 0));
            t->r[r].alive = 0;
            no_view(&t->r[r], -1);
            t->crashes++;
            without_flights(m, t, r);
            put_fetcher(m, t, r, FE_NONE);
        }
    /* Restart(replica): not a crashed leader the controller still names; with elr out of
     * ISR and ELR (elr.fence_unclean) */
    for (int r = 0; r < n; r++) {
        if (s->r[r].alive || r == s->cleader) continue;
        St *t = EMIT(LABEL(A_RESTART, r, 0));
        t->r[r].alive = 1;
        t->al_has[r] = 0; /* a new broker epoch: its request in flight is rejected */
        no_view(&t->r[r], s->cepoch - 1 > -1 ? s->cepoch - 1 : -1);
        fence_unclean(m, s, t, r); /* elr: registered without a clean shutdown's epoch */
    }
    /* BecomeLeader(replica, epoch) */
    for (int r = 0; r < n; r++) {
        const Rep *x = &s->r[r];
        if (!x->alive) continue;
        for (int e = x->vepoch + 1; e < s->nreq; e++) {
            if (s->rleader[e] != r) continue;
            St *t = EMIT(LABEL(A_BECOME_LEADER, r, e));
            Rep *y = &t->r[r];
            y->has_remote = 1;
            for (int j = 0; j < n; j++) y->remote[j] = -1;
            y->hw = (int8_t)leader_hw(x->len, x->hw, r, s->risr[e], y->remote, m->hw_min_isr,
                                      popcount8(s->risr[e]));
            commit(m, t, x, x->hw, y->hw);
            y->vleader = (int8_t)r;
            y->vepoch = (int8_t)e;
            y->visr = s->risr[e];
            put_fetcher(m, t, r, FE_NONE);
        }
    }
    /* BecomeFollower(replica, epoch) */
    for (int r = 0; r < n; r++) {
        const Rep *x = &s->r[r];
        if (!x->alive) continue;
        for (int e = x->vepoch + 1; e < s->nreq; e++) {
            int l = s->rleader[e];
            if (l < 0 || l == r) continue;
            int offset = truncation_point(m, s, r, l, e);
            if (offset < 0) continue;
            St *t = EMIT(LABEL(A_BECOME_FOLLOWER, r, e));
            Rep *y = &t->r[r];
            y->len = (int8_t)offset;
            if (y->hw > offset) y->hw = (int8_t)offset;
            y->vleader = (int8_t)l;
            y->vepoch = (int8_t)e;
            y->visr = s->risr[e];
            y->has_remote = 0;
            truncated(m, t, r, offset);
            put_fetcher(m, t, r,
                        m->empty_clears_epoch ? FE_FRESH : FE_NONE); /* on_become_follower */
        }
    }
    /* UncleanRecovery(leader): elr only, the live replica(s) with the largest (epoch, LEO) */
    if (m->elr && m->unclean_election && s->cepoch < m->E) {
        int any = 0, best_e = -2, best_len = -1;
        for (int r = 0; r < n; r++)
            if ((has(s->cisr, r) || has(s->celr, r)) && s->r[r].alive) any = 1;
        if (last_known_choice(m, s) >= 0) any = 1; /* Elect picks it first */
        for (int r = 0; r < n && !any; r++) {
            const Rep *x = &s->r[r];
            if (!x->alive) continue;
            int e = last_epoch(x);
            if (e > best_e || (e == best_e && x->len > best_len)) {
                best_e = e;
                best_len = x->len;
            }
        }
        for (int r = 0; r < n && !any; r++) {
            const Rep *x = &s->r[r];
            if (!x->alive || last_epoch(x) != best_e || x->len != best_len) continue;
            St *t = EMIT(LABEL(A_UNCLEAN_ELECT, r, 0)); /* UncleanRecovery's code */
            decide(m, t, r, (uint8_t)(1u << r));
        }
    }
    if (m->durable) {
        /* Flush(replica) */
        if (!m->flush_always)
            for (int r = 0; r < n; r++) {
                if (!s->r[r].alive || s->flushed[r] >= s->r[r].len) continue;
                St *t = EMIT(LABEL(A_FLUSH, r, 0));
                t->flushed[r] = s->r[r].len;
            }
        /* UncleanShutdown(replica) */
        if (s->unclean < m->max_unclean)
            for (int r = 0; r < n; r++) {
                if (!s->r[r].alive) continue;
                St *t = EMIT(LABEL(A_UNCLEAN_SHUTDOWN, r, 0));
                Rep *y = &t->r[r];
                if (!m->flush_always) y->len = s->flushed[r];
                if (y->hw > y->len) y->hw = y->len;
                y->alive = 0;
                no_view(y, -1);
                for (int o = 0; o < n && m->broker_epoch; o++) /* durability._forget_remote */
                    if (t->r[o].has_remote) t->r[o].remote[r] = -1;
                t->unclean++;
                without_flights(m, t, r);
                put_fetcher(m, t, r, FE_NONE);
            }
    }
#undef EMIT
    return k;
}
