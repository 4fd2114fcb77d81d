"""Pieces of the sentences that verdicts share, in the learner's language: a place in a tensor
("batch 0, head 1, query 2") and names joined with "and".

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).
"""
from learner_kit.i18n import tr


def where_first(flags, axes):
    """' at batch 0, query 2, key 3' for the first True entry of `flags` ('' for a single number);
    axes=None: a tensor whose axes have no such meaning (a parameter), ' at index (11, 3)'."""
    if not bool(flags.any()) or flags.dim() == 0:
        return ""
    index = [int(i) for i in flags.nonzero()[0]]
    if axes is None:
        return tr(" at index ({index})", index=", ".join(map(str, index)))
    return tr(" at {position}", position=position(index, axes))


def position(index, axes=()):
    """'batch 0, head 1, query 2, key 3': `axes` names the last axes, the first two are batch and head."""
    names = list(axes)[-len(index):] if axes and index else []
    names = ["batch", "head"][: len(index) - len(names)] + names
    words = _axis_words()
    names = [tr("axis {number}", number=i) for i in range(len(index) - len(names))] + [words.get(n, n) for n in names]
    return ", ".join(f"{name} {i}" for name, i in zip(names, index))


def _axis_words():
    """The names of the axes that messages use, in the current language."""
    return {"batch": tr("batch"), "head": tr("head"), "query": tr("query"), "key": tr("key"),
            "position": tr("position"), "feature": tr("feature"), "word": tr("word")}


def joined(names):
    """'`a` and `b` and `c`': names put together in the current language."""
    names = list(names)
    text = names[0] if names else ""
    for name in names[1:]:
        text = tr("{first} and {second}", first=text, second=name)
    return text
