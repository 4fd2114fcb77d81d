"""LTI 1.3 launch into the class's JupyterHub (issue 50): a learner clicks the course's link in Canvas or Moodle and lands
in their own lab, in their edition, on the link's notebook, with no second login.

The launch is jupyterhub-ltiauthenticator's (LTI13Authenticator: the OIDC login initiation, the state and nonce
cookies, the id_token's signature checked with the platform's JWKS, its issuer, audience, expiry, age and LTI claims).
What this module adds, for the class file's ``lti`` section (hub/class.example.json):

- the LMS's user is mapped to the class roster (``username_claim``, e.g. ``custom_roster_id``: the value of the custom
  parameter roster_id, ``$Canvas.user.loginId`` or Moodle's ``$User.username``; ``users`` maps other values), and a
  launch for a name the class file lacks is refused with a page that says why (403);
- the LMS's role must agree with the class file: an Instructor (or Administrator, or Teaching Assistant) of the LMS's
  course must be one of the class file's instructors (then the hub gives the instructors' group, hub/jupyterhub_config.py),
  a learner one of its students: a student never gets the instructors' group from the LMS, nor the reverse;
- a nonce is taken once (the stock check compares it with a cookie; a launch posted again with the cookies it came
  with would pass it), kept until the id_token expires;
- the state and nonce cookies are ``SameSite=None; Secure`` over https, so that the LMS's cross-site form post carries them;
- each launch is recorded (HUB_DIR/lti/launches.json, root's only): the LMS's user id (``sub``) and the course's
  Assignment and Grade Services endpoint, which `autograder lti-push` needs to send the scores back;
- the tool's key pair (HUB_DIR/lti/tool-key.pem, root's only), its public half served at /hub/lti13/jwks for the LMS
  (the tool's JWKS URL), which checks with it the push's signed requests for an access token;
- the link's notebook: the custom parameter ``assignment`` (01-attention; or ``?assignment=`` in the link's target
  link URI) opens ~/01-attention/01-attention.ipynb,
  copied there first from the exchange when the instructor has released it and the student has not fetched it yet.
"""
import json
import os
import re
import stat
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlsplit

from jupyterhub.handlers import BaseHandler
from jupyterhub.utils import url_path_join
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.constants import LTI13_CUSTOM_CLAIM
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13LoginInitHandler
from tornado import web

ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
CONTEXT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/context"
TARGET_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/target_link_uri"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
# The LMS's roles that make an instructor (context roles, their sub-roles, and the institution's): LIS v2 vocabulary
INSTRUCTOR_ROLES = re.compile(r"^http://purl\.imsglobal\.org/vocab/lis/v2/(membership#(Instructor|Administrator)"
                              r"|membership/(Instructor|Administrator)#\w+|institution/person#(Instructor|Administrator|Faculty))$")
LEARNER_ROLES = re.compile(r"^http://purl\.imsglobal\.org/vocab/lis/v2/(membership#Learner|membership/Learner#\w+"
                           r"|institution/person#(Student|Learner))$")
NAME = re.compile(r"^[A-Za-z0-9][\w.-]{0,63}$")  # an assignment's id or a notebook's name from the LMS's link


def lti_folder(hub_dir):
    """HUB_DIR/lti: the tool's key and the launches' record, root's only."""
    folder = Path(hub_dir) / "lti"
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder


def tool_key(hub_dir):
    """The tool's RSA private key (PEM), made the first time; its file root's only."""
    path = lti_folder(hub_dir) / "tool-key.pem"
    if not path.is_file():
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
    os.chmod(path, 0o600)
    return path.read_text()


def public_jwks(private_pem):
    """The tool's public key as a JSON Web Key Set (what the LMS's "public JWK URL" / "keyset URL" reads)."""
    from jwcrypto.jwk import JWK

    jwk = JWK.from_pem(private_pem.encode())
    public = json.loads(jwk.export_public())
    public.update(alg="RS256", use="sig", kid=jwk.thumbprint())
    return {"keys": [public]}


def tool_kid(private_pem):
    from jwcrypto.jwk import JWK

    return JWK.from_pem(private_pem.encode()).thumbprint()


def read_launches(hub_dir):
    path = Path(hub_dir) / "lti" / "launches.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


_RECORD_LOCK = threading.Lock()


