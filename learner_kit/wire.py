"""The messages between the grader's judge and the unit server that runs a learner's code.

A message is a frame: 4 bytes of length (big-endian), then the payload. The judge's
requests are pickles (the server trusts the judge). The server's replies are written with
torch.save and read with torch.load(weights_only=True): plain data and tensors only, so
nothing a learner's code sends back can run code in the grader. Replies are capped in size.
"""
import builtins
import io
import os
import pickle
import select
import struct
import time

import torch

MAX_REPLY_BYTES = 64 * 1024 * 1024
_LENGTH = struct.Struct(">I")


class ChannelClosed(Exception):
    """The other side is gone, sent something unreadable, or did not answer in time."""


def write_frame(fd, payload: bytes):
    data = _LENGTH.pack(len(payload)) + payload
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exactly(fd, count, deadline):
    chunks, missing = [], count
    while missing:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise ChannelClosed("no answer in time")
        chunk = os.read(fd, min(missing, 1 << 20))
        if not chunk:
            raise ChannelClosed("the other side closed the channel")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


def read_frame(fd, deadline=None, limit=MAX_REPLY_BYTES):
    """The next frame's payload; ChannelClosed on end of file, a frame over `limit`, or the deadline."""
    (length,) = _LENGTH.unpack(_read_exactly(fd, _LENGTH.size, deadline))
    if length > limit:
        raise ChannelClosed(f"a message of {length} bytes, over the limit of {limit}")
    return _read_exactly(fd, length, deadline)


def encode_request(request) -> bytes:
    return pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)


def decode_request(payload: bytes):
    return pickle.loads(payload)


def encode_reply(reply) -> bytes:
    buffer = io.BytesIO()
    torch.save(reply, buffer)
    return buffer.getvalue()


def decode_reply(payload: bytes):
    try:
        return torch.load(io.BytesIO(payload), weights_only=True)
    except Exception as error:  # anything unreadable is the sender's fault
        raise ChannelClosed(f"an unreadable reply ({type(error).__name__})") from None


# ---------------------------------------------------------------- exceptions as plain data

_SAFE_ARG = (str, int, float, bool, type(None))


def error_info(error):
    """An exception as plain data: its type's name, the nearest built-in type it derives from, its text."""
    base = next((k.__name__ for k in type(error).__mro__ if getattr(builtins, k.__name__, None) is k), "Exception")
    args = [a for a in error.args if isinstance(a, _SAFE_ARG)] if len(error.args) < 8 else []
    return {"type": type(error).__name__[:200], "base": base, "message": str(error)[:4000],
            "args": args if len(args) == len(error.args) else None,
            "line": str(getattr(error, "learner_line", ""))[:300],
            "line_at": _line_at(getattr(error, "learner_line_at", None)),
            "raised_by_learner": getattr(error, "raised_by_learner", None) is True}


_REBUILT = {}


def rebuilt_error(info):
    """An exception equivalent to the one described by error_info(): the built-in type itself where it was one."""
    base = getattr(builtins, str(info.get("base")), None)
    if not (isinstance(base, type) and issubclass(base, BaseException)):
        base = Exception
    name, message = str(info.get("type")), str(info.get("message"))
    error = _rebuilt(base, name, message, info)
    line = info.get("line")
    if isinstance(line, str) and line:
        error.learner_line = line[:300]
        error.raised_by_learner = info.get("raised_by_learner") is True
        spot = _line_at(info.get("line_at"))
        if spot is not None:
            error.learner_line_at = spot
    return error


def _line_at(spot):
    """(line number, its code) as harness.mark_learner_line keeps them, checked; None for anything else."""
    if isinstance(spot, (tuple, list)) and len(spot) == 2 and isinstance(spot[0], int) and isinstance(spot[1], str):
        return (spot[0], spot[1][:200])
    return None


def _rebuilt(base, name, message, info):
    if name == base.__name__:
        try:
            return base(*info["args"]) if isinstance(info.get("args"), list) else base(message)
        except Exception:  # a built-in with a stricter constructor (UnicodeDecodeError, ...)
            pass
    klass = _REBUILT.get((name, base))
    if klass is None:
        klass = _REBUILT[(name, base)] = type(name, (base,), {"__str__": lambda self: self.args[0] if self.args else ""})
    error = klass.__new__(klass)
    BaseException.__init__(error, message)
    return error
