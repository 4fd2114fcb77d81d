"""Walkthrough of 02-multi-head: split_heads, merge_heads and MultiHeadAttention, one realistic mistake at a time.

Each row's code is the learner's whole answer cell: the cell as given, its blanks filled as
the learner filled them (a keyword left out is answered right).
"""
from tests.walkthrough import Mistake

NOTEBOOK = "02-multi-head"


def _fill(template, right, lines):
    got = {**right, **lines}
    text = template
    for name, code in got.items():
        indent = text[:text.index("{" + name + "}")].rsplit("\n", 1)[1]
        text = text.replace("{" + name + "}", code.replace("\n", "\n" + indent))
    return text


SPLIT = '''def split_heads(x, n_head):
    """(B, L, d_model) -> (B, n_head, L, d_k): n_head slices of size d_k each.

    Head h at position l holds the features h * d_k : (h + 1) * d_k of position l.
    """
    batch, length, d_model = x.shape
    # d_k: the size of each head's slice of the d_model features (a Python int)
    {d_k}

    # x (B, L, d_model) -> (B, L, n_head, d_k): cut the last axis into n_head slices
    {cut}

    # (B, L, n_head, d_k) -> (B, n_head, L, d_k): move the head axis in front of the positions
    {move}
    return x
'''
SPLIT_RIGHT = {"d_k": "d_k = d_model // n_head", "cut": "x = x.view(batch, length, n_head, d_k)",
               "move": "x = x.transpose(1, 2)"}

MERGE = '''def merge_heads(x):
    """(B, n_head, L, d_k) -> (B, L, n_head * d_k): the inverse of split_heads."""
    batch, n_head, length, d_k = x.shape
    # (B, n_head, L, d_k) -> (B, L, n_head, d_k): move the positions back in front of the heads
    {move}

    # (B, L, n_head, d_k) -> (B, L, n_head, d_k), laid out in memory in this order
    {contiguous}

    # (B, L, n_head, d_k) -> (B, L, n_head * d_k): glue each position's heads side by side
    {glue}
    return x
'''
MERGE_RIGHT = {"move": "x = x.transpose(1, 2)", "contiguous": "x = x.contiguous()",
               "glue": "x = x.view(batch, length, n_head * d_k)"}

MHA = '''class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        assert d_model % n_head == 0, "d_model must be divisible by n_head"
        # self.n_head: the number of heads; self.d_k: the size of each head (an int)
        {sizes}

        # self.w_q, self.w_k, self.w_v, self.w_o: four nn.Linear layers, d_model -> d_model, with bias
        {layers}
        self.dropout = nn.Dropout(dropout)  # applied to the attention weights
        self.attn = None  # the weights of the last call, (B, n_head, L_q, L_k)

    def forward(self, query, key, value, mask=None):
        # project each input with its own layer, then split it into heads:
        # query (B, L_q, d_model) -> q (B, n_head, L_q, d_k)
        # key, value (B, L_k, d_model) -> k, v (B, n_head, L_k, d_k)
        {project}

        # attention in every head at once, with the mask unchanged and self.dropout:
        # q, k, v -> out (B, n_head, L_q, d_k); keep the weights (B, n_head, L_q, L_k) in self.attn
        {attend}

        # merge the heads and mix them: out (B, n_head, L_q, d_k) -> (B, L_q, d_model) -> w_o -> (B, L_q, d_model)
        {mix}
'''
MHA_RIGHT = {
    "sizes": "self.n_head = n_head\nself.d_k = d_model // n_head",
    "layers": "self.w_q = nn.Linear(d_model, d_model)\nself.w_k = nn.Linear(d_model, d_model)\n"
              "self.w_v = nn.Linear(d_model, d_model)\nself.w_o = nn.Linear(d_model, d_model)",
    "project": "q = split_heads(self.w_q(query), self.n_head)\nk = split_heads(self.w_k(key), self.n_head)\n"
               "v = split_heads(self.w_v(value), self.n_head)",
    "attend": "out, self.attn = scaled_dot_product_attention(q, k, v, mask, self.dropout)",
    "mix": "return self.w_o(merge_heads(out))",
}

UNITS = {"split_heads": (SPLIT, SPLIT_RIGHT), "merge_heads": (MERGE, MERGE_RIGHT),
         "MultiHeadAttention": (MHA, MHA_RIGHT)}


