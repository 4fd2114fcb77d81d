"""LTI 1.3 (issue 50): the class opens the course from an LMS and its grades go back, against a platform nobody here wrote.

The LMS is `lti1p3platform` (PyPI) on loopback (tests/lti_platform.py: the package's OIDC login, signed launch, JWKS,
OAuth 2 token and Assignment and Grade Services behind a small HTTP server), started by this module; the hub is
`make hub` on free ports (tests/browser/hub_fixtures.py's Hub) with a class file whose ``lti`` section points at it.

- In Chromium, the instructor and two students click the course's link in the LMS (GET PLATFORM/launch?user=...): the
  OIDC login initiation, the platform's signed launch, the hub's checks, and each lands in their own server with no
  login form: the instructor in formgrader, in the instructors' group; minji (Korean edition) on the link's notebook
  of her edition, copied from the exchange where the instructor released it; bob in his lab.
- A launch for someone the class file lacks is refused with a page that says why.
- Forged (another key), tampered, expired, stale, for another audience or issuer, another login's nonce, no state
  cookie, replayed: each refused, and no login cookie set; the genuine launch beside them passes.
- `autograder grade` on the students' submissions (tests/fixtures/grading_course.py's small course), a score typed
  as formgrader does, then `autograder lti-push OUT` as root: the platform's gradebook gets one line item per notebook
  and each student's score with its maximum; a second push sends nothing; --dry-run sends nothing; a push that cannot
  reach the LMS sends nothing and the next one sends what is left; who was not sent is named with why.
- A class of simulated students on the platform (20; TRANSFORMER_LTI_CLASS=100 for the README's times): their
  launches and a push of their scores, timed (build/screenshots/hub-lti-timings.json).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import requests

from tests.browser import hub_fixtures
from tests.browser.hub_fixtures import Hub, shown, the_way_open
from tests.browser.jupyter_servers import ROOT, SCREENSHOTS, Screens, open_page
from tests.serving import free_port

TEACHER = "ltiteacher"
STUDENTS = {"ltiminji": "ko", "ltibob": "en-challenge"}
PREFIX = "hub-lti"
TIMES = {}
CURRENT_PAGE = hub_fixtures.CURRENT_PAGE
HUB_PYTHON = ROOT / ".venv" / "hub-python" / "bin" / "python"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
SCREENS = None  # made by the first test (Screens clears the module's old screenshots)
# The simulated class: on the platform and in the class file only (no system users: their servers are not started).
# make test runs 20; the README's times are of TRANSFORMER_LTI_CLASS=100.
CLASS_SIZE = int(os.environ.get("TRANSFORMER_LTI_CLASS", "20"))
SIMULATED = [f"ltisim{i:03d}" for i in range(CLASS_SIZE)]
# the LMS's users: its own ids (sub), and the roster id each sends in the custom parameter roster_id
LMS_USERS = {
    "lms-1001": {"roster_id": TEACHER, "roles": [INSTRUCTOR], "name": "Teacher"},
    "lms-2001": {"roster_id": "ltiminji", "roles": [LEARNER], "name": "Minji"},
    "lms-2002": {"roster_id": "ltibob", "roles": [LEARNER], "name": "Bob"},
    "lms-2003": {"roster_id": "ltieve", "roles": [LEARNER], "name": "Eve (not in the class file)"},
    "lms-2004": {"roster_id": "ltibob", "roles": [INSTRUCTOR], "name": "Bob, made a teacher in the LMS"},
    **{f"lms-9{i:03d}": {"roster_id": name, "roles": [LEARNER]} for i, name in enumerate(SIMULATED)},
}
LMS_ID = {"ltiteacher": "lms-1001", "ltiminji": "lms-2001", "ltibob": "lms-2002"}
ASSIGNMENT = "01-attention"


def _key():
    """A new RSA key (PEM) for the platform, made by the hub's Python (cryptography is there, not in .venv)."""
    script = ("from cryptography.hazmat.primitives import serialization as s\n"
              "from cryptography.hazmat.primitives.asymmetric import rsa\n"
              "print(rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes("
              "s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()).decode())")
    return subprocess.run([str(HUB_PYTHON), "-c", script], capture_output=True, text=True, check=True).stdout


