#!/bin/bash
# bench/streamprof.sh BUILD: where row 13's stream spends its time, by thread.
#
# The PMDA in pmcd with row 13's stream ('stream wk syscalls:sys_enter_getpid
# params=fields filter comm == "tpbench_gen"', ring_size 64M,
# kernel_buffer_kb 1024), bclient reading it with a pause of IV us after
# each fetch, the generator pinned to CPU 0 at RATE calls/s for SECS s
# (RATE=0: FLATN calls flat out).  Prints bclient's summary line, each PMDA
# thread's CPU and run-queue wait per event (schedstat) and pmcd's CPU per
# event, and the page faults and voluntary context switches of each over
# the run.  MODE=record also records the PMDA with perf (FREQ Hz, call graphs
# unless PG=) into perf.data in the current directory.  Before bclient
# starts, WARM calls (default 3000000; 0: none) flat out wrap the ring once,
# so that the run measures a running PMDA, not a fresh one's first touch of
# its ring's pages (with backlog 0, bclient's first fetch does not reach
# back to them).  The installed tracepoint.conf and PMDA binary are put back
# at the end.
#
#   RATE=50000 IV=10000 bench/streamprof.sh build
#   RATE=50000 IV=2500 MODE=record FREQ=20000 PG= bench/streamprof.sh build
. /etc/pcp.env   # before set -u: it reads PCP_ENV_DONE unset
set -u
B=$(cd "${1:?usage: $0 BUILD}" && pwd)
PMDADIR=$PCP_PMDAS_DIR/tracepoint
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=bench/lib.sh
. bench/lib.sh
PATH=$PCP_BINADM_DIR:$PATH
RATE=${RATE:-50000} SECS=${SECS:-4} MODE=${MODE:-stat} IV=${IV:-10000} WARM=${WARM:-3000000}
if [ "$RATE" = 0 ]; then N=${FLATN:-3000000} pace=; else N=$((RATE * SECS)) pace=$RATE; fi
tmp=$(mktemp -d)
cp "$PMDADIR/tracepoint.conf" "$tmp/conf" && cp "$PMDADIR/pmdatracepoint" "$tmp/bin" || exit 1
restore() {
    cp "$tmp/conf" "$PMDADIR/tracepoint.conf"
    install -m 755 "$tmp/bin" "$PMDADIR/pmdatracepoint"
    pmda_restart
    rm -rf "$tmp"
}
trap restore EXIT

printf 'ring_size 64M\nkernel_buffer_kb 1024\nbacklog 0\nstream wk syscalls:sys_enter_getpid params=fields filter comm == "tpbench_gen"\n' \
    > "$PMDADIR/tracepoint.conf"
pmda_install_bin "$B/pmdatracepoint"
pmda_restart || { echo "streamprof: the PMDA did not restart" >&2; exit 1; }
"$B/tpbench_load" 0 2000 > /dev/null
tp=$(pmda_pid)
if [ "$WARM" -gt 0 ]; then
    w0=$(mval tracepoint.captured)
    taskset -c 0 "$B/tpbench_load" 0 "$WARM" > /dev/null
    wait_for "[ \$(mval tracepoint.captured) -ge $((w0 + WARM)) ]" 300 ||
        { echo "streamprof: the PMDA did not read the warm-up" >&2; exit 1; }
fi

# threads: NAME CPU_NS WAIT_NS MINFLT VCSW, one line per thread of the PMDA
threads() {
    local t
    for t in /proc/"$tp"/task/*; do
        printf '%s %s %s %s\n' "$(cat "$t/comm")" "$(awk '{ print $1, $2 }' "$t/schedstat")" \
            "$(sed 's/.*) //' "$t/stat" | awk '{ print $8 }')" \
            "$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$t/status")"
    done
}
"$B/bclient" -i "$IV" wk "$N" 1500 > "$tmp/bcl" 2>&1 &
bp=$!
wait_for "grep -q ready $tmp/bcl" 100 || { cat "$tmp/bcl" >&2; exit 1; }
threads > "$tmp/t0"
pc=$(pgrep -x pmcd)
m0=$(awk '{ print $1 }' /proc/"$pc"/schedstat)
f0=$(sed 's/.*) //' /proc/"$pc"/stat | awk '{ print $8 }')
c0=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/"$pc"/status)
if [ "$MODE" = record ]; then
    perf record -F "${FREQ:-4999}" ${PG--g} -p "$tp" -o perf.data 2> /dev/null &
    pp=$!
    wait_for "[ -s perf.data ]"
fi
taskset -c 0 "$B/tpbench_load" 0 "$N" $pace > /dev/null
[ "$MODE" = record ] && { kill -INT "$pp"; wait "$pp"; }
wait "$bp"
threads > "$tmp/t1"
m1=$(awk '{ print $1 }' /proc/"$pc"/schedstat)
f1=$(sed 's/.*) //' /proc/"$pc"/stat | awk '{ print $8 }')
c1=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/"$pc"/status)
tail -1 "$tmp/bcl"
paste "$tmp/t0" "$tmp/t1" |
    awk -v n="$N" '{ printf "%-16s cpu %7.1f ns/ev  run-queue wait %7.1f ns/ev  page faults %6d  switches %6d\n",
                     $1, ($7 - $2) / n, ($8 - $3) / n, $9 - $4, $10 - $5 }'
echo "pmcd             cpu $(( (m1 - m0) / N )) ns/ev  page faults $((f1 - f0))  switches $((c1 - c0))"
