"""learner_kit.packed, the fingerprints' file format: what is saved is what is read, and the course's fingerprints use it."""
import math
from pathlib import Path

import pytest
import torch

import learner_kit
from learner_kit import packed


def test_every_kind_of_value_and_tensor_comes_back_as_it_was_saved(tmp_path):
    shared = torch.arange(12.0).reshape(3, 4)
    value = {
        "numbers": [0, -3, 2.5, math.inf, -math.inf, True, False, None, "text", "ünïcode ✓"],
        "pair": (1, (2, [3])),
        "shared": [shared, shared],
        "transposed": shared.t(),  # not contiguous: its strides come back
        "expanded": torch.ones(1, 5, 5, dtype=torch.bool).expand(2, 1, 5, 5),  # stride 0
        "offset": torch.arange(10, dtype=torch.int64)[3:7],
        "empty": torch.empty(0, 3),
        "scalar": torch.tensor(2.0, dtype=torch.float64),
        "grad": torch.zeros(2, requires_grad=True),
        "nan": torch.tensor([math.nan, 1.0]),
        "nested": {"deeper": {"list": [torch.tensor([1, 2], dtype=torch.int8)]}},
    }
    packed.save(value, tmp_path / "f.pt")
    got = packed.load(tmp_path / "f.pt")
    assert list(got) == list(value)
    assert got["numbers"] == value["numbers"] and [type(x) for x in got["numbers"]] == [type(x) for x in value["numbers"]]
    assert got["pair"] == (1, (2, [3])) and isinstance(got["pair"][1], tuple) and isinstance(got["pair"][1][1], list)
    assert got["shared"][0] is got["shared"][1] and torch.equal(got["shared"][0], shared)
    assert got["transposed"].stride() == shared.t().stride() and torch.equal(got["transposed"], shared.t())
    assert torch.equal(got["expanded"], value["expanded"]) and got["expanded"].dtype == torch.bool
    assert torch.equal(got["offset"], torch.arange(3, 7))
    assert got["empty"].shape == (0, 3) and got["scalar"].shape == () and got["scalar"].dtype == torch.float64
    assert got["grad"].requires_grad and not got["nan"].requires_grad
    assert torch.equal(got["nan"].isnan(), torch.tensor([True, False])) and got["nan"][1] == 1.0
    assert got["nested"]["deeper"]["list"][0].dtype == torch.int8
    assert torch.load(tmp_path / "f.pt", weights_only=True)["packed"] == 1  # still plain data to torch.load


def test_what_cannot_be_stored_is_refused(tmp_path):
    with pytest.raises(TypeError, match="dict keys"):
        packed.save({1: "a"}, tmp_path / "f.pt")
    with pytest.raises(TypeError, match="set"):
        packed.save({"a": {1, 2}}, tmp_path / "f.pt")


def test_a_file_torch_saved_otherwise_reads_as_torch_load_reads_it(tmp_path):
    torch.save({"a": torch.ones(2)}, tmp_path / "plain.pt")
    assert torch.equal(packed.load(tmp_path / "plain.pt")["a"], torch.ones(2))


def test_the_course_fingerprints_are_packed():
    """The unit server reads them all whenever it starts, a learner's kernel on its first visible test: torch.load took
    1.5-1.9 s for them unpacked, packed.load about 0.1-0.2 s (make bench's machine). One written by plain torch.save
    would still be read, slowly: refused here."""
    folder = Path(learner_kit.__file__).parent / "fingerprints"
    files = sorted(folder.glob("*.pt"))
    assert len(files) > 20
    for file in files:
        assert torch.load(file, weights_only=True).get("packed") == 1, f"{file.name}: write it with packed.save"
        assert isinstance(packed.load(file), dict)
