"""Walkthrough of 08-generator: realistic wrong answers to Generator and Transformer.

Each row's code is the whole answer cell as a learner leaves it: the right answer below with
one mistake written in (`_with` checks that the line it replaces is there).
"""
from tests.walkthrough import Mistake

NOTEBOOK = "08-generator"

GENERATOR = '''class Generator(nn.Module):
    def __init__(self, d_model, vocab_size):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab_size)

    def forward(self, x):
        logits = self.proj(x)
        return F.log_softmax(logits, dim=-1)
'''

TRANSFORMER = '''class Transformer(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_head=8, n_layers=6, d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__()
        self.src_embed = nn.Sequential(Embeddings(src_vocab, d_model), PositionalEncoding(d_model, max_len, dropout))
        self.tgt_embed = nn.Sequential(Embeddings(tgt_vocab, d_model), PositionalEncoding(d_model, max_len, dropout))
        self.encoder = Encoder(d_model, n_head, d_ff, n_layers, dropout)
        self.decoder = Decoder(d_model, n_head, d_ff, n_layers, dropout)
        self.generator = Generator(d_model, tgt_vocab)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def encode(self, src, src_mask):
        return self.encoder(self.src_embed(src), src_mask)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask)

    def forward(self, src, tgt, src_mask, tgt_mask):
        memory = self.encode(src, src_mask)
        return self.generator(self.decode(memory, src_mask, tgt, tgt_mask))
'''

XAVIER_LOOP = '''        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
'''


def _with(right, old, new):
    assert old in right, old
    return right.replace(old, new)


def generator(what, old, new, expect, helpful="yes", gives_away="no"):
    return Mistake(notebook=NOTEBOOK, unit="Generator", what=what, code=_with(GENERATOR, old, new), expect=expect,
                   helpful=helpful, gives_away=gives_away)


def transformer(what, code, expect, helpful="yes", gives_away="no", why_unseen=""):
    return Mistake(notebook=NOTEBOOK, unit="Transformer", what=what, code=code, expect=expect,
                   helpful=helpful, gives_away=gives_away, why_unseen=why_unseen)


