'''Receives adverts the way bleak does on Linux, with dbus-fast (bleak's
D-Bus library, with its compiled unmarshaller): discovery on the adapter
with bleak's filter (LE, DuplicateData), and every Device1
PropertiesChanged and InterfacesAdded from BlueZ merged into the device's
property dict as bleak's BlueZ manager does. Writes the time and address of
each advert (one per line, buffered) and stops after SECONDS.
Usage: stack_receiver_fast.py ADAPTER_PATH SECONDS'''
import asyncio
import sys
import time

from dbus_fast import BusType, Message, MessageType, Variant, unpack_variants
from dbus_fast.aio import MessageBus

ADVERT_KEYS = {'RSSI', 'TxPower', 'ManufacturerData', 'ServiceData', 'AdvertisingData'}


async def main():
    adapter, seconds = sys.argv[1], float(sys.argv[2])
    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    devices = {}
    heard = []

    def handler(message):
        if message.message_type is not MessageType.SIGNAL:
            return
        if message.member == 'PropertiesChanged':
            interface, changed, _invalidated = message.body
            if interface != 'org.bluez.Device1':
                return
            devices.setdefault(message.path, {}).update(unpack_variants(changed))
            if ADVERT_KEYS.intersection(changed):
                heard.append((time.time(), message.path))
        elif message.member == 'InterfacesAdded':
            path, interfaces = message.body
            if 'org.bluez.Device1' in interfaces:
                devices[path] = unpack_variants(interfaces['org.bluez.Device1'])
                heard.append((time.time(), path))

    bus.add_message_handler(handler)
    for rule in ("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                 "arg0='org.bluez.Device1'",
                 "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'"):
        await bus.call(Message(destination='org.freedesktop.DBus', path='/org/freedesktop/DBus',
                               interface='org.freedesktop.DBus', member='AddMatch', signature='s', body=[rule]))
    reply = await bus.call(Message(destination='org.bluez', path=adapter, interface='org.bluez.Adapter1',
                                   member='SetDiscoveryFilter', signature='a{sv}',
                                   body=[{'Transport': Variant('s', 'le'), 'DuplicateData': Variant('b', True)}]))
    if reply.message_type is MessageType.ERROR:
        sys.exit('SetDiscoveryFilter: %s %s' % (reply.error_name, reply.body))
    reply = await bus.call(Message(destination='org.bluez', path=adapter, interface='org.bluez.Adapter1', member='StartDiscovery'))
    if reply.message_type is MessageType.ERROR:
        sys.exit('StartDiscovery: %s %s' % (reply.error_name, reply.body))
    print('discovering on', adapter, file=sys.stderr, flush=True)
    await asyncio.sleep(seconds)
    # /org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF -> AA:BB:CC:DD:EE:FF
    sys.stdout.write(''.join('%.6f %s\n' % (t, path.rsplit('/dev_', 1)[-1].replace('_', ':')) for t, path in heard))


asyncio.run(main())
