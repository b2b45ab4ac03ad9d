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

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "labels.h"

typedef struct Model Model;

/* A model's bounds and switches: a struct of named int32 fields, which the model declares
 * from one list of names, X(name) each (MODEL_PARAMS(X)): struct ModelParams {
 * MODEL_PARAMS(PARAM_FIELD) } and model_param_names() returning MODEL_PARAMS(PARAM_NAME), the
 * names in field order, each followed by a space. The Python side fills the struct by name
 * (checker.native.core.model_params). */
typedef struct ModelParams ModelParams;
#define PARAM_FIELD(name) int32_t name;
#define PARAM_NAME(name) #name " "
const char *model_param_names(void);

/* A model for the bounds in `p`; NULL when the compiled core cannot hold them (or out of
 * memory), with the reason in `why` (`room` bytes, one line; the caller then uses the
 * reference core). */
Model *model_new(const ModelParams *p, char *why, size_t room);
/* model_new's refusal: the reason, printf-style, into why; returns NULL. */
__attribute__((format(printf, 3, 4))) static inline void *refuse(char *why, size_t room,
                                                                 const char *format, ...) {
    va_list args;
    va_start(args, format);
    if (room) vsnprintf(why, room, format, args);
    va_end(args);
    return NULL;
}
void model_free(Model *m);
/* Bytes per row. */
int model_width(const Model *m);
/* The most successors one state can have (sizes every successor buffer: the model's own in
 * its scratch, and its callers'). */
int model_max_successors(const Model *m);
/* The largest marshal encoding of a state, in bytes (sizes every encoding buffer). */
int model_max_marshal(const Model *m);
/* The bytes of scratch space one thread's model_expand and model_canonical calls need (the
 * successor states being generated, the canonical form's encodings): each thread allocates
 * its own block once, 64-byte aligned, and passes it to every call. */
size_t model_scratch_size(const Model *m);
/* The action index of a label code (0..MODEL_MAX_ACTIONS - 1, labels.h; usually its action
 * code), for coverage statistics. */
int model_action_of(uint16_t label);

/* model_expand's and model_canonical's error: more successors than a buffer's room, or an
 * encoding past model_max_marshal (a wrong bound in the model: the engine reports it). */
#define MODEL_OVERFLOW (-1)

/* Every successor of `row`, at most `cap` (the room of `out`, `labels` and `violated`):
 * writes rows to `out` and label codes to `labels`; for each successor, the transition
 * properties in `trans_mask` it violates go to `violated[i]`, and the guards in `guard_mask`
 * it reaches are or-ed into `*reached`. Returns the count, or MODEL_OVERFLOW (nothing
 * written) past `cap` or model_max_successors. `scratch`: the thread's (model_scratch_size). */
int model_expand(const Model *m, void *scratch, const uint8_t *row, int cap, uint8_t *out,
                 uint16_t *labels, uint32_t trans_mask, uint32_t *violated, uint32_t guard_mask,
                 uint32_t *reached);
/* The representative of the row's orbit under replica renamings (the reference core's
 * canonical form exactly: smallest marshal encoding among the renamings that sort the
 * replicas' keys) into `out`, which may not alias `row`. 0, or MODEL_OVERFLOW. */
int model_canonical(const Model *m, void *scratch, const uint8_t *row, uint8_t *out);
/* model_canonical, and the renaming it applied: replica r became perm[r] (model_symmetric_ids
 * ints), `*tied` when two replicas' keys tie (else only the identity leaves the representative
 * as it is). */
int model_canonical_renaming(const Model *m, void *scratch, const uint8_t *row, uint8_t *out,
                             int *perm, int *tied);
/* How many interchangeable replicas model_rename renames (a renaming's length): the model's
 * replica count, or 1 for a model without symmetry. */
int model_symmetric_ids(const Model *m);
/* The row with replica r renamed perm[r] everywhere (checker.symmetry: the spec's permute),
 * into `out`, which may not alias `row`; `perm` holds model_symmetric_ids() ids. */
void model_rename(const Model *m, const uint8_t *row, const int *perm, uint8_t *out);
/* The invariants in `mask` that `row` violates. */
uint32_t model_invariants(const Model *m, const uint8_t *row, uint32_t mask);
/* The reference state's marshal (format 2) encoding; returns its length. */
int model_marshal(const Model *m, const uint8_t *row, uint8_t *buf);

/* Liveness atoms (checker/liveness/compiled.py; twins of the Python model's liveness
 * predicates). For liveness property `prop` (the model's order): bit k of `*opened` is set
 * when `row` opens obligation key k (for a leads-to property P ~> Q, k in P(state); the
 * codec maps key numbers to the Python keys), bit k of `*goal` when Q(state, k) holds. */
void model_liveness(const Model *m, const uint8_t *row, int prop, uint64_t *opened, uint64_t *goal);
/* The model's named state conditions (Fairness.when), one bit each in the codec's order,
 * and MODEL_CUT_BIT when the model's cut holds (a bound stops progress here). */
#define MODEL_CUT_BIT 31
uint32_t model_conditions(const Model *m, const uint8_t *row);

#endif
