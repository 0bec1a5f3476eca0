#!/bin/bash
# The benchmark behind `make bench`: see bench/README.md.
#   bench/run.sh [BUILD_DIR]        (as root; BUILD_DIR defaults to build)
# Environment: TPB_N (events per flat-out run, default 10000000),
# TPB_SECS (seconds per paced step, default 2), TPB_RATES and TPB_LG_RATES
# (paced steps for ours and for the logger PMDA), TPB_CMP_RATE (the rate at
# which both are run for the CPU comparison, default 40000), TPB_SCALE_RATE
# (the rate offered to 1, 4 and 16 subscribed clients, default 100000),
# TPB_ROUNDS (interleaved ceiling/capture rounds, default 3), TPB_KN (calls
# per run of the 10- and 100-event rows, default 1500000).
. /etc/pcp.env
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
B=${1:-build}
case $B in /*) ;; *) B=$top/$B ;; esac
GEN=$B/tpbench_load
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
OUT=$top/bench/results/$(date -u +%Y-%m-%d)-$host
i=1; while [ -e "$OUT$([ $i -gt 1 ] && echo "-$i").txt" ]; do i=$((i + 1)); done
OUT=$OUT$([ $i -gt 1 ] && echo "-$i").txt   # never overwrite an earlier run

[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }
grep -q " $TRACING tracefs" /proc/mounts || { echo "bench: tracefs is not mounted at $TRACING" >&2; exit 1; }
mkdir -p "$tmp" "$top/bench/results"
. "$top/bench/lib.sh"

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
    declare -F pipe_cleanup >/dev/null && pipe_cleanup
    [ -n "$ev_enabled" ] && { echo 0 > "$ev_enabled"; } 2>/dev/null
    [ -d "$INST" ] && { echo 0 > "$INST/events/enable"; rmdir "$INST"; } 2>/dev/null
    if [ -n "$saved_conf" ]; then
        cp "$saved_conf" "$PMDADIR/tracepoint.conf"
        [ -n "$saved_bin" ] && install -m 755 "$saved_bin" "$PMDADIR/pmdatracepoint"
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
# tasks PID [COMM]: the /proc directories of PID's threads (named COMM, if given)
tasks() {
    local t
    for t in /proc/"$1"/task/*; do
        [ -z "${2:-}" ] || [ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] && echo "$t"
    done
}
# cpu_ns PID [COMM]: CPU time (ns) of every thread of PID (named COMM, if
# given): schedstat when there is one, else stat ticks.
cpu_ns() {
    local t s=0 v
    for t in $(tasks "$1" "${2:-}"); do
        if [ -r "$t/schedstat" ]; then read -r v _ < "$t/schedstat" 2>/dev/null || v=0
        else v=$(awk -v hz="$HZ" '{ sub(/^.*\) /, ""); printf "%.0f", ($12 + $13) * 1e9 / hz }' "$t/stat" 2>/dev/null)
        fi
        s=$((s + ${v:-0}))
    done
    echo $s
}
now_ns() { date +%s%N; }
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' /proc/$1/status 2>/dev/null; }

TABLE=$tmp/table
row() {  # section, what, rate, loss, cpu, ratio
    printf '%-2s %-50s %-13s %-30s %-30s %s\n' "$@" >> "$TABLE"
}
krow() { TABLE=$tmp/table.k row "$@"; }   # 6: 1/10/100 events, appended last
note() { echo "$*" >> "$tmp/notes"; }
T_START=$(date +%s)
log() { echo "bench: [$(( $(date +%s) - T_START ))s] $*" >&2; }

raw() { echo "$*" >> "$tmp/steps"; }
# gen GEN_ARGS...: one generator run; sets g_n (calls), g_ns (elapsed), g_cpu
gen() { g_cpu=; read -r g_n g_ns g_cpu < <("$GEN" "$@"); [ -n "$g_cpu" ]; }
# cli_counts FILE: the events of $GP and the lost ones that pcp tracepoint
# -c printed into FILE, as "COUNTED LOST" (rows 7 and 13)
cli_counts() { awk -v ev="$GP" '$NF == ev { g = $1 } $2 == "lost" { l = $1 } END { print g + 0, l + 0 }' "$1"; }

# the load: the generator's getpid calls, and the filter that sees only them
FILTER='comm == "tpbench_gen"'
GP=syscalls:sys_enter_getpid

# ---- the PMDA in pmcd: take it over for a row, give it back ------------------
restore_tp() {
    [ -n "$saved_conf" ] || return 0
    cp "$saved_conf" "$PMDADIR/tracepoint.conf"
    [ -n "$saved_bin" ] && install -m 755 "$saved_bin" "$PMDADIR/pmdatracepoint"
    saved_conf= saved_bin=
    pmda_restart
}
# take_tp: save the installed config (and binary, if ours differs) for
# cleanup and restore_tp, and install our build
take_tp() {
    [ -n "$saved_conf" ] && return 0
    cp "$PMDADIR/tracepoint.conf" "$tmp/orig.conf"; saved_conf=$tmp/orig.conf
    if ! cmp -s "$PMDA_BIN" "$PMDADIR/pmdatracepoint"; then
        cp "$PMDADIR/pmdatracepoint" "$tmp/orig.bin"; saved_bin=$tmp/orig.bin
        pmda_install_bin "$PMDA_BIN"
    fi
}
in_pmcd() { grep -q '^tracepoint[[:space:]]' "$PCP_PMCDCONF_PATH" && pmprobe pmcd.numclients >/dev/null 2>&1; }
cdpid=$(pgrep -x pmcd | head -1)

# TPB_ROWS: the rows to run, e.g. "11 12" (default: all).  Rows 1 to 9 use
# each other's figures, so any of them runs all of them.
ROWS=${TPB_ROWS:-}
want_row() { [ -z "$ROWS" ] || [[ " $ROWS " == *" $1 "* ]]; }
base_rows=0
for i in 1 2 3 4 5 6 7 8 9; do want_row $i && base_rows=1; done

# ---- machine -------------------------------------------------------------------
{
    echo "pmdatracepoint benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $host"
    echo "nproc:  $(nproc)"
    echo "cpu:    $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
    echo "kernel: $(uname -srm)"
    echo "pcp:    ${PCP_VERSION:-?} (pmcd $(pmprobe -v pmcd.version 2>/dev/null | awk '{ print $3 }' | tr -d '"'))"
    echo "commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null) $(git -C "$top" status --porcelain 2>/dev/null | grep -q . && echo '(work tree modified)')"
    echo "load:   generator pinned to CPU 0, syscall(SYS_getpid) flat out or paced; event syscalls:sys_enter_getpid (1/10/100 events: fd -1 syscalls, enter+exit)"
} > "$tmp/machine"
printf '%-2s %-50s %-13s %-30s %-30s %s\n' "#" "what" "events/s" "loss" "CPU" "ratio" > "$TABLE"

# syscall tracepoints enabled by anyone else (at the start and at the end)
others() { grep -l '^1' "$TRACING"/events/syscalls/*/enable "$TRACING"/instances/*/events/syscalls/*/enable 2>/dev/null | grep -v "/instances/tpbench\.$$/" | sed "s|$TRACING/||" | tr '\n' ' '; }
other0=$(others)

