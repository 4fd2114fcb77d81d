"""Zoo of 09-additive-attention: AdditiveAttention and AdditiveMultiHeadAttention, right and wrong.

The multi-head specimens subclass a right MultiHeadAttention with an `attend` method, as
notebook 09 provides it; their scorer is one of the AdditiveAttention specimens below.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn


from . import bug, right

# ------------------------------------------------------------------ AdditiveAttention


class _Scorer(nn.Module):
    """The three linear maps every specimen shares; forward differs."""

    def __init__(self, d_k, d_hidden):
        super().__init__()
        self.w_q = nn.Linear(d_k, d_hidden, bias=False)
        self.w_k = nn.Linear(d_k, d_hidden, bias=False)
        self.v = nn.Linear(d_hidden, 1, bias=False)


@right("AdditiveAttention")
class AdditiveUnsqueeze(_Scorer):
    def forward(self, query, key, value, mask=None, dropout=None):
        q = self.w_q(query).unsqueeze(-2)
        k = self.w_k(key).unsqueeze(-3)
        scores = self.v(torch.tanh(q + k)).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = F.softmax(scores, dim=-1)
        out = torch.matmul(dropout(weights) if dropout is not None else weights, value)
        return out, weights


@right("AdditiveAttention")
class AdditiveNoneIndexing(_Scorer):
    def forward(self, query, key, value, mask=None, dropout=None):
        hidden = torch.tanh(self.w_q(query)[..., :, None, :] + self.w_k(key)[..., None, :, :])
        scores = (hidden @ self.v.weight.T)[..., 0]
        if mask is not None:
            scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
        weights = scores.softmax(-1)
        if dropout is not None:
            return dropout(weights) @ value, weights
        return weights @ value, weights


@right("AdditiveAttention")
class AdditiveEinsum(_Scorer):
    def forward(self, query, key, value, mask=None, dropout=None):
        q, k = self.w_q(query), self.w_k(key)
        energy = torch.tanh(q.unsqueeze(-2) + k.unsqueeze(-3))
        scores = torch.einsum("...qkh,h->...qk", energy, self.v.weight[0])
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1)
        dropped = dropout(weights) if dropout is not None else weights
        return torch.einsum("...qk,...kd->...qd", dropped, value), weights


@bug("AdditiveAttention", "additive-no-tanh", "values", "masks")
class AdditiveForgetsTanh(_Scorer):
    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3)).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(dim=-1)
        return weights @ value, weights


@bug("AdditiveAttention", "additive-no-tanh", "values")
class AdditiveReluOnEnergy(_Scorer):
    """The notes' version: energy = relu(W_a [q; k]), the non-linearity after the last layer."""

    def forward(self, query, key, value, mask=None, dropout=None):
        energy = F.relu(self.v(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3)))
        scores = energy.squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-1e20"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ value, weights


@bug("AdditiveAttention", "additive-no-tanh", "values")
class AdditiveReluHidden(_Scorer):
    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.relu(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(dim=-1)
        return weights @ value, weights


@bug("AdditiveAttention", "additive-softmax-dim", "values", "masks")
class AdditiveSoftmaxOverQueries(_Scorer):
    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(dim=-2)  # counted the axes before the squeeze
        return weights @ value, weights


@bug("AdditiveAttention", "additive-mask-ignored", "masks")
class AdditiveMaskNotKept(_Scorer):
    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores.masked_fill(mask == 0, -1e9)  # the result is thrown away
        weights = scores.softmax(dim=-1)
        return weights @ value, weights


@bug("AdditiveAttention", "shape", "values")
class AdditiveNoSqueeze(_Scorer):
    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3)))  # (..., L_q, L_k, 1)
        weights = scores.softmax(dim=-2)
        return (weights * value.unsqueeze(-3)).sum(-2), weights


@bug("AdditiveAttention", "wrong-interface", "values")
class AdditiveWithBias(nn.Module):
    def __init__(self, d_k, d_hidden):
        super().__init__()
        self.w_q = nn.Linear(d_k, d_hidden)  # a bias the exercise does not have
        self.w_k = nn.Linear(d_k, d_hidden)
        self.v = nn.Linear(d_hidden, 1)

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(dim=-1)
        return weights @ value, weights


# ------------------------------------------------------------------ AdditiveMultiHeadAttention


