"""Experiments on a learner's built module that some checks need beyond its results.

Each probe runs the learner's module (call it again, call one of its methods, build a fresh
one, read its parameters) and returns plain data: tensors, numbers, strings and dicts of
them. The judgement (is the padding invisible? is the table sinusoidal?) stays with the
checks. `probe()` runs a probe here, or, for a unit that lives in the grading sandbox, asks
the sandbox to run it there (the unit server knows these by name). They hold no solution.
"""
import torch
from torch import nn

from learner_kit import harness


def call(module, *args):
    """The module's forward on `args`, without gradients."""
    with harness.isolated(), torch.no_grad():
        return module(*args)


def call_method(module, method, *args):
    """module.<method>(*args) without gradients; `method` may be dotted ("generator")."""
    target = module
    for part in method.split("."):
        target = getattr(target, part)
    with harness.isolated(), torch.no_grad():
        return target(*args)


def _fresh(module, init):
    """A new instance of the module's class (or of `module`, a class), built with `init`. Where the module was built
    from the course's stand-ins (learner_kit/stand_ins.py: the checks judge a composite with them in place of the
    learner's own parts), the new one is built from them too: a composite's checks do not depend on its parts."""
    from learner_kit.stand_ins import STAND_INS

    cls = module if isinstance(module, type) else type(module)
    kinds = {type(m) for m in module.modules()} if isinstance(module, nn.Module) else set()
    with harness.bound(cls, {name: stand_in for name, stand_in in STAND_INS.items() if stand_in in kinds}):
        return cls(*init)


def noise_for(parameter):
    """Seeded noise of a parameter's shape (the seed is its size): the same on both sides of the sandbox."""
    generator = torch.Generator().manual_seed(parameter.numel())
    return torch.randn(parameter.shape, generator=generator, dtype=torch.float64).to(parameter.dtype)


def with_noise(module, submodule, method, *args):
    """module.<method>(*args) with noise added to every parameter of module.<submodule>, restored afterwards."""
    parameters = list(getattr(module, submodule).parameters())
    saved = [p.detach().clone() for p in parameters]
    try:
        with torch.no_grad():
            for p in parameters:
                p.add_(noise_for(p))
        return call_method(module, method, *args)
    finally:
        with torch.no_grad():
            for p, value in zip(parameters, saved):
                p.copy_(value)


def module_list(module, attribute):
    """{'is_module_list', 'count', 'distinct'} of module.<attribute>."""
    layers = getattr(module, attribute, None)
    if not isinstance(layers, nn.ModuleList):
        return {"is_module_list": False, "count": 0, "distinct": 0}
    return {"is_module_list": True, "count": len(layers), "distinct": len({id(layer) for layer in layers})}


def tensor_attributes(module, names):
    """{name: the tensor module.<name> holds, or None}."""
    found = {}
    for name in names:
        value = getattr(module, name, None)
        found[name] = value.detach().clone() if isinstance(value, torch.Tensor) else None
    return found


def fresh_buffer(module, init, name, seed=0):
    """What a fresh instance of the module's class (or of `module`, a class), built with `init`, keeps as `name`.

    {'kind': 'buffer' | 'parameter' | 'attribute' | 'missing', 'value': tensor (float64, CPU) or None}.
    """
    with harness.isolated():
        harness.seed(seed)
        fresh = _fresh(module, init)
    value = getattr(fresh, name, None)
    if name in dict(fresh.named_buffers()):
        kind = "buffer"
    elif isinstance(value, nn.Parameter) or any(n == name for n, _ in fresh.named_parameters()):
        kind = "parameter"
    else:
        kind = "attribute" if isinstance(value, torch.Tensor) else "missing"
    tensor = dict(fresh.named_buffers()).get(name) if kind == "buffer" else value if isinstance(value, torch.Tensor) else None
    return {"kind": kind, "value": tensor.detach().to(torch.float64, copy=True).cpu() if tensor is not None else None}


def fresh_parameters(module, init, seed=0):
    """{name: parameter} of a fresh instance of the module's class, built with `init` after seeding torch."""
    with harness.isolated():
        torch.manual_seed(seed)
        fresh = _fresh(module, init)
    return {name: p.detach().clone() for name, p in fresh.named_parameters()}


