"""Walkthrough of 06-masks: realistic wrong answers to make_pad_mask, make_subsequent_mask, make_tgt_mask."""
from tests.walkthrough import Mistake

NB = "06-masks"

ROWS = [
    # ------------------------------------------------------------------ make_pad_mask
    Mistake(notebook=NB, unit="make_pad_mask", what="new axes on the query side: keep[:, None, :, None]", code='''
def make_pad_mask(tokens, pad_idx=0):
    """(B, L) token ids -> bool (B, 1, 1, L): True at real tokens, False at padding."""
    keep = tokens != pad_idx
    mask = keep[:, None, :, None]
    return mask
''', expect="mask-pad-wrong-axis"),
    Mistake(notebook=NB, unit="make_pad_mask", what="True at padding: tokens == pad_idx", code='''
def make_pad_mask(tokens, pad_idx=0):
    """(B, L) token ids -> bool (B, 1, 1, L): True at real tokens, False at padding."""
    keep = tokens == pad_idx
    mask = keep[:, None, None, :]
    return mask
''', expect="mask-pad-inverted"),
    Mistake(notebook=NB, unit="make_pad_mask", what="compares with 0, not with pad_idx", code='''
def make_pad_mask(tokens, pad_idx=0):
    """(B, L) token ids -> bool (B, 1, 1, L): True at real tokens, False at padding."""
    keep = tokens != 0
    mask = keep[:, None, None, :]
    return mask
''', expect="wrong-values", helpful="partly", gives_away="no"),
    Mistake(notebook=NB, unit="make_pad_mask", what="one unsqueeze only: (B, 1, L)", code='''
def make_pad_mask(tokens, pad_idx=0):
    """(B, L) token ids -> bool (B, 1, 1, L): True at real tokens, False at padding."""
    keep = tokens != pad_idx
    mask = keep.unsqueeze(1)
    return mask
''', expect="mask-pad-wrong-axis"),
    Mistake(notebook=NB, unit="make_pad_mask", what="float mask: (tokens != pad_idx).float()", code='''
def make_pad_mask(tokens, pad_idx=0):
    """(B, L) token ids -> bool (B, 1, 1, L): True at real tokens, False at padding."""
    keep = (tokens != pad_idx).float()
    mask = keep[:, None, None, :]
    return mask
''', expect="shape"),
    Mistake(notebook=NB, unit="make_pad_mask", what="built on the CPU with torch.ones, not on the tokens' device", code='''
def make_pad_mask(tokens, pad_idx=0):
    """(B, L) token ids -> bool (B, 1, 1, L): True at real tokens, False at padding."""
    keep = torch.ones(tokens.shape, dtype=torch.bool)
    keep[tokens == pad_idx] = False
    mask = keep[:, None, None, :]
    return mask
''', expect="mask-fixed-device"),
    # ------------------------------------------------------------------ make_subsequent_mask
    Mistake(notebook=NB, unit="make_subsequent_mask", what="triu instead of tril: sees the future", code='''
def make_subsequent_mask(size, device=None):
    """bool (1, size, size): True on and below the diagonal (a query sees itself and the past)."""
    ones = torch.ones(size, size, dtype=torch.bool, device=device)
    allowed = torch.triu(ones)
    return allowed.unsqueeze(0)
''', expect="mask-causal-transposed"),
    Mistake(notebook=NB, unit="make_subsequent_mask", what="tril(ones, diagonal=-1): the diagonal blocked", code='''
def make_subsequent_mask(size, device=None):
    """bool (1, size, size): True on and below the diagonal (a query sees itself and the past)."""
    ones = torch.ones(size, size, dtype=torch.bool, device=device)
    allowed = torch.tril(ones, diagonal=-1)
    return allowed.unsqueeze(0)
''', expect="mask-causal-diagonal-blocked"),
    Mistake(notebook=NB, unit="make_subsequent_mask", what="triu(diagonal=1) as the mask: the blocked part marked True", code='''
def make_subsequent_mask(size, device=None):
    """bool (1, size, size): True on and below the diagonal (a query sees itself and the past)."""
    ones = torch.ones(size, size, dtype=torch.bool, device=device)
    allowed = torch.triu(ones, diagonal=1)
    return allowed.unsqueeze(0)
''', expect="mask-causal-transposed"),
    Mistake(notebook=NB, unit="make_subsequent_mask", what="the Annotated Transformer's numpy triu (always on the CPU)", code='''
import numpy as np

def make_subsequent_mask(size, device=None):
    """bool (1, size, size): True on and below the diagonal (a query sees itself and the past)."""
    attn_shape = (1, size, size)
    future = np.triu(np.ones(attn_shape), k=1).astype("uint8")
    return torch.from_numpy(future) == 0
''', expect="mask-fixed-device"),
    Mistake(notebook=NB, unit="make_subsequent_mask", what="no leading axis: (size, size)", code='''
def make_subsequent_mask(size, device=None):
    """bool (1, size, size): True on and below the diagonal (a query sees itself and the past)."""
    ones = torch.ones(size, size, dtype=torch.bool, device=device)
    allowed = torch.tril(ones)
    return allowed
''', expect="shape"),
    Mistake(notebook=NB, unit="make_subsequent_mask", what="float ones, tril, never made bool", code='''
def make_subsequent_mask(size, device=None):
    """bool (1, size, size): True on and below the diagonal (a query sees itself and the past)."""
    ones = torch.ones(size, size, device=device)
    allowed = torch.tril(ones)
    return allowed.unsqueeze(0)
''', expect="shape"),
    # ------------------------------------------------------------------ make_tgt_mask
    Mistake(notebook=NB, unit="make_tgt_mask", what="causal part made without device=", code='''
def make_tgt_mask(tgt, pad_idx=0):
    """(B, L) target ids -> bool (B, 1, L, L): no padding keys and no future keys."""
    pad = make_pad_mask(tgt, pad_idx)
    causal = make_subsequent_mask(tgt.size(-1))
    return pad & causal
''', expect="mask-fixed-device", helpful="yes", gives_away="partly"),
    Mistake(notebook=NB, unit="make_tgt_mask", what="only the triangle, expanded to (B, 1, L, L): no padding", code='''
def make_tgt_mask(tgt, pad_idx=0):
    """(B, L) target ids -> bool (B, 1, L, L): no padding keys and no future keys."""
    causal = make_subsequent_mask(tgt.size(-1), device=tgt.device)
    return causal.unsqueeze(0).expand(tgt.size(0), 1, -1, -1)
''', expect="mask-tgt-missing-pad"),
    Mistake(notebook=NB, unit="make_tgt_mask", what="OR instead of AND", code='''
def make_tgt_mask(tgt, pad_idx=0):
    """(B, L) target ids -> bool (B, 1, L, L): no padding keys and no future keys."""
    pad = make_pad_mask(tgt, pad_idx)
    causal = make_subsequent_mask(tgt.size(-1), device=tgt.device)
    return pad | causal
''', expect="mask-tgt-missing-causal", helpful="partly", gives_away="no"),
    Mistake(notebook=NB, unit="make_tgt_mask", what="float pad mask meets the bool triangle", code='''
def make_tgt_mask(tgt, pad_idx=0):
    """(B, L) target ids -> bool (B, 1, L, L): no padding keys and no future keys."""
    pad = (tgt != pad_idx).float()[:, None, None, :]
    causal = make_subsequent_mask(tgt.size(-1), device=tgt.device)
    return pad & causal
''', expect="runtime-error"),
    Mistake(notebook=NB, unit="make_tgt_mask", what="pad_idx not passed on: make_pad_mask(tgt)", code='''
def make_tgt_mask(tgt, pad_idx=0):
    """(B, L) target ids -> bool (B, 1, L, L): no padding keys and no future keys."""
    pad = make_pad_mask(tgt)
    causal = make_subsequent_mask(tgt.size(-1), device=tgt.device)
    return pad & causal
''', expect="wrong-values", helpful="partly", gives_away="no"),
    Mistake(notebook=NB, unit="make_tgt_mask", what="causal part sized by the batch: tgt.size(0)", code='''
def make_tgt_mask(tgt, pad_idx=0):
    """(B, L) target ids -> bool (B, 1, L, L): no padding keys and no future keys."""
    pad = make_pad_mask(tgt, pad_idx)
    causal = make_subsequent_mask(tgt.size(0), device=tgt.device)
    return pad & causal
''', expect="runtime-error"),
    Mistake(notebook=NB, unit="make_tgt_mask", what="only the padding mask", code='''
def make_tgt_mask(tgt, pad_idx=0):
    """(B, L) target ids -> bool (B, 1, L, L): no padding keys and no future keys."""
    pad = make_pad_mask(tgt, pad_idx)
    return pad
''', expect="mask-tgt-missing-causal"),
    Mistake(notebook=NB, unit="make_tgt_mask", what="right make_tgt_mask on the learner's float make_pad_mask", code='''
def make_pad_mask(tokens, pad_idx=0):  # the learner's own, from the cell above: a float mask
    return (tokens != pad_idx).float()[:, None, None, :]


def make_tgt_mask(tgt, pad_idx=0):
    """(B, L) target ids -> bool (B, 1, L, L): no padding keys and no future keys."""
    pad = make_pad_mask(tgt, pad_idx)
    causal = make_subsequent_mask(tgt.size(-1), device=tgt.device)
    return pad & causal
''', expect="runtime-error"),
]
