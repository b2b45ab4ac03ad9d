/* Truncation on the fetch response (the diverging-epoch-truncation rule) in the compiled core:
 * spec/kafka/diverging.py's pure rules and spec/kafka/fetching.py's actions (the one-step
 * Fetch, the leader's half of FetchRequest, FetchResponse's apply_response and
 * TruncateOnFetchResponse), in the same order and with the same guards and effects. An
 * epoch of None (no last fetched epoch) is -1 here; epochs in logs are >= 0. */
#include "kafka.h"

/* leader_answer's answers: read records, a DivergingEpoch, OFFSET_OUT_OF_RANGE. */
enum { ANSWER_READ, ANSWER_DIVERGING, ANSWER_OUT_OF_RANGE };

/* diverging.epoch_cache: (epoch, start offset) of the first record of each epoch, oldest
 * first; a record of a lower epoch than the last entry removes the entries of its epoch and
 * later (LeaderEpochFileCache.assign). Returns the number of entries (at most MAXR + 1 with
 * leader_cache's). */
static int epoch_cache(const Rep *x, int *epochs, int *starts) {
    int c = 0;
    for (int o = 0; o < x->len; o++) {
        int epoch = x->ep[o];
        if (c && epochs[c - 1] == epoch) continue;
        while (c && epochs[c - 1] >= epoch) c--;
        epochs[c] = epoch;
        starts[c] = o;
        c++;
    }
    return c;
}

/* diverging.end_offset_for: LeaderEpochFileCache.endOffsetFor(requested, leo) as (*epoch,
 * *end); 0 for None (no cached epoch above `requested`, which is not the latest). */
static int end_offset_for(const int *epochs, const int *starts, int c, int requested, int leo,
                          int *epoch, int *end) {
    if (c && epochs[c - 1] == requested) {
        *epoch = requested;
        *end = leo;
        return 1;
    }
    int higher = -1;
    for (int i = 0; i < c && higher < 0; i++)
        if (epochs[i] > requested) higher = i;
    if (higher < 0) return 0;
    int floor = requested;
    for (int i = 0; i < c; i++)
        if (epochs[i] <= requested) floor = epochs[i];
    *epoch = floor;
    *end = starts[higher];
    return 1;
}

/* diverging.leader_cache: the log's cache, with the leader's `epoch` from its LEO on when it
 * wrote no record in that epoch yet. */
static int leader_cache(const Rep *x, int epoch, int *epochs, int *starts) {
    int c = epoch_cache(x, epochs, starts);
    if (!c || epochs[c - 1] < epoch) {
        epochs[c] = epoch;
        starts[c] = x->len;
        c++;
    }
    return c;
}

/* diverging.leader_answer: how leader `lx` (in `leader_epoch`) answers a fetch at `offset`
 * carrying `fetch_epoch` (-1: None); a DivergingEpoch goes to (*epoch, *end). */
static int leader_answer(const Rep *lx, int leader_epoch, int offset, int fetch_epoch, int *epoch,
                         int *end) {
    int leo = lx->len;
    if (fetch_epoch < 0) return offset > leo ? ANSWER_OUT_OF_RANGE : ANSWER_READ;
    int epochs[MAXR + 1], starts[MAXR + 1];
    int c = leader_cache(lx, leader_epoch, epochs, starts);
    if (!end_offset_for(epochs, starts, c, fetch_epoch, leo, epoch, end))
        return ANSWER_OUT_OF_RANGE;
    if (*epoch < fetch_epoch || *end < offset) return ANSWER_DIVERGING;
    return ANSWER_READ;
}

static int min2(int a, int b) { return a < b ? a : b; }

/* diverging.truncation_offset: where follower `x` truncates on a DivergingEpoch (epoch, end). */
static int truncation_offset(const Rep *x, int epoch, int end) {
    int leo = x->len, epochs[MAXR + 1], starts[MAXR + 1], own_epoch, own_end;
    int c = epoch_cache(x, epochs, starts);
    if (!end_offset_for(epochs, starts, c, epoch, leo, &own_epoch, &own_end)) return min2(end, leo);
    if (own_epoch != epoch) return min2(own_end, leo);
    return min2(min2(own_end, end), leo);
}

