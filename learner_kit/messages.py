"""Every message a check can show a learner, by misconception id.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

One catalogue for the visible checks (learner_kit.visible) and the hidden ones
(autograder.checks): id -> (what is wrong, in one line; why it matters and a hint, in a
sentence or two). The ids are those of ../shared/COURSE.md section 4, plus four generic
ones (EXTRA_IDS) for failures that no specific id describes. Hints point to the idea,
never to the code of the answer. Each text lives in its mistake's entry in
learner_kit/mistakes.py, with the mistake's Korean text, its knob and its notebook section.
"""
import difflib
import importlib
import re

from learner_kit.i18n import DEFAULT, language, tr
from learner_kit.mistakes import texts

# id -> (what is wrong, why it matters and a hint): the English texts of learner_kit/mistakes.py's entries.
CATALOGUE = texts("en")

# Ids of the checks library that COURSE.md section 4 does not list: used when no listed id fits.
EXTRA_IDS = ("wrong-values", "wrong-gradients", "wrong-interface", "property-violated")


def format_message(mistake_id, detail=""):
    """'[id] what is wrong' / why it matters and a hint / the detail of this case, if any.

    `mistake_id` may be a tuple of ids (several mistakes at once): each gets its two lines.
    """
    ids = tuple(mistake_id) if isinstance(mistake_id, (tuple, list)) else (mistake_id,)
    lines, catalogue = [], catalogue_of(language())
    for one in ids:
        what, why = catalogue.get(one, (tr("Something is wrong."), ""))
        lines += [f"[{one}] {what}", why]
    lines.append(detail)
    return "\n".join(line for line in lines if line)


def catalogue_of(lang):
    """The catalogue in ``lang``: learner_kit/locales/<lang>/catalogue.py's CATALOGUE, by the same ids."""
    if lang == DEFAULT:
        return CATALOGUE
    return importlib.import_module(f"learner_kit.locales.{lang}.catalogue").CATALOGUE


def _float_size():
    return tr("A size reached PyTorch as a float: a number such as the dropout rate went where a whole number "
              "belongs (d_model, d_ff, max_len, n_layers …). Compare the arguments of the call on that line, in "
              "order, with the parameters of the class it builds, or pass them by name (dropout=dropout).")

