#!/bin/bash
# Row 13's PMDA CPU at a moderate rate, split into what each part costs:
#   idle-fetch  the PMDA's CPU per fetch of an empty stream (bclient every
#               10 ms, no events): the client's own pace, C ns a fetch, adds
#               C / (events per fetch) to every event;
#   idle        the PMDA's CPU a second with nothing to do;
#   stream-noclient, agg
#               the PMDA's CPU per event with no client fetching (the
#               producer alone, into the ring or the aggregation), paced at
#               RATE and flat out, with the producer's wakeups: what a
#               paced event costs more than a flat-out one, times the
#               events, over the extra wakeups, is the cost of a wakeup.
# No pmprobe runs inside a timed step.  As root, with the PMDA installed in
# pmcd, under both bench locks; restores the PMDA's config and binary.
#
#   bench/wakesplit.sh [BUILD_DIR]        (default: build)
# Environment: WAKESPLIT_RATE (default 50000), WAKESPLIT_SECS (default 4).
. /etc/pcp.env
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$top/build}
case $B in /*) ;; *) B=$top/$B ;; esac
RATE=${WAKESPLIT_RATE:-50000}; SECS=${WAKESPLIT_SECS:-4}
PMDADIR=$PCP_PMDAS_DIR/tracepoint
. "$top/bench/lib.sh"
tmp=$(mktemp -d /tmp/tpwakesplit.XXXXXX)
cp "$PMDADIR/tracepoint.conf" "$tmp/orig.conf"; cp "$PMDADIR/pmdatracepoint" "$tmp/orig.bin"
restore() {
    cp "$tmp/orig.conf" "$PMDADIR/tracepoint.conf"
    pmda_install_bin "$tmp/orig.bin"
    pmda_restart
    rm -rf "$tmp"
}
trap restore 0
cpu_ns() {  # all threads of pid $1
    local s=0 v t
    for t in /proc/$1/task/*; do read -r v _ < "$t/schedstat" 2>/dev/null || v=0; s=$((s + v)); done
    echo $s
}
wakeups() { pmprobe -v tracepoint.producer.wakeups | awk '{ print $3 }'; }
with_conf() {  # CONF_LINE: the PMDA of BUILD_DIR in pmcd with it; sets PID
    pmda_install_bin "$B/pmdatracepoint"
    printf 'ring_size 64M\nkernel_buffer_kb 1024\n%s\n' "$1" > "$PMDADIR/tracepoint.conf"
    pmda_restart || { echo "wakesplit: the PMDA did not restart" >&2; exit 1; }
    "$B/tpbench_load" 0 2000 > /dev/null; sleep 1
    PID=$(pmda_pid)
}
steps() {  # TAG RATE...: the producer alone at each rate (0: flat out)
    local tag=$1 r n w0 w1 c0 c1
    shift
    for r; do
        n=$([ "$r" = 0 ] && echo 2000000 || echo $((r * SECS)))
        w0=$(wakeups); c0=$(cpu_ns "$PID")
        "$B/tpbench_load" 0 "$n" "$r" > /dev/null; sleep 0.3     # the last pass: at most 20 ms
        c1=$(cpu_ns "$PID"); w1=$(wakeups)
        echo "$tag rate $r n $n pmda_ns/ev $(( (c1 - c0) / n )) wakeups $((w1 - w0))"
    done
}
FILTER='comm == "tpbench_gen"'; GP=syscalls:sys_enter_getpid
with_conf "stream wk $GP params=fields filter $FILTER"
"$B/bclient" -i 10000 wk 1000000000 $((SECS * 1000)) > "$tmp/bcl" 2>&1 &
bp=$!
wait_for "grep -q ready $tmp/bcl" 100
c0=$(cpu_ns "$PID"); wait $bp; c1=$(cpu_ns "$PID")
f=$(awk '{ for (i = 1; i < NF; i++) if ($i == "fetches") print $(i + 1) }' "$tmp/bcl" | tail -1)
echo "idle-fetch fetches ${f:-0} pmda_ns $((c1 - c0)) ns/fetch $(( (c1 - c0) / (${f:-0} > 0 ? f : 1) ))"
c0=$(cpu_ns "$PID"); sleep "$SECS"; c1=$(cpu_ns "$PID")
echo "idle pmda_ns/s $(( (c1 - c0) / SECS ))"
steps stream-noclient "$RATE" 0
with_conf "count wc $GP by comm backend=producer filter $FILTER"
steps agg "$RATE" 0 "$RATE" 0