class PlatformServer:
    def __init__(self, folder):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.settings = {"issuer": self.base, "client_id": "transformer-hub-tool", "deployment_id": "deployment-1",
                         "private_key": _key(), "users": LMS_USERS, "port": self.port}
        self.config = folder / "platform.json"
        self.config.write_text(json.dumps(self.settings), encoding="utf-8")
        self.config.chmod(0o600)
        self.log = open(folder / "platform.log", "wb")  # noqa: SIM115
        self.process = subprocess.Popen([str(HUB_PYTHON), str(ROOT / "tests" / "lti_platform.py"), str(self.config)],
                                        stdout=subprocess.PIPE, stderr=self.log, start_new_session=True)
        line = self.process.stdout.readline()
        assert line, f"the LTI platform did not start: {(folder / 'platform.log').read_text()[-2000:]}"

    def get(self, path):
        return requests.get(f"{self.base}{path}", timeout=30).json()

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=10)
        self.log.close()


@pytest.fixture(scope="module")
def lti(request, accounts):
    """The platform, then the hub (its class file's lti section points at the platform), then the platform told the
    hub's URLs (the tool's registration in the LMS)."""
    folder = Path(tempfile.mkdtemp(prefix="transformer-hub-lti-"))
    folder.chmod(0o711)
    platform = PlatformServer(folder)
    class_file = folder / "class.json"
    lti_section = {"issuer": platform.base, "client_id": platform.settings["client_id"],
                   "authorize_url": f"{platform.base}/authorize", "jwks_url": f"{platform.base}/jwks",
                   "token_url": f"{platform.base}/token", "username_claim": "custom_roster_id"}
    class_file.write_text(json.dumps({"instructors": [TEACHER], "students": {**STUDENTS, **{s: "en" for s in SIMULATED}},
                                      "lti": lti_section}), encoding="utf-8")
    hub = Hub(folder, class_file, TIMES)
    with the_way_open():
        try:
            hub.start()
            tool = {"oidc_login_url": f"{hub.base}/hub/lti13/oauth_login", "launch_url": f"{hub.base}/hub/",
                    "redirect_uri": f"{hub.base}/hub/lti13/oauth_callback", "keyset_url": f"{hub.base}/hub/lti13/jwks"}
            requests.post(f"{platform.base}/configure", json={"tool": tool}, timeout=30).raise_for_status()
            # the instructor has released 01-attention in the Korean course (as nbgrader's release_assignment lays it out)
            outbound = hub.exchange / "transformer-ko" / "outbound" / ASSIGNMENT
            shutil.copytree(ROOT / "ko" / "course" / ASSIGNMENT, outbound)
            yield {"hub": hub, "platform": platform, "folder": folder, "class_file": class_file}
        finally:
            hub.stop()
            platform.stop()
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            for name, log in (("", hub.log), ("-platform", folder / "platform.log")):
                if log.is_file():
                    shutil.copyfile(log, SCREENSHOTS / f"{PREFIX}{name}.log")
            shutil.rmtree(folder, ignore_errors=True)
            (SCREENSHOTS / f"{PREFIX}-timings.json").write_text(json.dumps(TIMES, indent=1) + "\n", encoding="utf-8")
            print(f"\n{PREFIX}: times: {json.dumps(TIMES)}")


def launches(lti, what, **settings):
    """tests/browser/lti_launches.py with the hub's Python: its JSON."""
    data = {"hub": lti["hub"].base, "platform": lti["platform"].base,
            "platform_key": lti["platform"].settings["private_key"], "client_id": lti["platform"].settings["client_id"],
            **settings}
    path = lti["folder"] / f"launches-{what}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = subprocess.run([str(HUB_PYTHON), str(Path(__file__).with_name("lti_launches.py")), what, str(path)],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def browser_pages(chromium):
    pages = {}
    yield pages
    CURRENT_PAGE.clear()
    for page in pages.values():
        page.close()


def launch_in_browser(lti, chromium, pages, lms_id, name):
    page = pages.setdefault(name, open_page(chromium, []))
    CURRENT_PAGE["page"] = page
    page.goto(f"{lti['platform'].base}/launch?user={lms_id}&assignment={ASSIGNMENT}")
    return page


