"""The service's settings, from its environment (hub/jupyterhub_config.py passes them on)."""
import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

DEFAULT_PORT = 8790
SERVICE_NAME = "class-live"
SOCKETS_FOLDER = "class-live"  # in the hub's folder: events.sock and page.sock (sockets.py)


@dataclass(frozen=True)
class Settings:
    db_url: str
    class_file: Path
    cookie_secret_file: Path  # the instructors' login cookie outlives a restart of the service
    end: dt.date | None  # the course's last day: afterwards nothing is kept (unless keep) and nothing accepted
    keep: bool
    prefix: str  # /services/class-live/
    port: int
    service_url: str  # JUPYTERHUB_SERVICE_URL (the hub's `url` for the service): only the hub's checks come there
    sockets: Path  # the folder of events.sock (the learners' posts) and page.sock (the hub's proxy): root's only

    @property
    def events_socket(self):
        return self.sockets / "events.sock"

    @property
    def page_socket(self):
        return self.sockets / "page.sock"

    @classmethod
    def from_env(cls, env=os.environ):
        hub_dir = Path(env.get("TRANSFORMER_HUB_DIR", "/srv/transformer-hub"))
        end = env.get("TRANSFORMER_LIVE_END", "").strip()
        try:
            end_date = dt.date.fromisoformat(end) if end else None
        except ValueError:
            raise SystemExit(f"TRANSFORMER_LIVE_END={end!r} is not an ISO date (YYYY-MM-DD)")
        url = env.get("JUPYTERHUB_SERVICE_URL", "")
        port = urlparse(url).port if url else int(env.get("TRANSFORMER_LIVE_PORT", DEFAULT_PORT))
        prefix = env.get("JUPYTERHUB_SERVICE_PREFIX", f"/services/{SERVICE_NAME}/")
        return cls(
            db_url=env.get("TRANSFORMER_LIVE_DB") or f"sqlite:///{hub_dir / 'class-live.sqlite'}",
            class_file=Path(env.get("TRANSFORMER_HUB_CLASS", hub_dir / "class.json")),
            cookie_secret_file=hub_dir / "class-live-cookie-secret",
            end=end_date,
            keep=env.get("TRANSFORMER_LIVE_KEEP", "") == "1",
            prefix=prefix if prefix.endswith("/") else prefix + "/",
            port=port or DEFAULT_PORT,
            service_url=url or f"http://127.0.0.1:{port or DEFAULT_PORT}",
            sockets=Path(env.get("TRANSFORMER_LIVE_SOCKETS") or hub_dir / SOCKETS_FOLDER),
        )

    def cookie_secret(self):
        """The secret of the instructors' login cookies, made once (0600) in the hub's folder."""
        path = self.cookie_secret_file
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(os.urandom(32).hex())
        return path.read_text().strip()

    def course_over(self, today=None):
        """True after the course's end date (the end date itself is still a course day)."""
        return self.end is not None and (today or dt.date.today()) > self.end
