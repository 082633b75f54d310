#ifndef WAYMARK_CZLIB_SHIM_H
#define WAYMARK_CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 is a macro around deflateInit2_; wrap it for Swift. */
static inline int czlib_deflate_init_gzip(z_stream *s, int level) {
    return deflateInit2(s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int czlib_inflate_init_gzip(z_stream *s) {
    return inflateInit2(s, 15 + 16);
}
#endif
