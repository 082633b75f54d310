#!/bin/sh
# Runs a command inside a Debian root:
#   in-root.sh [--bind HOST_DIR:ROOT_DIR]... ROOT COMMAND...
# The root gets /proc (swift dies with signal 5 under qemu-user without
# it), /dev, /sys, a private /tmp, and each HOST_DIR bound at ROOT_DIR.
# Everything is mounted in a mount namespace of its own, so nothing is left
# mounted when the command ends, however it ends.
set -eu
binds=""
while [ "$1" = --bind ]; do binds="$binds $2"; shift 2; done
root=$1; shift
exec unshare --mount --propagation private /bin/sh -euc '
root=$1 binds=$2; shift 2
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys"
mount -t tmpfs tmpfs "$root/tmp"
for bind in $binds; do
    mkdir -p "$root/${bind#*:}"
    mount --bind "${bind%%:*}" "$root/${bind#*:}"
done
exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin "$@"
' in-root "$root" "$binds" "$@"
