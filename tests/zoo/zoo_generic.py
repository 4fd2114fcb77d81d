"""Zoo of the ids any unit can get: stubs, errors, shapes, NaN, devices, in-place changes,
built-ins doing the work, tampering, and the generic fall-backs."""
import math

import numpy
import torch
import torch.nn.functional as F
from torch import nn

import autograder.checks.core
import autograder.reference
import learner_kit.verdicts

from . import bug, patched
from .zoo_heads import MHAViewContiguous, _Base

SDPA = "scaled_dot_product_attention"


@bug(SDPA, "not-implemented", "values", "device")
def sdpa_stub(query, key, value, mask=None, dropout=None):
    # YOUR CODE HERE
    raise NotImplementedError()


@bug("MultiHeadAttention", "not-implemented", "values", "grad")
class MHAStubForward(_Base):
    def forward(self, query, key, value, mask=None):
        # YOUR CODE HERE
        raise NotImplementedError()


@bug(SDPA, "runtime-error", "masks")
def sdpa_misspelt_masked_fill(query, key, value, mask=None, dropout=None):
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fil(mask == 0, -1e9)
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, value), weights


@bug("split_heads", "shape", "values")
def split_forgets_transpose(x, n_head):
    b, l, d = x.shape
    return x.view(b, l, n_head, d // n_head)


@bug(SDPA, "nan", "masks")
def sdpa_float_mask_times_inf(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        keep = mask.float()
        scores = scores * keep + (1 - keep) * float("-inf")  # 0 * -inf is NaN
    weights = scores.softmax(-1)
    return weights @ value, weights


@bug(SDPA, "device", "device")
def sdpa_fill_tensor_on_cpu(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = torch.where(mask, scores, torch.full(scores.shape, -1e9, dtype=scores.dtype))
    weights = scores.softmax(-1)
    return weights @ value, weights


@bug("MultiHeadAttention", "device", "device")
class MHAScaleOnCpu(MHAViewContiguous):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))
        scores = q @ k.transpose(-2, -1) / torch.sqrt(torch.tensor([self.d_k], dtype=query.dtype))
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        self.attn = scores.softmax(-1)
        return self.w_o((self.attn @ v).transpose(1, 2).reshape(query.size(0), -1, self.d_model))


@bug(SDPA, "inplace-input", "values")
def sdpa_scales_query_in_place(query, key, value, mask=None, dropout=None):
    query /= math.sqrt(query.size(-1))
    weights = (query @ key.transpose(-2, -1)).softmax(-1)
    return weights @ value, weights


@bug(SDPA, "forbidden-builtin", "values", "masks")
def sdpa_builtin(query, key, value, mask=None, dropout=None):
    out = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    return out, scores.softmax(-1)


@bug("MultiHeadAttention", "forbidden-builtin", "values")
class MHAWrapsTorch(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.mha = nn.MultiheadAttention(d_model, n_head, dropout=dropout, batch_first=True)

    def forward(self, query, key, value, mask=None):
        out, self.attn = self.mha(query, key, value, average_attn_weights=False)
        return out


def _always_true(*args, **kwargs):
    return True


def _silent(*args, **kwargs):
    return None


def _right_sdpa(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    weights = scores.softmax(-1)
    return weights @ value, weights


@bug(SDPA, "tampering", "values", patch=lambda: patched(torch, "allclose", _always_true))
def sdpa_with_allclose_replaced(query, key, value, mask=None, dropout=None):
    return query, key  # nonsense, hoping the comparison says yes


@bug(SDPA, "tampering", "values", patch=lambda: patched(torch.testing, "assert_close", _silent))
def sdpa_with_assert_close_replaced(query, key, value, mask=None, dropout=None):
    return _right_sdpa(query, key, value, mask, dropout)


@bug(SDPA, "tampering", "values", patch=lambda: patched(numpy, "allclose", _always_true))
def sdpa_with_numpy_allclose_replaced(query, key, value, mask=None, dropout=None):
    return _right_sdpa(query, key, value, mask, dropout)


@bug(SDPA, "tampering", "values", patch=lambda: patched(learner_kit.verdicts, "close", _always_true))
def sdpa_with_the_checks_comparison_replaced(query, key, value, mask=None, dropout=None):
    return query, key


def close(mine, theirs):  # same name as the checks' comparison, so only its file gives it away
    return True


@bug(SDPA, "tampering", "values", patch=lambda: patched(learner_kit.verdicts, "close", close))
def sdpa_with_a_namesake_comparison(query, key, value, mask=None, dropout=None):
    return query, key


@bug(SDPA, "tampering", "values", patch=lambda: patched(autograder.checks.core, "check", _silent))
def sdpa_with_the_check_function_replaced(query, key, value, mask=None, dropout=None):
    return query, key


@bug(SDPA, "tampering", "masks", patch=lambda: patched(torch.Tensor, "__sub__", lambda self, other: self * 0))
def sdpa_with_tensor_subtraction_replaced(query, key, value, mask=None, dropout=None):
    return _right_sdpa(query, key, value, mask, dropout)


@bug(SDPA, "tampering", "values",
     patch=lambda: patched(autograder.reference, "scaled_dot_product_attention", sdpa_scales_query_in_place))
def sdpa_with_the_reference_replaced(query, key, value, mask=None, dropout=None):
    return sdpa_scales_query_in_place(query, key, value, mask, dropout)


@bug(SDPA, "tampering", "values", "masks")
def sdpa_imports_the_reference(query, key, value, mask=None, dropout=None):
    from autograder.reference import scaled_dot_product_attention as answer

    return answer(query, key, value, mask, dropout)


@bug("MultiHeadAttention", "tampering", "values")
class MHASubclassesTheReference(autograder.reference.MultiHeadAttention):
    pass


# ------------------------------------------------------------------ the generic fall-backs


@bug(SDPA, "wrong-gradients", "grad")
def sdpa_detached_weights(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    weights = scores.softmax(-1).detach()
    return weights @ value, weights


@bug(SDPA, "wrong-interface", "values")
def sdpa_returns_only_the_output(query, key, value, mask=None, dropout=None):
    return _right_sdpa(query, key, value, mask, dropout)[0]


@bug("MultiHeadAttention", "wrong-interface", "values")
class MHAWithLinearsList(MHAViewContiguous):
    """Annotated-Transformer style: the projections live in a list, not under the exercise's names."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        del self.w_q, self.w_k, self.w_v, self.w_o
        self.linears = nn.ModuleList(nn.Linear(d_model, d_model) for _ in range(4))

    def forward(self, query, key, value, mask=None):
        q, k, v = (self.split(layer(x)) for layer, x in zip(self.linears, (query, key, value)))
        out, self.attn = _right_sdpa(q, k, v, mask)
        return self.linears[3](out.transpose(1, 2).reshape(query.size(0), -1, self.d_model))


@bug(SDPA, "property-violated", "properties")
def sdpa_small_fill(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -80.0)  # exp(-80) is tiny but not 0
    weights = scores.softmax(-1)
    return weights @ value, weights


@bug(SDPA, "wrong-values", "values")
def sdpa_scaled_by_value_size(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(value.size(-1))  # d_v, not d_k
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    weights = scores.softmax(-1)
    return weights @ value, weights
