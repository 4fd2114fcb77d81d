"""Zoo of two mistakes at once: code that makes two known mistakes, which the checks must name both.

When no single known mistake explains a failure, the checks try every pair of a unit's mutants
whose knobs can be set together (autograder/checks/core.py: combine, mistake_pairs), and the
message names both ids. Each specimen here makes two independent mistakes of one unit, written
as learners write them (their own code paths and spellings, never the checks' knobs), and must
be named with exactly those two ids, in any order, on every aspect listed.

Specimens of later units build on the zoo's own right parts (multi-head attention, feed-forward
network, layers), as a notebook builds on the provided copies of earlier units.
"""
import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

from . import bug
from .zoo_additive import AdditiveUnsqueeze
from .zoo_decoder import DecoderLayerNamedSteps
from .zoo_encoder import LayerSavedResidual, PEFloat32DivTerm
from .zoo_generator import GeneratorLogSoftmax, TransformerAnnotated
from .zoo_heads import MHAViewContiguous
from .zoo_norm import LayerNormVarCorrection

SDPA = "scaled_dot_product_attention"

# ------------------------------------------------------------------ scaled_dot_product_attention


@bug(SDPA, ("sdpa-no-scale", "sdpa-mask-inverted"), "values", "masks")
def sdpa_unscaled_blocks_the_visible_keys(query, key, value, mask=None, dropout=None):
    """Reads 'mask' as 'what to hide', and forgets the scale."""
    scores = torch.matmul(query, key.transpose(-2, -1))
    if mask is not None:
        scores = scores.masked_fill(mask, -1e9)
    attn = F.softmax(scores, dim=-1)
    if dropout is not None:
        attn = dropout(attn)
    return torch.matmul(attn, value), attn


@bug(SDPA, ("sdpa-scale-dk", "sdpa-softmax-dim"), "values", "masks")
def sdpa_over_dk_softmax_over_queries(query, key, value, mask=None, dropout=None):
    d_k = query.shape[-1]
    scores = query @ key.transpose(-1, -2) / d_k
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-2)
    return (weights if dropout is None else dropout(weights)) @ value, weights


@bug(SDPA, ("sdpa-mask-fill-zero", "sdpa-returns-scores"), "masks")
def sdpa_zeroed_scores_returned(query, key, value, mask=None, dropout=None):
    """Masked scores set to 0 (not -inf), and those scores returned as the weights."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, 0.0)
    probs = scores.softmax(dim=-1)
    if dropout is not None:
        probs = dropout(probs)
    return probs @ value, scores


@bug(SDPA, ("sdpa-no-scale", "sdpa-mask-after-softmax"), "values", "masks")
def sdpa_unscaled_weights_times_mask(query, key, value, mask=None, dropout=None):
    weights = torch.einsum("...qd,...kd->...qk", query, key).softmax(-1)
    if mask is not None:
        weights = weights * mask.to(weights.dtype)
    out = torch.einsum("...qk,...kv->...qv", weights if dropout is None else dropout(weights), value)
    return out, weights


@bug(SDPA, ("sdpa-softmax-dim", "sdpa-mask-ignored"), "values", "masks")
def sdpa_mask_thrown_away_softmax_dim_1(query, key, value, mask=None, dropout=None):
    """masked_fill's result never kept, and the softmax over axis 1."""
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(key.size(-1))
    if mask is not None:
        scores.masked_fill(mask == 0, -1e9)
    p_attn = F.softmax(scores, dim=1)
    return torch.matmul(dropout(p_attn) if dropout else p_attn, value), p_attn


@bug(SDPA, ("sdpa-key-transpose", "sdpa-no-scale"), "values", "masks")
def sdpa_transpose_1_2_unscaled(query, key, value, mask=None, dropout=None):
    """Written for 3-D (batch, position, feature) inputs, where transpose(1, 2) is right; no scale either."""
    scores = torch.matmul(query, key.transpose(1, 2))
    if mask is not None:
        scores = torch.where(mask, scores, float("-inf"))
    weights = scores.softmax(dim=-1)
    if dropout is not None:
        return torch.matmul(dropout(weights), value), weights
    return torch.matmul(weights, value), weights


