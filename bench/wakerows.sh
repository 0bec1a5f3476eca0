# Rows 13 (the producer's cost per event at moderate rates) and 14 (kernel
# loss with every core busy) of `make bench`; sourced by bench/run.sh after
# bench/stackrows.sh, whose helpers (tp_with, s_measure, warm, gen_n,
# rate_word), lib.sh's (mval) and run.sh's (gen, row, note, raw, calc,
# cpu_ns...) it uses.  Knobs: TPB_WAKE_RATES (paced steps of row 13, default
# "50000 100000 200000 300000"), TPB_WAKE_N (calls flat out, rows 13 and
# 14, default TPB_N / 2), TPB_HOGS (busy threads on CPU 1 in row 14, 4),
# TPB_BUSY_REPS (flat-out runs per setting in row 14, 3), TPB_HOG_CPUS (the
# CPUs the busy threads are pinned to, 1; "all": not pinned, as an emulator's
# threads are), TPB_WAKE_FLAT_REPS (flat-out runs whose median is row 13's
# anchor, 5), TPB_WAKE_PACED_REPS (runs of each paced step, whose median
# row 13 shows, 3), TPB_WAKE_WARM_N (untimed flat-out calls before row 13's steps
# of each kind, 3000000: enough to wrap the 64 MiB ring of getpid records,
# which take at least 32 bytes each, so that every page of it has been touched).
WAKE_RATES=${TPB_WAKE_RATES:-"50000 100000 200000 300000"}
WAKE_N=${TPB_WAKE_N:-$((N / 2))}
HOGS=${TPB_HOGS:-4}
BUSY_REPS=${TPB_BUSY_REPS:-3}
HOG_CPUS=${TPB_HOG_CPUS:-1}
WAKE_FLAT_REPS=${TPB_WAKE_FLAT_REPS:-5}
WAKE_PACED_REPS=${TPB_WAKE_PACED_REPS:-3}
WAKE_WARM_N=${TPB_WAKE_WARM_N:-3000000}
WAKE_AGG="count wc $GP by comm backend=producer filter $FILTER"   # the producer's wakeups, not the kernel's counters (row 17)

# w_step TAG RATE KIND WHAT: s_measure with the producer's wakeups a second
# beside it (w_wps) and its fetches' share of the PMDA's CPU per event at
# w_fetch_ns each (w_share)
w_step() {
    local w0 w1
    w0=$(mval tracepoint.producer.wakeups)
    STK_N=$WAKE_N s_measure "$@"
    w1=$(mval tracepoint.producer.wakeups)
    w_wps=$(calc "($w1 - $w0) * 1e9 / $g_ns")
    w_share=$(calc "${s_fetches:-0} * $w_fetch_ns / $s_in")
    raw "$1 wakeups/s $(printf %.0f "$w_wps")"
}

# median_by FIELD LINE...: the median LINE by its FIELD'th '|'-separated number
median_by() {
    local k=$1; shift
    printf '%s\n' "$@" | sort -t'|' -k"$k,$k"g | sed -n "$(( ($# + 1) / 2 ))p"
}

# pmval_fetch_ns PID METRIC: PID's CPU per fetch of METRIC by pmval every
# 10 ms (200 fetches), as ns
pmval_fetch_ns() {
    local c0 c1
    c0=$(cpu_ns "$1")
    pmval -t 0.01 -s 200 "$2" > /dev/null 2>&1 || { echo 0; return 1; }
    c1=$(cpu_ns "$1")
    echo $(( (c1 - c0) / 200 ))
}