if [ $base_rows = 1 ]; then
# ==== 1, 2 (and 6: 1/10/100 events): kernel ceiling and capture, interleaved ===
# A round runs the generator flat out with the event enabled in our own
# instance and no reader, unfiltered and then with the comm filter (the
# kernel's ceiling), then into a fresh PMDA under dbpmda whose one stream
# has the same filter (capture).  Each side reports its best round; the
# rounds alternate so that drift (other load on the machine) affects both.
ROUNDS=${TPB_ROUNDS:-3}
KN=${TPB_KN:-1500000}
EV=$INST/events/syscalls/sys_enter_getpid
best_of() { printf '%s\n' "$@" | sort -g | tail -1; }
lowest_of() { printf '%s\n' "$@" 0 | sort -g | grep -vx 0 | head -1; }   # the lowest non-zero, or nothing
median_of() { printf '%s\n' "$@" | grep . | sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
lost_cpu0() { awk '/^overrun:/ || /^dropped events:/ { n += $NF } END { print n + 0 }' "$INST/per_cpu/cpu0/stats"; }
recorded() { awk '/^entries:/ { e = $2 } /^overrun:/ { o = $2 } END { print e + o }' "$INST/per_cpu/cpu0/stats"; }
# inst_set 0|1 FILTER SYSTEM:EVENT...: enable with FILTER ("0": none), or disable
inst_set() {
    local v=$1 f=$2 e
    shift 2
    for e; do
        e=$INST/events/${e/://}
        if [ "$v" = 1 ]; then echo "$f" > "$e/filter"; echo 1 > "$e/enable"
        else echo 0 > "$e/enable"; echo 0 > "$e/filter"; fi
    done
}
# ceil_run TAG EVENTS_PER_CALL GEN_ARGS...: one run into our instance (no
# reader); sets c_rate (events/s) and c_rec (events recorded on CPU 0).
ceil_run() {
    local tag=$1 epc=$2 r0
    shift 2
    r0=$(recorded)
    gen "$@" || return 1
    c_rec=$(( $(recorded) - r0 ))
    c_rate=$(calc "$g_n * $epc * 1e9 / $g_ns")
    c_gns=$(calc "$g_cpu / ($g_n * $epc)")
    raw "$tag n $g_n events $((g_n * epc)) recorded $c_rec elapsed_ns $g_ns gen_cpu_ns $g_cpu rate $(printf %.0f "$c_rate")"
}
# drain_run TAG EVENTS_PER_CALL GEN_ARGS...: ceil_run with tpbench_drain
# reading CPU 0's buffer from CPU 1 (a reader that keeps up and does
# nothing else); also sets d_lost (overrun + dropped over the run).
drain_run() {
    local tag=$1 dpid rc=0 l0
    shift
    rm -f "$tmp/drain.ready"
    taskset -c 1 "$B/tpbench_drain" "$INST/per_cpu/cpu0/trace_pipe_raw" "$tmp/drain.ready" > "$tmp/drain.out" &
    dpid=$!; pids+=("$dpid")
    wait_for "[ -e $tmp/drain.ready ]" 50 || { kill "$dpid"; return 1; }
    l0=$(lost_cpu0)
    ceil_run "$tag" "$@" || rc=1
    d_lost=$(( $(lost_cpu0) - l0 ))
    kill -TERM "$dpid"; wait "$dpid" 2>/dev/null
    raw "$tag: drained $(cat "$tmp/drain.out") (pages bytes), lost $d_lost"
    return $rc
}
nfetch=0
dbfetch() {  # sets db_cap and db_lost (tracepoint.captured and .lost)
    nfetch=$((nfetch + 1))
    db_cap=0 db_lost=0
    echo "fetch tracepoint.captured tracepoint.lost" >&3
    wait_for "[ \$(grep -c '(tracepoint.lost)' $DBOUT) -ge $nfetch ] && [ \$(grep -c '^   value' $DBOUT) -ge $((2 * nfetch)) ]" 100 || return 1
    read -r db_cap db_lost < <(grep '^   value' "$DBOUT" | tail -2 | awk '{ printf "%s ", $2 } END { print "" }')
}
# cap_run TAG CONF EVENTS_PER_CALL GEN_ARGS...: a fresh PMDA under dbpmda
# with CONF, one generator run; sets cap_ok (zero loss), cap_rate (events/s),
# cap_got, cap_lost, cap_want, cap_ns (PMDA CPU per event), cap_pct (% core).
# Returns 2 if the PMDA was gone at the end (something else killed it).
db_n=0
cap_run() {
    local tag=$1 conf=$2 epc=$3 dbpid ppid t0 t1 c0 c1 cap0 lost0 cap lost prev i
    shift 3
    cap_ok=0 cap_rate=0 cap_got=0 cap_lost=0 cap_ns=0 cap_pct=0 cap_want=0
    db_n=$((db_n + 1)); DBOUT=$tmp/dbout.$db_n; nfetch=0
    rm -f "$tmp/dbin"; mkfifo "$tmp/dbin"
    dbpmda -n "$top/root" -ie < "$tmp/dbin" > "$DBOUT" 2>&1 &
    dbpid=$!; pids+=("$dbpid")
    exec 3> "$tmp/dbin"
    t0=$(now_ns)
    # its state (identity map, instance ids) in $tmp: row 8's 65,536 keys are
    # not the installed PMDA's to keep
    echo "open pipe $PMDA_BIN -c $conf -l $tmp/dblog.$db_n -h $top/help -I $tmp/state/tracepoint.ids" >&3
    nfetch=1
    echo "fetch tracepoint.captured tracepoint.lost" >&3
    until grep -q '(tracepoint.lost)' "$DBOUT" 2>/dev/null; do
        sleep 0.002
        [ $(( $(now_ns) - t0 )) -gt 10000000000 ] && break
    done
    cap_start_ms=$(calc "($(now_ns) - $t0) / 1e6")
    ppid=$(pgrep -P "$dbpid" pmdatracepoint | head -1)
    if [ -n "$ppid" ]; then
        if [ -z "${idle_pct:-}" ]; then   # the first PMDA: start-up and idle cost
            t_start_ms=$cap_start_ms
            sleep 1
            c0=$(cpu_ns "$ppid"); sleep 1; c1=$(cpu_ns "$ppid")
            idle_pct=$(calc "($c1 - $c0) / 1e7")
            rss_idle_db=$(status_kb "$ppid" VmRSS)
        else
            sleep 0.2
        fi
        dbfetch; cap0=$db_cap lost0=$db_lost
        c0=$(cpu_ns "$ppid"); t0=$(now_ns)
        if gen "$@"; then
            cap_want=$((g_n * epc))
            # wait until the producer has caught up (captured + lost reaches
            # what was generated, or stops moving)
            prev=-1
            for i in $(seq 1 100); do
                running "$ppid" || break
                dbfetch; cap=$db_cap lost=$db_lost
                cap_got=$((cap - cap0)) cap_lost=$((lost - lost0))
                [ $((cap_got + cap_lost)) -ge "$cap_want" ] || [ "$cap" = "$prev" ] && break
                prev=$cap; sleep 0.05
            done
            t1=$(now_ns); c1=$(cpu_ns "$ppid")
            i=$(status_kb "$ppid" VmHWM)
            [ "${i:-0}" -gt "${hwm_db:-0}" ] && hwm_db=$i
            cap_rss=$(status_kb "$ppid" VmRSS)
            cap_rate=$(calc "$cap_got * 1e9 / $g_ns")
            cap_gns=$(calc "$g_cpu / $cap_want")
            cap_ns=$(calc "($c1 - $c0) / ($cap_got > 0 ? $cap_got : 1)")
            cap_pct=$(calc "($c1 - $c0) / ($t1 - $t0) * 100")
            [ "$cap_lost" -eq 0 ] && [ "$cap_got" -eq "$cap_want" ] && cap_ok=1
            running "$ppid" || { raw "$tag: the PMDA (pid $ppid) was gone at the end of the run: not counted"; cap_want=0 cap_ok=0; }
            raw "$tag n $g_n events $cap_want captured $cap_got lost $cap_lost elapsed_ns $g_ns gen_cpu_ns $g_cpu caught_up_ns $((t1 - t0)) pmda_cpu_ns $((c1 - c0)) rate $(printf %.0f "$cap_rate") pmda_ns/ev $(printf %.0f "$cap_ns") pmda% $(printf %.1f "$cap_pct") start_ms $(printf %.0f "$cap_start_ms")"
        fi
    else
        cat "$DBOUT" "$tmp/dblog.$db_n" >&2
    fi
    echo "quit" >&3
    exec 3>&-
    wait "$dbpid" 2>/dev/null
    [ -z "$ppid" ] || wait_for "! running $ppid" 50
    [ -n "$ppid" ] && [ -n "${g_cpu:-}" ] && [ "$cap_want" = 0 ] && return 2
    [ -n "$ppid" ] && [ "$cap_want" -gt 0 ]
}
# rounds TAG CONF EVENTS_PER_CALL "FILTERED_EVENTS" UNFILTERED(0|1) GEN_ARGS...:
# ROUNDS x (ceiling unfiltered if asked, ceiling filtered, capture); sets
# lists r_unf, r_filt, r_cap (events/s; r_cap of zero-loss runs only),
# r_losses (runs with loss), r_rounds (capture/ceiling per round), the best
# of each list, the CPU of the best capture and the highest % core of any.
rounds() {
    local tag=$1 conf=$2 epc=$3 evs=$4 unf=$5 r cu cf x again
    shift 5
    r_unf=() r_filt=() r_cap=() r_gfilt=() r_gcap=() r_drain=() r_gdrain=() r_mono=() r_gmono=() r_dlost=0 r_drain_rounds= r_losses=0 r_rec_unf=0 r_rec_filt=0 r_lostmsg= r_rounds=
    r_best_ns=0 r_best_pct=0 r_max_pct=0
    # shellcheck disable=SC2086
    for r in $(seq 1 "$ROUNDS"); do
        cu=0 cf=0
        if [ "$unf" = 1 ]; then
            inst_set 1 0 $evs
            ceil_run "$tag ceiling-unfiltered round $r" "$epc" "$@" && { cu=$c_rate; r_unf+=("$c_rate"); r_rec_unf=$((r_rec_unf + c_rec)); }
            inst_set 0 0 $evs
        fi
        inst_set 1 "$FILTER" $evs
        ceil_run "$tag ceiling-filtered round $r" "$epc" "$@" && { cf=$c_rate; r_filt+=("$c_rate"); r_gfilt+=("$c_gns"); r_rec_filt=$((r_rec_filt + c_rec)); }
        if [ "${R_DRAIN:-0}" = 1 ]; then   # in the PMDA's trace clock
            echo mono > "$INST/trace_clock"
            ceil_run "$tag ceiling-filtered-mono round $r" "$epc" "$@" && { r_mono+=("$c_rate"); r_gmono+=("$c_gns"); }
            drain_run "$tag ceiling-filtered-drained round $r" "$epc" "$@" && { r_drain+=("$c_rate"); r_gdrain+=("$c_gns"); r_dlost=$((r_dlost + d_lost))
                r_drain_rounds="${r_drain_rounds:+$r_drain_rounds, }$(calc "$c_rate / ($cf > 0 ? $cf : 1)" | xargs printf '%.2f')"; }
            echo local > "$INST/trace_clock"
        fi
        inst_set 0 0 $evs
        cap_run "$tag capture round $r" "$conf" "$epc" "$@"
        x=$? again=
        if [ $x = 2 ]; then   # the PMDA was killed from outside: once more
            again=" (run again: the PMDA was killed)"
            log "   the PMDA died during capture round $r; running it again"
            cap_run "$tag capture round $r, again" "$conf" "$epc" "$@"
            x=$?
        fi
        if [ $x = 0 ]; then
            if [ "$cap_ok" = 1 ]; then
                r_cap+=("$cap_rate") r_gcap+=("$cap_gns")
                # the CPU of the best zero-loss run
                awk -v c="$cap_rate" -v b="$(best_of "${r_cap[@]}")" 'BEGIN { exit !(c >= b) }' && r_best_ns=$cap_ns r_best_pct=$cap_pct
            else
                r_losses=$((r_losses + 1)); r_lostmsg="LOST $cap_lost, got $cap_got of $cap_want"
            fi
            awk -v c="$cap_pct" -v m="$r_max_pct" 'BEGIN { exit !(c > m) }' && r_max_pct=$cap_pct
            x=$(awk -v c="$cap_rate" -v f="$cf" -v u="$cu" 'BEGIN { printf "%.2f", (f > 0) ? c / f : 0; if (u > 0) printf "/%.2f", c / u }')
            [ "$cap_ok" = 1 ] || x="$x (loss)"
        else
            r_losses=$((r_losses + 1)); r_lostmsg="a run failed"; x=failed
        fi
        r_rounds="${r_rounds:+$r_rounds, }$x$again"
    done
    r_best_filt=$(best_of "${r_filt[@]}" 0)
    r_best_unf=$(best_of "${r_unf[@]}" 0)
    r_best_cap=$(best_of "${r_cap[@]}" 0)
    r_best_drain=$(best_of "${r_drain[@]}" 0)
    r_best_mono=$(best_of "${r_mono[@]}" 0)
    r_gns_mono=$(lowest_of "${r_gmono[@]}")
    r_gns_drain=$(lowest_of "${r_gdrain[@]}")
    # the generator's own CPU per event (immune to its being preempted)
    r_gns_filt=$(lowest_of "${r_gfilt[@]}")
    r_gns_cap=$(lowest_of "${r_gcap[@]}")
}

log "1-2. kernel ceiling and capture: $ROUNDS interleaved rounds of $N getpid calls"
mkdir "$INST" || exit 1
offs=()
NS=$((N / 4))   # calls per run where no event is recorded
for i in 1 2 3; do gen 0 "$NS" && offs+=("$g_ns") && raw "disabled run $i n $g_n elapsed_ns $g_ns gen_cpu_ns $g_cpu"; done
ns_off=$(calc "$(printf '%s\n' "${offs[@]}" | sort -n | head -1) * $N / $NS")   # as if N calls
printf 'ring_size 16M\nbacklog 10\nkernel_buffer_kb 1024\nstream bench %s filter %s\n' "$GP" "$FILTER" > "$tmp/conf"
R_DRAIN=1 rounds getpid "$tmp/conf" 1 "$GP" 1 0 "$N"
ceil=$r_best_unf ceil_f=$r_best_filt
row 1 "kernel: getpid loop, event disabled" "$(fmt_rate "$(calc "$N * 1e9 / $ns_off")")" "n/a (no event)" "1 core (100%)" "$(printf '%.0f ns/call' "$(calc "$ns_off / $N")")"
row 1 "kernel: getpid loop, event enabled (ceiling)" "$(fmt_rate "$ceil")" "none: $r_rec_unf/$((ROUNDS * N)) recorded" "1 core (100%)" "$(printf '+%.0f ns/event' "$(calc "1e9 / $ceil - $ns_off / $N")")"
row 1 "kernel: same, kernel filter comm == tpbench_gen" "$(fmt_rate "$ceil_f")" "none: $r_rec_filt/$((ROUNDS * N)) recorded" "1 core (100%)" "$(printf '+%.0f ns/event' "$(calc "1e9 / $ceil_f - $ns_off / $N")")"
note "1: the loop is pinned to CPU 0; the event is enabled only in instances/tpbench.$$ (overwrite mode, no reader); 'recorded' = entries + overrun of cpu0 over the $ROUNDS enabled runs (unfiltered, it includes other programs' getpid calls on CPU 0). Disabled: best of 3 runs of $NS calls; enabled: best of $ROUNDS rounds, each also running row 2's capture (see 2)."
[ "$r_best_mono" != 0 ] && row 1 "kernel: same, in the PMDA's trace clock (mono)" "$(fmt_rate "$r_best_mono")" "-" "1 core (100%)" "$(printf '+%.0f ns/event; gen %.0f vs %.0f ns/event (local)' "$(calc "1e9 / $r_best_mono - $ns_off / $N")" "${r_gns_mono:-0}" "${r_gns_filt:-0}")"
cap1=$r_best_cap cap1_ns=$r_best_ns ceil1_f=$ceil_f
if [ "$r_best_cap" != 0 ]; then
    row 2 "capture: PMDA under dbpmda, gen flat out, best of $ROUNDS" "$(fmt_rate "$r_best_cap")" "$([ $r_losses = 0 ] && echo "none ($ROUNDS x $N)" || echo "LOST in $r_losses of $ROUNDS runs")" "$(printf '%.0f ns/ev, %.0f%% core' "$r_best_ns" "$r_best_pct")" "$(printf '%.2f x ceiling w/ filter, %.2f x ceiling' "$(calc "$r_best_cap / $ceil_f")" "$(calc "$r_best_cap / $ceil")")"
else
    row 2 "capture: PMDA under dbpmda, gen flat out" "(loss)" "$r_lostmsg" "-" "no run without loss"
fi
ratio_f=$(calc "$r_best_cap / $ceil_f")
met=no
[ $r_losses = 0 ] && awk -v r="$ratio_f" -v c="$r_max_pct" 'BEGIN { exit !(r >= 0.90 && c <= 25) }' && met=yes
row 2 "capture target: >=0.90 x ceiling w/ filter, no loss" "" "$([ $r_losses = 0 ] && echo "none in $ROUNDS runs" || echo "LOST in $r_losses of $ROUNDS runs")" "$(printf 'PMDA <= 25%% core: max %.0f%%' "$r_max_pct")" "$([ $met = yes ] && echo "MET" || echo "NOT MET") ($(printf '%.2f x' "$ratio_f"))"
[ -n "$r_gns_cap" ] && [ -n "$r_gns_filt" ] && row 2 "   generator CPU/event: ceiling w/ filter vs capture" "" "" "$(printf '%.0f ns vs %.0f ns' "$r_gns_filt" "$r_gns_cap")" "$(printf '%.2f x (events per gen CPU-s)' "$(calc "$r_gns_filt / $r_gns_cap")")"
if [ "$r_best_drain" != 0 ]; then
    row 2 "kernel: same (mono), read by a reader that only reads" "$(fmt_rate "$r_best_drain")" "$([ "$r_dlost" = 0 ] && echo "none" || echo "LOST $r_dlost")" "gen $(printf '%.0f ns/event' "${r_gns_drain:-0}")" "$(printf '%.2f x ceiling w/ filter, %.2f x in mono (anchor: being read)' "$(calc "$r_best_drain / $ceil_f")" "$(calc "$r_best_drain / ($r_best_mono > 0 ? $r_best_mono : 1)")")"
    row 2 "   capture against that reader (reported)" "" "" "gen $(printf '%.0f ns vs %.0f ns' "${r_gns_drain:-0}" "${r_gns_cap:-0}")" "$(printf '%.2f x (events/s), %.2f x (events per gen CPU-s)' "$(calc "$r_best_cap / $r_best_drain")" "$(calc "${r_gns_drain:-0} / ${r_gns_cap:-1}")")"
    note "2: 'a reader that only reads': bench/src/drain.c (tpbench_drain) on CPU 1 reading $INST/per_cpu/cpu0/trace_pipe_raw a page at a time, non-blocking, polling when empty and discarding what it reads, during one more filtered ceiling run each round (between the ceiling and the capture), in the trace clock the PMDA sets (mono: events carry CLOCK_MONOTONIC, which the PMDA maps to wall-clock time; the instance's default, local, is sched_clock, cheaper to read for the writer), as is the run before it with no reader (row 1's 'trace clock (mono)'); what the kernel's ring buffer charges the writer for being read at all (reader-page swaps, the pages' cache lines moving to the reader's CPU and back), which no capture of the buffer avoids: capture / this reader is the PMDA's own share of the gap to the ceiling. Lost = overrun + dropped events on CPU 0 over those runs. Round by round, this reader / ceiling w/ filter: $r_drain_rounds."
fi
row 2 "capture: PMDA idle (stream, no events)" "0" "-" "$(printf '%.2f%% core' "${idle_pct:-0}")" "-"
note "2: each round: ceiling unfiltered, ceiling with filter, then capture (a fresh PMDA under dbpmda, no pmcd, no client, one stream: $GP filter $FILTER); events/s = captured / generator elapsed; best of $ROUNDS on each side (medians: capture $(fmt_rate "$(median_of "${r_cap[@]}")"), ceiling w/ filter $(fmt_rate "$(median_of "${r_filt[@]}")"), ceiling $(fmt_rate "$(median_of "${r_unf[@]}")")). Capture / ceiling w/ filter / ceiling, round by round: $r_rounds. CPU = all PMDA threads (schedstat) per captured event and % of one core, of the best run; 'generator CPU/event' = the lowest of the generator's own CPU time (user + system) per event on each side: unlike events/s it does not count the time the generator was preempted by other load, so it shows what capture costs the traced program itself; the target needs best/best >= 0.90 against the filtered ceiling (the like-for-like one), zero loss in every run and every run's PMDA <= 25% of a core."
note "2: the PMDA's CPU per event implies a capacity of ~$(fmt_rate "$(calc "1e9 / ($r_best_ns > 0 ? $r_best_ns : 1)")") per core; with no loss, the row's rate is the generator's (filtered event), not the PMDA's limit."

# ---- 6: 1, 10 and 100 distinct enabled events ---------------------------------
usable=()
for c in $("$GEN" -l); do
    [ -d "$TRACING/events/syscalls/sys_enter_$c" ] && [ -d "$TRACING/events/syscalls/sys_exit_$c" ] && usable+=("$c")
done
krow 6 "1 enabled event (getpid enter), capture, dbpmda" "$(fmt_rate "$cap1")" "$([ "$cap1" != 0 ] && echo "none" || echo "(loss)")" "$(printf '%.0f ns/ev' "$cap1_ns")" "1.00 x; $(printf '%.2f x ceiling w/ filter' "$(calc "$cap1 / $ceil1_f")")"
klist=()
for K in 10 100; do
    nc=$((K / 2))
    if [ ${#usable[@]} -lt $nc ]; then
        krow 6 "$K enabled events" "not measured" "${#usable[@]} usable syscalls" "-" "-"
        continue
    fi
    sel=$(IFS=,; echo "${usable[*]:0:nc}")
    evs=$(for c in "${usable[@]:0:nc}"; do printf 'syscalls:sys_enter_%s syscalls:sys_exit_%s ' "$c" "$c"; done)
    printf 'ring_size 16M\nbacklog 10\nkernel_buffer_kb 1024\nstream k%s %s filter %s\n' "$K" "$(echo $evs | tr ' ' ,)" "$FILTER" > "$tmp/conf.k$K"
    log "6. $K enabled events ($nc syscalls x enter+exit): $ROUNDS interleaved rounds of $KN calls"
    rounds "k$K" "$tmp/conf.k$K" 2 "$evs" 0 -s "$sel" 0 "$KN"
    klist+=("$K|$sel|$r_best_cap")
    note "6: $K events: capture / ceiling w/ filter, round by round: $r_rounds; generator CPU per event, ceiling w/ filter vs capture: $(printf '%.0f vs %.0f ns' "${r_gns_filt:-0}" "${r_gns_cap:-0}")."
    if [ "$r_best_cap" != 0 ] && [ $r_losses = 0 ]; then
        krow 6 "$K enabled events ($nc syscalls x 2), capture, dbpmda" "$(fmt_rate "$r_best_cap")" "none ($ROUNDS x $((2 * KN)))" "$(printf '%.0f ns/ev, %.0f%% core' "$r_best_ns" "$r_best_pct")" "$(printf '%.2f x 1 event (ns/ev %.2f x); %.2f x ceiling w/ filter (%s)' "$(calc "$r_best_cap / ($cap1 > 0 ? $cap1 : 1)")" "$(calc "$r_best_ns / ($cap1_ns > 0 ? $cap1_ns : 1)")" "$(calc "$r_best_cap / $r_best_filt")" "$(fmt_rate "$r_best_filt")")"
    else
        krow 6 "$K enabled events ($nc syscalls x 2), capture, dbpmda" "$([ "$r_best_cap" != 0 ] && fmt_rate "$r_best_cap" || echo "(loss)")" "LOST in $r_losses of $ROUNDS runs ($r_lostmsg)" "$(printf '%.0f ns/ev' "$r_best_ns")" "$(printf 'ceiling w/ filter %s' "$(fmt_rate "$r_best_filt")")"
    fi
done
note "6: 1/10/100 enabled events: 1 = row 2 ($GP); 10 and 100 = the first 5 and 50 of: ${usable[*]:0:50} (syscalls:sys_enter_X and sys_exit_X each, called in turn with fd -1 and zero arguments: they fail at once). Each: one stream listing the events, filter $FILTER; $ROUNDS interleaved rounds (ceiling w/ filter, then capture under dbpmda) of $KN calls = $((2 * KN)) events; best of $ROUNDS. ns/ev = PMDA CPU per captured event; 'x 1 event' = events/s (and PMDA ns/ev) relative to the 1-event row. With no loss, events/s is what the generator made (its calls differ from getpid), so PMDA ns/ev is the figure to compare; the sys_enter events of these calls carry 6 arguments (getpid's none), so 10 against 100 is the like-for-like pair."

log "1. the cost of an enabled event nobody wants (best of 3)"
inst_set 1 'comm == "tpbench_nomatch"' "$GP"
nm=()
for i in 1 2 3; do gen 0 "$NS" && nm+=("$g_ns") && raw "nomatch run $i n $g_n elapsed_ns $g_ns gen_cpu_ns $g_cpu"; done
ns_nomatch=$(calc "$(printf '%s\n' "${nm[@]}" | sort -n | head -1) * $N / $NS")
inst_set 0 0 "$GP"

# ==== 8. aggregations on the loaded event ======================================
# getpid's enter and exit (two events a call) into a stream, as in row 2, then
# into the same stream plus three aggregations of them: a count by key, a
# log2 histogram of a field and a latency from enter to exit.  Same rounds
# (kernel ceiling with the filter, then capture); the PMDA's CPU per event
# tells what the aggregations add.  Then the memory of an aggregation that
# holds max_keys keys.
GPX=syscalls:sys_exit_getpid
if [ -d "$INST/events/syscalls/sys_exit_getpid" ]; then
    log "8. aggregations: getpid enter+exit into a stream, then the stream and 3 aggregations"
    printf 'ring_size 16M\nstream bench %s,%s filter %s\n' "$GP" "$GPX" "$FILTER" > "$tmp/conf8a"
    { cat "$tmp/conf8a"
      echo "count calls $GP by common_pid filter $FILTER"
      echo "hist rets $GPX ret filter $FILTER"
      echo "latency lat $GP $GPX on common_pid=common_pid filter $FILTER"
    } > "$tmp/conf8b"
    rounds agg-none "$tmp/conf8a" 2 "$GP $GPX" 0 0 "$N"
    a_cap=$r_best_cap a_ns=$r_best_ns a_pct=$r_best_pct a_filt=$r_best_filt a_loss=$r_losses a_rounds=$r_rounds
    rounds agg-three "$tmp/conf8b" 2 "$GP $GPX" 0 0 "$N"
    b_cap=$r_best_cap b_ns=$r_best_ns b_pct=$r_best_pct b_filt=$r_best_filt b_loss=$r_losses b_rounds=$r_rounds
    if [ "$a_cap" != 0 ] && [ "$b_cap" != 0 ]; then
        per_agg=$(calc "($b_ns - $a_ns) * 2 / 4")
        ratio8=$(calc "$b_cap / $a_cap")
        met8=$(awk -v r="$ratio8" -v f="$(calc "$b_cap / $b_filt")" -v p="$per_agg" \
            'BEGIN { print (f >= 0.9 && p <= 30) ? "MET" : "NOT MET" }')
        row 8 "capture getpid enter+exit (2 events/call), stream alone" "$(fmt_rate "$a_cap")" "$([ "$a_loss" = 0 ] && echo "none ($ROUNDS x $((2 * N)))" || echo "LOST in $a_loss runs")" "$(printf '%.0f ns/ev, %.0f%% core' "$a_ns" "$a_pct")" "$(printf '%.2f x ceiling w/ filter' "$(calc "$a_cap / $a_filt")")"
        row 8 "same + count by common_pid, hist of ret, latency enter->exit" "$(fmt_rate "$b_cap")" "$([ "$b_loss" = 0 ] && echo "none ($ROUNDS x $((2 * N)))" || echo "LOST in $b_loss runs")" "$(printf '%.0f ns/ev, %.0f%% core' "$b_ns" "$b_pct")" "$(printf '%.2f x stream alone, %.2f x ceiling w/ filter' "$ratio8" "$(calc "$b_cap / $b_filt")")"
        row 8 "aggregation target: >=0.9 x ceiling, <=30 ns per event per aggregation" "" "" "$(printf '%.1f ns per event per aggregation' "$per_agg")" "$met8"
    else
        row 8 "capture with aggregations" "(loss)" "no zero-loss run: stream alone $a_rounds; with aggregations $b_rounds" "-" "-"
    fi
    note "8: one stream of syscalls:sys_enter_getpid and sys_exit_getpid (filter $FILTER), alone and then with three aggregations of the same events and filter: count by common_pid (enter), hist of ret (exit), latency enter->exit on common_pid=common_pid (both). Each run: $N calls = $((2 * N)) events, $ROUNDS interleaved rounds (ceiling w/ filter, capture under dbpmda), best zero-loss round. Per event per aggregation = (ns/ev with - ns/ev without) x 2 events / 4 (event, aggregation) feeds a call. Rounds, capture/ceiling: stream alone ${a_rounds:-}; with aggregations ${b_rounds:-}."
    # memory: an aggregation holding max_keys keys (lseek offsets 0..K-1)
    KEYS=65536
    if [ -d "$INST/events/syscalls/sys_enter_lseek" ]; then
        declare -A rss8=()
        for mk in 0 1024 $KEYS; do
            if [ "$mk" = 0 ]; then      # the same aggregations without keys: the baseline
                printf 'ring_size 64K\ncount keys syscalls:sys_enter_lseek filter %s\nhist keysh syscalls:sys_enter_lseek offset filter %s\n' \
                    "$FILTER" "$FILTER" > "$tmp/conf8k"
            else
                printf 'ring_size 64K\ncount keys syscalls:sys_enter_lseek by offset max_keys=%s filter %s\nhist keysh syscalls:sys_enter_lseek offset by offset max_keys=%s filter %s\n' \
                    "$mk" "$FILTER" "$mk" "$FILTER" > "$tmp/conf8k"
            fi
            cap_rss=0
            cap_run "agg-keys-$mk" "$tmp/conf8k" 1 -s lseek -v "$KEYS" 0 $((4 * KEYS)) || true
            rss8[$mk]=${cap_rss:-0}
        done
        for mk in 1024 $KEYS; do
            row 8 "RSS: count + hist by key, $mk keys filled (of $KEYS offered)" "" "" "$(printf '%.1f MB (+%.1f MB)' "$(calc "${rss8[$mk]} / 1024")" "$(calc "(${rss8[$mk]} - ${rss8[0]}) / 1024")")" "$(printf '%.0f bytes per key (2 aggregations)' "$(calc "(${rss8[$mk]} - ${rss8[0]}) * 1024 / $mk")")"
        done
        note "8: RSS = VmRSS of a PMDA under dbpmda (ring_size 64K) after $((4 * KEYS)) lseek calls whose offsets cycle through $KEYS values, with a count and a hist keyed by offset (max_keys as shown: the rest go to \"other\"), against the same two aggregations without keys (${rss8[0]} kB); an aggregation's memory is allocated whole when it is defined (each key's binary form, counters and, for a hist, 66 buckets); names are made when an instance is."
    fi
    if [ -x "$B/aggbench" ]; then
        { read -r _ ab_c; read -r _ ab_h; read -r _ ab_l; read -r _ ab_kc ab_kh; } < <("$B/aggbench" 3000000)
        row 8 "producer cost per event and aggregation, no kernel (aggbench)" "" "" "$(printf 'count %.0f, hist %.0f, latency %.0f ns' "$ab_c" "$ab_h" "$ab_l")" "$(awk -v c="$ab_c" -v h="$ab_h" -v l="$ab_l" 'BEGIN { m = c; if (h > m) m = h; if (l > m) m = l; print (m <= 30) ? "<= 30 ns: met" : "<= 30 ns: NOT MET" }')"
        row 8 "memory per key, max_keys 65536 (aggbench)" "" "" "$(printf 'count %.0f bytes, hist %.0f bytes' "$(calc "$ab_kc * 1024")" "$(calc "$ab_kh * 1024")")" ""
        note "8: aggbench (bench/src/aggbench.c): records laid out as syscalls:sys_exit_getpid's fed straight to src/agg.c, 3M per run, best of 5: a count by common_pid (64 pids), a hist of ret by common_pid, a latency from enter to exit records (alternating) on common_pid; CPU per event fed. Memory per key: VmRSS growth with 65536 keys, count and hist."
    fi
fi
rmdir "$INST"

# ==== 9. dynamic probes: what a hit costs the traced program ==================
# tpbench_probe calls pb_target() PN times (best of 3 runs): with no probe,
# then while pcp tracepoint -c -q -u holds a uprobe on its entry, then on its
# return.  The difference per call is what one hit costs the traced program
# (the trap into the kernel, the fetchargs, the event recorded); the client's
# count says every hit was delivered.
PB=$B/tpbench_probe
PN=${TPB_PROBE_CALLS:-200000}
probe_step() {  # spec -> pb_ns, pb_got
    local cpid
    "$B/pcp-tracepoint" -c -q -u "$1" > "$tmp/pb" 2> "$tmp/pb.err" &
    cpid=$!; pids+=("$cpid")
    wait_for "grep -q pmdatracepoint_ $TRACING/uprobe_events" 50
    read -r _ pb_ns < <("$PB" "$PN" 3)
    sleep 1.5
    kill -TERM "$cpid"; wait "$cpid" 2>/dev/null
    pb_got=$(awk '$NF ~ /^probe:/ { n += $1 } END { print n + 0 }' "$tmp/pb")
    printf 'probe %s calls %s ns_per_call %s delivered %s\n' "$1" "$((3 * PN))" "$pb_ns" "$pb_got" >> "$tmp/steps"
}
probe_rows() {
    if [ ! -f "$TRACING/uprobe_events" ] || [ ! -x "$PB" ]; then
        row 9 "uprobe hit cost" "not measured" "no uprobe_events" "-" "-"
        return
    fi
    log "9. dynamic probes: the cost of a hit on the traced program"
    read -r _ pb_none < <("$PB" "$PN" 3)
    probe_step "$PB:pb_target x=\$arg1:s64"; pb_entry=$pb_ns pb_entry_got=$pb_got
    probe_step "$PB:pb_target%return r=\$retval:s64"; pb_ret=$pb_ns pb_ret_got=$pb_got
    row 9 "traced function, no probe" "$(fmt_rate "$(calc "1e9 / $pb_none")")" "-" "$(printf '%.1f ns/call' "$pb_none")" "-"
    row 9 "uprobe on its entry (x=\$arg1:s64), pcp tracepoint -c -q" "$(fmt_rate "$(calc "1e9 / $pb_entry")")" "$pb_entry_got of $((3 * PN)) hits delivered" "$(printf '%.0f ns/call' "$pb_entry")" "$(printf '+%.0f ns per hit' "$(calc "$pb_entry - $pb_none")")"
    row 9 "uretprobe on its return (r=\$retval:s64)" "$(fmt_rate "$(calc "1e9 / $pb_ret")")" "$pb_ret_got of $((3 * PN)) hits delivered" "$(printf '%.0f ns/call' "$pb_ret")" "$(printf '+%.0f ns per hit' "$(calc "$pb_ret - $pb_none")")"
    note "9: bench/src/probebench.c calls a noinline function $PN times, best of 3 runs, wall-clock time per call: with no probe, then with a probe defined by pcp tracepoint -c -q -u SPEC through the PMDA in pmcd (entry, then return). 'per hit' = the difference: what one hit costs the traced program (trap, fetchargs, recording); delivered = the client's count over the 3 runs (all hits reach the client)."
}

# ==== 7. keeping up: the shipped client and pmlogger at their defaults =======
# The PMDA in pmcd with the shipped defaults (ring, fetch_limit, kernel
# buffer) and one stream "bench" of the generator's getpid calls.
WAKEUPS="eval pmprobe -v tracepoint.producer.wakeups | awk '{ print \$3 }'"
idle_wakeups() {  # seconds: wakeups a second of the PMDA with nothing to read
    local w0 w1
    sleep 1; w0=$($WAKEUPS); sleep "$1"; w1=$($WAKEUPS)
    calc "($w1 - $w0) / $1"
}
# cli_step RATE N [IDLE_S]: pcp tracepoint -c -q at its default options
# subscribed to the generator's calls, N calls at RATE (0 = flat out) after
# IDLE_S seconds of nothing; sets cli_got, cli_lost (its own count of lost
# events) and cli_klost (kernel), cli_ok.
cli_step() {
    local rate=$1 n=$2 idle=${3:-0} cpid l0
    l0=$($LOSTV)
    "$B/pcp-tracepoint" -c -q -f "$FILTER" syscalls:sys_enter_getpid > "$tmp/cli" 2> "$tmp/cli.err" &
    cpid=$!; pids+=("$cpid")
    wait_for "[ \"\$(pmprobe -v tracepoint.subscriptions | awk '{ print \$3 }')\" -ge 1 ]" 50
    sleep "$idle"
    "$GEN" 0 "$n" $([ "$rate" != 0 ] && echo "$rate") > "$tmp/gen"
    sleep 1.5
    kill -TERM "$cpid"; wait "$cpid" 2>/dev/null
    read -r cli_got cli_lost < <(cli_counts "$tmp/cli")
    cli_klost=$(( $($LOSTV) - l0 ))
    cli_rate=$(calc "$n * 1e9 / $(awk '{ print $2 }' "$tmp/gen")")      # what the generator made
    cli_ok=0; [ "$cli_got" -eq "$n" ] && [ "$cli_lost" -eq 0 ] && [ "$cli_klost" -eq 0 ] && cli_ok=1
    printf 'cli offered %s n %s idle_s %s counted %s lost %s kernel_lost %s\n' "$rate" "$n" "$idle" "$cli_got" "$cli_lost" "$cli_klost" >> "$tmp/steps"
}
# text_step RATE N: pcp tracepoint's default line (the PMDA renders each
# event's text, the client prints "TIME [CPU] COMM-PID event: TEXT") into a
# file in /dev/shm, N calls at RATE; sets text_got, text_lost, text_ok.
text_step() {
    local rate=$1 n=$2 cpid l0
    l0=$($LOSTV)
    "$B/pcp-tracepoint" -f "$FILTER" syscalls:sys_enter_getpid > "$shm/text" 2> "$tmp/text.err" &
    cpid=$!; pids+=("$cpid")
    wait_for "[ \"\$(pmprobe -v tracepoint.subscriptions | awk '{ print \$3 }')\" -ge 1 ]" 50
    "$GEN" 0 "$n" "$rate" > "$tmp/gen"
    sleep 1.5
    kill -TERM "$cpid"; wait "$cpid" 2>/dev/null
    text_got=$(grep -c ' syscalls:sys_enter_getpid:' "$shm/text")
    text_lost=$(awk '$2 == "LOST" { n += $3 } END { print n + 0 }' "$shm/text")
    text_rate=$(calc "$n * 1e9 / $(awk '{ print $2 }' "$tmp/gen")")
    text_ok=0; [ "$text_got" -eq "$n" ] && [ "$text_lost" -eq 0 ] && [ $(( $($LOSTV) - l0 )) -eq 0 ] && text_ok=1
    printf 'text offered %s n %s printed %s lost %s\n' "$rate" "$n" "$text_got" "$text_lost" >> "$tmp/steps"
    rm -f "$shm/text"
}
# log_step RATE: pmlogger with the shipped configuration for SECS s at RATE;
# sets log_got, log_missed, log_ok.
log_step() {
    local rate=$1 n lpid
    n=$(calc "$rate * $SECS")
    rm -f "$tmp"/arch.*
    pmlogger -c "$top/tracepoint.pmlogger" -l "$tmp/pmlogger.log" "$tmp/arch" > /dev/null 2>&1 &
    lpid=$!; pids+=("$lpid")
    sleep 1.5
    log_t0=$(date +%s)              # the backlog before it is not this step's
    sleep 1
    "$GEN" 0 "$n" "$rate" > "$tmp/gen"
    sleep 1.5
    kill -TERM "$lpid"; wait "$lpid" 2>/dev/null
    # counted by pcp tracepoint: pmdumplog's time is quadratic in an array's records
    "$B/pcp-tracepoint" -a "$tmp/arch" -n bench -c -q -S "@$(date -d @"$log_t0" '+%Y-%m-%d %H:%M:%S')" \
        > "$tmp/dump" 2>&1
    log_got=$(awk '$NF == "syscalls:sys_enter_getpid" { print $1 }' "$tmp/dump"); log_got=${log_got:-0}
    log_missed=$(awk '$2 == "lost" { print $1 }' "$tmp/dump"); log_missed=${log_missed:-0}
    log_rate=$(calc "$n * 1e9 / $(awk '{ print $2 }' "$tmp/gen")")
    log_ok=0; [ "$log_got" -eq "$n" ] && [ "$log_missed" -eq 0 ] && log_ok=1
    printf 'pmlogger offered %s n %s archived %s missed %s\n' "$rate" "$n" "$log_got" "$log_missed" >> "$tmp/steps"
}
# vs_row3 BEST LOSS: BEST against row 3's best, with the verdict of the
# target 0.9 x: met; or not met where a step lost; or, where no step lost
# (the steps ended below what the client can take), a lower bound only
vs_row3() {
    local x v
    [ -n "$1" ] && [ -n "${ref_rate:-}" ] || { echo "-"; return; }
    x=$(calc "$1 / $ref_rate")
    if awk -v x="$x" 'BEGIN { exit !(x >= 0.9) }'; then v=MET
    elif [ -n "$2" ]; then v="NOT MET"
    else v="a lower bound, no step lost"; fi
    printf '%.2f x row 3 (target >= 0.9): %s' "$x" "$v"
}
keep_up() {
    local r tn tw best= loss= w_stream w_none
    log "7. keeping up: idle wakeups, pcp tracepoint, a burst after idle, pmlogger"
    w_stream=$(idle_wakeups 5)
    for r in ${TPB_CLI_RATES:-200000 400000 800000 1200000 1600000 2000000 2400000}; do
        cli_step "$r" "$(calc "$r * $SECS")"
        log "   pcp tracepoint at $(fmt_rate "$r"): counted $cli_got lost $cli_lost kernel $cli_klost"
        if [ $cli_ok = 1 ]; then best=$cli_rate; else loss="LOST $(( $(calc "$r * $SECS") - cli_got )) at $(fmt_rate "$r") offered"; break; fi
    done
    if [ -n "$best" ]; then
        row 7 "pcp tracepoint, default options: best zero-loss" "$(fmt_rate "$best")" "none" "${loss:-no loss at any step}" "$(vs_row3 "$best" "$loss")"
    else
        row 7 "pcp tracepoint, default options" "(loss)" "$loss" "-" "-"
    fi
    best= loss=
    shm=$(mktemp -d /dev/shm/tpbench.XXXXXX)
    for r in ${TPB_TEXT_RATES:-100000 200000 300000 400000 600000 800000 1000000 1200000 1400000 1600000 1800000 2000000 0}; do
        if [ "$r" = 0 ]; then tn=${TPB_TEXT_FLAT:-3000000} tw="flat out"; else tn=$(calc "$r * $SECS") tw=$(fmt_rate "$r"); fi
        text_step "$r" "$tn"
        log "   pcp tracepoint, default line, at $tw: printed $text_got lost $text_lost"
        if [ $text_ok = 1 ]; then best=$text_rate; else loss="LOST $(( tn - text_got )) at $tw $([ "$r" = 0 ] && echo "($(fmt_rate "$text_rate"))" || echo offered)"; break; fi
    done
    rm -rf "$shm"
    row 7 "pcp tracepoint, default line (text), best zero-loss" "${best:+$(fmt_rate "$best")}" "${loss:-no loss at any step}" "-" "$(vs_row3 "${best:-}" "$loss")"
    "$B/renderbench" 200000 > "$tmp/render_all"
    read -r _ rb_prep _ rb_kb < <(head -2 "$tmp/render_all" | paste -d' ' - -)
    tail -n +3 "$tmp/render_all" > "$tmp/render"
    row 7 "PMDA text rendering per event: getpid / sched_switch / kmalloc / openat / inet_sock_set_state / raw sys_enter / mm_page_alloc" "" "" "$(awk '{ printf "%s%s ns", (NR > 1 ? " / " : ""), $2 }' "$tmp/render")" "libtraceevent alone $(awk '{ printf "%s%s", (NR > 1 ? " / " : ""), $3 }' "$tmp/render") ns; symbols: ${rb_prep} ms, ${rb_kb} kB once"
    cli_step 0 "${TPB_BURST:-1200000}" 6
    row 7 "burst after 6 s idle, flat out ($(fmt_rate "$(calc "$cli_got * 1e9 / $(awk '{ print $2 }' "$tmp/gen")")"), $(awk '{ printf "%.2f", $2 / 1e9 }' "$tmp/gen") s)" "" "kernel $cli_klost, ring $cli_lost" "$cli_got of ${TPB_BURST:-1200000} counted" "target 0 and 0: $([ $cli_ok = 1 ] && echo met || echo "not met")"
    best= loss=
    for r in ${TPB_LOG_RATES:-100000 200000 300000 400000 600000}; do
        log_step "$r"
        log "   pmlogger at $(fmt_rate "$r"): archived $log_got missed records $log_missed"
        if [ $log_ok = 1 ]; then best=$log_rate; else loss="LOST $(( $(calc "$r * $SECS") - log_got )) at $(fmt_rate "$r") offered"; break; fi
    done
    row 7 "pmlogger, shipped tracepoint.pmlogger: best zero-loss" "${best:+$(fmt_rate "$best")}" "${loss:-no loss at any step}" "-" "target >= 300 k/s: $(awk -v b="${best:-0}" 'BEGIN { print (b >= 300000) ? "met" : "not met" }')"
    : > "$PMDADIR/tracepoint.conf"             # no streams
    read -r _ enc_ours _ enc_lib _ enc_bytes < <("$B/encbench" 2000000)
    row 7 "encoding a getpid record: ours / libpcp_pmda" "" "" "$(printf '%.1f ns / %.1f ns, %.0f bytes' "$enc_ours" "$enc_lib" "$enc_bytes")" "$(printf '%.2f x' "$(calc "$enc_ours / $enc_lib")")"
    pmda_restart && w_none=$(idle_wakeups 5)
    row 7 "idle PMDA wakeups/s: with a stream / with none" "" "" "$(printf '%.1f / %.1f' "$w_stream" "${w_none:-0}")" "tracepoint.producer.wakeups"
    probe_rows
    note "7: the PMDA in pmcd at the shipped defaults (ring_size 64M, fetch_limit 64M, kernel_buffer_kb 1024) with one stream of the generator's getpid calls. pcp tracepoint -c -q -f '$FILTER' syscalls:sys_enter_getpid at its default options (its own subscription), paced steps of ${SECS} s (TPB_CLI_RATES): zero loss = its count == calls, nothing reported lost, tracepoint.lost unchanged; events/s = what the generator made in the best zero-loss step (offered rates above its ceiling are not reached); 'x row 3' against the back-to-back pipeline's best. Burst: the same client, 6 s of nothing, then TPB_BURST calls flat out. pmlogger: -c tracepoint.pmlogger as shipped (streams every 100 ms), paced steps (TPB_LOG_RATES), counted with pcp tracepoint -a from a second before the load (the stream's backlog, earlier steps' events, is not the step's; pmdumplog's time is quadratic in the records of an array). Idle wakeups: over 5 s with nothing to read. Default line: pcp tracepoint -f '$FILTER' syscalls:sys_enter_getpid at its default options, which ask the PMDA for comm and text instead of fields, printing every line to a file in /dev/shm (TPB_TEXT_RATES, 0 = TPB_TEXT_FLAT calls, default 3000000, flat out); zero loss = lines == calls, no LOST line, tracepoint.lost unchanged. Rendering: bench/src/renderbench, tp_render_text on records built from this machine's formats, best of 5 runs of 200,000, CPU per event, as the PMDA renders (a format made into a program where src/printfmt.c can: sched_switch, openat, kmalloc with its %pS symbol, inet_sock_set_state with its %pI4 and %pI6c addresses, raw_syscalls:sys_enter with the elements of its args array, mm_page_alloc with its page pointer made from vmemmap_base and the pfn) and by libtraceevent alone (the anchor), the two texts checked to be the same; symbols = reading /proc/kallsyms and printk_formats (done once, when the first consumer asks for text). Encoding: bench/src/encbench, the same 5 parameters per record written by src/encode.c and by pmdaEventAddRecord/AddParam, arrays of 65,536, best of 5 runs of 2M records each, CPU per record."
}

# ==== 3. end to end: PMDA in pmcd, bclient fetching flat out ===================
# One step: bclient $BCL_ARGS N, then the generator ($GEN_SEL: its -s list,
# $STEP_EPC events per call) at RATE calls/s (0 = flat out); CPU of the pids
# in $AGENT_PIDS (threads included), pmcd, the client and the generator.
GEN_SEL= STEP_EPC=1
step() {  # rate n(events)
    local rate=$1 n=$2 l0=0 l1=0 c0 c1 m0 m1 k0 k1 t0 t1 bpid p
    # shellcheck disable=SC2086
    "$BCL" $BCL_ARGS "$n" 1500 > "$tmp/bcl" 2> "$tmp/bcl.err" &
    bpid=$!; pids+=("$bpid")
    wait_for "grep -q ready $tmp/bcl" 100 || { kill $bpid; cat "$tmp/bcl.err" >&2; return 1; }
    [ -n "$LOSTV" ] && l0=$($LOSTV)
    c0=0; for p in $AGENT_PIDS; do c0=$((c0 + $(cpu_ns "$p"))); done
    m0=$(cpu_ns "$cdpid"); k0=$(cpu_ns "$bpid"); t0=$(now_ns)
    "$GEN" ${GEN_SEL:+-s "$GEN_SEL"} 0 "$(calc "int($n / $STEP_EPC)")" $([ "$rate" != 0 ] && echo "$rate") > "$tmp/gen"
    k1=$(cpu_ns "$bpid")   # before it exits
    wait "$bpid"
    t1=$(now_ns); m1=$(cpu_ns "$cdpid")
    c1=0; for p in $AGENT_PIDS; do c1=$((c1 + $(cpu_ns "$p"))); done
    [ -n "$LOSTV" ] && l1=$($LOSTV)
    step_last=
    read -r _ step_delivered _ step_missed _ step_fetches _ _ _ step_last _ step_kcpu _ step_bytes < <(tail -1 "$tmp/bcl")
    [ -n "$step_last" ] && [ "$step_last" -gt 0 ] 2>/dev/null || {
        step_delivered=0; step_missed=0; step_fetches=0; step_last=1; step_kcpu=
        echo "$STEP_TAG: the client reported nothing: $(tr '\n' ' ' < "$tmp/bcl.err" | cut -c1-200)" >> "$tmp/steps"
    }
    # the client's own count (first to last record): it may have exited before k1
    [ -n "$step_kcpu" ] && [ "$step_kcpu" -gt 0 ] 2>/dev/null && k0=0 k1=$step_kcpu
    step_gns=1 step_gcpu=0
    read -r _ step_gns step_gcpu < "$tmp/gen"
    step_lost=$((l1 - l0))
    step_rate=$(calc "$step_delivered * 1e9 / $step_last")
    step_offered=$(calc "$n * 1e9 / $step_gns")
    step_agent=$(calc "($c1 - $c0) / ($t1 - $t0) * 100")
    step_pmcd=$(calc "($m1 - $m0) / ($t1 - $t0) * 100")
    step_client=$(calc "($k1 - $k0) / ($t1 - $t0) * 100")
    step_ns=$(calc "($c1 - $c0 + $m1 - $m0) / ($step_delivered > 0 ? $step_delivered : 1)")
    step_cns=$(calc "($k1 - $k0) / ($step_delivered > 0 ? $step_delivered : 1)")
    step_pns=$(calc "($c1 - $c0) / ($step_delivered > 0 ? $step_delivered : 1)")
    step_mns=$(calc "($m1 - $m0) / ($step_delivered > 0 ? $step_delivered : 1)")
    step_gen_ns=$(calc "$step_gcpu / ($step_delivered > 0 ? $step_delivered : 1)")
    step_ok=0
    [ "$step_delivered" -eq "$n" ] && [ "$step_missed" -eq 0 ] && [ "$step_lost" -eq 0 ] && step_ok=1
    printf '%s offered %s n %s delivered %s missed %s lost %s fetches %s rate %.0f agent%% %.1f pmcd%% %.1f client%% %.1f server_ns/ev %.0f client_ns/ev %.0f agent_ns/ev %.0f pmcd_ns/ev %.0f gen_ns/ev %.0f gen_cpu_ns %s\n' \
        "$STEP_TAG" "$(calc "$rate * $STEP_EPC")" "$n" "$step_delivered" "$step_missed" "$step_lost" "$step_fetches" "$step_rate" \
        "$step_agent" "$step_pmcd" "$step_client" "$step_ns" "$step_cns" "$step_pns" "$step_mns" "$step_gen_ns" "$step_gcpu" >> "$tmp/steps"
    return 0
}
# Step through RATES (stopping after two steps with loss), then flat out;
# sets best_* to the zero-loss step that delivered the most events/s (a
# higher offered rate may deliver less, the generator being slowed down).
# $1 = tag, $2 = rates, $3 = flat-out N
search() {
    local r fails=0
    STEP_TAG=$1; best_rate=; loss_row=
    for r in $2 0; do
        if [ "$r" = 0 ]; then step 0 "$3" || break
        else step "$r" "$(calc "$r * $SECS")" || continue
        fi
        log "   offered $([ "$r" = 0 ] && echo "flat out" || fmt_rate "$r"): delivered $step_delivered missed $step_missed lost $step_lost ($(fmt_rate "$step_rate"))"
        if [ $step_ok = 1 ]; then
            fails=0
            [ -n "$best_rate" ] && awk -v a="$step_rate" -v b="$best_rate" 'BEGIN { exit !(a <= b) }' && continue
            best_rate=$step_rate best_agent=$step_agent best_pmcd=$step_pmcd best_client=$step_client
            best_ns=$step_ns best_cns=$step_cns best_n=$step_delivered best_offer=$r
            best_pns=$step_pns best_mns=$step_mns best_gen_ns=$step_gen_ns
            best_bpr=$(calc "${step_bytes:-0} / ($step_delivered > 0 ? $step_delivered : 1)")
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
if ! in_pmcd; then
    row 3 "end to end: PMDA not installed in pmcd" "not measured" "-" "-" "-"
else
    log "3. end to end through pmcd (paced steps of ${SECS} s, then flat out)"
    take_tp
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
        # the producer's longest wait for the lock the PMDA thread holds while it
        # fills arrays, over every step above (the PMDA thread releases it after
        # SCAN_BUDGET ring entries examined)
        lockwait=$(pmprobe -v tracepoint.producer.lock_wait_max | awk '{ print $3 }')
        STEP_TAG=ours-cmp BCL_ARGS="-i 10000 bench"
        step "$CMP" "$(calc "$CMP * $SECS")" && [ $step_ok = 1 ] && cmp_ours="$step_ns|$step_agent|$step_pmcd"
        if [ -n "$best_rate" ]; then
            ours_rate=$best_rate ours_ns=$best_ns
            ref_offer=$best_offer ref_rate=$best_rate ref_ns=$best_ns ref_cns=$best_cns ref_n=$best_n
            row 3 "end to end: best zero-loss rate$([ "$best_offer" = 0 ] && echo ' (gen flat out)' || echo " ($(fmt_rate "$best_offer") offered)")" "$(fmt_rate "$best_rate")" "none ($best_n/$best_n)" "$(printf 'PMDA %.0f%% pmcd %.0f%% cli %.0f%%' "$best_agent" "$best_pmcd" "$best_client")" "$(printf '%.2f x ceiling w/ filter, %.2f x ceiling' "$(calc "$best_rate / $ceil_f")" "$(calc "$best_rate / $ceil")")"
            row 3 "   CPU per delivered event: PMDA+pmcd / client" "" "" "$(printf '%.0f ns / %.0f ns' "$best_ns" "$best_cns")" ""
            row 3 "   PMDA CPU per delivered record, bytes per record" "" "" "$(printf '%.0f ns, %.0f bytes' "$best_pns" "$best_bpr")" "$(printf 'target <= 100 ns: %s' "$(awk -v n="$best_pns" 'BEGIN { print (n <= 100) ? "met" : "not met" }')")"
            read -r _ fill_ns _ _ < <("$B/fillbench" 2000000)
            row 3 "   of which the fill of arrays from the ring (fillbench)" "" "" "$(printf '%.1f ns/record' "${fill_ns:-0}")" "no kernel, pmcd or libpcp (reported)"
            # the CPU budget of that same run: can 2 cores carry 2 M/s?
            bsum=$(calc "$best_gen_ns + $best_pns + $best_mns + $best_cns")
            bmax=$(calc "2e9 / $bsum")
            row 3 "CPU budget/event, same run: gen+PMDA+pmcd+client" "$(fmt_rate "$bmax") max" "none (that run)" "$(printf '%.0f+%.0f+%.0f+%.0f = %.0f ns' "$best_gen_ns" "$best_pns" "$best_mns" "$best_cns" "$bsum")" "2 M/s on 2 cores: $(awk -v m="$bmax" 'BEGIN { print (m >= 2e6) ? "within budget" : "NO (needs <= 1000 ns)" }')"
            row 3 "   if PMDA, pmcd and client cost nothing" "$(fmt_rate "$(calc "2e9 / $best_gen_ns")") max" "-" "$(printf 'gen %.0f ns on 2 cores' "$best_gen_ns")" "$(printf '1 gen core: %s; tracing alone: %s' "$(fmt_rate "$(calc "1e9 / $best_gen_ns")")" "$(fmt_rate "$(calc "2e9 / ($best_gen_ns - $ns_off / $N)")")")"
            note "3: CPU budget: CPU per delivered event in the highest zero-loss step ($([ "$best_offer" = 0 ] && echo "flat out" || fmt_rate "$best_offer")): generator (its own CPU time over its loop, the kernel's recording included) + PMDA (all threads) + pmcd + client. Delivering 2 M/s to one client on 2 cores needs the sum <= 1000 ns/event (2e9 ns of CPU per second); max = 2e9 / sum. 'Cost nothing' = 2 cores of generation alone (2e9 / gen); '1 gen core' = this benchmark's one pinned generator; 'tracing alone' leaves out the getpid call itself ($(printf '%.0f' "$(calc "$ns_off / $N")") ns, row 1 disabled), i.e. what the kernel's recording of the event costs a workload that makes the calls anyway."
            note "3: fillbench (bench/src/fillbench.c): the PMDA thread's fill of a fetch's array from the ring (tp_records_fill: ring entries of getpid with the pid's name to records of event, cpu, pid, time_ns and __syscall_nr, 1,024 entries a lock hold, arrays of 65,536), with no kernel, no pmcd and no libpcp; best of 5 runs of 2M records, CPU per record. The rest of the PMDA's figure is the producer's reading of the kernel's pages into the ring, libpcp's encoding of the reply and the pipe to pmcd."
        else
            row 3 "end to end: no step without loss" "(loss)" "every step lost events" "-" "-"
        fi
        [ -n "$lockwait" ] && row 3 "producer's longest wait for the ring lock, all steps" "" "" "$(printf '%.1f us' "$(calc "$lockwait / 1e3")")" "tracepoint.producer.lock_wait_max"
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
                    read -r _ d _ m _ _ _ _ _ l _ < <(tail -1 "$tmp/scl.$j")
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
        # ---- 6: 10 and 100 enabled events, end to end, at row 3's best rate
        if [ -n "${ref_rate:-}" ] && [ ${#klist[@]} -gt 0 ]; then
            kref=$([ "$ref_offer" = 0 ] && echo "flat out" || echo "$(fmt_rate "$ref_offer") offered")
            krow 6 "1 enabled event, end to end (row 3's best)" "$(fmt_rate "$ref_rate")" "none ($ref_n/$ref_n)" "$(printf 'PMDA+pmcd %.0f ns/ev, cli %.0f' "$ref_ns" "$ref_cns")" "1.00 x ($kref)"
            for kk in "${klist[@]}"; do
                IFS='|' read -r K sel _ <<< "$kk"
                log "6. $K enabled events end to end, $kref"
                evs=$(echo "$sel" | tr , '\n' | awk '{ printf "%ssyscalls:sys_enter_%s,syscalls:sys_exit_%s", (NR > 1) ? "," : "", $1, $1 }')
                printf 'ring_size 16M\nbacklog 10\nkernel_buffer_kb 1024\nstream k%s %s filter %s\n' "$K" "$evs" "$FILTER" > "$PMDADIR/tracepoint.conf"
                if ! pmda_restart; then
                    krow 6 "$K enabled events, end to end" "not measured" "PMDA did not restart" "-" "-"
                    continue
                fi
                AGENT_PIDS=$(pmda_pid) BCL_ARGS="k$K" GEN_SEL=$sel STEP_EPC=2 STEP_TAG="e2e-k$K"
                # row 3's best offered rate; with loss, 1/2 and then 1/4 of
                # what that step delivered
                kloss= step_ok=0 kfirst=
                for koff in "$ref_offer" "$(calc "int($ref_rate / 4) * 2")" "$(calc "int($ref_rate / 8) * 2")"; do
                    if [ "$koff" = 0 ]; then kn=$((2 * KN)); step 0 "$kn"
                    else kn=$(calc "int($koff * $SECS / 2) * 2"); step "$(calc "$koff / 2")" "$kn"
                    fi || break
                    log "   offered $([ "$koff" = 0 ] && echo "flat out" || fmt_rate "$koff"): delivered $step_delivered missed $step_missed lost $step_lost ($(fmt_rate "$step_rate"))"
                    # CPU per event at the 1-event step's offered rate (like
                    # for like: at lower rates the client's polling dominates)
                    [ -z "$kfirst" ] && kfirst=$(printf 'PMDA+pmcd %.0f, cli %.0f ns/ev|%.2f' "$step_ns" "$step_cns" "$(calc "$step_ns / $ref_ns")")
                    [ $step_ok = 1 ] && break
                    kloss="${kloss:+$kloss; }LOST $((kn - step_delivered)) of $kn at $(fmt_rate "$step_offered") offered (missed $step_missed, kernel $step_lost)"
                done
                IFS='|' read -r a b <<< "$kfirst"
                if [ $step_ok = 1 ]; then
                    krow 6 "$K enabled events, end to end (pmcd, 1 client)" "$(fmt_rate "$step_rate")" "none ($step_delivered/$kn)" "$a" "$(printf '%.2f x 1 event; PMDA+pmcd ns/ev %s x' "$(calc "$step_rate / $ref_rate")" "$b")${kloss:+; with loss above: $kloss}"
                else
                    krow 6 "$K enabled events, end to end (pmcd, 1 client)" "(loss)" "$kloss" "$a" "$(printf 'PMDA+pmcd ns/ev %s x 1 event' "$b")"
                fi
                GEN_SEL= STEP_EPC=1
            done
            note "6: 10/100 events end to end: the PMDA in pmcd with the same one-stream configuration as under dbpmda, bclient fetching it back to back, the generator offering what row 3's best zero-loss step offered ($kref; $([ "$ref_offer" = 0 ] && echo "$((2 * KN)) events" || echo "${SECS} s")), and while that loses events, 1/2 and then 1/4 of what that step delivered; events/s = the first zero-loss try; CPU per delivered event = the first try's (at the 1-event step's offered rate, loss or not: at lower rates the back-to-back client's empty fetches dominate); 'x 1 event' = relative to that row 3 step (getpid, 1 event)."
        fi
    fi

    # ---- 7. keeping up at default options: pcp tracepoint, pmlogger, bursts, idle
    if [ "$e2e" = 1 ]; then
        printf 'stream bench syscalls:sys_enter_getpid filter %s\n' "$FILTER" > "$PMDADIR/tracepoint.conf"
        if pmda_restart; then
            keep_up
        else
            row 7 "keeping up: PMDA did not restart" "not measured" "-" "-" "-"
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
            row 5 "logger PMDA: best zero-loss rate$([ "$best_offer" = 0 ] && echo ' (gen flat out)' || echo " ($(fmt_rate "$best_offer") offered)")" "$(fmt_rate "$best_rate")" "none ($best_n/$best_n)" "$(printf 'agent %.0f%% pmcd %.0f%% cli %.0f%%' "$best_agent" "$best_pmcd" "$best_client")" "$([ -n "${ours_rate:-}" ] && printf 'ours %.1f x' "$(calc "$ours_rate / $best_rate")")"
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

# ==== 6. the rest ===============================================================
[ -n "${scaled:-}" ] || row 6 "scaling: 1/4/16 clients, distinct filters" "not measured" "-" "-" "-"
[ -f "$tmp/table.k" ] && cat "$tmp/table.k" >> "$TABLE"
row 6 "enabled, nobody wants it (filter rejects all)" "$(fmt_rate "$(calc "$N * 1e9 / $ns_nomatch")")" "n/a (nothing recorded)" "generator thread" "$(printf '+%.0f ns/event' "$(calc "($ns_nomatch - $ns_off) / $N")")"
note "6: 'nobody wants it' = syscalls:sys_enter_getpid enabled with a kernel filter no event matches (comm == \"tpbench_nomatch\"): the cost every call pays; nothing reaches the PMDA, whose idle cost is row 2's."
fi   # rows 1 to 9

# ==== 11, 12: kernel stacks and one-liners (bench/stackrows.sh) ===============
. "$top/bench/stackrows.sh"
want_row 11 && stack_rows
want_row 12 && oneliner_rows
# ==== 13, 14: moderate rates and busy cores (bench/wakerows.sh) ===============
. "$top/bench/wakerows.sh"
want_row 13 && wake_rows
want_row 14 && busy_rows
# ==== 15: the pipeline to one pcp tracepoint (bench/piperows.sh) ==============
. "$top/bench/piperows.sh"
want_row 15 && pipe_rows
# ==== 16: an aggregation in the kernel's hist triggers (bench/khistrow.sh) ====
. "$top/bench/khistrow.sh"
want_row 16 && khist_rows
# ==== 17: count by comm against bpftrace (bench/cmprows.sh) ====================
. "$top/bench/cmprows.sh"
want_row 17 && cmp_rows
restore_tp || log "the PMDA did not restart with the original configuration"

other=$( { echo "$other0"; others; } | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/^ *//')
[ -n "$other" ] && note "machine: other syscall tracepoints enabled during the run (they add to every syscall, so to the 'disabled' loop too): $other"

# targets TABLE: every row of the table that states a target, with its
# verdict (MET, NOT MET, or none on the line), whichever script made it
targets() {
    tail -n +2 "$1" | sort -s -n -k1,1 | grep -i 'target' | awk '
        { v = "no verdict"; l = tolower($0)
          if (l ~ /not met/) v = "NOT MET"; else if (l ~ /(^|[^a-z])met([^a-z]|$)/) v = "MET"
          t = $0; sub(/^[^ ]+ +/, "", t); gsub(/   +/, " | ", t)
          line[++n] = sprintf("%-2s %-10s %s", $1, v, t)
          if (v == "MET") met++; else if (v == "NOT MET") no++ }
        END { if (!n) exit
              printf "\ntargets: %d met, %d not met, %d without a verdict\n", met, no, n - met - no
              for (i = 1; i <= n; i++) print line[i]
              print "" }'
}

# TPB_ROWS may have left nothing for this script (e.g. "10")
[ "$(wc -l < "$TABLE")" -gt 1 ] || exit 0
{
    cat "$tmp/machine"; echo
    head -1 "$TABLE"; tail -n +2 "$TABLE" | sort -s -n -k1,1; echo
    targets "$TABLE"
    cat "$tmp/notes" 2>/dev/null
    [ -f "$tmp/steps" ] && { echo; echo "steps (offered 0 = flat out; CPU % of one core; server = PMDA(s) + pmcd):"; cat "$tmp/steps"; }
} > "$OUT"
cat "$OUT"
echo
echo "results: $OUT"
