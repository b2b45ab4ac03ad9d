/* The compiled core of the public spec's AsyncIsr module (spec/tla/async_isr.py): its nine
 * variables as a C struct, the row, the marshal encoding, the actions of Next in the module's
 * order and ValidHighWatermark. Every rule restates the Python function of the same name. */
#include <stdlib.h>
#include <string.h>

#include "glue.h"

#define MAXN 6   /* replicas (spec.tla.config.TLA_MAX_REPLICAS is 5) */
#define MAXM 512 /* messages: (max_version + 1) * 2^replicas (isr, version) pairs */
#define LEADER 0

enum {
    A_CTRL_SHRINK,
    A_CTRL_HANDLE,
    A_LEADER_SHRINK,
    A_LEADER_EXPAND,
    A_WRITE,
    A_HANDLE_UPDATE,
    A_REPLICATE
};
enum { P_VALID_HIGH_WATERMARK };

/* Labels (labels.h): the action; a replica as the first argument; or a message's version as
 * the third argument and its ISR mask from the second on, over the first (five bits: past one
 * argument's four) (spec/tla/native/async_codec.py builds the same table). */
#define LABEL_R(action, r) LABEL_OF(action, r, 0, 0)
#define LABEL_M(action, isr, v) ((uint16_t)(LABEL_OF(action, 0, 0, v) | ((isr) << LABEL_ARG_BITS)))

struct Model {
    int n, max_offset, max_version, messages, bytes, width;
    int max_succ, max_marshal; /* model_max_successors, model_max_marshal */
    ScratchPlan plan;          /* model_scratch_size */
    int order[MAXM]; /* message indices in Python's sorted order of (isr tuple, version) */
};

typedef struct {
    uint8_t cisr, isr, pending;
    int8_t cversion, version, pversion;
    int8_t off[MAXN];
    uint8_t req[MAXM / 8], upd[MAXM / 8];
} St;

static int msg(const Model *m, uint8_t isr, int v) { return v * (1 << m->n) + isr; }
static int msg_isr(const Model *m, int k) { return k % (1 << m->n); }
static int msg_version(const Model *m, int k) { return k / (1 << m->n); }
static int get(const uint8_t *set, int k) { return (set[k >> 3] >> (k & 7)) & 1; }
static void put(uint8_t *set, int k) { set[k >> 3] |= (uint8_t)(1u << (k & 7)); }

/* Python's order of sorted member tuples: element by element, a prefix first. */
static int members_cmp(uint8_t a, uint8_t b) {
    int xa[8], xb[8], na = 0, nb = 0;
    for (int r = 0; r < 8; r++) {
        if ((a >> r) & 1) xa[na++] = r;
        if ((b >> r) & 1) xb[nb++] = r;
    }
    for (int i = 0; i < na && i < nb; i++)
        if (xa[i] != xb[i]) return xa[i] < xb[i] ? -1 : 1;
    return na - nb;
}

static const Model *sorting;
static int order_cmp(const void *x, const void *y) {
    int a = *(const int *)x, b = *(const int *)y;
    int c = members_cmp((uint8_t)msg_isr(sorting, a), (uint8_t)msg_isr(sorting, b));
    if (c) return c;
    return msg_version(sorting, a) - msg_version(sorting, b);
}

/* model_new's parameters (model.h; spec/tla/native/async_codec.py gives them by name). */
#define MODEL_PARAMS(X) X(replicas) X(max_offset) X(max_version)
struct ModelParams {
    MODEL_PARAMS(PARAM_FIELD)
};
const char *model_param_names(void) { return MODEL_PARAMS(PARAM_NAME); }

/* The largest marshal encoding (async_marshal) at these bounds: every set full. */
static int max_marshal(const Model *m) {
    int set = 5 + 5 * m->n;
    return 5 + 3 * set + 3 * 5 + 5 + 5 * m->n + 2 * (5 + m->messages * (5 + set + 5));
}

