# Busy air, sourced by vm-job.sh once the first scenario is done: the car's
# beacon, advertising steadily every 300 ms, among 300 devices on virtual
# controllers (vhci-air.py: each advertiser at its interval plus the 0-10 ms
# advDelay, noisy RSSI, scan responses, the host's duplicate filter), the
# mix of `make bench-air`: a tenth each iBeacons, Ruuvi tags, BTHome
# sensors and Eddystone beacons, three tenths phones with rotating private
# addresses, three tenths noise. Each advertises every 1.5 to 4.5 s, about
# 100 adverts a second in all: the emulated machine's two cores carry that
# through bluetoothd to a debug build of the gateway and a scan at once
# (at bench-air's intervals, about 700 a second, they do not: both lost the
# beacon). `make bench-air` measures the stack up to 1,000 devices.
#
# One mode at a time (phase, below), each on controllers of its own: a gateway from the shipped default config
# (BeaconLostTimeout and ReopenWindow shortened; see busy-*.conf) on one,
# and `scan` on another, each hearing the same population (the same seed).
# active: ScanMode = active, its discovery under the do-nothing
# advertisement monitor; mgmt: auto with CAP_NET_ADMIN as an ambient
# capability, as the unit grants it; passive: auto without it, bluetoothd
# offering advertisement monitors. After IN_RANGE s the beacon leaves the air of
# every controller (SIGUSR1), and each trip must end. The guest's CPU use
# over each phase goes to /job/busy-cpu-MODES: the busy share of both
# cores, then bluetoothd's, the gateways' (debug builds) and the virtual
# controllers' shares of one core.
IN_RANGE=${IN_RANGE:-125}
now() { date +%s.%N; }
caps="--inh-caps +net_admin --ambient-caps +net_admin"
as_waymark() { setpriv --reuid=waymark --regid=waymark --init-groups "$@"; }

# The first scenario's beacon stops: busy air is the virtual controllers'.
unpulse 0 $car_beacon 3
# The population of $1 devices around the car's beacon, in /job/busy-population-$1.json.
population() {
    tenth=$(($1 / 10))
    cat > /job/busy-population-$1.json << EOF
{"devices": [{"name": "car", "address": "C0:FF:EE:00:00:01", "interval_ms": 300, "data": "020106$ADVERT", "rssi": -60, "leaves": true}],
 "generate": {"ibeacon": $tenth, "ruuvi": $tenth, "bthome": $tenth, "eddystone": $tenth, "phone": $((3 * tenth)), "noise": $(($1 - 1 - 7 * tenth))},
 "intervals_s": [1.5, 4.5]}
EOF
}
population 300

# Starts vhci-air.py with the population, logging to /run/truth-$1.log;
# sets $air to its PID and $index to the controller's index, powered on.
air() {
    rm -f /run/truth-$1.log
    python3 /job/vhci-air.py /job/busy-population-$devices.json /run/truth-$1.log --seed 7 > /job/air-$1.log 2>&1 &
    air=$!
    wait_for 60 grep -q " index " /run/truth-$1.log || finish 19 "the virtual controller for $1 never got an index"
    index=$(awk '$2 == "index" { print $3; exit }' /run/truth-$1.log)
    wait_for 90 busctl --system introspect org.bluez /org/bluez/hci$index > /dev/null || finish 19 "bluetoothd never showed hci$index ($1)"
    btmgmt --index "$index" power on >> /job/btmgmt.log 2>&1
}

# The busy-air gateways start from the first scenario's store: logged in, the beacon paired.
sqlite3 -readonly /var/lib/busy-template/waymark.db "SELECT coalesce(max(seq), 0) FROM outbox" > /job/busy-template-seq 2>&1
for mode in active mgmt passive; do
    mkdir -p /var/lib/waymark-$mode && cp -a /var/lib/busy-template/. /var/lib/waymark-$mode/
    chown -R waymark:waymark /var/lib/waymark-$mode && chmod 700 /var/lib/waymark-$mode
done
# Grants of each mode's gateway and scan.
grant() { if [ $1 = mgmt ]; then echo "$caps"; fi; }

# CPU ticks (user + system) of the processes given.
ticks_of() {
    ticks=0
    for pid in "$@"; do ticks=$((ticks + $(awk '{ print $14 + $15 }' /proc/$pid/stat 2> /dev/null || echo 0))); done
    echo $ticks
}
# The machine's busy and total ticks, then bluetoothd's, the gateways' and the controllers'.
read_cpu() {
    awk '$1 == "cpu" { printf "%d %d ", $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat
    echo "$(ticks_of $(pidof bluetoothd)) $(ticks_of $gateways) $(ticks_of $airs)"
}

