# A misconfigured or hostile identity provider for tests: a proxy in front
# of a real glewlwyd that rewrites what glewlwyd says. Python stdlib only.
#
#   oidc_fault_proxy.py PORT UPSTREAM_PORT
#
# Every request is forwarded to 127.0.0.1:UPSTREAM_PORT. The discovery
# document comes back with the upstream's address replaced by the proxy's,
# so every endpoint goes through here.
#
# Control (from the test):
#   POST /_control/faults {"discovery": {key: value, ...},     set in the discovery document
#                          "token": {"grant": "refresh_token" | "password" | null (any),
#                                    "drop": [key, ...], "set": {key: "raw JSON text"}},
#                          "delay": {"grant": g, "seconds": s},  hold token answers after
#                                                                glewlwyd has given them
#                          "delay_revocation": s}                hold revocations this long
#                                                                before glewlwyd sees them
#   GET  /_control/counts   {"grant type": requests seen, ...}
#   GET  /_control/last     the last token answer's body, as sent upstream
import http.client, json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

port, upstream = int(sys.argv[1]), int(sys.argv[2])
state = {"faults": {}, "counts": {}, "last": b""}
lock = threading.Lock()

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_control/counts":
            with lock:
                return self.reply(200, json.dumps(state["counts"]).encode())
        if self.path == "/_control/last":
            with lock:
                return self.reply(200, state["last"])
        self.forward(b"")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/_control/faults":
            with lock:
                state["faults"] = json.loads(body)
            return self.reply(200, b"{}")
        self.forward(body)

    def forward(self, body):
        grant = parse_qs(body.decode(errors="replace")).get("grant_type", [None])[0]
        if grant:
            with lock:
                state["counts"][grant] = state["counts"].get(grant, 0) + 1
        with lock:
            faults = state["faults"]
        # A revocation (RFC 7009) held before the provider acts on it.
        if not grant and "token_type_hint" in parse_qs(body.decode(errors="replace")) and faults.get("delay_revocation"):
            time.sleep(float(faults["delay_revocation"]))
        connection = http.client.HTTPConnection("127.0.0.1", upstream, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
        connection.request(self.command, self.path, body=body or None, headers=headers)
        response = connection.getresponse()
        data = response.read()
        passed = [(k, v) for k, v in response.getheaders() if k.lower() not in ("content-length", "transfer-encoding", "connection")]
        if self.path.endswith("/.well-known/openid-configuration") and response.status == 200:
            text = data.decode().replace(f"127.0.0.1:{upstream}", f"127.0.0.1:{port}")
            document = json.loads(text)
            document.update(faults.get("discovery", {}))
            data = json.dumps(document).encode()
        token = faults.get("token")
        if grant and response.status == 200 and token and token.get("grant") in (None, grant):
            document = json.loads(data)
            for key in token.get("drop", []) + list(token.get("set", {})):
                document.pop(key, None)
            text = json.dumps(document)[:-1]
            for key, raw in token.get("set", {}).items():
                text += f', "{key}": {raw}'
            data = (text + "}").encode()
        if grant:
            with lock:
                state["last"] = data
        # The provider has acted (issued, rotated); only its answer is late.
        delay = faults.get("delay")
        if grant and delay and delay.get("grant") in (None, grant):
            time.sleep(float(delay["seconds"]))
        self.reply(response.status, data, passed)

server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
server.daemon_threads = True
server.serve_forever()
