#!/bin/bash
# The PMDA built with ThreadSanitizer, under dbpmda: fetches of two streams
# while a generator floods one of them and execs feed the other, then exit.
# Fails if ThreadSanitizer reports anything.  Usage: tsan-flood.sh TSAN_BUILD PLAIN_BUILD
set -u
tsan=$1 plain=$2
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf $tmp' 0
printf 'ring_size 64K\nstream exec sched:sched_process_exec\nstream flood syscalls:sys_enter_getppid filter common_pid > 0\n' > $tmp/conf
# Fetches every 0.1 s (the pace of a client, not a wait) until the
# generators are done, then a last few: however slow the machine, the
# fetches overlap the flood.
fetches() {
    echo "fetch tracepoint.stream.records"
    echo "fetch tracepoint.captured tracepoint.ring.bytes tracepoint.missed"
}
(
    echo "open pipe $tsan/pmdatracepoint -c $tmp/conf -l $tmp/log -h $top/help"
    while [ ! -e $tmp/done ]; do fetches; sleep 0.1; done
    fetches; fetches; fetches
) | stdbuf -oL dbpmda -n $top/root -ie > $tmp/out 2>&1 &   # line by line: the flood counts answers
# The flood begins once a fetch of the streams has been answered (the
# client is known, its records wanted), within a minute however slow.
for i in $(seq 1 600); do
    grep -q '(tracepoint.stream.records)' $tmp/out 2>/dev/null && break
    sleep 0.1
done
grep -q '(tracepoint.stream.records)' $tmp/out ||
    { echo "tsan-flood: no fetch was answered"; cat $tmp/log; touch $tmp/done; wait; exit 1; }
# Batches of a million calls until 20 fetches have been answered since the
# flood began (at most 100 batches): a fetch reads the kernel's buffers
# itself when the producer has not lately (tp_capture_catch_up), so both
# threads' passes meet on a flood, however fast the machine.
f0=$(grep -c '(tracepoint.stream.records)' $tmp/out)
for i in $(seq 1 100); do
    $plain/tpgen getppid 1000000 0 > /dev/null
    [ $(($(grep -c '(tracepoint.stream.records)' $tmp/out) - f0)) -ge 20 ] && break
done
$plain/tpgen exec 20 /bin/true > /dev/null
touch $tmp/done
wait
n=$(grep -c 'event records' $tmp/out)
if grep -q 'ThreadSanitizer' $tmp/log; then
    grep -A20 'WARNING: ThreadSanitizer' $tmp/log | head -60
    echo "tsan-flood: ThreadSanitizer reported races"; exit 1
fi
[ "$n" -gt 0 ] || { echo "tsan-flood: no records were fetched"; cat $tmp/log; exit 1; }
echo "tsan-flood: $n fetches returned records, no race reported"