def test_launch_lands_each_person_in_their_own_server(lti, chromium, browser_pages):
    global SCREENS
    SCREENS = Screens(PREFIX)
    screens = SCREENS
    landing = {TEACHER: rf"/user/{TEACHER}/formgrader",
               "ltiminji": rf"/user/ltiminji/lab/tree/{ASSIGNMENT}/{ASSIGNMENT}\.ipynb",
               "ltibob": r"/user/ltibob/lab"}
    for name in (TEACHER, "ltiminji", "ltibob"):
        started = time.monotonic()
        page = launch_in_browser(lti, chromium, browser_pages, LMS_ID[name], name)
        page.wait_for_url(re.compile(landing[name]), timeout=180_000)
        if name == TEACHER:
            page.get_by_text("Manage Assignments").first.wait_for(timeout=120_000)
        else:
            page.locator(".jp-LabShell").wait_for(timeout=120_000)
        if name == "ltiminji":  # her edition's notebook, open: its Korean title, in a Korean lab
            page.locator(".jp-NotebookPanel").first.wait_for(timeout=120_000)
            page.locator(".jp-MarkdownOutput h1").first.wait_for(timeout=60_000)
            assert re.search("[가-힣]", page.locator(".jp-MarkdownOutput h1").first.inner_text())
        TIMES[f"{name}: launch from the LMS's link to their server's page, s"] = round(time.monotonic() - started, 1)
        screens.take(page, f"launch-{name}")
        assert "/hub/login" not in page.url  # no second login
    groups = subprocess.run(["id", "-Gn", TEACHER], capture_output=True, text=True, check=True).stdout.split()
    assert "transformer-instructors" in groups
    for student in STUDENTS:
        groups = subprocess.run(["id", "-Gn", student], capture_output=True, text=True, check=True).stdout.split()
        assert "transformer-instructors" not in groups
    copied = Path(f"/home/ltiminji/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
    assert copied.is_file() and copied.stat().st_uid == os.stat("/home/ltiminji").st_uid
    record = json.loads((lti["hub"].folder / "state" / "lti" / "launches.json").read_text())
    assert {name: record[name]["sub"] for name in LMS_ID} == LMS_ID
    assert record[TEACHER]["role"] == "instructor" and record["ltibob"]["role"] == "student"
    assert record["ltibob"]["lineitems"] == f"{lti['platform'].base}/lineitems"
    state = lti["hub"].folder / "state"
    assert oct(os.stat(state / "lti").st_mode & 0o777) == "0o700"
    assert oct(os.stat(state / "lti" / "tool-key.pem").st_mode & 0o777) == "0o600"


def test_launch_outside_the_roster_is_refused_with_why(lti, chromium, browser_pages):
    page = launch_in_browser(lti, chromium, browser_pages, "lms-2003", "eve")
    page.get_by_text("not in this class's roster").first.wait_for(timeout=60_000)
    assert "403" in page.content() and "ltieve" in page.content()
    (SCREENS or Screens(PREFIX)).take(page, "refused-not-in-roster")
    # the LMS says bob teaches: the class file says he is a student, so no instructors' tools
    page = launch_in_browser(lti, chromium, browser_pages, "lms-2004", "bob-as-teacher")
    page.get_by_text("does not give a student the instructors' tools").first.wait_for(timeout=60_000)


def test_forged_replayed_and_expired_launches_gain_nothing(lti):
    result = launches(lti, "attacks", user="lms-9000", other=TEACHER)
    genuine = result.pop("genuine")
    assert genuine["status"] == 302 and "/hub/spawn/ltisim000" in genuine["location"], genuine
    assert genuine["logged_in"], genuine
    expected = {"forged": "Signature verification failed", "tampered": "Signature verification failed",
                "expired": "Signature has expired", "stale": "issued too long ago",
                "other audience": "Audience doesn't match", "other issuer": "Invalid issuer",
                "nonce of another login": "nonce mismatch", "no state cookie": "state missing from cookies",
                "replayed": "used already"}
    assert set(result) == set(expected)
    let_in = {case: outcome for case, outcome in result.items()  # every case is checked before the test says which
              if outcome["status"] not in (400, 401, 403) or outcome["logged_in"] or outcome["location"]
              or expected[case] not in outcome["text"]}
    assert not let_in, f"launches not refused as they should be: {json.dumps(let_in, indent=1)}"


# ---------------------------------------------------------------- the grades back

def grade(folder, students):
    from tests.fixtures.grading_course import STUDENTS as KINDS
    from tests.fixtures.grading_course import write_sources

    source = write_sources(folder / "source")
    submitted = folder / "submitted"
    import nbformat

    for student, kind in students.items():
        for assignment, make in KINDS[kind].items():
            (submitted / student / assignment).mkdir(parents=True, exist_ok=True)
            nbformat.write(make(), str(submitted / student / assignment / f"{assignment}.ipynb"))
    out = folder / "out"
    command = [sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out), "--source", str(source),
               "--timeout", "15", "--budget", "30"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def manual_score(out, student, assignment, points):
    """What formgrader's Manual Grading does: a grade's manual score, in the gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{out / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_submission_notebook(assignment, assignment, student)
        grade = next(g for g in notebook.grades if g.max_score > 0)
        grade.manual_score = points
        gradebook.db.commit()


def expected_scores(out):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{out / 'gradebook.db'}") as gradebook:
        return {(s.student.id, a.name, n.name): (n.score, n.max_score)
                for a in gradebook.assignments for s in a.submissions for n in s.notebooks}


def push(lti, out, *extra, class_file=None):
    command = [str(ROOT / ".venv" / "hub-python" / "bin" / "autograder"), "lti-push", str(out),
               "--hub", str(lti["hub"].folder / "state"), "--class", str(class_file or lti["class_file"]), *extra]
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    return result, time.monotonic() - started


def platform_scores(lti):
    book = lti["platform"].get("/gradebook")
    items = {i["id"]: i for i in book["lineitems"]}
    return {(items[i]["resourceId"], user): (s["scoreGiven"], s["scoreMaximum"], s["activityProgress"],
                                             s["gradingProgress"], s["timestamp"])
            for i, scores in book["scores"].items() for user, s in scores.items()}, book["lineitems"]


def score_posts(lti):
    return sum(1 for method, path, _ in lti["platform"].get("/calls") if method == "POST" and path.endswith("/scores"))


@pytest.fixture(scope="module")
def graded(lti):
    """`autograder grade` of minji (right) and bob (a mistake), once for the module: its OUT."""
    started = time.monotonic()
    out = grade(lti["folder"] / "grading", {"ltiminji": "perfect", "ltibob": "mistake"})
    TIMES["autograder grade, 2 students (3 notebooks), s"] = round(time.monotonic() - started, 1)
    return out


def copy_of(out, folder):
    folder.mkdir(parents=True)
    shutil.copyfile(out / "gradebook.db", folder / "gradebook.db")
    return folder


def add_graded(out, assignment, students, points=lambda i, most: most):
    """Submissions in the gradebook as `autograder grade` leaves them (nbgrader's API), with automatic scores."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{out / 'gradebook.db'}") as gradebook:
        for i, student in enumerate(students):
            gradebook.update_or_create_student(student)
            gradebook.add_submission(assignment, student)
            for g in gradebook.find_submission_notebook(assignment, assignment, student).grades:
                g.auto_score = points(i, g.max_score)
            gradebook.db.commit()


def test_push_fills_the_gradebook_once(lti, graded, tmp_path):
    record = lti["hub"].folder / "state" / "lti" / "launches.json"
    launched = json.loads(record.read_text()) if record.is_file() else {}
    if not {"ltiminji", "ltibob"} <= set(launched):  # (this test run alone: their launches, without a browser)
        launches(lti, "class", **{"class": [LMS_ID["ltiminji"], LMS_ID["ltibob"]]})
        launched = json.loads(record.read_text())
    # one who never launched, one who launched once and has since left the LMS's course
    out = copy_of(graded, tmp_path / "out")
    add_graded(out, "fx-attn", ["ltinever", "ltighost"])
    launched["ltighost"] = {**launched["ltibob"], "sub": "lms-dropped-7"}
    record.write_text(json.dumps(launched))
    manual_score(out, "ltibob", "fx-attn", 0.5)  # formgrader's Manual Grading
    want = expected_scores(out)
    theirs = sum(1 for student, _, _ in want if student in ("ltiminji", "ltibob"))  # their notebooks in the gradebook

    dry, _ = push(lti, out, "--dry-run")
    assert dry.returncode == 1, dry.stderr
    assert platform_scores(lti) == ({}, []) and f"would send {theirs + 1} score(s)" in dry.stderr, dry.stderr

    first, seconds = push(lti, out)
    TIMES[f"lti-push, first ({theirs} scores of 2 students), s"] = round(seconds, 2)
    assert first.returncode == 1, first.stderr
    assert "not sent: ltinever/fx-attn/fx-attn: never launched the course from the LMS" in first.stderr
    assert re.search(r"not sent: ltighost/fx-attn/fx-attn: the LMS refused it .*HTTP 400", first.stderr), first.stderr
    scores, items = platform_scores(lti)
    assert sorted(i["resourceId"] for i in items) == ["fx-attn/fx-attn", "fx-ctrl/fx-ctrl"]
    sent = {}
    for (student, assignment, notebook), (points, most) in want.items():
        if student in ("ltiminji", "ltibob"):
            sent[(f"{assignment}/{notebook}", LMS_ID[student])] = (points, most)
    assert {k: v[:2] for k, v in scores.items()} == sent
    assert sent[("fx-attn/fx-attn", "lms-2002")][0] == want[("ltibob", "fx-attn", "fx-attn")][0]
    assert {v[2:4] for v in scores.values()} == {("Completed", "FullyGraded")}

    posts = score_posts(lti)
    second, _ = push(lti, out)
    assert f"sent 0 score(s); {theirs} unchanged" in second.stderr, second.stderr
    assert platform_scores(lti) == (scores, items)
    assert score_posts(lti) == posts + 1  # ghost's alone, tried again (a student not sent is tried at each push)

    # a changed score: the LMS cannot be reached (its token endpoint down), nothing is sent; the next push sends it
    manual_score(out, "ltiminji", "fx-attn", 0.0)  # she had it right: the instructor takes the point back
    unreachable = lti["folder"] / "class-unreachable.json"
    spec = json.loads(lti["class_file"].read_text())
    spec["lti"]["token_url"] = f"http://127.0.0.1:{free_port()}/token"
    unreachable.write_text(json.dumps(spec))
    failed, _ = push(lti, out, class_file=unreachable)
    assert "not sent: ltiminji/fx-attn/fx-attn: the LMS could not be reached" in failed.stderr, failed.stderr
    assert platform_scores(lti) == (scores, items)
    resumed, _ = push(lti, out)
    assert f"sent 1 score(s); {theirs - 1} unchanged" in resumed.stderr, resumed.stderr
    now, _ = platform_scores(lti)
    assert now[("fx-attn/fx-attn", "lms-2001")][0] == expected_scores(out)[("ltiminji", "fx-attn", "fx-attn")][0]
    runs = json.loads((out / "lti-push.json").read_text())["runs"]
    assert [r["sent"] for r in runs] == [theirs, 0, 0, 1] and all(r["at"] for r in runs)


def test_class_launches_and_push_timed(lti, graded, tmp_path):
    """The hub's side of a class's launches (one after the other) and a push of their scores, timed."""
    result = launches(lti, "class", **{"class": [*(f"lms-9{i:03d}" for i in range(len(SIMULATED))),
                                                 LMS_ID["ltiminji"], LMS_ID["ltibob"]]})
    assert set(result["statuses"].values()) == {302}
    seconds = sorted(result["seconds"][:len(SIMULATED)])
    TIMES[f"class of {CLASS_SIZE}: launches, one after the other (the hub's side, no server start), s"] = \
        round(sum(seconds), 1)
    TIMES[f"class of {CLASS_SIZE}: one launch, median / slowest, s"] = [seconds[len(seconds) // 2], seconds[-1]]
    # their scores: one graded notebook each, in a gradebook as `autograder grade` leaves it
    out = copy_of(graded, tmp_path / "out")
    add_graded(out, "fx-ctrl", SIMULATED, points=lambda i, most: (i % 3) * most / 2)
    first, seconds = push(lti, out)
    assert first.returncode == 0, first.stderr
    # their scores and minji's and bob's (this OUT's record is new: the line items on the LMS are found and reused)
    theirs = sum(1 for student, _, _ in expected_scores(graded) if student in ("ltiminji", "ltibob"))
    assert f"sent {CLASS_SIZE + theirs} score(s)" in first.stderr, first.stderr
    TIMES[f"class of {CLASS_SIZE}: lti-push of their scores (and minji's and bob's), s"] = round(seconds, 1)
    assert len(lti["platform"].get("/gradebook")["lineitems"]) == 2
    second, seconds = push(lti, out)
    assert f"sent 0 score(s); {CLASS_SIZE + theirs} unchanged" in second.stderr
    TIMES[f"class of {CLASS_SIZE}: lti-push again (nothing to send), s"] = round(seconds, 1)
