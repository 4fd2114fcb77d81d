"""Right make_pad_mask, make_subsequent_mask and make_tgt_mask (06-masks) in many styles.

Masks made as uint8, float or int and then compared (the results are bool, as the contract
says); the Annotated Transformer's numpy triu, PyTorch's -inf square mask, nanoGPT's tril
== 1, in-place tril_; target masks from the provided helpers called by name, by float
products, repeat + masked_fill, and torch.minimum.
"""
import numpy as np
import torch

from . import right

# ------------------------------------------------------------------ make_pad_mask


@right("make_pad_mask")
def pad_mask_ne_unsqueeze(tokens, pad_idx=0):
    return tokens.ne(pad_idx).unsqueeze(-2).unsqueeze(-2)


@right("make_pad_mask")
def pad_mask_uint8(tokens, pad_idx=0):
    is_pad = (tokens == pad_idx).to(torch.uint8)
    return (is_pad == 0).view(tokens.size(0), 1, 1, tokens.size(1))


@right("make_pad_mask")
def pad_mask_torch_ne_reshape(tokens, pad_idx=0):
    return torch.ne(tokens, pad_idx).reshape(tokens.shape[0], 1, 1, -1)


@right("make_pad_mask")
def pad_mask_logical_not(tokens, pad_idx=0):
    return (tokens == pad_idx).logical_not()[:, None, None, :]


@right("make_pad_mask")
def pad_mask_float_threshold(tokens, pad_idx=0):
    keep = torch.ones_like(tokens, dtype=torch.float).masked_fill(tokens == pad_idx, 0.0)
    return keep[:, None, None, :] > 0.5


@right("make_pad_mask")
def pad_mask_compare_after_unsqueeze(tokens, pad_idx=0):
    return tokens.unsqueeze(1).unsqueeze(1) != pad_idx


# ------------------------------------------------------------------ make_subsequent_mask


@right("make_subsequent_mask")
def subsequent_numpy_annotated(size, device=None):
    """The 2018 Annotated Transformer: numpy triu above the diagonal, then == 0."""
    attn_shape = (1, size, size)
    subsequent_mask = np.triu(np.ones(attn_shape), k=1).astype("uint8")
    return torch.from_numpy(subsequent_mask).to(device) == 0


@right("make_subsequent_mask")
def subsequent_triu_uint8(size, device=None):
    attn_shape = (1, size, size)
    future = torch.triu(torch.ones(attn_shape, device=device), diagonal=1).type(torch.uint8)
    return future == 0


@right("make_subsequent_mask")
def subsequent_tril_inplace(size, device=None):
    return torch.ones(size, size, dtype=torch.bool, device=device).tril_().unsqueeze(0)


@right("make_subsequent_mask")
def subsequent_not_triu(size, device=None):
    return ~torch.triu(torch.ones(1, size, size, dtype=torch.bool, device=device), diagonal=1)


@right("make_subsequent_mask")
def subsequent_from_float_inf(size, device=None):
    """PyTorch's generate_square_subsequent_mask (-inf above the diagonal), turned into bool."""
    float_mask = torch.triu(torch.full((size, size), float("-inf"), device=device), diagonal=1)
    return (float_mask == 0).unsqueeze(0)


@right("make_subsequent_mask")
def subsequent_nanogpt(size, device=None):
    bias = torch.tril(torch.ones(size, size, device=device)).view(1, size, size)
    return bias == 1


# ------------------------------------------------------------------ make_tgt_mask


def subsequent_mask(size):
    """The Annotated Transformer's helper, made on the CPU."""
    attn_shape = (1, size, size)
    return torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8) == 0


@right("make_tgt_mask")
def tgt_mask_annotated_type_as(tgt, pad_idx=0):
    """make_std_mask verbatim: type_as brings the causal part to the padding mask's device."""
    tgt_mask = (tgt != pad_idx).unsqueeze(-2)
    tgt_mask = tgt_mask & subsequent_mask(tgt.size(-1)).type_as(tgt_mask.data)
    return tgt_mask.unsqueeze(1)

# What notebook 06 has defined before its make_tgt_mask cell: right copies of the helpers.
make_pad_mask = pad_mask_ne_unsqueeze
make_subsequent_mask = subsequent_tril_inplace


@right("make_tgt_mask")
def tgt_mask_helpers(tgt, pad_idx=0):
    return make_pad_mask(tgt, pad_idx) & make_subsequent_mask(tgt.size(1), device=tgt.device)


@right("make_tgt_mask")
def tgt_mask_annotated(tgt, pad_idx=0):
    """The Annotated Transformer's make_std_mask, with the head axis the contract wants."""
    tgt_mask = (tgt != pad_idx).unsqueeze(-2)
    tgt_mask = tgt_mask & make_subsequent_mask(tgt.size(-1)).to(tgt.device).type_as(tgt_mask.data)
    return tgt_mask.unsqueeze(1)


@right("make_tgt_mask")
def tgt_mask_float_product(tgt, pad_idx=0):
    length = tgt.size(1)
    pad = (tgt != pad_idx).float()[:, None, None, :]
    causal = torch.tril(torch.ones(length, length, device=tgt.device))
    return (pad * causal).bool()


@right("make_tgt_mask")
def tgt_mask_repeat_fill(tgt, pad_idx=0):
    batch, length = tgt.shape
    causal = torch.ones(length, length, dtype=torch.bool, device=tgt.device).tril()
    mask = causal.repeat(batch, 1, 1, 1)
    return mask.masked_fill(tgt[:, None, None, :] == pad_idx, False)


@right("make_tgt_mask")
def tgt_mask_minimum(tgt, pad_idx=0):
    length = tgt.shape[-1]
    pad = (tgt != pad_idx).int().view(tgt.shape[0], 1, 1, length)
    causal = (torch.arange(length, device=tgt.device)[None, :] <= torch.arange(length, device=tgt.device)[:, None]).int()
    return torch.minimum(pad, causal).bool()


@right("make_tgt_mask")
def tgt_mask_expand(tgt, pad_idx=0):
    length = tgt.size(-1)
    pad = make_pad_mask(tgt, pad_idx=pad_idx).expand(-1, -1, length, -1)
    return torch.logical_and(pad, make_subsequent_mask(length, tgt.device))
