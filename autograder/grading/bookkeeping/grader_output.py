"""The grader's message in a graded cell: an error output that nbgrader scores 0, told apart from any output of the
learner's code by its name (ERROR_OUTPUT). Written by the recorded run and the scratch course, read by the feedback
page's preprocessors; a module of its own so that none of them imports another for it."""
import nbformat

ERROR_OUTPUT = "OutOfKernelCheck"


def message_output(text):
    """The grader's message ``text`` as a graded cell's error output (nbgrader scores a cell with one 0)."""
    return nbformat.v4.new_output("error", ename=ERROR_OUTPUT, evalue=text, traceback=[f"{ERROR_OUTPUT}: {text}"])
