"""The class-live service (hub/live/) in a test: started as the hub starts it (the hub's Python, `-m
live.service` in hub/, a service's environment variables), with a small stand-in for the hub's API that
answers GET /hub/api/user for the tokens it knows, as the hub does (the token's owner, groups and scopes)."""
import json
import os
import signal
import subprocess
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.serving import JSONHandler, ThreadedServer, free_port

REPO = Path(__file__).resolve().parent.parent
HUB_PYTHON = REPO / ".venv" / "hub-python" / "bin" / "python"
PREFIX = "/services/class-live/"
ACCESS = "access:services!service=class-live"


def token_of(name):
    return f"token-of-{name}"


class FakeHub(ThreadedServer):
    """GET /hub/api/user: the model of the token's owner (403 for an unknown token, as the hub answers)."""

    def __init__(self, users):
        self.users = dict(users)  # name -> model (kind, groups, scopes)
        self.asked = 0
        hub = self

        class Handler(JSONHandler):
            def do_GET(self):
                hub.asked += 1
                token = self.headers.get("Authorization", "").removeprefix("token ").strip()
                model = next((m for n, m in hub.users.items() if token == token_of(n)), None)
                if self.path.rstrip("/") != "/hub/api/user" or model is None:
                    self.send_response(403)
                    self.end_headers()
                    return
                self.send_json(200, model)

        super().__init__(Handler)
        self.url = f"http://127.0.0.1:{self.port}/hub/api"


def student(name):
    return {"kind": "user", "name": name, "admin": False, "groups": ["edition-en"],
            "scopes": [f"read:users:name!user={name}", f"read:users:groups!user={name}",
                       f"access:servers!server={name}/"]}


def instructor(name, groups=("instructors",), scopes=(ACCESS,)):
    return {"kind": "user", "name": name, "admin": True, "groups": list(groups),
            "scopes": [f"read:users:name!user={name}", f"read:users:groups!user={name}", *scopes]}


class Service:
    """The service as a subprocess on a free port; `restart()` kills it (SIGKILL) and starts it again."""

    def __init__(self, folder, hub, students, env=None):
        self.folder = Path(folder)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}{PREFIX}"
        (self.folder / "class.json").write_text(json.dumps({"instructors": ["teacher"],
                                                            "students": {n: "en" for n in students}}))
        self.env = {**os.environ, "JUPYTERHUB_API_URL": hub.url, "JUPYTERHUB_API_TOKEN": "the-service-token",
                    "JUPYTERHUB_CLIENT_ID": "service-class-live", "JUPYTERHUB_SERVICE_NAME": "class-live",
                    "JUPYTERHUB_SERVICE_URL": f"http://127.0.0.1:{self.port}", "JUPYTERHUB_SERVICE_PREFIX": PREFIX,
                    "JUPYTERHUB_OAUTH_CALLBACK_URL": PREFIX + "oauth_callback", "JUPYTERHUB_BASE_URL": "/",
                    "TRANSFORMER_HUB_DIR": str(self.folder), "TRANSFORMER_HUB_CLASS": str(self.folder / "class.json"),
                    **(env or {})}
        self.log = self.folder / "service.log"
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen([str(HUB_PYTHON), "-m", "live.service"], cwd=REPO / "hub", env=self.env,
                                        stdout=self.log.open("a"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.url + "api/events", timeout=2)
            except urllib.error.HTTPError:  # a GET of api/events: 405, the service answers
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"class-live did not start:\n{self.log.read_text()[-4000:]}")
                time.sleep(0.2)

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def restart(self):
        self.kill()
        self.start()


def new_event(unit="scaled_dot_product_attention", outcome="passed", **fields):
    return {"event_id": uuid.uuid4().hex, "notebook": "01-attention", "unit": unit, "outcome": outcome,
            "level": "guided", "lang": "en", "time": time.time(), **fields}


def post(url, body, token=None, timeout=10):
    """(status, JSON answer) of a POST to api/events."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url + "api/events", data=data, method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"token {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


class Stream:
    """An SSE client of api/stream, in a thread, as a browser's EventSource is: it reconnects by itself with
    Last-Event-ID after the connection drops (a restart of the service). `runs` holds every `run` message's data
    with the monotonic time it arrived; `views` the latest `view`."""

    def __init__(self, url, token, query="", last_event_id=None):
        self.url = url + "api/stream" + (f"?{query}" if query else "")
        self.token, self.last_event_id = token, last_event_id
        self.runs, self.views, self.connects, self.raw = [], [], 0, []
        self.view_times = []  # (monotonic time, last_seq) of each view: when the page could show an event
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopped.is_set():
            headers = {"Authorization": f"token {self.token}"}
            if self.last_event_id is not None:
                headers["Last-Event-ID"] = str(self.last_event_id)
            try:
                with urllib.request.urlopen(urllib.request.Request(self.url, headers=headers), timeout=30) as answer:
                    self.connects += 1
                    self._read(answer)
            except (OSError, ValueError):
                pass
            time.sleep(0.2)

    def _read(self, answer):
        fields = {}
        for raw in answer:
            if self.stopped.is_set():
                return
            line = raw.decode("utf-8").rstrip("\n")
            if line:
                if not line.startswith(":"):
                    key, _, value = line.partition(":")
                    fields[key] = value.removeprefix(" ")
                continue
            if "data" in fields:
                self.raw.append(fields["data"])
                data = json.loads(fields["data"])
                with self.lock:
                    if fields.get("event") == "run":
                        self.last_event_id = int(fields["id"])
                        self.runs.append((time.monotonic(), data))
                    elif fields.get("event") == "view":
                        self.views.append(data)
                        self.view_times.append((time.monotonic(), data["last_seq"]))
            fields = {}

    def wait_for(self, predicate, seconds=20):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.lock:
                if predicate(self):
                    return True
            time.sleep(0.05)
        return False

    def stop(self):
        self.stopped.set()
