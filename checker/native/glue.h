/* The model.h functions that every compiled model defines the same way, written once.
 *
 * A compiled model (spec/kafka/native, spec/tla/native) holds its state decoded in a struct St
 * and its bounds in a struct Model with at least the fields `width`, `max_succ`, `max_marshal`
 * and `plan` (rows.h's ScratchPlan). It names its own functions with a prefix P:
 *
 *   void     P_decode(const Model *, const uint8_t *row, St *)
 *   void     P_encode(const Model *, const St *, uint8_t *row)
 *   int      P_successors(const Model *, const St *, St *out, uint16_t *labels)  (the count)
 *   uint32_t P_transition(const Model *, const St *before, uint16_t label, const St *after,
 *                         uint32_t mask)
 *   uint32_t P_invariants(const Model *, const St *, uint32_t mask)
 *   int      P_marshal(const Model *, const St *, uint8_t *buf)                  (its length)
 *   int      P_canonical(const Model *, void *scratch, const St *, St *out,
 *                        Renaming *kept)                                       (0 or -1)
 *   void     P_permute(const Model *, const St *, const int *perm, St *out)  (a renaming)
 *   int      P_symmetric_ids(const Model *)        (model_symmetric_ids: 1 for no symmetry)
 *
 * and writes MODEL_GLUE(P) once, in one of its files, for model_free, model_width,
 * model_max_successors, model_max_marshal, model_scratch_size, model_invariants,
 * model_marshal, model_canonical, model_symmetric_ids, model_rename and model_expand
 * (model.h says what each does). What differs between models stays each model's own:
 * model_new, model_param_names, model_action_of, model_liveness and model_conditions.
 */
#ifndef HWCHECK_GLUE_H
#define HWCHECK_GLUE_H

#include <stdlib.h>

#include "model.h"
#include "rows.h"

#define MODEL_GLUE(P)                                                                              \
    void model_free(Model *m) { free(m); }                                                         \
    int model_width(const Model *m) { return m->width; }                                           \
    int model_max_successors(const Model *m) { return m->max_succ; }                               \
    int model_max_marshal(const Model *m) { return m->max_marshal; }                               \
    size_t model_scratch_size(const Model *m) { return m->plan.size; }                             \
                                                                                                   \
    uint32_t model_invariants(const Model *m, const uint8_t *row, uint32_t mask) {                 \
        St s;                                                                                      \
        P##_decode(m, row, &s);                                                                    \
        return P##_invariants(m, &s, mask);                                                        \
    }                                                                                              \
                                                                                                   \
    int model_marshal(const Model *m, const uint8_t *row, uint8_t *buf) {                          \
        St s;                                                                                      \
        P##_decode(m, row, &s);                                                                    \
        return P##_marshal(m, &s, buf);                                                            \
    }                                                                                              \
                                                                                                   \
    int model_canonical(const Model *m, void *scratch, const uint8_t *row, uint8_t *out) {         \
        return model_canonical_renaming(m, scratch, row, out, NULL, NULL);                         \
    }                                                                                              \
                                                                                                   \
    int model_canonical_renaming(const Model *m, void *scratch, const uint8_t *row, uint8_t *out,  \
                                 int *perm, int *tied) {                                           \
        St s, c;                                                                                   \
        Renaming kept;                                                                             \
        P##_decode(m, row, &s);                                                                    \
        if (P##_canonical(m, scratch, &s, &c, perm ? &kept : NULL)) return MODEL_OVERFLOW;         \
        P##_encode(m, &c, out);                                                                    \
        if (perm) {                                                                                \
            memcpy(perm, kept.perm, sizeof(int) * (size_t)P##_symmetric_ids(m));                   \
            *tied = kept.tied;                                                                     \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    int model_symmetric_ids(const Model *m) { return P##_symmetric_ids(m); }                       \
                                                                                                   \
    void model_rename(const Model *m, const uint8_t *row, const int *perm, uint8_t *out) {         \
        St s, t;                                                                                   \
        P##_decode(m, row, &s);                                                                    \
        P##_permute(m, &s, perm, &t);                                                              \
        P##_encode(m, &t, out);                                                                    \
    }                                                                                              \
                                                                                                   \
    int model_expand(const Model *m, void *scratch, const uint8_t *row, int cap, uint8_t *out,     \
                     uint16_t *labels, uint32_t trans_mask, uint32_t *violated,                    \
                     uint32_t guard_mask, uint32_t *reached) {                                     \
        St s, *next = scratch;                                                                     \
        uint16_t *made = part(scratch, m->plan.labels);                                            \
        P##_decode(m, row, &s);                                                                    \
        int count = P##_successors(m, &s, next, made);                                             \
        if (count > m->max_succ || count > cap) return MODEL_OVERFLOW;                             \
        uint32_t mask = trans_mask | guard_mask;                                                   \
        for (int i = 0; i < count; i++) {                                                          \
            labels[i] = made[i];                                                                   \
            uint32_t bits = mask ? P##_transition(m, &s, labels[i], &next[i], mask) : 0;           \
            violated[i] = bits & trans_mask;                                                       \
            *reached |= bits & guard_mask;                                                         \
            P##_encode(m, &next[i], out + (size_t)i * m->width);                                   \
        }                                                                                          \
        return count;                                                                              \
    }

#endif
