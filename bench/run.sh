#!/bin/bash
# The benchmark behind `make bench`: see bench/README.md.
#   bench/run.sh [BUILD_DIR]        (as root; BUILD_DIR defaults to build)
# Environment: TPB_N (events per flat-out run, default 10000000),
# TPB_SECS (seconds per paced step, default 2), TPB_RATES and TPB_LG_RATES
# (paced steps for ours and for the logger PMDA), TPB_CMP_RATE (the rate at
# which both are run for the CPU comparison, default 40000), TPB_SCALE_RATE
# (the rate offered to 1, 4 and 16 subscribed clients, default 100000).
. /etc/pcp.env
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=${1:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
GEN=$B/tpbench_gen
BCL=$B/bclient
PMDA_BIN=$B/pmdatracepoint
N=${TPB_N:-10000000}
SECS=${TPB_SECS:-2}
CMP=${TPB_CMP_RATE:-40000}
SCALE=${TPB_SCALE_RATE:-100000}
RATES=${TPB_RATES:-"100000 200000 400000 800000 1200000 1600000 2400000 3200000"}
TRACING=/sys/kernel/tracing
PMDADIR=$PCP_PMDAS_DIR/tracepoint
tmp=/tmp/tpbench.$$
INST=$TRACING/instances/tpbench.$$
HZ=$(getconf CLK_TCK)
host=$(hostname -s)
OUT=$top/bench/results/$(date -u +%Y-%m-%d)-$host.txt

[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }
grep -q " $TRACING tracefs" /proc/mounts || { echo "bench: tracefs is not mounted at $TRACING" >&2; exit 1; }
mkdir -p "$tmp" "$top/bench/results"

# ---- cleanup: whatever we started, created or changed ------------------------
pids=()
saved_conf=
saved_bin=
ev_enabled=
cleanup() {
    local p
    trap - 0 1 2 3 15     # once, whether by signal or at exit
    { exec 3>&-; } 2>/dev/null
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    declare -F lg_remove >/dev/null && lg_remove
    [ -n "$ev_enabled" ] && { echo 0 > "$ev_enabled"; } 2>/dev/null
    [ -d "$INST" ] && rmdir "$INST" 2>/dev/null
    if [ -n "$saved_conf" ]; then
        cp "$saved_conf" "$PMDADIR/tracepoint.conf"
        [ -n "$saved_bin" ] && cp "$saved_bin" "$PMDADIR/pmdatracepoint"
        echo "bench: restored $PMDADIR/tracepoint.conf, restarting the PMDA" >&2
        pmda_restart >/dev/null 2>&1
    fi
    rm -rf "$tmp"
}
trap 'cleanup; exit 130' 1 2 3 15
trap 'cleanup' 0

# ---- helpers -------------------------------------------------------------------
calc() { awk "BEGIN { printf \"%s\", $1 }"; }
fmt_rate() { awk -v r="$1" 'BEGIN { if (r >= 1e6) printf "%.2f M/s", r/1e6; else printf "%.0f k/s", r/1e3 }'; }
# CPU time (ns) of every thread of PID: schedstat when there is one, else stat ticks.
cpu_ns() {
    local t s=0 v
    for t in /proc/$1/task/*; do
        if [ -r "$t/schedstat" ]; then read -r v _ < "$t/schedstat" 2>/dev/null || v=0
        else v=$(awk -v hz="$HZ" '{ sub(/^.*\) /, ""); printf "%.0f", ($12 + $13) * 1e9 / hz }' "$t/stat" 2>/dev/null)
        fi
        s=$((s + ${v:-0}))
    done
    echo $s
}
now_ns() { date +%s%N; }
running() { [ -e /proc/$1 ] && ! grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }
wait_for() {  # command, tenths of a second
    local i=0 n=${2:-50}
    until eval "$1" >/dev/null 2>&1; do
        i=$((i + 1)); [ $i -ge $n ] && return 1
        sleep 0.1
    done
}
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' /proc/$1/status 2>/dev/null; }

TABLE=$tmp/table
row() {  # section, what, rate, loss, cpu, ratio
    printf '%-2s %-50s %-13s %-30s %-30s %s\n' "$@" >> "$TABLE"
}
note() { echo "$*" >> "$tmp/notes"; }
log() { echo "bench: $*" >&2; }

# ---- machine -------------------------------------------------------------------
{
    echo "pmdatracepoint benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $host"
    echo "nproc:  $(nproc)"
    echo "cpu:    $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
    echo "kernel: $(uname -srm)"
    echo "pcp:    ${PCP_VERSION:-?} (pmcd $(pmprobe -v pmcd.version 2>/dev/null | awk '{ print $3 }' | tr -d '"'))"
    echo "commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null) $(git -C "$top" status --porcelain 2>/dev/null | grep -q . && echo '(work tree modified)')"
    echo "load:   generator pinned to CPU 0, syscall(SYS_getpid) flat out or paced; event syscalls:sys_enter_getpid"
} > "$tmp/machine"
printf '%-2s %-50s %-13s %-30s %-30s %s\n' "#" "what" "events/s" "loss" "CPU" "ratio" > "$TABLE"

# ==== 1. kernel ceiling ========================================================
log "1. kernel ceiling ($N getpid calls per run, best of 3)"
mkdir "$INST" || exit 1
EV=$INST/events/syscalls/sys_enter_getpid
best() {  # runs the generator 3 times flat out; prints the lowest elapsed ns
    local i n ns b=
    for i in 1 2 3; do
        read -r n ns < <("$GEN" 0 "$N")
        [ -z "$b" ] || [ "$ns" -lt "$b" ] && b=$ns
    done
    echo "$b"
}
ns_off=$(best)
ev_enabled=$EV/enable
echo 1 > "$EV/enable"
ns_on=$(best)
# what the kernel recorded (entries + overrun on CPU 0, cumulative over the 3 runs)
rec=$(awk '/^entries:/ { e = $2 } /^overrun:/ { o = $2 } END { print e + o }' "$INST/per_cpu/cpu0/stats")
echo 'comm == "tpbench_gen"' > "$EV/filter"
ns_filt=$(best)
echo 'comm == "tpbench_nomatch"' > "$EV/filter"
ns_nomatch=$(best)
echo 0 > "$EV/enable"; ev_enabled=
echo 0 > "$EV/filter"
rmdir "$INST"
ceil=$(calc "$N * 1e9 / $ns_on")
row 1 "kernel: getpid loop, event disabled" "$(fmt_rate "$(calc "$N * 1e9 / $ns_off")")" "n/a (no event)" "1 core (100%)" "$(printf '%.0f ns/call' "$(calc "$ns_off / $N")")"
row 1 "kernel: getpid loop, event enabled (ceiling)" "$(fmt_rate "$ceil")" "none: $rec/$((3 * N)) recorded" "1 core (100%)" "$(printf '+%.0f ns/event' "$(calc "($ns_on - $ns_off) / $N")")"
row 1 "kernel: same, kernel filter comm == tpbench_gen" "$(fmt_rate "$(calc "$N * 1e9 / $ns_filt")")" "none (no reader)" "1 core (100%)" "$(printf '+%.0f ns/event' "$(calc "($ns_filt - $ns_off) / $N")")"
note "1: the loop is pinned to CPU 0; the event is enabled only in instances/tpbench.$$ (overwrite mode, no reader); 'recorded' = entries + overrun of cpu0 over the 3 enabled runs."

# ==== 2. capture: the producer thread under dbpmda =============================
log "2. capture under dbpmda ($N events flat out)"
cat > "$tmp/conf" <<'CONF'
ring_size 16M
backlog 10
kernel_buffer_kb 1024
stream bench syscalls:sys_enter_getpid filter comm == "tpbench_gen"
CONF
mkfifo "$tmp/dbin"
dbpmda -n "$top/root" -ie < "$tmp/dbin" > "$tmp/dbout" 2>&1 &
dbpid=$!; pids+=("$dbpid")
exec 3> "$tmp/dbin"
nfetch=0
dbfetch() {  # prints "captured lost"
    nfetch=$((nfetch + 1))
    echo "fetch tracepoint.captured tracepoint.lost" >&3
    wait_for "[ \$(grep -c '(tracepoint.lost)' $tmp/dbout) -ge $nfetch ] && [ \$(grep -c '^   value' $tmp/dbout) -ge $((2 * nfetch)) ]" 100 || { echo "? ?"; return 1; }
    grep '^   value' "$tmp/dbout" | tail -2 | awk '{ printf "%s ", $2 } END { print "" }'
}
t0=$(now_ns)
echo "open pipe $PMDA_BIN -c $tmp/conf -l $tmp/dblog -h $top/help" >&3
nfetch=1
echo "fetch tracepoint.captured tracepoint.lost" >&3
until grep -q '(tracepoint.lost)' "$tmp/dbout" 2>/dev/null; do
    sleep 0.002
    [ $(( $(now_ns) - t0 )) -gt 10000000000 ] && break
done
t_start_ms=$(calc "($(now_ns) - $t0) / 1e6")
ppid=$(pgrep -P "$dbpid" pmdatracepoint | head -1)
if [ -z "$ppid" ]; then
    row 2 "capture: PMDA did not start under dbpmda" "-" "-" "-" "-"
    cat "$tmp/dbout" "$tmp/dblog" >&2
else
    sleep 1
    c0=$(cpu_ns "$ppid"); sleep 1; c1=$(cpu_ns "$ppid")
    idle_pct=$(calc "($c1 - $c0) / 1e7")
    rss_idle_db=$(status_kb "$ppid" VmRSS)
    read -r cap0 lost0 < <(dbfetch)
    c0=$(cpu_ns "$ppid"); t0=$(now_ns)
    read -r n gns < <("$GEN" 0 "$N")
    # wait until the producer has caught up (captured + lost reaches N, or stops moving)
    prev=-1
    for i in $(seq 1 100); do
        read -r cap lost < <(dbfetch)
        got=$(( cap - cap0 + lost - lost0 ))
        [ "$got" -ge "$N" ] || [ "$cap" = "$prev" ] && break
        prev=$cap; sleep 0.05
    done
    t1=$(now_ns); c1=$(cpu_ns "$ppid")
    hwm_db=$(status_kb "$ppid" VmHWM)
    dcap=$((cap - cap0)); dlost=$((lost - lost0))
    secs=$(calc "($t1 - $t0) / 1e9")
    capr=$(calc "$dcap * 1e9 / $gns")
    cpu_ev=$(calc "($c1 - $c0) / $dcap")
    cpu_pct=$(calc "($c1 - $c0) / ($t1 - $t0) * 100")
    if [ "$dlost" -eq 0 ] && [ "$dcap" -eq "$N" ]; then
        row 2 "capture: producer (dbpmda), gen flat out" "$(fmt_rate "$capr")" "none ($dcap/$N)" "$(printf '%.0f ns/ev, %.0f%% core' "$cpu_ev" "$cpu_pct")" "$(printf '%.2f x ceiling' "$(calc "$capr / $ceil")")"
    else
        row 2 "capture: producer (dbpmda), gen flat out" "(loss)" "LOST $dlost of $N, got $dcap" "$(printf '%.0f ns/ev, %.0f%% core' "$cpu_ev" "$cpu_pct")" "offered $(fmt_rate "$(calc "$N * 1e9 / $gns")")"
    fi
    row 2 "capture: PMDA idle (stream, no events)" "0" "-" "$(printf '%.2f%% core' "$idle_pct")" "-"
    note "2: the producer's CPU per event implies a capacity of ~$(fmt_rate "$(calc "1e9 / $cpu_ev")") per core; with no loss, the row's rate is the generator's (filtered event), not the producer's limit."
    note "2: events/s = captured / generator elapsed ($(calc "$gns/1e9") s; caught up after ${secs} s); CPU = all PMDA threads (schedstat), per captured event and % of one core over the run."
    echo "quit" >&3
fi
exec 3>&-
wait "$dbpid" 2>/dev/null

# ==== 3. end to end: PMDA in pmcd, bclient fetching flat out ===================
pmda_pid() { pgrep -f "^$PMDADIR/pmdatracepoint" | head -1; }
pmda_restart() {
    local old
    old=$(pmda_pid)
    [ -n "$old" ] && kill "$old" && wait_for "! running $old"
    pmsignal -a -s HUP pmcd >/dev/null 2>&1
    wait_for "[ -n \"\$(pmda_pid)\" ] && pmprobe -v tracepoint.ring.capacity | grep -q ' 1 '" 100
}
restore_tp() {
    [ -n "$saved_conf" ] || return 0
    cp "$saved_conf" "$PMDADIR/tracepoint.conf"
    [ -n "$saved_bin" ] && cp "$saved_bin" "$PMDADIR/pmdatracepoint"
    saved_conf= saved_bin=
    pmda_restart
}
cdpid=$(pgrep -x pmcd | head -1)
# One step: bclient $BCL_ARGS N, then the generator at RATE (0 = flat out);
# CPU of the pids in $AGENT_PIDS (threads included), pmcd and the client.
step() {  # rate n
    local rate=$1 n=$2 l0=0 l1=0 c0 c1 m0 m1 k0 k1 t0 t1 bpid p
    # shellcheck disable=SC2086
    "$BCL" $BCL_ARGS "$n" 1500 > "$tmp/bcl" 2> "$tmp/bcl.err" &
    bpid=$!; pids+=("$bpid")
    wait_for "grep -q ready $tmp/bcl" 100 || { kill $bpid; cat "$tmp/bcl.err" >&2; return 1; }
    [ -n "$LOSTV" ] && l0=$($LOSTV)
    c0=0; for p in $AGENT_PIDS; do c0=$((c0 + $(cpu_ns "$p"))); done
    m0=$(cpu_ns "$cdpid"); k0=$(cpu_ns "$bpid"); t0=$(now_ns)
    "$GEN" 0 "$n" $([ "$rate" != 0 ] && echo "$rate") > "$tmp/gen"
    k1=$(cpu_ns "$bpid")   # before it exits
    wait "$bpid"
    t1=$(now_ns); m1=$(cpu_ns "$cdpid")
    c1=0; for p in $AGENT_PIDS; do c1=$((c1 + $(cpu_ns "$p"))); done
    [ -n "$LOSTV" ] && l1=$($LOSTV)
    step_last=
    read -r _ step_delivered _ step_missed _ step_fetches _ _ _ step_last < <(tail -1 "$tmp/bcl")
    [ -n "$step_last" ] && [ "$step_last" -gt 0 ] 2>/dev/null || { step_delivered=0; step_missed=0; step_fetches=0; step_last=1; }
    read -r _ step_gns < "$tmp/gen"
    step_lost=$((l1 - l0))
    step_rate=$(calc "$step_delivered * 1e9 / $step_last")
    step_offered=$(calc "$n * 1e9 / $step_gns")
    step_agent=$(calc "($c1 - $c0) / ($t1 - $t0) * 100")
    step_pmcd=$(calc "($m1 - $m0) / ($t1 - $t0) * 100")
    step_client=$(calc "($k1 - $k0) / ($t1 - $t0) * 100")
    step_ns=$(calc "($c1 - $c0 + $m1 - $m0) / ($step_delivered > 0 ? $step_delivered : 1)")
    step_cns=$(calc "($k1 - $k0) / ($step_delivered > 0 ? $step_delivered : 1)")
    step_ok=0
    [ "$step_delivered" -eq "$n" ] && [ "$step_missed" -eq 0 ] && [ "$step_lost" -eq 0 ] && step_ok=1
    printf '%s offered %s n %s delivered %s missed %s lost %s fetches %s rate %.0f agent%% %.1f pmcd%% %.1f client%% %.1f server_ns/ev %.0f client_ns/ev %.0f\n' \
        "$STEP_TAG" "$rate" "$n" "$step_delivered" "$step_missed" "$step_lost" "$step_fetches" "$step_rate" \
        "$step_agent" "$step_pmcd" "$step_client" "$step_ns" "$step_cns" >> "$tmp/steps"
    return 0
}
# Step through RATES (stopping after two steps with loss), then flat out;
# sets best_* to the highest zero-loss step.  $1 = tag, $2 = rates, $3 = flat-out N
search() {
    local r fails=0
    STEP_TAG=$1; best_rate=; flat_ok=0; loss_row=
    for r in $2 0; do
        if [ "$r" = 0 ]; then step 0 "$3" || break
        else step "$r" "$(calc "$r * $SECS")" || continue
        fi
        log "   offered $([ "$r" = 0 ] && echo "flat out" || fmt_rate "$r"): delivered $step_delivered missed $step_missed lost $step_lost ($(fmt_rate "$step_rate"))"
        if [ $step_ok = 1 ]; then
            best_rate=$step_rate best_agent=$step_agent best_pmcd=$step_pmcd best_client=$step_client
            best_ns=$step_ns best_cns=$step_cns best_n=$step_delivered best_offer=$r
            [ "$r" = 0 ] && flat_ok=1
            fails=0
        else
            fails=$((fails + 1))
            [ -z "$loss_row" ] && [ "$r" != 0 ] && loss_row="$(fmt_rate "$r")|LOST $(($(calc "$r * $SECS") - step_delivered)) of $(calc "$r * $SECS") (missed $step_missed, kernel $step_lost)|$(printf 'agent %.0f%% pmcd %.0f%% cli %.0f%%' "$step_agent" "$step_pmcd" "$step_client")"
            [ "$r" = 0 ] || [ $fails -lt 2 ] || break
        fi
    done
    # the flat-out run, if it was not already the best
    flat_row=
    if [ "$r" = 0 ] && [ $step_ok = 0 ]; then
        flat_row="$(fmt_rate "$step_offered")|LOST $((n_flat - step_delivered)) of $n_flat (missed $step_missed, kernel $step_lost)|$(printf 'agent %.0f%% pmcd %.0f%% cli %.0f%%' "$step_agent" "$step_pmcd" "$step_client")"
    fi
}
e2e=0
if ! grep -q '^tracepoint[[:space:]]' "$PCP_PMCDCONF_PATH" || ! pmprobe pmcd.numclients >/dev/null 2>&1; then
    row 3 "end to end: PMDA not installed in pmcd" "not measured" "-" "-" "-"
else
    log "3. end to end through pmcd (paced steps of ${SECS} s, then flat out)"
    cp "$PMDADIR/tracepoint.conf" "$tmp/orig.conf"; saved_conf=$tmp/orig.conf
    if ! cmp -s "$PMDA_BIN" "$PMDADIR/pmdatracepoint"; then
        cp "$PMDADIR/pmdatracepoint" "$tmp/orig.bin"; saved_bin=$tmp/orig.bin
        cp "$PMDA_BIN" "$PMDADIR/pmdatracepoint"
    fi
    cp "$tmp/conf" "$PMDADIR/tracepoint.conf"
    if ! pmda_restart; then
        row 3 "end to end: PMDA did not restart in pmcd" "not measured" "-" "-" "-"
    else
        e2e=1
        tp=$(pmda_pid)
        sleep 1
        rss_idle=$(status_kb "$tp" VmRSS)
        # start-up: every format, through pmcd
        t0=$(now_ns); nparam=$(pminfo tracepoint.param | wc -l); t1=$(now_ns)
        pminfo_ms=$(calc "($t1 - $t0) / 1e6")
        rss_formats=$(status_kb "$tp" VmRSS)
        LOSTV="eval pmprobe -v tracepoint.lost | awk '{ print \$3 }'"
        BCL_ARGS="bench" AGENT_PIDS=$tp n_flat=$N
        search ours "$RATES" "$N"
        rss_load=$(status_kb "$tp" VmRSS); hwm_load=$(status_kb "$tp" VmHWM)
        STEP_TAG=ours-cmp BCL_ARGS="-i 10000 bench"
        step "$CMP" "$(calc "$CMP * $SECS")" && [ $step_ok = 1 ] && cmp_ours="$step_ns|$step_agent|$step_pmcd"
        if [ -n "$best_rate" ]; then
            ours_rate=$best_rate ours_ns=$best_ns
            row 3 "end to end: highest zero-loss rate$([ $flat_ok = 1 ] && echo ' (gen flat out)')" "$(fmt_rate "$best_rate")" "none ($best_n/$best_n)" "$(printf 'PMDA %.0f%% pmcd %.0f%% cli %.0f%%' "$best_agent" "$best_pmcd" "$best_client")" "$(printf '%.2f x ceiling' "$(calc "$best_rate / $ceil")")"
            row 3 "   CPU per delivered event: PMDA+pmcd / client" "" "" "$(printf '%.0f ns / %.0f ns' "$best_ns" "$best_cns")" ""
        else
            row 3 "end to end: no step without loss" "(loss)" "every step lost events" "-" "-"
        fi
        [ -n "$loss_row" ] && { IFS='|' read -r a b c <<< "$loss_row"; row 3 "end to end: first paced step with loss" "(loss)" "$b" "$c" "offered $a"; }
        [ -n "$flat_row" ] && { IFS='|' read -r a b c <<< "$flat_row"; row 3 "end to end: generator flat out" "(loss)" "$b" "$c" "offered $a"; }
        note "3: bclient fetches tracepoint.stream.records[bench] back to back (no pause); events/s = delivered / (last record's arrival - client ready); zero loss = delivered == offered, no missed record, tracepoint.lost unchanged. Paced steps of ${SECS} s at: $RATES, then flat out ($N). CPU = % of one core over the step (PMDA all threads, pmcd, client). The client busy-polls, so at low rates pmcd and PMDA CPU are mostly empty fetches."
    fi
    # ---- 6. scaling: K clients, each its own subscription and filter -------
    if [ "$e2e" = 1 ]; then
        log "6. scaling: 1/4/16 subscribed clients with distinct filters, $(fmt_rate "$SCALE") offered"
        printf 'ring_size 16M\nbacklog 10\nkernel_buffer_kb 1024\nstream exec sched:sched_process_exec\n' > "$PMDADIR/tracepoint.conf"
        if pmda_restart; then
            tp=$(pmda_pid)
            for k in 1 4 16; do
                n=$(calc "$SCALE * $SECS")
                rm -f "$tmp/go"; mkfifo "$tmp/go"
                ( read -r _ < "$tmp/go"; exec "$GEN" 0 "$n" "$SCALE" > "$tmp/gen" ) &
                gpid=$!; pids+=("$gpid")
                cl=()
                for j in $(seq 1 $k); do
                    "$BCL" -i 10000 -s "syscalls:sys_enter_getpid common_pid == $gpid && __syscall_nr != -$j" - "$n" 1500 \
                        > "$tmp/scl.$j" 2> "$tmp/scl.$j.err" &
                    cl+=($!); pids+=($!)
                done
                ok=1
                for j in $(seq 1 $k); do wait_for "grep -q ready $tmp/scl.$j" 100 || ok=0; done
                c0=$(cpu_ns "$tp"); m0=$(cpu_ns "$cdpid"); t0=$(now_ns)
                echo go > "$tmp/go"
                wait "$gpid"
                for p in "${cl[@]}"; do wait "$p"; done
                t1=$(now_ns); c1=$(cpu_ns "$tp"); m1=$(cpu_ns "$cdpid")
                del=0 mis=0 lastmax=1 bad=0
                for j in $(seq 1 $k); do
                    read -r _ d _ m _ _ _ _ _ l < <(tail -1 "$tmp/scl.$j")
                    [ -n "$l" ] && [ "$l" -gt 0 ] 2>/dev/null || { d=0; m=0; l=1; cat "$tmp/scl.$j.err" >&2; }
                    del=$((del + d)); mis=$((mis + m))
                    [ "$l" -gt "$lastmax" ] && lastmax=$l
                    [ "$d" -eq "$n" ] && [ "$m" -eq 0 ] || bad=$((bad + 1))
                done
                [ $ok = 1 ] || bad=$k
                srv=$(printf 'PMDA %.0f%% pmcd %.0f%%, %.0f ns/rec' "$(calc "($c1 - $c0) / ($t1 - $t0) * 100")" "$(calc "($m1 - $m0) / ($t1 - $t0) * 100")" "$(calc "($c1 - $c0 + $m1 - $m0) / ($del > 0 ? $del : 1)")")
                if [ $bad = 0 ]; then
                    row 6 "$k client(s), distinct filters, $(fmt_rate "$SCALE") each" "$(fmt_rate "$(calc "$del * 1e9 / $lastmax")")" "none ($k x $n)" "$srv" "$(printf '%.2f x 1 client' "$(calc "$del / $n")")"
                else
                    row 6 "$k client(s), distinct filters, $(fmt_rate "$SCALE") each" "(loss)" "LOST $((k * n - del)) of $((k * n)) (missed $mis)" "$srv" "$bad client(s) short"
                fi
                printf 'scale clients %s offered %s n %s delivered_total %s missed_total %s\n' "$k" "$SCALE" "$n" "$del" "$mis" >> "$tmp/steps"
            done
            note "6: K bclients each store 'syscalls:sys_enter_getpid common_pid == GEN && __syscall_nr != -J' (J = 1..K: distinct filters that all match, so the kernel gets their OR and the PMDA sorts every record out per client) into tracepoint.records and fetch it every 10 ms; the generator offers ${SCALE}/s for ${SECS} s; events/s = records delivered to all clients together. CPU per record delivered."
            scaled=1
        fi
    fi
    restore_tp || log "the PMDA did not restart with the original configuration"
fi

# ==== 4. memory and start-up ===================================================
row 4 "start-up: exec to 1st answered fetch (dbpmda)" "$(printf '%.0f ms' "${t_start_ms:-0}")" "-" "-" "-"
if [ "$e2e" = 1 ]; then
    row 4 "start-up: pminfo tracepoint.param (all formats)" "$(printf '%.0f ms' "$pminfo_ms")" "-" "$nparam names" "-"
    row 4 "RSS: PMDA in pmcd, idle / after all formats" "-" "-" "${rss_idle} kB / ${rss_formats} kB" "-"
    row 4 "RSS: PMDA in pmcd after load (VmRSS/VmHWM)" "-" "-" "${rss_load} kB / ${hwm_load} kB" "-"
fi
[ -n "${rss_idle_db:-}" ] && row 4 "RSS: PMDA under dbpmda, idle / peak (VmHWM)" "-" "-" "${rss_idle_db} kB / ${hwm_db} kB" "-"

# ==== 5. the alternative: PCP's logger PMDA tailing trace_pipe =================
LGDIR=$PCP_PMDAS_DIR/logger
lg_line=
lg_remove() {
    [ -n "$lg_line" ] || return 0
    local p
    grep -vxF "$lg_line" "$PCP_PMCDCONF_PATH" > "$tmp/pmcd.conf" && cat "$tmp/pmcd.conf" > "$PCP_PMCDCONF_PATH"
    lg_line=
    pmsignal -a -s HUP pmcd >/dev/null 2>&1
    sleep 0.5
    for p in $(pgrep -f "^cat $INST/trace_pipe"); do kill "$p"; done
}
if [ ! -x "$LGDIR/pmdalogger" ]; then
    row 5 "alternative: logger PMDA on trace_pipe" "not measured" "no $LGDIR/pmdalogger" "-" "-"
elif grep -q '^logger[[:space:]]' "$PCP_PMCDCONF_PATH"; then
    row 5 "alternative: logger PMDA on trace_pipe" "not measured" "logger already in pmcd" "-" "-"
else
    log "5. logger PMDA tailing trace_pipe (wrapper, -s 0.01, -U root)"
    mkdir "$INST" || exit 1
    echo 1024 > "$INST/buffer_size_kb"
    echo 'comm == "tpbench_gen"' > "$EV/filter"
    ev_enabled=$EV/enable
    echo 1 > "$EV/enable"
    echo "tpb n $B/tpbench_blockcat $INST/trace_pipe|" > "$tmp/logger.conf"
    lg_line="logger	106	pipe	binary		$LGDIR/pmdalogger -d 106 -U root -s 0.01 -l $tmp/logger.log $tmp/logger.conf"
    awk -v l="$lg_line" '/^\[access\]/ && !d { print l; d = 1 } { print } END { if (!d) print l }' \
        "$PCP_PMCDCONF_PATH" > "$tmp/pmcd.conf" && cat "$tmp/pmcd.conf" > "$PCP_PMCDCONF_PATH"
    pmsignal -a -s HUP pmcd >/dev/null 2>&1
    if wait_for "pgrep -f '^cat $INST/trace_pipe'" 100; then
        lgpid=$(pgrep -f "^$LGDIR/pmdalogger -d 106 -U root -s 0.01" | head -1)
        catpid=$(pgrep -f "^cat $INST/trace_pipe" | head -1)
        LOSTV= BCL_ARGS="-p 106.0.9 -" AGENT_PIDS="$lgpid $catpid" n_flat=$((N / 10))
        search logger "${TPB_LG_RATES:-10000 20000 40000 60000 80000 120000 160000}" "$n_flat"
        if [ -n "$best_rate" ]; then
            row 5 "logger PMDA: highest zero-loss rate" "$(fmt_rate "$best_rate")" "none ($best_n/$best_n)" "$(printf 'agent %.0f%% pmcd %.0f%% cli %.0f%%' "$best_agent" "$best_pmcd" "$best_client")" "$([ -n "${ours_rate:-}" ] && printf 'ours %.1f x' "$(calc "$ours_rate / $best_rate")")"
            row 5 "   CPU per delivered event: cat+logger+pmcd / client" "" "" "$(printf '%.0f ns / %.0f ns' "$best_ns" "$best_cns")" "$([ -n "${ours_ns:-}" ] && printf 'ours %.2f x' "$(calc "$ours_ns / $best_ns")")"
        else
            row 5 "logger PMDA: no step without loss" "(loss)" "every step lost events" "-" "-"
        fi
        [ -n "$loss_row" ] && { IFS='|' read -r a b c <<< "$loss_row"; row 5 "logger PMDA: first paced step with loss" "(loss)" "$b" "$c" "offered $a"; }
        STEP_TAG=logger-cmp BCL_ARGS="-i 10000 -p 106.0.9 -"
        if step "$CMP" "$(calc "$CMP * $SECS")" && [ $step_ok = 1 ] && [ -n "${cmp_ours:-}" ]; then
            IFS='|' read -r a b c <<< "$cmp_ours"
            row 5 "same load $(fmt_rate "$CMP"), 10ms-paced client: CPU/ev" "" "none (both)" "$(printf 'ours %.0f ns, logger %.0f ns' "$a" "$step_ns")" "$(printf 'ours %.2f x' "$(calc "$a / $step_ns")")"
            row 5 "   % of a core: PMDA+pmcd vs cat+logger+pmcd" "" "" "$(printf 'ours %.0f%%, logger %.0f%%' "$(calc "$b + $c")" "$(calc "$step_agent + $step_pmcd")")" ""
        else
            row 5 "same load $(fmt_rate "$CMP"), 10ms-paced client: CPU/ev" "not measured" "loss in one of them" "-" "-"
        fi
        [ -n "$flat_row" ] && { IFS='|' read -r a b c <<< "$flat_row"; row 5 "logger PMDA: generator flat out" "(loss)" "$b" "$c" "offered $a"; }
        note "5: PCP's logger PMDA in pmcd, best-tuned: -U root, -s 0.01, its command source is tpbench_blockcat (clears O_NONBLOCK, execs cat) on instances/tpbench.$$/trace_pipe (1024 kB per CPU, kernel filter comm == \"tpbench_gen\"); bclient fetches logger.perfile.tpb.records (106.0.9) back to back. Its loss is never reported: zero loss = delivered == offered. 'ours N x' compares delivered rates, ours being bounded by the generator (row 3), so it is a lower bound. CPU of 'agent' = pmdalogger + cat. 'same load': both at ${CMP}/s for ${SECS} s with a client that fetches every 10 ms (a pmevent-like consumer), so the CPU per event is the data path's, not busy polling's."
    else
        row 5 "alternative: logger PMDA on trace_pipe" "not measured" "pmdalogger did not start" "-" "-"
    fi
    lg_remove
    echo 0 > "$EV/enable"; ev_enabled=
    echo 0 > "$EV/filter"
    rmdir "$INST" 2>/dev/null
fi

# ==== 6. scaling: not measured ==================================================
[ -n "${scaled:-}" ] || row 6 "scaling: 1/4/16 clients, distinct filters" "not measured" "-" "-" "-"
row 6 "scaling: 1/10/100 enabled events" "not measured" "-" "-" "-"
row 6 "enabled, nobody wants it (filter rejects all)" "$(fmt_rate "$(calc "$N * 1e9 / $ns_nomatch")")" "n/a (nothing recorded)" "generator thread" "$(printf '+%.0f ns/event' "$(calc "($ns_nomatch - $ns_off) / $N")")"
note "6: 'nobody wants it' = syscalls:sys_enter_getpid enabled with a kernel filter no event matches (comm == \"tpbench_nomatch\"): the cost every call pays; nothing reaches the PMDA, whose idle cost is row 2's."

other=$(grep -l '^1' "$TRACING"/events/syscalls/*/enable "$TRACING"/instances/*/events/syscalls/*/enable 2>/dev/null | sed "s|$TRACING/||" | tr '\n' ' ')
[ -n "$other" ] && note "machine: other syscall tracepoints enabled during the run (they add to every syscall, so to the 'disabled' loop too): $other"

{
    cat "$tmp/machine"; echo
    head -1 "$TABLE"; tail -n +2 "$TABLE" | sort -s -n -k1,1; echo
    cat "$tmp/notes" 2>/dev/null
    [ -f "$tmp/steps" ] && { echo; echo "steps (offered 0 = flat out; CPU % of one core; server = PMDA(s) + pmcd):"; cat "$tmp/steps"; }
} > "$OUT"
cat "$OUT"
echo
echo "results: $OUT"