def _row(unit, what, expect, helpful="yes", gives_away="no", **lines):
    template, right = UNITS[unit]
    return Mistake(notebook=NOTEBOOK, unit=unit, what=what, code=_fill(template, right, lines), expect=expect,
                   helpful=helpful, gives_away=gives_away)


ROWS = [
    # ------------------------------------------------------------------ split_heads
    _row("split_heads", "view straight to (B, n_head, L, d_k)", "heads-split-no-transpose",
         cut="x = x.view(batch, n_head, length, d_k)", move="pass"),
    _row("split_heads", "reshape straight to (B, n_head, L, d_k), then the given transpose undone by a second one",
         "heads-split-no-transpose", cut="x = x.reshape(batch, n_head, length, d_k)", move="x = x.transpose(1, 2).transpose(1, 2)"),
    _row("split_heads", "the head axis never moved: (B, L, n_head, d_k) returned", "shape", move="pass", helpful="yes", gives_away="partly"),
    _row("split_heads", "d_model where d_k is meant in the view", "runtime-error",
         cut="x = x.view(batch, length, n_head, d_model)"),
    _row("split_heads", "d_k = d_model / n_head, a float", "runtime-error", d_k="d_k = d_model / n_head"),
    _row("split_heads", "the last axis cut as (d_k, n_head): each head gets every n_head-th feature", "wrong-values",
         cut="x = x.view(batch, length, d_k, n_head).transpose(2, 3)"),
    _row("split_heads", "transposed first, then cut: (B, d_model, L) read as (B, n_head, L, d_k)", "wrong-values",
         cut="x = x.transpose(1, 2).contiguous()", move="x = x.view(batch, n_head, length, d_k)"),
    _row("split_heads", "the wrong axes transposed: (0, 2)", "shape", move="x = x.transpose(0, 2)", helpful="partly", gives_away="no"),
    # ------------------------------------------------------------------ merge_heads
    _row("merge_heads", "view straight to (B, L, d_model)", "heads-merge-no-transpose",
         move="pass", contiguous="pass"),
    _row("merge_heads", "transpose result thrown away (`x.transpose(1, 2)` as a statement)", "heads-merge-no-transpose",
         move="x.transpose(1, 2)", helpful="yes", gives_away="partly"),
    _row("merge_heads", "view after the transpose, without contiguous", "runtime-error", contiguous="pass", helpful="yes", gives_away="partly"),
    _row("merge_heads", "d_k where n_head * d_k is meant", "runtime-error",
         glue="x = x.view(batch, length, d_k)", helpful="partly", gives_away="no"),
    _row("merge_heads", "heads not glued: (B, L, n_head, d_k) returned", "shape", glue="pass", helpful="yes", gives_away="partly"),
    _row("merge_heads", "the head axis moved behind the features: features interleaved across heads", "wrong-values",
         move="x = x.permute(0, 2, 3, 1)", glue="x = x.reshape(batch, length, n_head * d_k)"),
    _row("merge_heads", "heads concatenated along the positions", "shape",
         move="x = torch.cat(x.unbind(dim=1), dim=1)", contiguous="pass", glue="pass", helpful="partly", gives_away="no"),
    # ------------------------------------------------------------------ MultiHeadAttention
    _row("MultiHeadAttention", "keys and values projected with w_q (as in a learner's notebook)", "mha-kv-use-wq",
         project="q = split_heads(self.w_q(query), self.n_head)\nk = split_heads(self.w_q(key), self.n_head)\n"
                 "v = split_heads(self.w_q(value), self.n_head)"),
    _row("MultiHeadAttention", "`self.w_q == nn.Linear(...)`: compared, not assigned (as in a learner's notebook)",
         "runtime-error",
         layers="self.w_q == nn.Linear(d_model, d_model)\nself.w_k == nn.Linear(d_model, d_model)\n"
                "self.w_v == nn.Linear(d_model, d_model)\nself.w_o = nn.Linear(d_model, d_model)", helpful="yes", gives_away="partly"),
    _row("MultiHeadAttention", "no output projection", "mha-no-output-proj", mix="return merge_heads(out)"),
    _row("MultiHeadAttention", "query and key swapped in their projections", "mha-qkv-swapped",
         project="q = split_heads(self.w_q(key), self.n_head)\nk = split_heads(self.w_k(query), self.n_head)\n"
                 "v = split_heads(self.w_v(value), self.n_head)", helpful="partly", gives_away="no"),
    _row("MultiHeadAttention", "its own attention, scaled by sqrt(d_model)", "mha-scale-dmodel",
         attend="scores = q @ k.transpose(-2, -1) / math.sqrt(self.n_head * self.d_k)\n"
                "if mask is not None:\n    scores = scores.masked_fill(~mask, float('-inf'))\n"
                "self.attn = scores.softmax(dim=-1)\nout = self.dropout(self.attn) @ v"),
    _row("MultiHeadAttention", "returns (output, weights), as in a learner's notebook", "wrong-interface",
         mix="return self.w_o(merge_heads(out)), self.attn"),
    _row("MultiHeadAttention", "the mask unsqueezed once more", "property-violated",
         attend="out, self.attn = scaled_dot_product_attention(q, k, v, mask.unsqueeze(1) if mask is not None else None, "
                "self.dropout)", helpful="yes", gives_away="partly"),
    _row("MultiHeadAttention", "heads split inline by a straight view", "heads-split-no-transpose",
         project="b = query.size(0)\nq = self.w_q(query).view(b, self.n_head, -1, self.d_k)\n"
                 "k = self.w_k(key).view(b, self.n_head, -1, self.d_k)\nv = self.w_v(value).view(b, self.n_head, -1, self.d_k)"),
    _row("MultiHeadAttention", "projections to d_k features instead of d_model", "wrong-interface",
         layers="self.w_q = nn.Linear(d_model, self.d_k)\nself.w_k = nn.Linear(d_model, self.d_k)\n"
                "self.w_v = nn.Linear(d_model, self.d_k)\nself.w_o = nn.Linear(self.d_k, d_model)", helpful="yes", gives_away="partly"),
    _row("MultiHeadAttention", "split_heads given d_k where n_head goes", "shape",
         project="q = split_heads(self.w_q(query), self.d_k)\nk = split_heads(self.w_k(key), self.d_k)\n"
                 "v = split_heads(self.w_v(value), self.d_k)", helpful="partly", gives_away="no"),
    _row("MultiHeadAttention", "heads merged inline to d_k features, not d_model", "runtime-error",
         mix="b, h, l, d = out.shape\nreturn self.w_o(out.transpose(1, 2).reshape(b, l, self.d_k))", helpful="partly", gives_away="no"),
    _row("MultiHeadAttention", "w_o built from d_k features (d_model meets d_k)", "wrong-interface",
         layers="self.w_q = nn.Linear(d_model, d_model)\nself.w_k = nn.Linear(d_model, d_model)\n"
                "self.w_v = nn.Linear(d_model, d_model)\nself.w_o = nn.Linear(self.d_k, d_model)", helpful="yes", gives_away="partly"),
    _row("MultiHeadAttention", "self.dropout never handed to the attention", "property-violated",
         attend="out, self.attn = scaled_dot_product_attention(q, k, v, mask)", helpful="yes", gives_away="partly"),
    _row("MultiHeadAttention", "self.dropout applied to the layer's output instead of the weights", "property-violated",
         attend="out, self.attn = scaled_dot_product_attention(q, k, v, mask)",
         mix="return self.dropout(self.w_o(merge_heads(out)))", helpful="yes", gives_away="partly"),
    _row("MultiHeadAttention", "self.dropout passed where the mask goes", "runtime-error",
         attend="out, self.attn = scaled_dot_product_attention(q, k, v, self.dropout)", helpful="partly", gives_away="no"),
    _row("MultiHeadAttention", "self.attn keeps the dropped weights", "property-violated",
         attend="out, weights = scaled_dot_product_attention(q, k, v, mask)\nself.attn = self.dropout(weights)\n"
                "out = self.attn @ v", helpful="yes", gives_away="partly"),
    _row("MultiHeadAttention", "self.attn never set", "wrong-interface",
         attend="out, weights = scaled_dot_product_attention(q, k, v, mask, self.dropout)"),
    _row("MultiHeadAttention", "d_k computed with / (a float)", "wrong-interface",
         sizes="self.n_head = n_head\nself.d_k = d_model / n_head"),
]