class _MultiHeadAttention(nn.Module):
    """A right MultiHeadAttention with an attend method, as notebook 09 provides it."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k = n_head, d_model // n_head
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d_model, d_model) for _ in range(4))
        self.dropout = nn.Dropout(dropout)
        self.attn = None

    def forward(self, query, key, value, mask=None):
        b = query.size(0)
        q, k, v = (layer(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
                   for layer, x in ((self.w_q, query), (self.w_k, key), (self.w_v, value)))
        out, self.attn = self.attend(q, k, v, mask)
        return self.w_o(out.transpose(1, 2).reshape(b, -1, self.n_head * self.d_k))

    def attend(self, q, k, v, mask):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        weights = scores.softmax(-1)
        return self.dropout(weights) @ v, weights


def _multi_head(scorer_class):
    class AdditiveMHA(_MultiHeadAttention):
        def __init__(self, d_model, n_head, dropout=0.1):
            super().__init__(d_model, n_head, dropout)
            self.score = scorer_class(self.d_k, self.d_k)

        def attend(self, q, k, v, mask):
            return self.score(q, k, v, mask, self.dropout)

    AdditiveMHA.__name__ = f"MHA_{scorer_class.__name__}"
    return AdditiveMHA


right("AdditiveMultiHeadAttention")(_multi_head(AdditiveUnsqueeze))
right("AdditiveMultiHeadAttention")(_multi_head(AdditiveEinsum))
bug("AdditiveMultiHeadAttention", "additive-no-tanh", "values", "masks")(_multi_head(AdditiveForgetsTanh))
bug("AdditiveMultiHeadAttention", "additive-softmax-dim", "values")(_multi_head(AdditiveSoftmaxOverQueries))
bug("AdditiveMultiHeadAttention", "additive-mask-ignored", "masks")(_multi_head(AdditiveMaskNotKept))


@right("AdditiveMultiHeadAttention")
class AdditiveMHAOwnForward(nn.Module):
    """Not a subclass: the whole forward written out again, the scorer applied per head."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k = n_head, d_model // n_head
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        self.score = AdditiveUnsqueeze(self.d_k, self.d_k)
        self.attn = None

    def forward(self, query, key, value, mask=None):
        b = query.size(0)
        split = lambda x: x.reshape(b, x.size(1), self.n_head, self.d_k).permute(0, 2, 1, 3)
        out, self.attn = self.score(split(self.w_q(query)), split(self.w_k(key)), split(self.w_v(value)), mask,
                                    self.dropout)
        return self.w_o(out.permute(0, 2, 1, 3).reshape(b, -1, self.n_head * self.d_k))


@bug("AdditiveMultiHeadAttention", "wrong-interface", "values")
class AdditiveMHAScorerPerHead(_MultiHeadAttention):
    """One scorer per head: the state_dict has score.0.w_q ... instead of one shared score."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.score = nn.ModuleList(AdditiveUnsqueeze(self.d_k, self.d_k) for _ in range(n_head))

    def attend(self, q, k, v, mask):
        outs, weights = zip(*(self.score[h](q[:, h], k[:, h], v[:, h], None if mask is None else mask[:, 0])
                              for h in range(self.n_head)))
        return torch.stack(outs, 1), torch.stack(weights, 1)


# ------------------------------------------------------------------ issue 16: mistakes of the walkthrough


@bug("AdditiveAttention", "shape", "values")
class AdditiveSqueezeEveryAxis(_Scorer):
    """`.squeeze()` without an axis: right while L_q > 1, and a single query (greedy decoding) loses its axis."""

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze()
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(dim=-1)
        return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug("AdditiveAttention", "property-violated", "properties")
class AdditiveReturnsDroppedWeights(_Scorer):
    """The weights after dropout returned: right in evaluation, rows no longer summing to 1 in training."""

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        weights = scores.softmax(dim=-1)
        if dropout is not None:
            weights = dropout(weights)
        return weights @ value, weights


@bug("AdditiveAttention", "wrong-values", "masks")
class AdditiveMaskInverted(_Scorer):
    """Blocks the keys marked True: the visible test names it ([property-violated], the wrong way round)."""

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask, -1e9)
        weights = scores.softmax(dim=-1)
        return weights @ value, weights


@bug("AdditiveAttention", "wrong-values", "values")
class AdditiveProjectionsSwapped(_Scorer):
    """w_k on the queries and w_q on the keys: the visible test names it ([property-violated], w_q for queries)."""

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_k(query).unsqueeze(-2) + self.w_q(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(dim=-1)
        return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug("AdditiveMultiHeadAttention", "property-violated", "properties")
class AdditiveMHANoDropout(_MultiHeadAttention):
    """attend forgets self.dropout: right in evaluation mode."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.score = AdditiveUnsqueeze(self.d_k, self.d_k)

    def attend(self, q, k, v, mask):
        return self.score(q, k, v, mask)


