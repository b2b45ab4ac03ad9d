/* The compiled core of the kafka model (spec/kafka/): the state as a C struct, its row
 * encoding, and the helpers the actions share. Every rule here restates one in the Python
 * reference model; each function names the Python function it mirrors. */
#ifndef HWCHECK_KAFKA_H
#define HWCHECK_KAFKA_H

#include <stdint.h>
#include <string.h>

#include "model.h"

#define MAXN 8  /* replicas (spec.kafka.config.MAX_REPLICAS is 7) */
#define MAXR 8  /* records: a log holds at most max_records records */
#define MAXE 16 /* leader epochs 0..max_epoch */

/* Actions, in spec.kafka.model.ACTIONS order, then ELR_ACTIONS, then DURABILITY_ACTIONS. */
enum {
    A_PRODUCE, A_FETCH, A_SHRINK, A_EXPAND, A_CTRL_SHRINK, A_ELECT, A_UNCLEAN_ELECT, A_CRASH,
    A_RESTART, A_BECOME_LEADER, A_BECOME_FOLLOWER, A_UNCLEAN_RECOVERY, A_FLUSH,
    A_UNCLEAN_SHUTDOWN
};
#define LABEL(action, a, b) ((uint16_t)(((action) << 12) | ((a) << 8) | ((b) << 4)))

/* Property bits (spec/kafka/native/__init__.py: PROPERTY_BITS). */
enum {
    P_HW_LE_LEO, P_LEADER_IN_ISR, P_NO_COMMITTED_LOSS, P_NO_ACKED_LOSS, P_NO_DIVERGENCE,
    P_WEAK_ISR, P_STRONG_ISR, P_RECORD_EPOCHS, P_EPOCH_MONOTONIC, P_HW_ADVANCES,
    P_CRASH_HAPPENS, P_RESTART_HAPPENS, P_TRUNCATION_REMOVES, P_SECOND_ELECTION
};

/* Truncation rules (spec.kafka.variants.RULES). */
enum { RULE_HW, RULE_LEADER_EPOCH, RULE_LAST_MATCH };

/* One replica: state.py's (log, hw, alive, view, remote). -1 stands for None. */
typedef struct {
    int8_t len;              /* LEO */
    int8_t hw;
    int8_t alive;
    int8_t vleader;          /* view: leader (-1: None), epoch, ISR as a bit mask */
    int8_t vepoch;
    uint8_t visr;
    int8_t has_remote;       /* remote LEOs kept (a presumed leader) or () */
    int8_t id[MAXR], ep[MAXR];
    int8_t remote[MAXN];
} Rep;

/* A whole state: replicas, controller (epoch, leader, ISR[, ELR]), LeaderAndIsr requests
 * (request e has epoch e), ghost (next id, crashes, committed (offset, id) pairs as bit
 * offset * R + id) and the durable component (flushed offsets, unclean shutdowns). */
typedef struct {
    Rep r[MAXN];
    int8_t cepoch, cleader;
    uint8_t cisr, celr;
    int8_t nreq;
    int8_t rleader[MAXE];
    uint8_t risr[MAXE];
    int8_t next_id, crashes;
    uint64_t committed;
    int8_t flushed[MAXN];
    int8_t unclean;
} St;

struct Model {
    int n, R, E, max_crashes, min_isr, unclean_election, rule;
    int fenced_lookup, fenced_fetch, fenced_expand, strict_min_isr, elr;
    int durable, flush_always, max_unclean, acks_all;
    int hw_min_isr, produce_min_isr;
    int rep_width, width, committed_bytes;
};

/* state.c */
void kafka_decode(const Model *m, const uint8_t *row, St *s);
void kafka_encode(const Model *m, const St *s, uint8_t *row);
int kafka_marshal(const Model *m, const St *s, uint8_t *buf);
void kafka_canonical(const Model *m, const St *s, St *out);

/* actions.c */
int kafka_successors(const Model *m, const St *s, St *out, uint16_t *labels);

/* properties.c */
uint32_t kafka_invariants(const Model *m, const St *s, uint32_t mask);
uint32_t kafka_transition(const Model *m, const St *before, uint16_t label, const St *after,
                          uint32_t mask);

static inline int popcount8(uint8_t x) { return __builtin_popcount(x); }
static inline int has(uint8_t mask, int r) { return (mask >> r) & 1; }

#endif