@bug(SDPA, ("sdpa-scale-dk", "sdpa-returns-scores"), "values", "masks")
def sdpa_over_dk_returns_scores(query, key, value, mask=None, dropout=None):
    scores = torch.matmul(query, key.mT) / key.shape[-1]
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, -1e9))
    attention = F.softmax(scores, dim=-1)
    return torch.matmul(attention, value), scores


@bug(SDPA, ("sdpa-mask-inverted", "sdpa-returns-scores"), "masks")
def sdpa_inverted_mask_returns_scores(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) * query.size(-1) ** -0.5
    if mask is not None:
        scores = scores.masked_fill(mask == 1, -1e9)
    weights = scores.softmax(-1)
    return (dropout(weights) if dropout is not None else weights) @ value, scores


@bug(SDPA, ("sdpa-softmax-dim", "sdpa-mask-after-softmax"), "values", "masks")
def sdpa_softmax_over_queries_then_zeroed(query, key, value, mask=None, dropout=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    weights = nn.Softmax(dim=-2)(scores)
    if mask is not None:
        weights = weights.masked_fill(mask == 0, 0)
    return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug(SDPA, ("sdpa-mask-inverted", "sdpa-mask-fill-zero"), "masks")
def sdpa_zeroes_the_visible_scores(query, key, value, mask=None, dropout=None):
    """True read as 'blocked', and blocked scores multiplied by 0 rather than set to -inf."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores * (~mask).float()
    weights = scores.softmax(dim=-1)
    return (dropout(weights) if dropout is not None else weights) @ value, weights


# ------------------------------------------------------------------ MultiHeadAttention


def _attention(q, k, v, mask=None, dropout=None):
    """A right scaled dot-product attention, as notebook 02 provides it."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = scores.softmax(dim=-1)
    return (dropout(weights) if dropout is not None else weights) @ v, weights


class _Heads(MHAViewContiguous):
    """A right module (w_q, w_k, w_v, w_o, dropout; split) whose forward each specimen writes again."""

    def merge(self, x):
        return x.transpose(1, 2).contiguous().view(x.size(0), -1, self.n_head * self.d_k)


@bug("MultiHeadAttention", ("mha-kv-use-wq", "mha-no-output-proj"), "values", "masks")
class MHAKeysThroughWqNoOutput(_Heads):
    def forward(self, query, key, value, mask=None):
        q = self.split(self.w_q(query))
        k = self.split(self.w_q(key))  # copy-pasted from the line above
        v = self.split(self.w_v(value))
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        return self.merge(out)  # w_o forgotten


@bug("MultiHeadAttention", ("mha-scale-dmodel", "heads-merge-no-transpose"), "values", "masks")
class MHAScaledByDModelMergedStraight(_Heads):
    def forward(self, query, key, value, mask=None):
        b = query.size(0)
        q, k, v = (self.split(layer(x)) for layer, x in ((self.w_q, query), (self.w_k, key), (self.w_v, value)))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_model)
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        self.attn = scores.softmax(dim=-1)
        out = torch.matmul(self.dropout(self.attn), v)
        return self.w_o(out.reshape(b, -1, self.d_model))


@bug("MultiHeadAttention", ("mha-qkv-swapped", "mha-no-output-proj"), "values", "masks")
class MHAKeyValueCrossedNoOutput(_Heads):
    def forward(self, query, key, value, mask=None):
        q = self.split(self.w_q(query))
        k = self.split(self.w_k(value))
        v = self.split(self.w_v(key))
        out, self.attn = _attention(q, k, v, mask, self.dropout)
        return self.merge(out)


@bug("MultiHeadAttention", ("heads-split-no-transpose", "mha-scale-dmodel"), "values", "masks")
class MHAViewStraightScaledByDModel(_Heads):
    def forward(self, query, key, value, mask=None):
        n, h, d_k = query.size(0), self.n_head, self.d_k
        q = self.w_q(query).view(n, h, -1, d_k)
        k = self.w_k(key).view(n, h, -1, d_k)
        v = self.w_v(value).view(n, h, -1, d_k)
        scores = torch.einsum("nhqd,nhkd->nhqk", q, k) / (h * d_k) ** 0.5
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        self.attn = F.softmax(scores, dim=-1)
        out = torch.einsum("nhqk,nhkd->nqhd", self.dropout(self.attn), v)
        return self.w_o(out.reshape(n, -1, h * d_k))


