"""Zoo of 01-attention: scaled_dot_product_attention, right and wrong, as learners write it."""
import math

import torch
import torch.nn.functional as F
from torch import nn

from . import bug, right

UNIT = "scaled_dot_product_attention"

# ------------------------------------------------------------------ right answers


@right(UNIT)
def sdpa_einsum_where(query, key, value, mask=None, dropout=None):
    scores = torch.einsum("...qd,...kd->...qk", query, key) / math.sqrt(query.shape[-1])
    if mask is not None:
        scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
    weights = torch.softmax(scores, dim=-1)
    dropped = weights if dropout is None else dropout(weights)
    return torch.einsum("...qk,...kv->...qv", dropped, value), weights


@right(UNIT)
def sdpa_matmul_minus_1e9(query, key, value, mask=None, dropout=None):
    d_k = key.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = F.softmax(scores, dim=-1)
    out = torch.matmul(dropout(p_attn) if dropout is not None else p_attn, value)
    return out, p_attn


@right(UNIT)
def sdpa_minus_inf(query, key, value, mask=None, dropout=None):
    scores = query @ key.mT * query.size(-1) ** -0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    attention = scores.softmax(-1)
    if dropout:
        return dropout(attention) @ value, attention
    return attention @ value, attention


@right(UNIT)
def sdpa_bmm_float_mask_stable_softmax(query, key, value, mask=None, dropout=None):
    """bmm on flattened leading axes; a 0/1 float mask; the softmax written out."""
    lead, (l_q, d_k), l_k = query.shape[:-2], query.shape[-2:], key.shape[-2]
    q = query.reshape(-1, l_q, d_k)
    k = key.reshape(-1, l_k, d_k)
    scores = torch.bmm(q, k.transpose(1, 2)).reshape(*lead, l_q, l_k) / math.sqrt(d_k)
    if mask is not None:
        keep = mask.to(scores.dtype)
        scores = scores * keep + (1.0 - keep) * -1e9
    shifted = scores - scores.max(dim=-1, keepdim=True).values
    exp = shifted.exp()
    weights = exp / exp.sum(dim=-1, keepdim=True)
    used = dropout(weights) if dropout is not None else weights
    out = torch.bmm(used.reshape(-1, l_q, l_k), value.reshape(-1, l_k, value.shape[-1]))
    return out.reshape(*lead, l_q, value.shape[-1]), weights


@right(UNIT)
def sdpa_rsqrt_scaled_query(query, key, value, mask=None, dropout=None):
    scale = torch.rsqrt(torch.tensor(query.shape[-1], dtype=query.dtype, device=query.device))
    scores = (query * scale) @ key.transpose(-1, -2)
    if mask is not None:
        scores = torch.where(mask.bool(), scores, float("-inf"))
    weights = torch.softmax(scores, dim=scores.dim() - 1)
    return (dropout(weights) if dropout is not None else weights) @ value, weights


@right(UNIT)
def sdpa_logsumexp(query, key, value, mask=None, dropout=None):
    scores = query.matmul(key.transpose(-2, -1)).div(math.sqrt(query.size(-1)))
    if mask is not None:
        scores = scores.masked_fill(torch.logical_not(mask), -math.inf)
    weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))
    if dropout is not None:
        return dropout(weights).matmul(value), weights
    return weights.matmul(value), weights


# ------------------------------------------------------------------ one bug per misconception


@bug(UNIT, "sdpa-no-scale", "values", "masks", "float64")
def sdpa_unscaled(query, key, value, mask=None, dropout=None):
    scores = torch.einsum("bhqd,bhkd->bhqk" if query.dim() == 4 else "bqd,bkd->bqk", query, key)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = F.softmax(scores, dim=-1)
    return weights @ value, weights


@bug(UNIT, "sdpa-scale-dk")
def sdpa_divided_by_dk(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / query.shape[-1]
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ value, weights


@bug(UNIT, "sdpa-softmax-dim", "values", "masks")
def sdpa_softmax_over_queries(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(key.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = nn.Softmax(dim=-2)(scores)
    return weights @ value, weights


@bug(UNIT, "sdpa-mask-inverted", "masks")
def sdpa_mask_inverted(query, key, value, mask=None, dropout=None):
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = torch.where(mask, torch.full_like(scores, -1e9), scores)
    weights = torch.softmax(scores, -1)
    return torch.matmul(weights, value), weights


@bug(UNIT, "sdpa-mask-ignored", "masks")
def sdpa_mask_not_assigned(query, key, value, mask=None, dropout=None):
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))
    if mask is not None:
        scores.masked_fill(mask == 0, -1e9)  # the result is thrown away
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, value), weights


