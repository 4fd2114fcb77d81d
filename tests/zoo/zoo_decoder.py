"""Zoo of 07-decoder: DecoderLayer, Decoder, right and wrong.

The layers build on the zoo's own multi-head attention and feed-forward network (not the
reference's), as the notebook builds on the provided copies of earlier units. Several bugs
come from learners' notes: memory passed as the query of cross-attention, the two masks in
each other's place, a self-attention called without its mask.
"""
import copy

from torch import nn

import autograder.checks.decoder  # noqa: F401  (registers DecoderLayer and Decoder)

from . import bug, right
from .zoo_feedforward import FeedForwardFunctional
from .zoo_heads import MHAEinsum, MHAViewContiguous

# ------------------------------------------------------------------ DecoderLayer


class _Parts(nn.Module):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MHAViewContiguous(d_model, n_head, dropout)
        self.cross_attn = MHAEinsum(d_model, n_head, dropout)
        self.ffn = FeedForwardFunctional(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)


@right("DecoderLayer")
class DecoderLayerNamedSteps(_Parts):
    """One learner's notes: compute each sublayer into x2, then add and normalise."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        m = memory
        x2 = self.self_attn(x, x, x, tgt_mask)
        x = self.norm1(x + self.dropout1(x2))
        x2 = self.cross_attn(x, m, m, src_mask)
        x = self.norm2(x + self.dropout2(x2))
        x2 = self.ffn(x)
        return self.norm3(x + self.dropout3(x2))


@right("DecoderLayer")
class DecoderLayerKeywords(_Parts):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(query=x, key=x, value=x, mask=tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(query=x, key=memory, value=memory, mask=src_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@right("DecoderLayer")
class DecoderLayerLoopOverSublayers(_Parts):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        steps = [
            (lambda y: self.self_attn(y, y, y, tgt_mask), self.norm1, self.dropout1),
            (lambda y: self.cross_attn(y, memory, memory, src_mask), self.norm2, self.dropout2),
            (self.ffn, self.norm3, self.dropout3),
        ]
        for sublayer, norm, dropout in steps:
            x = norm(x + dropout(sublayer(x)))
        return x


@bug("DecoderLayer", "decoder-cross-qkv-swapped", "values", "masks", "float64")
class DecoderLayerQueriesFromMemory(_Parts):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(memory, x, x, src_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@bug("DecoderLayer", "decoder-cross-qkv-swapped", "values", "grad")
class DecoderLayerCrossReadsItself(_Parts):
    """Copy-pasted from the self-attention line: the cross-attention never sees memory."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, x, x, tgt_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@bug("DecoderLayer", "decoder-masks-swapped", "values", "masks", "properties")
