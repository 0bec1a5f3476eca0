/*
 * The producer thread.  See tp_capture.h for the contract.
 *
 * The reader does not chase the writer: it reads each CPU's sub-buffers until
 * one comes back less than half full (or empty), then sleeps briefly and
 * starts over.  What it read waits in the stage (tp_stage) until every CPU
 * has been read past it, and goes on in time order across CPUs, a batch
 * under one lock, so the cost per event stays small.
 */
#include "tp_capture.h"
#include "tp_comms.h"
#include "tp_decode.h"
#include "tp_fault.h"
#include "tp_pace.h"
#include "tp_stage.h"
#include "tp_util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAGES_PER_PASS 256              /* per CPU, so no CPU starves another */
#define CATCH_UP_PAGES     64               /* per CPU in a fetch's pass: a paced pass's worth */
#define STATS_POLL_NS      (100 * 1000 * 1000L)
#define HAND_ON_BATCH      512              /* events handed on per lock */
#define MERGE_SLACK_NS     (2 * 1000 * 1000ull) /* for events still being written at a read */
#define STAGED_WAIT_NS     (4 * 1000 * 1000L)   /* the longest sleep while events wait in the stage, when quiet */
#define RELEARN_NS         (1000 * 1000 * 1000ull)  /* names from /proc after loss, at most this often */
#define PID_OFFSET         4                /* struct trace_entry: type, flags, preempt_count, pid */
#define CMDLINES_MAX       (512 * 1024)     /* of saved_cmdlines read for names /proc lacks */
#define SYNC_WAIT          (1000 * 1000 * 1000ull)  /* tp_capture_sync's bound */
#define CATCH_UP_WAIT      (200 * 1000 * 1000ull)   /* tp_capture_catch_up's bound */

struct cpu_reader {
    int raw_fd;         /* per_cpu/cpuN/trace_pipe_raw, non-blocking */
    int stats_fd;       /* per_cpu/cpuN/stats */
    uint64_t kernel_lost;   /* overrun + dropped seen so far */
};

struct route {
    uint32_t event;
    tp_slotmask all;        /* the unfiltered checks' slots */
    tp_slotmask any;        /* every check's slot */
    uint64_t since_max;     /* the newest since: events older than it take the slow path */
    tp_slotmask stack;      /* the slots of the checks that want stacks */
    uint64_t stack_since_max;   /* events older than it: ask each stack check */
    struct tp_check *checks;/* the filtered ones first */
    size_t nfiltered, nchecks;
};

/* The name of an event's task at the event, beside the event while names are followed. */
struct event_name {
    bool named;             /* comm holds its name */
    uint8_t len;            /* of comm */
    char comm[TP_COMM_LEN]; /* zero-padded */
};

struct tp_capture {
    pthread_mutex_t lock;
    pthread_t thread;
    bool running;
    atomic_bool stop;
    atomic_int nice;        /* the producer's nice value, set by the PMDA thread */
    atomic_int tid;         /* the producer's thread id once it runs, else 0 */

    /*
     * reader state, after start: whichever thread holds pass_lock, the
     * producer or the PMDA thread in tp_capture_catch_up (one pass each)
     */
    pthread_mutex_t pass_lock;
    size_t caught_bytes;    /* read by catch-up passes since the producer's last */
    struct cpu_reader *cpus;
    int ncpus;
    struct pollfd *pfd;     /* each CPU's trace_pipe_raw, then wake_fd */
    int wake_fd;            /* eventfd: tp_capture_stop() wakes the producer */
    int percent_fd;         /* producer only: the instance's buffer_percent, -1: none */
    int percent;            /* producer only: what it was set to last */
    size_t subbuf_size;
    struct tp_page_layout layout;
    char cmdlines_path[1024];   /* the kernel's saved_cmdlines */
    char *cmdlines;         /* CMDLINES_MAX bytes, allocated when first needed */
    struct tp_stage *stage; /* read, not yet handed on */
    struct tp_staged *batch;        /* HAND_ON_BATCH of each, for hand_on() */
    struct event_name *names;
    bool naming;            /* following names now */
    unsigned naming_gen;    /* the follow_gen it started for */
    uint64_t naming_stop;   /* asked to stop at this time (0: not asked): it stops once
                               every event recorded before then has been handed on */
    uint64_t last_relearn;  /* names read again from /proc after kernel loss */
    uint64_t last_stats_poll;

    /* guarded by lock */
    struct tp_ring *ring;
    struct route *routes;   /* indexed by kernel event id */
    size_t nroutes;
    tp_slotmask loss_mask;  /* OR of every route's mask */
    tp_slotmask sink_mask;  /* slots that are aggregations, not ring consumers */
    struct tp_agg *sinks[TP_RING_MAX_SLOTS];
    struct tp_clock clock;
    struct tp_comms *comms; /* a pass's only (pass_lock) */
    struct tp_name_events name_events;  /* set before start */
    tp_slotmask named_slots;    /* consumers that want names: their events carry them */
    tp_slotmask discard_mask;   /* slots whose events are wanted only enabled (names) */
    atomic_bool want_comms; /* the PMDA thread sets it, the producer reads it */
    atomic_uint follow_gen; /* the PMDA thread adds 1 whenever following starts */
    atomic_bool names_live; /* the PMDA thread: the events that name tasks are enabled */
    bool resnap;            /* the names known are from /proc before they were */
    atomic_ulong rounds;    /* passes (rounds) begun, having read what was asked */
    pthread_cond_t passed;  /* with lock: a round has handed on what it read */
    unsigned long rounds_done;      /* lock: the last round that has (rounds' number) */
    atomic_uint_least64_t done_at;  /* when it had (monotonic ns) */
    atomic_bool quiet;      /* the producer sleeps until the next event, nothing staged
                               (a fetch's pass that stages events then wakes it) */
    int stack_id;           /* ftrace:kernel_stack's kernel id, -1: none; set before start */
    size_t stack_routes;    /* routes with a stack check */
    atomic_bool stacks_on;  /* the PMDA thread sets it, the producer reads it */
    bool staging_stacks;    /* pass_lock: what the stage was told */
    uint64_t handed_wall;   /* every event recorded before it (wall-clock ns) is handed on */
    uint64_t *counts;       /* per catalog event */
    size_t nevents;
    struct tp_capture_stats stats;
};

