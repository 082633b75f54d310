#!/bin/sh
# The virtual Pi's scenario, run by waymark-pi-job.service once systemd is
# up (Tests/Pi/pi-image.sh). The host put in /job: the packages, the
# config, the client secret, job.env and `boot` (1 or 2). Results and logs
# go to /job; progress goes to the console.
# Boot 1: install, log in, pair, start, a trip, a restart; then the beacon
# is back, the ingest out of reach, and the host cuts the power.
# Boot 2: armed by itself, the pending samples flushed; an upgrade and the
# downgrade back (a rollback); health; doctor; a purge that must leave no
# file behind.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
. /job/job.env
boot=$(cat /job/boot)
say() { echo "pi-job: $*"; }
finish() {
    echo "$1" > "/job/exit-code-$boot"
    say "done: $2"
    echo "WAYMARK-PI-DONE $1"
    sync
    systemctl poweroff
    exit 0
}
# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
    limit=$1; shift
    for _ in $(seq $((limit * 2))); do
        "$@" > /dev/null 2>&1 && return 0
        sleep 0.5
    done
    return 1
}
as_waymark() { sudo -u waymark waymark "$@"; }
# The daemon's log of this boot, as journald has it.
daemon_log() { journalctl -b -u waymark -o short-unix --no-pager; }
logged() { daemon_log | grep -q "$1"; }
logged_count() { daemon_log | grep -c "$1"; }
# The files that exist, but for what the system itself rewrites.
files() {
    find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /job \
        -o -path /var/log -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg -o -path /var/lib/bluetooth \
        -o -path /var/lib/systemd -o -path /var/tmp -o -path /lost+found \) -prune -o -print | sort
}

# The host's OIDC provider and ingest, reached through QEMU's forwarding
# (10.0.2.100), appear on the guest's loopback at the ports they have on
# the host's, so one config serves both sides.
for port in $OIDC_PORT $INGEST_PORT; do
    socat "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" "TCP:10.0.2.100:$port" &
    echo $! > "/run/forward-$port"
done

say "boot $boot: kernel $(uname -r), $(nproc) cores, $(systemd-analyze 2>/dev/null | head -n 1)"
# The air: one virtual LE controller, the Pi's radio (hci0), with the car's
# beacon and its neighbours around it (vhci-air.py and /job/population.json:
# each advertiser at its interval plus advDelay, noisy RSSI, the duplicate
# filter honoured), logging every report it sends to /run/truth.log; SIGUSR1
# takes the car's beacon away, SIGUSR2 brings it back. Debian's arm64
# kernel is built without hci_vhci, so the image carries one built from
# Debian's kernel source (Tests/Pi/pi-image.sh). If it does not load, that
# is recorded in /job/no-air, the host fails the test on it, and the job
# goes on with every step that needs no radio, the daemon then armed with
# the adapter as a missing requirement. bluetoothd runs as the image ships
# it: no --experimental.
armed="recording: running"
if modprobe hci_vhci 2> /job/no-air; then
    rm -f /job/no-air
    . /job/vhci-crypto.sh
    load_vhci_and_crypto
    python3 /job/vhci-air.py /job/population.json /run/truth.log --seed $boot > /job/air-$boot.log 2>&1 &
    air=$!
    wait_for 120 test -e /sys/class/bluetooth/hci0 || finish 12 "the virtual controller never appeared"
    # bluetooth.service starts only where /sys/class/bluetooth existed at boot.
    systemctl start bluetooth
    wait_for 120 busctl --system introspect org.bluez /org/bluez/hci0 || finish 13 "bluetoothd never showed hci0"
else
    armed="recording: \(running\|requirements missing\)"
fi
# btmgmt fed its commands on standard input: trixie's btmgmt (BlueZ 5.82)
# run with a command in its arguments and no terminal printed nothing.
btmgmt0() { { printf '%s\n' "$@"; sleep 3; echo quit; } | timeout 30 btmgmt --index 0 >> /job/btmgmt.log 2>&1; }
[ -e /job/no-air ] || btmgmt0 "power on"
# The car's beacon leaves the air (1) or comes back (2).
beacon() { [ -e /job/no-air ] || kill -USR$1 $air; }
now() { date +%s.%N; }
# With no air, no trip starts or ends: those waits pass at once.
trip() { [ -e /job/no-air ] || logged_count "trip .* $1" | grep -qx "$2"; }

