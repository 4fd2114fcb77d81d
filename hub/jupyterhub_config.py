"""JupyterHub for a class on one machine (`make hub`): the course's lab for students, formgrader for instructors.

Started by `make hub` as root (it logs in the machine's own users with PAM and starts each user's
server as that user), from the hub's folder (TRANSFORMER_HUB_DIR: its database, cookie secret and
nbgrader's exchange), after hub/prepare.py has set that folder up. The class is a JSON file
(TRANSFORMER_HUB_CLASS, see hub/class.example.json): who teaches, and each student's edition
(en, ko, en-challenge, ko-challenge). Each edition is a course of nbgrader's exchange
(hub/course.py): an assignment has one id (01-attention) in every edition, and `autograder grade`
reads each notebook's language and level from the notebook itself.

- A student's server: the learner's lab (lab-config/; in Korean for the Korean editions) with hub/student/ before it: nbgrader's
  Assignment List on (fetch, submit, fetch feedback in the course of the student's edition),
  the instructor's tools off, the home folder private (0700).
- The live view of a lab session: the service class-live (hub/live/), for the instructors group only.
- An instructor's server: formgrader on the home folder, which is the English guided course's folder
  (~/ko, ~/challenge, ~/challenge/ko are the other editions': hub/course.py writes their nbgrader_config.py),
  with hub/instructor/ before lab-config/; the instructor is put in the hub's instructors group,
  the only one (with root) that can read the solutions, the reference and the hidden tests
  (hub/prepare.py).
"""
import grp
import json
import os
import pwd
import sys
from pathlib import Path

HUB = Path(__file__).resolve().parent
REPO = HUB.parent
sys.path.insert(0, str(HUB))
import course
import exchange

c = get_config()  # noqa: F821

HUB_DIR = Path(os.environ.get("TRANSFORMER_HUB_DIR", "/srv/transformer-hub")).resolve()
CLASS_FILE = Path(os.environ.get("TRANSFORMER_HUB_CLASS", HUB_DIR / "class.json"))
EXCHANGE = HUB_DIR / "exchange"
GROUP = os.environ.get("TRANSFORMER_HUB_GROUP", "transformer-instructors")
VENV_BIN = Path(sys.executable).parent  # .venv/hub-python/bin: JupyterHub runs from it, and so does every user's server

CLASS = json.loads(CLASS_FILE.read_text(encoding="utf-8"))
INSTRUCTORS = set(CLASS.get("instructors", []))
STUDENTS = dict(CLASS.get("students", {}))
for name, edition in STUDENTS.items():
    if edition not in course.EDITIONS:
        raise SystemExit(f"{CLASS_FILE}: student {name!r} has edition {edition!r}; use one of {sorted(course.EDITIONS)}")
if INSTRUCTORS & set(STUDENTS):
    raise SystemExit(f"{CLASS_FILE}: {sorted(INSTRUCTORS & set(STUDENTS))} are listed as instructors and as students")

