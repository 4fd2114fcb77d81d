"""nbgrader configuration of the course (instructor side).

The repository root is nbgrader's course directory: solutions/ is the source
(notebooks with solutions and hidden tests), course/ the release.
"""
c = get_config()  # noqa: F821

c.CourseDirectory.root = "."
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "course"

# A blank is small: what replaces each ### BEGIN SOLUTION ... ### END SOLUTION region.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Notebooks are released without outputs, and they may import the learner helper package.
c.GenerateAssignment.create_assignment = True
