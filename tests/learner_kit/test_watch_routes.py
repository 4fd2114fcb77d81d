"""The forbidden-built-in watch sees the work by what runs, whatever route the learner's code takes.

Each cheat below is a unit as a learner could write it to pass with no code of its own: the
same work as F.scaled_dot_product_attention or F.layer_norm, reached through another handle
(torch.ops.aten.X, its OpOverload, a variable holding it, torch._C bindings, torch-internal
Python helpers), with torch-function handling disabled, or through TorchScript. Every one must
fail check() (the path the hidden tests and the grader take) with [forbidden-builtin], on each
aspect tried; the honest solutions, and nn.LayerNorm where a unit may use it, must not.
"""
import contextlib
import inspect
import io
import math
import types
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from autograder import reference
from autograder.checks import UNITS, CheckFailure, check, guards
from learner_kit import harness, watch
from learner_kit.i18n import speaking

SDPA = "scaled_dot_product_attention"
ASPECTS = ("values", "float64", "device")


def _checked(unit, candidate, aspect):
    """The CheckFailure check() raises, or None when it passes."""
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            check(unit, candidate, aspect)
        except CheckFailure as failure:
            return failure
    return None


# ------------------------------------------------------------------ scaled_dot_product_attention cheats


def _finish(weights, value, dropout):
    """The course's contract: the weights returned as they are, dropout only on what multiplies the values."""
    dropped = dropout(weights) if dropout is not None else weights
    return dropped @ value, weights


def _scores(query, key):
    return query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))


def _blocked(scores, mask):
    """True where a key is blocked (the opposite of the course's mask), in the scores' shape."""
    if mask is None:
        return torch.zeros_like(scores, dtype=torch.bool)
    return (~mask).expand(scores.shape)


def _additive(mask, like):
    """The course's boolean mask as the additive float mask the math attention operator takes."""
    return None if mask is None else torch.zeros(mask.shape, dtype=like.dtype, device=like.device).masked_fill(
        ~mask, float("-inf"))


def sdpa_functional(query, key, value, mask=None, dropout=None):
    weights = _scores(query, key).masked_fill(_blocked(_scores(query, key), mask), float("-inf")).softmax(-1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=mask), weights


def sdpa_c_nn(query, key, value, mask=None, dropout=None):
    weights = _scores(query, key).masked_fill(_blocked(_scores(query, key), mask), float("-inf")).softmax(-1)
    return torch._C._nn.scaled_dot_product_attention(query, key, value, attn_mask=mask), weights


def sdpa_ops_packet(query, key, value, mask=None, dropout=None):
    weights = _scores(query, key).masked_fill(_blocked(_scores(query, key), mask), float("-inf")).softmax(-1)
    return torch.ops.aten.scaled_dot_product_attention(query, key, value, attn_mask=mask), weights


def sdpa_math_packet(query, key, value, mask=None, dropout=None):
    _, weights = torch.ops.aten._scaled_dot_product_attention_math(query, key, value, attn_mask=_additive(mask, query))
    return _finish(weights, value, dropout)


def sdpa_math_overload(query, key, value, mask=None, dropout=None):
    _, weights = torch.ops.aten._scaled_dot_product_attention_math.default(query, key, value,
                                                                           attn_mask=_additive(mask, query))
    return _finish(weights, value, dropout)


_math = torch.ops.aten._scaled_dot_product_attention_math  # held before the watch is entered
_math_default = torch.ops.aten._scaled_dot_product_attention_math.default


def sdpa_math_held(query, key, value, mask=None, dropout=None):
    _, weights = _math(query, key, value, attn_mask=_additive(mask, query))
    return _finish(weights, value, dropout)


def sdpa_math_held_overload(query, key, value, mask=None, dropout=None):
    _, weights = _math_default(query, key, value, attn_mask=_additive(mask, query))
    return _finish(weights, value, dropout)


def sdpa_math_binding(query, key, value, mask=None, dropout=None):
    _, weights = torch._scaled_dot_product_attention_math(query, key, value, attn_mask=_additive(mask, query))
    return _finish(weights, value, dropout)


def sdpa_masked_softmax_op(query, key, value, mask=None, dropout=None):
    scores = _scores(query, key)
    return _finish(torch.ops.aten._masked_softmax(scores, _blocked(scores, mask), -1), value, dropout)


def sdpa_masked_softmax_binding(query, key, value, mask=None, dropout=None):
    scores = _scores(query, key)
    return _finish(torch._masked_softmax(scores, _blocked(scores, mask), -1), value, dropout)


