# Waymark: build, test and demo on Debian 12 with Swift installed.

SWIFT ?= swift
PREFIX ?= /usr/local

# What each target needs from Debian. The build: pkg-config and the C
# libraries. The demo: the real peers it starts (dbus-daemon with
# python-dbusmock's BlueZ, gpsd with gpsfake, gpsbabel for the drive's
# NMEA, glewlwyd with sqlite3 and openssl), and libjs-leaflet for the
# report's map; demo-mqtt adds mosquitto. The
# tests: those, mosquitto,
# chromium for the trip report, the real-BlueZ VM (a kernel, QEMU, busybox,
# btvirt), e2fsprogs for the power-cut test's disk, and debootstrap for the
# Swift 6.0.3 check in a trixie root.
# Packages: qemu-user to run arm64 programs, lintian. The virtual Pi: QEMU
# for aarch64, qemu-img (qemu-utils) for the overlay on its disk, and e2fsprogs for the disk.
BUILD_PACKAGES = pkg-config libdbus-1-dev libsqlite3-dev libbluetooth-dev zlib1g-dev libssl-dev \
	libgps-dev libcurl4-openssl-dev libqrencode-dev libmosquitto-dev libsystemd-dev
DEMO_PACKAGES = $(BUILD_PACKAGES) dbus-daemon python3-dbus python3-dbusmock gpsd gpsd-clients gpsbabel libjs-leaflet glewlwyd sqlite3 openssl
TEST_PACKAGES = $(DEMO_PACKAGES) mosquitto mosquitto-clients nats-server systemd bluez python3-gps socat \
	qemu-system-x86 linux-image-amd64 busybox-static cpio kmod bluez-test-tools dbus chromium debootstrap e2fsprogs groff-base
PACKAGE_PACKAGES = $(BUILD_PACKAGES) dpkg-dev debootstrap qemu-user-static binfmt-support lintian
PI_PACKAGES = $(PACKAGE_PACKAGES) qemu-system-arm qemu-utils e2fsprogs
APT_INSTALL = Tests/apt-install.sh
# Debian roots, the virtual Pi's disk and the arm64 build, kept between runs.
WAYMARK_CACHE ?= /var/cache/waymark
export WAYMARK_CACHE
DEB_DIR = .build/deb

.PHONY: all build release docs test test-vm test-pi test-power test-cluster pi-roots deb deps deps-demo deps-package deps-pi demo demo-build demo-mqtt bench bench-vm bench-air bench-air-memory order-file fuzz clean install uninstall

# What `make install` puts where (DESTDIR for packaging). BUILD=debug installs
# the debug binary, which the tests use to skip a release build.
BUILD ?= release
BINDIR = $(PREFIX)/bin
UNITDIR ?= /lib/systemd/system
MANDIR = $(PREFIX)/share/man
COMPLETIONDIR = $(PREFIX)/share/bash-completion/completions
INSTALLED = $(DESTDIR)$(BINDIR)/waymark \
	$(DESTDIR)$(UNITDIR)/waymark.service \
	$(DESTDIR)/usr/share/dbus-1/system.d/io.waymark.Gateway1.conf \
	$(DESTDIR)/usr/lib/sysusers.d/waymark.conf \
	$(DESTDIR)/usr/lib/tmpfiles.d/waymark.conf \
	$(DESTDIR)/usr/lib/udev/rules.d/60-waymark.rules \
	$(DESTDIR)$(MANDIR)/man1/waymark.1 \
	$(DESTDIR)$(MANDIR)/man5/waymark.conf.5 \
	$(DESTDIR)$(COMPLETIONDIR)/waymark

all: build

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

# Each installs what is missing when run as root (one line of output; apt's
# goes to a log), or prints the apt-get line to run.
deps:
	@$(APT_INSTALL) $(TEST_PACKAGES)
deps-demo:
	@$(APT_INSTALL) $(DEMO_PACKAGES)
deps-package:
	@$(APT_INSTALL) $(PACKAGE_PACKAGES)
deps-pi:
	@$(APT_INSTALL) $(PI_PACKAGES)

# The suites run from the test bundle (Tests/suites.sh): one at a time, as
# the million-input fuzz loops would otherwise take both cores from the
# tests that time real peers, then the two in the real-BlueZ VM, alone.
# Then the second compiler: every target and test built with Debian 13's
# swiftlang 6.0.3 in a trixie root, and the suites that start no peer run
# with it (Tests/Pi/swift60.sh). The virtual Pi is `make test-pi`, the power
# cuts `make test-power`.
test: deps
	$(SWIFT) build --build-tests
	@SWIFT=$(SWIFT) Tests/suites.sh
	@Tests/Pi/swift60.sh

