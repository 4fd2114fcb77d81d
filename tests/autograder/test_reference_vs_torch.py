"""Prove autograder.reference against PyTorch's own modules and independent formulas.

The reference is never compared with itself: each unit is checked against a torch module
(`F.scaled_dot_product_attention`, `nn.MultiheadAttention`, `nn.LayerNorm`,
`nn.TransformerEncoderLayer`, ..., `nn.Transformer`) whose randomised weights are copied
into the reference module, or against its formula written out here with loops.

Every numeric comparison runs on every device ("cpu"; "cuda" when available, skipped
otherwise) and in float32 and float64, on the outputs AND on the gradients (w.r.t. the
float inputs and w.r.t. every mapped parameter), for the same random cotangent.

Tolerances (TOL below):
- float32: rtol = atol = 1e-5. Both sides compute the same maths in a different order
  (torch packs q/k/v into one matmul, fuses bias adds, has its own layer-norm and softmax
  kernels), so each reduction differs by a few float32 ulps (eps = 1.2e-7). Through
  softmax, layer norm, two layers and the backward pass (gradients reach ~10) the largest
  difference measured on CPU is 3.8e-6, at most 0.11 of the allowed atol + rtol*|expected|:
  a 9x margin, while every real mistake (a wrong scale, an inverted mask, eps outside the
  sqrt, ...) moves values by > 1e-3.
- float64: rtol = atol = 1e-12: the same argument with eps = 2.2e-16; the largest
  difference measured is 4.4e-15 (0.0015 of the allowance).
- PositionalEncoding.pe has its own, tighter PE_TOL (see there).
"""
import functools
import itertools
import math
from contextlib import contextmanager

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from autograder import reference as ref

TOL = {
    torch.float32: dict(rtol=1e-5, atol=1e-5),
    torch.float64: dict(rtol=1e-12, atol=1e-12),
}
B, L_Q, L_K, D_MODEL, N_HEAD, D_FF, N_LAYERS = 2, 3, 5, 12, 3, 20, 2
D_K, D_V = 4, 6  # for the bare attention functions
PAD = 0


@pytest.fixture(autouse=True, scope="module")
def one_cpu_thread():
    """The tensors here are tiny: intra-op threads only add contention (10x slower on a
    loaded 2-core machine). Restored afterwards for the other test modules."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


DEVICES = [
    "cpu",
    pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")),
]


@pytest.fixture(params=DEVICES)
def device(request):
    torch.manual_seed(0)
    return torch.device(request.param)


class Ctx:
    """The device and dtype one test runs in."""

    def __init__(self, device, dtype):
        self.device, self.dtype, self.tol = device, dtype, TOL[dtype]

    def randn(self, *shape):
        return torch.randn(*shape, device=self.device, dtype=self.dtype)

    def tokens(self, rows):
        return torch.tensor(rows, device=self.device)

    def put(self, *modules):
        """Moves modules to this device and dtype, in eval mode; returns the first."""
        for module in modules:
            module.to(self.device, self.dtype).eval()
        return modules[0]


@pytest.fixture(params=[torch.float32, torch.float64], ids=["float32", "float64"])
def ctx(request, device):
    return Ctx(device, request.param)


# ------------------------------------------------------------------ helpers


def randomise(module):
    """Random values for every parameter (so zero biases and unit gammas hide nothing)."""
    for p in module.parameters():
        nn.init.uniform_(p, -0.5, 0.5)
    return module


def linear_pairs(ours, theirs):
    """(our parameter, their parameter, index into theirs) for two modules with weight and bias."""
    return [(ours.weight, theirs.weight, ...), (ours.bias, theirs.bias, ...)]


def mha_pairs(ours, theirs):
    """nn.MultiheadAttention packs W_q, W_k, W_v row-wise into in_proj_weight/in_proj_bias."""
    d = ours.w_q.in_features
    pairs = linear_pairs(ours.w_o, theirs.out_proj)
    for i, lin in enumerate((ours.w_q, ours.w_k, ours.w_v)):
        rows = slice(i * d, (i + 1) * d)
        pairs += [(lin.weight, theirs.in_proj_weight, rows), (lin.bias, theirs.in_proj_bias, rows)]
    return pairs


def layer_pairs(ours, theirs):
    """An EncoderLayer/DecoderLayer (or a stack of them) against nn.Transformer{Encoder,Decoder}[Layer]."""
    if hasattr(ours, "layers"):
        return [p for mine, other in zip(ours.layers, theirs.layers, strict=True) for p in layer_pairs(mine, other)]
    pairs = mha_pairs(ours.self_attn, theirs.self_attn)
    pairs += linear_pairs(ours.ffn.w_1, theirs.linear1) + linear_pairs(ours.ffn.w_2, theirs.linear2)
    if hasattr(ours, "cross_attn"):
        pairs += mha_pairs(ours.cross_attn, theirs.multihead_attn)
    for name in ("norm1", "norm2", "norm3"):
        if hasattr(ours, name):
            pairs += linear_pairs(getattr(ours, name), getattr(theirs, name))
    return pairs


def tie(ours, pairs):
    """Copies their (randomised) values into ours; every parameter of ours must be mapped."""
    assert {id(p) for p, _, _ in pairs} == {id(p) for p in ours.parameters()}, "unmapped parameter"
    with torch.no_grad():
        for mine, theirs, index in pairs:
            mine.copy_(theirs[index])
    return pairs


def _leaf(x):
    return x.detach().clone().requires_grad_(True) if x.is_floating_point() else x


def _as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def check_against(ours, theirs, inputs, pairs=(), *, tol):
    """ours(*inputs) == theirs(*inputs) on separate copies of the inputs; then the gradients of
    sum(output * cotangent), for one random cotangent, w.r.t. the float inputs and the mapped
    parameters. Returns our outputs."""
    mine_in, their_in = [_leaf(x) for x in inputs], [_leaf(x) for x in inputs]
    mine_out, their_out = _as_tuple(ours(*mine_in)), _as_tuple(theirs(*their_in))
    assert len(mine_out) == len(their_out)
    for a, b in zip(mine_out, their_out):
        torch.testing.assert_close(a, b, **tol)
    cotangents = [torch.randn_like(o) for o in mine_out]
    losses = [sum((o * c).sum() for o, c in zip(out, cotangents)) for out in (mine_out, their_out)]
    if not any(loss.requires_grad for loss in losses):
        return mine_out
    for loss in losses:
        loss.backward()
    for a, b in zip(mine_in, their_in):
        if a.requires_grad:
            torch.testing.assert_close(a.grad, b.grad, **tol)
    for mine, theirs, index in pairs:
        torch.testing.assert_close(mine.grad, theirs.grad[index], **tol)
    return mine_out


def keep_mask(*shape, device):
    """A random bool mask (True = attend) in which key 0 is always kept, so no row is fully masked."""
    mask = torch.rand(*shape, device=device) > 0.4
    mask[..., 0] = True
    return mask


def torch_causal(size, ctx):
    """torch's float causal mask: -inf above the diagonal (blocked), 0 elsewhere."""
    return nn.Transformer.generate_square_subsequent_mask(size, device=ctx.device, dtype=ctx.dtype)


