/* XXH3, 64-bit, seed 0 and the default secret: the hash behind checker.fingerprint
 * (xxhash.xxh3_64_intdigest), so the compiled loop computes the reference fingerprints
 * itself. Written from the algorithm's published specification (xxHash's
 * doc/xxhash_spec.md, "XXH3 Algorithm Description"); tests/test_compiled.py checks it
 * against the xxhash package for every length from 0 to 2,100 bytes. */
#include <stdint.h>
#include <string.h>

#include "xxh3.h"

#define P32_1 0x9E3779B1ull
#define P32_2 0x85EBCA77ull
#define P32_3 0xC2B2AE3Dull
#define P64_1 0x9E3779B185EBCA87ull
#define P64_2 0xC2B2AE3D27D4EB4Full
#define P64_3 0x165667B19E3779F9ull
#define P64_4 0x85EBCA77C2B2AE63ull
#define P64_5 0x27D4EB2F165667C5ull
#define MX1 0x165667919E3779F9ull
#define MX2 0x9FB21C651E98DF25ull

/* The specification's default secret (192 bytes). */
static const uint8_t SECRET[192] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

static inline uint64_t le64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline uint32_t le32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t fold128(uint64_t a, uint64_t b) {
    __uint128_t product = (__uint128_t)a * b;
    return (uint64_t)product ^ (uint64_t)(product >> 64);
}

static uint64_t avalanche(uint64_t x) {
    x ^= x >> 37;
    x *= MX1;
    return x ^ (x >> 32);
}

static uint64_t avalanche64(uint64_t x) {
    x ^= x >> 33;
    x *= P64_2;
    x ^= x >> 29;
    x *= P64_3;
    return x ^ (x >> 32);
}

/* 16 bytes of input against 16 bytes of the secret. */
static inline uint64_t mix16(const uint8_t *in, const uint8_t *secret) {
    return fold128(le64(in) ^ le64(secret), le64(in + 8) ^ le64(secret + 8));
}

static uint64_t small(const uint8_t *in, size_t len) {
    if (len > 8) {
        uint64_t lo = (le64(SECRET + 24) ^ le64(SECRET + 32)) ^ le64(in);
        uint64_t hi = (le64(SECRET + 40) ^ le64(SECRET + 48)) ^ le64(in + len - 8);
        return avalanche(len + __builtin_bswap64(lo) + hi + fold128(lo, hi));
    }
    if (len >= 4) {
        uint64_t both = (uint64_t)le32(in + len - 4) | ((uint64_t)le32(in) << 32);
        uint64_t v = (le64(SECRET + 8) ^ le64(SECRET + 16)) ^ both;
        v ^= rotl64(v, 49) ^ rotl64(v, 24);
        v *= MX2;
        v ^= (v >> 35) + len;
        v *= MX2;
        return v ^ (v >> 28);
    }
    if (len) {
        uint32_t packed = (uint32_t)in[len - 1] | ((uint32_t)len << 8) | ((uint32_t)in[0] << 16)
            | ((uint32_t)in[len >> 1] << 24);
        return avalanche64((uint64_t)(le32(SECRET) ^ le32(SECRET + 4)) ^ packed);
    }
    return avalanche64(le64(SECRET + 56) ^ le64(SECRET + 64));
}

static uint64_t medium(const uint8_t *in, size_t len) {
    uint64_t acc = len * P64_1;
    if (len <= 128) {
        for (int i = (int)((len - 1) >> 5); i >= 0; i--) {
            acc += mix16(in + 16 * i, SECRET + 32 * i);
            acc += mix16(in + len - 16 * i - 16, SECRET + 32 * i + 16);
        }
        return avalanche(acc);
    }
    size_t chunks = len >> 4;
    for (size_t i = 0; i < 8; i++) acc += mix16(in + 16 * i, SECRET + 16 * i);
    acc = avalanche(acc);
    for (size_t i = 8; i < chunks; i++) acc += mix16(in + 16 * i, SECRET + 16 * (i - 8) + 3);
    acc += mix16(in + len - 16, SECRET + 119);
    return avalanche(acc);
}

static inline void accumulate(uint64_t *acc, const uint8_t *stripe, const uint8_t *secret) {
    for (int i = 0; i < 8; i++) {
        uint64_t data = le64(stripe + 8 * i), key = data ^ le64(secret + 8 * i);
        acc[i ^ 1] += data;
        acc[i] += (key & 0xFFFFFFFFull) * (key >> 32);
    }
}

static uint64_t large(const uint8_t *in, size_t len) {
    uint64_t acc[8] = {P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1};
    const size_t stripes = (sizeof(SECRET) - 64) / 8, block = 64 * stripes;
    size_t blocks = (len - 1) / block;
    for (size_t b = 0; b < blocks; b++) {
        for (size_t n = 0; n < stripes; n++)
            accumulate(acc, in + b * block + 64 * n, SECRET + 8 * n);
        for (int i = 0; i < 8; i++) {
            acc[i] ^= acc[i] >> 47;
            acc[i] ^= le64(SECRET + sizeof(SECRET) - 64 + 8 * i);
            acc[i] *= P32_1;
        }
    }
    size_t rest = len - blocks * block, full = (rest - 1) / 64;
    for (size_t n = 0; n < full; n++) accumulate(acc, in + blocks * block + 64 * n, SECRET + 8 * n);
    accumulate(acc, in + len - 64, SECRET + sizeof(SECRET) - 71);
    uint64_t result = len * P64_1;
    for (int i = 0; i < 4; i++)
        result += fold128(acc[2 * i] ^ le64(SECRET + 11 + 16 * i),
                          acc[2 * i + 1] ^ le64(SECRET + 19 + 16 * i));
    return avalanche(result);
}

uint64_t xxh3_64(const void *data, size_t len) {
    const uint8_t *in = data;
    if (len <= 16) return small(in, len);
    if (len <= 240) return medium(in, len);
    return large(in, len);
}
