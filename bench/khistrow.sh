# Row 16 of `make bench`: one aggregation computed by the kernel's hist
# triggers against the same directive computed by the producer; sourced by
# bench/run.sh after bench/stackrows.sh, whose helpers (tp_with, settle)
# it uses with lib.sh's (mval) and run.sh's (gen, row, note, raw, log, calc, cpu_ns,
# pmda_pid, in_pmcd; GEN, N, cdpid).  Runs where the kernel has hist
# triggers (Debian's 6.1 in the kernel lane); elsewhere a SKIP row.
# Knobs: TPB_KH_N (calls flat out, default TPB_N / 5), TPB_KH_KEYS (distinct
# keys, default 16).
KH_N=${TPB_KH_N:-$((N / 5))}
KH_KEYS=${TPB_KH_KEYS:-16}
# The generator's lseek(-1, k, 0) for k in 0..KEYS-1: a key field the kernel
# can hold (offset), and a filter it evaluates itself (no real fd is that large).
KH_EV=syscalls:sys_enter_lseek
KH_DIR="$KH_EV by offset filter fd > 1000000"

# kh_step TAG AGG: the generator flat out against the PMDA as configured
# (AGG: the aggregation counting its calls, or none).  Sets k_gns (generator
# CPU per call), k_pns (PMDA CPU per call, until the counts are all there),
# k_rate, k_got, k_drop, k_ok.
kh_step() {
    local tag=$1 agg=$2 tp c0 c1 d=0
    tp=$(pmda_pid)
    [ "$agg" != none ] && d=$(mval "tracepoint.agg.$agg.count")
    c0=$(cpu_ns "$tp")
    gen -s lseek -v "$KH_KEYS" 0 "$KH_N" || { k_ok=0; return 1; }
    k_got=$((KH_N + 1)) k_drop=0
    if [ "$agg" != none ]; then
        settle "echo \$(( \$(mval tracepoint.agg.$agg.count) + \$(mval tracepoint.agg.$agg.dropped) - $d ))" "$((KH_N + 1))"
        k_got=$(( $(mval "tracepoint.agg.$agg.count") - d ))
        k_drop=$(mval "tracepoint.agg.$agg.dropped")
    fi
    c1=$(cpu_ns "$tp")
    k_gns=$(calc "$g_cpu / $g_n"); k_rate=$(calc "$g_n * 1e9 / $g_ns")
    k_pns=$(calc "($c1 - $c0) / $KH_N")
    # the generator makes each call once before timing (it must fail): one more
    k_ok=0; [ "$k_got" -eq $((KH_N + 1)) ] && [ "$k_drop" -eq 0 ] && k_ok=1
    raw "$tag n $KH_N got $k_got dropped $k_drop lost $(mval tracepoint.lost) gen_cpu_ns/call $(printf %.0f "$k_gns") rate $(printf %.0f "$k_rate") pmda_ns/ev $(printf %.1f "$k_pns")"
}
kh_loss() { [ "$k_ok" = 1 ] && echo "none, exact ($k_got/$((KH_N + 1)))" || echo "LOST: got $k_got/$((KH_N + 1)), dropped $k_drop"; }
kh_row() {  # WHAT [BASE]
    row 16 "$1" "$(fmt_rate "$k_rate")" "$(kh_loss)" "$(printf 'gen %.0f ns/call, PMDA %.1f ns/ev' "$k_gns" "$k_pns")" \
        "${2:+$(printf 'gen +%.0f ns/call vs none' "$(calc "$k_gns - $2")")}"
}

khist_rows() {
    local base pg pp pok kg kp kok backend
    if ! grep -qw hist "/sys/kernel/tracing/events/${KH_EV%%:*}/${KH_EV#*:}/trigger" 2>/dev/null; then
        row 16 "aggregations in the kernel: SKIP" "not measured" "no hist triggers here" "-" "-"
        return
    fi
    if ! in_pmcd; then row 16 "kernel aggregation: PMDA not installed in pmcd" "not measured" "-" "-" "-"; return; fi
    log "16. count $KH_DIR: producer and kernel, $KH_N calls flat out"
    tp_with || { row 16 "kernel aggregation: PMDA did not restart" "not measured" "-" "-" "-"; return; }
    if ! kh_step kh-none none; then
        row 16 "kernel aggregation: the generator failed" "not measured" "-" "-" "-"
        return
    fi
    base=$k_gns
    row 16 "lseek(-1, k, 0), no consumer, flat out" "$(fmt_rate "$k_rate")" "-" "$(printf 'gen %.0f ns/call' "$k_gns")" "-"
    tp_with "count khp $KH_EV by offset backend=producer filter fd > 1000000" || return
    kh_step kh-producer khp || return
    kh_row "count ... by offset, producer, flat out" "$base"
    pg=$k_gns pp=$k_pns pok=$k_ok
    tp_with "count khk $KH_DIR" || return
    backend=$(pmprobe -v tracepoint.agg.khk.backend | sed -n 's/.* "\(.*\)"$/\1/p')
    kh_step kh-kernel khk || return
    kh_row "count ... by offset, $backend, flat out" "$base"
    kg=$k_gns kp=$k_pns kok=$k_ok
    row 16 "kernel - producer, per call: traced task + PMDA" "" \
        "$([ "$pok$kok" = 11 ] && echo "none in either" || echo "LOSS in one (see above)")" \
        "$(printf 'gen %+.0f ns, PMDA %+.1f ns' "$(calc "$kg - $pg")" "$(calc "$kp - $pp")")" \
        "$([ "$backend" = kernel ] && [ "$kok" = 1 ] && echo "MET" || echo "NOT MET") (target: kernel backend, exact)"
    note "16: the generator (tpbench_load -s lseek -v $KH_KEYS 0 $KH_N, TPB_KH_N, TPB_KH_KEYS) pinned to CPU 0 flat out, lseek(-1, k, 0) for k cycling through 0..$((KH_KEYS - 1)); the PMDA in pmcd (ring_size 64M, kernel_buffer_kb 1024) with, in turn: nothing; count khp $KH_EV by offset backend=producer filter fd > 1000000 (the producer reads every event from the ring); count khk $KH_DIR (hist triggers in the PMDA's instance, tracepoint.agg.khk.backend says which). gen = the generator's own CPU per call (user + system: the kernel's recording, or its hist trigger, shows here); PMDA = all its threads' CPU from the start of the loop until the aggregation has every count, per call (for the kernel backend: reading the hist file on fetch). Exact = count equals the calls (the timed ones and the generator's one check call before them) and dropped is 0."
}
