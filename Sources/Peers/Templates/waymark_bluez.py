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
MONITOR_MANAGER_IFACE = 'org.bluez.AdvertisementMonitorManager1'
MONITOR_IFACE = 'org.bluez.AdvertisementMonitor1'

# Registered monitor applications per adapter path: (owner, root, [(monitor path, patterns)]).
MONITORS = {}


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
    # bluetoothd calls the monitors at once and announces the object when
    # its loop is idle (gdbus queues InterfacesAdded and PropertiesChanged).
    _report_to_monitors(path)
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
    # DeviceFound first, the change after it, as bluetoothd sends them.
    _report_to_monitors(path)
    device.EmitSignal(PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as',
                      [bluez5.DEVICE_IFACE, changed, dbus.Array([], signature='s')])


@dbus.service.method(WAYMARK_MOCK_IFACE, in_signature='o', out_signature='')
def AdvertiseUnchanged(self, path):
    '''An advert whose data and RSSI are what BlueZ already has: no
    PropertiesChanged, only DeviceFound to the monitors it matches.'''
    _report_to_monitors(path)


@dbus.service.method(WAYMARK_MOCK_IFACE, in_signature='s', out_signature='')
def OfferMonitors(self, adapter):
    '''Gives an adapter AdvertisementMonitorManager1, as bluetoothd
    --experimental does.'''
    mockobject.objects['/org/bluez/' + adapter].AddProperties(MONITOR_MANAGER_IFACE, {
        'SupportedMonitorTypes': dbus.Array(['or_patterns'], signature='s', variant_level=1),
        'SupportedFeatures': dbus.Array([], signature='s', variant_level=1),
    })


@dbus.service.method(WAYMARK_MOCK_IFACE, in_signature='s', out_signature='')
def ReleaseMonitors(self, adapter):
    '''Drops every monitor on an adapter with Release, as bluetoothd does
    with a monitor it cannot keep.'''
    for owner, _, monitors in MONITORS.pop('/org/bluez/' + adapter, []):
        for monitor, _ in monitors:
            _call_monitor(owner, monitor, 'Release')


@dbus.service.method(MONITOR_MANAGER_IFACE, in_signature='o', out_signature='', sender_keyword='sender')
def RegisterMonitor(self, application, sender=None):
    '''Reads the application's monitors as bluetoothd does (GetManagedObjects
    on its root) and activates each or_patterns monitor.'''
    if MONITOR_MANAGER_IFACE not in self.props:
        raise dbus.exceptions.DBusException('no monitors here', name='org.freedesktop.DBus.Error.UnknownMethod')
    apps = MONITORS.setdefault(self.path, [])
    if any(owner == sender and root == application for owner, root, _ in apps):
        raise dbus.exceptions.DBusException('already registered', name='org.bluez.Error.AlreadyExists')
    manager = dbus.Interface(self.connection.get_object(sender, application, introspect=False), OBJECT_MANAGER_IFACE)
    monitors = []
    for path, interfaces in manager.GetManagedObjects().items():
        monitor = interfaces.get(MONITOR_IFACE, {})
        patterns = monitor.get('Patterns') or []
        # As bluetoothd checks them: offset below 31, 1 to 31 bytes ending
        # within 31. More than 7 patterns in one monitor make bluetoothd
        # (5.66) overflow its heap; the mock refuses them instead. A refused
        # monitor is released, and the registration still succeeds.
        if monitor.get('Type') != 'or_patterns' or not 0 < len(patterns) <= 7 or any(
                int(o) >= 31 or not 0 < len(c) <= 31 - int(o) for o, _, c in patterns):
            _call_monitor(sender, str(path), 'Release')
            continue
        monitors.append((str(path), [(int(t), int(o), bytes(c)) for o, t, c in patterns]))
    apps.append((sender, str(application), monitors))
    for monitor, _ in monitors:
        _call_monitor(sender, monitor, 'Activate')


@dbus.service.method(MONITOR_MANAGER_IFACE, in_signature='o', out_signature='', sender_keyword='sender')
def UnregisterMonitor(self, application, sender=None):
    '''Forgets an application and releases its monitors.'''
    apps = MONITORS.get(self.path, [])
    for app in [a for a in apps if a[0] == sender and a[1] == application]:
        apps.remove(app)
        for monitor, _ in app[2]:
            _call_monitor(sender, monitor, 'Release')


def _call_monitor(owner, monitor, method, *args):
    bus = mockobject.objects['/'].connection
    getattr(bus.get_object(owner, monitor, introspect=False), method)(
        *args, dbus_interface=MONITOR_IFACE, ignore_reply=True)


def _ad_structures(device):
    '''The device's advert as (AD type, data) pairs: flags 0x06, as beacons
    send, then its manufacturer and 16-bit service data.'''
    props = device.props[bluez5.DEVICE_IFACE]
    structures = [(0x01, bytes([0x06]))]
    for company, data in props.get('ManufacturerData', {}).items():
        structures.append((0xFF, int(company).to_bytes(2, 'little') + bytes(data)))
    for uuid, data in props.get('ServiceData', {}).items():
        uuid = str(uuid).lower()
        if uuid.startswith('0000') and uuid.endswith('-0000-1000-8000-00805f9b34fb'):
            structures.append((0x16, int(uuid[4:8], 16).to_bytes(2, 'little') + bytes(data)))
    return structures


def _report_to_monitors(path):
    '''DeviceFound to every monitor one of whose patterns the advert matches,
    as bluetoothd does for every advert while no RSSI thresholds are set.'''
    structures = _ad_structures(mockobject.objects[path])
    for owner, _, monitors in MONITORS.get(path.rsplit('/', 1)[0], []):
        for monitor, patterns in monitors:
            if any(kind == ad_type and data[offset:offset + len(content)] == content
                   for kind, offset, content in patterns for ad_type, data in structures):
                _call_monitor(owner, monitor, 'DeviceFound', dbus.ObjectPath(path))


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
