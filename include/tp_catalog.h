/*
 * tp_catalog: every tracepoint on the machine, and the fields of each.
 *
 * Creating the catalog only lists event directories (cheap); an event's
 * format is parsed the first time something needs its fields (lazy), with a
 * throw-away libtraceevent handle, and kept as a compact field table.
 *
 * Events are indexed 0..nevents-1 in (system, event) order.  The index is
 * stable for a given kernel and is what PMIDs and ring entries carry.
 *
 * After the kernel's events come TP_CATALOG_PROBE_SLOTS slots for the
 * PMDA's own dynamic probes, system "probe".  A slot is vacant until a probe
 * is bound to it (its kernel directory is the PMDA's group), and vacant
 * again once the probe is unbound; an unbound probe keeps its names and
 * fields (records already in the ring still decode), but no lookup or
 * listing finds it.  A bind takes the vacant slot unbound longest ago, so
 * a slot is reused only after every other vacant one; what it held is kept
 * until the catalog is destroyed (aggregations' key names point at field
 * names), a few hundred bytes per reuse.  Event groups of pmdatracepoint
 * processes (TP_PROBE_GROUP_PREFIX), and a kernel system named "probe"
 * (perf probe's default group), are never listed.
 *
 * Threading: PMDA thread only.  The field tables of loaded events are
 * immutable once loaded, so other threads may read a loaded event's fields.
 */
#ifndef TP_CATALOG_H
#define TP_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum tp_field_kind {
    TP_FIELD_INT,           /* signed scalar, 1..8 bytes */
    TP_FIELD_UINT,          /* unsigned scalar or pointer, 1..8 bytes */
    TP_FIELD_STRING,        /* char[N] (or char[] to the end of the record) */
    TP_FIELD_DLOC_STRING,   /* __data_loc char[] */
    TP_FIELD_RLOC_STRING,   /* __rel_loc char[] */
    TP_FIELD_BYTES,         /* any other array or odd size: raw bytes */
    TP_FIELD_DLOC_BYTES,    /* __data_loc of another element type */
    TP_FIELD_RLOC_BYTES,    /* __rel_loc of another element type */
};

struct tp_field {
    char *name;
    char *decl;             /* as in the format: "__data_loc char[] filename" */
    uint32_t offset;
    uint32_t size;          /* 0: extends to the end of the record */
    enum tp_field_kind kind;
    int pmtype;             /* PM_TYPE_32/U32/64/U64/STRING/AGGREGATE */
};

#define TP_CATALOG_PROBE_SLOTS 64
#define TP_PROBE_SYSTEM        "probe"
#define TP_PROBE_GROUP_PREFIX  "pmdatracepoint_"

struct tp_event {
    char *system;
    char *name;
    char *ksystem;          /* its directory under events/: system, or a probe's group */
    bool probe;             /* a probe slot */
    bool vacant;            /* a probe slot with no probe bound: found by no lookup */
    char *fullname;         /* "system:event" */
    uint32_t fullname_len;  /* strlen(fullname) */
    bool loaded;
    int load_error;         /* < 0 if the format could not be parsed */
    int kernel_id;          /* from the format; -1 until loaded */
    uint32_t pid_offset;    /* common_pid */
    char *print_fmt;        /* the format's print fmt, for help text */
    struct tp_field *fields;/* the event's own fields (common_* excluded) */
    unsigned nfields;
    struct tp_field *common;/* common_type, common_flags, common_preempt_count, common_pid */
    unsigned ncommon;
};

/* A dynamic probe's event: a probe slot, or an event of the kernel's "probe" system. */
static inline bool tp_event_is_probe(const struct tp_event *e)
{
    return e->probe || strcmp(e->system, "probe") == 0;
}

struct tp_catalog;

/* List the events under tracing_dir/events.  Returns 0 or -errno. */
int tp_catalog_create(struct tp_catalog **out, const char *tracing_dir);
void tp_catalog_destroy(struct tp_catalog *cat);

size_t tp_catalog_count(const struct tp_catalog *cat);
/* The event at idx, not necessarily loaded; NULL if idx is out of range. */
struct tp_event *tp_catalog_event(struct tp_catalog *cat, size_t idx);
/* Index of system:event (not a vacant slot), or -ENOENT. */
int tp_catalog_find(const struct tp_catalog *cat, const char *system, const char *event);
/*
 * Index of the first event of a system, or -ENOENT; events of a system are
 * contiguous.  For "probe": the first probe slot (vacant ones lie among
 * the bound), or -ENOENT while every slot is vacant.
 */
int tp_catalog_find_system(const struct tp_catalog *cat, const char *system);

/*
 * Bind probe:name to the next vacant probe slot; its format is read from
 * events/ksystem/name.  Returns the slot's index, or -EEXIST (a probe of
 * that name is bound), -ENOSPC (no vacant slot) or -ENOMEM.
 */
int tp_catalog_bind_probe(struct tp_catalog *cat, const char *name, const char *ksystem);
/* The probe at idx is gone: its slot is vacant again. */
void tp_catalog_unbind_probe(struct tp_catalog *cat, size_t idx);

/*
 * Parse the event's format if not done yet.  Returns 0 or a negative error,
 * which is remembered unless it may pass (tracefs out of reach, no memory).
 */
int tp_catalog_load(struct tp_catalog *cat, size_t idx);

/*
 * The text of an event's format file, NUL-terminated, in a malloc'd *buf of
 * *len bytes (the caller frees it).  0 or a negative errno.
 */
int tp_catalog_read_format(struct tp_catalog *cat, size_t idx, char **buf, size_t *len);

/*
 * The parsing part of tp_catalog_load: the text of a format file (len bytes
 * at buf, NUL-terminated after them) into e, whose system is set and whose
 * fields are not loaded yet.  Sets kernel_id, pid_offset, print_fmt and the
 * field tables, but not loaded or load_error.  Returns 0, or -EINVAL (not
 * laid out as the kernel writes formats, or refused by libtraceevent) or
 * -ENOMEM, leaving e without fields.  Safe on arbitrary text.
 */
int tp_catalog_parse_format(struct tp_event *e, const char *buf, size_t len);

/*
 * The pure part: kind and PCP type of a field, from its libtraceevent flags
 * (TEP_FIELD_IS_*), type text, size and signedness.
 */
enum tp_field_kind tp_field_classify(unsigned long tep_flags, const char *type,
                                     int size, int *pmtype);

/* A field of the event by name, its own first, then a common one (common_pid...); NULL if none. */
const struct tp_field *tp_event_field(const struct tp_event *e, const char *name);

#endif
