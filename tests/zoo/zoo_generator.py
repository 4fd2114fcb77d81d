"""Zoo of 08-generator: Generator, Transformer, right and wrong.

The models build on the zoo's own embeddings, positional encoding, encoder and decoder (not
the reference's), as the notebook builds on the provided copies of earlier units.
"""
import torch
import torch.nn.functional as F
from torch import nn

import autograder.checks.generator  # noqa: F401  (registers Generator and Transformer)

from . import bug, right
from .zoo_decoder import DecoderComprehension
from .zoo_encoder import EmbeddingsTimesSqrt, EncoderComprehension, PEFloat32DivTerm

# ------------------------------------------------------------------ Generator


class _Projection(nn.Module):
    def __init__(self, d_model, vocab_size):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab_size)


@right("Generator")
class GeneratorLogSoftmax(_Projection):
    def forward(self, x):
        return F.log_softmax(self.proj(x), dim=-1)


@right("Generator")
class GeneratorLogSumExp(_Projection):
    """The formula written out: z - log sum exp z."""

    def forward(self, x):
        logits = self.proj(x)
        return logits - torch.logsumexp(logits, dim=-1, keepdim=True)


@right("Generator")
class GeneratorLogSoftmaxModule(_Projection):
    def __init__(self, d_model, vocab_size):
        super().__init__(d_model, vocab_size)
        self.log_softmax = nn.LogSoftmax(dim=-1)

    def forward(self, x):
        return self.log_softmax(self.proj(x))


@bug("Generator", "generator-softmax", "values", "properties")
class GeneratorProbabilities(_Projection):
    """The name says 'probabilities', so one learner returned them."""

    def forward(self, x):
        return F.softmax(self.proj(x), dim=-1)


@bug("Generator", "generator-logits", "values", "float64")
class GeneratorLogitsOnly(_Projection):
    def forward(self, x):
        return self.proj(x)


@bug("Generator", "generator-wrong-dim", "values")
class GeneratorFixedAxisTwo(_Projection):
    """Right for (B, L, d_model) only: greedy decoding passes (B, d_model)."""

    def forward(self, x):
        return F.log_softmax(self.proj(x), dim=2)


@bug("Generator", "generator-wrong-dim", "values", "properties")
class GeneratorOverPositions(_Projection):
    def forward(self, x):
        return torch.log_softmax(self.proj(x), dim=1)


@bug("Generator", "property-violated", "properties")
class GeneratorLogOfSoftmax(_Projection):
    """Right on ordinary inputs; -inf once the model is confident."""

    def forward(self, x):
        return torch.log(torch.softmax(self.proj(x), dim=-1))


# ------------------------------------------------------------------ Transformer


def _embed(vocab, d_model, max_len, dropout):
    return nn.Sequential(EmbeddingsTimesSqrt(vocab, d_model), PEFloat32DivTerm(d_model, max_len, dropout))


class _Model(nn.Module):
    """The parts, built as the notebook's answer builds them; subclasses choose init and methods."""

    generator_class = GeneratorLogSoftmax

    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_head=8, n_layers=6, d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__()
        self.src_embed = _embed(src_vocab, d_model, max_len, dropout)
        self.tgt_embed = _embed(tgt_vocab, d_model, max_len, dropout)
        self.encoder = EncoderComprehension(d_model, n_head, d_ff, n_layers, dropout)
        self.decoder = DecoderComprehension(d_model, n_head, d_ff, n_layers, dropout)
        self.generator = self.generator_class(d_model, tgt_vocab)
        self.initialise()

    def initialise(self):
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def encode(self, src, src_mask):
        return self.encoder(self.src_embed(src), src_mask)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask)

    def forward(self, src, tgt, src_mask, tgt_mask):
        return self.generator(self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask))


@right("Transformer")
class TransformerAnnotated(_Model):
    pass


@right("Transformer")
class TransformerApplyInit(_Model):
    """Initialisation by module type, and forward spelled out step by step."""

    def initialise(self):
        def xavier(module):
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.xavier_uniform_(module.weight)

        self.apply(xavier)

    def forward(self, src, tgt, src_mask, tgt_mask):
        memory = self.encode(src, src_mask)
        out = self.decode(memory, src_mask, tgt, tgt_mask)
        return self.generator(out)


@bug("Transformer", "transformer-tgt-uses-src-embed", "values", "properties")
class TransformerOneEmbedding(_Model):
    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.src_embed(tgt), memory, src_mask, tgt_mask)


@bug("Transformer", "generator-softmax", "values", "masks")
class TransformerOfProbabilities(_Model):
    generator_class = GeneratorProbabilities


