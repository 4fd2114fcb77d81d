"""The service's HTTP handlers for the instructors (on page.sock, where the hub's proxy forwards them; the learners'
POST api/events is events.py's, on events.sock).

- GET api/stream: server-sent events for the instructor's page: `run` messages (id: the event's seq; a reconnect
  with Last-Event-ID, or ?last_event_id=, gets every later one) and `view` messages (the session's heatmap,
  progress and stuck list: view.py), plus keep-alive comments.
- GET /: the instructor's page. Both need the hub's `instructors` group as well as the service's access scope
  (HubOAuth's cookie after the hub's login, or a token): students hold the scope too, for their class-live token;
  everyone else 403. `?projector=1`: counts only, no names sent.
"""
import asyncio
import json
import logging
import time

from jupyterhub.services.auth import HubOAuthenticated, UserNotAllowed
from tornado.iostream import StreamClosedError
from tornado.web import HTTPError, RequestHandler

from live.view import ClassView

INSTRUCTORS = "instructors"  # the hub group (hub/jupyterhub_config.py's load_groups)
SESSION_HOURS = 3  # the session's default start: this long ago
KEEP_ALIVE = 15.0  # seconds between comments on an idle stream (proxies close silent connections)
VIEW_EVERY = 0.25  # seconds: a stream's view is sent at most this often (its runs as they come)
DEFAULT_RUNS, DEFAULT_MINUTES = 3, 10
log = logging.getLogger("class-live")


class JSONErrors(RequestHandler):
    def write_error(self, status_code, **kwargs):
        error = kwargs.get("exc_info", (None, None))[1]
        reason = getattr(error, "log_message", None) or self._reason
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": reason}))


class InstructorOnly(HubOAuthenticated, JSONErrors):
    """The hub's instructors only: the service's access scope (the hub's role) and the instructors group."""
    login_redirect = False  # the page sends a browser with no login to the hub's; the stream answers 403

    def initialize(self, live):
        self.live = live
        self.hub_auth = live.hub_auth

    def get_current_user(self):
        return self._instructor

    async def prepare(self):
        self._instructor = None
        model = await self.hub_auth.get_user(self, sync=False)
        if model is None:
            if self.login_redirect and self.request.method == "GET":
                self.redirect(self.get_login_url())
                return
            raise HTTPError(403, "only the hub's instructors may see the live view: log in to the hub first")
        try:
            self.check_hub_user(model)
        except UserNotAllowed:
            raise HTTPError(403, "only the hub's instructors may see the live view")
        if INSTRUCTORS not in (model.get("groups") or []):
            raise HTTPError(403, "only the hub's instructors may see the live view")
        self._instructor = model

    def session_params(self):
        """since (unix time), runs (N), minutes (M), projector: the page's choices, checked."""
        try:
            since = float(self.get_argument("since", "") or time.time() - SESSION_HOURS * 3600)
            runs = int(self.get_argument("runs", "") or DEFAULT_RUNS)
            minutes = float(self.get_argument("minutes", "") or DEFAULT_MINUTES)
        except ValueError:
            raise HTTPError(400, "since, runs and minutes must be numbers")
        if not (1 <= runs <= 100 and 0 <= minutes <= 24 * 60):
            raise HTTPError(400, "runs must be 1 to 100, minutes 0 to 1440")
        return since, runs, minutes, self.get_argument("projector", "") == "1"


class PageHandler(InstructorOnly):
    login_redirect = True

    def get(self):
        projector = self.get_argument("projector", "") == "1"
        data = {"stream": self.live.settings.prefix + "api/stream", "page": self.live.settings.prefix, "projector": projector,
                "session_hours": SESSION_HOURS, "runs": DEFAULT_RUNS, "minutes": DEFAULT_MINUTES,
                "ids": self.live.ids, "taught": self.live.taught, "roster": len(self.live.roster),
                # JupyterHub's HubOAuth takes its cookie on an EventSource's GET (not a navigation) only with the
                # page's XSRF token, which an EventSource can send only in its URL (_xsrf)
                "xsrf": self.xsrf_token.decode()}
        self.set_header("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; "
                        "img-src 'self' data:; connect-src 'self'; frame-ancestors 'self'")
        self.set_header("Cache-Control", "no-store")
        self.finish(self.live.render("page.html", projector=projector, data=data,
                                     static=lambda path: self.static_url(path),
                                     page=self.live.settings.prefix, user=self._instructor["name"]))


def sse(event, data, seq=None):
    head = f"id: {seq}\n" if seq is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def run_message(row, names):
    data = {k: row[k] for k in ("seq", "event_id", "notebook", "unit", "outcome", "level", "lang", "time",
                                "received")}
    if names:
        data["student"] = row["student"]
    return sse("run", data, row["seq"])


class StreamHandler(InstructorOnly):
    async def get(self):
        since, runs, minutes, projector = self.session_params()
        last = self.request.headers.get("Last-Event-ID") or self.get_argument("last_event_id", "")
        try:
            resume_after = int(last) if last else None
        except ValueError:
            raise HTTPError(400, "Last-Event-ID must be an event's seq")
        self.set_header("Content-Type", "text/event-stream; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Accel-Buffering", "no")
        names = not projector
        feed = self.live.feed
        queue = self._queue = feed.subscribe()  # before reading the session: no event falls between the two
        try:
            rows = await feed.read(self.live.store.rows, 0, since)
            view = ClassView(self.live.roster)
            self.write("retry: 2000\n\n")
            for row in rows:
                view.add(row)
                if resume_after is not None and row["seq"] > resume_after:
                    self.write(run_message(row, names))
            high = max(view.last_seq, resume_after or 0)
            self.write(sse("view", view.snapshot(time.time(), runs, minutes, names)))
            await self.flush()
            sent, pending = time.monotonic(), False
            while True:
                wait = max(0.0, sent + VIEW_EVERY - time.monotonic()) if pending else KEEP_ALIVE
                try:
                    async with asyncio.timeout(wait):  # not wait_for: in 3.11 it can swallow a cancellation
                        batches = [await queue.get()]
                except TimeoutError:
                    batches = []
                    if not pending:
                        self.write(": keep-alive\n\n")
                        pending = True  # stuck times move on: a fresh view
                while not queue.empty():
                    batches.append(queue.get_nowait())
                if None in batches:  # the page went away (on_connection_close)
                    return
                for batch in batches:
                    for row in batch:
                        if row["seq"] > high and row["received"] >= since:
                            view.add(row)
                            self.write(run_message(row, names))
                            high = row["seq"]
                            pending = True
                if pending and time.monotonic() - sent >= VIEW_EVERY:
                    self.write(sse("view", view.snapshot(time.time(), runs, minutes, names)))
                    sent, pending = time.monotonic(), False
                await self.flush()
        except StreamClosedError:
            pass
        finally:
            feed.unsubscribe(queue)

    def on_connection_close(self):
        if getattr(self, "_queue", None) is not None:
            self._queue.put_nowait(None)
