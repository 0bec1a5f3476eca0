# shellcheck shell=bash
# Helpers shared by bench/run.sh and bench/archive.sh (sourced, bash): the
# PMDA in pmcd, restarted with a configuration or binary of the bench's own.
# Needs PMDADIR ($PCP_PMDAS_DIR/tracepoint) set by the caller; defines only
# functions, and keeps no state of its own.

# pmda_pid: the pid of the PMDA pmcd runs (empty when there is none)
pmda_pid() { pgrep -f "^$PMDADIR/pmdatracepoint" | head -1; }
# running PID: the process exists and is not a zombie
running() { [ -e /proc/$1 ] && ! grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }
# wait_for COMMAND [TENTHS]: until COMMAND succeeds, up to TENTHS/10 s
# (default 5 s), times TPB_WAIT_SCALE (default 1; the kernel lane's guest,
# ten times slower, sets 10)
wait_for() {
    local i=0 n=$(( ${2:-50} * ${TPB_WAIT_SCALE:-1} ))
    until eval "$1" >/dev/null 2>&1; do
        i=$((i + 1)); [ $i -ge $n ] && return 1
        sleep 0.1
    done
}
# pmda_restart: stop the PMDA, let pmcd start it again (SIGHUP), and wait
# until it answers a fetch
pmda_restart() {
    local old
    old=$(pmda_pid)
    [ -n "$old" ] && kill "$old" && wait_for "! running $old"
    pmsignal -a -s HUP pmcd >/dev/null 2>&1
    wait_for "[ -n \"\$(pmda_pid)\" ] && pmprobe -v tracepoint.ring.capacity | grep -q ' 1 '" 100
}
# pmda_install_bin BIN: install BIN as the PMDA pmcd runs, unless it is that already
pmda_install_bin() {
    cmp -s "$1" "$PMDADIR/pmdatracepoint" || install -m 755 "$1" "$PMDADIR/pmdatracepoint"
}
# mval METRIC: the sum of a metric's values (0 when it has none)
mval() { pmprobe -v "$1" 2>/dev/null | awk '{ s = 0; for (i = 3; i <= NF && $2 > 0; i++) s += $i; printf "%.0f", s }'; }
