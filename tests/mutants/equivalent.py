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


def why_equivalent(mutant):
    for unit, pattern, reason in REASONS:
        if unit in ("*", mutant.unit) and re.search(pattern, mutant.change):
            return reason
    return "no reason recorded"