# The modes given, at once: each a gateway and a scan on controllers of
# their own, IN_RANGE s with the beacon, then its trip's end.
phase() {
    modes="$*" airs="" gateways=""
    for mode in $modes; do
        devices=300
        step "busy air, $mode: the beacon among $devices devices, a gateway and a scan each on a virtual controller"
        air busy-$mode
        airs="$airs $air"
        sed "s/^Adapter = .*/Adapter = hci$index/" /job/busy-$mode.conf > /run/busy-$mode.conf
        air scan-$mode
        airs="$airs $air"
        sed "s/^Adapter = .*/Adapter = hci$index/" /job/scan-$mode.conf > /run/scan-$mode.conf
        chmod 644 /run/busy-$mode.conf /run/scan-$mode.conf
        now > /job/busy-started-$mode
        # setpriv execs the gateway, so this PID is the gateway's own.
        setpriv --reuid=waymark --regid=waymark --init-groups $(grant $mode) /job/waymark --config /run/busy-$mode.conf \
            --data-dir /var/lib/waymark-$mode run > /job/busy-$mode.log 2>&1 &
        gateways="$gateways $!"
    done
    cpu_before=$(read_cpu)
    sleep 10
    step "busy air, $modes: scan --json --duration 60"
    scans=""
    for mode in $modes; do
        timeout 90 setpriv --reuid=waymark --regid=waymark --init-groups $(grant $mode) /job/waymark --config /run/scan-$mode.conf \
            --data-dir /var/lib/waymark scan --json --duration 60 > /job/busy-scan-$mode.ndjson 2> /job/busy-scan-$mode.log &
        scans="$scans $!"
    done
    wait $scans
    # Each gateway keeps the beacon IN_RANGE s from its own start; the last started last.
    started=$(cat /job/busy-started-$mode)
    sleep $(awk -v s="$started" -v n="$(now)" -v r="$IN_RANGE" 'BEGIN { d = s + r - n; print (d > 0 ? d : 0) }')
    for mode in $modes; do
        [ $mode = active ] && as_waymark /job/waymark --config /run/busy-$mode.conf --data-dir /var/lib/waymark-$mode status --json > /job/busy-status.json 2>&1
        as_waymark /job/waymark --config /run/busy-$mode.conf --data-dir /var/lib/waymark-$mode trips --json > /job/busy-$mode-trips-in-range.json 2>&1
    done
    echo "$cpu_before $(read_cpu)" | awk '{ t = $7 - $2; printf "%.2f %.2f %.2f %.2f\n", ($6 - $1) / t, 2 * ($8 - $3) / t, 2 * ($9 - $4) / t, 2 * ($10 - $5) / t }' \
        > /job/busy-cpu-$(echo $modes | tr ' ' -)

    step "busy air, $modes: the beacon leaves"
    kill -USR1 $airs
    stopped=$(now)
    watchers=""
    for mode in $modes; do
        echo $stopped > /job/busy-beacon-stopped-$mode
        # Each gateway's trip end is timed on its own.
        (wait_for 90 grep -q "trip .* ended" /job/busy-$mode.log \
            && awk -v s="$stopped" -v n="$(now)" 'BEGIN { printf "%.1f\n", n - s }' > /job/busy-$mode-ended-after) &
        watchers="$watchers $!"
    done
    wait $watchers
    for gateway in $gateways; do
        kill -TERM $gateway
        wait $gateway
    done
    for pid in $airs; do kill -TERM $pid; wait $pid 2> /dev/null; done
    for mode in $modes; do
        cp /run/truth-busy-$mode.log /run/truth-scan-$mode.log /job/
        sqlite3 -readonly /var/lib/waymark-$mode/waymark.db "SELECT time FROM outbox WHERE kind = 'beacon' ORDER BY time" \
            > /job/busy-$mode-beacon-samples 2>&1
    done
}

# One mode at a time: mgmt and passive at once, on four controllers, kept
# the emulated machine 66-92 % busy, and with another job on the host the
# passive scan fell behind bluetoothd (69 % of the beacon's adverts).
phase active
phase mgmt
phase passive
sqlite3 -readonly -separator ' ' /var/lib/waymark-active/waymark.db \
    "SELECT kind, count(*) FROM outbox WHERE seq > $(cat /job/busy-template-seq) GROUP BY kind" > /job/busy-active-kinds 2>&1
as_waymark /job/waymark --config /run/busy-active.conf --data-dir /var/lib/waymark-active trips --json > /job/busy-active-trips.json 2>&1
cp -r /var/lib/waymark-active/capture /job/busy-active-capture