if [ "$boot" = 1 ]; then
    files > /job/files-before.txt
    say "apt install ./$DEB"
    apt-get install -y "/job/$DEB" > /job/install.log 2>&1 || finish 20 "the package did not install"
    systemctl is-enabled waymark > /job/enabled.txt 2>&1
    # The pages as a user reads them, from the package's man pages.
    MANPAGER=cat MANWIDTH=100 man waymark > /job/man-waymark.txt 2>&1
    MANPAGER=cat MANWIDTH=100 man waymark.conf > /job/man-waymark.conf.txt 2>&1
    systemctl status waymark --no-pager > /job/status-unconfigured.txt 2>&1

    say "the config, then login and pair as a user does"
    cp /job/waymark.conf /etc/waymark/waymark.conf
    install -m 0600 -o waymark -g waymark /job/client-secret /etc/waymark/client-secret
    printf '%s\n' "$PASSWORD" | as_waymark login --username "$USERNAME" --password-stdin > /job/login.log 2>&1 || finish 21 "login failed"
    if [ ! -e /job/no-air ]; then
        as_waymark pair --strongest --role vehicle --label car --within 30 > /job/pair.log 2>&1 || finish 22 "pairing failed"
    fi
    # The README's way to hand a tag's key over: the user's shell opens the
    # file (0600, in a home the user waymark cannot read), waymark reads stdin.
    (umask 077; echo 231d39c1d7cc1ab1aee224cd096db932 > /root/tag.key)
    as_waymark pair --role sensor --address C0:FF:EE:00:00:09 --label tag --bindkey - < /root/tag.key > /job/pair-sensor.log 2>&1 \
        || finish 22 "pairing a sensor with its key on standard input failed"
    rm -f /root/tag.key

    say "systemctl start waymark"
    started=$(date +%s.%N)
    systemctl start waymark
    wait_for 120 logged "$armed" || finish 23 "the daemon never armed"
    armed_at=$(daemon_log | grep -m1 "$armed" | cut -d' ' -f1)
    echo "$started $armed_at" | awk '{ printf "%.3f\n", $2 - $1 }' > /job/launch-to-armed.txt
    wait_for 180 trip started 1 || finish 24 "no trip started"
    pid=$(systemctl show -p MainPID --value waymark)
    grep -E '^(Rss|Pss):' "/proc/$pid/smaps_rollup" > /job/memory.txt
    cp "/proc/$pid/smaps" /job/smaps.txt

    # What the daemon hears of the car's beacon (its capture) against what
    # the controller sent, 60 s alone, then 60 s with `scan` beside it
    # (through the daemon), then 60 s with `scan --radio` (a discovery of
    # its own, as scan did before it asked the daemon).
    say "60 s of recording alone, then beside scan, then beside scan --radio"
    now > /job/window-alone; sleep 60; now >> /job/window-alone
    now > /job/window-scan
    as_waymark scan --json --duration 60 > /job/scan-beside.ndjson 2> /job/scan-beside.log
    now >> /job/window-scan
    now > /job/window-radio
    as_waymark scan --radio --json --duration 60 > /job/scan-radio.ndjson 2> /job/scan-radio.log
    now >> /job/window-radio
    grep -E '^(Rss|Pss):' "/proc/$pid/smaps_rollup" > /job/memory-after.txt

    say "the beacon goes"
    beacon 1
    wait_for 240 trip ended 1 || finish 25 "the trip never ended"
    wait_for 120 sh -c 'sudo -u waymark waymark queue --json | grep -q "\"depth\":0"' || finish 26 "the queue never drained"
    as_waymark trips --json > /job/trips-1.json 2>&1

    say "systemctl restart waymark, without the capture from now on"
    sed -i '/^Capture = /d' /etc/waymark/waymark.conf
    systemctl restart waymark
    wait_for 120 sh -c "[ \$(journalctl -b -u waymark --no-pager | grep -c '$armed') -ge 2 ]" || finish 27 "not armed again after the restart"
    daemon_log > /job/daemon-1.log
    # The first run's capture, closed by the restart.
    mkdir -p /job/capture && cp /var/lib/waymark/capture/*.wmcap /job/capture/ 2> /dev/null

    say "the beacon is back, the ingest out of reach, then the power is cut"
    kill "$(cat "/run/forward-$INGEST_PORT")"
    beacon 2
    wait_for 180 trip started 2 || finish 28 "no second trip"
    # With no air nothing is recorded: a restart's events stand in as the pending samples.
    [ -e /job/no-air ] && systemctl restart waymark
    wait_for 120 sh -c 'sudo -u waymark waymark queue --json | grep -qv "\"depth\":0"' || finish 29 "nothing pending"
    as_waymark queue --json > /job/queue-before-cut.json 2>&1
    daemon_log > /job/daemon-1.log
    cp /run/truth.log /job/truth-1.log
    sync
    echo "WAYMARK-PI-CUT"
    sleep 600
    finish 30 "the power was never cut"
fi

say "boot 2: armed by itself?"
wait_for 180 logged "$armed" || finish 40 "not armed after the power cut"
journalctl -b -u waymark -o short-monotonic --no-pager | grep -m1 "$armed" | sed 's/^\[ *\([0-9.]*\)\].*/\1/' > /job/boot-to-armed.txt
wait_for 180 sh -c 'sudo -u waymark waymark queue --json | grep -q "\"depth\":0"' || finish 41 "the pending samples were not flushed"
as_waymark queue --json > /job/queue-after-boot.json 2>&1
# The daemon's memory while recording with the config as a user has it (no
# capture), half a minute into this boot's run.
sleep 30
pid=$(systemctl show -p MainPID --value waymark)
grep -E '^(Rss|Pss):' "/proc/$pid/smaps_rollup" > /job/memory-boot-2.txt
cp "/proc/$pid/smaps" /job/smaps-boot-2.txt
as_waymark trips --json > /job/trips-2.json 2>&1
as_waymark beacons --json > /job/beacons-2.json 2>&1
daemon_log > /job/daemon-2.log

