"""Walkthrough of 01-attention: scaled_dot_product_attention, one realistic mistake at a time.

Each row's code is the learner's whole answer cell: the cell as given, its blanks filled as
the learner filled them (`_answer` puts the learner's lines into the blanks; a keyword left
out is answered right).
"""
from tests.walkthrough import Mistake

NOTEBOOK = "01-attention"
UNIT = "scaled_dot_product_attention"

RIGHT = {
    "d_k": "d_k = query.size(-1)",
    "scores": "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
    "mask": "scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)",
    "weights": "weights = torch.softmax(scores, dim=-1)",
    "dropped": "dropped = dropout(weights) if dropout is not None else weights",
    "output": "output = dropped @ value",
    "returned": "return output, weights",
}


def _answer(**lines):
    """The answer cell with the learner's lines in its blanks (several lines: one string with newlines)."""
    got = {**RIGHT, **lines}

    def blank(name, indent):
        return "\n".join(indent + line for line in got[name].splitlines())

    return f'''def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    """softmax(Q Kᵀ / sqrt(d_k)) V.

    query (..., L_q, d_k), key (..., L_k, d_k), value (..., L_k, d_v);
    mask: bool, broadcastable to (..., L_q, L_k), True = may attend;
    dropout: an nn.Dropout applied to the weights, or None.
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k)).
    """
    # d_k: the size of the last axis of query (a Python int)
{blank("d_k", "    ")}

    # scores: query (..., L_q, d_k) and key (..., L_k, d_k) -> (..., L_q, L_k),
    # every query dotted with every key, divided by sqrt(d_k)
{blank("scores", "    ")}

    if mask is not None:
        # scores (..., L_q, L_k) -> (..., L_q, L_k): where mask is False (blocked),
        # replace the score by -inf or the dtype's most negative number
{blank("mask", "        ")}

    # weights: scores (..., L_q, L_k) -> (..., L_q, L_k), softmax over the keys: each row sums to 1
{blank("weights", "    ")}

    # dropped: (..., L_q, L_k), dropout(weights) if a dropout module was given, else weights itself
{blank("dropped", "    ")}

    # output: dropped (..., L_q, L_k) times value (..., L_k, d_v) -> (..., L_q, d_v)
{blank("output", "    ")}
{blank("returned", "    ")}
'''


def _row(what, expect, helpful="yes", gives_away="no", **lines):
    return Mistake(notebook=NOTEBOOK, unit=UNIT, what=what, code=_answer(**lines), expect=expect,
                   helpful=helpful, gives_away=gives_away)


ROWS = [
    _row("softmax over dim=-2, blocked scores set to -inf", "sdpa-softmax-dim",
         mask='scores = scores.masked_fill(mask == 0, float("-inf"))', weights="weights = F.softmax(scores, dim=-2)"),
    _row("softmax over dim=-2, blocked scores set to finfo.min", "sdpa-softmax-dim",
         weights="weights = torch.softmax(scores, dim=-2)"),
    _row("softmax over dim=1 (the query axis of 3-D inputs only)", "sdpa-softmax-dim",
         weights="weights = scores.softmax(dim=1)"),
    _row("no scaling at all", "sdpa-no-scale", scores="scores = torch.matmul(query, key.transpose(-2, -1))"),
    _row("divides by d_k instead of sqrt(d_k)", "sdpa-scale-dk", scores="scores = query @ key.transpose(-2, -1) / d_k"),
    _row("`key.T` (reverses every axis)", "sdpa-key-transpose", scores="scores = query @ key.T / math.sqrt(d_k)", helpful="yes", gives_away="partly"),
    _row("key.transpose(1, 2): right for 3-D inputs, wrong for 4-D", "sdpa-key-transpose",
         scores="scores = query @ key.transpose(1, 2) / math.sqrt(d_k)", helpful="yes", gives_away="partly"),
    _row("key.permute(0, 2, 1): written for 3-D inputs only", "runtime-error",
         scores="scores = query @ key.permute(0, 2, 1) / math.sqrt(d_k)", helpful="partly", gives_away="no"),
    _row("torch.bmm, which takes 3-D tensors only", "runtime-error",
         scores="scores = torch.bmm(query, key.transpose(-2, -1)) / math.sqrt(d_k)", helpful="partly", gives_away="no"),
    _row("d_k read from the query-length axis", "property-violated",
         d_k="d_k = query.size(-2)", helpful="yes", gives_away="partly"),
    _row("mask inverted: blocks where the mask is True", "sdpa-mask-inverted",
         mask='scores = scores.masked_fill(mask, float("-inf"))'),
    _row("blocked scores set to 0", "sdpa-mask-fill-zero", mask="scores = scores.masked_fill(mask == 0, 0)"),
    _row("blocked scores multiplied by the mask (0 for blocked)", "sdpa-mask-fill-zero", mask="scores = scores * mask"),
    _row("masked_fill's result thrown away", "sdpa-mask-ignored", mask="scores.masked_fill(~mask, -1e9)", helpful="yes", gives_away="partly"),
    _row("mask applied to the weights after the softmax", "sdpa-mask-after-softmax",
         mask="pass", weights="weights = torch.softmax(scores, dim=-1)\nif mask is not None:\n    weights = weights * mask"),
    _row("the scores returned as the weights", "sdpa-returns-scores", returned="return output, scores"),
    _row("`masked_fil` (a typo, as in a learner's notebook)", "runtime-error",
         mask="scores = scores.masked_fil(mask == 0, -1e9)"),
    _row("returns the weights after dropout", "property-violated",
         dropped="if dropout is not None:\n    weights = dropout(weights)\ndropped = weights", helpful="yes", gives_away="partly"),
    _row("dropout applied to the output instead of the weights", "property-violated",
         dropped="dropped = weights", output="output = dropped @ value\nif dropout is not None:\n    output = dropout(output)", helpful="yes", gives_away="partly"),
    _row("dropout never applied", "property-violated", dropped="dropped = weights", helpful="yes", gives_away="partly"),
    _row("F.scaled_dot_product_attention does the work", "forbidden-builtin",
         output="output = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)"),
    _row("a blank left", "not-implemented", output="# YOUR CODE HERE\nraise NotImplementedError()"),
]
