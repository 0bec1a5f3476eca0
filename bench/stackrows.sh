# Rows 11 (kernel stacks) and 12 (one-liners) of `make bench`; sourced by
# bench/run.sh, whose helpers (gen, row, note, raw, log, calc, cpu_ns,
# take_tp, pmda_restart...) and variables (GEN, BCL, B, tmp, FILTER, GP,
# SECS, N, PMDADIR, cdpid) it uses.  Both rows run the PMDA in pmcd with
# their own configuration; run.sh gives the installed one back at the end.
# Knobs: TPB_STK_RATE (calls/s of the paced steps, default 100000),
# TPB_STK_N (calls flat out, default TPB_N / 5).
STK_RATE=${TPB_STK_RATE:-100000}
STK_N=${TPB_STK_N:-$((N / 5))}
STK_CONF='ring_size 64M\nkernel_buffer_kb 1024\n'

# health: the loss counters a stack consumer must keep at zero
health() { echo "$(mval tracepoint.lost) $(mval tracepoint.stack.missing) $(mval tracepoint.stack.orphans)"; }
# tp_with CONF_LINES...: the PMDA in pmcd with our build and these lines
tp_with() {
    take_tp
    { printf "$STK_CONF"; printf '%s\n' "$@"; } > "$PMDADIR/tracepoint.conf"
    pmda_restart
}
# settle EXPR N: wait (up to 10 s) until the value of EXPR reaches N or
# stops moving for a second
settle() {
    local v prev=-1 still=0 i
    settle_evals=0
    for i in $(seq 1 100); do
        v=$(eval "$1"); settle_evals=$i
        [ "$v" -ge "$2" ] && return 0
        if [ "$v" = "$prev" ]; then still=$((still + 1)); [ $still -ge 10 ] && return 1; else still=0; fi
        prev=$v; sleep 0.1
    done
    return 1
}
# settle_cost PID EXPR: what the last settle's probes cost PID (each pmprobe
# a new context, some 230 us of PMDA CPU here), as ns: EXPR evaluated as
# many times again, with nothing flowing.  Taken off a step's PMDA CPU:
# the bench's probes are not the events' cost.
settle_cost() {
    local p0 p1 k
    p0=$(cpu_ns "$1")
    for k in $(seq 1 "$settle_evals"); do eval "$2" > /dev/null; done
    p1=$(cpu_ns "$1")
    raw "settle: $settle_evals probe rounds cost the PMDA $((p1 - p0)) ns (taken off)"
    echo $((p1 - p0))
}
# gen_n RATE: the calls of a step (0 = flat out)
gen_n() { [ "$1" = 0 ] && echo "$STK_N" || echo $(( $1 * SECS )); }
gen_args() { [ "$1" = 0 ] && echo "0 $STK_N" || echo "0 $(gen_n "$1") $1"; }
rate_word() { [ "$1" = 0 ] && echo "flat out" || echo "$(fmt_rate "$1")"; }

