/* A whole graph's atoms and conditions, read from its rows (lgraph.c's plain graph, and an
 * orbit graph built whole): every state's liveness atoms for a property and every state's
 * fairness conditions, split over two threads. A sealed orbit graph has no rows; its codes
 * and conditions were kept as it was built (oseal.c). */
#include <pthread.h>
#include <stdint.h>

#include "lgraph.h"

/* Every state's liveness atoms for property `prop` (model_liveness), or with prop < 0 its
 * conditions (model_conditions), on ATOM_THREADS threads. */
#define ATOM_THREADS 2
typedef struct {
    const LGraph *g;
    int prop;
    int64_t start, end, count;
    uint64_t *opened, *goal;
    uint32_t *conditions;
} AtomJob;

static void *atom_run(void *arg) {
    AtomJob *job = arg;
    const LGraph *g = job->g;
    for (int64_t i = job->start; i < job->end; i++) {
        const uint8_t *row = g->rows + i * g->width;
        if (job->prop < 0) {
            job->conditions[i] = model_conditions(g->m, row);
            continue;
        }
        model_liveness(g->m, row, job->prop, &job->opened[i], &job->goal[i]);
        job->count += __builtin_popcountll(job->opened[i]);
    }
    return NULL;
}

static int64_t atom_jobs(const LGraph *g, int prop, uint64_t *opened, uint64_t *goal,
                         uint32_t *conditions) {
    AtomJob jobs[ATOM_THREADS];
    pthread_t threads[ATOM_THREADS];
    int started[ATOM_THREADS] = {0};
    for (int t = 0; t < ATOM_THREADS; t++) {
        jobs[t] = (AtomJob){
            g,    prop,      g->n * t / ATOM_THREADS, g->n * (t + 1) / ATOM_THREADS, 0, opened,
            goal, conditions};
        if (t > 0) started[t] = !pthread_create(&threads[t], NULL, atom_run, &jobs[t]);
    }
    atom_run(&jobs[0]);
    int64_t count = jobs[0].count;
    for (int t = 1; t < ATOM_THREADS; t++) {
        if (started[t])
            pthread_join(threads[t], NULL);
        else
            atom_run(&jobs[t]); /* no thread: run it here */
        count += jobs[t].count;
    }
    return count;
}

/* Returns how many (state, key) pairs are opened. */
int64_t lg_atoms(const LGraph *g, int prop, uint64_t *opened, uint64_t *goal) {
    return g->rows || !g->n ? atom_jobs(g, prop, opened, goal, NULL) : -1;
}

void lg_conditions(const LGraph *g, uint32_t *out) {
    if (g->rows || !g->n) atom_jobs(g, -1, NULL, NULL, out);
}