@bug("MultiHeadAttention", ("mha-kv-use-wq", "mha-scale-dmodel"), "values", "masks")
class MHAValuesThroughWqScaledByDModel(_Heads):
    def forward(self, query, key, value, mask=None):
        d_model = query.size(-1)
        q, k, v = self.split(self.w_q(query)), self.split(self.w_k(key)), self.split(self.w_q(value))
        scores = (q @ k.transpose(-2, -1)).div(d_model**0.5)
        if mask is not None:
            scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
        self.attn = scores.softmax(-1)
        return self.w_o(self.merge(self.dropout(self.attn) @ v))


@bug("MultiHeadAttention", ("mha-no-output-proj", "mha-scale-dmodel"), "values", "masks")
class MHALoopScaledByDModelNoOutput(_Heads):
    def forward(self, query, key, value, mask=None):
        q, k, v = self.w_q(query), self.w_k(key), self.w_v(value)
        outs, maps = [], []
        for h in range(self.n_head):
            part = slice(h * self.d_k, (h + 1) * self.d_k)
            scores = q[..., part] @ k[..., part].transpose(1, 2) / math.sqrt(self.d_model)
            if mask is not None:
                scores = scores.masked_fill(~mask[:, 0], torch.finfo(scores.dtype).min)
            weights = scores.softmax(-1)
            maps.append(weights)
            outs.append(self.dropout(weights) @ v[..., part])
        self.attn = torch.stack(maps, dim=1)
        return torch.cat(outs, dim=-1)


# ------------------------------------------------------------------ LayerNorm


