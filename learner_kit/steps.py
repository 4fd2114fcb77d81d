"""The reference's steps, named as the exercise names them (issue 48).

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

learner_kit.locate says where a learner's computation parts from the reference's by comparing two records of
learner_kit.trace, operator by operator. An operator alone is a poor name for a place ("the reference's division
of a part or view of its matrix product"): the exercise calls that step "the scores divided by √d_k". Each entry
below labels a step of one unit's reference computation by what its notebook calls it, in the words of the
notebook's formula or shape table (the Korean words, in learner_kit/locales/ko/steps.py, are the Korean
notebooks' and GLOSSARY.md's).

A step is found in the reference's record by its operator and its occurrence among the record's operators of that
kind (1: the first, -1: the last): ``("matmul", 1, "the scores Q·Kᵀ")``. The reference's code is not changed and its
stored records (learner_kit/fingerprints) keep what they hold: a label is read off the record, when a message is
written, and a step that is not where the table says (another operator, fewer occurrences) simply has no label, so
the message falls back to the operator's own words. Nothing here is a solution: the stored records already list
the reference's operators, and each label is the notebook's own name for a step it describes.
"""

# operators that a label's kind stands for (the ATen operators a `@` becomes, by the shapes it gets)
KINDS = {"matmul": frozenset({"mm", "bmm", "matmul", "addmm", "baddbmm"}),
         "not": frozenset({"bitwise_not", "logical_not"}), "and": frozenset({"bitwise_and", "logical_and"})}

_ATTENTION = (
    ("matmul", 1, "the unscaled scores Q·Kᵀ"),
    ("div", 1, "the scores divided by √d_k"),
    ("not", 1, "the blocked pairs `~mask`"),
    ("masked_fill", 1, "the masked scores"),
    ("softmax", 1, "the attention weights (the softmax over the keys)"),
    ("matmul", 2, "the output (the weights times the values)"),
)
_HEADS = (
    ("transpose", 1, "the queries split into heads"),
    ("transpose", 2, "the keys split into heads"),
    ("transpose", 3, "the values split into heads"),
    ("transpose", 4, "the keys' transpose Kᵀ"),
    ("view", -1, "the heads merged back"),
)
_ADDITIVE = (
    ("add", 1, "the sums W_q q + W_k k over every query and key pair"),
    ("tanh", 1, "the hidden vectors tanh(W_q q + W_k k)"),
    ("squeeze", 1, "the scores v·tanh(W_q q + W_k k)"),
    ("not", 1, "the blocked pairs `~mask`"),
    ("masked_fill", 1, "the masked scores"),
    ("softmax", 1, "the attention weights (the softmax over the keys)"),
    ("mul", 1, "the weights after dropout"),
    ("matmul", 1, "the output (the weights times the values)"),
)

_DECODING_STEPS = 16  # greedy_decode's steps labelled: more than any case's max_len