# fetch_floor: what one fetch costs with nothing to fetch, the PMDA as
# configured (the stream wk) and the producer asleep: bclient's empty
# fetches of wk every 10 ms for 2 s (sets w_fetch_ns), this PMDA's
# tracepoint.captured and, as the anchor of what a fetch costs another
# agent, pmdalinux's hinv.ncpu, both by pmval every 10 ms
fetch_floor() {
    local tp bpid c0 c1 f lx cap linux=-
    tp=$(pmda_pid)
    "$BCL" -i 10000 wk 1000000000 2000 > "$tmp/fbcl" 2> "$tmp/fbcl.err" &
    bpid=$!; pids+=("$bpid")
    wait_for "grep -q ready $tmp/fbcl" 100
    c0=$(cpu_ns "$tp"); wait "$bpid" 2>/dev/null; c1=$(cpu_ns "$tp")
    read -r _ _ _ _ _ f _ < <(tail -1 "$tmp/fbcl")
    w_fetch_ns=$(( (c1 - c0) / (${f:-0} > 0 ? f : 1) ))
    cap=$(pmval_fetch_ns "$tp" tracepoint.captured)
    lx=$(pgrep -x pmdalinux | head -1)
    [ -n "$lx" ] && linux=$(pmval_fetch_ns "$lx" hinv.ncpu)
    raw "fetch-floor bclient_fetches ${f:-0} pmda_ns $((c1 - c0)) ns/fetch $w_fetch_ns captured_ns/fetch $cap pmdalinux_hinv.ncpu_ns/fetch $linux"
    row 13 "one fetch of nothing, every 10 ms (PMDA CPU)" "" "-" \
        "$(printf 'empty stream %.0f us, tracepoint.captured %.0f us' "$(calc "$w_fetch_ns / 1000")" "$(calc "$cap / 1000")")" \
        "$([ "$linux" = - ] && echo "pmdalinux not running" || printf 'pmdalinux hinv.ncpu %.0f us' "$(calc "$linux / 1000")")"
}

# producer_tid: the PMDA's capture thread
producer_tid() { local t; t=$(tasks "$(pmda_pid)" tp-producer); echo "${t##*/}"; }

# placement_row RATE FLAT: where the producer runs at RATE, the aggregation
# configured (diagnostic, no target): one run counting its switches out per
# CPU (perf stat, not timed), then WAKE_PACED_REPS timed runs with it kept
# off the generator's CPU 0 (taskset -c 1, given back after), their median
# against FLAT, the flat-out anchor
placement_row() {
    local rate=$1 flat=$2 tid mask on0="not counted" k reps=() srate loss pns prod
    tid=$(producer_tid); [ -n "$tid" ] || return 0
    mask=$(taskset -p "$tid" | awk '{ print $NF }')
    # shellcheck disable=SC2046
    if perf stat -a -A -x, -e sched:sched_switch --filter "prev_pid == $tid" -o "$tmp/where" \
        -- "$GEN" $(STK_N=$WAKE_N gen_args "$rate") > /dev/null 2>&1; then
        on0=$(awk -F, '$4 == "sched:sched_switch" { n += $2; if ($1 == "CPU0") z = $2 }
                       END { printf "%.0f%%", (n > 0 ? 100 * z / n : 0) }' "$tmp/where")
    fi
    taskset -p -c 1 "$tid" > /dev/null || return 0
    for ((k = 0; k < WAKE_PACED_REPS; k++)); do
        w_step "wake-agg-cpu1" "$rate" agg wc
        reps+=("$s_pns|$s_rate|$s_loss|$s_prod")
    done
    taskset -p "$mask" "$tid" > /dev/null
    IFS='|' read -r pns srate loss prod <<< "$(median_by 1 "${reps[@]}")"
    raw "wake-agg-placement rate $rate producer_runs_on_cpu0 ${on0// /_} pinned_cpu1_pmda_ns/ev $(printf %.0f "$pns")"
    row 13 "agg, $(rate_word "$rate"), the producer kept on CPU 1" "$(fmt_rate "$srate")" "$loss" \
        "$(printf 'PMDA %.0f ns/ev (producer %.0f); free, %s of its runs were on CPU 0' "$pns" "$prod" "$on0")" \
        "$(printf '%.2f x flat out (reported: where the scheduler puts it)' "$(calc "$pns / ($flat > 0 ? $flat : 1)")")"
}

# wake_kind KIND: its words in row 13
wake_kind() { case $1 in stream) echo stream ;; cli) echo "stream to pcp tracepoint" ;; *) echo "$1" ;; esac; }
# fetch_share NS: ", fetches NS" where the empty fetches' cost is known
fetch_share() { [ "$w_fetch_ns" -gt 0 ] && printf ', fetches %.0f' "$1"; }

