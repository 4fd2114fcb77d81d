"""`make test-quick`: the test files that import what you changed, within a time budget (the inner loop).

What changed: `git diff --name-only BASE` (default HEAD: your uncommitted work; the last commit when there is
none) and untracked files. A changed module of learner_kit/ or autograder/ selects every test file that imports
it, directly or through the modules it imports (grimp's import graph, the one import-linter reads); a changed test
file or test helper selects itself and the tests that import it; a changed template or data file counts as the
module beside it. The selected files run with pytest-xdist, the quickest first, while their recorded times
(build/test-durations.json, which every pytest run writes) fit the budget; the rest are named, for `make test`.
A changed notebook source is named too: `make test-notebooks` runs the notebooks.
"""
import argparse
import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("learner_kit", "sandbox_servers", "autograder")
DURATIONS = ROOT / "build" / "test-durations.json"  # this checkout's own runs
BASELINE = ROOT / "tests" / "durations.json"  # a clean-clone `make test` on CI's 2 cores, for a checkout with none
UNKNOWN_S = 30.0  # a test file timed by neither: counted as this long (a browser test as BROWSER_S)
BROWSER_S = 300.0


def changed_files(base):
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()

    files = git("diff", "--name-only", base) + git("ls-files", "--others", "--exclude-standard")
    if not files and base == "HEAD":
        print("nothing uncommitted: the last commit's changes")
        files = git("diff", "--name-only", "HEAD~1")
    return sorted(set(files))


def module_of(path):
    """The dotted module a changed file stands for, or None (not code the tests import)."""
    parts = Path(path).parts
    if not parts or parts[0] not in (*PACKAGES, "tests"):
        return None
    if path.endswith(".py"):
        dotted = ".".join(Path(path).with_suffix("").parts)
        return dotted.removesuffix(".__init__")
    folder = Path(path).parent  # a template or data file: the module (or package) named like its folder, else the package
    for place in (folder.parent, folder.parent.parent):
        for candidate in (place / f"{folder.name}.py", place / folder.name / "__init__.py"):
            if (ROOT / candidate).is_file() and candidate.parent != folder:
                return ".".join(candidate.with_suffix("").parts).removesuffix(".__init__")
    while folder.parts and not (ROOT / folder / "__init__.py").is_file():
        folder = folder.parent
    return ".".join(folder.parts) or None


def imported_by(path):
    """The modules a test file imports by name (anywhere in it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in (*PACKAGES, "tests")}


def dependencies(test_files, graph):
    """test file -> every module it reaches: its imports, the test helpers' imports, and what those import."""
    helpers = {".".join(p.relative_to(ROOT).with_suffix("").parts): p for p in (ROOT / "tests").rglob("*.py")}
    reached = {}
    for test in test_files:
        seen, todo = set(), list(imported_by(test))
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in helpers:
                todo.extend(imported_by(helpers[name]))
            elif name in graph.modules:
                seen |= graph.find_upstream_modules(name)  # what it imports, directly or not
        reached[test] = seen
    return reached


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=os.environ.get("QUICK_BASE", "HEAD"), help="compare with this commit")
    parser.add_argument("--budget", type=float, default=float(os.environ.get("QUICK_BUDGET_S", 140)),
                        help="seconds of recorded test time per worker to run (default 140: about 3 minutes with start-up)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dry-run", action="store_true", help="say what would run")
    args = parser.parse_args(argv)

    changed = changed_files(args.base)
    modules = {m for m in map(module_of, changed) if m}
    notebooks = [f for f in changed if f.startswith(("notebooks/", "solutions/")) and f.endswith(".ipynb")]
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    tests = sorted(p for p in (ROOT / "tests").rglob("test_*.py") if "fixtures" not in p.parts)
    reached = dependencies(tests, graph)
    chosen = [t for t in tests if modules & (reached[t] | {".".join(t.relative_to(ROOT).with_suffix("").parts)})]
    times = {}
    for source in (BASELINE, DURATIONS):
        if source.is_file():
            times.update(json.loads(source.read_text(encoding="utf-8")))

    def seconds_of(test):
        name = str(test.relative_to(ROOT))
        return times.get(name, BROWSER_S if "browser" in test.parts else UNKNOWN_S)

    timed = sorted(chosen, key=seconds_of)
    run, left, total = [], [], 0.0
    for test in timed:
        seconds = seconds_of(test)
        if total + seconds <= args.budget * max(1, args.workers):
            run.append(test)
            total += seconds
        else:
            left.append(test)
    print(f"changed: {len(changed)} file(s), {len(modules)} module(s) the tests import: {', '.join(sorted(modules)) or 'none'}")
    if not times:
        print(f"(no recorded test times yet: every file counted {UNKNOWN_S:.0f} s, a browser test {BROWSER_S:.0f} s; "
              f"any pytest run records them in {DURATIONS.relative_to(ROOT)})")
    print(f"running {len(run)} of the {len(chosen)} test file(s) that import it (recorded {total:.0f} s on "
          f"{args.workers} worker(s))")
    if left:
        print("left for `make test` (over the budget): " + ", ".join(str(t.relative_to(ROOT)) for t in left))
    if notebooks:
        print("notebooks changed (`make test-notebooks` runs them): " + ", ".join(notebooks))
    if not run or args.dry_run:
        for test in run:
            print("  " + str(test.relative_to(ROOT)))
        return 0
    command = [sys.executable, "-m", "pytest", "-q", *([f"-n{args.workers}", "--dist", "loadfile"] if args.workers > 1
                                                       else []), *(str(t.relative_to(ROOT)) for t in run)]
    return subprocess.run(command, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
