/* The interface between hwcheck's compiled level loop (engine.c) and a compiled model.
 *
 * A model state is a *row*: model_width() bytes, a canonical fixed-width encoding (equal
 * states have equal rows, so rows can be hashed and compared bytewise). A label is a 16-bit
 * code (labels.h: an action code and its arguments); the Python side of the model turns codes
 * back into checker.model.Label values and gives the engine each label's rank in the order of
 * label texts (the engines' tie-break).
 *
 * Property bits: the model numbers its invariants, transition properties and "sometimes"
 * guards; the engine passes masks of the ones to check and gets masks back.
 */
#ifndef HWCHECK_MODEL_H
#define HWCHECK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "labels.h"

typedef struct Model Model;

/* A model for the bounds in params[0..nparams); NULL when they are out of the compiled
 * core's range (the caller then uses the reference core). */
Model *model_new(const int32_t *params, int nparams);
void model_free(Model *m);
/* Bytes per row. */
int model_width(const Model *m);
/* The most successors one state can have (sizes the engine's buffers). */
int model_max_successors(const Model *m);
/* The largest marshal encoding of a state, in bytes. */
int model_max_marshal(const Model *m);
/* The action index of a label code (0..MODEL_MAX_ACTIONS - 1, labels.h; usually its action
 * code), for coverage statistics. */
int model_action_of(uint16_t label);

/* Every successor of `row`: writes rows to `out` and label codes to `labels`; for each
 * successor, the transition properties in `trans_mask` it violates go to `violated[i]`, and
 * the guards in `guard_mask` it reaches are or-ed into `*reached`. Returns the count. */
int model_expand(const Model *m, const uint8_t *row, uint8_t *out, uint16_t *labels,
                 uint32_t trans_mask, uint32_t *violated, uint32_t guard_mask,
                 uint32_t *reached);
/* The representative of the row's orbit under replica renamings (the reference core's
 * canonical form exactly: smallest marshal encoding among the renamings that sort the
 * replicas' keys). `out` may not alias `row`. */
void model_canonical(const Model *m, const uint8_t *row, uint8_t *out);
/* The invariants in `mask` that `row` violates. */
uint32_t model_invariants(const Model *m, const uint8_t *row, uint32_t mask);
/* The reference state's marshal (format 2) encoding; returns its length. */
int model_marshal(const Model *m, const uint8_t *row, uint8_t *buf);

/* Liveness atoms (checker/liveness/compiled.py; twins of the Python model's liveness
 * predicates). For liveness property `prop` (the model's order): bit k of `*opened` is set
 * when `row` opens obligation key k (for a leads-to property P ~> Q, k in P(state); the
 * codec maps key numbers to the Python keys), bit k of `*goal` when Q(state, k) holds. */
void model_liveness(const Model *m, const uint8_t *row, int prop, uint64_t *opened,
                    uint64_t *goal);
/* The model's named state conditions (Fairness.when), one bit each in the codec's order,
 * and MODEL_CUT_BIT when the model's cut holds (a bound stops progress here). */
#define MODEL_CUT_BIT 31
uint32_t model_conditions(const Model *m, const uint8_t *row);

#endif
