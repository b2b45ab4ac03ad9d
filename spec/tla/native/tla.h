/* The compiled core of the TLA+ port (spec/tla/): KafkaReplication's six variables as a C
 * struct, its row, and what the actions share. Every rule restates one of the Python port's,
 * which restates the public spec's operator of the same name. */
#ifndef HWCHECK_TLA_H
#define HWCHECK_TLA_H

#include <stdint.h>
#include <string.h>

#include "model.h"
#include "rows.h"

#define MAXN 6  /* replicas (spec.tla.config.TLA_MAX_REPLICAS is 5) */
#define MAXL 8  /* LogSize */
#define MAXE 16 /* leader epochs 0..MaxLeaderEpoch */
#define MAXA 10 /* actions in one variant's Next */

/* The variants (spec.tla.config.TLA_VARIANTS order). */
enum { V_HW, V_KIP101, V_KIP279, V_FIRST_TRY, V_KIP320, V_KIP320_KIP279 };

/* Property bits (spec/tla/native/__init__.py: PROPERTY_BITS). */
enum {
    P_HW_LE_LEO,
    P_LEADER_IN_ISR,
    P_LEADER_IN_ISR_OR_NONE,
    P_WEAK_ISR,
    P_STRONG_ISR,
    P_TYPE_OK,
    P_HW_ADVANCES,
    P_TRUNCATION_REMOVES,
    P_SECOND_ELECTION
};

/* Label codes (labels.h): the action's position in the variant's Next, then up to three
 * arguments. */
#define LABEL3(action, a, b, c) LABEL_OF(action, a, b, c)
_Static_assert(MAXA <= LABEL_ACTIONS, "an action code past the label's bits");

/* One replica: its log (prefix of the spec's slots) and its replica state
 * (hw, leader epoch (-1: Nil), leader (-1: NONE), ISR as a bit mask). */
typedef struct {
    int8_t len, hw, epoch, leader;
    uint8_t isr;
    int8_t id[MAXL], ep[MAXL];
} Rep;

/* logs and replica states, the IdSequence counters, the requests (request e has epoch e)
 * and the quorum state. */
typedef struct {
    Rep r[MAXN];
    int8_t next_id, next_epoch, nreq;
    int8_t rleader[MAXE];
    uint8_t risr[MAXE];
    int8_t qepoch, qleader;
    uint8_t qisr;
} St;

typedef void (*Action)(const struct Model *m, const St *s, int index, St *out, uint16_t *labels,
                       int *k);

struct Model {
    int n, L, R, E, variant;
    int actions;
    Action next[MAXA];
    int election; /* the position of ControllerElectLeader (SecondElection's event) */
    int width;
    int max_succ, max_marshal; /* model_max_successors, model_max_marshal */
    ScratchPlan plan;          /* model_scratch_size */
};

void tla_decode(const struct Model *m, const uint8_t *row, St *s);
void tla_encode(const struct Model *m, const St *s, uint8_t *row);
int tla_marshal(const struct Model *m, const St *s, uint8_t *buf);
int tla_next(const struct Model *m, int variant, Action *next);
uint32_t tla_invariants(const struct Model *m, const St *s, uint32_t mask);
uint32_t tla_transition(const struct Model *m, const St *a, uint16_t label, const St *b,
                        uint32_t mask);

static inline int popcount8(uint8_t x) { return __builtin_popcount(x); }
static inline int has(uint8_t mask, int r) { return (mask >> r) & 1; }

#endif