def call_dropping_all(module, *args):
    """The module's forward on `args`, without gradients, in training mode, with each of its nn.Dropout
    submodules dropping everything it sees (p=1); the rates and modes are restored afterwards. Where the dropout
    acts then shows in the result: what it saw became 0. The whole module is in training mode, so that a
    dropout written F.dropout(x, self.dropout.p, training=self.training) drops too."""
    modules = list(module.modules())
    dropouts = [m for m in modules if isinstance(m, nn.Dropout)]
    saved, modes = [m.p for m in dropouts], [m.training for m in modules]
    try:
        for one in modules:
            one.training = True
        for dropout in dropouts:
            dropout.p = 1.0
        return call(module, *args)
    finally:
        for dropout, p in zip(dropouts, saved):
            dropout.p = p
        for one, training in zip(modules, modes):
            one.training = training


def training_call(module, init, seed, *args):
    """A fresh instance of the module's class, built with `init`, called on `args` in evaluation mode and then in
    training mode (torch seeded with `seed` before each call): {'evaluation', 'training'}, the two outputs.
    Whether a constructor's dropout argument reaches the module's dropouts shows in how they differ."""
    with harness.isolated():
        torch.manual_seed(0)
        fresh = _fresh(module, init)
        with torch.no_grad():
            torch.manual_seed(seed)
            evaluation = fresh.eval()(*args)
            torch.manual_seed(seed)
            training = fresh.train()(*args)
    return {"evaluation": evaluation, "training": training}


def call_dropping(module, names, *args):
    """The module's forward on `args`, without gradients, with the nn.Dropout submodules named in `names`
    dropping everything (p=1 in training mode) and every other nn.Dropout off (p=0); all are restored
    afterwards. Whether one named dropout acts, and where, then shows in the result."""
    dropouts = {name: m for name, m in module.named_modules() if isinstance(m, nn.Dropout)}
    saved = {name: (m.p, m.training) for name, m in dropouts.items()}
    try:
        for name, dropout in dropouts.items():
            dropout.p, dropout.training = (1.0, True) if name in names else (0.0, False)
        return call(module, *args)
    finally:
        for name, (p, training) in saved.items():
            dropouts[name].p, dropouts[name].training = p, training


def input_reaching(module, submodule, rate, *args):
    """What module.<submodule> receives (its first argument) when the module runs on `args` without gradients, in
    training mode, with every nn.Dropout submodule at `rate`; rates, modes and hooks are restored afterwards. None
    when the submodule is not called (e.g. its weights are used through F.linear) or not found."""
    try:
        target = module.get_submodule(submodule)
    except AttributeError:
        return None
    modules = list(module.modules())
    dropouts = [m for m in modules if isinstance(m, nn.Dropout)]
    saved, modes, seen = [m.p for m in dropouts], [m.training for m in modules], []
    handle = target.register_forward_pre_hook(
        lambda _, inputs: seen.append(inputs[0].detach().clone()) if inputs and isinstance(inputs[0], torch.Tensor) else None)
    try:
        for one in modules:
            one.training = True
        for dropout in dropouts:
            dropout.p = rate
        call(module, *args)
    finally:
        handle.remove()
        for dropout, p in zip(dropouts, saved):
            dropout.p = p
        for one, training in zip(modules, modes):
            one.training = training
    return seen[0] if seen else None


def dropout_rates(module, init):
    """learner_kit.arguments.rates() of a fresh instance of the module's class, built with `init`: the rate of each
    part that drops ({path: p}), where a stand-in for a graded part counts as one part (the rate it was given)."""
    from learner_kit.arguments import rates

    with harness.isolated():
        return rates(_fresh(module, init))


PROBES = {f.__name__: f for f in (call, call_method, with_noise, module_list, tensor_attributes, fresh_buffer,
                                  fresh_parameters, call_dropping_all, training_call, call_dropping, input_reaching,
                                  dropout_rates)}


def probe(name, module, *args):
    """PROBES[name](module, *args), here or in the sandbox that holds `module`; raises what the learner's code raised."""
    if isinstance(module, harness.Remote):
        return module.run_probe(name, *args)
    return PROBES[name](module, *args)
