"""POST api/events, on events.sock only (sockets.py): a learner's kernel posts one event with its class-live token.

Nothing of a body is kept before the post is known to be small, a hub user's and within that user's rate:
- a Content-Length over MAX_BODY is refused first, before the token is looked at: up to DRAIN bytes, the body is
  read and dropped, then answered 400 (so that the client gets the answer: tornado closes a connection whose body
  it has not read); over DRAIN, tornado answers 400 and closes the connection without reading any of it (the
  server's max_body_size). A body without a length (chunked) is cut off past MAX_BODY the same way;
- the token (`Authorization: token ...`) must be one the hub knows, of a user, scoped to this service: the one the
  hub gives a student's server as TRANSFORMER_LIVE_TOKEN (hub/live/tokens.py), not its JUPYTERHUB_API_TOKEN. The
  user is the hub's name for the token's owner (HubAuth.user_for_token), never the body's;
- each user may post BURST events at once, then RATE a second (429 with Retry-After beyond).
Those refusals (401, 403, 410, 429) are decided before the body is read and answered once it is (at most MAX_BODY,
dropped as it comes): a connection whose body tornado has not read is closed under the client, which could then
see a broken pipe instead of the answer and its Retry-After. Answered only once the event is committed (writer.py).
"""
import json
import logging
import math
import re
import time

from tornado.web import HTTPError, stream_request_body

from live.handlers import JSONErrors
from live.validate import MAX_BODY, Invalid, event_from

DRAIN = 64 * 1024  # bytes: a body over MAX_BODY up to this size is read and dropped, so that its 400 arrives
BURST, RATE = 60, 1.0  # events a user may post at once, then per second
log = logging.getLogger("class-live")


class Limits:
    """Per user, a bucket of BURST events that refills at RATE a second."""

    def __init__(self, burst=BURST, rate=RATE, clock=time.monotonic):
        self.burst, self.rate, self.clock = burst, rate, clock
        self.buckets = {}  # hub user name -> (events left, when counted): one entry per user who has posted

    def take(self, user):
        """0 if `user` may post now (counted), else the seconds until they may."""
        now = self.clock()
        left, then = self.buckets.get(user, (self.burst, now))
        left = min(self.burst, left + (now - then) * self.rate)
        if left >= 1:
            self.buckets[user] = (left - 1, now)
            return 0.0
        self.buckets[user] = (left, now)
        return (1 - left) / self.rate


@stream_request_body
class EventsHandler(JSONErrors):
    def initialize(self, live):
        self.live = live
        self.body = bytearray()
        self.student = None
        self.oversize = False  # a body over MAX_BODY, up to DRAIN: dropped as it comes, then refused
        self.retry_after = None  # seconds, for a 429
        self.refusal = None  # the HTTPError decided in prepare(), raised once the body is read (post)

    def check_xsrf_cookie(self):
        """Token-authenticated only (no cookie is ever read here), so no cross-site form can post."""

    async def prepare(self):
        length = self.request.headers.get("Content-Length", "")
        # None: no plain length (none, chunked: capped below; a malformed one tornado refuses before the body)
        size = int(length) if re.fullmatch(r"[0-9]{1,18}", length) else None
        if size is not None and size > DRAIN:
            log.warning("a body of %d bytes refused unread (over %d)", size, DRAIN)
            return  # tornado answers 400 and closes the connection, never reading it (max_body_size)
        if size is not None and size > MAX_BODY:
            self.oversize = True
            return
        self.request.connection.set_max_body_size(MAX_BODY)
        try:
            self.student = await self.poster()
            if self.live.settings.course_over():
                raise HTTPError(410, f"the course ended on {self.live.settings.end}: no event is kept any more")
            wait = self.live.limits.take(self.student)
            if wait:
                self.retry_after = math.ceil(wait)
                raise HTTPError(429, f"{self.student} posted over {BURST} events at once: one a second more at "
                                     f"most, the next in {self.retry_after} s")
        except HTTPError as refusal:
            self.refusal = refusal

    def write_error(self, status_code, **kwargs):
        if status_code == 429:  # tornado clears the headers before an error's answer
            self.set_header("Retry-After", str(self.retry_after))
        super().write_error(status_code, **kwargs)

    async def poster(self):
        """The hub's name for the owner of the request's token; 401 or 403 unless it may post."""
        auth = self.live.hub_auth
        token = auth.get_token(self, in_cookie=False)
        model = await auth.user_for_token(token, sync=False) if token else None
        if not model or model.get("kind", "user") != "user" or not model.get("name"):
            raise HTTPError(401, "a hub user's class-live token is needed (Authorization: token "
                                 "<TRANSFORMER_LIVE_TOKEN>)")
        if not auth.check_scopes(auth.access_scopes, model):
            raise HTTPError(403, "this token may not reach class-live: post with the token the hub gives a "
                                 "student's server for it (TRANSFORMER_LIVE_TOKEN), not the server's own")
        return model["name"]

    def data_received(self, chunk):
        if not self.oversize and self.refusal is None:
            self.body += chunk

    async def post(self):
        if self.refusal is not None:
            raise self.refusal
        if self.oversize:
            raise HTTPError(400, f"the body is over {MAX_BODY} bytes")
        try:
            event = event_from(json.loads(self.body))
        except (ValueError, UnicodeDecodeError) as error:
            raise HTTPError(400, str(error) if isinstance(error, Invalid) else "the body is not JSON")
        event["student"] = self.student
        try:
            await self.live.writer.store_event(event)
        except Exception:
            log.exception("storing an event failed")
            raise HTTPError(503, "the event could not be stored: send it again")
        self.finish({"stored": event["event_id"]})
