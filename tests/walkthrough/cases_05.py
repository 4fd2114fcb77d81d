"""05-encoder worked as a learner would: Embeddings, PositionalEncoding, EncoderLayer, Encoder."""
from tests.walkthrough import Mistake

NB = "05-encoder"

# ------------------------------------------------------------------ Embeddings

_EMBED_INIT = '''class Embeddings(nn.Module):
    """Token ids -> learned vectors, scaled by sqrt(d_model)."""

    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, tokens):
'''

EMBEDDINGS = [
    Mistake(NB, "Embeddings", "no scaling: returns the looked-up rows", _EMBED_INIT + '''        vectors = self.lut(tokens)
        return vectors
''', expect="embed-no-scale", gives_away="partly"),
    Mistake(NB, "Embeddings", "divides by sqrt(d_model) instead of multiplying", _EMBED_INIT + '''        vectors = self.lut(tokens)
        return vectors / math.sqrt(self.d_model)
''', expect="embed-no-scale", gives_away="partly"),
    Mistake(NB, "Embeddings", "multiplies by d_model, not its square root", _EMBED_INIT + '''        vectors = self.lut(tokens)
        return vectors * self.d_model
''', expect="embed-no-scale", gives_away="partly"),
    Mistake(NB, "Embeddings", "torch.sqrt on a Python int", _EMBED_INIT + '''        vectors = self.lut(tokens)
        return vectors * torch.sqrt(self.d_model)
''', expect="runtime-error"),
    Mistake(NB, "Embeddings", "uses a global d_model that does not exist yet", _EMBED_INIT + '''        vectors = self.lut(tokens)
        return vectors * math.sqrt(d_model)
''', expect="runtime-error"),
    Mistake(NB, "Embeddings", "nn.Embedding(d_model, vocab_size): the table's arguments swapped", '''class Embeddings(nn.Module):
    """Token ids -> learned vectors, scaled by sqrt(d_model)."""

    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(d_model, vocab_size)
        self.d_model = d_model

    def forward(self, tokens):
        vectors = self.lut(tokens)
        return vectors * math.sqrt(self.d_model)
''', expect="wrong-interface"),
    Mistake(NB, "Embeddings", "one-hot times the table, one_hot without num_classes", _EMBED_INIT + '''        one_hot = F.one_hot(tokens).float()
        return (one_hot @ self.lut.weight) * math.sqrt(self.d_model)
''', expect="runtime-error"),
]

# ------------------------------------------------------------------ PositionalEncoding


def _pe(freq, angle, table, forward="        return self.dropout(x + self.pe[:, : x.size(1)])\n"):
    return f'''class PositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal encoding of each position, then applies dropout."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
{freq}
{angle}
        pe = torch.zeros(max_len, d_model, dtype=torch.float64)
{table}
        self.register_buffer("pe", pe.unsqueeze(0).to(torch.get_default_dtype()))

    def forward(self, x):
{forward}'''


_FREQ = "        freq = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)"
_ANGLE = "        angle = position * freq"
_TABLE = "        pe[:, 0::2] = torch.sin(angle)\n        pe[:, 1::2] = torch.cos(angle)"

