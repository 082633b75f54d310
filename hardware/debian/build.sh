#!/bin/sh
# make deb: waymark_VERSION_amd64.deb for Debian 12 (Swift 6.3 from
# swift.org, this machine's) and waymark_VERSION_arm64.deb for Debian 13 and
# Raspberry Pi OS trixie (Debian's swiftlang 6.0.3), into OUTDIR.
#   build.sh OUTDIR [amd64] [arm64]
#
# The arm64 binary is compiled by trixie's own swiftlang 6.0.3 (its amd64
# build, run natively) for aarch64, against a trixie arm64 root as its
# sysroot: Debian's compiler, Debian's aarch64 Swift runtime and libraries,
# nothing from outside Debian. Compiling under qemu-user inside the arm64
# root instead (WAYMARK_ARM64_BUILD=emulated) makes the same binary in
# 33 minutes here instead of 3. Roots and the arm64 build are cached outside the
# clone (WAYMARK_CACHE).
set -eu
out=$1; shift
arches=${*:-amd64 arm64}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
pi=$top/Tests/Pi
. "$pi/roots.sh"
version=$("$here/version.sh")
cache=${WAYMARK_CACHE:-/var/cache/waymark}
# A fresh machine has no cache yet: make deb must not need make test-pi first.
mkdir -p "$cache"
step() { printf '%s… ' "$1"; started=$(date +%s); }
done_() { echo "done in $(( $(date +%s) - started )) s"; }

for arch in $arches; do
    case $arch in
    amd64)
        step "building the release binary for amd64 with $(swift --version 2>&1 | head -n 1)"
        (cd "$top" && swift build -c release --product waymark > "$cache/build-amd64.log" 2>&1) || { echo failed; tail -n 30 "$cache/build-amd64.log"; exit 1; }
        done_
        "$here/package.sh" amd64 "$version" "$top/.build/release/waymark" "$out"
        ;;
    arm64)
        "$pi/make-roots.sh"
        arm=$("$pi/debian-root.sh" arm64 trixie $ARM64_BUILD_PACKAGES)
        scratch=$cache/build-arm64
        mkdir -p "$scratch"
        if [ "${WAYMARK_ARM64_BUILD:-cross}" = emulated ]; then
            step "building the release binary for arm64 under qemu-user with trixie's swiftlang"
            "$pi/in-root.sh" --bind "$top:/src" --bind "$scratch:/build" "$arm" \
                swift build --package-path /src --scratch-path /build -c release --product waymark \
                > "$cache/build-arm64.log" 2>&1 || { echo failed; tail -n 30 "$cache/build-arm64.log"; exit 1; }
            binary=$scratch/release/waymark
        else
            compiler=$("$pi/debian-root.sh" amd64 trixie $BUILD_PACKAGES)
            step "building the release binary for arm64 with trixie's swiftlang against the arm64 root"
            "$pi/in-root.sh" --bind "$top:/src" --bind "$arm:/sysroot" --bind "$scratch:/build" "$compiler" \
                env PKG_CONFIG_SYSROOT_DIR=/sysroot \
                PKG_CONFIG_PATH=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig \
                swift build --package-path /src --scratch-path /build -c release --product waymark \
                --triple aarch64-unknown-linux-gnu --sdk /sysroot -Xswiftc -sdk -Xswiftc /sysroot \
                -Xswiftc -resource-dir -Xswiftc /sysroot/usr/libexec/swift/lib/swift_static \
                > "$cache/build-arm64.log" 2>&1 || { echo failed; tail -n 30 "$cache/build-arm64.log"; exit 1; }
            binary=$scratch/aarch64-unknown-linux-gnu/release/waymark
        fi
        done_
        "$here/package.sh" arm64 "$version" "$binary" "$out" "$arm"
        ;;
    *) echo "build.sh: no such architecture: $arch" >&2; exit 64 ;;
    esac
done
