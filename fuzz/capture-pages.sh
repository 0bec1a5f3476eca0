#!/bin/sh
# Capture real ring-buffer sub-buffers as seeds for fuzz_page (run as root):
#   fuzz/capture-pages.sh OUTDIR
# Works only in a private tracefs instance, fuzzseed.<pid>, which it removes
# again; the top-level tracing files are never touched.  Events:
# sched:sched_process_exec and syscalls:sys_enter_getpid, generated on CPU 0
# in three patterns: a few events, events far apart in time (the pages hold
# time-extend entries), and a burst into a small buffer (pages with missed
# events).  Each page is one 4096-byte read of per_cpu/cpu0/trace_pipe_raw.
set -eu

out=${1:?usage: $0 OUTDIR}
T=/sys/kernel/tracing
[ -d "$T/instances" ] || T=/sys/kernel/debug/tracing
[ -d "$T/instances" ] || { echo "$0: no tracefs instances directory" >&2; exit 1; }
I="$T/instances/fuzzseed.$$"
mkdir -p "$out"

cleanup() {
    if [ -d "$I" ]; then
        echo 0 > "$I/tracing_on" 2>/dev/null || true
        echo 0 > "$I/events/enable" 2>/dev/null || true
        rmdir "$I" 2>/dev/null || true
    fi
}
trap cleanup EXIT INT TERM

mkdir "$I"
echo mono > "$I/trace_clock" 2>/dev/null || true

getpids() {     # $1 calls of getpid(2), on CPU 0
    taskset -c 0 perl -e 'syscall(39) for 1..$ARGV[0]' "$1" 2>/dev/null ||
        taskset -c 0 python3 -c "import os
for _ in range($1): os.getpid()"
}

execs() {       # $1 execs of /bin/true, on CPU 0
    i=0
    while [ "$i" -lt "$1" ]; do taskset -c 0 /bin/true; i=$((i + 1)); done
}

drain() {       # read cpu0's pages into $out/$1.N
    n=0
    while [ "$n" -lt 64 ]; do
        f="$out/$1.$n"
        dd if="$I/per_cpu/cpu0/trace_pipe_raw" of="$f" bs=4096 count=1 \
           iflag=nonblock status=none 2>/dev/null || true
        if [ ! -s "$f" ]; then rm -f "$f"; break; fi
        n=$((n + 1))
    done
    echo "$1: $n pages"
}

enable() {
    echo 1 > "$I/events/sched/sched_process_exec/enable"
    echo 1 > "$I/events/syscalls/sys_enter_getpid/enable"
}

echo 1 > "$I/tracing_on"
enable
execs 3; getpids 5
drain few

execs 1; sleep 0.3; getpids 1; sleep 0.3; execs 1
drain sparse

echo 0 > "$I/tracing_on"
echo 8 > "$I/buffer_size_kb"
echo 1 > "$I/tracing_on"
getpids 20000; execs 20
drain burst
