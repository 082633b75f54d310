# The Debian roots the arm64 package and the virtual Pi are made from
# (sourced by hardware/debian/build.sh and the virtual Pi's scripts).

# Building: Debian 13's swiftlang 6.0.3 and the C libraries' headers, and
# dpkg-dev for dpkg-shlibdeps. -static-stdlib links libstdc++ statically.
BUILD_PACKAGES="swiftlang libstdc++-14-dev pkg-config make dpkg-dev libdbus-1-dev libsqlite3-dev libbluetooth-dev zlib1g-dev libssl-dev libgps-dev libcurl4-openssl-dev libqrencode-dev libmosquitto-dev libsystemd-dev"

# The virtual Pi: Debian's arm64 kernel with systemd, udev and D-Bus;
# bluetoothd and btmgmt, and python3 for the virtual controller; gpsd; and the libraries the package depends on,
# so that `apt install ./waymark_…_arm64.deb` needs no network. sudo for
# the user's `sudo -u waymark waymark login`, socat to reach the host's
# peers from the guest's loopback, sqlite3 for the store's checks, man-db for
# `man waymark` and `man waymark.conf` as a user reads them.
PI_PACKAGES="systemd-sysv udev dbus man-db linux-image-arm64 kmod iproute2 procps sudo socat sqlite3 python3 bluez bluez-test-tools gpsd e2fsprogs libbluetooth3 libcurl4t64 libdbus-1-3 libgps30t64 libmosquitto1 libqrencode4 libsqlite3-0 libssl3t64 zlib1g libstdc++6 init-system-helpers"

# The arm64 build root also builds hci_vhci for the virtual Pi: Debian's
# arm64 kernel is built without it (CONFIG_BT_HCIVHCI is not set), and
# the virtual controller needs /dev/vhci. The module is compiled from Debian's own kernel
# source against the kernel's headers, under qemu-user. One root for both
# saves a third debootstrap (about 14 minutes on a fresh machine).
ARM64_BUILD_PACKAGES="$BUILD_PACKAGES gcc libc6-dev linux-headers-arm64 linux-source xz-utils kmod"
