"""Right AdditiveAttention and AdditiveMultiHeadAttention (09-additive-attention) in many styles.

Scorers: d2l's features = q + k through tanh and w_v with its masked softmax, explicit
expand, one query row at a time, F.linear with the module's own weights, Bahdanau's
concatenation [q; k] through the two matrices side by side. Multi-head modules: the
notebook's (AdditiveAttention and the helpers by name), a loop over heads with the
shared scorer, d2l's heads folded into the batch, per-head projection weights in einsum.
"""

import torch
import torch.nn.functional as F
from torch import nn

from . import right
from .zoo_styles_heads import merge_view_contiguous, split_view_contiguous

# ------------------------------------------------------------------ AdditiveAttention


class _Additive(nn.Module):
    def __init__(self, d_k, d_hidden):
        super().__init__()
        self.w_q = nn.Linear(d_k, d_hidden, bias=False)
        self.w_k = nn.Linear(d_k, d_hidden, bias=False)
        self.v = nn.Linear(d_hidden, 1, bias=False)


def _weights_and_output(scores, value, mask, dropout, fill=-1e6):
    if mask is not None:
        scores = scores.masked_fill(~mask, fill)
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(dropout(weights) if dropout is not None else weights, value), weights


@right("AdditiveAttention")
class AdditiveD2l(_Additive):
    def forward(self, query, key, value, mask=None, dropout=None):
        queries, keys = self.w_q(query), self.w_k(key)
        features = queries.unsqueeze(-2) + keys.unsqueeze(-3)
        features = torch.tanh(features)
        scores = self.v(features).squeeze(-1)
        return _weights_and_output(scores, value, mask, dropout)


@right("AdditiveAttention")
class AdditiveExpand(_Additive):
    def forward(self, query, key, value, mask=None, dropout=None):
        l_q, l_k = query.size(-2), key.size(-2)
        q = self.w_q(query).unsqueeze(-2).expand(*query.shape[:-1], l_k, -1)
        k = self.w_k(key).unsqueeze(-3).expand(*key.shape[:-2], l_q, l_k, -1)
        energy = self.v(torch.tanh(q + k))[..., 0]
        if mask is not None:
            energy = torch.where(mask, energy, float("-inf"))
        attn = energy.softmax(dim=-1)
        if dropout is not None:
            return dropout(attn) @ value, attn
        return attn @ value, attn


@right("AdditiveAttention")
class AdditiveRowByRow(_Additive):
    """One query at a time, as the formula is first written: e_ij = v·tanh(W_q q_i + W_k k_j)."""

    def forward(self, query, key, value, mask=None, dropout=None):
        keys = self.w_k(key)
        rows = [self.v(torch.tanh(self.w_q(query[..., i:i + 1, :]) + keys)).squeeze(-1)
                for i in range(query.size(-2))]
        scores = torch.stack(rows, dim=-2)
        return _weights_and_output(scores, value, mask, dropout, fill=-1e9)


@right("AdditiveAttention")
class AdditiveFunctionalLinear(_Additive):
    def forward(self, query, key, value, mask=None, dropout=None):
        q = F.linear(query, self.w_q.weight)[..., :, None, :]
        k = F.linear(key, self.w_k.weight)[..., None, :, :]
        scores = F.linear(torch.tanh(q + k), self.v.weight)[..., 0]
        if mask is not None:
            scores = scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)
        exp = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)
        weights = exp / exp.sum(dim=-1, keepdim=True)
        dropped = weights if dropout is None else dropout(weights)
        return dropped @ value, weights


@right("AdditiveAttention")
class AdditiveConcat(_Additive):
    """Bahdanau's W_a [q; k]: the two matrices side by side, applied to every concatenated pair."""

    def forward(self, query, key, value, mask=None, dropout=None):
        l_q, l_k = query.size(-2), key.size(-2)
        pairs = torch.cat([query.unsqueeze(-2).expand(*query.shape[:-1], l_k, query.size(-1)),
                           key.unsqueeze(-3).expand(*key.shape[:-2], l_q, l_k, key.size(-1))], dim=-1)
        w_a = torch.cat([self.w_q.weight, self.w_k.weight], dim=1)  # (d_hidden, 2 d_k)
        scores = (torch.tanh(pairs @ w_a.T) @ self.v.weight.T).squeeze(-1)
        return _weights_and_output(scores, value, mask, dropout, fill=float("-inf"))


# ------------------------------------------------------------------ AdditiveMultiHeadAttention

