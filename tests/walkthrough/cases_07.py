"""Walkthrough of 07-decoder: realistic wrong answers to DecoderLayer and Decoder."""
from tests.walkthrough import Mistake

NB = "07-decoder"

_INIT = '''class DecoderLayer(nn.Module):
    def __init__(self, d_model, n_head, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_head, dropout)
        self.cross_attn = MultiHeadAttention(d_model, n_head, dropout)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)
'''


def layer(forward, init=_INIT):
    """The DecoderLayer answer cell with the given forward (indented as a method)."""
    return init + "\n" + forward


_DECODER_INIT = '''class Decoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers))
'''

_DECODER_FORWARD = '''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x
'''

ROWS = [
    # ------------------------------------------------------------------ DecoderLayer
    Mistake(notebook=NB, unit="DecoderLayer", what="masks in each other's place", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, src_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, tgt_mask)))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="decoder-masks-swapped"),
    Mistake(notebook=NB, unit="DecoderLayer", what="memory as the query of cross-attention", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(memory, x, x, src_mask)))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="decoder-cross-qkv-swapped"),
    Mistake(notebook=NB, unit="DecoderLayer", what="cross-attention copy-pasted from self-attention: (x, x, x, tgt_mask)", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, x, x, tgt_mask)))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="decoder-cross-qkv-swapped"),
    Mistake(notebook=NB, unit="DecoderLayer", what="self-attention without tgt_mask", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="decoder-self-attn-unmasked"),
    Mistake(notebook=NB, unit="DecoderLayer", what="cross-attention without src_mask", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory)))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="property-violated", helpful="yes", gives_away="partly"),
    Mistake(notebook=NB, unit="DecoderLayer", what="cross-attention before self-attention", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.cross_attn(x, memory, memory, src_mask)))
        x = self.norm2(x + self.dropout2(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="decoder-sublayer-order"),
    Mistake(notebook=NB, unit="DecoderLayer", what="pre-norm: x + dropout(sublayer(norm(x)))", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        h = self.norm1(x)
        x = x + self.dropout1(self.self_attn(h, h, h, tgt_mask))
        h = self.norm2(x)
        x = x + self.dropout2(self.cross_attn(h, memory, memory, src_mask))
        x = x + self.dropout3(self.ffn(self.norm3(x)))
        return x
'''), expect="encoder-prenorm"),
    Mistake(notebook=NB, unit="DecoderLayer", what="norm1 copy-pasted into all three steps", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm1(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))
        x = self.norm1(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="property-violated"),
    Mistake(notebook=NB, unit="DecoderLayer", what="cross-attention's residual missing: norm2(dropout2(cross))", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(self.dropout2(self.cross_attn(x, memory, memory, src_mask)))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="wrong-values", helpful="partly", gives_away="no"),
    Mistake(notebook=NB, unit="DecoderLayer", what="one dropout (dropout1) after every sublayer", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout1(self.cross_attn(x, memory, memory, src_mask)))
        x = self.norm3(x + self.dropout1(self.ffn(x)))
        return x
'''), expect="property-violated"),
    Mistake(notebook=NB, unit="DecoderLayer", what="no dropout on the cross-attention's output", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.cross_attn(x, memory, memory, src_mask))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="property-violated"),
    Mistake(notebook=NB, unit="DecoderLayer", what="dropout after the norm: dropout(norm(x + sublayer))", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.dropout1(self.norm1(x + self.self_attn(x, x, x, tgt_mask)))
        x = self.dropout2(self.norm2(x + self.cross_attn(x, memory, memory, src_mask)))
        x = self.dropout3(self.norm3(x + self.ffn(x)))
        return x
'''), expect="property-violated", helpful="yes", gives_away="partly"),
    Mistake(notebook=NB, unit="DecoderLayer", what="cross_attn built without dropout", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(x, x, x, tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
''', init=_INIT.replace("self.cross_attn = MultiHeadAttention(d_model, n_head, dropout)",
                        "self.cross_attn = MultiHeadAttention(d_model, n_head)")), expect="property-violated", helpful="yes", gives_away="partly"),
    Mistake(notebook=NB, unit="DecoderLayer", what="MultiHeadAttention unpacked as (output, weights)", code=layer('''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        attn_output, _ = self.self_attn(x, x, x, tgt_mask)
        x = self.norm1(x + self.dropout1(attn_output))
        attn_output, _ = self.cross_attn(x, memory, memory, src_mask)
        x = self.norm2(x + self.dropout2(attn_output))
        x = self.norm3(x + self.dropout3(self.ffn(x)))
        return x
'''), expect="wrong-values", helpful="partly", gives_away="no"),
    # ------------------------------------------------------------------ Decoder
    Mistake(notebook=NB, unit="Decoder", what="one layer object repeated: [layer] * n_layers", code='''class Decoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        layer = DecoderLayer(d_model, n_head, d_ff, dropout)
        self.layers = nn.ModuleList([layer] * n_layers)
''' + _DECODER_FORWARD, expect="encoder-shared-layers"),
    Mistake(notebook=NB, unit="Decoder", what="masks passed in the wrong order", code=_DECODER_INIT + '''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, src_mask)
        return x
''', expect="decoder-masks-swapped"),
    Mistake(notebook=NB, unit="Decoder", what="tgt_mask not passed on", code=_DECODER_INIT + '''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask)
        return x
''', expect="decoder-self-attn-unmasked"),
    Mistake(notebook=NB, unit="Decoder", what="every layer reads the embedded input, not the previous output", code=_DECODER_INIT + '''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        out = x
        for layer in self.layers:
            out = layer(x, memory, src_mask, tgt_mask)
        return out
''', expect="wrong-values", helpful="partly", gives_away="no"),
    Mistake(notebook=NB, unit="Decoder", what="src_mask not passed on: layer(x, memory, tgt_mask=tgt_mask)", code=_DECODER_INIT + '''
    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask)
        return x
''', expect="property-violated", helpful="yes", gives_away="partly"),
    Mistake(notebook=NB, unit="Decoder", what="dropout not passed to the layers", code='''class Decoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(d_model, n_head, d_ff) for _ in range(n_layers))
''' + _DECODER_FORWARD, expect="property-violated", helpful="yes", gives_away="partly"),
    Mistake(notebook=NB, unit="Decoder", what="a final LayerNorm after the stack (Annotated Transformer)", code='''class Decoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers))
        self.norm = nn.LayerNorm(d_model)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return self.norm(x)
''', expect="wrong-interface"),
    Mistake(notebook=NB, unit="Decoder", what="layers in a plain Python list", code='''class Decoder(nn.Module):
    def __init__(self, d_model, n_head, d_ff, n_layers, dropout=0.1):
        super().__init__()
        self.layers = [DecoderLayer(d_model, n_head, d_ff, dropout) for _ in range(n_layers)]
''' + _DECODER_FORWARD, expect="wrong-interface"),
]