STEPS = {
    "scaled_dot_product_attention": (("transpose", 1, "the keys' transpose Kᵀ"), *_ATTENTION,
                                     ("mul", 1, "the weights after dropout")),
    "MultiHeadAttention": (*_HEADS, *_ATTENTION),
    "AdditiveAttention": _ADDITIVE,
    "AdditiveMultiHeadAttention": _HEADS[:3] + _HEADS[4:],
    "LayerNorm": (
        ("mean", 1, "the mean μ over the last axis"),
        ("var", 1, "the variance σ² over the last axis"),
        ("sub", 1, "the centred input x − μ"),
        ("mul", 1, "the centred input times γ"),
        ("add", 1, "the variance plus ε"),
        ("sqrt", 1, "the standard deviation √(σ² + ε)"),
        ("div", 1, "the normalised input times γ"),
        ("add", 2, "the output γ·x̂ + β"),
    ),
    "AddNorm": (("add", 1, "the residual sum x + dropout(sublayer_out)"),),
    "EncoderLayer": (
        ("add", 1, "the self-attention sublayer's residual sum"),
        ("add", 2, "the feed-forward sublayer's residual sum"),
    ),
    "DecoderLayer": (
        ("add", 1, "the masked self-attention sublayer's residual sum"),
        ("add", 2, "the cross-attention sublayer's residual sum"),
        ("add", 3, "the feed-forward sublayer's residual sum"),
    ),
    "PositionwiseFeedForward": (("relu", 1, "the hidden activations ReLU(w_1(x))"),),
    "Embeddings": (("mul", 1, "the embeddings times √d_model"),),
    "PositionalEncoding": (
        ("arange", 1, "the positions 0, 1, …"),
        ("arange", 2, "the even feature indices 2i"),
        ("mul", 1, "the exponents of the frequencies ω_i"),
        ("zeros", 1, "the positional-encoding table `pe`"),
        ("exp", 1, "the frequencies ω_i"),
        ("mul", 2, "the angles pos · ω_i"),
        ("sin", 1, "the sines (the even columns of `pe`)"),
        ("mul", 3, "the angles pos · ω_i"),
        ("cos", 1, "the cosines (the odd columns of `pe`)"),
        ("add", 1, "`x` plus the first L rows of `pe`"),
    ),
    "Generator": (("log_softmax", 1, "the log-probabilities (the log-softmax over the vocabulary)"),),
    "make_pad_mask": (("ne", 1, "the padding mask (True where a token is not padding)"),),
    "make_subsequent_mask": (("ones", 1, "a square of True values"),
                             ("tril", 1, "the look-ahead mask (True on and below the diagonal)")),
    "make_tgt_mask": (
        ("ne", 1, "the padding mask (True where a token is not padding)"),
        ("ones", 1, "a square of True values"),
        ("tril", 1, "the look-ahead mask (True on and below the diagonal)"),
        ("and", 1, "the target mask (the padding mask AND the look-ahead mask)"),
    ),
    "make_batch": (
        ("slice", 1, "the decoder's input `tgt_in` (tgt without its last token)"),
        ("slice", 2, "the expected output `tgt_out` (tgt without its first token)"),
        ("ne", 1, "the padding mask of `src`"),
        ("ne", 2, "the padding mask of `tgt_in`"),
        ("ones", 1, "a square of True values"),
        ("tril", 1, "the look-ahead mask (True on and below the diagonal)"),
        ("and", 1, "the target mask `tgt_mask` (the padding mask of `tgt_in` AND the look-ahead mask)"),
        ("ne", 3, "the real (non-padding) tokens of `tgt_out`"),
        ("sum", 1, "the count `n_tokens`"),
    ),
    # numbers traced as 0-dim tensors (autograder/checks/train.py): max(step, 1) and min(...) compare with `lt`
    "noam_rate": (
        ("lt", 1, "the comparison max(step, 1) makes (step 0 read as step 1)"),
        ("pow", 1, "the scale d_model^−0.5"),
        ("mul", 1, "factor times the scale d_model^−0.5"),
        ("pow", 2, "the decay term step^−0.5"),
        ("pow", 3, "warmup^−1.5"),
        ("mul", 2, "the warm-up term step · warmup^−1.5"),
        ("lt", 2, "the comparison the formula's min(...) makes between the two terms"),
        ("mul", 3, "the rate, factor · d_model^−0.5 · min(...)"),
    ),
    # every decoding step repeats the same operators: each occurrence gets the step's name
    "greedy_decode": (
        ("full", 1, "the start tokens `ys` (every row bos_idx)"),
        *(step for n in range(1, _DECODING_STEPS + 1) for step in (
            ("ones", n, "a square of True values"),
            ("tril", n, "the look-ahead mask for the tokens so far"),
            ("select", n, "the last position's vector"),
            ("argmax", n, "the next token (the argmax of the log-probabilities)"),
            ("cat", n, "`ys` with the next token appended"))),
    ),
    "LabelSmoothingLoss": (
        ("scatter", 1, "the smoothed target distribution with its padding not yet zeroed"),
        ("eq", 1, "the rows whose target is padding"),
        ("index_put", 1, "the smoothed target distribution"),
        ("sub", 1, "the terms of the KL divergence"),
        ("sum", -1, "the loss (the summed KL divergence)"),
    ),
}


def said(label):
    """A label in the language messages are written in now (its Korean text in learner_kit/locales/ko/steps.py)."""
    from learner_kit import i18n

    lang = i18n.language()
    return label if lang == i18n.DEFAULT else i18n.translations(lang).get(label, label)


def every_label():
    """Every label of the table, once each."""
    return sorted({text for steps in STEPS.values() for _, _, text in steps})


def _kind_of(op_name):
    for kind, names in KINDS.items():
        if op_name in names:
            return kind
    return op_name.rstrip("_") or op_name


def labels(unit, ops):
    """{index of a step in `ops` (a reference record's operators): its English label} for `unit`; {} for a unit
    with no labels. Only entries whose operator is where the table says are given."""
    found = {}
    if not isinstance(unit, str) or not isinstance(ops, list):
        return found
    by_kind = {}
    for index, op in enumerate(ops):
        if isinstance(op, dict) and isinstance(op.get("op"), str):
            by_kind.setdefault(_kind_of(op["op"]), []).append(index)
    for kind, occurrence, label in STEPS.get(unit, ()):
        indices = by_kind.get(kind, [])
        at = occurrence - 1 if occurrence > 0 else len(indices) + occurrence
        if 0 <= at < len(indices):
            found.setdefault(indices[at], label)
    return found


def kinds_of_label(label):
    """The operator names a label stands for in any unit (for tests that read a message back)."""
    names = set()
    for steps in STEPS.values():
        for kind, _, text in steps:
            if text == label:
                names |= KINDS.get(kind, {kind, kind + "_"})
    return names
