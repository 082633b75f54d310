# Private addresses, sourced by vm-job.sh after busy air: hci6 advertises
# with privacy on and a known IRK, so its address is a new Resolvable
# Private Address every 30 s (the kernel's shortest RPA timeout). A gateway
# on hci7, paired by that IRK as the vehicle (pair --irk-file), must keep
# one trip open across the changes, and a scan beside it records the
# addresses heard. As in busy air, the advertiser pulses (see pulse in vm-lib.sh).
step "private addresses: hci6 advertises under RPAs from a known IRK"
mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null
btmgmt --index 6 power off >> /job/btmgmt.log 2>&1
# btmgmt takes the key least significant byte first, as the kernel keeps it.
btmgmt --index 6 privacy on "$IRK_LSB_FIRST" >> /job/btmgmt.log 2>&1 || finish 30 "btmgmt privacy failed"
echo 30 > /sys/kernel/debug/bluetooth/hci6/rpa_timeout || finish 31 "cannot shorten the RPA timeout"
btmgmt --index 6 power on >> /job/btmgmt.log 2>&1
pulse 6 1 "$PHONE_ADVERT" -g
phone=$!

mkdir -p /var/lib/waymark-rpa && cp -a /var/lib/busy-template/. /var/lib/waymark-rpa/
chown -R waymark:waymark /var/lib/waymark-rpa && chmod 700 /var/lib/waymark-rpa
install -m 0600 -o waymark -g waymark /job/phone.irk /etc/waymark/phone.irk
as_waymark /job/waymark --config /job/rpa.conf --data-dir /var/lib/waymark-rpa \
    pair --irk-file /etc/waymark/phone.irk --label phone > /job/rpa-pair.log 2>&1 || finish 32 "pair --irk failed"
now > /job/rpa-started
setpriv --reuid=waymark --regid=waymark --init-groups /job/waymark --config /job/rpa.conf --data-dir /var/lib/waymark-rpa \
    run > /job/rpa-run.log 2>&1 &
gateway=$!
timeout 120 setpriv --reuid=waymark --regid=waymark --init-groups /job/waymark --config /job/rpa.conf --data-dir /var/lib/waymark \
    scan --json --duration $RPA_SECONDS > /job/rpa-scan.ndjson 2> /job/rpa-scan.log
as_waymark /job/waymark --config /job/rpa.conf --data-dir /var/lib/waymark-rpa trips --json > /job/rpa-trips.json 2>&1
unpulse 6 $phone 1
kill -TERM $gateway
wait $gateway
sqlite3 -readonly /var/lib/waymark-rpa/waymark.db "SELECT time FROM outbox WHERE kind = 'beacon' ORDER BY time" > /job/rpa-beacon-samples 2>&1
