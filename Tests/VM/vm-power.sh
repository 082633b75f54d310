#!/bin/sh
# One boot of the power-cut test (Tests/PowerTests), run by vm-init as the
# VM's only task. The store is on a virtio disk of its own (/dev/vda, ext4;
# QEMU's cache=none passes the guest's flushes to the image). The host
# checks that disk after each cut, and cuts the power (QEMU killed -9) at a
# moment it picks from the logs here; nothing in this script knows when.
# /job/boot is this boot's number, /job/phase what it drives:
#   commit, upload, refresh (and write-log, for the replay test): the daemon
#     records, uploads in small batches and refreshes a short-lived session
#     all the time here;
#   pairing: `waymark pair` and `unpair` in a loop beside the daemon;
#   capture: the daemon's capture rotates every few kilobytes;
#   migration: the daemon armed again on its store is stopped, and a daemon
#     starts on a store the previous release wrote (a fresh copy, upgraded-N);
#   final: armed again, then a clean power-off.
. /job/vm-lib.sh
. /job/job.env
# Progress with the guest's uptime, for the boot's cost.
step() { echo "vm-job: $(cut -d' ' -f1 /proc/uptime) $*"; }
boot=$(cat /job/boot)
phase=$(cat /job/phase)
log=/job/run-$boot.log
mark() { file=$1; shift; echo "power-test: $*" >> "$file"; }

step "power test: boot $boot, phase $phase"
modprobe -a virtio_blk virtio_net ext4 || finish 20 "modprobe failed"
wait_for 30 test -b /dev/vda || finish 21 "no store disk"
mkdir -p /var/lib/waymark
mount -t ext4 /dev/vda /var/lib/waymark || finish 22 "the store's disk did not mount"

# The host's glewlwyd and ingest, on the guest's loopback at their own ports.
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
for port in $OIDC_PORT $INGEST_PORT; do
    socat "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" "TCP:10.0.2.100:$port" &
done

step "the store's disk is mounted and the network up"
start_system_bus
chown -R waymark:waymark /var/lib/waymark
mkdir -p /etc/waymark
install -m 0600 -o waymark -g waymark /job/client-secret /etc/waymark/client-secret

# A receiver at 5 Hz with the time of day, creeping north: RMC and GGA
# through a FIFO opened read-write, so the daemon may come and go.
mkfifo -m 0660 /run/waymark-gps
chgrp waymark /run/waymark-gps
python3 -u -c '
import os, time
def sentence(body):
    check = 0
    for c in body.encode(): check ^= c
    return "$%s*%02X\r\n" % (body, check)
fifo = os.open("/run/waymark-gps", os.O_RDWR)
step = 0
while True:
    now = time.gmtime()
    clock = time.strftime("%H%M%S", now) + ".%02d" % int((time.time() % 1) * 100)
    day = time.strftime("%d%m%y", now)
    north = "4813.%04d" % (500 + step % 9000)
    os.write(fifo, (sentence("GPRMC,%s,A,%s,N,00824.8697,E,12.0,0.0,%s,,,A" % (clock, north, day))
                    + sentence("GPGGA,%s,%s,N,00824.8697,E,1,08,1.0,765.8,M,47.4,M,," % (clock, north))).encode())
    step += 1
    time.sleep(0.2)
' &

w="setpriv --reuid=waymark --regid=waymark --init-groups /job/waymark --config /job/waymark.conf"
data=/var/lib/waymark/data
step "starting the daemon"
# The daemon starts before the controllers, as on a Pi whose bluetoothd
# is slower to come up: it arms once the adapter appears.
$w --data-dir $data run >> "$log" 2>&1 &
daemon=$!
start_controllers 2
btmgmt --index 0 power on >> /job/btmgmt.log 2>&1
pulse 0 3 "$ADVERT" -c -g
wait_for 180 grep -q "recording: running" "$log" || finish 23 "the daemon did not arm"
cut -d' ' -f1 /proc/uptime > "/job/armed-$boot"
step "armed"

case $phase in
pairing)
    i=0
    while :; do
        i=$((i + 1))
        address=$(printf 'C0:FF:EE:00:%02X:%02X' $((i / 256 % 256)) $((i % 256)))
        mark "$log" "pair $address"
        $w --data-dir $data pair --address "$address" --role sensor --label "tag $i" >> /job/pairing-$boot.log 2>&1
        id=$($w --data-dir $data beacons --json | python3 -c 'import json, sys; print(max(p["id"] for p in json.load(sys.stdin)))')
        mark "$log" "unpair $id"
        [ "$id" -gt 1 ] && $w --data-dir $data unpair "$id" >> /job/pairing-$boot.log 2>&1
    done
    ;;
migration)
    kill -TERM $daemon
    wait $daemon
    upgraded=/var/lib/waymark/upgraded-$boot
    mkdir -m 0700 $upgraded
    cp /job/store-schema10.db $upgraded/waymark.db
    chown -R waymark:waymark $upgraded
    mark "/job/upgrade-$boot.log" "starting on the previous release's store"
    $w --data-dir $upgraded run >> "/job/upgrade-$boot.log" 2>&1 &
    ;;
final)
    kill -TERM $daemon
    wait $daemon
    umount /var/lib/waymark
    finish 0 "armed again after the last cut"
    ;;
esac
echo "power-test: waiting for the cut"
sleep 100000
