"""class-live (hub/live/), the hub service of the live view: the wire's checks, the hub's token auth (the user is the
token's), idempotent retries, who may read, the projector's data, the course's end, "stuck", and a restart that
loses nothing acknowledged. The service runs as the hub runs it (its Python, a subprocess), against a stand-in
for the hub's API (tests/live_fixtures.py); the real OAuth login is tests/browser/test_hub_live.py's."""
import datetime as dt
import json
import signal
import sqlite3
import sys
import urllib.request

import pytest

from tests.live_fixtures import (
    HUB_PYTHON,
    REPO,
    FakeHub,
    Service,
    Stream,
    instructor,
    new_event,
    post,
    student,
    token_of,
)

sys.path.insert(0, str(REPO / "hub"))
from live.view import ClassView, Streak, streak_after, stuck

pytestmark = pytest.mark.skipif(not HUB_PYTHON.exists(), reason="the hub's environment: make hub-tool")
STUDENTS = ["alice", "bob", "minji"]


@pytest.fixture(scope="module")
def hub():
    users = {n: student(n) for n in STUDENTS}
    users["teacher"] = instructor("teacher")
    users["assistant"] = instructor("assistant", scopes=())  # in the group, without the hub's role for the service
    users["admin"] = instructor("admin", groups=())  # the scope (hub admins have it), not in the instructors group
    fake = FakeHub(users)
    yield fake
    fake.close()


@pytest.fixture(scope="module")
def service(hub, tmp_path_factory):
    running = Service(tmp_path_factory.mktemp("live"), hub, STUDENTS)
    yield running
    running.kill()


def stored(service):
    with sqlite3.connect(service.folder / "class-live.sqlite") as db:
        return db.execute("SELECT seq, event_id, student, unit, outcome FROM live_events ORDER BY seq").fetchall()


def get(url, token=None, headers=None):
    request = urllib.request.Request(url, headers={**({"Authorization": f"token {token}"} if token else {}),
                                                   **(headers or {})})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=10) as answer:
            return answer.status, answer.headers, answer.read(2000)
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


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
    status, answer = post(service.url, {**new_event(), **change}, token_of("alice"))
    assert status == 400 and reason in answer["error"]
    assert len(stored(service)) == before


def test_a_notebook_id_the_course_does_not_have_is_kept_as_none(service):
    """A learner's renamed folder (01-attention-copy) loses nothing but the notebook's name: the unit is known."""
    event = new_event(notebook="01-attention-copy")
    assert post(service.url, event, token_of("alice")) == (200, {"stored": event["event_id"]})
    assert stored(service)[-1][1:3] == (event["event_id"], "alice")
    with sqlite3.connect(service.folder / "class-live.sqlite") as db:
        assert db.execute("SELECT notebook FROM live_events WHERE event_id = ?", (event["event_id"],)).fetchone() == (None,)


def test_missing_keys_and_bodies_that_are_not_objects_are_refused(service):
    body = new_event()
    del body["lang"]
    assert post(service.url, body, token_of("alice")) == (400, {"error": "missing key(s): lang"})
    assert post(service.url, b"[1, 2]", token_of("alice"))[0] == 400
    assert post(service.url, b"{not json", token_of("alice")) == (400, {"error": "the body is not JSON"})


def test_every_outcome_the_wire_allows_is_stored_for_both_editions(service):
    for change in ({"outcome": "failed", "notebook": None}, {"outcome": "sdpa-mask-inverted", "lang": "ko"},
                   {"outcome": "passed", "level": "challenge", "time": 1_700_000_000}):
        event = new_event(**change)
        assert post(service.url, event, token_of("minji")) == (200, {"stored": event["event_id"]})
        assert stored(service)[-1][1:] == (event["event_id"], "minji", event["unit"], event["outcome"])


# ---------------------------------------------------------------- who may post, who may read
def test_the_user_is_the_tokens_owner_never_the_body(service):
    event = new_event(outcome="sdpa-no-scale")
    assert post(service.url, event, token_of("alice"))[0] == 200
    assert [row[2] for row in stored(service) if row[1] == event["event_id"]] == ["alice"]
    assert post(service.url, {**new_event(), "student": "bob"}, token_of("alice"))[0] == 400
    assert post(service.url, new_event())[0] == 401
    assert post(service.url, new_event(), "a-token-the-hub-does-not-know")[0] == 401


