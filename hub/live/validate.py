"""A learner's event as the wire fixes it (the issue's spec): exactly these keys, each checked; anything else is
refused with the reason (the POST answers 400 with it). The user is never in the body: the hub names it."""
import math
import re

from autograder.course import ALL_UNITS, GRADED_UNITS
from learner_kit.messages import CATALOGUE

KEYS = ("event_id", "notebook", "unit", "outcome", "level", "lang", "time")
EVENT_ID = re.compile(r"^[0-9a-f]{32}$")  # uuid4().hex
LEVELS = ("guided", "challenge")
LANGS = ("en", "ko")
OUTCOMES = frozenset({"passed", "failed", *CATALOGUE})
MAX_BODY = 2048  # bytes: a well-formed event is about 200
# The learner's clock: any time from 2001 to 2286 (a wrong clock is not a reason to lose the event).
EARLIEST, LATEST = 1e9, 1e10


class Invalid(ValueError):
    """Why a body is not an event (the 400's message)."""


def event_from(body):
    """The event in a parsed JSON ``body``, checked, as a dict of KEYS; raises Invalid."""
    if not isinstance(body, dict):
        raise Invalid("the body must be a JSON object")
    unknown = sorted(set(body) - set(KEYS))
    missing = [k for k in KEYS if k not in body]
    if unknown:
        raise Invalid(f"unknown key(s): {', '.join(map(repr, unknown))[:200]}")
    if missing:
        raise Invalid(f"missing key(s): {', '.join(missing)}")
    if not isinstance(body["event_id"], str) or not EVENT_ID.match(body["event_id"]):
        raise Invalid("event_id must be 32 lowercase hex digits (uuid4().hex)")
    for key in ("unit", "outcome", "level", "lang"):
        if not isinstance(body[key], str):
            raise Invalid(f"{key} must be a string")
    notebook = body["notebook"]
    if notebook is not None and (not isinstance(notebook, str) or len(notebook) > 100):
        raise Invalid("notebook must be null or an assignment id")
    if notebook not in GRADED_UNITS:  # a folder the learner renamed: the unit still says where they are
        notebook = None
    if body["unit"] not in ALL_UNITS:
        raise Invalid("unit is not a graded unit of the course")
    if body["outcome"] not in OUTCOMES:
        raise Invalid("outcome must be 'passed', 'failed' or a misconception id of learner_kit.messages.CATALOGUE")
    if body["level"] not in LEVELS:
        raise Invalid(f"level must be one of {', '.join(LEVELS)}")
    if body["lang"] not in LANGS:
        raise Invalid(f"lang must be one of {', '.join(LANGS)}")
    moment = body["time"]
    if (isinstance(moment, bool) or not isinstance(moment, (int, float)) or not math.isfinite(moment)
            or not EARLIEST <= moment <= LATEST):
        raise Invalid("time must be a number of seconds since 1970 (the learner's time.time())")
    return {**{k: body[k] for k in KEYS}, "notebook": notebook, "time": float(moment)}
