"""Stand-in models for testing decoding code without a trained Transformer.

A stand-in has the interface greedy decoding uses (`encode`, `decode`, `generator`) and
behaves in a way simple enough to predict by hand. It holds no solution.
"""
import torch
from torch import nn


class _PeakGenerator(nn.Module):
    """Log-probabilities sharply peaked where the decoder's output is largest."""

    def forward(self, x):
        return torch.log_softmax(10.0 * x, dim=-1)


class StepModel(nn.Module):
    """Its next token is always the last token it read plus a step, modulo the vocabulary.

    Each row's step is the first token of its source, so row b counts up from the start
    token in steps of src[b, 0]. It records what it was asked: `encodes` (how many times
    encode ran) and `masks` (the tgt_mask of every decode call).
    """

    def __init__(self, vocab_size):
        super().__init__()
        self.vocab_size = vocab_size
        self.generator = _PeakGenerator()
        self.encodes, self.masks = 0, []

    def encode(self, src, src_mask):
        self.encodes += 1
        return src[:, :1, None].to(torch.float32)  # (B, 1, 1): the memory holds each row's step

    def decode(self, memory, src_mask, tgt, tgt_mask):
        self.masks.append(tgt_mask)
        step = memory[:, :, 0].to(torch.long)  # (B, 1)
        following = (tgt + step) % self.vocab_size  # (B, t): the token after each one read
        return (torch.arange(self.vocab_size, device=tgt.device) == following[..., None]).to(torch.float32)


class ScriptedGenerator(nn.Module):
    def forward(self, x):
        return torch.log_softmax(10.0 * x, dim=-1)


class ScriptedModel(nn.Module):
    """A stand-in for the Transformer (encode, decode, generator, forward), without parameters.

    Its next token is arithmetic on the source and on the target tokens the look-ahead mask
    lets each position see, through two "layers": feeding the predictions back, the mask,
    and the source all change what it says. Tokens are 2 … vocab-1 (never padding or the
    start token). Everything is made on the inputs' device, so it runs anywhere.
    """

    def __init__(self, shift=0, vocab=11):
        super().__init__()
        self.shift, self.vocab, self.encodes = shift, vocab, 0
        self.generator = ScriptedGenerator()

    def encode(self, src, src_mask):
        self.encodes += 1
        keep = torch.ones_like(src) if src_mask is None else src_mask.reshape(src.shape).to(src.dtype)
        return (src * keep * torch.arange(1, src.size(1) + 1, device=src.device)).sum(dim=1, keepdim=True)  # (B, 1)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        length = tgt.size(1)
        seen = (torch.ones(1, length, length, dtype=torch.long, device=tgt.device) if tgt_mask is None
                else tgt_mask.reshape(-1, length, length).to(torch.long))  # (1 or B, t, t)
        first = (seen * (tgt * torch.arange(1, length + 1, device=tgt.device))[:, None, :]).sum(-1)  # (B, t)
        second = (seen * first[:, None, :]).sum(-1)  # (B, t)
        token = (second + 4 * memory + length + self.shift) % (self.vocab - 2) + 2  # (B, t)
        return (torch.arange(self.vocab, device=tgt.device) == token[..., None]).to(torch.float32)  # (B, t, vocab)

    def forward(self, src, tgt, src_mask, tgt_mask):
        return self.generator(self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask))


