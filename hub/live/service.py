"""class-live, the JupyterHub service of the live view (started by the hub: hub/jupyterhub_config.py's
c.JupyterHub.services; `python -m live.service` in hub/, with the hub's environment variables for a service and
TRANSFORMER_HUB_DIR, TRANSFORMER_HUB_CLASS, TRANSFORMER_LIVE_SOCKETS, TRANSFORMER_LIVE_DB, TRANSFORMER_LIVE_END,
TRANSFORMER_LIVE_KEEP). It listens on events.sock and page.sock (sockets.py), and on its http URL for the hub's
checks only."""
import asyncio
import logging
import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import jinja2
from jupyterhub.services.auth import HubOAuth, HubOAuthCallbackHandler
from tornado.httpserver import HTTPServer
from tornado.ioloop import PeriodicCallback
from tornado.web import Application, HTTPError

from live import course_info, sockets
from live.events import DRAIN, EventsHandler, Limits
from live.feed import Feed
from live.handlers import JSONErrors, PageHandler, StreamHandler
from live.settings import Settings
from live.store import Store
from live.validate import MAX_BODY
from live.writer import Writer

HERE = Path(__file__).resolve().parent
RETENTION_CHECK = 3600  # seconds between checks of the course's end date
STOP_GRACE_S = 10  # seconds a stop may take before the process just exits
BODY_TIMEOUT_S, IDLE_S = 10, 120  # events.sock: seconds a body may take to arrive, a kept-alive connection idle
log = logging.getLogger("class-live")


@dataclass
class Live:
    """What the handlers share."""
    settings: Settings
    store: Store
    feed: Feed
    writer: Writer
    hub_auth: HubOAuth  # the one instance: HubOAuthCallbackHandler finds the login's state (PKCE) in it
    roster: list
    ids: dict
    taught: dict
    templates: jinja2.Environment
    limits: Limits

    def render(self, name, **context):
        return self.templates.get_template(name).render(**context)


def make_app(live):
    """The instructors' routes (page.sock)."""
    prefix = live.settings.prefix
    return Application(
        [
            (prefix, PageHandler, {"live": live}),
            (prefix + "api/stream", StreamHandler, {"live": live}),
            (prefix + "oauth_callback", HubOAuthCallbackHandler),
        ],
        static_path=str(HERE / "static"),
        static_url_prefix=prefix + "static/",
        cookie_secret=live.settings.cookie_secret(),
        hub_auth=live.hub_auth,  # HubOAuthCallbackHandler finds it here
        log_function=_log_request,
    )


def events_app(live):
    """The learners' posts (events.sock)."""
    return Application([(live.settings.prefix + "api/events", EventsHandler, {"live": live})],
                       log_function=_log_request)


class Elsewhere(JSONErrors):
    """The service's http URL: JupyterHub checks that it answers; nothing else is served there."""

    def prepare(self):
        raise HTTPError(404, "class-live is reached through the hub (/services/class-live/)")


def listen(live):
    """events.sock, page.sock and the http URL; every server refuses a body over its limit before reading it."""
    settings = live.settings
    folder = sockets.private_folder(settings.sockets)
    events = HTTPServer(events_app(live), max_body_size=DRAIN, body_timeout=BODY_TIMEOUT_S,
                        idle_connection_timeout=IDLE_S)
    events.add_socket(sockets.bind(folder / settings.events_socket.name, sockets.EVENTS_MODE))
    HTTPServer(make_app(live), max_body_size=MAX_BODY).add_socket(
        sockets.bind(folder / settings.page_socket.name, sockets.PAGE_MODE))
    host = urlparse(settings.service_url).hostname or "127.0.0.1"
    try:
        HTTPServer(Application([(r".*", Elsewhere)], log_function=_log_request), max_body_size=0).listen(
            settings.port, host)
    except OSError as error:
        log.warning("%s:%d, where the hub checks the service, is taken (%s): the hub may find another process "
                    "there, which gets no event and no page (they go to the sockets in %s)", host, settings.port,
                    error.strerror, folder)
    return folder, host


def _log_request(handler):
    """Problems only: 15 POSTs a second are not news."""
    status, seconds = handler.get_status(), handler.request.request_time()
    if status >= 400 or seconds > 1.0:
        log.warning("%d %s %s %.0f ms", status, handler.request.method, handler.request.path, seconds * 1000)


def forget_if_over(settings, store):
    """After the course's end date every stored event is deleted, unless TRANSFORMER_LIVE_KEEP=1."""
    if settings.course_over() and not settings.keep:
        deleted = store.delete_all()
        if deleted:
            log.warning("the course ended on %s: %d events deleted (TRANSFORMER_LIVE_KEEP=1 keeps them)",
                        settings.end, deleted)


async def main():
    logging.basicConfig(level=logging.INFO, format="[class-live %(asctime)s %(levelname)s] %(message)s")
    settings = Settings.from_env()
    store = Store(settings.db_url)
    forget_if_over(settings, store)
    feed = Feed(store)
    live = Live(settings=settings, store=store, feed=feed, writer=Writer(store, feed.wake),
                hub_auth=HubOAuth.instance(cache_max_age=300), roster=course_info.roster(settings.class_file),
                ids=course_info.ids_explained(), taught=course_info.units_taught(),
                templates=jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True),
                limits=Limits())
    await feed.start()
    live.writer.start()
    PeriodicCallback(lambda: live.writer.run_blocking(forget_if_over, settings, store),
                     RETENTION_CHECK * 1000).start()
    folder, host = listen(live)
    log.info("listening at %s in %s (events.sock, page.sock; the hub's checks at %s:%d) (%d students, %s, events %s)",
             settings.prefix, folder, host, settings.port, len(live.roster),
             store.engine.url.render_as_string(hide_password=True),
             f"kept until {settings.end}" if settings.end else "kept (no TRANSFORMER_LIVE_END)")
    await stop_signal()
    log.info("stopping")


async def stop_signal():
    """Returns at the first SIGINT or SIGTERM, leaving the stop STOP_GRACE_S seconds before the process exits
    anyway. The hub stops its services with SIGINT, then SIGTERM after 30 s
    (its Spawner.interrupt_timeout). Handlers of our own, because Python leaves SIGINT ignored in a process that
    inherited it so: a hub started in the background (`make hub &`, a script, a CI job) would otherwise wait those
    30 s for this service at every stop, and a supervisor that gives up sooner leaves it running."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    # What follows is graceful (the tasks cancelled, the database's threads joined); should it ever hang, it is cut
    # short, as SIGKILL would: an event is acknowledged only once committed, so nothing acknowledged is lost.
    cut_short = threading.Timer(STOP_GRACE_S, os._exit, args=(1,))
    cut_short.daemon = True
    cut_short.start()


if __name__ == "__main__":
    asyncio.run(main())
