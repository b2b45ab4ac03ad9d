/* The TLA+ port's state in the compiled core: bounds, the row, the reference state's marshal
 * encoding and the canonical form (spec.tla.symmetry + checker.symmetry). */
#include <stdlib.h>

#include "glue.h"
#include "tla.h"
#include "rows.h"

_Static_assert(MAXN <= ROWS_MAX_REPLICAS, "more replicas than a row's masks hold");

/* model_new's parameters (model.h; spec/tla/native/__init__.py gives them by name); variant
 * is a TLA_VARIANTS index. */
#define MODEL_PARAMS(X) X(replicas) X(log_size) X(max_records) X(max_epoch) X(variant)
struct ModelParams {
    MODEL_PARAMS(PARAM_FIELD)
};
const char *model_param_names(void) { return MODEL_PARAMS(PARAM_NAME); }

/* At most: elections, controller shrinks, writes, HW increments, fetches and truncations n
 * each; ISR changes n * n each; BecomeLeader one per request; becoming follower one per
 * (replica, request), as a request names one leader. */
#define MAX_SUCC(n, e) (2 * (n) * (n) + 6 * (n) + ((n) + 1) * ((e) + 1) + 8)

static int max_marshal(const Model *m);

Model *model_new(const ModelParams *p, char *why, size_t room) {
    if (p->replicas < 1 || p->replicas > MAXN - 1)
        return refuse(why, room, "replicas %d outside 1..%d", p->replicas, MAXN - 1);
    if (p->log_size < 0 || p->log_size > MAXL)
        return refuse(why, room, "log_size %d outside 0..%d", p->log_size, MAXL);
    if (p->max_records < 0 || p->max_records > 100)
        return refuse(why, room, "max_records %d outside 0..100", p->max_records);
    if (p->max_epoch < 0 || p->max_epoch > MAXE - 2)
        return refuse(why, room, "max_epoch %d outside 0..%d", p->max_epoch, MAXE - 2);
    if (p->variant < 0 || p->variant > V_KIP320_KIP279)
        return refuse(why, room, "no variant %d", p->variant);
    Model *m = calloc(1, sizeof(Model));
    if (!m) return refuse(why, room, "out of memory");
    m->n = p->replicas;
    m->L = p->log_size;
    m->R = p->max_records;
    m->E = p->max_epoch;
    m->variant = p->variant;
    m->actions = tla_next(m, m->variant, m->next);
    m->election = 0;
    m->width = m->n * (5 + 2 * m->L) + 3 + 2 * (m->E + 1) + 3;
    m->max_succ = MAX_SUCC(m->n, m->E);
    m->max_marshal = max_marshal(m);
    /* model_scratch_size: the successors being generated, their labels and the canonical
     * form's two encodings (rows.h: ScratchPlan) */
    m->plan = scratch_plan(m->max_succ, sizeof(St), m->max_marshal);
    return m;
}

int model_action_of(uint16_t label) { return LABEL_ACTION(label); }

/* The largest marshal encoding (tla_marshal) at these bounds: every log and request full. */
static int max_marshal(const Model *m) {
    int n = m->n;
    int rep = 5 + (5 + m->L * 15) + 5 + 5 + 5 + 5 + 5 + 5 * n;
    int decision = 5 + 5 + 5 + 5 + 5 * n;
    return 5 + 5 + n * rep + 10 + 5 + (m->E + 1) * decision + decision;
}

void tla_decode(const Model *m, const uint8_t *row, St *s) {
    const int8_t *p = (const int8_t *)row;
    memset(s, 0, sizeof(St));
    for (int r = 0; r < m->n; r++) {
        Rep *x = &s->r[r];
        x->len = *p++;
        x->hw = *p++;
        x->epoch = *p++;
        x->leader = *p++;
        x->isr = (uint8_t)*p++;
        for (int i = 0; i < m->L; i++) {
            x->id[i] = *p++;
            x->ep[i] = *p++;
        }
    }
    s->next_id = *p++;
    s->next_epoch = *p++;
    s->nreq = *p++;
    for (int e = 0; e <= m->E; e++) {
        s->rleader[e] = *p++;
        s->risr[e] = (uint8_t)*p++;
    }
    s->qepoch = *p++;
    s->qleader = *p++;
    s->qisr = (uint8_t)*p++;
}

void tla_encode(const Model *m, const St *s, uint8_t *row) {
    int8_t *p = (int8_t *)row;
    memset(row, 0, m->width);
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        *p++ = x->len;
        *p++ = x->hw;
        *p++ = x->epoch;
        *p++ = x->leader;
        *p++ = (int8_t)x->isr;
        for (int i = 0; i < m->L; i++, p += 2)
            if (i < x->len) {
                p[0] = x->id[i];
                p[1] = x->ep[i];
            }
    }
    *p++ = s->next_id;
    *p++ = s->next_epoch;
    *p++ = s->nreq;
    for (int e = 0; e <= m->E; e++, p += 2)
        if (e < s->nreq) {
            p[0] = s->rleader[e];
            p[1] = (int8_t)s->risr[e];
        }
    *p++ = s->qepoch;
    *p++ = s->qleader;
    *p++ = (int8_t)s->qisr;
}

