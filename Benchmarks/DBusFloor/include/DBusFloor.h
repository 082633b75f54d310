// The floor of a D-Bus library's receive cost, for waymark-bench: a minimal
// C receiver that reads a burst of BlueZ PropertiesChanged signals from
// DEVICE_PATH and takes out what a sighting needs (RSSI, manufacturer
// data), with nothing above the library.
#pragma once

// Receives `count` signals with `library` ("libdbus" or "sd-bus"), prints
// "ready" once its match is on the bus, then "WALL_RATE CPU_RATE" (signals
// per second from the first signal) and exits 0. Returns an exit status
// when it cannot.
int dbus_floor_receive(const char *library, const char *address, const char *device_path, long count);
