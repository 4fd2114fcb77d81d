"""The judge's requests (sandbox_servers.wire.encode_request) come back in the unit server as they were sent.

Plain CPU tensors travel as their bytes (wire._RequestPickler); everything else keeps PyTorch's own pickling.
Either way a request decodes to equal values, the same sharing between tensors, and tensors the server may
write to without touching anything else.
"""
import pickle

import pytest
import torch
from torch import nn

from sandbox_servers import wire


def round_trip(value):
    return wire.decode_request(wire.encode_request(value))


def identical(a, b):
    return (type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
            and a.requires_grad == b.requires_grad and torch.equal(a, b))


DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int8,
          torch.uint8, torch.bool, torch.complex64]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (1,), (2, 3, 4)], ids=str)
def test_plain_tensors_of_every_dtype_and_shape_come_back_equal(dtype, shape):
    tensor = (torch.rand(shape) * 10).to(dtype)
    back = round_trip({"case": [tensor]})["case"][0]
    assert identical(back, tensor)


def test_plain_tensors_are_written_as_bytes_not_as_pytorch_storages():
    weights = torch.ones(4, 4)
    payload = wire.encode_request({"weights": {"w": weights}, "view": weights[1:].t()})
    assert b"_tensor_from" in payload and b"_load_from_bytes" not in payload
    assert b"_load_from_bytes" in wire.encode_request({"x": torch.randn(2, dtype=torch.complex64).conj()})


def test_requires_grad_is_kept_and_the_tensor_is_a_writable_leaf():
    weight = torch.randn(3, 2, requires_grad=True)
    back = round_trip(weight)
    assert back.requires_grad and back.is_leaf and back.grad_fn is None
    (back * 2).sum().backward()
    assert torch.equal(back.grad, torch.full((3, 2), 2.0))
    plain = round_trip(torch.zeros(3))
    plain.add_(1)  # the server's copy is its own, writable memory
    assert torch.equal(plain, torch.ones(3))


def test_one_tensor_sent_twice_is_one_tensor_in_the_server():
    x = torch.randn(2, 3)
    back = round_trip({"q": x, "k": x, "v": [x]})
    assert back["q"] is back["k"] is back["v"][0]


def test_views_keep_sharing_their_storage():
    base = torch.arange(12.0).reshape(3, 4)
    back = round_trip({"base": base, "row": base[1], "t": base.t()})
    back["base"][1, 0] = 100.0
    assert back["row"][0] == 100.0 and back["t"][0, 1] == 100.0  # as after PyTorch's own pickling
    assert torch.equal(back["t"], back["base"].t())


@pytest.mark.parametrize("kind", ["non-leaf", "conjugate", "attribute", "parameter", "sparse", "module"])
def test_tensors_that_are_not_plain_travel_as_pytorch_pickles_them(kind):
    leaf = torch.randn(2, 2, requires_grad=True)
    tensor = {
        "non-leaf": lambda: leaf * 2,  # PyTorch sends its values as a leaf that requires grad
        "conjugate": lambda: torch.randn(2, 2, dtype=torch.complex64).conj(),
        "attribute": lambda: _with_attribute(torch.randn(2)),
        "parameter": lambda: nn.Parameter(torch.randn(2, 2)),
        "sparse": lambda: torch.eye(3).to_sparse(),
        "module": lambda: nn.Linear(3, 2),
    }[kind]()
    back = round_trip(tensor)
    expected = pickle.loads(pickle.dumps(tensor))  # what PyTorch's own pickling gives
    assert type(back) is type(expected)
    if isinstance(tensor, nn.Module):
        assert all(torch.equal(a, b) for a, b in zip(back.state_dict().values(), tensor.state_dict().values()))
    elif tensor.layout is torch.sparse_coo:
        assert torch.equal(back.to_dense(), tensor.to_dense())
    else:
        assert torch.equal(back, tensor) and back.is_conj() == tensor.is_conj()
        assert vars(back) == vars(expected) and back.requires_grad == expected.requires_grad


def _with_attribute(tensor):
    tensor.note = "kept"
    return tensor
