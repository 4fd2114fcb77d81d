"""Seeded inputs for the families' cases: tensors and masks, made in float64 on the CPU.

Cases are made once in float64 and cast (harness.Case.to) for the float32 aspects, so a
float32 case and its float64 twin hold the same numbers. Masks follow COURSE.md (bool,
True = may attend) and never have a row that is all True or all False: such rows would
hide the inverted-mask mistake (its -inf variant turns them into NaN) and are unspecified
by the contract anyway.
"""
import torch


def normal(seed, **shapes):
    """{name: standard normal float64 tensor of that shape}, drawn in order from one seed."""
    generator = torch.Generator().manual_seed(seed)
    return {name: torch.randn(shape, generator=generator, dtype=torch.float64) for name, shape in shapes.items()}


def attention_inputs(seed, lead, l_q, l_k, d_k, d_v, mask=None, dropout=None, grad=False):
    """query (*lead, l_q, d_k), key (*lead, l_k, d_k), value (*lead, l_k, d_v), then mask and dropout if given.

    Arguments go positionally, so a dropout comes with its mask (None or not) before it.
    """
    args = normal(seed, query=(*lead, l_q, d_k), key=(*lead, l_k, d_k), value=(*lead, l_k, d_v))
    if grad:
        args = needing_grad(args)
    if mask is not None or dropout is not None:
        args["mask"] = mask
    if dropout is not None:
        args["dropout"] = dropout
    return args


def padding_mask(lengths, length):
    """(B, 1, 1, length): True for the first lengths[b] keys of batch row b."""
    return (torch.arange(length) < torch.tensor(lengths)[:, None])[:, None, None, :]


def mixed_mask(seed, shape):
    """A random bool mask of `shape` with at least one True and one False in every row."""
    generator = torch.Generator().manual_seed(seed)
    mask = torch.rand(shape, generator=generator) < 0.5
    rows, width = mask[..., 0].numel(), shape[-1]
    flat = mask.reshape(rows, width)
    keep = torch.randint(width, (rows,), generator=generator)
    drop = (keep + 1 + torch.randint(width - 1, (rows,), generator=generator)) % width
    flat[torch.arange(rows), keep] = True
    flat[torch.arange(rows), drop] = False
    return flat.reshape(shape)


def staircase_mask(rows, cols):
    """(rows, cols) with cols > rows: row i sees keys 0 … i + 1, like a causal mask with a prefix."""
    return torch.arange(cols)[None, :] <= torch.arange(rows)[:, None] + 1


def needing_grad(tensors):
    """The same tensors as leaves that require grad."""
    return {name: t.detach().clone().requires_grad_() for name, t in tensors.items()}