/* fetching._fetcher: replica f's fetcher value (FE_NONE without the component). */
static int fetcher_of(const Model *m, const St *s, int f) {
    return m->fetcher ? s->fetcher[f] : FE_NONE;
}

/* diverging.fetch_epoch: the last fetched epoch replica f's fetch carries (-1: None). */
static int fetch_epoch(const Model *m, const St *s, int f) {
    const Rep *x = &s->r[f];
    if (!x->len || fetcher_of(m, s, f) == FE_CLEARED) return -1;
    return x->ep[x->len - 1];
}

/* diverging.after_records: the fetcher value once a follower whose value was `before`
 * applied `count` records and has a log of `len` records. */
static int after_records(int len, int count, int before) {
    if (count || !len) return FE_NONE;
    if (before == FE_FRESH) return FE_CLEARED;
    return before == FE_CLEARED ? FE_CLEARED : FE_NONE;
}

/* fetching._pending: replica f's fetcher has a truncation pending (KAFKA-14704's window). */
int kafka_diverging_pending(const Model *m, const St *s, int f) {
    return m->fetcher && s->fetcher[f] >= 0;
}

/* fetching._truncate: follower f (on t) truncates to `offset`, its HW to at most that; its
 * fetcher goes back to the last record's epoch (a FRESH one stays FRESH). */
static void truncate_to(const Model *m, St *t, int f, int offset) {
    Rep *y = &t->r[f];
    y->len = (int8_t)offset;
    if (y->hw > offset) y->hw = (int8_t)offset;
    truncated(m, t, f, offset);
    put_fetcher(m, t, f, fetcher_of(m, t, f) == FE_FRESH ? FE_FRESH : FE_NONE);
}

/* fetching._out_of_range: OFFSET_OUT_OF_RANGE from a leader whose LEO is `leo`. */
static void out_of_range(const Model *m, St *t, int f, int leo) {
    truncate_to(m, t, f, leo);
    put_fetcher(m, t, f, FE_NONE);
}

/* fetching._diverged: follower f (on t) processes a DivergingEpoch (epoch, end) whose
 * response carried `response_hw`: it truncates, or with hw-before-truncation sets its HW
 * from the response and records the truncation as pending. */
static void diverged(const Model *m, St *t, int f, int response_hw, int epoch, int end) {
    Rep *y = &t->r[f];
    int offset = truncation_offset(y, epoch, end);
    if (!m->hw_before_truncation) {
        truncate_to(m, t, f, offset);
        return;
    }
    y->hw = (int8_t)min2(response_hw, y->len);
    put_fetcher(m, t, f, offset);
}

/* fetching._appended: follower f (on t) appends `count` records and sets HW = min(response
 * HW, new LEO). */
static void appended(const Model *m, St *t, int f, const int8_t *id, const int8_t *ep, int count,
                     int response_hw) {
    Rep *y = &t->r[f];
    for (int i = 0; i < count; i++) {
        y->id[y->len] = id[i];
        y->ep[y->len] = ep[i];
        y->len++;
    }
    y->hw = (int8_t)min2(response_hw, y->len);
    put_fetcher(m, t, f, after_records(y->len, count, fetcher_of(m, t, f)));
}

/* A fetch response: leader_answer's kind, the HW it carries (the leader's LEO for
 * OFFSET_OUT_OF_RANGE), a DivergingEpoch (epoch, end) and `count` records (id, ep). */
typedef struct {
    int kind, hw, epoch, end, count;
    const int8_t *id, *ep;
} Response;

