#!/usr/bin/env bash
# Runs `waymark run` against a private D-Bus with python-dbusmock's BlueZ, and
# shows the daemon noticing the Bluetooth adapter come and go. Every process
# it starts is stopped on exit.
set -euo pipefail

waymark=$(realpath "${1:-.build/debug/waymark}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/waymark-demo-XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
wait_for_name() {
    for _ in $(seq 100); do
        busctl --address="$address" status "$1" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "timed out waiting for $1 on the bus" >&2; exit 1
}

cat > "$work/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$work/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
  </policy>
</busconfig>
CONF

say "private system bus and mock BlueZ"
dbus-daemon --config-file="$work/bus.conf" --nofork --nopidfile --print-address=1 > "$work/address" 2> "$work/dbus-daemon.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/address" ] && break; sleep 0.05; done
address=$(head -1 "$work/address")
export DBUS_SYSTEM_BUS_ADDRESS="$address"
echo "bus: $address"
/usr/bin/python3 -m dbusmock --template "$here/Templates/waymark_bluez.py" > "$work/bluez.log" 2>&1 &
pids+=($!)
wait_for_name org.bluez

printf '[Location]\n# No receiver in the demo: location shows as missing.\nSource = gpsd://127.0.0.1:2947\n' > "$work/waymark.conf"
run=("$waymark" --config "$work/waymark.conf" --data-dir "$work/data")

say "waymark run (no adapter yet)"
"${run[@]}" run 2> >(sed 's/^/  daemon: /' >&2) &
daemon=$!
pids+=($daemon)
wait_for_name io.waymark.Gateway1
"${run[@]}" status

say "an adapter appears"
busctl --address="$address" call org.bluez / org.bluez.Mock AddAdapter ss hci0 demo-car >/dev/null
sleep 0.5
"${run[@]}" status

say "stopping with SIGTERM"
kill -TERM "$daemon"
wait "$daemon" && echo "daemon exited 0"
"${run[@]}" status
