# The fleet backend for tests: the account and settings calls, and sample
# ingest. It checks bearer tokens the way a resource server would check a JWT
# access token's expiry (signatures are the provider's business here), so an
# expired token gets 401. Python stdlib only.
#
#   ingest_server.py PORT
#
# Control (from the test): POST /_control/settings with the settings JSON.
import base64, json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

state = {
    "settings": {"settings": {"gap_threshold_s": 60}, "commands": []},
    "account": {"user_id": "user-1", "vehicle_id": "vehicle-7", "api_base_url": None},
    "requests": [],
}
lock = threading.Lock()

def token_expired(token):
    try:
        payload = token.split(".")[1]
        payload += "=" * (-len(payload) % 4)
        claims = json.loads(base64.urlsafe_b64decode(payload))
        return claims.get("exp", 0) <= time.time()
    except Exception:
        return True

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        header = self.headers.get("Authorization", "")
        if not header.startswith("Bearer ") or token_expired(header[7:]):
            self.reply(401, {"error": "invalid_token"})
            return False
        return True

    def do_GET(self):
        with lock:
            state["requests"].append(("GET", self.path))
        if self.path == "/_control/requests":
            return self.reply(200, state["requests"])
        if not self.authorized():
            return
        if self.path == "/v1/account":
            account = dict(state["account"])
            account["api_base_url"] = account["api_base_url"] or f"http://127.0.0.1:{self.server.server_port}"
            return self.reply(200, account)
        if self.path == "/v1/settings":
            return self.reply(200, state["settings"])
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path == "/_control/settings":
            with lock:
                state["settings"] = json.loads(body)
            return self.reply(200, {})
        self.reply(404, {"error": "not found"})

server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
server.daemon_threads = True
server.serve_forever()
