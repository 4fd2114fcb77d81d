"""Visible checks: the reference passes, every known mistake is named, fingerprints are fresh."""
import re

import pytest
import torch

from autograder import fingerprints, reference
from autograder.checks import UNITS
from learner_kit.visible import check_visible, visible_problem

VARIANTS = [pytest.param(unit, mistake_id, variant, id=f"{mistake_id}-{index}")
            for unit, spec in UNITS.items()
            for mistake_id, group in spec.mutants.items()
            for index, variant in enumerate(group)]


@pytest.mark.parametrize("unit", list(UNITS))
def test_reference_passes(unit, capsys):
    check_visible(unit, getattr(reference, unit))
    assert capsys.readouterr().out == f"All visible tests passed for {unit}.\n"


@pytest.mark.parametrize("unit, mistake_id, variant", VARIANTS)
def test_every_known_mistake_is_named(unit, mistake_id, variant):
    with pytest.raises(AssertionError) as failure:
        check_visible(unit, variant)
    assert str(failure.value).startswith(f"[{mistake_id}] ")


def test_not_implemented_and_wrong_kind():
    def stub(query, key, value, mask=None, dropout=None):
        raise NotImplementedError()

    assert visible_problem("scaled_dot_product_attention", stub).startswith("[not-implemented]")
    assert visible_problem("MultiHeadAttention", reference.scaled_dot_product_attention).startswith("[wrong-interface]")
    assert visible_problem("MultiHeadAttention", reference.MultiHeadAttention(24, 4)).startswith("[wrong-interface]")


def test_an_unnamed_error_gets_its_hint():
    def misspelt(query, key, value, mask=None, dropout=None):
        return query.masked_fil(mask, 0), None

    message = visible_problem("scaled_dot_product_attention", misspelt)
    assert message.startswith("[runtime-error]") and "masked_fill" in message


def test_committed_fingerprints_are_fresh():
    outdated = fingerprints.stale()
    assert not outdated, f"stale fingerprints {sorted(outdated)}: run `python -m autograder.fingerprints`"


def test_a_composite_is_judged_on_its_own_code_and_points_at_the_broken_helper(capsys):
    """A right make_tgt_mask that calls a wrong make_pad_mask by name, as in the notebook."""
    namespace = {"torch": torch}
    exec("def make_pad_mask(tokens, pad_idx=0):\n    return (tokens == pad_idx)[:, None, None, :]\n"
         "def make_subsequent_mask(size, device=None):\n    return torch.ones(1, size, size, dtype=torch.bool, device=device).tril()\n"
         "def make_tgt_mask(tgt, pad_idx=0):\n    return make_pad_mask(tgt, pad_idx) & make_subsequent_mask(tgt.size(-1), device=tgt.device)\n",
         namespace)
    assert "[mask-pad-inverted]" in visible_problem("make_pad_mask", namespace["make_pad_mask"])
    capsys.readouterr()
    check_visible("make_tgt_mask", namespace["make_tgt_mask"])
    printed = capsys.readouterr().out
    assert "with your own `make_pad_mask` it gives other results. Fix `make_pad_mask` first" in printed
    assert "make_subsequent_mask" not in printed  # the right helper is not blamed
    assert "All visible tests passed for make_tgt_mask." in printed
    namespace["make_pad_mask"] = reference.make_pad_mask
    check_visible("make_tgt_mask", namespace["make_tgt_mask"])
    assert "Note" not in capsys.readouterr().out
    namespace["make_tgt_mask"] = lambda tgt, pad_idx=0: make_causal_only(tgt)  # a composite that is itself wrong
    assert "[mask-tgt-missing-pad]" in visible_problem("make_tgt_mask", namespace["make_tgt_mask"])


def make_causal_only(tgt):
    return torch.ones(1, 1, tgt.size(-1), tgt.size(-1), dtype=torch.bool).tril()


def test_a_composite_module_is_judged_with_stand_ins_when_its_parts_are_wrong(capsys):
    """A right Encoder built, by name, from a wrong EncoderLayer: it passes, and the note names EncoderLayer."""
    from tests.zoo.blame import ENCODER_CELL, PROVIDED

    namespace = {"__name__": "__main__"}
    exec(PROVIDED, namespace)  # the notebook's provided cells
    exec(ENCODER_CELL, namespace)
    assert not visible_problem("EncoderLayer", namespace["EncoderLayer"])  # a right layer: no note either
    assert "Note" not in capsys.readouterr().out
    namespace["EncoderLayer"].forward = lambda self, x, mask=None: x + self.ffn(self.norm1(x))  # now wrong
    assert visible_problem("EncoderLayer", namespace["EncoderLayer"])
    capsys.readouterr()
    check_visible("Encoder", namespace["Encoder"])
    printed = capsys.readouterr().out
    assert "Note: your Encoder is right" in printed and "fix `EncoderLayer` first" in printed
    namespace["Encoder"].forward = lambda self, x, mask=None: x  # a wrong Encoder stays wrong
    assert visible_problem("Encoder", namespace["Encoder"])


