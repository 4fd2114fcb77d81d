"""Right Embeddings, PositionalEncoding, EncoderLayer and Encoder (05-encoder) in many styles.

Embeddings: a scale buffer, torch.mul, index_select, a one-hot product. Positional tables:
powers of 10000 in float32, d2l's angle matrix, numpy, every feature's angle with
torch.where, a non-persistent buffer, the old Variable wrapper, narrow(). Layers: the
Annotated Transformer's SublayerConnection kept over the contract's norms and dropouts,
nn.TransformerEncoderLayer's _sa_block/_ff_block, a loop over (norm, dropout, sublayer).
Stacks: clones(), map, append, reduce. The layers use other styles' attention and FFN.
"""
import copy
import functools
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Variable

from . import right
from .zoo_styles_heads import MHAEinsumPerHeadWeights, MHAHeadsInBatch, MHASoftmaxModule
from .zoo_styles_norm import FeedForwardLinearFunctions, FeedForwardReluModule, FeedForwardSequentialView

# ------------------------------------------------------------------ Embeddings


@right("Embeddings")
class EmbeddingsScaleBuffer(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.register_buffer("scale", torch.tensor(math.sqrt(d_model)))

    def forward(self, tokens):
        return self.lut(tokens) * self.scale


@right("Embeddings")
class EmbeddingsTorchMul(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(num_embeddings=vocab_size, embedding_dim=d_model)

    def forward(self, tokens):
        return torch.mul(self.lut(tokens), math.sqrt(self.lut.embedding_dim))


@right("Embeddings")
class EmbeddingsIndexSelect(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, tokens):
        rows = self.lut.weight.index_select(0, tokens.reshape(-1))
        return rows.view(*tokens.shape, self.d_model) * self.d_model ** 0.5


@right("Embeddings")
class EmbeddingsOneHot(nn.Module):
    """A one-hot matrix times the table: what an embedding lookup is."""

    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.vocab_size, self.d_model = vocab_size, d_model

    def forward(self, tokens):
        one_hot = F.one_hot(tokens, self.vocab_size).to(self.lut.weight.dtype)
        return one_hot @ self.lut.weight * math.sqrt(self.d_model)


# ------------------------------------------------------------------ PositionalEncoding


@right("PositionalEncoding")
class PEPowerDivision(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        denominator = torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position / denominator)
        pe[0, :, 1::2] = torch.cos(position / denominator)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1), :])


@right("PositionalEncoding")
class PEd2l(nn.Module):
    """d2l's P: one angle matrix X, its sines in the even columns and cosines in the odd."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        P = torch.zeros((1, max_len, d_model))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
        P[:, :, 0::2] = torch.sin(X)
        P[:, :, 1::2] = torch.cos(X)
        self.register_buffer("pe", P)

    def forward(self, X):
        X = X + self.pe[:, : X.shape[1], :]
        return self.dropout(X)


@right("PositionalEncoding")
class PENumpy(nn.Module):
    """The table built in numpy, as the TensorFlow tutorial's get_angles does, then registered."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = np.arange(max_len)[:, np.newaxis]
        i = np.arange(d_model)[np.newaxis, :]
        angle_rads = pos / np.power(10000, (2 * (i // 2)) / np.float64(d_model))
        angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
        angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
        self.register_buffer("pe", torch.tensor(angle_rads[np.newaxis, ...], dtype=torch.get_default_dtype()))

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.shape[1]])


@right("PositionalEncoding")
class PEWhereEvenOdd(nn.Module):
    """Every feature's own angle (pair index 2i = j - j % 2), then sin or cos by parity."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = torch.arange(max_len).unsqueeze(1)
        j = torch.arange(d_model).unsqueeze(0)
        angle = pos / 10000 ** ((j - j % 2) / d_model)
        pe = torch.where(j % 2 == 0, torch.sin(angle), torch.cos(angle))
        self.register_buffer("pe", pe.unsqueeze(0), persistent=False)

    def forward(self, x):
        return self.dropout(x + self.pe.narrow(1, 0, x.size(1)))


@right("PositionalEncoding")
class PEOldVariable(nn.Module):
    """The 2018 Annotated Transformer: Variable(..., requires_grad=False) around the slice."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super(PEOldVariable, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + Variable(self.pe[:, : x.size(1)], requires_grad=False)
        return self.dropout(x)


@right("PositionalEncoding")
class PEFunctionalDropout(nn.Module):
    """A helper function builds the table; forward uses F.dropout with the module's own p."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pe", self.sinusoids(max_len, d_model)[None])

    @staticmethod
    def sinusoids(length, channels):
        inv_timescales = 1.0 / (10000 ** (torch.arange(0, channels, 2) / channels))
        scaled_time = torch.arange(length)[:, None] * inv_timescales[None, :]
        table = torch.empty(length, channels)
        table[:, ::2], table[:, 1::2] = torch.sin(scaled_time), torch.cos(scaled_time)
        return table

    def forward(self, x):
        return F.dropout(x + self.pe[:, : x.size(1)], p=self.dropout.p, training=self.training)


# ------------------------------------------------------------------ EncoderLayer


class SublayerConnection(nn.Module):
    """The Annotated Transformer's helper, over a norm and a dropout the layer owns (post-norm here)."""

    def __init__(self, norm, dropout):
        super().__init__()
        self.norm, self.dropout = norm, dropout

    def forward(self, x, sublayer):
        return self.norm(x + self.dropout(sublayer(x)))


class _LayerParts(nn.Module):
    attention, feed_forward = MHAHeadsInBatch, FeedForwardSequentialView

    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = self.attention(d_model, n_head, dropout)
        self.ffn = self.feed_forward(d_model, d_ff, dropout)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.dropout1, self.dropout2 = nn.Dropout(dropout), nn.Dropout(dropout)


@right("EncoderLayer")
class EncoderLayerSublayerConnection(_LayerParts):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__(d_model, n_head, d_ff, dropout)
        self.sublayer = nn.ModuleList([SublayerConnection(self.norm1, self.dropout1),
                                       SublayerConnection(self.norm2, self.dropout2)])

    def forward(self, x, mask=None):
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, mask))
        return self.sublayer[1](x, self.ffn)


