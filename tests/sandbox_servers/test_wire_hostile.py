"""A reply from the unit server is the learner's to forge: sandbox_servers.wire.decode_reply takes only plain data.

Each hostile payload below is made the way the child makes its replies (wire.encode_reply), or by hand
(``forged``: any structure and data, as a learner's code could write them to the reply channel); decode_reply
must refuse it quickly (wire.ChannelClosed, which the judge takes as a broken protocol) or bring it back
harmless. Honest replies, made by the server's own Child, come back equal. Nothing in a reply is a pickle:
the old format (a torch.save archive) and plain pickles are refused unread.
"""
import collections
import io
import json
import pickle
import struct
import time

import nbformat
import pytest
import torch
from torch import nn

from learner_kit import harness
from sandbox_servers import wire
from sandbox_servers.unit_server import Child


def refused(payload, within_cpu_s=2.0):
    """The reason decode_reply gives for refusing ``payload``, which it must do after visiting at most
    MAX_VALUES values and within ``within_cpu_s`` of this process's CPU time (not wall time: a busy machine
    slows the clock, not the work; an unbounded walk of these payloads would take hours)."""
    visits = 0
    counted = wire.ElementQuota.visit

    def counting(quota):
        nonlocal visits
        visits += 1
        counted(quota)

    start = time.process_time()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wire.ElementQuota, "visit", counting)
        with pytest.raises(wire.ChannelClosed) as caught:
            wire.decode_reply(payload)
    assert visits <= wire.MAX_VALUES + 1
    assert time.process_time() - start < within_cpu_s
    reason = str(caught.value)
    assert 0 < len(reason) < 120, reason
    return reason


def forged(structure, data=b""):
    """A reply as a learner's code could write it: ``structure`` (JSON text, or a value json.dumps writes) and
    ``data``, framed as encode_reply frames them, with none of its checks."""
    text = structure if isinstance(structure, (str, bytes)) else json.dumps(structure, separators=(",", ":"))
    text = text.encode() if isinstance(text, str) else text
    return wire.REPLY_MAGIC + struct.pack(">I", len(text)) + text + data


