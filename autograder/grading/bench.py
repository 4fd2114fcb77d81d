"""`make bench`: a class of N perfect students graded by stock `nbgrader autograde` and by `autograder grade`.

    python -m autograder.grading.bench [--students N] [--jobs J] [--assignments all|ID,ID] [--loop]
                                       [--kernel-run] [--scheduler ADDRESS] [--no-stock] [--warm]

Both use the course's nbgrader_config.py. Stock: the `nbgrader autograde` command, once per
assignment, its gradebook prepared beforehand (not timed). Ours: the whole `autograder grade`
command (gradebook template already cached, Dask's start-up, feedback HTML and the verdicts
included). Prints both times, seconds per notebook, the ratio, what Dask's start-up cost, and
how long workers sat idle while submissions were still waiting (from OUT/logs/tasks.jsonl);
fails if the scores differ. With --kernel-run, the class is graded again with nbgrader's kernel
running each notebook too (the pipeline before the one run). With --loop, the class is graded
again with one more student whose scaled_dot_product_attention never returns, to show what one
endless loop costs the others. With --mistakes, a class of the same size that makes mistakes is
graded too: each student makes one typical mistake in each notebook (MISTAKES, taken in turn, so
that the class holds each of them), and its time per notebook is printed next to the perfect class's. With --warm,
each class is graded once more on a Dask cluster kept between runs (a service, --scheduler) whose workers are
already set up for the course: what a second run pays (cluster.register keeps a set-up made from the same course
and settings).

For each class it grades (perfect, mistakes), it prints where ours spent its time, stage by stage
(run/stages.py: per notebook the read and checks of the submission, the sandbox's start, the learner's run, the
verdicts and diagnosis, nbgrader's autograde, the feedback page, the gradebook, writing OUT; once per run the
command's start, the cluster's start, the workers' set-up and unit servers, the end), then stock nbgrader's time
on the same class, graded right after it, and the ratio, with the load average each ran under (1 minute).
"""
import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.grading.bookkeeping.config import Settings
from autograder.grading.bookkeeping.gradebook import build_template
from autograder.grading.bookkeeping.source import load_assignment
from autograder.grading.run import stages
from autograder.paths import ROOT, SOLUTIONS, assignment_ids, put_python_scripts_on_path

ENDLESS = "def scaled_dot_product_attention(query, key, value, mask=None, dropout=None):\n    while True:\n        pass\n"

# Typical mistakes, per notebook: (the answer cell's grade_id, the solution's text, the learner's). Some have a
# misconception id, some are told only where they part from the reference (learner_kit.locate).
MISTAKES = {
    "01-attention": [("scaled_dot_product_attention", "weights = torch.softmax(scores, dim=-1)",
                      "weights = torch.softmax(scores, dim=-2)"),
                     ("scaled_dot_product_attention", "/ math.sqrt(d_k)", "")],
    "02-multi-head": [("MultiHeadAttention", "v = split_heads(self.w_v(value), self.n_head)",
                       "v = split_heads(self.w_v(key), self.n_head)"),
                      ("split_heads", "x = x.transpose(1, 2)", "x = x.transpose(2, 1).transpose(1, 3)")],
    "03-add-norm": [("LayerNorm", "var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)",
                     "var = (x ** 2).mean(dim=-1, keepdim=True)"),
                    ("AddNorm", "return self.norm(x + dropped)", "return x + self.norm(dropped)")],
    "04-feed-forward": [("PositionwiseFeedForward", "return self.w_2(self.dropout(hidden))",
                         "return torch.relu(self.w_2(self.dropout(hidden)))"),
                        ("PositionwiseFeedForward", "hidden = torch.relu(self.w_1(x))", "hidden = self.w_1(x)")],
    "05-encoder": [("EncoderLayer", "return self.norm2(x + self.dropout2(ffn_out))", "return self.norm2(self.dropout2(ffn_out))"),
                   ("Embeddings", "return vectors * math.sqrt(self.d_model)", "return vectors")],
    "06-masks": [("make_subsequent_mask", "allowed = torch.tril(ones)", "allowed = torch.tril(ones, diagonal=1)"),
                 ("make_pad_mask", "keep = tokens != pad_idx", "keep = tokens == pad_idx")],
    "07-decoder": [("DecoderLayer", "x = self.norm2(x + self.dropout2(self.cross_attn(x, memory, memory, src_mask)))",
                    "x = self.norm2(self.dropout2(self.cross_attn(x, memory, memory, src_mask)))"),
                   ("DecoderLayer", "self.cross_attn(x, memory, memory, src_mask)", "self.cross_attn(x, x, x, src_mask)")],
    "08-generator": [("Generator", "return F.log_softmax(logits, dim=-1)", "return F.softmax(logits, dim=-1)"),
                     ("Generator", "return F.log_softmax(logits, dim=-1)", "return F.log_softmax(logits, dim=0)")],
    "09-additive-attention": [("AdditiveAttention", "scores = self.v(torch.tanh(q + k)).squeeze(-1)",
                               "scores = self.v(q + k).squeeze(-1)"),
                              ("AdditiveAttention", "weights = torch.softmax(scores, dim=-1)",
                               "weights = torch.softmax(scores, dim=-2)")],
    "10-train": [("noam_rate", "step = max(step, 1)", "step = step + 1"),
                 ("LabelSmoothingLoss", "true_dist[:, self.pad_idx] = 0", "")],
}


