"""A module's constructor arguments reach the parts they configure: its `dropout`, first.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

The value checks run in evaluation mode or with dropout 0, so a rate that never reaches a part
(`super().__init__(d_model, n_head)` in AdditiveMultiHeadAttention, an `EncoderLayer(d_model, n_head,
d_ff)` in Encoder) changes no result they compare: the module trains with p = 0.1 whatever it is
given. Here a fresh module is built with another rate and every part's rate is read back:
each nn.Dropout's `p`, and, where a composite is built from the course's stand-ins for its graded
parts (learner_kit/stand_ins.py), the rate each stand-in was built with, so that a composite answers
only for what it passes on (one mistake costs one unit).

The visible checks (visible.py) and the hidden ones (autograder/checks/arguments.py) both call
`dropout_problem`; in the grading sandbox the rates are read there (the probe `dropout_rates`).
"""
from torch import nn

from learner_kit import harness
from learner_kit.i18n import tr

# unit -> the position of `dropout` among its constructor's arguments (COURSE.md, section 3)
DROPOUT_ARGUMENT = {
    "MultiHeadAttention": 2, "AdditiveMultiHeadAttention": 2, "AddNorm": 1, "PositionwiseFeedForward": 2,
    "PositionalEncoding": 2, "EncoderLayer": 3, "Encoder": 4, "DecoderLayer": 3, "Decoder": 4, "Transformer": 6,
}
DEFAULT_RATE = 0.1  # every dropout's default in the course
OTHER_RATE = 0.3  # what the check builds with: neither the default nor 0
FALLBACK_RATE = 0.25  # ... or this, where the unit's own arguments already give 0.3


def with_rate(unit_name, init, rate):
    """`init` with `rate` in the place of the unit's `dropout` argument (appended where `init` stops just before)."""
    place = DROPOUT_ARGUMENT[unit_name]
    init = tuple(init)
    if len(init) < place:
        return None  # arguments between would be needed: none of the course's checks builds so
    return init[:place] + (rate,) + init[place + 1:]


def rate_for(unit_name, init):
    place = DROPOUT_ARGUMENT[unit_name]
    given = init[place] if len(init) > place else DEFAULT_RATE
    return FALLBACK_RATE if given == OTHER_RATE else OTHER_RATE


def rates(module):
    """{path: rate} of every part of a built module that takes a dropout rate: each nn.Dropout (its `p`), and each
    stand-in for a graded part (the rate it was built with, `given_dropout`; what is inside it is not the learner's)."""
    found, inside_stand_in = {}, []
    for path, part in module.named_modules():
        if any(path.startswith(prefix + ".") for prefix in inside_stand_in):
            continue
        if hasattr(part, "given_dropout"):
            inside_stand_in.append(path)
            given = part.given_dropout
            found[path] = float(given) if isinstance(given, (int, float)) and not isinstance(given, bool) else str(given)
        elif isinstance(part, nn.Dropout):
            found[path] = float(part.p)
    return found


def built_rates(cls, init, bindings=None):
    """rates() of a fresh `cls(*init)`, the names in `bindings` bound in its globals while it is built."""
    with harness.isolated(), harness.bound(cls, bindings or {}):
        return rates(cls(*init))


def dropout_problem(unit_name, init, read_rates):
    """'' when every part of the unit, built with another dropout rate, has that rate; else what was seen.

    `read_rates(init)` builds the learner's unit with `init` and returns rates() of it (here, or in the grading
    sandbox); an error there is the value checks' to name, and says nothing here."""
    if unit_name not in DROPOUT_ARGUMENT or init is None:
        return ""
    rate = rate_for(unit_name, init)
    built = with_rate(unit_name, init, rate)
    if built is None:
        return ""
    try:
        found = read_rates(built)
    except Exception:  # noqa: BLE001 - a constructor that raises is named by the value checks
        return ""
    if not isinstance(found, dict):
        return ""
    call = _call(unit_name, built)
    if not found:
        return ""  # no dropout module at all: the interface checks and the dropout properties name that
    wrong = {path: got for path, got in found.items() if not (isinstance(got, float) and abs(got - rate) < 1e-12)}
    if not wrong:
        return ""
    parts = ", ".join(f"`{path or 'self'}` ({_shown(got)})" for path, got in sorted(wrong.items()))
    if len(found) == 1:
        return tr("Built as {call}, with dropout={rate}, your {unit}'s only part that drops gets another rate: {parts}. "
                  "The `dropout` argument does not reach it, so the module would train with a rate it was not given. "
                  "Pass `dropout` on to the part that takes it.", call=call, unit=unit_name, rate=rate, parts=parts)
    if len(wrong) == len(found):
        return tr("Built as {call}, with dropout={rate}, every part of your {unit} that drops gets another rate: {parts}. "
                  "The `dropout` argument does not reach them, so the module would train with a rate it was not given. "
                  "Pass `dropout` on to each part that takes it.", call=call, unit=unit_name, rate=rate, parts=parts)
    return tr("Built as {call}, with dropout={rate}, some parts of your {unit} get another rate: {parts}. The `dropout` "
              "argument does not reach them, so they would train with a rate the module was not given. Pass `dropout` "
              "on to each part that takes it.", call=call, unit=unit_name, rate=rate, parts=parts)


def _shown(got):
    return f"p = {got:g}" if isinstance(got, float) else tr("built with dropout={given}", given=got)


def _call(unit_name, init):
    return f"{unit_name}({', '.join(repr(a) for a in init)})"
