/* Performance Metrics Domain Number of the tracepoint PMDA. */
#define TRACEPOINT 400
