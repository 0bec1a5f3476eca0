#!/bin/bash
# bench/streamprof.sh BUILD: where row 13's stream spends its time, by thread.
#
# The PMDA in pmcd with row 13's stream ('stream wk syscalls:sys_enter_getpid
# params=fields filter comm == "tpbench_gen"', ring_size 64M,
# kernel_buffer_kb 1024), bclient reading it with a pause of IV us after
# each fetch, the generator pinned to CPU 0 at RATE calls/s for SECS s
# (RATE=0: FLATN calls flat out).  Prints bclient's summary line, each PMDA
# thread's CPU and run-queue wait per event (schedstat) and pmcd's CPU per
# event.  MODE=record also records the PMDA with perf (FREQ Hz, call graphs
# unless PG=) into perf.data in the current directory.  The installed
# tracepoint.conf and PMDA binary are put back at the end.
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
RATE=${RATE:-50000} SECS=${SECS:-4} MODE=${MODE:-stat} IV=${IV:-10000}
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

printf 'ring_size 64M\nkernel_buffer_kb 1024\nstream wk syscalls:sys_enter_getpid params=fields filter comm == "tpbench_gen"\n' \
    > "$PMDADIR/tracepoint.conf"
pmda_install_bin "$B/pmdatracepoint"
pmda_restart || { echo "streamprof: the PMDA did not restart" >&2; exit 1; }
"$B/tpbench_load" 0 2000 > /dev/null
tp=$(pmda_pid)

# threads: NAME CPU_NS WAIT_NS, one line per thread of the PMDA
threads() {
    local t
    for t in /proc/"$tp"/task/*; do
        printf '%s %s\n' "$(cat "$t/comm")" "$(awk '{ print $1, $2 }' "$t/schedstat")"
    done
}
"$B/bclient" -i "$IV" wk "$N" 1500 > "$tmp/bcl" 2>&1 &
bp=$!
wait_for "grep -q ready $tmp/bcl" 100 || { cat "$tmp/bcl" >&2; exit 1; }
threads > "$tmp/t0"
m0=$(awk '{ print $1 }' /proc/"$(pgrep -x pmcd)"/schedstat)
if [ "$MODE" = record ]; then
    perf record -F "${FREQ:-4999}" ${PG--g} -p "$tp" -o perf.data 2> /dev/null &
    pp=$!
    wait_for "[ -s perf.data ]"
fi
taskset -c 0 "$B/tpbench_load" 0 "$N" $pace > /dev/null
[ "$MODE" = record ] && { kill -INT "$pp"; wait "$pp"; }
wait "$bp"
threads > "$tmp/t1"
m1=$(awk '{ print $1 }' /proc/"$(pgrep -x pmcd)"/schedstat)
tail -1 "$tmp/bcl"
paste "$tmp/t0" "$tmp/t1" |
    awk -v n="$N" '{ printf "%-16s cpu %7.1f ns/ev  run-queue wait %7.1f ns/ev\n", $1, ($5 - $2) / n, ($6 - $3) / n }'
echo "pmcd             cpu $(( (m1 - m0) / N )) ns/ev"
