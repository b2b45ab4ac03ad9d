/* XXH3 64-bit (seed 0, default secret): checker.fingerprint's hash, in C. */
#ifndef HWCHECK_XXH3_H
#define HWCHECK_XXH3_H
#include <stddef.h>
#include <stdint.h>
uint64_t xxh3_64(const void *data, size_t len);
#endif
