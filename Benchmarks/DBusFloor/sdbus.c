#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include "floor_internal.h"

// The same reading as libdbus.c, with sd-bus's container calls.
static int on_signal(sd_bus_message *message, void *context, sd_bus_error *failure) {
    (void)context;
    (void)failure;
    const char *interface;
    if (sd_bus_message_read(message, "s", &interface) < 0 || strcmp(interface, "org.bluez.Device1") != 0) return 0;
    if (sd_bus_message_enter_container(message, 'a', "{sv}") < 0) return 0;
    int16_t rssi = 0;
    uint16_t id = 0;
    size_t length = 0;
    while (sd_bus_message_enter_container(message, 'e', "sv") > 0) {
        const char *key;
        if (sd_bus_message_read(message, "s", &key) < 0) return 0;
        if (strcmp(key, "RSSI") == 0) {
            if (sd_bus_message_read(message, "v", "n", &rssi) < 0) return 0;
        } else if (strcmp(key, "ManufacturerData") == 0) {
            if (sd_bus_message_enter_container(message, 'v', "a{qv}") < 0) return 0;
            if (sd_bus_message_enter_container(message, 'a', "{qv}") < 0) return 0;
            while (sd_bus_message_enter_container(message, 'e', "qv") > 0) {
                const void *data;
                if (sd_bus_message_read(message, "q", &id) < 0) return 0;
                if (sd_bus_message_enter_container(message, 'v', "ay") < 0) return 0;
                if (sd_bus_message_read_array(message, 'y', &data, &length) < 0) return 0;
                sd_bus_message_exit_container(message);
                sd_bus_message_exit_container(message);
            }
            sd_bus_message_exit_container(message);
            sd_bus_message_exit_container(message);
        } else if (sd_bus_message_skip(message, "v") < 0) {
            return 0;
        }
        sd_bus_message_exit_container(message);
    }
    floor_signal_parsed(rssi, id, (unsigned long)length);
    return 0;
}

int floor_receive_sdbus(const char *address, const char *rule) {
    sd_bus *bus = NULL;
    int result = sd_bus_new(&bus);
    if (result >= 0) result = sd_bus_set_address(bus, address);
    if (result >= 0) result = sd_bus_set_bus_client(bus, 1);
    if (result >= 0) result = sd_bus_start(bus);
    if (result >= 0) result = sd_bus_add_match(bus, NULL, rule, on_signal, NULL);
    if (result < 0) {
        fprintf(stderr, "sd-bus: cannot connect and match: %s\n", strerror(-result));
        return 1;
    }
    floor_ready();
    // sd_bus_process handles one message per call; sd_bus_wait blocks in
    // poll() when none is left.
    for (;;) {
        result = sd_bus_process(bus, NULL);
        if (result < 0) break;
        if (result == 0 && sd_bus_wait(bus, UINT64_MAX) < 0) break;
    }
    fprintf(stderr, "sd-bus: the connection failed: %s\n", strerror(-result));
    return 1;
}
