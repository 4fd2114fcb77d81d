"""nbgrader configuration of the Korean edition (한국어판): the course's own settings, this folder as the course.

ko/ has the course's layout: ko/solutions/ is the source (the same code, graded cells and grade ids as
solutions/, in Korean), ko/course/ the release. Stock nbgrader works here as at the root, e.g.

    cd ko && nbgrader generate_assignment 01-attention
"""
import os

_here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(os.path.dirname(_here), "nbgrader_config.py"), encoding="utf-8") as _shared:
    exec(compile(_shared.read(), "nbgrader_config.py", "exec"))  # noqa: S102  (the course's own file)

c = get_config()  # noqa: F821
c.CourseDirectory.root = _here
c.Exchange.root = os.path.join(_here, "exchange")
