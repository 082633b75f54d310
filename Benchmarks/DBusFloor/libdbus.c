#include <dbus/dbus.h>
#include <stdio.h>
#include <string.h>
#include "floor_internal.h"

// The signal's body is (s a{sv} as): the interface, then the changed
// properties; RSSI is n, ManufacturerData a{qv} with ay in each variant.
static void parse(DBusMessage *message) {
    DBusMessageIter body, changed, entry, value, companies, company, bytes, array;
    const char *interface;
    if (!dbus_message_iter_init(message, &body) || dbus_message_iter_get_arg_type(&body) != DBUS_TYPE_STRING) return;
    dbus_message_iter_get_basic(&body, &interface);
    if (strcmp(interface, "org.bluez.Device1") != 0 || !dbus_message_iter_next(&body)) return;
    dbus_int16_t rssi = 0;
    dbus_uint16_t id = 0;
    int length = 0;
    dbus_message_iter_recurse(&body, &changed);
    for (; dbus_message_iter_get_arg_type(&changed) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&changed)) {
        const char *key;
        dbus_message_iter_recurse(&changed, &entry);
        dbus_message_iter_get_basic(&entry, &key);
        dbus_message_iter_next(&entry);
        dbus_message_iter_recurse(&entry, &value);
        if (strcmp(key, "RSSI") == 0 && dbus_message_iter_get_arg_type(&value) == DBUS_TYPE_INT16) {
            dbus_message_iter_get_basic(&value, &rssi);
        } else if (strcmp(key, "ManufacturerData") == 0 && dbus_message_iter_get_arg_type(&value) == DBUS_TYPE_ARRAY) {
            dbus_message_iter_recurse(&value, &companies);
            for (; dbus_message_iter_get_arg_type(&companies) == DBUS_TYPE_DICT_ENTRY; dbus_message_iter_next(&companies)) {
                const unsigned char *data;
                dbus_message_iter_recurse(&companies, &company);
                dbus_message_iter_get_basic(&company, &id);
                dbus_message_iter_next(&company);
                dbus_message_iter_recurse(&company, &bytes);
                if (dbus_message_iter_get_arg_type(&bytes) != DBUS_TYPE_ARRAY) continue;
                dbus_message_iter_recurse(&bytes, &array);
                dbus_message_iter_get_fixed_array(&array, &data, &length);
            }
        }
    }
    floor_signal_parsed(rssi, id, (unsigned long)length);
}

int floor_receive_libdbus(const char *address, const char *rule) {
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(address, &error);
    if (connection == NULL || !dbus_bus_register(connection, &error)) {
        fprintf(stderr, "libdbus: cannot connect: %s\n", error.message ? error.message : "?");
        return 1;
    }
    dbus_bus_add_match(connection, rule, &error);
    if (dbus_error_is_set(&error)) {
        fprintf(stderr, "libdbus: AddMatch failed: %s\n", error.message);
        return 1;
    }
    floor_ready();
    // Blocks in poll() until the socket has bytes, then parses every
    // message read so far.
    while (dbus_connection_read_write(connection, -1)) {
        DBusMessage *message;
        while ((message = dbus_connection_pop_message(connection)) != NULL) {
            if (dbus_message_is_signal(message, DBUS_INTERFACE_PROPERTIES, "PropertiesChanged")) parse(message);
            dbus_message_unref(message);
        }
    }
    fprintf(stderr, "libdbus: the connection closed\n");
    return 1;
}
