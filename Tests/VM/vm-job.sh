#!/bin/sh
# The scenario inside the real-BlueZ VM, run by vm-init after switch_root.
# The host put in /job: waymark (its build), waymark.conf, data/ (a store
# with a logged-in session) and job.env. Each step's output is kept in /job;
# progress goes to the serial console. The exit code goes to /job/exit-code.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
. /job/job.env

step() { echo "vm-job: $*"; }
finish() {
    echo "$1" > /job/exit-code
    step "done: $2"
    echo "WAYMARK-VM-DONE $1"
    sync
    busybox poweroff -f
}
# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
    limit=$1; shift
    for _ in $(seq $((limit * 4))); do
        "$@" > /dev/null 2>&1 && return 0
        sleep 0.25
    done
    return 1
}

# Re-enables advertising instance $2 of controller $1 with data $3 (and the
# add-adv flags after it) about twice a second, in the background ($! is
# its PID): btvirt reports an advertiser to scanners only when it enables
# its advertising, where a real one is heard at every advertising event.
pulse() {
    index=$1 instance=$2 data=$3
    shift 3
    rm -f /run/pulse-$index.stop
    (
        while [ ! -e /run/pulse-$index.stop ]; do
            btmgmt --index "$index" rm-adv "$instance" > /dev/null 2>&1
            btmgmt --index "$index" add-adv "$@" -d "$data" "$instance" > /dev/null 2>&1
            sleep 0.1
        done
    ) &
}
# Stops the pulse of controller $1 (PID $2) after its current round, then
# removes instance $3: btvirt keeps an advertiser advertising, even powered
# off, until its instance is removed.
unpulse() {
    touch /run/pulse-$1.stop
    wait "$2" 2> /dev/null
    btmgmt --index "$1" rm-adv "$3" >> /job/btmgmt.log 2>&1
}

mount -t devpts devpts /dev/pts 2> /dev/null
step "kernel $(uname -r); loading hci_vhci and the crypto bluetoothd needs"
modprobe -a hci_vhci af_alg algif_hash algif_skcipher cmac ecb ecdh_generic || finish 10 "modprobe failed"
# Creating the ecb(aes) and cmac(aes) instances up front: left to load on
# demand under emulation, hci0's reset times out about two times in three.
python3 -c '
import socket
for kind, name in (("skcipher", "ecb(aes)"), ("hash", "cmac(aes)")):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)
    s.bind((kind, name))
    s.close()
' || finish 11 "AF_ALG instances failed"

# The gateway runs as it does on the Pi: as user waymark, allowed onto the
# bus by hardware/io.waymark.Gateway1.conf.
echo 'waymark:x:990:990:Waymark gateway:/var/lib/waymark:/usr/sbin/nologin' >> /etc/passwd
echo 'waymark:x:990:' >> /etc/group
cp /job/io.waymark.Gateway1.conf /etc/dbus-1/system.d/
mkdir -p /run/dbus
dbus-daemon --system --fork --nopidfile || finish 12 "dbus-daemon failed"
# hci0 is the car's beacon and hci1 the noise; hci2 scans for the first
# scenario, then hci2 to hci7 each belong to one busy-air gateway or scan:
# two BlueZ clients discovering on one adapter would share one scan, and
# one client's discovery cycle would not clear the controller's list.
step "btvirt: eight LE controllers on one virtual link"
btvirt -L -l8 > /job/btvirt.log 2>&1 &
wait_for 90 test -e /sys/class/bluetooth/hci7 || finish 13 "the virtual controllers never appeared"
# --experimental, as the README's drop-in sets it: it offers the
# advertisement monitors passive scanning needs.
step "bluetoothd $(/usr/libexec/bluetooth/bluetoothd --version) --experimental"
/usr/libexec/bluetooth/bluetoothd -n -d --experimental > /job/bluetoothd.log 2>&1 &
wait_for 90 busctl --system introspect org.bluez /org/bluez/hci7 || finish 14 "bluetoothd never showed hci7"

step "hci0 advertises the iBeacon"
btmgmt --index 0 power on > /job/btmgmt.log 2>&1
btmgmt --index 0 add-adv -c -g -d "$ADVERT" 3 >> /job/btmgmt.log 2>&1 || finish 15 "add-adv failed"

# The store is copied off 9p: SQLite's WAL needs shared memory mappings.
mkdir -p /var/lib/waymark /etc/waymark && cp -a /job/data/. /var/lib/waymark/ && chmod 700 /var/lib/waymark
install -m 0600 /job/client-secret /etc/waymark/client-secret
chown -R waymark:waymark /var/lib/waymark /etc/waymark
mkfifo -m 0660 /run/waymark-gps
chgrp waymark /run/waymark-gps
exec 3<> /run/waymark-gps
w="setpriv --reuid=waymark --regid=waymark --init-groups /job/waymark --config /job/waymark.conf --data-dir /var/lib/waymark"
w() { $w "$@"; }

step "waymark doctor"
# It fails on location (a silent receiver, no fix) and the unreachable backend.
timeout 60 $w doctor --json > /job/doctor.json 2> /job/doctor.log
[ $? -eq 124 ] && finish 18 "waymark doctor hung"
step "waymark scan on hci2"
timeout 60 $w scan --json --duration 10 > /job/scan.ndjson 2> /job/scan.log
step "waymark pair --strongest"
w pair --strongest --role vehicle --label car --within 20 > /job/pair.log 2>&1 || finish 16 "pairing failed"
w beacons --json > /job/beacons.json 2>> /job/pair.log
# The busy-air gateways start from this store: logged in, the beacon paired.
cp -a /var/lib/waymark /var/lib/busy-template

step "waymark run"
$w run > /job/run.log 2>&1 &
daemon=$!
wait_for 90 grep -q "trip .* started" /job/run.log || { kill $daemon; finish 17 "no trip started"; }
w status > /job/status.txt 2>&1
w trips --json > /job/trips.json 2>&1
kill -TERM $daemon
wait $daemon
echo $? > /job/run-exit

. /job/vm-busy-air.sh
. /job/vm-private-address.sh
. /job/vm-failover.sh
finish 0 "a trip started on the paired beacon; busy air ran in every mode; the private-address phone was followed; failover ran"
