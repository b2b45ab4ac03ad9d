# cython: boundscheck=False, wraparound=False, cdivision=True, language_level=3
"""The prototype kernel in Cython (benchmarks/compilers.py): the same code as kernel.c."""

from libc.stdint cimport int8_t, int64_t, uint64_t, uint8_t
from libc.string cimport memcpy


cdef inline int leader_hw(int length, int hw, int me, int isr, const int8_t *remote, int n) nogil:
    cdef int low = length, m
    for m in range(n):
        if (isr >> m) & 1 and m != me and remote[m] < low:
            low = remote[m]
    return hw if hw > low else low


def kernel(const int8_t[:, ::1] rows, int n, int r, int next_id_at, int8_t[::1] out):
    cdef int64_t count = rows.shape[0], i, made = 0
    cdef int width = rows.shape[1], rep = 7 + 2 * r + n, leader, f, lead, x, lx, k
    cdef uint64_t total = 0
    cdef const int8_t *s
    cdef int8_t *o = &out[0]
    for i in range(count):
        s = &rows[i, 0]
        for leader in range(n):
            x = leader * rep
            if s[x + 2] == 0 or s[x + 3] != leader or s[next_id_at] >= r:
                continue
            memcpy(o, s, width)
            o[x + 7 + 2 * s[x]] = s[next_id_at]
            o[x + 8 + 2 * s[x]] = s[x + 4]
            o[next_id_at] += 1
            o[x] = s[x] + 1
            o[x + 1] = leader_hw(o[x], s[x + 1], leader, <uint8_t>s[x + 5], s + x + 7 + 2 * r, n)
            for k in range(width):
                total = total * 31 + <uint8_t>o[k]
            made += 1
        for f in range(n):
            x = f * rep
            lead = s[x + 3]
            if s[x + 2] == 0 or lead < 0 or lead == f:
                continue
            lx = lead * rep
            if s[lx + 2] == 0 or s[lx + 3] != lead or s[lx + 4] != s[x + 4]:
                continue
            memcpy(o, s, width)
            if s[x] > s[lx]:  # OFFSET_OUT_OF_RANGE: truncate to the leader's LEO
                o[x] = s[lx]
                if o[x + 1] > s[lx]:
                    o[x + 1] = s[lx]
                for k in range(width):
                    total = total * 31 + <uint8_t>o[k]
                made += 1
                continue
            o[lx + 7 + 2 * r + f] = s[x]
            o[lx + 1] = leader_hw(s[lx], s[lx + 1], lead, <uint8_t>s[lx + 5], o + lx + 7 + 2 * r, n)
            memcpy(o + x + 7, s + lx + 7, 2 * s[lx])
            o[x] = s[lx]
            o[x + 1] = s[lx + 1] if s[lx + 1] < s[lx] else s[lx]
            for k in range(width):
                total = total * 31 + <uint8_t>o[k]
            made += 1
    return made, total
