"""class-live (hub/live/), the hub service of the live view: the wire's checks, the hub's token auth (the user is the
token's, the token the one scoped to the service), bodies refused before they are read, the rate limit, idempotent
retries, who may read, the projector's data, the course's end, "stuck", and a restart that loses nothing
acknowledged. The service runs as the hub runs it (its Python, a subprocess), against a stand-in for the hub's API
(tests/live_fixtures.py); learners post to its events.sock with learner_kit.live's own client, instructors read
page.sock (where the hub's proxy forwards them); the real OAuth login is tests/browser/test_hub_live.py's."""
import datetime as dt
import json
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote, urlsplit

import psutil
import pytest

from learner_kit import live
from tests.live_fixtures import (
    ACCESS,
    HUB_PYTHON,
    PREFIX,
    REPO,
    FakeHub,
    Service,
    Stream,
    instructor,
    new_event,
    student,
    token_of,
)

sys.path.insert(0, str(REPO / "hub"))
from live.view import ClassView, Streak, streak_after, stuck

pytestmark = pytest.mark.skipif(not HUB_PYTHON.exists(), reason="the hub's environment: make hub-tool")
STUDENTS = ["alice", "bob", "minji"]
MIB = 2 ** 20


def live_token(name):
    """What the hub answers for a student's TRANSFORMER_LIVE_TOKEN: the owner, and the service's scope alone."""
    return {**student(name), "scopes": [ACCESS]}


def hub_users():
    users = {n: live_token(n) for n in STUDENTS}
    users.update({f"{n}-server": student(n) for n in STUDENTS})  # token_of("alice-server"): her JUPYTERHUB_API_TOKEN
    users["teacher"] = instructor("teacher")
    users["assistant"] = instructor("assistant", scopes=())  # in the group, without the hub's role for the service
    users["admin"] = instructor("admin", groups=())  # the scope (hub admins have it), not in the instructors group
    return users


@pytest.fixture(scope="module")
def hub():
    fake = FakeHub(hub_users())
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def service(hub, tmp_path_factory):
    running = Service(tmp_path_factory.mktemp("live"), hub, STUDENTS)
    yield running
    running.kill()


def socket_url(service, name):
    """http+unix:// address of one of the service's sockets (events.sock, page.sock), with the service's prefix."""
    return f"http+unix://{quote(str(service.folder / 'class-live' / name), safe='')}{PREFIX}"


def events_url(service):
    return socket_url(service, "events.sock")


def page_url(service):
    return socket_url(service, "page.sock")


def stored(service):
    with sqlite3.connect(service.folder / "class-live.sqlite") as db:
        return db.execute("SELECT seq, event_id, student, unit, outcome FROM live_events ORDER BY seq").fetchall()