# ==== 13. no waste at moderate rates ==========================================
wake_rows() {
    local kind r flat ratio met worst ok line lines conf what rate loss pns wps fet share fflat less
    if ! in_pmcd; then row 13 "moderate rates: PMDA not installed in pmcd" "not measured" "-" "-" "-"; return; fi
    log "13. moderate rates: $WAKE_RATES and flat out ($WAKE_N calls), stream (bclient, pcp tracepoint) and aggregation"
    for kind in stream cli agg; do
        case $kind in
        stream) conf="stream wk $GP params=fields filter $FILTER"; what=wk ;;
        cli)    conf=; what= ;;
        agg)    conf=$WAKE_AGG; what=wc ;;
        esac
        tp_with ${conf:+"$conf"} && warm || { row 13 "$kind: PMDA did not restart" "not measured" "-" "-" "-"; continue; }
        w_fetch_ns=0
        [ $kind = stream ] && fetch_floor
        # a fresh PMDA's first-touch costs paid before any step: its ring's
        # 64 MiB take a page fault per 4 KiB until the ring has wrapped once
        # (a getpid record takes 48 bytes of it), its buffers and tables one
        # each at their first use; WAKE_WARM_N calls flat out, not counted
        STK_N=$WAKE_WARM_N s_measure "wake-$kind-warm" 0 "$kind" "$what"
        # paced steps first: a loss flat out (the stream's client cannot keep
        # up there) must not count against them
        worst=0 ok=1 lines=()
        local k reps
        for r in $WAKE_RATES; do
            reps=()
            for ((k = 0; k < WAKE_PACED_REPS; k++)); do
                w_step "wake-$kind" "$r" "$kind" "$what"
                [ "$s_ok" = 1 ] || ok=0
                reps+=("$r|$s_rate|$s_loss|$s_pns|$w_wps|$w_share|$s_prod")
            done
            lines+=("$(median_by 4 "${reps[@]}")")
        done
        # the anchor: the median of WAKE_FLAT_REPS flat-out runs (one run's
        # figure varies by a quarter from run to run on a VM)
        # (a run with loss is left out of it, its CPU being per event
        # delivered, and said beside it; with none left there is no anchor)
        local f flats=() lossy=()
        for ((f = 0; f < WAKE_FLAT_REPS; f++)); do
            w_step "wake-$kind" 0 "$kind" "$what"
            if [ "$s_ok" = 1 ]; then flats+=("$s_pns|$s_rate|$s_loss|$w_wps|$w_share|$s_prod")
            else lossy+=("$s_loss"); fi
        done
        if [ ${#flats[@]} = 0 ]; then
            row 13 "$(wake_kind $kind), flat out" "not measured" "every run lost: ${lossy[0]}" "-" "-"
            row 13 "$(wake_kind $kind): worst paced / flat out PMDA ns/ev" "" "-" "-" "target <= 1.25 x: NOT MET (no anchor)"
            continue
        fi
        IFS='|' read -r flat rate loss wps fflat prod <<< "$(median_by 1 "${flats[@]}")"
        row 13 "$(wake_kind $kind), flat out (median of ${#flats[@]})" "$(fmt_rate "$rate")" "$loss" \
            "$(printf 'PMDA %.0f ns/ev (producer %.0f), %.0f wakeups/s' "$flat" "$prod" "$wps")$(fetch_share "$fflat")" \
            "anchor ($(printf '%s\n' "${flats[@]}" | cut -d'|' -f1 | xargs printf '%.0f ' | sed 's/ $//') ns/ev)$([ ${#lossy[@]} = 0 ] || printf '; %d of %d runs left out, the first: %s' ${#lossy[@]} "$WAKE_FLAT_REPS" "${lossy[0]}")"
        less=0
        for line in "${lines[@]}"; do
            IFS='|' read -r r rate loss pns wps share prod <<< "$line"
            ratio=$(calc "$pns / ($flat > 0 ? $flat : 1)")
            worst=$(calc "(($ratio > $worst) ? $ratio : $worst)")
            fet=$(calc "($pns - $share) / ($flat - $fflat > 0 ? $flat - $fflat : 1)")
            less=$(calc "(($fet > $less) ? $fet : $less)")
            row 13 "$(wake_kind $kind), $(rate_word "$r")" "$(fmt_rate "$rate")" "$loss" \
                "$(printf 'PMDA %.0f ns/ev (producer %.0f), %.0f wakeups/s' "$pns" "$prod" "$wps")$(fetch_share "$share")" \
                "$(printf '%.2f x flat out' "$ratio")"
        done
        met=$(awk -v x="$worst" -v ok="$ok" 'BEGIN { print (x <= 1.25 && ok == 1) ? "MET" : "NOT MET" }')
        row 13 "$(wake_kind $kind): worst paced / flat out PMDA ns/ev" "" "$([ $ok = 1 ] && echo "none" || echo "LOSS (see above)")" \
            "-" "$(printf 'target <= 1.25 x: %s (%.2f x)' "$met" "$worst")"
        [ $kind = stream ] && row 13 "stream: the same less its empty fetches' cost" "" "-" "-" \
            "$(printf '%.2f x (reported: the client'"'"'s pace)' "$less")"
        [ $kind = agg ] && placement_row "${WAKE_RATES%% *}" "$flat"
    done
    perf_rows
    burst_row
    note "13: the generator pinned to CPU 0 at each of $WAKE_RATES calls/s for ${SECS} s (TPB_WAKE_RATES; the median of $WAKE_PACED_REPS such runs, TPB_WAKE_PACED_REPS, a loss in any of them counting) and flat out ($WAKE_N calls, TPB_WAKE_N; the anchor is the median of $WAKE_FLAT_REPS such runs, TPB_WAKE_FLAT_REPS), the PMDA in pmcd with ring_size 64M, kernel_buffer_kb 1024 and, in turn: 'stream wk $GP params=fields filter $FILTER' read by bclient every 10 ms; no stream in the configuration and \`pcp tracepoint -c -q -f '$FILTER' $GP\` at its default options (its own subscription, a fetch every 0.5 s, draining while tracepoint.pending says more is held), stopped 1.5 s after the loop (for each kind, $WAKE_WARM_N untimed calls flat out first, TPB_WAKE_WARM_N, so that the ring has wrapped and every page of it, and of the PMDA's buffers, has been touched before any step: a running PMDA's steady state); '$WAKE_AGG' with no stream and no client. PMDA = all its threads' CPU from the start of the loop until every call is delivered (counted; for the aggregation less what the bench's own pmprobe calls of the count cost it, as many again measured after), per event; wakeups/s = tracepoint.producer.wakeups over the loop. 'fetches' (bclient's stream): its fetches in the step times what one fetch of the empty stream costs the PMDA (bclient every 10 ms for 2 s with no events, the producer asleep: 'one fetch of nothing'), per event; beside it what a fetch of tracepoint.captured and of pmdalinux's hinv.ncpu cost those agents (pmval every 10 ms, 200 fetches): a fetch's fixed cost in pmcd, whatever the agent. 'less its empty fetches' cost': the worst paced figure less its fetches over the flat-out one less its own (reported, as that part is the client's pace, not the events'). Target: at every paced rate the PMDA's CPU per event at most 1.25 x its flat-out figure in the same run, with no loss; 'producer' is its capture thread's part of it, the rest the PMDA thread's (fetches, their catch-up passes over the kernel's buffers when a pass is older than 20 ms, encoding, the replies to pmcd). Anchor from outside, no target: perf record -a -B -e $GP --filter '$FILTER' -o /dev/shm/... at the same rates and flat out (a fresh perf each step, its events enabled through --control before the loop; its CPU from the enabling to its exit, its final write included and its start-up not), records = SAMPLE events in perf report --stats. 'no PMDA': bench/src/burstbench, the work of one fetch of 500 getpid records in the PMDA thread (48-byte entries read in turn from a 64 MiB ring, written as records by this PMDA's encoder, the array written into a 1 MiB pipe a child drains) once every 10 ms with the process asleep between, as the 50 k/s step's fetches come, against the same batches back to back; the writer's CPU inside its batches, medians of 3 interleaved rounds of 200 batches: what this machine charges the same code for coming in bursts after idle; and with -a the work of a producer's pass of 15000 getpid events for a count by comm (4 KiB sub-buffers copied in turn from a 64 MiB buffer, as read() copies the kernel's pages, each event fed with its name to this PMDA's aggregation) once every 250 ms against back to back, 3 rounds of 20 batches. 'the producer kept on CPU 1' (diagnostic, no target): the aggregation at the lowest paced rate with the PMDA's capture thread pinned off the generator's CPU 0 (taskset, its mask given back after), the median of $WAKE_PACED_REPS runs against the flat-out anchor; beside it, from one more run at that rate with the thread free, the share of its switches out (sched:sched_switch, perf stat -a -A) that were on CPU 0: where the scheduler wakes it when the generator's CPU is mostly idle."
}

