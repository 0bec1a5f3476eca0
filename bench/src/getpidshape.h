/*
 * getpidshape: the record of a syscalls:sys_enter_getpid event with
 * params=fields as the PMDA shapes it (event name, cpu, pid, time_ns,
 * __syscall_nr), for the micro-benchmarks that write such records.
 * Header-only.  Slots 0-3 of the shape: cpu, pid, time_ns, __syscall_nr.
 */
#ifndef GETPIDSHAPE_H
#define GETPIDSHAPE_H

#include "tp_encode.h"

#define GETPID_NAME "syscalls:sys_enter_getpid"

static inline void getpid_shape(struct tp_enc_shape *sh)
{
    tp_enc_shape_init(sh);
    tp_enc_shape_data(sh, pmID_build(400, 1, 0), PM_TYPE_STRING, GETPID_NAME, sizeof(GETPID_NAME) - 1);
    tp_enc_shape_int(sh, pmID_build(400, 1, 1), PM_TYPE_U32);
    tp_enc_shape_int(sh, pmID_build(400, 1, 2), PM_TYPE_32);
    tp_enc_shape_int(sh, pmID_build(400, 1, 3), PM_TYPE_U64);
    tp_enc_shape_int(sh, pmID_build(400, 2000, 0), PM_TYPE_32);
}

#endif