def sdpa_safe_softmax_op(query, key, value, mask=None, dropout=None):
    scores = _scores(query, key).masked_fill(_blocked(_scores(query, key), mask), float("-inf"))
    return _finish(torch.ops.aten._safe_softmax(scores, -1), value, dropout)


def sdpa_math_unhandled(query, key, value, mask=None, dropout=None):
    """torch-function handling off: the function-level watch sees nothing; the operators that run show it."""
    with torch._C.DisableTorchFunction():
        _, weights = torch.ops.aten._scaled_dot_product_attention_math(query, key, value,
                                                                       attn_mask=_additive(mask, query))
    return _finish(weights, value, dropout)


def sdpa_functional_unhandled(query, key, value, mask=None, dropout=None):
    with torch._C.DisableTorchFunction():
        output = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)
    weights = _scores(query, key).masked_fill(_blocked(_scores(query, key), mask), float("-inf")).softmax(-1)
    return output, weights


def sdpa_masked_softmax_unhandled(query, key, value, mask=None, dropout=None):
    scores = _scores(query, key)
    blocked = _blocked(scores, mask)
    with torch._C.DisableTorchFunction():
        weights = torch._masked_softmax(scores, blocked, -1)
    return _finish(weights, value, dropout)


def _scripted_softmax(scores: torch.Tensor, blocked: torch.Tensor) -> torch.Tensor:
    return torch._masked_softmax(scores, blocked, -1)


with warnings.catch_warnings():  # torch.jit.script is deprecated, but still runs operators past any Python hook
    warnings.simplefilter("ignore", DeprecationWarning)
    _scripted_softmax = torch.jit.script(_scripted_softmax)


def sdpa_scripted(query, key, value, mask=None, dropout=None):
    scores = _scores(query, key)
    return _finish(_scripted_softmax(scores, _blocked(scores, mask)), value, dropout)


def sdpa_flex(query, key, value, mask=None, dropout=None):
    from torch.nn.attention.flex_attention import flex_attention

    scores = _scores(query, key).masked_fill(_blocked(_scores(query, key), mask), float("-inf"))
    return flex_attention(query, key, value), scores.softmax(-1)


SDPA_CHEATS = {  # cheat -> what the message names
    sdpa_functional: "torch.nn.functional.scaled_dot_product_attention",
    sdpa_c_nn: "torch.nn.functional.scaled_dot_product_attention",  # the same object
    sdpa_ops_packet: "torch.ops.aten.scaled_dot_product_attention",
    sdpa_math_packet: "torch.ops.aten._scaled_dot_product_attention_math",
    sdpa_math_overload: "torch.ops.aten._scaled_dot_product_attention_math.default",
    sdpa_math_held: "torch.ops.aten._scaled_dot_product_attention_math",
    sdpa_math_held_overload: "torch.ops.aten._scaled_dot_product_attention_math.default",
    sdpa_math_binding: "torch._scaled_dot_product_attention_math",
    sdpa_masked_softmax_op: "torch.ops.aten._masked_softmax",
    sdpa_masked_softmax_binding: "torch._masked_softmax",
    sdpa_safe_softmax_op: "torch.ops.aten._safe_softmax",
    sdpa_math_unhandled: "torch.ops.aten._safe_softmax",  # the math attention's own step
    sdpa_functional_unhandled: "as torch.nn.functional.scaled_dot_product_attention does",  # whichever kernel it picks
    sdpa_masked_softmax_unhandled: "torch.ops.aten._masked_softmax",
    sdpa_scripted: "torch.ops.aten._masked_softmax",
    sdpa_flex: "torch.nn.attention.flex_attention.flex_attention",
}


@pytest.mark.parametrize("cheat", [c for c in SDPA_CHEATS if c not in (sdpa_functional, sdpa_c_nn, sdpa_ops_packet,
                                                                       sdpa_flex)],
                         ids=lambda c: c.__name__)
def test_each_cheat_does_the_work(cheat):
    """The cheats are real: they compute what the reference computes (so nothing but the watch stops them)."""
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    mask = torch.rand(2, 3, 5) > 0.3
    mask[..., 0] = True  # no row fully blocked
    for m in (None, mask):
        got, want = cheat(q, k, v, m), reference.scaled_dot_product_attention(q, k, v, m)
        assert all(torch.allclose(g, w, atol=1e-6) for g, w in zip(got, want))


