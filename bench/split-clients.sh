#!/bin/bash
# The "16 clients with distinct filters" target, with the same events in
# both runs: K generators (pinned to CPU 0) make RATE getpid calls a second
# between them, and K clients (bclient, fetching every 100 ms) each
# subscribe with "common_pid == G" to exactly one generator's events.
# K = 1, then K = 16 (or as given): the same records are delivered, split
# K ways, and the PMDA's and pmcd's CPU are compared.  Every run states its
# loss.  As root, with the PMDA installed in pmcd (ring_size >= 1M).
#
#   bench/split-clients.sh [BUILD_DIR] [K...]      (default: build 1 16)
# Environment: SPLIT_RATE (default 100000), SPLIT_SECS (default 2),
# SPLIT_ROUNDS (default 3).
. /etc/pcp.env
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$top/build}; shift || true
KS=${*:-1 16}
RATE=${SPLIT_RATE:-100000}; SECS=${SPLIT_SECS:-2}; ROUNDS=${SPLIT_ROUNDS:-3}
PMDA=$PCP_PMDAS_DIR/tracepoint/pmdatracepoint
tmp=$(mktemp -d /tmp/tpsplit.XXXXXX)
trap 'rm -rf $tmp' 0
cpu_ns() {  # all threads of pid $1
    local s=0 v t
    for t in /proc/$1/task/*; do read -r v _ < $t/schedstat 2>/dev/null || v=0; s=$((s + v)); done
    echo $s
}
one() {  # K: prints "delivered missed pmda_ns pmcd_ns"
    local K=$1 per=$(($RATE / $1)) n i T=$tmp/k$1 pids=() a0 a1 c0 c1 d m del=0 mis=0
    n=$((per * SECS)); rm -rf $T; mkdir $T
    for i in $(seq $K); do     # each generator waits, its pid known, until "go"
        mkfifo $T/go$i
        bash -c "echo \$\$ > $T/pid$i; read x < $T/go$i; exec -a tpbench_gen $B/tpbench_load 0 $n $per" > /dev/null &
    done
    for i in $(seq $K); do until [ -s $T/pid$i ]; do sleep 0.01; done; pids+=($(cat $T/pid$i)); done
    for i in $(seq $K); do
        $B/bclient -s "syscalls:sys_enter_getpid common_pid == ${pids[$((i - 1))]}" -i 100000 - $n 1500 > $T/cl$i 2>&1 &
    done
    for i in $(seq $K); do until grep -q ready $T/cl$i; do sleep 0.02; done; done
    local pp cd; pp=$(pgrep -f "^$PMDA" | head -1); cd=$(pgrep -x pmcd | head -1)
    a0=$(cpu_ns $pp); c0=$(cpu_ns $cd)
    for i in $(seq $K); do echo go > $T/go$i & done
    wait
    a1=$(cpu_ns $pp); c1=$(cpu_ns $cd)
    for i in $(seq $K); do read -r _ d _ m _ < <(tail -1 $T/cl$i); del=$((del + d)); mis=$((mis + m)); done
    echo "$del $mis $((a1 - a0)) $((c1 - c0)) $((n * K))"
}
[ "$(id -u)" = 0 ] || { echo "split-clients: needs root" >&2; exit 1; }
pgrep -f "^$PMDA" > /dev/null || { echo "split-clients: the PMDA is not running in pmcd" >&2; exit 1; }
echo "pmdatracepoint split-clients, $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname -s), commit $(git -C $top rev-parse --short HEAD 2>/dev/null)"
echo "load: $RATE getpid calls/s in all for $SECS s, split over K generators; K clients, each 'common_pid == its generator', fetching every 100 ms"
printf '%-4s %-6s %-22s %-10s %-10s %-12s %s\n' K round "delivered (missed)" "PMDA ms" "pmcd ms" "ns/record" "x K=1"
declare -A base
for r in $(seq $ROUNDS); do
    for K in $KS; do
        read -r del mis a c exp < <(one $K)
        tot=$((a + c)); [ $K = 1 ] && base[$r]=$tot
        ratio=$(awk -v t=$tot -v b=${base[$r]:-0} 'BEGIN { if (b > 0) printf "%.2f", t / b; else print "-" }')
        loss=$([ $mis = 0 ] && [ $del = $exp ] && echo "$del (none)" || echo "LOST: $del of $exp, missed $mis")
        printf '%-4s %-6s %-22s %-10s %-10s %-12s %s\n' $K $r "$loss" $((a / 1000000)) $((c / 1000000)) \
            $((tot / (del > 0 ? del : 1))) "$ratio"
    done
done
