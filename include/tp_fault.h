/*
 * tp_fault: injected failures, for the tests that show what the PMDA does
 * when memory runs out.  Built in only with -DTP_FAULT_INJECTION (the QA's
 * build-fault); in every other build tp_fault() is the constant false.
 *
 * PMDATRACEPOINT_FAULTS="SITE:N[xK][,...]" makes the last K (default 1) of
 * every N calls at SITE fail.  Sites: "fetch" (each allocation while an
 * event array is built).
 *
 * Threading: PMDA thread only.
 */
#ifndef TP_FAULT_H
#define TP_FAULT_H

#include <stdbool.h>

enum tp_fault_site { TP_FAULT_FETCH, TP_NFAULT_SITES };

#ifdef TP_FAULT_INJECTION
bool tp_fault(enum tp_fault_site site);
#else
static inline bool tp_fault(enum tp_fault_site site) { (void)site; return false; }
#endif

#endif