@bug("LayerNorm", ("layernorm-unbiased-var", "layernorm-eps-outside-sqrt"), "values", "float64", "grad")
class LayerNormAnnotatedStd(LayerNormVarCorrection):
    """The widely copied version: torch's default (unbiased) std, and eps added to it."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.gamma * (x - mean) / (std + self.eps) + self.beta


@bug("LayerNorm", ("layernorm-no-affine", "layernorm-wrong-dim"), "values", "float64")
class LayerNormPerSampleNoAffine(LayerNormVarCorrection):
    """Normalises each sample over (positions, features), and never applies gamma and beta."""

    def forward(self, x):
        mu = x.mean(dim=(1, 2), keepdim=True)
        var = ((x - mu) ** 2).mean(dim=(1, 2), keepdim=True)
        return (x - mu) / torch.sqrt(var + self.eps)


@bug("LayerNorm", ("layernorm-unbiased-var", "layernorm-wrong-dim"), "values", "float64")
class LayerNormVarOverLastTwo(LayerNormVarCorrection):
    def forward(self, x):
        mean = x.mean(dim=(-2, -1), keepdim=True)
        var = torch.var(x, dim=(-2, -1), keepdim=True)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


@bug("LayerNorm", ("layernorm-eps-outside-sqrt", "layernorm-no-affine"), "values", "float64")
class LayerNormBiasedStdPlusEpsNoAffine(LayerNormVarCorrection):
    def forward(self, x):
        centred = x - x.mean(-1, keepdim=True)
        std = centred.pow(2).mean(-1, keepdim=True).sqrt()
        return centred / (std + self.eps)


@bug("LayerNorm", ("layernorm-unbiased-var", "layernorm-no-affine"), "values", "grad")
class LayerNormUnbiasedNoAffine(LayerNormVarCorrection):
    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, keepdim=True)
        return (x - mean) * torch.rsqrt(var + self.eps)


@bug("LayerNorm", ("layernorm-eps-outside-sqrt", "layernorm-wrong-dim"), "values", "float64")
class LayerNormOverBatchEpsOutside(LayerNormVarCorrection):
    """Batch statistics (axis 0), as a batch norm has them, with eps added to the std."""

    def forward(self, x):
        mean = x.mean(0, keepdim=True)
        std = x.std(0, keepdim=True, unbiased=False)
        return self.gamma * (x - mean) / (std + self.eps) + self.beta


# ------------------------------------------------------------------ PositionalEncoding


@bug("PositionalEncoding", ("pe-sin-cos-swapped", "pe-wrong-frequency"), "values", "properties")
class PECosFirstPairIndexWithoutTwo(PEFloat32DivTerm):
    """cos in the even columns, and the pair index i (not 2i) in the exponent."""

    def table(self, d_model, max_len):
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(max_len, dtype=torch.float32)[:, None]
        i = torch.arange(d_model // 2, dtype=torch.float32)
        angle = position / torch.pow(10000.0, i / d_model)
        pe[:, 0::2] = torch.cos(angle)
        pe[:, 1::2] = torch.sin(angle)
        return pe


@bug("PositionalEncoding", ("pe-sin-cos-swapped", "pe-wrong-frequency"), "values", "properties")
class PELoopsCosFirstOwnFrequency(PEFloat32DivTerm):
    """Python loops: every feature j its own frequency 10000^(-j/d), cos where sin belongs."""

    def table(self, d_model, max_len):
        pe = torch.zeros(max_len, d_model)
        for pos in range(max_len):
            for j in range(d_model):
                angle = pos / 10000 ** (j / d_model)
                pe[pos, j] = math.cos(angle) if j % 2 == 0 else math.sin(angle)
        return pe


# ------------------------------------------------------------------ EncoderLayer


@bug("EncoderLayer", ("encoder-prenorm", "encoder-mask-ignored"), "values", "masks")
class LayerPreNormWithoutMask(LayerSavedResidual):
    def forward(self, x, mask=None):
        h = self.norm1(x)
        x = x + self.dropout1(self.self_attn(h, h, h))
        return x + self.dropout2(self.ffn(self.norm2(x)))


@bug("EncoderLayer", ("encoder-no-residual", "encoder-mask-ignored"), "values", "masks")
class LayerNoFirstResidualNoMask(LayerSavedResidual):
    def forward(self, x, mask=None):
        attended = self.self_attn(x, x, x)
        x = self.norm1(self.dropout1(attended))
        return self.norm2(x + self.dropout2(self.ffn(x)))


# ------------------------------------------------------------------ Encoder


class _PreNormLayer(LayerSavedResidual):
    def forward(self, x, mask=None):
        x = x + self.dropout1(self.self_attn(self.norm1(x), self.norm1(x), self.norm1(x), mask))
        return x + self.dropout2(self.ffn(self.norm2(x)))


class _NoResidualLayer(LayerSavedResidual):
    def forward(self, x, mask=None):
        x = self.norm1(self.dropout1(self.self_attn(x, x, x, mask)))
        return self.norm2(self.dropout2(self.ffn(x)))


class _Stack(nn.Module):
    """An encoder stack of `layer_class` layers; the specimens choose the class and how they are kept."""

    layer_class = LayerSavedResidual

    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList([self.layer_class(d_model, n_head, d_ff, dropout) for _ in range(n_layers)])

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x


@bug("Encoder", ("encoder-shared-layers", "encoder-mask-ignored"), "values", "masks")
class EncoderOneLayerNoMask(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        layer = LayerSavedResidual(d_model, n_head, d_ff, dropout)
        self.layers = nn.ModuleList([layer for _ in range(n_layers)])

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x)
        return x


@bug("Encoder", ("encoder-shared-layers", "encoder-prenorm"), "values", "masks")
class EncoderOnePreNormLayerRepeated(_Stack):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        self.layers = nn.ModuleList([_PreNormLayer(d_model, n_head, d_ff, dropout)] * n_layers)


@bug("Encoder", ("encoder-mask-ignored", "encoder-no-residual"), "values", "masks")
class EncoderNoResidualLayersNoMask(_Stack):
    layer_class = _NoResidualLayer

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, None)
        return x


@bug("Encoder", ("encoder-shared-layers", "encoder-no-residual"), "values", "masks")
class EncoderAppendsOneNoResidualLayer(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList()
        layer = _NoResidualLayer(d_model, n_head, d_ff, dropout)
        for _ in range(n_layers):
            self.layers.append(layer)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask=mask)
        return x


@bug("Encoder", ("encoder-prenorm", "encoder-mask-ignored"), "values", "masks")
class EncoderPreNormLayersMaskDropped(_Stack):
    layer_class = _PreNormLayer

    def forward(self, x, mask=None):
        out = x
        for layer in self.layers:
            out = layer(out)
        return out


# ------------------------------------------------------------------ make_pad_mask / make_tgt_mask


@bug("make_pad_mask", ("mask-pad-inverted", "mask-pad-wrong-axis"))
def pad_mask_true_at_padding_on_queries(tokens, pad_idx=0):
    return (tokens == pad_idx).unsqueeze(1).unsqueeze(3)


@bug("make_pad_mask", ("mask-pad-inverted", "mask-pad-wrong-axis"))
def pad_mask_eq_three_dims(tokens, pad_idx=0):
    return tokens.eq(pad_idx)[:, None, :]


@bug("make_pad_mask", ("mask-pad-inverted", "mask-pad-wrong-axis"))
def pad_mask_eq_trailing_axes(tokens, pad_idx=0):
    return (tokens == pad_idx)[..., None, None]


@bug("make_tgt_mask", ("mask-tgt-missing-causal", "mask-pad-inverted"))
def tgt_mask_padding_only_inverted(tgt, pad_idx=0):
    """The padding test turned round, and the causal part never added."""
    is_pad = tgt == pad_idx
    return is_pad[:, None, None, :]


# ------------------------------------------------------------------ DecoderLayer


@bug("DecoderLayer", ("decoder-masks-swapped", "decoder-sublayer-order"), "values", "masks")
class DecoderLayerCrossFirstMasksSwapped(DecoderLayerNamedSteps):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.cross_attn(x, memory, memory, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.self_attn(x, x, x, src_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@bug("DecoderLayer", ("decoder-cross-qkv-swapped", "decoder-self-attn-unmasked"), "values", "masks")
class DecoderLayerQueriesFromMemoryNoTgtMask(DecoderLayerNamedSteps):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x)))
        x = self.norm2(x + self.dropout2(self.cross_attn(memory, x, x, src_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@bug("DecoderLayer", ("encoder-prenorm", "decoder-cross-qkv-swapped"), "values", "masks")
class DecoderLayerPreNormCrossReadsItself(DecoderLayerNamedSteps):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        h = self.norm1(x)
        x = x + self.dropout1(self.self_attn(h, h, h, tgt_mask))
        h = self.norm2(x)
        x = x + self.dropout2(self.cross_attn(h, h, h, tgt_mask))
        return x + self.dropout3(self.ffn(self.norm3(x)))


@bug("DecoderLayer", ("decoder-self-attn-unmasked", "decoder-sublayer-order"), "values", "masks")
class DecoderLayerFeedForwardFirstNoTgtMask(DecoderLayerNamedSteps):
    """The feed-forward step moved first, each norm kept with its sublayer; the target mask left out."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask=None)))
        return self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))


