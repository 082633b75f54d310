#ifndef WAYMARK_CQRENCODE_SHIM_H
#define WAYMARK_CQRENCODE_SHIM_H

#include <qrencode.h>

static const QRecLevel WAYMARK_QR_ECLEVEL_L = QR_ECLEVEL_L;
static const QRencodeMode WAYMARK_QR_MODE_8 = QR_MODE_8;

#endif
