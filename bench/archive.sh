#!/bin/bash
# Row 10 of `make bench` (bench/README.md): pmlogger keeping up with a busy
# stream, and an archive accounting for every event.
#   bench/archive.sh [BUILD_DIR]        (as root; BUILD_DIR defaults to build)
# For each interval in TPB_ARCH_INTERVALS (default "1 10", seconds), pmlogger
# logs tracepoint.stream.records and tracepoint.stream.pending once an
# interval while the generator makes TPB_ARCH_RATE (150000) getpid calls a
# second for TPB_ARCH_SECS (30) s; it stops two samples after the PMDA has
# captured them all.  `pcp tracepoint -a ARCHIVE -c` gives archived, missed
# and not archived; MET = all archived, none missed or left; "exact" = the
# three add up to the calls made.  Run it under the QA lock
# (flock /run/lock/pmdatracepoint-qa.lock): it restarts the one PMDA.
# With TPB_ROWS (bench/README.md) that does not list 10, nothing is run.
case " ${TPB_ROWS:-10} " in *" 10 "*) ;; *) exit 0 ;; esac
. /etc/pcp.env
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
GEN=$B/tpbench_load
RATE=${TPB_ARCH_RATE:-150000}
SECS=${TPB_ARCH_SECS:-30}
INTERVALS=${TPB_ARCH_INTERVALS:-"1 10"}
PMDADIR=$PCP_PMDAS_DIR/tracepoint
tmp=/tmp/tpbench-arch.$$
host=$(hostname -s)
OUT=$top/bench/results/$(date -u +%Y-%m-%d)-$host-archive
i=1; while [ -e "$OUT$([ $i -gt 1 ] && echo "-$i").txt" ]; do i=$((i + 1)); done
OUT=$OUT$([ $i -gt 1 ] && echo "-$i").txt

[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }
[ -x "$GEN" ] || { echo "bench: $GEN missing (make bench-build)" >&2; exit 1; }
mkdir -p "$tmp" "$top/bench/results"

. "$top/bench/lib.sh"
lpid=
cp "$PMDADIR/tracepoint.conf" "$tmp/saved.conf"
cp "$PMDADIR/pmdatracepoint" "$tmp/saved.bin"
cleanup() {
    trap - 0 1 2 3 15
    [ -n "$lpid" ] && kill "$lpid" 2>/dev/null
    cp "$tmp/saved.conf" "$PMDADIR/tracepoint.conf"
    install -m 755 "$tmp/saved.bin" "$PMDADIR/pmdatracepoint"
    pmda_restart || echo "bench: the PMDA did not restart" >&2
    rm -rf "$tmp"
}
trap 'cleanup; exit 130' 1 2 3 15
trap cleanup 0

# backlog 0: each logger's first fetch starts at that moment, so an earlier
# interval's events still in the ring are not counted as this one's.
printf 'backlog 0\nstream bench syscalls:sys_enter_getpid filter comm == "tpbench_gen"\n' > "$PMDADIR/tracepoint.conf"
pmda_install_bin "$B/pmdatracepoint"
pmda_restart || { echo "bench: the PMDA did not start" >&2; exit 1; }

TABLE=$tmp/table
row() { printf '%-2s %-50s %-13s %-30s %-30s %s\n' "$@" >> "$TABLE"; }
samples() { pmdumplog "$tmp/arch" tracepoint.stream.pending 2>/dev/null | grep -c 'tracepoint.stream.pending'; }
captured() { pminfo -f tracepoint.count 2>/dev/null | sed -n 's/.*"syscalls:sys_enter_getpid"] value //p'; }

