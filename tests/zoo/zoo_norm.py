"""Zoo of 03-add-norm: LayerNorm and AddNorm, right and wrong."""
import torch
import torch.nn.functional as F
from torch import nn

from . import bug, right


class _Params(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d_model))
        self.beta = nn.Parameter(torch.zeros(d_model))
        self.eps = eps


@right("LayerNorm")
class LayerNormVarCorrection(_Params):
    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


@right("LayerNorm")
class LayerNormByHand(_Params):
    def forward(self, x):
        centred = x - x.mean(dim=-1, keepdim=True)
        var = (centred**2).mean(dim=-1, keepdim=True)
        return centred * torch.rsqrt(var + self.eps) * self.gamma + self.beta


@right("LayerNorm")
class LayerNormVarMean(_Params):
    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
        return torch.addcmul(self.beta, self.gamma, (x - mean) / (var + self.eps) ** 0.5)


@bug("LayerNorm", "layernorm-eps-outside-sqrt", "values", "float64")
class LayerNormEpsOutside(_Params):
    def forward(self, x):
        mean, std = x.mean(-1, keepdim=True), x.std(-1, keepdim=True, unbiased=False)
        return self.gamma * (x - mean) / (std + self.eps) + self.beta


@bug("LayerNorm", "layernorm-unbiased-var", "values", "grad")
class LayerNormUnbiased(_Params):
    def forward(self, x):
        return self.gamma * (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + self.eps) + self.beta


@bug("LayerNorm", "layernorm-wrong-dim", "values")
class LayerNormOverPositions(_Params):
    def forward(self, x):
        mean = x.mean(dim=1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=1, keepdim=True)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


@bug("LayerNorm", "layernorm-no-affine", "values")
class LayerNormForgetsGammaBeta(_Params):
    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(x.var(-1, keepdim=True, correction=0) + self.eps)


@bug("LayerNorm", "forbidden-builtin", "values")
class LayerNormBuiltin(_Params):
    def forward(self, x):
        return F.layer_norm(x, x.shape[-1:], self.gamma, self.beta, self.eps)


# ------------------------------------------------------------------ issue 33: told a mistake they did not make

@bug("LayerNorm", "wrong-values", "values", visible="property-violated")
class LayerNormVarianceNotCentred(_Params):
    """The mean square taken for the variance, x not centred first: not the unbiased variance (no n − 1)."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = (x**2).mean(-1, keepdim=True)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


@bug("LayerNorm", "wrong-values", "values", visible="property-violated")
class LayerNormSquareRootTwice(_Params):
    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)
        return self.gamma * (x - mean) / torch.sqrt(std) + self.beta


@bug("LayerNorm", "wrong-values", "values", visible="property-violated")
class LayerNormNoSquareRoot(_Params):
    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        return self.gamma * (x - mean) / (x.var(-1, keepdim=True, unbiased=False) + self.eps) + self.beta


@bug("LayerNorm", "wrong-values", "values", visible="property-violated")
class LayerNormMeanNotSubtracted(_Params):
    """Divided by the standard deviation, the mean never subtracted: not statistics over the wrong axis."""

    def forward(self, x):
        return self.gamma * x / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps) + self.beta


@bug("LayerNorm", "wrong-values", "values", "float64", visible="property-violated")
class LayerNormEpsSquared(_Params):
    """eps ** 2 inside the square root: inside it, but 1e-10."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps**2) + self.beta


@bug("LayerNorm", "property-violated", "properties", visible="property-violated")
class LayerNormEpsHardCoded(_Params):
    """1e-5 written in forward: right with the default eps only."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return self.gamma * (x - mean) / torch.sqrt(var + 1e-5) + self.beta


class _AddNormParts(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)


@right("AddNorm")
class AddNormPlain(_AddNormParts):
    def forward(self, x, sublayer_out):
        return self.norm(x + self.dropout(sublayer_out))


@right("AddNorm")
class AddNormInSteps(_AddNormParts):
    def forward(self, x, sublayer_out):
        residual = torch.add(x, self.dropout(sublayer_out))
        return self.norm(residual)


@bug("AddNorm", "addnorm-no-residual", "values", "grad")
class AddNormNoResidual(_AddNormParts):
    def forward(self, x, sublayer_out):
        return self.norm(self.dropout(sublayer_out))


@bug("AddNorm", "addnorm-norm-before-add", "values")
class AddNormNormFirst(_AddNormParts):
    def forward(self, x, sublayer_out):
        return x + self.dropout(self.norm(sublayer_out))


# ------------------------------------------------------------------ issue 16: found walking the notebook through


@bug("LayerNorm", "wrong-interface", "values", "grad")
class LayerNormPlainTensors(nn.Module):
    """gamma and beta kept as plain tensors: not parameters, so nothing can load or train them."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.gamma = torch.ones(d_model)
        self.beta = torch.zeros(d_model)
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        return self.gamma * (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps) + self.beta


@bug("LayerNorm", "property-violated", "properties")
class LayerNormStartsAtZero(_Params):
    """gamma started at zeros and beta at ones: right once trained weights are loaded, wrong as a new layer."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.gamma = nn.Parameter(torch.zeros(d_model))
        self.beta = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        centred = x - x.mean(-1, keepdim=True)
        return self.gamma * centred / torch.sqrt((centred**2).mean(-1, keepdim=True) + self.eps) + self.beta


@bug("LayerNorm", "wrong-values", "values", "float64")
class LayerNormNoEps(_Params):
    """No eps at all: a position whose variance is below eps is blown up to variance 1."""

    def forward(self, x):
        centred = x - x.mean(-1, keepdim=True)
        return self.gamma * centred / centred.pow(2).mean(-1, keepdim=True).sqrt() + self.beta


@bug("LayerNorm", "runtime-error", "values")
class LayerNormNoKeepdim(_Params):
    """The mean and variance without keepdim: (B, L) does not broadcast against (B, L, d_model)."""

    def forward(self, x):
        mean = x.mean(dim=-1)
        var = x.var(dim=-1, unbiased=False)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


@bug("AddNorm", "property-violated", "properties")
class AddNormNoDropout(_AddNormParts):
    """The dropout submodule is built and never used."""

    def forward(self, x, sublayer_out):
        return self.norm(x + sublayer_out)


@bug("AddNorm", "property-violated", "properties")
class AddNormDropoutLast(_AddNormParts):
    """Dropout after the norm, as some blog posts place it."""

    def forward(self, x, sublayer_out):
        return self.dropout(self.norm(sublayer_out + x))


@bug("AddNorm", "property-violated", "properties")
class AddNormDropoutOnSum(_AddNormParts):
    def forward(self, x, sublayer_out):
        total = x + sublayer_out
        return self.norm(self.dropout(total))


@bug("AddNorm", "wrong-interface", "values", "grad")
class AddNormOwnLayerNorm(nn.Module):
    """`norm` built from the learner's own LayerNorm (gamma, beta) instead of nn.LayerNorm (weight, bias)."""

    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = LayerNormByHand(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer_out):
        return self.norm(x + self.dropout(sublayer_out))


@bug("AddNorm", "wrong-values", "values")
class AddNormNormsXOnly(_AddNormParts):
    """The norm on x alone, then the sublayer's output added: the sum is never normalised."""

    def forward(self, x, sublayer_out):
        return self.norm(x) + self.dropout(sublayer_out)
