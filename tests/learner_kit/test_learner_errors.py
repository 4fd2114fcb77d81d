"""An error raised by the learner's own code is told with its line; the float64 rule.

Cells are compiled as a notebook compiles them: under a file name of their own that
linecache knows, so a message can quote the line.
"""
import linecache

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from autograder.checks import CheckFailure, aspects_of, check
from sandbox_servers import wire
from learner_kit.explain import explain_errors
from learner_kit.visible import visible_problem

STRICT_LAYER_NORM = '''
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.gamma, self.beta, self.eps = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model)), eps

    def forward(self, x):
        assert x.dim() == 2
        return x
'''

# The right answer: a smoothed-target buffer made with torch.full in __init__, and the
# learner's own check of its argument, stricter than the exercise (smoothing=0 is valid).
CAREFUL_LOSS = '''
class LabelSmoothingLoss(nn.Module):
    def __init__(self, vocab_size, pad_idx=0, smoothing=0.1):
        super().__init__()
        assert 0.0 < smoothing <= 1.0
        self.pad_idx, self.confidence = pad_idx, 1.0 - smoothing
        self.register_buffer("base", torch.full((vocab_size,), smoothing / (vocab_size - 2)))
        self.base[pad_idx] = 0

    def forward(self, log_probs, target):
        true = self.base.unsqueeze(0).repeat(target.size(0), 1)
        true.scatter_(1, target.unsqueeze(1), self.confidence)
        true[target == self.pad_idx] = 0
        return F.kl_div(log_probs, true, reduction="sum")
'''


def cell(source, name, filename):
    """Run `source` as a notebook cell would and return what it defines as `name`."""
    source = source.lstrip("\n")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "__main__", "torch": torch, "nn": nn, "F": F}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def test_the_learners_own_assert_is_a_runtime_error_with_its_line():
    unit = cell(STRICT_LAYER_NORM, "LayerNorm", "/tmp/ipykernel_0/cell_ln.py")
    with pytest.raises(CheckFailure) as caught:
        check("LayerNorm", unit, "values")
    message = str(caught.value)
    assert caught.value.mistake_id == "runtime-error"
    assert "line 7 of your cell, `assert x.dim() == 2`" in message and "AssertionError" in message
    assert "line 7 of your cell" in visible_problem("LayerNorm", unit)


def test_the_line_travels_with_the_error_out_of_the_sandbox():
    unit = cell(STRICT_LAYER_NORM, "LayerNorm", "/tmp/ipykernel_0/cell_ln2.py")
    try:
        unit(4)(torch.zeros(2, 3, 4))
    except AssertionError as error:
        from learner_kit import harness

        harness.mark_learner_line(error, unit)
        rebuilt = wire.rebuilt_error(wire.error_info(error))
    assert type(rebuilt) is AssertionError and rebuilt.learner_line == "line 7 of your cell, `assert x.dim() == 2`"
    assert not hasattr(wire.rebuilt_error({"type": "ValueError", "base": "ValueError", "message": "m", "line": 3}),
                       "learner_line")  # a line that is not text is dropped


def test_explain_errors_names_the_learners_line_and_lets_the_tests_own_asserts_through():
    loss = cell(CAREFUL_LOSS, "LabelSmoothingLoss", "/tmp/ipykernel_0/cell_loss.py")
    with pytest.raises(AssertionError) as caught:
        with explain_errors(loss):
            loss(7, smoothing=0.0)
    assert str(caught.value).startswith("[runtime-error] ")
    assert "`assert 0.0 < smoothing <= 1.0`" in str(caught.value)
    with pytest.raises(AssertionError, match="^the test's own message"):
        with explain_errors(loss):
            assert loss(7).confidence == 0.5, "the test's own message"


@pytest.mark.parametrize("aspect", aspects_of("LabelSmoothingLoss"))
def test_a_float32_constant_made_without_a_dtype_is_no_mistake_in_float64(aspect, capsys):
    check("LabelSmoothingLoss", cell(CAREFUL_LOSS, "LabelSmoothingLoss", "/tmp/ipykernel_0/cell_loss2.py"), aspect)
    assert capsys.readouterr().out == f"✓ LabelSmoothingLoss: {aspect} passed\n"