ROWS = [
    # ------------------------------------------------------------------ Generator
    generator("returns the probabilities (softmax), as the word 'probability' suggests",
              "F.log_softmax(logits, dim=-1)", "F.softmax(logits, dim=-1)", "generator-softmax"),
    generator("returns the logits: the projection alone",
              "return F.log_softmax(logits, dim=-1)", "return logits", "generator-logits"),
    generator("log-softmax over axis 1, the positions of a (B, L, V) input",
              "dim=-1", "dim=1", "generator-wrong-dim"),
    generator("log-softmax over the fixed axis 2: right for (B, L, V), wrong for greedy decoding's (B, d_model)",
              "dim=-1", "dim=2", "generator-wrong-dim"),
    generator("log of the softmax, in two steps: -inf once the model is confident",
              "F.log_softmax(logits, dim=-1)", "torch.log(torch.softmax(logits, dim=-1))", "property-violated"),
    generator("the formula written out without the max shift: exp overflows for confident logits",
              "F.log_softmax(logits, dim=-1)", "logits - logits.exp().sum(-1, keepdim=True).log()",
              "property-violated"),
    generator("log-sum-exp subtracted without keepdim: (B, L, V) minus (B, L)",
              "F.log_softmax(logits, dim=-1)", "logits - torch.logsumexp(logits, dim=-1)", "runtime-error",
              gives_away="partly"),
    generator("the projection without a bias",
              "nn.Linear(d_model, vocab_size)", "nn.Linear(d_model, vocab_size, bias=False)", "wrong-interface"),
    generator("the projection's sizes swapped: vocab_size -> d_model",
              "nn.Linear(d_model, vocab_size)", "nn.Linear(vocab_size, d_model)", "runtime-error", helpful="partly"),
    # ------------------------------------------------------------------ Transformer
    transformer("decode embeds the target with src_embed",
                _with(TRANSFORMER, "self.decoder(self.tgt_embed(tgt)", "self.decoder(self.src_embed(tgt)"),
                "transformer-tgt-uses-src-embed"),
    transformer("the Xavier loop written before the generator: the generator keeps PyTorch's default start",
                _with(_with(TRANSFORMER, XAVIER_LOOP, ""), "        self.generator = Generator(d_model, tgt_vocab)\n",
                      XAVIER_LOOP + "        self.generator = Generator(d_model, tgt_vocab)\n"),
                "property-violated"),
    transformer("the Xavier loop written in the first blank, right after the embeddings",
                _with(_with(TRANSFORMER, XAVIER_LOOP, ""), "        self.encoder = Encoder(",
                      XAVIER_LOOP + "        self.encoder = Encoder("),
                "property-violated"),
    transformer("no initialisation at all: every matrix keeps PyTorch's default",
                _with(TRANSFORMER, XAVIER_LOOP, ""), "property-violated"),
    transformer("Xavier-normal instead of Xavier-uniform",
                _with(TRANSFORMER, "xavier_uniform_", "xavier_normal_"), "property-violated", gives_away="partly"),
    transformer("Xavier on every parameter, biases and LayerNorm included",
                _with(TRANSFORMER, "            if p.dim() > 1:\n                nn.init.xavier_uniform_(p)",
                      "            nn.init.xavier_uniform_(p)"), "runtime-error", helpful="partly"),
    transformer("the dropout argument not passed on: PositionalEncoding keeps its default 0.1",
                _with(TRANSFORMER, "PositionalEncoding(d_model, max_len, dropout))\n        self.tgt_embed",
                      "PositionalEncoding(d_model, max_len))\n        self.tgt_embed").replace(
                    "PositionalEncoding(d_model, max_len, dropout))\n        self.encoder",
                    "PositionalEncoding(d_model, max_len))\n        self.encoder"),
                "property-violated"),
    transformer("PositionalEncoding(d_model, dropout): the dropout lands in max_len",
                TRANSFORMER.replace("PositionalEncoding(d_model, max_len, dropout)", "PositionalEncoding(d_model, dropout)"),
                "runtime-error", helpful="partly"),
    transformer("forward returns the decoder's output: no generator",
                _with(TRANSFORMER, "return self.generator(self.decode(memory, src_mask, tgt, tgt_mask))",
                      "return self.decode(memory, src_mask, tgt, tgt_mask)"), "shape"),
    transformer("forward returns the generator's logits (proj only)",
                _with(TRANSFORMER, "return self.generator(self.decode(memory, src_mask, tgt, tgt_mask))",
                      "return self.generator.proj(self.decode(memory, src_mask, tgt, tgt_mask))"),
                "generator-logits"),
    transformer("the generator sized for the source vocabulary",
                _with(TRANSFORMER, "Generator(d_model, tgt_vocab)", "Generator(d_model, src_vocab)"), "wrong-interface"),
    transformer("encode forgets the source mask",
                _with(TRANSFORMER, "self.encoder(self.src_embed(src), src_mask)", "self.encoder(self.src_embed(src))"),
                "property-violated"),
    transformer("decode passes no src_mask to the decoder: cross-attention reads the source padding",
                _with(TRANSFORMER, "memory, src_mask, tgt_mask)\n", "memory, None, tgt_mask)\n"),
                "property-violated"),
    transformer("embeddings without the positional encoding",
                _with(_with(TRANSFORMER, "nn.Sequential(Embeddings(src_vocab, d_model), PositionalEncoding(d_model, max_len, dropout))",
                            "nn.Sequential(Embeddings(src_vocab, d_model))"),
                      "nn.Sequential(Embeddings(tgt_vocab, d_model), PositionalEncoding(d_model, max_len, dropout))",
                      "nn.Sequential(Embeddings(tgt_vocab, d_model))"), "property-violated"),
    transformer("decode passes no tgt_mask: the decoder sees the future",
                _with(TRANSFORMER, "memory, src_mask, tgt_mask)\n", "memory, src_mask)\n"), "property-violated"),
    transformer("decode's masks swapped: the source mask on the target's self-attention",
                _with(TRANSFORMER, "memory, src_mask, tgt_mask)\n", "memory, tgt_mask, src_mask)\n"), "runtime-error",
                helpful="partly"),
]
