#!/bin/sh
# Build the Debian package pcp-pmda-tracepoint with dpkg-buildpackage, in a
# copy of the source tree under OUT (so nothing is written into the tree or
# beside it), and leave the .deb in OUT.  Installs dpkg-dev, debhelper and
# the package's build dependencies first when they are missing (as root).
# Usage: scripts/deb.sh OUT
set -eu

mkdir -p "$1"
out=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog")
src=$out/src/pcp-pmda-tracepoint-$version

log() { echo "deb: $*"; }

# The tree as git sees it (tracked and new files, not what .gitignore
# names), or all of it but the build output when it is no git checkout.
copy_tree() {
    rm -rf "$out/src"
    mkdir -p "$src"
    if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$top" ls-files -z -c -o --exclude-standard \
            | (cd "$top" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh) \
            | tar -C "$top" -cf - -T - | tar -C "$src" -xf -
    else
        tar -C "$top" --exclude=./.git --exclude=./build --exclude='./build-*' \
            --exclude=./help.dir --exclude=./help.pag -cf - . | tar -C "$src" -xf -
    fi
}

install_deps() {
    if command -v dpkg-buildpackage >/dev/null 2>&1 && command -v dh >/dev/null 2>&1 &&
       (cd "$src" && dpkg-checkbuilddeps) >/dev/null 2>&1; then
        return 0
    fi
    [ "$(id -u)" = 0 ] || { log "run as root to install dpkg-dev, debhelper and the build dependencies"; exit 1; }
    log "installing dpkg-dev, debhelper and the build dependencies"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends dpkg-dev debhelper >/dev/null
    apt-get build-dep -y -qq "$src" >/dev/null
}

copy_tree
install_deps
log "building $version in $src"
(cd "$src" && dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1 \
    || { tail -30 "$out/build.log"; log "failed: see $out/build.log"; exit 1; }
# dpkg-buildpackage writes beside the copy, i.e. into $out/src: bring the
# results up into $out.
mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out"/
rm -rf "$out/src"
log "$(ls "$out"/pcp-pmda-tracepoint_"$version"_*.deb)"