def blocked_future(size, device):
    """torch's bool causal mask: True (blocked) above the diagonal."""
    return ~torch.ones(size, size, dtype=torch.bool, device=device).tril()


@contextmanager
def default_dtype(dtype):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


@functools.lru_cache
def pe_formula(max_len, d_model):
    """pe[pos, 2i] = sin(pos / 10000^(2i/d)), pe[pos, 2i+1] = cos(...), by loops in float64."""
    table = [[0.0] * d_model for _ in range(max_len)]
    for pos in range(max_len):
        for two_i in range(0, d_model, 2):
            angle = pos / 10000 ** (two_i / d_model)
            table[pos][two_i], table[pos][two_i + 1] = math.sin(angle), math.cos(angle)
    return torch.tensor(table, dtype=torch.float64).unsqueeze(0)  # (1, max_len, d_model)


# ------------------------------------------------------------------ 01 scaled dot-product attention

SDPA_MASK_SHAPES = {
    "none": None,
    "Lq_Lk": (L_Q, L_K),
    "B_1_1_Lk": (B, 1, 1, L_K),
    "B_1_Lq_Lk": (B, 1, L_Q, L_K),
    "1_Lq_Lk": (1, L_Q, L_K),
    "B_h_Lq_Lk": (B, N_HEAD, L_Q, L_K),
}


def sdpa_inputs(ctx):
    return ctx.randn(B, N_HEAD, L_Q, D_K), ctx.randn(B, N_HEAD, L_K, D_K), ctx.randn(B, N_HEAD, L_K, D_V)


@pytest.mark.parametrize("mask_shape", SDPA_MASK_SHAPES.values(), ids=SDPA_MASK_SHAPES.keys())
def test_sdpa_matches_torch_sdpa(ctx, mask_shape):
    mask = None if mask_shape is None else keep_mask(*mask_shape, device=ctx.device)
    eye = torch.eye(L_K, device=ctx.device, dtype=ctx.dtype)  # values = I turns the output into the weights

    def theirs(q, k, v):  # torch's bool attn_mask: True = attend, as ours
        return (F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                F.scaled_dot_product_attention(q, k, eye, attn_mask=mask))

    def ours(q, k, v):
        return ref.scaled_dot_product_attention(q, k, v, mask)

    _, weights = check_against(ours, theirs, sdpa_inputs(ctx), tol=ctx.tol)
    if mask is not None:
        assert (weights.detach()[~mask.expand_as(weights)] == 0).all()