def request(url, method="GET", body=None, token=None, headers=None, timeout=10):
    """(status, headers, body) of one request (redirects not followed), over learner_kit.live's client."""
    connection, path = live.connect(url, timeout)
    query = urlsplit(url).query
    try:
        headers = {**({"Authorization": f"token {token}"} if token else {}), **(headers or {})}
        connection.request(method, path + (f"?{query}" if query else ""), body=body, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        connection.close()


def post(url, body, token=None):
    """(status, JSON answer) of a POST to api/events."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    status, _, answer = request(url + "api/events", "POST", data, token, {"Content-Type": "application/json"})
    return status, json.loads(answer or b"{}")


def get(url, token=None, headers=None):
    status, headers, body = request(url, token=token, headers=headers)
    return status, headers, body[:2000]


class SocketStream(Stream):
    """tests/live_fixtures.py's SSE client (it reconnects with Last-Event-ID), reading page.sock."""

    def _run(self):
        while not self.stopped.is_set():
            headers = {"Authorization": f"token {self.token}"}
            if self.last_event_id is not None:
                headers["Last-Event-ID"] = str(self.last_event_id)
            try:
                connection, path = live.connect(self.url, 30)
                query = urlsplit(self.url).query
                connection.request("GET", path + (f"?{query}" if query else ""), headers=headers)
                answer = connection.getresponse()
                if answer.status == 200:
                    self.connects += 1
                    self._read(answer)
                connection.close()
            except (OSError, ValueError):
                pass
            time.sleep(0.2)


# ---------------------------------------------------------------- the wire
@pytest.mark.parametrize("change, reason", [
    ({"user": "bob"}, "unknown key"),
    ({"event_id": "E" * 32}, "event_id"),
    ({"event_id": "abc"}, "event_id"),
    ({"notebook": "0" * 101}, "notebook"),
    ({"notebook": ["01-attention"]}, "notebook"),
    ({"unit": "not_a_unit"}, "unit"),
    ({"unit": "x" * 5000}, "over 2048 bytes"),
    ({"outcome": "sdpa-made-up"}, "outcome"),
    ({"outcome": {"id": "sdpa-no-scale"}}, "outcome"),
    ({"level": "expert"}, "level"),
    ({"lang": "fr"}, "lang"),
    ({"time": True}, "time"),
    ({"time": "1700000000"}, "time"),
    ({"time": 12.0}, "time"),
])
def test_a_body_off_the_wire_is_refused_with_its_reason(service, change, reason):
    before = len(stored(service))
    status, answer = post(events_url(service), {**new_event(), **change}, token_of("alice"))
    assert status == 400 and reason in answer["error"]
    assert len(stored(service)) == before


def test_a_notebook_id_the_course_does_not_have_is_kept_as_none(service):
    """A learner's renamed folder (01-attention-copy) loses nothing but the notebook's name: the unit is known."""
    event = new_event(notebook="01-attention-copy")
    assert post(events_url(service), event, token_of("alice")) == (200, {"stored": event["event_id"]})
    assert stored(service)[-1][1:3] == (event["event_id"], "alice")
    with sqlite3.connect(service.folder / "class-live.sqlite") as db:
        assert db.execute("SELECT notebook FROM live_events WHERE event_id = ?", (event["event_id"],)).fetchone() == (None,)


def test_missing_keys_and_bodies_that_are_not_objects_are_refused(service):
    body = new_event()
    del body["lang"]
    assert post(events_url(service), body, token_of("alice")) == (400, {"error": "missing key(s): lang"})
    assert post(events_url(service), b"[1, 2]", token_of("alice"))[0] == 400
    assert post(events_url(service), b"{not json", token_of("alice")) == (400, {"error": "the body is not JSON"})


def test_every_outcome_the_wire_allows_is_stored_for_both_editions(service):
    for change in ({"outcome": "failed", "notebook": None}, {"outcome": "sdpa-mask-inverted", "lang": "ko"},
                   {"outcome": "passed", "level": "challenge", "time": 1_700_000_000}):
        event = new_event(**change)
        assert post(events_url(service), event, token_of("minji")) == (200, {"stored": event["event_id"]})
        assert stored(service)[-1][1:] == (event["event_id"], "minji", event["unit"], event["outcome"])


# ---------------------------------------------------------------- who may post, who may read
def test_the_user_is_the_tokens_owner_never_the_body(service):
    event = new_event(outcome="sdpa-no-scale")
    assert post(events_url(service), event, token_of("alice"))[0] == 200
    assert [row[2] for row in stored(service) if row[1] == event["event_id"]] == ["alice"]
    assert post(events_url(service), {**new_event(), "student": "bob"}, token_of("alice"))[0] == 400
    assert post(events_url(service), new_event())[0] == 401
    assert post(events_url(service), new_event(), "a-token-the-hub-does-not-know")[0] == 401


def test_a_retry_is_stored_once_and_answered_again(service):
    event = new_event(outcome="sdpa-softmax-dim")
    first, again = post(events_url(service), event, token_of("bob")), post(events_url(service), event, token_of("bob"))
    assert first == again == (200, {"stored": event["event_id"]})
    assert [row[1] for row in stored(service)].count(event["event_id"]) == 1


@pytest.mark.parametrize("who", [None, "alice", "assistant", "admin"])
def test_only_the_hubs_instructors_read_the_stream_and_the_page(service, who):
    for path in ("api/stream", "api/stream?projector=1", "?projector=1"):
        status, _, body = get(page_url(service) + path, token_of(who) if who else None)
        if who is None and not path.startswith("api/"):
            assert status == 302  # a browser with no login goes to the hub's login (OAuth)
        else:
            assert status == 403, (who, path, body)
    status, headers, body = get(page_url(service), token_of("teacher"))
    assert status == 200 and b"Class live" in body
    assert "script-src 'self'" in headers["Content-Security-Policy"]


def test_the_page_escapes_and_embeds_no_outside_resource(service):
    page_html = request(page_url(service), token=token_of("teacher"))[2].decode()
    assert "http://" not in page_html and "https://" not in page_html  # nothing is fetched from outside the hub
    data = json.loads(page_html.split('id="live-data">', 1)[1].split("</script>", 1)[0])
    assert data["ids"]["sdpa-mask-inverted"]["ko"]["what"]  # what a Korean-edition learner sees, by the same id
    assert data["taught"]["scaled_dot_product_attention"]["en"]["section"].endswith("scaled_dot_product_attention")


def test_the_projector_is_sent_counts_and_no_name(service):
    for name in STUDENTS:
        post(events_url(service), new_event(outcome="sdpa-mask-inverted"), token_of(name))
    projector = SocketStream(page_url(service), token_of("teacher"), "projector=1&runs=1&minutes=0", last_event_id=0)
    teacher = SocketStream(page_url(service), token_of("teacher"), "runs=1&minutes=0", last_event_id=0)
    try:
        for stream in (projector, teacher):
            assert stream.wait_for(lambda s: s.views and s.views[-1]["events"] >= len(STUDENTS))
        sent = "".join(projector.raw)
        assert not [name for name in STUDENTS if name in sent]
        view = projector.views[-1]
        assert "stuck" not in view and "recent" not in view and view["stuck_count"] >= 1
        cell = next(c for c in view["heatmap"] if c["id"] == "sdpa-mask-inverted")
        assert cell["count"] >= len(STUDENTS) and "students" not in cell
        named = next(c for c in teacher.views[-1]["heatmap"] if c["id"] == "sdpa-mask-inverted")
        assert set(STUDENTS) <= set(named["students"])
        assert {s["student"] for s in teacher.views[-1]["stuck"]} >= set(STUDENTS)
    finally:
        projector.stop()
        teacher.stop()
    _, _, page = get(page_url(service) + "?projector=1", token_of("teacher"))
    assert b"teacher" not in page and b"projector" in page


# ---------------------------------------------------------------- the token: the service's alone
def test_a_token_not_scoped_to_the_service_is_refused_and_the_scoped_one_stored(service):
    """The server's own JUPYTERHUB_API_TOKEN (what kernels sent before) is a hub user's, but not for class-live."""
    before = len(stored(service))
    status, answer = post(events_url(service), new_event(), token_of("alice-server"))
    assert status == 403 and "TRANSFORMER_LIVE_TOKEN" in answer["error"]
    assert len(stored(service)) == before
    event = new_event()  # the honest kernel: learner_kit's own client, with her class-live token, over events.sock
    assert live.post(events_url(service), token_of("alice"), event) == "stored"
    assert stored(service)[-1][1:3] == (event["event_id"], "alice")


# the script below runs in the hub's Python: JupyterHub 6.1's own database, roles and scope checks, with the roles
# of hub/jupyterhub_config.py (executed as the hub does) and the token its pre_spawn_hook makes (hub/live/tokens.py)
SCOPES = r"""
import json, sys
from traitlets.config import Config
hub_folder = sys.argv[1]
config = Config()
exec(compile(open(hub_folder + "/jupyterhub_config.py").read(), "jupyterhub_config.py", "exec"),
     {"get_config": lambda: config, "__file__": hub_folder + "/jupyterhub_config.py", "__name__": "config"})
from jupyterhub import orm, roles
from jupyterhub.scopes import get_scopes_for
from jupyterhub.services.auth import check_scopes
from live import tokens

db = orm.new_session_factory("sqlite://")()
db.add(orm.OAuthClient(identifier="jupyterhub"))
for role in roles.get_default_roles() + list(config.JupyterHub.load_roles):
    roles.create_role(db, {key: role[key] for key in ("name", "description", "scopes")})
users = {}
for name in ("alice", "bob", "teacher", "outsider"):
    users[name] = orm.User(name=name)
    db.add(users[name])
db.commit()
for group_name, group in config.JupyterHub.load_groups.items():
    db.add(orm.Group(name=group_name, users=[users[n] for n in group["users"] if n in users]))
db.commit()
for role in config.JupyterHub.load_roles:
    for group_name in role.get("groups", []):
        roles.grant_role(db, orm.Group.find(db, group_name), rolename=role["name"])
for user in users.values():
    roles.assign_default_roles(db, user)
db.commit()

def can(token, *needed):
    return sorted(check_scopes(set(needed), get_scopes_for(orm.APIToken.find(db, token))))

alice = users["alice"]
first = tokens.renew(alice)
token = tokens.renew(alice)
full = alice.new_api_token(note="a token with her permissions (inherit), for comparison")
server = lambda name: ("access:servers!server=%s/" % name, "access:servers!user=%s" % name)  # a server's check
try:
    tokens.renew(users["outsider"])
    outsider = "made"
except ValueError as error:
    outsider = str(error)
print(json.dumps({
    "scopes": sorted(get_scopes_for(orm.APIToken.find(db, token))),
    "first_deleted": orm.APIToken.find(db, first) is None,
    "live_tokens": sum(t.note == tokens.NOTE for t in alice.api_tokens),
    "service": can(token, "access:services!service=class-live"),
    "own_server": can(token, *server("alice")),
    "classmate_server": can(token, *server("bob")),
    "start_servers": can(token, "servers!user=alice", "servers!user=bob"),
    "tokens": can(token, "tokens!user=alice", "read:tokens!user=alice"),
    "users": can(token, "read:users!user=bob", "list:users"),
    "full_own_server": can(full, *server("alice")),
    "outsider": outsider,
}))
"""


def test_the_live_token_reaches_the_service_and_nothing_else(tmp_path):
    """JupyterHub's own checks, on the token the hub's pre_spawn_hook gives a student's server: the service's access
    only; not her server (a single-user server's check: list or write files, start a kernel), nor a classmate's,
    nor starting servers, reading tokens or users. Renewed at each start: the earlier one is deleted."""
    class_file = tmp_path / "class.json"
    class_file.write_text(json.dumps({"instructors": ["teacher"], "students": {"alice": "en", "bob": "ko"}}))
    ran = subprocess.run([str(HUB_PYTHON), "-c", SCOPES, str(REPO / "hub")], capture_output=True, text=True,
                         timeout=120, check=False,
                         env={"PATH": "/usr/bin:/bin", "TRANSFORMER_HUB_DIR": str(tmp_path),
                              "TRANSFORMER_HUB_CLASS": str(class_file), "HOME": str(tmp_path)})
    assert ran.returncode == 0, ran.stderr[-3000:]
    found = json.loads(ran.stdout.strip().splitlines()[-1])
    # the service's access, and what every token may do: name its owner (her name and groups, to the hub's API)
    assert found["scopes"] == [ACCESS, "read:users:groups!user=alice", "read:users:name!user=alice"]
    assert found["service"] == [ACCESS]
    assert found["own_server"] == found["classmate_server"] == []
    assert found["start_servers"] == found["tokens"] == found["users"] == []
    assert found["first_deleted"] and found["live_tokens"] == 1
    assert found["full_own_server"]  # the check does tell: a token with her permissions may use her server
    assert "Not assigning requested scopes" in found["outsider"]  # no class role, no token for the service


# ---------------------------------------------------------------- bodies and rates: refused before they cost
def push(address, path, size=95 * MIB):
    """One POST of `size` bytes with no token, as the issue's attack: (bytes the service took before it closed the
    connection, the first line of its answer, if any came)."""
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(20)
        sock.connect(address)
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {size}\r\n\r\n".encode())
        taken, chunk = 0, bytes(MIB)
        try:
            while taken < size:
                taken += sock.send(chunk[:size - taken])
        except OSError:  # the service closed the connection (or stopped reading for 20 s)
            pass
        try:
            answer = sock.recv(200)
        except OSError:
            answer = b""
    return taken, answer.split(b"\r\n", 1)[0]


def addresses(service):
    """Every place the service listens: (address, path) of events.sock's api/events, page.sock's page and stream (where
    the hub's proxy forwards the hub's public port), and the http URL the hub checks."""
    folder = service.folder / "class-live"
    return [(str(folder / "events.sock"), PREFIX + "api/events"), (str(folder / "page.sock"), PREFIX + "api/stream"),
            (str(folder / "page.sock"), PREFIX), (("127.0.0.1", service.port), PREFIX + "api/events")]


def test_a_large_body_without_login_is_answered_before_a_byte_of_it_is_read(service):
    """Only the headers of a 95 MB POST are sent: every endpoint answers 400 and closes the connection at once, without
    waiting for the body; a body between 2 KB and 64 KB is refused for its size before any token is looked at."""
    for address, path in addresses(service):
        family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(address)
            sock.sendall(f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {95 * MIB}\r\n\r\n".encode())
            answer = b""
            while chunk := sock.recv(4096):  # until the service closes the connection (5 s at most)
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 400 "), (address, path, answer[:200])
    assert post(events_url(service), b"{" + b" " * 10_000 + b"}") == (400, {"error": "the body is over 2048 bytes"})


def test_24_posts_of_95_mb_leave_the_services_memory_flat_while_a_student_posts(service):
    """The issue's attack, 24 posts of 95 MB without login, on each of events.sock, page.sock's stream and page, and
    the http URL (96 at once): the service takes a few buffers of each and closes it, its resident memory never
    grows by 20 MiB (sampled every 50 ms during the attack), and a student's event posted meanwhile is stored. (The
    code before read each body, then answered 401: 24 such posts on its http URL took it from 85 MiB to 3,298 MiB
    at the peak, measured here.)"""
    process = psutil.Process(service.process.pid)
    before = process.memory_info().rss
    peak, done = [before], threading.Event()

    def sample():
        while not done.wait(0.05):
            peak.append(process.memory_info().rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    targets = [target for target in addresses(service) for _ in range(24)]
    event = new_event()
    with ThreadPoolExecutor(len(targets)) as pool:
        pushed = [pool.submit(push, *target) for target in targets]
        honest = post(events_url(service), event, token_of("bob"))
        results = [future.result() for future in pushed]
    done.set()
    sampler.join()
    after = process.memory_info().rss
    print(f"\nclass-live RSS {before / MIB:.0f} MiB before, {max(peak) / MIB:.0f} MiB at the peak, "
          f"{after / MIB:.0f} MiB after {len(targets)} posts of 95 MB ({len(peak)} samples); taken per post: "
          f"at most {max(t for t, _ in results) / MIB:.1f} MiB")
    assert honest == (200, {"stored": event["event_id"]})
    assert max(taken for taken, _ in results) < 16 * MIB, results
    assert max(peak) - before < 20 * MIB and after - before < 20 * MIB, (before / MIB, max(peak) / MIB, after / MIB)


BURST = 60  # hub/live/events.py: events a user may post at once, then one a second


def test_a_student_posting_too_fast_gets_429_with_retry_after_and_a_classmate_does_not(hub, tmp_path):
    running = Service(tmp_path, hub, STUDENTS)
    try:
        accepted, started = [], time.monotonic()
        while True:
            event = new_event()
            status, headers, body = request(events_url(running) + "api/events", "POST", json.dumps(event).encode(),
                                            token_of("alice"))
            if status != 200:
                break
            accepted.append(event["event_id"])
        elapsed = time.monotonic() - started
        assert status == 429 and headers["Retry-After"] == "1", (status, body)
        assert "alice" in json.loads(body)["error"]
        assert BURST <= len(accepted) <= BURST + elapsed + 1
        # The bucket refills at one event a second, so on a slow machine a post may find one event's room again
        # between two steps: each step below posts until it is refused, and what it stored is counted.
        slow = until_refused(lambda: post_body_later(events_url(running) + "api/events", new_event(),
                                                     token_of("alice")), refused=429)  # answered, never cut off
        assert post(events_url(running), new_event(), token_of("bob"))[0] == 200  # the classmate's is not limited
        sent = until_refused(lambda: live.send(events_url(running), token_of("alice"), new_event()),
                             refused=("retry", 1.0))  # learner_kit's view of the refusal
        assert set(slow[:-1]) <= {200} and set(sent[:-1]) <= {("stored", None)}, (slow, sent)
        time.sleep(float(headers["Retry-After"]))
        assert post(events_url(running), new_event(), token_of("alice"))[0] == 200
        assert event["event_id"] not in [row[1] for row in stored(running)]
        assert [row[2] for row in stored(running)].count("alice") == (len(accepted) + 1 + slow.count(200)
                                                              + sent.count(("stored", None)))
    finally:
        running.kill()


def until_refused(post_one, refused, tries=3):
    """The answers of post_one() called until one is ``refused``: a post stored takes the one event the bucket had
    refilled, so the next finds it empty unless a whole second passed (``tries`` bounds it)."""
    answers = [post_one()]
    while answers[-1] != refused and len(answers) < tries:
        answers.append(post_one())
    assert answers[-1] == refused, answers
    return answers


def post_body_later(url, event, token, pause_s=0.3):
    """The status of a post whose body is sent ``pause_s`` after its headers (a slow client: the service decides on
    the headers alone); a broken pipe here is the service closing the connection without reading the body."""
    connection, path = live.connect(url, 10)
    body = json.dumps(event).encode()
    try:
        connection.putrequest("POST", path)
        for name, value in {"Authorization": f"token {token}", "Content-Type": "application/json",
                            "Content-Length": str(len(body))}.items():
            connection.putheader(name, value)
        connection.endheaders()
        time.sleep(pause_s)
        connection.send(body)
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


# ---------------------------------------------------------------- where it listens
def test_the_sockets_are_the_services_and_it_will_not_listen_where_others_may_write(hub, tmp_path):
    (tmp_path / "hub").mkdir()
    running = Service(tmp_path / "hub", hub, STUDENTS)
    folder = tmp_path / "hub" / "class-live"
    try:
        me = psutil.Process().uids().effective  # the service's user, as the hub's (root) on a hub
        modes = {path.name: (path.stat().st_uid, path.stat().st_mode & 0o7777) for path in folder.iterdir()}
        assert modes == {"events.sock": (me, 0o666), "page.sock": (me, 0o600)}
        assert (folder.stat().st_uid, folder.stat().st_mode & 0o7777) == (me, 0o755)
    finally:
        running.kill()
    open_folder = tmp_path / "open"
    open_folder.mkdir(mode=0o777)
    open_folder.chmod(0o777)
    ran = subprocess.run([str(HUB_PYTHON), "-m", "live.service"], cwd=REPO / "hub", capture_output=True, text=True,
                         timeout=60, check=False, env={**running.env, "TRANSFORMER_LIVE_SOCKETS": str(open_folder)})
    assert ran.returncode != 0 and f"{open_folder} may be written by every user (mode 777)" in ran.stderr
    assert not (open_folder / "events.sock").exists()


# ---------------------------------------------------------------- the course's end
def test_after_the_end_date_nothing_is_kept_or_taken(hub, tmp_path):
    running = Service(tmp_path, hub, STUDENTS)
    try:
        assert post(events_url(running), new_event(), token_of("alice"))[0] == 200
        yesterday = (dt.date.today() - dt.timedelta(days=1)).isoformat()
        running.env.update(TRANSFORMER_LIVE_END=yesterday, TRANSFORMER_LIVE_KEEP="1")
        running.restart()
        assert len(stored(running)) == 1  # kept: TRANSFORMER_LIVE_KEEP=1
        status, answer = post(events_url(running), new_event(), token_of("alice"))
        assert status == 410 and yesterday in answer["error"]
        running.env.pop("TRANSFORMER_LIVE_KEEP")
        running.restart()
        assert stored(running) == []
        assert post(events_url(running), new_event(), token_of("alice"))[0] == 410
        running.env["TRANSFORMER_LIVE_END"] = dt.date.today().isoformat()  # the last day is still a course day
        running.restart()
        assert post(events_url(running), new_event(), token_of("alice"))[0] == 200
    finally:
        running.kill()


# ---------------------------------------------------------------- "stuck" and the view
def test_a_streak_grows_with_the_same_outcome_and_restarts_with_another():
    s = streak_after(None, "sdpa-no-scale", 100.0)
    s = streak_after(s, "sdpa-no-scale", 160.0)
    assert s == Streak("sdpa-no-scale", 2, 100.0, 160.0)
    assert streak_after(s, "sdpa-scale-dk", 200.0) == Streak("sdpa-scale-dk", 1, 200.0, 200.0)


def test_stuck_needs_n_runs_failed_the_same_way_for_m_minutes():
    now = 10_000.0
    streaks = {
        ("alice", "u"): Streak("sdpa-no-scale", 3, now - 11 * 60, now - 60),  # stuck
        ("bob", "u"): Streak("sdpa-no-scale", 2, now - 30 * 60, now),  # too few runs
        ("minji", "u"): Streak("sdpa-no-scale", 5, now - 9 * 60, now),  # not long enough
        ("jisoo", "u"): Streak("passed", 9, now - 60 * 60, now),  # passing is never stuck
        ("dan", "v"): Streak("failed", 4, now - 20 * 60, now),  # failing with no id named, the same way: stuck
    }
    assert [(who, unit) for who, unit, _ in stuck(streaks, 3, 10, now)] == [("dan", "v"), ("alice", "u")]
    assert {who for who, _, _ in stuck(streaks, 2, 0, now)} == {"alice", "bob", "minji", "dan"}


def test_the_view_counts_passed_trying_and_not_started_from_the_latest_run():
    view = ClassView(["alice", "bob", "minji"])
    runs = [("alice", "split_heads", "passed"), ("bob", "split_heads", "heads-split-no-transpose"),
            ("bob", "split_heads", "passed"), ("alice", "merge_heads", "passed"),
            ("alice", "merge_heads", "failed"), ("outsider", "split_heads", "heads-split-no-transpose")]
    for seq, (who, unit, outcome) in enumerate(runs, 1):
        view.add({"seq": seq, "student": who, "unit": unit, "outcome": outcome, "lang": "en", "level": "guided",
                  "received": 100.0 + seq})
    data = view.snapshot(200.0, 3, 10, names=True)
    assert [(r["unit"], r["passed"], r["trying"], r["not_started"]) for r in data["progress"]] == [
        ("split_heads", 2, 1, 1), ("merge_heads", 0, 1, 2)]
    assert {(c["unit"], c["id"]): c["students"] for c in data["heatmap"]} == {
        ("split_heads", "heads-split-no-transpose"): ["bob", "outsider"], ("merge_heads", "failed"): ["alice"]}
    assert "bob" not in json.dumps(view.snapshot(200.0, 3, 10, names=False))


# ---------------------------------------------------------------- a restart
def test_a_restart_loses_nothing_acknowledged_and_the_stream_resumes_without_a_gap(hub, tmp_path):
    running = Service(tmp_path, hub, STUDENTS)
    stream = SocketStream(page_url(running), token_of("teacher"))
    try:
        assert stream.wait_for(lambda s: s.views)
        acknowledged = []
        for k in range(30):
            if k == 15:
                running.restart()  # SIGKILL mid-session
            event = new_event(outcome="passed" if k % 3 else "sdpa-no-scale")
            status, answer = post(events_url(running), event, token_of(STUDENTS[k % 3]))
            assert status == 200, answer
            acknowledged.append(event["event_id"])
        assert [row[1] for row in stored(running)] == acknowledged
        assert stream.wait_for(lambda s: len(s.runs) >= 30), f"{len(stream.runs)} of 30 arrived"
        seqs = [data["seq"] for _, data in stream.runs]
        assert [data["event_id"] for _, data in stream.runs] == acknowledged
        assert seqs == list(range(seqs[0], seqs[0] + 30)) and stream.connects >= 2
        assert stream.wait_for(lambda s: s.views[-1]["events"] == 30)  # rebuilt from the database after the restart
    finally:
        stream.stop()
        running.kill()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_hubs_stop_signal_stops_it_at_once_even_with_sigint_ignored(hub, tmp_path, stop):
    """The hub stops a service with SIGINT, then waits 30 s before SIGTERM. A hub started in the background (`make
    hub &`, a script, a CI job) hands its children SIGINT ignored, which Python keeps; the service must stop anyway,
    with its stream open, and say so."""
    ignored = signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the service, as from a background hub
    try:
        running = Service(tmp_path, hub, STUDENTS)
    finally:
        signal.signal(signal.SIGINT, ignored)
    stream = SocketStream(page_url(running), token_of("teacher"))
    try:
        assert stream.wait_for(lambda s: s.views)
        assert post(events_url(running), new_event(), token_of("alice"))[0] == 200
        running.process.send_signal(stop)
        assert running.process.wait(timeout=10) == 0
        assert "stopping" in running.log.read_text()
    finally:
        stream.stop()
        running.kill()
