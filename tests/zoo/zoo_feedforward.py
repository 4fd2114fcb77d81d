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


# ------------------------------------------------------------------ issue 16: found walking the notebook through


@bug("PositionwiseFeedForward", "property-violated", "properties")
class FeedForwardNoDropout(_Layers):
    """The dropout submodule is built and never used (as in a tutorial's FFN without dropout)."""

    def forward(self, x):
        return self.w_2(F.relu(self.w_1(x)))


@bug("PositionwiseFeedForward", "property-violated", "properties")
class FeedForwardDropoutOnOutput(_Layers):
    def forward(self, x):
        return self.dropout(self.w_2(torch.relu(self.w_1(x))))


@bug("PositionwiseFeedForward", "property-violated", "properties")
class FeedForwardDropoutOnInput(_Layers):
    def forward(self, x):
        return self.w_2(torch.relu(self.w_1(self.dropout(x))))


@bug("PositionwiseFeedForward", "wrong-interface", "values", "grad")
class FeedForwardTutorialNames(nn.Module):
    """fc1, fc2 and an nn.ReLU module, as a tutorial names them: the weights cannot be loaded by name."""

    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        self.activation = nn.ReLU()

    def forward(self, x):
        return self.fc2(self.dropout(self.activation(self.fc1(x))))


@bug("PositionwiseFeedForward", "runtime-error", "values")
class FeedForwardLayersSwapped(nn.Module):
    """w_1 built d_ff -> d_model and w_2 d_model -> d_ff: the first product does not line up."""

    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_ff, d_model)
        self.w_2 = nn.Linear(d_model, d_ff)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


@bug("PositionwiseFeedForward", "wrong-values", "values", "float64")
class FeedForwardSigmoid(_Layers):
    def forward(self, x):
        return self.w_2(self.dropout(torch.sigmoid(self.w_1(x))))


@bug("PositionwiseFeedForward", "runtime-error", "values")
class FeedForwardReluClassCalled(_Layers):
    """nn.ReLU(h) builds a module (h taken as its `inplace` argument) instead of applying one."""

    def forward(self, x):
        return self.w_2(self.dropout(nn.ReLU(self.w_1(x))))
