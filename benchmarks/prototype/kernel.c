/* The prototype kernel in C (benchmarks/compilers.py): Produce and Fetch successors of the
 * kafka model's rows, n replicas, r records (the layout of spec/kafka/native/state.c), with
 * leader_hw; returns how many successors there were and folds them into a checksum. */
#include <stdint.h>
#include <string.h>

static int leader_hw(int len, int hw, int me, int isr, const int8_t *remote, int n) {
    int low = len;
    for (int m = 0; m < n; m++) if ((isr >> m & 1) && m != me && remote[m] < low) low = remote[m];
    return hw > low ? hw : low;
}

int64_t kernel(const int8_t *rows, int64_t count, int width, int n, int r, int next_id_at,
               int8_t *out, uint64_t *checksum) {
    int rep = 7 + 2 * r + n;
    int64_t made = 0;
    uint64_t sum = 0;
    for (int64_t i = 0; i < count; i++) {
        const int8_t *s = rows + i * width;
        for (int l = 0; l < n; l++) {           /* Produce(l) */
            const int8_t *x = s + l * rep;
            if (!x[2] || x[3] != l || s[next_id_at] >= r) continue;
            memcpy(out, s, width);
            int8_t *y = out + l * rep;
            y[7 + 2 * x[0]] = s[next_id_at]; y[8 + 2 * x[0]] = x[4]; y[0]++;
            out[next_id_at]++;
            y[1] = (int8_t)leader_hw(y[0], x[1], l, (uint8_t)x[5], x + 7 + 2 * r, n);
            for (int k = 0; k < width; k++) sum = sum * 31 + (uint8_t)out[k];
            made++;
        }
        for (int f = 0; f < n; f++) {           /* Fetch(f, leader) */
            const int8_t *x = s + f * rep;
            int l = x[3];
            if (!x[2] || l < 0 || l == f) continue;
            const int8_t *lx = s + l * rep;
            if (!lx[2] || lx[3] != l || lx[4] != x[4]) continue;
            memcpy(out, s, width);
            int8_t *y = out + f * rep, *ly = out + l * rep;
            if (x[0] > lx[0]) {  /* OFFSET_OUT_OF_RANGE: truncate to the leader's LEO */
                y[0] = lx[0];
                if (y[1] > lx[0]) y[1] = lx[0];
                for (int k = 0; k < width; k++) sum = sum * 31 + (uint8_t)out[k];
                made++;
                continue;
            }
            ly[7 + 2 * r + f] = x[0];
            ly[1] = (int8_t)leader_hw(lx[0], lx[1], l, (uint8_t)lx[5], ly + 7 + 2 * r, n);
            memcpy(y + 7, lx + 7, 2 * lx[0]);
            y[0] = lx[0];
            y[1] = lx[1] < lx[0] ? lx[1] : lx[0];
            for (int k = 0; k < width; k++) sum = sum * 31 + (uint8_t)out[k];
            made++;
        }
    }
    *checksum = sum;
    return made;
}
