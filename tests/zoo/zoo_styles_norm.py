"""Right LayerNorm, AddNorm (03-add-norm) and PositionwiseFeedForward (04-feed-forward) in many styles.

LayerNorm: squared deviations, one-pass moments, std_mean, a normalized_shape tuple as
nn.LayerNorm keeps it, sums over the features. AddNorm: the sum in either order, the
functional norm with the module's own parameters. Feed-forward: an nn.Sequential over the
contract's submodules, F.linear, an nn.ReLU submodule, einsum, addmm, torch.where, relu in place.
"""
import torch
import torch.nn.functional as F
from torch import nn

from . import right

# ------------------------------------------------------------------ LayerNorm


class _GammaBeta(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d_model))
        self.beta = nn.Parameter(torch.zeros(d_model))
        self.eps = eps


@right("LayerNorm")
class LayerNormSquaredDeviations(_GammaBeta):
    def forward(self, x):
        mean = torch.mean(x, dim=-1, keepdim=True)
        var = torch.mean((x - mean) ** 2, dim=-1, keepdim=True)
        return self.gamma * ((x - mean) / torch.sqrt(var + self.eps)) + self.beta


@right("LayerNorm")
class LayerNormOnePassMoments(_GammaBeta):
    """Var[x] = E[x^2] - E[x]^2."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = (x * x).mean(-1, keepdim=True) - mean * mean
        return (x - mean) / (var + self.eps).sqrt() * self.gamma + self.beta


@right("LayerNorm")
class LayerNormStdMean(_GammaBeta):
    def forward(self, x):
        std, mean = torch.std_mean(x, dim=-1, keepdim=True, correction=0)
        return self.gamma * (x - mean) / torch.sqrt(std.square() + self.eps) + self.beta


@right("LayerNorm")
class LayerNormNormalizedShape(nn.Module):
    """Written like nn.LayerNorm: a normalized_shape tuple, the statistics over its dimensions."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.normalized_shape = (d_model,) if isinstance(d_model, int) else tuple(d_model)
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(self.normalized_shape))
        self.beta = nn.Parameter(torch.zeros(self.normalized_shape))

    def forward(self, x):
        dims = tuple(range(-len(self.normalized_shape), 0))
        mean = x.mean(dim=dims, keepdim=True)
        var = x.var(dim=dims, keepdim=True, unbiased=False)
        return (x - mean) * torch.rsqrt(var + self.eps) * self.gamma + self.beta


@right("LayerNorm")
class LayerNormSums(_GammaBeta):
    def forward(self, x):
        n = x.shape[-1]
        mu = x.sum(dim=-1, keepdim=True) / n
        centred = x.sub(mu)
        sigma2 = centred.pow(2).sum(dim=-1, keepdim=True) / n
        return torch.addcmul(self.beta, centred.div(sigma2.add(self.eps).sqrt()), self.gamma)


@right("LayerNorm")
class LayerNormEinsum(_GammaBeta):
    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        centred = x - mean
        var = torch.einsum("...d,...d->...", centred, centred).unsqueeze(-1) / x.size(-1)
        normed = centred / torch.sqrt(var + self.eps)
        return torch.einsum("...d,d->...d", normed, self.gamma) + self.beta


# ------------------------------------------------------------------ AddNorm


class _NormDropout(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)


@right("AddNorm")
class AddNormSublayerFirst(_NormDropout):
    def forward(self, x, sublayer_out):
        return self.norm(self.dropout(sublayer_out) + x)


@right("AddNorm")
class AddNormRenamed(_NormDropout):
    """One learner's notes: Y is the sublayer's output, X the residual."""

    def forward(self, x, sublayer_out):
        X, Y = x, sublayer_out
        Y = self.dropout(Y)
        return self.norm(X.add(Y))


@right("AddNorm")
class AddNormFunctional(_NormDropout):
    """F.layer_norm with the norm submodule's own weight, bias and eps (allowed outside LayerNorm)."""

    def forward(self, x, sublayer_out):
        summed = x + self.dropout(sublayer_out)
        return F.layer_norm(summed, self.norm.normalized_shape, self.norm.weight, self.norm.bias, self.norm.eps)


@right("AddNorm")
class AddNormKeywords(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(normalized_shape=d_model, eps=1e-5)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x, sublayer_out):
        return self.norm(torch.add(x, self.dropout(sublayer_out)))


# ------------------------------------------------------------------ PositionwiseFeedForward


class _TwoLinears(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)


@right("PositionwiseFeedForward")
class FeedForwardSequentialView(_TwoLinears):
    """An nn.Sequential over the same submodules (the parameters are shared, not copied)."""

    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__(d_model, d_ff, dropout)
        self.net = nn.Sequential(self.w_1, nn.ReLU(), self.dropout, self.w_2)

    def forward(self, x):
        return self.net(x)


@right("PositionwiseFeedForward")
class FeedForwardLinearFunctions(_TwoLinears):
    def forward(self, x):
        hidden = torch.relu(F.linear(x, self.w_1.weight, self.w_1.bias))
        return F.linear(self.dropout(hidden), self.w_2.weight, self.w_2.bias)


@right("PositionwiseFeedForward")
class FeedForwardReluModule(_TwoLinears):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__(d_model, d_ff, dropout)
        self.activation = nn.ReLU()

    def forward(self, x):
        x = self.w_1(x)
        x = self.activation(x)
        x = self.dropout(x)
        x = self.w_2(x)
        return x


@right("PositionwiseFeedForward")
class FeedForwardEinsum(_TwoLinears):
    def forward(self, x):
        h = torch.einsum("bld,fd->blf", x, self.w_1.weight) + self.w_1.bias
        h = torch.where(h > 0, h, torch.zeros_like(h))
        return torch.einsum("blf,df->bld", self.dropout(h), self.w_2.weight) + self.w_2.bias


@right("PositionwiseFeedForward")
class FeedForwardAddmm(_TwoLinears):
    """Positions flattened into rows, two addmm, the shape restored."""

    def forward(self, x):
        rows = x.reshape(-1, x.size(-1))
        hidden = torch.addmm(self.w_1.bias, rows, self.w_1.weight.t()).clamp_min(0)
        out = torch.addmm(self.w_2.bias, self.dropout(hidden), self.w_2.weight.t())
        return out.view(*x.shape[:-1], -1)


@right("PositionwiseFeedForward")
class FeedForwardInplaceRelu(_TwoLinears):
    """relu in place on w_1's fresh output, as nn.ReLU(inplace=True) does."""

    def forward(self, x):
        return self.w_2(self.dropout(F.relu(self.w_1(x), inplace=True)))