static int open_cpus(struct tp_capture *cap, struct tp_instance *inst)
{
    cap->ncpus = tp_instance_ncpus(inst);
    cap->cpus = calloc((size_t)(cap->ncpus ? cap->ncpus : 1), sizeof(*cap->cpus));
    cap->pfd = calloc((size_t)cap->ncpus + 1, sizeof(*cap->pfd));
    if (!cap->cpus || !cap->pfd)
        return -ENOMEM;
    for (int i = 0; i < cap->ncpus; i++)
        cap->cpus[i].raw_fd = cap->cpus[i].stats_fd = -1;
    for (int i = 0; i < cap->ncpus; i++) {
        int fd = tp_instance_open_cpu_file(inst, i, "trace_pipe_raw", O_RDONLY | O_NONBLOCK);
        if (fd < 0)
            return fd;
        cap->cpus[i].raw_fd = fd;
        cap->pfd[i] = (struct pollfd){ .fd = fd, .events = POLLIN };
        fd = tp_instance_open_cpu_file(inst, i, "stats", O_RDONLY);
        if (fd < 0)
            return fd;
        cap->cpus[i].stats_fd = fd;
    }
    cap->pfd[cap->ncpus] = (struct pollfd){ .fd = cap->wake_fd, .events = POLLIN };
    return 0;
}

