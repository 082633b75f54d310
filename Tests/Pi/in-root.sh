#!/bin/sh
# Runs a command inside a Debian root: in-root.sh ROOT SOURCE COMMAND...
# The root gets /proc (swift dies with signal 5 under qemu-user without
# it), /dev, /sys, a private /tmp, and SOURCE bound at /src. Everything is
# mounted in a mount namespace of its own, so nothing is left mounted when
# the command ends, however it ends.
set -eu
root=$1 source=$2; shift 2
exec unshare --mount --propagation private /bin/sh -euc '
root=$1 source=$2; shift 2
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys"
mount -t tmpfs tmpfs "$root/tmp"
mkdir -p "$root/src"
mount --bind "$source" "$root/src"
exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin "$@"
' in-root "$root" "$source" "$@"
