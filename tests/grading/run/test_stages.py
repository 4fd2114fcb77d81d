"""run/stages.py: a stage's time is its own (nested stages are not counted twice), the stages and what none
claimed add up to the task's wall time, and `make bench`'s table has a row for every stage.

The same is checked on a real graded run in tests/grading/run/test_dask.py (test_every_stage_is_timed_and_they_add_up).
"""
import json
import time

from autograder.grading.run import stages


def test_nested_stages_are_exclusive_and_add_up_to_the_wall_time():
    with stages.recording() as record:
        with stages.stage(stages.RUN):
            time.sleep(0.05)
            with stages.stage(stages.VERDICTS):
                time.sleep(0.1)
            time.sleep(0.05)
        time.sleep(0.02)  # no stage: the rest of the task
        data = record.finish(2)
    wall = data["wall"]
    assert wall[stages.RUN] >= 0.09 and wall[stages.VERDICTS] >= 0.09 and wall[stages.OTHER] >= 0.015, wall
    # the inner stage's 0.1 s is not the outer one's too: the stages add up to the wall time, no more
    assert abs(sum(wall.values()) - data["total_wall"]) < 0.002, data
    assert data["notebooks"] == 2


def test_outside_a_recording_a_stage_does_nothing():
    with stages.stage(stages.RUN):
        pass
    with stages.recording() as record:
        pass
    with stages.stage(stages.RUN):  # the recording is over: nothing is added to it
        time.sleep(0.01)
    assert record.wall == {}


def test_the_table_has_every_stage_and_the_fixed_start(tmp_path):
    for student, wall in (("ada", 1.0), ("bob", 3.0)):
        state = tmp_path / "state" / student / "01-attention.json"
        state.parent.mkdir(parents=True)
        record = {"wall": {stages.RUN: wall / 2, stages.AUTOGRADE: wall / 4, stages.UNIT_SERVER: 0.5,
                           stages.OTHER: wall / 4 - 0.5 if wall > 2 else 0.0},
                  "cpu": {stages.AUTOGRADE: wall / 4}, "total_wall": wall, "total_cpu": wall / 4, "notebooks": 1}
        state.write_text(json.dumps({"key": "k", "records": [], "timing": {"started": 10.0, "ended": 10.0 + wall,
                                                                           "stages": record}}))
    stages.write_run(tmp_path, {"fixed": {stages.CLUSTER: 0.7, stages.SETUP: 6.0}, "client": {stages.READ: 0.1},
                                "grade_s": 20.0})
    data = stages.table(tmp_path, wall_s=21.5)
    assert [row[0] for row in data["rows"]] == list(stages.STAGES)
    rows = {row[0]: row for row in data["rows"]}
    assert rows[stages.RUN][1] == 2.0 and rows[stages.RUN][2] == 1.0  # total, per notebook
    assert abs(sum(row[3] for row in data["rows"]) - 100) < 1e-6
    fixed = dict(data["fixed"])
    assert fixed[stages.UNIT_SERVER] == 1.0  # a worker's first notebook waits for it: once per worker, not per notebook
    assert fixed[stages.PROCESS] == 1.5 and fixed[stages.CLUSTER] == 0.7
    assert set(fixed) == set(stages.FIXED + stages.END)
    lines = stages.format_table(data, "a class")
    assert all(any(line.strip().startswith(name) for line in lines) for name in stages.STAGES + stages.FIXED)
