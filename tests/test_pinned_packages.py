"""The pip install (requirements.txt) and environment.yml must pin the same packages."""
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def requirement_pins():
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def environment_pins():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(entry["pip"] for entry in env["dependencies"] if isinstance(entry, dict))
    return {spec for spec in pip_section if not spec.startswith("-")}


def test_environment_yml_pins_the_same_packages_as_requirements():
    assert environment_pins() == requirement_pins()


def test_every_requirement_is_pinned_exactly():
    unpinned = [spec for spec in requirement_pins() if "==" not in spec]
    assert not unpinned, f"pin these with ==: {unpinned}"


def test_torch_is_the_pinned_cpu_wheel_version():
    assert "torch==2.13.0" in requirement_pins()
    import torch

    assert torch.__version__.split("+")[0] == "2.13.0"
