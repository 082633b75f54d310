#!/usr/bin/python3
"""A virtual LE controller on /dev/vhci with busy air around it.

It answers the HCI commands the kernel and bluetoothd send a controller
(reset, the reads of its version, features, buffers and address, and the
scan commands), and while scanning is enabled it delivers LE Advertising
Reports for a population of advertisers: each at its own advertising
interval plus the 0-10 ms random delay every advertising event gets
(Core spec, Vol 6, Part B, 4.4.2.2.1), with noisy RSSI, a scan response
for scannable advertisers under an active scan, the host's duplicate
filter honoured and cleared by a new scan enable, several reports per
event, and optionally a cap on reports per second (a Pi's UART at
921,600 baud carries about 2,000).

The population comes from a JSON file (see `load`). Every report sent, and
every one the cap dropped, is logged with its wall-clock time (what the
receivers stamp theirs with), so that a loss further up the stack can be
located.

SIGUSR1 takes the devices marked `"leaves": true` out of the air (the car
driving off), and SIGUSR2 brings them back; the log says when.

Usage: vhci-air.py POPULATION.json TRUTH.log [--cap N] [--batch N] [--seed N]
"""
import heapq
import json
import os
import random
import select
import signal
import struct
import sys
import time

HCI_COMMAND, HCI_EVENT, HCI_VENDOR = 0x01, 0x04, 0xFF
EVT_COMMAND_COMPLETE, EVT_LE_META, LE_ADVERTISING_REPORT = 0x0E, 0x3E, 0x02
ADV_IND, ADV_SCAN_IND, ADV_NONCONN_IND, SCAN_RSP = 0x00, 0x02, 0x03, 0x04


def flags(value=0x06):
    return bytes([2, 0x01, value])


def manufacturer(company, payload):
    body = struct.pack("<H", company) + payload
    return bytes([len(body) + 1, 0xFF]) + body


def service_data(uuid16, payload):
    body = struct.pack("<H", uuid16) + payload
    return bytes([len(body) + 1, 0x16]) + body


def ibeacon(uuid, major, minor, power=-59):
    return flags() + manufacturer(0x004C, bytes([0x02, 0x15]) + bytes.fromhex(uuid.replace("-", ""))
                                  + struct.pack(">HHb", major, minor, power))


def ruuvi(mac, n):
    # RAWv2: temperature, humidity, pressure, acceleration, power, movement, sequence, MAC.
    payload = struct.pack(">BhHHhhhHBH", 5, 2000 + n % 100, 20000, 50000, 0, 0, 1000, 0xAC00, n % 256, n % 65536) + mac
    return flags() + manufacturer(0x0499, payload)


def bthome(n):
    # BTHome v2, unencrypted: battery (0x01) and temperature (0x02, 0.01 degC).
    return flags() + service_data(0xFCD2, bytes([0x40, 0x01, 60 + n % 40, 0x02]) + struct.pack("<h", 2000 + n % 500))


def eddystone(namespace, instance):
    uid = bytes([0x00, 0xEE]) + bytes.fromhex(namespace) + bytes.fromhex(instance) + bytes(2)
    return flags() + bytes([3, 0x03, 0xAA, 0xFE]) + service_data(0xFEAA, uid)


def phone(n):
    # A phone's continuity "nearby" advert: what a street's phones send.
    return flags(0x1A) + manufacturer(0x004C, bytes([0x10, 0x05, 0x01, 0x18, n % 256, 0x3C, 0x2A]))


def noise(n):
    return manufacturer(0xFFFF, struct.pack(">I", n))


class Advertiser:
    """One device in the air."""

    def __init__(self, name, address, random_address, interval, kind, data, scan_response=b"", rssi=-70, rotate=0, leaves=False):
        self.name, self.address, self.random_address = name, address, random_address
        self.interval, self.kind, self.data, self.scan_response = interval, kind, data, scan_response
        self.rssi, self.rotate, self.leaves = rssi, rotate, leaves
        self.rotated_at = 0.0

    def address_text(self):
        return ":".join("%02X" % b for b in reversed(self.address))