class DecoderLayerMasksSwapped(_Parts):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, src_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, tgt_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@bug("DecoderLayer", "decoder-self-attn-unmasked", "values", "masks", "properties")
class DecoderLayerSelfAttentionWithoutMask(_Parts):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@bug("DecoderLayer", "decoder-sublayer-order", "values", "float64")
class DecoderLayerCrossFirst(_Parts):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.cross_attn(x, memory, memory, src_mask)))
        x = self.norm2(x + self.dropout2(self.self_attn(x, x, x, tgt_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@bug("DecoderLayer", "decoder-sublayer-order", "values", "masks")
class DecoderLayerFeedForwardFirst(_Parts):
    """The order changed, each norm kept with its sublayer."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        return self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))


@bug("DecoderLayer", "encoder-prenorm", "values")
class DecoderLayerPreNorm(_Parts):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        h = self.norm1(x)
        x = x + self.dropout1(self.self_attn(h, h, h, tgt_mask))
        h = self.norm2(x)
        x = x + self.dropout2(self.cross_attn(h, memory, memory, src_mask))
        return x + self.dropout3(self.ffn(self.norm3(x)))


@bug("DecoderLayer", "wrong-values", "values")
class DecoderLayerOneNormThrice(_Parts):
    """norm1 copy-pasted into every step: right only while all three norms hold the same numbers."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm1(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))
        return self.norm1(x + self.dropout3(self.ffn(x)))


@bug("DecoderLayer", "property-violated", "properties")
class DecoderLayerCrossWithoutMask(_Parts):
    """No id names a cross-attention that ignores src_mask; the padding property still catches it."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


# ------------------------------------------------------------------ Decoder


@right("Decoder")
class DecoderComprehension(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList([DecoderLayerNamedSteps(d_model, n_head, d_ff, dropout) for _ in range(n_layers)])

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x


@right("Decoder")
class DecoderDeepCopies(nn.Module):
    """The Annotated Transformer's clones(): deep copies of one prototype."""

    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        prototype = DecoderLayerKeywords(d_model, n_head, d_ff, dropout)
        self.layers = nn.ModuleList([copy.deepcopy(prototype) for _ in range(n_layers)])

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        out = x
        for index in range(len(self.layers)):
            out = self.layers[index](out, memory, src_mask=src_mask, tgt_mask=tgt_mask)
        return out


@bug("Decoder", "encoder-shared-layers", "values", "properties")
class DecoderOneLayerRepeated(DecoderComprehension):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        layer = DecoderLayerNamedSteps(d_model, n_head, d_ff, dropout)
        self.layers = nn.ModuleList([layer] * n_layers)


@bug("Decoder", "decoder-masks-swapped", "values", "masks")
class DecoderMasksInWrongOrder(DecoderComprehension):
    """The layer is called with the masks in the order the Transformer's decode receives them."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, src_mask)
        return x


@bug("Decoder", "decoder-self-attn-unmasked", "values", "properties")
class DecoderForgetsTargetMask(DecoderComprehension):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask)
        return x


@bug("Decoder", "decoder-cross-qkv-swapped", "values")
class DecoderOfSwappedLayers(DecoderComprehension):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        self.layers = nn.ModuleList([DecoderLayerQueriesFromMemory(d_model, n_head, d_ff, dropout) for _ in range(n_layers)])


@bug("Decoder", "wrong-values", "values")
class DecoderEveryLayerReadsTheInput(DecoderComprehension):
    """Each layer reads the embedded input, not the previous layer's output: only the last layer counts."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        out = x
        for layer in self.layers:
            out = layer(x, memory, src_mask, tgt_mask)
        return out


# ------------------------------------------------------------------ dropout (issue 16: the value aspects run in eval mode)


@bug("DecoderLayer", "property-violated", "properties")
class DecoderLayerOneDropoutThrice(_Parts):
    """dropout1 copy-pasted into every step: dropout2 and dropout3 never act."""

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout1(self.cross_attn(x, memory, memory, src_mask)))
        return self.norm3(x + self.dropout1(self.ffn(x)))


@bug("DecoderLayer", "property-violated", "properties")
class DecoderLayerNoCrossDropout(_Parts):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.cross_attn(x, memory, memory, src_mask))
        return self.norm3(x + self.dropout3(self.ffn(x)))


@bug("DecoderLayer", "property-violated", "properties")
class DecoderLayerDropoutAfterNorm(_Parts):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.dropout1(self.norm1(x + self.self_attn(x, x, x, tgt_mask)))
        x = self.dropout2(self.norm2(x + self.cross_attn(x, memory, memory, src_mask)))
        return self.dropout3(self.norm3(x + self.ffn(x)))


@bug("DecoderLayer", "property-violated", "properties")
class DecoderLayerCrossAttentionDefaultDropout(DecoderLayerNamedSteps):
    """cross_attn built without the dropout argument: its attention dropout stays at the default 0.1."""

    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__(d_model, n_head, d_ff, dropout)
        self.cross_attn = MHAEinsum(d_model, n_head)


@bug("Decoder", "property-violated", "properties")
class DecoderForgetsSourceMask(DecoderComprehension):
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask)
        return x