def test_a_retry_is_stored_once_and_answered_again(service):
    event = new_event(outcome="sdpa-softmax-dim")
    first, again = post(service.url, event, token_of("bob")), post(service.url, event, token_of("bob"))
    assert first == again == (200, {"stored": event["event_id"]})
    assert [row[1] for row in stored(service)].count(event["event_id"]) == 1


@pytest.mark.parametrize("who", [None, "alice", "assistant", "admin"])
def test_only_the_hubs_instructors_read_the_stream_and_the_page(service, who):
    for path in ("api/stream", "api/stream?projector=1", "?projector=1"):
        status, _, body = get(service.url + path, token_of(who) if who else None)
        if who is None and not path.startswith("api/"):
            assert status == 302  # a browser with no login goes to the hub's login (OAuth)
        else:
            assert status == 403, (who, path, body)
    status, headers, body = get(service.url, token_of("teacher"))
    assert status == 200 and b"Class live" in body
    assert "script-src 'self'" in headers["Content-Security-Policy"]


def test_the_page_escapes_and_embeds_no_outside_resource(service):
    page = urllib.request.urlopen(urllib.request.Request(service.url, headers={
        "Authorization": f"token {token_of('teacher')}"})).read().decode()
    assert "http://" not in page and "https://" not in page  # nothing is fetched from outside the hub
    data = json.loads(page.split('id="live-data">', 1)[1].split("</script>", 1)[0])
    assert data["ids"]["sdpa-mask-inverted"]["ko"]["what"]  # what a Korean-edition learner sees, by the same id
    assert data["taught"]["scaled_dot_product_attention"]["en"]["section"].endswith("scaled_dot_product_attention")


def test_the_projector_is_sent_counts_and_no_name(service):
    for name in STUDENTS:
        post(service.url, new_event(outcome="sdpa-mask-inverted"), token_of(name))
    projector = Stream(service.url, token_of("teacher"), "projector=1&runs=1&minutes=0", last_event_id=0)
    teacher = Stream(service.url, token_of("teacher"), "runs=1&minutes=0", last_event_id=0)
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
    _, _, page = get(service.url + "?projector=1", token_of("teacher"))
    assert b"teacher" not in page and b"projector" in page


# ---------------------------------------------------------------- the course's end
def test_after_the_end_date_nothing_is_kept_or_taken(hub, tmp_path):
    running = Service(tmp_path, hub, STUDENTS)
    try:
        assert post(running.url, new_event(), token_of("alice"))[0] == 200
        yesterday = (dt.date.today() - dt.timedelta(days=1)).isoformat()
        running.env.update(TRANSFORMER_LIVE_END=yesterday, TRANSFORMER_LIVE_KEEP="1")
        running.restart()
        assert len(stored(running)) == 1  # kept: TRANSFORMER_LIVE_KEEP=1
        status, answer = post(running.url, new_event(), token_of("alice"))
        assert status == 410 and yesterday in answer["error"]
        running.env.pop("TRANSFORMER_LIVE_KEEP")
        running.restart()
        assert stored(running) == []
        assert post(running.url, new_event(), token_of("alice"))[0] == 410
        running.env["TRANSFORMER_LIVE_END"] = dt.date.today().isoformat()  # the last day is still a course day
        running.restart()
        assert post(running.url, new_event(), token_of("alice"))[0] == 200
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
    stream = Stream(running.url, token_of("teacher"))
    try:
        assert stream.wait_for(lambda s: s.views)
        acknowledged = []
        for k in range(30):
            if k == 15:
                running.restart()  # SIGKILL mid-session
            event = new_event(outcome="passed" if k % 3 else "sdpa-no-scale")
            status, answer = post(running.url, event, token_of(STUDENTS[k % 3]))
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
    stream = Stream(running.url, token_of("teacher"))
    try:
        assert stream.wait_for(lambda s: s.views)
        assert post(running.url, new_event(), token_of("alice"))[0] == 200
        running.process.send_signal(stop)
        assert running.process.wait(timeout=10) == 0
        assert "stopping" in running.log.read_text()
    finally:
        stream.stop()
        running.kill()
