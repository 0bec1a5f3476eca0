# Row 15 of `make bench`: the pipeline to one `pcp tracepoint` at its
# default options; sourced by bench/run.sh, whose helpers (gen, row, note,
# raw, log, calc, cpu_ns, take_tp, pmda_restart, pmda_pid, wait_for...) and
# variables (GEN, B, tmp, FILTER, GP, SECS, PMDADIR, TRACING, cdpid) it uses.
# The filtered ceiling is measured here, in the same run; then the client's
# highest zero-loss rate with pmcd as it runs, and again with pmcd
# restarted with glibc's malloc tuning in its environment (PIPE_MALLOC),
# after which pmcd is restarted without it (also on Ctrl-C).
# Knobs: TPB_PIPE_RATES (paced steps, calls/s, ascending; 0 = flat out),
# TPB_PIPE_N (calls per ceiling run, default 3000000), TPB_PIPE_MALLOC=0
# (skip the tuned case).
PIPE_RATES=${TPB_PIPE_RATES:-"300000 500000 700000 1000000 1400000 2000000 0"}
PIPE_N=${TPB_PIPE_N:-3000000}
PIPE_MALLOC="MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=268435456 MALLOC_TOP_PAD_=67108864"
pipe_tuned=0

# pipe_pmcd 0|1: restart pmcd without or with PIPE_MALLOC in its environment
pipe_pmcd() {
    local old
    old=$(pgrep -x pmcd | head -1)
    # pmcd keeps whatever descriptors it is started with: none of ours
    # (a lock the bench runs under would be held by pmcd from then on)
    # shellcheck disable=SC2086
    (
        for fd in $(ls "/proc/$BASHPID/fd"); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
        if [ "$1" = 1 ]; then exec env $PIPE_MALLOC "$PCP_RC_DIR/pmcd" restart
        else exec env -u MALLOC_MMAP_THRESHOLD_ -u MALLOC_TRIM_THRESHOLD_ -u MALLOC_TOP_PAD_ "$PCP_RC_DIR/pmcd" restart
        fi
    ) < /dev/null > /dev/null 2>&1
    pipe_tuned=$1
    wait_for "[ \"\$(pgrep -x pmcd | wc -l)\" = 1 ] && [ \"\$(pgrep -x pmcd)\" != \"$old\" ] && pmprobe -v tracepoint.ring.capacity | grep -q ' 1 '" 200 || return 1
    cdpid=$(pgrep -x pmcd)
}
pipe_cleanup() { [ "$pipe_tuned" = 1 ] && pipe_pmcd 0; pipe_tuned=0; }

# pipe_ceiling: the kernel's filtered ceiling (best of 3 runs, no reader) in
# our own instance; sets pipe_ceil (events/s)
pipe_ceiling() {
    local inst=$TRACING/instances/tpbench-pipe.$$ ev r best=0
    mkdir "$inst" || return 1
    ev=$inst/events/syscalls/sys_enter_getpid
    echo "$FILTER" > "$ev/filter"; echo 1 > "$ev/enable"
    for r in 1 2 3; do
        gen 0 "$PIPE_N" || continue
        r=$(calc "$g_n * 1e9 / $g_ns")
        raw "pipe ceiling-filtered n $g_n elapsed_ns $g_ns rate $(printf %.0f "$r")"
        awk -v a="$r" -v b="$best" 'BEGIN { exit !(a > b) }' && best=$r
    done
    echo 0 > "$ev/enable"; rmdir "$inst"
    pipe_ceil=$best
}

# pipe_drained FILE: wait until the client's output stops growing for a second
pipe_drained() {
    local prev=-1 size still=0
    while [ $still -lt 5 ]; do
        size=$(stat -c %s "$1")
        if [ "$size" = "$prev" ]; then still=$((still + 1)); else still=0; fi
        prev=$size; sleep 0.2
    done
}

