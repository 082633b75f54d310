// Shared by the two receivers and floor.c.
#pragma once
#include <stdint.h>

// Counts one parsed signal. At the first it notes the clocks; at the
// expected count it prints "WALL_RATE CPU_RATE" (signals per second) and
// exits, as the bench's other receivers do.
void floor_signal_parsed(int16_t rssi, uint16_t company, unsigned long length);
// Prints "ready" once the match is on the bus.
void floor_ready(void);

int floor_receive_libdbus(const char *address, const char *rule);
int floor_receive_sdbus(const char *address, const char *rule);
