# Adapter failover, sourced by vm-job.sh last: a gateway with no adapter
# named has hci4 and hci5 to choose from (the others are off, but for hci7,
# which now pulses the car's beacon). It takes hci4, the first; then hci4 is
# powered off (btmgmt power off) and does not come back, and scanning must
# move to hci5 within 2 s, with the trip still open. Then its radio is
# made to hear nothing (below).
step "failover: hci0 to hci3 and hci6 off; hci7 is the beacon"
for index in 0 1 2 3 6; do btmgmt --index $index power off >> /job/btmgmt.log 2>&1; done
pulse 7 3 "$ADVERT" -c -g
beacon=$!
mkdir -p /var/lib/waymark-failover && cp -a /var/lib/busy-template/. /var/lib/waymark-failover/
chown -R waymark:waymark /var/lib/waymark-failover && chmod 700 /var/lib/waymark-failover
w_failover() { as_waymark /job/waymark --config /job/failover.conf --data-dir /var/lib/waymark-failover "$@"; }
now > /job/failover-started
# CAP_NET_ADMIN, as the unit grants it, for the ladder's power cycle through
# the kernel (the config keeps it in active mode all the same).
setpriv --reuid=waymark --regid=waymark --init-groups $caps /job/waymark --config /job/failover.conf --data-dir /var/lib/waymark-failover \
    run > /job/failover-run.log 2>&1 &
gateway=$!
if wait_for 90 grep -q "trip .* started" /job/failover-run.log; then
    step "failover: hci4 powered off"
    now > /job/failover-powered-off
    btmgmt --index 4 power off >> /job/btmgmt.log 2>&1
    # Polled every 50 ms: the move is timed to within that.
    for _ in $(seq 600); do
        if grep -q "scanning moved from hci4 to hci5" /job/failover-run.log; then
            awk -v s="$(cat /job/failover-powered-off)" -v n="$(now)" 'BEGIN { printf "%.2f\n", n - s }' > /job/failover-after
            break
        fi
        sleep 0.05
    done
    sleep 15
fi
w_failover trips --json > /job/failover-trips.json 2>&1
w_failover events --json > /job/failover-events.json 2>&1
sqlite3 -readonly /var/lib/waymark-failover/waymark.db "SELECT time FROM outbox WHERE kind = 'beacon' ORDER BY time" > /job/failover-beacon-samples 2>&1

# A radio that hears nothing: the beacon stops and nothing else advertises.
# The gateway (active mode, ScanWatchdog = 5s in failover.conf to keep it
# short) climbs its ladder to radioNeedsPowerCycle and keeps running; when
# the beacon is back, it records radioRecovered.
step "stuck radio: silence until the ladder ends"
unpulse 7 $beacon 3
if wait_for 90 grep -q "the radio needs a power cycle" /job/failover-run.log; then
    kill -0 $gateway 2> /dev/null && echo alive > /job/stuck-alive
    w_failover status > /job/stuck-status.txt 2>&1
    w_failover doctor --json > /job/stuck-doctor.json 2> /dev/null
    step "stuck radio: the beacon is back"
    pulse 7 3 "$ADVERT" -c -g
    beacon=$!
    wait_for 120 grep -q "adverts are back" /job/failover-run.log
    unpulse 7 $beacon 3
fi
w_failover events --json > /job/stuck-events.json 2>&1
kill -TERM $gateway
wait $gateway
echo $? > /job/stuck-exit
