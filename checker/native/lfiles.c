/* A liveness graph's large arrays held in files instead of on the heap, for a graph past the
 * memory budget (checker/liveness/budget.py): once lg_set_dir has named a folder, every array
 * lg_hold grows (the per-state and per-edge arrays of lgraph.c, ograph.c and oseal.c) lives in
 * a file of its own there, mapped shared, so the system writes its pages to disk and takes them
 * back under memory pressure instead of the process holding them. TLC keeps its liveness graph
 * on disk the same way (its behavior graph's files, read back by offset).
 *
 * The files are unlinked as soon as they are made: they take no name in the folder and go
 * when the graph is freed or the process ends, however it ends. Their blocks are reserved
 * (posix_fallocate) before the mapping grows over them, so a full disk is an error returned
 * here (lg_disk_error), not a SIGBUS on a later write (an I/O error reading a page back, or a
 * file system that only emulates the reserve, can still raise one). Without lg_set_dir every
 * array is a heap array, grown by lg_grow, as before. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lgraph.h"

/* Hold the graph's arrays in files in `dir` from now on (before lg_build or
 * lg_build_orbits). 0, or -1 when no file can be made there (lg_disk_error says why). */
int lg_set_dir(LGraph *g, const char *dir) {
    size_t len = strlen(dir);
    char *copy = malloc(len + 1);
    if (!copy) {
        g->disk_errno = ENOMEM;
        return -1;
    }
    memcpy(copy, dir, len + 1);
    free(g->dir);
    g->dir = copy;
    void *probe = NULL;
    if (lg_hold(g, &probe, 1, 1)) return -1;
    lg_drop(g, &probe);
    return 0;
}

/* The errno of the last file operation that failed (0: none has). */
int lg_disk_error(const LGraph *g) { return g->disk_errno; }

static LgFile *file_of(LGraph *g, const void *addr) {
    for (int k = 0; k < g->nfiles; k++)
        if (g->files[k].addr == addr) return &g->files[k];
    return NULL;
}

static int failed(LGraph *g) {
    g->disk_errno = errno ? errno : EIO;
    return -1;
}

int lg_map_file(const char *dir, const char *prefix, size_t bytes, void **addr) {
    char path[4096 + 64];
    if (snprintf(path, sizeof path, "%s/%s-XXXXXX", dir, prefix) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) return -1;
    unlink(path);
    int err = posix_fallocate(fd, 0, (off_t)bytes);
    void *at = MAP_FAILED;
    if (!err) at = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (err || at == MAP_FAILED) {
        if (err) errno = err;
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    *addr = at;
    return fd;
}

/* A new file of `bytes` bytes in the folder, mapped: 0, or -1. */
static int open_file(LGraph *g, void **p, size_t bytes) {
    if (g->nfiles == LG_MAX_FILES) {
        errno = EMFILE;
        return failed(g);
    }
    void *addr;
    int fd = lg_map_file(g->dir, "hwcheck-graph", bytes, &addr);
    if (fd < 0) return failed(g);
    g->files[g->nfiles++] = (LgFile){addr, bytes, fd};
    *p = addr;
    return 0;
}

/* Room for `want` items of `item` bytes at *p, keeping what is there (lg_grow's contract: 0,
 * or -1 with *p as it was). In a folder (lg_set_dir), a new array (*p NULL) is a file and a
 * file grows or shrinks with its mapping; a heap array stays a heap array. A new file reads
 * as zeros. */
int lg_hold(LGraph *g, void **p, size_t item, int64_t want) {
    if (!g->dir) return lg_grow(p, item, want);
    size_t bytes = (size_t)want * item;
    if (!bytes) bytes = 1; /* a mapping is never empty */
    LgFile *f = *p ? file_of(g, *p) : NULL;
    if (*p && !f) return lg_grow(p, item, want);
    if (!f) return open_file(g, p, bytes);
    if (bytes == f->bytes) return 0;
    if (bytes > f->bytes) {
        int err = posix_fallocate(f->fd, (off_t)f->bytes, (off_t)(bytes - f->bytes));
        if (err) {
            errno = err;
            return failed(g);
        }
    }
    void *addr = mremap(f->addr, f->bytes, bytes, MREMAP_MAYMOVE);
    if (addr == MAP_FAILED) return failed(g);
    if (bytes < f->bytes && ftruncate(f->fd, (off_t)bytes)) {
        /* the file keeps its length beyond the mapping: no harm, nothing to report */
    }
    f->addr = addr;
    f->bytes = bytes;
    *p = addr;
    return 0;
}

int lg_zeroed(LGraph *g, void **p, size_t item, int64_t n) {
    if (g->dir) return lg_hold(g, p, item, n); /* a new file reads as zeros */
    *p = calloc((size_t)n, item);
    return *p ? 0 : -1;
}

/* Let *p go (a file's mapping and the file, or a heap array) and set it to NULL. */
void lg_drop(LGraph *g, void **p) {
    LgFile *f = *p ? file_of(g, *p) : NULL;
    if (f) {
        munmap(f->addr, f->bytes);
        close(f->fd);
        *f = g->files[--g->nfiles];
    } else {
        free(*p);
    }
    *p = NULL;
}

/* Let every file go, and the folder's name (lg_free). */
void lg_drop_files(LGraph *g) {
    while (g->nfiles) {
        LgFile *f = &g->files[g->nfiles - 1];
        munmap(f->addr, f->bytes);
        close(f->fd);
        g->nfiles--;
    }
    free(g->dir);
    g->dir = NULL;
}
