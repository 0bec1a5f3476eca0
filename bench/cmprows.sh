# shellcheck shell=bash
# Row 17 of `make bench`: count by comm, this PMDA against bpftrace 0.17, in
# three cases (flat out; paced in batches with sleeps between; flat out with
# a CPU hog on the other CPU), runs interleaved.  Sourced by bench/run.sh,
# whose helpers (gen, row, note, raw, log, calc, cpu_ns, fmt_rate, wait_for,
# in_pmcd, pmda_pid) and stackrows.sh's (tp_with, mval, settle) it uses,
# with its variables (GP, FILTER, tmp, pids, cdpid).  It restarts the one
# PMDA with its own configuration; run.sh gives the installed one back.
# Knobs: TPB_CMP_SECS (seconds per run, default 8), TPB_CMP_PACE (calls/s
# of the paced case, default 200000), TPB_CMP_CPU (the loop's CPU, default
# 1), TPB_CMP_HOG_CPU (the hog's, default 0), TPB_ROUNDS (rounds, default 3).
CMP_SECS=${TPB_CMP_SECS:-8}
CMP_PACE=${TPB_CMP_PACE:-200000}
CMP_CPU=${TPB_CMP_CPU:-1}
CMP_HOG_CPU=${TPB_CMP_HOG_CPU:-0}
CMP_ROUNDS=${TPB_ROUNDS:-3}
CMP_WARM=200000            # calls before each run: warms up, sizes a flat-out run
CMP_CASES="flat paced hog"
CMP_BPF='tracepoint:syscalls:sys_enter_getpid /comm == "tpbench_gen"/ { @[comm] = count(); }'