POSITIONAL = [
    Mistake(NB, "PositionalEncoding", "cosines in the even columns, sines in the odd ones",
            _pe(_FREQ, _ANGLE, "        pe[:, 0::2] = torch.cos(angle)\n        pe[:, 1::2] = torch.sin(angle)"),
            expect="pe-sin-cos-swapped"),
    Mistake(NB, "PositionalEncoding", "pair index i where 2i belongs: arange(d_model // 2) / d_model",
            _pe("        freq = 10000.0 ** (-torch.arange(0, d_model // 2, dtype=torch.float64) / d_model)", _ANGLE, _TABLE),
            expect="pe-wrong-frequency"),
    Mistake(NB, "PositionalEncoding", "exponent without the minus: 10000^(+2i/d) multiplied in",
            _pe("        freq = 10000.0 ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)", _ANGLE, _TABLE),
            expect="pe-wrong-frequency"),
    Mistake(NB, "PositionalEncoding", "sine in both columns of a pair (copy-paste)",
            _pe(_FREQ, _ANGLE, "        pe[:, 0::2] = torch.sin(angle)\n        pe[:, 1::2] = torch.sin(angle)"),
            expect="wrong-values"),
    Mistake(NB, "PositionalEncoding", "no dropout in forward",
            _pe(_FREQ, _ANGLE, _TABLE, "        return x + self.pe[:, : x.size(1)]\n"),
            expect="property-violated"),
    Mistake(NB, "PositionalEncoding", "dropout on x before the encoding is added",
            _pe(_FREQ, _ANGLE, _TABLE, "        return self.dropout(x) + self.pe[:, : x.size(1)]\n"),
            expect="property-violated"),
    Mistake(NB, "PositionalEncoding", "F.dropout without training=: drops in eval mode too",
            _pe(_FREQ, _ANGLE, _TABLE, "        return F.dropout(x + self.pe[:, : x.size(1)], p=self.dropout.p)\n"),
            expect="property-violated"),
    Mistake(NB, "PositionalEncoding", "slices pe by the batch size, x.size(0)",
            _pe(_FREQ, _ANGLE, _TABLE, "        return self.dropout(x + self.pe[:, : x.size(0)])\n"),
            expect="runtime-error", helpful="partly"),
    Mistake(NB, "PositionalEncoding", "slices the batch axis of pe: pe[:L]",
            _pe(_FREQ, _ANGLE, _TABLE, "        return self.dropout(x + self.pe[: x.size(1)])\n"),
            expect="runtime-error", helpful="partly"),
    Mistake(NB, "PositionalEncoding", "angles with @ (a matrix product) instead of broadcasting",
            _pe(_FREQ, "        angle = position @ freq", _TABLE),
            expect="runtime-error", helpful="partly"),
]

# ------------------------------------------------------------------ EncoderLayer


def _layer(init_sublayers, forward,
           dropouts="        self.dropout1 = nn.Dropout(dropout)\n        self.dropout2 = nn.Dropout(dropout)\n"):
    return f'''class EncoderLayer(nn.Module):
    """Self-attention and feed-forward sublayers, each with dropout, residual add and post-norm."""

    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
{init_sublayers}
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
{dropouts}
    def forward(self, x, mask=None):
{forward}'''


_SUBLAYERS = ("        self.self_attn = MultiHeadAttention(d_model, n_head, dropout)\n"
              "        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout)")
_FORWARD = ("        attn_out = self.self_attn(x, x, x, mask)\n"
            "        x = self.norm1(x + self.dropout1(attn_out))\n"
            "        ffn_out = self.ffn(x)\n"
            "        return self.norm2(x + self.dropout2(ffn_out))\n")

LAYER = [
    Mistake(NB, "EncoderLayer", "pre-norm: x + dropout(sublayer(norm(x)))", _layer(_SUBLAYERS, '''        attn_out = self.self_attn(self.norm1(x), self.norm1(x), self.norm1(x), mask)
        x = x + self.dropout1(attn_out)
        ffn_out = self.ffn(self.norm2(x))
        return x + self.dropout2(ffn_out)
'''), expect="encoder-prenorm"),
    Mistake(NB, "EncoderLayer", "no residual add around the feed-forward network", _layer(_SUBLAYERS, '''        attn_out = self.self_attn(x, x, x, mask)
        x = self.norm1(x + self.dropout1(attn_out))
        ffn_out = self.ffn(x)
        return self.norm2(self.dropout2(ffn_out))
'''), expect="encoder-no-residual"),
    Mistake(NB, "EncoderLayer", "mask not passed to self-attention", _layer(_SUBLAYERS, '''        attn_out = self.self_attn(x, x, x)
        x = self.norm1(x + self.dropout1(attn_out))
        ffn_out = self.ffn(x)
        return self.norm2(x + self.dropout2(ffn_out))
'''), expect="encoder-mask-ignored"),
    Mistake(NB, "EncoderLayer", "the FFN reads the layer's input x, not the attention sublayer's output", _layer(_SUBLAYERS, '''        attn_out = self.self_attn(x, x, x, mask)
        h = self.norm1(x + self.dropout1(attn_out))
        ffn_out = self.ffn(x)
        return self.norm2(h + self.dropout2(ffn_out))
'''), expect="wrong-values", gives_away="partly"),
    Mistake(NB, "EncoderLayer", "attn_out, _ = self_attn(...): unpacks the batch, as if attention returned weights too", _layer(_SUBLAYERS, '''        attn_out, _ = self.self_attn(x, x, x, mask)
        x = self.norm1(x + self.dropout1(attn_out))
        ffn_out = self.ffn(x)
        return self.norm2(x + self.dropout2(ffn_out))
'''), expect="wrong-values"),
    Mistake(NB, "EncoderLayer", "dropout1 and dropout2 built but never applied", _layer(_SUBLAYERS, '''        attn_out = self.self_attn(x, x, x, mask)
        x = self.norm1(x + attn_out)
        ffn_out = self.ffn(x)
        return self.norm2(x + ffn_out)
'''), expect="property-violated"),
    Mistake(NB, "EncoderLayer", "dropout after the norm: dropout1(norm1(x + attn))", _layer(_SUBLAYERS, '''        attn_out = self.self_attn(x, x, x, mask)
        x = self.dropout1(self.norm1(x + attn_out))
        ffn_out = self.ffn(x)
        return self.dropout2(self.norm2(x + ffn_out))
'''), expect="wrong-values", gives_away="partly"),
    Mistake(NB, "EncoderLayer", "sublayers built without the dropout rate (defaults 0.1)", _layer(
        "        self.self_attn = MultiHeadAttention(d_model, n_head)\n        self.ffn = PositionwiseFeedForward(d_model, d_ff)",
        _FORWARD), expect="property-violated"),
    Mistake(NB, "EncoderLayer", "PositionwiseFeedForward(d_model, dropout): d_ff left out of the call", _layer(
        "        self.self_attn = MultiHeadAttention(d_model, n_head, dropout)\n        self.ffn = PositionwiseFeedForward(d_model, dropout)",
        _FORWARD), expect="runtime-error"),
]