# One interval: sets a_made a_rate a_got a_missed a_left a_bytes.
archive_step() {
    local every=$1 n before k
    n=$((RATE * SECS))
    rm -f "$tmp"/arch.*
    printf 'log mandatory on every %s sec {\n    tracepoint.stream.records\n    tracepoint.stream.pending\n}\n' "$every" > "$tmp/logger.conf"
    pmlogger -c "$tmp/logger.conf" -l "$tmp/pmlogger.log" "$tmp/arch" > /dev/null 2>&1 &
    lpid=$!
    wait_for "[ \$(samples) -ge 1 ]" 200 || return 1
    before=$(captured); before=${before:-0}
    read -r a_made a_ns _ < <("$GEN" 0 "$n" "$RATE")
    a_rate=$(awk -v n="$a_made" -v ns="$a_ns" 'BEGIN { printf "%.0f", n * 1e9 / ns }')
    wait_for "[ \$(( \$(captured) - before )) -ge $a_made ]" 600 || return 1
    k=$(samples)
    wait_for "[ \$(samples) -ge $((k + 2)) ]" $((every * 40)) || return 1
    kill -TERM "$lpid"; wait "$lpid" 2>/dev/null; lpid=
    "$B/pcp-tracepoint" -a "$tmp/arch" -n bench -c -q > "$tmp/sum" 2>&1
    read -r a_got a_missed a_left < <(awk '/ events$/ { e = $1 } / lost$/ { l = $1 }
        /not archived \(pending/ { u = $1 } END { print e + 0, l + 0, u + 0 }' "$tmp/sum")
    a_bytes=$(awk -v b="$(stat -c %s "$tmp/arch.0")" -v n="$a_got" 'BEGIN { printf "%.0f", n ? b / n : 0 }')
    cp "$tmp/sum" "$tmp/sum.$every"
}

for every in $INTERVALS; do
    echo "bench: 10. pmlogger every $every s, $RATE calls/s for $SECS s" >&2
    if ! archive_step "$every"; then
        row 10 "pmlogger every $every s at $((RATE / 1000)) k/s" "not measured" "pmlogger or the PMDA stalled" "-" "-"
        continue
    fi
    sum=$((a_got + a_missed + a_left))
    met=NOT; [ "$a_got" = "$a_made" ] && [ "$a_missed" = 0 ] && [ "$a_left" = 0 ] && met=
    row 10 "pmlogger every $every s, $((RATE / 1000)) k/s offered, $SECS s" "$((a_rate / 1000)) k/s" "missed $a_missed, not archived $a_left" "archived $a_got of $a_made" "${met:+$met }MET ($([ "$sum" = "$a_made" ] && echo exact || echo "NOT exact: $sum"), $a_bytes B/record)"
    printf 'every %s s: made %s at %s/s: archived %s missed %s not archived %s; archive %s bytes\n' \
        "$every" "$a_made" "$a_rate" "$a_got" "$a_missed" "$a_left" "$(stat -c %s "$tmp/arch.0")" >> "$tmp/steps"
done

{
    echo "pmdatracepoint benchmark row 10, $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $host"
    echo "commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null) $(git -C "$top" status --porcelain 2>/dev/null | grep -q . && echo '(work tree modified)')"
    echo
    printf '%-2s %-50s %-13s %-30s %-30s %s\n' "#" "what" "events/s" "loss" "CPU" "ratio"
    cat "$TABLE"
    echo
    echo "10: one stream of the generator's getpid calls (ring 64M, fetch_limit 64M, no fetch_records, backlog 0), pmlogger logging tracepoint.stream.records and tracepoint.stream.pending in one group every INTERVAL, the generator paced at ${RATE}/s for ${SECS} s (events/s: what it made); pmlogger stops (SIGTERM) two samples after tracepoint.count shows every call captured. archived, missed (missed records) and not archived (the archive's last tracepoint.stream.pending) from pcp tracepoint -a ARCHIVE -c; MET = every call archived; exact = archived + missed + not archived = calls made. B/record = the archive's data volume over the records archived. One array carries at most 16 MiB: a pmlogger every T s keeps up with at most 16 MiB / (bytes per record x T) events a second."
    echo; echo "steps:"; cat "$tmp/steps" 2>/dev/null
} > "$OUT"
cat "$OUT"
echo
echo "results: $OUT"
