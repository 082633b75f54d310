#ifndef WAYMARK_CCURL_SHIM_H
#define WAYMARK_CCURL_SHIM_H

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

// curl_easy_setopt is variadic, which Swift cannot call; these wrappers fix
// the argument type. Response bodies and headers collect into growable
// buffers through the callbacks below.

typedef struct waymark_buffer {
    char *data;
    size_t length;
    size_t capacity;
    size_t limit;   // bytes kept at most; the rest is counted, not stored
    size_t dropped;
} waymark_buffer;

static inline size_t waymark_buffer_append(char *bytes, size_t size, size_t count, void *context) {
    waymark_buffer *buffer = (waymark_buffer *)context;
    size_t total = size * count;
    size_t room = buffer->limit > buffer->length ? buffer->limit - buffer->length : 0;
    size_t keep = total < room ? total : room;
    if (buffer->length + keep > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + keep) capacity *= 2;
        char *grown = (char *)realloc(buffer->data, capacity);
        if (grown == NULL) return 0;
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    if (keep > 0) memcpy(buffer->data + buffer->length, bytes, keep);
    buffer->length += keep;
    buffer->dropped += total - keep;
    return total;
}

static inline void waymark_buffer_free(waymark_buffer *buffer) {
    free(buffer->data);
    buffer->data = NULL;
    buffer->length = buffer->capacity = 0;
}

static inline CURLcode waymark_curl_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode waymark_curl_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode waymark_curl_headers(CURL *curl, struct curl_slist *headers) {
    return curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
}
static inline CURLcode waymark_curl_body(CURL *curl, const void *bytes, long length) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, length);
    return code != CURLE_OK ? code : curl_easy_setopt(curl, CURLOPT_COPYPOSTFIELDS, bytes);
}
static inline CURLcode waymark_curl_collect(CURL *curl, waymark_buffer *body, waymark_buffer *headers) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, waymark_buffer_append);
    if (code == CURLE_OK) code = curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
    if (code == CURLE_OK) code = curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, waymark_buffer_append);
    if (code == CURLE_OK) code = curl_easy_setopt(curl, CURLOPT_HEADERDATA, headers);
    return code;
}
static inline long waymark_curl_status(CURL *curl) {
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    return status;
}

static const CURLoption WAYMARK_CURLOPT_URL = CURLOPT_URL;
static const CURLoption WAYMARK_CURLOPT_CUSTOMREQUEST = CURLOPT_CUSTOMREQUEST;
static const CURLoption WAYMARK_CURLOPT_CAINFO = CURLOPT_CAINFO;
static const CURLoption WAYMARK_CURLOPT_CAPATH = CURLOPT_CAPATH;
static const CURLoption WAYMARK_CURLOPT_TIMEOUT_MS = CURLOPT_TIMEOUT_MS;
static const CURLoption WAYMARK_CURLOPT_CONNECTTIMEOUT_MS = CURLOPT_CONNECTTIMEOUT_MS;
static const CURLoption WAYMARK_CURLOPT_NOSIGNAL = CURLOPT_NOSIGNAL;
static const CURLoption WAYMARK_CURLOPT_SSL_VERIFYPEER = CURLOPT_SSL_VERIFYPEER;
static const CURLoption WAYMARK_CURLOPT_SSL_VERIFYHOST = CURLOPT_SSL_VERIFYHOST;
static const CURLoption WAYMARK_CURLOPT_PROTOCOLS_STR = CURLOPT_PROTOCOLS_STR;
static const CURLoption WAYMARK_CURLOPT_ERRORBUFFER = CURLOPT_ERRORBUFFER;
static const CURLoption WAYMARK_CURLOPT_ACCEPT_ENCODING = CURLOPT_ACCEPT_ENCODING;
static const CURLoption WAYMARK_CURLOPT_NOBODY = CURLOPT_NOBODY;

static inline CURLcode waymark_curl_error_buffer(CURL *curl, char *buffer) {
    return curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, buffer);
}

#endif
