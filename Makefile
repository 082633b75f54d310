# Waymark: build, test and demo on Debian 12 with Swift installed.

SWIFT ?= swift
PREFIX ?= /usr/local

# What the build and the tests need from Debian: the C libraries, and the
# real peers the tests start (dbus-daemon, python-dbusmock, busctl, sqlite3,
# gpsd with gpsfake).
APT_PACKAGES = pkg-config libdbus-1-dev libsqlite3-dev libbluetooth-dev zlib1g-dev libssl-dev \
	libgps-dev libcurl4-openssl-dev libqrencode-dev dbus-daemon python3-dbus python3-dbusmock sqlite3 systemd bluez gpsd gpsd-clients python3-gps socat glewlwyd openssl

.PHONY: all build release test deps demo bench clean

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

demo: deps build
	Tests/Support/demo.sh .build/debug/waymark

bench: deps
	$(SWIFT) run -c release waymark-bench

clean:
	rm -rf .build