# s_measure TAG RATE KIND [STREAM|AGG]: one step against the PMDA as it is
# configured; KIND stream (bclient reads STREAM every 10 ms), cli
# (`pcp tracepoint -c -q` at its default options, its own subscription to
# the generator's calls), agg (the aggregation AGG counts alone) or none.
# Sets s_gns (generator CPU per call), s_rate (calls/s), s_pns (PMDA CPU
# per event), s_prod (its producer thread's part), s_mns (pmcd), s_got,
# s_ok, s_loss (words) and s_fetches (bclient's fetches, stream only).
s_measure() {
    local tag=$1 rate=$2 kind=$3 what=${4:-} n bpid= tp c0 c1= m0 m1 p0 p1= h0 h1 l mi o d=0 mis=0 drop=0 e nocli=
    n=$(gen_n "$rate"); tp=$(pmda_pid)
    if [ "$kind" = stream ]; then
        "$BCL" -i 10000 "$what" "$n" 1500 > "$tmp/sbcl" 2> "$tmp/sbcl.err" &
        bpid=$!; pids+=("$bpid")
        wait_for "grep -q ready $tmp/sbcl" 100 || { kill "$bpid"; cat "$tmp/sbcl.err" >&2; nocli="bclient not ready in 10 s"; }
    elif [ "$kind" = cli ]; then
        "$B/pcp-tracepoint" -c -q -f "$FILTER" "$GP" > "$tmp/scli" 2> "$tmp/scli.err" &
        bpid=$!; pids+=("$bpid")
        wait_for "[ \"\$(mval tracepoint.subscriptions)\" -ge 1 ]" 50 || { kill "$bpid"; cat "$tmp/scli.err" >&2; nocli="pcp tracepoint not subscribed in 5 s"; }
    fi
    s_fetches=
    h0=$(health)
    [ "$kind" = agg ] && d=$(mval "tracepoint.agg.$what.count")
    c0=$(cpu_ns "$tp"); m0=$(cpu_ns "$cdpid"); p0=$(cpu_ns "$tp" tp-producer)
    # shellcheck disable=SC2046
    gen $(gen_args "$rate") || { s_ok=0 s_loss="generator failed"; return 1; }
    case $kind in
    stream)
        wait "$bpid" 2>/dev/null
        read -r _ s_got _ mis _ s_fetches _ < <(tail -1 "$tmp/sbcl")
        s_got=${s_got:-0} mis=${mis:-0} ;;
    cli)
        # its default interval is 0.5 s: its last fetches drain what is left
        sleep 1.5
        c1=$(cpu_ns "$tp"); p1=$(cpu_ns "$tp" tp-producer)
        kill -TERM "$bpid"; wait "$bpid" 2>/dev/null
        read -r s_got mis < <(cli_counts "$tmp/scli") ;;
    agg)
        e="echo \$(( \$(mval tracepoint.agg.$what.count) + \$(mval tracepoint.agg.$what.dropped) - $d ))"
        settle "$e" "$n"
        c1=$(cpu_ns "$tp"); p1=$(cpu_ns "$tp" tp-producer); c1=$(( c1 - $(settle_cost "$tp" "$e") ))
        s_got=$(( $(mval "tracepoint.agg.$what.count") - d ))
        drop=$(mval "tracepoint.agg.$what.dropped") ;;
    *)  s_got=$n ;;
    esac
    [ -n "$c1" ] || { c1=$(cpu_ns "$tp"); p1=$(cpu_ns "$tp" tp-producer); }
    m1=$(cpu_ns "$cdpid"); h1=$(health)
    read -r l mi o <<< "$(awk -v a="$h0" -v b="$h1" 'BEGIN { split(a, x); split(b, y); print y[1] - x[1], y[2] - x[2], y[3] - x[3] }')"
    s_gns=$(calc "$g_cpu / $g_n"); s_rate=$(calc "$g_n * 1e9 / $g_ns")
    # per event that reached the PMDA: delivered or overtaken in its ring,
    # or counted (tracepoint.lost counts kernel entries, a stack being one)
    s_in=$((s_got + mis)); [ "$s_in" -gt 0 ] || s_in=1
    s_pns=$(calc "($c1 - $c0) / $s_in"); s_mns=$(calc "($m1 - $m0) / $s_in")
    s_prod=$(calc "($p1 - $p0) / $s_in")   # the producer thread's part of s_pns
    s_ok=0
    [ "$s_got" -eq "$n" ] && [ "$mis" -eq 0 ] && [ "$l" -eq 0 ] && [ "$mi" -eq 0 ] && [ "$o" -eq 0 ] && [ "$drop" -eq 0 ] && s_ok=1
    if [ $s_ok = 1 ]; then s_loss="none ($s_got/$n)"
    else s_loss="LOST: got $s_got/$n, missed $mis, kernel $l, no stack $mi, orphans $o${drop:+, dropped $drop}${nocli:+ ($nocli)}"
    fi
    raw "$tag offered $rate n $n got $s_got missed $mis lost $l stack_missing $mi orphans $o dropped $drop gen_cpu_ns/call $(printf %.0f "$s_gns") rate $(printf %.0f "$s_rate") pmda_ns/ev $(printf %.0f "$s_pns") producer_ns/ev $(printf %.0f "$s_prod") pmcd_ns/ev $(printf %.0f "$s_mns")"
}
s_row() {  # SECTION WHAT [BASE]: a row from the last s_measure (BASE: gen ns/call with no consumer)
    row "$1" "$2" "$(fmt_rate "$s_rate")" "$s_loss" "$(printf 'gen %.0f ns/call, PMDA %.0f ns/ev' "$s_gns" "$s_pns")" \
        "$(printf 'pmcd %.0f ns/ev' "$s_mns")${3:+$(printf '; gen +%.0f ns/call vs none' "$(calc "$s_gns - $3")")}"
}
# warm: a few calls through what is configured, so that one-off costs
# (reading the kernel's symbols for the first stack) are not a step's
warm() { "$GEN" 0 2000 > /dev/null && sleep 0.5; }