@bug(UNIT, "sdpa-mask-after-softmax", "masks")
def sdpa_zeroes_weights(query, key, value, mask=None, dropout=None):
    weights = F.softmax(query @ key.transpose(-2, -1) / math.sqrt(query.size(-1)), dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ value, weights


@bug(UNIT, "sdpa-mask-fill-zero", "masks")
def sdpa_scores_times_mask(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores * mask
    weights = scores.softmax(-1)
    return weights @ value, weights


@bug(UNIT, "sdpa-key-transpose", "values", "masks")
def sdpa_transposes_axes_1_2(query, key, value, mask=None, dropout=None):
    scores = torch.matmul(query, key.transpose(1, 2)) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, value), weights


@bug(UNIT, "sdpa-key-transpose", "values")
def sdpa_no_transpose(query, key, value, mask=None, dropout=None):
    scores = torch.einsum("...qd,...dk->...qk", query, key) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    return weights @ value, weights


@bug(UNIT, "sdpa-returns-scores", "values", "masks")
def sdpa_returns_scores(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ value, scores


@bug("scaled_dot_product_attention", "wrong-values", "values")
def sdpa_dropout_on_the_output(query, key, value, mask=None, dropout=None):
    """Dropout applied to the output instead of the weights."""
    weights = torch.softmax(query @ key.transpose(-2, -1) / math.sqrt(query.size(-1)), dim=-1)
    output = weights @ value
    return (dropout(output) if dropout is not None else output), weights


# ------------------------------------------------------------------ found by the learner walkthrough (issue 16)


@bug(UNIT, "sdpa-softmax-dim", "values", "masks", "properties")
def sdpa_softmax_over_queries_minus_inf(query, key, value, mask=None, dropout=None):
    """The softmax over the queries with -inf for blocked keys: a fully blocked column is NaN, the axis is the mistake."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = F.softmax(scores, dim=-2)
    return weights @ value, weights


@bug(UNIT, "sdpa-key-transpose", "values", "masks")
def sdpa_key_dot_T(query, key, value, mask=None, dropout=None):
    """`key.T` reverses every axis of a 3-D or 4-D key (PyTorch warns it is deprecated there)."""
    scores = query @ key.T / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    weights = scores.softmax(dim=-1)
    return weights @ value, weights


@bug(UNIT, "runtime-error", "values")
def sdpa_permute_for_3d_only(query, key, value, mask=None, dropout=None):
    """key.permute(0, 2, 1): right for 3-D inputs, an error for the heads' 4-D ones."""
    scores = query @ key.permute(0, 2, 1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    weights = scores.softmax(dim=-1)
    return weights @ value, weights


@bug(UNIT, "wrong-values", "values")
def sdpa_dk_from_the_query_length(query, key, value, mask=None, dropout=None):
    """d_k read from axis -2 (the number of queries), not from the feature axis."""
    d_k = query.size(-2)
    weights = torch.softmax(query @ key.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug(UNIT, "wrong-values", "values")
def sdpa_dropout_never_applied(query, key, value, mask=None, dropout=None):
    """The dropout argument is accepted and never used."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ value, weights


@bug(UNIT, "property-violated", "properties")
def sdpa_returns_dropped_weights(query, key, value, mask=None, dropout=None):
    """Dropout applied in place of the weights, so the weights returned are the dropped ones."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = scores.softmax(dim=-1)
    if dropout is not None:
        weights = dropout(weights)
    return weights @ value, weights


# ------------------------------------------------------------------ issue 33: told a mistake they did not make


@bug(UNIT, "wrong-values", "values", visible="property-violated")
def sdpa_softmax_without_dim(query, key, value, mask=None, dropout=None):
    """F.softmax with no dim: PyTorch picks axis 0 for 3-D scores, 1 for 4-D. Not the scores returned."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = F.softmax(scores)
    return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug(UNIT, "shape", "values", visible="shape")
def sdpa_returns_weights_then_output(query, key, value, mask=None, dropout=None):
    """The two results in the other order: not the scores returned."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = F.softmax(scores, dim=-1)
    output = (dropout(weights) if dropout is not None else weights) @ value
    return weights, output


@bug(UNIT, "shape", "masks", visible="shape")
def sdpa_mask_unsqueezed_again(query, key, value, mask=None, dropout=None):
    """mask.unsqueeze(1) on a mask that already broadcasts: the weights gain an axis. Not an inverted mask."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        mask = mask.unsqueeze(1)
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = F.softmax(scores, dim=-1)
    return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug(UNIT, "nan", "values", visible="nan")
def sdpa_softmax_exp_without_max_shift(query, key, value, mask=None, dropout=None):
    """exp(scores) / sum: e^score overflows float32 above 88, and inf / inf is NaN."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    exps = torch.exp(scores)
    weights = exps / exps.sum(dim=-1, keepdim=True)
    return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug(UNIT, "wrong-values", "masks", visible="property-violated")
def sdpa_mask_filled_with_minus_one(query, key, value, mask=None, dropout=None):
    """Blocked scores set to -1, not 0 and not very negative: blocked keys keep some weight (not sdpa-mask-fill-zero)."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1.0)
    weights = scores.softmax(dim=-1)
    return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug(UNIT, "wrong-values", "values", visible="property-violated")
def sdpa_dropout_twice(query, key, value, mask=None, dropout=None):
    """The dropout module applied twice: kept weights scaled by 1/(1-p)^2 (4 at p = 0.5), not 1/(1-p)."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    dropped = dropout(dropout(weights)) if dropout is not None else weights
    return dropped @ value, weights