@bug("Transformer", "property-violated", "properties")
class TransformerDefaultInit(_Model):
    def initialise(self):
        pass


@bug("Transformer", "property-violated", "properties")
class TransformerXavierLinearsOnly(_Model):
    """Embeddings keep their N(0, 1) start."""

    def initialise(self):
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)


@bug("Transformer", "property-violated", "properties", visible="property-violated")
class TransformerNormalInit(_Model):
    """Re-initialised, with nn.init.normal_ (N(0, 1)): not Xavier-uniform, and not left at the default start."""

    def initialise(self):
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.normal_(p)


@bug("Transformer", "shape", "values")
class TransformerNoGenerator(_Model):
    def forward(self, src, tgt, src_mask, tgt_mask):
        return self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask)


# ------------------------------------------------------------------ issue 16: mistakes of the walkthrough


@bug("Generator", "property-violated", "properties")
class GeneratorUnshiftedFormula(_Projection):
    """z - log(sum(exp(z))) without the max shift: exp overflows to inf for confident logits."""

    def forward(self, x):
        logits = self.proj(x)
        return logits - logits.exp().sum(-1, keepdim=True).log()


@bug("Transformer", "property-violated", "properties")
class TransformerXavierBeforeGenerator(_Model):
    """The Xavier loop run before the generator exists: the generator keeps PyTorch's default start."""

    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_head=8, n_layers=6, d_ff=2048, dropout=0.1, max_len=5000):
        nn.Module.__init__(self)
        self.src_embed = _embed(src_vocab, d_model, max_len, dropout)
        self.tgt_embed = _embed(tgt_vocab, d_model, max_len, dropout)
        self.encoder = EncoderComprehension(d_model, n_head, d_ff, n_layers, dropout)
        self.decoder = DecoderComprehension(d_model, n_head, d_ff, n_layers, dropout)
        self.initialise()
        self.generator = self.generator_class(d_model, tgt_vocab)



@bug("Transformer", "property-violated", "properties")
class TransformerXavierBeforeStacks(_Model):
    """The Xavier loop in the first blank, right after the embeddings: encoder, decoder and generator keep the default."""

    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_head=8, n_layers=6, d_ff=2048, dropout=0.1, max_len=5000):
        nn.Module.__init__(self)
        self.src_embed = _embed(src_vocab, d_model, max_len, dropout)
        self.tgt_embed = _embed(tgt_vocab, d_model, max_len, dropout)
        self.initialise()
        self.encoder = EncoderComprehension(d_model, n_head, d_ff, n_layers, dropout)
        self.decoder = DecoderComprehension(d_model, n_head, d_ff, n_layers, dropout)
        self.generator = self.generator_class(d_model, tgt_vocab)


@bug("Transformer", "property-violated", "properties")
class TransformerXavierNormal(_Model):
    def initialise(self):
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_normal_(p)


@bug("Transformer", "property-violated", "properties")
class TransformerDropoutNotPassed(_Model):
    """The positional encodings built without the dropout argument: their default p = 0.1 drops even at dropout=0."""

    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_head=8, n_layers=6, d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__(src_vocab, tgt_vocab, d_model, n_head, n_layers, d_ff, dropout, max_len)
        self.src_embed = _embed(src_vocab, d_model, max_len, 0.1)
        self.tgt_embed = _embed(tgt_vocab, d_model, max_len, 0.1)
        self.initialise()


@bug("Transformer", "wrong-values", "values")
class TransformerNoPositionalEncoding(_Model):
    """Embeddings alone: the visible test names it ([property-violated], the position signal is missing)."""

    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_head=8, n_layers=6, d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__(src_vocab, tgt_vocab, d_model, n_head, n_layers, d_ff, dropout, max_len)
        self.src_embed = nn.Sequential(EmbeddingsTimesSqrt(src_vocab, d_model))
        self.tgt_embed = nn.Sequential(EmbeddingsTimesSqrt(tgt_vocab, d_model))
        self.initialise()


@bug("Transformer", "wrong-values", "values", "masks")
class TransformerEncodeWithoutMask(_Model):
    """encode forgets src_mask: the visible test names it ([property-violated], the source padding is seen)."""

    def encode(self, src, src_mask):
        return self.encoder(self.src_embed(src))


@bug("Transformer", "wrong-values", "values")
class TransformerDecodeWithoutTgtMask(_Model):
    """decode forgets tgt_mask: the visible test names it ([property-violated], the future is seen)."""

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.tgt_embed(tgt), memory, src_mask)