def test_a_tensor_left_in_float32_is_a_mistake_in_float64():
    left = CAREFUL_LOSS.replace('return F.kl_div(log_probs, true, reduction="sum")',
                                'return F.kl_div(log_probs.float(), true.float(), reduction="sum").to(log_probs.dtype)')
    with pytest.raises(CheckFailure):
        check("LabelSmoothingLoss", cell(left, "LabelSmoothingLoss", "/tmp/ipykernel_0/cell_loss3.py"), "float64")


def test_a_float_where_a_size_belongs_is_told_so():
    """PositionalEncoding(d_model, dropout) puts the rate in max_len; PositionwiseFeedForward(d_model, dropout) and
    Encoder(d_model, n_head, d_ff, dropout) put it in d_ff and n_layers: the hint says that a float reached a size,
    not "keep the parameters of your signature"."""
    from autograder import reference
    from learner_kit.messages import hint_for_error

    for build in (lambda: reference.PositionalEncoding(16, 0.1), lambda: reference.PositionwiseFeedForward(16, 0.1),
                  lambda: reference.Encoder(16, 4, 32, 0.1)):
        with pytest.raises(TypeError) as caught:
            build()
        hint = hint_for_error(caught.value)
        assert hint.startswith("A size reached PyTorch as a float") and "signature" not in hint, hint


WRONG_ORDER_ENCODER = '''
class Encoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(d_model, n_head, dropout) for _ in range(n_layers))

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x
'''


def test_a_stack_that_calls_its_layer_with_a_float_size_is_blamed_not_the_layer(capsys):
    """EncoderLayer(d_model, n_head, dropout) in the learner's Encoder: the stand-in layer refuses it as the real
    one does, so the Encoder is not 'right with stand-ins' and no note blames the (right) EncoderLayer."""
    from autograder import reference

    source = WRONG_ORDER_ENCODER.lstrip("\n")
    filename = "/tmp/ipykernel_0/cell_encoder.py"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": "__main__", "torch": torch, "nn": nn, "EncoderLayer": reference.EncoderLayer}
    exec(compile(source, filename, "exec"), namespace)
    message = visible_problem("Encoder", namespace["Encoder"])
    assert message.startswith("[runtime-error]") and "A size reached PyTorch as a float" in message, message
    assert "EncoderLayer(d_model, n_head, dropout)" in message
    assert "Note" not in capsys.readouterr().out


# A notebook session: the setup cell, then an answer cell Python cannot read, then its test; again after the
# blank (a stub) ran once. Run in a child process: an IPython shell in this one would change how others behave.
UNREADABLE_ANSWER_SESSION = r'''
import json
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

shell = InteractiveShell.instance()
shell.run_cell("import torch\nfrom torch import nn\nfrom learner_kit.visible import check_visible\n", store_history=True)
UNREADABLE = "class LayerNorm(nn.Module):\n    def __init__(self, d_model, eps=1e-5):\n        super().__init__(\n        self.eps = eps\n"
STUB = "class LayerNorm(nn.Module):\n    def __init__(self, d_model, eps=1e-5):\n        raise NotImplementedError()\n"
TEST = 'check_visible("LayerNorm", LayerNorm)'
said = {}
for label, cell in (("first", UNREADABLE), ("first", TEST), ("stub", STUB), ("again", UNREADABLE), ("again", TEST)):
    with capture_output() as shown:
        result = shell.run_cell(cell, store_history=True)
    said[label] = [type(result.error_in_exec).__name__, str(result.error_in_exec), shown.stdout]
print(json.dumps(said))
'''


def test_an_answer_cell_python_cannot_read_is_named_by_its_test():
    """First run: the test's NameError is followed by the course's message; after the blank ran once, the test
    says the answer cell did not run instead of judging the stub ([not-implemented])."""
    import json
    import subprocess
    import sys

    ran = subprocess.run([sys.executable, "-c", UNREADABLE_ANSWER_SESSION], capture_output=True, text=True,
                         timeout=300, check=False)
    assert ran.returncode == 0, ran.stderr
    said = json.loads(ran.stdout.strip().splitlines()[-1])
    error, _, shown = said["first"]
    assert error == "NameError", said["first"]
    assert "The answer cell that defines LayerNorm did not run" in shown and "LayerNorm is not defined" in shown, shown
    assert "SyntaxError at line 3 of that cell, `super().__init__(`" in shown, shown
    error, message, _ = said["again"]
    assert error == "TestFailed" and "[not-implemented]" not in message, said["again"]
    assert "The answer cell that defines LayerNorm did not run" in message and "the LayerNorm of an earlier run" in message
    assert "'(' was never closed" in message, message