def test_sdpa_dropout_applies_to_weights_only_in_training(ctx):
    q, k, v = sdpa_inputs(ctx)
    mask = keep_mask(B, 1, 1, L_K, device=ctx.device)
    plain_out, plain_w = ref.scaled_dot_product_attention(q, k, v, mask)
    dropout = nn.Dropout(0.5).eval()
    eval_out, eval_w = ref.scaled_dot_product_attention(q, k, v, mask, dropout)
    assert torch.equal(eval_out, plain_out) and torch.equal(eval_w, plain_w)

    dropout.train()
    torch.manual_seed(1)
    out, weights = ref.scaled_dot_product_attention(q, k, v, mask, dropout)
    torch.testing.assert_close(weights.sum(-1), torch.ones_like(weights[..., 0]), **ctx.tol)  # returned before dropout
    torch.manual_seed(1)  # the same dropout draw, applied by hand to the weights before they meet the values
    torch.testing.assert_close(out, dropout(weights) @ v, **ctx.tol)
    assert not torch.allclose(out, plain_out)


# ------------------------------------------------------------------ 02 multi-head attention


def mha_masks(kind, ctx, n_head=N_HEAD, l_q=L_Q, l_k=L_K):
    """(our mask, True = attend; torch kwargs, True = blocked) for one kind of mask."""
    if kind == "none":
        return None, {}
    if kind == "pad":
        keep = keep_mask(B, l_k, device=ctx.device)
        return keep[:, None, None, :], {"key_padding_mask": ~keep}
    if kind == "Lq_Lk":
        keep = keep_mask(l_q, l_k, device=ctx.device)
        return keep, {"attn_mask": ~keep}
    keep = keep_mask(B, 1, l_q, l_k, device=ctx.device)  # torch wants a 3-D mask as (B * n_head, L_q, L_k)
    return keep, {"attn_mask": (~keep).expand(B, n_head, l_q, l_k).reshape(B * n_head, l_q, l_k)}


def as_qkv(*inputs):
    return inputs * 3 if len(inputs) == 1 else inputs


@pytest.mark.parametrize("average", [True, False], ids=["avg_weights", "per_head_weights"])
@pytest.mark.parametrize("mask_kind", ["none", "pad", "Lq_Lk", "B_1_Lq_Lk"])
@pytest.mark.parametrize("case", ["self", "cross"])
def test_multi_head_attention_matches_nn_multihead_attention(ctx, case, mask_kind, average):
    ours = ctx.put(ref.MultiHeadAttention(D_MODEL, N_HEAD, dropout=0.0))
    theirs = randomise(ctx.put(nn.MultiheadAttention(D_MODEL, N_HEAD, dropout=0.0, batch_first=True)))
    pairs = tie(ours, mha_pairs(ours, theirs))
    l_q = L_K if case == "self" else L_Q
    mask, kwargs = mha_masks(mask_kind, ctx, l_q=l_q)
    shapes = [(B, L_K, D_MODEL)] if case == "self" else [(B, L_Q, D_MODEL), (B, L_K, D_MODEL), (B, L_K, D_MODEL)]
    inputs = [ctx.randn(*shape) for shape in shapes]  # self: query = key = value

    def ours_fn(*x):
        out = ours(*as_qkv(*x), mask)
        return out, ours.attn.mean(dim=1) if average else ours.attn

    def theirs_fn(*x):
        return theirs(*as_qkv(*x), need_weights=True, average_attn_weights=average, **kwargs)

    check_against(ours_fn, theirs_fn, inputs, pairs, tol=ctx.tol)
    assert ours.attn.shape == (B, N_HEAD, l_q, L_K)


def test_split_and_merge_heads_match_reshape(ctx):
    x = ctx.randn(B, L_Q, D_MODEL)
    heads = ref.split_heads(x, N_HEAD)
    # head h holds features h*d_k:(h+1)*d_k of every position
    expected = torch.stack([x[..., h * D_K : (h + 1) * D_K] for h in range(N_HEAD)], dim=1)
    assert torch.equal(heads, expected)
    assert torch.equal(ref.merge_heads(heads), x)


# ------------------------------------------------------------------ 03 add & norm, 04 feed-forward, 08 generator


def build_layer_norm(ctx):
    ours, theirs = ref.LayerNorm(D_MODEL, eps=0.1), nn.LayerNorm(D_MODEL, eps=0.1)  # a large eps shows a misplaced one
    return ours, theirs, lambda: [(ours.gamma, theirs.weight, ...), (ours.beta, theirs.bias, ...)], theirs


def build_add_norm(ctx):
    ours, theirs = ref.AddNorm(D_MODEL, dropout=0.0), nn.LayerNorm(D_MODEL)
    return ours, theirs, lambda: linear_pairs(ours.norm, theirs), lambda x, y: theirs(x + y)


def build_ffn(ctx):
    ours = ref.PositionwiseFeedForward(D_MODEL, D_FF, dropout=0.0)
    theirs = nn.Sequential(nn.Linear(D_MODEL, D_FF), nn.ReLU(), nn.Linear(D_FF, D_MODEL))
    return ours, theirs, lambda: linear_pairs(ours.w_1, theirs[0]) + linear_pairs(ours.w_2, theirs[2]), theirs


