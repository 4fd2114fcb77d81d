"""nbgrader configuration of the course (instructor side).

The repository root is nbgrader's course directory: solutions/ is the source
(notebooks with solutions and hidden tests), course/ the release.
"""
import os

c = get_config()  # noqa: F821

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))  # absolute: nbgrader warns about "."
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "course"

# A blank is small: what replaces each ### BEGIN SOLUTION ... ### END SOLUTION region.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Notebooks are released without outputs, and they may import the learner helper package.
c.GenerateAssignment.create_assignment = True

# nbgrader's exchange (formgrader's Release and Collect buttons): a folder of the course, which git
# ignores, so that formgrader works without a system-wide /usr/local/share/nbgrader/exchange. A course
# whose learners fetch and submit through a shared exchange names the shared folder here instead.
c.Exchange.root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exchange")

# Grading (nbgrader autograde; `autograder grade` reads this file too) -----------------
# A cell that runs longer than this is interrupted (the notebooks run whole in < 30 s).
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True
# nbgrader zeroes a test cell that writes anything to stderr: ignore warnings there.
c.IgnorePattern.pattern = r"(?i)warn"
# A deleted (or de-tagged) test cell is put back from the source and graded.
c.OverwriteCells.add_missing_cells = True
# A cell that prints a flood keeps its first lines only; long tracebacks are cut.
c.LimitOutput.max_lines = 200
c.LimitOutput.max_traceback = 60