# The arm64 package on a virtual Pi with systemd (Tests/Pi; the scenario
# takes about 10 minutes): install, login, pair, a trip, a restart, a power
# cut, an upgrade, doctor and a purge, with the daemon's memory and start-up
# times printed. On a fresh machine its arm64 roots come first, made side
# by side under qemu-user (about 18 minutes), then cached.
# Then the power-cut test with one cut per phase (about 2 minutes; the 50
# of `make test-power` take about 14), and the write log replayed (75 s).
test-pi: deps deps-pi pi-roots deb
	@STEP_LOG=/tmp/waymark-pi-image.log Tests/step.sh "making the virtual Pi's disk (cached in $(WAYMARK_CACHE))" Tests/Pi/pi-image.sh
	WAYMARK_PI_DEB=$$(ls -t $(DEB_DIR)/*_arm64.deb | head -n 1) WAYMARK_PI_IMAGE=$$(Tests/Pi/pi-image.sh) \
		$(SWIFT) test --no-parallel --filter '^PiTests\.'
	WAYMARK_POWER_CUTS=6 $(SWIFT) test --no-parallel --filter '^PowerTests\.'

# Power cuts (about 16 minutes): two x86 VMs side by side record with a
# paired beacon and NMEA, upload and refresh their sessions, with the
# store on a virtio disk (ext4, QEMU cache=none); QEMU is killed -9 at a
# random moment of a commit, an upload, a refresh, a pairing, a capture's
# rotation or a first start on the previous release's store, 50 times.
# After each cut: fsck, SQLite's integrity check, the session, pairing and
# captures read back, and no committed sample lost or stored twice. The
# seed is printed; WAYMARK_POWER_SEED repeats it. Then one recording's
# every write, logged by QEMU's blklogwrites, replayed to 40 flush points.
test-power: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel --filter '^PowerTests\.'

# A real three-node nats-server cluster (routes, JetStream, MQTT), the node
# in use killed twice mid-stream: every sample acknowledged and received,
# repeats counted, reconnect times printed. Not in `make test`: see
# docs/testing.md.
test-cluster: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel --filter '^MQTTTests\.MQTTClusterTests/'

pi-roots: deps-pi
	@Tests/Pi/make-roots.sh pi

# The demo's binaries, one line per step (swift's output goes to a log).
demo-build: deps-demo
	@STEP_LOG=/tmp/waymark-build.log Tests/step.sh "building waymark and the demo (swift build)" $(SWIFT) build --product waymark-demo
	@STEP_LOG=/tmp/waymark-build.log Tests/step.sh "linking waymark" $(SWIFT) build --product waymark

# Only the real-BlueZ VM test (about 13 minutes under software emulation);
# `make test` runs it after the rest, alone.
test-vm: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel --filter RealBlueZTests

# One drive with no hardware: mock BlueZ with the car's beacon, gpsd replaying
# a real drive, glewlwyd and the local backend. Writes waymark-demo-trip.geojson.
demo: demo-build
	@.build/debug/waymark-demo --out waymark-demo-trip.geojson

# The same drive, also published to a local mosquitto with Home Assistant discovery.
demo-mqtt: demo-build
	@$(APT_INSTALL) mosquitto mosquitto-clients
	@.build/debug/waymark-demo --out waymark-demo-trip.geojson --mqtt on

# The manual's generated parts (docs/configuration.md, commands.md and
# troubleshooting.md) made again from the code's tables, then every check of
# the documentation (DocumentationTests).
docs:
	$(SWIFT) build --build-tests
	WAYMARK_WRITE_DOCS=1 $$($(SWIFT) build --show-bin-path)/WaymarkPackageTests.xctest --testing-library swift-testing --filter 'GeneratedPagesTests/theGeneratedPart'
	$$($(SWIFT) build --show-bin-path)/WaymarkPackageTests.xctest --testing-library swift-testing --filter '^DocumentationTests\.'

bench: deps
	$(SWIFT) run -c release waymark-bench

# The whole stack's CPU per advert in the real-BlueZ VM (about six
# minutes): Waymark's scanner on the kernel's management channel beside
# bluetoothd, dbus-daemon and a dbus-fast receiver, over the same adverts.
bench-vm: deps
	$(SWIFT) build -c release
	.build/release/waymark-bench --vm-stack-only

# Busy air at the scale of a car park, in the real-BlueZ VM on the virtual
# controller (Tests/VM/vhci-air.py): 10, 100, 300 and 1,000 devices around
# the car's beacon, heard by Waymark in mgmt, active and passive mode and by
# bleak's stack in turn. Figures per step and receiver; the table and an
# SVG plot go to .build/bench-air.txt and .build/bench-air.svg.
bench-air: deps
	$(SWIFT) build -c release
	.build/release/waymark-bench --air-only

# Memory in mgmt mode among 10 and 1,000 devices, three rounds each (about
# seven minutes), of `waymark run` (logged in, the beacon paired) and of
# the bench's receiver: PSS, and its anonymous and file-backed parts and
# huge pages, at the end of each window; the table goes to
# .build/bench-air-memory.txt.
bench-air-memory: deps
	$(SWIFT) build -c release
	.build/release/waymark-bench --air-memory-only

# Remakes Benchmarks/waymark.order, the functions a recording daemon
# runs, which the release link puts together (see Package.swift): the
# daemon runs under valgrind's callgrind through the launch bench and the
# demo's drive (a few minutes). Worth running after large changes; names
# that no longer exist are skipped, so a stale list costs memory, not
# correctness (`waymark-bench --launch-only` shows the resident set).
order-file: deps
	@command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind"; exit 1; }
	$(SWIFT) build -c release
	.build/release/waymark-bench --order-file Benchmarks/waymark.order
	@# SwiftPM does not see the list as an input of the link: relink now.
	rm -f .build/release/waymark
	$(SWIFT) build -c release --product waymark

# Structure-aware fuzzing of every parser of outside bytes, 10 M inputs each
# (minutes, so not part of `make test`, which runs a short version), and of
# the store: 1 M store files (every earlier schema, rows of the wrong type,
# odd header fields, mutated), each opened and read as the read-only
# commands do.
FUZZ_COUNT ?= 10000000
fuzz: deps
	$(SWIFT) run -c release waymark-fuzz --count $(FUZZ_COUNT)

# Debian packages for Debian 12 (amd64) and for Debian 13 and Raspberry Pi OS
# trixie (arm64), into .build/deb, each checked by lintian. The trixie roots
# and the arm64 build are cached outside the clone ($(WAYMARK_CACHE)).
deb: deps-package
	@rm -f $(DEB_DIR)/*.deb
	@hardware/debian/build.sh $(DEB_DIR)
	@lintian --fail-on error $(DEB_DIR)/*.deb && echo "lintian: no errors"

install:
	$(SWIFT) build -c $(BUILD) --product waymark
	install -D -m 0755 .build/$(BUILD)/waymark $(DESTDIR)$(BINDIR)/waymark
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|' hardware/waymark.service > $(DESTDIR)$(UNITDIR)/waymark.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/waymark.service
	install -D -m 0644 hardware/io.waymark.Gateway1.conf $(DESTDIR)/usr/share/dbus-1/system.d/io.waymark.Gateway1.conf
	install -D -m 0644 hardware/waymark.sysusers $(DESTDIR)/usr/lib/sysusers.d/waymark.conf
	install -D -m 0644 hardware/waymark.tmpfiles $(DESTDIR)/usr/lib/tmpfiles.d/waymark.conf
	install -D -m 0644 udev/60-waymark.rules $(DESTDIR)/usr/lib/udev/rules.d/60-waymark.rules
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(COMPLETIONDIR)
	.build/$(BUILD)/waymark manual waymark > $(DESTDIR)$(MANDIR)/man1/waymark.1
	.build/$(BUILD)/waymark manual waymark.conf > $(DESTDIR)$(MANDIR)/man5/waymark.conf.5
	.build/$(BUILD)/waymark completion > $(DESTDIR)$(COMPLETIONDIR)/waymark
	@# The config is the user's once installed: never overwritten.
	install -d -m 0755 $(DESTDIR)/etc/waymark
	test -e $(DESTDIR)/etc/waymark/waymark.conf || \
		.build/$(BUILD)/waymark config --defaults > $(DESTDIR)/etc/waymark/waymark.conf

# Removes what install put in place, except the config and the data.
uninstall:
	rm -f $(INSTALLED)

clean:
	rm -rf .build
