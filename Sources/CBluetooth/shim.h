#ifndef WAYMARK_CBLUETOOTH_SHIM_H
#define WAYMARK_CBLUETOOTH_SHIM_H
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#endif