@bug("DecoderLayer", ("decoder-masks-swapped", "encoder-prenorm"), "values", "masks")
class DecoderLayerPreNormMasksSwapped(DecoderLayerNamedSteps):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        steps = [
            (lambda y: self.self_attn(y, y, y, src_mask), self.norm1, self.dropout1),
            (lambda y: self.cross_attn(y, memory, memory, tgt_mask), self.norm2, self.dropout2),
            (self.ffn, self.norm3, self.dropout3),
        ]
        for sublayer, norm, dropout in steps:
            x = x + dropout(sublayer(norm(x)))
        return x


# ------------------------------------------------------------------ Decoder


class _DecoderStack(nn.Module):
    layer_class = DecoderLayerNamedSteps

    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList([self.layer_class(d_model, n_head, d_ff, dropout) for _ in range(n_layers)])

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x


class _LayerCrossFirst(DecoderLayerNamedSteps):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.cross_attn(x, memory, memory, src_mask)))
        x = self.norm2(x + self.dropout2(self.self_attn(x, x, x, tgt_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


class _LayerPreNorm(DecoderLayerNamedSteps):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        h = self.norm1(x)
        x = x + self.dropout1(self.self_attn(h, h, h, tgt_mask))
        h = self.norm2(x)
        x = x + self.dropout2(self.cross_attn(h, memory, memory, src_mask))
        return x + self.dropout3(self.ffn(self.norm3(x)))


class _LayerQueriesFromMemory(DecoderLayerNamedSteps):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(memory, x, x, src_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@bug("Decoder", ("encoder-shared-layers", "decoder-masks-swapped"), "values", "masks")
class DecoderOneLayerMasksSwapped(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList([DecoderLayerNamedSteps(d_model, n_head, d_ff, dropout)] * n_layers)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, src_mask)
        return x


@bug("Decoder", ("encoder-shared-layers", "decoder-self-attn-unmasked"), "values", "masks")
class DecoderOneLayerNoTgtMask(_DecoderStack):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        layer = DecoderLayerNamedSteps(d_model, n_head, d_ff, dropout)
        self.layers = nn.ModuleList(layer for _ in range(n_layers))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask=src_mask)
        return x


@bug("Decoder", ("decoder-sublayer-order", "decoder-masks-swapped"), "values", "masks")
class DecoderCrossFirstLayersMasksSwapped(_DecoderStack):
    layer_class = _LayerCrossFirst

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, src_mask)
        return x


@bug("Decoder", ("encoder-prenorm", "decoder-self-attn-unmasked"), "values", "masks")
class DecoderPreNormLayersNoTgtMask(_DecoderStack):
    layer_class = _LayerPreNorm

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        out = x
        for index in range(len(self.layers)):
            out = self.layers[index](out, memory, src_mask, None)
        return out


@bug("Decoder", ("encoder-shared-layers", "decoder-cross-qkv-swapped"), "values", "masks")
class DecoderDeepCopyForgottenQueriesFromMemory(_DecoderStack):
    """copy.copy where copy.deepcopy was meant: the layers share every weight."""

    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        prototype = _LayerQueriesFromMemory(d_model, n_head, d_ff, dropout)
        self.layers = nn.ModuleList([prototype] + [copy.copy(prototype) for _ in range(n_layers - 1)])


# ------------------------------------------------------------------ Generator / Transformer


@bug("Generator", ("generator-softmax", "generator-wrong-dim"), "values")
class GeneratorProbabilitiesOverAxisOne(GeneratorLogSoftmax):
    def forward(self, x):
        return F.softmax(self.proj(x), dim=1)


@bug("Transformer", ("transformer-tgt-uses-src-embed", "generator-softmax"), "values")
class TransformerOneEmbeddingProbabilities(TransformerAnnotated):
    """decode embeds the target with src_embed; forward turns the log-probabilities into probabilities."""

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.src_embed(tgt), memory, src_mask, tgt_mask)

    def forward(self, src, tgt, src_mask, tgt_mask):
        return self.generator(self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask)).exp()


