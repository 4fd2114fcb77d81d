"""Zoo of 02-multi-head: split_heads, merge_heads, MultiHeadAttention, right and wrong."""
import math

import torch
import torch.nn.functional as F
from torch import nn

from . import bug, right


def _attention(q, k, v, mask=None, dropout=None):
    """A right scaled dot-product attention, as notebook 02 provides it."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = scores.softmax(dim=-1)
    return (dropout(weights) if dropout is not None else weights) @ v, weights


# ------------------------------------------------------------------ split_heads / merge_heads


@right("split_heads")
def split_permute(x, n_head):
    b, l, _ = x.shape
    return x.reshape(b, l, n_head, -1).permute(0, 2, 1, 3)


@right("split_heads")
def split_unflatten(x, n_head):
    return x.unflatten(-1, (n_head, -1)).transpose(1, 2)


@right("split_heads")
def split_chunks(x, n_head):
    return torch.stack(x.chunk(n_head, dim=-1), dim=1)


@right("merge_heads")
def merge_permute(x):
    b, h, l, d = x.shape
    return x.permute(0, 2, 1, 3).reshape(b, l, h * d)


@right("merge_heads")
def merge_flatten(x):
    return x.transpose(1, 2).flatten(2)


@right("merge_heads")
def merge_cat(x):
    return torch.cat(x.unbind(dim=1), dim=-1)


@bug("split_heads", "heads-split-no-transpose", "values", "float64")
def split_straight_view(x, n_head):
    return x.view(x.size(0), n_head, -1, x.size(-1) // n_head)


@bug("merge_heads", "heads-merge-no-transpose", "values", "float64")
def merge_straight_view(x):
    return x.contiguous().view(x.size(0), x.size(2), -1)


# ------------------------------------------------------------------ MultiHeadAttention, right


class _Base(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k, self.d_model = n_head, d_model // n_head, d_model
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        self.attn = None


@right("MultiHeadAttention")
class MHAViewContiguous(_Base):
    def split(self, x):
        return x.view(x.size(0), -1, self.n_head, self.d_k).transpose(1, 2)

    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        out = out.transpose(1, 2).contiguous().view(query.size(0), -1, self.n_head * self.d_k)
        return self.w_o(out)


@right("MultiHeadAttention")
class MHALoopOverHeads(_Base):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.w_q(query), self.w_k(key), self.w_v(value)
        outs, maps = [], []
        for h in range(self.n_head):
            part = slice(h * self.d_k, (h + 1) * self.d_k)
            head_mask = None if mask is None else mask.expand(query.size(0), self.n_head, query.size(1), key.size(1))[:, h]
            out, attn = _attention(q[..., part], k[..., part], v[..., part], head_mask, self.dropout)
            outs.append(out)
            maps.append(attn)
        self.attn = torch.stack(maps, dim=1)
        return self.w_o(torch.cat(outs, dim=-1))


@right("MultiHeadAttention")
class MHAEinsum(_Base):
    def forward(self, query, key, value, mask=None):
        b, h, d = query.shape[0], self.n_head, self.d_k
        q = self.w_q(query).reshape(b, -1, h, d)
        k = self.w_k(key).reshape(b, -1, h, d)
        v = self.w_v(value).reshape(b, -1, h, d)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / d**0.5
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        self.attn = scores.softmax(-1)
        out = torch.einsum("bhqk,bkhd->bqhd", self.dropout(self.attn), v)
        return self.w_o(out.reshape(b, -1, h * d))


@right("MultiHeadAttention")
class MHAFunctional(_Base):
    def forward(self, query, key, value, mask=None):
        def heads(x, layer):
            return F.linear(x, layer.weight, layer.bias).unflatten(-1, (self.n_head, self.d_k)).permute(0, 2, 1, 3)

        q, k, v = heads(query, self.w_q), heads(key, self.w_k), heads(value, self.w_v)
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        return F.linear(out.permute(0, 2, 1, 3).flatten(-2), self.w_o.weight, self.w_o.bias)


# ------------------------------------------------------------------ MultiHeadAttention, wrong


@bug("MultiHeadAttention", "heads-split-no-transpose", "values", "masks")
class MHASplitNoTranspose(_Base):
    def forward(self, query, key, value, mask=None):
        b = query.size(0)
        q = self.w_q(query).view(b, self.n_head, -1, self.d_k)
        k = self.w_k(key).view(b, self.n_head, -1, self.d_k)
        v = self.w_v(value).view(b, self.n_head, -1, self.d_k)
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        return self.w_o(out.transpose(1, 2).reshape(b, -1, self.d_model))


@bug("MultiHeadAttention", "heads-merge-no-transpose", "values")
class MHAMergeNoTranspose(MHAViewContiguous):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        return self.w_o(out.reshape(query.size(0), -1, self.d_model))


@bug("MultiHeadAttention", "mha-kv-use-wq", "values", "masks")
class MHAKeyThroughWq(MHAViewContiguous):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_q(key)), self.split(self.w_v(value))
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        return self.w_o(out.transpose(1, 2).reshape(query.size(0), -1, self.d_model))


@bug("MultiHeadAttention", "mha-no-output-proj", "values", "float64")
class MHANoOutputProjection(MHAViewContiguous):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        return out.transpose(1, 2).reshape(query.size(0), -1, self.d_model)


@bug("MultiHeadAttention", "mha-scale-dmodel", "values", "masks")
class MHAScaledByDModel(MHAViewContiguous):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_model)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        self.attn = F.softmax(scores, dim=-1)
        out = (self.dropout(self.attn) @ v).transpose(1, 2).reshape(query.size(0), -1, self.d_model)
        return self.w_o(out)


@bug("MultiHeadAttention", "mha-qkv-swapped", "values", "masks")
class MHAArgumentsOutOfOrder(MHAViewContiguous):
    def forward(self, key, query, value, mask=None):  # parameters in the wrong order
        return super().forward(query, key, value, mask)


@bug("MultiHeadAttention", "runtime-error", "masks")
class MHALoopAssumingFourDimensionalMasks(_Base):
    """Takes head 0 of the mask with mask[:, 0]: right for (B, 1, ., L_k) masks only, while any mask that
    broadcasts to the scores is allowed (an (L_q, L_k) one picks a column)."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.w_q(query), self.w_k(key), self.w_v(value)
        outs, maps = [], []
        for h in range(self.n_head):
            part = slice(h * self.d_k, (h + 1) * self.d_k)
            out, attn = _attention(q[..., part], k[..., part], v[..., part], None if mask is None else mask[:, 0], self.dropout)
            outs.append(out)
            maps.append(attn)
        self.attn = torch.stack(maps, dim=1)
        return self.w_o(torch.cat(outs, dim=-1))