def random_address(rng, top_bits):
    """A random address, given by its two top bits: 0b11 static, 0b01 resolvable."""
    value = rng.getrandbits(46) | top_bits << 46
    return value.to_bytes(6, "little")


def load(path, rng):
    """The population: `devices`, each given in full, and `generate`, counts of
    made-up devices by kind (ibeacon, ruuvi, bthome, eddystone, phone, noise),
    each at an interval typical of its kind, or drawn from `intervals_s`
    ([low, high] in seconds) for all of them when it is given.

    {"devices": [{"name": "car", "address": "C0:FF:EE:00:00:01", "random": false,
                  "interval_ms": 100, "ibeacon": ["e2c56db5-...", 100, 1], "rssi": -55,
                  "leaves": true}],
     "generate": {"ibeacon": 20, "phone": 50, "noise": 100}}
    """
    spec = json.load(open(path))
    population = []
    for device in spec.get("devices", []):
        address = bytes(reversed(bytes.fromhex(device["address"].replace(":", ""))))
        if "ibeacon" in device:
            data = ibeacon(*device["ibeacon"])
        else:
            data = bytes.fromhex(device["data"])
        kind = ADV_IND if device.get("connectable", False) else ADV_NONCONN_IND
        population.append(Advertiser(device.get("name", device["address"]), address, device.get("random", False),
                                     device["interval_ms"] / 1000, kind, data,
                                     bytes.fromhex(device.get("scan_response", "")), device.get("rssi", -60),
                                     leaves=device.get("leaves", False)))
    # Made-up devices at intervals typical of each kind, in seconds.
    kinds = {
        "ibeacon": (0.1, 1.0), "ruuvi": (1.285, 1.285), "bthome": (1.0, 5.0),
        "eddystone": (0.1, 1.0), "phone": (0.2, 0.5), "noise": (0.1, 1.0),
    }
    for kind, count in sorted(spec.get("generate", {}).items()):
        low, high = spec.get("intervals_s", kinds[kind])
        for n in range(count):
            static = random_address(rng, 0b11)
            mac = bytes(reversed(static))
            data = {"ibeacon": lambda: ibeacon("%032x" % rng.getrandbits(128), n, rng.getrandbits(16)),
                    "ruuvi": lambda: ruuvi(mac, n), "bthome": lambda: bthome(n),
                    "eddystone": lambda: eddystone("%020x" % rng.getrandbits(80), "%012x" % n),
                    "phone": lambda: phone(n), "noise": lambda: noise(n)}[kind]()
            scannable = kind in ("phone", "ruuvi")
            advertiser = Advertiser("%s-%d" % (kind, n), random_address(rng, 0b01) if kind == "phone" else static, True,
                                    rng.uniform(low, high), ADV_IND if scannable else ADV_NONCONN_IND, data,
                                    manufacturer(0xFFFF, b"scan-response") if scannable else b"",
                                    rng.randint(-95, -50), rotate=900 if kind == "phone" else 0)
            population.append(advertiser)
    return population


