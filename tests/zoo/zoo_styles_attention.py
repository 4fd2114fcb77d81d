"""Right scaled_dot_product_attention in the styles of public tutorials and code bases.

Each is written from scratch: the Annotated Transformer's (dropped weights returned: wrong here),
nanoGPT's, d2l's masked softmax, Whisper's split scale, an additive float bias, an outer
product summed, a softmax written out, masks turned into numbers and compared.
"""
import math

import torch
import torch.nn.functional as F

from . import bug, right

UNIT = "scaled_dot_product_attention"


@bug(UNIT, "property-violated", "properties")
def sdpa_annotated(query, key, value, mask=None, dropout=None):
    """Returns the weights after dropout, as the Annotated Transformer does: equal in eval mode, but
    COURSE.md returns the weights from before dropout (rows summing to 1)."""
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


@right(UNIT)
def sdpa_nanogpt(query, key, value, mask=None, dropout=None):
    att = (query @ key.transpose(-2, -1)) * (1.0 / math.sqrt(key.size(-1)))
    if mask is not None:
        att = att.masked_fill(mask.logical_not(), float("-inf"))
    att = F.softmax(att, dim=-1)
    y = (dropout(att) if dropout is not None else att) @ value
    return y, att


def _masked_softmax(scores, mask):
    """d2l's helper: blocked entries get a very negative number before the softmax."""
    if mask is None:
        return F.softmax(scores, dim=-1)
    filler = torch.tensor(-1e6, dtype=scores.dtype, device=scores.device)
    return F.softmax(torch.where(mask, scores, filler), dim=-1)


@right(UNIT)
def sdpa_d2l(query, key, value, mask=None, dropout=None):
    d = query.shape[-1]
    scores = torch.matmul(query, key.transpose(-1, -2)) / math.sqrt(d)
    attention_weights = _masked_softmax(scores, mask)
    used = attention_weights if dropout is None else dropout(attention_weights)
    return torch.matmul(used, value), attention_weights


@right(UNIT)
def sdpa_whisper_split_scale(query, key, value, mask=None, dropout=None):
    """Whisper scales query and key by d_k ** -0.25 each."""
    scale = query.shape[-1] ** -0.25
    qk = (query * scale) @ (key * scale).transpose(-1, -2)
    if mask is not None:
        qk = qk.masked_fill(~mask, torch.finfo(qk.dtype).min)
    w = qk.softmax(-1)
    return (w if dropout is None else dropout(w)) @ value, w


@right(UNIT)
def sdpa_additive_bias(query, key, value, mask=None, dropout=None):
    """The mask turned into an additive float bias (0 or -inf), as attn_mask biases are."""
    scores = query @ key.transpose(-2, -1) / query.size(-1) ** 0.5
    if mask is not None:
        bias = torch.zeros_like(scores).masked_fill(~mask, float("-inf"))
        scores = scores + bias
    weights = torch.softmax(scores, dim=-1)
    out = weights if dropout is None else dropout(weights)
    return out @ value, weights


@right(UNIT)
def sdpa_outer_product_sum(query, key, value, mask=None, dropout=None):
    """q·k for every pair by broadcasting, then a weighted sum of the values."""
    scores = (query.unsqueeze(-2) * key.unsqueeze(-3)).sum(dim=-1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == False, -1e9)  # noqa: E712 (as learners write it)
    weights = scores.softmax(dim=-1)
    used = dropout(weights) if dropout is not None else weights
    return (used.unsqueeze(-1) * value.unsqueeze(-3)).sum(dim=-2), weights


@right(UNIT)
def sdpa_softmax_by_hand(query, key, value, mask=None, dropout=None):
    scores = torch.matmul(query, key.transpose(-2, -1)) / query.size(-1) ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    exps = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = exps / exps.sum(dim=-1, keepdim=True)
    return torch.matmul(dropout(weights) if dropout else weights, value), weights


@right(UNIT)
def sdpa_uint8_mask(query, key, value, mask=None, dropout=None):
    """The mask made numbers first (uint8), then compared with 0; masked_fill_ on its own scores."""
    scores = torch.matmul(query, key.transpose(-2, -1))
    scores.div_(math.sqrt(query.size(-1)))
    if mask is not None:
        keep = mask.to(torch.uint8)
        scores.masked_fill_(keep == 0, -1e9)
    p = F.softmax(scores, dim=-1)
    return torch.matmul(p if dropout is None else dropout(p), value), p


@right(UNIT)
def sdpa_where_scalar(query, key, value, mask=None, dropout=None):
    scores = torch.einsum("...id,...jd->...ij", query, key) * torch.rsqrt(torch.tensor(query.shape[-1], dtype=query.dtype, device=query.device))
    if mask is not None:
        scores = torch.where(mask.int() == 1, scores, -1e9)
    weights = scores.softmax(-1)
    if dropout is not None:
        return torch.einsum("...ij,...jd->...id", dropout(weights), value), weights
    return torch.einsum("...ij,...jd->...id", weights, value), weights


@right(UNIT)
def sdpa_hf_extended_mask(query, key, value, mask=None, dropout=None):
    """Old Hugging Face BERT: (1 - mask) * -10000.0 added to the scores."""
    attention_scores = torch.matmul(query, key.transpose(-1, -2))
    attention_scores = attention_scores / math.sqrt(key.size(-1))
    if mask is not None:
        extended_mask = (1.0 - mask.to(dtype=attention_scores.dtype)) * -10000.0
        attention_scores = attention_scores + extended_mask
    attention_probs = F.softmax(attention_scores, dim=-1)
    if dropout is not None:
        attention_probs_dropped = F.dropout(attention_probs, p=dropout.p, training=dropout.training)
        return torch.matmul(attention_probs_dropped, value), attention_probs
    return torch.matmul(attention_probs, value), attention_probs


@right("scaled_dot_product_attention")
def sdpa_tensor_sqrt(query, key, value, mask=None, dropout=None):
    """√d_k as a tensor made without a dtype: float64 in a float64 run (the float64 rule)."""
    d_k = torch.tensor(query.size(-1), device=query.device)
    scores = torch.matmul(query, key.transpose(-2, -1)) / torch.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights if dropout is None else dropout(weights), value), weights


@right("scaled_dot_product_attention")
def sdpa_loop_over_queries(query, key, value, mask=None, dropout=None):
    """One query row at a time (as the formula reads), dropout on each row's weights."""
    outs, rows = [], []
    for i in range(query.size(-2)):
        q = query[..., i:i + 1, :]
        s = q @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
        if mask is not None:
            m = mask[..., i:i + 1, :] if mask.size(-2) > 1 else mask
            s = s.masked_fill(~m, -1e9)
        w = s.softmax(-1)
        rows.append(w)
        outs.append((dropout(w) if dropout is not None else w) @ value)
    return torch.cat(outs, dim=-2), torch.cat(rows, dim=-2)