CPU = {"last": 0.0}  # the CPU seconds of the last timed_run's command and its descendants (those waited for)


def children_cpu():
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(command, **kwargs):
    """(Wall seconds, the CompletedProcess) of ``command``; CPU["last"]: its CPU seconds, a figure that a busy
    machine changes less than the wall time (not the processes its descendants left unwaited, e.g. the sandboxes')."""
    start, cpu = time.perf_counter(), children_cpu()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command[:4])} ... failed:\n{result.stderr[-3000:]}")
    CPU["last"] = children_cpu() - cpu
    return time.perf_counter() - start, result


def stock(scratch: Path, assignments, students):
    """Seconds for `nbgrader autograde` of every assignment of ``scratch / "submitted"`` (nbgrader's course there), and
    its scores {(student, grade_id): points}."""
    from nbgrader.api import Gradebook

    db_url = f"sqlite:///{scratch / 'gradebook.db'}"
    flags = [f"--CourseDirectory.root={scratch}", f"--CourseDirectory.source_directory={SOLUTIONS}",
             f"--CourseDirectory.release_directory={scratch / 'release'}", f"--CourseDirectory.db_url={db_url}",
             f"--Exchange.root={scratch / 'exchange'}"]
    nbgrader = [str(Path(sys.executable).with_name("nbgrader"))]
    seconds, scores, cpu = 0.0, {}, 0.0
    for assignment in assignments:
        timed_run(nbgrader + ["generate_assignment", assignment, "--force"] + flags)
        seconds += timed_run(nbgrader + ["autograde", assignment, "--force"] + flags)[0]
        cpu += CPU["last"]
        cells = load_assignment(SOLUTIONS, assignment)[0]
        with Gradebook(db_url) as gradebook:
            scores.update({(s, c.grade_id): gradebook.find_grade(c.grade_id, cells.name, assignment, s).score
                           for s in students for c in cells.graded})
    CPU["last"] = cpu
    return seconds, scores


def ours(submitted: Path, out: Path, jobs, scheduler=None, extra=()):
    """Seconds, scores, Dask's start-up line and the workers' idle seconds while work remained."""
    command = [sys.executable, "-m", "autograder", "grade", str(submitted), "--out", str(out), *extra]
    command += ["--scheduler", scheduler] if scheduler else ["--jobs", str(jobs)]
    seconds, result = timed_run(command)
    CPU["ours"] = CPU["last"]
    records = json.loads((out / "results.json").read_text(encoding="utf-8"))
    startup = re.search(r"Dask: cluster ready in ([\d.]+) s, workers set up for grading in ([\d.]+) s", result.stderr)
    return seconds, {(r["student"], r["grade_id"]): float(r["points"]) for r in records}, startup, idle_seconds(out)