@pytest.mark.parametrize("aspect", ASPECTS)
@pytest.mark.parametrize("cheat", list(SDPA_CHEATS), ids=lambda c: c.__name__)
def test_sdpa_cheat_is_caught(cheat, aspect):
    failure = _checked(SDPA, cheat, aspect)
    assert failure is not None, f"{cheat.__name__} passed {aspect}"
    assert failure.mistake_id == "forbidden-builtin", str(failure)
    assert SDPA_CHEATS[cheat] in str(failure), str(failure)


# ------------------------------------------------------------------ MultiHeadAttention cheats


class _Heads(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k = n_head, d_model // n_head
        self.w_q, self.w_k = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.w_v, self.w_o = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def split(self, x):
        return x.view(x.size(0), -1, self.n_head, self.d_k).transpose(1, 2)


class MHAOverOpsSdpa(_Heads):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))
        self.attn, out = None, torch.ops.aten.scaled_dot_product_attention.default(q, k, v, attn_mask=mask)
        return self.w_o(out.transpose(1, 2).reshape(query.size(0), -1, self.n_head * self.d_k))


class MHAOverNativeOp(_Heads):
    def forward(self, query, key, value, mask=None):
        weight = torch.cat([self.w_q.weight, self.w_k.weight, self.w_v.weight])
        bias = torch.cat([self.w_q.bias, self.w_k.bias, self.w_v.bias])
        out, self.attn = torch.ops.aten._native_multi_head_attention(
            query, key, value, self.n_head * self.d_k, self.n_head, weight, bias, self.w_o.weight, self.w_o.bias)
        return out


@pytest.mark.parametrize("cheat, named", [(MHAOverOpsSdpa, "torch.ops.aten.scaled_dot_product_attention.default"),
                                          (MHAOverNativeOp, "torch.ops.aten._native_multi_head_attention")],
                         ids=lambda c: getattr(c, "__name__", ""))
def test_multi_head_cheat_is_caught(cheat, named):
    failure = _checked("MultiHeadAttention", cheat, "values")
    assert failure is not None and failure.mistake_id == "forbidden-builtin", str(failure)
    assert named in str(failure)


# ------------------------------------------------------------------ LayerNorm cheats


class _Params(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d_model))
        self.beta = nn.Parameter(torch.zeros(d_model))
        self.eps = eps


class LNFunctional(_Params):
    def forward(self, x):
        return F.layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)


class LNTorch(_Params):
    def forward(self, x):
        return torch.layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)


class LNVariableFunctions(_Params):
    def forward(self, x):
        return torch._C._VariableFunctions.layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)


class LNNativeBinding(_Params):
    def forward(self, x):
        return torch.native_layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)[0]


class LNOpsNative(_Params):
    def forward(self, x):
        return torch.ops.aten.native_layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)[0]


class LNOpsNativeOverload(_Params):
    def forward(self, x):
        return torch.ops.aten.native_layer_norm.default(x, list(x.shape[-1:]), self.gamma, self.beta, self.eps)[0]


class LNOpsComposite(_Params):
    def forward(self, x):
        return torch.ops.aten.layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)


_native = torch.ops.aten.native_layer_norm


class LNOpsHeld(_Params):
    def forward(self, x):
        return _native(x, x.shape[-1:], self.gamma, self.beta, self.eps)[0]


class LNUnhandled(_Params):
    def forward(self, x):
        with torch._C.DisableTorchFunction():
            return torch.layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)


class LNRefs(_Params):
    def forward(self, x):
        import torch._refs

        return torch._refs.native_layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)[0]


class LNGroupNorm(_Params):
    """One group over the features of each position: a layer norm."""

    def forward(self, x):
        flat = x.reshape(-1, x.size(-1), 1)
        return F.group_norm(flat, 1, eps=self.eps).reshape(x.shape) * self.gamma + self.beta


class LNInstanceNorm(_Params):
    def forward(self, x):
        flat = x.reshape(-1, 1, x.size(-1))
        return F.instance_norm(flat, eps=self.eps).reshape(x.shape) * self.gamma + self.beta


class LNBatchNorm(_Params):
    def forward(self, x):
        columns = x.reshape(-1, x.size(-1)).T  # a batch of d_model "examples", one channel per position
        normalised = F.batch_norm(columns, None, None, training=True, eps=self.eps).T.reshape(x.shape)
        return normalised * self.gamma + self.beta


