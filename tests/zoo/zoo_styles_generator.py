"""Right Generator and Transformer (08-generator) in many styles.

Generators: the tensor method, the last axis computed, an nn.Sequential over proj, the
max-shifted formula, F.linear. Models: the Annotated Transformer's parameter loop,
nn.Transformer's _reset_parameters, Xavier by name or by module type, a forward written
without the helper methods, a local helper for the embedding stacks. They are built from
other styles' parts.
"""
import torch
import torch.nn.functional as F
from torch import nn

import autograder.checks.generator  # noqa: F401  (registers Generator and Transformer)

from . import right
from .zoo_styles_decoder import DecoderClones, DecoderReduce, DecoderWhileLoop
from .zoo_styles_encoder import (EmbeddingsIndexSelect, EmbeddingsScaleBuffer, EmbeddingsTorchMul, EncoderClones,
                                 EncoderExtend, EncoderMap, PEd2l, PEOldVariable, PEPowerDivision)

# ------------------------------------------------------------------ Generator


class _Proj(nn.Module):
    def __init__(self, d_model, vocab_size):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab_size)


@right("Generator")
class GeneratorTensorMethod(_Proj):
    def forward(self, x):
        return self.proj(x).log_softmax(dim=-1)


@right("Generator")
class GeneratorLastAxis(_Proj):
    def forward(self, x):
        return torch.log_softmax(self.proj(x), dim=x.dim() - 1)


@right("Generator")
class GeneratorSequential(_Proj):
    def __init__(self, d_model, vocab_size):
        super().__init__(d_model, vocab_size)
        self.net = nn.Sequential(self.proj, nn.LogSoftmax(dim=-1))

    def forward(self, x):
        return self.net(x)


@right("Generator")
class GeneratorShiftedFormula(_Proj):
    """log softmax written out, shifted by the row maximum so that nothing overflows."""

    def forward(self, x):
        logits = self.proj(x)
        shifted = logits - logits.amax(dim=-1, keepdim=True)
        return shifted - shifted.exp().sum(dim=-1, keepdim=True).log()


@right("Generator")
class GeneratorLinearFunction(_Proj):
    def forward(self, x):
        return F.log_softmax(F.linear(x, self.proj.weight, self.proj.bias), dim=-1)


# ------------------------------------------------------------------ Transformer


class _Parts(nn.Module):
    """The submodules as the contract names them; subclasses pick the styles and the init."""

    embeddings, positions, encoder_class, decoder_class, generator_class = (
        EmbeddingsScaleBuffer, PEPowerDivision, EncoderClones, DecoderClones, GeneratorTensorMethod)

    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_head=8, n_layers=6, d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__()
        self.src_embed = nn.Sequential(self.embeddings(src_vocab, d_model), self.positions(d_model, max_len, dropout))
        self.tgt_embed = nn.Sequential(self.embeddings(tgt_vocab, d_model), self.positions(d_model, max_len, dropout))
        self.encoder = self.encoder_class(d_model, n_head, d_ff, n_layers, dropout)
        self.decoder = self.decoder_class(d_model, n_head, d_ff, n_layers, dropout)
        self.generator = self.generator_class(d_model, tgt_vocab)
        self.init_weights()

    def init_weights(self):
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
class TransformerAnnotatedLoop(_Parts):
    pass


@right("Transformer")
class TransformerResetParameters(_Parts):
    """nn.Transformer's _reset_parameters, and a forward that spells out the stack."""

    embeddings, positions, encoder_class, decoder_class, generator_class = (
        EmbeddingsTorchMul, PEd2l, EncoderMap, DecoderReduce, GeneratorShiftedFormula)

    def init_weights(self):
        self._reset_parameters()

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask, tgt_mask):
        memory = self.encoder(self.src_embed(src), src_mask)
        output = self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask)
        return self.generator(output)


@right("Transformer")
class TransformerXavierByName(_Parts):
    embeddings, positions, encoder_class, decoder_class, generator_class = (
        EmbeddingsIndexSelect, PEOldVariable, EncoderExtend, DecoderWhileLoop, GeneratorSequential)

    def init_weights(self):
        for name, param in self.named_parameters():
            if "weight" in name and param.dim() > 1:
                nn.init.xavier_uniform_(param)


@right("Transformer")
class TransformerXavierByModule(_Parts):
    generator_class = GeneratorLinearFunction

    def init_weights(self):
        with torch.no_grad():
            for module in self.modules():
                if isinstance(module, (nn.Linear, nn.Embedding)):
                    nn.init.xavier_uniform_(module.weight)


@right("Transformer")
class TransformerLocalHelper(nn.Module):
    """Not built on the shared parts: a local helper makes both embedding stacks."""

    def __init__(self, src_vocab, tgt_vocab, d_model=512, n_head=8, n_layers=6, d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__()

        def embedding(vocab):
            return nn.Sequential(EmbeddingsTorchMul(vocab, d_model), PEOldVariable(d_model, max_len, dropout))

        self.src_embed, self.tgt_embed = embedding(src_vocab), embedding(tgt_vocab)
        self.encoder = EncoderClones(d_model, n_head, d_ff, n_layers, dropout)
        self.decoder = DecoderReduce(d_model, n_head, d_ff, n_layers, dropout)
        self.generator = GeneratorLastAxis(d_model, tgt_vocab)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def encode(self, src, src_mask):
        x = self.src_embed(src)
        return self.encoder(x, mask=src_mask)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        y = self.tgt_embed(tgt)
        return self.decoder(y, memory, src_mask=src_mask, tgt_mask=tgt_mask)

    def forward(self, src, tgt, src_mask, tgt_mask):
        memory = self.encode(src, src_mask)
        return self.generator(self.decode(memory, src_mask, tgt, tgt_mask))