# pipe_step RATE: pcp tracepoint at its default options (the default line,
# into a file in /dev/shm) while the generator makes RATE calls/s for SECS
# (0: PIPE_N calls flat out); sets p_ok, p_rate, p_got, p_lost and the CPU
# per event of pmcd, the PMDA and the client, pmcd's page faults per event,
# bytes pmcd read per record and fetch replies a second.
pipe_step() {
    local rate=$1 n cpid tp m0 m1 a0 a1 c0 c1 f0 f1 b0 b1 r0 r1 l0 t0 t1 out
    n=$([ "$rate" = 0 ] && echo "$PIPE_N" || echo $((rate * SECS)))
    out=$(mktemp /dev/shm/tpbench-pipe.XXXXXX)
    l0=$(pmprobe -v tracepoint.lost | awk '{ print $3 }')
    "$B/pcp-tracepoint" -f "$FILTER" "$GP" > "$out" 2> "$tmp/pipe.err" &
    cpid=$!; pids+=("$cpid")
    wait_for "[ \"\$(pmprobe -v tracepoint.subscriptions | awk '{ print \$3 }')\" -ge 1 ]" 50
    tp=$(pmda_pid)
    r0=$(pmprobe -v pmcd.pdu_out.result | awk '{ print $3 }')
    m0=$(cpu_ns "$cdpid"); a0=$(cpu_ns "$tp"); c0=$(cpu_ns "$cpid")
    f0=$(awk '{ print $10 }' "/proc/$cdpid/stat"); b0=$(awk '/^rchar/ { print $2 }' "/proc/$cdpid/io")
    t0=$(now_ns)
    # shellcheck disable=SC2046
    gen 0 "$n" $([ "$rate" != 0 ] && echo "$rate")
    pipe_drained "$out"
    t1=$(now_ns)
    m1=$(cpu_ns "$cdpid"); a1=$(cpu_ns "$tp"); c1=$(cpu_ns "$cpid")
    f1=$(awk '{ print $10 }' "/proc/$cdpid/stat"); b1=$(awk '/^rchar/ { print $2 }' "/proc/$cdpid/io")
    r1=$(pmprobe -v pmcd.pdu_out.result | awk '{ print $3 }')
    kill -TERM "$cpid"; wait "$cpid" 2>/dev/null
    p_n=$n p_got=$(grep -c " $GP:" "$out")
    p_lost=$(awk '$2 == "LOST" { n += $3 } END { print n + 0 }' "$out")
    p_klost=$(( $(pmprobe -v tracepoint.lost | awk '{ print $3 }') - l0 ))
    rm -f "$out"
    p_rate=$(calc "$g_n * 1e9 / $g_ns")
    p_ok=0; [ "$p_got" -eq "$n" ] && [ "$p_lost" -eq 0 ] && [ "$p_klost" -eq 0 ] && p_ok=1
    local d=$((p_got > 0 ? p_got : 1))
    p_mns=$(calc "($m1 - $m0) / $d"); p_ans=$(calc "($a1 - $a0) / $d"); p_cns=$(calc "($c1 - $c0) / $d")
    p_flt=$(calc "($f1 - $f0) / $d"); p_bpr=$(calc "($b1 - $b0) / $d")
    p_pdus=$(calc "($r1 - $r0) * 1e9 / ($t1 - $t0)")
    raw "$(printf 'pipe tuned %s offered %s n %s printed %s lost %s kernel_lost %s rate %.0f pmcd_ns/ev %.0f pmda_ns/ev %.0f client_ns/ev %.0f pmcd_faults/ev %.3f pmcd_read_bytes/rec %.0f fetch_replies/s %.0f' \
        "$pipe_tuned" "$rate" "$n" "$p_got" "$p_lost" "$p_klost" "$p_rate" "$p_mns" "$p_ans" "$p_cns" "$p_flt" "$p_bpr" "$p_pdus")"
}

# pipe_search LABEL: the steps, up to the first with loss; one row
pipe_search() {
    local r best= b_m b_a b_c b_f b_b b_p loss=
    for r in $PIPE_RATES; do
        pipe_step "$r"
        log "   $1, $([ "$r" = 0 ] && echo "flat out" || fmt_rate "$r"): printed $p_got lost $p_lost kernel $p_klost ($(fmt_rate "$p_rate"))"
        if [ $p_ok = 1 ]; then
            [ -n "$best" ] && awk -v a="$p_rate" -v b="$best" 'BEGIN { exit !(a <= b) }' && continue
            best=$p_rate b_m=$p_mns b_a=$p_ans b_c=$p_cns b_f=$p_flt b_b=$p_bpr b_p=$p_pdus
        else
            loss="LOST $((p_n - p_got)) of $p_n at $([ "$r" = 0 ] && echo "flat out" || fmt_rate "$r")"
            break
        fi
    done
    if [ -z "$best" ]; then
        row 15 "pipeline to pcp tracepoint, $1" "(loss)" "${loss:-no step ran}" "-" "-"
        return
    fi
    local ratio met
    ratio=$(calc "$best / ($pipe_ceil > 0 ? $pipe_ceil : 1)")
    met=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.6) ? "MET" : "NOT MET" }')
    row 15 "pipeline to pcp tracepoint, $1: best zero-loss" "$(fmt_rate "$best")" "${loss:-no loss at any step}" "$(printf 'pmcd %.0f PMDA %.0f cli %.0f ns/ev' "$b_m" "$b_a" "$b_c")" "$(printf '%.2f x ceiling w/ filter (target >= 0.6): %s' "$ratio" "$met")"
    row 15 "   pmcd: page faults/ev, bytes read/record, replies/s" "" "" "$(printf '%.3f, %.0f B, %.0f/s' "$b_f" "$b_b" "$b_p")" ""
}

