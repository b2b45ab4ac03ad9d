/* hwcheck's compiled random walk (``hwcheck simulate``): checker.simulate.walks.run_walk step for
 * step, with Python's own random number generator, so a walk takes the same steps on both
 * cores.
 *
 * The generator is CPython's random.Random: MT19937 (Matsumoto and Nishimura, 1998) with
 * randrange(n) drawing getrandbits(n.bit_length()) until the draw is below n, random() as
 * 53 bits from two 32-bit words, and choices(weights) as a right bisection of the running
 * sums of the weights. The Python side hands over the state of random.Random.getstate()
 * (624 words and the position) and checks this port against Python's own draws before
 * trusting it (checker.simulate.compiled).
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "xxh3.h"

#define MT_N 624
#define MT_M 397

typedef struct Engine Engine;
Model *eng_model(Engine *e);

/* One 32-bit word of MT19937; mt[MT_N] is the position in the block of words. */
static uint32_t mt_word(uint32_t *mt) {
    if (mt[MT_N] >= MT_N) {
        for (int k = 0; k < MT_N; k++) {
            uint32_t y = (mt[k] & 0x80000000u) | (mt[(k + 1) % MT_N] & 0x7fffffffu);
            mt[k] = mt[(k + MT_M) % MT_N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
        }
        mt[MT_N] = 0;
    }
    uint32_t y = mt[mt[MT_N]++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* randrange(n) for 1 <= n < 2**31. */
static uint32_t mt_below(uint32_t *mt, uint32_t n) {
    int k = 32 - __builtin_clz(n);
    uint32_t r;
    do r = mt_word(mt) >> (32 - k);
    while (r >= n);
    return r;
}

/* random(): a double in [0, 1) from 53 random bits. */
static double mt_unit(uint32_t *mt) {
    uint32_t a = mt_word(mt) >> 5, b = mt_word(mt) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* For the self-check: draws[i] = randrange(ns[i]) when ns[i] > 0, else random(). */
void hwcheck_mt_draws(uint32_t *mt, const int32_t *ns, int count, double *draws) {
    for (int i = 0; i < count; i++)
        draws[i] = ns[i] > 0 ? (double)mt_below(mt, (uint32_t)ns[i]) : mt_unit(mt);
}

enum { END_VIOLATION = 0, END_DEADLOCK = 1, END_DEPTH = 2 };

/* One walk from `row0` (model_width bytes) with the generator state `mt` (updated).
 * `weights`: NULL (uniform over enabled instances) or a weight per action index
 * (MODEL_MAX_ACTIONS of them).
 * Property bits: `inv` invariants checked on every state, `trans` transition properties on
 * every step, `guards` "sometimes" guards not reached yet (reached ones are or-ed into
 * *reached). Writes each step's label (labels[0..n-2]), every state's fingerprint
 * (fps[0..n-1], xxh3 of its marshal encoding), per property bit the number of states up to
 * its first violation (at[bit], 0: none), and adds each step's enabled instances and the
 * action taken to enabled[] and taken[] (by action index, MODEL_MAX_ACTIONS counts each).
 * Returns n, the states visited, and sets *end (END_*); -1 when out of memory, -2 when a model
 * call overflowed its buffers (model.h: MODEL_OVERFLOW, a wrong bound). */
int eng_walk(Engine *e, uint32_t *mt, int depth, const double *weights, const uint8_t *row0,
             uint32_t inv, uint32_t trans, uint32_t guards, uint16_t *labels, uint64_t *fps,
             int32_t *at, int64_t *enabled, int64_t *taken, uint32_t *reached, int32_t *end) {
    Model *m = eng_model(e);
    int width = model_width(m), most = model_max_successors(m), room = model_max_marshal(m);
    uint8_t *row = malloc(width), *succ = malloc((size_t)most * width);
    uint8_t *buf = malloc(room);
    uint16_t *moves = malloc(most * sizeof(uint16_t));
    uint32_t *bits = malloc(most * sizeof(uint32_t));
    double *sums = malloc(most * sizeof(double));
    void *scratch = aligned_alloc(64, model_scratch_size(m));
    int n = -1, overflow = 0;
    if (!row || !succ || !buf || !moves || !bits || !sums || !scratch) goto done;
    memcpy(row, row0, width);
    n = 1;
    int len = model_marshal(m, row, buf);
    overflow = len > room;
    fps[0] = xxh3_64(buf, len);
    uint32_t violated = model_invariants(m, row, inv);
    for (uint32_t b = violated; b; b &= b - 1) at[__builtin_ctz(b)] = 1;
    uint32_t checked = inv | trans;
    *end = END_DEPTH;
    while (!overflow && n < depth && !(checked && violated == checked)) {
        uint32_t none = 0, open_trans = trans & ~violated, open_guards = guards & ~*reached;
        int k = model_expand(m, scratch, row, most, succ, moves, open_trans | open_guards, bits, 0,
                             &none);
        if (k < 0) {
            overflow = 1;
            break;
        }
        int pick = -1;
        if (k && !weights) {
            pick = (int)mt_below(mt, (uint32_t)k);
        } else if (k) {
            double total = 0.0;
            for (int j = 0; j < k; j++) sums[j] = total += weights[model_action_of(moves[j])];
            if (total > 0.0) {
                double x = mt_unit(mt) * total;
                int lo = 0, hi = k - 1; /* bisect_right(sums, x, 0, k - 1) */
                while (lo < hi) {
                    int mid = (lo + hi) / 2;
                    if (x < sums[mid])
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                pick = lo;
            }
        }
        if (pick < 0) {
            *end = END_DEADLOCK;
            break;
        }
        for (int j = 0; j < k; j++) enabled[model_action_of(moves[j])]++;
        taken[model_action_of(moves[pick])]++;
        *reached |= bits[pick] & open_guards;
        uint32_t broken = bits[pick] & open_trans;
        memcpy(row, succ + (size_t)pick * width, width);
        broken |= model_invariants(m, row, inv & ~violated);
        n++;
        for (uint32_t b = broken; b; b &= b - 1) at[__builtin_ctz(b)] = n;
        violated |= broken;
        labels[n - 2] = moves[pick];
        len = model_marshal(m, row, buf);
        overflow = len > room;
        fps[n - 1] = xxh3_64(buf, len);
    }
    if (*end == END_DEPTH && checked && violated == checked) *end = END_VIOLATION;
done:
    free(row);
    free(succ);
    free(buf);
    free(moves);
    free(bits);
    free(sums);
    free(scratch);
    return n < 0 ? -1 : overflow ? -2 : n;
}
