"""Stand-ins: models for testing decoding code without a trained Transformer, and modules
that take the place of a graded module while the unit that builds it is judged.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

A stand-in model has the interface greedy decoding uses (`encode`, `decode`, `generator`)
and behaves in a way simple enough to predict by hand. Like the real model, it depends on
everything decoding must pass on: the source mask changes what `encode` and `decode` say
(a padding key they are let see shifts the prediction), and its generator is unsure (the
most likely token gets about a quarter of the probability), so only the argmax, not a draw,
finds its prediction every time. No stand-in holds a solution.
"""
import torch
from torch import nn


class _PeakGenerator(nn.Module):
    """Log-probabilities highest where the decoder's output is largest, its features read back to front: as in
    the real model, the decoder's output is not yet scores over the vocabulary. Unsure: the highest gets e / (e + V - 1)
    of the probability (about 1/4 for V = 9), so a token drawn at random is most often another one."""

    def forward(self, x):
        return torch.log_softmax(x.flip(-1), dim=-1)


def _source_visible(src_mask, shape, device):
    """(B, L_src) bool: the source positions a mask lets every query see (all of them without a mask)."""
    if src_mask is None:
        return torch.ones(shape, dtype=torch.bool, device=device)
    return src_mask.reshape(shape).to(torch.bool)


class StepModel(nn.Module):
    """Its most likely next token is always the last token it read plus a step, modulo the vocabulary.

    Each row's step is the first token of its source, so row b counts up from the start
    token in steps of src[b, 0]; token 0 of the source is padding, and each padding position
    that the source mask lets encode or decode see adds 3 to the step (without a mask, all are
    seen). It records what it was asked: `encodes` (how many times encode ran), `forwards` (how
    many times the whole model ran), `reads` (the target tokens of every decode call), `masks`
    (their tgt_mask) and `source_masks` (('encode' or 'decode', its src_mask) for every such call, in order).
    `model(src, tgt, src_mask, tgt_mask)` runs encode, decode and the generator, as the
    Transformer's forward does.
    """

    def __init__(self, vocab_size):
        super().__init__()
        self.vocab_size = vocab_size
        self.generator = _PeakGenerator()
        self.encodes, self.forwards, self.reads, self.masks, self.source_masks = 0, 0, [], [], []

    def encode(self, src, src_mask):
        self.encodes += 1
        self.source_masks.append(("encode", src_mask))
        padding = src == 0
        seen = (_source_visible(src_mask, src.shape, src.device) & padding).sum(-1, keepdim=True)  # (B, 1)
        step = (src[:, :1] + 3 * seen).expand(src.shape)  # (B, L_src): every position holds the row's step
        return torch.stack([step, padding.to(step.dtype)], dim=-1).to(torch.float32)  # (B, L_src, 2)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        self.reads.append(tgt)
        self.masks.append(tgt_mask)
        self.source_masks.append(("decode", src_mask))
        visible = _source_visible(src_mask, memory.shape[:2], memory.device).to(memory.dtype)
        seen = (visible * memory[..., 1]).sum(-1, keepdim=True)  # (B, 1): padding positions decode may see
        step = (memory[:, :1, 0] + 3 * seen).to(torch.long)  # (B, 1)
        following = (tgt + step) % self.vocab_size  # (B, t): the token after each one read
        features = self.vocab_size - 1 - following  # where the generator (which reads back to front) finds it
        return (torch.arange(self.vocab_size, device=tgt.device) == features[..., None]).to(torch.float32)

    def forward(self, src, tgt, src_mask, tgt_mask):
        self.forwards += 1
        return self.generator(self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask))


class ScriptedGenerator(nn.Module):
    """Like _PeakGenerator: the decoder's features read back to front, then a log-softmax that gives the most
    likely token about a fifth of the probability (e / (e + 10)): a token drawn at random is most often another."""

    def forward(self, x):
        return torch.log_softmax(x.flip(-1), dim=-1)


class ScriptedModel(nn.Module):
    """A stand-in for the Transformer (encode, decode, generator, forward), without parameters.

    Its most likely next token is arithmetic on the source positions the source mask lets it
    see (in encode and again in decode: a padding position seen changes it) and on the target
    tokens the look-ahead mask lets each position see, through two "layers": feeding the
    predictions back, both masks, and the source all change what it says. Tokens are
    2 … vocab-1 (never padding or the start token). Everything is made on the inputs' device,
    so it runs anywhere.
    """

    def __init__(self, shift=0, vocab=11):
        super().__init__()
        self.shift, self.vocab, self.encodes = shift, vocab, 0
        self.generator = ScriptedGenerator()

    def encode(self, src, src_mask):
        self.encodes += 1
        keep = _source_visible(src_mask, src.shape, src.device).to(src.dtype)  # (B, L_src)
        weighted = src * keep * torch.arange(1, src.size(1) + 1, device=src.device)
        return weighted + 5 * keep.sum(dim=1, keepdim=True)  # (B, L_src): every position also holds the count seen

    def decode(self, memory, src_mask, tgt, tgt_mask):
        seen = _source_visible(src_mask, memory.shape, memory.device).to(memory.dtype)
        memory = (memory * seen).sum(dim=1, keepdim=True)  # (B, 1): the source positions decode may see
        length = tgt.size(1)
        seen = (torch.ones(1, length, length, dtype=torch.long, device=tgt.device) if tgt_mask is None
                else tgt_mask.reshape(-1, length, length).to(torch.long))  # (1 or B, t, t)
        first = (seen * (tgt * torch.arange(1, length + 1, device=tgt.device))[:, None, :]).sum(-1)  # (B, t)
        second = (seen * first[:, None, :]).sum(-1)  # (B, t)
        token = (second + 4 * memory + length + self.shift) % (self.vocab - 2) + 2  # (B, t)
        features = self.vocab - 1 - token  # where the generator (which reads back to front) finds it
        return (torch.arange(self.vocab, device=tgt.device) == features[..., None]).to(torch.float32)  # (B, t, vocab)

    def forward(self, src, tgt, src_mask, tgt_mask):
        return self.generator(self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask))




