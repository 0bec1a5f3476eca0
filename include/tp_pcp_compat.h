/*
 * The one place that knows which PMAPI we build against (the client side:
 * client/, the QA and bench helpers; the PMDA's callbacks are in
 * tp_pcp_pmda_compat.h).  Everything else is written once, for both.
 *
 * PCP 6.0.3 to 6.3.x (PMAPI_VERSION 2): pmResult and pmOptions carry
 * struct timeval; the nanosecond variants are pmHighResResult,
 * pmFreeHighResResult; pmSetMode(int, const struct timeval *, int).
 * PCP 7 (PMAPI_VERSION 4): pmResult and pmOptions carry struct timespec;
 * pmUnpackEventRecords hands out pmResult_v2 (still struct timeval, freed
 * by pmFreeResult_v2); pmHighResResult is pmResult and pmFreeHighResResult
 * is gone; pmSetMode(int, const struct timespec *, const struct timespec *).
 *
 * Types and inline helpers only; no state.  The helpers call libpcp (and
 * free()), so they run where libpcp is called: the client's one thread,
 * the helper's main thread.
 */
#ifndef TP_PCP_COMPAT_H
#define TP_PCP_COMPAT_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#include <pcp/pmapi.h>

/* Each release's default PMAPI_VERSION; no other pairing is written for. */
#if PM_VERSION_CURRENT >= PM_VERSION(7, 0, 0) && PMAPI_VERSION == 4
#define TP_PMAPI_TIMESPEC 1
#elif PM_VERSION_CURRENT < PM_VERSION(7, 0, 0) && PMAPI_VERSION == 2
#define TP_PMAPI_TIMESPEC 0
#else
#error "tp_pcp_compat.h: build with PCP 6 at PMAPI_VERSION 2 or PCP 7 at PMAPI_VERSION 4 (their defaults)"
#endif

/* The time of pmResult.timestamp and of pmOptions' start, finish, origin and interval. */
#if TP_PMAPI_TIMESPEC
typedef struct timespec tp_time;
static inline uint64_t tp_time_ns(const tp_time *t)
{
    return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}
#else
typedef struct timeval tp_time;
static inline uint64_t tp_time_ns(const tp_time *t)
{
    return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_usec * 1000u;
}
#endif

/* Replay an archive forwards from origin (pmOptions.origin). */
static inline int tp_set_mode_forward(const tp_time *origin)
{
#if TP_PMAPI_TIMESPEC
    return pmSetMode(PM_MODE_FORW, origin, NULL);
#else
    return pmSetMode(PM_MODE_FORW, origin, 0);
#endif
}

/*
 * One record of a PM_TYPE_EVENT array, as pmUnpackEventRecords hands it
 * out (stamped to the microsecond, a struct timeval in every release), and
 * one of a PM_TYPE_HIGHRES_EVENT array (a struct timespec).
 */
#if TP_PMAPI_TIMESPEC
typedef pmResult_v2 tp_event_result;
typedef pmResult tp_hres_result;
static inline void tp_free_event_result(tp_event_result *r) { pmFreeResult_v2(r); }
static inline void tp_free_hres_result(tp_hres_result *r) { pmFreeResult(r); }
#else
typedef pmResult tp_event_result;
typedef pmHighResResult tp_hres_result;
static inline void tp_free_event_result(tp_event_result *r) { pmFreeResult(r); }
static inline void tp_free_hres_result(tp_hres_result *r) { pmFreeHighResResult(r); }
#endif

static inline uint64_t tp_event_ns(const tp_event_result *r)
{
    return (uint64_t)r->timestamp.tv_sec * 1000000000u + (uint64_t)r->timestamp.tv_usec * 1000u;
}

static inline uint64_t tp_hres_ns(const tp_hres_result *r)
{
    return (uint64_t)r->timestamp.tv_sec * 1000000000u + (uint64_t)r->timestamp.tv_nsec;
}

/* Value j of vs unpacked: the count of records, or a negative PCP error. */
static inline int tp_unpack_events(pmValueSet *vs, int j, tp_event_result ***out)
{
    return pmUnpackEventRecords(vs, j, out);
}

static inline int tp_unpack_hres_events(pmValueSet *vs, int j, tp_hres_result ***out)
{
    return pmUnpackHighResEventRecords(vs, j, out);
}

/*
 * Free what tp_unpack_*events handed out (res may be NULL when n <= 0).
 * libpcp (6.0, and 7.2's result.c) keeps every result it allocates on a
 * list that its free searches from the newest: pmFreeEventResult, which frees the oldest
 * first, takes time quadratic in the records of an array (5 s for
 * 60,000).  Newest first, each is found at once.
 */
static inline void tp_free_unpacked(tp_event_result **res, int n)
{
    for (int i = n - 1; i >= 0; i--)
        tp_free_event_result(res[i]);
    free(res);
}

static inline void tp_free_unpacked_hres(tp_hres_result **res, int n)
{
    for (int i = n - 1; i >= 0; i--)
        tp_free_hres_result(res[i]);
    free(res);
}

#endif
