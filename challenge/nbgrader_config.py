"""nbgrader configuration of the challenge level: the course's own settings, this folder as the course.

challenge/ has the course's layout: challenge/solutions/ is the source (the same graded cells, grade ids,
points and hidden tests as solutions/, with every function that holds a blank blank below its docstring,
autograder/levels.py), challenge/course/ the release. Stock nbgrader works here as at the root, e.g.

    cd challenge && nbgrader generate_assignment 01-attention
"""
import os

_here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(os.path.dirname(_here), "nbgrader_config.py"), encoding="utf-8") as _shared:
    exec(compile(_shared.read(), "nbgrader_config.py", "exec"))  # noqa: S102  (the course's own file)

c = get_config()  # noqa: F821
c.CourseDirectory.root = _here
c.Exchange.root = os.path.join(_here, "exchange")
