"""Right capstone units (10-train) in many styles: LabelSmoothingLoss, make_batch, noam_rate, greedy_decode.

Losses: the Annotated Transformer's (KLDivLoss criterion, index_fill_ of the pad rows),
a smoothed-target buffer made with torch.full in __init__, xlogy, the cross-entropy form
plus the constant entropy, torch.where over a one-hot. Batches: an Annotated-style Batch
object turned into the dict, dict(), narrow + count_nonzero, the provided mask helpers by
name. Schedules: the Annotated rate(), piecewise, numpy, math.pow. Decoding: a
preallocated buffer, a list of columns, topk, finished rows kept at eos, target masks.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from . import right
from .zoo_styles_masks import pad_mask_ne_unsqueeze, subsequent_tril_inplace, tgt_mask_helpers

# What notebook 10 provides: the mask helpers of notebook 06.
make_pad_mask, make_subsequent_mask, make_tgt_mask = pad_mask_ne_unsqueeze, subsequent_tril_inplace, tgt_mask_helpers

# ------------------------------------------------------------------ LabelSmoothingLoss


@right("LabelSmoothingLoss")
class LabelSmoothingAnnotated(nn.Module):
    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        self.criterion = nn.KLDivLoss(reduction="sum")
        self.padding_idx = pad_idx
        self.confidence = 1.0 - smoothing
        self.smoothing = smoothing
        self.size = vocab_size
        self.true_dist = None

    def forward(self, x, target):
        assert x.size(1) == self.size
        true_dist = x.data.clone()
        true_dist.fill_(self.smoothing / (self.size - 2))
        true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence)
        true_dist[:, self.padding_idx] = 0
        mask = torch.nonzero(target.data == self.padding_idx)
        if mask.dim() > 0:
            true_dist.index_fill_(0, mask.squeeze(), 0.0)
        self.true_dist = true_dist
        return self.criterion(x, true_dist.clone().detach())


@right("LabelSmoothingLoss")
class LabelSmoothingBuffer(nn.Module):
    """The smoothed row is built once, as a buffer; each call repeats it and writes the targets in."""

    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        self.pad_idx, self.confidence = pad_idx, 1.0 - smoothing
        base = torch.full((vocab_size,), smoothing / (vocab_size - 2))
        base[pad_idx] = 0.0
        self.register_buffer("base", base)

    def forward(self, log_probs, target):
        true_dist = self.base.repeat(target.size(0), 1)
        true_dist.scatter_(1, target[:, None], self.confidence)
        true_dist.masked_fill_((target == self.pad_idx)[:, None], 0.0)
        return F.kl_div(log_probs, true_dist, reduction="sum")


@right("LabelSmoothingLoss")
class LabelSmoothingXlogy(nn.Module):
    """KL(q || p) = sum q log q - q log p, with xlogy so that 0 log 0 = 0."""

    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        self.vocab_size, self.pad_idx, self.smoothing = vocab_size, pad_idx, smoothing

    def forward(self, log_probs, target):
        q = torch.full_like(log_probs, self.smoothing / (self.vocab_size - 2))
        q = q.scatter(1, target.unsqueeze(1), 1.0 - self.smoothing)
        q[:, self.pad_idx] = 0.0
        q = q * (target != self.pad_idx).unsqueeze(1).to(q.dtype)
        return (torch.xlogy(q, q) - q * log_probs).sum()


@right("LabelSmoothingLoss")
class LabelSmoothingCrossEntropyForm(nn.Module):
    """The smoothed cross-entropy of each kept row, plus the constant entropy of its target."""

    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        self.vocab_size, self.pad_idx = vocab_size, pad_idx
        self.confidence, self.spread = 1.0 - smoothing, smoothing / (vocab_size - 2)

    def forward(self, log_probs, target):
        keep = target != self.pad_idx
        on_target = log_probs.gather(1, target.unsqueeze(1)).squeeze(1)
        others = log_probs.sum(dim=1) - on_target - log_probs[:, self.pad_idx]
        cross = -(self.confidence * on_target + self.spread * others)
        entropy = -self.confidence * math.log(self.confidence)
        if self.spread > 0:
            entropy -= (self.vocab_size - 2) * self.spread * math.log(self.spread)
        return ((cross - entropy) * keep).sum()


@right("LabelSmoothingLoss")
class LabelSmoothingWhereOneHot(nn.Module):
    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        self.vocab_size, self.pad_idx, self.smoothing = vocab_size, pad_idx, smoothing

    def forward(self, log_probs, target):
        is_target = F.one_hot(target, num_classes=self.vocab_size).bool()
        q = torch.where(is_target, torch.full_like(log_probs, 1.0 - self.smoothing),
                        torch.full_like(log_probs, self.smoothing / (self.vocab_size - 2)))
        q[:, self.pad_idx] = 0
        q = q.masked_fill((target == self.pad_idx).unsqueeze(-1), 0)
        return F.kl_div(log_probs, q, reduction="none").sum()


# ------------------------------------------------------------------ make_batch


class Batch:
    """The Annotated Transformer's Batch: the masks and the count made when the batch is."""

    def __init__(self, src, tgt, pad=0):
        self.src = src
        self.src_mask = (src != pad).unsqueeze(-2).unsqueeze(1)
        self.tgt = tgt[:, :-1]
        self.tgt_y = tgt[:, 1:]
        self.tgt_mask = self.make_std_mask(self.tgt, pad)
        self.ntokens = (self.tgt_y != pad).data.sum()

    @staticmethod
    def make_std_mask(tgt, pad):
        tgt_mask = (tgt != pad).unsqueeze(-2)
        size = tgt.size(-1)
        subsequent = torch.triu(torch.ones((1, size, size), device=tgt.device), diagonal=1).type(torch.uint8) == 0
        return (tgt_mask & subsequent).unsqueeze(1)


