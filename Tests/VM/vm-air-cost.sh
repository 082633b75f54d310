#!/bin/sh
# Busy air at scale, for `make bench-air` (`waymark-bench --air-only`), run
# by vm-init as the VM's job. $ROUNDS times (1 unless set), for each
# population in $STEPS (devices around the car's beacon) and each receiver
# in $RECEIVERS, one after the other:
# vhci-air.py is hci0 with that population (Tests/VM/vhci-air.py), a fresh
# bluetoothd (with --experimental, as the README's drop-in runs it, for
# Waymark's receivers; as Debian ships it for bleak's), and the receiver on
# hci0:
#  - mgmt, active, passive: Waymark's scanner as the daemon runs it, with
#    the car's beacon paired (`waymark-bench --receive-adverts hci0 SECONDS
#    MODE`, as root);
#  - stock: the same in the mode `auto` picks, with bluetoothd as Debian
#    ships it (no --experimental: no monitors of its own);
#  - bleak: a dbus-fast receiver doing bleak's work (stack_receiver_fast.py);
#  - daemon: `waymark run` (mgmt, as the unit runs it: user waymark with
#    CAP_NET_ADMIN), logged in and the beacon paired on the host, from a
#    fresh copy of that store each time; daemon-passive: the same without
#    CAP_NET_ADMIN, so `auto` picks passive; daemon-active: the same with
#    ScanMode = active (discovery under the do-nothing monitor). A daemon
#    is measured after $DAEMON_SETTLE s more, once it has unmapped its
#    start-up code (30 s after it is ready).
# After a settling time, a window of $WINDOW s is measured: each process's
# CPU time (utime + stime, ticks of 1/100 s) and the machine's softirq time
# at its start and end, RSS (and the receiver's PSS, whole, anonymous and
# file-backed, and its transparent huge pages) at its end, and BlueZ's
# cache files after bluetoothd stops. The controller's log says what it
# sent and when.
. /job/vm-lib.sh
. /job/job.env

start_system_bus
step "kernel $(uname -r); loading hci_vhci and the crypto bluetoothd needs"
load_vhci_and_crypto
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2> /dev/null || echo 0; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2> /dev/null || echo 0; }
# $2 of smaps_rollup: Pss, or its anonymous (heap, stacks) or file-backed (code) part.
pss() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/smaps_rollup" 2> /dev/null || echo 0; }
snapshot() {
    echo "time $(date +%s.%N)"
    echo "receiver $(ticks $receiver)"
    echo "bluetoothd $(ticks $bluetoothd)"
    echo "dbus-daemon $(ticks $(pidof dbus-daemon))"
    echo "controller $(ticks $air)"
    echo "softirq $(awk '/^cpu / { print $8 }' /proc/stat)"
}

if echo " $RECEIVERS " | grep -q " daemon "; then
    mkdir -p /etc/waymark
    install -m 0600 -o waymark -g waymark /job/client-secret /etc/waymark/client-secret
    # A receiver that is plugged in and silent.
    mkfifo -m 0660 /run/waymark-gps
    chgrp waymark /run/waymark-gps
    exec 3<> /run/waymark-gps
fi

for round in $(seq "${ROUNDS:-1}"); do
    for n in $STEPS; do
        for kind in $RECEIVERS; do
            run=$n-$kind
            [ "${ROUNDS:-1}" -gt 1 ] && run=$n-$kind-$round
            step "$n devices, $kind"
            rm -rf /var/lib/bluetooth/*
            python3 /job/vhci-air.py /job/population-$n.json /run/truth-$run.log > /job/air-$run.log 2>&1 &
            air=$!
            wait_for 60 test -e /sys/class/bluetooth/hci0 || finish 13 "the virtual controller never appeared ($run)"
            flags=""
            [ "$kind" != bleak ] && [ "$kind" != stock ] && flags=--experimental
            /usr/libexec/bluetooth/bluetoothd -n $flags > /job/bluetoothd-$run.log 2>&1 &
            bluetoothd=$!
            wait_for 90 busctl --system introspect org.bluez /org/bluez/hci0 || finish 14 "bluetoothd never showed hci0 ($run)"
            btmgmt --index 0 power on >> /job/btmgmt.log 2>&1
            seconds=$((SETTLE + WINDOW + 5))
            if [ "$kind" = bleak ]; then
                "$PYTHON" "$RECEIVER" /org/bluez/hci0 $seconds > /job/heard-$run.txt 2> /job/receiver-$run.log &
            elif [ "${kind%%-*}" = daemon ]; then
                rm -rf /var/lib/waymark-bench && cp -a /job/data /var/lib/waymark-bench
                chown -R waymark:waymark /var/lib/waymark-bench && chmod 700 /var/lib/waymark-bench
                caps="--inh-caps +net_admin --ambient-caps +net_admin" config=/job/daemon.conf
                [ "$kind" = daemon-passive ] && caps=""
                [ "$kind" = daemon-active ] && config=/job/daemon-active.conf
                # setpriv execs the daemon: this PID is the daemon's own.
                setpriv --reuid=waymark --regid=waymark --init-groups $caps \
                    /job/waymark --config $config --data-dir /var/lib/waymark-bench run > /job/receiver-$run.log 2>&1 &
            else
                mode=$kind
                [ "$kind" = stock ] && mode=auto
                /job/waymark-bench --receive-adverts hci0 $seconds $mode > /job/heard-$run.txt 2> /job/receiver-$run.log &
            fi
            receiver=$!
            sleep "$SETTLE"
            if [ "${kind%%-*}" = daemon ]; then
                grep -q "recording: running" /job/receiver-$run.log || finish 15 "waymark run did not arm ($run)"
                sleep "${DAEMON_SETTLE:-0}"
            fi
            snapshot > /job/before-$run
            sleep "$WINDOW"
            snapshot > /job/after-$run
            {
                echo "receiver $(rss $receiver)"
                for part in Pss Pss_Anon Pss_File AnonHugePages; do echo "receiver-$part $(pss $receiver $part)"; done
                echo "bluetoothd $(rss $bluetoothd)"
                echo "dbus-daemon $(rss $(pidof dbus-daemon))"
            } > /job/rss-$run
            # The receiver's mappings with transparent huge pages, if any.
            awk '/^[0-9a-f]+-[0-9a-f]+ / { mapping = $0 } /^AnonHugePages:/ && $2 > 0 { print mapping, $2 " kB" }' \
                /proc/$receiver/smaps > /job/huge-$run 2> /dev/null
            [ "${kind%%-*}" = daemon ] && kill -TERM $receiver
            wait $receiver
            if [ "${kind%%-*}" = daemon ]; then
                sqlite3 -readonly /var/lib/waymark-bench/waymark.db "SELECT count(*) FROM outbox WHERE kind = 'beacon'" > /job/samples-$run 2>&1
            fi
            kill $bluetoothd
            wait $bluetoothd
            find /var/lib/bluetooth -path '*/cache/*' -type f | wc -l > /job/cache-$run
            kill -TERM $air
            wait $air
            cp /run/truth-$run.log /job/truth-$run.log
            rm -f /run/truth-$run.log
        done
    done
done
finish 0 "every step measured"
