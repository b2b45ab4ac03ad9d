/* The liveness judge's own large arrays held in files, beside the graph's (lfiles.c), for a
 * graph past the memory budget (checker/liveness/budget.py): while lf_use_dir names a folder,
 * every block of its `from` bytes or more that lf_alloc hands out (the C walks' work arrays in
 * scc.c and lwalk.c, and through numpy's memory handler every numpy array the judge makes,
 * NEP 49) is a file of its own there: made, unlinked at once, its blocks reserved with
 * posix_fallocate, mapped shared and closed, so the system can write its pages out under
 * memory pressure instead of the process holding them. Smaller blocks, and a block the folder
 * cannot take (a full disk), are heap blocks: the files only lower what the process holds.
 * A file costs about 2 ms to make and let go (against 0.2 ms for a heap block's mapping, 4
 * MiB): the caller sets `from` so that the arrays that grow with the graph are files and the
 * judge's chunk-sized temporaries are not (checker/liveness/scratch.py).
 *
 * Every block carries its kind and length in front of it, so lf_release frees a block
 * whatever the folder is by then: a numpy array made during the pass may outlive it. The
 * folder is one for the whole process (the liveness pass runs one at a time). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lgraph.h"

#define LF_PAGE 4096                /* a file block's data starts a page in */
#define LF_HEAP 0x68776865617031ULL /* the kinds a block's header names */
#define LF_FILE 0x687766696c6531ULL

typedef struct { /* the 16 bytes in front of every block's data */
    uint64_t kind;
    uint64_t bytes; /* a file block: the whole mapping's length */
} Header;

static char lf_dir[4096];
static size_t lf_from; /* bytes from which a block is a file */
static int lf_on;
static int64_t lf_made, lf_refused; /* blocks made as files; blocks the folder did not take */

int lf_use_dir(const char *dir, int64_t from) {
    if (!dir) {
        __atomic_store_n(&lf_on, 0, __ATOMIC_RELEASE);
        return 0;
    }
    if (strlen(dir) + 32 > sizeof lf_dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(lf_dir, dir);
    lf_from = from > 0 ? (size_t)from : 1;
    __atomic_store_n(&lf_on, 1, __ATOMIC_RELEASE);
    return 0;
}

void lf_counts(int64_t *out) {
    out[0] = __atomic_load_n(&lf_made, __ATOMIC_RELAXED);
    out[1] = __atomic_load_n(&lf_refused, __ATOMIC_RELAXED);
}

/* A file block of `bytes` data bytes (zeros), or NULL when the folder does not take it. */
static void *file_block(size_t bytes) {
    if (bytes > SIZE_MAX - LF_PAGE) return NULL;
    size_t len = bytes + LF_PAGE;
    void *base;
    int fd = lg_map_file(lf_dir, "hwcheck-scratch", len, &base);
    if (fd < 0) return NULL;
    close(fd); /* the mapping keeps the file */
    Header *h = (Header *)((char *)base + LF_PAGE - sizeof(Header));
    *h = (Header){LF_FILE, len};
    return (char *)base + LF_PAGE;
}

void *lf_alloc(size_t bytes, int zero) {
    if (bytes >= lf_from && __atomic_load_n(&lf_on, __ATOMIC_ACQUIRE)) {
        void *p = file_block(bytes);
        if (p) {
            __atomic_fetch_add(&lf_made, 1, __ATOMIC_RELAXED);
            return p;
        }
        __atomic_fetch_add(&lf_refused, 1, __ATOMIC_RELAXED);
    }
    if (bytes > SIZE_MAX - sizeof(Header)) return NULL;
    Header *h = zero ? calloc(1, bytes + sizeof(Header)) : malloc(bytes + sizeof(Header));
    if (!h) return NULL;
    *h = (Header){LF_HEAP, bytes};
    return h + 1;
}

void lf_release(void *p) {
    if (!p) return;
    Header *h = (Header *)p - 1;
    if (h->kind == LF_FILE)
        munmap((char *)p - LF_PAGE, h->bytes);
    else
        free(h);
}

static size_t data_bytes(const Header *h) {
    return h->kind == LF_FILE ? h->bytes - LF_PAGE : h->bytes;
}

void *lf_resize(void *p, size_t bytes) {
    if (!p) return lf_alloc(bytes, 0);
    Header *h = (Header *)p - 1;
    if (h->kind == LF_HEAP && (bytes < lf_from || !__atomic_load_n(&lf_on, __ATOMIC_ACQUIRE))) {
        if (bytes > SIZE_MAX - sizeof(Header)) return NULL;
        Header *q = realloc(h, bytes + sizeof(Header));
        if (!q) return NULL;
        q->bytes = bytes;
        return q + 1;
    }
    void *q = lf_alloc(bytes, 0);
    if (!q) return NULL;
    size_t keep = data_bytes(h);
    memcpy(q, p, keep < bytes ? keep : bytes);
    lf_release(p);
    return q;
}

/* numpy's memory handler (NEP 49; numpy's PyDataMem_Handler, version 1, laid out here: a
 * 127-byte name, a version byte, then the allocator's context and four functions). */
static void *np_malloc(void *ctx, size_t size) {
    (void)ctx;
    return lf_alloc(size ? size : 1, 0);
}
static void *np_calloc(void *ctx, size_t n, size_t item) {
    (void)ctx;
    size_t bytes = n * item;
    if (item && bytes / item != n) return NULL;
    return lf_alloc(bytes ? bytes : 1, 1);
}
static void *np_realloc(void *ctx, void *p, size_t size) {
    (void)ctx;
    return lf_resize(p, size ? size : 1);
}
static void np_free(void *ctx, void *p, size_t size) {
    (void)ctx, (void)size;
    lf_release(p);
}

typedef struct {
    char name[127];
    uint8_t version;
    void *ctx;
    void *(*malloc)(void *, size_t);
    void *(*calloc)(void *, size_t, size_t);
    void *(*realloc)(void *, void *, size_t);
    void (*free)(void *, void *, size_t);
} NumpyHandler;

static NumpyHandler lf_numpy = {"hwcheck_scratch", 1,          NULL,   np_malloc,
                                np_calloc,         np_realloc, np_free};

void *lf_numpy_handler(void) { return &lf_numpy; }

/* The name numpy wants on the handler's capsule; the capsule keeps the pointer, so it is ours. */
const char *lf_capsule_name(void) { return "mem_handler"; }
