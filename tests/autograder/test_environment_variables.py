"""The environment variables the course's code reads are those autograder/environment.py lists: every read of
os.environ (or os.getenv) in autograder/, sandbox_servers/, learner_kit/ and hub/ names a listed variable, the grader
reads the course's own through environment.read, and each course variable's entry names the files that read it."""
import ast
import functools
from pathlib import Path

import pytest

from autograder import environment

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("autograder", "sandbox_servers", "learner_kit", "hub")


def is_environ(node, aliases):
    """os.environ, or a parameter whose default is os.environ (hub/live/settings.py's from_env)."""
    if isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name):
        return node.value.id == "os"
    return isinstance(node, ast.Name) and node.id in aliases


def constants(tree):
    """The module's NAME = "TEXT" and NAME = ("TEXT", ...) assignments."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values = strings(node.value, {})
            if values is not None:
                found[node.targets[0].id] = values
    return found


def strings(node, names):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [strings(item, names) for item in node.elts]
        return None if any(item is None for item in items) else [name for item in items for name in item]
    if isinstance(node, ast.Name):
        return names.get(node.id)
    return None


def reads(path):
    """[(variable names or None where they cannot be told, line, through environment.read)] of one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = constants(tree)
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults)) + node.args.defaults + node.args.kw_defaults
            aliases |= {arg.arg for arg, default in zip(arguments, defaults) if default is not None
                        and is_environ(default, set())}
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for generator in node.generators:  # {key: os.environ[key] for key in GPU_ENV}
                if isinstance(generator.target, ast.Name) and strings(generator.iter, names) is not None:
                    names = {**names, generator.target.id: strings(generator.iter, names)}
    found = []
    for node in ast.walk(tree):
        key, through = None, False
        if isinstance(node, ast.Subscript) and is_environ(node.value, aliases):
            key = node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            method, owner = node.func.attr, node.func.value
            getenv = method == "getenv" and isinstance(owner, ast.Name) and owner.id == "os"
            if getenv or (method in ("get", "setdefault", "pop") and is_environ(owner, aliases)):
                key = node.args[0]
            elif method == "read" and isinstance(owner, ast.Name) and owner.id == "environment":
                key, through = node.args[0], True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "read" \
                and path.name == "environment.py" and node.args:
            key, through = node.args[0], True
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) \
                and is_environ(node.comparators[-1], aliases):
            key = node.left
        if key is not None:
            found.append((strings(key, names), node.lineno, through))
    return found


@functools.cache
def every_read():
    return list(_every_read())


def _every_read():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for variables, line, through in reads(path):
                name = path.relative_to(ROOT).as_posix()
                if name == "autograder/environment.py" and variables is None:  # read(name) itself: names checked
                    continue
                yield name, line, variables, through


def test_the_scan_finds_the_known_reads():
    found = {(path, name) for path, _, names, _ in every_read() for name in names or []}
    assert {("learner_kit/i18n.py", "COURSE_LANG"), ("hub/live/settings.py", "TRANSFORMER_LIVE_END"),
            ("autograder/grading/run/sandbox.py", "CUDA_VISIBLE_DEVICES"),
            ("hub/jupyterhub_config.py", "TRANSFORMER_LIVE_KEEP"),
            ("autograder/grading/run/sandbox.py", "AUTOGRADER_RUN_TAG")} <= found


def test_every_variable_read_is_listed():
    unknown = [f"{path}:{line}: {names or 'a name that cannot be told from the code'}"
               for path, line, names, _ in every_read()
               if names is None or any(name not in environment.VARIABLES and name not in environment.FOREIGN
                                       for name in names)]
    assert not unknown, "read but not listed in autograder/environment.py:\n" + "\n".join(unknown)


def test_the_grader_reads_the_courses_variables_through_the_list():
    direct = [f"{path}:{line}: {names}" for path, line, names, through in every_read()
              if path.startswith("autograder/") and not through and any(name in environment.VARIABLES
                                                                         for name in names or [])]
    assert not direct, "os.environ read directly (use autograder.environment.read):\n" + "\n".join(direct)


def test_each_course_variable_is_read_where_its_entry_says():
    readers = {}
    for path, _, names, _ in every_read():
        for name in names or []:
            readers.setdefault(name, set()).add(path)
    for variable in environment.COURSE:
        assert variable.set_by and variable.why, variable.name
        assert readers.get(variable.name, set()) == set(variable.read_by), variable.name


def test_a_name_not_listed_cannot_be_read(monkeypatch):
    monkeypatch.setenv("AUTOGRADER_RUN_TAG", "abc")
    assert environment.read("AUTOGRADER_RUN_TAG") == "abc"
    with pytest.raises(KeyError, match="not one of the course's environment variables"):
        environment.read("AUTOGRADER_SOMETHING_NEW")
