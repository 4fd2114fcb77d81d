"""The browser suite's helpers: the course's servers, started as the Makefile starts them; pages; screenshots."""
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path


from tests.serving import first_answer, free_port

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
TOKEN = "browser-suite"
VIEWPORT = {"width": 1400, "height": 900}


def chromium_path():
    """Debian's chromium (or $CHROMIUM), or None."""
    configured = os.environ.get("CHROMIUM")
    if configured:
        return configured if Path(configured).is_file() else None
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Server:
    """A `make` target that serves Jupyter (lab, formgrader), started and stopped as a person would."""

    def __init__(self, target, variables, args_variable, home):
        self.target, self.variables, self.args_variable, self.home = target, dict(variables), args_variable, home
        self.process = None
        self.log = home / f"{target}.log"

    def url(self, path):
        separator = "&" if "?" in path else "?"
        return f"{self.base}{path}{separator}token={TOKEN}"

    def start(self):
        """Start the server on a free port (a new one after a restart) and wait until it answers."""
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        args = (f"--no-browser --port={self.port} --ServerApp.ip=127.0.0.1 --ServerApp.token={TOKEN} "
                "--ServerApp.open_browser=False")
        if "LAB_SETTINGS" not in self.variables:  # else the target keeps JupyterLab's settings there itself
            args += f" --LabApp.user_settings_dir={self.home / 'lab-user-settings'}"
        variables = {**self.variables, self.args_variable: args}
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(self.home / "jupyter-config"),
               "JUPYTER_RUNTIME_DIR": str(self.home / "jupyter-runtime")}
        env.pop("JUPYTER_CONFIG_PATH", None)
        for leaked in ("MPLBACKEND", "NBGRADER_EXECUTION"):  # as from a learner's shell: what an earlier test of this
            env.pop(leaked, None)  # worker set in os.environ would take the lab's figures away (Agg, grading())
        self.log_start = self.log.stat().st_size if self.log.is_file() else 0
        self.output = open(self.log, "ab")
        self.process = subprocess.Popen(
            ["make", "--no-print-directory", self.target, *(f"{k}={v}" for k, v in variables.items())],
            cwd=ROOT, env=env, stdout=self.output, stderr=subprocess.STDOUT, start_new_session=True)
        # /api/status answers once the server and its extensions are up
        first_answer(self.url("/api/status"), self.process, 120, self.log_text, f"`make {self.target}`", interval=0.3)
        return self

    def stop(self):
        """SIGTERM to `make` and the server it started (their own process group), SIGKILL to what outlives 20 s."""
        if self.process is not None:
            group = self.process.pid  # start_new_session: make leads the group, Jupyter and its kernels are in it
            _signal_group(group, signal.SIGTERM)
            deadline = time.monotonic() + 20
            while _signal_group(group, 0) and time.monotonic() < deadline:
                self.process.poll()  # reaps make once it has exited
                time.sleep(0.2)
            _signal_group(group, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None
        if getattr(self, "output", None):
            self.output.close()

    def log_text(self, since_start=False):
        """What the server printed (since its last start only, with ``since_start``)."""
        if not self.log.is_file():
            return ""
        data = self.log.read_bytes()
        return data[self.log_start if since_start else 0:].decode(errors="replace")


def _signal_group(group, sig):
    """Send ``sig`` to a process group; whether any process of it was still there."""
    try:
        os.killpg(group, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def open_page(browser, errors):
    """A new page of the size a laptop shows, with its console errors and uncaught exceptions collected."""
    page = browser.new_page(viewport=VIEWPORT)
    page.set_default_timeout(60_000)
    page.on("console", lambda message: errors.append(f"console {message.type}: {message.text}")
            if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    return page


class Screens:
    """Numbered screenshots of one module's steps under build/screenshots/."""

    def __init__(self, prefix):
        self.prefix, self.count = prefix, 0
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for old in SCREENSHOTS.glob(f"{prefix}-*.png"):
            old.unlink()

    def take(self, page, name, **options):
        self.count += 1
        path = SCREENSHOTS / f"{self.prefix}-{self.count:02d}-{name}.png"
        page.screenshot(path=str(path), **options)
        return path
