"""The reference's weights loaded into a learner's module by name (load_weights), and in words what did not
fit: names missing or extra, shapes, and their usual causes (a plain tensor for a parameter, modules in a
Python list, the learner's own class where the exercise builds PyTorch's).

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).
"""
import torch
from torch import nn

from learner_kit.i18n import tr
from learner_kit.wording import joined


def load_weights(module, weights):
    """Copy `weights` into `module` by name; return what did not fit, in words."""
    if not weights:
        return ()
    own = module.state_dict()
    parameters = {name for name, _ in module.named_parameters(remove_duplicate=False)}
    fitting = {k: v for k, v in weights.items() if k in own and own[k].shape == v.shape}
    module.load_state_dict(fitting, strict=False)
    missing = [k for k in weights if k not in own]
    # buffers not given stay the learner's; a second name for a parameter that fits (the same layer also
    # kept in a list, say) is not a parameter of its own
    fitted = {own[k].data_ptr() for k in fitting}
    unexpected = [k for k in own if k not in weights and k in parameters and own[k].data_ptr() not in fitted]
    problems, explained = _interface_notes(module, missing, unexpected)
    missing = [k for k in missing if k not in explained]
    unexpected = [k for k in unexpected if k not in explained]
    if missing:
        problems.append(tr("Missing: {names}.", names=_by_submodule(missing)))
    if unexpected:
        problems.append(tr("Not in the exercise: {names}.", names=_by_submodule(unexpected)))
    for key in weights.keys() & own.keys() - fitting.keys():
        problems.append(tr("`{key}` has shape {shape}, expected {expected}.", key=key, shape=tuple(own[key].shape),
                           expected=tuple(weights[key].shape)))
    return tuple(problems)


def _interface_notes(module, missing, unexpected):
    """Sentences for the usual causes of names that do not fit, and the names they explain:
    a plain tensor where a parameter belongs, modules kept in a Python list, and a submodule of
    the learner's own class where the exercise builds PyTorch's."""
    notes, explained = [], set()
    lists, plain = {}, []
    for key in missing:
        *path, leaf = key.split(".")
        owner = _attribute(module, path)
        value = getattr(owner, leaf, None) if owner is not None else None
        if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
            plain.append(key)
            continue
        for depth in range(1, len(path) + 1):
            holder = _attribute(module, path[:depth])
            if isinstance(holder, (list, tuple, dict)) and not isinstance(holder, nn.Module):
                lists.setdefault(".".join(path[:depth]), []).append(key)
                break
    if plain:
        names = joined(f"`{key}`" for key in plain)
        notes.append(tr("{names} is a plain tensor, so PyTorch does not count it as a parameter (never trained or "
                        "saved): wrap it in nn.Parameter.", names=names) if len(plain) == 1 else
                     tr("{names} are plain tensors, so PyTorch does not count them as parameters (never trained or "
                        "saved): wrap each in nn.Parameter.", names=names))
        explained.update(plain)
    for name, keys in lists.items():
        kind = type(_attribute(module, name.split("."))).__name__
        container = "nn.ModuleDict" if kind == "dict" else "nn.ModuleList"
        notes.append(tr("`{name}` is a Python {kind}: PyTorch does not see the modules inside a plain {kind} "
                        "(their parameters are never trained, moved or saved): hold them in an {container}.",
                        name=name, kind=kind, container=container))
        explained.update(keys)
    owners = {key.rsplit(".", 1)[0] for key in missing if "." in key and key not in explained}
    for owner in sorted(owners):
        sub = _attribute(module, owner.split("."))
        theirs = sorted(k.rsplit(".", 1)[1] for k in missing if k.rsplit(".", 1)[0] == owner)
        mine = sorted(k.rsplit(".", 1)[1] for k in unexpected if "." in k and k.rsplit(".", 1)[0] == owner)
        if owner in unexpected:  # a tensor of its own where the exercise builds a submodule (self.lut = nn.Parameter(...))
            notes.append(tr("`{owner}` is a tensor parameter of your module; in the exercise `{owner}` is a submodule "
                            "with the parameters {theirs}: build it as the module the exercise names, and call it.",
                            owner=owner, theirs=", ".join(f"`{owner}.{leaf}`" for leaf in theirs)))
            explained.update({owner, *(f"{owner}.{leaf}" for leaf in theirs)})
            continue
        kind = type(sub)
        if isinstance(sub, nn.Module) and mine and not kind.__module__.startswith("torch.") and hasattr(nn, kind.__name__):
            notes.append(tr("`{owner}` is your own `{klass}` class (parameters {mine}); the exercise builds `{owner}` "
                            "from PyTorch's `nn.{klass}` (parameters {theirs}): use `nn.{klass}` here, as the exercise "
                            "says.", owner=owner, klass=kind.__name__, mine=", ".join(mine), theirs=", ".join(theirs)))
            explained.update(f"{owner}.{leaf}" for leaf in theirs + mine)
    return notes, explained


def _attribute(module, path):
    """module.a.b for path ['a', 'b'] (list items by index), or None."""
    value = module
    for part in path:
        if isinstance(value, (list, tuple)) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _by_submodule(keys):
    """'w_o (w_o.weight, w_o.bias)' for each submodule the state_dict keys belong to."""
    groups = {}
    for key in keys:
        groups.setdefault(key.rsplit(".", 1)[0] if "." in key else key, []).append(key)
    return "; ".join(f"`{owner}` ({', '.join(names)})" for owner, names in groups.items())
