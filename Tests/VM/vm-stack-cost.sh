#!/bin/sh
# What each process of the stack costs per advert, run by vm-init as the
# VM's job (copied in as vm-job.sh) for `waymark-bench --vm-stack-only`.
# hci0 pulses the car's iBeacon and hci1 is noise; on hci2, three receivers
# hear the same air at once:
#  - Waymark's scanner as the daemon runs it (`waymark-bench
#    --receive-adverts`, as root, so `auto` picks mgmt), reading adverts
#    from the kernel's management channel, each sighting to a handler;
#  - `waymark scan --json` (auto, with CAP_NET_ADMIN as the unit grants
#    it), which also decodes each sighting and prints it as JSON;
#  - a dbus-fast receiver doing what bleak does: discovery on hci2, every
#    Device1 PropertiesChanged and InterfacesAdded merged into a dict.
# Each writes a line per advert with its time and stops on its own. Over a
# window of $WINDOW seconds in the middle, the job takes each process's CPU
# time (utime + stime from /proc/PID/stat, in ticks of 1/100 s); the bench
# counts each receiver's adverts inside the window from their times.
# /job/stack-before and stack-after: `start|end TIME` then `name ticks` lines.
. /job/vm-lib.sh
. /job/job.env

start_bluetooth 3 $BLUETOOTHD_FLAGS
btmgmt --index 0 power on > /job/btmgmt.log 2>&1
pulse 0 3 "$ADVERT" -c -g
beacon=$!
noise 1
noisy=$!

mkdir -p /var/lib/waymark && chown waymark:waymark /var/lib/waymark && chmod 700 /var/lib/waymark
step "receivers on hci2: Waymark's scanner, waymark scan and a dbus-fast receiver"
/job/waymark-bench --receive-adverts hci2 $((WINDOW + 40)) > /job/stack-scanner.txt 2> /job/stack-scanner.log &
scanner=$!
setpriv --reuid=waymark --regid=waymark --init-groups --inh-caps +net_admin --ambient-caps +net_admin \
    /job/waymark --config /job/stack.conf --data-dir /var/lib/waymark scan --json --duration $((WINDOW + 40)) \
    > /job/stack-scan.ndjson 2> /job/stack-scan.log &
scan=$!
"$PYTHON" "$RECEIVER" /org/bluez/hci2 $((WINDOW + 40)) > /job/stack-fast.txt 2> /job/stack-fast.log &
fast=$!
# Both running before the window opens.
wait_for 60 grep -q "receiving in" /job/stack-scanner.log || finish 22 "the scanner did not start: $(tail -3 /job/stack-scanner.log)"
wait_for 60 grep -q "scanning in" /job/stack-scan.log || finish 20 "waymark scan did not start: $(tail -3 /job/stack-scan.log)"
wait_for 60 grep -q "discovering" /job/stack-fast.log || finish 21 "the dbus-fast receiver did not start: $(tail -3 /job/stack-fast.log)"
sleep 10

ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
bluetoothd=$(pidof bluetoothd)
daemon=$(pidof dbus-daemon)
snapshot() {
    echo "$1 $(date +%s.%N)"
    echo "scanner $(ticks $scanner)"
    echo "scan $(ticks $scan)"
    echo "dbus-fast $(ticks $fast)"
    echo "bluetoothd $(ticks $bluetoothd)"
    echo "dbus-daemon $(ticks $daemon)"
}
step "a window of $WINDOW s"
snapshot start > /job/stack-before
sleep "$WINDOW"
snapshot end > /job/stack-after
step "the receivers finish and write out what they heard"
wait $scanner $scan $fast
touch /run/pulse-0.stop
kill $noisy
finish 0 "the window is measured"