def build_generator(ctx):
    vocab = 7
    ours, theirs = ref.Generator(D_MODEL, vocab), nn.Sequential(nn.Linear(D_MODEL, vocab), nn.LogSoftmax(dim=-1))
    return ours, theirs, lambda: linear_pairs(ours.proj, theirs[0]), theirs


SIMPLE_MODULES = {  # name: (builder, number of (B, L, d_model) inputs)
    "LayerNorm": (build_layer_norm, 1),
    "AddNorm": (build_add_norm, 2),
    "PositionwiseFeedForward": (build_ffn, 1),
    "Generator": (build_generator, 1),
}


@pytest.mark.parametrize("name", SIMPLE_MODULES)
def test_module_matches_torch_composition(ctx, name):
    build, n_inputs = SIMPLE_MODULES[name]
    ours, theirs, pairs, theirs_fn = build(ctx)
    ctx.put(ours, randomise(theirs))
    pairs = tie(ours, pairs())
    inputs = [3 * ctx.randn(B, L_Q, D_MODEL) + 2 for _ in range(n_inputs)]  # off-centre, not unit variance
    out = check_against(ours, theirs_fn, inputs, pairs, tol=ctx.tol)[0]
    if name == "Generator":
        torch.testing.assert_close(out.logsumexp(dim=-1), torch.zeros_like(out[..., 0]), **ctx.tol)


# ------------------------------------------------------------------ 05 embeddings, positional encoding


def test_embeddings_scale_lookup_by_sqrt_d_model(ctx):
    vocab = 9
    ours = ctx.put(ref.Embeddings(vocab, D_MODEL))
    table = nn.Parameter(ctx.randn(vocab, D_MODEL))
    pairs = tie(ours, [(ours.lut.weight, table, ...)])
    tokens = torch.randint(vocab, (B, L_K), device=ctx.device)
    check_against(ours, lambda t: table[t] * math.sqrt(D_MODEL), [tokens], pairs, tol=ctx.tol)


# pe is built in float64 and rounded once to the default dtype: float32 values in [-1, 1]
# are then within half an ulp of 1 (6e-8) of the formula. In float64, at positions up to
# 5000 one ulp of the angle is 9e-13, and the reference (exp/log) and the formula here (pow)
# round the angle differently, so sin/cos may differ by a few 1e-12.
PE_TOL = {torch.float32: dict(rtol=0, atol=1e-7), torch.float64: dict(rtol=0, atol=1e-11)}


def built_in(ctx, cls, *args, **kwargs):
    """cls(*args) built with ctx.dtype as the default dtype, then moved to ctx: a PositionalEncoding
    rounds its float64 table to the default dtype when built, so a float32-built module moved
    .to(torch.float64) keeps float32-rounded pe (checked below) and could not meet 1e-12."""
    with default_dtype(ctx.dtype):
        return ctx.put(cls(*args, **kwargs))


def test_positional_encoding_buffer_matches_formula(ctx):
    expected = pe_formula(5000, D_MODEL).to(ctx.device, ctx.dtype)
    module = built_in(ctx, ref.PositionalEncoding, D_MODEL)  # default max_len = 5000
    assert module.pe.shape == (1, 5000, D_MODEL)
    assert module.pe.dtype == ctx.dtype and module.pe.device.type == ctx.device.type
    torch.testing.assert_close(module.pe, expected, **PE_TOL[ctx.dtype])
    moved = ctx.put(ref.PositionalEncoding(D_MODEL))  # built in float32, then .to(ctx.dtype)
    torch.testing.assert_close(moved.pe, expected, **PE_TOL[torch.float32])


def test_positional_encoding_forward_adds_pe_prefix(ctx):
    module = built_in(ctx, ref.PositionalEncoding, D_MODEL, max_len=50, dropout=0.5)  # eval(): dropout is off
    pe = pe_formula(50, D_MODEL).to(ctx.device, ctx.dtype)
    check_against(module, lambda x: x + pe[:, :L_Q], [ctx.randn(B, L_Q, D_MODEL)], tol=ctx.tol)


# ------------------------------------------------------------------ 05 / 07 encoder and decoder vs nn.Transformer*

TORCH_LAYER_KW = dict(dropout=0.0, activation="relu", batch_first=True, norm_first=False)


# ours: (layer, stack); torch: (layer, stack of a layer); torch's stacks have no final norm by default
STACKS = {
    "encoder": (ref.EncoderLayer, ref.Encoder, nn.TransformerEncoderLayer,
                lambda layer: nn.TransformerEncoder(layer, N_LAYERS, enable_nested_tensor=False)),
    "decoder": (ref.DecoderLayer, ref.Decoder, nn.TransformerDecoderLayer,
                lambda layer: nn.TransformerDecoder(layer, N_LAYERS)),
}


