import sys, time
fmt, path = sys.argv[1], sys.argv[2]
payloads = [bytes.fromhex(l.strip()) for l in open(path) if l.strip()]
from habluetooth.models import BluetoothServiceInfoBleak
def info(m=None, s=None):
    return BluetoothServiceInfoBleak(name="tag", address="0000000000", rssi=-60, manufacturer_data=m or {}, service_data=s or {},
                                     service_uuids=[], source="local", device=None, advertisement=None, connectable=False,
                                     time=0.0, tx_power=None)
if fmt == "ibeacon":
    from ibeacon_ble import iBeaconParser
    p = iBeaconParser()
    infos = [info(m={76: d}) for d in payloads]
    fn = p.parse
elif fmt == "ruuvi":
    from ruuvitag_ble import RuuvitagBluetoothDeviceData
    p = RuuvitagBluetoothDeviceData()
    infos = [info(m={0x0499: d}) for d in payloads]
    fn = p.update
elif fmt == "bthome":
    from bthome_ble import BTHomeBluetoothDeviceData
    p = BTHomeBluetoothDeviceData()
    infos = [info(s={"0000fcd2-0000-1000-8000-00805f9b34fb": d}) for d in payloads]
    fn = p.update
elif fmt == "eddystone-tlm":
    from beacontools import parse_packet
    infos = [bytes.fromhex("020106" "0303aafe") + bytes([len(d) + 3, 0x16, 0xaa, 0xfe]) + d for d in payloads]
    fn = parse_packet
ok = 0
t = time.perf_counter()
for i in infos:
    if fn(i) is not None: ok += 1
dt = time.perf_counter() - t
print(len(infos) / dt, ok)