def read_tasks(out: Path):
    """Which worker graded which submission from when to when: the records of OUT/logs/tasks.jsonl."""
    return [json.loads(line) for line in (out / "logs" / "tasks.jsonl").read_text().splitlines() if line.strip()]


def idle_seconds(out: Path):
    """{worker: seconds it waited with no task while some submission had not yet started}."""
    tasks = read_tasks(out)
    if not tasks:
        return {}
    first, last_start = min(t["started"] for t in tasks), max(t["started"] for t in tasks)
    idle = {}
    for worker in sorted({t["worker"] for t in tasks}):
        busy, clock, waited = sorted((t["started"], t["ended"]) for t in tasks if t["worker"] == worker), first, 0.0
        for started, ended in busy:
            waited += max(0.0, min(started, last_start) - clock)
            clock = max(clock, ended)
        waited += max(0.0, last_start - clock)
        idle[worker] = waited
    return idle


# grading.log's phases (worker.py); "out-of-kernel check" is what logs before the one run called the first phase
PHASE = re.compile(r"^  (notebook run and verdicts|out-of-kernel check|nbgrader autograde|nbgrader generate_feedback)"
                   r"[^:]*: ([\d.]+) s$", re.M)
PHASE_NAMES = {"notebook run and verdicts": "run and verdicts (unit server, judge)",
               "out-of-kernel check": "run and verdicts (unit server, judge)",
               "nbgrader autograde": "nbgrader autograde (with --kernel-run: the kernel's run)",
               "nbgrader generate_feedback": "feedback (nbgrader generate_feedback)"}


def phase_seconds(out: Path):
    """{phase: seconds summed over the submissions} from OUT/logs/grading.log, and the tasks' own seconds in all."""
    log = (out / "logs" / "grading.log").read_text(encoding="utf-8")
    phases = dict.fromkeys(PHASE_NAMES.values(), 0.0)
    for phase, seconds in PHASE.findall(log):
        phases[PHASE_NAMES[phase]] += float(seconds)
    return phases, sum(t["ended"] - t["started"] for t in read_tasks(out))


def task_seconds(out: Path, student):
    """Seconds the workers spent on ``student``'s submissions (tasks.jsonl)."""
    return sum(t["ended"] - t["started"] for t in read_tasks(out) if t["submission"].split("/")[0] == student)


def report_phases(out: Path, seconds, notebooks, startup, jobs):
    """Where the run's time went: per phase the workers' seconds per notebook, then what the parent spent."""
    phases, in_tasks = phase_seconds(out)
    print(f"{'':<38}  per notebook, workers' seconds: " + ", ".join(
        f"{name} {value / notebooks:.2f} s" for name, value in phases.items())
        + f", the rest of the task (unpacking, packing results) {(in_tasks - sum(phases.values())) / notebooks:.2f} s")
    started = sum(float(value) for value in startup.groups()) if startup else 0.0
    print(f"{'':<38}  start-up {started:.1f} s; the rest of the wall time (writing OUT, the report, "
          f"waiting on the last task) {seconds - started - in_tasks / jobs:.1f} s")
    slowest = max(read_tasks(out), key=lambda task: task["ended"] - task["started"], default=None)
    if slowest is not None:  # a submission is one notebook in this course
        print(f"{'':<38}  the slowest submission: {slowest['submission']}, "
              f"{slowest['ended'] - slowest['started']:.1f} s on its worker")


