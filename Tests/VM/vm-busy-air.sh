# Busy air, sourced by vm-job.sh once the first scenario is done: hci0 is
# the car's beacon and hci1 is noise whose data changes every second, so the
# air is never silent. One gateway per scan mode runs at once, each on its
# own controller, from the shipped default config (BeaconLostTimeout and
# ReopenWindow shortened; see busy-*.conf): active (ScanMode = active, on
# hci2), mgmt (auto with CAP_NET_ADMIN as an ambient capability, as the unit
# grants it; hci3) and passive (auto without it, bluetoothd offering
# advertisement monitors; hci6). Each mode's scan has its own controller too:
# hci4, hci5 and hci7.
#
# btvirt sends a scanner an advertiser's report only when one of the two
# enables its scan or advertising, within microseconds of the scanner's
# enable; the kernel drops reports that arrive before it marks discovery as
# started (btmon showed 38 of 88 cycles lost so). A real beacon is heard at
# its next advertising event instead. So here the beacon re-enables its
# advertising 2.5 times a second, one "advertising event" each time. btvirt has
# no duplicate filter to model (it ignores the enable's filter_dup), so
# discovery cycling itself is proven by the first scenario, where the
# beacon advertises once.
IN_RANGE=${IN_RANGE:-180}
now() { date +%s.%N; }
caps="--inh-caps +net_admin --ambient-caps +net_admin"
as_waymark() { setpriv --reuid=waymark --regid=waymark --init-groups "$@"; }

step "busy air: the beacon advertises 2.5 times a second"
btmgmt --index 0 rm-adv 3 >> /job/btmgmt.log 2>&1
pulse 0 3 "$ADVERT" -c -g
beacon=$!

step "busy air: noise on hci1, data changing every second"
noise 1
noise=$!

modes="active mgmt passive"
for mode in $modes; do
    mkdir -p /var/lib/waymark-$mode && cp -a /var/lib/busy-template/. /var/lib/waymark-$mode/
    chown -R waymark:waymark /var/lib/waymark-$mode && chmod 700 /var/lib/waymark-$mode
done
# The active gateway captures what it hears; the host replays it and
# compares with what this run recorded after the template's last sample.
sqlite3 -readonly /var/lib/busy-template/waymark.db "SELECT coalesce(max(seq), 0) FROM outbox" > /job/busy-template-seq 2>&1
now > /job/busy-started
step "busy air: a gateway in each mode for $IN_RANGE s in range"
# setpriv execs the gateway, so these PIDs are the gateways' own.
setpriv --reuid=waymark --regid=waymark --init-groups /job/waymark --config /job/busy-active.conf --data-dir /var/lib/waymark-active \
    run > /job/busy-active.log 2>&1 &
active=$!
setpriv --reuid=waymark --regid=waymark --init-groups $caps /job/waymark --config /job/busy-mgmt.conf --data-dir /var/lib/waymark-mgmt \
    run > /job/busy-mgmt.log 2>&1 &
mgmt=$!
setpriv --reuid=waymark --regid=waymark --init-groups /job/waymark --config /job/busy-passive.conf --data-dir /var/lib/waymark-passive \
    run > /job/busy-passive.log 2>&1 &
passive=$!
sleep 10
# One after the other: the emulated machine has two slow cores.
step "busy air: scan --json --duration 60 in active mode"
timeout 90 setpriv --reuid=waymark --regid=waymark --init-groups /job/waymark --config /job/scan-active.conf --data-dir /var/lib/waymark \
    scan --json --duration 60 > /job/busy-scan-active.ndjson 2> /job/busy-scan-active.log
step "busy air: scan --json --duration 60 in mgmt mode"
# btmon shows what the kernel sent on the management channel for hci5.
btmon -i hci5 > /job/btmon-hci5.txt 2>&1 &
btmon=$!
timeout 90 setpriv --reuid=waymark --regid=waymark --init-groups $caps /job/waymark --config /job/scan-mgmt.conf --data-dir /var/lib/waymark \
    scan --json --duration 60 > /job/busy-scan-mgmt.ndjson 2> /job/busy-scan-mgmt.log
kill $btmon
step "busy air: scan --json --duration 60 in passive mode"
timeout 90 setpriv --reuid=waymark --regid=waymark --init-groups /job/waymark --config /job/scan-passive.conf --data-dir /var/lib/waymark \
    scan --json --duration 60 > /job/busy-scan-passive.ndjson 2> /job/busy-scan-passive.log
started=$(cat /job/busy-started)
sleep $(awk -v s="$started" -v n="$(now)" -v r="$IN_RANGE" 'BEGIN { d = s + r - n; print (d > 0 ? d : 0) }')
as_waymark /job/waymark --config /job/busy-active.conf --data-dir /var/lib/waymark-active status --json > /job/busy-status.json 2>&1
for mode in $modes; do
    as_waymark /job/waymark --config /job/busy-$mode.conf --data-dir /var/lib/waymark-$mode trips --json > /job/busy-$mode-trips-in-range.json 2>&1
done

step "busy air: the beacon stops"
unpulse 0 $beacon 3
now > /job/busy-beacon-stopped
stopped=$(cat /job/busy-beacon-stopped)
for mode in $modes; do
    if wait_for 90 grep -q "trip .* ended" /job/busy-$mode.log; then
        awk -v s="$stopped" -v n="$(now)" 'BEGIN { printf "%.1f\n", n - s }' > /job/busy-$mode-ended-after
    fi
done
unpulse 1 $noise 1
kill -TERM $active $mgmt $passive
wait $active $mgmt $passive
for mode in $modes; do
    sqlite3 -readonly /var/lib/waymark-$mode/waymark.db "SELECT time FROM outbox WHERE kind = 'beacon' ORDER BY time" \
        > /job/busy-$mode-beacon-samples 2>&1
done
sqlite3 -readonly -separator ' ' /var/lib/waymark-active/waymark.db \
    "SELECT kind, count(*) FROM outbox WHERE seq > $(cat /job/busy-template-seq) GROUP BY kind" > /job/busy-active-kinds 2>&1
as_waymark /job/waymark --config /job/busy-active.conf --data-dir /var/lib/waymark-active trips --json > /job/busy-active-trips.json 2>&1
cp -r /var/lib/waymark-active/capture /job/busy-active-capture
