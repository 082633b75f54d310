#!/bin/sh
# The scenario inside the real-BlueZ VM, run by vm-init after switch_root.
# The host put in /job: waymark (its build), waymark.conf, data/ (a store
# with a logged-in session) and job.env. Each step's output is kept in /job;
# progress goes to the serial console. The exit code goes to /job/exit-code.
. /job/vm-lib.sh
. /job/job.env

# hci0 is the car's beacon and hci1 the noise; hci2 scans for the first
# scenario, then hci2 to hci7 each belong to one busy-air gateway or scan:
# two BlueZ clients discovering on one adapter would share one scan, and
# one client's discovery cycle would not clear the controller's list.
# --experimental, as the README's drop-in sets it: it offers the
# advertisement monitors passive scanning needs.
start_bluetooth 8 --experimental

step "hci0 advertises the iBeacon"
btmgmt --index 0 power on > /job/btmgmt.log 2>&1
pulse 0 3 "$ADVERT" -c -g
car_beacon=$!

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
. /job/vm-stock.sh
finish 0 "a trip started on the paired beacon; busy air ran in every mode; the private-address phone was followed; failover ran; stock bluetoothd's air was heard"