def write_class(folder: Path, assignments, students, endless=None):
    for assignment in assignments:
        source = SOLUTIONS / assignment / f"{assignment}.ipynb"
        for student in students:
            (folder / student / assignment).mkdir(parents=True)
            shutil.copyfile(source, folder / student / assignment / source.name)
        if endless and assignment == "01-attention":
            notebook = nbformat.read(str(source), as_version=4)
            for cell in notebook.cells:
                if cell.metadata.get("nbgrader", {}).get("grade_id") == "scaled_dot_product_attention":
                    cell.source = ENDLESS
            (folder / endless / assignment).mkdir(parents=True)
            nbformat.write(notebook, str(folder / endless / assignment / source.name))
        elif endless:
            (folder / endless / assignment).mkdir(parents=True)
            shutil.copyfile(source, folder / endless / assignment / source.name)


def write_mistaken_class(folder: Path, assignments, students):
    """Every student makes one of MISTAKES in each notebook (in turn); an assignment without any is copied."""
    for assignment in assignments:
        source = SOLUTIONS / assignment / f"{assignment}.ipynb"
        mistakes = MISTAKES.get(assignment, [])
        for number, student in enumerate(students):
            (folder / student / assignment).mkdir(parents=True)
            notebook = nbformat.read(str(source), as_version=4)
            if mistakes:
                grade_id, right, wrong = mistakes[number % len(mistakes)]
                cells = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
                if not cells or right not in cells[0].source:
                    sys.exit(f"bench: {assignment}'s {grade_id} no longer holds {right!r}: update MISTAKES")
                cells[0].source = cells[0].source.replace(right, wrong, 1)
            nbformat.write(notebook, str(folder / student / assignment / source.name))


def read_libraries_once():
    """Import, untimed and in a process of its own, what both graders load (PyTorch, nbgrader, Dask, matplotlib):
    the first class timed, ours, then no longer pays for reading them from a disk that other work on the machine
    (another clone's environment, a test suite) took from the page cache; stock nbgrader, timed after ours, always
    found them read. Nothing of ours is kept: every timed run still starts its own processes."""
    subprocess.run([sys.executable, "-c", "import torch, torch._dynamo, nbgrader.apps.api, distributed, seaborn"],
                   check=False, capture_output=True)