@right("make_batch")
def batch_annotated_object(src, tgt, pad_idx=0):
    b = Batch(src, tgt, pad_idx)
    return {"src": b.src, "src_mask": b.src_mask, "tgt_in": b.tgt, "tgt_out": b.tgt_y, "tgt_mask": b.tgt_mask,
            "n_tokens": int(b.ntokens)}


@right("make_batch")
def batch_provided_helpers(src, tgt, pad_idx=0):
    tgt_in = tgt[:, :-1]
    tgt_out = tgt[:, 1:]
    return dict(src=src, src_mask=make_pad_mask(src, pad_idx), tgt_in=tgt_in, tgt_out=tgt_out,
                tgt_mask=make_tgt_mask(tgt_in, pad_idx), n_tokens=(tgt_out != pad_idx).sum().item())


@right("make_batch")
def batch_narrow(src, tgt, pad_idx=0):
    length = tgt.size(1) - 1
    tgt_in, tgt_out = tgt.narrow(1, 0, length), tgt.narrow(1, 1, length)
    causal = torch.ones(length, length, dtype=torch.bool, device=tgt.device).tril()
    batch = {
        "src": src,
        "src_mask": src.ne(pad_idx)[:, None, None, :],
        "tgt_in": tgt_in,
        "tgt_out": tgt_out,
        "tgt_mask": tgt_in.ne(pad_idx)[:, None, None, :] & causal,
    }
    batch["n_tokens"] = int(torch.count_nonzero(tgt_out != pad_idx))
    return batch


@right("make_batch")
def batch_count_by_subtraction(src, tgt, pad_idx=0):
    decoder_input, labels = tgt[:, :-1], tgt[:, 1:]
    n_pad = int((labels == pad_idx).sum())
    return {"src": src, "src_mask": make_pad_mask(src, pad_idx=pad_idx), "tgt_in": decoder_input, "tgt_out": labels,
            "tgt_mask": make_tgt_mask(decoder_input, pad_idx=pad_idx), "n_tokens": labels.numel() - n_pad}


@right("make_batch")
def batch_mask_cut_from_full_target(src, tgt, pad_idx=0):
    """The target mask of the whole tgt, cut to the decoder input's positions: the same mask."""
    full = make_tgt_mask(tgt, pad_idx)
    return {"src": src, "src_mask": make_pad_mask(src, pad_idx), "tgt_in": tgt[:, :-1], "tgt_out": tgt[:, 1:],
            "tgt_mask": full[:, :, :-1, :-1], "n_tokens": int((tgt[:, 1:] != pad_idx).sum())}


# ------------------------------------------------------------------ noam_rate


@right("noam_rate")
def noam_annotated(step, d_model, warmup, factor=1.0):
    """The Annotated Transformer's rate(step, model_size, factor, warmup), arguments in the contract's order."""
    if step == 0:
        step = 1
    return factor * (d_model ** (-0.5) * min(step ** (-0.5), step * warmup ** (-1.5)))


@right("noam_rate")
def noam_piecewise(step, d_model, warmup, factor=1.0):
    step = max(1, step)
    if step <= warmup:
        scale = step / warmup ** 1.5
    else:
        scale = 1 / math.sqrt(step)
    return factor * scale / math.sqrt(d_model)


@right("noam_rate")
def noam_numpy(step, d_model, warmup, factor=1.0):
    step = np.maximum(step, 1)
    return factor * d_model ** -0.5 * np.minimum(step ** -0.5, step * warmup ** -1.5)


@right("noam_rate")
def noam_math_pow(step, d_model, warmup, factor=1.0):
    step = step or 1
    arg1 = math.pow(step, -0.5)
    arg2 = step * math.pow(warmup, -1.5)
    return factor * math.pow(d_model, -0.5) * min(arg1, arg2)