# What notebook 09 provides or has defined before its multi-head cell.
AdditiveAttention = AdditiveD2l
split_heads, merge_heads = split_view_contiguous, merge_view_contiguous


class _Heads(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.n_head = n_head
        self.d_k = d_model // n_head
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        self.score = AdditiveAttention(self.d_k, self.d_k)
        self.attn = None


@right("AdditiveMultiHeadAttention")
class AdditiveMHANotebook(_Heads):
    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.n_head)
        k = split_heads(self.w_k(key), self.n_head)
        v = split_heads(self.w_v(value), self.n_head)
        out, self.attn = self.score(q, k, v, mask, self.dropout)
        return self.w_o(merge_heads(out))


@right("AdditiveMultiHeadAttention")
class AdditiveMHAHeadLoop(_Heads):
    """The shared scorer called once per head on (B, L, d_k) slices."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.w_q(query), self.w_k(key), self.w_v(value)
        if mask is not None:
            mask = mask.expand(query.size(0), self.n_head, query.size(1), key.size(1))
        outs, maps = [], []
        for h in range(self.n_head):
            cols = slice(h * self.d_k, (h + 1) * self.d_k)
            head_mask = None if mask is None else mask[:, h]
            out, weights = self.score(q[..., cols], k[..., cols], v[..., cols], head_mask, self.dropout)
            outs.append(out)
            maps.append(weights)
        self.attn = torch.stack(maps, dim=1)
        return self.w_o(torch.cat(outs, dim=-1))


@right("AdditiveMultiHeadAttention")
class AdditiveMHAFoldedBatch(_Heads):
    """d2l's transpose_qkv: heads in the batch axis; the mask expanded to match."""

    def _fold(self, x):
        b, l, _ = x.shape
        return x.reshape(b, l, self.n_head, -1).permute(0, 2, 1, 3).reshape(b * self.n_head, l, -1)

    def forward(self, query, key, value, mask=None):
        b, l_q, l_k = query.size(0), query.size(1), key.size(1)
        if mask is not None:
            mask = mask.expand(b, self.n_head, l_q, l_k).reshape(b * self.n_head, l_q, l_k)
        out, weights = self.score(self._fold(self.w_q(query)), self._fold(self.w_k(key)), self._fold(self.w_v(value)),
                                  mask, self.dropout)
        self.attn = weights.reshape(b, self.n_head, l_q, l_k)
        out = out.reshape(b, self.n_head, l_q, self.d_k).permute(0, 2, 1, 3).reshape(b, l_q, -1)
        return self.w_o(out)


@right("AdditiveMultiHeadAttention")
class AdditiveMHAEinsumProjections(_Heads):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.score = AdditiveRowByRow(self.d_k, self.d_k)  # any right scorer will do

    def _heads(self, x, layer):
        weight = layer.weight.view(self.n_head, self.d_k, -1)
        return torch.einsum("bld,hkd->bhlk", x, weight) + layer.bias.view(self.n_head, 1, self.d_k)

    def forward(self, query, key, value, mask=None):
        q, k, v = self._heads(query, self.w_q), self._heads(key, self.w_k), self._heads(value, self.w_v)
        out, self.attn = self.score(q, k, v, mask=mask, dropout=self.dropout)
        return self.w_o(torch.einsum("bhld->blhd", out).flatten(2))


@right("AdditiveAttention")
class AdditiveRowByRowDropoutPerRow(nn.Module):
    """One query at a time, each row's weights through the dropout before its weighted sum."""

    def __init__(self, d_k, d_hidden):
        super().__init__()
        self.w_q = nn.Linear(d_k, d_hidden, bias=False)
        self.w_k = nn.Linear(d_k, d_hidden, bias=False)
        self.v = nn.Linear(d_hidden, 1, bias=False)

    def forward(self, query, key, value, mask=None, dropout=None):
        keys = self.w_k(key)
        outs, rows = [], []
        for i in range(query.size(-2)):
            e = self.v(torch.tanh(self.w_q(query[..., i:i + 1, :]) + keys)).squeeze(-1).unsqueeze(-2)  # (..., 1, L_k)
            if mask is not None:
                e = e.masked_fill(~(mask[..., i:i + 1, :] if mask.size(-2) > 1 else mask), -1e9)
            w = F.softmax(e, dim=-1)
            rows.append(w)
            outs.append((dropout(w) if dropout is not None else w) @ value)
        return torch.cat(outs, dim=-2), torch.cat(rows, dim=-2)
