"""Every message a check can show a learner, by misconception id.

Decides grades: the hidden checks, grading or the sandbox import it (tests/test_learner_kit_imports.py).

One catalogue for the visible checks (learner_kit.visible) and the hidden ones
(autograder.checks): id -> (what is wrong, in one line; why it matters and a hint, in a
sentence or two). The ids are those of ../shared/COURSE.md section 4, plus four generic
ones (EXTRA_IDS) for failures that no specific id describes. Hints point to the idea,
never to the code of the answer.
"""
import difflib
import importlib
import re

from learner_kit.i18n import DEFAULT, language, tr

CATALOGUE = {
    # ------------------------------------------------ scaled_dot_product_attention
    "sdpa-no-scale": (
        "The scores match Q·Kᵀ without the 1/√d_k factor.",
        "Without scaling, dot products grow with d_k and push the softmax into a nearly one-hot "
        "region where gradients vanish. Look again at where the paper puts 1/√d_k.",
    ),
    "sdpa-scale-dk": (
        "The scores are divided by d_k, not by √d_k.",
        "A dot product of d_k unit-variance terms has variance d_k; the scaling should bring its "
        "standard deviation back to about 1. Dividing by d_k over-flattens the attention.",
    ),
    "sdpa-softmax-dim": (
        "The softmax normalises over the wrong axis (not over the keys).",
        "Each query needs a distribution over the keys, so each row of the weights (one query, "
        "axis -2) must sum to 1 over axis -1. Check which axis your softmax runs over.",
    ),
    "sdpa-mask-inverted": (
        "The mask is applied the wrong way round: positions marked True are blocked.",
        "In this course True means 'may attend' and False means 'blocked'. Check which positions "
        "your code changes.",
    ),
    "sdpa-mask-ignored": (
        "The mask has no effect on the result.",
        "Blocked keys (mask False) must get weight exactly 0. Make sure the masked scores are the "
        "ones you keep: masked_fill returns a new tensor and leaves its input as it was.",
    ),
    "sdpa-mask-after-softmax": (
        "The mask is applied after the softmax.",
        "Changing the weights after normalising leaves rows that no longer sum to 1 (or holds huge "
        "negative weights). Block positions while they are still scores, so that the softmax "
        "itself gives them weight 0.",
    ),
    "sdpa-mask-fill-zero": (
        "Blocked scores are set to 0 instead of a very negative number.",
        "A score of 0 still becomes a positive weight after the softmax (e⁰ = 1), so blocked keys "
        "keep receiving attention. Which score gives a weight of exactly 0 after exp?",
    ),
    "sdpa-key-transpose": (
        "The key is transposed on the wrong axes (or not at all).",
        "Q·Kᵀ pairs every query with every key, so only the last two axes of the key swap, "
        "whatever batch or head axes come first. Counting axes from the end makes the same code "
        "work for 3-D and 4-D inputs.",
    ),
    "sdpa-returns-scores": (
        "The weights you return are the scores before the softmax.",
        "The second result is the attention weights themselves: non-negative, each row summing to "
        "1 over the allowed keys. Return the tensor you multiply the values with.",
    ),
    # ------------------------------------------------ split/merge heads, MultiHeadAttention
    "heads-split-no-transpose": (
        "The heads are split by reshaping straight to (B, n_head, L, d_k).",
        "Memory is laid out as (B, L, d_model), so a direct reshape cuts across positions and "
        "mixes them inside a head. Cut the feature axis into heads where it is, then move the "
        "head axis.",
    ),
    "heads-merge-no-transpose": (
        "The heads are merged by reshaping straight to (B, L, d_model).",
        "In (B, n_head, L, d_k) the features of one position sit in different heads; flattening "
        "directly mixes positions. Bring the axes back to position-major order before flattening.",
    ),
    "mha-kv-use-wq": (
        "Keys or values are projected with w_q.",
        "Queries, keys and values each have their own projection (w_q, w_k, w_v); sharing w_q "
        "makes the heads compare and mix the wrong features. Check which layer you apply to each "
        "input.",
    ),
    "mha-no-output-proj": (
        "The output projection w_o is not applied.",
        "After the heads are merged, w_o mixes what the heads found back into d_model features. "
        "Check the last step of your forward.",
    ),
    "mha-scale-dmodel": (
        "The scores are scaled by √d_model instead of √d_k.",
        "Each head takes dot products of d_k-dimensional vectors, so the scaling uses the "
        "per-head size d_k = d_model // n_head.",
    ),
    "mha-qkv-swapped": (
        "The query, key and value arguments are used in the wrong roles.",
        "In cross-attention query, key and value are different tensors, and the key may be longer "
        "than the query. Check which argument goes through which projection, and the order of "
        "the parameters of forward.",
    ),
    # ------------------------------------------------ LayerNorm, AddNorm
    "layernorm-eps-outside-sqrt": (
        "eps is added outside the square root.",
        "nn.LayerNorm divides by √(var + eps); moving eps outside changes the result when the "
        "variance is small. Check where eps goes.",
    ),
    "layernorm-unbiased-var": (
        "The variance is the unbiased one (it divides by n − 1).",
        "Layer normalisation uses the biased variance (divide by n), as nn.LayerNorm does. "
        "torch.var's default is the unbiased one: look at its `correction` argument.",
    ),
    "layernorm-wrong-dim": (
        "The mean and variance are taken over the wrong axis.",
        "Each position is normalised over its own d_model features: the statistics run over the "
        "last axis and keep it, so that they broadcast back.",
    ),
    "layernorm-no-affine": (
        "gamma and beta are not applied.",
        "After normalising, LayerNorm scales by gamma and shifts by beta, learned per feature; "
        "without them the layer cannot undo the normalisation where that helps.",
    ),
    "addnorm-no-residual": (
        "The residual connection is missing: only the sublayer output is normalised.",
        "Add & Norm adds the sublayer's output to its input x before normalising; the residual "
        "path is what lets signal and gradients pass through deep stacks.",
    ),
    "addnorm-norm-before-add": (
        "The result is x + norm(sublayer_out) instead of norm(x + sublayer_out).",
        "In the paper's post-norm layout the sum of the input and the (dropped-out) sublayer "
        "output is what gets normalised.",
    ),
    # ------------------------------------------------ PositionwiseFeedForward
    "ffn-no-activation": (
        "There is no ReLU between the two linear layers.",
        "Two linear layers in a row are one linear map; the non-linearity between them is what "
        "lets the network compute more than that.",
    ),
    "ffn-activation-after-output": (
        "The ReLU is applied after the second linear layer.",
        "The activation belongs between w_1 and w_2; after w_2 it clips every negative output to "
        "0, which the residual stream needs.",
    ),
    # ------------------------------------------------ Embeddings, PositionalEncoding, Encoder
    "embed-no-scale": (
        "The embeddings are not scaled by √d_model: they come out multiplied by another factor, or by none.",
        "The paper scales the embeddings by √d_model so that the positional encoding, whose "
        "values lie in [−1, 1], does not drown them.",
    ),
    "pe-sin-cos-swapped": (
        "sin and cos are swapped.",
        "Even features (0, 2, 4, …) take the sine and odd features the cosine of the same angle.",
    ),
    "pe-wrong-frequency": (
        "The frequencies of the positional encoding are wrong.",
        "Feature pair i (features 2i and 2i+1) shares one frequency, 1 / 10000^(2i/d_model). Check "
        "the exponent and that both features of a pair use it.",
    ),
    "encoder-prenorm": (
        "The layer normalises before each sublayer (pre-norm), not after the residual add.",
        "This course follows the paper's post-norm layout: each sublayer's output is added to "
        "its input, and the sum is normalised.",
    ),
    "encoder-no-residual": (
        "A residual connection is missing in the encoder layer.",
        "Each sublayer's output is added to its input before the norm; without it, the layer "
        "forgets its input and deep stacks train badly.",
    ),
    "encoder-mask-ignored": (
        "The mask does not reach self-attention.",
        "Padding must stay invisible to every layer: pass the mask on to each layer and to its "
        "self-attention.",
    ),
    "encoder-shared-layers": (
        "The stack repeats one layer object instead of n_layers independent layers.",
        "Repeating the same object (for example with a list multiplied by n) shares its weights, "
        "so every layer is the same. Each layer needs its own parameters.",
    ),
    # ------------------------------------------------ masks
    "mask-causal-diagonal-blocked": (
        "The look-ahead mask also blocks the diagonal: a position cannot see itself.",
        "Position i may attend to positions 0 … i, itself included; only later positions are "
        "blocked.",
    ),
    "mask-causal-transposed": (
        "The look-ahead mask lets positions see the future and blocks the past.",
        "Rows are queries and columns keys: row i may see columns 0 … i. Check which triangle "
        "your mask keeps.",
    ),
    "mask-pad-wrong-axis": (
        "The padding mask has its new axes in the wrong place.",
        "Padding blocks keys, the last axis of the scores (B, n_head, L_q, L_k): the mask must "
        "broadcast over heads and queries and line up with the keys.",
    ),
    "mask-pad-inverted": (
        "The padding mask is True at padding.",
        "True means 'may attend': real tokens are True and padding is False.",
    ),
    "mask-tgt-missing-pad": (
        "The target mask blocks the future but not padding.",
        "The target mask combines both rules: a key is visible only if it is not padding and not "
        "in the future.",
    ),
    "mask-tgt-missing-causal": (
        "The target mask lets positions see the future.",
        "While training, the decoder sees the whole target at once; the look-ahead part of the "
        "mask is what stops position i from reading the tokens it must predict, whatever padding it also blocks.",
    ),
    "mask-fixed-device": (
        "The mask is created on a fixed device, not on the device of its input.",
        "On a GPU the mask must live where the scores are. Create it on the input's device (or the "
        "`device` argument).",
    ),
    # ------------------------------------------------ DecoderLayer, Decoder
    "decoder-cross-qkv-swapped": (
        "Cross-attention takes its queries from memory, or its keys and values from x.",
        "In cross-attention the decoder asks the questions: queries come from x, keys and values "
        "from the encoder's output (memory).",
    ),
    "decoder-masks-swapped": (
        "src_mask and tgt_mask are used in each other's place.",
        "Self-attention over the target uses tgt_mask; cross-attention over the source uses "
        "src_mask.",
    ),
    "decoder-self-attn-unmasked": (
        "The decoder's self-attention ignores the target mask, so positions see the future.",
        "Without the look-ahead mask, training lets each position read the token it must predict.",
    ),
    "decoder-sublayer-order": (
        "The decoder's sublayers run in the wrong order.",
        "A decoder layer runs masked self-attention, then cross-attention, then the feed-forward "
        "network, each with its own residual add and norm.",
    ),
    # ------------------------------------------------ Generator, Transformer
    "generator-softmax": (
        "The generator returns probabilities, not log-probabilities.",
        "The loss and greedy decoding expect log-probabilities over the vocabulary.",
    ),
    "generator-logits": (
        "The generator returns raw logits, not log-probabilities.",
        "After the projection the scores still need normalising over the vocabulary, in log space.",
    ),
    "generator-wrong-dim": (
        "The log-softmax normalises over the wrong axis.",
        "Each position needs a distribution over the vocabulary, the last axis.",
    ),
    "transformer-tgt-uses-src-embed": (
        "The target tokens are embedded with src_embed.",
        "Source and target have their own vocabularies and embeddings: the decoder's input goes "
        "through tgt_embed.",
    ),
    # ------------------------------------------------ additive attention
    "additive-no-tanh": (
        "The additive score has no tanh between the projections and v.",
        "The score is vᵀ tanh(W_q q + W_k k). With no non-linearity there, vᵀ(W_q q + W_k k) splits into a "
        "query part plus a key part, and a non-linearity after v keeps every query ranking the keys in the same "
        "order; a relu in the tanh's place computes another score than the paper's.",
    ),
    "additive-softmax-dim": (
        "The softmax normalises over the wrong axis (not over the keys).",
        "Each query needs a distribution over the keys: every row of the weights sums to 1.",
    ),
    "additive-mask-ignored": (
        "The mask has no effect on the additive attention.",
        "Blocked keys (mask False) must get weight exactly 0, as in scaled dot-product attention.",
    ),
    # ------------------------------------------------ capstone units
    "batch-no-shift": (
        "The decoder input and the target are not shifted against each other.",
        "With teacher forcing the decoder reads tokens 0 … n−1 and must predict tokens 1 … n.",
    ),
    "loss-counts-padding": (
        "The loss counts positions whose target is padding.",
        "Padding is not part of the sequence: rows whose target is the pad token contribute "
        "nothing.",
    ),
    "noam-no-warmup": (
        "The learning-rate schedule has no warm-up.",
        "The Noam rate grows linearly for `warmup` steps, then decays as 1/√step.",
    ),
    "greedy-no-feedback": (
        "Greedy decoding does not feed its own predictions back.",
        "At each step the decoder reads everything produced so far, the newest token included.",
    ),
    # ------------------------------------------------ any unit
    "not-implemented": (
        "This unit is not implemented yet: it still raises NotImplementedError.",
        "Replace the `raise NotImplementedError()` line with your code, run that cell, then run "
        "this test again.",
    ),
    "runtime-error": (
        "Your code raised an error on a valid input.",
        "The error and a hint about its usual cause follow.",
    ),
    "shape": (
        "A result has the wrong shape or dtype.",
        "Print the shape after each step on a small input and compare it with the shapes the "
        "exercise gives.",
    ),
    "nan": (
        "A result contains NaN (not a number).",
        "NaN usually comes from −inf meeting −inf or 0 (−inf · 0, −inf − (−inf), a softmax over a "
        "row that is all −inf), or from 0/0 and the square root of a negative number.",
    ),
    "device": (
        "Your code creates a tensor on a fixed device, so it fails when the inputs live elsewhere.",
        "On a GPU every tensor of an operation must be on the same device. Create new tensors on "
        "the inputs' device (…_like functions, device=x.device) or use plain Python numbers.",
    ),
    "inplace-input": (
        "Your code changes one of its inputs in place.",
        "The caller still needs its tensors (and autograd may too). Operations ending in _ and "
        "augmented assignments like x /= … modify a tensor; work on a new tensor instead.",
    ),
    "forbidden-builtin": (
        "The exercise's work is done by a PyTorch built-in.",
        "This exercise is about writing that computation yourself; the built-in is welcome "
        "afterwards, to compare with.",
    ),
    "tampering": (
        "The checking code, or something it relies on, was changed or bypassed.",
        "Tests run against the real PyTorch and NumPy functions and against your own code only. "
        "Remove whatever replaces them or calls the grader's implementation.",
    ),
    # ------------------------------------------------ generic, not tied to one mistake
    "wrong-values": (
        "The results have the right shape but the wrong values.",
        "Compare each step with the formula of the exercise on a tiny input you can check by hand.",
    ),
    "wrong-gradients": (
        "The gradients that flow back through your code are wrong.",
        "The forward values are right, so something stops or changes the gradient: .detach(), "
        ".data, .item(), NumPy, torch.no_grad(), or an in-place change to a tensor autograd needs.",
    ),
    "wrong-interface": (
        "Your code does not have the names, arguments or results the exercise asks for.",
        "The grader calls your code with the signature of the exercise, copies weights by "
        "submodule name and reads results where the exercise says. Keep those exactly as given.",
    ),
    "property-violated": (
        "A property that every correct answer has does not hold.",
        "The detail below says which one; it often points straight at the step that goes wrong.",
    ),
}

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