def build_stack(kind, stack):
    """(ours, torch's) layer or stack of N_LAYERS layers, post-norm, relu, dropout 0."""
    our_layer, our_stack, their_layer, their_stack = STACKS[kind]
    theirs = their_layer(D_MODEL, N_HEAD, D_FF, **TORCH_LAYER_KW)
    if stack:
        return our_stack(D_MODEL, N_HEAD, D_FF, N_LAYERS, dropout=0.0), their_stack(theirs)
    return our_layer(D_MODEL, N_HEAD, D_FF, dropout=0.0), theirs


SRC_TOKENS = [[3, 4, 5, PAD, PAD], [6, 7, 8, 9, 1]]  # (B, L_K), padding at the end
TGT_TOKENS = [[4, 5, 6], [7, 8, PAD]]  # (B, L_Q)


def encoder_masks(kind, ctx):
    """(our mask, torch's positional (mask, src_key_padding_mask)) for the source of length L_K."""
    src = ctx.tokens(SRC_TOKENS)
    if kind == "src_pad":
        return ref.make_pad_mask(src, PAD), (None, src == PAD)
    if kind == "causal":
        return ref.make_subsequent_mask(L_K, device=ctx.device), (torch_causal(L_K, ctx), None)
    return None, (None, None)


def decoder_masks(kind, ctx):
    """(our src_mask, our tgt_mask, torch kwargs); torch masks are True/-inf = blocked."""
    if kind == "none":
        return None, None, {}
    src, tgt = ctx.tokens(SRC_TOKENS), ctx.tokens(TGT_TOKENS)
    kwargs = {"memory_key_padding_mask": src == PAD}
    if kind == "causal_src_pad":
        kwargs["tgt_mask"] = torch_causal(L_Q, ctx)
        return ref.make_pad_mask(src, PAD), ref.make_subsequent_mask(L_Q, device=ctx.device), kwargs
    # bool, as the padding mask: torch deprecates mixing a float mask with a bool one
    kwargs.update(tgt_mask=blocked_future(L_Q, ctx.device), tgt_key_padding_mask=tgt == PAD)
    return ref.make_pad_mask(src, PAD), ref.make_tgt_mask(tgt, PAD), kwargs


@pytest.mark.parametrize("stack", [False, True], ids=["EncoderLayer", "Encoder"])
@pytest.mark.parametrize("mask_kind", ["none", "src_pad", "causal"])
def test_encoder_matches_nn_transformer_encoder(ctx, stack, mask_kind):
    ours, theirs = build_stack("encoder", stack)
    ctx.put(ours, randomise(theirs))
    pairs = tie(ours, layer_pairs(ours, theirs))
    mask, torch_masks = encoder_masks(mask_kind, ctx)
    inputs = [ctx.randn(B, L_K, D_MODEL)]
    check_against(lambda x: ours(x, mask), lambda x: theirs(x, *torch_masks), inputs, pairs, tol=ctx.tol)


@pytest.mark.parametrize("stack", [False, True], ids=["DecoderLayer", "Decoder"])
@pytest.mark.parametrize("mask_kind", ["none", "causal_src_pad", "tgt_mask_src_pad"])
def test_decoder_matches_nn_transformer_decoder(ctx, stack, mask_kind):
    ours, theirs = build_stack("decoder", stack)
    ctx.put(ours, randomise(theirs))
    pairs = tie(ours, layer_pairs(ours, theirs))
    src_mask, tgt_mask, kwargs = decoder_masks(mask_kind, ctx)
    inputs = [ctx.randn(B, L_Q, D_MODEL), ctx.randn(B, L_K, D_MODEL)]  # target, memory
    def ours_fn(x, memory):
        return ours(x, memory, src_mask, tgt_mask)

    check_against(ours_fn, lambda x, memory: theirs(x, memory, **kwargs), inputs, pairs, tol=ctx.tol)


# ------------------------------------------------------------------ 06 masks


def test_make_subsequent_mask_matches_torch_causal_mask(device):
    for size in (1, 4, 7):
        mask = ref.make_subsequent_mask(size, device=device)
        blocked = nn.Transformer.generate_square_subsequent_mask(size, device=device) == -math.inf
        assert mask.dtype == torch.bool and mask.shape == (1, size, size) and mask.device.type == device.type
        assert torch.equal(mask[0], ~blocked)


@pytest.mark.parametrize("pad_idx", [0, 3])
def test_make_pad_and_tgt_masks_match_hand_expectation(device, pad_idx):
    rows = [[5, 6, pad_idx, pad_idx], [7, pad_idx, 8, pad_idx], [9, 4, 2, 1]]
    tokens = torch.tensor(rows, device=device)
    n, length = len(rows), len(rows[0])
    pad = ref.make_pad_mask(tokens, pad_idx)
    tgt = ref.make_tgt_mask(tokens, pad_idx)
    expected_pad = [[[[rows[b][j] != pad_idx for j in range(length)]]] for b in range(n)]
    expected_tgt = [
        [[[rows[b][j] != pad_idx and j <= i for j in range(length)] for i in range(length)]] for b in range(n)
    ]
    for mask, expected, shape in ((pad, expected_pad, (n, 1, 1, length)), (tgt, expected_tgt, (n, 1, length, length))):
        assert mask.dtype == torch.bool and mask.shape == shape and mask.device.type == device.type
        assert mask.tolist() == expected


