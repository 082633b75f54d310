#ifndef WAYMARK_CGPS_SHIM_H
#define WAYMARK_CGPS_SHIM_H

#include <gps.h>
#include <stdlib.h>
#include <string.h>

// libgps (gpsd's client library) decodes one JSON report into a
// gps_data_t. These helpers keep Swift away from its fixed-size arrays.

static inline struct gps_data_t *waymark_gps_new(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}

/* Exported by libgps.so but not declared in gps.h: decodes one report.
   gps_unpack calls it in a loop that never ends when a malformed report
   leaves its end pointer where it was (libgps 3.22); one call is all a
   line needs. */
extern int libgps_json_unpack(const char *, struct gps_data_t *, const char **);

/// Clears what tells one report from the next, then decodes `line` (NUL-terminated).
static inline void waymark_gps_unpack(struct gps_data_t *data, char *line) {
    data->set = 0;
    data->dev.path[0] = '\0';
    data->dev.activated.tv_sec = 0;
    data->dev.activated.tv_nsec = 0;
    data->devices.ndevices = 0;
    data->error[0] = '\0';
    const char *end = NULL;
    (void)libgps_json_unpack(line, data, &end);
}

static inline const char *waymark_gps_device_path(const struct gps_data_t *data) { return data->dev.path; }
static inline int waymark_gps_device_active(const struct gps_data_t *data) {
    return data->dev.activated.tv_sec != 0 || data->dev.activated.tv_nsec != 0;
}
static inline int waymark_gps_device_count(const struct gps_data_t *data) {
    int count = data->devices.ndevices;
    return count < 0 ? 0 : (count > MAXUSERDEVS ? MAXUSERDEVS : count);
}
static inline const char *waymark_gps_devices_path(const struct gps_data_t *data, int index) {
    return data->devices.list[index].path;
}
static inline int waymark_gps_devices_active(const struct gps_data_t *data, int index) {
    return data->devices.list[index].activated.tv_sec != 0 || data->devices.list[index].activated.tv_nsec != 0;
}
static inline const char *waymark_gps_error(const struct gps_data_t *data) { return data->error; }
static inline const char *waymark_gps_release(const struct gps_data_t *data) { return data->version.release; }
static inline unsigned long long waymark_gps_time_set(void) { return TIME_SET; }
static inline unsigned long long waymark_gps_mode_set(void) { return MODE_SET; }
static inline unsigned long long waymark_gps_status_set(void) { return STATUS_SET; }

#endif