# perf_step RATE: perf record (-a, the same filter in the kernel, into
# /dev/shm, build ids not collected) of the generator's calls at RATE
# (0: flat out), its events enabled through its control fifo before the
# loop starts; sets p_ns (perf's CPU per call from the enabling to its exit,
# its last write included; its start-up, which synthesises every process's
# maps, not), p_got (the records it wrote, perf report --stats) and p_n
perf_step() {
    local rate=$1 sp rp c0 tot line cfd afd out=/dev/shm/tpbench-perf.$$.data
    p_n=$(STK_N=$WAKE_N gen_n "$rate") p_got=0 p_ns=0
    rm -f "$tmp/pctl" "$tmp/pack"; mkfifo "$tmp/pctl" "$tmp/pack" || return 1
    perf stat -x, -e task-clock -o "$tmp/pstat" -- perf record -q -a -B -e "$GP" --filter "$FILTER" \
        -D -1 --control "fifo:$tmp/pctl,$tmp/pack" -o "$out" > "$tmp/prec" 2>&1 &
    sp=$!; pids+=("$sp")
    # read-write opens, which do not wait for perf: if it never starts, the
    # read of its ack times out instead
    exec {cfd}<> "$tmp/pctl" {afd}<> "$tmp/pack"
    echo enable >&"$cfd"
    read -t 60 -r line <&"$afd"; rp=$(pgrep -P "$sp")
    [ "$line" = ack ] && [ -n "$rp" ] && read -r c0 _ < "/proc/$rp/schedstat" ||
        { exec {cfd}>&- {afd}>&-; kill "$sp" 2>/dev/null; rm -f "$out"; cat "$tmp/prec" >&2; return 1; }
    # shellcheck disable=SC2046
    gen $(STK_N=$WAKE_N gen_args "$rate")
    kill -INT "$rp"; wait "$sp" 2>/dev/null
    exec {cfd}>&- {afd}>&-
    tot=$(awk -F, '$3 == "task-clock" { printf "%.0f", $1 * 1e6 }' "$tmp/pstat")
    p_got=$(perf report -i "$out" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
    rm -f "$out"
    p_got=${p_got:-0} p_ns=$(calc "(${tot:-0} - $c0) / $p_n")
    raw "wake-perf offered $rate n $p_n records $p_got perf_ns/call $(printf %.0f "$p_ns") perf_startup_ms $(( c0 / 1000000 ))"
}

# perf_rows: row 13's anchor from outside, perf record's CPU per event at
# each paced rate and flat out, with no target
perf_rows() {
    local r flat lines=() line got ns
    command -v perf > /dev/null && perf stat -e "$GP" true > /dev/null 2>&1 ||
        { row 13 "perf record: the same calls" "not measured" "perf cannot trace $GP" "-" "-"; return; }
    tp_with
    for r in $WAKE_RATES 0; do
        perf_step "$r" || { row 13 "perf record, $(rate_word "$r")" "not measured" "perf did not start" "-" "-"; return; }
        lines+=("$r|$(calc "$g_n * 1e9 / $g_ns")|$p_got|$p_n|$p_ns")
    done
    flat=$p_ns
    for line in "${lines[@]}"; do
        IFS='|' read -r r rate got n ns <<< "$line"
        row 13 "perf record, $(rate_word "$r")" "$(fmt_rate "$rate")" \
            "$([ "$got" -eq "$n" ] && echo "none ($got/$n)" || echo "records $got for $n calls")" \
            "$(printf 'perf %.0f ns/ev' "$ns")" \
            "$([ "$r" = 0 ] && echo "anchor (reported)" || printf '%.2f x flat out' "$(calc "$ns / ($flat > 0 ? $flat : 1)")")"
    done
}

# burst_row: the same per-record work as a fetch of 500 getpid records
# (burstbench: ring to array to a pipe, no PMDA), one batch every 10 ms as
# bclient's fetches of the 50 k/s step come, and as a producer's pass of
# 15000 events into a count by comm (burstbench -a), one every 250 ms as at
# 50 k/s, each against the same batches back to back
burst_row() {
    [ -x "$B/burstbench" ] || { row 13 "the same work in bursts (burstbench)" "not measured" "not built" "-" "-"; return; }
    burst_line "500 records every 10 ms / back to back" "a record" 500 10000 200
    burst_line "a count by comm, 15000 events every 250 ms / back to back" "an event" -a 15000 250000 20
}

# burst_line WORDS UNIT ARGS...: one burstbench run with ARGS as a row
burst_line() {
    local words=$1 unit=$2 out paced flat x
    shift 2
    out=$("$B/burstbench" "$@") || { row 13 "no PMDA: $words" "not measured" "it failed" "-" "-"; return; }
    raw "wake-burst $* $out"
    read -r _ paced _ flat _ x <<< "$out"
    row 13 "no PMDA: $words" "-" "-" "$(printf 'burstbench %.0f ns / %.0f ns %s' "$paced" "$flat" "$unit")" \
        "$(printf '%.2f x (reported: the host'"'"'s, on bursts)' "$x")"
}

