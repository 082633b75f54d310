#!/bin/sh
# Prints a folder holding the virtual Pi's boot files (vmlinuz, initrd.img)
# and its disk (disk.img, ext4), making them first if the cache lacks them.
# The disk is a trixie arm64 root (roots.sh's PI_PACKAGES) with:
# - the network on QEMU's user-mode net, addressed statically, nothing
#   routed beyond it;
# - the host's job folder mounted at /job over 9p, and
#   waymark-pi-job.service, which runs /job/pi-job.sh once systemd is up;
# - gpsd reading the virtio serial port the host feeds NMEA into;
# - hci_vhci, which Debian's arm64 kernel lacks, built from Debian's kernel
#   source (linux-source) in the arm64 build root, for the virtual
#   controller (Tests/VM/vhci-air.py).
# Nothing else of the image is changed: Waymark comes as its package.
set -eu
pi=$(cd "$(dirname "$0")" && pwd)
. "$pi/roots.sh"
cache=${WAYMARK_CACHE:-/var/cache/waymark}
root=$("$pi/debian-root.sh" arm64 trixie $PI_PACKAGES)
kmod=$("$pi/debian-root.sh" arm64 trixie $ARM64_BUILD_PACKAGES)
key=$( (cat "$0" "$root/.packages" "$kmod/.packages"; echo "$root $kmod") | sha256sum | cut -c1-12)
image=$cache/pi-image-$key
if [ -e "$image/.complete" ]; then echo "$image"; exit 0; fi

rm -rf "$image.partial"
mkdir -p "$image.partial"
work=$image.partial/root
cp -a "$root" "$work"
rm -f "$work/.complete" "$work/.packages"
echo waymark-pi > "$work/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 waymark-pi\n' > "$work/etc/hosts"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\njob /job 9p trans=virtio,version=9p2000.L,msize=262144,nofail 0 0\n' > "$work/etc/fstab"
mkdir -p "$work/job"
# The guest's console: no login prompt is needed; the job reports there.
sed -i "s|^root:[^:]*:|root:*:|" "$work/etc/shadow"
printf '[Match]\nName=en* eth*\n\n[Network]\nAddress=10.0.2.15/24\n' > "$work/etc/systemd/network/10-qemu.network"
ln -sf /usr/lib/systemd/system/systemd-networkd.service "$work/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"

cat > "$work/etc/systemd/system/waymark-pi-job.service" <<'UNIT'
[Unit]
Description=The virtual Pi's test job (/job/pi-job.sh)
After=multi-user.target
RequiresMountsFor=/job

[Service]
Type=oneshot
ExecStart=/bin/sh /job/pi-job.sh
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/waymark-pi-job.service "$work/etc/systemd/system/multi-user.target.wants/waymark-pi-job.service"

# gpsd on the virtio serial port named gps0, as a receiver on a UART would be.
printf 'START_DAEMON="true"\nUSBAUTO="false"\nDEVICES="/dev/virtio-ports/gps0"\nGPSD_OPTIONS="-n"\n' > "$work/etc/default/gpsd"
ln -sf /usr/lib/systemd/system/gpsd.service "$work/etc/systemd/system/multi-user.target.wants/gpsd.service"

kernel=$(ls "$work/lib/modules")
[ -d "$kmod/lib/modules/$kernel/build" ] || { echo "the headers in $kmod are not for kernel $kernel" >&2; exit 1; }
rm -rf "$kmod/build-vhci"
mkdir -p "$kmod/build-vhci"
tar -xJf "$kmod"/usr/src/linux-source-*.tar.xz -C "$kmod/build-vhci" --strip-components=3 --wildcards '*/drivers/bluetooth/hci_vhci.c'
echo 'obj-m := hci_vhci.o' > "$kmod/build-vhci/Kbuild"
"$pi/in-root.sh" "$kmod" make -C "/lib/modules/$kernel/build" M=/build-vhci modules > "$image.partial/hci_vhci.log" 2>&1 \
    || { tail -n 20 "$image.partial/hci_vhci.log" >&2; exit 1; }
install -D -m 0644 "$kmod/build-vhci/hci_vhci.ko" "$work/lib/modules/$kernel/updates/hci_vhci.ko"
depmod -b "$work" "$kernel"

cp "$work"/boot/vmlinuz-* "$image.partial/vmlinuz"
cp "$work"/boot/initrd.img-* "$image.partial/initrd.img"
size=$(( $(du -sm "$work" | cut -f1) + 768 ))
mkfs.ext4 -q -F -L waymark-pi -d "$work" "$image.partial/disk.img" "${size}M" > /dev/null
rm -rf "$work"
touch "$image.partial/.complete"
mv "$image.partial" "$image"
echo "$image"
