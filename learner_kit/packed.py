"""The stored fingerprints' file format: plain data and tensors, read in milliseconds.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

A fingerprint holds thousands of small tensors in dicts and lists. ``torch.load(weights_only=True)``, whose
unpickler is written in Python, takes about 0.2 ms for each (1.9 s for all the course's fingerprints, which the
sandbox's unit server reads whenever it starts, and a learner's kernel on its first visible test). Here the
structure is JSON and the tensors of each dtype one flat tensor, so that torch.load reads a few objects:

    {"packed": 1, "structure": JSON text, "data": {dtype name: 1-D tensor}}

It is still a torch.save file read with weights_only=True (nothing but plain data and tensors). In the JSON, a
dict is {"d": {...}}, a list {"l": [...]}, a tuple {"t": [...]}, a tensor {"T": index} into "tensors": [dtype name,
offset, extent, shape, stride, requires_grad], the part of its dtype's flat tensor from offset that holds its
elements; strings, numbers, booleans and None are themselves. A tensor met twice is stored once.
"""
import gc
import json

import torch

DTYPES = {str(dtype).removeprefix("torch."): dtype for dtype in (
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128,
    torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool)}


def save(value, file):
    """torch.save ``value`` (dicts with string keys, lists, tuples, tensors, str, int, float, bool, None) packed."""
    tensors, parts = [], {}
    structure = _encode(value, tensors, {}, parts)
    data = {name: torch.cat(chunks) for name, (chunks, _) in parts.items()}
    torch.save({"packed": 1, "structure": json.dumps({"tree": structure, "tensors": tensors}), "data": data}, file)


def load(file):
    """What ``save`` wrote (a file torch.save wrote otherwise is returned as torch.load reads it)."""
    stored = torch.load(file, weights_only=True)
    if not (isinstance(stored, dict) and stored.get("packed") == 1):
        return stored
    collecting = gc.isenabled()
    gc.disable()  # tens of thousands of new containers, none in a cycle: the collector would only walk them
    try:
        structure = json.loads(stored["structure"])
        tensors = [_tensor(stored["data"], *meta) for meta in structure["tensors"]]
        return _decode(structure["tree"], tensors)
    finally:
        if collecting:
            gc.enable()


def _encode(value, tensors, seen, parts):
    if isinstance(value, torch.Tensor):
        if id(value) not in seen:
            seen[id(value)] = len(tensors)
            tensors.append(_tensor_meta(value, parts))
        return {"T": seen[id(value)]}
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("packed.save: dict keys must be strings")
        return {"d": {key: _encode(item, tensors, seen, parts) for key, item in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"l" if isinstance(value, list) else "t": [_encode(item, tensors, seen, parts) for item in value]}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"packed.save: cannot store a {type(value).__name__}")


def _tensor_meta(tensor, parts):
    """[dtype, offset, extent, shape, stride, requires_grad]; the elements its view spans go into ``parts``
    ({dtype name: (the chunks so far, their length)})."""
    requires_grad, tensor = tensor.requires_grad, tensor.detach()
    name = str(tensor.dtype).removeprefix("torch.")
    if name not in DTYPES:
        raise TypeError(f"packed.save: cannot store a tensor of {tensor.dtype}")
    shape, stride = list(tensor.shape), list(tensor.stride())
    extent = 0 if tensor.numel() == 0 else 1 + sum((size - 1) * step for size, step in zip(shape, stride))
    span = tensor.cpu().as_strided((extent,), (1,), tensor.storage_offset()).clone()
    chunks, offset = parts.get(name, ([], 0))
    chunks.append(span)
    parts[name] = (chunks, offset + extent)
    return [name, offset, extent, shape, stride, requires_grad]


def _tensor(data, name, offset, extent, shape, stride, requires_grad):
    flat = data[name][offset:offset + extent]
    return flat.as_strided(shape, stride).requires_grad_(requires_grad)


def _decode(node, tensors):
    if not isinstance(node, dict):
        return node
    (kind, content), = node.items()
    if kind == "T":
        return tensors[content]
    if kind == "d":
        return {key: _decode(item, tensors) for key, item in content.items()}
    items = [_decode(item, tensors) for item in content]
    return items if kind == "l" else tuple(items)