def record_launch(hub_dir, name, token, role):
    """HUB_DIR/lti/launches.json: {roster id: the LMS's id for them and the course's AGS endpoint}, written whole."""
    ags = token.get(AGS_CLAIM) or {}
    entry = {
        "sub": token.get("sub"), "iss": token.get("iss"), "aud": token.get("aud"),
        "deployment_id": token.get(DEPLOYMENT_CLAIM), "context_id": (token.get(CONTEXT_CLAIM) or {}).get("id"),
        "lineitems": ags.get("lineitems"), "scope": ags.get("scope") or [], "role": role,
        "last_launch": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    with _RECORD_LOCK:
        folder = lti_folder(hub_dir)
        launches = read_launches(hub_dir)
        launches[name] = entry
        temporary = folder / "launches.json.tmp"
        temporary.write_text(json.dumps(launches, indent=1, sort_keys=True), encoding="utf-8")
        os.chmod(temporary, 0o600)
        os.replace(temporary, folder / "launches.json")


def copy_released(outbound, home, uid, gid):
    """Copy the released assignment folder ``outbound`` into ``home`` (as nbgrader's fetch would), unless the home has
    anything of that name. The home is the student's: every step goes through file descriptors opened without
    following links, and creates (O_EXCL) rather than opens, so that a link the student planted leads nowhere.
    Returns True when copied."""
    name = Path(outbound).name
    home_fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        try:
            os.lstat(name, dir_fd=home_fd)
            return False
        except FileNotFoundError:
            pass
        _copy_tree(Path(outbound), home_fd, name, uid, gid)
        return True
    finally:
        os.close(home_fd)


def _copy_tree(source, parent_fd, name, uid, gid):
    os.mkdir(name, 0o700, dir_fd=parent_fd)
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent_fd)
    try:
        os.fchown(fd, uid, gid)
        for entry in sorted(source.iterdir()):
            mode = entry.lstat().st_mode
            if stat.S_ISDIR(mode):
                _copy_tree(entry, fd, entry.name, uid, gid)
            elif stat.S_ISREG(mode):
                out = os.open(entry.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=fd)
                try:
                    os.fchown(out, uid, gid)
                    with open(entry, "rb") as handle:
                        os.write(out, handle.read())
                finally:
                    os.close(out)
    finally:
        os.close(fd)


class LaunchRefused(web.HTTPError):
    """A launch the class does not take: JupyterHub's error page shows ``jupyterhub_message``."""

    def __init__(self, why):
        super().__init__(403, why)
        self.jupyterhub_message = why


class CourseLoginInitHandler(LTI13LoginInitHandler):
    def _set_oauth_cookie(self, key, value):
        extra = {}
        if self.authenticator.get_uri_scheme(self.request) == "https":
            extra = {"samesite": "None", "secure": True}  # the LMS's form post is cross-site
        self._set_cookie(key, value, expires_days=1, httponly=True, encrypted=True, **extra)


class CourseCallbackHandler(LTI13CallbackHandler):
    def check_nonce(self, id_token):
        super().check_nonce(id_token)
        self.authenticator.take_nonce(id_token)

    def get_next_url(self, user=None):
        target = getattr(self, "_lti_target", None)
        return target or super().get_next_url(user)

    async def redirect_to_next_url(self, user):
        self._lti_target = self.authenticator.landing(user, self._lti_token)
        await super().redirect_to_next_url(user)

    def decode_and_validate_launch_request(self):
        self._lti_token = super().decode_and_validate_launch_request()
        return self._lti_token


class JWKSHandler(BaseHandler):
    """The tool's public key set (GET /hub/lti13/jwks), for the LMS."""

    def check_xsrf_cookie(self):
        return

    async def get(self):
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps(self.authenticator.tool_jwks))


