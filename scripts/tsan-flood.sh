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
(
    echo "open pipe $tsan/pmdatracepoint -c $tmp/conf -l $tmp/log -h $top/help"
    for i in $(seq 1 30); do
        echo "fetch tracepoint.stream.records"
        echo "fetch tracepoint.captured tracepoint.ring.bytes tracepoint.missed"
        sleep 0.1
    done
) | dbpmda -n $top/root -ie > $tmp/out 2>&1 &
sleep 0.5
$plain/tpgen getppid 200000 0 > /dev/null
$plain/tpgen exec 20 /bin/true > /dev/null
wait
n=$(grep -c 'event records' $tmp/out)
if grep -q 'ThreadSanitizer' $tmp/log; then
    grep -A20 'WARNING: ThreadSanitizer' $tmp/log | head -60
    echo "tsan-flood: ThreadSanitizer reported races"; exit 1
fi
[ "$n" -gt 0 ] || { echo "tsan-flood: no records were fetched"; cat $tmp/log; exit 1; }
echo "tsan-flood: $n fetches returned records, no race reported"