class LNRmsNorm(_Params):
    def forward(self, x):
        return F.rms_norm(x - x.mean(-1, keepdim=True), x.shape[-1:], self.gamma, self.eps) + self.beta


class LNModule(_Params):
    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.inner = nn.LayerNorm(d_model, eps=eps)

    def forward(self, x):
        return self.inner(x)


LAYER_NORM_CHEATS = {
    LNFunctional: "torch.nn.functional.layer_norm",
    LNTorch: "torch.layer_norm",
    LNVariableFunctions: "torch.layer_norm",  # the same object
    LNNativeBinding: "torch.native_layer_norm",
    LNOpsNative: "torch.ops.aten.native_layer_norm",
    LNOpsNativeOverload: "torch.ops.aten.native_layer_norm.default",
    LNOpsComposite: "torch.ops.aten.layer_norm",
    LNOpsHeld: "torch.ops.aten.native_layer_norm",
    LNUnhandled: "torch.ops.aten.native_layer_norm",
    LNRefs: "torch._refs.native_layer_norm",
    LNGroupNorm: "torch.nn.functional.group_norm",
    LNInstanceNorm: "torch.nn.functional.instance_norm",
    LNBatchNorm: "torch.nn.functional.batch_norm",
    LNRmsNorm: "torch.nn.functional.rms_norm",
    LNModule: "torch.nn.functional.layer_norm",
}


@pytest.mark.parametrize("cheat", list(LAYER_NORM_CHEATS), ids=lambda c: c.__name__)
def test_each_layer_norm_cheat_does_the_work(cheat):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 8)
    got, want = cheat(8), reference.LayerNorm(8)
    with torch.no_grad():
        got.gamma.uniform_(0.5, 1.5)
        got.beta.normal_()
        want.gamma.copy_(got.gamma)
        want.beta.copy_(got.beta)
        if isinstance(got, LNModule):
            got.inner.weight.copy_(got.gamma)
            got.inner.bias.copy_(got.beta)
    assert torch.allclose(got(x), want(x), atol=1e-5)


@pytest.mark.parametrize("aspect", ASPECTS)
@pytest.mark.parametrize("cheat", list(LAYER_NORM_CHEATS), ids=lambda c: c.__name__)
def test_layer_norm_cheat_is_caught(cheat, aspect):
    failure = _checked("LayerNorm", cheat, aspect)
    assert failure is not None, f"{cheat.__name__} passed {aspect}"
    assert failure.mistake_id == "forbidden-builtin", str(failure)
    assert LAYER_NORM_CHEATS[cheat] in str(failure), str(failure)


# ------------------------------------------------------------------ honest solutions are not flagged


def _copy_of_reference():
    """The reference's code as if a learner had written it: right, but not from autograder."""
    module = types.ModuleType("learner_notebook")
    exec(compile(inspect.getsource(reference), "<learner notebook>", "exec"), module.__dict__)
    return module


LEARNER = _copy_of_reference()


def _learner_copy(name):
    return getattr(LEARNER, name)


@pytest.mark.parametrize("unit", [SDPA, "MultiHeadAttention", "LayerNorm", "AddNorm", "EncoderLayer", "DecoderLayer"])
def test_the_reference_passes_every_aspect(unit):
    for aspect in UNITS[unit].cases:
        assert _checked(unit, _learner_copy(unit), aspect) is None, (unit, aspect)


class AddNormOverNativeOp(nn.Module):
    """AddNorm may use PyTorch's layer norm, by any route: only LayerNorm's own exercise forbids it."""

    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer_out):
        y = x + self.dropout(sublayer_out)
        return torch.ops.aten.native_layer_norm(y, [y.size(-1)], self.norm.weight, self.norm.bias, self.norm.eps)[0]


@pytest.mark.parametrize("aspect", list(UNITS["AddNorm"].cases))
def test_add_norm_may_use_any_layer_norm(aspect):
    assert _checked("AddNorm", AddNormOverNativeOp, aspect) is None


