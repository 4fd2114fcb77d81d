"""Learners' interfaces that differ from the exercise's never crash the course's own code.

A learner may hold a tensor where the exercise builds a submodule, or call a submodule's weights
functionally: the checks judge what comes out (right, or a message about the learner's code), and
no exception of the course's (harness, probes, checks) reaches them.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

from autograder.checks import CheckFailure, aspects_of, check
from learner_kit.visible import visible_problem


class EmbeddingsWithAParameter(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Parameter(torch.randn(vocab_size, d_model))
        self.d_model = d_model

    def forward(self, tokens):
        return self.lut[tokens] * math.sqrt(self.d_model)


class FeedForwardCalledFunctionally(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1, self.w_2, self.dropout = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model), nn.Dropout(dropout)

    def forward(self, x):
        hidden = self.dropout(F.relu(F.linear(x, self.w_1.weight, self.w_1.bias)))
        return F.linear(hidden, self.w_2.weight, self.w_2.bias)


def test_a_functional_call_of_the_submodules_passes():
    assert visible_problem("PositionwiseFeedForward", FeedForwardCalledFunctionally) == ""
    for aspect in aspects_of("PositionwiseFeedForward"):
        check("PositionwiseFeedForward", FeedForwardCalledFunctionally, aspect)


def test_a_tensor_where_a_submodule_belongs_is_told_so():
    """Not a course IndexError (as before): right values pass, and where the weights are copied by name
    the message says what differs and how to build it."""
    assert visible_problem("Embeddings", EmbeddingsWithAParameter) == ""
    for aspect in aspects_of("Embeddings"):
        try:
            check("Embeddings", EmbeddingsWithAParameter, aspect)
        except CheckFailure as failure:
            assert failure.mistake_id == "wrong-interface", str(failure)
            assert "`lut` is a tensor parameter of your module" in str(failure), str(failure)
