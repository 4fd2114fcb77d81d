"""An LTI 1.3 platform (an LMS's side) on loopback for the hub's LTI tests: the `lti1p3platform` package (PyPI, not
ours) behind a small HTTP server. Run with the hub's Python (.venv/hub-python, where requirements-hub.txt installs it):

    .venv/hub-python/bin/python tests/lti_platform.py CONFIG.json     # prints {"port": N} once it listens

The platform's logic is the package's: the OIDC login initiation (OIDCLoginAbstract.prepare_preflight_url), the launch
message and its signature (MessageLaunchAbstract / LTIAdvantageMessageLaunchAbstract: claims, AGS claim, nonce, RS256
with the platform's key and kid), its JWKS (get_jwks), the OAuth 2 client-credentials token for services
(get_access_token: the tool's signed client assertion checked against the tool's JWKS URL) and the Assignment and
Grade Services' endpoints (AssignmentsGradesService: the bearer token checked, scopes, media types). What is here is what
the package leaves to a framework: the HTTP server, reading requests, writing its responses, an in-memory store of
line items and scores (the package's abstract methods), and who is "logged in" to this LMS: a launch starts at
GET /launch?user=<LMS user id>&assignment=<id> (as a click on the course's link would), and the platform trusts that.
Test-only: GET /gradebook (the line items and the latest score of each user), GET /calls (the requests served).

CONFIG.json: {"private_key": PEM, "client_id", "deployment_id", "tool": {"oidc_login_url", "launch_url",
"keyset_url"}, "users": {LMS id: {"roster_id", "roles": [...], "name"}}, "port": 0}; the hub's URLs may be set later,
once it listens: POST /configure with {"tool": {...}} (loopback only).
"""
import html
import json
import sys
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from lti1p3platform.exceptions import LineItemNotFoundException, LtiException, PreflightRequestValidationException
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService

CONTEXT_ID = "course-transformer"


class Platform(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs):
        self.settings = kwargs["settings"]

    def get_registration_by_params(self, **kwargs):
        settings = self.settings
        from jwcrypto.jwk import JWK

        public = JWK.from_pem(settings["private_key"].encode()).export_to_pem().decode()
        registration = (Registration().set_iss(settings["issuer"]).set_client_id(settings["client_id"])
                        .set_deployment_id(settings["deployment_id"]).set_platform_private_key(settings["private_key"])
                        .set_platform_public_key(public))
        tool = settings.get("tool", {})
        if tool.get("launch_url"):
            registration.set_launch_url(tool["launch_url"]).set_oidc_login_url(tool["oidc_login_url"])
            registration.set_tool_key_set_url(tool["keyset_url"])
        return registration


class HttpRequest(Request):
    def build_metadata(self, request):
        return request


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = json.dumps(kwargs)

    def get_redirect(self, url):
        return url


class Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data, **kwargs):
        # the package's templates/launch.html (jinja2), written out here: a form that posts itself to the tool
        fields = "".join(f'<input type="hidden" name="{k}" value="{html.escape(launch_data[k], quote=True)}"/>'
                         for k in ("id_token", "state"))
        return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/><title>LTI Tool Launch</title></head>'
                f'<body><form method="POST" action="{html.escape(launch_data["launch_url"], quote=True)}" id="form">'
                f'{fields}</form><script>document.getElementById("form").submit();</script></body></html>')


