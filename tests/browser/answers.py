"""What the browser suite's learner types into notebook 01's answer cell: a typical mistake, then the fix.

Written from the course's contract (COURSE.md), not copied from solutions/: the suite types what a
learner would, and the instructor's side grades the same wrong answer.
"""
WRONG = '''def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    dropped = dropout(weights) if dropout is not None else weights
    return dropped @ value, weights
'''
WRONG_ID = "[sdpa-no-scale]"  # the misconception the wrong answer makes (COURSE.md, section 4)

RIGHT = WRONG.replace("scores = query @ key.transpose(-2, -1)", "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)")
assert RIGHT != WRONG

UNIT = "scaled_dot_product_attention"
ASSIGNMENT = "01-attention"