pipe_rows() {
    log "15. the pipeline to one pcp tracepoint at default options"
    if [ -x "$B/unpackbench" ]; then
        read -r _ ub_lib _ ub_ours _ ub_bytes < <("$B/unpackbench" 65536)
        row 15 "client reading a record: libpcp unpack / in place" "" "" "$(printf '%.0f ns / %.0f ns, %.0f bytes' "$ub_lib" "$ub_ours" "$ub_bytes")" "$(printf '%.2f x' "$(calc "$ub_ours / $ub_lib")")"
        note "15: bench/src/unpackbench: one array of 65,536 getpid records as pcp tracepoint's default options receive them (event, cpu, pid, time_ns, comm, text), read by pmUnpackEventRecords and freed newest first, and by the client's in-place view (client/unpack.c); best of 5, CPU per record."
    fi
    if [ -x "$B/linebench" ]; then
        read -r _ lb_n _ lb_ns < <("$B/linebench" 1000000 2>&1 > "$tmp/linebench.out")
        rm -f "$tmp/linebench.out"
        row 15 "client printing a default line" "" "" "$(printf '%.0f ns' "$lb_ns")" ""
        note "15: bench/src/linebench: $lb_n default text lines of getpid records (cpu, pid, comm, event, empty text) by the client's output_event (client/output.c) into a file, flushed every 4,096 lines; best of 5, CPU per line."
    fi
    # the shipped config first: the ceiling is measured with no other consumer
    # of the event (an earlier row's config would record each call twice)
    take_tp
    cp "$top/tracepoint.conf" "$PMDADIR/tracepoint.conf"
    pmda_restart || { row 15 "pipeline: PMDA did not restart" "not measured" "-" "-" "-"; return; }
    pipe_ceiling || { row 15 "pipeline: no ceiling measured" "not measured" "-" "-" "-"; return; }
    row 15 "kernel: getpid, filter comm == tpbench_gen (ceiling)" "$(fmt_rate "$pipe_ceil")" "-" "1 core (100%)" "best of 3 x $PIPE_N calls, no reader"
    pipe_search "pmcd as it runs"
    if [ "${TPB_PIPE_MALLOC:-1}" = 1 ]; then
        if pipe_pmcd 1; then
            pipe_search "pmcd with malloc tuning"
        else
            row 15 "pipeline, pmcd with malloc tuning" "not measured" "pmcd did not restart" "-" "-"
        fi
        pipe_cleanup
    fi
    note "15: the PMDA in pmcd with the shipped tracepoint.conf; pcp tracepoint -f '$FILTER' $GP at its default options (its own subscription; the PMDA renders comm and text; the client prints every default line into a file in /dev/shm, fetching again at once while tracepoint.pending says more). Paced steps of ${SECS} s ($PIPE_RATES; 0 = $PIPE_N calls flat out), up to the first with loss: zero loss = lines == calls, no LOST line, tracepoint.lost unchanged; events/s = what the generator made. Ceiling: the same calls with the event enabled and filtered in our own instance and no reader, in this run. CPU per printed event from schedstat (pmcd, every PMDA thread, the client); pmcd's page faults (minflt) and bytes read (rchar, nearly all the PMDA's replies) per record; replies/s = pmcd.pdu_out.result a second. Malloc tuning: pmcd restarted by $PCP_RC_DIR/pmcd with $PIPE_MALLOC in its environment (its PMDAs inherit it), and restarted without it afterwards."
}
