# Drives a private glewlwyd through its REST API, as an administrator and as
# a user would: seeds the OIDC plugin, a user and a client, approves device
# codes, revokes tokens. Python stdlib only.
#
#   glewlwyd_admin.py URL seed ISSUER ACCESS_S REFRESH_ONE_USE(0|1) KEY.pem CERT.pem
#   glewlwyd_admin.py URL approve USER_CODE
#   glewlwyd_admin.py URL revoke-all
import http.cookiejar, json, sys, urllib.request, urllib.error

base = sys.argv[1].rstrip("/") + "/api"
command = sys.argv[2]
USER, PASSWORD = "driver", "driver-password"
CLIENT, SECRET = "waymark", "waymark-secret"
SCOPES = ["openid", "waymark"]

class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None

def session(username, password):
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    call(opener, "POST", "/auth/", {"username": username, "password": password})
    return opener

def call(opener, method, path, body=None, ok=(200,)):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with opener.open(request) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    if status not in ok:
        sys.exit(f"{method} {path}: {status} {text[:300]}")
    return json.loads(text) if text.strip().startswith(("{", "[")) else text

if command == "seed":
    issuer, access, one_use = sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
    key, cert = open(sys.argv[6]).read(), open(sys.argv[7]).read()
    admin = session("admin", "password")
    call(admin, "POST", "/mod/plugin/", {
        "module": "oidc", "name": "oidc", "display_name": "oidc", "enabled": True,
        "parameters": {
            "iss": issuer, "jwt-type": "rsa", "jwt-key-size": "256", "key": key, "cert": cert,
            "access-token-duration": access, "refresh-token-duration": 1209600, "code-duration": 600,
            "refresh-token-rolling": True, "refresh-token-one-use": "always" if one_use else "never",
            "allow-non-oidc": True,
            "auth-type-code-enabled": True, "auth-type-token-enabled": False, "auth-type-id-token-enabled": True,
            "auth-type-none-enabled": False, "auth-type-implicit-enabled": False, "auth-type-password-enabled": True, "auth-type-client-enabled": False,
            "auth-type-device-enabled": True, "auth-type-refresh-enabled": True,
            "device-authorization-expiration": 6, "device-authorization-interval": 1,
            "introspection-revocation-allowed": True, "introspection-revocation-allow-target-client": True,
            "introspection-revocation-auth-scope": [],
            "name-claim": "mandatory", "email-claim": "mandatory",
            "allowed-scope": SCOPES,
        }})
    call(admin, "POST", "/scope/", {"name": "waymark", "display_name": "waymark", "description": "vehicle gateway",
                                    "password_required": False, "scheme": {}})
    call(admin, "POST", "/user/", {"username": USER, "password": PASSWORD, "name": "Dana Driver",
                                   "email": "dana@example.test", "enabled": True, "scope": SCOPES})
    # Without token_endpoint_auth_method, glewlwyd 2.7.5 refuses every
    # authenticated request from a confidential client.
    call(admin, "POST", "/client/", {"client_id": CLIENT, "name": "Waymark gateway", "client_secret": SECRET,
                                     "confidential": True, "enabled": True,
                                     "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"],
                                     "authorization_type": ["device_authorization", "password", "refresh_token", "delete_token"],
                                     "scope": SCOPES})
elif command == "approve":
    user = session(USER, PASSWORD)
    call(user, "PUT", f"/auth/grant/{CLIENT}", {"scope": " ".join(SCOPES)})
    call(user, "GET", f"/oidc/device?code={sys.argv[3]}&g_continue", ok=(200, 302))
elif command == "revoke-all":
    user = session(USER, PASSWORD)
    for token in call(user, "GET", "/oidc/token?limit=100"):
        if token.get("enabled"):
            call(user, "DELETE", f"/oidc/token/{token['token_hash']}", ok=(200, 204, 404))
else:
    sys.exit(f"unknown command {command}")
