#!/bin/sh
# Prints the path of a Debian root made with debootstrap, making it first
# if the cache lacks it: debian-root.sh ARCH SUITE PACKAGE...
#
# Roots are kept outside the clone (WAYMARK_CACHE, /var/cache/waymark by
# default) and keyed by what they hold, so a later run on the same machine
# reuses them and a changed package list makes a new one. A root is built
# beside its final name and renamed when whole: an interrupted debootstrap
# never passes for a finished root. The packages come from the archive the
# machine's apt uses (debian-archive.sh). Foreign architectures run under
# qemu-user-static through binfmt (apt: qemu-user-static binfmt-support).
set -eu
arch=$1 suite=$2; shift 2
cache=${WAYMARK_CACHE:-/var/cache/waymark}
packages=$(printf '%s\n' "$@" | sort -u | tr '\n' ',' | sed 's/,$//')
key=$(printf '%s %s %s' "$arch" "$suite" "$packages" | sha256sum | cut -c1-12)
root=$cache/root-$suite-$arch-$key
if [ -e "$root/.complete" ]; then echo "$root"; exit 0; fi

mkdir -p "$cache"
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
    # binfmt_misc may not be mounted in a container or a fresh CI machine.
    # Roots are made side by side, so another may mount it first.
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null \
        || [ -e /proc/sys/fs/binfmt_misc/register ]
    update-binfmts --enable "qemu-$(echo "$arch" | sed 's/arm64/aarch64/')" >/dev/null 2>&1 || true
fi
rm -rf "$root.partial"
log=$cache/root-$suite-$arch-$key.log
archive=$("$(dirname "$0")/debian-archive.sh")
if ! debootstrap --arch="$arch" --variant=minbase --include="$packages" \
        "$suite" "$root.partial" "$archive" >"$log" 2>&1; then
    echo "debootstrap of $suite/$arch failed; the last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi
echo "$packages" > "$root.partial/.packages"
touch "$root.partial/.complete"
mv "$root.partial" "$root"
echo "$root"