# ------------------------------------------------------------------ Encoder


def _encoder(layers, forward="        for layer in self.layers:\n            x = layer(x, mask)\n        return x\n", extra=""):
    return f'''class Encoder(nn.Module):
    """A stack of n_layers independent encoder layers."""

    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
{layers}
{extra}
    def forward(self, x, mask=None):
{forward}'''


ENCODER = [
    Mistake(NB, "Encoder", "[layer] * n_layers: one layer object repeated", _encoder(
        "        self.layers = nn.ModuleList([EncoderLayer(d_model, n_head, d_ff, dropout)] * n_layers)"),
        expect="encoder-shared-layers"),
    Mistake(NB, "Encoder", "one layer built, then listed n_layers times", _encoder(
        "        layer = EncoderLayer(d_model, n_head, d_ff, dropout)\n"
        "        self.layers = nn.ModuleList([layer for _ in range(n_layers)])"),
        expect="encoder-shared-layers"),
    Mistake(NB, "Encoder", "a plain Python list instead of nn.ModuleList", _encoder(
        "        self.layers = [EncoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers)]"),
        expect="wrong-interface", gives_away="partly"),
    Mistake(NB, "Encoder", "mask not passed on to the layers", _encoder(
        "        self.layers = nn.ModuleList(EncoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers))",
        "        for layer in self.layers:\n            x = layer(x)\n        return x\n"),
        expect="encoder-mask-ignored"),
    Mistake(NB, "Encoder", "dropout not passed on to the layers (they keep 0.1)", _encoder(
        "        self.layers = nn.ModuleList(EncoderLayer(d_model, n_head, d_ff) for _ in range(n_layers))"),
        expect="property-violated"),
    Mistake(NB, "Encoder", "every layer reads x, not the previous layer's output", _encoder(
        "        self.layers = nn.ModuleList(EncoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers))",
        "        for layer in self.layers:\n            out = layer(x, mask)\n        return out\n"),
        expect="wrong-values"),
    Mistake(NB, "Encoder", "return inside the loop: only the first layer runs", _encoder(
        "        self.layers = nn.ModuleList(EncoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers))",
        "        for layer in self.layers:\n            x = layer(x, mask)\n            return x\n"),
        expect="wrong-values"),
    Mistake(NB, "Encoder", "an extra final LayerNorm, as pre-norm stacks have", _encoder(
        "        self.layers = nn.ModuleList(EncoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers))",
        "        for layer in self.layers:\n            x = layer(x, mask)\n        return self.norm(x)\n",
        extra="        self.norm = nn.LayerNorm(d_model)\n"),
        expect="wrong-interface", helpful="partly"),
    Mistake(NB, "Encoder", "EncoderLayer(d_model, n_head, dropout): d_ff left out of the call", _encoder(
        "        self.layers = nn.ModuleList(EncoderLayer(d_model, n_head, dropout) for _ in range(n_layers))"),
        expect="runtime-error"),
]

ROWS = EMBEDDINGS + POSITIONAL + LAYER + ENCODER
