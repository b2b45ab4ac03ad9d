/* The kafka model's canonical form in the compiled core: the representative of a state's
 * orbit under replica renamings (spec.kafka.symmetry + checker.symmetry, through rows.h's
 * canonical_form). */
#include "kafka.h"
#include "rows.h"

/* spec.kafka.symmetry.replica_keys, compared as Python compares the key tuples. */
static int key_cmp(const Model *m, const St *s, int a, int b) {
    const Rep *x = &s->r[a], *y = &s->r[b];
    int common = x->len < y->len ? x->len : y->len;
    for (int i = 0; i < common; i++) {
        if (x->id[i] != y->id[i]) return x->id[i] < y->id[i] ? -1 : 1;
        if (x->ep[i] != y->ep[i]) return x->ep[i] < y->ep[i] ? -1 : 1;
    }
#define CMP(u, v)                                                                                  \
    if ((u) != (v)) return (u) < (v) ? -1 : 1
    CMP(x->len, y->len);
    CMP(x->hw, y->hw);
    CMP(x->alive, y->alive);
    CMP(x->vepoch, y->vepoch);
    int ra = x->vleader < 0 ? 0 : x->vleader == a ? 1 : 2;
    int rb = y->vleader < 0 ? 0 : y->vleader == b ? 1 : 2;
    CMP(ra, rb);
    CMP(s->cleader == a, s->cleader == b);
    CMP(has(s->cisr, a), has(s->cisr, b));
    if (m->elr) CMP(has(s->celr, a), has(s->celr, b));
    if (m->elr) CMP(s->clkl == a, s->clkl == b);
    if (m->durable && !m->flush_always) CMP(s->flushed[a], s->flushed[b]);
    if (m->async_isr) CMP(s->al_has[a] ? s->al_epoch[a] : -1, s->al_has[b] ? s->al_epoch[b] : -1);
    if (m->split_fetch) {
        int fa = s->fl_len[a] == FL_NONE ? -1 : s->fl_offset[a];
        int fb = s->fl_len[b] == FL_NONE ? -1 : s->fl_offset[b];
        CMP(fa, fb);
    }
#undef CMP
    return 0;
}

static uint8_t rename_mask(uint8_t mask, const int *perm, int n) {
    uint8_t out = 0;
    for (int r = 0; r < n; r++)
        if (has(mask, r)) out |= (uint8_t)(1u << perm[r]);
    return out;
}

/* spec.kafka.symmetry.permute: replica r renamed perm[r] everywhere. */
void kafka_permute(const Model *m, const St *s, const int *perm, St *out) {
    int n = m->n, inverse[MAXN];
    for (int old = 0; old < n; old++) inverse[perm[old]] = old;
    *out = *s;
    for (int k = 0; k < n; k++) {
        const Rep *x = &s->r[inverse[k]];
        Rep *y = &out->r[k];
        *y = *x;
        y->vleader = x->vleader < 0 ? -1 : perm[x->vleader];
        y->visr = rename_mask(x->visr, perm, n);
        if (x->has_remote)
            for (int j = 0; j < n; j++) y->remote[j] = x->remote[inverse[j]];
    }
    out->cleader = s->cleader < 0 ? -1 : perm[s->cleader];
    out->cisr = rename_mask(s->cisr, perm, n);
    out->celr = rename_mask(s->celr, perm, n);
    out->clkl = s->clkl < 0 ? -1 : perm[s->clkl];
    for (int e = 0; e < s->nreq; e++) {
        out->rleader[e] = s->rleader[e] < 0 ? -1 : perm[s->rleader[e]];
        out->risr[e] = rename_mask(s->risr[e], perm, n);
    }
    for (int k = 0; k < n; k++) out->flushed[k] = s->flushed[inverse[k]];
    if (m->async_isr)
        for (int k = 0; k < n; k++) {
            int old = inverse[k];
            out->al_has[k] = s->al_has[old];
            out->al_epoch[k] = s->al_has[old] ? s->al_epoch[old] : 0;
            out->al_base[k] = s->al_has[old] ? rename_mask(s->al_base[old], perm, n) : 0;
            out->al_isr[k] = s->al_has[old] ? rename_mask(s->al_isr[old], perm, n) : 0;
        }
    for (int k = 0; k < n; k++) out->fetcher[k] = s->fetcher[inverse[k]];
    if (m->split_fetch)
        for (int k = 0; k < n; k++) {
            int old = inverse[k];
            out->fl_len[k] = s->fl_len[old];
            out->fl_epoch[k] = s->fl_epoch[old];
            out->fl_offset[k] = s->fl_offset[old];
            out->fl_hw[k] = s->fl_hw[old];
            out->fl_leader[k] = s->fl_len[old] == FL_NONE ? 0 : (int8_t)perm[s->fl_leader[old]];
            memcpy(out->fl_id[k], s->fl_id[old], MAXR);
            memcpy(out->fl_ep[k], s->fl_ep[old], MAXR);
            out->fl_div_epoch[k] = s->fl_div_epoch[old];
            out->fl_div_end[k] = s->fl_div_end[old];
        }
}

static int key_cmp_of(const void *m, const void *s, int a, int b) {
    (void)m;
    return key_cmp(m, s, a, b);
}

static void permute_of(const void *m, const void *s, const int *perm, void *out) {
    kafka_permute(m, s, perm, out);
}

static int marshal_of(const void *m, const void *s, uint8_t *buf) {
    return kafka_marshal(m, s, buf);
}

/* Every replica is interchangeable (spec.kafka.model: symmetric_ids). */
int kafka_symmetric_ids(const Model *m) { return m->n; }

/* checker.symmetry.ReplicaSymmetry.canonical for this model (rows.h: canonical_form), with
 * the encodings in the thread's scratch. 0, or -1 (an encoding past max_marshal). */
int kafka_canonical(const Model *m, void *scratch, const St *s, St *out, Renaming *kept) {
    St cand;
    return canonical_form(m, s, m->n, sizeof(St), key_cmp_of, permute_of, marshal_of, out, &cand,
                          part(scratch, m->plan.best), part(scratch, m->plan.bytes), m->max_marshal,
                          kept);
}
