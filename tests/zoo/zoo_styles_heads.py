"""Right split_heads, merge_heads and MultiHeadAttention in the styles of public code.

view + transpose + contiguous, split/stack, movedim, swapaxes, per-head loops; d2l's
heads folded into the batch, per-head slices of the projection weights with F.linear,
the weights viewed per head in an einsum, Whisper's split scale, a mask turned into a
float bias, an nn.Softmax submodule, weights kept detached for plotting, and one that
calls split_heads, merge_heads and scaled_dot_product_attention by name as notebook 02
provides them.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

from . import right

# ------------------------------------------------------------------ split_heads


@right("split_heads")
def split_view_contiguous(x, n_head):
    batch_size, seq_len, d_model = x.size()
    return x.view(batch_size, seq_len, n_head, d_model // n_head).transpose(1, 2).contiguous()


@right("split_heads")
def split_torch_split(x, n_head):
    d_k = x.size(-1) // n_head
    return torch.stack(torch.split(x, d_k, dim=-1), dim=1)


@right("split_heads")
def split_swapaxes(x, n_head):
    b, t, c = x.shape
    return x.reshape(b, t, n_head, c // n_head).swapaxes(1, 2)


@right("split_heads")
def split_movedim(x, n_head):
    return x.unflatten(2, (n_head, x.size(2) // n_head)).movedim(2, 1)


@right("split_heads")
def split_slices_loop(x, n_head):
    d_k = x.shape[-1] // n_head
    heads = [x[:, :, h * d_k:(h + 1) * d_k] for h in range(n_head)]
    return torch.stack(heads, dim=1)


@right("split_heads")
def split_star_shape(x, n_head):
    return x.view(*x.shape[:-1], n_head, -1).permute(0, 2, 1, 3)


# ------------------------------------------------------------------ merge_heads


@right("merge_heads")
def merge_view_contiguous(x):
    batch_size, n_head, seq_len, d_k = x.size()
    return x.transpose(1, 2).contiguous().view(batch_size, seq_len, n_head * d_k)


@right("merge_heads")
def merge_flatten_start(x):
    return x.permute(0, 2, 1, 3).flatten(start_dim=2)


@right("merge_heads")
def merge_cat_loop(x):
    return torch.cat([x[:, h] for h in range(x.size(1))], dim=-1)


@right("merge_heads")
def merge_movedim(x):
    b, h, l, d = x.shape
    return x.movedim(1, 2).reshape(b, l, h * d)


@right("merge_heads")
def merge_einsum(x):
    return torch.einsum("bhld->blhd", x).reshape(x.size(0), x.size(2), -1)


@right("merge_heads")
def merge_swapaxes(x):
    return x.swapaxes(1, 2).reshape(x.size(0), x.size(2), -1)


# ------------------------------------------------------------------ MultiHeadAttention

# What notebook 02 provides before its MultiHeadAttention cell: right copies of its helpers.
split_heads = split_view_contiguous
merge_heads = merge_view_contiguous


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = scores.softmax(dim=-1)
    return (dropout(weights) if dropout is not None else weights) @ value, weights


class _Projections(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        assert d_model % n_head == 0
        self.n_head = n_head
        self.d_k = d_model // n_head
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(p=dropout)
        self.attn = None


@right("MultiHeadAttention")
class MHAProvidedHelpers(_Projections):
    """The notebook's way: the graded helpers called by name."""

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.n_head)
        k = split_heads(self.w_k(key), self.n_head)
        v = split_heads(self.w_v(value), self.n_head)
        x, self.attn = scaled_dot_product_attention(q, k, v, mask=mask, dropout=self.dropout)
        return self.w_o(merge_heads(x))


@right("MultiHeadAttention")
class MHAHeadsInBatch(_Projections):
    """d2l's transpose_qkv: heads folded into the batch axis, (B * h, L, d_k)."""

    def _fold(self, x):
        b, l, _ = x.shape
        return x.reshape(b, l, self.n_head, -1).permute(0, 2, 1, 3).reshape(b * self.n_head, l, -1)

    def forward(self, query, key, value, mask=None):
        b, l_q, l_k = query.size(0), query.size(1), key.size(1)
        q, k, v = self._fold(self.w_q(query)), self._fold(self.w_k(key)), self._fold(self.w_v(value))
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(self.d_k)
        if mask is not None:
            folded = mask.expand(b, self.n_head, l_q, l_k).reshape(b * self.n_head, l_q, l_k)
            scores = scores.masked_fill(~folded, -1e9)
        weights = F.softmax(scores, dim=-1)
        self.attn = weights.reshape(b, self.n_head, l_q, l_k)
        out = torch.bmm(self.dropout(weights), v).reshape(b, self.n_head, l_q, self.d_k)
        return self.w_o(out.permute(0, 2, 1, 3).reshape(b, l_q, -1))