class Store:
    """The line items and scores of this LMS's course (in memory)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.lineitems = {}  # id -> line item
        self.scores = {}  # line item id -> {userId: score}
        self.calls = []


class Grades(AssignmentsGradesService):
    store = None
    base = None

    def find_lineitems(self, page=1, limit=None, line_item_id=None, resource_link_id=None, resource_id=None, tag=None,
                       **ignored):
        items = [i for i in self.store.lineitems.values()
                 if (resource_link_id is None or i.get("resourceLinkId") == resource_link_id)
                 and (resource_id is None or i.get("resourceId") == resource_id) and (tag is None or i.get("tag") == tag)]
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id):
        item = self.store.lineitems.get(self._url(line_item_id))
        if item is None:
            raise LineItemNotFoundException()
        return item

    def create_lineitem(self, creation_data):
        with self.store.lock:
            number = len(self.store.lineitems) + 1
            item = {**creation_data, "id": f"{self.base}/lineitems/{number}"}
            self.store.lineitems[item["id"]] = item
            self.store.scores[item["id"]] = {}
        return item

    def update_lineitem(self, update_data):
        item = self.find_lineitem(update_data["id"])
        item.update({k: v for k, v in update_data.items() if k != "id"})
        return item

    def delete_lineitem(self, line_item_id):
        self.find_lineitem(line_item_id)
        del self.store.lineitems[self._url(line_item_id)]

    def update_score(self, line_item_id, score):
        item = self.find_lineitem(line_item_id)
        users = self.settings_users
        if str(score.get("userId")) not in users:
            # a user who is not in this course (the AGS spec leaves the answer to the platform: Canvas says 422)
            raise LtiException(f"user {score.get('userId')!r} is not in this course")
        with self.store.lock:
            kept = self.store.scores[item["id"]]
            before = kept.get(score["userId"])
            if before and datetime.fromisoformat(before["timestamp"]) >= datetime.fromisoformat(score["timestamp"]):
                return UpdateScoreStatus.OLD_TIMESTAMP
            kept[score["userId"]] = score
        return UpdateScoreStatus.SUCCESS if before else UpdateScoreStatus.CREATED

    def get_results(self, line_item_id, page=1, limit=None, user_id=None, **ignored):
        item = self.find_lineitem(line_item_id)
        results = [{"id": f"{item['id']}/results/{u}", "userId": u, "resultScore": s.get("scoreGiven"),
                    "resultMaximum": s.get("scoreMaximum"), "scoreOf": item["id"]}
                   for u, s in self.store.scores[item["id"]].items() if user_id in (None, u)]
        return {"content": results, "has_next": False, "next": None}

    def _url(self, line_item_id):
        return line_item_id if str(line_item_id).startswith("http") else f"{self.base}/lineitems/{line_item_id}"


def serve(settings):
    store = Store()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, code, body, content_type="application/json", headers=()):
            data = body.encode() if isinstance(body, str) else body
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def request_of(self):
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            kind = self.headers.get("Content-Type", "")
            form = dict(parse_qsl(body.decode())) if "form-urlencoded" in kind else {}
            data = json.loads(body) if body and "json" in kind else None
            return {"method": self.command, "form_data": form, "get_data": dict(parse_qsl(url.query)),
                    "headers": self.headers, "content_type": kind, "path": url.path, "json": data}

        def platform(self):
            with lock:
                return Platform(settings=settings)

        def do_GET(self):
            self.route()

        def do_POST(self):
            self.route()

        def do_PUT(self):
            self.route()

        def route(self):
            request = self.request_of()
            path = request["path"].rstrip("/")
            with store.lock:
                store.calls.append([self.command, path, time.time()])
            platform = self.platform()
            platform.get_registration()
            base = f"http://127.0.0.1:{self.server.server_address[1]}"
            try:
                if path == "/jwks":
                    return self.reply(200, json.dumps(platform.get_jwks()))
                if path == "/configure" and self.command == "POST":
                    with lock:
                        settings.update(request["json"])
                    return self.reply(200, "{}")
                if path == "/launch":
                    args = request["get_data"]
                    login = Login(HttpRequest(request), platform)
                    login.set_lti_message_hint(user=args["user"], assignment=args.get("assignment", ""))
                    return self.reply(302, "", headers=[("Location", login.initiate_login(args["user"]))])
                if path == "/authorize":
                    return self.authorize(request, platform, base)
                if path == "/token" and self.command == "POST":
                    token = platform.get_access_token(request["form_data"])
                    return self.reply(200, json.dumps(token))
                if path == "/gradebook":
                    with store.lock:
                        return self.reply(200, json.dumps({"lineitems": list(store.lineitems.values()),
                                                           "scores": store.scores}))
                if path == "/calls":
                    with store.lock:
                        return self.reply(200, json.dumps(store.calls))
                if path.startswith("/lineitems"):
                    return self.grades(request, platform, base, path)
            except (LtiException, PreflightRequestValidationException, AssertionError, KeyError) as error:
                return self.reply(400, json.dumps({"error": type(error).__name__, "message": str(error)}))
            return self.reply(404, json.dumps({"error": "not found"}))

        def authorize(self, request, platform, base):
            """The tool's authentication request (OIDC): the launch, signed, in a form that posts itself."""
            args = request["get_data"]
            hint = json.loads(args.get("lti_message_hint") or "{}")
            user = settings["users"].get(args.get("login_hint"))
            registration = platform.get_registration()
            if user is None or hint.get("user") != args.get("login_hint"):
                return self.reply(403, json.dumps({"error": "no such user logged in to this LMS"}))
            tool = settings["tool"]
            if args.get("redirect_uri") != tool["redirect_uri"]:  # a registered redirect URI only
                return self.reply(400, json.dumps({"error": f"redirect_uri {args.get('redirect_uri')!r} not registered"}))
            launch = Launch(HttpRequest(request), platform)
            launch._registration = registration
            launch.set_user_data(args["login_hint"], user["roles"], full_name=user.get("name"))
            launch.set_resource_link_claim(f"link-{hint.get('assignment') or 'course'}", title=hint.get("assignment"))
            launch.set_launch_context_claim(CONTEXT_ID, context_title="The Transformer", context_label="TRF")
            custom = {"roster_id": user["roster_id"]}
            if hint.get("assignment"):
                custom["assignment"] = hint["assignment"]
            launch.set_custom_parameters_claim(custom)
            launch.set_ags(lineitems_url=f"{base}/lineitems", allow_creating_lineitems=True)
            page = launch.lti_launch()
            return self.reply(200, page, content_type="text/html; charset=utf-8")

        def grades(self, request, platform, base, path):
            service = Grades(HttpRequest(request), platform, f"{base}/lineitems")
            service.store, service.base, service.settings_users = store, base, settings["users"]
            parts = path.split("/")[2:]  # /lineitems[/<id>[/scores|/results]]
            if not parts:
                response = service.handle_resp(service.handle_get_lineitems if self.command == "GET"
                                               else service.handle_create_lineitem)
            elif len(parts) == 1:
                response = service.handle_resp(service.handle_get_lineitem if self.command == "GET"
                                               else service.handle_update_lineitem, line_item_id=parts[0])
            elif parts[1] == "scores":
                response = service.handle_resp(service.handle_update_score, line_item_id=parts[0])
            elif parts[1] == "results":
                response = service.handle_resp(service.handle_get_results, line_item_id=parts[0])
            else:
                return self.reply(404, "{}")
            result = response.result
            if isinstance(result, dict) and "content" in result:
                result = result["content"]
            body = json.dumps(result) if result is not None else (
                json.dumps({"message": response.message}) if response.code >= 400 else "")
            return self.reply(response.code, body, content_type=getattr(response, "media_type", "application/json"))

    server = ThreadingHTTPServer(("127.0.0.1", int(settings.get("port", 0))), Handler)
    return server


def main():
    settings = json.loads(open(sys.argv[1], encoding="utf-8").read())
    server = serve(settings)
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