@bug("MultiHeadAttention", "mha-qkv-swapped", "values", "masks")
class MHAValueFromKey(MHAViewContiguous):
    """v = w_v(key): the value projection reads the key argument (issue 25: once only [wrong-values])."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(key))
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        return self.w_o(out.transpose(1, 2).reshape(query.size(0), -1, self.d_model))


@bug("MultiHeadAttention", "sdpa-scale-dk", "values", "masks")
class MHAQueryScaledTwice(MHAViewContiguous):
    """q divided by sqrt(d_k) before the attention function divides again: by d_k in all (issue 25)."""

    def forward(self, query, key, value, mask=None):
        q = self.split(self.w_q(query)) / math.sqrt(self.d_k)
        k, v = self.split(self.w_k(key)), self.split(self.w_v(value))
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        return self.w_o(out.transpose(1, 2).reshape(query.size(0), -1, self.d_model))


# ------------------------------------------------------------------ found by the learner walkthrough (issue 16)


@bug("split_heads", "runtime-error", "values")
def split_float_d_k(x, n_head):
    """d_k = d_model / n_head is a float, which view() refuses."""
    batch, length, d_model = x.shape
    return x.view(batch, length, n_head, d_model / n_head).transpose(1, 2)


@bug("split_heads", "runtime-error", "values")
def split_view_d_model(x, n_head):
    """d_model where d_k is meant: the view asks for n_head times too many numbers."""
    batch, length, d_model = x.shape
    return x.view(batch, length, n_head, d_model).transpose(1, 2)


@bug("split_heads", "wrong-values", "values", "float64")
def split_strided(x, n_head):
    """The feature axis cut as (d_k, n_head): each head gets every n_head-th feature."""
    batch, length, d_model = x.shape
    return x.view(batch, length, d_model // n_head, n_head).permute(0, 3, 1, 2)


@bug("merge_heads", "runtime-error", "values")
def merge_view_without_contiguous(x):
    """view() straight after the transpose: the memory is no longer in order."""
    batch, n_head, length, d_k = x.shape
    return x.transpose(1, 2).view(batch, length, n_head * d_k)


@bug("merge_heads", "wrong-values", "values", "float64")
def merge_features_interleaved(x):
    """The head axis moved behind the features: feature j of every head, then feature j + 1 ..."""
    batch, n_head, length, d_k = x.shape
    return x.permute(0, 2, 3, 1).reshape(batch, length, n_head * d_k)


@bug("MultiHeadAttention", "property-violated", "properties")
class MHADropoutNeverUsed(MHAViewContiguous):
    """self.dropout is built and never handed to the attention."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))
        out, self.attn = _attention(q, k, v, mask)
        return self.w_o(out.transpose(1, 2).reshape(query.size(0), -1, self.d_model))


@bug("MultiHeadAttention", "property-violated", "properties")
class MHADropoutOnTheOutput(MHAViewContiguous):
    """self.dropout applied to the layer's output instead of the attention weights."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))
        out, self.attn = _attention(q, k, v, mask)
        return self.dropout(self.w_o(out.transpose(1, 2).reshape(query.size(0), -1, self.d_model)))


@bug("MultiHeadAttention", "property-violated", "properties")
class MHAKeepsDroppedWeights(MHAViewContiguous):
    """self.attn holds the weights after dropout."""

    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_v(value))
        _, weights = _attention(q, k, v, mask)
        self.attn = self.dropout(weights)
        return self.w_o((self.attn @ v).transpose(1, 2).reshape(query.size(0), -1, self.d_model))


@bug("MultiHeadAttention", "wrong-interface", "values")
class MHAReturnsWeightsToo(MHAViewContiguous):
    """forward returns (output, weights), as some tutorials do; the weights belong in self.attn."""

    def forward(self, query, key, value, mask=None):
        return super().forward(query, key, value, mask), self.attn


@bug("MultiHeadAttention", "shape", "masks")
class MHAUnsqueezesTheMask(MHAViewContiguous):
    """The mask unsqueezed once more: a (B, 1, 1, L_k) mask becomes 5-D and the scores with it
    (the weights come back 5-D; where the values meet them first, an error instead)."""

    def forward(self, query, key, value, mask=None):
        return super().forward(query, key, value, None if mask is None else mask.unsqueeze(1))