def load():
    """The 1-minute load average (the machine's other work, beside the figures)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def report_stages(out: Path, seconds, label):
    """Where ours spent the run's time: stages.table of OUT, with the command's wall time."""
    data = stages.table(out, seconds)
    for line in stages.format_table(data, f"stages of {label}"):
        print(line)
    fixed = sum(value for name, value in data["fixed"] if name not in stages.END)
    print(f"  fixed start {fixed:.1f} s, end {sum(v for n, v in data['fixed'] if n in stages.END):.1f} s; "
          f"the tasks' wall time {data['task_wall']:.1f} s (their stages' sum "
          f"{sum(r[1] for r in data['rows'] if r[0] not in (stages.READ, stages.WRITING)):.1f} s and the client's)")
    return data


def against_stock(scratch: Path, assignments, students, seconds, notebooks, ours_load, our_scores=None, warm_s=None):
    """Stock nbgrader on the class in ``scratch / "submitted"``, right after ours: its time, the ratio, the loads
    (``warm_s``: ours on a kept cluster, its ratio too)."""
    before, ours_cpu = load(), CPU.get("ours", 0.0)
    stock_s, stock_scores = stock(scratch, assignments, students)
    report("stock nbgrader autograde", stock_s, notebooks, None, None)
    print(f"{'ratio stock / ours':<38}: {stock_s / seconds:.2f}x  (load average, 1 min: ours {ours_load:.2f}, "
          f"stock {before:.2f} -> {load():.2f}; {os.cpu_count()} cores)")
    if warm_s is not None:
        print(f"{'ratio stock / ours on a kept cluster':<38}: {stock_s / warm_s:.2f}x")
    print(f"{'CPU seconds, stock / ours':<38}: {CPU['last']:.1f} / {ours_cpu:.1f} = {CPU['last'] / max(ours_cpu, 1e-9):.2f}x "
          "(stock: its autograde commands; ours: the whole command, the sandboxes' processes where they were waited for)")
    if our_scores is not None:
        same = stock_scores == our_scores
        print(f"{'identical scores':<38}: {'yes' if same else 'NO'}")
        if not same:
            diff = {k: (v, our_scores.get(k)) for k, v in stock_scores.items() if our_scores.get(k) != v}
            print(f"differences (stock, ours): {diff}")
        return same
    return True


@contextlib.contextmanager
def kept_cluster(jobs, wanted, scheduler=None):
    """The address of a Dask cluster that outlives each `autograder grade` run: ``scheduler``'s, else a local one of
    ``jobs`` grading workers (as `dask scheduler` and `dask worker` would be, with the grader's settings); None when
    not ``wanted``."""
    if not wanted or scheduler:
        yield scheduler if wanted else None
        return
    import dask

    from autograder.grading.run import cluster

    with dask.config.set({**cluster.SCHEDULER_CONFIG, **cluster.WORKER_CONFIG, **cluster.WORKER_MEMORY_CONFIG}), \
            cluster.local_cluster(jobs) as local:
        yield local.scheduler_address


def warm_run(address, submitted: Path, out: Path, notebooks, set_up=True):
    """Grade ``submitted`` on the kept cluster at ``address``: with ``set_up``, once first to set its workers up for
    the course (not timed), then the run timed, which finds them set up. (Seconds, scores.)"""
    cold_cpu = CPU.get("ours", 0.0)  # the CPU of a kept cluster's workers is not this command's: not compared
    if set_up:
        ours(submitted, out.with_name(out.name + "-setting-up"), 0, address)
    seconds, scores, startup, idle = ours(submitted, out, 0, address)
    CPU["ours"] = cold_cpu
    report("  the same on a kept cluster, set up", seconds, notebooks, startup, idle)
    report_stages(out, seconds, "that run")
    return seconds, scores


def report(label, seconds, notebooks, startup, idle):
    print(f"{label:<38}: {seconds:7.1f} s  ({seconds / notebooks:.2f} s per notebook)")
    if startup:
        print(f"{'':<38}  Dask: cluster ready in {startup.group(1)} s, workers set up in {startup.group(2)} s")
    if idle:
        print(f"{'':<38}  workers idle while work remained: " + ", ".join(f"{s:.1f} s" for s in idle.values()))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--assignments", default="all", help="all, or ids separated by commas")
    parser.add_argument("--loop", action="store_true", help="also grade the class with one endless-loop student")
    parser.add_argument("--scheduler", help="grade ours on this Dask cluster instead of --jobs local workers")
    parser.add_argument("--no-stock", action="store_true", help="skip stock nbgrader (it takes minutes per assignment)")
    parser.add_argument("--mistakes", action="store_true",
                        help="also grade a class of the same size in which every student makes a typical mistake")
    parser.add_argument("--kernel-run", action="store_true",
                        help="also grade the class with --kernel-run (each notebook run twice, as before the one run)")
    parser.add_argument("--warm", action="store_true",
                        help="also grade each class on a Dask cluster kept between runs, once set up (--scheduler)")
    args = parser.parse_args(argv)
    assignments = assignment_ids() if args.assignments == "all" else args.assignments.split(",")
    if not assignments:
        sys.exit("no notebooks under solutions/ to benchmark")
    put_python_scripts_on_path()
    build_template(Settings(), assignments)  # cached, as on any run after the first
    read_libraries_once()
    students = [f"student-{n:02d}" for n in range(args.students)]
    notebooks = len(students) * len(assignments)
    where = f"on {args.scheduler}" if args.scheduler else f"--jobs {args.jobs}"
    print(f"{len(assignments)} assignment(s), {len(students)} perfect students: {notebooks} notebooks; "
          f"{os.cpu_count()} CPU cores")
    code = 0
    with tempfile.TemporaryDirectory(prefix="bench-") as folder, kept_cluster(args.jobs, args.warm, args.scheduler) as kept:
        scratch = Path(folder)
        write_class(scratch / "submitted", assignments, students)
        ours_load = load()
        seconds, our_scores, startup, idle = ours(scratch / "submitted", scratch / "ours", args.jobs, args.scheduler)
        report(f"autograder grade {where}", seconds, notebooks, startup, idle)
        report_phases(scratch / "ours", seconds, notebooks, startup, args.jobs)
        report_stages(scratch / "ours", seconds, f"the perfect class, {where}")
        if kept:
            warm_s, warm_scores = warm_run(kept, scratch / "submitted", scratch / "ours-warm", notebooks)
            code = code or int(warm_scores != our_scores)
        if not args.no_stock:  # right after ours, on the same class: the ratio under the same load
            code = code or int(not against_stock(scratch, assignments, students, seconds, notebooks, ours_load, our_scores,
                                                 warm_s if kept else None))
        if args.mistakes:
            mistaken = scratch / "mistaken"  # stock's course root too: nbgrader grades mistaken/submitted
            write_mistaken_class(mistaken / "submitted", assignments, students)
            wrong_load = load()
            wrong_s, wrong_scores, wrong_startup, wrong_idle = ours(mistaken / "submitted", scratch / "ours-mistaken",
                                                                   args.jobs, args.scheduler)
            report(f"a class making mistakes, {where}", wrong_s, notebooks, wrong_startup, wrong_idle)
            report_phases(scratch / "ours-mistaken", wrong_s, notebooks, wrong_startup, args.jobs)
            report_stages(scratch / "ours-mistaken", wrong_s, f"the class making mistakes, {where}")
            if kept:
                wrong_warm_s, wrong_warm_scores = warm_run(kept, mistaken / "submitted", scratch / "ours-mistaken-warm",
                                                           notebooks, set_up=False)  # set up for the perfect class
                code = code or int(wrong_warm_scores != wrong_scores)
            if not args.no_stock:  # scores may differ here (one mistake costs one unit in ours): not compared
                against_stock(mistaken, assignments, students, wrong_s, notebooks, wrong_load,
                              warm_s=wrong_warm_s if kept else None)
            lost = sum(our_scores.values()) - sum(wrong_scores.values())
            print(f"{'mistakes / perfect, per notebook':<38}: {wrong_s / seconds:.2f}x ({wrong_s / notebooks:.2f} s vs "
                  f"{seconds / notebooks:.2f} s); points lost to the mistakes: {lost:g}")
            if lost <= 0:
                print("the class making mistakes lost no points")
                code = 1
        if args.kernel_run:
            twice_s, twice_scores, twice_startup, twice_idle = ours(scratch / "submitted", scratch / "ours-kernel",
                                                                    args.jobs, args.scheduler, ["--kernel-run"])
            report("the same with --kernel-run", twice_s, notebooks, twice_startup, twice_idle)
            report_phases(scratch / "ours-kernel", twice_s, notebooks, twice_startup, args.jobs)
            print(f"{'ratio --kernel-run / one run':<38}: {twice_s / seconds:.2f}x; identical scores: "
                  f"{'yes' if twice_scores == our_scores else 'NO'}")
            code = code or int(twice_scores != our_scores)
        if args.loop:
            write_class(scratch / "with-loop", assignments, students, endless="student-loop")
            loop_s, loop_scores, startup, idle = ours(scratch / "with-loop", scratch / "ours-loop", args.jobs, args.scheduler)
            report(f"the same + 1 endless loop, {where}", loop_s, notebooks + len(assignments), startup, idle)
            budget = Settings().notebook_budget_s
            looped = task_seconds(scratch / "ours-loop", "student-loop")
            print(f"{'the endless-loop student':<38}: {looped:7.1f} s of a worker for {len(assignments)} notebook(s), "
                  f"one with the loop (its budget: {budget} s, in all)")
            print(f"{'what the loop cost the run':<38}: {loop_s - seconds:+.1f} s of wall time")
            if any(v != our_scores[k] for k, v in loop_scores.items() if k[0] != "student-loop"):
                print("the endless loop changed another student's scores")
                code = 1
    return code


if __name__ == "__main__":
    sys.exit(main())