def test_a_specific_checks_message_keeps_the_static_hints():
    """When a notebook's own check names the mistake, what a linter sees in the unit's cell still follows."""
    import linecache

    from learner_kit import static_hints
    from learner_kit.messages import format_message

    if static_hints._ruff_bin() is None:
        pytest.skip("ruff is not installed")
    source = ("def make_subsequent_mask(size, device=None):\n"
              "    unused = 1\n"
              "    return torch.ones(1, size, size, dtype=torch.bool, device=device).tril(1)\n")
    filename = "/tmp/ipykernel_0/specific-hints.py"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = {"__name__": "__main__", "torch": torch}
    exec(compile(source, filename, "exec"), namespace)
    unit = namespace["make_subsequent_mask"]

    def no_future_key():  # names a mistake where the stored cases find only wrong values
        assert not unit(3)[0].triu(1).any(), format_message("mask-causal-transposed", "query 0 sees key 1")

    assert visible_problem("make_subsequent_mask", unit).startswith("[wrong-values]")
    with pytest.raises(AssertionError) as failure:
        check_visible("make_subsequent_mask", unit, no_future_key)
    message = str(failure.value)
    # tril(1) is not the transposed mask the check names (the fingerprint's own transposed masks say so): the id
    # goes, the check's sentence stays
    assert message.startswith("[property-violated]") and "query 0 sees key 1" in message
    assert f"{static_hints.INTRO}\n- Line 2:" in message and "`unused`" in message


def test_a_specific_check_keeps_an_id_the_stored_mistakes_confirm():
    def transposed(size, device=None):
        return torch.ones(1, size, size, dtype=torch.bool, device=device).triu()

    def no_future_key():
        assert not transposed(3)[0].triu(1).any(), format_message("mask-causal-transposed", "query 0 sees key 1")

    from learner_kit.messages import format_message

    with pytest.raises(AssertionError) as failure:
        check_visible("make_subsequent_mask", transposed, no_future_key)
    assert str(failure.value).startswith("[mask-causal-transposed]")


def test_each_load_of_a_fingerprint_is_a_copy_of_its_own():
    """The fingerprints are read once per process (visible.load keeps them); a change to one load's tensors, as a
    learner's in-place operation on a replayed mask would make, reaches no later load."""
    from learner_kit.visible import load

    first = load("make_tgt_mask")
    before = [case["inputs"]["tokens"].clone() for case in first["cases"]]
    for case in first["cases"]:
        case["inputs"]["tokens"].fill_(7)
    first["cases"].clear()
    second = load("make_tgt_mask")
    assert [case["inputs"]["tokens"] for case in second["cases"]] != [] and all(
        torch.equal(case["inputs"]["tokens"], old) for case, old in zip(second["cases"], before, strict=True))


def test_a_copy_clones_each_tensor_object_once_and_preload_reads_every_fingerprint():
    """visible._copied (in place of deepcopy, ten times as fast) keeps deepcopy's one copy per object, and
    preload() leaves every stored fingerprint read, so that a process forked from the unit server reads none."""
    from importlib import resources

    from learner_kit import visible

    shared = torch.arange(6.0).requires_grad_()
    data = {"a": shared, "b": [shared, (shared, "text", 3, None)], "c": {"d": 1.5}}
    copied = visible._copied(data, {})
    assert copied["a"] is copied["b"][0] is copied["b"][1][0] and copied["a"] is not shared
    assert copied["a"].requires_grad and copied["a"].is_leaf and torch.equal(copied["a"], shared)
    assert copied["b"][1][1:] == ("text", 3, None) and copied["c"] == {"d": 1.5} and copied["c"] is not data["c"]
    visible._LOADED.clear()
    visible.preload()
    stored = [f for f in (resources.files("learner_kit") / "fingerprints").iterdir() if f.name.endswith(".pt")]
    assert len(visible._LOADED) == len(stored) > 20


def test_stored_cases_the_grader_found_right_are_not_run_again_before_the_cells_own_checks():
    """In the sandbox, a visible cell's own checks run after the judge found the stored cases right: the cell's
    check_visible goes straight to them (STORED_CASES_PASSED), and says what they say, word for word."""
    from learner_kit import visible
    from learner_kit.messages import format_message

    def transposed(size, device=None):
        return torch.ones(1, size, size, dtype=torch.bool, device=device).triu()

    def no_future_key():
        assert not transposed(3)[0].triu(1).any(), format_message("mask-causal-transposed", "query 0 sees key 1")

    with pytest.raises(AssertionError) as alone:
        check_visible("make_subsequent_mask", reference.make_subsequent_mask, no_future_key)
    visible.STORED_CASES_PASSED.add("make_subsequent_mask")
    try:
        with pytest.raises(AssertionError) as told:
            check_visible("make_subsequent_mask", reference.make_subsequent_mask, no_future_key)
        check_visible("make_subsequent_mask", transposed)  # the stored cases would fail it: they are not run
    finally:
        visible.STORED_CASES_PASSED.clear()
    def unaddressed(text):  # an object's address in a repr differs from one call to the next
        return re.sub(r"0x[0-9a-f]+", "0x?", text)

    assert unaddressed(str(told.value)) == unaddressed(str(alone.value))
    assert visible_problem("make_subsequent_mask", transposed)  # outside that moment, the stored cases judge