cmp_case_word() {
    case $1 in
    flat)  echo "flat out" ;;
    paced) echo "$(fmt_rate "$CMP_PACE") in batches" ;;
    hog)   echo "flat out, hog on CPU $CMP_HOG_CPU" ;;
    esac
}
# cmp_hog_start CASE / cmp_hog_stop: a busy loop (no system calls) pinned
# to the hog's CPU for the hog case; sets cmp_hog
cmp_hog_start() {
    cmp_hog=
    [ "$1" = hog ] || return 0
    taskset -c "$CMP_HOG_CPU" bash -c 'while :; do :; done' &
    cmp_hog=$!; pids+=("$cmp_hog")
}
cmp_hog_stop() { [ -n "$cmp_hog" ] && { kill "$cmp_hog"; wait "$cmp_hog" 2>/dev/null; }; cmp_hog=; }
# cmp_run CASE HOOK: the warm-up (CMP_WARM calls flat out, which also
# sizes a flat-out run to CMP_SECS), then HOOK (samples the tracer's
# counters), then the measured loop; sets c_n (its calls), c_lns (the
# loop's own CPU per call), c_rate
cmp_run() {
    local wrate
    gen "$CMP_CPU" "$CMP_WARM" || return 1
    wrate=$(calc "$g_n * 1e9 / $g_ns")
    "$2" || return 1
    case $1 in
    paced) c_n=$((CMP_PACE * CMP_SECS)); gen "$CMP_CPU" "$c_n" "$CMP_PACE" || return 1 ;;
    *)     c_n=$(printf %.0f "$(calc "$wrate * $CMP_SECS")"); gen "$CMP_CPU" "$c_n" || return 1 ;;
    esac
    c_lns=$(calc "$g_cpu / $g_n"); c_rate=$(calc "$g_n * 1e9 / $g_ns")
}
agg_in() { echo $(( $(mval tracepoint.agg.cmpc.count) + $(mval tracepoint.agg.cmpc.dropped) )); }
# ours_t0: once the warm-up is counted, the PMDA's and pmcd's CPU and counters
ours_t0() {
    settle agg_in "$((o_in0 + CMP_WARM))"
    d0=$(mval tracepoint.agg.cmpc.count); dr0=$(mval tracepoint.agg.cmpc.dropped); l0=$(mval tracepoint.lost)
    c0=$(cpu_ns "$tp"); m0=$(cpu_ns "$cdpid")
}
# cmp_ours CASE [OPTION]: the config aggregation (with OPTION, e.g.
# backend=producer), PMDA in pmcd, no client; sets o_lns o_tns (PMDA, all
# threads) o_mns (pmcd) o_tot o_ok o_what o_rate o_backend
cmp_ours() {
    local tp c0 c1 m0 m1 d0 dr0 l0 got drop lost o_in0
    o_ok=0 o_what="not measured" o_tot=0 o_lns=0 o_tns=0 o_mns=0 o_rate=0 o_backend=none
    tp_with "count cmpc $GP by comm ${2:+$2 }filter $FILTER" || { o_what="PMDA did not restart"; return 1; }
    tp=$(pmda_pid); o_in0=$(agg_in)
    o_backend=$(pminfo -f tracepoint.agg.cmpc.backend | sed -n 's/.*value "\(.*\)"/\1/p')
    cmp_hog_start "$1"
    if ! cmp_run "$1" ours_t0; then cmp_hog_stop; o_what="generator failed"; return 1; fi
    settle agg_in "$((d0 + dr0 + c_n))"
    c1=$(cpu_ns "$tp"); m1=$(cpu_ns "$cdpid")
    cmp_hog_stop
    got=$(( $(mval tracepoint.agg.cmpc.count) - d0 ))
    drop=$(( $(mval tracepoint.agg.cmpc.dropped) - dr0 )); lost=$(( $(mval tracepoint.lost) - l0 ))
    o_lns=$c_lns o_rate=$c_rate
    o_tns=$(calc "($c1 - $c0) / $c_n"); o_mns=$(calc "($m1 - $m0) / $c_n")
    o_tot=$(calc "$o_lns + $o_tns + $o_mns")
    [ "$got" -eq "$c_n" ] && [ "$drop" -eq 0 ] && [ "$lost" -eq 0 ] && o_ok=1
    if [ $o_ok = 1 ]; then o_what="exact ($got = calls)"; else o_what="LOST: counted $got of $c_n, dropped $drop, kernel $lost"; fi
    raw "cmp-ours${2:+-$2} $1 backend $o_backend n $c_n counted $got dropped $drop lost $lost rate $(printf %.0f "$c_rate") loop_ns/call $(printf %.1f "$o_lns") pmda_ns/call $(printf %.1f "$o_tns") pmcd_ns/call $(printf %.1f "$o_mns") total $(printf %.1f "$o_tot")"
}
bpf_t0() { c0=$(cpu_ns "$bpid"); }
# cmp_bpf CASE: bpftrace, the PMDA holding no consumer of the event; sets
# b_lns b_tns (bpftrace's process) b_tot b_ok b_what b_rate, and z_lns (the
# loop flat out with no tracer at all, measured first)
cmp_bpf() {
    local bpid c0 c1 got
    b_ok=0 b_what="not measured" b_tot=0 b_lns=0 b_tns=0 b_rate=0 z_lns=0
    tp_with || { b_what="PMDA did not restart"; return 1; }
    gen "$CMP_CPU" 2000000 && z_lns=$(calc "$g_cpu / $g_n")
    rm -f "$tmp/cbpf"          # not the last run's "ready"
    ( ulimit -l 8192; exec bpftrace -e "BEGIN { printf(\"ready\\n\"); } $CMP_BPF" ) > "$tmp/cbpf" 2> "$tmp/cbpf.err" &
    bpid=$!; pids+=("$bpid")
    wait_for "grep -q ready $tmp/cbpf" 300 || { kill "$bpid"; cat "$tmp/cbpf.err" >&2; b_what="bpftrace did not start"; return 1; }
    cmp_hog_start "$1"
    if ! cmp_run "$1" bpf_t0; then cmp_hog_stop; kill "$bpid"; b_what="generator failed"; return 1; fi
    c1=$(cpu_ns "$bpid")
    cmp_hog_stop
    kill -INT "$bpid"; wait "$bpid" 2>/dev/null
    got=$(awk '/^@\[tpbench_gen\]: [0-9]+$/ { s += $2 } END { print s + 0 }' "$tmp/cbpf")
    got=$((got - CMP_WARM))
    b_lns=$c_lns b_rate=$c_rate
    b_tns=$(calc "($c1 - $c0) / $c_n"); b_tot=$(calc "$b_lns + $b_tns")
    [ "$got" -eq "$c_n" ] && b_ok=1
    if [ $b_ok = 1 ]; then b_what="exact ($got = calls)"; else b_what="LOST: counted $got of $c_n"; fi
    raw "cmp-bpftrace $1 n $c_n counted $got rate $(printf %.0f "$b_rate") loop_ns/call $(printf %.1f "$b_lns") bpftrace_ns/call $(printf %.1f "$b_tns") total $(printf %.1f "$b_tot") no_tracer_loop_ns/call $(printf %.1f "${z_lns:-0}")"
}

