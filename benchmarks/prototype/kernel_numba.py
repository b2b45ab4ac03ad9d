"""The prototype kernel in numba (benchmarks/compilers.py): the same code as kernel.c."""

import numpy as np
from numba import njit


@njit(cache=True)
def leader_hw(length, hw, me, isr, remote, n):
    low = length
    for m in range(n):
        if (isr >> m) & 1 and m != me and remote[m] < low:
            low = remote[m]
    return max(low, hw)


@njit(cache=True)
def kernel(rows, n, r, next_id_at, out):
    count, width = rows.shape
    rep = 7 + 2 * r + n
    made = 0
    total = np.uint64(0)
    for i in range(count):
        s = rows[i]
        for leader in range(n):
            x = leader * rep
            if s[x + 2] == 0 or s[x + 3] != leader or s[next_id_at] >= r:
                continue
            out[:] = s
            y = x
            out[y + 7 + 2 * s[x]] = s[next_id_at]
            out[y + 8 + 2 * s[x]] = s[x + 4]
            out[next_id_at] += 1
            out[y] = s[x] + 1
            out[y + 1] = leader_hw(
                out[y], s[x + 1], leader, s[x + 5] & 0xFF, s[x + 7 + 2 * r : x + 7 + 2 * r + n], n
            )
            for k in range(width):
                total = total * np.uint64(31) + np.uint64(out[k] & 0xFF)
            made += 1
        for f in range(n):
            x = f * rep
            lead = s[x + 3]
            if s[x + 2] == 0 or lead < 0 or lead == f:
                continue
            lx = lead * rep
            if s[lx + 2] == 0 or s[lx + 3] != lead or s[lx + 4] != s[x + 4]:
                continue
            out[:] = s
            if s[x] > s[lx]:  # OFFSET_OUT_OF_RANGE: truncate to the leader's LEO
                out[x] = s[lx]
                out[x + 1] = min(out[x + 1], s[lx])
                for k in range(width):
                    total = total * np.uint64(31) + np.uint64(out[k] & 0xFF)
                made += 1
                continue
            out[lx + 7 + 2 * r + f] = s[x]
            out[lx + 1] = leader_hw(
                s[lx],
                s[lx + 1],
                lead,
                s[lx + 5] & 0xFF,
                out[lx + 7 + 2 * r : lx + 7 + 2 * r + n],
                n,
            )
            for k in range(2 * s[lx]):
                out[x + 7 + k] = s[lx + 7 + k]
            out[x] = s[lx]
            out[x + 1] = min(s[lx], s[lx + 1])
            for k in range(width):
                total = total * np.uint64(31) + np.uint64(out[k] & 0xFF)
            made += 1
    return made, total
