"""Walkthrough of 09-additive-attention: realistic wrong answers to AdditiveAttention and AdditiveMultiHeadAttention.

Each row's code is the whole answer cell as a learner leaves it: the right answer below with
one mistake written in (`_with` checks that the text it replaces is there).
"""
from tests.walkthrough import Mistake

NOTEBOOK = "09-additive-attention"

ADDITIVE = '''class AdditiveAttention(nn.Module):
    def __init__(self, d_k, d_hidden):
        super().__init__()
        self.w_q = nn.Linear(d_k, d_hidden, bias=False)
        self.w_k = nn.Linear(d_k, d_hidden, bias=False)
        self.v = nn.Linear(d_hidden, 1, bias=False)

    def forward(self, query, key, value, mask=None, dropout=None):
        q = self.w_q(query).unsqueeze(-2)
        k = self.w_k(key).unsqueeze(-3)
        scores = self.v(torch.tanh(q + k)).squeeze(-1)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1)
        dropped = dropout(weights) if dropout is not None else weights
        return dropped @ value, weights
'''

MULTI_HEAD = '''class AdditiveMultiHeadAttention(MultiHeadAttention):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__(d_model, n_head, dropout)
        self.score = AdditiveAttention(self.d_k, self.d_k)

    def attend(self, q, k, v, mask):
        out, weights = self.score(q, k, v, mask, self.dropout)
        return out, weights
'''


def _with(right, *changes):
    for old, new in zip(changes[::2], changes[1::2]):
        assert old in right, old
        right = right.replace(old, new)
    return right


def additive(what, changes, expect, helpful="yes", gives_away="no"):
    return Mistake(notebook=NOTEBOOK, unit="AdditiveAttention", what=what, code=_with(ADDITIVE, *changes),
                   expect=expect, helpful=helpful, gives_away=gives_away)


def multi_head(what, changes, expect, helpful="yes", gives_away="no"):
    return Mistake(notebook=NOTEBOOK, unit="AdditiveMultiHeadAttention", what=what, code=_with(MULTI_HEAD, *changes),
                   expect=expect, helpful=helpful, gives_away=gives_away)


ROWS = [
    # ------------------------------------------------------------------ AdditiveAttention
    additive("no tanh: v applied straight to q + k",
             ("self.v(torch.tanh(q + k))", "self.v(q + k)"), "additive-no-tanh"),
    additive("relu in place of tanh",
             ("self.v(torch.tanh(q + k))", "self.v(torch.relu(q + k))"), "additive-no-tanh"),
    additive("tanh after v, on the final score",
             ("self.v(torch.tanh(q + k)).squeeze(-1)", "torch.tanh(self.v(q + k)).squeeze(-1)"), "additive-no-tanh"),
    additive("softmax over the queries (dim=-2)",
             ("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-2)"), "additive-softmax-dim"),
    additive("softmax over the fixed axis 1",
             ("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=1)"), "additive-softmax-dim"),
    additive("masked_fill's result not kept",
             ("scores = scores.masked_fill(", "scores.masked_fill("), "additive-mask-ignored"),
    additive("mask inverted: blocks the keys marked True",
             ("masked_fill(mask == 0,", "masked_fill(mask,"), "property-violated"),
    additive("blocked scores set to 0 instead of a very negative number",
             ("torch.finfo(scores.dtype).min", "0.0"), "property-violated"),
    additive(".squeeze() without an axis: breaks for a single query",
             (".squeeze(-1)", ".squeeze()"), "shape", gives_away="partly"),
    additive("w_k applied to the queries and w_q to the keys",
             ("q = self.w_q(query)", "q = self.w_k(query)", "k = self.w_k(key)", "k = self.w_q(key)"),
             "property-violated"),
    additive("returns the weights after dropout",
             ("return dropped @ value, weights", "return dropped @ value, dropped"), "property-violated"),
    additive("the dropout module ignored: the output from the weights themselves",
             ("return dropped @ value, weights", "return weights @ value, weights"), "property-violated"),
    additive("linear maps with a bias",
             ("self.w_q = nn.Linear(d_k, d_hidden, bias=False)", "self.w_q = nn.Linear(d_k, d_hidden)",
              "self.w_k = nn.Linear(d_k, d_hidden, bias=False)", "self.w_k = nn.Linear(d_k, d_hidden)"),
             "wrong-interface"),
    additive("axes for broadcasting swapped: queries get the key axis",
             ("self.w_q(query).unsqueeze(-2)", "self.w_q(query).unsqueeze(-3)",
              "self.w_k(key).unsqueeze(-3)", "self.w_k(key).unsqueeze(-2)"), "runtime-error", helpful="partly"),
    # ------------------------------------------------------------------ AdditiveMultiHeadAttention
    multi_head("the scorer built on d_model, not on one head's d_k",
               ("AdditiveAttention(self.d_k, self.d_k)", "AdditiveAttention(d_model, d_model)"), "wrong-interface"),
    multi_head("hidden size d_model instead of d_k",
               ("AdditiveAttention(self.d_k, self.d_k)", "AdditiveAttention(self.d_k, d_model)"), "wrong-interface"),
    multi_head("attend forgets the mask",
               ("self.score(q, k, v, mask, self.dropout)", "self.score(q, k, v, dropout=self.dropout)"),
               "additive-mask-ignored"),
    multi_head("attend forgets self.dropout",
               ("self.score(q, k, v, mask, self.dropout)", "self.score(q, k, v, mask)"), "property-violated"),
    multi_head("self.dropout passed where the mask goes",
               ("self.score(q, k, v, mask, self.dropout)", "self.score(q, k, v, self.dropout)"), "runtime-error",
               helpful="partly"),
    multi_head("attend keeps the provided dot-product attention",
               ("self.score(q, k, v, mask, self.dropout)", "scaled_dot_product_attention(q, k, v, mask, self.dropout)"),
               "property-violated"),
    multi_head("the scorer built before super().__init__()",
               ("        super().__init__(d_model, n_head, dropout)\n        self.score = AdditiveAttention(self.d_k, self.d_k)\n",
                "        self.score = AdditiveAttention(d_model // n_head, d_model // n_head)\n"
                "        super().__init__(d_model, n_head, dropout)\n"), "runtime-error"),
    multi_head("one scorer per head, in a ModuleList",
               ("self.score = AdditiveAttention(self.d_k, self.d_k)",
                "self.score = nn.ModuleList([AdditiveAttention(self.d_k, self.d_k) for _ in range(n_head)])",
                "out, weights = self.score(q, k, v, mask, self.dropout)",
                "pairs = [s(q[:, i], k[:, i], v[:, i], mask, self.dropout) for i, s in enumerate(self.score)]\n"
                "        out = torch.stack([o for o, _ in pairs], 1)\n        weights = torch.stack([w for _, w in pairs], 1)"),
               "wrong-interface"),
]