class CourseLTI13Authenticator(LTI13Authenticator):
    """LTI13Authenticator for the class file's roster (see the module's docstring). Set by hub/jupyterhub_config.py."""

    login_handler = CourseLoginInitHandler
    callback_handler = CourseCallbackHandler

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._used_nonces = {}
        self._nonce_lock = threading.Lock()
        # set by configure(): hub_dir, instructors, students, users (LMS value -> roster id), outbound(edition)
        self.hub_dir = None
        self.instructors, self.students, self.users = set(), {}, {}
        self.outbound = None
        self.tool_jwks = {"keys": []}

    def get_handlers(self, app):
        return [*super().get_handlers(app), (url_path_join("lti13", "jwks"), JWKSHandler)]

    def take_nonce(self, id_token):
        """A nonce is good for one launch: a second post of the same id_token (with the cookies it came with) is refused."""
        now = time.time()
        nonce = id_token.get("nonce")
        with self._nonce_lock:
            for old in [n for n, until in self._used_nonces.items() if until < now]:
                del self._used_nonces[old]
            if nonce in self._used_nonces:
                raise web.HTTPError(400, "this launch was used already (its nonce was taken): launch again from the LMS")
            self._used_nonces[nonce] = max(float(id_token.get("exp", now)), now) + 600

    async def authenticate(self, handler, data=None):
        data = data or {}
        claim = self.username_key or "sub"
        where = (data.get(LTI13_CUSTOM_CLAIM) or {}) if claim.startswith("custom_") else data
        if not where.get(claim[len("custom_"):] if claim.startswith("custom_") else claim):
            # (the stock authenticator falls back to sub, the LMS's opaque id, which is no roster name)
            raise LaunchRefused(f"The LMS's launch has no {claim}, the hub's name for you: the course's LTI link in "
                                f"the LMS must send it (see the README's LTI section).")
        value = str(self.get_username(data))
        name = self.users.get(value, value)
        roles = data.get(ROLES_CLAIM) or []
        instructor = any(INSTRUCTOR_ROLES.match(r) for r in roles)
        learner = any(LEARNER_ROLES.match(r) for r in roles)
        if name not in self.instructors and name not in self.students:
            raise LaunchRefused(
                f"The LMS launched {value!r} ({claim}), who is not in this class's roster: ask your instructor to add "
                f"you to the class file (the hub's name for you, as the LMS sends it in {claim}).")
        if instructor and name not in self.instructors:
            raise LaunchRefused(f"The LMS says {name!r} teaches this course, but the class file lists {name!r} as a "
                                f"student: the hub does not give a student the instructors' tools. Ask the course's "
                                f"instructor to list you as an instructor in the class file.")
        if name in self.instructors and not instructor:
            raise LaunchRefused(f"The class file lists {name!r} as an instructor, but the LMS launched {name!r} "
                                f"without an instructor's role ({', '.join(roles) or 'no role'}): open the course as "
                                f"its instructor in the LMS.")
        if name in self.students and not learner:
            raise LaunchRefused(f"The LMS launched {name!r} without a learner's role ({', '.join(roles) or 'no role'}), "
                                f"and the class file lists {name!r} as a student.")
        if self.hub_dir is not None:
            record_launch(self.hub_dir, name, data, "instructor" if instructor else "student")
        return {"name": name, "auth_state": data}

    def landing(self, user, token):
        """Where the launch lands: an instructor in formgrader, a student on the link's notebook (custom parameter
        ``assignment``, optional ``notebook``), else in the lab; through /hub/spawn, which starts the server first."""
        custom = token.get(LTI13_CUSTOM_CLAIM) or {}
        if user.name in self.instructors:
            target = url_path_join(user.url, "formgrader")
        else:
            target = url_path_join(user.url, "lab")
            # the link's custom parameters, else the query of its target link URI (https://HUB/hub/?assignment=...)
            link = dict(parse_qsl(urlsplit(str(token.get(TARGET_CLAIM) or "")).query))
            assignment = str(custom.get("assignment") or link.get("assignment") or "")
            notebook = str(custom.get("notebook") or link.get("notebook") or f"{assignment}.ipynb")
            if NAME.match(assignment) and NAME.match(notebook):
                self.fetch_for(user.name, assignment)
                target = url_path_join(user.url, "lab", "tree", assignment, notebook)
        return url_path_join(self.hub_base, "spawn", user.name) + "?next=" + quote(target, safe="/")

    def fetch_for(self, name, assignment):
        if self.outbound is None:
            return
        import pwd

        source = self.outbound(self.students[name]) / assignment
        if not source.is_dir():
            return
        account = pwd.getpwnam(name)
        try:
            if copy_released(source, account.pw_dir, account.pw_uid, account.pw_gid):
                self.log.info("LTI launch: copied the released %s into %s's home", assignment, name)
        except OSError as error:
            self.log.warning("LTI launch: %s's %s not copied (%s)", name, assignment, error)


def configure(c, spec, hub_dir, instructors, students, outbound, hub_base="/hub/"):
    """The class file's ``lti`` section (``spec``) into JupyterHub's config ``c``. Returns the authenticator's class."""
    missing = [k for k in ("issuer", "client_id", "authorize_url", "jwks_url") if not spec.get(k)]
    if missing:
        raise SystemExit(f"the class file's lti section lacks {', '.join(missing)} (see the README's LTI section)")
    key = tool_key(hub_dir)

    class Configured(CourseLTI13Authenticator):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.hub_dir = Path(hub_dir)
            self.instructors, self.students = set(instructors), dict(students)
            self.users = dict(spec.get("users", {}))
            self.outbound = outbound
            self.hub_base = hub_base
            self.tool_jwks = public_jwks(key)

    c.JupyterHub.authenticator_class = Configured
    c.LTI13Authenticator.issuer = spec["issuer"]
    c.LTI13Authenticator.client_id = [str(spec["client_id"])]
    c.LTI13Authenticator.authorize_url = spec["authorize_url"]
    c.LTI13Authenticator.jwks_endpoint = spec["jwks_url"]
    c.LTI13Authenticator.username_key = spec.get("username_claim", "custom_roster_id")
    if spec.get("uri_scheme"):
        c.LTI13Authenticator.uri_scheme = spec["uri_scheme"]
    c.LTI13LaunchValidator.max_age = int(spec.get("max_age", 600))
    return Configured
