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
