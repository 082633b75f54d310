#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "DBusFloor.h"
#include "floor_internal.h"

static long expected, parsed;
static double wall_start, cpu_start;
static volatile long kept;

static double seconds(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

void floor_signal_parsed(int16_t rssi, uint16_t company, unsigned long length) {
    // What was read goes somewhere, so that the compiler keeps the reading.
    kept += rssi + company + (long)length;
    if (++parsed == 1) {
        wall_start = seconds(CLOCK_MONOTONIC);
        cpu_start = seconds(CLOCK_PROCESS_CPUTIME_ID);
    }
    if (parsed == expected) {
        double wall = seconds(CLOCK_MONOTONIC) - wall_start, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
        printf("%f %f\n", (double)(expected - 1) / wall, (double)(expected - 1) / cpu);
        fflush(stdout);
        exit(0);
    }
}

void floor_ready(void) {
    printf("ready\n");
    fflush(stdout);
}

int dbus_floor_receive(const char *library, const char *address, const char *device_path, long count) {
    if (count < 2) {
        fprintf(stderr, "dbus floor: the count must be 2 or more\n");
        return 2;
    }
    expected = count;
    char rule[512];
    snprintf(rule, sizeof rule,
             "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='%s'", device_path);
    if (strcmp(library, "libdbus") == 0) return floor_receive_libdbus(address, rule);
    if (strcmp(library, "sd-bus") == 0) return floor_receive_sdbus(address, rule);
    fprintf(stderr, "dbus floor: unknown library %s\n", library);
    return 2;
}