# hogs_start: HOGS busy threads pinned to HOG_CPUS (hog_pids)
hogs_start() {
    local i pin=()
    [ "$HOG_CPUS" = all ] || pin=(taskset -c "$HOG_CPUS")
    hog_pids=()
    for i in $(seq 1 "$HOGS"); do
        "${pin[@]}" sh -c 'while :; do :; done' &
        hog_pids+=("$!"); pids+=("$!")
    done
}
hogs_stop() { local p; for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; hog_pids=(); }

# bpf_comm_step: bpftrace @[comm] = count() on the generator's calls, flat
# out under the same load; sets b_got, b_cpu_ns, b_rate
bpf_comm_step() {
    local bpid c0 c1
    ( ulimit -l 8192; exec bpftrace -e 'BEGIN { printf("ready\n"); } tracepoint:syscalls:sys_enter_getpid /comm == "tpbench_gen"/ { @[comm] = count(); }' ) \
        > "$tmp/bpfc" 2> "$tmp/bpfc.err" &
    bpid=$!; pids+=("$bpid")
    b_got=0
    wait_for "grep -q ready $tmp/bpfc" 300 || { kill "$bpid"; cat "$tmp/bpfc.err" >&2; return 1; }
    c0=$(cpu_ns "$bpid")
    gen 0 "$WAKE_N" || return 1
    c1=$(cpu_ns "$bpid")
    kill -INT "$bpid"; wait "$bpid" 2>/dev/null
    b_got=$(awk -F': ' '/^@\[tpbench_gen\]/ { print $2 }' "$tmp/bpfc"); b_got=${b_got:-0}
    b_cpu_ns=$(calc "($c1 - $c0) / $WAKE_N"); b_rate=$(calc "$g_n * 1e9 / $g_ns")
    raw "busy-bpftrace n $WAKE_N counted $b_got rate $(printf %.0f "$b_rate") gen_cpu_ns/call $(printf %.0f "$(calc "$g_cpu / $g_n")") bpftrace_ns/call $(printf %.1f "$b_cpu_ns")"
}