/* fetching._respond: the leader's half of a fetch by f from l, on successor t of s. */
static void respond(const Model *m, const St *s, St *t, int f, int l, Response *r) {
    const Rep *lx = &s->r[l];
    int offset = s->r[f].len;
    r->kind = leader_answer(lx, lx->vepoch, offset, fetch_epoch(m, s, f), &r->epoch, &r->end);
    r->count = 0;
    r->id = lx->id + offset;
    r->ep = lx->ep + offset;
    if (r->kind == ANSWER_OUT_OF_RANGE) {
        r->hw = lx->len;
        return;
    }
    if (r->kind == ANSWER_DIVERGING && !m->diverging_fetch_state) {
        r->hw = lx->hw;
        return;
    }
    r->hw = leader_answers(m, s, t, l, f, offset);
    if (r->kind == ANSWER_READ) r->count = lx->len - offset;
}

/* fetching.apply_response: follower f (on t) applies response r. */
static void apply(const Model *m, St *t, int f, const Response *r) {
    if (r->kind == ANSWER_DIVERGING)
        diverged(m, t, f, r->hw, r->epoch, r->end);
    else if (r->kind == ANSWER_OUT_OF_RANGE)
        out_of_range(m, t, f, min2(r->hw, t->r[f].len));
    else
        appended(m, t, f, r->id, r->ep, r->count, r->hw);
}

/* fetching.fetch: Fetch(follower, leader) under truncation on the fetch response. */
int kafka_diverging_fetch(const Model *m, const St *s, St *out, uint16_t *labels, int k) {
    for (int f = 0; f < m->n; f++) {
        int l = fetch_leader(m, s, f);
        if (l < 0 || kafka_diverging_pending(m, s, f)) continue;
        St *t = emit(m, out, labels, &k, s, LABEL(A_FETCH, f, l));
        Response r;
        respond(m, s, t, f, l, &r);
        if (r.kind == ANSWER_OUT_OF_RANGE && s->r[f].len <= r.hw) {
            k--; /* nothing to truncate: not a step (the leader changed nothing either) */
            continue;
        }
        apply(m, t, f, &r);
    }
    return k;
}

/* fetching.fetch_request: the leader's half of FetchRequest(f, l) into successor t (whose
 * response fields for f the caller set: leader, epoch, fetch offset). */
void kafka_diverging_request(const Model *m, const St *s, St *t, int f, int l) {
    Response r;
    respond(m, s, t, f, l, &r);
    t->fl_hw[f] = (int8_t)r.hw;
    if (r.kind == ANSWER_OUT_OF_RANGE) {
        t->fl_len[f] = FL_OUT_OF_RANGE;
        return;
    }
    if (r.kind == ANSWER_DIVERGING) {
        t->fl_len[f] = FL_DIVERGING;
        t->fl_div_epoch[f] = (int8_t)r.epoch;
        t->fl_div_end[f] = (int8_t)r.end;
        return;
    }
    t->fl_len[f] = (int8_t)r.count;
    memcpy(t->fl_id[f], r.id, (size_t)r.count);
    memcpy(t->fl_ep[f], r.ep, (size_t)r.count);
}

/* fetching.apply_response: follower f (on t, the response already out of flight) applies
 * the response s holds for it, which flight.applies accepted. */
void kafka_diverging_apply(const Model *m, const St *s, St *t, int f) {
    Response r = {ANSWER_READ, s->fl_hw[f], 0, 0, 0, s->fl_id[f], s->fl_ep[f]};
    if (s->fl_len[f] == FL_DIVERGING) {
        r.kind = ANSWER_DIVERGING;
        r.epoch = s->fl_div_epoch[f];
        r.end = s->fl_div_end[f];
    } else if (s->fl_len[f] == FL_OUT_OF_RANGE) {
        r.kind = ANSWER_OUT_OF_RANGE;
    } else {
        r.count = s->fl_len[f];
    }
    apply(m, t, f, &r);
}

/* fetching.truncate_on_fetch_response: TruncateOnFetchResponse(follower), for every
 * follower with a truncation pending. */
int kafka_truncate_successors(const Model *m, const St *s, St *out, uint16_t *labels, int k) {
    if (!m->fetcher) return k;
    for (int f = 0; f < m->n; f++) {
        int offset = s->fetcher[f];
        if (offset < 0) continue;
        truncate_to(m, emit(m, out, labels, &k, s, TRUNCATE_ON_FETCH_RESPONSE(f)), f, offset);
    }
    return k;
}