@right("EncoderLayer")
class EncoderLayerTorchBlocks(_LayerParts):
    """As nn.TransformerEncoderLayer (norm_first=False) splits it: _sa_block and _ff_block."""

    attention, feed_forward = MHAEinsumPerHeadWeights, FeedForwardReluModule

    def forward(self, x, mask=None):
        x = self.norm1(x + self._sa_block(x, mask))
        x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, mask):
        return self.dropout1(self.self_attn(x, x, x, mask=mask))

    def _ff_block(self, x):
        return self.dropout2(self.ffn(x))


@right("EncoderLayer")
class EncoderLayerLoop(_LayerParts):
    attention, feed_forward = MHASoftmaxModule, FeedForwardLinearFunctions

    def forward(self, x, mask=None):
        sublayers = (lambda h: self.self_attn(h, h, h, mask), self.ffn)
        for norm, dropout, sublayer in zip((self.norm1, self.norm2), (self.dropout1, self.dropout2), sublayers):
            x = norm(x + dropout(sublayer(x)))
        return x


@right("EncoderLayer")
class EncoderLayerD2l(_LayerParts):
    """d2l's names: Y after the attention block, the result after the feed-forward one."""

    def forward(self, X, mask=None):
        Y = self.norm1(X + self.dropout1(self.self_attn(X, X, X, mask)))
        return self.norm2(Y + self.dropout2(self.ffn(Y)))


@right("EncoderLayer")
class EncoderLayerDefaultArgs(_LayerParts):
    """Keyword arguments throughout, the residual kept under its own name."""

    def forward(self, x, mask=None):
        attended = self.self_attn(query=x, key=x, value=x, mask=mask)
        hidden = self.norm1(input=x + self.dropout1(attended))
        fed = self.ffn(hidden)
        return self.norm2(hidden + self.dropout2(fed))


# ------------------------------------------------------------------ Encoder


def clones(module, N):
    "Produce N identical layers."
    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])


@right("Encoder")
class EncoderClones(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = clones(EncoderLayerSublayerConnection(d_model, n_head, d_ff, dropout), n_layers)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x


@right("Encoder")
class EncoderMap(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList(map(lambda _: EncoderLayerTorchBlocks(d_model, n_head, d_ff, dropout), range(n_layers)))

    def forward(self, x, mask=None):
        return functools.reduce(lambda h, layer: layer(h, mask), self.layers, x)


@right("Encoder")
class EncoderAppend(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(n_layers):
            self.layers.append(EncoderLayerLoop(d_model, n_head, d_ff, dropout))

    def forward(self, x, mask=None):
        for i, layer in enumerate(self.layers):
            x = layer(x, mask=mask)
        return x


@right("Encoder")
class EncoderExtend(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.n_layers = n_layers
        self.layers = nn.ModuleList()
        self.layers.extend(EncoderLayerD2l(d_model, n_head, d_ff, dropout) for _ in range(n_layers))

    def forward(self, x, mask=None):
        output = x
        for i in range(self.n_layers):
            output = self.layers[i](output, mask)
        return output
