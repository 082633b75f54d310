'''Receives a burst of BlueZ PropertiesChanged signals with dbus-python, turning
each into a dict the way a bleak-style client does, and prints the rate
per wall-clock second and per CPU second.
Usage: burst_receiver.py BUS_ADDRESS DEVICE_PATH COUNT'''
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

address, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(address)
loop = GLib.MainLoop()
state = {'n': 0, 'first': 0.0, 'cpu': 0.0}


def changed(interface, properties, invalidated, path=None):
    if interface != 'org.bluez.Device1':
        return
    sighting = {str(k): (bytes(v[0xFFFF]) if k == 'ManufacturerData' else int(v)) for k, v in properties.items()}
    if not sighting:
        return
    state['n'] += 1
    if state['n'] == 1:
        state['first'] = time.perf_counter()
        state['cpu'] = time.process_time()
    if state['n'] == count:
        wall = time.perf_counter() - state['first']
        cpu = time.process_time() - state['cpu']
        print((count - 1) / wall, (count - 1) / cpu, flush=True)
        loop.quit()


bus.add_signal_receiver(changed, 'PropertiesChanged', 'org.freedesktop.DBus.Properties', 'org.bluez', path, path_keyword='path')
# A round trip, so the match rule is in place before we say we are ready.
bus.get_object('org.freedesktop.DBus', '/org/freedesktop/DBus').GetId(dbus_interface='org.freedesktop.DBus')
print('ready', flush=True)
loop.run()