/* -- marshal format 2 (checker.fingerprint.encode) ------------------------------------ */
static inline uint8_t *w_decision(uint8_t *b, int epoch, int leader, uint8_t isr) {
    b = w_tuple(b, 3);
    b = w_int(b, epoch);
    b = w_opt(b, leader);
    return w_members(b, isr);
}

int tla_marshal(const Model *m, const St *s, uint8_t *buf) {
    uint8_t *b = w_tuple(buf, 6);
    b = w_tuple(b, m->n);
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        b = w_tuple(b, x->len);
        for (int i = 0; i < x->len; i++) {
            b = w_tuple(b, 2);
            b = w_int(b, x->id[i]);
            b = w_int(b, x->ep[i]);
        }
    }
    b = w_tuple(b, m->n);
    for (int r = 0; r < m->n; r++) {
        const Rep *x = &s->r[r];
        b = w_tuple(b, 4);
        b = w_int(b, x->hw);
        b = w_int(b, x->epoch);
        b = w_opt(b, x->leader);
        b = w_members(b, x->isr);
    }
    b = w_int(b, s->next_id);
    b = w_int(b, s->next_epoch);
    b = w_tuple(b, s->nreq);
    for (int e = 0; e < s->nreq; e++) b = w_decision(b, e, s->rleader[e], s->risr[e]);
    b = w_decision(b, s->qepoch, s->qleader, s->qisr);
    return (int)(b - buf);
}

/* -- canonical form ---------------------------------------------------------------------- */

/* spec.tla.symmetry.replica_keys, compared as Python compares the key tuples. */
static int key_cmp(const St *s, int a, int b) {
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
    CMP(x->epoch, y->epoch);
    int ra = x->leader < 0 ? 0 : x->leader == a ? 1 : 2;
    int rb = y->leader < 0 ? 0 : y->leader == b ? 1 : 2;
    CMP(ra, rb);
    CMP(s->qleader == a, s->qleader == b);
    CMP(has(s->qisr, a), has(s->qisr, b));
    CMP(has(x->isr, a), has(y->isr, b));
    CMP(popcount8(x->isr), popcount8(y->isr));
#undef CMP
    return 0;
}

static uint8_t rename_mask(uint8_t mask, const int *perm, int n) {
    uint8_t out = 0;
    for (int r = 0; r < n; r++)
        if (has(mask, r)) out |= (uint8_t)(1u << perm[r]);
    return out;
}

/* spec.tla.symmetry.permute: replica r renamed perm[r] everywhere. */
static void tla_permute(const Model *m, const St *s, const int *perm, St *out) {
    int n = m->n, inverse[MAXN];
    for (int old = 0; old < n; old++) inverse[perm[old]] = old;
    *out = *s;
    for (int k = 0; k < n; k++) {
        const Rep *x = &s->r[inverse[k]];
        Rep *y = &out->r[k];
        *y = *x;
        y->leader = x->leader < 0 ? -1 : perm[x->leader];
        y->isr = rename_mask(x->isr, perm, n);
    }
    for (int e = 0; e < s->nreq; e++) {
        out->rleader[e] = s->rleader[e] < 0 ? -1 : perm[s->rleader[e]];
        out->risr[e] = rename_mask(s->risr[e], perm, n);
    }
    out->qleader = s->qleader < 0 ? -1 : perm[s->qleader];
    out->qisr = rename_mask(s->qisr, perm, n);
}

static int key_cmp_of(const void *m, const void *s, int a, int b) {
    (void)m;
    return key_cmp(s, a, b);
}

static void permute_of(const void *m, const void *s, const int *perm, void *out) {
    tla_permute(m, s, perm, out);
}

/* Every replica is interchangeable (spec.tla.model: symmetric_ids). */
static int tla_symmetric_ids(const Model *m) { return m->n; }

static int marshal_of(const void *m, const void *s, uint8_t *buf) { return tla_marshal(m, s, buf); }

/* checker.symmetry.ReplicaSymmetry.canonical for this model (rows.h: canonical_form), with
 * the encodings in the thread's scratch. 0, or -1 (an encoding past max_marshal). */
static int tla_canonical(const Model *m, void *scratch, const St *s, St *out, Renaming *kept) {
    St cand;
    return canonical_form(m, s, m->n, sizeof(St), key_cmp_of, permute_of, marshal_of, out, &cand,
                          part(scratch, m->plan.best), part(scratch, m->plan.bytes), m->max_marshal,
                          kept);
}

/* Every successor of s: each action of the variant's next-state relation in turn. */
static int tla_successors(const Model *m, const St *s, St *out, uint16_t *labels) {
    int count = 0;
    for (int a = 0; a < m->actions; a++) m->next[a](m, s, a, out, labels, &count);
    return count;
}

/* -- model.h: the functions every model writes alike (glue.h) -------------------------- */
MODEL_GLUE(tla)