# ---------------------------------------------------------------- stand-ins for graded modules
# A composite unit (Encoder) builds other graded units of its notebook by name (EncoderLayer).
# When the learner's own EncoderLayer is what makes their Encoder fail, the checks judge the
# Encoder again with these bound to those names, against the reference Encoder built from
# the same stand-ins (autograder/checks/core.py). Each has the interface of the unit it
# replaces and its submodule names, respects the masks it is given, and is nothing like the
# unit's answer: a masked average of projected positions, squashed by tanh.


def _masked_mean(values, mask, length_q):
    """For each of `length_q` query rows, the mean of `values` (B, L_k, d) over the keys `mask` allows."""
    batch, length_k = values.shape[0], values.shape[1]
    if mask is None:
        keep = torch.ones(batch, 1, length_q, length_k, dtype=values.dtype, device=values.device)
    else:
        keep = mask.to(values.dtype).expand(batch, 1, length_q, length_k)
    keep = keep[:, 0]
    return keep @ values / keep.sum(-1, keepdim=True).clamp(min=1)


def _refuse_what_the_layer_refuses(d_model, n_head, d_ff, dropout):
    """Raise what a right layer raises when its arguments are in the wrong places: a float where a size
    belongs (EncoderLayer(d_model, n_head, dropout) puts the rate in d_ff), a rate outside [0, 1], a head count
    that does not divide d_model (EncoderLayer(d_model, d_ff, n_head, dropout) puts d_ff in n_head: a right
    MultiHeadAttention cannot split d_model into that many heads). Otherwise a stack that builds its layers so
    would pass with the stand-in, and the note would blame the layer."""
    torch.empty((0, d_model, n_head, d_ff))  # TypeError for a float size, as nn.Linear gives
    nn.Dropout(dropout)  # ValueError for a rate outside [0, 1]
    if n_head <= 0 or d_model % n_head:
        raise ValueError(f"d_model = {d_model} cannot be split into n_head = {n_head} heads: is n_head the second "
                         "argument (d_model, n_head, d_ff, dropout)?")


class StandInEncoderLayer(nn.Module):
    """In place of EncoderLayer(d_model, n_head, d_ff, dropout): forward(x, mask=None)."""

    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        _refuse_what_the_layer_refuses(d_model, n_head, d_ff, dropout)
        self.given_dropout = dropout  # the rate the unit that builds it passed on (learner_kit/arguments.py)
        self.mix = nn.Linear(d_model, d_model)

    def forward(self, x, mask=None):
        return torch.tanh(x + _masked_mean(self.mix(x), mask, x.shape[1]))


class StandInDecoderLayer(nn.Module):
    """In place of DecoderLayer(d_model, n_head, d_ff, dropout): forward(x, memory, src_mask=None, tgt_mask=None)."""

    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        _refuse_what_the_layer_refuses(d_model, n_head, d_ff, dropout)
        self.given_dropout = dropout  # the rate the unit that builds it passed on (learner_kit/arguments.py)
        self.mix = nn.Linear(d_model, d_model)
        self.cross = nn.Linear(d_model, d_model)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        own = _masked_mean(self.mix(x), tgt_mask, x.shape[1])
        source = _masked_mean(self.cross(memory), src_mask, x.shape[1])
        return torch.tanh(x + own + 0.5 * source)


class StandInGenerator(nn.Module):
    """In place of Generator(d_model, vocab_size): submodule `proj`; forward(x)."""

    def __init__(self, d_model, vocab_size):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab_size)

    def forward(self, x):
        return torch.tanh(self.proj(x))


class StandInAdditiveAttention(nn.Module):
    """In place of AdditiveAttention(d_k, d_hidden): submodules `w_q`, `w_k`, `v`; forward(query, key, value, mask, dropout)."""

    def __init__(self, d_k, d_hidden):
        super().__init__()
        self.w_q = nn.Linear(d_k, d_hidden, bias=False)
        self.w_k = nn.Linear(d_k, d_hidden, bias=False)
        self.v = nn.Linear(d_hidden, 1, bias=False)

    def forward(self, query, key, value, mask=None, dropout=None):
        scores = self.v(self.w_q(query).unsqueeze(-2) * self.w_k(key).unsqueeze(-3)).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        weights = scores.softmax(dim=-1)
        return (dropout(weights) if dropout is not None else weights) @ value, weights


STAND_INS = {"EncoderLayer": StandInEncoderLayer, "DecoderLayer": StandInDecoderLayer,
             "Generator": StandInGenerator, "AdditiveAttention": StandInAdditiveAttention}


def from_plain(description):
    """A stand-in model from its plain description, {"stand_in": its class's name, "init": its arguments} (how a
    fingerprint stores the model of a case)."""
    kinds = {"StepModel": StepModel, "ScriptedModel": ScriptedModel}
    return kinds[description["stand_in"]](**description["init"])