@bug("AdditiveMultiHeadAttention", "wrong-values", "values")
class AdditiveMHAStillDotProduct(_MultiHeadAttention):
    """A score submodule built, and attend left as the dot product: the visible test names it (attend must use self.score)."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.score = AdditiveUnsqueeze(self.d_k, self.d_k)


@bug("AdditiveMultiHeadAttention", "runtime-error", "values")
class AdditiveMHAScorerOnDModel(_MultiHeadAttention):
    """AdditiveAttention(d_model, d_model), where the exercise says (d_k, d_k): the run fails before the weights
    are compared, with the hint that d_model meets d_k (the visible test names it [wrong-interface], (d_k, d_k))."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.score = AdditiveUnsqueeze(d_model, d_model)

    def attend(self, q, k, v, mask):
        return self.score(q, k, v, mask, self.dropout)


@bug("AdditiveAttention", "property-violated", "properties")
class AdditiveMaskFillZero(_Scorer):
    """Blocked scores set to 0, which e^0 = 1 still weighs: blocked keys keep some weight."""

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, 0.0)
        weights = scores.softmax(dim=-1)
        return (dropout(weights) if dropout is not None else weights) @ value, weights


# ------------------------------------------------------------------ issue 33: wrong, and passed the visible test


@bug("AdditiveAttention", "property-violated", "properties", visible="wrong-interface")
class AdditiveBiasOnV(_Scorer):
    """v with a bias (nn.Linear's default): every result right, since the softmax cancels a constant, but not the
    exercise's parameters (bias=False)."""

    def __init__(self, d_k, d_hidden):
        super().__init__(d_k, d_hidden)
        self.v = nn.Linear(d_hidden, 1)

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(dim=-1)
        return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug("AdditiveMultiHeadAttention", "property-violated", "properties", visible=(
    "property-violated", {"AdditiveAttention": AdditiveUnsqueeze}))
class AdditiveMHADropoutOnHeadsOutput(_MultiHeadAttention):
    """self.dropout on the merged heads' output, before w_o, not on the weights: with p = 1 it looks the same."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.score = AdditiveUnsqueeze(self.d_k, self.d_k)

    def forward(self, query, key, value, mask=None):
        b = query.size(0)
        q, k, v = (layer(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
                   for layer, x in ((self.w_q, query), (self.w_k, key), (self.w_v, value)))
        out, self.attn = self.score(q, k, v, mask)
        return self.w_o(self.dropout(out.transpose(1, 2).reshape(b, -1, self.n_head * self.d_k)))


@bug("AdditiveMultiHeadAttention", "property-violated", "properties", visible=(
    "property-violated", {"AdditiveAttention": AdditiveUnsqueeze}))
class AdditiveMHADropoutAfterWo(_MultiHeadAttention):
    """self.dropout on the module's output, after w_o, not on the weights."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.score = AdditiveUnsqueeze(self.d_k, self.d_k)

    def forward(self, query, key, value, mask=None):
        b = query.size(0)
        q, k, v = (layer(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
                   for layer, x in ((self.w_q, query), (self.w_k, key), (self.w_v, value)))
        out, self.attn = self.score(q, k, v, mask)
        return self.dropout(self.w_o(out.transpose(1, 2).reshape(b, -1, self.n_head * self.d_k)))


class AdditiveMaskInvertedForHeads(_Scorer):
    """A scorer that blocks the keys marked True (as AdditiveMaskInverted), with dropout passed on."""

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask, -1e9)
        weights = scores.softmax(dim=-1)
        return (dropout(weights) if dropout is not None else weights) @ value, weights


# the mask inverted, not ignored: the visible test must not say [additive-mask-ignored]
bug("AdditiveMultiHeadAttention", "wrong-values", "masks", visible=(
    "property-violated", {"AdditiveAttention": AdditiveMaskInvertedForHeads}))(_multi_head(AdditiveMaskInvertedForHeads))


@bug("AdditiveAttention", "wrong-values", "values", visible="property-violated")
class AdditiveDropoutTwice(_Scorer):
    """The dropout module applied twice: kept weights scaled by 1/(1-p)^2, not 1/(1-p)."""

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(torch.tanh(self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3))).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(dim=-1)
        return (dropout(dropout(weights)) if dropout is not None else weights) @ value, weights
