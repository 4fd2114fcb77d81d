"""Grade a submitted notebook again outside nbgrader's kernel (the parent side of verifier_child.py).

The child is untrusted: it runs the learner's code. Only well-formed report lines that carry
this run's token and name a graded cell count, the first one per cell; a cell without a
valid report failed.
"""
import ast
import json
import os
import secrets
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from autograder.grading.limits import describe_exit, kill_group
from autograder.grading.source import ANSWER, CODE, PROVIDED, TEST, classify
from autograder.paths import ROOT

DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
CHILD = Path(__file__).with_name("verifier_child.py")
MAX_REPORT_BYTES = 1 << 20
MAX_MESSAGE = 2000


def submitted_answers(notebook):
    """{grade_id: source} of the submitted answer cells; the last of duplicates wins, as in nbgrader."""
    answers = {}
    for cell in notebook.cells:
        classified = classify(cell)
        if classified is not None and classified.kind == ANSWER:
            answers[classified.grade_id] = classified.source
    return answers


def definitions_only(source):
    """The top-level imports, functions and classes of an ordinary cell (its experiments, prints and
    figures dropped): test cells may use those names, and they cost nothing to run."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    kept = [node for node in tree.body if isinstance(node, DEFINITIONS)]
    return ast.unparse(ast.Module(body=kept, type_ignores=[]))


def payload_cells(source_notebook, submitted_notebook):
    """The cells the child runs, in the source's order: the source's provided code, test cells and
    the definitions of its ordinary cells, with the learner's answer cells in place of its own."""
    answers = submitted_answers(submitted_notebook)
    cells = []
    for cell in source_notebook.cells:
        if cell.kind == ANSWER and cell.grade_id in answers:
            cells.append({"kind": "answer", "grade_id": cell.grade_id, "source": answers[cell.grade_id]})
        elif cell.kind in (TEST, PROVIDED):
            cells.append({"kind": cell.kind, "grade_id": cell.grade_id, "source": cell.source})
        elif cell.kind == CODE:
            cells.append({"kind": cell.kind, "grade_id": None, "source": definitions_only(cell.source)})
    return cells


def child_env():
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "LANG": "C.UTF-8",
        "NBGRADER_EXECUTION": "autograde",  # the notebooks skip their figures
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
    }


def parse_report(data: bytes, token, graded_ids):
    """{grade_id: (passed, message)} from the child's report lines, and whether it said it was done."""
    verdicts, done = {}, False
    for raw in data[:MAX_REPORT_BYTES].splitlines():
        try:
            line = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            continue
        if not isinstance(line, dict) or line.get("token") != token:
            continue
        if line.get("done") is True:
            done = True
            continue
        grade_id, passed, message = line.get("grade_id"), line.get("passed"), line.get("message")
        if grade_id in graded_ids and grade_id not in verdicts and isinstance(passed, bool) and isinstance(message, str):
            verdicts[grade_id] = (passed, message[:MAX_MESSAGE])
    return verdicts, done


class Verifier:
    """A verifier_child.py server (torch imported once) that forks one limited child per notebook."""

    def __init__(self, settings, cell_timeout):
        self.settings, self.cell_timeout, self.server, self.pending = settings, cell_timeout, None, b""

    def start(self):
        """The running server, started if need be (call it early: it imports torch meanwhile)."""
        if self.server is None or self.server.poll() is not None:
            self.server = subprocess.Popen(
                [sys.executable, "-I", str(CHILD), str(ROOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                env=child_env(), cwd="/", start_new_session=True, bufsize=0,
            )
            self.pending = b""
        return self.server

    def _answer(self, deadline):
        """The server's next JSON line, or None when it says nothing before ``deadline`` (or has gone)."""
        while b"\n" not in self.pending:
            remaining = deadline - time.monotonic()
            descriptor = self.server.stdout.fileno()
            if remaining <= 0 or not select.select([descriptor], [], [], remaining)[0]:
                return None
            chunk = os.read(descriptor, 65536)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        if self.server is not None:
            kill_group(self.server)
            self.server.wait()
            self.server = None

    def _run_child(self, request, wall_s):
        """(returncode or None, timed_out) of the forked child that serves ``request``."""
        try:
            self.start().stdin.write(json.dumps(request).encode() + b"\n")
            started = self._answer(time.monotonic() + 120)  # the server's first start imports torch
        except (OSError, ValueError):  # the server has gone (a child may kill it)
            started = None
        if not started:
            self.close()
            return None, False
        status = self._answer(time.monotonic() + wall_s)
        timed_out = status is None
        if timed_out:
            try:
                os.killpg(started["pid"], signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            status = self._answer(time.monotonic() + 10)
        if status is None:  # the server itself is stuck (a child may signal it): start a new one next time
            self.close()
            return None, timed_out
        return os.waitstatus_to_exitcode(status["status"]), timed_out

    def verify(self, source_notebook, submitted_notebook, workdir: Path):
        """{grade_id: (passed, message)} for every graded cell of ``source_notebook``."""
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "cwd").mkdir(exist_ok=True)
        payload = {"cell_timeout": self.cell_timeout, "cells": payload_cells(source_notebook, submitted_notebook)}
        (workdir / "payload.json").write_text(json.dumps(payload), encoding="utf-8")
        token, wall_s = secrets.token_hex(16), self.settings.verifier_wall_s
        request = {
            "payload": str(workdir / "payload.json"), "report": str(workdir / "report.jsonl"), "stderr": str(workdir / "stderr.txt"),
            "cwd": str(workdir / "cwd"), "token": token, "memory_mb": self.settings.verifier_memory_mb, "cpu_s": wall_s,
        }
        returncode, timed_out = self._run_child(request, wall_s)
        report = workdir / "report.jsonl"
        graded_ids = {cell.grade_id for cell in source_notebook.graded}
        verdicts, done = parse_report(report.read_bytes() if report.is_file() else b"", token, graded_ids)
        why = "it sent no result for it" if done else describe_exit(returncode, timed_out, wall_s)
        for grade_id in graded_ids - verdicts.keys():
            verdicts[grade_id] = (False, f"Not graded: the run of this notebook outside the notebook kernel stopped before this cell ({why}).")
        return verdicts