@right("MultiHeadAttention")
class MHAPerHeadWeightSlices(_Projections):
    """Each head projects with its own rows of w_q, w_k, w_v (F.linear on slices)."""

    def forward(self, query, key, value, mask=None):
        if mask is not None:  # any broadcastable mask, made (B, h, L_q, L_k) so that head h can take its own
            mask = mask.expand(query.size(0), self.n_head, query.size(1), key.size(1))
        outs, maps = [], []
        for h in range(self.n_head):
            rows = slice(h * self.d_k, (h + 1) * self.d_k)
            q = F.linear(query, self.w_q.weight[rows], self.w_q.bias[rows])
            k = F.linear(key, self.w_k.weight[rows], self.w_k.bias[rows])
            v = F.linear(value, self.w_v.weight[rows], self.w_v.bias[rows])
            scores = q @ k.transpose(1, 2) / math.sqrt(self.d_k)
            if mask is not None:
                scores = scores.masked_fill(~mask[:, h], float("-inf"))
            weights = scores.softmax(-1)
            maps.append(weights)
            outs.append(self.dropout(weights) @ v)
        self.attn = torch.stack(maps, dim=1)
        return self.w_o(torch.cat(outs, dim=-1))


@right("MultiHeadAttention")
class MHAEinsumPerHeadWeights(_Projections):
    """The projection weights viewed as (h, d_k, d_model), projected and split in one einsum."""

    def _project(self, x, layer):
        weight = layer.weight.view(self.n_head, self.d_k, -1)
        return torch.einsum("bld,hkd->bhlk", x, weight) + layer.bias.view(1, self.n_head, 1, self.d_k)

    def forward(self, query, key, value, mask=None):
        q, k, v = self._project(query, self.w_q), self._project(key, self.w_k), self._project(value, self.w_v)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / self.d_k ** 0.5
        if mask is not None:
            scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
        self.attn = torch.softmax(scores, dim=-1)
        out = torch.einsum("bhqk,bhkd->bqhd", self.dropout(self.attn), v)
        return self.w_o(out.flatten(2))


@right("MultiHeadAttention")
class MHAWhisperScale(_Projections):
    """q and k each scaled by d_k ** -0.25; reshape, permute and view."""

    def forward(self, query, key, value, mask=None):
        n_batch = query.shape[0]
        scale = self.d_k ** -0.25
        q = self.w_q(query).view(n_batch, query.shape[1], self.n_head, -1).permute(0, 2, 1, 3) * scale
        k = self.w_k(key).view(n_batch, key.shape[1], self.n_head, -1).permute(0, 2, 3, 1) * scale
        v = self.w_v(value).view(n_batch, value.shape[1], self.n_head, -1).permute(0, 2, 1, 3)
        qk = q @ k
        if mask is not None:
            qk = qk.masked_fill(mask.logical_not(), float("-inf"))
        w = F.softmax(qk, dim=-1)
        self.attn = w
        out = (self.dropout(w) @ v).permute(0, 2, 1, 3).flatten(start_dim=2)
        return self.w_o(out)


@right("MultiHeadAttention")
class MHAFloatBias(_Projections):
    """The bool mask turned into an additive float mask (0 / -1e9) before the heads see it."""

    def forward(self, query, key, value, mask=None):
        B = query.size(0)
        Q = self.w_q(query).view(B, -1, self.n_head, self.d_k).transpose(1, 2)
        K = self.w_k(key).view(B, -1, self.n_head, self.d_k).transpose(1, 2)
        V = self.w_v(value).view(B, -1, self.n_head, self.d_k).transpose(1, 2)
        energy = torch.matmul(Q, K.transpose(-1, -2)) / math.sqrt(self.d_k)
        if mask is not None:
            energy = energy + (1.0 - mask.to(energy.dtype)) * -1e9
        attention = torch.softmax(energy, dim=-1)
        self.attn = attention
        x = torch.matmul(self.dropout(attention), V)
        x = x.transpose(1, 2).contiguous().view(B, -1, self.n_head * self.d_k)
        return self.w_o(x)


@right("MultiHeadAttention")
class MHASoftmaxModule(_Projections):
    """An nn.Softmax submodule, and one helper for the three projections."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, query, key, value, mask=None):
        def heads(x, proj):
            return proj(x).reshape(x.size(0), x.size(1), self.n_head, self.d_k).transpose(1, 2)

        q, k, v = heads(query, self.w_q), heads(key, self.w_k), heads(value, self.w_v)
        scores = q.matmul(k.transpose(2, 3)).div(math.sqrt(self.d_k))
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        self.attn = self.softmax(scores)
        context = self.dropout(self.attn).matmul(v)
        return self.w_o(context.transpose(1, 2).reshape(query.size(0), -1, self.n_head * self.d_k))


@right("MultiHeadAttention")
class MHADetachedAttn(_Projections):
    """The weights kept for plotting are detached from the graph; the output is not."""

    def forward(self, query, key, value, mask=None):
        b = query.size(0)
        q = self.w_q(query).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        k = self.w_k(key).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        v = self.w_v(value).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(-1)
        self.attn = weights.detach()
        return self.w_o((self.dropout(weights) @ v).transpose(1, 2).reshape(b, -1, self.n_head * self.d_k))


@right("MultiHeadAttention")
class MHATensorSqrt(_Projections):
    """√d_k as a tensor made in forward without a dtype (the float64 rule)."""

    def forward(self, query, key, value, mask=None):
        b = query.size(0)
        q = self.w_q(query).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        k = self.w_k(key).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        v = self.w_v(value).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / torch.sqrt(torch.tensor(self.d_k, device=q.device))
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        self.attn = scores.softmax(-1)
        return self.w_o((self.dropout(self.attn) @ v).transpose(1, 2).reshape(b, -1, self.n_head * self.d_k))