# bpf_step RATE: bpftrace counting kernel stacks of the generator's calls
# (the PMDA has no consumer of the event); sets b_gns, b_rate, b_cpu_ns
# (bpftrace's CPU per call), b_got, b_ok.
bpf_step() {
    local rate=$1 n bpid c0 c1
    n=$(gen_n "$rate")
    ( ulimit -l 8192; exec bpftrace -e 'BEGIN { printf("ready\n"); } tracepoint:syscalls:sys_enter_getpid /comm == "tpbench_gen"/ { @[kstack] = count(); }' ) \
        > "$tmp/bpf" 2> "$tmp/bpf.err" &
    bpid=$!; pids+=("$bpid")
    b_ok=0 b_got=0
    wait_for "grep -q ready $tmp/bpf" 300 || { kill "$bpid"; cat "$tmp/bpf.err" >&2; return 1; }
    c0=$(cpu_ns "$bpid")
    # shellcheck disable=SC2046
    gen $(gen_args "$rate") || return 1
    c1=$(cpu_ns "$bpid")
    kill -INT "$bpid"; wait "$bpid" 2>/dev/null
    b_got=$(awk '/^\]: [0-9]+$/ { s += $2 } END { print s + 0 }' "$tmp/bpf")
    b_gns=$(calc "$g_cpu / $g_n"); b_rate=$(calc "$g_n * 1e9 / $g_ns"); b_cpu_ns=$(calc "($c1 - $c0) / $n")
    [ "$b_got" -eq "$n" ] && b_ok=1
    raw "bpftrace-kstack offered $rate n $n counted $b_got gen_cpu_ns/call $(printf %.0f "$b_gns") rate $(printf %.0f "$b_rate") bpftrace_ns/call $(printf %.1f "$b_cpu_ns")"
}