# Installs package $1 over the one installed ($2: upgrade or downgrade),
# waits for the service to run and arm for the $3rd time this boot, and
# keeps what the user sees then as *-$4.json. Failures exit $5 to $5 + 2.
install_over() {
    apt-get install -y --allow-downgrades "/job/$1" > "/job/$2.log" 2>&1 || finish "$5" "the $2 did not install"
    dpkg-query -W -f='${Version}\n' waymark > "/job/version-after-$2.txt"
    wait_for 60 systemctl is-active waymark || finish $(($5 + 1)) "not running after the $2"
    wait_for 120 sh -c "[ \$(journalctl -b -u waymark --no-pager | grep -c '$armed') -ge $3 ]" || finish $(($5 + 2)) "not armed after the $2"
    for what in whoami beacons trips; do as_waymark "$what" --json > "/job/$what-$4.json" 2>&1; done
    daemon_log > /job/daemon-2.log
}

say "upgrade to $DEB_NEXT"
install_over "$DEB_NEXT" upgrade 2 3 42
say "downgrade back to $DEB, as a rollback does"
install_over "$DEB" downgrade 3 4 46

say "waymark health, as greenboot's check (root, after the rollback)"
sh /usr/share/doc/waymark/examples/greenboot-50-waymark.sh > /job/health.txt 2>&1
echo $? > /job/health-exit.txt

say "waymark doctor"
as_waymark doctor > /job/doctor.txt 2>&1
echo $? > /job/doctor-exit.txt

say "apt purge waymark"
apt-get purge -y waymark > /job/purge.log 2>&1 || finish 45 "the purge failed"
files > /job/files-after.txt
finish 0 "installed, armed, a trip uploaded, restarted, cut, flushed, upgraded, rolled back, purged"
