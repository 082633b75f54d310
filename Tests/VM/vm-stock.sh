# bluetoothd as Debian ships it, sourced by vm-job.sh last: its unit runs
# it without --experimental, so it offers no advertisement monitors. In
# mgmt mode (auto, with CAP_NET_ADMIN as the unit grants it) Waymark adds
# its own monitor to the kernel, so the controller scans with the
# duplicate filter off: `scan` hears every advert of the car's beacon among
# 300 devices (busy air's population). A gateway's monitor stays in the
# kernel after kill -9 (the controller keeps scanning), the next start
# removes it, and a clean stop removes its own (the controller stops).
# Before that stop, bluetoothd restarts and the adapter is powered off and
# on: the controller scans on with the duplicate filter off, and the
# gateway keeps recording the beacon.
# Stops bluetoothd and starts it as Debian ships it, logging to
# /run/bluetoothd.log; the log so far is moved to $1 first, if given.
restart_bluetoothd() {
    kill $(pidof bluetoothd)
    wait_for 30 sh -c '! pidof bluetoothd'
    [ -n "${1:-}" ] && mv /run/bluetoothd.log "$1"
    /usr/libexec/bluetooth/bluetoothd -n >> /run/bluetoothd.log 2>&1 &
}

step "stock bluetoothd: restarted without --experimental"
restart_bluetoothd /job/bluetoothd-experimental.log
devices=300
air stock
sed "s/^Adapter = .*/Adapter = hci$index/" /job/scan-mgmt.conf > /run/stock.conf
chmod 644 /run/stock.conf
# A command, not a function: `timeout` runs it, and a gateway started in the
# background is then setpriv, which execs waymark ($! is the daemon's PID).
stock="setpriv --reuid=waymark --regid=waymark --init-groups $caps /job/waymark --config /run/stock.conf"

step "stock bluetoothd: doctor, and scan --json --duration 30"
timeout 60 $stock --data-dir /var/lib/waymark doctor --json > /job/stock-doctor.json 2> /job/stock-doctor.log
timeout 60 $stock --data-dir /var/lib/waymark scan --json --duration 30 > /job/stock-scan.ndjson 2> /job/stock-scan.log

step "stock bluetoothd: a gateway killed with its monitor in the kernel, then started and stopped"
mkdir -p /var/lib/waymark-stock && cp -a /var/lib/busy-template/. /var/lib/waymark-stock/
chown -R waymark:waymark /var/lib/waymark-stock && chmod 700 /var/lib/waymark-stock
$stock --data-dir /var/lib/waymark-stock run > /job/stock-run-1.log 2>&1 &
gateway=$!
wait_for 60 grep -q "added to the kernel" /job/stock-run-1.log || finish 21 "the stock gateway added no kernel monitor"
cp /var/lib/waymark-stock/kernel-monitors /job/stock-kernel-monitors 2> /dev/null
kill -KILL $gateway
wait $gateway 2> /dev/null
now > /job/stock-killed
sleep 5
now > /job/stock-restarted
$stock --data-dir /var/lib/waymark-stock run > /job/stock-run-2.log 2>&1 &
gateway=$!
wait_for 60 grep -q "added to the kernel" /job/stock-run-2.log || finish 21 "the restarted stock gateway added no kernel monitor"
sleep 3

step "stock bluetoothd: restarted, then hci$index powered off and on, under the gateway's kernel monitor"
now > /job/stock-bluetoothd-restarted
restart_bluetoothd
wait_for 90 busctl --system introspect org.bluez /org/bluez/hci$index > /dev/null || finish 21 "bluetoothd never showed hci$index again"
sleep 20
now > /job/stock-power-cycled
btmgmt --index "$index" power off >> /job/btmgmt.log 2>&1
sleep 2
btmgmt --index "$index" power on >> /job/btmgmt.log 2>&1
sleep 20
now > /job/stock-before-stop
kill -TERM $gateway
wait $gateway
echo $? > /job/stock-run-exit
now > /job/stock-stopped
ls /var/lib/waymark-stock > /job/stock-files-after
sqlite3 -readonly /var/lib/waymark-stock/waymark.db "SELECT time FROM outbox WHERE kind = 'beacon' ORDER BY time" > /job/stock-beacon-samples 2>&1
sleep 5
kill -TERM $air
wait $air 2> /dev/null
cp /run/truth-stock.log /job/
