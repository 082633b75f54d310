# An https server that publishes an OIDC discovery document, for TLS tests.
#   tls_issuer.py PORT CERT.pem KEY.pem
import json, ssl, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
issuer = f"https://127.0.0.1:{port}"

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path != "/.well-known/openid-configuration":
            self.send_response(404)
            self.end_headers()
            return
        body = json.dumps({"issuer": issuer, "token_endpoint": issuer + "/token"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