int tp_capture_create(struct tp_capture **out, struct tp_instance *inst,
                      size_t ring_capacity, size_t nevents)
{
    int rc = -ENOMEM;
    struct tp_capture *cap = calloc(1, sizeof(*cap));
    if (!cap)
        goto fail;
    pthread_mutex_init(&cap->lock, NULL);
    pthread_mutex_init(&cap->pass_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cap->passed, &ca);
    pthread_condattr_destroy(&ca);
    atomic_init(&cap->done_at, 0);
    atomic_init(&cap->quiet, false);
    atomic_init(&cap->stop, false);
    atomic_init(&cap->nice, 0);
    atomic_init(&cap->tid, 0);
    atomic_init(&cap->want_comms, false);
    atomic_init(&cap->follow_gen, 0);
    atomic_init(&cap->names_live, false);
    atomic_init(&cap->rounds, 0);
    atomic_init(&cap->stacks_on, false);
    cap->stack_id = -1;
    cap->name_events = (struct tp_name_events){ -1, -1, -1, NULL, NULL, NULL, NULL, NULL };
    cap->percent = -1;
    cap->percent_fd = tp_instance_open_file(inst, "buffer_percent", O_WRONLY);
    if ((cap->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        rc = -errno;
        goto fail;
    }
    cap->subbuf_size = tp_instance_subbuf_size(inst);
    cap->layout = *tp_instance_page_layout(inst);
    snprintf(cap->cmdlines_path, sizeof(cap->cmdlines_path), "%s/saved_cmdlines",
             tp_instance_tracing_dir(inst));
    cap->nevents = nevents;
    tp_clock_init(&cap->clock, tp_real_offset() + tp_fault_clock_skew());
    cap->counts = calloc(nevents ? nevents : 1, sizeof(*cap->counts));
    cap->batch = calloc(HAND_ON_BATCH, sizeof(*cap->batch));
    cap->names = calloc(HAND_ON_BATCH, sizeof(*cap->names));
    if (!cap->counts || !cap->batch || !cap->names || tp_comms_create(&cap->comms) < 0)
        goto fail;
    rc = tp_stage_create(&cap->stage, tp_instance_ncpus(inst) ? tp_instance_ncpus(inst) : 1,
                         cap->subbuf_size, &cap->layout);
    if (rc < 0)
        goto fail;
    rc = tp_ring_create(&cap->ring, ring_capacity);
    if (rc == 0)
        rc = open_cpus(cap, inst);
    if (rc < 0)
        goto fail;
    *out = cap;
    return 0;
fail:
    tp_capture_destroy(cap);
    return rc;
}

void tp_capture_release_files(struct tp_capture *cap)
{
    tp_capture_stop(cap);
    pthread_mutex_lock(&cap->pass_lock);    /* a fetch's pass may read them (any thread) */
    for (int i = 0; cap->cpus && i < cap->ncpus; i++) {
        if (cap->cpus[i].raw_fd >= 0)
            close(cap->cpus[i].raw_fd);
        if (cap->cpus[i].stats_fd >= 0)
            close(cap->cpus[i].stats_fd);
        cap->cpus[i].raw_fd = cap->cpus[i].stats_fd = -1;
    }
    if (cap->percent_fd >= 0)
        close(cap->percent_fd);
    cap->percent_fd = -1;
    pthread_mutex_unlock(&cap->pass_lock);
}

void tp_capture_destroy(struct tp_capture *cap)
{
    if (!cap)
        return;
    tp_capture_release_files(cap);
    free(cap->cpus);
    free(cap->pfd);
    if (cap->wake_fd >= 0)
        close(cap->wake_fd);
    tp_stage_destroy(cap->stage);
    free(cap->batch);
    free(cap->names);
    free(cap->cmdlines);
    tp_ring_destroy(cap->ring);
    for (size_t i = 0; i < cap->nroutes; i++)
        free(cap->routes[i].checks);
    free(cap->routes);
    free(cap->counts);
    tp_comms_destroy(cap->comms);
    pthread_mutex_destroy(&cap->lock);
    pthread_mutex_destroy(&cap->pass_lock);
    pthread_cond_destroy(&cap->passed);
    free(cap);
}

void tp_capture_lock(struct tp_capture *cap) { pthread_mutex_lock(&cap->lock); }
void tp_capture_unlock(struct tp_capture *cap) { pthread_mutex_unlock(&cap->lock); }
struct tp_ring *tp_capture_ring(struct tp_capture *cap) { return cap->ring; }
const struct tp_clock *tp_capture_clock(const struct tp_capture *cap) { return &cap->clock; }

uint64_t tp_capture_event_count(const struct tp_capture *cap, size_t event)
{
    return event < cap->nevents ? cap->counts[event] : 0;
}

void tp_capture_reset_count(struct tp_capture *cap, size_t event)
{
    if (event < cap->nevents)
        cap->counts[event] = 0;
}

uint64_t tp_capture_handed(const struct tp_capture *cap)
{
    return cap->handed_wall;
}

void tp_capture_poke(struct tp_capture *cap)
{
    uint64_t one = 1;
    if (cap->running && write(cap->wake_fd, &one, sizeof(one)) < 0)
        return;                     /* it reads within its own timeout anyway */
}

static int apply_nice(int tid, int nice)
{
    return setpriority(PRIO_PROCESS, (id_t)tid, nice) < 0 ? -errno : 0;
}

/* Whichever of this and the thread's start comes second applies the value. */
int tp_capture_set_nice(struct tp_capture *cap, int nice)
{
    atomic_store(&cap->nice, nice);
    int tid = atomic_load(&cap->tid);
    return tid ? apply_nice(tid, nice) : 0;
}

void tp_capture_get_stats(const struct tp_capture *cap, struct tp_capture_stats *st)
{
    *st = cap->stats;
}

static void recompute_loss_mask(struct tp_capture *cap)
{
    tp_slotmask m = 0;
    for (size_t i = 0; i < cap->nroutes; i++)
        m |= cap->routes[i].any;
    cap->loss_mask = m;
}

static int grow_routes(struct tp_capture *cap, size_t id)
{
    if (id < cap->nroutes)
        return 0;
    size_t n = id + 64;
    struct route *r = realloc(cap->routes, n * sizeof(*r));
    if (!r)
        return -ENOMEM;
    memset(r + cap->nroutes, 0, (n - cap->nroutes) * sizeof(*r));
    cap->routes = r;
    cap->nroutes = n;
    return 0;
}

/* Filtered checks first, so the common path loops over those alone. */
static void set_checks(struct route *rt, struct tp_check *copy, const struct tp_check *checks,
                       size_t n)
{
    size_t f = 0, u = n;
    rt->all = rt->any = rt->stack = 0;
    rt->since_max = rt->stack_since_max = 0;
    for (size_t i = 0; i < n; i++) {
        copy[checks[i].filter ? f++ : --u] = checks[i];
        rt->any |= checks[i].bit;
        rt->stack |= checks[i].stack ? checks[i].bit : 0;
        rt->all |= checks[i].filter ? 0 : checks[i].bit;
        if (checks[i].since > rt->since_max)
            rt->since_max = checks[i].since;
        if (checks[i].stack && checks[i].stack_since > rt->stack_since_max)
            rt->stack_since_max = checks[i].stack_since;
    }
    rt->checks = copy;
    rt->nfiltered = f;
    rt->nchecks = n;
}

int tp_capture_route(struct tp_capture *cap, int kernel_id, uint32_t event,
                     const struct tp_check *checks, size_t nchecks)
{
    if (kernel_id < 0 || kernel_id > 0xffff || event >= cap->nevents)
        return -EINVAL;
    size_t id = (size_t)kernel_id;
    if (id >= cap->nroutes && !nchecks)
        return 0;
    struct tp_check *copy = NULL;
    if (nchecks && !(copy = malloc(nchecks * sizeof(*copy))))
        return -ENOMEM;
    if (grow_routes(cap, id) < 0) {
        free(copy);
        return -ENOMEM;
    }
    struct route *rt = &cap->routes[id];
    free(rt->checks);
    rt->event = event;
    cap->stack_routes -= rt->stack != 0;
    set_checks(rt, copy, checks, nchecks);
    cap->stack_routes += rt->stack != 0;
    atomic_store(&cap->stacks_on, cap->stack_id >= 0 && cap->stack_routes > 0);
    recompute_loss_mask(cap);
    return 0;
}

void tp_capture_stack_id(struct tp_capture *cap, int kernel_stack_id)
{
    cap->stack_id = kernel_stack_id;
}

void tp_capture_sink(struct tp_capture *cap, unsigned slot, struct tp_agg *agg)
{
    tp_slotmask bit = (tp_slotmask)1 << slot;
    cap->sinks[slot] = agg;
    cap->sink_mask = agg ? cap->sink_mask | bit : cap->sink_mask & ~bit;
    cap->discard_mask &= ~bit;
}

void tp_capture_discard(struct tp_capture *cap, unsigned slot, bool discard)
{
    tp_slotmask bit = (tp_slotmask)1 << slot;
    cap->sinks[slot] = NULL;
    cap->sink_mask = discard ? cap->sink_mask | bit : cap->sink_mask & ~bit;
    cap->discard_mask = discard ? cap->discard_mask | bit : cap->discard_mask & ~bit;
}

void tp_capture_name_events(struct tp_capture *cap, const struct tp_name_events *ne)
{
    cap->name_events = *ne;
}

void tp_capture_want_comms(struct tp_capture *cap, tp_slotmask carry, bool follow)
{
    bool want = follow || carry != 0;
    pthread_mutex_lock(&cap->lock);
    cap->named_slots = carry;
    bool was = atomic_exchange(&cap->want_comms, want);
    if (want && !was)
        atomic_fetch_add(&cap->follow_gen, 1);  /* what is known from before is stale */
    pthread_mutex_unlock(&cap->lock);
    uint64_t one = 1;
    if (want != was && write(cap->wake_fd, &one, sizeof(one)) < 0)
        return;                     /* it wakes within its timeout anyway */
}

/*
 * Wake the producer and wait, at most wait_ns, until a round begun after
 * this call (so reading after it) has handed on what it read.
 */
static int wait_round(struct tp_capture *cap, uint64_t wait_ns)
{
    unsigned long want = atomic_load(&cap->rounds) + 1;     /* begins after this call */
    uint64_t one = 1, until = tp_mono_now() + wait_ns;
    if (write(cap->wake_fd, &one, sizeof(one)) < 0)
        return -errno;
    struct timespec t = { (time_t)(until / 1000000000u), (long)(until % 1000000000u) };
    int rc = 0;
    pthread_mutex_lock(&cap->lock);
    while (rc == 0 && cap->rounds_done < want)
        rc = pthread_cond_timedwait(&cap->passed, &cap->lock, &t);
    pthread_mutex_unlock(&cap->lock);
    return -rc;
}

static enum tp_pass run_pass(struct tp_capture *cap, int max_pages, size_t *most);
static bool walks_proc(const struct tp_capture *cap);

/*
 * The caller reads: a pass of its own, of at most CATCH_UP_PAGES a CPU,
 * rather than waking the producer and sleeping until it has read (two
 * wakeups more).  Not while the producer is in a pass (waiting for the lock
 * could last as long as the producer finds more to read: a mutex is not
 * fair), nor when the pass would walk /proc for names: the caller then
 * waits, at most CATCH_UP_WAIT, for the producer's next round, as it always
 * did.  Its pass bounds how long the producer, which may be woken meanwhile,
 * waits for the lock.  The producer is woken when that pass left a CPU not
 * drained, or left events staged while it sleeps until the next event.
 */
int tp_capture_catch_up(struct tp_capture *cap, uint64_t fresh_ns)
{
    if (!cap || !cap->running || atomic_load(&cap->quiet) ||
        tp_mono_now() - atomic_load(&cap->done_at) < fresh_ns)
        return 0;
    if (tp_fault_paused() || pthread_mutex_trylock(&cap->pass_lock) != 0)
        return wait_round(cap, CATCH_UP_WAIT);
    bool stopping = atomic_load(&cap->stop);
    if (stopping || walks_proc(cap)) {
        pthread_mutex_unlock(&cap->pass_lock);
        return stopping ? 0 : wait_round(cap, CATCH_UP_WAIT);
    }
    size_t most = 0;
    enum tp_pass pass = run_pass(cap, CATCH_UP_PAGES, &most);
    cap->caught_bytes += most;
    bool staged = tp_stage_pending(cap->stage);
    pthread_mutex_unlock(&cap->pass_lock);
    uint64_t one = 1;
    if ((pass == TP_PASS_BUSY || (staged && atomic_load(&cap->quiet))) &&
        write(cap->wake_fd, &one, sizeof(one)) < 0)
        return -errno;
    return 0;
}

int tp_capture_sync(struct tp_capture *cap)
{
    return cap->running ? wait_round(cap, SYNC_WAIT) : 0;
}

void tp_capture_names_live(struct tp_capture *cap, bool live)
{
    atomic_store(&cap->names_live, live);
}

bool tp_capture_names_first(struct tp_capture *cap, int slot)
{
    pthread_mutex_lock(&cap->lock);
    if (slot >= 0)
        cap->named_slots |= (tp_slotmask)1 << slot;
    bool was = atomic_exchange(&cap->want_comms, true);
    if (!was)
        atomic_fetch_add(&cap->follow_gen, 1);
    pthread_mutex_unlock(&cap->lock);
    return !was;                    /* tp_capture_sync() wakes it */
}

/* ---- producer thread ---------------------------------------------------- */

/*
 * Does an event recorded at ts pass a filtered check?  The kernel applied
 * exactly its filter to those recorded from exact_from on.
 */
static bool passed(const struct tp_check *ck, const void *data, uint32_t size, int cpu,
                   uint64_t ts, const char *comm)
{
    if (ck->exact_from && ts >= ck->exact_from)
        return true;
    return tp_filter_match_comm(ck->filter, data, size, (unsigned)cpu, comm);
}

/* The slots an event recorded at ts goes to; comm: its task's name, if known. */
static tp_slotmask route_mask(const struct route *rt, const void *data, uint32_t size,
                              int cpu, uint64_t ts, const char *comm)
{
    tp_slotmask mask = 0;
    if (ts >= rt->since_max) {
        mask = rt->all;
        for (size_t i = 0; i < rt->nfiltered; i++)
            if (passed(&rt->checks[i], data, size, cpu, ts, comm))
                mask |= rt->checks[i].bit;
        return mask;
    }
    /* recorded before some consumer started: ask each one */
    for (size_t i = 0; i < rt->nchecks; i++) {
        const struct tp_check *ck = &rt->checks[i];
        if (ts >= ck->since && (!ck->filter || passed(ck, data, size, cpu, ts, comm)))
            mask |= ck->bit;
    }
    return mask;
}

/* The slots that want the stack of an event recorded at ts. */
static tp_slotmask stack_mask(const struct route *rt, uint64_t ts)
{
    if (ts >= rt->stack_since_max)
        return rt->stack;
    tp_slotmask mask = 0;
    for (size_t i = 0; i < rt->nchecks; i++)
        if (rt->checks[i].stack && ts >= rt->checks[i].stack_since)
            mask |= rt->checks[i].bit;
    return mask;
}

/* lock held: an event to the aggregations among its slots. */
static void feed_sinks(struct tp_capture *cap, tp_slotmask sinks, uint32_t event,
                       const struct tp_staged *e, const struct event_name *nm)
{
    bool named = nm && nm->named;
    struct tp_agg_event ev = { event, e->data, e->size, e->ts, named ? nm->comm : NULL,
                               named ? nm->len : 0, e->stack, e->nframes };
    while (sinks) {
        unsigned slot = (unsigned)__builtin_ctzll(sinks);
        sinks &= sinks - 1;
        if (cap->sinks[slot])
            tp_agg_feed_event(cap->sinks[slot], &ev);
    }
}

/* lock held: the event to the ring for the slots of mask; true if stored. */
static bool to_ring(struct tp_capture *cap, const struct tp_staged *e, const struct route *rt,
                    tp_slotmask mask, tp_slotmask stack, const char *comm, uint16_t clock)
{
    struct tp_event_meta m = { .ts = e->ts, .event = rt->event, .cpu = e->cpu,
                               .clock = clock, .mask = mask,
                               .comm = (mask & cap->named_slots) ? comm : NULL };
    if (mask & stack) {
        m.frames = e->stack;
        m.nframes = e->nframes;
    }
    if (tp_ring_append(cap->ring, &m, e->data, e->size) == 0)
        return true;
    cap->stats.oversize++;          /* cannot be stored: lost, and said so */
    cap->stats.lost++;
    tp_ring_append_loss(cap->ring, e->ts, clock, mask, 1);
    return false;
}

/* lock held: the event (and its task's name, NULL when names are not followed) */
static void append_event(struct tp_capture *cap, const struct tp_staged *e,
                         const struct event_name *nm, uint16_t clock)
{
    uint16_t id;
    memcpy(&id, e->data, sizeof(id));
    if (id >= cap->nroutes || !cap->routes[id].any)
        return;
    const struct route *rt = &cap->routes[id];
    const char *comm = nm && nm->named ? nm->comm : NULL;
    tp_slotmask mask = route_mask(rt, e->data, e->size, e->cpu, e->ts, comm);
    if (!mask)
        return;
    bool taken = false;
    tp_slotmask stack = rt->stack ? stack_mask(rt, e->ts) : 0;
    cap->stats.stack_missing += (mask & stack) && e->nframes == 0;
    if (mask & cap->sink_mask) {
        feed_sinks(cap, mask & cap->sink_mask, rt->event, e, nm);
        taken = (mask & cap->sink_mask & ~cap->discard_mask) != 0;
        mask &= ~cap->sink_mask;
    }
    if (mask && to_ring(cap, e, rt, mask, stack, comm, clock))   /* not for aggregations alone */
        taken = true;
    if (taken) {
        cap->stats.captured++;
        cap->counts[rt->event]++;
    }
}

/*
 * What the kernel remembers of the names of tasks that ran lately, read at
 * most once a batch (when /proc lacks a pid); false if unreadable.
 */
static bool read_saved_cmdlines(struct tp_capture *cap)
{
    if (!cap->cmdlines && !(cap->cmdlines = malloc(CMDLINES_MAX)))
        return false;
    int fd = open(cap->cmdlines_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t n = 0;
    ssize_t got;
    while (n < CMDLINES_MAX - 1 && (got = read(fd, cap->cmdlines + n, CMDLINES_MAX - 1 - n)) > 0)
        n += (size_t)got;
    close(fd);
    cap->cmdlines[n] = '\0';
    return true;
}

/* A pid the history has no name for: what /proc (or saved_cmdlines) says now, a guess. */
static void guess_name(struct tp_capture *cap, int32_t pid, bool *saved_read)
{
    char comm[TP_COMM_LEN];
    if (tp_comms_resolve(pid, comm) < 0 || !comm[0]) {
        if (!*saved_read)
            *saved_read = read_saved_cmdlines(cap);
        if (!*saved_read || tp_comms_from_saved(cap->cmdlines, pid, comm) < 0 || !comm[0])
            snprintf(comm, sizeof(comm), "%s", TP_COMM_UNKNOWN);
    }
    tp_comms_set(cap->comms, pid, comm, false);
}

/*
 * Producer, before the lock: each event's task name at the event, in time
 * order, following the events that rename tasks as they go by.
 */
static void name_events(struct tp_capture *cap, const struct tp_staged *ev,
                        struct event_name *o, size_t n)
{
    bool saved_read = false;
    for (size_t i = 0; i < n; i++) {
        const struct tp_staged *e = &ev[i];
        int32_t pid;
        uint16_t id;
        o[i].named = false;
        if (e->size < PID_OFFSET + sizeof(pid))
            continue;
        memcpy(&pid, (const char *)e->data + PID_OFFSET, sizeof(pid));
        memcpy(&id, e->data, sizeof(id));
        int len = tp_comms_name(cap->comms, pid, o[i].comm);
        if (len < 0) {
            guess_name(cap, pid, &saved_read);
            len = tp_comms_name(cap->comms, pid, o[i].comm);
        }
        if (len >= 0) {
            o[i].len = (uint8_t)len;
            o[i].named = true;
        }
        tp_comms_follow(cap->comms, &cap->name_events, id, e->data, e->size);
    }
}

/* Take the lock, keeping the longest wait for it. */
static void lock_timed(struct tp_capture *cap)
{
    uint64_t t0 = tp_mono_now();
    pthread_mutex_lock(&cap->lock);
    uint64_t waited = tp_mono_now() - t0;
    if (waited > cap->stats.lock_wait_max)
        cap->stats.lock_wait_max = waited;
}

/* pass_lock held: following starts (again) now, with a snapshot of /proc. */
static bool starts_following(const struct tp_capture *cap, bool want, unsigned gen)
{
    return want && (!cap->naming || gen != cap->naming_gen);
}

/* pass_lock held: the guesses made before the name events were live are read again now. */
static bool resnaps(const struct tp_capture *cap)
{
    return cap->naming && cap->resnap && atomic_load(&cap->names_live);
}

/* pass_lock held: the next follow_names() walks /proc. */
static bool walks_proc(const struct tp_capture *cap)
{
    return starts_following(cap, atomic_load(&cap->want_comms), atomic_load(&cap->follow_gen)) ||
           resnaps(cap);
}

/*
 * Start or stop following names, as the PMDA thread asked: starting (or
 * asked again after a stop this thread may have slept through), the tasks
 * running now are named from /proc.  Names are followed from before the
 * events that rename tasks are enabled (tp_agent_names_first), so a task
 * may rename itself in between: until they are, the names read are
 * guesses, and the first pass after reads /proc again for every guess.
 * Stopping, from the first pass that sees the request on, once
 * names_done() finds every event recorded before then handed on, since a
 * comm filter needed the names for them.
 */
static void follow_names(struct tp_capture *cap)
{
    bool want = atomic_load(&cap->want_comms);
    unsigned gen = atomic_load(&cap->follow_gen);
    if (starts_following(cap, want, gen)) {
        tp_comms_clear(cap->comms);
        tp_comms_snapshot(cap->comms, "/proc");
        cap->naming = true;
        cap->naming_gen = gen;
        cap->resnap = !atomic_load(&cap->names_live);
        if (cap->resnap)
            tp_comms_demote(cap->comms);
    } else if (resnaps(cap)) {
        tp_comms_snapshot(cap->comms, "/proc");     /* the guesses only */
        cap->resnap = false;
    }
    if (want || !cap->naming)
        cap->naming_stop = 0;
    else if (!cap->naming_stop)
        cap->naming_stop = tp_mono_now();
}

/*
 * After a pass has handed on every event up to the stage's watermark: a
 * stop asked for takes effect once that is past the time it was seen.
 */
static void names_done(struct tp_capture *cap)
{
    if (cap->naming_stop && tp_stage_watermark(cap->stage) >= cap->naming_stop) {
        cap->naming = false;
        cap->naming_stop = 0;
        tp_comms_clear(cap->comms);
    }
}

/*
 * lock held: every event recorded before the stage's watermark has been
 * handed on; as wall-clock time, with the offset of this pass.
 */
static void publish_watermark(struct tp_capture *cap, int64_t offset)
{
    uint64_t w = tp_stage_watermark(cap->stage);
    if (w == UINT64_MAX || w == 0)
        return;
    int64_t wall = (int64_t)w + offset;
    if (wall > 0 && (uint64_t)wall > cap->handed_wall)
        cap->handed_wall = (uint64_t)wall;
}

/* Round round has handed on what it read (lock held): tp_capture_catch_up's waiters go on. */
static void round_done(struct tp_capture *cap, unsigned long round)
{
    if (round > cap->rounds_done)       /* a pass of the other thread's may end first */
        cap->rounds_done = round;
    atomic_store(&cap->done_at, tp_mono_now());
    pthread_cond_broadcast(&cap->passed);
}

/* Hand on what every CPU has been read up to, in time order, a batch per lock. */
static void hand_on(struct tp_capture *cap)
{
    size_t n;
    int64_t offset = tp_real_offset() + tp_fault_clock_skew();
    follow_names(cap);              /* once a pass: following starts even with nothing to hand on */
    while ((n = tp_stage_next(cap->stage, cap->batch, HAND_ON_BATCH)) > 0) {
        follow_names(cap);          /* a change asked meanwhile applies to this batch */
        bool naming = cap->naming;
        if (naming)
            name_events(cap, cap->batch, cap->names, n);
        lock_timed(cap);
        uint16_t clock = tp_clock_note(&cap->clock, offset);
        for (size_t i = 0; i < n; i++)
            append_event(cap, &cap->batch[i], naming ? &cap->names[i] : NULL, clock);
        cap->stats.late = tp_stage_late(cap->stage);
        cap->stats.stack_orphans = tp_stage_orphans(cap->stage);
        pthread_mutex_unlock(&cap->lock);
    }
    names_done(cap);
    lock_timed(cap);                /* once a pass, even when it handed on nothing */
    publish_watermark(cap, offset);
    pthread_mutex_unlock(&cap->lock);
    tp_stage_release(cap->stage);
}

/*
 * Read one sub-buffer of cpu into the stage: its data length, or -EAGAIN if
 * none could be read now (no room in the stage, or interrupted).  How far
 * the CPU has been read: up to the last event read (a short sub-buffer may
 * be the rest of one read before, with full ones behind it, so it proves
 * nothing more); up to the time of a read that found nothing, less the
 * slack for events still being written then.  A CPU that cannot be read at
 * all (an offline CPU: ENODEV), or gives a sub-buffer that cannot be
 * trusted, counts as caught up to now: it never holds the others back.
 */
static long read_page(struct tp_capture *cap, int cpu)
{
    void *page = tp_stage_page(cap->stage, cpu);
    if (!page)
        return -EAGAIN;
    uint64_t t = tp_mono_now();
    uint64_t upto = t > MERGE_SLACK_NS ? t - MERGE_SLACK_NS : 0;
    ssize_t r = read(cap->cpus[cpu].raw_fd, page, cap->subbuf_size);
    if (r <= 0) {
        int err = r < 0 ? errno : 0;
        tp_stage_unget(cap->stage, cpu, page);
        if (err == EINTR)
            return -EAGAIN;
        if (err && err != EAGAIN) {
            pthread_mutex_lock(&cap->lock);
            cap->stats.read_errno = err;
            pthread_mutex_unlock(&cap->lock);
        }
        tp_stage_caught_up(cap->stage, cpu, upto);
        return 0;
    }
    int truncated;
    long len = tp_stage_push(cap->stage, cpu, page, (size_t)r, &truncated);
    if (len < 0 || truncated) {
        pthread_mutex_lock(&cap->lock);
        cap->stats.bad_pages++;
        pthread_mutex_unlock(&cap->lock);
    }
    if (len <= 0)
        tp_stage_caught_up(cap->stage, cpu, upto);
    else
        tp_stage_cut_short(cap->stage, cpu);
    return len < 0 ? 0 : len;
}

/*
 * Read one CPU until its buffer is (nearly) drained, or this pass's share is
 * read, adding the bytes read to *bytes.  Busy: not drained (its share read,
 * or no room in the stage): read again at once.  A short sub-buffer ends
 * the reading (the writer is on it), unless it is the pass's first: that
 * may be the rest of the one an earlier pass read in part, which the
 * writer has filled and left since, with more behind it (a fetch's
 * catch-up reads once, and must find those too).
 */
static enum tp_pass drain_cpu(struct tp_capture *cap, int cpu, int max_pages, size_t *bytes)
{
    enum tp_pass pass = TP_PASS_QUIET;
    for (int n = 0; n < max_pages; n++) {
        long len = read_page(cap, cpu);
        if (len < 0)
            return n > 0 ? TP_PASS_BUSY : pass;
        *bytes += (size_t)len;
        if (len > 0)
            pass = TP_PASS_SOME;
        if ((size_t)len < (cap->subbuf_size - cap->layout.data_offset) / 2 && (n > 0 || len == 0))
            return pass;
    }
    return TP_PASS_BUSY;
}

static int read_cpu_lost(int fd, uint64_t *lost)
{
    char buf[1024];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    if (n <= 0)
        return -EIO;
    buf[n] = '\0';
    uint64_t overrun, dropped;
    int rc = tp_parse_cpu_stats(buf, &overrun, &dropped);
    if (rc == 0)
        *lost = overrun + dropped;
    return rc;
}

/*
 * The kernel lost events, maybe some that renamed tasks: the names known are
 * guesses now, and /proc tells the running tasks' names again (at most once
 * a second: a walk of /proc on a busy machine is not free).
 */
static void relearn_names(struct tp_capture *cap, uint64_t now)
{
    if (now - cap->last_relearn < RELEARN_NS)
        return;
    cap->last_relearn = now;
    tp_comms_demote(cap->comms);
    tp_comms_snapshot(cap->comms, "/proc");
}

/* Turn new kernel loss on any CPU into LOSS entries for every active slot. */
static void poll_kernel_loss(struct tp_capture *cap)
{
    uint64_t now = tp_mono_now();
    if (now - cap->last_stats_poll < STATS_POLL_NS)
        return;
    cap->last_stats_poll = now;
    bool relearned = false;
    for (int i = 0; i < cap->ncpus; i++) {
        uint64_t lost;
        if (read_cpu_lost(cap->cpus[i].stats_fd, &lost) < 0 || lost <= cap->cpus[i].kernel_lost)
            continue;
        uint64_t delta = lost - cap->cpus[i].kernel_lost;
        cap->cpus[i].kernel_lost = lost;
        relearned |= cap->naming;
        pthread_mutex_lock(&cap->lock);
        cap->stats.lost += delta;
        for (tp_slotmask m = cap->loss_mask & cap->sink_mask & ~cap->discard_mask; m; m &= m - 1)
            tp_agg_lost(cap->sinks[__builtin_ctzll(m)], delta);
        if (cap->loss_mask & ~cap->sink_mask)
            tp_ring_append_loss(cap->ring, now, tp_clock_current(&cap->clock),
                                cap->loss_mask & ~cap->sink_mask, delta);
        pthread_mutex_unlock(&cap->lock);
    }
    if (relearned)
        relearn_names(cap, now);
}

static void idle_sleep(long ns)
{
    struct timespec ts = { .tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L };
    nanosleep(&ts, NULL);
}

/* The watermark at which a CPU's buffer wakes the producer (if the kernel has one). */
static void set_percent(struct tp_capture *cap, int percent)
{
    char v[8];
    int n = snprintf(v, sizeof(v), "%d", percent);
    if (cap->percent_fd >= 0 && percent != cap->percent &&
        pwrite(cap->percent_fd, v, (size_t)n, 0) == n)
        cap->percent = percent;
}

/*
 * Sleep until a CPU's buffer reaches the watermark, the timeout passes
 * (ns; -1: none), or tp_capture_stop() wakes us; staged: events wait in the
 * stage for the other CPUs; seen: the rounds begun when the stage was
 * looked at (one begun since, a fetch's, may have staged more).  Without buffer_percent
 * (kernels before 5.x) there is no watermark to wait for: a timer it is.
 */
static void wait_for_data(struct tp_capture *cap, const struct tp_pace *pace, bool staged,
                          unsigned long seen)
{
    struct tp_pace p = *pace;
    if (staged && p.timeout_ns < 0)
        p.timeout_ns = STAGED_WAIT_NS;      /* they go on once every CPU is read past them */
    pace = &p;
    if (pace->timeout_ns == 0)
        return;
    set_percent(cap, pace->percent);
    if (cap->percent_fd < 0 && pace->percent) {
        idle_sleep(pace->timeout_ns);
        return;
    }
    int ms = pace->timeout_ns < 0 ? (cap->percent_fd < 0 ? TP_PACE_NOWM_NS / 1000000 : -1)
                                  : (int)((pace->timeout_ns + 999999) / 1000000);
    atomic_store(&cap->quiet, ms < 0);      /* the first event wakes it: no catch-up */
    if (ms < 0 && atomic_load(&cap->rounds) != seen)
        ms = (int)(STAGED_WAIT_NS / 1000000);   /* a fetch's pass came between: it may stage */
    int ready = poll(cap->pfd, (nfds_t)cap->ncpus + 1, ms);
    atomic_store(&cap->quiet, false);
    if (ready > 0 && cap->pfd[cap->ncpus].revents) {
        uint64_t n;
        if (read(cap->wake_fd, &n, sizeof(n)) < 0)
            return;                 /* woken to stop: nothing to read */
    }
    pthread_mutex_lock(&cap->lock);
    cap->stats.wakeups++;
    pthread_mutex_unlock(&cap->lock);
}

/*
 * pass_lock held: one pass over the CPUs: each read until drained (or
 * max_pages read), what every CPU has been read past handed on, kernel
 * loss noted, the round done.  How busy the pass was; *most: the bytes the
 * busiest CPU gave.
 */
static enum tp_pass run_pass(struct tp_capture *cap, int max_pages, size_t *most)
{
    follow_names(cap);
    bool stacks = atomic_load(&cap->stacks_on);
    if (stacks != cap->staging_stacks) {
        tp_stage_stacks(cap->stage, stacks ? cap->stack_id : -1);
        cap->staging_stacks = stacks;
    }
    unsigned long round = atomic_fetch_add(&cap->rounds, 1) + 1;
    enum tp_pass pass = TP_PASS_QUIET;
    for (int i = 0; i < cap->ncpus; i++) {
        size_t bytes = 0;
        enum tp_pass p = drain_cpu(cap, i, max_pages, &bytes);
        pass = p > pass ? p : pass;
        *most = bytes > *most ? bytes : *most;
    }
    hand_on(cap);
    poll_kernel_loss(cap);
    pthread_mutex_lock(&cap->lock);
    round_done(cap, round);
    pthread_mutex_unlock(&cap->lock);
    return pass;
}

static void *producer_main(void *arg)
{
    struct tp_capture *cap = arg;
    struct tp_pace pace;
    tp_pace_init(&pace);
    if (cap->percent_fd < 0)
        tp_pace_no_watermark(&pace);
    pthread_setname_np(pthread_self(), "tp-producer");
    int tid = (int)syscall(SYS_gettid);
    atomic_store(&cap->tid, tid);
    (void)apply_nice(tid, atomic_load(&cap->nice));   /* not permitted: the PMDA's own */
    while (!atomic_load_explicit(&cap->stop, memory_order_relaxed)) {
        if (tp_fault_paused()) {
            unsigned long r = atomic_fetch_add(&cap->rounds, 1) + 1;  /* it reads what was */
            pthread_mutex_lock(&cap->lock);                         /* asked before reading on */
            round_done(cap, r);
            pthread_mutex_unlock(&cap->lock);
            idle_sleep(TP_PACE_MIN_NS);
            continue;
        }
        size_t most = 0;
        pthread_mutex_lock(&cap->pass_lock);
        enum tp_pass pass = run_pass(cap, MAX_PAGES_PER_PASS, &most);
        if (cap->caught_bytes && pass == TP_PASS_QUIET)
            pass = TP_PASS_SOME;        /* events flow, though a fetch read them */
        most += cap->caught_bytes;      /* the rate is what was written, whoever read it */
        cap->caught_bytes = 0;
        bool staged = tp_stage_pending(cap->stage);
        unsigned long seen = atomic_load(&cap->rounds);
        pthread_mutex_unlock(&cap->pass_lock);
        tp_pace_after(&pace, pass, most, tp_mono_now());
        wait_for_data(cap, &pace, staged, seen);
    }
    return NULL;
}

int tp_capture_start(struct tp_capture *cap)
{
    if (cap->running)
        return 0;
    atomic_store(&cap->stop, false);
    for (int i = 0; i < cap->ncpus; i++)   /* baseline: loss before we started is not ours */
        read_cpu_lost(cap->cpus[i].stats_fd, &cap->cpus[i].kernel_lost);
    int rc = pthread_create(&cap->thread, NULL, producer_main, cap);
    if (rc != 0)
        return -rc;
    cap->running = true;
    return 0;
}

void tp_capture_stop(struct tp_capture *cap)
{
    if (!cap || !cap->running)
        return;
    atomic_store(&cap->stop, true);
    uint64_t one = 1;
    if (write(cap->wake_fd, &one, sizeof(one)) < 0)
        atomic_store(&cap->stop, true);     /* it wakes within its timeout anyway */
    pthread_join(cap->thread, NULL);
    atomic_store(&cap->tid, 0);
    cap->running = false;
}
