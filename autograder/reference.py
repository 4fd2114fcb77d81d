"""Reference implementation of every graded unit of the course.

This is the model answer: one short, plain definition per unit, by the names,
signatures and submodule names that ../shared/COURSE.md (section 3) fixes.
Everything works on the device and dtype of its inputs. It is instructor-side:
nothing a learner receives imports it.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

# --------------------------------------------------------------- 01-attention


def _masked_softmax(scores, mask):
    """Softmax over the keys (last axis); keys where ``mask`` is False get weight 0."""
    if mask is not None:
        # The dtype's most negative number, not -inf, so that a fully masked row
        # (never graded) gives a uniform row rather than NaN.
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    return scores.softmax(dim=-1)


def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    """softmax(Q Kᵀ / sqrt(d_k)) V.  Returns (output (..., L_q, d_v), weights (..., L_q, L_k))."""
    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)  # (..., L_q, L_k)
    weights = _masked_softmax(scores, mask)
    dropped = dropout(weights) if dropout is not None else weights
    return dropped @ value, weights


# --------------------------------------------------------------- 02-multi-head


def split_heads(x, n_head):
    """(B, L, d_model) -> (B, n_head, L, d_k)."""
    batch, length, d_model = x.shape
    return x.view(batch, length, n_head, d_model // n_head).transpose(1, 2)


def merge_heads(x):
    """(B, n_head, L, d_k) -> (B, L, n_head * d_k)."""
    batch, n_head, length, d_k = x.shape
    return x.transpose(1, 2).contiguous().view(batch, length, n_head * d_k)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        assert d_model % n_head == 0, "d_model must be divisible by n_head"
        self.n_head = n_head
        self.d_k = d_model // n_head
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        self.attn = None  # the weights of the last call, (B, n_head, L_q, L_k)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.n_head)  # (B, h, L_q, d_k)
        k = split_heads(self.w_k(key), self.n_head)  # (B, h, L_k, d_k)
        v = split_heads(self.w_v(value), self.n_head)  # (B, h, L_k, d_k)
        out, self.attn = self.attend(q, k, v, mask)  # (B, h, L_q, d_k)
        return self.w_o(merge_heads(out))  # (B, L_q, d_model)

    def attend(self, q, k, v, mask):
        """The per-head attention; AdditiveMultiHeadAttention swaps only this."""
        return scaled_dot_product_attention(q, k, v, mask, self.dropout)


# --------------------------------------------------------------- 03-add-norm


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d_model))
        self.beta = nn.Parameter(torch.zeros(d_model))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, correction=0)  # biased, as nn.LayerNorm
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


class AddNorm(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer_out):
        return self.norm(x + self.dropout(sublayer_out))


# --------------------------------------------------------------- 04-feed-forward


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


# --------------------------------------------------------------- 05-encoder


class Embeddings(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, tokens):
        return self.lut(tokens) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        # Built in float64: in float32, pos * freq already loses ~1e-4 at pos ~ 5000.
        position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)  # (max_len, 1)
        freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(position * freq)
        pe[:, 1::2] = torch.cos(position * freq)
        self.register_buffer("pe", pe.unsqueeze(0).to(torch.get_default_dtype()))  # (1, max_len, d_model)

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


class EncoderLayer(nn.Module):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_head, dropout)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, mask)))
        return self.norm2(x + self.dropout2(self.ffn(x)))


class Encoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers))

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x


# --------------------------------------------------------------- 06-masks


def make_pad_mask(tokens, pad_idx=0):
    """(B, L) -> bool (B, 1, 1, L): False at padding keys."""
    return (tokens != pad_idx)[:, None, None, :]


def make_subsequent_mask(size, device=None):
    """bool (1, size, size): True on and below the diagonal (a query sees itself and the past)."""
    return torch.tril(torch.ones(1, size, size, dtype=torch.bool, device=device))


def make_tgt_mask(tgt, pad_idx=0):
    """(B, L) -> bool (B, 1, L, L): no padding keys and no future keys."""
    return make_pad_mask(tgt, pad_idx) & make_subsequent_mask(tgt.size(-1), device=tgt.device)


# --------------------------------------------------------------- 07-decoder


class DecoderLayer(nn.Module):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_head, dropout)
        self.cross_attn = MultiHeadAttention(d_model, n_head, dropout)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))
        return self.norm3(x + self.dropout3(self.ffn(x)))


class Decoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x


# --------------------------------------------------------------- 08-generator


class Generator(nn.Module):
    def __init__(self, d_model, vocab_size):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab_size)

    def forward(self, x):
        return F.log_softmax(self.proj(x), dim=-1)


class Transformer(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_head=8, n_layers=6, d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__()
        self.src_embed = nn.Sequential(Embeddings(src_vocab, d_model), PositionalEncoding(d_model, max_len, dropout))
        self.tgt_embed = nn.Sequential(Embeddings(tgt_vocab, d_model), PositionalEncoding(d_model, max_len, dropout))
        self.encoder = Encoder(d_model, n_head, d_ff, n_layers, dropout)
        self.decoder = Decoder(d_model, n_head, d_ff, n_layers, dropout)
        self.generator = Generator(d_model, tgt_vocab)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def encode(self, src, src_mask):
        return self.encoder(self.src_embed(src), src_mask)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask)

    def forward(self, src, tgt, src_mask, tgt_mask):
        return self.generator(self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask))


# --------------------------------------------------------------- 09-additive-attention


class AdditiveAttention(nn.Module):
    """score(q, k) = vᵀ tanh(W_q q + W_k k), for every (query, key) pair at once."""

    def __init__(self, d_k, d_hidden):
        super().__init__()
        self.w_q = nn.Linear(d_k, d_hidden, bias=False)
        self.w_k = nn.Linear(d_k, d_hidden, bias=False)
        self.v = nn.Linear(d_hidden, 1, bias=False)

    def forward(self, query, key, value, mask=None, dropout=None):
        q = self.w_q(query).unsqueeze(-2)  # (..., L_q, 1, d_hidden)
        k = self.w_k(key).unsqueeze(-3)  # (..., 1, L_k, d_hidden)
        scores = self.v(torch.tanh(q + k)).squeeze(-1)  # (..., L_q, L_k)
        weights = _masked_softmax(scores, mask)
        dropped = dropout(weights) if dropout is not None else weights
        return dropped @ value, weights


class AdditiveMultiHeadAttention(MultiHeadAttention):
    """MultiHeadAttention whose heads score with one shared AdditiveAttention."""

    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.score = AdditiveAttention(self.d_k, self.d_k)

    def attend(self, q, k, v, mask):
        return self.score(q, k, v, mask, self.dropout)


# --------------------------------------------------------------- 10-train


def make_batch(src, tgt, pad_idx=0):
    """Teacher forcing: the decoder reads tgt[:, :-1] and must predict tgt[:, 1:]."""
    tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
    return {
        "src": src,
        "src_mask": make_pad_mask(src, pad_idx),
        "tgt_in": tgt_in,
        "tgt_out": tgt_out,
        "tgt_mask": make_tgt_mask(tgt_in, pad_idx),
        "n_tokens": int((tgt_out != pad_idx).sum()),
    }


class LabelSmoothingLoss(nn.Module):
    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        self.vocab_size = vocab_size
        self.pad_idx = pad_idx
        self.smoothing = smoothing

    def forward(self, log_probs, target):
        # smoothing spread over the vocab_size - 2 classes that are neither the target nor pad
        true_dist = torch.full_like(log_probs, self.smoothing / (self.vocab_size - 2))
        true_dist.scatter_(1, target.unsqueeze(1), 1.0 - self.smoothing)
        true_dist[:, self.pad_idx] = 0
        true_dist[target == self.pad_idx] = 0  # rows whose target is pad count for nothing
        return F.kl_div(log_probs, true_dist, reduction="sum")


def noam_rate(step, d_model, warmup, factor=1.0):
    step = max(step, 1)
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


@torch.no_grad()
def greedy_decode(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)
    for _ in range(max_len - 1):
        out = model.decode(memory, src_mask, ys, make_subsequent_mask(ys.size(1), device=src.device))
        next_token = model.generator(out[:, -1]).argmax(dim=-1, keepdim=True)  # (B, 1)
        ys = torch.cat([ys, next_token], dim=1)
        if eos_idx is not None and (ys == eos_idx).any(dim=1).all():
            break
    return ys