# ==== 11. what a kernel stack costs per event ===================================
stack_rows() {
    local r base=() a=() b=() w ag ap aok bg bp bok
    bof() { [ "$1" = 0 ] && echo "${base[1]}" || echo "${base[0]}"; }
    if ! in_pmcd; then row 11 "stacks: PMDA not installed in pmcd" "not measured" "-" "-" "-"; return; fi
    log "11. kernel stacks: getpid at $(fmt_rate "$STK_RATE") and flat out ($STK_N calls)"
    tp_with || { row 11 "stacks: PMDA did not restart" "not measured" "-" "-" "-"; return; }
    for r in "$STK_RATE" 0; do
        s_measure "stk-none" "$r" none; base+=("$s_gns")
        row 11 "getpid, no consumer, $(rate_word "$r")" "$(fmt_rate "$s_rate")" "-" "$(printf 'gen %.0f ns/call' "$s_gns")" "-"
    done
    for w in nostack stack agg; do
        case $w in
        nostack) tp_with "stream sb $GP params=fields filter $FILTER" ;;
        stack)   tp_with "stream sb $GP params=fields,stack filter $FILTER" ;;
        agg)     tp_with "count sbs $GP by stack filter $FILTER" ;;
        esac && warm || { row 11 "stacks ($w): PMDA did not restart" "not measured" "-" "-" "-"; continue; }
        for r in "$STK_RATE" 0; do
            case $w in
            nostack) s_measure "stk-stream" "$r" stream sb
                     s_row 11 "stream, no stack, $(rate_word "$r") (bclient, 10 ms)" "$(bof "$r")"
                     a+=("$s_gns|$s_pns|$s_ok") ;;
            stack)   s_measure "stk-stream-stack" "$r" stream sb
                     s_row 11 "stream params=fields,stack, $(rate_word "$r")" "$(bof "$r")"
                     b+=("$s_gns|$s_pns|$s_ok") ;;
            agg)     s_measure "stk-agg" "$r" agg sbs
                     s_row 11 "count by stack, no stream, $(rate_word "$r")" "$(bof "$r")" ;;
            esac
        done
    done
    for r in 0 1; do
        IFS='|' read -r ag ap aok <<< "${a[$r]:-0|0|0}"
        IFS='|' read -r bg bp bok <<< "${b[$r]:-0|0|0}"
        row 11 "a stack's cost per event, $([ $r = 0 ] && rate_word "$STK_RATE" || echo "flat out"): with - without" "" \
            "$([ "$aok$bok" = 11 ] && echo "none in either" || echo "LOSS in one (see above)")" \
            "$(printf 'gen +%.0f ns/call, PMDA +%.0f ns/ev' "$(calc "$bg - $ag")" "$(calc "$bp - $ap")")" "target: none (reported)"
    done
    if command -v bpftrace > /dev/null; then
        tp_with
        for r in "$STK_RATE" 0; do
            if bpf_step "$r"; then
                row 11 "bpftrace @[kstack] = count(), $(rate_word "$r")" "$(fmt_rate "$b_rate")" "$([ $b_ok = 1 ] && echo "none ($b_got/$(gen_n "$r"))" || echo "LOST: counted $b_got/$(gen_n "$r")")" \
                    "$(printf 'gen %.0f ns/call, bpftrace %.1f ns/ev' "$b_gns" "$b_cpu_ns")" "$(printf 'gen +%.0f ns/call vs none' "$(calc "$b_gns - $(bof "$r")")")"
            else
                row 11 "bpftrace @[kstack] = count(), $(rate_word "$r")" "not measured" "bpftrace did not start" "-" "-"
            fi
        done
    else
        row 11 "bpftrace @[kstack] = count()" "not measured" "bpftrace not installed" "-" "-"
    fi
    note "11: the generator pinned to CPU 0 at $(fmt_rate "$STK_RATE") for ${SECS} s (TPB_STK_RATE) and flat out ($STK_N calls, TPB_STK_N; paced, the generator's CPU per call includes its pacing), the PMDA in pmcd with ring_size 64M, kernel_buffer_kb 1024 and, in turn: nothing; stream sb $GP params=fields filter $FILTER read by bclient every 10 ms; the same stream with params=fields,stack (the stacktrace trigger, its condition the filter, and a symbolised tracepoint.param.stack per record); count sbs $GP by stack filter $FILTER with no stream and no client; each configuration first gets 2000 calls (the first stack reads the kernel's symbols: a one-off cost, not a step's). gen = the generator's own CPU per call (user + system: the kernel's recording and stack walk show here); PMDA = all its threads' CPU from the start of the loop until the client has every record (or the aggregation every count, less what the bench's own pmprobe calls of it cost: settle_cost), per event that reached it (delivered + missed, or counted: tracepoint.lost counts the kernel's entries, and a stack is an entry of its own); pmcd likewise; 1e9 / PMDA ns is what one core of it could take. Zero loss = every call delivered (counted), no missed record, tracepoint.lost, tracepoint.stack.missing and tracepoint.stack.orphans unchanged, nothing dropped. A stack's cost = with stack - without, same rate. bpftrace 0.17 (ulimit -l 8192): tracepoint:syscalls:sys_enter_getpid /comm == \"tpbench_gen\"/ { @[kstack] = count(); }, with the PMDA holding no consumer of the event; its CPU = its process's over the loop, per call; its counts summed from the map it prints on SIGINT."
}

