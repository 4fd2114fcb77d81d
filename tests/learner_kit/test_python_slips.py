"""Issue 48 (C): Python slips are named as such, at the learner's line, in English and Korean, without the answer.

Before: `x = x.contiguous` (no call) was told "the error is raised before your code computes anything" (a transpose
had run); `self.layers(x, mask)` on an nn.ModuleList was told to check the spelling of `def forward`; and
`self.dropout(hidden, 0.1)` was told "given the output of `self.dropout`" and to keep its own signature.
"""
import contextlib
import inspect
import io
import linecache

import pytest

from autograder import reference
from autograder.checks import CheckFailure, check
from learner_kit.i18n import speaking
from learner_kit.visible import visible_problem

SLIPS = {
    "method-not-called": ("merge_heads", "return x.transpose(1, 2).contiguous().view(batch, length, n_head * d_k)",
                          "x = x.transpose(1, 2).contiguous\n    return x.view(batch, length, n_head * d_k)"),
    "module-list-called": ("Encoder", "x = layer(x, mask)", "x = self.layers(x, mask)"),
    "argument-not-taken": ("PositionwiseFeedForward", "self.w_2(self.dropout(torch.relu(self.w_1(x))))",
                           "self.w_2(self.dropout(torch.relu(self.w_1(x)), 0.1))"),
}
# slip -> (language -> words that must be there, words that must not)
SAID = {
    "method-not-called": {
        "en": (["`.view` is asked of a method, not of a tensor", "named without being called",
                "only rearranges or views", "`return x.view(batch, length, n_head * d_k)`"],
               ["before your code computes anything"]),
        "ko": (["메서드 이름만 쓰고 호출하지 않아서", "재배열하거나 뷰(view)로 보기만"], ["아무것도 계산하기 전에"]),
    },
    "module-list-called": {
        "en": (["A ModuleList is called here like a module", "`x = self.layers(x, mask)`"],
               ["spelling of `def forward`", "given (none)"]),
        "ko": (["ModuleList를 모듈처럼 호출하고 있습니다", "`self.layers` 호출에서"], ["을(를)", "철자"]),
    },
    "argument-not-taken": {
        "en": (["a PyTorch Dropout is called with 2 arguments, and it takes 1", "an argument the module does not take",
                "`return self.w_2(self.dropout(torch.relu(self.w_1(x)), 0.1))`"],
               ["given the output of `self.dropout`", "fit your signature"]),
        "ko": (["Dropout 모듈을 인자 2개로 호출하는데", "모듈이 받지 않는 인자"], ["을(를)"]),
    },
}


def learner(unit, right, wrong):
    namespace = {"__name__": "__main__"}
    exec(compile(inspect.getsource(reference), "<provided cells>", "exec"), namespace)
    source = inspect.getsource(getattr(reference, unit))
    assert right in source, (unit, right)
    source = source.replace(right, wrong)
    linecache.cache["<answer cell>"] = (len(source), None, source.splitlines(True), "<answer cell>")
    exec(compile(source, "<answer cell>", "exec"), namespace)
    return namespace[unit]


def messages(unit, candidate):
    seen = visible_problem(unit, candidate)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            check(unit, candidate, "values")
    except CheckFailure as failure:
        return seen, str(failure)
    return seen, ""


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("slip", SLIPS)
def test_a_python_slip_is_named_at_the_learners_line(slip, lang):
    unit, right, wrong = SLIPS[slip]
    candidate = learner(unit, right, wrong)
    present, absent = SAID[slip][lang]
    with speaking(lang):
        for message in messages(unit, candidate):
            assert message.startswith("[runtime-error]"), message
            for words in present:
                assert words in message, (words, message)
            for words in absent:
                assert words not in message, (words, message)
            assert right not in message  # the answer's own text is never shown


def test_a_learners_own_module_keeps_the_signature_hint():
    """Only PyTorch's modules get the 'argument it does not take' hint: the learner's own class's forward keeps the
    hint about the exercise's signature."""
    from learner_kit.slips import slip_hint

    assert slip_hint(TypeError("MultiHeadAttention.forward() takes 5 positional arguments but 6 were given")) == ""
    assert slip_hint(TypeError("Dropout.forward() got an unexpected keyword argument 'p'"))