def _layer_norm_watch():
    spec = UNITS["LayerNorm"]
    return guards.Watch({**guards.FORBIDDEN_FUNCTIONS, **spec.forbidden},
                        modules=guards.FORBIDDEN_MODULES + tuple(spec.forbidden_modules))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_backward_operators_are_not_misread(dtype):
    """Differentiating, inside the watch, what an honest LayerNorm and attention did, flags nothing;
    nor does nn.LayerNorm's backward (aten::native_layer_norm_backward) where only attention is forbidden."""
    x = torch.randn(2, 3, 8, dtype=dtype, requires_grad=True)
    with _layer_norm_watch() as seen:
        _learner_copy("LayerNorm")(8).to(dtype)(x).sum().backward()
        out, _ = _learner_copy(SDPA)(x, x, x, torch.ones(2, 1, 3, dtype=torch.bool))
        out.sum().backward()
    assert seen.found is None
    norm = nn.LayerNorm(8).to(dtype)
    with watch.Watch(watch.by_name(watch.FORBIDDEN_FUNCTION_NAMES)) as seen:
        norm(x).sum().backward()
    assert seen.found is None and x.grad is not None


# ------------------------------------------------------------------ the other ways in: meta, the sandbox, the notebook


@pytest.mark.parametrize("cheat", [sdpa_math_packet, sdpa_math_unhandled, sdpa_masked_softmax_op],
                         ids=lambda c: c.__name__)
def test_meta_tensors_are_watched(cheat):
    q = torch.randn(2, 2, 3, 4, device="meta")
    with watch.Watch(watch.by_name(watch.FORBIDDEN_FUNCTION_NAMES)) as seen:
        try:
            cheat(q, q, q, torch.ones(2, 1, 1, 3, dtype=torch.bool, device="meta"))
        except NotImplementedError:  # aten::_masked_softmax has no meta kernel: seen all the same, before it runs
            pass
    assert seen.found is not None and seen.found[0] == "forbidden-builtin"


def test_the_sandbox_watch_rebuilt_from_names_catches_the_routes():
    """The grader sends the forbidden functions' names to the notebook's process (judge.RemoteUnit), which
    builds its Watch from them (unit_server): the operators it watches follow from those names alone."""
    spec = UNITS["LayerNorm"]
    names = sorted(set({**guards.FORBIDDEN_FUNCTIONS, **spec.forbidden}.values()))
    call, case = spec.build_call(), spec.cases["values"]()[0]
    for cheat in (LNOpsNative, LNUnhandled, LNGroupNorm):
        guard = watch.Watch(watch.by_name(names))
        harness.run(cheat, call, case, guard=guard)
        assert guard.found is not None and guard.found[0] == "forbidden-builtin", cheat.__name__
    names = sorted(set(guards.FORBIDDEN_FUNCTIONS.values()))  # AddNorm's
    guard = watch.Watch(watch.by_name(names))
    harness.run(AddNormOverNativeOp, UNITS["AddNorm"].build_call(), UNITS["AddNorm"].cases["values"]()[0], guard=guard)
    assert guard.found is None


def test_the_notebook_watch_catches_the_routes():
    """The visible test of notebook 01 wraps the learner's function in Watch(by_name(FORBIDDEN_FUNCTION_NAMES))."""
    q = torch.randn(2, 3, 4)
    for cheat in (sdpa_math_packet, sdpa_math_held_overload, sdpa_masked_softmax_unhandled, sdpa_scripted):
        with watch.Watch(watch.by_name(watch.FORBIDDEN_FUNCTION_NAMES)) as seen:
            cheat(q, q, q)
        assert seen.found is not None and seen.found[0] == "forbidden-builtin", cheat.__name__
    with watch.Watch(watch.by_name(watch.FORBIDDEN_FUNCTION_NAMES)) as seen:
        _learner_copy(SDPA)(q, q, q)
    assert seen.found is None


def test_the_watch_leaves_no_mode_behind():
    before = (torch._C._len_torch_function_stack(), torch._C._len_torch_dispatch_stack())
    with pytest.raises(ZeroDivisionError), watch.Watch(watch.by_name(watch.FORBIDDEN_FUNCTION_NAMES)):
        torch.ones(2).sum()
        raise ZeroDivisionError
    with watch.Watch({}):  # nothing forbidden: no operators watched
        torch.ones(2).sum()
    assert (torch._C._len_torch_function_stack(), torch._C._len_torch_dispatch_stack()) == before


def test_the_operator_sentence_speaks_korean():
    with _layer_norm_watch() as seen:
        LNUnhandled(4)(torch.randn(2, 4))
    with speaking("ko"), _layer_norm_watch() as seen_ko:
        LNUnhandled(4)(torch.randn(2, 4))
    assert "torch.ops.aten.native_layer_norm" in seen.found[1]
    assert "torch.nn.functional.layer_norm" in seen.found[1]
    assert "연산" in seen_ko.found[1] and "torch.ops.aten.native_layer_norm" in seen_ko.found[1]