# ---------------------------------------------------------------- the hub, its proxy, its state
c.JupyterHub.bind_url = f"http://{os.environ.get('TRANSFORMER_HUB_IP', '127.0.0.1')}:{os.environ.get('TRANSFORMER_HUB_PORT', '8000')}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("TRANSFORMER_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ.get('TRANSFORMER_HUB_PROXY_API_PORT', '8001')}"
c.ConfigurableHTTPProxy.command = [str(REPO / ".venv" / "hub-proxy" / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(HUB_DIR / "run" / "jupyterhub-proxy.pid")  # run/: root's only (hub/prepare.py)
c.JupyterHub.db_url = f"sqlite:///{HUB_DIR / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(HUB_DIR / "jupyterhub_cookie_secret")
c.JupyterHub.cleanup_servers = True  # `make hub` stopped stops the users' servers too

# ---------------------------------------------------------------- who may log in
# PAM (JupyterHub's default): the machine's own users and passwords, as on The Littlest JupyterHub's
# machine or any shared server; the hub runs as root to check them and to start servers as them.
c.JupyterHub.authenticator_class = "pam"
if CLASS.get("lti"):  # or LTI 1.3 from Canvas or Moodle (issue 50; hub/lti.py): the class file's lti section
    import lti  # noqa: E402

    lti.configure(c, CLASS["lti"], HUB_DIR, INSTRUCTORS, STUDENTS,
                  outbound=lambda edition: EXCHANGE / course.course_id(edition) / "outbound")
c.Authenticator.allowed_users = INSTRUCTORS | set(STUDENTS)
c.Authenticator.admin_users = INSTRUCTORS  # they may see the students' servers; students see only their own
c.JupyterHub.load_groups = {
    "instructors": {"users": sorted(INSTRUCTORS)},
    **{f"edition-{edition}": {"users": sorted(n for n, e in STUDENTS.items() if e == edition)} for edition in course.EDITIONS},
}

# ---------------------------------------------------------------- the live view of a lab session (hub/live/)
# class-live, a service the hub starts (and restarts if it stops) with its own Python. It listens on two Unix sockets
# in LIVE_SOCKETS, a folder only root may write (the service refuses to start otherwise), so that while it is down no
# student can take its place: students' kernels POST their visible tests' outcomes to events.sock (TRANSFORMER_LIVE_URL)
# with a token JupyterHub scopes to this service alone (TRANSFORMER_LIVE_TOKEN, renewed at each start of the server,
# hub/live/tokens.py), never the server's JUPYTERHUB_API_TOKEN; the hub's proxy forwards /services/class-live/ to
# page.sock (0600: the proxy runs as root), where the instructors see the session after the hub's login (OAuth, no
# confirmation page). JupyterHub 6.1 takes only an http(s) URL for a service and checks that it answers, so the
# service answers 404 on LIVE_PORT, and LiveProxy routes its path to page.sock instead (configurable-http-proxy 5.3
# takes http+unix targets). Students hold the service's access scope (their token needs it), the page and its stream
# also need the instructors group (hub/live/handlers.py).
from urllib.parse import quote  # noqa: E402

from jupyterhub.proxy import ConfigurableHTTPProxy  # noqa: E402
from live import tokens as live_tokens  # noqa: E402

LIVE_PORT = int(os.environ.get("TRANSFORMER_LIVE_PORT", "8790"))
LIVE_SERVICE = live_tokens.SERVICE
LIVE_SOCKETS = HUB_DIR / "class-live"
LIVE_URL = f"http+unix://{quote(str(LIVE_SOCKETS / 'events.sock'), safe='')}/services/{LIVE_SERVICE}/"
LIVE_PAGE = f"http+unix://{quote(str(LIVE_SOCKETS / 'page.sock'), safe='')}"  # the proxy's target
LIVE_CHECKED = f"http://127.0.0.1:{LIVE_PORT}"  # what JupyterHub knows as the service's URL
c.JupyterHub.services = [{
    "name": LIVE_SERVICE,
    "url": LIVE_CHECKED,
    "command": [str(VENV_BIN / "python"), "-m", "live.service"],
    "cwd": str(HUB),
    "environment": {
        "TRANSFORMER_HUB_DIR": str(HUB_DIR),
        "TRANSFORMER_HUB_CLASS": str(CLASS_FILE.resolve()),
        "TRANSFORMER_LIVE_SOCKETS": str(LIVE_SOCKETS),
        # optional: the events' database (default SQLite in HUB_DIR), the course's end date, keep events after it
        **{k: os.environ[k] for k in ("TRANSFORMER_LIVE_DB", "TRANSFORMER_LIVE_END", "TRANSFORMER_LIVE_KEEP")
           if os.environ.get(k)},
    },
    "oauth_no_confirm": True,
    "display": True,
}]
c.JupyterHub.load_roles = [{
    "name": "class-live-viewer",
    "description": "The instructors' live view of a lab session (students may not open it)",
    "scopes": live_tokens.scopes(),
    "groups": ["instructors"],
}, {
    "name": "class-live-sender",
    "description": "A student's server gets a token for class-live alone, to post the visible tests' outcomes",
    "scopes": live_tokens.scopes(),
    "groups": [f"edition-{edition}" for edition in course.EDITIONS],
}]


class LiveProxy(ConfigurableHTTPProxy):
    """configurable-http-proxy, with class-live's route to page.sock rather than to LIVE_CHECKED."""

    async def add_route(self, routespec, target, data):
        await super().add_route(routespec, LIVE_PAGE if (data or {}).get("service") == LIVE_SERVICE else target, data)

    async def get_all_routes(self):
        routes = await super().get_all_routes()
        for route in routes.values():  # as JupyterHub expects it, or its route check would add it again and again
            if route["data"].get("service") == LIVE_SERVICE and route["target"] == LIVE_PAGE:
                route["target"] = LIVE_CHECKED
        return routes


c.JupyterHub.proxy_class = LiveProxy

# ---------------------------------------------------------------- each user's server
c.Spawner.cmd = [str(VENV_BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.http_timeout = 120  # a busy 2-core machine takes a while to load JupyterLab's extensions
c.Spawner.start_timeout = 120


def _private_home(name):
    """The user's home, made 0700: the students' work is in it (JupyterHub's server runs there)."""
    home = Path(pwd.getpwnam(name).pw_dir)
    if home.is_dir() and home.stat().st_mode & 0o077:
        home.chmod(0o700)
    return home


def _in_group(name):
    """The instructor joins the hub's instructors group (made by hub/prepare.py) and every course's group before the
    server starts."""
    try:
        grp.getgrnam(GROUP)
    except KeyError:
        raise RuntimeError(f"the group {GROUP} is missing: `make hub` (hub/prepare.py) creates it")
    # and every edition's course in the exchange (hub/exchange.py; again while another spawn holds /etc/group's lock)
    exchange.join_groups(name, [GROUP, *(exchange.course_group(course.course_id(e)) for e in course.EDITIONS)])


def _korean_lab(home, account):
    """A Korean-edition student's JupyterLab speaks Korean (its language pack), as `make lab COURSE_LANG=ko` does,
    unless the student has chosen a language."""
    from learner_kit.workspace import seed_locale

    settings = home / ".jupyter" / "lab" / "user-settings"
    written = seed_locale(settings, "ko_KR")
    if written is not None:
        for path in [written, *written.parents]:
            if path == home:
                break
            os.chown(path, account.pw_uid, account.pw_gid)


def pre_spawn_hook(spawner):
    name = spawner.user.name
    home = _private_home(name)
    env = {
        "PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TRANSFORMER_HUB_EXCHANGE": str(EXCHANGE),
        "MPLCONFIGDIR": str(home / ".cache" / "matplotlib"),
    }
    if name in INSTRUCTORS:
        _in_group(name)
        folder = course.instructor_folders(home, pwd.getpwnam(name))
        # formgrader-config: any formgrader link with ?token= keeps a typed score, Hangul drawn (formgrader_extras.py)
        extras = REPO / "autograder" / "grading" / "outputs" / "formgrader-config"
        env["JUPYTER_CONFIG_PATH"] = f"{HUB / 'instructor'}:{extras}:{REPO / 'lab-config'}"
        spawner.notebook_dir = str(folder)
        spawner.default_url = "/formgrader"
    else:
        edition = STUDENTS[name]
        # the exchange's course of the student's edition, and no other (hub/exchange.py)
        courses = {exchange.course_group(course.course_id(e)) for e in course.EDITIONS}
        mine = exchange.course_group(course.course_id(edition))
        exchange.join_groups(name, [mine], left=sorted(courses - {mine}))
        env["JUPYTER_CONFIG_PATH"] = f"{HUB / 'student'}:{REPO / 'lab-config'}"
        env["TRANSFORMER_HUB_COURSE"] = course.course_id(edition)
        env["COURSE_LANG"] = course.EDITIONS[edition]["lang"]
        env["TRANSFORMER_LIVE_URL"] = LIVE_URL  # learner_kit/live.py posts here (events.sock) with the token below
        env["TRANSFORMER_LIVE_TOKEN"] = live_tokens.renew(spawner.user)  # class-live's alone, never JUPYTERHUB_API_TOKEN
        if env["COURSE_LANG"] == "ko":
            _korean_lab(home, pwd.getpwnam(name))
        spawner.notebook_dir = str(home)
        spawner.default_url = "/lab"
    spawner.environment = {**spawner.environment, **env}


c.Spawner.pre_spawn_hook = pre_spawn_hook
