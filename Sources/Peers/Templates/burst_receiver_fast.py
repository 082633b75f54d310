'''Receives a burst of BlueZ PropertiesChanged signals with dbus-fast, the
D-Bus library of bleak (with its compiled unmarshaller), merging each into
the device's property dict as bleak's BlueZ manager does, and prints the
rate per wall-clock second and per CPU second.
Usage: burst_receiver_fast.py BUS_ADDRESS DEVICE_PATH COUNT'''
import asyncio
import sys
import time

from dbus_fast import Message, MessageType, unpack_variants
from dbus_fast.aio import MessageBus


async def main():
    address, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    bus = await MessageBus(bus_address=address).connect()
    done = asyncio.get_running_loop().create_future()
    devices = {}
    state = {'n': 0, 'first': 0.0, 'cpu': 0.0}

    def handler(message):
        if message.message_type is not MessageType.SIGNAL or message.member != 'PropertiesChanged':
            return
        interface, changed, _invalidated = message.body
        if interface != 'org.bluez.Device1':
            return
        devices.setdefault(message.path, {}).update(unpack_variants(changed))
        state['n'] += 1
        if state['n'] == 1:
            state['first'] = time.perf_counter()
            state['cpu'] = time.process_time()
        if state['n'] == count and not done.done():
            wall = time.perf_counter() - state['first']
            cpu = time.process_time() - state['cpu']
            done.set_result(((count - 1) / wall, (count - 1) / cpu))

    bus.add_message_handler(handler)
    rule = ("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
            "member='PropertiesChanged',path='%s'" % path)
    await bus.call(Message(destination='org.freedesktop.DBus', path='/org/freedesktop/DBus',
                           interface='org.freedesktop.DBus', member='AddMatch', signature='s', body=[rule]))
    print('ready', flush=True)
    wall, cpu = await done
    print(wall, cpu, flush=True)


asyncio.run(main())
