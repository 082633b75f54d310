#!/usr/bin/python3
"""A map tile server standing in for OpenStreetMap's in the report's tests.

Serves GET /{z}/{x}/{y}.png: a 256x256 PNG of one light green, with a
darker border, for any z, x and y; each request is logged to stderr.
Usage: tile_server.py PORT
"""
import http.server
import struct
import sys
import zlib


def png(width, height, pixel):
    """An 8-bit RGB PNG; pixel(x, y) gives each (r, g, b)."""
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


TILE = png(256, 256, lambda x, y: (120, 170, 120) if x < 2 or y < 2 else (200, 230, 200))


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        parts = self.path.split("?")[0].strip("/").split("/")
        if len(parts) == 3 and parts[2].endswith(".png") and all(p.isdigit() for p in (parts[0], parts[1], parts[2][:-4])):
            body, kind = TILE, "image/png"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        sys.stderr.write("%s\n" % (format % args))


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
