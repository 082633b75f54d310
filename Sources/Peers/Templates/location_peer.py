# Baselines for the location bench: pynmea2 (PyPI) parsing NMEA sentences,
# and gpsd's own Python client (Debian python3-gps) unpacking JSON reports.
# Prints "rate parsed" for the lines in the file.
import sys, time
mode, path = sys.argv[1], sys.argv[2]
lines = [l.rstrip("\r\n") for l in open(path, encoding="latin-1") if l.strip()]
if mode == "nmea":
    import pynmea2
    def parse(line):
        try:
            return pynmea2.parse(line, check=True)
        except pynmea2.ParseError:
            return None
else:
    from gps.client import gpsjson
    client = gpsjson()
    def parse(line):
        client.unpack(line)
        return client.data
ok = 0
t = time.perf_counter()
for line in lines:
    if parse(line) is not None:
        ok += 1
dt = time.perf_counter() - t
print(len(lines) / dt, ok)
