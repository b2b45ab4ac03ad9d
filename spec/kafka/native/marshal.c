/* The kafka model's reference state in marshal format 2 (checker.fingerprint.encode): the
 * bytes fingerprints are taken of and the canonical form's tie-break, and their largest size
 * at the model's bounds. */
#include "kafka.h"
#include "rows.h"

/* The largest marshal encoding (kafka_marshal) at these bounds: every log, request, response
 * and set full. */
int kafka_max_marshal(const Model *m) {
    int n = m->n, R = m->R, E = m->E;
    int rep = 5 + (5 + R * 15) + 5 + 1 + (5 + 5 + 5 + 5 + 5 * n) + (5 + 5 * n);
    int ctrl = 5 + 5 + 5 + 2 * (5 + 5 * n) + 5;
    int reqs = 5 + (E + 1) * (5 + 5 + 5 + 5 + 5 * n);
    int ghost = 5 + 10 + 5 + R * R * 15;
    int durable = 5 + 5 + 5 * n + 5;
    int flight = 5 + 5 + n * (5 + 5 + 5 + 5 + (5 + R * 15) + 5 + (5 + 5 + 5)) + 5;
    int alter = 5 + n * (5 + 5 + 2 * (5 + 5 * n));
    int fetcher = 5 + 5 * n;
    return 5 + 5 + n * rep + ctrl + reqs + ghost + durable + flight + alter + fetcher;
}

int kafka_marshal(const Model *m, const St *s, uint8_t *buf) {
    uint8_t *b = w_tuple(buf, 4 + m->durable + m->async_isr + m->fetcher + m->split_fetch);
    b = w_tuple(b, m->n);
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        b = w_tuple(b, 5);
        b = w_tuple(b, x->len);
        for (int i = 0; i < x->len; i++) {
            b = w_tuple(b, 2);
            b = w_int(b, x->id[i]);
            b = w_int(b, x->ep[i]);
        }
        b = w_int(b, x->hw);
        *b++ = x->alive ? 'T' : 'F';
        b = w_tuple(b, 3);
        b = w_opt(b, x->vleader);
        b = w_int(b, x->vepoch);
        b = w_members(b, x->visr);
        b = w_tuple(b, x->has_remote ? m->n : 0);
        if (x->has_remote)
            for (int j = 0; j < m->n; j++) b = w_int(b, x->remote[j]);
    }
    b = w_tuple(b, m->elr ? 5 : 3);
    b = w_int(b, s->cepoch);
    b = w_opt(b, s->cleader);
    b = w_members(b, s->cisr);
    if (m->elr) {
        b = w_members(b, s->celr);
        b = w_opt(b, s->clkl);
    }
    b = w_tuple(b, s->nreq);
    for (int e = 0; e < s->nreq; e++) {
        b = w_tuple(b, 3);
        b = w_int(b, e);
        b = w_opt(b, s->rleader[e]);
        b = w_members(b, s->risr[e]);
    }
    b = w_tuple(b, 3);
    b = w_int(b, s->next_id);
    b = w_int(b, s->crashes);
    b = w_tuple(b, __builtin_popcountll(s->committed));
    for (int bit = 0; bit < m->R * m->R; bit++)
        if ((s->committed >> bit) & 1) {
            b = w_tuple(b, 2);
            b = w_int(b, bit / m->R);
            b = w_int(b, bit % m->R);
        }
    if (m->durable) {
        b = w_tuple(b, 2);
        b = w_tuple(b, m->flush_always ? 0 : m->n);
        if (!m->flush_always)
            for (int r = 0; r < m->n; r++) b = w_int(b, s->flushed[r]);
        b = w_int(b, s->unclean);
    }
    if (m->async_isr) {
        b = w_tuple(b, m->n);
        for (int r = 0; r < m->n; r++) {
            if (!s->al_has[r]) {
                *b++ = 'N';
                continue;
            }
            b = w_tuple(b, 3);
            b = w_int(b, s->al_epoch[r]);
            b = w_members(b, s->al_base[r]);
            b = w_members(b, s->al_isr[r]);
        }
    }
    if (m->fetcher) {
        b = w_tuple(b, m->n);
        for (int r = 0; r < m->n; r++) {
            if (s->fetcher[r] == FE_NONE)
                *b++ = 'N';
            else
                b = w_int(b, s->fetcher[r]);
        }
    }
    if (m->split_fetch) {
        b = w_tuple(b, 2);
        b = w_tuple(b, m->n);
        for (int f = 0; f < m->n; f++) {
            if (s->fl_len[f] == FL_NONE) {
                *b++ = 'N';
                continue;
            }
            int diverging = s->fl_len[f] == FL_DIVERGING;
            b = w_tuple(b, diverging ? 6 : 5);
            b = w_int(b, s->fl_leader[f]);
            b = w_int(b, s->fl_epoch[f]);
            b = w_int(b, s->fl_offset[f]);
            if (s->fl_len[f] == FL_OUT_OF_RANGE || diverging)
                *b++ = 'N';
            else {
                b = w_tuple(b, s->fl_len[f]);
                for (int i = 0; i < s->fl_len[f]; i++) {
                    b = w_tuple(b, 2);
                    b = w_int(b, s->fl_id[f][i]);
                    b = w_int(b, s->fl_ep[f][i]);
                }
            }
            b = w_int(b, s->fl_hw[f]);
            if (diverging) {
                b = w_tuple(b, 2);
                b = w_int(b, s->fl_div_epoch[f]);
                b = w_int(b, s->fl_div_end[f]);
            }
        }
        b = w_int(b, s->lost);
    }
    return (int)(b - buf);
}
