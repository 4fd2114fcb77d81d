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
