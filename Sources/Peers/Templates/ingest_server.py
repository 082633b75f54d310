# The fleet backend for tests: the account and settings calls, and sample
# ingest. It checks bearer tokens the way a resource server would check a JWT
# access token's expiry (signatures are the provider's business here), so an
# expired token gets 401. Python stdlib only.
#
#   ingest_server.py PORT
#
# Samples: POST /v1/devices/{id}/samples, gzip'd JSON; stored by
# (device_id, seq), duplicates counted.
#
# Control (from the test):
#   POST /_control/settings   the settings JSON (sent back byte for byte, so a
#                             test can send numbers Python would not print)
#   POST /_control/faults     {"queue": [fault, …], "random": p, "max_bytes": n}
#     a fault: {"kind": "500" | "503" | "429" | "401" | "400" | "close" | "delay" | "ack-drop"
#                       | "portal" | "not-ack",
#               "retry_after": s or any text, "delay": s}
#       portal: 200 text/html, as a captive portal answers, and nothing stored;
#       not-ack: 200 JSON that is not {"accepted": N}, and nothing stored.
#     queued faults apply to the next sample POSTs in order; with "random",
#     each POST gets a random one of 500, 429, close, delay, ack-drop with
#     probability p; above "max_bytes" (compressed) a POST gets 413.
#   GET  /_control/summary    {"stored", "kinds", "duplicates", "conflicts", "posts", "batch_sizes", "keys", "max_seq"}
#     duplicates: resent samples absorbed by the (device_id, seq) key;
#     conflicts: a seq that came back with different content (a reused seq)
#   GET  /_control/missing?upto=N  sequence numbers 1..N not stored (first 100)
#   GET  /_control/stored     every stored sample: [[device_id, seq, sample], …]
import base64, gzip, json, random, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

state = {
    "settings": b'{"settings": {}, "commands": []}',
    "account": {"user_id": "user-1", "vehicle_id": "vehicle-7", "api_base_url": None},
    "requests": [],
    "samples": {},
    "duplicates": 0,
    "conflicts": 0,
    "posts": 0,
    "batch_sizes": [],
    "keys": {},
    "faults": [],
    "random": 0.0,
    "max_bytes": None,
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

    def reply_raw(self, status, content_type, data, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
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
        if self.path == "/_control/summary":
            with lock:
                seqs = [seq for (_, seq) in state["samples"]]
                kinds = {}
                for sample in state["samples"].values():
                    kinds[sample.get("kind")] = kinds.get(sample.get("kind"), 0) + 1
                return self.reply(200, {"stored": len(seqs), "kinds": kinds, "duplicates": state["duplicates"], "conflicts": state["conflicts"], "posts": state["posts"],
                                        "batch_sizes": state["batch_sizes"], "keys": len(state["keys"]), "max_seq": max(seqs) if seqs else 0})
        if self.path.startswith("/_control/samples?kind="):
            kind = self.path.split("=")[1]
            with lock:
                stored = [state["samples"][key] for key in sorted(state["samples"])]
            return self.reply(200, [sample for sample in stored if sample.get("kind") == kind])
        if self.path == "/_control/stored":
            with lock:
                stored = [[device, seq, state["samples"][(device, seq)]] for (device, seq) in sorted(state["samples"])]
            return self.reply(200, stored)
        if self.path.startswith("/_control/missing?upto="):
            upto = int(self.path.split("=")[1])
            with lock:
                have = {seq for (_, seq) in state["samples"]}
            return self.reply(200, [seq for seq in range(1, upto + 1) if seq not in have][:100])
        if not self.authorized():
            return
        if self.path == "/v1/account":
            account = dict(state["account"])
            account["api_base_url"] = account["api_base_url"] or f"http://127.0.0.1:{self.server.server_port}"
            return self.reply(200, account)
        if self.path == "/v1/settings":
            return self.reply_raw(200, "application/json", state["settings"])
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path == "/_control/settings":
            with lock:
                state["settings"] = body
            return self.reply(200, {})
        if self.path == "/_control/faults":
            control = json.loads(body)
            with lock:
                state["faults"] = list(control.get("queue", []))
                state["random"] = float(control.get("random", 0))
                state["max_bytes"] = control.get("max_bytes")
            return self.reply(200, {})
        if self.path.startswith("/v1/devices/") and self.path.endswith("/samples"):
            return self.samples(body)
        self.reply(404, {"error": "not found"})

    def samples(self, body):
        with lock:
            state["posts"] += 1
            if state["faults"]:
                fault = state["faults"].pop(0)
            elif state["random"] and random.random() < state["random"]:
                fault = {"kind": random.choice(["500", "429", "close", "delay", "ack-drop"]), "retry_after": 0, "delay": 0.05}
            else:
                fault = None
            limit = state["max_bytes"]
        kind = fault and fault["kind"]
        if kind == "401":
            return self.reply(401, None)
        if not self.authorized():
            return
        if limit is not None and len(body) > limit:
            return self.reply(413, None)
        if kind == "500":
            return self.reply(500, {"error": "injected"})
        if kind == "400":
            return self.reply(400, {"error": "rejected by test"})
        if kind in ("429", "503"):
            return self.reply_raw(int(kind), "text/plain", b"", [("Retry-After", str(fault.get("retry_after", 1)))])
        if kind == "portal":
            return self.reply_raw(200, "text/html", b"<html><body>Welcome! Accept the terms to continue.</body></html>")
        if kind == "not-ack":
            return self.reply(200, {"status": "ok"})
        if kind == "close":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if kind == "delay":
            time.sleep(float(fault.get("delay", 1)))
        if self.headers.get("Content-Encoding") != "gzip":
            return self.reply(415, {"error": "gzip expected"})
        try:
            document = json.loads(gzip.decompress(body))
            device, samples = document["device_id"], document["samples"]
            first, last = samples[0]["seq"], samples[-1]["seq"]
        except Exception as error:
            return self.reply(400, {"error": f"bad body: {error}"})
        key = self.headers.get("Idempotency-Key")
        if key != f"{device}:{first}-{last}":
            return self.reply(400, {"error": "bad Idempotency-Key"})
        with lock:
            state["keys"][key] = state["keys"].get(key, 0) + 1
            state["batch_sizes"].append(len(samples))
            for sample in samples:
                index = (device, sample["seq"])
                if index in state["samples"]:
                    state["duplicates"] += 1
                    if state["samples"][index] != sample:
                        state["conflicts"] += 1
                state["samples"][index] = sample
        if kind == "ack-drop":
            # Stored, but the client never hears so: it must resend, and the
            # server must not count the resend as new samples.
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.reply(200, {"accepted": len(samples)})

server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
server.daemon_threads = True
server.serve_forever()