@bug("Transformer", ("transformer-tgt-uses-src-embed", "generator-logits"), "values", "masks")
class TransformerOneEmbeddingLogits(TransformerAnnotated):
    """The target embedded with src_embed; the generator's projection returned without its log-softmax."""

    def forward(self, src, tgt, src_mask, tgt_mask):
        memory = self.encoder(self.src_embed(src), src_mask)
        hidden = self.decoder(self.src_embed(tgt), memory, src_mask, tgt_mask)
        return self.generator.proj(hidden)


@bug("Transformer", ("generator-softmax", "generator-wrong-dim"), "values")
class TransformerSoftmaxOverPositions(TransformerAnnotated):
    def forward(self, src, tgt, src_mask, tgt_mask):
        hidden = self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask)
        return self.generator.proj(hidden).softmax(dim=1)


# ------------------------------------------------------------------ AdditiveAttention


@bug("AdditiveAttention", ("additive-no-tanh", "additive-softmax-dim"), "values", "masks")
class AdditiveLinearSoftmaxOverQueries(AdditiveUnsqueeze):
    def forward(self, query, key, value, mask=None, dropout=None):
        energy = self.w_q(query).unsqueeze(-2) + self.w_k(key).unsqueeze(-3)
        scores = self.v(energy).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = F.softmax(scores, dim=-2)
        return (dropout(weights) if dropout is not None else weights) @ value, weights