# ==== 12. one-liners: pcp tracepoint -A against the same config aggregation ====
oneliner_rows() {
    local r cfg=() one=() dir n cpid tp c0 c1 k0 got cnt ratio met ok cp cok op ook e
    if ! in_pmcd; then row 12 "one-liners: PMDA not installed in pmcd" "not measured" "-" "-" "-"; return; fi
    dir="$GP by comm backend=producer filter $FILTER"   # the producer both ways: row 17 has the counters
    log "12. one-liners: count $dir, as config and as pcp tracepoint -A"
    if tp_with "count olc $dir" && warm; then
        for r in "$STK_RATE" 0; do
            s_measure "ol-config" "$r" agg olc
            cnt=$(pminfo -f tracepoint.agg.olc.count | awk -F'value ' '/"comm=tpbench_gen"/ { print $2 }')
            s_row 12 "config: count olc ... by comm, $(rate_word "$r")"
            cfg+=("$s_pns|$s_ok")
            raw "ol-config comm=tpbench_gen cumulative ${cnt:-none}"
        done
    else
        row 12 "config aggregation: PMDA did not restart" "not measured" "-" "-" "-"
    fi
    for r in "$STK_RATE" 0; do
        # a fresh PMDA with no consumer: the event is enabled by this client alone
        tp_with || { row 12 "one-liner: PMDA did not restart" "not measured" "-" "-" "-"; return; }
        n=$(gen_n "$r"); tp=$(pmda_pid)
        "$B/pcp-tracepoint" -q -A "count $dir" > "$tmp/ol" 2> "$tmp/ol.err" &
        cpid=$!; pids+=("$cpid")
        wait_for "pminfo -f tracepoint.count | grep -q '\"$GP\"'" 100 || { cat "$tmp/ol.err" >&2; kill "$cpid"; continue; }
        k0=$(mval tracepoint.count)
        c0=$(cpu_ns "$tp")
        # shellcheck disable=SC2046
        gen $(gen_args "$r") || continue
        e="echo \$(( \$(mval tracepoint.count) - $k0 ))"
        settle "$e" "$n"
        c1=$(cpu_ns "$tp"); c1=$(( c1 - $(settle_cost "$tp" "$e") ))
        kill -TERM "$cpid"; wait "$cpid" 2>/dev/null
        got=$(awk '$1 == "comm=tpbench_gen" { print $2 }' "$tmp/ol"); got=${got:-0}
        s_pns=$(calc "($c1 - $c0) / $n")
        ok=0; [ "$got" -eq "$n" ] && ok=1
        one+=("$s_pns|$ok")
        row 12 "one-liner: pcp tracepoint -q -A '...', $(rate_word "$r")" "$(fmt_rate "$(calc "$g_n * 1e9 / $g_ns")")" \
            "$([ $ok = 1 ] && echo "none: counted $got = calls $n" || echo "NOT EXACT: counted $got, calls $n")" \
            "$(printf 'gen %.0f ns/call, PMDA %.0f ns/ev' "$(calc "$g_cpu / $g_n")" "$s_pns")" "-"
        raw "ol-oneliner offered $r n $n counted $got pmda_ns/ev $(printf %.0f "$s_pns") client_out $(tr '\n' ' ' < "$tmp/ol" | cut -c1-120)"
    done
    for r in 0 1; do
        IFS='|' read -r cp cok <<< "${cfg[$r]:-0|0}"
        IFS='|' read -r op ook <<< "${one[$r]:-0|0}"
        ratio=$(calc "$op / ($cp > 0 ? $cp : 1)")
        met=$(awk -v x="$ratio" -v ok="$cok$ook" 'BEGIN { print (x <= 1.25 && ok == "11") ? "MET" : "NOT MET" }')
        row 12 "one-liner / config PMDA CPU per event, $([ $r = 0 ] && rate_word "$STK_RATE" || echo "flat out")" "" \
            "$([ "$cok$ook" = 11 ] && echo "both exact" || echo "NOT exact in one (see above)")" \
            "$(printf '%.0f ns / %.0f ns' "$op" "$cp")" "$(printf 'target <= 1.25 x: %s (%.2f x)' "$met" "$ratio")"
    done
    note "12: the directive 'count $dir' as a config aggregation (count olc ..., no stream, no client) and as a one-liner (pcp tracepoint -q -A '...': the PMDA computes it for that client's context alone; config empty otherwise), the generator at $(fmt_rate "$STK_RATE") for ${SECS} s and flat out ($STK_N calls). PMDA = all its threads' CPU from the start of the loop until the PMDA has counted every call (tracepoint.agg.olc.count, or tracepoint.count for the one-liner), less what the bench's own pmprobe calls of that count cost it (as many again, measured after: settle_cost), per call. Exact = the count under comm=tpbench_gen equals the calls made (for the one-liner: the line the client prints when it stops); target: the one-liner's PMDA CPU per event within 1.25 x the config aggregation's, both exact."
}
