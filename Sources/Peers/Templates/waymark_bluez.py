'''BlueZ mock for Waymark's tests: python-dbusmock's bluez5 template, plus
devices that advertise with BlueZ's real property types.

bluez5 0.28.7 declares ManufacturerData as aa{qv} and ServiceData as aa{sv};
BlueZ sends a{qv} and a{sv}. The methods here build devices and updates with
the right types and emit the signals BlueZ would emit.
'''

import dbus

from dbusmock import OBJECT_MANAGER_IFACE, mockobject
from dbusmock.templates.bluez5 import *  # noqa: F401,F403 (methods and constants)
from dbusmock.templates import bluez5

WAYMARK_MOCK_IFACE = 'io.waymark.BlueZMock'
PROPERTIES_IFACE = 'org.freedesktop.DBus.Properties'


def load(mock, parameters):
    bluez5.load(mock, parameters)


def _manufacturer(data):
    return dbus.Dictionary({dbus.UInt16(k): dbus.Array([dbus.Byte(b) for b in v], signature='y')
                            for k, v in data.items()}, signature='qv', variant_level=1)


def _service(data):
    return dbus.Dictionary({dbus.String(k): dbus.Array([dbus.Byte(b) for b in v], signature='y')
                            for k, v in data.items()}, signature='sv', variant_level=1)


@dbus.service.method(WAYMARK_MOCK_IFACE, in_signature='sssa{qv}a{sv}n', out_signature='o')
def AddAdvertisingDevice(self, adapter, address, name, manufacturer, service, rssi):
    '''Adds a device that is advertising, announced with InterfacesAdded.'''
    adapter_path = '/org/bluez/' + adapter
    if adapter_path not in mockobject.objects:
        raise dbus.exceptions.DBusException(f'Adapter {adapter} does not exist.',
                                            name='org.bluez.Mock.NoSuchAdapter')
    path = adapter_path + '/dev_' + address.replace(':', '_').upper()
    properties = {
        'Address': dbus.String(address, variant_level=1),
        'AddressType': dbus.String('random', variant_level=1),
        'Name': dbus.String(name, variant_level=1),
        'Alias': dbus.String(name, variant_level=1),
        'Adapter': dbus.ObjectPath(adapter_path, variant_level=1),
        'Paired': dbus.Boolean(False, variant_level=1),
        'Connected': dbus.Boolean(False, variant_level=1),
        'Trusted': dbus.Boolean(False, variant_level=1),
        'Blocked': dbus.Boolean(False, variant_level=1),
        'LegacyPairing': dbus.Boolean(False, variant_level=1),
        'ServicesResolved': dbus.Boolean(False, variant_level=1),
        'UUIDs': dbus.Array([], signature='s', variant_level=1),
        'RSSI': dbus.Int16(rssi, variant_level=1),
        'TxPower': dbus.Int16(4, variant_level=1),
        'ManufacturerData': _manufacturer(manufacturer),
        'ServiceData': _service(service),
    }
    self.AddObject(path, bluez5.DEVICE_IFACE, properties, [
        ('Connect', '', '', ''),
        ('Disconnect', '', '', ''),
    ])
    mockobject.objects['/'].EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}',
                                       [dbus.ObjectPath(path), {bluez5.DEVICE_IFACE: properties}])
    return path


@dbus.service.method(WAYMARK_MOCK_IFACE, in_signature='oa{qv}a{sv}n', out_signature='')
def Advertise(self, path, manufacturer, service, rssi):
    '''Updates a device's advertisement as BlueZ does: one PropertiesChanged.'''
    device = mockobject.objects[path]
    changed = {'RSSI': dbus.Int16(rssi, variant_level=1)}
    if manufacturer:
        changed['ManufacturerData'] = _manufacturer(manufacturer)
    if service:
        changed['ServiceData'] = _service(service)
    device.props[bluez5.DEVICE_IFACE].update(changed)
    device.EmitSignal(PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as',
                      [bluez5.DEVICE_IFACE, changed, dbus.Array([], signature='s')])


@dbus.service.method(WAYMARK_MOCK_IFACE, in_signature='ou', out_signature='')
def EmitBurst(self, path, count):
    '''Emits `count` PropertiesChanged signals from inside the mock, each with
    a distinct RSSI and manufacturer payload, for throughput measurements.'''
    device = mockobject.objects[path]
    for i in range(count):
        payload = dbus.Array([dbus.Byte(b) for b in i.to_bytes(4, 'little')], signature='y')
        changed = {
            'RSSI': dbus.Int16(-40 - (i % 60), variant_level=1),
            'ManufacturerData': dbus.Dictionary({dbus.UInt16(0xFFFF): payload}, signature='qv', variant_level=1),
        }
        device.EmitSignal(PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as',
                          [bluez5.DEVICE_IFACE, changed, dbus.Array([], signature='s')])


@dbus.service.method(WAYMARK_MOCK_IFACE, in_signature='su', out_signature='')
def EmitDeviceBurst(self, adapter, count):
    '''Announces `count` advertising devices with InterfacesAdded, without
    keeping them as objects, for memory measurements. Each call continues the
    address sequence of the last, so every device is new.'''
    adapter_path = '/org/bluez/' + adapter
    manager = mockobject.objects['/']
    for i in range(count):
        address = ':'.join(f'{b:02X}' for b in (0xC0, 0xDE) + tuple((i + EmitDeviceBurst.offset).to_bytes(4, 'big')))
        path = adapter_path + '/dev_' + address.replace(':', '_')
        payload = dbus.Array([dbus.Byte(b) for b in i.to_bytes(4, 'little')], signature='y')
        properties = {
            'Address': dbus.String(address, variant_level=1),
            'AddressType': dbus.String('random', variant_level=1),
            'RSSI': dbus.Int16(-40 - (i % 60), variant_level=1),
            'ManufacturerData': dbus.Dictionary({dbus.UInt16(0xFFFF): payload}, signature='qv', variant_level=1),
        }
        manager.EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}',
                           [dbus.ObjectPath(path), {bluez5.DEVICE_IFACE: properties}])
    EmitDeviceBurst.offset += count


EmitDeviceBurst.offset = 0
