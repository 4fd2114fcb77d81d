"""The messages between the grader's judge and the unit server that runs a learner's code.

A message is a frame: 4 bytes of length (big-endian), then the payload. The judge's
requests are pickles (the server trusts the judge). The server's replies are written with
torch.save and read with torch.load(weights_only=True): plain data and tensors only, so
nothing a learner's code sends back can run code in the grader. The learner's process can
forge any reply, so decode_reply also keeps it from costing the grader: a reply is capped in
size, its pickle is vetted before loading, and what it holds is checked against bounds.
"""
import builtins
import functools
import io
import os
import pickle
import pickletools
import select
import struct
import time
import zipfile

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
    buffer = io.BytesIO()
    torch.save(reply, buffer)
    return buffer.getvalue()


def decode_reply(payload: bytes):
    """The reply in ``payload``, checked whole: ChannelClosed for anything an honest server does not send.

    The sender is the learner's process, so the payload is hostile: its pickle is read before torch.load runs
    it (_check_pickle: what loading itself would hash or build), then every value loaded is checked against
    the bounds below and tensors come back as fresh copies (_checked).
    """
    try:
        for structure in _pickles(payload):
            _check_pickle(structure)
        return _checked(torch.load(io.BytesIO(payload), map_location="cpu", weights_only=True), ElementQuota())
    except ChannelClosed:
        raise
    except Exception as error:  # anything unreadable is the sender's fault
        raise ChannelClosed(f"an unreadable reply ({type(error).__name__})") from None


# ---------------------------------------------------------------- what a reply may hold
# Bounds from what honest replies need (unit_server.Child: run_case, call, probe, describe; the server's
# started/loaded/exited). Over the ten solution and release notebooks (tests/grading/run/test_judge.py's run, ~800
# replies) the biggest reply had a 9.9 kB pickle, 205 values, 6,619 tensor elements, nesting 3 deep and a
# 914-character string; the biggest come from the capstone's checks (a small Transformer's gradients).
MAX_PICKLE_BYTES = 1 << 18  # the structure, tensors' data aside: 25x (20,000 values take 60 to 200 kB)
MAX_VALUES = 20_000  # values visited, each visit counted (a shared one as often as it is reached): 100x
MAX_DEPTH = 32  # unit_server._plain nests 4 containers as 8 levels, under the reply and its field: ~11
MAX_STR_CHARS = 10_000  # 2.5x error_info()'s message (4,000), the longest string it sends
MAX_INT = 2**63  # ints are counts, seeds, ids and line numbers: int64's range
# Tensor elements in one reply, all tensors together (each is copied here, so each visit counts): 2**24 is
# what the 64 MiB frame holds in float32, and 6x a PositionalEncoding left at the usual default size
# (5000 x 512) by a learner who ignores the checks' max_len.
MAX_ELEMENTS = 2**24
TENSOR_DTYPES = frozenset({torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                           torch.float16, torch.bfloat16, torch.float32, torch.float64})
TENSOR_DEVICES = ("cpu", "meta")  # meta: the device checks' results, which hold no data
_ATOMS = (bool, float, type(None))  # ints and strings are bounded


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


def _checked(value, quota, depth=0):
    """``value`` rebuilt as a tree of fresh containers, once its type and size are checked.

    Types are compared by identity (nothing of the sender's is hashed or compared). The recursion is as
    deep as MAX_DEPTH at most, whatever the reply.
    """
    quota.visit()
    within = _plain_value(value)
    if within is not None:
        _expect(within, "an int or a string out of bounds in a reply")
        return value
    kind = type(value)
    if kind is torch.Tensor:
        return _checked_tensor(value, quota)
    _expect(depth < MAX_DEPTH, f"a reply nested more than {MAX_DEPTH} deep")
    if kind is list:
        return [_checked(item, quota, depth + 1) for item in value]
    if kind is tuple:
        return tuple(_checked(item, quota, depth + 1) for item in value)
    if kind is dict:
        _expect(all(type(key) is str for key in value), "a dict key that is not a string in a reply")
        return {_checked(key, quota, depth + 1): _checked(item, quota, depth + 1) for key, item in value.items()}
    raise ChannelClosed(f"a value of type {kind.__name__} in a reply")


def _plain_value(value):
    """For a bool, float, None, int or str: whether it is within the bounds (ints, string lengths); else None."""
    kind = type(value)
    if kind is int:
        return -MAX_INT <= value < MAX_INT
    if kind is str:
        return len(value) <= MAX_STR_CHARS
    return True if any(kind is atom for atom in _ATOMS) else None


def _checked_tensor(tensor, quota):
    """A fresh contiguous copy (a plain tensor owning its storage) of a tensor a reply may hold.

    Dense, on the CPU (or meta), of a number or bool dtype, not requiring grad, and no bigger than its
    storage: a view that repeats its data (stride 0, overlapping strides) would multiply it here.
    """
    _expect(type(tensor) is torch.Tensor and tensor.layout == torch.strided and not tensor.is_nested,
            "a tensor that is not a plain dense one in a reply")
    _expect(tensor.device.type in TENSOR_DEVICES, f"a tensor on {tensor.device.type} in a reply")
    _expect(tensor.dtype in TENSOR_DTYPES, f"a tensor of {tensor.dtype} in a reply")
    _expect(not tensor.requires_grad, "a tensor that requires grad in a reply")
    quota.take_elements(tensor.numel())
    _expect(all(stride != 0 or size <= 1 for size, stride in zip(tensor.shape, tensor.stride())),
            "a tensor that repeats its data (stride 0) in a reply")
    _expect(tensor.untyped_storage().nbytes() >= tensor.numel() * tensor.element_size(),
            "a tensor larger than its storage in a reply")
    return torch.empty(tensor.shape, dtype=tensor.dtype, device=tensor.device).copy_(tensor)