kc_t0() { c0=$(cpu_ns "$kpid"); }
# kc_sum: what perf stat's intervals have counted so far (CSV: time,count,unit,event,...)
kc_sum() { awk -F, -v e="$GP" '$4 == e { s += $2 } END { print s + 0 }' "$tmp/ckc"; }
# cmp_kc CASE: perf stat's counting mode (-a, the same filter in the kernel,
# no ring, no map), the PMDA holding no consumer of the event: what a count
# kept by the kernel itself costs; sets k_lns k_tns (perf's process) k_tot
# k_ok k_what k_rate.  Reported beside the two, with no target.
cmp_kc() {
    local kpid c0 c1 got bad
    k_ok=0 k_what="not measured" k_tot=0 k_lns=0 k_tns=0 k_rate=0
    tp_with || { k_what="PMDA did not restart"; return 1; }
    rm -f "$tmp/ckc"           # not the last run's: perf must have started
    perf stat -a -x, -I 200 -e "$GP" --filter "$FILTER" -o "$tmp/ckc" 2> "$tmp/ckc.err" &
    kpid=$!; pids+=("$kpid")
    wait_for "grep -q ',$GP,' $tmp/ckc" 300 || { kill "$kpid"; cat "$tmp/ckc.err" >&2; k_what="perf stat did not start"; return 1; }
    cmp_hog_start "$1"
    if ! cmp_run "$1" kc_t0; then cmp_hog_stop; kill "$kpid"; k_what="generator failed"; return 1; fi
    c1=$(cpu_ns "$kpid")
    cmp_hog_stop
    # perf prints no partial interval when stopped: the calls are all in
    # printed intervals once the sum has them (at most 10 s: else short)
    wait_for "[ \$(kc_sum) -ge $((c_n + CMP_WARM)) ]" 100
    kill -INT "$kpid"; wait "$kpid" 2>/dev/null
    got=$(kc_sum)
    bad=$(awk -F, -v e="$GP" '$4 == e && $6 + 0 < 100 { n++ } END { print n + 0 }' "$tmp/ckc")
    got=$((got - CMP_WARM))
    k_lns=$c_lns k_rate=$c_rate
    k_tns=$(calc "($c1 - $c0) / $c_n"); k_tot=$(calc "$k_lns + $k_tns")
    [ "$got" -eq "$c_n" ] && [ "$bad" -eq 0 ] && k_ok=1
    if [ $k_ok = 1 ]; then k_what="exact ($got = calls)"; else k_what="LOST: counted $got of $c_n, $bad intervals not counting all the time"; fi
    raw "cmp-kcounter $1 n $c_n counted $got rate $(printf %.0f "$k_rate") loop_ns/call $(printf %.1f "$k_lns") perf_ns/call $(printf %.1f "$k_tns") total $(printf %.1f "$k_tot")"
}