@right("noam_rate")
def noam_lr_then_factor(step, d_model, warmup, factor=1.0):
    step = max(step, 1)
    lr = 1 / math.sqrt(d_model) * min(1 / math.sqrt(step), step / (warmup * math.sqrt(warmup)))
    return lr * factor


# ------------------------------------------------------------------ greedy_decode


@right("greedy_decode")
def greedy_annotated(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    """The Annotated Transformer's greedy_decode, for a batch, and stopping once every row has eos."""
    with torch.no_grad():
        memory = model.encode(src, src_mask)
        ys = torch.zeros(src.size(0), 1, dtype=src.dtype, device=src.device).fill_(bos_idx)
        for i in range(max_len - 1):
            out = model.decode(memory, src_mask, ys, make_subsequent_mask(ys.size(1)).to(src.device))
            prob = model.generator(out[:, -1])
            _, next_word = torch.max(prob, dim=1)
            ys = torch.cat([ys, next_word.unsqueeze(1).type_as(ys)], dim=1)
            if eos_idx is not None and (ys == eos_idx).any(dim=1).all():
                break
    return ys


@right("greedy_decode")
@torch.no_grad()
def greedy_preallocated(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    ys = src.new_full((src.size(0), max_len), bos_idx)
    for t in range(1, max_len):
        out = model.decode(memory, src_mask, ys[:, :t], make_subsequent_mask(t, device=src.device))
        ys[:, t] = model.generator(out[:, -1]).argmax(dim=-1)
        if eos_idx is not None and bool((ys[:, : t + 1] == eos_idx).any(dim=1).all()):
            return ys[:, : t + 1]
    return ys


@right("greedy_decode")
@torch.no_grad()
def greedy_list_of_columns(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    memory = model.encode(src, src_mask)
    columns = [torch.full((src.size(0), 1), bos_idx, dtype=torch.long, device=src.device)]
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    while len(columns) < max_len:
        ys = torch.cat(columns, dim=1)
        n = ys.size(1)
        causal = torch.tril(torch.ones(n, n, dtype=torch.bool, device=src.device)).unsqueeze(0)
        log_probs = model.generator(model.decode(memory, src_mask, ys, causal)[:, -1, :])
        next_tokens = log_probs.topk(1, dim=-1).indices  # (B, 1)
        if eos_idx is not None:
            next_tokens = next_tokens.masked_fill(finished.unsqueeze(1), eos_idx)  # finished rows keep eos
            finished |= next_tokens.squeeze(1) == eos_idx
        columns.append(next_tokens)
        if eos_idx is not None and finished.all():
            break
    return torch.cat(columns, dim=1)


@right("greedy_decode")
@torch.no_grad()
def greedy_target_mask(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    """The decoder mask built as in training (make_tgt_mask: no token of ys is padding)."""
    memory = model.encode(src, src_mask)
    ys = torch.ones(src.shape[0], 1, dtype=torch.long, device=src.device) * bos_idx
    for _ in range(max_len - 1):
        out = model.decode(memory, src_mask, ys, make_tgt_mask(ys, pad_idx=-1))
        next_token = model.generator(out)[:, -1].argmax(-1, keepdim=True)
        ys = torch.cat((ys, next_token), dim=-1)
        if eos_idx is not None and torch.all(torch.any(ys == eos_idx, dim=-1)):
            break
    return ys


@right("greedy_decode")
def greedy_while_last_slice(model, src, src_mask, max_len, bos_idx, eos_idx=None):
    with torch.inference_mode():
        memory = model.encode(src, src_mask)
        ys = torch.full((len(src), 1), bos_idx, dtype=torch.long, device=src.device)
        while ys.size(1) < max_len:
            size = ys.size(1)
            mask = torch.ones(1, 1, size, size, dtype=torch.bool, device=ys.device).tril()
            logits = model.generator(model.decode(memory, src_mask, ys, mask)[:, -1:])  # (B, 1, vocab)
            ys = torch.cat([ys, logits.argmax(dim=-1)], dim=1)
            if eos_idx is not None and (ys == eos_idx).sum(dim=1).gt(0).all():
                break
    return ys


@right("LabelSmoothingLoss")
class LabelSmoothingWhereScalars(nn.Module):
    """torch.where over Python numbers: a tensor of the default dtype (the float64 rule)."""

    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        self.vocab_size, self.pad_idx, self.smoothing = vocab_size, pad_idx, smoothing

    def forward(self, log_probs, target):
        is_target = F.one_hot(target, num_classes=self.vocab_size).bool()
        q = torch.where(is_target, 1.0 - self.smoothing, self.smoothing / (self.vocab_size - 2)).to(log_probs.dtype)
        q[:, self.pad_idx] = 0
        q = q.masked_fill((target == self.pad_idx).unsqueeze(-1), 0)
        return F.kl_div(log_probs, q, reduction="none").sum()
