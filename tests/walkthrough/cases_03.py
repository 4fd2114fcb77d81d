"""Walkthrough of 03-add-norm: LayerNorm and AddNorm, one realistic mistake at a time."""
from tests.walkthrough import Mistake

NB = "03-add-norm"


def _layer_norm(init, forward):
    """A whole LayerNorm answer cell: the learner's __init__ lines (gamma, beta) and forward body."""
    return f'''class LayerNorm(nn.Module):
    """Layer normalisation over the last axis, written from scratch."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
{init}
        self.eps = eps

    def forward(self, x):
{forward}
'''


PARAMS = '''        self.gamma = nn.Parameter(torch.ones(d_model))
        self.beta = nn.Parameter(torch.zeros(d_model))'''


def _add_norm(forward, init="        self.norm = nn.LayerNorm(d_model)", before=""):
    """A whole AddNorm answer cell with the learner's `norm` line and forward body."""
    return f'''{before}class AddNorm(nn.Module):
    """Residual connection followed by layer normalisation (post-norm)."""

    def __init__(self, d_model, dropout=0.1):
        super().__init__()
{init}
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer_out):
{forward}
'''


ROWS = [
    # ------------------------------------------------------------------ LayerNorm
    Mistake(NB, "LayerNorm", "gamma and beta as plain tensors, not nn.Parameter",
            _layer_norm('''        self.gamma = torch.ones(d_model)
        self.beta = torch.zeros(d_model)''', '''        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return self.gamma * x_hat + self.beta'''),
            expect="wrong-interface", gives_away="partly"),
    Mistake(NB, "LayerNorm", "mean and variance without keepdim=True",
            _layer_norm(PARAMS, '''        mean = x.mean(dim=-1)
        var = ((x - x.mean(dim=-1, keepdim=True)) ** 2).mean(dim=-1)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return self.gamma * x_hat + self.beta'''),
            expect="runtime-error", gives_away="partly"),
    Mistake(NB, "LayerNorm", "torch.var with its default (unbiased) correction",
            _layer_norm(PARAMS, '''        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return self.gamma * x_hat + self.beta'''),
            expect="layernorm-unbiased-var"),
    Mistake(NB, "LayerNorm", "eps added to the standard deviation",
            _layer_norm(PARAMS, '''        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        x_hat = (x - mean) / (torch.sqrt(var) + self.eps)
        return self.gamma * x_hat + self.beta'''),
            expect="layernorm-eps-outside-sqrt"),
    Mistake(NB, "LayerNorm", "the Annotated Transformer's x.std(-1) + eps (unbiased and outside the root)",
            _layer_norm(PARAMS, '''        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.gamma * (x - mean) / (std + self.eps) + self.beta'''),
            expect="layernorm-eps-outside-sqrt"),
    Mistake(NB, "LayerNorm", "statistics over the positions (dim=1)",
            _layer_norm(PARAMS, '''        mean = x.mean(dim=1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=1, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return self.gamma * x_hat + self.beta'''),
            expect="layernorm-wrong-dim"),
    Mistake(NB, "LayerNorm", "statistics over the whole tensor (no dim)",
            _layer_norm(PARAMS, '''        mean = x.mean()
        var = ((x - mean) ** 2).mean()
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return self.gamma * x_hat + self.beta'''),
            expect="layernorm-wrong-dim"),
    Mistake(NB, "LayerNorm", "gamma and beta made but never applied",
            _layer_norm(PARAMS, '''        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat'''),
            expect="layernorm-no-affine"),
    Mistake(NB, "LayerNorm", "no eps at all",
            _layer_norm(PARAMS, '''        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var)
        return self.gamma * x_hat + self.beta'''),
            expect="nan"),
    Mistake(NB, "LayerNorm", "gamma starts at zeros, beta at ones",
            _layer_norm('''        self.gamma = nn.Parameter(torch.zeros(d_model))
        self.beta = nn.Parameter(torch.ones(d_model))''', '''        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return self.gamma * x_hat + self.beta'''),
            expect="property-violated", gives_away="partly"),
    Mistake(NB, "LayerNorm", "F.layer_norm inside the class",
            _layer_norm(PARAMS, '''        return F.layer_norm(x, (x.shape[-1],), self.gamma, self.beta, self.eps)'''),
            expect="forbidden-builtin"),
    # ------------------------------------------------------------------ AddNorm
    Mistake(NB, "AddNorm", "no residual: only the sublayer's output is normalised",
            _add_norm('''        return self.norm(self.dropout(sublayer_out))'''),
            expect="addnorm-no-residual"),
    Mistake(NB, "AddNorm", "x + norm(dropout(sublayer_out))",
            _add_norm('''        return x + self.norm(self.dropout(sublayer_out))'''),
            expect="addnorm-norm-before-add"),
    Mistake(NB, "AddNorm", "dropout left out of forward",
            _add_norm('''        return self.norm(x + sublayer_out)'''),
            expect="property-violated"),
    Mistake(NB, "AddNorm", "dropout after the norm (as some blog posts write it)",
            _add_norm('''        return self.dropout(self.norm(x + sublayer_out))'''),
            expect="property-violated"),
    Mistake(NB, "AddNorm", "dropout on the sum, before the norm",
            _add_norm('''        return self.norm(self.dropout(x + sublayer_out))'''),
            expect="property-violated"),
    Mistake(NB, "AddNorm", "norm built from the learner's own LayerNorm",
            _add_norm('''        return self.norm(x + self.dropout(sublayer_out))''', init="        self.norm = LayerNorm(d_model)"),
            expect="wrong-interface", gives_away="partly"),
    Mistake(NB, "AddNorm", "norm(x) + sublayer_out: the norm on x alone",
            _add_norm('''        return self.norm(x) + self.dropout(sublayer_out)'''),
            expect="property-violated"),
    Mistake(NB, "AddNorm", "no norm at all: x + dropout(sublayer_out)",
            _add_norm('''        return x + self.dropout(sublayer_out)'''),
            expect="property-violated"),
    Mistake(NB, "AddNorm", "the sum computed but not returned",
            _add_norm('''        out = self.norm(x + self.dropout(sublayer_out))'''),
            expect="wrong-interface"),
]