class Controller:
    def __init__(self, population, truth, cap, batch, rng):
        self.fd = os.open("/dev/vhci", os.O_RDWR)
        self.population, self.truth, self.cap, self.batch, self.rng = population, truth, cap, batch, rng
        self.scanning, self.active, self.filter_duplicates = False, False, False
        self.reported = set()
        self.heap = []
        self.pending = []
        self.tokens, self.refilled = float(cap or 0), time.monotonic()
        self.sent = self.capped = 0
        self.left = False
        # Its own public address (least significant byte first), from the
        # PID: bluetoothd keeps adapters by address, and several of these
        # may run side by side.
        pid = os.getpid()
        self.address = bytes([pid & 0xFF, pid >> 8 & 0xFF, pid >> 16 & 0xFF, 0x00, 0x0A, 0x00])

    def write(self, packet):
        os.write(self.fd, packet)

    def event(self, code, params):
        self.write(bytes([HCI_EVENT, code, len(params)]) + params)

    def complete(self, opcode, params=b"\x00"):
        self.event(EVT_COMMAND_COMPLETE, bytes([1]) + struct.pack("<H", opcode) + params)

    def command(self, opcode, params):
        ok = b"\x00"
        replies = {
            0x1001: ok + struct.pack("<BHBHH", 0x09, 0, 0x09, 0x05F1, 0),      # Read Local Version: 5.0
            0x1002: ok + bytes(64),                                            # Read Local Supported Commands
            0x1003: ok + bytes([0, 0, 0, 0, 0x60, 0, 0, 0]),                   # Features: LE, no BR/EDR
            0x1004: ok + bytes([params[0] if params else 0, 0]) + bytes(8),    # Read Local Extended Features
            0x1005: ok + struct.pack("<HBHH", 1021, 0, 8, 0),                  # Read Buffer Size
            0x1009: ok + self.address,                                         # Read BD_ADDR
            0x0C14: ok + bytes(248),                                           # Read Local Name
            0x0C23: ok + bytes(3),                                             # Read Class of Device
            0x2002: ok + struct.pack("<HB", 251, 8),                           # LE Read Buffer Size
            0x2003: ok + bytes(8),                                             # LE Features: legacy scanning
            0x2007: ok + bytes([0]),                                           # LE Read Adv. Tx Power
            0x200F: ok + bytes([16]),                                          # LE Read Accept List Size
            0x201C: ok + bytes([0xFF] * 8),                                    # LE Read Supported States
            0x2023: ok + struct.pack("<HH", 27, 328),                          # LE Suggested Data Length
            0x202A: ok + bytes([16]),                                          # LE Read Resolving List Size
            0x202F: ok + struct.pack("<HHHH", 251, 2120, 251, 2120),          # LE Maximum Data Length
        }
        if opcode == 0x200B and len(params) >= 1:                              # LE Set Scan Parameters
            self.active = params[0] == 1
        elif opcode == 0x200C and len(params) >= 2:                            # LE Set Scan Enable
            self.enable(params[0] == 1, params[1] == 1)
        elif opcode == 0x0C03:                                                 # Reset
            self.enable(False, False)
        self.complete(opcode, replies.get(opcode, ok + bytes(16)))

    def enable(self, scanning, filter_duplicates):
        now = time.monotonic()
        if scanning and not self.scanning:
            # Each advertiser's next event comes within one interval of now.
            self.heap = [(now + self.rng.uniform(0, a.interval), i) for i, a in enumerate(self.population)]
            heapq.heapify(self.heap)
        if scanning:
            # A new enable clears the duplicate filter, as controllers do.
            self.reported.clear()
        self.scanning, self.filter_duplicates = scanning, filter_duplicates
        self.log(now, "scan", "on" if scanning else "off", "dup" if filter_duplicates else "all")
        if not scanning:
            self.flush(now)
            self.heap = []

    def log(self, _due, *fields):
        self.truth.write("%.6f %s\n" % (time.time(), " ".join(fields)))

    def leave(self, left=True):
        self.left = left
        self.log(time.monotonic(), "left" if left else "back", ",".join(a.name for a in self.population if a.leaves))
        # What was sent before is then on file for whoever reads it now.
        self.truth.flush()

    def advertise(self, now, advertiser):
        if self.left and advertiser.leaves:
            return
        if advertiser.rotate and now - advertiser.rotated_at >= advertiser.rotate:
            advertiser.address, advertiser.rotated_at = random_address(self.rng, 0b01), now
        key = (advertiser.address, advertiser.random_address)
        if self.filter_duplicates and key in self.reported:
            return
        self.reported.add(key)
        self.report(now, advertiser, advertiser.kind, advertiser.data)
        if self.active and advertiser.kind in (ADV_IND, ADV_SCAN_IND) and advertiser.scan_response:
            self.report(now, advertiser, SCAN_RSP, advertiser.scan_response)

    def report(self, now, advertiser, kind, data):
        if self.cap:
            self.tokens = min(self.cap, self.tokens + (now - self.refilled) * self.cap)
            self.refilled = now
            if self.tokens < 1:
                self.capped += 1
                return self.log(now, "capped", advertiser.address_text(), advertiser.name)
            self.tokens -= 1
        rssi = max(-127, min(20, int(self.rng.gauss(advertiser.rssi, 3))))
        self.pending.append(bytes([kind, 1 if advertiser.random_address else 0]) + advertiser.address
                            + bytes([len(data)]) + data + struct.pack("b", rssi))
        self.log(now, "sent", advertiser.address_text(), advertiser.name, "rsp" if kind == SCAN_RSP else "adv", str(rssi))
        if len(self.pending) >= self.batch:
            self.flush(now)

    def flush(self, now):
        """The pending reports, as few LE Advertising Report events as fit."""
        while self.pending:
            reports, size = [], 2
            while self.pending and len(reports) < self.batch and size + len(self.pending[0]) <= 255:
                size += len(self.pending[0])
                reports.append(self.pending.pop(0))
            if not reports:
                self.pending.pop(0)
                continue
            self.event(EVT_LE_META, bytes([LE_ADVERTISING_REPORT, len(reports)]) + b"".join(reports))
            self.sent += len(reports)

    def run(self):
        self.write(bytes([HCI_VENDOR, 0x00]))   # a primary controller
        while True:
            now = time.monotonic()
            while self.scanning and self.heap and self.heap[0][0] <= now:
                due, index = heapq.heappop(self.heap)
                advertiser = self.population[index]
                self.advertise(due, advertiser)
                heapq.heappush(self.heap, (due + advertiser.interval + self.rng.uniform(0, 0.010), index))
            self.flush(now)
            # Asleep until the next advertising event, or the host's next command.
            timeout = max(0.0, self.heap[0][0] - time.monotonic()) if self.scanning and self.heap else None
            readable, _, _ = select.select([self.fd], [], [], timeout)
            if not readable:
                continue
            packet = os.read(self.fd, 4096)
            if not packet:
                return
            if packet[0] == HCI_VENDOR and len(packet) >= 4:
                self.log(time.monotonic(), "index", str(struct.unpack("<H", packet[2:4])[0]))
                self.truth.flush()
            elif packet[0] == HCI_COMMAND and len(packet) >= 4:
                opcode, length = struct.unpack("<HB", packet[1:4])
                self.command(opcode, packet[4:4 + length])


def main():
    arguments = sys.argv[1:]
    options = {"--cap": 0, "--batch": 3, "--seed": 1}
    for option in list(options):
        if option in arguments:
            at = arguments.index(option)
            options[option] = int(arguments[at + 1])
            del arguments[at:at + 2]
    if len(arguments) != 2:
        sys.exit(__doc__)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    rng = random.Random(options["--seed"])
    population = load(arguments[0], rng)
    with open(arguments[1], "w", buffering=1 << 16) as truth:
        for advertiser in population:
            truth.write("device %s %s %.3f\n" % (advertiser.address_text(), advertiser.name, advertiser.interval))
        controller = Controller(population, truth, options["--cap"], max(1, options["--batch"]), rng)
        signal.signal(signal.SIGUSR1, lambda *_: controller.leave())
        signal.signal(signal.SIGUSR2, lambda *_: controller.leave(False))
        try:
            controller.run()
        except KeyboardInterrupt:
            pass
        finally:
            truth.write("total sent %d capped %d\n" % (controller.sent, controller.capped))


if __name__ == "__main__":
    main()