# ==== 14. no kernel loss when every core is busy ================================
busy_rows() {
    local nice l0 l1 lost lruns rates pnss tag i
    if ! in_pmcd; then row 14 "busy cores: PMDA not installed in pmcd" "not measured" "-" "-" "-"; return; fi
    log "14. busy cores: $HOGS busy threads on CPU $HOG_CPUS, the generator flat out on CPU 0 ($WAKE_N calls)"
    for nice in 0 default; do
        if [ $nice = 0 ]; then tag="producer_nice 0 (as before)"; tp_with "$WAKE_AGG" "producer_nice 0"
        else tag="producer_nice default"; tp_with "$WAKE_AGG"; fi && warm ||
            { row 14 "$tag: PMDA did not restart" "not measured" "-" "-" "-"; continue; }
        hogs_start
        lost=0 lruns=0 rates= pnss=
        for i in $(seq 1 "$BUSY_REPS"); do
            l0=$(mval tracepoint.lost)
            w_step "busy-$nice" 0 agg wc
            l1=$(mval tracepoint.lost)
            [ $((l1 - l0)) -gt 0 ] && lruns=$((lruns + 1))
            lost=$((lost + l1 - l0)) rates="$rates $(fmt_rate "$s_rate" | tr -d ' ')" pnss="$pnss $(printf %.0f "$s_pns")"
        done
        hogs_stop
        row 14 "count by comm, $tag, $BUSY_REPS runs" "$rates" \
            "$([ "$lost" = 0 ] && echo "none" || echo "LOST $lost of $((BUSY_REPS * WAKE_N)) ($(calc "100 * $lost / ($BUSY_REPS * $WAKE_N)")%), in $lruns runs")" \
            "PMDA ns/ev$pnss" "kernel loss $lost"
    done
    if command -v bpftrace > /dev/null; then
        tp_with
        hogs_start
        if bpf_comm_step; then
            row 14 "bpftrace @[comm] = count(), same load" "$(fmt_rate "$b_rate")" \
                "$([ "$b_got" -eq "$WAKE_N" ] && echo "none ($b_got/$WAKE_N)" || echo "LOST: counted $b_got/$WAKE_N")" \
                "$(printf 'bpftrace %.1f ns/ev' "$b_cpu_ns")" "-"
        else
            row 14 "bpftrace @[comm] = count()" "not measured" "bpftrace did not start" "-" "-"
        fi
        hogs_stop
    else
        row 14 "bpftrace @[comm] = count()" "not measured" "bpftrace not installed" "-" "-"
    fi
    note "14: $HOGS busy-loop shells (TPB_HOGS) $([ "$HOG_CPUS" = all ] && echo "not pinned (TPB_HOG_CPUS=all)" || echo "pinned to CPU $HOG_CPUS (TPB_HOG_CPUS)"), the generator flat out on CPU 0 ($BUSY_REPS runs of $WAKE_N calls, TPB_BUSY_REPS), the PMDA in pmcd with kernel_buffer_kb 1024 (the default) and '$WAKE_AGG' alone, first with 'producer_nice 0' (the producer at the PMDA's own priority, as before), then at the default producer_nice. Kernel loss = tracepoint.lost over the step (overrun + dropped events in the instance's per-CPU stats); counted + lost = calls. bpftrace 0.17: the same calls counted by @[comm] = count() under the same load (its map is in the kernel: no reader to starve)."
}
