"""Blame precision: one wrong unit must cost that unit only, as in a notebook.

A notebook's composite unit calls the graded helpers of the same notebook by name
(`MultiHeadAttention` calls `split_heads`). Here each composite is a right answer written
as a learner writes it, run in a namespace of its own, as a notebook's cells are, beside
every wrong helper of the zoo and right ones for the rest. Only the helper's unit may lose
points; the composite must pass every aspect (autograder/checks/isolation.py).
"""
import contextlib
import inspect
import io
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from autograder import reference
from autograder.checks import CheckFailure, aspects_of, check
from learner_kit.visible import fingerprint_file, visible_problem

from . import load_all

MHA_CELL = '''
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k = n_head, d_model // n_head
        self.w_q, self.w_k = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.w_v, self.w_o = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.n_head)
        k = split_heads(self.w_k(key), self.n_head)
        v = split_heads(self.w_v(value), self.n_head)
        scores = q @ k.transpose(-2, -1) / self.d_k ** 0.5
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        self.attn = F.softmax(scores, dim=-1)  # the weights before dropout (COURSE.md)
        return self.w_o(merge_heads(self.dropout(self.attn) @ v))
'''

TGT_MASK_CELL = '''
def make_tgt_mask(tgt, pad_idx=0):
    causal = make_subsequent_mask(tgt.size(-1), device=tgt.device)
    return make_pad_mask(tgt, pad_idx) & causal
'''

ENCODER_CELL = '''
class Encoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers)])

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return x
'''

DECODER_CELL = '''
class Decoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x
'''

TRANSFORMER_CELL = '''
class Transformer(nn.Module):
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
        return self.generator(self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask))
'''

ADDITIVE_MHA_CELL = '''
class AdditiveMultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_head, dropout=0.1):
        super().__init__()
        self.n_head, self.d_k = n_head, d_model // n_head
        self.w_q, self.w_k = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.w_v, self.w_o = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        self.score = AdditiveAttention(self.d_k, self.d_k)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.n_head)
        k = split_heads(self.w_k(key), self.n_head)
        v = split_heads(self.w_v(value), self.n_head)
        out, self.attn = self.score(q, k, v, mask, self.dropout)
        return self.w_o(merge_heads(out))
'''

# composite unit -> (its notebook cell, the graded helpers it calls)
COMPOSITES = {
    "MultiHeadAttention": (MHA_CELL, ("split_heads", "merge_heads")),
    "make_tgt_mask": (TGT_MASK_CELL, ("make_pad_mask", "make_subsequent_mask")),
    "Encoder": (ENCODER_CELL, ("EncoderLayer",)),
    "Decoder": (DECODER_CELL, ("DecoderLayer",)),
    "Transformer": (TRANSFORMER_CELL, ("Generator",)),
    "AdditiveMultiHeadAttention": (ADDITIVE_MHA_CELL, ("AdditiveAttention",)),
}
# Earlier units, as a notebook's provided cells give them: a copy of the reference's code
# run in the notebook's namespace (not the reference's own objects, which the checks refuse).
PROVIDED = compile(inspect.getsource(reference), "<provided cells>", "exec")


@dataclass
class BlameRun:
    composite: str
    helper: str
    specimen: str  # the wrong helper's name in the zoo
    losing: tuple  # the units that lost points: (helper,) is right


def _fails(unit, candidate):
    """Whether the visible test or any aspect of `unit` fails for `candidate` (each is a graded cell)."""
    if fingerprint_file(unit).is_file():
        with contextlib.redirect_stdout(io.StringIO()):
            if visible_problem(unit, candidate):
                return True
    for aspect in aspects_of(unit):
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                check(unit, candidate, aspect)
            except CheckFailure:
                return True
    return False


@dataclass(frozen=True)
class BlameCase:
    """A composite's right answer beside one wrong helper: what a blame run judges (cheap to list)."""

    composite: str
    helper: str
    specimen: object  # the wrong helper, a zoo Specimen

    def __str__(self):
        return f"{self.composite}-with-{self.specimen.name}"


def blame_cases():
    """Every (composite, wrong helper) pair, without running anything: test collection stays fast."""
    bugs, _ = load_all()
    return [BlameCase(composite, helper, specimen) for composite, (_, helpers) in COMPOSITES.items()
            for helper in helpers for specimen in bugs if specimen.unit == helper and specimen.patch is None]


def blame_run(case):
    """Run the composite's answer cell in a notebook-like namespace beside the wrong helper; judge both."""
    _, rights = load_all()
    cell, helpers = COMPOSITES[case.composite]
    namespace = {"__name__": "__main__", "torch": torch, "nn": nn, "F": F}
    exec(PROVIDED, namespace)
    namespace.update({h: next(s.candidate for s in rights if s.unit == h) for h in helpers})
    namespace[case.helper] = case.specimen.candidate
    exec(cell, namespace)  # the notebook's answer cell, in the notebook's namespace
    losing = tuple(unit for unit, candidate in ((case.helper, case.specimen.candidate),
                                                (case.composite, namespace[case.composite]))
                   if _fails(unit, candidate))
    return BlameRun(case.composite, case.helper, case.specimen.name, losing)


def blame_runs():
    return [blame_run(case) for case in blame_cases()]


@dataclass
class SpecimenLoss:
    unit: str
    specimen: str
    expected: tuple  # the ids it must be named with
    losing: tuple  # every unit that lost points with it: (unit,) is right

    @property
    def fair(self):
        return self.losing == (self.unit,)


def specimen_losses():
    """For every wrong specimen of the zoo: the units that lose points with it in its notebook.

    Its own unit (visible test and every aspect), and each composite of its notebook that calls
    it by name (COMPOSITES, judged beside it as in blame_runs). Tampering specimens (which patch
    the checks themselves) are left out: they are not a unit's code.
    """
    bugs, _ = load_all()
    composites_of = {}
    for run in blame_runs():
        composites_of.setdefault((run.helper, run.specimen), set()).update(u for u in run.losing if u != run.helper)
    losses = []
    for specimen in (s for s in bugs if s.patch is None):
        own = (specimen.unit,) if _fails(specimen.unit, specimen.candidate) else ()
        others = tuple(sorted(composites_of.get((specimen.unit, specimen.name), ())))
        losses.append(SpecimenLoss(specimen.unit, specimen.name, specimen.expected_ids, own + others))
    return losses
