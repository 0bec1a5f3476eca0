#!/bin/bash
# make demo: install the PMDA into pmcd (if it is not there yet), run a few
# programs, and show their kernel exec events as PCP event records.
set -e
. /etc/pcp.env
top=$(cd "$(dirname "$0")/.." && pwd)
pmdadir=$PCP_PMDAS_DIR/tracepoint

if ! pmprobe tracepoint.ring.capacity 2>/dev/null | grep -q ' 1$'; then
    echo "== installing the tracepoint PMDA into pmcd"
    "$top/Install"
fi
if ! pminfo tracepoint.stream.records >/dev/null 2>&1 ||
   [ "$(pmprobe -I tracepoint.stream.records | awk '{print $2}')" -lt 1 ]; then
    echo "no streams are configured in $pmdadir/tracepoint.conf"; exit 1
fi

echo
echo "== running: uname -r; id -un; date -u +%F"
pids=""
for cmd in "uname -r" "id -un" "date -u +%F"; do
    $cmd & pids="$pids $!"; wait $!
done

# The records of those pids in one sample of the stream, as pmevent prints them.
their_records() {
    pmevent -s 1 -i exec tracepoint.stream.records 2>&1 | awk -v pids="$pids" '
     BEGIN { n = split(pids, p, " "); for (i = 1; i <= n; i++) want[p[i]] = 1 }
     /--- event record/ { if (keep) printf "%s", rec; rec = ""; keep = 0 }
     /sched_process_exec.pid / && ($2 in want) { keep = 1 }
     /--- event record/ || /tracepoint.param/ { rec = rec $0 "\n" }
     END { if (keep) printf "%s", rec }'
}

echo
echo "== their sched:sched_process_exec events, as pmevent shows the 'exec' stream"
echo "   (pmevent -s 1 -i exec tracepoint.stream.records; its first fetch reaches back"
echo "    'backlog' seconds, so the programs above are there)"
# The PMDA reads the kernel's buffers when it is woken: ask again until all
# three are there, for at most 5 s (well inside the 10 s backlog).
for _ in $(seq 25); do
    shown=$(their_records)
    [ "$(grep -c 'sched_process_exec.pid ' <<< "$shown")" -ge 3 ] && break
    sleep 0.2
done
printf '%s\n' "$shown"

echo
echo "== the PMDA's counters"
pminfo -f tracepoint.count tracepoint.captured tracepoint.delivered tracepoint.missed \
    tracepoint.lost tracepoint.ring.bytes tracepoint.ring.capacity | sed -e '/^$/d'
echo
echo "Try: pcp tracepoint -n exec                              (Ctrl-C to stop)"
echo "     pcp tracepoint -f 'common_pid > 1' sched:sched_switch"
echo "     pmevent -t 1 -i exec tracepoint.stream.records"
echo "     pminfo -dT tracepoint.param.sched.sched_process_exec.filename"
libc=$(ldd /bin/sh 2>/dev/null | awk '/libc\.so/ { print $3; exit }')
if [ -n "$libc" ] && [ -f /sys/kernel/tracing/uprobe_events ]; then
    echo "     pcp tracepoint --comm ls -u '$libc:malloc size=\$arg1:u64'    (a probe)"
fi
