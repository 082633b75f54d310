# Shared by the VM's jobs (vm-job.sh, vm-stack-cost.sh), which source it
# from /job: progress, the exit, waiting, pulsed advertising, and the
# Bluetooth stack (hci_vhci, dbus-daemon, btvirt, bluetoothd).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
. /job/vhci-crypto.sh

step() { echo "vm-job: $*"; }
finish() {
    [ -f /run/bluetoothd.log ] && cp /run/bluetoothd.log /job/bluetoothd.log
    echo "$1" > /job/exit-code
    step "done: $2"
    echo "WAYMARK-VM-DONE $1"
    sync
    busybox poweroff -f
}
# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
    limit=$1; shift
    for _ in $(seq $((limit * 4))); do
        "$@" > /dev/null 2>&1 && return 0
        sleep 0.25
    done
    return 1
}

# Re-advertises from one btmgmt shell on controller $1, in the background
# ($! is btmgmt's PID): every $2 seconds it removes instance $3 and adds it
# back with data $4 (each "%b" in it becomes a byte counting the rounds) and
# the add-adv flags after it, until /run/pulse-$1.stop exists. One process
# for the whole run: two btmgmt processes spawned per round cost the two
# emulated cores enough that a round now and then took 2 s.
advertise() {
    index=$1 period=$2 instance=$3 data=$4
    shift 4
    rm -f /run/pulse-$index.stop
    python3 -u -c '
import os, sys, time
index, period, instance, data, flags = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
count = 0
while not os.path.exists("/run/pulse-" + index + ".stop"):
    count = (count + 1) % 256
    print("rm-adv", instance)
    print("add-adv", *flags, "-d", data.replace("%b", "%02x" % count), instance)
    time.sleep(period)
print("rm-adv", instance)
time.sleep(1)
print("quit")
' "$index" "$period" "$instance" "$data" "$@" | btmgmt --index "$index" > /dev/null 2>&1 &
}
# The advertiser of controller $1, instance $2, data $3 (and the add-adv
# flags after it) re-enabled 2.5 times a second: btvirt reports an
# advertiser to scanners only when it enables its advertising, where a real
# one is heard at every advertising event.
pulse() {
    index=$1 instance=$2 data=$3
    shift 3
    advertise "$index" 0.4 "$instance" "$data" "$@"
}
# Stops the advertiser of controller $1 (btmgmt's PID $2) after its current
# round, then removes instance $3 once more: btvirt keeps an advertiser
# advertising, even powered off, until its instance is removed.
unpulse() {
    touch /run/pulse-$1.stop
    wait "$2" 2> /dev/null
    btmgmt --index "$1" rm-adv "$3" >> /job/btmgmt.log 2>&1
}

# Noise on controller $1: another advertiser (instance 1) whose data changes
# every second, so the air is never silent ($! is its btmgmt's PID).
noise() {
    btmgmt --index "$1" power on >> /job/btmgmt.log 2>&1
    advertise "$1" 1 1 "07ffffff%b%b%b%b" -g
}

# The kernel's modules, the system bus, btvirt with $1 LE controllers on one
# virtual link, and bluetoothd with the flags after it; user waymark exists.
# Without -d, as shipped: its debug log (a line or more per advert, 266,000
# in one run) took a third of its time, and under an emulated CPU shared
# with another job it fell seconds behind, which a stock Pi's does not.
start_bluetooth() {
    controllers=$1; shift
    start_system_bus
    start_controllers "$controllers" "$@"
}

# The system bus, and user waymark on it: the gateway runs as it does on
# the Pi, allowed onto the bus by hardware/io.waymark.Gateway1.conf.
start_system_bus() {
    mount -t devpts devpts /dev/pts 2> /dev/null
    echo 'waymark:x:990:990:Waymark gateway:/var/lib/waymark:/usr/sbin/nologin' >> /etc/passwd
    echo 'waymark:x:990:' >> /etc/group
    cp /job/io.waymark.Gateway1.conf /etc/dbus-1/system.d/
    mkdir -p /run/dbus
    dbus-daemon --system --fork --nopidfile || finish 12 "dbus-daemon failed"
}

# hci_vhci and its crypto, btvirt with $1 LE controllers on one virtual
# link, and bluetoothd with the flags after it.
start_controllers() {
    controllers=$1; shift
    step "kernel $(uname -r); loading hci_vhci and the crypto bluetoothd needs"
    load_vhci_and_crypto
    last=hci$((controllers - 1))
    step "btvirt: $controllers LE controllers on one virtual link"
    btvirt -L -l"$controllers" > /job/btvirt.log 2>&1 &
    wait_for 90 test -e /sys/class/bluetooth/$last || finish 13 "the virtual controllers never appeared"
    step "bluetoothd $(/usr/libexec/bluetooth/bluetoothd --version) $*"
    # Its log goes to tmpfs, and to the job folder at the end (finish): each
    # write to the 9p folder would stall it.
    /usr/libexec/bluetooth/bluetoothd -n "$@" > /run/bluetoothd.log 2>&1 &
    wait_for 90 busctl --system introspect org.bluez /org/bluez/$last || finish 14 "bluetoothd never showed $last"
}