Model *model_new(const ModelParams *p, char *why, size_t room) {
    if (p->replicas < 1 || p->replicas > MAXN - 1)
        return refuse(why, room, "replicas %d outside 1..%d", p->replicas, MAXN - 1);
    if (p->max_offset < 1 || p->max_offset > 100)
        return refuse(why, room, "max_offset %d outside 1..100", p->max_offset);
    if (p->max_version < 0 || p->max_version > 14)
        return refuse(why, room, "max_version %d outside 0..14", p->max_version);
    if ((p->max_version + 1) * (1 << p->replicas) > MAXM)
        return refuse(why, room, "over %d (isr, version) messages", MAXM);
    Model *m = calloc(1, sizeof(Model));
    if (!m) return refuse(why, room, "out of memory");
    m->n = p->replicas;
    m->max_offset = p->max_offset;
    m->max_version = p->max_version;
    m->messages = (m->max_version + 1) * (1 << m->n);
    /* four per replica, two per message, LeaderWrite; emit() checks it */
    m->max_succ = 4 * m->n + 2 * m->messages + 1;
    m->max_marshal = max_marshal(m);
    /* the successors being generated and their labels (rows.h: ScratchPlan; no canonical
     * form, so no encodings) */
    m->plan = scratch_plan(m->max_succ, sizeof(St), 0);
    m->bytes = (m->messages + 7) / 8;
    m->width = 6 + m->n + 2 * m->bytes;
    for (int k = 0; k < m->messages; k++) m->order[k] = k;
    sorting = m;
    qsort(m->order, m->messages, sizeof(int), order_cmp);
    return m;
}

int model_action_of(uint16_t label) { return LABEL_ACTION(label); }
static void async_decode(const Model *m, const uint8_t *row, St *s) {
    memset(s, 0, sizeof(St));
    s->cisr = row[0];
    s->cversion = (int8_t)row[1];
    s->isr = row[2];
    s->version = (int8_t)row[3];
    s->pending = row[4];
    s->pversion = (int8_t)row[5];
    for (int r = 0; r < m->n; r++) s->off[r] = (int8_t)row[6 + r];
    memcpy(s->req, row + 6 + m->n, m->bytes);
    memcpy(s->upd, row + 6 + m->n + m->bytes, m->bytes);
}

static void async_encode(const Model *m, const St *s, uint8_t *row) {
    row[0] = s->cisr;
    row[1] = (uint8_t)s->cversion;
    row[2] = s->isr;
    row[3] = (uint8_t)s->version;
    row[4] = s->pending;
    row[5] = (uint8_t)s->pversion;
    for (int r = 0; r < m->n; r++) row[6 + r] = (uint8_t)s->off[r];
    memcpy(row + 6 + m->n, s->req, m->bytes);
    memcpy(row + 6 + m->n + m->bytes, s->upd, m->bytes);
}

/* high_watermark: the least offset over the ISR and the pending ISR. */
static int high_watermark(const Model *m, const St *s) {
    int hw = 1 << 30;
    for (int r = 0; r < m->n; r++)
        if (((s->isr | s->pending) >> r) & 1 && s->off[r] < hw) hw = s->off[r];
    return hw;
}

static uint8_t *w_messages(const Model *m, uint8_t *b, const uint8_t *set) {
    int count = 0;
    for (int k = 0; k < m->messages; k++) count += get(set, k);
    b = w_tuple(b, count);
    for (int i = 0; i < m->messages; i++) {
        int k = m->order[i];
        if (!get(set, k)) continue;
        b = w_tuple(b, 2);
        b = w_members(b, (uint8_t)msg_isr(m, k));
        b = w_int(b, msg_version(m, k));
    }
    return b;
}

static int async_marshal(const Model *m, const St *s, uint8_t *buf) {
    uint8_t *b = w_tuple(buf, 9);
    b = w_members(b, s->cisr);
    b = w_int(b, s->cversion);
    b = w_members(b, s->isr);
    b = w_int(b, s->version);
    b = w_members(b, s->pending);
    b = w_int(b, s->pversion);
    b = w_tuple(b, m->n);
    for (int r = 0; r < m->n; r++) b = w_int(b, s->off[r]);
    b = w_messages(m, b, s->req);
    b = w_messages(m, b, s->upd);
    return (int)(b - buf);
}

/* No symmetry (the leader is fixed): every state is its own representative. */
static int async_canonical(const Model *m, void *scratch, const St *s, St *out, Renaming *kept) {
    (void)m;
    (void)scratch;
    *out = *s;
    if (kept) {
        kept->perm[0] = 0;
        kept->tied = 0;
    }
    return 0;
}

/* No symmetry: the one renaming is the identity, of one id. */
static void async_permute(const Model *m, const St *s, const int *perm, St *out) {
    (void)m;
    (void)perm;
    *out = *s;
}

static int async_symmetric_ids(const Model *m) {
    (void)m;
    return 1;
}

/* valid_high_watermark */
static uint32_t async_invariants(const Model *m, const St *s, uint32_t mask) {
    int hw = high_watermark(m, s);
    for (int r = 0; r < m->n; r++)
        if ((s->cisr >> r) & 1 && s->off[r] < hw) return mask & (1u << P_VALID_HIGH_WATERMARK);
    return 0;
}

