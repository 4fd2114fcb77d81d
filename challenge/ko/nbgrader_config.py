"""nbgrader configuration of the Korean edition's challenge level (한국어판 도전 단계): the course's own
settings, this folder as the course.

challenge/ko/ has the course's layout: challenge/ko/solutions/ is the source (ko/solutions/ with every
function that holds a blank blank below its docstring, autograder/levels.py), challenge/ko/course/ the
release. Stock nbgrader works here as at the root, e.g.

    cd challenge/ko && nbgrader generate_assignment 01-attention
"""
import os

_here = os.path.dirname(os.path.abspath(__file__))
_root = os.path.dirname(os.path.dirname(_here))
with open(os.path.join(_root, "nbgrader_config.py"), encoding="utf-8") as _shared:
    exec(compile(_shared.read(), "nbgrader_config.py", "exec"))  # noqa: S102  (the course's own file)

c = get_config()  # noqa: F821
c.CourseDirectory.root = _here
c.Exchange.root = os.path.join(_here, "exchange")
