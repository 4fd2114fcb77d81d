"""Zoo of 06-masks: make_pad_mask, make_subsequent_mask, make_tgt_mask, right and wrong."""
import torch

from . import bug, right


@right("make_pad_mask")
def pad_mask_unsqueeze(tokens, pad_idx=0):
    return (tokens != pad_idx).unsqueeze(1).unsqueeze(2)


@right("make_pad_mask")
def pad_mask_view(tokens, pad_idx=0):
    return tokens.ne(pad_idx).view(tokens.size(0), 1, 1, tokens.size(1))


@bug("make_pad_mask", "mask-pad-wrong-axis")
def pad_mask_on_queries(tokens, pad_idx=0):
    return (tokens != pad_idx).unsqueeze(1).unsqueeze(-1)


@bug("make_pad_mask", "mask-pad-inverted")
def pad_mask_true_at_padding(tokens, pad_idx=0):
    return (tokens == pad_idx)[:, None, None]


@bug("make_pad_mask", "mask-fixed-device", "device")
def pad_mask_on_cpu(tokens, pad_idx=0):
    keep = torch.ones(tokens.shape, dtype=torch.bool)
    return (keep & (tokens != pad_idx))[:, None, None, :]


@right("make_subsequent_mask")
def subsequent_tril(size, device=None):
    return torch.tril(torch.ones(size, size, device=device)).bool().unsqueeze(0)


@right("make_subsequent_mask")
def subsequent_triu_complement(size, device=None):
    future = torch.triu(torch.ones(1, size, size, dtype=torch.uint8, device=device), diagonal=1)
    return future == 0


@right("make_subsequent_mask")
def subsequent_arange(size, device=None):
    positions = torch.arange(size, device=device)
    return (positions[None, :] <= positions[:, None]).unsqueeze(0)


@bug("make_subsequent_mask", "mask-causal-diagonal-blocked")
def subsequent_strictly_lower(size, device=None):
    positions = torch.arange(size, device=device)
    return (positions[None, :] < positions[:, None]).unsqueeze(0)


@bug("make_subsequent_mask", "mask-causal-transposed")
def subsequent_upper(size, device=None):
    return torch.triu(torch.ones(1, size, size, device=device)).bool()


@bug("make_subsequent_mask", "mask-fixed-device", "device")
def subsequent_ignores_device(size, device=None):
    return torch.tril(torch.ones(1, size, size, dtype=torch.bool))


def _pad(tokens, pad_idx):
    return (tokens != pad_idx)[:, None, None, :]


def _causal(size, device):
    return torch.tril(torch.ones(1, size, size, dtype=torch.bool, device=device))


@right("make_tgt_mask")
def tgt_mask_and(tgt, pad_idx=0):
    return _pad(tgt, pad_idx) & _causal(tgt.size(-1), tgt.device)


@right("make_tgt_mask")
def tgt_mask_logical_and(tgt, pad_idx=0):
    causal = _causal(tgt.size(1), tgt.device).unsqueeze(1)
    return torch.logical_and(_pad(tgt, pad_idx), causal)


@bug("make_tgt_mask", "mask-tgt-missing-pad")
def tgt_mask_only_causal(tgt, pad_idx=0):
    return _causal(tgt.size(-1), tgt.device).unsqueeze(0)


@bug("make_tgt_mask", "mask-tgt-missing-causal")
def tgt_mask_only_padding(tgt, pad_idx=0):
    return _pad(tgt, pad_idx)


@bug("make_tgt_mask", "mask-fixed-device", "device")
def tgt_mask_causal_on_cpu(tgt, pad_idx=0):
    return _pad(tgt, pad_idx) & _causal(tgt.size(-1), None)


@bug("make_tgt_mask", "mask-tgt-missing-pad")
def tgt_mask_causal_expanded(tgt, pad_idx=0):
    """Only the triangle, expanded to the right shape (B, 1, L, L): the shape hides the missing padding."""
    return _causal(tgt.size(-1), tgt.device).unsqueeze(0).expand(tgt.size(0), 1, -1, -1)


@bug("make_tgt_mask", "mask-tgt-missing-causal")
def tgt_mask_or(tgt, pad_idx=0):
    """| in place of &: a real key is visible from every query, the future included."""
    return _pad(tgt, pad_idx) | _causal(tgt.size(-1), tgt.device)


# ------------------------------------------------------------------ issue 33: told a mistake they did not make


@bug("make_subsequent_mask", "wrong-values", "values", visible="property-violated")
def subsequent_one_diagonal_too_far(size, device=None):
    """tril from diagonal 1: each query also sees the next key; no past key is blocked (not the transposed mask)."""
    return torch.tril(torch.ones(1, size, size, dtype=torch.bool, device=device), diagonal=1)


@bug("make_subsequent_mask", "mask-causal-transposed", "values", visible="mask-causal-transposed")
def subsequent_upper_triangle(size, device=None):
    return torch.ones(size, size, device=device).triu().bool().unsqueeze(0)
