"""The messages between the grader's judge and the unit server that runs a learner's code.

A message is a frame: 4 bytes of length (big-endian), then the payload. The judge's
requests are pickles (the server trusts the judge). The server's replies are plain data in a
format of their own (encode_reply: JSON and the tensors' bytes), never a pickle, so nothing a
learner's code sends back can run code in the grader. The learner's process can forge any
reply, so decode_reply also keeps it from costing the grader: a reply is capped in size, and
what it holds is checked against bounds before anything is built from it.
"""
import builtins
import io
import json
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
    buffer = io.BytesIO()
    _RequestPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(request)
    return buffer.getvalue()


def decode_request(payload: bytes):
    return pickle.loads(payload)


class _RequestPickler(pickle.Pickler):
    """A pickler that writes a plain CPU tensor as its storage's bytes and its place in them (_tensor_from).

    PyTorch's own reduction pickles each storage with torch.save, which the server reads back with one torch.load
    per storage: about 1.5 ms each way for a module's weights and a case, most of a check's round trip. Each
    storage is written once (tensors that share one, views among them, share it in the server too). A tensor
    that is not plain (with a history, hooks, attributes, another layout or device, a conjugate or negative
    bit) keeps PyTorch's way.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._storages = {}  # (address, bytes) -> its _StorageBytes: pickled once, then by reference

    def reducer_override(self, value):
        if type(value) is not torch.Tensor or not _plain_tensor(value):
            return NotImplemented
        storage = value.untyped_storage()
        key = (storage.data_ptr(), storage.nbytes())
        held = self._storages.get(key) if storage.nbytes() else None
        if held is None:
            held = self._storages[key] = _StorageBytes(storage)
        return _tensor_from, (held, str(value.dtype).removeprefix("torch."), value.storage_offset(),
                              tuple(value.shape), value.stride(), value.requires_grad)


class _StorageBytes:
    """A storage in a request, pickled as its bytes (the pickler's memo then refers to it)."""

    def __init__(self, storage):
        self.storage = storage

    def __reduce__(self):
        data = torch.tensor([], dtype=torch.uint8).set_(self.storage).numpy().tobytes()
        if not data:
            return torch.UntypedStorage, ()
        return torch.UntypedStorage.from_buffer, (data, "native", -1, 0, torch.uint8)


def _plain_tensor(tensor):
    return (tensor.device.type == "cpu" and tensor.layout is torch.strided and not tensor.is_quantized
            and tensor.grad_fn is None and tensor.grad is None and not tensor._backward_hooks
            and not tensor.is_conj() and not tensor.is_neg() and not vars(tensor))


def _tensor_from(storage, dtype_name, offset, shape, stride, requires_grad):
    """The tensor _RequestPickler wrote: a leaf on the storage rebuilt in this process."""
    tensor = torch.tensor([], dtype=getattr(torch, dtype_name)).set_(storage, offset, shape, stride)
    return tensor.requires_grad_(requires_grad)


def encode_reply(reply) -> bytes:
    """``reply`` as the server writes it: b"RPLY", the structure's length (4 bytes, big-endian), the structure
    as JSON, then the tensors' bytes. A dict is a JSON object (string keys only); a list, a tuple and a tensor
    are JSON arrays led by a tag: ["l", items...], ["t", items...], ["x", dtype, shape, offset] (a CPU tensor
    whose bytes start at ``offset`` in the data), ["m", dtype, shape] (a meta tensor); numbers, strings, bools
    and None are themselves. No pickle: what the grader reads back is plain data by construction.

    TypeError for anything else; ChannelClosed past the bounds decode_reply takes on values and tensor elements
    (a learner's absurd result: its notebook's child then ends, as on a frame over MAX_REPLY_BYTES).
    """
    data, quota = bytearray(), ElementQuota()
    structure = json.dumps(_tree(reply, data, quota), separators=(",", ":")).encode()
    return b"".join([REPLY_MAGIC, _LENGTH.pack(len(structure)), structure, data])


def _tree(value, data, quota):
    """``value`` as a JSON-ready node; a tensor's bytes are appended to ``data`` (its node names where they start)."""
    quota.visit()
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is float or kind is str:
        return value
    if kind is dict:
        for key in value:  # each key is a value visited, as in decode_reply
            if type(key) is not str:
                raise TypeError("a reply's dict keys are strings")
            quota.visit()
        return {key: _tree(item, data, quota) for key, item in value.items()}
    if kind is list or kind is tuple:
        return ["l" if kind is list else "t", *(_tree(item, data, quota) for item in value)]
    if kind is torch.Tensor and value.layout is torch.strided and value.dtype in _DTYPE_NAMES and not value.requires_grad:
        quota.take_elements(value.numel())  # before the copy below, which an expanded view would blow up
        name, shape = _DTYPE_NAMES[value.dtype], list(value.shape)
        if value.device.type == "meta":
            return ["m", name, shape]
        offset = len(data)
        data += value.cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
        return ["x", name, shape, offset]
    if isinstance(value, torch.Tensor):
        raise TypeError(f"a {value.dtype} tensor ({value.layout}{', requiring grad' if value.requires_grad else ''}) "
                        "in a reply: only plain dense tensors of real numbers or bools, not requiring grad")
    raise TypeError(f"a value of type {kind.__name__} in a reply")


def decode_reply(payload: bytes):
    """The reply in ``payload``, checked whole: ChannelClosed for anything an honest server does not send.

    The sender is the learner's process, so the payload is hostile. Its structure is parsed as JSON (in C,
    within MAX_STRUCTURE_BYTES, nesting bounded by the parser's recursion limit), then walked against the
    bounds below before anything is built from it: tensors are made here, fresh and contiguous, from bytes
    that must lie within the data, once their dtype and element count are allowed.
    """
    try:
        _expect(payload[:4] == REPLY_MAGIC and len(payload) >= 8, "a reply that is not the server's format")
        (length,) = _LENGTH.unpack(payload[4:8])
        _expect(length <= MAX_STRUCTURE_BYTES, f"a reply whose structure exceeds {MAX_STRUCTURE_BYTES} bytes")
        _expect(8 + length <= len(payload), "a truncated reply")
        structure = json.loads(payload[8:8 + length])
        data = bytearray(memoryview(payload)[8 + length:])  # writable: torch.frombuffer reads it without a warning
        return _value(structure, data, ElementQuota(), 0)
    except ChannelClosed:
        raise
    except Exception as error:  # anything unreadable is the sender's fault (RecursionError, UnicodeDecodeError...)
        raise ChannelClosed(f"an unreadable reply ({type(error).__name__})") from None


# ---------------------------------------------------------------- what a reply may hold
# Bounds from what honest replies need (unit_server.Child: run_case, call, probe, describe; the server's
# started/loaded/exited). Over the ten solution and release notebooks (tests/grading/run/test_judge.py's run, ~800
# replies) the biggest reply had a 9.9 kB pickle (5.8 kB of JSON in this format, over the ten solutions' 790
# replies), 205 values, 6,619 tensor elements, nesting 3 deep and a 914-character string; the biggest come
# from the capstone's checks (a small Transformer's gradients).
REPLY_MAGIC = b"RPLY"
MAX_STRUCTURE_BYTES = 1 << 18  # the JSON, tensors' data aside: 45x; 20,000 values take 40 to 200 kB
MAX_VALUES = 20_000  # values visited: 100x
MAX_DEPTH = 32  # unit_server._plain nests 4 containers as 8 levels, under the reply and its field: ~11
MAX_STR_CHARS = 10_000  # 2.5x error_info()'s message (4,000), the longest string it sends
MAX_INT = 2**63  # ints are counts, seeds, ids and line numbers: int64's range
# Tensor elements in one reply, all tensors together: 2**24 is what the 64 MiB frame holds in float32, and 6x a
# PositionalEncoding left at the usual default size (5000 x 512) by a learner who ignores the checks' max_len.
MAX_ELEMENTS = 2**24
TENSOR_DTYPES = frozenset({torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                           torch.float16, torch.bfloat16, torch.float32, torch.float64})
_DTYPE_NAMES = {dtype: str(dtype).removeprefix("torch.") for dtype in TENSOR_DTYPES}
_DTYPES = {name: dtype for dtype, name in _DTYPE_NAMES.items()}
_TAGS = {"l": list, "t": tuple}


def _expect(condition, reason):
    if not condition:
        raise ChannelClosed(reason)


class ElementQuota:
    """What the rest of one reply may still hold: values visited and tensor elements (not the notebook's time
    budget, sandbox_servers/budget.py)."""

    def __init__(self):
        self.values, self.elements = MAX_VALUES, MAX_ELEMENTS

    def visit(self):
        self.values -= 1
        _expect(self.values >= 0, f"a reply of more than {MAX_VALUES} values")

    def take_elements(self, count):
        self.elements -= count
        _expect(self.elements >= 0, f"a reply of more than {MAX_ELEMENTS} tensor elements")


def _value(node, data, quota, depth):
    """The value a parsed structure's ``node`` stands for, once its type and size are checked. Types are compared
    by identity; the walk is as deep as MAX_DEPTH at most, whatever the reply."""
    quota.visit()
    within = _plain_value(node)
    if within is not None:
        _expect(within, "an int or a string out of bounds in a reply")
        return node
    _expect(depth < MAX_DEPTH, f"a reply nested more than {MAX_DEPTH} deep")
    if type(node) is dict:
        return {_value(key, data, quota, depth + 1): _value(item, data, quota, depth + 1) for key, item in node.items()}
    _expect(type(node) is list and node and type(node[0]) is str, "a malformed reply")
    tag = node[0]
    if tag in _TAGS:
        return _TAGS[tag](_value(item, data, quota, depth + 1) for item in node[1:])
    if tag == "x" and len(node) == 4:
        return _tensor(node[1], node[2], node[3], data, quota)
    if tag == "m" and len(node) == 3:
        dtype, shape, _ = _tensor_kind(node[1], node[2], quota)
        return torch.empty(shape, dtype=dtype, device="meta")
    raise ChannelClosed("a malformed reply")


def _tensor_kind(name, shape, quota):
    """(dtype, shape, element count) of a tensor node, its elements taken from ``quota`` before anything is
    allocated."""
    _expect(type(name) is str and name in _DTYPES, f"a tensor of dtype {str(name)[:40]} in a reply")
    _expect(type(shape) is list and len(shape) <= MAX_DEPTH and all(type(size) is int and 0 <= size <= MAX_ELEMENTS for size in shape),
            "a malformed tensor shape in a reply")  # a zero size elsewhere would hide any size from the count
    count = 1
    for size in shape:
        count = min(count * size, MAX_ELEMENTS + 1)  # ints stay small, whatever the sizes
    quota.take_elements(count)  # past MAX_ELEMENTS it refuses: the count returned is the exact one
    return _DTYPES[name], shape, count


def _tensor(name, shape, offset, data, quota):
    """A fresh contiguous CPU tensor of the bytes at ``offset`` in ``data`` (checked to lie there before it is
    allocated: what a reply makes the grader allocate is never more than its elements' bound)."""
    dtype, shape, count = _tensor_kind(name, shape, quota)
    size = count * dtype.itemsize
    _expect(type(offset) is int and 0 <= offset <= len(data) - size, "a tensor outside the reply's data")
    tensor = torch.empty(shape, dtype=dtype)
    if size:
        tensor.view(-1).view(torch.uint8).copy_(torch.frombuffer(data, dtype=torch.uint8, count=size, offset=offset))
    if dtype is torch.bool:  # one byte each, which must be 0 or 1 for a bool
        tensor = tensor.view(torch.uint8).ne(0)
    return tensor


def _plain_value(value):
    """For a bool, float, None, int or str: whether it is within the bounds (ints, string lengths); else None."""
    kind = type(value)
    if kind is int:
        return -MAX_INT <= value < MAX_INT
    if kind is str:
        return len(value) <= MAX_STR_CHARS
    return True if value is None or kind is bool or kind is float else None


# ---------------------------------------------------------------- exceptions as plain data


def error_info(error):
    """An exception (any BaseException of the learner's) as plain data: its type's name, the nearest built-in
    type it derives from, its text, and its arguments where all are plain values within a reply's bounds."""
    base = next((k.__name__ for k in type(error).__mro__ if getattr(builtins, k.__name__, None) is k), "Exception")
    args = [a for a in error.args if _plain_value(a)] if len(error.args) < 8 else []
    return {"type": type(error).__name__[:200], "base": base, "message": _text(error)[:4000],
            "args": args if len(args) == len(error.args) else None,
            "line": str(getattr(error, "learner_line", ""))[:300],
            "line_at": _line_at(getattr(error, "learner_line_at", None)),
            "raised_by_learner": getattr(error, "raised_by_learner", None) is True}


def _text(error):
    try:
        return str(error)
    except Exception:  # a learner's class whose __str__ raises
        return ""


_REBUILT = {}  # (name, base) -> the class rebuilt for them
_REBUILT_KEPT = 1024  # classes kept (names are the sender's to vary); errors are compared by name, not class


def rebuilt_error(info):
    """An exception equivalent to the one described by error_info(): the built-in type itself where it was one.

    Only ever an Exception: what `except Exception` lets through (SystemExit, KeyboardInterrupt, a learner's
    class derived from BaseException) comes back as an Exception whose message starts with its type's name.
    """
    base = getattr(builtins, str(info.get("base")), None)
    name, message = str(info.get("type"))[:200], str(info.get("message"))[:4000]
    args = info.get("args") if type(info.get("args")) is list else None
    if not (isinstance(base, type) and issubclass(base, Exception)):
        base, name, message, args = Exception, "Exception", f"{name}: {message}", None
    error = _rebuilt(base, name, message, args)
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
    if (type(spot) is tuple or type(spot) is list) and len(spot) == 2 and type(spot[0]) is int and type(spot[1]) is str:
        return (spot[0], spot[1][:200])
    return None


def _first_argument(error):
    return error.args[0] if error.args else ""


def _rebuilt(base, name, message, args):
    """An instance of ``base`` itself where ``name`` is its name, else of a class named ``name`` derived from it."""
    if name == base.__name__:
        try:
            return base(*args) if args is not None else base(message)
        except Exception:  # a built-in with a stricter constructor (UnicodeDecodeError, ...)
            pass
    try:
        klass = _REBUILT.get((name, base)) or type(name, (base,), {"__str__": _first_argument})
        error = klass.__new__(klass)
    except Exception:  # a name type() refuses, a built-in whose __new__ wants more (ExceptionGroup)
        return Exception(f"{name}: {message}")
    if len(_REBUILT) < _REBUILT_KEPT:
        _REBUILT.setdefault((name, base), klass)
    BaseException.__init__(error, message)
    return error