# ------------------------------------------------------------------ 08 the whole model vs nn.Transformer

SRC_VOCAB, TGT_VOCAB, MAX_LEN = 11, 13, 50


def small_model(ctx):
    sizes = (SRC_VOCAB, TGT_VOCAB, D_MODEL, N_HEAD, N_LAYERS, D_FF)
    return built_in(ctx, ref.Transformer, *sizes, dropout=0.0, max_len=MAX_LEN)


class TorchSeq2Seq(nn.Module):
    """The same model from torch's parts: nn.Embedding, the PE formula, nn.Transformer (no final norms)."""

    def __init__(self):
        super().__init__()
        self.src_lut, self.tgt_lut = nn.Embedding(SRC_VOCAB, D_MODEL), nn.Embedding(TGT_VOCAB, D_MODEL)
        encoder, decoder = build_stack("encoder", True)[1], build_stack("decoder", True)[1]
        self.core = nn.Transformer(D_MODEL, N_HEAD, custom_encoder=encoder, custom_decoder=decoder, batch_first=True)
        self.proj = nn.Linear(D_MODEL, TGT_VOCAB)

    def embed(self, lut, tokens):
        pe = pe_formula(MAX_LEN, D_MODEL)[:, : tokens.size(1)].to(lut.weight)
        return lut(tokens) * math.sqrt(D_MODEL) + pe

    def forward(self, src, tgt):
        out = self.core(
            self.embed(self.src_lut, src), self.embed(self.tgt_lut, tgt),
            tgt_mask=blocked_future(tgt.size(1), tgt.device),
            src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt == PAD, memory_key_padding_mask=src == PAD,
        )
        return F.log_softmax(self.proj(out), dim=-1)


def test_transformer_matches_nn_transformer(ctx):
    ours = small_model(ctx)
    theirs = randomise(ctx.put(TorchSeq2Seq()))
    pairs = [
        (ours.src_embed[0].lut.weight, theirs.src_lut.weight, ...),
        (ours.tgt_embed[0].lut.weight, theirs.tgt_lut.weight, ...),
    ]
    pairs += layer_pairs(ours.encoder, theirs.core.encoder) + layer_pairs(ours.decoder, theirs.core.decoder)
    pairs = tie(ours, pairs + linear_pairs(ours.generator.proj, theirs.proj))
    src, tgt = ctx.tokens(SRC_TOKENS), ctx.tokens(TGT_TOKENS)

    def ours_fn(s, t):
        return ours(s, t, ref.make_pad_mask(s, PAD), ref.make_tgt_mask(t, PAD))

    out = check_against(ours_fn, theirs, [src, tgt], pairs, tol=ctx.tol)[0]
    assert out.shape == (B, L_Q, TGT_VOCAB) and out.dtype == ctx.dtype and out.device.type == ctx.device.type


def test_transformer_encode_decode_compose_to_forward(ctx):
    model = small_model(ctx)
    src, tgt = ctx.tokens(SRC_TOKENS), ctx.tokens(TGT_TOKENS)
    src_mask, tgt_mask = ref.make_pad_mask(src, PAD), ref.make_tgt_mask(tgt, PAD)
    composed = model.generator(model.decode(model.encode(src, src_mask), src_mask, tgt, tgt_mask))
    torch.testing.assert_close(model(src, tgt, src_mask, tgt_mask), composed, **ctx.tol)


def test_transformer_weight_matrices_are_xavier_uniform():
    torch.manual_seed(0)
    model = ref.Transformer(SRC_VOCAB, TGT_VOCAB, D_MODEL, N_HEAD, N_LAYERS, D_FF, dropout=0.0, max_len=MAX_LEN)
    matrices = {name: p for name, p in model.named_parameters() if p.dim() > 1}
    assert len(matrices) == 2 + N_LAYERS * (4 + 2) + N_LAYERS * (8 + 2) + 1  # luts, encoder, decoder, generator
    for name, p in matrices.items():
        fan_out, fan_in = p.shape
        bound = math.sqrt(6 / (fan_in + fan_out))
        assert p.abs().max() <= bound, name
        # uniform on [-bound, bound] fills it: P(max |w| < 0.8 bound) = 0.8^(>=132) < 1e-12. The default
        # nn.Linear init (bound 1/sqrt(fan_in)) and nn.Embedding init (N(0, 1)) both fail one of the two.
        assert p.abs().max() >= 0.8 * bound, name


# ------------------------------------------------------------------ 09 additive attention


