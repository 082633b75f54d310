#!/bin/sh
# The virtual controller's own check: vhci-air.py is hci0, with the
# population in /job/population.json around it, under the real kernel and
# bluetoothd. What the kernel and bluetoothd make of it is kept in /job:
# `btmgmt find` (the kernel's discovery, on the management channel) and
# `bluetoothctl scan on` (bluetoothd's, over D-Bus), with the controller's
# log of every report it sent.
. /job/vm-lib.sh

start_system_bus
step "kernel $(uname -r); loading hci_vhci and the crypto bluetoothd needs"
load_vhci_and_crypto
step "vhci-air.py: $(grep -c '"' /job/population.json) lines of population"
python3 -u /job/vhci-air.py /job/population.json /run/air-truth.log > /job/air.log 2>&1 &
air=$!
wait_for 60 test -e /sys/class/bluetooth/hci0 || finish 13 "the virtual controller never appeared"
/usr/libexec/bluetooth/bluetoothd -n > /job/bluetoothd.log 2>&1 &
wait_for 90 busctl --system introspect org.bluez /org/bluez/hci0 || finish 14 "bluetoothd never showed hci0"
btmgmt --index 0 power on > /job/btmgmt.log 2>&1 || finish 15 "hci0 did not power on"

step "btmgmt find -l"
timeout 40 btmgmt --index 0 find -l > /job/btmgmt-find.txt 2>&1
step "bluetoothctl scan on, 15 s"
timeout 40 bluetoothctl --timeout 15 scan on > /job/bluetoothctl.txt 2>&1

kill -TERM $air
wait $air
cp /run/air-truth.log /job/air-truth.log
finish 0 "the controller was heard"