# ---------------------------------------------------------------- what loading a reply does
# torch.load(weights_only=True) builds what the pickle says before anything can be checked: it hashes dict
# keys (a key that is a DAG of shared tuples takes 2**depth steps), and its allowed callables include set,
# Counter, bytearray(n), torch.Tensor(*sizes) and rebuilders that copy a whole expanded view. So a reply's
# pickle is first run here on types alone: only what torch.save writes for the values above may be in it.


def _pickles(payload):
    """The pickles (data.pkl) of a reply's zip archive, each within MAX_PICKLE_BYTES; every member stored."""
    # torch.load reads anything else as a raw pickle, which would go unvetted
    _expect(payload[:4] == b"PK\x03\x04", "a reply that is not a torch.save archive")
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        members = archive.infolist()
        # torch.load inflates deflated members too: 64 MiB of them would be 64 GiB of tensor data
        _expect(all(member.compress_type == zipfile.ZIP_STORED for member in members), "a compressed reply")
        pickles = [member for member in members if member.filename.endswith("data.pkl")]
        _expect(pickles and all(member.file_size <= MAX_PICKLE_BYTES for member in pickles),
                f"a reply whose structure exceeds {MAX_PICKLE_BYTES} bytes")
        return [archive.read(member) for member in pickles]


_TENSOR_REBUILDS = ("torch._utils _rebuild_tensor_v2", "torch._utils _rebuild_meta_tensor_no_storage")
_ORDERED_DICT = "collections OrderedDict"  # torch.save's empty backward_hooks, OrderedDict()
_OPCODE_KINDS = {  # opcodes that push a value, and its kind
    **dict.fromkeys(("NONE", "NEWTRUE", "NEWFALSE", "BININT", "BININT1", "BININT2", "LONG1", "BINFLOAT"), "atom"),
    **dict.fromkeys(("BINUNICODE", "SHORT_BINSTRING"), "str"), "EMPTY_LIST": "list", "EMPTY_DICT": "dict",
    "EMPTY_TUPLE": (),
}


@functools.cache
def _allowed_globals():
    """The globals torch.save writes for the tensors a reply may hold (storage types, dtypes, rebuilders)."""
    sample = [torch.zeros(1, dtype=dtype, device=device) for dtype in TENSOR_DTYPES for device in TENSOR_DEVICES]
    (structure,) = _pickles(encode_reply(sample))
    return frozenset(arg for opcode, arg, _ in pickletools.genops(structure) if opcode.name == "GLOBAL")


def _check_pickle(structure):
    """Run ``structure`` (a pickle) on kinds of values only; ChannelClosed where torch.load would hash
    anything but a string, call anything but a tensor rebuilder, or use an opcode torch.save does not.

    A kind is a string ("atom", "str", "list", "dict", "tensor", "storage", "global <name>") or, for a tuple,
    a tuple of its items' kinds (a tuple inside it as "tuple": kinds stay flat, whatever the pickle shares).
    """
    stack, marks, memo = [], [], {}
    for opcode, arg, _ in pickletools.genops(structure):
        name = opcode.name
        if name in _OPCODE_KINDS:
            stack.append(_OPCODE_KINDS[name])
        elif name == "MARK":
            marks.append(len(stack))
        elif name in ("TUPLE", "TUPLE1", "TUPLE2", "TUPLE3"):
            start = marks.pop() if name == "TUPLE" else len(stack) - int(name[-1])
            _expect(start >= 0, "a malformed reply")
            stack[start:] = [tuple("tuple" if type(item) is tuple else item for item in stack[start:])]
        elif name in ("APPEND", "APPENDS"):
            del stack[marks.pop() if name == "APPENDS" else -1:]
            _expect(stack[-1] == "list", "a malformed reply")
        elif name in ("SETITEM", "SETITEMS"):
            start = marks.pop() if name == "SETITEMS" else len(stack) - 2
            _expect(start >= 1 and (len(stack) - start) % 2 == 0 and stack[start - 1] == "dict", "a malformed reply")
            _expect(all(key == "str" for key in stack[start::2]), "a dict key that is not a string in a reply")
            del stack[start:]
        elif name == "GLOBAL":
            _expect(arg in _allowed_globals(), f"a reply naming {arg.replace(' ', '.')[:100]}")
            stack.append(f"global {arg}")
        elif name == "REDUCE":
            arguments = stack.pop()
            stack[-1] = _called(stack[-1], arguments)
        elif name == "BINPERSID":  # a storage: ('storage', storage type, key, location, numel); the key is hashed
            _expect(type(stack[-1]) is tuple and len(stack[-1]) == 5 and stack[-1][2] == "str", "a malformed reply")
            stack[-1] = "storage"
        elif name in ("BINPUT", "LONG_BINPUT"):
            memo[arg] = stack[-1]
        elif name in ("BINGET", "LONG_BINGET"):
            stack.append(memo[arg])
        elif name not in ("PROTO", "STOP"):
            raise ChannelClosed(f"a reply with the pickle opcode {name}")


def _called(function, arguments):
    """The kind of what ``function`` (a kind) gives on ``arguments`` (a kind), where torch.save writes such a call."""
    if function == f"global {_ORDERED_DICT}" and arguments == ():
        return "dict"
    _expect(function in [f"global {rebuild}" for rebuild in _TENSOR_REBUILDS] and type(arguments) is tuple,
            "a reply calling something other than a tensor rebuilder")
    return "tensor"


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
