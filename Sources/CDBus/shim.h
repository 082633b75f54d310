#ifndef WAYMARK_CDBUS_SHIM_H
#define WAYMARK_CDBUS_SHIM_H
#include <stdint.h>
#include <dbus/dbus.h>

/* libdbus's type codes are macros that Swift cannot import; re-export them. */
static const int CDBUS_TYPE_INVALID = DBUS_TYPE_INVALID;
static const int CDBUS_TYPE_BYTE = DBUS_TYPE_BYTE;
static const int CDBUS_TYPE_BOOLEAN = DBUS_TYPE_BOOLEAN;
static const int CDBUS_TYPE_INT16 = DBUS_TYPE_INT16;
static const int CDBUS_TYPE_UINT16 = DBUS_TYPE_UINT16;
static const int CDBUS_TYPE_INT32 = DBUS_TYPE_INT32;
static const int CDBUS_TYPE_UINT32 = DBUS_TYPE_UINT32;
static const int CDBUS_TYPE_INT64 = DBUS_TYPE_INT64;
static const int CDBUS_TYPE_UINT64 = DBUS_TYPE_UINT64;
static const int CDBUS_TYPE_DOUBLE = DBUS_TYPE_DOUBLE;
static const int CDBUS_TYPE_STRING = DBUS_TYPE_STRING;
static const int CDBUS_TYPE_OBJECT_PATH = DBUS_TYPE_OBJECT_PATH;
static const int CDBUS_TYPE_SIGNATURE = DBUS_TYPE_SIGNATURE;
static const int CDBUS_TYPE_UNIX_FD = DBUS_TYPE_UNIX_FD;
static const int CDBUS_TYPE_ARRAY = DBUS_TYPE_ARRAY;
static const int CDBUS_TYPE_VARIANT = DBUS_TYPE_VARIANT;
static const int CDBUS_TYPE_STRUCT = DBUS_TYPE_STRUCT;
static const int CDBUS_TYPE_DICT_ENTRY = DBUS_TYPE_DICT_ENTRY;

static const int CDBUS_MESSAGE_TYPE_METHOD_CALL = DBUS_MESSAGE_TYPE_METHOD_CALL;
static const int CDBUS_MESSAGE_TYPE_METHOD_RETURN = DBUS_MESSAGE_TYPE_METHOD_RETURN;
static const int CDBUS_MESSAGE_TYPE_ERROR = DBUS_MESSAGE_TYPE_ERROR;
static const int CDBUS_MESSAGE_TYPE_SIGNAL = DBUS_MESSAGE_TYPE_SIGNAL;

static const int CDBUS_TIMEOUT_INFINITE = DBUS_TIMEOUT_INFINITE;
static const unsigned int CDBUS_WATCH_READABLE = DBUS_WATCH_READABLE;
static const unsigned int CDBUS_WATCH_WRITABLE = DBUS_WATCH_WRITABLE;
static const unsigned int CDBUS_WATCH_ERROR = DBUS_WATCH_ERROR;
static const unsigned int CDBUS_WATCH_HANGUP = DBUS_WATCH_HANGUP;

/* DBusMessageIter is a fixed-size struct; give Swift a zeroed one. */
static inline DBusMessageIter cdbus_iter_zero(void) {
    DBusMessageIter it = {0};
    return it;
}

/* Fixed-size basic values are appended through a pointer to one; these keep
   the Swift side free of untyped pointer juggling. */
static inline dbus_bool_t cdbus_append_u64(DBusMessageIter *it, int type, uint64_t v) {
    DBusBasicValue b;
    switch (type) {
    case DBUS_TYPE_BYTE: b.byt = (unsigned char)v; break;
    case DBUS_TYPE_BOOLEAN: b.bool_val = v != 0; break;
    case DBUS_TYPE_INT16: b.i16 = (dbus_int16_t)v; break;
    case DBUS_TYPE_UINT16: b.u16 = (dbus_uint16_t)v; break;
    case DBUS_TYPE_INT32: case DBUS_TYPE_UNIX_FD: b.i32 = (dbus_int32_t)v; break;
    case DBUS_TYPE_UINT32: b.u32 = (dbus_uint32_t)v; break;
    case DBUS_TYPE_INT64: b.i64 = (dbus_int64_t)v; break;
    case DBUS_TYPE_UINT64: b.u64 = (dbus_uint64_t)v; break;
    default: return 0;
    }
    return dbus_message_iter_append_basic(it, type, &b);
}
static inline dbus_bool_t cdbus_append_double(DBusMessageIter *it, double v) {
    return dbus_message_iter_append_basic(it, DBUS_TYPE_DOUBLE, &v);
}
static inline dbus_bool_t cdbus_append_string(DBusMessageIter *it, int type, const char *v) {
    return dbus_message_iter_append_basic(it, type, &v);
}
static inline dbus_bool_t cdbus_append_bytes(DBusMessageIter *it, const unsigned char *bytes, int n) {
    DBusMessageIter sub;
    if (!dbus_message_iter_open_container(it, DBUS_TYPE_ARRAY, "y", &sub)) return 0;
    if (!dbus_message_iter_append_fixed_array(&sub, DBUS_TYPE_BYTE, &bytes, n)) {
        dbus_message_iter_abandon_container(it, &sub);
        return 0;
    }
    return dbus_message_iter_close_container(it, &sub);
}
/* Reads any fixed-size basic value widened to 64 bits (the caller knows the type). */
static inline uint64_t cdbus_get_u64(DBusMessageIter *it, int type) {
    DBusBasicValue v = {0};
    dbus_message_iter_get_basic(it, &v);
    switch (type) {
    case DBUS_TYPE_BYTE: return v.byt;
    case DBUS_TYPE_BOOLEAN: return v.bool_val;
    case DBUS_TYPE_INT16: return (dbus_uint64_t)(dbus_int64_t)v.i16;
    case DBUS_TYPE_UINT16: return v.u16;
    case DBUS_TYPE_INT32: return (dbus_uint64_t)(dbus_int64_t)v.i32;
    case DBUS_TYPE_UINT32: case DBUS_TYPE_UNIX_FD: return v.u32;
    default: return v.u64;
    }
}
static inline double cdbus_get_double(DBusMessageIter *it) {
    double v = 0;
    dbus_message_iter_get_basic(it, &v);
    return v;
}
static inline const char *cdbus_get_string(DBusMessageIter *it) {
    const char *v = 0;
    dbus_message_iter_get_basic(it, &v);
    return v;
}
static inline int cdbus_get_bytes(DBusMessageIter *it, const unsigned char **out) {
    int n = 0;
    dbus_message_iter_get_fixed_array(it, out, &n);
    return n;
}
#endif
