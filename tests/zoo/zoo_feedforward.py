"""Zoo of 04-feed-forward: PositionwiseFeedForward, right and wrong."""
import torch
import torch.nn.functional as F
from torch import nn

from . import bug, right


class _Layers(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)


@right("PositionwiseFeedForward")
class FeedForwardFunctional(_Layers):
    def forward(self, x):
        return self.w_2(self.dropout(F.relu(self.w_1(x))))


@right("PositionwiseFeedForward")
class FeedForwardClamp(_Layers):
    def forward(self, x):
        hidden = self.w_1(x).clamp(min=0)
        return self.w_2(self.dropout(hidden))


@right("PositionwiseFeedForward")
class FeedForwardPerPosition(_Layers):
    """One position at a time, as the name says."""

    def forward(self, x):
        return torch.stack([self.w_2(self.dropout(torch.relu(self.w_1(x[:, i])))) for i in range(x.size(1))], dim=1)


@bug("PositionwiseFeedForward", "ffn-no-activation", "values", "float64")
class FeedForwardLinearOnly(_Layers):
    def forward(self, x):
        return self.w_2(self.dropout(self.w_1(x)))


@bug("PositionwiseFeedForward", "ffn-activation-after-output", "values", "grad")
class FeedForwardReluLast(_Layers):
    def forward(self, x):
        return F.relu(self.w_2(self.dropout(self.w_1(x))))


@bug("PositionwiseFeedForward", "property-violated", "properties")
class FeedForwardSoftmaxOverPositions(_Layers):
    """A softmax as the activation, over axis 1: every position now depends on all the others."""

    def forward(self, x):
        return self.w_2(self.dropout(torch.softmax(self.w_1(x), dim=1)))
