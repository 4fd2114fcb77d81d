"""Right DecoderLayer and Decoder (07-decoder) in many styles.

The Annotated Transformer's three SublayerConnections over the contract's norms and
dropouts, nn.TransformerDecoderLayer's _sa_block/_mha_block/_ff_block, d2l's X/Y/Z with
the encoder outputs, norms and dropouts found by number; stacks from clones(), reduce,
keyword calls, and d2l's habit of keeping every layer's attention weights.
"""
import functools

from torch import nn

import autograder.checks.decoder  # noqa: F401  (registers DecoderLayer and Decoder)

from . import right
from .zoo_styles_encoder import SublayerConnection, clones
from .zoo_styles_heads import (MHAEinsumPerHeadWeights, MHAFloatBias, MHAHeadsInBatch, MHAPerHeadWeightSlices,
                               MHAProvidedHelpers, MHAWhisperScale)
from .zoo_styles_norm import FeedForwardAddmm, FeedForwardEinsum, FeedForwardReluModule

# ------------------------------------------------------------------ DecoderLayer


class _DecoderParts(nn.Module):
    self_attention, cross_attention, feed_forward = MHAWhisperScale, MHAFloatBias, FeedForwardEinsum

    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = self.self_attention(d_model, n_head, dropout)
        self.cross_attn = self.cross_attention(d_model, n_head, dropout)
        self.ffn = self.feed_forward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)


@right("DecoderLayer")
class DecoderLayerSublayerConnections(_DecoderParts):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__(d_model, n_head, d_ff, dropout)
        self.sublayer = nn.ModuleList(SublayerConnection(norm, drop) for norm, drop in
                                      ((self.norm1, self.dropout1), (self.norm2, self.dropout2),
                                       (self.norm3, self.dropout3)))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        m = memory
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, tgt_mask))
        x = self.sublayer[1](x, lambda x: self.cross_attn(x, m, m, src_mask))
        return self.sublayer[2](x, self.ffn)


@right("DecoderLayer")
class DecoderLayerTorchBlocks(_DecoderParts):
    self_attention, cross_attention, feed_forward = MHAHeadsInBatch, MHAPerHeadWeightSlices, FeedForwardAddmm

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self._sa_block(x, tgt_mask))
        x = self.norm2(x + self._mha_block(x, memory, src_mask))
        x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask):
        return self.dropout1(self.self_attn(x, x, x, attn_mask))

    def _mha_block(self, x, mem, attn_mask):
        return self.dropout2(self.cross_attn(x, mem, mem, attn_mask))

    def _ff_block(self, x):
        return self.dropout3(self.ffn(x))


@right("DecoderLayer")
class DecoderLayerD2l(_DecoderParts):
    """d2l's names: X the target, enc_outputs the memory, Y and Z after each block."""

    self_attention, cross_attention, feed_forward = MHAEinsumPerHeadWeights, MHAProvidedHelpers, FeedForwardReluModule

    def forward(self, X, enc_outputs, src_mask=None, tgt_mask=None):
        X2 = self.self_attn(X, X, X, tgt_mask)
        Y = self.norm1(X + self.dropout1(X2))
        Y2 = self.cross_attn(Y, enc_outputs, enc_outputs, src_mask)
        Z = self.norm2(Y + self.dropout2(Y2))
        return self.norm3(Z + self.dropout3(self.ffn(Z)))


@right("DecoderLayer")
class DecoderLayerByNumber(_DecoderParts):
    """Each sublayer's norm and dropout found by its number."""

    def add_norm(self, i, x, out):
        return getattr(self, f"norm{i}")(x + getattr(self, f"dropout{i}")(out))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.add_norm(1, x, self.self_attn(x, x, x, mask=tgt_mask))
        x = self.add_norm(2, x, self.cross_attn(x, memory, memory, mask=src_mask))
        return self.add_norm(3, x, self.ffn(x))


@right("DecoderLayer")
class DecoderLayerResiduals(_DecoderParts):
    self_attention = cross_attention = MHAHeadsInBatch

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        residual = x
        x = self.dropout1(self.self_attn(x, x, x, tgt_mask))
        x = self.norm1(residual + x)
        residual = x
        x = self.dropout2(self.cross_attn(query=x, key=memory, value=memory, mask=src_mask))
        x = self.norm2(residual + x)
        residual = x
        x = self.dropout3(self.ffn(x))
        return self.norm3(residual + x)


# ------------------------------------------------------------------ Decoder


@right("Decoder")
class DecoderClones(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = clones(DecoderLayerSublayerConnections(d_model, n_head, d_ff, dropout), n_layers)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x


@right("Decoder")
class DecoderReduce(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList([DecoderLayerTorchBlocks(d_model, n_head, d_ff, dropout) for _ in range(n_layers)])

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        step = lambda h, layer: layer(h, memory, src_mask=src_mask, tgt_mask=tgt_mask)  # noqa: E731
        return functools.reduce(step, self.layers, x)


@right("Decoder")
class DecoderKeepsAttention(nn.Module):
    """d2l keeps each layer's self- and cross-attention weights for plotting."""

    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.n_layers = n_layers
        self.layers = nn.ModuleList(DecoderLayerD2l(d_model, n_head, d_ff, dropout) for _ in range(n_layers))
        self._attention_weights = [[None] * n_layers for _ in range(2)]

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for i, blk in enumerate(self.layers):
            x = blk(x, memory, src_mask, tgt_mask)
            self._attention_weights[0][i] = blk.self_attn.attn
            self._attention_weights[1][i] = blk.cross_attn.attn
        return x

    @property
    def attention_weights(self):
        return self._attention_weights


@right("Decoder")
class DecoderWhileLoop(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(n_layers):
            self.layers.append(DecoderLayerByNumber(d_model, n_head, d_ff, dropout))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        i = 0
        while i < len(self.layers):
            x = self.layers[i](x, memory, tgt_mask=tgt_mask, src_mask=src_mask)
            i += 1
        return x
