"""Zoo of 10-train's LabelSmoothingLoss, right and wrong. (make_batch, noam_rate and
greedy_decode are checked by autograder.checks.train, outside the shared harness: their
specimens are in tests/notebooks/test_capstone.py.)"""
import torch
import torch.nn.functional as F
from torch import nn

from . import bug, right


class _Loss(nn.Module):
    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        self.vocab_size, self.pad_idx, self.smoothing = vocab_size, pad_idx, smoothing


@right("LabelSmoothingLoss")
class LossScatter(_Loss):
    def forward(self, log_probs, target):
        true_dist = log_probs.detach().clone().fill_(self.smoothing / (self.vocab_size - 2))
        true_dist.scatter_(1, target.unsqueeze(1), 1 - self.smoothing)
        true_dist[:, self.pad_idx] = 0
        rows = torch.nonzero(target == self.pad_idx)
        if rows.numel() > 0:
            true_dist.index_fill_(0, rows.squeeze(-1), 0.0)
        return F.kl_div(log_probs, true_dist, reduction="sum")


@right("LabelSmoothingLoss")
class LossOneHot(_Loss):
    def forward(self, log_probs, target):
        one_hot = F.one_hot(target, self.vocab_size).to(log_probs.dtype)
        q = one_hot * (1 - self.smoothing) + (1 - one_hot) * self.smoothing / (self.vocab_size - 2)
        q[:, self.pad_idx] = 0
        q = q * (target != self.pad_idx).unsqueeze(1)
        terms = torch.where(q > 0, q * (q.clamp_min(1e-30).log() - log_probs), torch.zeros_like(q))
        return terms.sum()


@bug("LabelSmoothingLoss", "loss-counts-padding", "values", "float64")
class LossKeepsPaddingRows(_Loss):
    def forward(self, log_probs, target):
        true_dist = torch.full_like(log_probs, self.smoothing / (self.vocab_size - 2))
        true_dist.scatter_(1, target.unsqueeze(1), 1 - self.smoothing)
        true_dist[:, self.pad_idx] = 0
        return F.kl_div(log_probs, true_dist, reduction="sum")


@bug("LabelSmoothingLoss", "loss-counts-padding", "values")
class LossNoPaddingAtAll(_Loss):
    """Smoothing over every other class, padding included, and padding rows kept."""

    def forward(self, log_probs, target):
        true_dist = torch.full_like(log_probs, self.smoothing / (self.vocab_size - 1))
        true_dist.scatter_(1, target.unsqueeze(1), 1 - self.smoothing)
        return F.kl_div(log_probs, true_dist, reduction="sum")


@bug("LabelSmoothingLoss", "wrong-values", "values")
class LossBatchMean(_Loss):
    def forward(self, log_probs, target):
        true_dist = torch.full_like(log_probs, self.smoothing / (self.vocab_size - 2))
        true_dist.scatter_(1, target.unsqueeze(1), 1 - self.smoothing)
        true_dist[:, self.pad_idx] = 0
        true_dist[target == self.pad_idx] = 0
        return F.kl_div(log_probs, true_dist, reduction="batchmean")


@bug("LabelSmoothingLoss", "device", "device")
class LossDistOnCpu(_Loss):
    def forward(self, log_probs, target):
        true_dist = torch.full(log_probs.shape, self.smoothing / (self.vocab_size - 2), dtype=log_probs.dtype)
        true_dist = true_dist.scatter(1, target.unsqueeze(1), 1 - self.smoothing)
        return F.kl_div(log_probs, true_dist, reduction="sum")


# ------------------------------------------------------------------ issue 16: the walkthrough's mistakes
# (tests/walkthrough/cases_10.py), as the hidden checks see them

class _Smoothed(_Loss):
    spread, zero_column, kl = 2, True, True

    def forward(self, log_probs, target):
        true_dist = torch.full_like(log_probs, self.smoothing / (self.vocab_size - self.spread))
        true_dist.scatter_(1, target.unsqueeze(1), 1 - self.smoothing)
        if self.zero_column:
            true_dist[:, self.pad_idx] = 0
        true_dist[target == self.pad_idx] = 0
        if not self.kl:
            return -(true_dist * log_probs).sum()
        return F.kl_div(log_probs, true_dist, reduction="sum")


@bug("LabelSmoothingLoss", "wrong-values", "values", "float64")
class LossSpreadOverVMinusOne(_Smoothed):
    """eps / (V - 1), padding column and padding rows zeroed: a target summing to less than 1."""
    spread = 1


@bug("LabelSmoothingLoss", "wrong-values", "values")
class LossPadColumnKept(_Smoothed):
    zero_column = False


@bug("LabelSmoothingLoss", "wrong-values", "values")
class LossCrossEntropy(_Smoothed):
    kl = False


@bug("LabelSmoothingLoss", "runtime-error", "values")
class LossIndexNotUnsqueezed(_Loss):
    def forward(self, log_probs, target):
        true_dist = torch.full_like(log_probs, self.smoothing / (self.vocab_size - 2))
        true_dist.scatter_(1, target, 1 - self.smoothing)
        return F.kl_div(log_probs, true_dist, reduction="sum")


# ------------------------------------------------------------------ issue 33: told a mistake they did not make


@bug("LabelSmoothingLoss", "wrong-values", "values", visible="wrong-values")
class LossKlDivOnProbabilities(_Loss):
    """F.kl_div fed probabilities (log_probs.exp()) where it takes log-probabilities: not a mean (no division)."""

    def forward(self, log_probs, target):
        true_dist = torch.full_like(log_probs, self.smoothing / (self.vocab_size - 2))
        true_dist.scatter_(1, target.unsqueeze(1), 1 - self.smoothing)
        true_dist[:, self.pad_idx] = 0
        true_dist[target == self.pad_idx] = 0
        return F.kl_div(log_probs.exp(), true_dist, reduction="sum")