def additive_loop(w_q, w_k, v, query, key, value, mask):
    """score[..., i, j] = v . tanh(W_q q_i + W_k k_j), one (i, j) pair at a time."""
    lead = query.shape[:-2]
    scores = torch.stack([
        torch.stack([
            torch.stack([v @ torch.tanh(w_q @ query[idx][i] + w_k @ key[idx][j]) for j in range(key.size(-2))])
            for i in range(query.size(-2))
        ])
        for idx in itertools.product(*map(range, lead))
    ]).reshape(*lead, query.size(-2), key.size(-2))
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = scores.softmax(dim=-1)
    return weights @ value, weights


@pytest.mark.parametrize("mask_shape", [None, (B, 1, 1, L_K), (L_Q, L_K)], ids=["none", "B_1_1_Lk", "Lq_Lk"])
def test_additive_attention_matches_pairwise_loop(ctx, mask_shape):
    d_hidden = 7
    ours = ctx.put(ref.AdditiveAttention(D_K, d_hidden))
    w_q, w_k, v = (nn.Parameter(ctx.randn(*shape)) for shape in ((d_hidden, D_K), (d_hidden, D_K), (1, d_hidden)))
    pairs = tie(ours, [(ours.w_q.weight, w_q, ...), (ours.w_k.weight, w_k, ...), (ours.v.weight, v, ...)])
    mask = None if mask_shape is None else keep_mask(*mask_shape, device=ctx.device)
    check_against(
        lambda q, k, val: ours(q, k, val, mask),
        lambda q, k, val: additive_loop(w_q, w_k, v[0], q, k, val, mask),
        sdpa_inputs(ctx), pairs, tol=ctx.tol,
    )


def test_additive_multi_head_attention_is_a_drop_in(ctx):
    layer = ref.EncoderLayer(D_MODEL, N_HEAD, D_FF, dropout=0.0)
    layer.self_attn = ref.AdditiveMultiHeadAttention(D_MODEL, N_HEAD, dropout=0.0)
    ctx.put(layer)
    attn = layer.self_attn
    x, keep = ctx.randn(B, L_K, D_MODEL), keep_mask(B, L_K, device=ctx.device)
    out = layer(x, keep[:, None, None, :])
    assert out.shape == x.shape and out.dtype == ctx.dtype and torch.isfinite(out).all()
    assert attn.attn.shape == (B, N_HEAD, L_K, L_K)
    # each head is the shared additive score on that head's slice of the projections
    score, heads = attn.score, []
    for h in range(N_HEAD):
        q, k, v = (lin(x)[..., h * D_K : (h + 1) * D_K] for lin in (attn.w_q, attn.w_k, attn.w_v))
        heads.append(additive_loop(score.w_q.weight, score.w_k.weight, score.v.weight[0], q, k, v, keep[:, None, :]))
    torch.testing.assert_close(attn.attn, torch.stack([w for _, w in heads], dim=1), **ctx.tol)
    expected = attn.w_o(torch.cat([o for o, _ in heads], dim=-1))
    torch.testing.assert_close(attn(x, x, x, keep[:, None, None, :]), expected, **ctx.tol)


# ------------------------------------------------------------------ 10 training utilities


@pytest.mark.parametrize("pad_idx, smoothing", [(0, 0.1), (2, 0.3), (0, 0.0)])
def test_label_smoothing_loss_matches_formula(ctx, pad_idx, smoothing):
    vocab = 7
    targets = [3, pad_idx, 1 if pad_idx != 1 else 4, 5, pad_idx, 6]
    log_probs = ctx.randn(len(targets), vocab).log_softmax(dim=-1)
    dist = [[0.0] * vocab for _ in targets]  # the smoothed target distribution, row by row
    for n, target in enumerate(targets):
        for c in range(vocab):
            if target != pad_idx and c != pad_idx:
                dist[n][c] = 1 - smoothing if c == target else smoothing / (vocab - 2)
    lp = log_probs.tolist()
    loss = sum(t * (math.log(t) - lp[n][c]) for n, row in enumerate(dist) for c, t in enumerate(row) if t > 0)
    criterion = ref.LabelSmoothingLoss(vocab, pad_idx, smoothing)
    d_loss_d_logp = -torch.tensor(dist, device=ctx.device, dtype=ctx.dtype)  # -t: zero on pad rows and the pad column

    def formula(logp):  # the loss value from the loops, with the gradient -t
        return torch.tensor(loss, device=ctx.device, dtype=ctx.dtype) + ((logp - logp.detach()) * d_loss_d_logp).sum()

    target = torch.tensor(targets, device=ctx.device)
    check_against(lambda logp: criterion(logp, target), formula, [log_probs], tol=ctx.tol)