# Common causes of errors, found by the exception's type and text: (type name, text, hint), the hint
# a function that says it in the learner's language when it is asked.
_ERROR_HINTS = (
    ("", "cannot be multiplied", lambda: tr(
        "The two sides of a matrix product do not line up: print both shapes. Two different sizes meeting "
        "(d_model where d_k is meant, or the reverse) mean a layer or a split of the wrong size; two axes of "
        "one tensor meeting mean a transpose of the wrong axes.")),
    ("", "expected size for first two dimensions of batch2", lambda: tr(
        "The two sides of a batched matrix product do not line up: print both shapes; the leading (batch) "
        "axes must agree and only the last two meet. A transpose of the wrong axes (or `.T`, which reverses "
        "them all) does this.")),
    ("", "must match the size of tensor", lambda: tr(
        "Two tensors do not line up: print their shapes and check which axes should meet.")),
    ("", "index tensor must have the same number of dimensions", lambda: tr(
        "gather and scatter need an index with as many axes as the tensor they work on: an index of shape "
        "(N,) for an (N, V) tensor needs an axis added, (N, 1).")),
    ("", "tensors must have same number of dimensions", lambda: tr(
        "Two tensors joined here have different numbers of axes. A reduction (sum, mean, max, argmax) drops "
        "the axis it reduces unless keepdim=True keeps it with size 1.")),
    ("NotImplementedError", "not implemented for", lambda: tr(
        "This PyTorch operation does not take tensors of this dtype: print the dtypes of its inputs (a mask "
        "is bool; `&` and `|` need bool or integer tensors).")),
    ("NotImplementedError", "missing the required \"forward\"", lambda: tr(
        "A module is called that has no `forward` method: check the spelling of `def forward` and its "
        "indentation inside the class.")),
    ("", "view size is not compatible", lambda: tr(
        ".view needs memory laid out in order, which a transpose breaks; .reshape (or .contiguous() first) "
        "copes with that.")),
    ("", "is invalid for input of size", lambda: tr(
        "A view or reshape asks for a shape whose size differs from the tensor's: check the sizes you compute.")),
    ("", "number of dims don't match in permute", lambda: tr(
        "permute needs one entry per axis, and the inputs may have more axes than you expect: count axes "
        "from the end.")),
    ("", "dimension out of range", lambda: tr(
        "An axis index is too large for this tensor; negative axes (-1, -2) count from the end and work for "
        "any number of leading axes.")),
    ("", "expected scalar type", lambda: tr(
        "A tensor made inside your code has a fixed dtype: create it with the inputs' dtype, or use a plain "
        "Python number.")),
    ("", "same device", lambda: tr(
        "A tensor made inside your code lives on a fixed device: create it on the inputs' device.")),
    ("", "in-place operation", lambda: tr(
        "An in-place change (an operation ending in _, or x /= …) hits a tensor autograd needs: work on a new "
        "tensor instead.")),
    # A float where PyTorch wants a size (torch.zeros(0.1, d), nn.Linear(d, 0.1), range(0.1)): before the
    # signature hint, which the first of these would otherwise get.
    *(("TypeError", fragment, _float_size) for fragment in (
        "must be tuple of ints, but found element of type float", "'float' object cannot be interpreted as an integer",
        "zeros() takes 1 positional argument", "ones() takes 1 positional argument", "empty() takes 1 positional argument")),
    ("TypeError", "positional argument", lambda: tr(
        "The call does not fit your signature: keep the parameters, and their order, exactly as the exercise "
        "gives them.")),
    ("TypeError", "unexpected keyword argument", lambda: tr(
        "The call does not fit your signature: keep the parameter names exactly as the exercise gives them.")),
    ("TypeError", "must be Tensor, not", lambda: tr(
        "Something that is not a tensor went where a tensor belongs. If it is a module, `nn.ReLU(h)` (say) "
        "builds a module, taking h as a setting, instead of applying one to h: build the module first, then "
        "call it on the tensor (or use the function form).")),
    ("AttributeError", "'NoneType' object", lambda: tr(
        "Something returned None: is a `return` missing in a function you call?")),
    ("NameError", "", lambda: tr(
        "A name is used before it exists: define it inside your function, or run the cell that defines it "
        "first.")),
)


def hint_for_error(error):
    """A sentence about the usual cause of `error`, or ''."""
    kind, text = type(error).__name__, str(error)
    if isinstance(error, AttributeError):
        misspelt = _misspelt_attribute(text)
        if misspelt:
            return misspelt
    for hint_kind, fragment, hint in _ERROR_HINTS:
        if (not hint_kind or hint_kind == kind) and fragment.lower() in text.lower():
            return hint()
    return ""


def _misspelt_attribute(text):
    """'Is it a misspelling of masked_fill?' when an AttributeError names a near miss of a torch name."""
    import torch  # here, so that importing this catalogue stays cheap

    found = re.search(r"has no attribute '([^']+)'", text)
    if found is None:
        return ""
    name = found.group(1)
    known = set(dir(torch.Tensor)) | set(dir(torch)) | set(dir(torch.nn.functional))
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
    if close and close[0] != name:
        return tr("`{name}` does not exist: is it a misspelling of `{close}`?", name=name, close=close[0])
    return ""


class TestFailed(AssertionError):
    """A failed test of the course, in a notebook: IPython shows its message alone, as
    `AssertionError: <message>` (the message names the mistake and the learner's line), not the
    frames of the test cell and of learner_kit above it (IPython asks for _render_traceback_)."""

    __test__ = False  # not a test class, for pytest

    def _render_traceback_(self):
        return [f"\x1b[0;31mAssertionError\x1b[0m: {self}"]  # IPython's red for the exception's name
