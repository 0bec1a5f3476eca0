#!/bin/bash
# make stress: QA 060's churn for minutes.  Clients connect, subscribe with
# a filter selecting exactly their own generator's events, fetch at random
# intervals, and finish, unregister, close their context, exit without
# closing it, or are killed, for STRESS_SECS seconds (default 180) while
# events flow at a high rate (build/tpchurn; see qa/src/tpchurn.c).
#
#   scripts/stress.sh [BUILD_DIR]
#   STRESS_SECS=N  STRESS_SEED=S (replay a run)  STRESS_JOBS=J (clients at a time, 16)
#
# As root, with pmcd running.  Installs a test configuration into the PMDA
# (and the PMDA into pmcd if it is not there), and restores the machine's own
# configuration afterwards.  Fails (exit 1) if any client failed (every
# client that fetched to the end must have delivered + missed == generated),
# the kernel dropped events, the PMDA restarted, client state, subscriptions
# or enabled events are left over, or the PMDA's VmRSS grew by more than
# RSS_TOL KiB over the last three quarters of the run (a leak grows with the
# clients; the high-water sizes of the ring, the event arrays and malloc's
# arenas are reached early).
. /etc/pcp.env
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$top/build}
SECS=${STRESS_SECS:-180}
JOBS=${STRESS_JOBS:-16}
SEED=${STRESS_SEED:-}
RING_KB=1024
# Growth allowed after the first quarter of the run.  Per-client state is a
# few KiB and is freed with the client: over the thousand or more clients of
# the rest of a run, a leak of one client's state each would exceed this
# several times over.
RSS_TOL=512
PMDADIR=$PCP_PMDAS_DIR/tracepoint
TRACING=/sys/kernel/tracing
work=$(mktemp -d /tmp/tp-stress.XXXXXX)
log=$work/churn.log