def same(a, b):
    """Equal values of the same types; tensors equal in dtype, device, shape and values."""
    if type(a) is not type(b):
        return False
    if type(a) is torch.Tensor:
        return (a.dtype, a.device, a.shape) == (b.dtype, b.device, b.shape) and (a.is_meta or torch.equal(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # NaN


def shared_tuples(depth):
    """A tuple ``depth`` deep whose halves are one object: 2**depth steps to walk, a few bytes to hold."""
    node = ()
    for _ in range(depth):
        node = (node, node)
    return node


class LearnersTensor(torch.Tensor):
    """A tensor subclass (which could carry methods of the learner's choosing)."""


class Reduced:
    """Pickles as the call function(*args)."""

    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


# ---------------------------------------------------------------- honest replies


def learner_child():
    """The server's Child, without its channel, holding a learner's functions and module class."""

    def attend(query, key):
        weights = torch.softmax(query @ key.transpose(-2, -1), dim=-1)
        return weights @ key, weights

    def make_batch(src):
        kept = src != 0
        return {"src": src, "src_mask": kept[:, None, :], "n_tokens": int(kept.sum()), "shape": tuple(src.shape)}

    def strict(query, key):
        raise ValueError("I only take 3-D inputs", 3)

    child = Child(None, None, wire)
    child.namespace.update(attend=attend, make_batch=make_batch, strict=strict, Layer=nn.Linear, helper=object())
    return child


def honest_replies():
    child = learner_child()
    pair = harness.Call(outputs={"output": "return.0", "weights": "return.1"})
    inputs = {"query": torch.randn(2, 3, 4, requires_grad=True), "key": torch.randn(2, 5, 4)}
    module_case = harness.Case({"x": torch.randn(2, 3, 4)})
    return [
        {"started": 4242},
        {"loaded": True, "answer_failures": {"attend": "ValueError: " + "x" * 488}, "cuda": False},
        {"seq": 1, **child.describe({"name": "attend"})},
        {"seq": 2, **child.run_case({"name": "attend", "call": pair, "case": harness.Case(inputs),
                                     "backprop": ["output"], "watched": False})},
        {"seq": 3, **child.run_case({"name": "attend", "call": pair, "case": harness.Case(inputs).to(device="meta"),
                                     "watched": False})},
        {"seq": 4, **child.run_case({"name": "strict", "call": pair, "case": harness.Case(inputs), "watched": False})},
        {"seq": 5, **child.run_case({"name": "Layer", "call": harness.Call(outputs={"y": "return"}, init=(4, 2)),
                                     "case": module_case, "backprop": ["y"], "watched": False})},
        {"seq": 6, **child.probe({"probe": "fresh_parameters", "instance": 0, "args": [(4, 2)]})},
        {"seq": 7, **child.probe({"probe": "module_list", "instance": 0, "args": ["layers"]})},
        {"seq": 8, **child.call({"name": "make_batch", "args": {"src": torch.tensor([[5, 6, 0], [7, 0, 0]])},
                                 "watched": False})},
        {"seq": 9, **child.call({"name": "helper", "args": {}, "watched": False})},  # not callable: its error
        {"seq": 10, **child.call({"name": "attend", "args": {"q": torch.randn(1, 2, 3), "k": torch.randn(1, 2, 3)},
                                  "watched": False})},
        {"exited": -9, "reason": None},
    ]


def test_honest_replies_come_back_equal():
    for reply in honest_replies():
        assert same(wire.decode_reply(wire.encode_reply(reply)), reply), reply


def test_tensors_come_back_as_fresh_plain_copies():
    base = torch.arange(12.0).reshape(3, 4)
    shared = [1, 2]
    sent = {"t": base.t(), "row": base[1], "again": base, "a": shared, "b": shared}
    reply = wire.decode_reply(wire.encode_reply(sent))
    assert all(type(t) is torch.Tensor and t.is_contiguous() for t in (reply["t"], reply["row"], reply["again"]))
    assert same(reply["t"], base.t().contiguous()) and same(reply["row"], base[1])
    pointers = {t.untyped_storage().data_ptr() for t in (reply["t"], reply["row"], reply["again"])}
    assert len(pointers) == 3  # nothing aliases: each tensor owns its storage
    assert reply["row"].untyped_storage().nbytes() == 4 * 4
    assert reply["a"] == reply["b"] and reply["a"] is not reply["b"]  # a tree: no container shared either


# ---------------------------------------------------------------- structures that cost the judge


def test_the_helper_forges_readable_replies():
    assert wire.decode_reply(forged({"a": ["l", 1, 2.5, "b", None, True], "b": ["t"]})) == {
        "a": [1, 2.5, "b", None, True], "b": ()}
    assert wire.decode_reply(forged(["x", "float32", [2], 4], struct.pack("<3f", 9.0, 1.5, -2.0))).tolist() == [1.5, -2.0]


def test_shared_structures_cannot_be_sent_and_wide_ones_are_refused():
    with pytest.raises(wire.ChannelClosed, match="values"):  # the child's own encoder stops walking a DAG too
        wire.encode_reply({"seq": 1, "modified": [shared_tuples(80)]})
    wide = ["l"]
    for _ in range(14):
        wide = ["l", wide, wide]
    payload = forged(wide)  # JSON has no sharing: the tree is written out, and it is within the structure's bound
    assert len(payload) < wire.MAX_STRUCTURE_BYTES
    assert "values" in refused(forged({"x": ["l", *[0] * (wire.MAX_VALUES + 1)]}))
    refused(payload)


def test_deep_nesting_is_refused():
    nested = "leaf"
    for _ in range(200):
        nested = [nested]
    assert "deep" in refused(wire.encode_reply({"seq": 1, "result": nested}))
    ok = "leaf"
    for _ in range(wire.MAX_DEPTH - 2):
        ok = [ok]
    assert wire.decode_reply(wire.encode_reply({"seq": 1, "result": ok}))["result"] == ok
    refused(forged("[" * 100_000 + "]" * 100_000))  # past the JSON parser's recursion limit: refused, no crash
    refused(forged('{"a":' * 100_000 + "1" + "}" * 100_000))


def test_long_strings_and_huge_ints_are_refused():
    refused(wire.encode_reply({"problem": "x" * (wire.MAX_STR_CHARS + 1)}))
    refused(wire.encode_reply({"x" * (wire.MAX_STR_CHARS + 1): 1}))
    refused(wire.encode_reply({"instance": 2**64}))
    refused(wire.encode_reply({"instance": -(2**64)}))
    refused(forged('{"n":' + "9" * 100_000 + "}"))  # more digits than Python converts
    extremes = {"instance": -(2**63), "n": 2**63 - 1, "x": float("nan"), "inf": float("-inf")}
    assert same(wire.decode_reply(wire.encode_reply(extremes)), extremes)


@pytest.mark.parametrize("value", [
    {1: "a"}, {(1, 2): "a"}, {1, 2}, frozenset({1}), b"bytes", bytearray(b"x"), 1 + 2j, collections.Counter("ab"),
    collections.OrderedDict(a=1), torch.Size([2, 3]), torch.device("cpu"), torch.float32, Reduced(bytearray, 1 << 40),
], ids=lambda value: type(value).__name__)
def test_other_types_cannot_be_sent(value):
    with pytest.raises(TypeError):
        wire.encode_reply({"seq": 1, "result": value})


@pytest.mark.parametrize("node", [
    [], ["s", 1], ["d", "a", 1], [1, 2], ["x"], ["x", "float32", [1]], ["m", "float32"], ["l", ["zz"]],
    ["X", "float32", [1], 0], {"a": ["t", ["x", "float32", [1], 0, 0]]},
], ids=json.dumps)
def test_unknown_and_malformed_nodes_are_refused(node):
    assert "malformed" in refused(forged(node, bytes(8)))


@pytest.mark.parametrize("payload", [
    b"", b"RPLY", b"RPLY\x00\x00\x00\x09{}", b"RPLY\x00\x00\x00\x02\xff\xfe", b"RPLY\x00\x00\x00\x03{a}",
    b"RPLY\xff\xff\xff\xff{}", pickle.dumps({"seq": 1}), pickle.dumps(Reduced(bytearray, 1 << 40)),
], ids=["empty", "magic-only", "truncated", "not-utf8", "not-json", "structure-over-bound", "pickle", "pickle-call"])
def test_only_the_servers_format_is_read(payload):
    refused(payload)


def test_a_torch_save_archive_is_refused_unread():
    archive = io.BytesIO()
    torch.save({"seq": 1, "call": Reduced(bytearray, 1 << 40)}, archive)
    assert "format" in refused(archive.getvalue())


def test_the_structure_is_bounded():
    assert "structure" in refused(forged({"s": ["l", *["x" * 1000] * 300]}))


# ---------------------------------------------------------------- tensors that cost the judge


def test_tensors_are_sent_whole_and_bounded_before_they_are_copied():
    with pytest.raises(wire.ChannelClosed, match="elements"):  # a 14 GB view is refused before the child copies it
        wire.encode_reply({"outputs": {"output": torch.zeros(1).expand(60000, 60000)}})
    kept = wire.decode_reply(wire.encode_reply({"g": torch.zeros(1, 3).expand(2, 3)}))["g"]
    assert same(kept, torch.zeros(2, 3)) and kept.is_contiguous()


def test_the_elements_of_a_reply_are_bounded_all_tensors_together():
    assert "elements" in refused(forged(["x", "bool", [2**12, 2**12 + 1], 0], bytes(16)))
    assert "elements" in refused(forged(["m", "float32", [2**20, 2**20]]))
    assert "shape" in refused(forged(["m", "float32", [2**62, 2**62, 2**62, 0]]))  # empty, but no honest shape
    block = ["x", "float32", [2**14], 0]  # one block of data, named 1025 times
    assert "elements" in refused(forged({"grads": ["l", *[block] * 1025]}, bytes(4 * 2**14)))
    assert len(wire.decode_reply(forged({"grads": ["l", *[block] * 1000]}, bytes(4 * 2**14)))["grads"]) == 1000


@pytest.mark.parametrize("node", [
    ["x", "float32", [4], 0], ["x", "float64", [2], 1], ["x", "float32", [1], -4], ["x", "float32", [1], 1.0],
    ["x", "float32", [1], True], ["x", "int64", [2**12, 2**12], 0],
], ids=json.dumps)
def test_a_tensor_must_lie_within_the_data_before_anything_is_allocated(node):
    before = torch.empty
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch, "empty", lambda *a, **k: pytest.fail("allocated before its bytes were checked"))
        reason = refused(forged(node, bytes(12)))
    assert torch.empty is before
    assert "outside" in reason or "elements" in reason, reason


@pytest.mark.parametrize("node", [
    ["x", "complex64", [1], 0], ["x", "object", [1], 0], ["x", "__class__", [1], 0], ["x", ["float32"], [1], 0],
    ["x", "float32", [-1], 0], ["x", "float32", [1.5], 0], ["x", "float32", "12", 0], ["x", "float32", [False], 0],
    ["m", "float32", [1] * (wire.MAX_DEPTH + 1)],
], ids=json.dumps)
def test_odd_dtypes_and_shapes_are_refused(node):
    refused(forged(node, bytes(64)))


def test_bool_tensors_hold_only_true_and_false():
    back = wire.decode_reply(forged(["x", "bool", [3], 0], bytes([0, 1, 7])))
    assert back.dtype is torch.bool and back.view(torch.uint8).tolist() == [0, 1, 1]


@pytest.mark.parametrize("tensor", [
    torch.zeros(3, requires_grad=True),
    torch.zeros(3).to_sparse(),
    nn.Parameter(torch.zeros(2)),
    torch.zeros(2).as_subclass(LearnersTensor),
    torch.zeros(2, dtype=torch.complex64),
], ids=["requires-grad", "sparse", "parameter", "subclass", "complex"])
def test_tensors_other_than_plain_dense_ones_cannot_be_sent(tensor):
    with pytest.raises(TypeError):
        wire.encode_reply({"outputs": {"output": tensor}})


def test_every_dtype_a_reply_may_hold_comes_back_equal():
    for dtype in wire.TENSOR_DTYPES:
        for shape in [(), (0,), (3, 0, 2), (2, 3)]:
            tensor = (torch.rand(shape) * 10).to(dtype)
            back = wire.decode_reply(wire.encode_reply({"t": tensor, "meta": tensor.to("meta")}))
            assert same(back["t"], tensor) and same(back["meta"], tensor.to("meta")), (dtype, shape)


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("raised", [KeyboardInterrupt("stop"), SystemExit(3), GeneratorExit("gen"), BaseException("b"),
                                    type("Escape", (BaseException,), {})("out"), type("Quit", (SystemExit,), {})(1)],
                         ids=lambda error: type(error).__name__)
def test_what_except_exception_lets_through_comes_back_as_an_exception(raised):
    info = wire.decode_reply(wire.encode_reply(wire.error_info(raised)))  # error_info runs in the child
    rebuilt = wire.rebuilt_error(info)
    assert type(rebuilt) is Exception
    assert str(rebuilt).startswith(f"{type(raised).__name__}: "), str(rebuilt)
    assert str(raised) in str(rebuilt)


def test_a_forged_base_never_rebuilds_a_base_exception():
    for base in ("KeyboardInterrupt", "SystemExit", "GeneratorExit", "BaseException", "BaseExceptionGroup", "object",
                 "print", "no such name"):
        for name in (base, "ValueError", "Custom"):
            rebuilt = wire.rebuilt_error({"type": name, "base": base, "message": "m", "args": [0], "line": ""})
            assert isinstance(rebuilt, Exception), (base, name)


@pytest.mark.parametrize("raised", [ValueError("bad value", 3), TypeError("bad type"), RuntimeError("shape mismatch"),
                                    NotImplementedError(), IndexError("index 5 is out of bounds")],
                         ids=lambda error: type(error).__name__)
def test_built_in_errors_are_rebuilt_as_themselves(raised):
    rebuilt = wire.rebuilt_error(wire.decode_reply(wire.encode_reply(wire.error_info(raised))))
    assert type(rebuilt) is type(raised) and rebuilt.args == raised.args


def test_a_learners_error_class_keeps_its_name_and_its_built_in_base():
    error = type("ShapeError", (ValueError,), {})("wrong shape")
    rebuilt = wire.rebuilt_error(wire.error_info(error))
    assert isinstance(rebuilt, ValueError) and type(rebuilt).__name__ == "ShapeError" and str(rebuilt) == "wrong shape"


def test_odd_errors_are_rebuilt_without_raising():
    group = wire.rebuilt_error({"type": "Sub", "base": "ExceptionGroup", "message": "m"})  # its __new__ wants 2 args
    named = wire.rebuilt_error({"type": "a\x00b", "base": "ValueError", "message": "m"})  # a name type() refuses
    assert isinstance(group, Exception) and isinstance(named, Exception) and "m" in str(named)


def test_error_info_keeps_to_the_bounds_of_a_reply():
    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no")

    assert wire.error_info(Unprintable())["message"] == ""
    long = wire.error_info(ValueError("x" * 50_000))
    assert long["args"] is None and len(long["message"]) == 4000
    import numpy as np

    assert wire.error_info(ValueError(np.float64(1.5)))["args"] is None  # not a plain float: its class would travel
    assert wire.error_info(ValueError(2**70))["args"] is None
    for error in (ValueError("x" * 50_000), ValueError(2**70), KeyboardInterrupt()):
        wire.decode_reply(wire.encode_reply(wire.error_info(error)))


# ---------------------------------------------------------------- through the judge


FORGE = '''
import functools, sys

def _forge(reply):
    {body}
    return reply

def _framed(encode, reply):
    return reply if isinstance(reply, bytes) else encode(reply)  # bytes: written to the channel as they are

_honest = scaled_dot_product_attention

@functools.wraps(_honest)
def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    wire = sys.modules["sandbox_servers.wire"]  # patched at call time: the child puts back what a cell replaces
    if not getattr(wire, "forged", False):
        encode = wire.encode_reply
        wire.encode_reply = lambda reply: _framed(encode, _forge(reply)) if "outputs" in reply else encode(reply)
        wire.forged = True
    return _honest(query, key, value, mask, dropout)
'''
FORGERIES = {
    "shared-tuples": "node = ()\n    for _ in range(80):\n        node = (node, node)\n    reply['modified'] = [node]",
    "expanded-outputs": "reply['outputs'] = {n: torch.zeros(1).expand(60000, 60000) for n in (reply['outputs'] or {})}",
    "raw-bytes": "text = ('{\"seq\":%d,\"outputs\":{\"output\":[\"x\",\"float32\",[4096,4096],0]}}' % reply['seq'])"
                 ".encode()\n    reply = b'RPLY' + len(text).to_bytes(4, 'big') + text",  # a tensor with no data
    "system-exit": "reply['error'] = {'type': 'SystemExit', 'base': 'SystemExit', 'message': '0', 'args': [0], "
                   "'line': '', 'line_at': None, 'raised_by_learner': True}",
}


@pytest.fixture(scope="module")
def verifier():
    from autograder.grading.bookkeeping.config import Settings
    from autograder.grading.run.verify import Verifier

    # the wire is tested, not the sandbox
    judge = Verifier(Settings(notebook_budget_s=20, sandbox=False), cell_timeout=10)
    judge.start()
    yield judge
    judge.close()


def attention_notebook(answer=None):
    from autograder.paths import SOLUTIONS

    nb = nbformat.read(str(SOLUTIONS / "01-attention" / "01-attention.ipynb"), as_version=4)
    for cell in nb.cells:
        if answer and cell.metadata.get("nbgrader", {}).get("grade_id") == "scaled_dot_product_attention":
            cell.source += answer
    return nb


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_forged_reply_costs_its_notebook_and_nothing_more(verifier, forgery):
    from autograder.grading.bookkeeping.source import load_assignment
    from autograder.paths import SOLUTIONS

    source = load_assignment(SOLUTIONS, "01-attention")[0]
    start = time.monotonic()
    verdicts = verifier.verify(source, attention_notebook(FORGE.format(body=FORGERIES[forgery])))
    assert time.monotonic() - start < 20 + 15  # the notebook's budget, and the time to stop it
    assert not verdicts["scaled_dot_product_attention-hidden-values"][0], verdicts
    if forgery == "raw-bytes":  # refused by decode_reply, which says why
        assert "outside the reply's data" in verdicts["scaled_dot_product_attention-hidden-values"][1], verdicts
    if forgery == "system-exit":  # the visible cell's own checks run in the notebook's process first: they find the
        # replaced encode_reply (put back there), and no later cell trusts that process (judge.Session.give_up)
        told = verdicts["scaled_dot_product_attention-hidden-values"][1]
        assert "[tampering]" in told and "encode_reply" in told, verdicts
    again = verifier.verify(source, attention_notebook())
    assert all(passed for passed, _ in again.values()), again


COMPLEX_ANSWER = '''
_real = scaled_dot_product_attention

def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    output, weights = _real(query, key, value, mask, dropout)
    return torch.complex(output, output), weights
'''


def test_a_result_a_reply_cannot_carry_is_named_and_costs_its_notebook_only(verifier):
    """An honest child whose learner returns a complex tensor cannot send it (encode_reply refuses it, as
    decode_reply would): it says so instead of ending, and the judge stops the notebook with that reason."""
    from autograder.grading.bookkeeping.source import load_assignment
    from autograder.paths import SOLUTIONS

    source = load_assignment(SOLUTIONS, "01-attention")[0]
    verdicts = verifier.verify(source, attention_notebook(COMPLEX_ANSWER))
    passed, told = verdicts["scaled_dot_product_attention-hidden-values"]
    assert not passed and "a torch.complex64 tensor (torch.strided) in a reply" in told, told
    again = verifier.verify(source, attention_notebook())
    assert all(passed for passed, _ in again.values()), again
