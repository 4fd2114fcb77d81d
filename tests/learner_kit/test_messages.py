"""The message catalogue: every id of COURSE.md section 4, in the promised format."""
import pytest
import torch

from learner_kit.messages import CATALOGUE, EXTRA_IDS, format_message, hint_for_error

# COURSE.md section 4, verbatim: the contract the catalogue must cover.
COURSE_IDS = """
sdpa-no-scale sdpa-scale-dk sdpa-softmax-dim sdpa-mask-inverted sdpa-mask-ignored sdpa-mask-after-softmax
sdpa-mask-fill-zero sdpa-key-transpose sdpa-returns-scores
heads-split-no-transpose heads-merge-no-transpose mha-kv-use-wq mha-no-output-proj mha-scale-dmodel mha-qkv-swapped
layernorm-eps-outside-sqrt layernorm-unbiased-var layernorm-wrong-dim layernorm-no-affine addnorm-no-residual
addnorm-norm-before-add
ffn-no-activation ffn-activation-after-output
embed-no-scale pe-sin-cos-swapped pe-wrong-frequency encoder-prenorm encoder-no-residual encoder-mask-ignored
encoder-shared-layers
mask-causal-diagonal-blocked mask-causal-transposed mask-pad-wrong-axis mask-pad-inverted mask-tgt-missing-pad
mask-tgt-missing-causal mask-fixed-device
decoder-cross-qkv-swapped decoder-masks-swapped decoder-self-attn-unmasked decoder-sublayer-order
generator-softmax generator-logits generator-wrong-dim transformer-tgt-uses-src-embed
additive-no-tanh additive-softmax-dim additive-mask-ignored
batch-no-shift loss-counts-padding noam-no-warmup greedy-no-feedback
not-implemented runtime-error shape nan device inplace-input forbidden-builtin tampering
""".split()


def test_catalogue_is_the_contract_plus_the_generic_extras():
    assert set(CATALOGUE) == set(COURSE_IDS) | set(EXTRA_IDS)


@pytest.mark.parametrize("mistake_id", sorted(CATALOGUE))
def test_every_message_has_one_line_of_what_and_a_short_why(mistake_id):
    what, why = CATALOGUE[mistake_id]
    assert what and "\n" not in what and what.endswith(".")
    assert why and "\n" not in why and len(why) < 320


def test_format_is_id_what_why_then_detail():
    what, why = CATALOGUE["sdpa-no-scale"]
    assert format_message("sdpa-no-scale") == f"[sdpa-no-scale] {what}\n{why}"
    assert format_message("sdpa-no-scale", "on 3-D inputs").splitlines() == [f"[sdpa-no-scale] {what}", why, "on 3-D inputs"]


def test_a_misspelt_method_is_recognised():
    try:
        torch.zeros(2).masked_fil(torch.ones(2, dtype=torch.bool), 0.0)
    except AttributeError as error:
        assert "masked_fill" in hint_for_error(error)


def test_a_shape_error_gets_a_hint():
    try:
        torch.zeros(2, 3) @ torch.zeros(2, 3)
    except RuntimeError as error:
        assert "shapes" in hint_for_error(error)
