#!/bin/sh
# Builds the initramfs for the real-BlueZ VM: busybox-static, the virtio,
# 9p and overlay modules of the installed Debian kernel, and vm-init as /init.
# Usage: make-initramfs.sh KERNEL_VERSION OUT.cpio.gz
set -eu
version=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/modules" "$root/proc" "$root/sys" "$root/dev" "$root/host" "$root/upper" "$root/newroot"
cp /bin/busybox "$root/bin/busybox"
for applet in sh mount mkdir insmod switch_root poweroff echo cat sleep; do ln -s busybox "$root/bin/$applet"; done
cp "$here/vm-init" "$root/init"
chmod 0755 "$root/init"

# Each module after its dependencies, in the order modprobe would load them.
: > "$root/modules/order"
for module in virtio_pci 9pnet_virtio 9p overlay; do
    modprobe --show-depends -S "$version" "$module" | while read -r verb path _; do
        [ "$verb" = insmod ] || continue
        name=$(basename "$path")
        grep -qx "$name" "$root/modules/order" && continue
        cp "$path" "$root/modules/$name"
        echo "$name" >> "$root/modules/order"
    done
done

(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