die() { echo "stress: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -d $TRACING/instances ] || die "tracefs is not mounted at $TRACING"
pmprobe pmcd.numclients >/dev/null 2>&1 || die "pmcd is not running"
for e in syscalls/sys_enter_getppid sched/sched_process_fork sched/sched_process_exec; do
    [ -d $TRACING/events/$e ] || die "no tracepoint $e on this kernel"
done
[ -x $B/tpchurn ] && [ -x $B/tpclient ] && [ -x $B/tpgen ] || die "$B/tpchurn, tpclient or tpgen is not built"

metric() { pmprobe -v $1 | awk '$2 == 1 {print $3}'; }
pmda_pid() { pgrep -f "^$PMDADIR/pmdatracepoint" | head -1; }
vmrss() { awk '/^VmRSS:/ {print $2}' /proc/$1/status 2>/dev/null; }
wait_for() {  # command, tenths of a second
    local i=0
    until eval "$1" >/dev/null 2>&1; do
        i=$((i + 1)); [ $i -ge $2 ] && return 1
        sleep 0.1
    done
}
ready() { [ -n "$(pmda_pid)" ] && pmprobe -v tracepoint.ring.capacity | grep -q ' 1 '; }
restart_pmda() {
    local old
    old=$(pmda_pid)
    [ -n "$old" ] && kill $old && wait_for "! kill -0 $old" 50
    pmsignal -a -s HUP pmcd >/dev/null 2>&1
    wait_for ready 100
}

# Save the machine's configuration; put it back on the way out.
was_installed=false
grep -q '^tracepoint[[:space:]]' "$PCP_PMCDCONF_PATH" && was_installed=true
cp $PMDADIR/tracepoint.conf $work/saved.conf 2>/dev/null
restore() {
    kill $(jobs -p) 2>/dev/null
    if [ -f $work/saved.conf ]; then cp $work/saved.conf $PMDADIR/tracepoint.conf
    else rm -f $PMDADIR/tracepoint.conf; fi     # ours: none was there
    if $was_installed; then
        restart_pmda || echo "stress: the PMDA did not come back" >&2
    else
        (cd $PMDADIR && ./Remove) >/dev/null 2>&1
    fi
}
trap restore 0
trap 'exit 2' 1 2 3 15

make -C $top --no-print-directory -s stage B=$B > $work/stage.log 2>&1 || die "make stage failed: $work/stage.log"
cat > $PMDADIR/tracepoint.conf <<CONF
ring_size ${RING_KB}K
backlog 10
kernel_buffer_kb 4096
stream exec sched:sched_process_exec
CONF
if $was_installed && [ -n "$(pmda_pid)" ]; then
    restart_pmda || die "the PMDA did not restart"
else
    (cd $PMDADIR && ./Install) > $work/install.log 2>&1 || die "Install failed: $work/install.log"
    wait_for ready 100 || die "the PMDA is not ready"
fi

pid0=$(pmda_pid)
clients0=$(metric tracepoint.clients)
subs0=$(metric tracepoint.subscriptions)
mem0=$(metric tracepoint.memory)
rss0=$(vmrss $pid0)
back_to_baseline() {
    [ "$(metric tracepoint.clients)" = "$clients0" ] && [ "$(metric tracepoint.subscriptions)" = "$subs0" ]
}

# Warm-up, as in QA 060: the largest possible fetch, then a short churn.
cp $B/tpgen $work/tpqa_060_fill
$B/tpclient store tracepoint.records 'syscalls:sys_enter_getppid comm == "tpqa_060_fill"' \
    echo registered sleep 2 count tracepoint.records 0 getppid > $work/fill.log 2>&1 &
filler=$!
wait_for "grep -q registered $work/fill.log" 100 || die "warm-up client did not register"
$work/tpqa_060_fill getppid 100000 > /dev/null
wait $filler
$B/tpchurn -s 59 -C 24 -j 12 -n 20000 -r 30000 > $work/warmup.log 2>&1 \
    || die "the warm-up churn failed: $work/warmup.log"
wait_for back_to_baseline 50
rss1=$(vmrss $pid0)
mem1=$(metric tracepoint.memory)
lost1=$(metric tracepoint.lost)

echo "stress: ${SECS} s of churn, up to $JOBS clients at a time; log in $work"
# The PMDA's VmRSS every 5 s: seconds into the run, kB.
( t=0; while sleep 5; do t=$((t + 5)); echo "$t $(vmrss $pid0)"; done ) > $work/rss.log 2>&1 &
sampler=$!
$B/tpchurn ${SEED:+-s $SEED} -d $SECS -j $JOBS -n 20000 -r 30000 > $log 2>&1
churn_rc=$?
kill $sampler 2>/dev/null
lost2=$(metric tracepoint.lost)

# After.
fail=0
check() {  # condition-text, then the condition as a command
    local what=$1
    shift
    if "$@"; then
        echo "  ok      $what"
    else
        echo "  FAILED  $what"
        fail=1
    fi
}
pid1=$(pmda_pid)
wait_for back_to_baseline 50
rss2=$(vmrss $pid1)
# VmRSS at a quarter of the run (at least 10 s in).
settle=$((SECS / 4 > 10 ? SECS / 4 : 10))
rss_q=$(awk -v s=$settle '$1 >= s {print $2; exit}' $work/rss.log)
rss_q=${rss_q:-$rss1}
mem2=$(metric tracepoint.memory)
enabled=$(cd $TRACING/instances/pmdatracepoint.$pid1/events 2>/dev/null &&
          grep -l '^1' */*/enable | sed -e 's,/enable$,,' | sort | paste -sd ' ')
stat() { awk -v k=$1 '$1 == "stat" && $2 == k {print $3}' $log; }

echo "seed: $(awk '$1 == "seed" {print $2}' $log) (STRESS_SEED=... replays the workload)"
grep '^outcomes:' $log
grep 'FAIL' $log | head -20
echo "events generated $(stat generated) by $(stat generators) generators in $(stat seconds) s;" \
     "delivered $(stat delivered), missed $(stat missed);" \
     "$(stat full_clients_with_missed) full clients had missed > 0"
echo "fetches $(stat fetches), fetch errors $(stat fetch_errors), stream records $(stat stream_records)"
echo "PMDA VmRSS: $rss0 kB at start, $rss1 kB after the warm-up, $rss_q kB $settle s into the run," \
     "$rss2 kB after it (range during the run: $(awk '{print $2}' $work/rss.log | sort -n | sed -n '1p;$p' | paste -sd '-') kB)"
echo "tracepoint.memory: $mem0 at start, $mem1 after the warm-up, $mem2 after the run"
echo "checks:"
check "no client failed ($(awk '$1 == "failures:" {print $2}' $log) failures)" [ $churn_rc = 0 ]
check "the kernel dropped no event ($((lost2 - lost1)))" [ $((lost2 - lost1)) = 0 ]
check "PMDA pid unchanged ($pid0)" [ "$pid1" = "$pid0" ]
check "clients and subscriptions back to baseline ($(metric tracepoint.clients), $(metric tracepoint.subscriptions))" \
      back_to_baseline
check "only the exec stream's event enabled ($enabled)" [ "$enabled" = "sched/sched_process_exec" ]
check "VmRSS after the run within $RSS_TOL KiB of $settle s into it ($((rss2 - rss_q)) KiB)" \
      [ $((rss2 - rss_q)) -le $RSS_TOL ]
[ $fail = 0 ] && echo "stress: passed" || echo "stress: FAILED (details in $work)"
exit $fail
