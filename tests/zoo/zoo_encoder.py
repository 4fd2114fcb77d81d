"""Zoo of 05-encoder: Embeddings, PositionalEncoding, EncoderLayer, Encoder, right and wrong.

The layers here build on the zoo's own multi-head attention and feed-forward network (not
the reference's), as a notebook builds on the provided copies of earlier units.
"""
import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

from . import bug, right
from .zoo_feedforward import FeedForwardFunctional
from .zoo_heads import MHAViewContiguous

# ------------------------------------------------------------------ Embeddings


class _Table(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model


@right("Embeddings")
class EmbeddingsTimesSqrt(_Table):
    def forward(self, tokens):
        return self.lut(tokens) * math.sqrt(self.d_model)


@right("Embeddings")
class EmbeddingsFunctionalPower(_Table):
    def forward(self, tokens):
        return F.embedding(tokens, self.lut.weight) * self.d_model**0.5


@right("Embeddings")
class EmbeddingsIndexTheWeight(_Table):
    def forward(self, tokens):
        return self.lut.weight[tokens] * math.sqrt(self.lut.embedding_dim)


@bug("Embeddings", "embed-no-scale", "values", "float64", "grad")
class EmbeddingsUnscaled(_Table):
    def forward(self, tokens):
        return self.lut(tokens)


# The learner walkthrough's (tests/walkthrough/cases_05.py): another factor than sqrt(d_model), a one-hot
# sized by the ids it sees, the table's arguments swapped.


@bug("Embeddings", "embed-no-scale", "values", "float64", "grad")
class EmbeddingsDividedBySqrt(_Table):
    def forward(self, tokens):
        return self.lut(tokens) / math.sqrt(self.d_model)


@bug("Embeddings", "embed-no-scale", "values", "float64", "grad")
class EmbeddingsTimesDModel(_Table):
    def forward(self, tokens):
        return self.lut(tokens) * self.d_model


@bug("Embeddings", "runtime-error", "values")
class EmbeddingsOneHotWithoutClasses(_Table):
    """F.one_hot sizes itself by the largest id it sees: fine while the tokens hold vocab_size - 1, not otherwise."""

    def forward(self, tokens):
        return (F.one_hot(tokens).float() @ self.lut.weight) * math.sqrt(self.d_model)


@bug("Embeddings", "wrong-interface", "values")
class EmbeddingsTableSwapped(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(d_model, vocab_size)
        self.d_model = d_model

    def forward(self, tokens):
        return self.lut(tokens) * math.sqrt(self.d_model)


# ------------------------------------------------------------------ PositionalEncoding


class _Sinusoid(nn.Module):
    """forward as the paper's; subclasses build the table `pe` (max_len, d_model) in `table()`."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("pe", self.table(d_model, max_len).unsqueeze(0))

    def forward(self, x):
        x = x + self.pe[:, : x.size(1), :]
        return self.dropout(x)


@right("PositionalEncoding")
class PEFloat32DivTerm(_Sinusoid):
    """The Annotated Transformer's way: exp(-log(10000) 2i/d), all in float32."""

    def table(self, d_model, max_len):
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        return pe


@right("PositionalEncoding")
class PEPythonLoops(_Sinusoid):
    def table(self, d_model, max_len):
        rows = []
        for pos in range(max_len):
            row = []
            for i in range(0, d_model, 2):
                angle = pos / (10000 ** (i / d_model))
                row += [math.sin(angle), math.cos(angle)]
            rows.append(row)
        return torch.tensor(rows)


@right("PositionalEncoding")
class PEStackedPairs(_Sinusoid):
    def table(self, d_model, max_len):
        angle = torch.outer(torch.arange(max_len, dtype=torch.float64),
                            torch.pow(10000.0, -torch.arange(d_model // 2, dtype=torch.float64) * 2 / d_model))
        return torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1).float()


@right("PositionalEncoding")
class PEExpandedOverBatch(_Sinusoid):
    table = PEFloat32DivTerm.table

    def forward(self, x):
        return self.dropout(x + self.pe[0, : x.shape[1]].expand_as(x))


@bug("PositionalEncoding", "pe-sin-cos-swapped", "values", "properties")
class PECosFirst(_Sinusoid):
    def table(self, d_model, max_len):
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = 10000 ** (torch.arange(0, d_model, 2) / d_model)
        pe[:, 0::2] = torch.cos(position / div_term)
        pe[:, 1::2] = torch.sin(position / div_term)
        return pe


@bug("PositionalEncoding", "wrong-values", "values")
class PECosineOverwritesTheSines(_Sinusoid):
    """`0::2` typed twice: the cosines overwrite the sines and the odd features stay 0. A column of zeros
    fits sin(0·pos), which once named it swapped *and* of a wrong frequency (issue 25): it is neither."""

    def table(self, d_model, max_len):
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = 10000 ** (torch.arange(0, d_model, 2) / d_model)
        pe[:, 0::2] = torch.sin(position / div_term)
        pe[:, 0::2] = torch.cos(position / div_term)
        return pe


@bug("PositionalEncoding", "pe-wrong-frequency", "properties")  # values: wrong-values (float32 sin of angles ~1e5 matches no mutant)
class PEMultipliesByFrequency(_Sinusoid):
    """pos * 10000^(2i/d) instead of pos / 10000^(2i/d)."""

    def table(self, d_model, max_len):
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = 10000 ** (torch.arange(0, d_model, 2) / d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        return pe


@bug("PositionalEncoding", "pe-wrong-frequency", "values", "properties")
class PEOwnFrequencyPerFeature(_Sinusoid):
    """Each feature j gets 10000^(j/d): the sine and cosine of a pair no longer share an angle."""

    def table(self, d_model, max_len):
        pe = torch.zeros(max_len, d_model)
        for pos in range(max_len):
            for j in range(d_model):
                angle = pos / 10000 ** (j / d_model)
                pe[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
        return pe


@bug("PositionalEncoding", "pe-wrong-frequency", "values", "properties")
class PEPairIndexWithoutTwo(_Sinusoid):
    """10000^(i/d) with i the pair index: the factor 2 is lost."""

    def table(self, d_model, max_len):
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(max_len, dtype=torch.float32)[:, None]
        i = torch.arange(d_model // 2, dtype=torch.float32)
        pe[:, 0::2] = torch.sin(position / 10000 ** (i / d_model))
        pe[:, 1::2] = torch.cos(position / 10000 ** (i / d_model))
        return pe


@bug("PositionalEncoding", "property-violated", "properties")
class PETableAsAttribute(nn.Module):
    """Right numbers, but the table is a plain attribute: not saved, not moved with .to()."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.pe = PEFloat32DivTerm.table(self, d_model, max_len).unsqueeze(0)

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)].to(x.device, x.dtype))


@bug("PositionalEncoding", "runtime-error", "values")
class PEFixedLength(_Sinusoid):
    table = PEFloat32DivTerm.table

    def forward(self, x):
        return self.dropout(x + self.pe[:, :5])  # a fixed length, not the input's


@bug("PositionalEncoding", "shape", "values")
class PEForgetsInput(_Sinusoid):
    table = PEFloat32DivTerm.table

    def forward(self, x):
        return self.dropout(self.pe[:, : x.size(1)])  # the encodings alone: x is never added


# The walkthrough's: a sine in both columns of a pair; the dropout missing, or on x alone, or always on.


@bug("PositionalEncoding", "property-violated", "properties")
class PEBothSines(_Sinusoid):
    def table(self, d_model, max_len):
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.sin(position * div_term)
        return pe


@bug("PositionalEncoding", "property-violated", "properties")
class PENoDropout(_Sinusoid):
    table = PEFloat32DivTerm.table

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]


@bug("PositionalEncoding", "property-violated", "properties")
class PEDropoutOnXOnly(_Sinusoid):
    table = PEFloat32DivTerm.table

    def forward(self, x):
        return self.dropout(x) + self.pe[:, : x.size(1)]


@bug("PositionalEncoding", "wrong-values", "values")
class PEFunctionalDropoutAlwaysOn(_Sinusoid):
    """F.dropout without training=self.training: it drops in eval mode too."""

    table = PEFloat32DivTerm.table

    def forward(self, x):
        return F.dropout(x + self.pe[:, : x.size(1)], p=self.dropout.p)


@bug("PositionalEncoding", "runtime-error", "values")
class PESlicedByBatch(_Sinusoid):
    table = PEFloat32DivTerm.table

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(0)])


# ------------------------------------------------------------------ EncoderLayer


class _Parts(nn.Module):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MHAViewContiguous(d_model, n_head, dropout)
        self.ffn = FeedForwardFunctional(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)


@right("EncoderLayer")
class LayerSavedResidual(_Parts):
    """The way one learner's notes write it: keep the residual, overwrite x."""

    def forward(self, x, mask=None):
        residual = x
        x = self.self_attn(x, x, x, mask)
        x = self.dropout1(x)
        x = self.norm1(x + residual)
        residual = x
        x = self.dropout2(self.ffn(x))
        return self.norm2(x + residual)


@right("EncoderLayer")
class LayerSublayerHelper(_Parts):
    def forward(self, x, mask=None):
        def add_norm(x, out, norm, dropout):
            return norm(x + dropout(out))

        x = add_norm(x, self.self_attn(x, x, x, mask=mask), self.norm1, self.dropout1)
        return add_norm(x, self.ffn(x), self.norm2, self.dropout2)


@right("EncoderLayer")
class LayerFunctionalNorm(_Parts):
    def forward(self, x, mask=None):
        h = F.layer_norm(x + self.dropout1(self.self_attn(x, x, x, mask)), x.shape[-1:],
                         self.norm1.weight, self.norm1.bias, self.norm1.eps)
        return F.layer_norm(h + self.dropout2(self.ffn(h)), h.shape[-1:], self.norm2.weight, self.norm2.bias)


@bug("EncoderLayer", "encoder-prenorm", "values", "float64")
class LayerPreNorm(_Parts):
    def forward(self, x, mask=None):
        h = self.norm1(x)
        x = x + self.dropout1(self.self_attn(h, h, h, mask))
        return x + self.dropout2(self.ffn(self.norm2(x)))


@bug("EncoderLayer", "encoder-no-residual", "values", "masks")
class LayerForgetsFirstResidual(_Parts):
    def forward(self, x, mask=None):
        x = self.norm1(self.dropout1(self.self_attn(x, x, x, mask)))
        return self.norm2(x + self.dropout2(self.ffn(x)))


@bug("EncoderLayer", "encoder-no-residual", "values", "grad")
class LayerNoResidualAtAll(_Parts):
    def forward(self, x, mask=None):
        x = self.norm1(self.dropout1(self.self_attn(x, x, x, mask)))
        return self.norm2(self.dropout2(self.ffn(x)))


@bug("EncoderLayer", "encoder-mask-ignored", "masks", "properties")
class LayerDropsMask(_Parts):
    def forward(self, x, mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x)))
        return self.norm2(x + self.dropout2(self.ffn(x)))


# The walkthrough's: the FFN on the layer's input; attention's result unpacked as (output, weights); the dropouts
# missing, after the norms, or at the sublayers' default rate; the FFN built with dropout where d_ff belongs.


@bug("EncoderLayer", "wrong-values", "values")
class LayerFFNReadsInput(_Parts):
    def forward(self, x, mask=None):
        h = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)))
        return self.norm2(h + self.dropout2(self.ffn(x)))


@bug("EncoderLayer", "wrong-values", "values")
class LayerUnpacksAttention(_Parts):
    """`attn_out, _ = self.self_attn(...)`, as if attention returned its weights too: with B=2 it unpacks the batch."""

    def forward(self, x, mask=None):
        attn_out, _ = self.self_attn(x, x, x, mask)
        x = self.norm1(x + self.dropout1(attn_out))
        return self.norm2(x + self.dropout2(self.ffn(x)))


@bug("EncoderLayer", "property-violated", "properties")
class LayerNoDropout(_Parts):
    def forward(self, x, mask=None):
        x = self.norm1(x + self.self_attn(x, x, x, mask))
        return self.norm2(x + self.ffn(x))


@bug("EncoderLayer", "property-violated", "properties")
class LayerDropoutAfterNorm(_Parts):
    def forward(self, x, mask=None):
        x = self.dropout1(self.norm1(x + self.self_attn(x, x, x, mask)))
        return self.dropout2(self.norm2(x + self.ffn(x)))


@bug("EncoderLayer", "property-violated", "properties")
class LayerSublayersAtDefaultRate(LayerSavedResidual):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__(d_model, n_head, d_ff, dropout)
        self.self_attn = MHAViewContiguous(d_model, n_head)
        self.ffn = FeedForwardFunctional(d_model, d_ff)


@bug("EncoderLayer", "runtime-error", "values")
class LayerFFNWithDropoutForDFF(LayerSavedResidual):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__(d_model, n_head, d_ff, dropout)
        self.ffn = FeedForwardFunctional(d_model, dropout)


# ------------------------------------------------------------------ Encoder


@right("Encoder")
class EncoderComprehension(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList([LayerSavedResidual(d_model, n_head, d_ff, dropout) for _ in range(n_layers)])

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x


@right("Encoder")
class EncoderDeepCopies(nn.Module):
    """The Annotated Transformer's clones(): deep copies of one prototype."""

    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        prototype = LayerSublayerHelper(d_model, n_head, d_ff, dropout)
        self.layers = nn.ModuleList([copy.deepcopy(prototype) for _ in range(n_layers)])

    def forward(self, x, mask=None):
        out = x
        for index in range(len(self.layers)):
            out = self.layers[index](out, mask=mask)
        return out


@bug("Encoder", "encoder-shared-layers", "values", "properties")
class EncoderOneLayerRepeated(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        layer = LayerSavedResidual(d_model, n_head, d_ff, dropout)
        self.layers = nn.ModuleList([layer] * n_layers)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x


@bug("Encoder", "encoder-shared-layers", "values", "masks")
class EncoderAppendsSameLayer(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList()
        layer = LayerSublayerHelper(d_model, n_head, d_ff, dropout)
        for _ in range(n_layers):
            self.layers.append(layer)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x


@bug("Encoder", "encoder-mask-ignored", "masks", "properties")
class EncoderForgetsMask(EncoderComprehension):
    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x)
        return x


@bug("Encoder", "encoder-prenorm", "values")
class EncoderOfPreNormLayers(EncoderComprehension):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        self.layers = nn.ModuleList([LayerPreNorm(d_model, n_head, d_ff, dropout) for _ in range(n_layers)])


@bug("Encoder", "wrong-values", "values")
class EncoderExtraFinalNorm(EncoderComprehension):
    """A final LayerNorm after a post-norm stack (as pre-norm models have): not in this course's encoder."""

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return F.layer_norm(x, x.shape[-1:])


# The walkthrough's: the rate not passed on, the layers not chained, a Python list, a final norm module, and
# EncoderLayer called with dropout where d_ff belongs.


@bug("Encoder", "property-violated", "properties")
class EncoderDropoutNotPassed(EncoderComprehension):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        self.layers = nn.ModuleList([LayerSavedResidual(d_model, n_head, d_ff) for _ in range(n_layers)])


@bug("Encoder", "wrong-values", "values")
class EncoderEachLayerOnInput(EncoderComprehension):
    def forward(self, x, mask=None):
        for layer in self.layers:
            out = layer(x, mask)
        return out


@bug("Encoder", "wrong-values", "values")
class EncoderReturnsInTheLoop(EncoderComprehension):
    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
            return x


@bug("Encoder", "wrong-interface", "values")
class EncoderPythonList(EncoderComprehension):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        self.layers = [LayerSavedResidual(d_model, n_head, d_ff, dropout) for _ in range(n_layers)]


@bug("Encoder", "wrong-interface", "values")
class EncoderFinalNormModule(EncoderComprehension):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__(d_model, n_head, d_ff, n_layers, dropout)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)


@bug("Encoder", "runtime-error", "values")
class EncoderLayerCalledWithDropoutForDFF(EncoderComprehension):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        nn.Module.__init__(self)
        self.layers = nn.ModuleList([LayerSavedResidual(d_model, n_head, dropout) for _ in range(n_layers)])
