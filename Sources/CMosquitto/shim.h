#ifndef WAYMARK_CMOSQUITTO_SHIM_H
#define WAYMARK_CMOSQUITTO_SHIM_H

#include <mosquitto.h>
#include <mqtt_protocol.h>

#endif
