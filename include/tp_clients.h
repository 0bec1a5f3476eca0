/*
 * tp_clients: per-context state, keyed by the PMCD context id.  Each context
 * has one cursor per slot, created at its first fetch of that slot.
 *
 * Threading: PMDA thread.
 */
#ifndef TP_CLIENTS_H
#define TP_CLIENTS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_ring.h"

struct tp_client {
    int active;
    tp_slotmask started;                        /* slots whose cursor exists */
    struct tp_cursor cursor[TP_RING_MAX_SLOTS];
    uint64_t last_seen_ns;
};

struct tp_clients;

int tp_clients_create(struct tp_clients **out);
void tp_clients_destroy(struct tp_clients *cl);

/* The context's state, created on first use; NULL for a bad id or no memory. */
struct tp_client *tp_clients_get(struct tp_clients *cl, int ctx);
/* The context ended: forget it. */
void tp_clients_end(struct tp_clients *cl, int ctx);
/* Forget every context's cursor for a slot (the slot got a new owner). */
void tp_clients_forget_slot(struct tp_clients *cl, unsigned slot);
size_t tp_clients_active(const struct tp_clients *cl);

#endif
