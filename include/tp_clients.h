/*
 * tp_clients: per-context state, keyed by the PMCD context id: the cursors
 * (one per slot, created at the context's first fetch of that slot), who the
 * client is (credentials pmcd forwarded), and its subscriptions.
 *
 * Threading: PMDA thread.
 */
#ifndef TP_CLIENTS_H
#define TP_CLIENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tp_ring.h"

/* What pmcd told us about the client (PMDA_ATTR_*); nothing for a remote
 * client that did not authenticate. */
struct tp_creds {
    bool has_uid, has_gid;
    uid_t uid;
    gid_t gid;
    pid_t pid;                  /* 0: unknown (not a local client) */
    char user[64];              /* "" unless authenticated by name */
};

/*
 * One subscribed event of a client, with its filter (NULL: none) and when
 * that filter was set (trace clock): events recorded before are not its.
 */
struct tp_sub {
    uint32_t event;
    char *filter;
    uint64_t since;
};

struct tp_client {
    int ctx;
    tp_slotmask started;                        /* slots whose cursor exists */
    struct tp_cursor cursor[TP_RING_MAX_SLOTS];
    uint64_t owed_records;                      /* events of subscriptions it lost: missed next */
    uint64_t last_seen_ns;                      /* last request, CLOCK_MONOTONIC */
    bool requested;                             /* has made a request (fetch, store) */
    bool idle;                                  /* silent past client_timeout: no subscriptions */
    struct tp_creds creds;
    int slot;                                   /* of its subscriptions; -1: none */
    unsigned with;                              /* enum tp_with: what its records carry */
    struct tp_sub *subs;                        /* sorted by event */
    size_t nsubs;
    size_t filter_bytes;                        /* memory its filters hold */
    char last_error[256];
};

struct tp_clients;

#define TP_CLIENTS_RETIRED 32

int tp_clients_create(struct tp_clients **out);
void tp_clients_destroy(struct tp_clients *cl);

/* The context's state, created on first use; NULL for a bad id or no memory. */
struct tp_client *tp_clients_get(struct tp_clients *cl, int ctx, uint64_t now_ns);
/* The context's state if it has any. */
struct tp_client *tp_clients_find(const struct tp_clients *cl, int ctx);
/*
 * Forget the context (its subscriptions must have been released).  A local
 * client's stream positions are kept, by pid (the last TP_CLIENTS_RETIRED
 * pids), for tp_clients_resume.
 */
void tp_clients_end(struct tp_clients *cl, int ctx);
/*
 * Where a context's first read of stream slot starts when its process has
 * read that stream in another context (a client that reconnected, or whose
 * end-of-context notice is late): the furthest position any of them
 * reached, so that no event reaches that client twice.  True and *out set,
 * or false (a new client: the backlog applies).
 */
bool tp_clients_resume(const struct tp_clients *cl, const struct tp_client *c, unsigned slot,
                       struct tp_cursor *out);
/* Forget the kept positions of pids for which gone(arg, pid) is true. */
void tp_clients_drop_retired(struct tp_clients *cl, bool (*gone)(void *arg, pid_t pid),
                             void *arg);
/* Every started cursor of every context after the ring moved (tp_ring_resize). */
void tp_clients_rebase(struct tp_clients *cl, const struct tp_ring_rebase *map);
/* Forget every context's cursor for a slot (the slot got a new owner). */
void tp_clients_forget_slot(struct tp_clients *cl, unsigned slot);
/* Contexts that have used an event or control metric, and not gone idle since. */
size_t tp_clients_active(const struct tp_clients *cl);
/* Contexts with state: call fn for each (fn may end the context). */
void tp_clients_each(struct tp_clients *cl, void (*fn)(void *arg, struct tp_client *c),
                     void *arg);

/* Drop the client's subscription list (not what demand holds). */
void tp_client_clear_subs(struct tp_client *c);

#endif