/* No transition property and no guard: never asked (the masks are empty). */
static uint32_t async_transition(const Model *m, const St *before, uint16_t label, const St *after,
                                 uint32_t mask) {
    (void)m;
    (void)before;
    (void)label;
    (void)after;
    (void)mask;
    return 0;
}

/* Append a copy of `s` (out and labels have room for m->max_succ and one spare past it: the
 * scratch); past the room the copy goes to the spare and only the count grows, and
 * model_expand reports the overflow. */
static St *emit(const Model *m, St *out, uint16_t *labels, int *k, const St *s, uint16_t label) {
    int at = *k < m->max_succ ? *k : m->max_succ;
    (*k)++;
    labels[at] = label;
    out[at] = *s;
    return &out[at];
}

/* _write_isr: the controller's next version, with its update, within max_version. */
static void write_isr(const Model *m, const St *s, St *out, uint16_t *labels, int *k, uint8_t isr,
                      uint16_t label) {
    int version = s->cversion + 1;
    if (version > m->max_version) return;
    St *t = emit(m, out, labels, k, s, label);
    t->cisr = isr;
    t->cversion = (int8_t)version;
    put(t->upd, msg(m, isr, version));
}

/* _request: the leader's request for `isr`, which joins its pending ISR. */
static void request(const Model *m, const St *s, St *out, uint16_t *labels, int *k, uint8_t isr,
                    uint16_t label) {
    St *t = emit(m, out, labels, k, s, label);
    put(t->req, msg(m, isr, s->version));
    t->pending |= isr;
    t->pversion = s->version;
}

static int async_successors(const Model *m, const St *s, St *out, uint16_t *labels) {
    int n = m->n, k = 0;
    for (int r = 0; r < n; r++) /* ControllerShrinkIsr(replica) */
        if ((s->cisr >> r) & 1 && r != LEADER)
            write_isr(m, s, out, labels, &k, (uint8_t)(s->cisr & ~(1u << r)),
                      LABEL_R(A_CTRL_SHRINK, r));
    for (int i = 0; i < m->messages; i++) { /* ControllerHandleRequest(isr, version) */
        int q = m->order[i];
        if (!get(s->req, q) || msg_version(m, q) != s->cversion) continue;
        uint8_t isr = (uint8_t)msg_isr(m, q);
        write_isr(m, s, out, labels, &k, isr, LABEL_M(A_CTRL_HANDLE, isr, msg_version(m, q)));
    }
    for (int r = 0; r < n; r++) /* LeaderRequestShrinkIsr(replica) */
        if ((s->isr >> r) & 1 && r != LEADER)
            request(m, s, out, labels, &k, (uint8_t)(s->isr & ~(1u << r)),
                    LABEL_R(A_LEADER_SHRINK, r));
    int hw = high_watermark(m, s);
    for (int r = 0; r < n; r++) /* LeaderRequestExpandIsr(replica) */
        if (!((s->isr >> r) & 1) && s->off[r] >= hw)
            request(m, s, out, labels, &k, (uint8_t)(s->isr | (1u << r)),
                    LABEL_R(A_LEADER_EXPAND, r));
    if (s->off[LEADER] + 1 <= m->max_offset) { /* LeaderWrite */
        St *t = emit(m, out, labels, &k, s, LABEL_R(A_WRITE, 0));
        t->off[LEADER]++;
    }
    for (int i = 0; i < m->messages; i++) { /* LeaderHandleUpdate(isr, version) */
        int q = m->order[i];
        if (!get(s->upd, q) || msg_version(m, q) <= s->version) continue;
        St *t =
            emit(m, out, labels, &k, s, LABEL_M(A_HANDLE_UPDATE, msg_isr(m, q), msg_version(m, q)));
        t->isr = (uint8_t)msg_isr(m, q);
        t->version = (int8_t)msg_version(m, q);
        t->pending = 0;
        t->pversion = -1;
    }
    for (int r = 0; r < n; r++) /* FollowerReplicate(replica) */
        if (r != LEADER && s->off[r] < s->off[LEADER]) {
            St *t = emit(m, out, labels, &k, s, LABEL_R(A_REPLICATE, r));
            t->off[r]++;
        }
    return k;
}

/* -- model.h: the functions every model writes alike (glue.h) -------------------------- */
MODEL_GLUE(async)

/* The AsyncIsr module has no liveness property, named condition or cut (model.h). */
void model_liveness(const Model *m, const uint8_t *row, int prop, uint64_t *opened,
                    uint64_t *goal) {
    (void)m;
    (void)row;
    (void)prop;
    *opened = 0;
    *goal = 0;
}

uint32_t model_conditions(const Model *m, const uint8_t *row) {
    (void)m;
    (void)row;
    return 0;
}
