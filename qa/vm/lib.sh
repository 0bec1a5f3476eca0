# shellcheck shell=bash
# The kernel lane's host side, sourced by qa/vm/run and qa/vm/lane: what it
# installs, the kernel it boots, the initramfs it builds (qa/vm/init as /init).
#
# Debian 12's stock kernel (the package linux-image-amd64 depends on) is
# fetched with apt-get download and unpacked into a cache shared by every
# checkout on the machine ($TPVM_CACHE, default /var/cache/pmdatracepoint-vm);
# one flock on the cache serialises its preparation.  Nothing here touches the
# host's pmcd or the installed PMDA.

TPVM_CACHE=${TPVM_CACHE:-/var/cache/pmdatracepoint-vm}
TPVM_PKGS="qemu-system-x86 busybox-static kmod cpio"
# The modules the guest needs for its root, in load order (modprobe
# --show-depends order for 9p, 9pnet_virtio, virtio_pci and overlay).
TPVM_MODULES="netfs fscache 9pnet 9p virtio_ring virtio virtio_pci_modern_dev
virtio_pci_legacy_dev virtio_pci 9pnet_virtio overlay"

vm_log() { echo "vm: $*" >&2; }

# SKIP: the lane cannot run here; the reason goes out on one line, exit 0.
vm_skip() { echo "SKIP: kernel lane: $*"; exit 0; }

vm_missing_pkgs() {
    local p
    for p in $TPVM_PKGS; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' \
            || printf '%s ' "$p"
    done
}

# Install QEMU, busybox-static and the module tools if they are missing.
vm_install_pkgs() {
    local need
    need=$(vm_missing_pkgs)
    [ -z "$need" ] && return 0
    [ "$(id -u)" = 0 ] || { vm_log "run as root to install: $need"; return 1; }
    vm_log "installing: $need"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $need >/dev/null
}

# The stock kernel's package name, e.g. linux-image-6.1.0-57-amd64.
vm_kernel_pkg() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

# Unpack the kernel package into $TPVM_CACHE/<version> once; print that dir.
vm_fetch_kernel() {
    local pkg ver dir deb
    pkg=$(vm_kernel_pkg)
    if [ -z "$pkg" ]; then
        # No package lists (fresh machine): update once, then ask again.
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1
        pkg=$(vm_kernel_pkg)
    fi
    if [ -z "$pkg" ]; then
        # Offline: the newest kernel already in the cache, if any.
        dir=$(ls -d "$TPVM_CACHE"/6.* 2>/dev/null | sort -V | tail -1)
        [ -n "$dir" ] && [ -f "$dir/.done" ] && { echo "$dir"; return 0; }
        vm_log "apt knows no linux-image-amd64"; return 1
    fi
    ver=${pkg#linux-image-}
    dir=$TPVM_CACHE/$ver
    [ -f "$dir/.done" ] && { echo "$dir"; return 0; }
    rm -rf "$dir" "$TPVM_CACHE/dl" && mkdir -p "$dir" "$TPVM_CACHE/dl" || return 1
    vm_log "fetching $pkg"
    (cd "$TPVM_CACHE/dl" && apt-get download -qq "$pkg" >/dev/null 2>&1) ||
        { vm_log "apt-get download $pkg failed"; return 1; }
    deb=$(ls "$TPVM_CACHE"/dl/*.deb | head -1)
    dpkg-deb -x "$deb" "$dir/root" || return 1
    rm -rf "$TPVM_CACHE/dl"
    # The package ships no modules.dep: depmod on the unpacked copy.
    depmod -b "$dir/root" "$ver" || return 1
    [ -f "$dir/root/boot/vmlinuz-$ver" ] || { vm_log "no vmlinuz in $pkg"; return 1; }
    touch "$dir/.done"
    echo "$dir"
}

# The initramfs: busybox as /init's shell, the modules for a 9p root.  One
# per version of qa/vm/init (checkouts may differ); prints its path.
vm_initramfs() {  # dir version
    local dir=$1 ver=$2 ird m path sum
    sum=$( (cat "$TPVM_HERE/init"; echo $TPVM_MODULES) | sha256sum | cut -c1-12)
    [ -f "$dir/initramfs-$sum.gz" ] && { echo "$dir/initramfs-$sum.gz"; return 0; }
    ird=$dir/initramfs.$$
    rm -rf "$ird" && mkdir -p "$ird"/{bin,dev,proc,sys,lower,upper,newroot,mods} || return 1
    cp /bin/busybox "$ird/bin/busybox" || return 1
    ldd "$ird/bin/busybox" >/dev/null 2>&1 && { vm_log "/bin/busybox is not static"; return 1; }
    : > "$ird/mods/order"
    for m in $TPVM_MODULES; do
        path=$(modprobe -d "$dir/root" -S "$ver" --show-depends "$m" 2>/dev/null |
               awk '/^insmod/ { p = $2 } END { print p }')
        [ -n "$path" ] || { vm_log "module $m not found in $ver"; return 1; }
        cp "$path" "$ird/mods/" || return 1
        case "$path" in
            *.xz) xz -d "$ird/mods/$(basename "$path")" ;;
            *.zst) zstd -q -d --rm "$ird/mods/$(basename "$path")" ;;
        esac
        basename "${path%.xz}" | sed 's/\.zst$//' >> "$ird/mods/order"
    done
    install -m 755 "$TPVM_HERE/init" "$ird/init" || return 1
    (cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$dir/initramfs-$sum.gz.new" &&
        mv "$dir/initramfs-$sum.gz.new" "$dir/initramfs-$sum.gz" || return 1
    rm -rf "$ird"
    echo "$dir/initramfs-$sum.gz"
}

# Everything ready: packages, kernel, initramfs.  Sets VM_DIR, VM_VER, VM_INITRD.
vm_prepare() {
    vm_install_pkgs || vm_skip "cannot install $(vm_missing_pkgs)"
    command -v qemu-system-x86_64 >/dev/null || vm_skip "no qemu-system-x86_64"
    [ -f /bin/busybox ] || vm_skip "no static busybox"
    mkdir -p "$TPVM_CACHE" || vm_skip "cannot create $TPVM_CACHE"
    exec 8>"$TPVM_CACHE/.lock"
    flock 8
    VM_DIR=$(vm_fetch_kernel) || { flock -u 8; vm_skip "no Debian kernel package"; }
    VM_VER=$(basename "$VM_DIR")
    # shellcheck disable=SC2034   # qa/vm/run's
    VM_INITRD=$(vm_initramfs "$VM_DIR" "$VM_VER") || { flock -u 8; vm_skip "cannot build the initramfs"; }
    flock -u 8
    exec 8>&-
}
