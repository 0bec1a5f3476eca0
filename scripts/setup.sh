#!/bin/sh
# Install whatever pmdatracepoint needs to build, test and run, on Debian 12.
# Idempotent: does nothing (quickly) when everything is already present.
# Usage: scripts/setup.sh [build|run]   (default: both)
set -eu

PKGS="build-essential pkg-config pcp python3-pcp libpcp3-dev libpcp-pmda3-dev \
libtracefs-dev libelf-dev libtraceevent-dev libcmocka-dev valgrind \
clang-14 libfuzzer-14-dev iproute2 curl redis-server bpftrace"

log() { echo "setup: $*"; }

missing_pkgs() {
    for p in $PKGS; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' \
            || printf '%s ' "$p"
    done
}

install_pkgs() {
    need=$(missing_pkgs)
    [ -z "$need" ] && return 0
    log "installing: $need"
    # Debian's pcp post-install calls systemctl; on a machine without systemd
    # that fails.  A no-op systemctl first on PATH lets the install finish.
    shim=""
    if [ ! -d /run/systemd/system ] && [ ! -e /usr/local/sbin/systemctl ]; then
        shim=/usr/local/sbin/systemctl
        mkdir -p /usr/local/sbin
        printf '#!/bin/sh\nexit 0\n' > "$shim"
        chmod 755 "$shim"
        trap 'rm -f "$shim"' EXIT
    fi
    # redis-server is for the fleet test, which starts its own: no service
    # starts at install time (pmcd is started below, when wanted).
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' > "$policy"
        chmod 755 "$policy"
    fi
    trap 'rm -f "$shim" "$policy"' EXIT
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # apt runs dpkg with its own PATH (DPkg::Path); put the shim's directory first.
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends \
        -o DPkg::Path=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin $need >/dev/null
    rm -f "$shim" "$policy"
    trap - EXIT
    return 0
}

mount_tracefs() {
    grep -q ' tracefs ' /proc/mounts && return 0
    log "mounting tracefs on /sys/kernel/tracing"
    mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null \
        || log "cannot mount tracefs (the kernel may lack it); tests that need it will not run"
}

start_pmcd() {
    if pmprobe pmcd.numclients >/dev/null 2>&1; then return 0; fi
    log "starting pmcd"
    if [ -d /run/systemd/system ]; then
        systemctl start pmcd
    else
        /etc/init.d/pmcd start >/dev/null
    fi
    i=0
    while ! pmprobe pmcd.numclients >/dev/null 2>&1; do
        i=$((i + 1)); [ $i -gt 50 ] && { log "pmcd did not start"; return 1; }
        sleep 0.2
    done
}

if [ "$(id -u)" != 0 ]; then
    [ -z "$(missing_pkgs)" ] || { log "run as root to install: $(missing_pkgs)"; exit 1; }
    exit 0
fi
install_pkgs
mount_tracefs
start_pmcd