# ==== 17. count by comm: this PMDA against bpftrace ============================
# Per case, the median over rounds of each figure; MET when the median
# totals satisfy ours <= bpftrace and every run of both counted exactly.
cmp_rows() {
    local r c
    local -A O B K P
    local obk=none pbk=none
    local have_perf=0
    if ! in_pmcd; then row 17 "vs bpftrace: PMDA not installed in pmcd" "not measured" "-" "-" "-"; return; fi
    if ! command -v bpftrace > /dev/null; then row 17 "vs bpftrace: bpftrace not installed" "not measured" "-" "-" "-"; return; fi
    perf stat -e "$GP" true > /dev/null 2>&1 && have_perf=1
    log "17. count by comm, ours vs bpftrace: $CMP_ROUNDS rounds of $CMP_CASES, ${CMP_SECS} s each"
    for r in $(seq 1 "$CMP_ROUNDS"); do
        for c in $CMP_CASES; do
            cmp_ours "$c" || log "17: ours, $c: $o_what"
            O[$c]+="$o_lns $o_tns $o_mns $o_tot $o_ok $o_rate|"; obk=$o_backend
            cmp_bpf "$c" || log "17: bpftrace, $c: $b_what"
            B[$c]+="$b_lns $b_tns $b_tot $b_ok $b_rate ${z_lns:-0}|"
            cmp_ours "$c" backend=producer || log "17: ours (backend=producer), $c: $o_what"
            P[$c]+="$o_lns $o_tns $o_mns $o_tot $o_ok $o_rate|"; pbk=$o_backend
            if [ "$have_perf" = 1 ]; then
                cmp_kc "$c" || log "17: kernel counter, $c: $k_what"
                K[$c]+="$k_lns $k_tns $k_tot $k_ok $k_rate|"
            fi
        done
    done
    med() {  # FIELD LIST: the median of field FIELD of '|'-separated runs
        tr '|' '\n' <<< "$2" | awk -v f="$1" 'NF { a[++n] = $f } END { if (!n) { print 0; exit }
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            print (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }'
    }
    allok() { tr '|' '\n' <<< "$2" | awk -v f="$1" 'NF { n++; if ($f != 1) bad++ } END { print (n && !bad) ? 1 : 0 }'; }
    for c in $CMP_CASES; do
        local ol ot om otot ook orate bl bt btot bok brate z met
        ol=$(med 1 "${O[$c]}") ot=$(med 2 "${O[$c]}") om=$(med 3 "${O[$c]}") otot=$(med 4 "${O[$c]}") ook=$(allok 5 "${O[$c]}") orate=$(med 6 "${O[$c]}")
        bl=$(med 1 "${B[$c]}") bt=$(med 2 "${B[$c]}") btot=$(med 3 "${B[$c]}") bok=$(allok 4 "${B[$c]}") brate=$(med 5 "${B[$c]}") z=$(med 6 "${B[$c]}")
        row 17 "ours: count by comm (config, backend $obk), $(cmp_case_word "$c")" "$(fmt_rate "$orate")" \
            "$([ "$ook" = 1 ] && echo "exact in $CMP_ROUNDS runs" || echo "NOT EXACT in a run (steps)")" \
            "$(printf 'loop %.0f + PMDA %.0f + pmcd %.0f' "$ol" "$ot" "$om")" "$(printf '%.0f ns/call' "$otot")"
        local pl pt pm ptot pok prate
        pl=$(med 1 "${P[$c]}") pt=$(med 2 "${P[$c]}") pm=$(med 3 "${P[$c]}") ptot=$(med 4 "${P[$c]}") pok=$(allok 5 "${P[$c]}") prate=$(med 6 "${P[$c]}")
        row 17 "bpftrace @[comm] = count(), $(cmp_case_word "$c")" "$(fmt_rate "$brate")" \
            "$([ "$bok" = 1 ] && echo "exact in $CMP_ROUNDS runs" || echo "NOT EXACT in a run (steps)")" \
            "$(printf 'loop %.0f + bpftrace %.1f' "$bl" "$bt")" "$(printf '%.0f ns/call (no tracer: loop %.0f)' "$btot" "$z")"
        row 17 "ours with backend=producer ($pbk), $(cmp_case_word "$c")" "$(fmt_rate "$prate")" \
            "$([ "$pok" = 1 ] && echo "exact in $CMP_ROUNDS runs" || echo "NOT EXACT in a run (steps)")" \
            "$(printf 'loop %.0f + PMDA %.0f + pmcd %.0f' "$pl" "$pt" "$pm")" \
            "$(printf '%.0f ns/call, %.2f x bpftrace (reported)' "$ptot" "$(calc "$ptot / ($btot > 0 ? $btot : 1)")")"
        if [ "$have_perf" = 1 ]; then
            local kl kt ktot kok krate
            kl=$(med 1 "${K[$c]}") kt=$(med 2 "${K[$c]}") ktot=$(med 3 "${K[$c]}") kok=$(allok 4 "${K[$c]}") krate=$(med 5 "${K[$c]}")
            row 17 "kernel counter (perf stat -a), $(cmp_case_word "$c")" "$(fmt_rate "$krate")" \
                "$([ "$kok" = 1 ] && echo "exact in $CMP_ROUNDS runs" || echo "NOT EXACT in a run (steps)")" \
                "$(printf 'loop %.0f + perf %.1f' "$kl" "$kt")" \
                "$(printf '%.0f ns/call, %.2f x bpftrace (reported)' "$ktot" "$(calc "$ktot / ($btot > 0 ? $btot : 1)")")"
        fi
        met=$(awk -v o="$otot" -v b="$btot" -v ok="$ook$bok" 'BEGIN { print (o > 0 && b > 0 && o <= b && ok == "11") ? "MET" : "NOT MET" }')
        row 17 "ours / bpftrace, loop + tracer, $(cmp_case_word "$c")" "" \
            "$([ "$ook$bok" = 11 ] && echo "both exact" || echo "NOT exact in one")" \
            "$(printf '%.0f ns / %.0f ns' "$otot" "$btot")" \
            "$(printf 'target ours <= bpftrace: %s (%.2f x)' "$met" "$(calc "$otot / ($btot > 0 ? $btot : 1)")")"
    done
    note "17: the directive 'count cmpc $GP by comm filter $FILTER' as a config aggregation (PMDA in pmcd, ring_size 64M, kernel_buffer_kb 1024, no stream, no client) against bpftrace 0.17 (ulimit -l 8192): $CMP_BPF, the PMDA then holding no consumer of the event (each side gets a fresh PMDA). The loop (tpbench_load) is pinned to CPU $CMP_CPU (TPB_CMP_CPU); cases: flat out for about ${CMP_SECS} s (TPB_CMP_SECS; the calls sized from a ${CMP_WARM}-call warm-up); paced at $CMP_PACE calls/s for ${CMP_SECS} s (TPB_CMP_PACE; the generator makes $((CMP_PACE / 20000 > 0 ? CMP_PACE / 20000 : 1)) calls, then sleeps until the next is due, i.e. a batch every 50 us); flat out with a busy loop (bash, no system calls) pinned to CPU $CMP_HOG_CPU (TPB_CMP_HOG_CPU), the CPU the loop does not use, so the tracer competes with it. Runs interleaved: per round and case, ours (the backend the PMDA chose: counter where the kernel gives perf tracepoint counters), bpftrace, ours again with backend=producer (reported, no target: the ring and the producer), then perf stat where it works; $CMP_ROUNDS rounds (TPB_ROUNDS); figures are medians over rounds. loop = the loop's own CPU per call (user + system: the kernel's recording, or the BPF program, shows here); PMDA = all its threads' CPU from the start of the loop until it has counted every call, per call; pmcd likewise; bpftrace = its process's CPU over the loop, per call (its map is in the kernel). Exact = ours: count under comm=tpbench_gen = calls, nothing dropped, tracepoint.lost unchanged; bpftrace: its map, printed on SIGINT, = calls (warm-up subtracted). 'no tracer' = the loop flat out with nothing enabled, measured before each bpftrace run. Target: ours' loop + PMDA + pmcd <= bpftrace's loop + bpftrace, both exact. Beside them, reported with no target where perf can count the event: 'kernel counter' = perf stat -a -x, -I 200 -e $GP --filter '$FILTER' (counting mode: the kernel evaluates the filter and increments a counter per CPU, no ring, no map; the PMDA holding no consumer), run last in each round and case the same way; its loop + perf's process per call is what a count kept by the kernel itself costs; exact = the sum of its intervals less the warm-up = calls (perf prints whole intervals only: each run waits up to 10 s for the one holding its last call), every interval counting 100% of the time."
}