@bug("AdditiveAttention", ("additive-no-tanh", "additive-mask-ignored"), "masks")
class AdditiveReluMaskNotKept(AdditiveUnsqueeze):
    def forward(self, query, key, value, mask=None, dropout=None):
        hidden = torch.relu(self.w_q(query)[..., :, None, :] + self.w_k(key)[..., None, :, :])
        scores = self.v(hidden)[..., 0]
        if mask is not None:
            scores.masked_fill(~mask, float("-inf"))  # the result is thrown away
        weights = scores.softmax(-1)
        if dropout is not None:
            return dropout(weights) @ value, weights
        return weights @ value, weights


@bug("AdditiveAttention", ("additive-softmax-dim", "additive-mask-ignored"), "masks")
class AdditiveNoMaskSoftmaxAxis1(AdditiveUnsqueeze):
    def forward(self, query, key, value, mask=None, dropout=None):
        q, k = self.w_q(query), self.w_k(key)
        energy = torch.tanh(q.unsqueeze(-2) + k.unsqueeze(-3))
        scores = torch.einsum("...qkh,h->...qk", energy, self.v.weight[0])
        weights = scores.softmax(dim=1)
        return (weights if dropout is None else dropout(weights)) @ value, weights


# ------------------------------------------------------------------ AdditiveMultiHeadAttention


class _AdditiveHeads(nn.Module):
    """The multi-head interface with one shared scorer, `scorer_class`, called per head in attend()."""

    scorer_class = AdditiveUnsqueeze

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k = n_head, d_model // n_head
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        self.score = self.scorer_class(self.d_k, self.d_k)
        self.attn = None

    def forward(self, query, key, value, mask=None):
        b = query.size(0)
        q, k, v = (layer(x).view(b, -1, self.n_head, self.d_k).transpose(1, 2)
                   for layer, x in ((self.w_q, query), (self.w_k, key), (self.w_v, value)))
        out, self.attn = self.attend(q, k, v, mask)
        return self.w_o(out.transpose(1, 2).reshape(b, -1, self.n_head * self.d_k))

    def attend(self, q, k, v, mask):
        return self.score(q, k, v, mask, self.dropout)


@bug("AdditiveMultiHeadAttention", ("additive-no-tanh", "additive-softmax-dim"), "values", "masks")
class AdditiveMHALinearOverQueries(_AdditiveHeads):
    """Its scorer (the learner's own, above) makes both mistakes."""

    scorer_class = AdditiveLinearSoftmaxOverQueries


@bug("AdditiveMultiHeadAttention", ("additive-no-tanh", "additive-mask-ignored"), "masks")
class AdditiveMHAOwnAttendReluNoMask(_AdditiveHeads):
    """Scores written out in attend with the shared scorer's layers: relu for tanh, and the mask never used."""

    def attend(self, q, k, v, mask):
        scorer = self.score
        hidden = F.relu(scorer.w_q(q)[..., None, :] + scorer.w_k(k)[..., None, :, :])
        weights = torch.softmax(scorer.v(hidden).squeeze(-1), dim=-1)
        return self.dropout(weights) @ v, weights


@bug("AdditiveMultiHeadAttention", ("additive-softmax-dim", "additive-mask-ignored"), "masks")
class AdditiveMHAOwnAttendNoMaskOverQueries(_AdditiveHeads):
    """Scores with the shared scorer's layers in attend itself; no mask, softmax over the queries."""

    def attend(self, q, k, v, mask):
        hidden = torch.tanh(self.score.w_q(q).unsqueeze(3) + self.score.w_k(k).unsqueeze(2))
        weights = self.score.v(hidden).squeeze(-1).softmax(dim=-2)
        return self.dropout(weights) @ v, weights
