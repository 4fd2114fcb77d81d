"""Walkthrough of 04-feed-forward: PositionwiseFeedForward, one realistic mistake at a time."""
from tests.walkthrough import Mistake

NB = "04-feed-forward"


def _ffn(forward, init=None):
    """A whole PositionwiseFeedForward answer cell with the learner's __init__ lines and forward body."""
    init = init or '''        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)'''
    return f'''class PositionwiseFeedForward(nn.Module):
    """FFN(x) = w_2(dropout(relu(w_1(x)))), the same two-layer network at every position."""

    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
{init}
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
{forward}
'''


ROWS = [
    Mistake(NB, "PositionwiseFeedForward", "no ReLU between the two linear maps",
            _ffn('''        hidden = self.w_1(x)
        return self.w_2(self.dropout(hidden))'''),
            expect="ffn-no-activation"),
    Mistake(NB, "PositionwiseFeedForward", "ReLU after w_2 instead of between",
            _ffn('''        hidden = self.w_1(x)
        return torch.relu(self.w_2(self.dropout(hidden)))'''),
            expect="ffn-activation-after-output"),
    Mistake(NB, "PositionwiseFeedForward", "ReLU both between and after w_2",
            _ffn('''        hidden = torch.relu(self.w_1(x))
        return torch.relu(self.w_2(self.dropout(hidden)))'''),
            expect="ffn-activation-after-output"),
    Mistake(NB, "PositionwiseFeedForward", "dropout left out of forward",
            _ffn('''        hidden = torch.relu(self.w_1(x))
        return self.w_2(hidden)'''),
            expect="property-violated"),
    Mistake(NB, "PositionwiseFeedForward", "dropout on the output, after w_2",
            _ffn('''        hidden = torch.relu(self.w_1(x))
        return self.dropout(self.w_2(hidden))'''),
            expect="property-violated"),
    Mistake(NB, "PositionwiseFeedForward", "dropout on the input, before w_1",
            _ffn('''        hidden = torch.relu(self.w_1(self.dropout(x)))
        return self.w_2(hidden)'''),
            expect="property-violated"),
    Mistake(NB, "PositionwiseFeedForward", "layers named fc1 and fc2 (as in a tutorial)",
            _ffn('''        hidden = torch.relu(self.fc1(x))
        return self.fc2(self.dropout(hidden))''', init='''        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)'''),
            expect="wrong-interface"),
    Mistake(NB, "PositionwiseFeedForward", "w_1 built d_ff -> d_model (arguments swapped)",
            _ffn('''        hidden = torch.relu(self.w_1(x))
        return self.w_2(self.dropout(hidden))''', init='''        self.w_1 = nn.Linear(d_ff, d_model)
        self.w_2 = nn.Linear(d_model, d_ff)'''),
            expect="wrong-interface"),
    Mistake(NB, "PositionwiseFeedForward", "sigmoid instead of ReLU",
            _ffn('''        hidden = torch.sigmoid(self.w_1(x))
        return self.w_2(self.dropout(hidden))'''),
            expect="property-violated"),
    Mistake(NB, "PositionwiseFeedForward", "nn.ReLU called on the tensor without being built",
            _ffn('''        hidden = nn.ReLU(self.w_1(x))
        return self.w_2(self.dropout(hidden))'''),
            expect="runtime-error", helpful="partly"),
    Mistake(NB, "PositionwiseFeedForward", "softmax over the positions as the activation",
            _ffn('''        hidden = torch.softmax(self.w_1(x), dim=1)
        return self.w_2(self.dropout(hidden))'''),
            expect="property-violated"),
]