@pytest.mark.parametrize("factor, d_model, warmup", [(1.0, 512, 4000), (2.0, 16, 10)])
def test_noam_rate_matches_formula(factor, d_model, warmup):
    def formula(step):  # linear warm-up, then inverse square root decay
        step = max(step, 1)
        return factor / math.sqrt(d_model) * (step / warmup**1.5 if step <= warmup else 1 / math.sqrt(step))

    for step in (0, 1, 2, warmup // 2, warmup - 1, warmup, warmup + 1, 3 * warmup, 100 * warmup):
        assert math.isclose(ref.noam_rate(step, d_model, warmup, factor), formula(step), rel_tol=1e-12)
    assert ref.noam_rate(0, d_model, warmup, factor) == ref.noam_rate(1, d_model, warmup, factor)
    steps = range(1, 3 * warmup)
    assert max(steps, key=lambda s: ref.noam_rate(s, d_model, warmup, factor)) == warmup


def test_make_batch_shifts_target_and_builds_masks(device):
    src = torch.tensor([[5, 6, 7, PAD], [3, 4, PAD, PAD]], device=device)
    tgt = torch.tensor([[1, 8, 9, 2, PAD], [1, 7, 2, PAD, PAD]], device=device)
    batch = ref.make_batch(src, tgt, PAD)
    assert set(batch) == {"src", "src_mask", "tgt_in", "tgt_out", "tgt_mask", "n_tokens"}
    assert torch.equal(batch["src"], src)
    assert batch["tgt_in"].tolist() == [[1, 8, 9, 2], [1, 7, 2, PAD]]
    assert batch["tgt_out"].tolist() == [[8, 9, 2, PAD], [7, 2, PAD, PAD]]
    assert type(batch["n_tokens"]) is int and batch["n_tokens"] == 5
    assert batch["src_mask"].tolist() == [[[[True, True, True, False]]], [[[True, True, False, False]]]]
    tgt_in = batch["tgt_in"].tolist()
    expected_tgt = [[[[j <= i and tok != PAD for j, tok in enumerate(row)] for i in range(4)]] for row in tgt_in]
    assert batch["tgt_mask"].tolist() == expected_tgt
    assert all(batch[k].device.type == device.type for k in ("src_mask", "tgt_mask"))


BOS, EOS = 1, 2


def greedy_setup(ctx, eos_bias=None):
    model = small_model(ctx)
    if eos_bias is not None:
        with torch.no_grad():
            model.generator.proj.bias[EOS] = eos_bias
    src = ctx.tokens(SRC_TOKENS)
    return model, src, ref.make_pad_mask(src, PAD)


def test_greedy_decode_appends_argmax_of_generator(ctx):
    model, src, src_mask = greedy_setup(ctx)
    max_len = 6
    ys = ref.greedy_decode(model, src, src_mask, max_len, BOS)
    assert ys.shape == (B, max_len) and ys.dtype == torch.long and ys.device.type == ctx.device.type
    assert (ys[:, 0] == BOS).all()
    with torch.no_grad():
        memory = model.encode(src, src_mask)
        for t in range(1, max_len):  # recompute each step from the prefix the decoder produced
            prefix_mask = torch.ones(1, t, t, dtype=torch.bool, device=ctx.device).tril()
            logp = model.generator(model.decode(memory, src_mask, ys[:, :t], prefix_mask))[:, -1]
            # the chosen token attains the maximum (equal to argmax unless two logits tie)
            torch.testing.assert_close(logp.gather(1, ys[:, t : t + 1])[:, 0], logp.max(dim=-1).values, **ctx.tol)


@pytest.mark.parametrize("eos_bias, expected_len", [(1e4, 2), (-1e4, 6)], ids=["eos_always_wins", "eos_never_wins"])
def test_greedy_decode_stops_once_every_row_has_eos(ctx, eos_bias, expected_len):
    model, src, src_mask = greedy_setup(ctx, eos_bias)
    ys = ref.greedy_decode(model, src, src_mask, 6, BOS, eos_idx=EOS)
    assert ys.shape == (B, expected_len)
    assert ((ys == EOS).any(dim=1) == (eos_bias > 0)).all()


class ScriptedModel(nn.Module):
    """A stand-in model: row b emits token 3 + step until step eos_at[b], where it emits EOS."""

    def __init__(self, eos_at, vocab=8):
        super().__init__()
        self.eos_at, self.vocab = eos_at, vocab

    def encode(self, src, src_mask):
        return src

    def decode(self, memory, src_mask, ys, tgt_mask):
        return torch.full((*ys.shape, 1), float(ys.size(1)), device=ys.device)  # last position holds the step

    def generator(self, x):
        step = x[:, 0].long()
        eos_at = torch.tensor(self.eos_at, device=x.device)
        token = torch.where(step == eos_at, EOS, 3 + step % (self.vocab - 3))
        return F.one_hot(token, self.vocab).float().mul(10).log_softmax(dim=-1)


def test_greedy_decode_waits_for_the_last_row_to_emit_eos(device):
    model, src = ScriptedModel(eos_at=[2, 4]), torch.zeros(B, 3, dtype=torch.long, device=device)
    ys = ref.greedy_decode(model, src, None, 10, BOS, eos_idx=EOS)
    assert ys.shape == (B, 5)  # row 1 emits EOS at position 4; row 0 emitted it at position 2
    assert ys[0, :3].tolist() == [BOS, 4, EOS] and ys[1].tolist() == [BOS, 4, 5, 6, EOS]
