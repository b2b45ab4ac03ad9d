/* Label codes, the one definition every compiled model and the engine use; the Python side
 * reads this file once (checker/native/layout.py) and the library confirms it
 * (eng_label_layout).
 *
 * A label is LABEL_BITS bits: its action's code in the top LABEL_BITS - LABEL_SHIFT bits (so
 * a model has LABEL_ACTIONS codes), then arguments of LABEL_ARG_BITS bits each, the first at
 * LABEL_SHIFT - LABEL_ARG_BITS. A model's action indices (model_action_of: the code, or an
 * index of its own for an action that shares one) are below MODEL_MAX_ACTIONS. */
#ifndef HWCHECK_LABELS_H
#define HWCHECK_LABELS_H

#include <stdint.h>

#define LABEL_BITS 16
#define LABEL_SHIFT 12
#define LABEL_ARG_BITS 4
#define MODEL_MAX_ACTIONS 32

#define LABEL_CODES (1 << LABEL_BITS)
#define LABEL_ACTIONS (1 << (LABEL_BITS - LABEL_SHIFT))

/* The code of `action` with arguments a, b and c (each below 1 << LABEL_ARG_BITS). */
#define LABEL_OF(action, a, b, c)                                                                  \
    ((uint16_t)(((action) << LABEL_SHIFT) | ((a) << (LABEL_SHIFT - LABEL_ARG_BITS))                \
                | ((b) << (LABEL_SHIFT - 2 * LABEL_ARG_BITS))                                      \
                | ((c) << (LABEL_SHIFT - 3 * LABEL_ARG_BITS))))
/* A code's action, and its argument i (0: the first). */
#define LABEL_ACTION(code) ((int)((code) >> LABEL_SHIFT))
#define LABEL_ARG(code, i)                                                                         \
    (((code) >> (LABEL_SHIFT - LABEL_ARG_BITS * ((i) + 1))) & ((1 << LABEL_ARG_BITS) - 1))

#endif
