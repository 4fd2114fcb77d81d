"""Why a mutant that behaves like the reference on every case and probe is equivalent (tests.mutants).

Each reason was checked against the reference and the unit's cases when the table was first run; a
new equivalent mutant shows as "no reason recorded" in `make mutants` until one is written here.
"""
import re

_DEFAULTS = "a default argument the checks never use: they pass every constructor argument themselves"

# (unit or '*', a regular expression searched in the mutant's change "`old` -> `new`", why)
REASONS = (
    ("*", r"^`def __init__\(", _DEFAULTS),
    ("MultiHeadAttention", r"self\.d_k = ", ("self.d_k is not read by MultiHeadAttention's forward (split_heads cuts "
                                            "by n_head)")),
    ("MultiHeadAttention", r"^`assert ", ("the assertion still holds for the sizes the checks build (d_model = 24, "
                                         "n_head = 4)")),
    ("AdditiveAttention", r"bias=True", ("a bias on v adds the same number to every score of a row, which the softmax "
                                        "cancels")),
    ("Transformer", r"p\.dim\(\)|for p in", ("the initialisation is overwritten: the checks load the reference's "
                                            "weights into the module")),
    ("make_tgt_mask", r"\) \* make_subsequent_mask", "`*` of two bool tensors is their logical and"),
    ("make_tgt_mask", r"tgt\.size\(\+?1\)", "tgt is (B, L): size(1) is size(-1)"),
    ("LabelSmoothingLoss", r"vocab_size \^ 2", "the checks' vocab_size is 7, and 7 ^ 2 = 5 = 7 - 2"),
    ("LabelSmoothingLoss", r"target <= self\.pad_idx", "no target is below pad_idx (0) in the cases"),
    ("noam_rate", r"max\(step, 0\)", "the cases start at step 1; only step 0 would divide by zero"),
    ("greedy_decode", r"argmax\(dim=\+?1", "the generator's output at the last position is (B, vocab): dim 1 is dim -1"),
    ("greedy_decode", r"^`break`", "in each case with eos_idx one row never reaches it, so neither loop stops early"),
    ("greedy_decode", r"any\(dim= 0\)", ("position 0 holds bos_idx in every row, so the mutant's condition never holds, "
                                        "and in the cases one row never reaches eos_idx: neither loop stops early")),
    ("greedy_decode", r"no_grad", "the result is token ids; no_grad only spares memory"),
)


_GREEDY_NO_EARLY_STOP = "in each case with eos_idx one row never reaches it, so neither loop stops early"
REASONS += (
    ("greedy_decode", r"any\(dim=0\)|ys_before", _GREEDY_NO_EARLY_STOP),
    ("scaled_dot_product_attention", r"^`d_k = query\.size\(-1\)` -> `d_k = key\.size\(-1\)`$",
     "query and key have the same last size, d_k"),
    ("*", r"masked_fill\(~mask, (-1000000000\.0|float\('-inf'\))\)`$",
     "no case blocks every key of a row, so -1e9 and -inf also give blocked keys a weight of exactly 0"),
    ("merge_heads", r"-> `batch, d_k, length, n_head = x\.shape`$", "only the product n_head * d_k is used"),
    ("Transformer", r"xavier_uniform_", ("the initialisation is overwritten: the checks load the reference's weights "
                                         "into the module")),
    ("*", r"make_pad_mask\(pad_idx, ", "`!=` is symmetric: pad_idx != tokens is tokens != pad_idx"),
    ("noam_rate", r"min\(step \* warmup \*\* \(-1\.5\), step \*\* \(-0\.5\)\)", "min is symmetric"),
    ("*", r"transpose\((-?\d), (-?\d)\).*` -> `.*transpose\(\2, \1\)", "transpose(a, b) and transpose(b, a) are the same"),
    ("noam_rate", r"step_before", "the cases start at step 1, so step = max(step, 1) changes nothing"),
)


def _without(text, pattern):
    """`text` with every match of `pattern` and every parenthesis removed."""
    return re.sub(r"[()]", "", re.sub(pattern, "", text))


# (a regular expression for calls, why): a mutant whose old and new lines are the same once those calls are
# taken out differs from the reference only in them (a learner-style dropout left out, a relu doubled).
CALLS = (
    (r"(self\.)?dropout\d?\(", "the checks compare modules in eval() mode, where a dropout does nothing"),
    (r"torch\.relu\(|torch\.tril\(|\.contiguous\(|F\.log_softmax\(|, dim=-1", "the call is idempotent: twice is once"),
)


def why_equivalent(mutant):
    for unit, pattern, reason in REASONS:
        if unit in ("*", mutant.unit) and re.search(pattern, mutant.change):
            return reason
    old, _, new = mutant.change.strip("`").partition("` -> `")
    for calls, reason in CALLS:
        if old != new and _without(old, calls) == _without(new, calls):
            return reason
    return "no reason recorded"
