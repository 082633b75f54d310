# Waymark: build, test and demo on Debian 12 with Swift installed.

SWIFT ?= swift
PREFIX ?= /usr/local

# What the build and the tests need from Debian: the C libraries, and the
# real peers the tests start (dbus-daemon, python-dbusmock, busctl, sqlite3,
# gpsd with gpsfake, glewlwyd, mosquitto, chromium for the trip report), and for the real-BlueZ VM a kernel, QEMU,
# busybox and btvirt.
APT_PACKAGES = pkg-config libdbus-1-dev libsqlite3-dev libbluetooth-dev zlib1g-dev libssl-dev \
	libgps-dev libcurl4-openssl-dev libqrencode-dev libmosquitto-dev libsystemd-dev mosquitto mosquitto-clients dbus-daemon python3-dbus python3-dbusmock sqlite3 systemd bluez gpsd gpsd-clients python3-gps socat glewlwyd openssl gpsbabel \
	qemu-system-x86 linux-image-amd64 busybox-static cpio kmod bluez-test-tools dbus chromium

.PHONY: all build release test test-vm deps demo demo-mqtt bench bench-vm order-file fuzz clean install uninstall

# What `make install` puts where (DESTDIR for packaging). BUILD=debug installs
# the debug binary, which the tests use to skip a release build.
BUILD ?= release
BINDIR = $(PREFIX)/bin
UNITDIR ?= /lib/systemd/system
INSTALLED = $(DESTDIR)$(BINDIR)/waymark \
	$(DESTDIR)$(UNITDIR)/waymark.service \
	$(DESTDIR)/usr/share/dbus-1/system.d/io.waymark.Gateway1.conf \
	$(DESTDIR)/usr/lib/sysusers.d/waymark.conf \
	$(DESTDIR)/usr/lib/tmpfiles.d/waymark.conf \
	$(DESTDIR)/usr/lib/udev/rules.d/60-waymark.rules

all: build

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

# Installs missing packages when run as root; otherwise prints the command.
deps:
	@missing=$$(for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else \
		echo "missing packages; run: sudo apt-get install" $$missing; exit 1; \
	fi

# Tests run one at a time: the million-input fuzz loops would otherwise take
# both cores from the tests that time real peers.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel

# One drive with no hardware: mock BlueZ with the car's beacon, gpsd replaying
# a real drive, glewlwyd and the local backend. Writes waymark-demo-trip.geojson.
# Only the real-BlueZ VM test (about eight minutes under software emulation);
# `make test` runs it with the rest.
test-vm: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --no-parallel --filter RealBlueZTests

demo: deps build
	.build/debug/waymark-demo --log Tests/LocationTests/gpsd/nl2008u.log --out waymark-demo-trip.geojson

# The same drive, also published to a local mosquitto with Home Assistant discovery.
demo-mqtt: deps build
	.build/debug/waymark-demo --log Tests/LocationTests/gpsd/nl2008u.log --out waymark-demo-trip.geojson --mqtt on

bench: deps
	$(SWIFT) run -c release waymark-bench

# The whole stack's CPU per advert in the real-BlueZ VM (about six
# minutes): Waymark's scanner on the kernel's management channel beside
# bluetoothd, dbus-daemon and a dbus-fast receiver, over the same adverts.
bench-vm: deps
	$(SWIFT) build -c release
	.build/release/waymark-bench --vm-stack-only

# Remakes Sources/waymark/waymark.order, the functions a recording daemon
# runs, which the release link puts together (see Package.swift): the
# daemon runs under valgrind's callgrind through the launch bench and the
# demo's drive (a few minutes). Worth running after large changes; names
# that no longer exist are skipped, so a stale list costs memory, not
# correctness (`waymark-bench --launch-only` shows the resident set).
order-file: deps
	@command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind"; exit 1; }
	$(SWIFT) build -c release
	.build/release/waymark-bench --order-file Sources/waymark/waymark.order
	@# SwiftPM does not see the list as an input of the link: relink now.
	rm -f .build/release/waymark
	$(SWIFT) build -c release --product waymark

# Structure-aware fuzzing of every parser of outside bytes, 10 M inputs each
# (minutes, so not part of `make test`, which runs a short version).
FUZZ_COUNT ?= 10000000
fuzz: deps
	$(SWIFT) run -c release waymark-fuzz --count $(FUZZ_COUNT)

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
	@# The config is the user's once installed: never overwritten.
	install -d -m 0755 $(DESTDIR)/etc/waymark
	test -e $(DESTDIR)/etc/waymark/waymark.conf || \
		.build/$(BUILD)/waymark config --defaults > $(DESTDIR)/etc/waymark/waymark.conf

# Removes what install put in place, except the config and the data.
uninstall:
	rm -f $(INSTALLED)

clean:
	rm -rf .build
